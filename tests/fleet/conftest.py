"""A real Prometheus for the fleet tests: loopback, free port, own storage, stopped by PID.

Debian's ``prometheus`` package provides the binary (scripts/install-prometheus.sh). Without it
the tests skip with the reason, except in CI (env CI set), where a missing binary fails them.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from labenv import lab_python_or_skip, tool_or_skip

from kvdoctor.lab.server import LabHandle, lab_server

SCRAPE_INTERVAL_S = 1


def free_port() -> int:
    """A free loopback port above 18000 (the project's range for test servers)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port > 18000:
            return port
    for port in range(18001, 30000):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port above 18000")


def prometheus_binary() -> str:
    return tool_or_skip("prometheus")


class RunningPrometheus:
    def __init__(self, url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.proc = proc
        self.log = log

    def wait_for_series(self, query: str, count: int, timeout_s: float = 60.0) -> None:
        """Block until ``query`` returns at least ``count`` series (targets scraped)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            r = httpx.get(f"{self.url}/api/v1/query", params={"query": query}, timeout=5)
            if r.status_code == 200 and len(r.json()["data"]["result"]) >= count:
                return
            time.sleep(0.5)
        raise AssertionError(f"Prometheus never returned {count} series for {query}")


@pytest.fixture
def prometheus_server(tmp_path: Path) -> Iterator[Callable[[list[str]], RunningPrometheus]]:
    """Factory: ``start(["127.0.0.1:PORT", ...])`` runs a Prometheus scraping those targets."""
    binary = prometheus_binary()
    started: list[subprocess.Popen[bytes]] = []

    def start(targets: list[str], job: str = "vllm") -> RunningPrometheus:
        port = free_port()
        config = {
            "global": {
                "scrape_interval": f"{SCRAPE_INTERVAL_S}s",
                "evaluation_interval": f"{SCRAPE_INTERVAL_S}s",
            },
            "scrape_configs": [{"job_name": job, "static_configs": [{"targets": targets}]}],
        }
        cfg = tmp_path / f"prometheus-{port}.yml"
        cfg.write_text(yaml.safe_dump(config))
        log = tmp_path / f"prometheus-{port}.log"
        with log.open("wb") as fh:
            proc = subprocess.Popen(
                [
                    binary,
                    f"--config.file={cfg}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    f"--storage.tsdb.path={tmp_path / f'tsdb-{port}'}",
                ],
                stdout=fh,
                stderr=subprocess.STDOUT,
            )
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"prometheus exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                    return RunningPrometheus(url, proc, log)
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"prometheus not ready: {log.read_text()[-2000:]}")

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="package")
def lab_pair() -> Iterator[tuple[LabHandle, LabHandle]]:
    """A healthy lab server and a preemption-storm one, shared by the fleet lab tests.

    Starting the two costs about 45 s on a 2-core host. Each test judges its own equal load
    over its own window (counter deltas), so the traffic an earlier test sent changes nothing;
    the servers are stopped when the package's last test ends.
    """
    python = lab_python_or_skip()
    with (
        lab_server("healthy", vllm_python=python) as healthy,
        lab_server("preemption-storm", vllm_python=python) as storm,
    ):
        yield healthy, storm
