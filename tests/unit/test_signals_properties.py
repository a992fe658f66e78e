"""Property tests: histogram-window quantiles and counter-reset handling."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.observations import histogram_quantile, increase, observe

bounds_st = st.lists(
    st.floats(min_value=0.001, max_value=1e4, allow_nan=False), min_size=1, max_size=12, unique=True
).map(sorted)


@st.composite
def histograms(draw: st.DrawFn) -> list[tuple[float, float]]:
    bounds = draw(bounds_st)
    counts = draw(
        st.lists(st.integers(0, 1000), min_size=len(bounds) + 1, max_size=len(bounds) + 1)
    )
    cum = 0
    out = []
    for le, c in zip([*bounds, math.inf], counts, strict=True):
        cum += c
        out.append((le, float(cum)))
    return out


@given(histograms(), st.lists(st.floats(0.0, 1.0), min_size=2, max_size=8))
def test_quantiles_are_monotone_in_q(hist: list[tuple[float, float]], qs: list[float]) -> None:
    values = [histogram_quantile(q, hist) for q in sorted(qs)]
    if hist[-1][1] == 0:
        assert all(v is None for v in values)
        return
    finite = [v for v in values if v is not None]
    assert len(finite) == len(values)
    assert all(a <= b + 1e-9 * max(1.0, abs(b)) for a, b in itertools.pairwise(finite))


@given(histograms(), st.floats(0.0, 1.0))
def test_quantile_lies_inside_its_bucket(hist: list[tuple[float, float]], q: float) -> None:
    total = hist[-1][1]
    v = histogram_quantile(q, hist)
    if total == 0:
        assert v is None
        return
    assert v is not None
    rank = q * total
    # The bucket holding the rank: first one whose cumulative count reaches it (and is > 0).
    prev_le, _prev_c = 0.0, 0.0
    for le, c in hist:
        if c >= rank and c > 0:
            lower = prev_le
            upper = le if math.isfinite(le) else prev_le
            assert lower - 1e-9 <= v <= upper + 1e-9 * max(1.0, upper)
            break
        prev_le, _prev_c = le, c


@given(st.integers(1, 50), st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_quantile_is_exact_on_uniform_buckets(per_bucket: int, q: float) -> None:
    # Observations spread evenly: n per 0.1-wide bucket over [0, 1]. Linear interpolation
    # inside buckets then reproduces the uniform distribution's quantile exactly.
    hist = [(round(0.1 * (i + 1), 10), float(per_bucket * (i + 1))) for i in range(10)]
    hist.append((math.inf, float(per_bucket * 10)))
    v = histogram_quantile(q, hist)
    assert v is not None
    assert math.isclose(v, q, rel_tol=1e-9)


def test_quantile_in_the_inf_bucket_is_the_largest_finite_bound() -> None:
    hist = [(0.5, 1.0), (1.0, 2.0), (math.inf, 100.0)]
    assert histogram_quantile(0.99, hist) == 1.0


def test_single_point_distribution() -> None:
    # Every observation in (0.04, 0.06]: all quantiles inside that bucket.
    hist = [(0.02, 0.0), (0.04, 0.0), (0.06, 30.0), (math.inf, 30.0)]
    for q in (0.01, 0.5, 0.99):
        v = histogram_quantile(q, hist)
        assert v is not None and 0.04 <= v <= 0.06


# ---------------------------------------------------------------------------- counter resets


@st.composite
def counter_runs(draw: st.DrawFn) -> tuple[list[float], float, int]:
    """A counter's scraped values with restarts, its true traffic, and the restart count.

    After a restart the process counts from zero, and we only restart to a value below the
    previous scrape (a restart that overtakes the old value within one interval is
    undetectable from the samples, for any tool).
    """
    value = float(draw(st.integers(0, 10_000)))
    values = [value]
    traffic = 0.0
    restarts = 0
    for _ in range(draw(st.integers(1, 40))):
        if draw(st.booleans()) and draw(st.booleans()) and value > 0:
            value = float(draw(st.integers(0, int(value) - 1)))
            traffic += value
            restarts += 1
        else:
            step = float(draw(st.integers(0, 500)))
            value += step
            traffic += step
        values.append(value)
    return values, traffic, restarts


@given(counter_runs())
def test_increase_counts_true_traffic_and_resets(run: tuple[list[float], float, int]) -> None:
    values, traffic, restarts = run
    total, resets = increase(values)
    assert total == traffic
    assert len(resets) == restarts
    assert total >= 0


@given(counter_runs(), st.lists(st.integers(0, 40), max_size=5))
def test_missing_scrapes_never_make_traffic_negative(
    run: tuple[list[float], float, int], holes: list[int]
) -> None:
    values = list(run[0])
    for h in holes:
        if h < len(values):
            values[h] = math.nan
    total, _ = increase(values)
    assert total >= 0


@settings(max_examples=30)
@given(counter_runs())
def test_bundle_level_resets_match(run: tuple[list[float], float, int]) -> None:
    values, traffic, restarts = run
    lines = [
        f'vllm:num_preemptions_total{{engine="0",model_name="m"}} {v}\n'
        f'vllm:num_requests_running{{engine="0",model_name="m"}} 1.0\n'
        for v in values
    ]
    b = Bundle(
        manifest=Manifest(created_by="t", endpoint="e", started_at=0, ended_at=1, interval_s=1),
        scrapes=[Scrape(t=float(i), status=200, text=text) for i, text in enumerate(lines)],
    )
    obs = observe(b)
    assert len(obs.reset_indices) == restarts
    assert obs.counter_increase("vllm:num_preemptions") == traffic
    series = obs.counter_series("vllm:num_preemptions")
    assert series[-1][1] == traffic
    assert all(b2 >= a2 for (_, a2), (_, b2) in itertools.pairwise(series))
