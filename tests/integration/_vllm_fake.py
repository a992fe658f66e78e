"""A small local HTTP server standing in for vLLM in probe and capture tests.

It serves recorded vLLM 0.32 payloads (tests/data/vllm-0.32) in order, one per /metrics
request, and can misbehave on purpose: HTTP errors, HTML, garbage, a hang, a huge body.
Ports are chosen free at run time by the OS (ephemeral range, above 18000 on Linux).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vllm_payloads import payload

from kvdoctor.probes.server import ServerProbe


@dataclass
class FakeVllm:
    metrics: list[str] = field(default_factory=list)  # served in order; the last one repeats
    mode: str = "ok"  # ok | status | html | garbage | hang | huge | drip
    status: int = 200
    version: str = '{"version":"0.32.0"}'
    models: str = ""
    require_header: tuple[str, str] | None = None
    huge_bytes: int = 100 * 1024 * 1024
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    stop_event: threading.Event = field(default_factory=threading.Event)
    served: int = 0


def _handler(fake: FakeVllm) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet tests
            return

        def _send(self, code: int, body: bytes, ctype: str = "text/plain") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            fake.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            if fake.require_header is not None:
                name, value = fake.require_header
                if self.headers.get(name) != value:
                    self._send(401, b'{"error":"Unauthorized"}', "application/json")
                    return
            if self.path == "/version":
                self._send(200, fake.version.encode(), "application/json")
                return
            if self.path == "/v1/models":
                self._send(
                    200, (fake.models or payload("models.json")).encode(), "application/json"
                )
                return
            if self.path == "/health":
                self._send(200, b"")
                return
            if self.path != "/metrics":
                self._send(404, b'{"detail":"Not Found"}', "application/json")
                return
            mode = fake.mode
            if mode == "status":
                self._send(fake.status, b"error page")
            elif mode == "html":
                self._send(200, b"<!DOCTYPE html><html><body>Login</body></html>\n", "text/html")
            elif mode == "garbage":
                self._send(200, b"vllm:num_requests_running{engine=0 1\n\x00\x01 junk\n")
            elif mode == "hang":
                fake.stop_event.wait(30)
            elif mode == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(fake.huge_bytes))
                self.end_headers()
                line = b'vllm:num_requests_running{engine="0",model_name="m"} 1.0\n'
                sent = 0
                try:
                    while sent < fake.huge_bytes and not fake.stop_event.is_set():
                        self.wfile.write(line * 1000)
                        sent += len(line) * 1000
                except OSError:
                    return  # the client hung up at its cap, as it should
            elif mode == "drip":
                # Headers at once, then a byte every 0.1 s for 5 s: each read is quick, only a
                # bound on the whole body stops a client early.
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "50")
                self.end_headers()
                try:
                    for _ in range(50):
                        if fake.stop_event.wait(0.1):
                            return
                        self.wfile.write(b"#")
                        self.wfile.flush()
                except OSError:
                    return  # the client cut the body off, as it should
            else:
                i = min(fake.served, len(fake.metrics) - 1)
                fake.served += 1
                self._send(200, fake.metrics[i].encode(), "text/plain; version=0.0.4")

    return Handler


@contextmanager
def serve(fake: FakeVllm) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        fake.stop_event.set()
        server.shutdown()
        server.server_close()


def free_port() -> int:
    """A port nothing listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeClock:
    """Deterministic time for capture tests: sleep advances the clock instantly."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class PatientServerProbe(ServerProbe):
    """The server probes for captures on a :class:`FakeClock`: they wait for the fake's answers.

    The probes run beside the window on the real clock, under their own 5 s: a live window
    gives them its seconds, the fake clock's ends in milliseconds. On a busy host the probe
    threads could then outlast it and leave the bundle without its server.json (seen with two
    replicas, six threads, at a load of 8 on two cores). A local fake always answers.
    """

    def __init__(self, open_client: Any, endpoint: str, timeout: float = 5.0) -> None:
        super().__init__(open_client, endpoint, timeout=600.0, budget_s=600.0)


def wait_until(pred: object, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(pred) and pred():
            return True
        time.sleep(0.02)
    return False
