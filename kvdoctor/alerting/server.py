"""The HTTP side of ``kvdoctor serve``: stdlib ``http.server``, one thread per request.

* ``POST /alerts`` (also ``/``): an Alertmanager webhook. ``Authorization: Bearer <token>``
  is required (401 otherwise, compared in constant time); a body above ``max_body_bytes`` is
  refused with 413 before it is read; a malformed payload gets 400 with the reason; a full
  queue 503 (Alertmanager retries it); otherwise 202 (queued) or 200 (duplicate, ignored).
* ``GET /healthz``: 200 and the job counts.
* ``GET /metrics``: Prometheus text: the receiver's counters and ``kvdoctor_finding``.
* ``GET /reports/<group>/<episode>/<file>``: the files of an investigation (token required).

Nothing a request carries (headers, body) is logged beyond the one-line reason of a refusal;
the token is never logged or written.
"""

from __future__ import annotations

import hmac
import json
import re
import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from kvdoctor.alerting.service import Service
from kvdoctor.errors import KvdoctorError

_REPORT_PATH = re.compile(r"^/reports/([0-9a-f]{16})/(\d{1,12})/([A-Za-z0-9._-]+\.(?:md|json))$")
REQUEST_TIMEOUT_S = 15.0


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        service: Service,
        token: str | None,
        log: Callable[[str], None],
    ) -> None:
        self.service = service
        self.token = token
        self.log = log
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: Receiver
    timeout = REQUEST_TIMEOUT_S
    server_version = "kvdoctor"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:
        return  # requests are logged by what they did, not by the default access line

    def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if code == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="kvdoctor"')
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, obj: dict[str, object]) -> None:
        self._send(code, (json.dumps(obj, sort_keys=True) + "\n").encode("utf-8"))

    def _authorized(self) -> bool:
        token = self.server.token
        if token is None:
            return True
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode("utf-8"), token.encode("utf-8")
        )

    def do_POST(self) -> None:
        service = self.server.service
        service.count("webhooks")
        if self.path.split("?", 1)[0] not in ("/alerts", "/"):
            self._json(404, {"status": "error", "error": "POST webhooks to /alerts"})
            return
        if not self._authorized():
            service.count("unauthorized")
            self.server.log(
                "webhook refused (401): missing or wrong bearer token from "
                f"{self.client_address[0]}"
            )
            self._json(401, {"status": "error", "error": "bearer token required"})
            return
        length_text = self.headers.get("Content-Length")
        if length_text is None or not length_text.strip().isdigit():
            service.count("malformed")
            self.server.log("webhook refused (411): no Content-Length")
            self._json(411, {"status": "error", "error": "Content-Length required"})
            return
        length = int(length_text)
        limit = service.config.max_body_bytes
        if length > limit:
            service.count("oversized")
            self.server.log(f"webhook refused (413): {length} bytes (limit {limit})")
            self.close_connection = True
            self._json(413, {"status": "error", "error": f"body above {limit} bytes"})
            return
        body = self.rfile.read(length)
        code, answer = service.submit(body)
        self._json(code, answer)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        service = self.server.service
        if path == "/healthz":
            counts = service.state.counts()
            self._json(200, {"status": "ok", "jobs": counts})
            return
        if path == "/metrics":
            self._send(200, service.metrics_text().encode("utf-8"), "text/plain; version=0.0.4")
            return
        m = _REPORT_PATH.match(path)
        if m is not None:
            if not self._authorized():
                self._json(401, {"status": "error", "error": "bearer token required"})
                return
            f = Path(service.config.state_dir) / "groups" / m.group(1) / m.group(2) / m.group(3)
            try:
                data = f.read_bytes()
            except OSError:
                self._json(404, {"status": "error", "error": "no such report"})
                return
            ctype = "text/markdown; charset=utf-8" if f.suffix == ".md" else "application/json"
            self._send(200, data, ctype)
            return
        self._json(404, {"status": "error", "error": "not found"})


def parse_listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not (0 <= int(port) < 65536):
        raise KvdoctorError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:9095")
    return host.strip("[]") or "0.0.0.0", int(port)


def make_server(
    service: Service,
    listen: str,
    token: str | None,
    log: Callable[[str], None],
    tls: tuple[Path, Path] | None = None,
) -> Receiver:
    host, port = parse_listen(listen)
    try:
        server = Receiver((host, port), service, token, log)
    except OSError as exc:
        raise KvdoctorError(f"--listen {listen}: {exc.strerror or exc}") from None
    if tls is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            ctx.load_cert_chain(str(tls[0]), str(tls[1]))
        except (OSError, ssl.SSLError) as exc:
            server.server_close()
            raise KvdoctorError(f"--tls-cert/--tls-key: cannot load: {exc}") from None
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    return server


def serve_in_thread(server: Receiver) -> threading.Thread:
    t = threading.Thread(target=server.serve_forever, name="kvdoctor-receiver", daemon=True)
    t.start()
    return t
