"""Sparklines, window percentiles and number formatting of the report."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from kvdoctor.report import fmt
from kvdoctor.report.sparkline import BARS, percentile, resample_max, sparkline

FINITE = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


def test_sparkline_fixed_scale_and_spikes_survive_resampling() -> None:
    assert sparkline([0.0, 0.5, 1.0], lo=0, hi=1) == "▁▅█"
    assert sparkline([0.05] * 4, lo=0, hi=1) == "▁▁▁▁"
    long = [0.0] * 1000
    long[500] = 1.0
    line = sparkline(long, width=40, hi=1.0)
    assert len(line) == 40 and line.count("█") == 1
    assert sparkline([]) == ""
    assert sparkline([0.0, 0.0]) == "▁▁"
    assert sparkline([3.0, 3.0]) == "██"
    assert sparkline([1.0, math.nan, 2.0]) == "▅ █"


@given(st.lists(FINITE, min_size=1, max_size=200), st.integers(min_value=1, max_value=60))
def test_sparkline_width_and_alphabet(values: list[float], width: int) -> None:
    line = sparkline(values, width=width)
    assert len(line) == min(len(values), width)
    assert set(line) <= set(BARS)


@given(st.lists(FINITE, min_size=1, max_size=200))
def test_percentiles_are_monotone_and_inside_the_data(values: list[float]) -> None:
    qs = [percentile(values, q) for q in (0.0, 0.5, 0.95, 0.99, 1.0)]
    assert all(q is not None for q in qs)
    found = [q for q in qs if q is not None]
    assert found == sorted(found)
    assert found[0] == min(values) and found[-1] == max(values)


def test_percentile_known_values_and_empty() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile(list(range(101)), 0.95) == 95
    assert percentile([], 0.5) is None
    assert percentile([math.nan], 0.5) is None


@given(st.lists(FINITE, min_size=1, max_size=300), st.integers(min_value=1, max_value=50))
def test_resample_keeps_the_maximum(values: list[float], width: int) -> None:
    out = resample_max(values, width)
    assert len(out) == min(width, len(values))
    assert max(out) == max(values)


def test_number_formats() -> None:
    assert fmt.num(131072) == "131,072"
    assert fmt.num(0.71349) == "0.713"
    assert fmt.num(True) == "yes"
    assert fmt.num(None) == fmt.MISSING
    assert fmt.pct(0.973) == "97.3 %" and fmt.pct(1.0) == "100 %" and fmt.pct(0.0) == "0 %"
    assert fmt.secs(0.0123) == "12.3 ms" and fmt.secs(2.345) == "2.35 s"
    assert fmt.nbytes(131072) == "128 KiB" and fmt.nbytes(1 << 30) == "1 GiB"
    assert fmt.nbytes(28672) == "28 KiB" and fmt.nbytes(512) == "512 B"
    assert fmt.utc(1_700_000_000) == "2023-11-14 22:13:20 UTC"
    assert fmt.signal_value("kv_usage_max", 0.5) == "50 %"
    assert fmt.signal_value("ttft_p95", 1.5) == "1.5 s"
    assert fmt.signal_value("served_model", "x") is None
    assert fmt.signal_value("kv_usage_max", math.inf) == fmt.MISSING
    # Sizes in the units the log and the flags state them in.
    assert fmt.signal_value("log_sleep_residual_gib", 5.06) == "5.06 GiB"
    assert fmt.signal_value("cpu_offload_gb", 35.0) == "35 GB"
