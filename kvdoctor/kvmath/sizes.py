"""Exact sizes: parse "80GiB" / "16GB" into bytes, and print bytes for people."""

from __future__ import annotations

import re
from fractions import Fraction

from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath.model import GiB, KiB, MiB, TiB

_SIZE_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": KiB,
    "mib": MiB,
    "gib": GiB,
    "tib": TiB,
    "ki": KiB,
    "mi": MiB,
    "gi": GiB,
    "ti": TiB,
}
_SIZE_RE = re.compile(r"^\s*(\d[\d_,]*(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(text: str) -> int:
    """Exact bytes of a size such as "80GiB", "16GB", "3 GiB", "1.5 GiB" or "1024".

    GiB/MiB/KiB (and Ki/Mi/Gi) are powers of 2; GB/MB/KB are powers of 10. A bare "G" is refused
    because both readings are common and they differ by 7 %.
    """
    m = _SIZE_RE.match(str(text))
    if not m:
        raise KvdoctorError(f"cannot read size {text!r} (examples: 80GiB, 16GB, 512MiB)")
    number, unit = m.group(1).replace("_", "").replace(",", ""), m.group(2).lower()
    if unit not in _SIZE_UNITS:
        raise KvdoctorError(
            f"unknown size unit {m.group(2)!r} in {text!r} "
            "(use B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        )
    value = Fraction(number) * _SIZE_UNITS[unit]
    if value.denominator != 1:
        raise KvdoctorError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_count(text: str, label: str = "count") -> int:
    """A non-negative integer such as "8192", "8,192" or "8_192".

    No k/M suffixes: "32k" is 32,000 to some and 32,768 to others.
    """
    cleaned = str(text).strip().replace(",", "").replace("_", "")
    if not cleaned.isdigit():
        raise KvdoctorError(f"{label} must be a whole number, got {text!r}")
    return int(cleaned)


def format_bytes(n: int | None) -> str:
    """Human size with binary units and the exact count, e.g. "128 KiB (131,072 B)"."""
    if n is None:
        return "unknown"
    sign = "-" if n < 0 else ""
    a = abs(n)
    for unit, size in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if a >= size:
            q = Fraction(a, size)
            shown = f"{int(q):,}" if q.denominator == 1 else f"{float(q):,.2f}"
            return f"{sign}{shown} {unit} ({sign}{a:,} B)"
    return f"{sign}{a:,} B"


def short_bytes(n: int | None) -> str:
    """Compact human size for tables, e.g. "512 MiB", "12.50 GiB" (binary units)."""
    if n is None:
        return "unknown"
    sign = "-" if n < 0 else ""
    a = abs(n)
    for unit, size in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if a >= size:
            q = Fraction(a, size)
            shown = f"{int(q):,}" if q.denominator == 1 else f"{float(q):,.2f}"
            return f"{sign}{shown} {unit}"
    return f"{sign}{a:,} B"
