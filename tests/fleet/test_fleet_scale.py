"""The fleet path against a real Prometheus holding a backfilled fleet (benchmarks/fleetsynth.py).

Real recorded lab scrapes, advanced in time and written into TSDB blocks by
``promtool tsdb create-blocks-from openmetrics``: this proves that the queries are batched per
metric family across replicas (their number does not grow with the fleet), that replicas whose
series are partial are reported and still diagnosed, and that the planted problems are named
on the right replicas. benchmarks/bench_fleet.py measures the same path at 10 to 200 replicas.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from labenv import tool_or_skip

from benchmarks import fleetsynth as fs
from kvdoctor.fleet import diagnose_fleet
from kvdoctor.fleet.capture import FAMILIES
from kvdoctor.fleet.render import render_fleet_markdown

GAUGES_ONLY = ("kv_cache_usage_perc", "num_requests_running", "num_requests_waiting")


def _tools() -> None:
    for tool in ("prometheus", "promtool"):
        tool_or_skip(tool)


END = float(int(time.time() // 60 * 60 - 60))  # the synthetic fleet's last sample; queries pin it


@pytest.fixture(scope="module")
def fleet_prom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[fs.Prometheus]:
    _tools()
    end = END
    fleet = fs.plant_fleet(10, end - 1800, end, interval_s=15.0)
    healthy = fleet.replicas[0].template
    # Partial replicas: one exports only the core gauges, one appeared 25 minutes in.
    fleet.replicas.append(
        fs.ReplicaSpec(fs.replica_name(10), healthy, families=(*GAUGES_ONLY, "cache_config_info"))
    )
    fleet.replicas.append(fs.ReplicaSpec(fs.replica_name(11), healthy, start_after_s=1500.0))
    work: Path = tmp_path_factory.mktemp("fleet-tsdb")
    with fs.fleet_prometheus(fleet, work) as prom:
        yield prom


def _selector(n: int) -> str:
    names = "|".join(fs.replica_name(i) for i in range(n))
    return f'{{job="vllm", instance=~"{names}"}}'


def test_queries_are_batched_per_family_not_per_replica(fleet_prom: fs.Prometheus) -> None:
    counts = []
    for n in (4, 12):
        before, _ = fleet_prom.http_stats()
        fd = diagnose_fleet(fleet_prom.url, _selector(n), "30m", end=END)
        after, _ = fleet_prom.http_stats()
        assert len(fd.replicas) == n
        counts.append(after - before)
    # One range query per metric family across every replica, plus `up`.
    assert counts == [len(FAMILIES) + 1, len(FAMILIES) + 1]


def test_partial_replicas_are_reported_not_fatal(fleet_prom: fs.Prometheus) -> None:
    fd = diagnose_fleet(fleet_prom.url, '{job="vllm"}', "30m", end=END)
    rows = {r["replica"]: r for r in fd.table()}
    assert len(rows) == 12
    partial = {n.what: n.why for n in fd.report.not_checked if "(partial series)" in n.what}
    gauges_only = partial[f"replica {fs.replica_name(10)} (partial series)"]
    assert "vllm:generation_tokens" in gauges_only and "more in Prometheus" in gauges_only
    assert "vllm:kv_cache_usage_perc" not in gauges_only
    late = partial[f"replica {fs.replica_name(11)} (partial series)"]
    assert "start 25 min into the window" in late
    assert len(partial) == 2, partial
    # Still diagnosed on what they have: the gauges-only one cannot be judged, the late one can.
    assert rows[fs.replica_name(10)]["verdict"] == "unknown"
    assert rows[fs.replica_name(11)]["verdict"] == "healthy"
    assert "partial series" in render_fleet_markdown(fd)


def test_planted_problems_found_on_their_replicas_only(fleet_prom: fs.Prometheus) -> None:
    fd = diagnose_fleet(fleet_prom.url, _selector(10), "30m", end=END)
    planted = {fs.replica_name(i): finding for i, (_, finding) in fs.PLANTED.items()}
    found: dict[str, set[str]] = {r: set() for r in planted}
    # Notes too: prefix caching off with no harm measured is a note on its replica (report/1.3).
    for f in [*fd.report.findings, *fd.report.notes]:
        if f.status == "refuted":
            continue
        text = " ".join([f.title, *(str(e.value) for e in f.evidence)])
        names = [r for r in (fs.replica_name(i) for i in range(10)) if r in text]
        assert names and set(names) <= set(planted), (f.id, f.title)
        for r in names:
            found[r] |= {f.id, f"{f.id}/{f.cause}"}
    for replica, finding in planted.items():
        assert finding in found[replica], (replica, finding, found[replica])
