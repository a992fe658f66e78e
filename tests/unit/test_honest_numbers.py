"""Every latency stated anywhere is a bucket range or the exact mean (issue 24, item 4).

The signals keep interpolated percentiles (a point inside a histogram bucket); the JSON carries
the bucket range beside each of them (report/1.4 ``latency``), and the judged-against lines,
the six-signal table and ``compare`` state that range, word for word the same. An upper end
derived from the mean says so.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.compare import compare, render_markdown
from kvdoctor.pipeline import diagnose
from kvdoctor.report.bounds import Bound, percentile_bounds, range_text
from kvdoctor.report.render import render_markdown as render_report

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p for p in FIXTURES.iterdir() if (p / "bundle.tar.gz").exists())
_LATENCY = re.compile(r"^(ttft|itl|queue_time|prefill_time)_p(50|95|99)$")


@pytest.mark.parametrize("fixture", CASES, ids=[p.name for p in CASES])
def test_the_json_carries_the_bucket_range_beside_every_percentile(fixture: Path) -> None:
    report = diagnose(read_bundle(fixture / "bundle.tar.gz")).report
    points = {n: v for n, v in report.signals.items() if _LATENCY.match(n) and v is not None}
    if not points:
        # Only a server that never served (it refused to start) has no latency to state.
        assert (
            not report.signals.get("scrapes_ok")
            or report.signals.get("requests_finished_window") == 0
        )
        assert report.latency == {}
        return
    assert set(points) <= set(report.latency)
    for name, point in points.items():
        b = report.latency[name]
        assert isinstance(point, int | float)
        assert b.lo <= point * (1 + 1e-9), name
        if b.hi_from == "bucket" and b.hi is not None:
            assert point <= b.hi * (1 + 1e-9), name


def test_compare_states_the_range_diagnose_states() -> None:
    # The known one: compare printed the interpolated 285 ms where diagnose said "≤ 292 ms".
    d = diagnose(read_bundle(FIXTURES / "healthy" / "bundle.tar.gz"))
    q = diagnose(read_bundle(FIXTURES / "queueing" / "bundle.tar.gz"))
    md = render_markdown(compare(q, d), "before", "after")
    report_md = render_report(d.report, d.context)
    for name in ("ttft_p95", "itl_p95", "queue_time_p95"):
        b = d.report.latency[name]
        text = range_text(b.lo, b.hi, b.hi_from, b.first_bucket)
        row = next(
            ln for ln in md.splitlines() if ln.startswith(f"| {name.replace('_', chr(92) + '_')} |")
        )
        assert row.endswith(f"| {text} |"), (row, text)
        assert text in report_md, f"{name}: {text!r} is not what diagnose says"
        point = d.report.signals[name]
        assert isinstance(point, float)
        assert f"{point * 1000:.3g} ms" not in row  # never the interpolated point


def test_judged_against_lines_state_the_range() -> None:
    d = diagnose(read_bundle(FIXTURES / "queueing" / "bundle.tar.gz"))
    basis = d.report.findings[0].basis
    assert basis is not None and basis.startswith("TTFT p95 ")
    b = d.report.latency["ttft_p95"]
    assert range_text(b.lo, b.hi, b.hi_from, b.first_bucket) in basis
    assert "2.42 s" not in basis  # the interpolated point the line used to print


def test_a_bound_from_the_mean_never_looks_like_a_measurement() -> None:
    # Every request waited in the first bucket (≤ 300 ms); the mean of 10 ms caps p50 at 20 ms.
    bounds = percentile_bounds(
        {"queue_time": [(0.3, 100.0), (math.inf, 100.0)]}, {"queue_time": 0.01}
    )
    p50 = bounds["queue_time"]["p50"]
    assert p50.text() == "≤ 20 ms, from the mean"
    assert p50.as_json()["hi_from"] == "mean"
    assert Bound(0.0, 0.3, first_bucket=True).text() == "≤ 300 ms, first bucket"
