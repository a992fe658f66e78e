"""Latency percentiles as the histogram buckets state them, never an invented point."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from kvdoctor.report import fmt
from kvdoctor.report.bounds import Bound, contradicts_ttft, percentile_bounds, quantile_bucket

# vLLM 0.32's queue-time buckets start at 0.3 s.
QUEUE = [(0.3, 10.0), (0.5, 10.0), (0.8, 10.0), (math.inf, 10.0)]


def test_a_first_bucket_percentile_is_a_bound_not_a_point() -> None:
    b = percentile_bounds({"queue_time": QUEUE}, {})["queue_time"]
    assert [b[q].text() for q in ("p50", "p95", "p99")] == ["≤ 300 ms, first bucket"] * 3


def test_the_mean_caps_a_percentile() -> None:
    # The case: a mean of 0.0197 ms cannot sit beside a p50 of 150 ms.
    b = percentile_bounds({"queue_time": QUEUE}, {"queue_time": 0.0197e-3})["queue_time"]
    # A bound derived from the mean says so (issue 24): it is not a measurement.
    assert b["p50"].text() == "≤ 0.0394 ms, from the mean"
    assert b["p99"].hi <= 0.0197e-3 / 0.01 + 1e-12


def test_between_two_bounds_and_the_top_bucket() -> None:
    hist = [(0.1, 0.0), (0.25, 50.0), (0.5, 90.0), (math.inf, 100.0)]
    b = percentile_bounds({"ttft": hist}, {})["ttft"]
    assert b["p50"].text() == "between 100 and 250 ms"
    assert b["p95"].text() == "> 500 ms, top bucket"


def test_queue_and_prefill_never_above_ttft() -> None:
    ttft = [(0.01, 0.0), (0.02, 100.0), (math.inf, 100.0)]
    prefill = [(0.3, 100.0), (math.inf, 100.0)]
    b = percentile_bounds({"ttft": ttft, "prefill_time": prefill}, {})
    for q in ("p50", "p95", "p99"):
        assert b["prefill_time"][q].hi <= b["ttft"][q].hi
    assert b["prefill_time"]["p50"].text() == "≤ 20 ms"


def test_a_part_wholly_above_ttft_keeps_its_bucket_and_is_called_a_contradiction() -> None:
    # Every request's prefill is within its TTFT: a prefill p50 bucket (0.8, 1] above a TTFT
    # p50 of at most 0.75 s says the two histograms disagree (external case zzi-glm45), and
    # tightening it to "0.8 s, from the TTFT" would state a range neither histogram holds.
    ttft = [(0.5, 0.0), (0.75, 60.0), (1.0, 100.0), (math.inf, 100.0)]
    prefill = [(0.8, 0.0), (1.0, 100.0), (math.inf, 100.0)]
    b = percentile_bounds({"ttft": ttft, "prefill_time": prefill}, {})
    assert b["prefill_time"]["p50"] == Bound(0.8, 1.0)
    assert contradicts_ttft(b["prefill_time"]["p50"], b["ttft"]["p50"])
    assert not contradicts_ttft(Bound(0.5, 1.0), b["ttft"]["p50"])


def test_units_switch_on_the_rounded_figure() -> None:
    assert fmt.secs(0.99999) == "1 s"
    assert fmt.secs(0.9994) == "999 ms"
    assert Bound(0.75, 1.0).text() == "between 750 ms and 1 s"


@given(
    counts=st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=8),
    mean_factor=st.floats(min_value=0.0, max_value=2.0),
)
def test_bounds_are_ordered_and_contain_the_bucket_of_each_rank(
    counts: list[int], mean_factor: float
) -> None:
    bounds = [0.001 * 2**i for i in range(len(counts))]
    cumulative, running = [], 0
    for le, c in zip(bounds, counts, strict=True):
        running += c
        cumulative.append((le, float(running)))
    cumulative.append((math.inf, float(running)))
    if running == 0:
        assert percentile_bounds({"itl": cumulative}, {}) == {}
        return
    b = percentile_bounds({"itl": cumulative}, {"itl": bounds[-1] * mean_factor})["itl"]
    assert b["p50"].lo <= b["p95"].lo <= b["p99"].lo
    assert b["p50"].hi <= b["p95"].hi <= b["p99"].hi
    for q, qv in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        bucket = quantile_bucket(qv, cumulative)
        assert bucket is not None and b[q].lo == bucket.lo and b[q].hi <= bucket.hi


def test_a_ratio_over_an_interpolated_percentile_is_stated_as_its_range() -> None:
    from kvdoctor.report.bounds import Bound, ratio_range

    # TTFT p95 somewhere in the (10 s, 20 s] bucket against a 79.2 ms quiet mean: the point
    # ratio (196×) is not a measurement; the buckets support 126× to 253×.
    assert ratio_range(Bound(10.0, 20.0), 0.0792) == "between 126× and 253×"
    # p99 over p50 with both in buckets: the widest ratio the two ranges allow.
    assert ratio_range(Bound(10.0, 20.0), Bound(0.05, 0.08)) == "between 125× and 400×"
    # A numerator in the +Inf bucket bounds the ratio from below only.
    assert ratio_range(Bound(5.0, math.inf), 0.01) == "at least 500×"
    # A denominator in the first bucket (lower end 0) does the same.
    assert ratio_range(Bound(2.5, 5.0), Bound(0.0, 0.01, first_bucket=True)) == "at least 250×"
    # Neither side a bucket range: the point ratio stands, nothing to restate.
    assert ratio_range(2.0, 0.5) is None


def test_an_evidence_row_states_a_percentile_ratio_as_its_range() -> None:
    from kvdoctor.report.render import _Numbers

    # ITL p99 in the +Inf bucket above 1 s, p50 in the first bucket (≤ 10 ms): the table says
    # "at least 100×", never the 423× the interpolated points divide to.
    numbers = _Numbers(
        {"itl": {"p99": Bound(1.0, math.inf), "p50": Bound(0.0, 0.01, first_bucket=True)}},
        signals={"itl_p99": 4.23, "itl_p50": 0.01},
    )
    assert numbers.value("itl_spread", 423.0) == "at least 100×"
    # A derived side the report does not hold follows from the ratio: TTFT p95 in (10, 20] s
    # at 196× its quiet reference (79.2 ms) is 126× to 253×.
    numbers = _Numbers({"ttft": {"p95": Bound(10.0, 20.0)}}, signals={"ttft_p95": 15.5})
    assert numbers.value("ttft_regression", 15.5 / 0.0792) == "between 126× and 253×"
    # A ratio of exact values stays as it is.
    assert numbers.value("prompt_turnover", 0.37) == "0.37×"
