"""Probes and the capture against local HTTP servers that behave well, badly, or not at all.

These open loopback sockets (tests/integration); the probes' pure parts are in
tests/unit/test_probes.py.
"""

from __future__ import annotations

import io
import re
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from _vllm_fake import FakeClock, FakeVllm, PatientServerProbe, free_port, serve
from vllm_payloads import payload

import kvdoctor.probes.server
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.capture import CaptureOptions, capture, was_interrupted
from kvdoctor.errors import ProbeError
from kvdoctor.probes.engine import probe_engine_args
from kvdoctor.probes.http import fetch, fetch_async, make_client
from kvdoctor.probes.metrics import scrape_metrics
from kvdoctor.probes.server import probe_server
from kvdoctor.signals.compute import compute_signals

IDLE = payload("metrics-idle.txt")
HITS = payload("metrics-prefix-hits.txt")


def _scrape(fake: FakeVllm, timeout: float = 2.0) -> Any:
    with serve(fake) as url, make_client(timeout=timeout) as client:
        return scrape_metrics(client, url, timeout=timeout)


def test_good_scrape_keeps_the_raw_text() -> None:
    s = _scrape(FakeVllm(metrics=[IDLE]))
    assert s.ok and s.text == IDLE and s.status == 200


def test_connection_refused() -> None:
    with make_client(timeout=2) as client:
        s = scrape_metrics(client, f"http://127.0.0.1:{free_port()}")
    assert s.error == "connection refused (nothing listens there)"
    assert s.status is None


def test_server_that_accepts_and_never_answers() -> None:
    # A bare socket that accepts the connection and then says nothing.
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        port = srv.getsockname()[1]
        with make_client(timeout=0.5) as client:
            s = scrape_metrics(client, f"http://127.0.0.1:{port}", timeout=0.5)
    assert s.error is not None and s.error.startswith("no answer within 0.5s")


def test_http_handler_that_hangs_times_out() -> None:
    s = _scrape(FakeVllm(mode="hang"), timeout=0.5)
    assert s.error is not None and "no answer within 0.5s" in s.error


@pytest.mark.parametrize(
    ("status", "fragment"),
    [
        (401, "needs credentials (--header"),
        (403, "credentials were refused"),
        (404, "not found"),
        (500, "HTTP 500 Internal Server Error"),
    ],
)
def test_http_errors_are_one_line_and_actionable(status: int, fragment: str) -> None:
    s = _scrape(FakeVllm(mode="status", status=status))
    assert s.status == status
    assert s.error is not None and fragment in s.error and "\n" not in s.error


def test_html_instead_of_metrics() -> None:
    s = _scrape(FakeVllm(mode="html"))
    assert s.error is not None and "HTML" in s.error and s.text is None


def test_garbage_instead_of_metrics() -> None:
    s = _scrape(FakeVllm(mode="garbage"))
    assert s.error is not None and "not Prometheus exposition text: line 1" in s.error


def test_valid_exposition_without_vllm_metrics() -> None:
    s = _scrape(FakeVllm(metrics=["process_cpu_seconds_total 1.0\n"]))
    assert s.error is not None and "is this a vLLM server?" in s.error


def test_nan_and_inf_values_are_kept_raw() -> None:
    text = IDLE.replace(
        'vllm:kv_cache_usage_perc{engine="0",model_name="kvdoctor-tiny-llama"} 0.0',
        'vllm:kv_cache_usage_perc{engine="0",model_name="kvdoctor-tiny-llama"} NaN',
    )
    assert text != IDLE
    s = _scrape(FakeVllm(metrics=[text]))
    assert s.ok and "NaN" in (s.text or "")


def test_huge_payload_is_capped_while_streaming() -> None:
    fake = FakeVllm(mode="huge", huge_bytes=100 * 1024 * 1024)
    with serve(fake) as url, make_client(timeout=5) as client:
        got = fetch(client, url + "/metrics", timeout=5, max_bytes=1024 * 1024)
    assert got.text is None
    assert got.error is not None and "larger than 1 MiB; not loaded" in got.error


