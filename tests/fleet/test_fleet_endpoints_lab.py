"""Repeated --endpoint against two real lab vLLM servers: one healthy, one with a tiny KV pool.

No Prometheus: kvdoctor scrapes both replicas itself, at the same time, while both get the same
small workload (equal traffic). The fleet diagnosis must blame the mis-tuned replica's settings
(its own preemption finding + config drift), not routing, and the saved fleet bundle must
replay to the same report. Kept short for 2-core machines: about a minute of load.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kvdoctor.commands._capture_opts import to_capture_options
from kvdoctor.fleet import diagnose_fleet_bundle
from kvdoctor.fleet.endpoints import diagnose_endpoints, endpoint_names
from kvdoctor.fleet.render import render_fleet_markdown
from kvdoctor.lab.server import LabHandle
from kvdoctor.report.render import render_json
from kvdoctor.reproducers.loadgen import LoadSpec, run_load_sync

pytestmark = pytest.mark.lab

# As in test_fleet_lab.py: 8 sequences growing to ~384 tokens need ~3,000 tokens of KV, above
# the storm server's 2,048-token pool and far below the healthy server's. 16 such requests take
# about 5 s on one 2-core machine alone; two servers side by side are slower, and the storm
# slower still (it recomputes): 32 keep both busy for most of the window. A request the
# deadline cuts off is not a failure of the test, only less traffic on the slow replica.
SPEC = LoadSpec(prompt_tokens=128, max_tokens=256, concurrency=8, requests=32, duration_s=30)
# The load starts once the window is open and ends before it closes: the whole of both
# replicas' traffic is inside the window, the same number of requests on each.
LOAD_DELAY_S = 4
WINDOW_S = 40
INTERVAL_S = 2


def _load_later(url: str, model: str, errors: list[str]) -> None:
    time.sleep(LOAD_DELAY_S)
    result = run_load_sync(url, model, SPEC)
    errors.extend(f"{url}: {r.error}" for r in result.requests if r.error is not None)


def test_repeated_endpoints_name_the_mistuned_lab_replica(
    tmp_path: Path, lab_pair: tuple[LabHandle, LabHandle]
) -> None:
    saved = tmp_path / "fleet"
    healthy, storm = lab_pair
    urls = [healthy.url, storm.url]
    errors: list[str] = []
    threads = [
        threading.Thread(target=_load_later, args=(lab.url, lab.model, errors))
        for lab in (healthy, storm)
    ]
    for t in threads:
        t.start()
    opts = [
        to_capture_options({"endpoint": u, "window": WINDOW_S, "interval": INTERVAL_S})
        for u in urls
    ]
    fd = diagnose_endpoints(
        opts, endpoint_names(urls, redact=False), reproduce=False, save_bundle=saved
    )
    for t in threads:
        t.join(timeout=SPEC.duration_s + 60)

    healthy_key, storm_key = (u.split("//", 1)[1] for u in urls)
    titles = [f"{f.id}/{f.cause} {f.status}: {f.title}" for f in fd.report.findings]
    titles += sorted(set(errors))[:3]
    rows = {r["replica"]: r for r in fd.table()}
    assert list(rows) == [healthy_key, storm_key]
    assert {r["status"] for r in rows.values()} == {"up"}
    for r in fd.replicas:
        assert r.signals.get("requests_finished_window"), (r.key, titles)
    assert rows[storm_key]["preemptions_window"], rows
    assert not rows[healthy_key]["preemptions_window"], rows
    primary = fd.report.findings[0]
    assert primary.symptom == "preemption", titles
    preemption = [
        f
        for f in fd.report.findings
        if f.symptom == "preemption" and f.status != "refuted" and f.id != "fleet-config-drift"
    ]
    assert preemption and all(f.evidence[0].value == storm_key for f in preemption), titles
    drifted = {f.evidence[0].value for f in fd.report.findings if f.id == "fleet-config-drift"}
    assert storm_key in drifted, titles
    assert not any(f.id == "fleet-imbalance" for f in fd.report.findings), titles
    # Each replica's bundle kept what only a direct scrape sees: the server's own engine flags.
    storm_engine = next(r for r in fd.replicas if r.key == storm_key).data.bundle.engine_args
    assert storm_engine is not None and storm_engine.args.get("num-gpu-blocks-override") == 17

    replay = diagnose_fleet_bundle(saved)
    assert render_json(replay.report) == render_json(fd.report)
    assert render_fleet_markdown(replay) == render_fleet_markdown(fd)
