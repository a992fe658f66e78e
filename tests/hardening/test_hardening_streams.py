"""Streamed answers a hostile server can send the experiments (issue 25, round two).

A server on loopback streams completions whose ``usage`` counts are not numbers, or one event of
2 MiB: the run still ends with its record written (exit 0 or 1, never a traceback), the bad
counts are left out, and the oversized event is refused at the 1 MiB cap.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from _hostile import DATA, kvdoctor

from kvdoctor.reproducers.loadgen import MAX_EVENT_BYTES, EventTooLarge, SSEParser

USAGE_MANY = {"prompt_tokens": "many", "completion_tokens": "many", "total_tokens": "lots"}


@contextmanager
def streaming_server(events: list[bytes]) -> Iterator[str]:
    """A vLLM stand-in: recorded /metrics and /v1/models; every completion streams ``events``
    (each a ``data:`` payload) and then ``[DONE]``, read to close."""
    metrics = (DATA / "metrics-idle.txt").read_text(encoding="utf-8")
    models = (DATA / "models.json").read_text(encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: object) -> None:
            return

        def _send(self, body: str, ctype: str) -> None:
            raw = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(metrics, "text/plain; version=0.0.4")
            elif path == "/v1/models":
                self._send(models, "application/json")
            elif path == "/version":
                self._send('{"version": "0.32.0"}', "application/json")
            else:
                self._send("", "text/plain")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.startswith(("/v1/completions", "/v1/chat/completions")):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for event in [*events, b"[DONE]"]:
                    self.wfile.write(b"data: " + event + b"\n\n")
                    self.wfile.flush()
            except OSError:
                return  # the client hung up (the cap), as it should

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _token(text: str) -> bytes:
    return json.dumps(
        {"object": "text_completion", "choices": [{"index": 0, "text": text, "delta": {}}]}
    ).encode()


def _chat_token(text: str) -> bytes:
    return json.dumps(
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}}]}
    ).encode()


def _reproduce(url: str, tmp_path: Path) -> tuple[int, dict[str, object], str]:
    run = kvdoctor(["reproduce", "ttft-split", "--endpoint", url, "--format", "json"], cwd=tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.rc in (0, 1), (run.rc, run.stderr)
    record = json.loads(run.stdout)
    assert isinstance(record, dict)
    return run.rc, record, run.stderr


def test_usage_counts_that_are_not_numbers_still_give_a_record(tmp_path: Path) -> None:
    usage = json.dumps({"choices": [], "usage": USAGE_MANY}).encode()
    events = [_token("a"), _chat_token("b"), _token("c"), _chat_token("d"), usage]
    with streaming_server(events) as url:
        _, record, _ = _reproduce(url, tmp_path)
    text = json.dumps(record)
    # The record is written, and none of the server's words became a count in it.
    assert record.get("name") == "ttft-split", record
    assert "many" not in text and "lots" not in text
    # Saved into a bundle, the run gives a report (the hostile pass got a traceback and none).
    with streaming_server(events) as url:
        saved = kvdoctor(
            ["reproduce", "ttft-split", "--endpoint", url, "--save-bundle", str(tmp_path / "b")],
            cwd=tmp_path,
        )
    assert saved.rc in (0, 1) and "Traceback" not in saved.stderr, saved.stderr
    report = tmp_path / "report.md"
    run = kvdoctor(["diagnose", "--bundle", str(tmp_path / "b"), "-o", str(report)], cwd=tmp_path)
    assert "Traceback" not in run.stderr and run.stderr.count("\n") <= 2, run.stderr
    written = report.read_text(encoding="utf-8")
    assert "kvdoctor reproduce ttft-split" in written and "many" not in written


@pytest.mark.parametrize("size", [MAX_EVENT_BYTES + 1024, 2 * MAX_EVENT_BYTES])
def test_one_stream_event_past_the_cap_is_refused(size: int, tmp_path: Path) -> None:
    # One event that is a valid token of 1-2 MiB: without the cap it was buffered whole and
    # counted as a token (every probe "got a first token"); with it every request fails at
    # 1 MiB, whether the event's end came in the same read or not, and the run still ends
    # with its record.
    big = _token("x" * size)
    with streaming_server([big]) as url:
        _, record, _ = _reproduce(url, tmp_path)
    measured = record["measured"]
    assert isinstance(measured, dict)
    assert measured["probes_ok"] == 0, measured
    assert record["summary"] == "no probe got a first token", record["summary"]


@pytest.mark.parametrize("size", [MAX_EVENT_BYTES + 1, 3 * MAX_EVENT_BYTES])
@pytest.mark.parametrize("whole", [True, False])
def test_the_event_cap_holds_however_the_bytes_arrive(size: int, whole: bool) -> None:
    line = b"data: " + b"x" * size + b"\n\n"
    parser = SSEParser()
    with pytest.raises(EventTooLarge, match="larger than 1024 KiB"):
        if whole:  # the end of the line in the same read
            parser.feed(line)
        else:
            for i in range(0, len(line), 65536):
                parser.feed(line[i : i + 65536])
    # At the cap itself the event is read.
    ok = SSEParser().feed(b"data: " + b"y" * (MAX_EVENT_BYTES - 6) + b"\n")
    assert ok == [b"y" * (MAX_EVENT_BYTES - 6)]
