"""What a latency histogram can honestly say about a percentile: a range, not a point.

The signals keep Prometheus-style interpolated percentiles (the JSON contract, and what
dashboards show), but interpolation invents a value inside a bucket: with vLLM's queue-time
buckets (first bound 0.3 s) every window of short waits read "150 ms / 285 ms / 297 ms". The
report states what the buckets support instead: "≤ 300 ms, first bucket", "between 150 and
300 ms", tightened by two facts that hold per request and so for every percentile:

* Markov's inequality on the exact window mean (durations are ≥ 0): ``p_q ≤ mean / (1 - q)``,
  so a percentile never contradicts the mean beside it;
* queue time and prefill time are parts of the time to first token, so their ``p_q`` is at
  most TTFT's ``p_q``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from kvdoctor.report import fmt

QUANTILES: tuple[tuple[str, float], ...] = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))
# Histograms whose percentiles are parts of the time to first token (per request).
PARTS_OF_TTFT = ("queue_time", "prefill_time")


class Bound(NamedTuple):
    """``lo < value ≤ hi`` (``hi`` may be infinite: the +Inf bucket)."""

    lo: float
    hi: float
    # The histogram's own bucket, before any tightening: says "first bucket" when it applies.
    first_bucket: bool = False
    tightened: bool = False
    # What set ``hi`` when it is not the bucket's own bound: "mean" (Markov on the exact mean),
    # "ttft" (a part of the time to first token), "order" (p50 ≤ p95 ≤ p99), "" (the bucket).
    by: str = ""

    def text(self) -> str:
        """The range as the report states it; an upper end derived from the mean says so, so it
        never reads as a measurement."""
        if math.isinf(self.hi):
            return f"> {fmt.secs(self.lo)}, top bucket"
        suffix = ", from the mean" if self.tightened and self.by == "mean" else ""
        if self.lo <= 0:
            if self.first_bucket and not self.tightened:
                suffix = ", first bucket"
            return f"≤ {fmt.secs(self.hi)}{suffix}"
        if self.hi <= self.lo:
            return fmt.secs(self.hi) + suffix
        return f"between {secs_range(self.lo, self.hi)}{suffix}"

    def as_json(self) -> dict[str, float | str | bool | None]:
        """``lo``/``hi`` in seconds (``hi`` null for the +Inf bucket) and what set ``hi``."""
        return {
            "lo": self.lo,
            "hi": None if math.isinf(self.hi) else self.hi,
            "hi_from": (self.by or "bucket") if self.tightened else "bucket",
            "first_bucket": self.first_bucket,
        }

    @classmethod
    def from_json(cls, lo: float, hi: float | None, hi_from: str, first_bucket: bool) -> Bound:
        tightened = hi_from != "bucket"
        return cls(
            lo,
            math.inf if hi is None else hi,
            first_bucket,
            tightened=tightened,
            by=hi_from if tightened else "",
        )


def secs_range(lo: float, hi: float) -> str:
    """ "150 and 300 ms" when both ends share a unit, else "500 ms and 1.5 s"."""
    a, b = fmt.secs(lo), fmt.secs(hi)
    a_num, _, a_unit = a.partition(" ")
    _, _, b_unit = b.partition(" ")
    return f"{a_num} and {b}" if a_unit == b_unit else f"{a} and {b}"


def quantile_bucket(q: float, cumulative: Sequence[tuple[float, float]]) -> Bound | None:
    """The bucket holding rank ``q × total`` of a cumulative (upper bound, count) histogram."""
    if not cumulative or not 0.0 < q <= 1.0:
        return None
    running = 0.0
    mono: list[tuple[float, float]] = []
    for le, c in sorted(cumulative):
        running = max(running, c)
        mono.append((le, running))
    total = mono[-1][1]
    if total <= 0:
        return None
    rank = q * total
    prev_le = 0.0
    for i, (le, c) in enumerate(mono):
        if c >= rank and c > 0:
            lower = prev_le if i > 0 else min(0.0, le)
            return Bound(lo=max(0.0, lower), hi=le, first_bucket=i == 0)
        prev_le = le
    return None


def _tighten(bound: Bound, cap: float | None, by: str) -> Bound:
    if cap is None or not math.isfinite(cap) or cap >= bound.hi:
        return bound
    return Bound(bound.lo, max(cap, bound.lo), bound.first_bucket, tightened=True, by=by)


def contradicts_ttft(part: Bound, ttft: Bound) -> bool:
    """A part of the time to first token (queue, prefill) whose percentile's bucket lies wholly
    above the TTFT's same percentile: impossible for one set of requests, so the histograms
    disagree (a bundle stitched from different windows or servers)."""
    return part.lo >= ttft.hi


def percentile_bounds(
    buckets: Mapping[str, Sequence[tuple[float, float]]],
    means: Mapping[str, float | None],
) -> dict[str, dict[str, Bound]]:
    """``{histogram: {"p50": Bound, ...}}`` for every histogram with observations."""
    out: dict[str, dict[str, Bound]] = {}
    for name in sorted(buckets, key=lambda n: (n in PARTS_OF_TTFT, n)):  # TTFT first
        per_q: dict[str, Bound] = {}
        mean = means.get(name)
        for q_name, q in QUANTILES:
            bound = quantile_bucket(q, buckets[name])
            if bound is None:
                continue
            if mean is not None and mean >= 0:
                bound = _tighten(bound, mean / (1.0 - q), "mean")
            ttft = out.get("ttft", {}).get(q_name)
            # A part whose whole bucket lies above the TTFT's contradicts it (each request's
            # part is within its TTFT): the bucket stays as measured, and the report says the
            # two histograms disagree (contradicts_ttft) instead of a tightened false range.
            if name in PARTS_OF_TTFT and ttft is not None and not contradicts_ttft(bound, ttft):
                bound = _tighten(bound, ttft.hi, ttft.by if ttft.tightened else "ttft")
            per_q[q_name] = bound
        # p50 ≤ p95 ≤ p99 holds bucket by bucket; keep it after tightening as well.
        names = [q for q, _ in QUANTILES if q in per_q]
        for lower_q, upper_q in itertools.pairwise(names):
            a, b = per_q[lower_q], per_q[upper_q]
            if a.hi > b.hi:
                per_q[lower_q] = Bound(
                    a.lo, max(b.hi, a.lo), a.first_bucket, tightened=True, by=b.by or "order"
                )
        if per_q:
            out[name] = per_q
    return out


def range_text(lo: float, hi: float | None, hi_from: str, first_bucket: bool) -> str:
    """A report's ``latency`` entry (report/1.4) as the Markdown states it."""
    return Bound.from_json(lo, hi, hi_from, first_bucket).text()


