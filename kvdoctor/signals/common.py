"""What every signal module shares: the collector that refuses names outside the catalog, and
the reasons and number forms the signals are set with (kvdoctor.signals.compute)."""

from __future__ import annotations

import math

from kvdoctor.bundle.model import Bundle
from kvdoctor.observations import Observations
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.model import Scalar, SignalSet


class Out:
    """Collects signals, refusing names outside the catalog (a typo must fail loudly)."""

    def __init__(self) -> None:
        self.ss = SignalSet()

    def set(
        self, name: str, value: Scalar, provenance: str = "", reason: str | None = None
    ) -> None:
        if name not in SIGNALS:
            raise KeyError(f"signal {name!r} is not in the catalog")
        if isinstance(value, float) and not math.isfinite(value):
            value, reason = None, reason or "not a finite number"
        self.ss.set(name, value, provenance if value is not None else "", reason)


def not_checked_reason(bundle: Bundle, what: str, default: str) -> str:
    for nc in bundle.manifest.not_checked:
        if nc.what == what:
            return f"{what} not checked: {nc.why}"
    return default


def too_few(n: int) -> str:
    if n == 0:
        return "no good scrape in the bundle"
    return "only one good scrape; a window needs two"


def as_count(v: float | None) -> Scalar:
    """Counts stay integers in the report when they are whole numbers."""
    if v is None:
        return None
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


def absent(obs: Observations, name: str, window: bool = False) -> str:
    if not obs.times:
        return "no good scrape in the bundle"
    if not obs.has(name):
        bad = obs.impossible.get(name)
        if bad:
            # Present, but no value was valid data: never read as absent.
            return (
                f"metric {name} present but invalid in every scrape ({bad} impossible "
                "values: NaN, infinite, negative or out of range)"
            )
        return f"metric {name} absent from every scrape"
    if window and len(obs.times) < 2:
        return "only one good scrape; a window needs two"
    return "not available"
