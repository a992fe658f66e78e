"""Loopback parts for the receiver tests: a sink that records what it gets, a small vLLM-like
exposition server (its counters grow with every scrape), and the fleet tests' real Prometheus.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.fleet.conftest import free_port, prometheus_server  # noqa: F401 - fixture
from tests.unit._bundle_factory import exposition


class Sink:
    """Records every POST (path, headers, JSON body)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(n))
                with sink.lock:
                    sink.received.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout_s: float = 60.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.1)
        raise AssertionError(f"the sink got {len(self.received)} of {count} summaries")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sink() -> Iterator[Sink]:
    s = Sink()
    yield s
    s.close()


class HotReplica:
    """A vLLM-like /metrics under KV pressure: preemptions grow at every scrape (``calm``: the
    same server after its fix, no preemption)."""

    def __init__(self, port: int | None = None, calm: bool = False) -> None:
        state = {"n": 0}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                state["n"] += 1
                i = state["n"]
                text = exposition(
                    kv=0.4 if calm else 0.99,
                    running=2 if calm else 8,
                    waiting=0 if calm else 3,
                    preemptions=0 if calm else 4 * i,
                    finished=8 * i,
                    prefix_queries=400 * i,
                    prefix_hits=100 * i,
                    num_gpu_blocks=512 if calm else 64,
                )
                body = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        self.port = port or free_port()
        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.address = f"127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hot_replica() -> Iterator[HotReplica]:
    r = HotReplica()
    yield r
    r.close()