# Ratios built on an interpolated latency percentile (numerator, denominator): the report states
# them as the range the histogram buckets support, never as the point ratio (docs/report.md).
RATIOS_OF_PERCENTILES: dict[str, tuple[str, str]] = {
    "ttft_regression": ("ttft_p95", "ttft_reference"),
    "ttft_spread": ("ttft_p99", "ttft_p50"),
    "itl_spread": ("itl_p99", "itl_p50"),
    "itl_over_weights_floor": ("itl_p50", "weights_floor"),
}


def ratio_range(numerator: Bound | float | None, denominator: Bound | float | None) -> str | None:
    """A ratio one of whose sides is an interpolated percentile, as the buckets support it:
    "between 126× and 253×", "at least 126×" (a side in the +Inf or first bucket), or None
    when neither side is a bucket range (the point ratio is then as good as its inputs)."""
    if not isinstance(numerator, Bound) and not isinstance(denominator, Bound):
        return None

    def ends(x: Bound | float | None) -> tuple[float, float] | None:
        if isinstance(x, Bound):
            return x.lo, x.hi
        if isinstance(x, int | float) and math.isfinite(x):
            return float(x), float(x)
        return None

    n, d = ends(numerator), ends(denominator)
    if n is None or d is None:
        return None
    lo = n[0] / d[1] if d[1] > 0 and math.isfinite(d[1]) else 0.0
    hi = n[1] / d[0] if d[0] > 0 and math.isfinite(n[1]) else math.inf
    if math.isinf(hi):
        return f"at least {lo:.3g}×" if lo > 0 else None
    if lo <= 0:
        return f"at most {hi:.3g}×"
    if f"{lo:.3g}" == f"{hi:.3g}":
        return f"{hi:.3g}×"
    return f"between {lo:.3g}× and {hi:.3g}×"
