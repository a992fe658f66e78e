"""The probes' pure parts: argv and flag parsing, NVML through a recorded view, logs, model
configs, option validation. What needs a server on a socket is in tests/integration."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kvdoctor.capture import CaptureOptions
from kvdoctor.errors import KvdoctorError
from kvdoctor.probes.engine import parse_argv, parse_user_flags, probe_engine_args, scrub_argv
from kvdoctor.probes.gpu import GpuSampler
from kvdoctor.probes.http import fetch, make_client
from kvdoctor.probes.logs import LogSource, read_capped
from kvdoctor.probes.model_config import probe_model_config


def test_bad_urls() -> None:
    with make_client(timeout=1) as client:
        assert "unsupported URL scheme" in (fetch(client, "ftp://x/metrics").error or "")


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


def test_capture_options_validation() -> None:
    with pytest.raises(ValueError, match="http:// or https://"):
        CaptureOptions(endpoint="localhost:8000")
    assert CaptureOptions(endpoint="http://h:1/metrics/").endpoint == "http://h:1"
