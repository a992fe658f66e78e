"""Hostile servers on loopback for the hardening tests: they echo every credential they get.

A stand-in for vLLM (and one for Prometheus) that copies the request's ``Authorization`` header,
its decoded Basic pair and its query string into every answer: /metrics (as a comment line),
/version, /v1/models, error bodies. Whatever kvdoctor writes afterwards must not contain them.
These are pure-logic fakes for the redaction paths, not vLLM behaviour; vLLM behaviour is
tested against the real lab.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


@dataclass
class Echo:
    """What the server was sent (so a test can prove the credential did reach it)."""

    authorizations: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    model_root: str = "kvdoctor-tiny-llama"
    # "echo" answers at once; "hang" never answers; "drip" sends headers, then a byte a second;
    # "big" answers every POST with ``big_bytes`` of JSON; "slow-info" answers /metrics at once
    # and never answers /version, /v1/models or /health.
    mode: str = "echo"
    # The echo in another letter case ("upper"): a proxy may change it.
    case: str = ""
    metrics_file: str = "metrics-idle.txt"
    big_bytes: int = 8 << 20
    headers_seen: list[dict[str, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def _echo_of(handler: BaseHTTPRequestHandler, case: str = "") -> str:
    auth = handler.headers.get("Authorization", "")
    parts = [auth, *(v for k, v in handler.headers.items() if k.lower().startswith("x-"))]
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "basic":
        try:
            pair = base64.b64decode(token).decode("utf-8")
        except ValueError:
            pair = ""
        parts += [pair, pair.partition(":")[2]]
    parts.append(handler.path)
    said = " ".join(p for p in parts if p)
    return said.upper() if case == "upper" else said


def _vllm_handler(echo: Echo) -> type[BaseHTTPRequestHandler]:
    metrics = (DATA / echo.metrics_file).read_text(encoding="utf-8")
    models = json.loads((DATA / "models.json").read_text(encoding="utf-8"))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def _send(self, code: int, body: str, ctype: str) -> None:
            raw = body.encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _any(self) -> None:
            echo.authorizations.append(self.headers.get("Authorization", ""))
            echo.paths.append(self.path)
            echo.headers_seen.append(dict(self.headers.items()))
            if echo.mode == "hang":
                echo.stop.wait(60)
                return
            if echo.mode == "drip":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                try:
                    while not echo.stop.wait(1.0):
                        self.wfile.write(b"#")
                        self.wfile.flush()
                except OSError:
                    return  # the client hung up, as it should
                return
            said = _echo_of(self, echo.case)
            path = self.path.split("?", 1)[0]
            if echo.mode == "slow-info" and path in ("/version", "/v1/models", "/health"):
                echo.stop.wait(60)
                return
            if echo.mode == "big" and self.command == "POST":
                blob = '{"choices": [{"text": "' + "x" * echo.big_bytes + '"}]}'
                self._send(200, blob, "application/json")
                return
            if path == "/metrics":
                self._send(200, f"# echo {said}\n{metrics}", "text/plain; version=0.0.4")
            elif path == "/version":
                self._send(200, json.dumps({"version": "0.32.0", "echo": said}), "application/json")
            elif path == "/v1/models":
                body = json.loads(json.dumps(models))
                body["data"][0]["root"] = echo.model_root
                body["data"][0]["owned_by"] = said
                self._send(200, json.dumps(body), "application/json")
            elif path == "/health":
                self._send(200, "", "text/plain")
            else:
                self._send(404, json.dumps({"detail": f"Not Found: {said}"}), "application/json")

        def do_GET(self) -> None:
            self._any()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self._any()

    return Handler


def _prom_handler(echo: Echo) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            echo.authorizations.append(self.headers.get("Authorization", ""))
            body = json.dumps(
                {"status": "error", "errorType": "bad_data", "error": f"echo {_echo_of(self)}"}
            ).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def serve(
    kind: str = "vllm",
    echo: Echo | None = None,
    host: str = "127.0.0.1",
    handler: type[BaseHTTPRequestHandler] | None = None,
) -> Iterator[tuple[str, Echo]]:
    """``HOST:PORT`` of a hostile server (port chosen free by the OS, loopback only)."""
    echo = echo or Echo()
    if handler is None:
        handler = _vllm_handler(echo) if kind == "vllm" else _prom_handler(echo)
    server = ThreadingHTTPServer((host, 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"{host}:{server.server_address[1]}", echo
    finally:
        echo.stop.set()
        server.shutdown()
        server.server_close()


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str


def kvdoctor(
    args: Sequence[str],
    cwd: Path,
    stdin: bytes | None = None,
    preexec_fn: Callable[[], None] | None = None,
    timeout: float = 120,
) -> Run:
    """Run the CLI as a user would (a separate process: stdout and stderr as written)."""
    proc = subprocess.run(
        [sys.executable, "-m", "kvdoctor", *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        check=False,
        preexec_fn=preexec_fn,
    )
    return Run(
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )


def written_texts(root: Path) -> dict[str, str]:
    """Every file under ``root`` (tar.gz bundles unpacked) as text, keyed by its path."""
    import tarfile

    out: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path, "r:gz") as tar:
                for member in tar.getmembers():
                    f = tar.extractfile(member)
                    if f is not None:
                        out[f"{path}!{member.name}"] = f.read().decode("utf-8", errors="replace")
        out[str(path)] = path.read_bytes().decode("utf-8", errors="replace")
    return out


# --------------------------------------------------------------------------- a fake Prometheus


@dataclass
class PromFleet:
    """A Prometheus stand-in answering range queries from fixed per-pod series.

    ``pods``: pod name -> {metric name (without ``vllm:``): value}; ``info``: pod name -> the
    ``cache_config_info`` labels. ``mode``: "ok", "redirect" (307 to ``redirect_to``), "drip"
    (a byte every ``drip_s``), or "raw" (every query answered with ``raw`` as it is).
    """

    pods: dict[str, dict[str, float]] = field(default_factory=dict)
    info: dict[str, dict[str, str]] = field(default_factory=dict)
    mode: str = "ok"
    redirect_to: str = ""
    drip_s: float = 1.0
    raw: bytes = b""
    headers_seen: list[dict[str, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def answer(self, form: dict[str, str]) -> dict[str, object]:
        import re

        query = form.get("query", "")
        if not query:  # metadata
            return {"status": "success", "data": {}}
        start, end = float(form["start"]), float(form["end"])
        step = _step_s(form.get("step", "15s"))
        times = []
        t = start
        while t <= end + 1e-9 and len(times) < 200:
            times.append(t)
            t += step
        result: list[dict[str, object]] = []
        if query.startswith("up"):
            for pod in self.pods:
                result.append(_series({"__name__": "up", "pod": pod, "job": "vllm"}, times, 1.0))
        else:
            m = re.search(r"vllm:\(([^)]*)\)", query)
            names = m.group(1).split("|") if m else []
            for pod, metrics in self.pods.items():
                for name, value in metrics.items():
                    base = name.removesuffix("_total")
                    if base in names:
                        labels = {"__name__": f"vllm:{name}", "pod": pod, "job": "vllm"}
                        labels.update({"engine": "0", "model_name": "m"})
                        result.append(_series(labels, times, value))
                if "cache_config_info" in names and pod in self.info:
                    labels = {"__name__": "vllm:cache_config_info", "pod": pod, "job": "vllm"}
                    labels.update({"engine": "0", **self.info[pod]})
                    result.append(_series(labels, times, 1.0))
        return {"status": "success", "data": {"resultType": "matrix", "result": result}}


def _step_s(text: str) -> float:
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    for unit in ("ms", "s", "m", "h"):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    return float(text)


def _series(labels: dict[str, str], times: list[float], value: float) -> dict[str, object]:
    return {"metric": labels, "values": [[t, repr(value)] for t in times]}


def prom_handler(fleet: PromFleet) -> type[BaseHTTPRequestHandler]:
    from urllib.parse import parse_qsl

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def _send(self, code: int, body: bytes, extra: dict[str, str] | None = None) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = dict(parse_qsl(self.rfile.read(length).decode()))
            fleet.headers_seen.append(dict(self.headers.items()))
            if fleet.mode == "redirect":
                self._send(307, b"{}", {"Location": fleet.redirect_to + self.path})
                return
            if fleet.mode == "raw":
                self._send(200, fleet.raw)
                return
            body = json.dumps(fleet.answer(form)).encode()
            if fleet.mode == "drip":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    for i in range(len(body)):
                        if fleet.stop.wait(fleet.drip_s):
                            return
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                except OSError:
                    return
                return
            self._send(200, body)

    return Handler
