"""A real Prometheus scraping two real lab vLLM servers: one healthy, one with a tiny KV pool.

Both get the same small workload at the same time (equal traffic), so the fleet diagnosis must
blame the mis-tuned replica's settings (per-replica preemption finding + config drift), not
routing. Kept short for 2-core machines: two servers, one Prometheus, under a minute of load.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from kvdoctor.fleet import diagnose_fleet
from kvdoctor.lab.server import LabHandle
from kvdoctor.reproducers.loadgen import LoadSpec, run_load_sync
from tests.fleet.conftest import RunningPrometheus

pytestmark = pytest.mark.lab

# Shorter than the preemption-storm scenario's own workload: 8 sequences growing to ~384
# tokens need ~3,000 tokens of KV, above the storm server's 2,048-token pool, far below the
# healthy server's.
SPEC = LoadSpec(prompt_tokens=128, max_tokens=256, concurrency=8, requests=16, duration_s=45)


def test_fleet_names_the_mistuned_lab_replica(
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    lab_pair: tuple[LabHandle, LabHandle],
) -> None:
    healthy, storm = lab_pair
    targets = [healthy.url.split("//", 1)[1], storm.url.split("//", 1)[1]]
    prom = prometheus_server(targets)
    prom.wait_for_series("vllm:num_requests_running", 2)
    started = time.time()
    threads = [
        threading.Thread(target=run_load_sync, args=(lab.url, lab.model, SPEC))
        for lab in (healthy, storm)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=SPEC.duration_s + 60)
    time.sleep(3)  # the last scrapes
    since = f"{int(time.time() - started) + 5}s"
    fd = diagnose_fleet(prom.url, selector='{job="vllm"}', since=since, step="1s")

    storm_key, healthy_key = targets[1], targets[0]
    titles = [f"{f.id}/{f.cause} {f.status}: {f.title}" for f in fd.report.findings]
    rows = {r["replica"]: r for r in fd.table()}
    assert set(rows) == set(targets)
    assert rows[storm_key]["preemptions_window"], rows
    assert not rows[healthy_key]["preemptions_window"], rows
    # Latency findings may fire on both on a busy 2-core machine; preemption is the storm's
    # alone, it ranks first, and the drift finding points at the storm's settings.
    primary = fd.report.findings[0]
    assert primary.symptom == "preemption", titles
    preemption = [
        f
        for f in fd.report.findings
        if f.symptom == "preemption" and f.status != "refuted" and f.id != "fleet-config-drift"
    ]
    assert preemption, titles
    assert all(f.evidence[0].value == storm_key for f in preemption), titles
    drifted = {f.evidence[0].value for f in fd.report.findings if f.id == "fleet-config-drift"}
    assert storm_key in drifted, titles
    assert not any(f.id == "fleet-imbalance" for f in fd.report.findings), titles
