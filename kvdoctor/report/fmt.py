"""Deterministic number formatting for the report (the same value always gives the same bytes).

Every formatter returns plain text made of digits, units and ASCII punctuation that has no
Markdown meaning, and an em dash for a missing value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime

from kvdoctor.signals.catalog import SIGNALS

MISSING = "—"
_IEC = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def _sig(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits, thousands separators, no exponent."""
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def num(value: object) -> str:
    """Integers exactly (with thousands separators), other numbers to 3 significant digits."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    f = _finite(value)
    if f is None:
        return MISSING
    if isinstance(value, int) or (f.is_integer() and abs(f) < 1e15):
        return f"{int(f):,}"
    return _sig(f)


def pct(value: object) -> str:
    """A 0..1 fraction as a percentage with at most one decimal (97.3 %, 100 %)."""
    f = _finite(value)
    if f is None:
        return MISSING
    text = f"{f * 100:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return f"{'0' if text == '-0' else text} %"


def secs(value: object) -> str:
    """A duration in seconds as ms below one second, seconds above (3 significant digits)."""
    f = _finite(value)
    if f is None:
        return MISSING
    # Decide on the rounded figure: 0.9999 s is "1 s", never "1,000 ms".
    if abs(f) < 1 and abs(float(_sig(f * 1000).replace(",", ""))) < 1000:
        return f"{_sig(f * 1000)} ms"
    return f"{_sig(f)} s"


def nbytes(value: object) -> str:
    """Bytes in IEC units (1 KiB = 1,024 B), exact bytes below 1 KiB."""
    f = _finite(value)
    if f is None:
        return MISSING
    unit = 0
    while abs(f) >= 1024 and unit < len(_IEC) - 1:
        f /= 1024
        unit += 1
    if unit == 0:
        return f"{int(f):,} B"
    return f"{_sig(f)} {_IEC[unit]}"


def ratio(value: object) -> str:
    f = _finite(value)
    return MISSING if f is None else f"{_sig(f)}×"


def rate(value: object, unit: str = "/s") -> str:
    f = _finite(value)
    return MISSING if f is None else f"{_sig(f)}{unit}"


def utc(value: object) -> str:
    """A bundle timestamp (unix seconds) as ISO 8601 UTC to the second."""
    f = _finite(value)
    if f is None:
        return MISSING
    return datetime.fromtimestamp(f, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _per_s(value: object) -> str:
    return rate(value, "/s")


def _tok_per_s(value: object) -> str:
    return rate(value, " tok/s")


_BY_UNIT: dict[str, Callable[[object], str]] = {
    "fraction": pct,
    "s": secs,
    "bytes": nbytes,
    "ratio": ratio,
    "1/s": _per_s,
    "tokens/s": _tok_per_s,
    # Sizes the log and the flags state in their own units (vLLM's GiB lines, --cpu-offload-gb).
    "GiB": lambda v: f"{num(v)} GiB",
    "GB": lambda v: f"{num(v)} GB",
}


def signal_value(name: str, value: object, unit: str | None = None) -> str | None:
    """Format ``value`` by the catalog unit of signal ``name`` (``unit`` for a value the
    catalog does not hold: a rule's derived value, whose unit the caller knows).

    Returns ``None`` for text values (names, labels from the server): the caller escapes them,
    because they are untrusted, while everything returned here is safe by construction.
    """
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return None
    if _finite(value) is None:
        return MISSING
    definition = SIGNALS.get(name)
    unit = definition.unit if definition else unit
    formatter = _BY_UNIT.get(unit) if unit else None
    return formatter(value) if formatter else num(value)
