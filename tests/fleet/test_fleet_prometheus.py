"""The fleet path against a real Prometheus scraping small exposition servers.

Each server replays a scripted vLLM exposition (tests/unit/_bundle_factory.py) whose counters
grow with every scrape, so Prometheus stores real series with real staleness handling, and
the fleet diagnosis must name the replica that is in trouble.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet import diagnose_fleet, diagnose_fleet_bundle
from kvdoctor.report.render import render_json
from tests.fleet.conftest import RunningPrometheus, free_port
from tests.unit._bundle_factory import exposition


def _serve(kind: str) -> tuple[ThreadingHTTPServer, str]:
    state = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state["n"] += 1
            i = state["n"]
            if kind == "healthy":
                text = exposition(
                    kv=0.2,
                    running=2,
                    waiting=0,
                    preemptions=0,
                    finished=2 * i,
                    prefix_queries=100 * i,
                    prefix_hits=60 * i,
                )
            else:
                text = exposition(
                    kv=0.97,
                    running=8,
                    waiting=3,
                    preemptions=4 * i,
                    finished=8 * i,
                    prefix_queries=400 * i,
                    prefix_hits=100 * i,
                    ttft=2.0,
                    queue=1.5,
                )
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"127.0.0.1:{port}"


@pytest.fixture
def two_replicas() -> Iterator[tuple[str, str]]:
    a, a_addr = _serve("healthy")
    b, b_addr = _serve("hot")
    yield a_addr, b_addr
    for s in (a, b):
        s.shutdown()
        s.server_close()


def test_real_prometheus_fleet_names_the_hot_replica(
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    two_replicas: tuple[str, str],
    tmp_path: Path,
) -> None:
    healthy, hot = two_replicas
    prom = prometheus_server([healthy, hot])
    prom.wait_for_series("vllm:num_preemptions_total", 2)
    time.sleep(6)  # a few scrapes of growing counters
    bundle = tmp_path / "fleet"
    fd = diagnose_fleet(
        prom.url, selector='{job="vllm"}', since="6s", step="1s", save_bundle=bundle
    )
    assert {r.key for r in fd.replicas} == {healthy, hot}
    imbalance = next(f for f in fd.report.findings if f.id == "fleet-imbalance")
    assert imbalance.evidence[0].value == hot
    rows = {r["replica"]: r for r in fd.table()}
    assert rows[healthy]["verdict"] == "healthy"
    assert rows[hot]["preemptions_window"] and rows[hot]["preemptions_window"] > 0
    # The raw answers replay offline to the same report.
    assert render_json(diagnose_fleet_bundle(bundle).report) == render_json(fd.report)


def test_real_prometheus_bad_selector_and_empty_match(
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    two_replicas: tuple[str, str],
) -> None:
    prom = prometheus_server([two_replicas[0]])
    prom.wait_for_series("up", 1)
    with pytest.raises(KvdoctorError, match="bad_data"):
        diagnose_fleet(prom.url, selector='{job=~"("}', since="1m", step="1s")
    with pytest.raises(KvdoctorError, match="matches no targets"):
        diagnose_fleet(prom.url, selector='{job="other"}', since="1m", step="1s")