def test_a_dripping_body_is_cut_off_by_both_fetch_paths() -> None:
    # Every read arrives within the timeout, so only the whole-body cut-off (twice the timeout)
    # ends it; the reproducers' async path keeps the same bound as the probes' sync one.
    import asyncio

    import httpx

    async def read_async(url: str) -> Any:
        async with httpx.AsyncClient(trust_env=False) as client:
            return await fetch_async(client, url + "/metrics", timeout=0.5)

    for reader in ("sync", "async"):
        fake = FakeVllm(mode="drip")
        with serve(fake) as url:
            if reader == "sync":
                with make_client(timeout=0.5) as client:
                    got = fetch(client, url + "/metrics", timeout=0.5)
            else:
                got = asyncio.run(read_async(url))
        assert got.text is None, reader
        assert got.error is not None and "still arriving after 1s; cut off" in got.error, reader


def test_server_probe_reads_version_models_health() -> None:
    with serve(FakeVllm(metrics=[IDLE])) as url, make_client() as client:
        info, missing = probe_server(client, url)
    assert missing == []
    assert info is not None
    assert info.version == {"version": "0.32.0"}
    assert info.models["data"][0]["id"] == "kvdoctor-tiny-llama"
    assert info.health == 200


def test_server_probe_down_is_not_checked_not_raised() -> None:
    with make_client(timeout=1) as client:
        info, missing = probe_server(client, f"http://127.0.0.1:{free_port()}")
    assert info is None
    assert [m.what for m in missing] == ["server"]
    assert "connection refused" in missing[0].why


def test_local_endpoint_without_server_process() -> None:
    args, missing, _ = probe_engine_args(f"http://127.0.0.1:{free_port()}", {})
    assert args is None
    assert "no local vLLM server process serves port" in missing[0].why


def _opts(url: str, **kw: Any) -> CaptureOptions:
    return CaptureOptions(endpoint=url, window_s=4.0, interval_s=2.0, timeout=2.0, **kw)


def test_capture_with_a_fake_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    fake = FakeVllm(metrics=[IDLE, HITS, HITS])
    cfg = tmp_path / "config.json"
    cfg.write_text('{"num_hidden_layers": 2}')
    with serve(fake) as url:
        b = capture(
            _opts(url + "/metrics", model_config_path=str(cfg), engine_args={"max-num-seqs": 16}),
            progress=False,
            sink=tmp_path / "b.tar.gz",
            clock=clock.time,
            sleep=clock.sleep,
        )
    assert [s.t - b.manifest.started_at for s in b.scrapes] == [0.0, 2.0, 4.0]
    assert b.manifest.endpoint == url  # the pasted /metrics suffix is dropped
    assert b.model_config_raw == {"num_hidden_layers": 2}
    assert b.engine_args is not None and b.engine_args.args == {"max-num-seqs": 16}
    on_disk = read_bundle(tmp_path / "b.tar.gz")
    assert on_disk.model_dump(exclude={"source"}) == b.model_dump(exclude={"source"})
    whats = {n.what for n in b.manifest.not_checked}
    assert "logs" in whats and "engine process" in whats
    s = compute_signals(on_disk)
    assert s.get("requests_finished_window") == 12
    assert s.get("max_num_seqs") == 16
    assert "user-supplied flag" in s.values["max_num_seqs"].provenance


def test_capture_refused_everywhere_raises_probe_error(tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match=r"nothing collected from .*connection refused"):
        capture(_opts(f"http://127.0.0.1:{free_port()}"), progress=False, sink=tmp_path / "b")
    assert list(tmp_path.iterdir()) == []  # no half bundle left behind


