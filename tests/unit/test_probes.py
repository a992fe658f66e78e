"""Probes and the capture against local HTTP servers that behave well, badly, or not at all."""

from __future__ import annotations

import io
import re
import socket
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _vllm_fake import FakeClock, FakeVllm, free_port, payload, serve

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.capture import CaptureOptions, capture, was_interrupted
from kvdoctor.errors import KvdoctorError, ProbeError
from kvdoctor.probes.engine import parse_argv, parse_user_flags, probe_engine_args, scrub_argv
from kvdoctor.probes.gpu import GpuSampler
from kvdoctor.probes.http import fetch, make_client
from kvdoctor.probes.logs import LogSource, read_capped
from kvdoctor.probes.metrics import scrape_metrics
from kvdoctor.probes.model_config import probe_model_config
from kvdoctor.probes.server import probe_server
from kvdoctor.signals.compute import compute_signals

IDLE = payload("metrics-idle.txt")
HITS = payload("metrics-prefix-hits.txt")


def _scrape(fake: FakeVllm, timeout: float = 2.0) -> Any:
    with serve(fake) as url, make_client(timeout=timeout) as client:
        return scrape_metrics(client, url, timeout=timeout)


# ----------------------------------------------------------------------------- bad input


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


def test_bad_urls() -> None:
    with make_client(timeout=1) as client:
        assert "unsupported URL scheme" in (fetch(client, "ftp://x/metrics").error or "")


# ---------------------------------------------------------------------------- server probe


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


# ------------------------------------------------------------------------- engine flags


def test_parse_argv_of_both_entry_points() -> None:
    a = parse_argv(
        [
            "/usr/bin/python3",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            "/m",
            "--port",
            "18123",
            "--gpu-memory-utilization=0.85",
            "--enforce-eager",
            "--no-enable-prefix-caching",
            "--api-key",
            "sk-secret",
            "--max-num-seqs",
            "64",
        ]
    )
    assert a == {
        "model": "/m",
        "port": 18123,
        "gpu-memory-utilization": 0.85,
        "enforce-eager": True,
        "no-enable-prefix-caching": True,
        "api-key": "<redacted>",
        "max-num-seqs": 64,
    }
    b = parse_argv(["/venv/bin/vllm", "serve", "meta-llama/Llama-3.1-8B", "--block_size", "32"])
    assert b == {"model": "meta-llama/Llama-3.1-8B", "block-size": 32}


def test_secrets_are_scrubbed_from_argv() -> None:
    argv = [
        "vllm",
        "serve",
        "m",
        "--api-key",
        "sk-1",
        "--hf-token=hf_abc",
        "--max-num-batched-tokens",
        "8",
    ]
    assert scrub_argv(argv) == [
        "vllm",
        "serve",
        "m",
        "--api-key",
        "<redacted>",
        "--hf-token=<redacted>",
        "--max-num-batched-tokens",
        "8",
    ]


def test_user_flags() -> None:
    assert parse_user_flags(["max-num-seqs=64", "kv_cache_dtype=fp8", "enforce-eager"]) == {
        "max-num-seqs": 64,
        "kv-cache-dtype": "fp8",
        "enforce-eager": True,
    }
    with pytest.raises(KvdoctorError, match="KEY=VALUE"):
        parse_user_flags(["=3"])


def test_remote_endpoint_has_no_argv_but_keeps_user_flags() -> None:
    args, missing, pids = probe_engine_args("http://203.0.113.7:8000", {"max-num-seqs": 8})
    assert args is not None and args.argv is None and args.args == {"max-num-seqs": 8}
    assert missing[0].what == "engine process" and "remote" in missing[0].why
    assert pids == set()


def test_local_endpoint_without_server_process() -> None:
    args, missing, _ = probe_engine_args(f"http://127.0.0.1:{free_port()}", {})
    assert args is None
    assert "no local vLLM server process serves port" in missing[0].why


# ------------------------------------------------------------------------------ GPU (NVML)


def test_gpu_probe_without_driver_says_why() -> None:
    sampler = GpuSampler()  # this machine has no NVIDIA driver
    if sampler.why_not is None:
        pytest.skip("an NVIDIA driver is present here")
    assert sampler.sample(1.0) is None
    assert sampler.not_checked is not None and sampler.not_checked.what == "gpu"


class _FakeNvml:
    """A recorded NVML view: one 80 GiB device, the server's worker and a stranger."""

    def nvmlInit(self) -> None:
        return None

    def nvmlShutdown(self) -> None:
        return None

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetMemoryInfo(self, h: int) -> Any:
        return SimpleNamespace(total=80 * 2**30, used=75 * 2**30)

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return b"NVIDIA H100 80GB HBM3"

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:
        return [
            SimpleNamespace(pid=200, usedGpuMemory=5 * 2**30),
            SimpleNamespace(pid=100, usedGpuMemory=70 * 2**30),
        ]


def test_gpu_sampler_names_server_processes() -> None:
    sampler = GpuSampler({100}, nvml_loader=_FakeNvml, name_of=lambda pid: "python3")
    s = sampler.sample(5.0)
    assert s is not None
    d = s.devices[0]
    assert (d.name, d.memory_total, d.memory_used) == (
        "NVIDIA H100 80GB HBM3",
        80 * 2**30,
        75 * 2**30,
    )
    assert [(p.pid, p.name) for p in d.processes] == [(100, "vllm (python3)"), (200, "python3")]


# ------------------------------------------------------------------------ logs and config


def test_logs_from_file_stdin_and_cap(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("INFO start\n")
    assert LogSource(str(log)).collect() == ("INFO start\n", None)
    text, nc = LogSource("-", stdin=io.StringIO("from a pipe\n")).collect()
    assert text == "from a pipe\n" and nc is None
    missing, nc = LogSource(str(tmp_path / "nope.log")).collect()
    assert missing is None and nc is not None and "cannot read" in nc.why
    capped = read_capped(io.StringIO("H" * 100 + "M" * 10_000 + "T" * 100), limit=400)
    assert capped.startswith("H" * 100) and capped.endswith("T" * 100)
    assert "characters of log cut here" in capped and len(capped) < 500


def test_model_config_from_dir_and_reasons(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"num_hidden_layers": 2}')
    cfg, nc = probe_model_config(str(tmp_path), None, None)
    assert cfg == {"num_hidden_layers": 2} and nc is None
    cfg, nc = probe_model_config(str(tmp_path / "nope"), None, None)
    assert cfg is None and nc is not None
    cfg, nc = probe_model_config(None, None, None)
    assert cfg is None and nc is not None and "did not say which model" in nc.why


# -------------------------------------------------------------------------------- capture


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


def test_redact_replaces_hosts_ips_and_paths(tmp_path: Path) -> None:
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


def test_capture_options_validation() -> None:
    with pytest.raises(ValueError, match="http:// or https://"):
        CaptureOptions(endpoint="localhost:8000")
    assert CaptureOptions(endpoint="http://h:1/metrics/").endpoint == "http://h:1"


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
