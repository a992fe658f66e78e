"""Signals: named numbers over the capture window, each with provenance or a reason it is null.

Rules read only a :class:`SignalSet`. Besides scalar values, a few gauges keep their series over
the window so a rule can say "for at least half of the window" (``for_fraction``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from kvdoctor.signals.catalog import SIGNALS

Scalar = float | int | str | bool | None


class SignalValue(NamedTuple):
    name: str
    value: Scalar
    # Where the number came from, e.g. "metrics: vllm:kv_cache_usage_perc (max over 30 scrapes)".
    provenance: str = ""
    # Why the value is None (required when it is), e.g. "metric absent from every scrape".
    reason: str | None = None


@dataclass
class SignalSet:
    values: dict[str, SignalValue] = field(default_factory=dict)
    # Time series over the window for gauge-like signals: name -> [(t, value), ...] in time order.
    # Names: "kv_usage", "running", "waiting", "preemptions" (cumulative count since window start).
    series: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # Per-engine / per-model scalar values when the endpoint serves several (label -> name -> v).
    per_engine: dict[str, dict[str, Scalar]] = field(default_factory=dict)
    # Samples left out as impossible values (metric name -> count); the report lists them.
    impossible: dict[str, int] = field(default_factory=dict)
    # Series repeated within a scrape (metric name -> count of repeats); the first value kept.
    repeated: dict[str, int] = field(default_factory=dict)
    # Counter samples left out because that one series dropped without a restart (name -> count).
    decreased: dict[str, int] = field(default_factory=dict)
    # How the report states a value that is an estimate (name -> text): the interpolated
    # latency percentiles as the bucket range that holds them ("between 1 and 2.5 s"). Set by
    # the pipeline from the window's histograms; playbook placeholders print it.
    shown: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> Scalar:
        """The value of catalog signal ``name`` (None when it could not be computed).

        Reads are checked as writes are (kvdoctor.signals.common.Out): a name outside the
        catalog is a typo that would otherwise read as "unknown" for ever, so it fails loudly.
        """
        if name not in SIGNALS:
            raise KeyError(f"signal {name!r} is not in the catalog (kvdoctor/signals/catalog.py)")
        sv = self.values.get(name)
        return None if sv is None else sv.value

    def set(
        self, name: str, value: Scalar, provenance: str = "", reason: str | None = None
    ) -> None:
        if value is None and reason is None:
            reason = "not available"
        self.values[name] = SignalValue(name, value, provenance, reason if value is None else None)

    def flat(self) -> dict[str, Scalar]:
        """Name -> value, sorted by name (the ``signals`` object of the JSON report)."""
        return {k: self.values[k].value for k in sorted(self.values)}

    def fraction_of_window(self, series_name: str, op: str, threshold: float) -> float | None:
        """Share of the samples of ``series_name`` for which ``value <op> threshold`` holds."""
        samples = self.series.get(series_name)
        if not samples:
            return None
        compare = _OPS[op]
        hits = sum(1 for _, v in samples if compare(v, threshold))
        return hits / len(samples)


_OPS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
}