@pytest.mark.parametrize(("mode", "status"), [("status", 401), ("html", 200)])
def test_capture_fails_fast_on_hopeless_first_answer(mode: str, status: int) -> None:
    clock = FakeClock()
    with serve(FakeVllm(mode=mode, status=status)) as url, pytest.raises(ProbeError) as err:
        capture(_opts(url), progress=False, clock=clock.time, sleep=clock.sleep)
    assert "\n" not in str(err.value)
    assert clock.now - 1_800_000_000.0 == 0.0  # it did not wait out the window


def test_headers_are_sent_but_never_stored(tmp_path: Path) -> None:
    clock = FakeClock()
    token = "sk-very-secret-token-123"
    fake = FakeVllm(metrics=[IDLE, HITS], require_header=("Authorization", f"Bearer {token}"))
    logs = tmp_path / "server.log"
    logs.write_text(f"INFO non-default args: {{'api_key': ['{token}'], 'port': 8000}}\n")
    with serve(fake) as url:
        capture(
            _opts(url, headers={"Authorization": f"Bearer {token}"}, logs=str(logs)),
            progress=False,
            sink=tmp_path / "b",
            clock=clock.time,
            sleep=clock.sleep,
        )
    assert all(h.get("authorization") == f"Bearer {token}" for _, h in fake.requests)
    for f in (tmp_path / "b").iterdir():
        assert token not in f.read_text(), f.name


def test_ctrl_c_keeps_what_was_captured(tmp_path: Path) -> None:
    clock = FakeClock()
    calls = {"n": 0}

    def sleep(s: float) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        clock.sleep(s)

    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        b = capture(
            CaptureOptions(endpoint=url, window_s=60, interval_s=2, timeout=2),
            progress=False,
            sink=tmp_path / "b",
            clock=clock.time,
            sleep=sleep,
        )
    assert was_interrupted(b)
    assert len(b.scrapes) == 2
    back = read_bundle(tmp_path / "b")
    assert len(back.scrapes) == 2 and "after 2 of 31 scrapes" in back.manifest.notes


def test_redact_replaces_hosts_ips_and_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bundle's server.json is asserted: the probes wait for the fake (see the class).
    monkeypatch.setattr(kvdoctor.probes.server, "ServerProbe", PatientServerProbe)
    clock = FakeClock()
    logs = tmp_path / "server.log"
    logs.write_text("INFO model='/root/.cache/kvdoctor/lab-model-x' peer 10.1.2.3 ok\n")
    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        b = capture(
            _opts(url, redact=True, logs=str(logs)),
            progress=False,
            sink=tmp_path / "b",
            clock=clock.time,
            sleep=clock.sleep,
        )
    assert b.logs is not None
    assert re.fullmatch(r"INFO model='<path-\d+>' peer ip-1 ok\n", b.logs)
    assert b.server is not None
    root = b.server.models["data"][0]["root"]
    assert root.startswith("<path-") and "lab-model" not in root
    text = (tmp_path / "b" / "server.json").read_text()
    assert "/root/.cache" not in text
    # Redacted exposition text still parses to the same signals.
    assert compute_signals(b).get("requests_finished_window") == 12


def test_stdin_logs_during_capture(tmp_path: Path) -> None:
    clock = FakeClock()
    r, w = _pipe()
    w.write(
        "(EngineCore) INFO CPU KV cache size: 2,048 tokens, Maximum concurrency for "
        "2,048 tokens per request: 1.00x\n"
    )
    w.close()
    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        b = capture(
            _opts(url, logs="-"), progress=False, clock=clock.time, sleep=clock.sleep, stdin=r
        )
    s = compute_signals(b)
    assert s.get("log_kv_cache_tokens") == 2048
    assert s.get("log_max_concurrency") == 1.0


def _pipe() -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    import os

    rfd, wfd = os.pipe()
    return os.fdopen(rfd, "r"), os.fdopen(wfd, "w")


def test_threads_do_not_leak() -> None:
    before = threading.active_count()
    clock = FakeClock()
    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        capture(_opts(url), progress=False, clock=clock.time, sleep=clock.sleep)
    assert threading.active_count() <= before + 1
