"""Signals from real vLLM 0.32 payloads and logs: catalog coverage, provenance, sources."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kvdoctor.bundle.model import (
    Bundle,
    EngineArgs,
    GpuDevice,
    GpuProcess,
    GpuSample,
    Manifest,
    NotChecked,
    Scrape,
    ServerInfo,
)
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.compute import compute_signals

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def bundle(*payloads: str, **parts: Any) -> Bundle:
    scrapes = [Scrape(t=50.0 + 5 * i, status=200, text=p) for i, p in enumerate(payloads)]
    manifest = Manifest(
        created_by="test", endpoint="e", started_at=50.0, ended_at=scrapes[-1].t, interval_s=5.0
    )
    return Bundle(manifest=manifest, scrapes=scrapes, **parts)


def healthy(**parts: Any) -> Bundle:
    server = ServerInfo(
        version=json.loads(text("version.json")), models=json.loads(text("models.json")), health=200
    )
    parts.setdefault("server", server)
    return bundle(text("metrics-idle.txt"), text("metrics-prefix-hits.txt"), **parts)


def test_every_catalog_signal_is_present_with_provenance_or_reason() -> None:
    for b in (healthy(), healthy(logs=text("log-startup-healthy.txt")), bundle("vllm:x 1\n")):
        s = compute_signals(b)
        assert set(s.values) == set(SIGNALS)
        for name, v in s.values.items():
            if v.value is None:
                assert v.reason, name
            else:
                assert v.provenance, name


def test_window_and_lifetime_hit_rates_differ_and_say_so() -> None:
    # A window that starts after some traffic: the lifetime rate includes what came before.
    hits = text("metrics-prefix-hits.txt")
    key = 'engine="0",model_name="kvdoctor-tiny-llama"'
    later = hits.replace(
        f"vllm:prefix_cache_queries_total{{{key}}} 8400.0",
        f"vllm:prefix_cache_queries_total{{{key}}} 9400.0",
    )
    assert later != hits
    s = compute_signals(bundle(hits, later))
    assert s.get("prefix_hit_rate_window") == 0.0  # 1,000 queries, no new hit
    assert s.get("prefix_hit_rate_lifetime") == pytest.approx(5632 / 9400)
    assert "over the window only" in s.values["prefix_hit_rate_window"].provenance
    assert "last values" in s.values["prefix_hit_rate_lifetime"].provenance


def test_engine_config_from_cache_config_info() -> None:
    s = compute_signals(healthy())
    assert s.get("block_size") == 128
    assert s.get("num_gpu_blocks") == 8192
    assert s.get("kv_capacity_tokens") == 1_048_576
    assert s.get("cache_dtype") == "auto"
    assert s.get("prefix_caching") is True
    assert s.get("gpu_memory_utilization") == 0.92
    assert s.get("kv_cache_memory_bytes") == 1 << 30
    assert s.get("max_model_len") == 4096
    assert s.values["block_size"].provenance.startswith("metrics: vllm:cache_config_info")
    assert s.get("served_model") == "kvdoctor-tiny-llama"
    assert s.get("vllm_version") == "0.32.0"


def _value(payload: str, series: str) -> float:
    m = re.search(rf"^{re.escape(series)} (\S+)$", payload, re.MULTILINE)
    assert m is not None, series
    return float(m.group(1))


def test_preemption_storm_from_the_real_pair() -> None:
    # Expected numbers are read from the capture itself, so a re-capture keeps the test honest.
    load, after = text("metrics-preemption-load.txt"), text("metrics-preemption-after.txt")
    key = '{engine="0",model_name="kvdoctor-tiny-llama"}'
    s = compute_signals(bundle(load, after))
    assert s.get("num_gpu_blocks") == 17
    assert s.get("kv_capacity_tokens") == 17 * 128
    first, last = (_value(p, f"vllm:num_preemptions_total{key}") for p in (load, after))
    assert last > first > 0
    assert s.get("preemptions_lifetime") == last
    assert s.get("preemptions_window") == last - first
    assert s.get("preemptions_per_s") == (last - first) / 5.0
    assert s.series["preemptions"] == [(50.0, 0.0), (55.0, last - first)]
    assert s.get("kv_usage_max") == _value(load, f"vllm:kv_cache_usage_perc{key}") > 0.5
    assert s.get("running_max") == _value(load, f"vllm:num_requests_running{key}")
    assert s.get("waiting_max") == _value(load, f"vllm:num_requests_waiting{key}")
    assert s.fraction_of_window("kv_usage", ">=", 0.5) == 0.5


def test_engine_args_fill_what_metrics_lack_and_name_their_source() -> None:
    args = EngineArgs(
        argv=[
            "python",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--max-num-seqs",
            "16",
            "--block-size",
            "16",
        ],
        args={"max-num-seqs": 16, "block-size": 16, "max-num-batched-tokens": 2048},
    )
    s = compute_signals(healthy(engine_args=args))
    assert s.get("max_num_seqs") == 16
    assert s.values["max_num_seqs"].provenance == "engine_args: --max-num-seqs (process argv)"
    assert s.get("max_num_batched_tokens") == 2048
    assert "user-supplied flag" in s.values["max_num_batched_tokens"].provenance
    # cache_config_info (what the engine actually runs with) beats a flag.
    assert s.get("block_size") == 128


def test_engine_args_alone_when_metrics_lack_cache_config_info() -> None:
    no_info = (
        "\n".join(
            line
            for line in text("metrics-idle.txt").splitlines()
            if "cache_config_info" not in line
        )
        + "\n"
    )
    args = EngineArgs(
        argv=None,
        args={
            "block-size": 16,
            "num-gpu-blocks-override": 100,
            "no-enable-prefix-caching": True,
            "kv-cache-dtype": "fp8",
        },
    )
    s = compute_signals(bundle(no_info, no_info, engine_args=args))
    assert s.get("block_size") == 16
    assert s.get("kv_capacity_tokens") == 1600
    assert s.get("prefix_caching") is False
    assert s.get("cache_dtype") == "fp8"
    assert s.get("max_num_seqs") is None
    assert "server default unknown" in (s.values["max_num_seqs"].reason or "")


def test_log_signals_from_real_logs() -> None:
    s = compute_signals(healthy(logs=text("log-startup-healthy.txt")))
    assert s.get("log_kv_cache_tokens") == 1_048_576
    assert s.get("log_max_concurrency") == 256.0
    assert s.get("log_oom") is False
    assert s.get("log_no_cache_memory") is False
    assert s.get("log_max_model_len_exceeds_kv") is False
    assert s.get("log_fp8_kv_cache") is False

    s = compute_signals(healthy(logs=text("log-startup-kv-too-small.txt")))
    assert s.get("log_max_model_len_exceeds_kv") is True
    assert s.get("log_estimated_max_model_len") == 1920

    s = compute_signals(healthy(logs=text("log-preemption.txt")))
    assert s.get("log_kv_cache_tokens") == 2176
    assert s.get("log_max_concurrency") == 1.06


@pytest.mark.parametrize(
    ("line", "signal", "value"),
    [
        # Message texts as vLLM 0.32's source writes them (config/cache.py, kv_cache_utils.py,
        # v1/metrics/loggers.py) and the V0 scheduler's preemption warning.
        (
            "INFO [cache.py:361] Using fp8 data type to store kv cache. It reduces the GPU memory",
            "log_fp8_kv_cache",
            True,
        ),
        (
            # A release whose refusal names no device (external case g-mixtral).
            "ValueError: Free memory on device (5.31/79.18 GiB) on startup is less than desired "
            "GPU memory utilization (0.9, 71.26 GiB). Decrease GPU memory utilization or reduce "
            "GPU memory used by other processes.",
            "log_startup_free_gib",
            5.31,
        ),
        (
            # A build without the stray parenthesis before the size (external case g-minimax).
            "ValueError: To serve at least one request with the model's max seq len (196608), "
            "23.25 GiB KV cache is needed, which is larger than the available KV cache memory "
            "(22.5 GiB).",
            "log_max_model_len_exceeds_kv",
            True,
        ),
        (
            "ERROR ValueError: No available memory for the cache blocks. Try increasing "
            "`gpu_memory_utilization` when initializing the engine",
            "log_no_cache_memory",
            True,
        ),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "log_oom", True),
        (
            "INFO Engine 000: Avg prompt throughput: 1.0 tokens/s, Running: 3 reqs, "
            "Waiting: 9 reqs, GPU KV cache usage: 99.1%, Preemptions: 7",
            "log_preemption_warnings",
            7,
        ),
        (
            "WARNING Sequence group 5 is preempted by PreemptionMode.RECOMPUTE mode because "
            "there is not enough KV cache space.",
            "log_preemption_warnings",
            1,
        ),
    ],
)
def test_log_lines(line: str, signal: str, value: object) -> None:
    s = compute_signals(healthy(logs=line + "\n"))
    assert s.get(signal) == value


@pytest.mark.parametrize(
    ("line", "errors"),
    [
        # Mooncake's decode side (external case i-pd-mooncake), NIXL's, and a failed load
        # worded outside a connector module.
        (
            "(Worker_DP6_EP6 pid=9774) ERROR 08-01 12:42:13 [mooncake_connector.py:1899] "
            "pulling kv_caches for ['973ca62f1bc3666d'] failed: Timeout waiting for P side ready.",
            1,
        ),
        (
            "(EngineCore_DP0 pid=1) ERROR 07-03 09:12:44 [nixl_connector.py:1532] "
            "Handshake with remote agent failed",
            1,
        ),
        ("ERROR 07-03 09:12:44 [worker.py:88] Failed to load KV blocks: transfer timed out", 1),
        # Not an error, or an error of something else.
        ("INFO 08-01 12:00:01 [mooncake_connector.py:210] Mooncake bootstrap server started", 0),
        ("ERROR 08-01 12:00:01 [serving_chat.py:100] Error in chat completion stream", 0),
        ("WARNING 08-01 12:00:01 [scheduler.py:10] KV transfer failed; retrying", 0),
    ],
)
def test_kv_connector_errors_are_counted_from_error_lines_only(line: str, errors: int) -> None:
    s = compute_signals(healthy(logs=line + "\n"))
    assert s.get("log_kv_transfer_errors") == errors


def test_kv_connector_error_is_quoted_without_its_prefix() -> None:
    line = (
        "(Worker_DP0_EP0 pid=9778) ERROR 08-01 12:42:13 [mooncake_connector.py:1899] pulling "
        "kv_caches for ['94a7d5ac08490bb5'] failed: Timeout waiting for P side ready."
    )
    s = compute_signals(healthy(logs=line + "\n" + line + "\n"))
    assert s.get("log_kv_transfer_errors") == 2
    assert s.get("log_kv_transfer_error_line") == (
        "pulling kv_caches for ['94a7d5ac08490bb5'] failed: Timeout waiting for P side ready."
    )


def test_missing_parts_report_the_probe_reason() -> None:
    b = healthy(server=None)
    b = b.model_copy(
        update={
            "manifest": b.manifest.model_copy(
                update={
                    "not_checked": [
                        NotChecked(what="gpu", why="NVML unavailable (no NVIDIA driver?)")
                    ]
                }
            )
        }
    )
    s = compute_signals(b)
    assert (
        s.values["gpu_memory_used_bytes"].reason
        == "gpu not checked: NVML unavailable (no NVIDIA driver?)"
    )
    assert "no logs" in (s.values["log_oom"].reason or "")


# Recorded NVML view in gpu.jsonl form: two H100s; device 1 carries the vLLM workers and a
# notebook kernel someone left running; device 0 is nearly idle.
GPU = [
    GpuSample(
        t=50.0 + 5 * i,
        devices=[
            GpuDevice(
                index=0,
                name="NVIDIA H100 80GB HBM3",
                memory_total=85_520_809_984,
                memory_used=600_000_000,
                processes=[],
            ),
            GpuDevice(
                index=1,
                name="NVIDIA H100 80GB HBM3",
                memory_total=85_520_809_984,
                memory_used=80_000_000_000 + i * 1_000_000,
                processes=[
                    GpuProcess(pid=4242, name="vllm (VLLM::EngineCor)", used_memory=70_000_000_000),
                    GpuProcess(pid=999, name="python3", used_memory=9_000_000_000 + i),
                ],
            ),
        ],
    )
    for i in range(2)
]


def test_gpu_signals_from_recorded_samples() -> None:
    s = compute_signals(healthy(gpu=GPU))
    assert s.get("gpu_memory_used_bytes") == 80_001_000_000
    assert s.get("gpu_memory_total_bytes") == 85_520_809_984
    assert s.get("gpu_memory_used_fraction") == pytest.approx(80_001_000_000 / 85_520_809_984)
    assert s.get("gpu_other_process_bytes") == 9_000_000_001
    assert "device 1" in s.values["gpu_memory_used_bytes"].provenance


def test_a_loading_server_process_is_never_another_process() -> None:
    # External case m-v100 (vLLM 0.6.5 in a container, the server never started): each V100's
    # only process is the server's worker under a host PID the log does not name; half-way
    # through loading it held less than its 7.51 GiB of weights, and that sample alone read
    # as "another process holds 5.9 GiB".
    gib = 1 << 30

    def sample(t: float, held: int) -> GpuSample:
        return GpuSample(
            t=t,
            devices=[
                GpuDevice(
                    index=0,
                    name="Tesla V100-SXM2-16GB",
                    memory_total=16 * gib,
                    memory_used=held + gib // 4,
                    processes=[GpuProcess(pid=2870, name="python3", used_memory=held)],
                )
            ],
        )

    log = (
        "(VllmWorkerProcess pid=90) INFO 12-20 20:24:31 model_runner.py:1097] "
        "Loading model weights took 7.5123 GB\n"
    )
    failed = [Scrape(t=50.0 + 5 * i, error="connection refused") for i in range(3)]
    manifest = Manifest(
        created_by="test", endpoint="e", started_at=50.0, ended_at=60.0, interval_s=5.0
    )
    b = Bundle(
        manifest=manifest,
        scrapes=failed,
        logs=log,
        gpu=[sample(50.0, 6 * gib), sample(55.0, 15 * gib), sample(60.0, 0)],
    )
    assert compute_signals(b).get("gpu_other_process_bytes") == 0
    # Another process beside it is still another process.
    crowded = sample(60.0, 15 * gib)
    crowded.devices[0].processes.append(GpuProcess(pid=31, name="python3", used_memory=gib))
    b2 = b.model_copy(update={"gpu": [sample(50.0, 6 * gib), sample(55.0, 15 * gib), crowded]})
    assert compute_signals(b2).get("gpu_other_process_bytes") == gib


def test_a_driver_rank_loading_beside_its_named_workers_is_the_server() -> None:
    # External case zyj-tp8 (dev-19): a TP launch whose log names the worker ranks by PID
    # (VllmWorkerProcess pid=N) but not the driver on device 0. The driver's memory grows as
    # the workers' does while all load their shard, and it read as "another process holds
    # 14.6 GiB". A process whose memory follows no named rank stays another process.
    gib = 1 << 30

    def sample(t: float, held: int, driver: int) -> GpuSample:
        def dev(i: int, pid: int, mem: int) -> GpuDevice:
            return GpuDevice(
                index=i,
                name="Tesla T4",
                memory_total=15 * gib,
                memory_used=mem,
                processes=[GpuProcess(pid=pid, name="python3", used_memory=mem)] if mem else [],
            )

        return GpuSample(t=t, devices=[dev(0, 100, driver), dev(1, 101, held), dev(2, 102, held)])

    log = "".join(
        f"(VllmWorkerProcess pid={pid}) INFO 03-02 19:48:30 [worker.py:1] Loading weights\n"
        for pid in (101, 102)
    )
    failed = [Scrape(t=50.0 + 5 * i, error="connection refused") for i in range(4)]
    manifest = Manifest(
        created_by="test", endpoint="e", started_at=50.0, ended_at=65.0, interval_s=5.0
    )
    loading = [sample(50.0 + 5 * i, (i + 1) * 3 * gib, (i + 1) * 3 * gib) for i in range(4)]
    b = Bundle(manifest=manifest, scrapes=failed, logs=log, gpu=loading)
    assert compute_signals(b).get("gpu_other_process_bytes") == 0
    # A process on device 0 that holds 2 GiB throughout is not loading with the ranks.
    apart = [sample(50.0 + 5 * i, (i + 1) * 3 * gib, 2 * gib) for i in range(4)]
    b2 = b.model_copy(update={"gpu": apart})
    assert compute_signals(b2).get("gpu_other_process_bytes") == 2 * gib


def test_a_second_vllm_instance_on_the_device_is_another_process() -> None:
    # External case v-asr (round 7, dev): an aligner (EngineCore pid=4188 in its log) and an
    # ASR server started together on one RTX 5090; both engine cores are named
    # "VLLM::EngineCore". The one the log does not name is another instance, also when it is
    # the device's only process after the aligner died.
    gib = 1 << 30

    def sample(t: float, procs: list[GpuProcess]) -> GpuSample:
        used = sum(p.used_memory or 0 for p in procs)
        return GpuSample(
            t=t,
            devices=[
                GpuDevice(
                    index=0,
                    name="NVIDIA GeForce RTX 5090",
                    memory_total=32 * gib,
                    memory_used=used,
                    processes=procs,
                )
            ],
        )

    log = (
        "(EngineCore pid=4188) INFO 09-08 10:00:30 [gpu_model_runner.py:4500] Model loading "
        "took 1.18 GiB memory and 4.2 seconds\n"
    )
    ours = GpuProcess(pid=4188, name="VLLM::EngineCore", used_memory=2 * gib)
    manifest = Manifest(
        created_by="test", endpoint="e", started_at=50.0, ended_at=60.0, interval_s=5.0
    )
    b = Bundle(
        manifest=manifest,
        scrapes=[Scrape(t=50.0 + 5 * i, error="connection refused") for i in range(3)],
        logs=log,
        gpu=[
            sample(
                50.0, [GpuProcess(pid=4121, name="VLLM::EngineCore", used_memory=6 * gib), ours]
            ),
            sample(
                55.0, [GpuProcess(pid=4121, name="VLLM::EngineCore", used_memory=9 * gib), ours]
            ),
            sample(60.0, [GpuProcess(pid=4121, name="VLLM::EngineCore", used_memory=11 * gib)]),
        ],
    )
    assert compute_signals(b).get("gpu_other_process_bytes") == 11 * gib
    # Where the log names no engine core NVML shows (a container), two engine cores are not
    # told apart by name: neither counts as another process.
    b2 = b.model_copy(update={"logs": log.replace("pid=4188", "pid=90")})
    assert compute_signals(b2).get("gpu_other_process_bytes") == 0


def test_locker_math_with_the_lab_model_config() -> None:
    # The lab's tiny Llama: 2 layers, 2 KV heads, head_dim 64, bf16 -> 1,024 B/token.
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "torch_dtype": "bfloat16",
        "vocab_size": 256,
        "max_position_embeddings": 4096,
        "intermediate_size": 256,
    }
    s = compute_signals(healthy(model_config_raw=cfg))
    assert s.get("kv_bytes_per_token") == 1024
    # 1 GiB pool / (1,024 B × 1,048,576 tokens) = 1: the reported pool and the math agree.
    assert s.get("kv_config_mismatch") == 1.0
    # One request can use every block but the V1 block pool's null block (128 tokens here).
    assert s.get("request_capacity_tokens") == 1_048_576 - 128
    assert s.get("max_model_len_over_capacity") == 4096 / (1_048_576 - 128)
    # A --num-gpu-blocks-override pool is sized by the flag, not by memory: not comparable
    # (the same verdict as the report's KV math, never a false "mismatch").
    overridden = healthy(
        model_config_raw=cfg,
        engine_args=EngineArgs(argv=None, args={"num-gpu-blocks-override": "24"}),
    )
    s = compute_signals(overridden)
    assert s.get("kv_config_mismatch") is None
    reason = s.values["kv_config_mismatch"].reason
    assert reason is not None and reason.startswith("not_comparable")


def test_garbage_model_config_is_a_reason_not_a_crash() -> None:
    s = compute_signals(healthy(model_config_raw={"nonsense": True}))
    assert s.get("kv_bytes_per_token") is None
    assert (s.values["kv_bytes_per_token"].reason or "").startswith("model config not understood")


def test_output_is_deterministic() -> None:
    a = compute_signals(healthy(logs=text("log-startup-healthy.txt"), gpu=GPU))
    b = compute_signals(healthy(logs=text("log-startup-healthy.txt"), gpu=GPU))
    assert a.flat() == b.flat()
    assert list(a.values) == sorted(a.values)


def test_fp8_server_from_real_payload_and_log() -> None:
    idle = text("metrics-fp8-idle.txt")
    s = compute_signals(bundle(idle, idle, logs=text("log-startup-fp8.txt")))
    assert s.get("cache_dtype") == "fp8"
    assert s.get("log_fp8_kv_cache") is True
    # Same 1 GiB pool, one byte per element: twice the tokens of the bf16 server.
    assert s.get("log_kv_cache_tokens") == 2 * 1_048_576
    assert s.get("kv_capacity_tokens") == 2 * 1_048_576


def _progress(prompt: float, gen: float, running: float, waiting: float) -> str:
    lab = '{engine="0",model_name="m"}'
    return (
        f"vllm:prompt_tokens_total{lab} {prompt}\n"
        f"vllm:generation_tokens_total{lab} {gen}\n"
        f"vllm:num_requests_running{lab} {running}\n"
        f"vllm:num_requests_waiting{lab} {waiting}\n"
    )


def test_a_stall_is_judged_from_token_progress_not_from_the_running_gauge() -> None:
    # The running gauge reads 0 through long prefill steps while tokens flow: no stall.
    flowing = bundle(*(_progress(1000 * i, 20 * i, 2 * (i % 2), 14) for i in range(5)))
    s = compute_signals(flowing)
    assert s.get("stalled_share") == 0.0
    # Requests waiting and neither counter moving in 3 of 4 intervals: a stall.
    stuck = bundle(
        _progress(100, 10, 0, 0),
        _progress(200, 20, 0, 2),
        _progress(200, 20, 0, 2),
        _progress(200, 20, 0, 2),
        _progress(200, 20, 0, 2),
    )
    assert compute_signals(stuck).get("stalled_share") == 0.75
    # An idle server (nothing waiting, nothing processed) is not stalled.
    idle = bundle(*(_progress(100, 10, 0, 0) for _ in range(3)))
    assert compute_signals(idle).get("stalled_share") == 0.0


def test_a_long_prefill_step_is_not_a_stall() -> None:
    # Three still intervals with requests waiting, then 20,000 prompt tokens counted at once:
    # one long prefill step (vLLM counts a prompt when its step ends), head-of-line blocking.
    prefill = bundle(
        _progress(100, 10, 1, 0),
        _progress(100, 10, 1, 3),
        _progress(100, 10, 1, 4),
        _progress(100, 10, 1, 5),
        _progress(20_100, 11, 1, 5),
    )
    assert compute_signals(prefill).get("stalled_share") == 0.0
    # The same still run with nothing counted after it, or never ending, is a stall.
    stuck = bundle(
        _progress(100, 10, 1, 0),
        _progress(100, 10, 1, 3),
        _progress(100, 10, 1, 4),
        _progress(100, 14, 1, 5),
        _progress(100, 14, 1, 5),
    )
    assert compute_signals(stuck).get("stalled_share") == 0.75


def test_the_v1_free_memory_refusal_at_start_up_is_read() -> None:
    log = (
        "(EngineCore pid=3310) ERROR 08-11 13:56:14 [v1/engine/core.py:1195] ValueError: Free "
        "memory on device cuda:0 (0.41/79.18 GiB) on startup is less than desired GPU memory "
        "utilization (0.85, 67.3 GiB). Decrease GPU memory utilization or reduce GPU memory "
        "used by other processes.\n"
    )
    idle = text("metrics-idle.txt")
    s = compute_signals(bundle(idle, idle, logs=log))
    assert s.get("log_startup_free_short") is True
    assert s.get("log_startup_free_gib") == 0.41 and s.get("log_startup_wanted_gib") == 67.3
    assert "reduce GPU memory used by other processes" in str(s.get("log_vllm_hint"))


def test_a_request_over_every_block_but_the_null_block_can_never_be_admitted() -> None:
    # External case p-minimax (round 6 holdout, spent): 13 blocks of 8,192 tokens hold
    # 106,496 = max_model_len, but vLLM's block pool keeps one block as its null block, so a
    # 101k-token prompt waited for a 13th block for ever and froze its engine.
    from pathlib import Path

    from kvdoctor.bundle.reader import read_bundle

    case = Path(__file__).resolve().parents[2] / "cases"
    b = read_bundle(case / "p-minimax-m25-rbln-dp4-prompt-over-12-blocks" / "bundle")
    s = compute_signals(b)
    assert s.get("request_capacity_tokens") == 12 * 8192
    assert s.get("max_model_len_over_capacity") == 106_496 / (12 * 8192)
    # Engine 2 stalled behind it while three engines kept the endpoint's counters moving: the
    # stall is the worst engine's, not the endpoint's sums.
    stalled = s.get("stalled_share")
    assert isinstance(stalled, float) and stalled >= 0.5
    assert "engine" in s.values["stalled_share"].provenance


def test_requests_in_flight_are_counted_at_one_scrape_not_from_two_peaks() -> None:
    # One request at a time: running 1 at one scrape, one waiting (not yet admitted) at
    # another. The peaks sum to 2, but no two requests were ever in the engine together.
    alone = bundle(
        _progress(0, 0, 1, 0),
        _progress(100, 10, 0, 1),
        _progress(200, 20, 1, 0),
    )
    s = compute_signals(alone)
    assert (s.get("running_max"), s.get("waiting_max")) == (1, 1)
    assert s.get("in_flight_max") == 1
    # Two running and three waiting at the same scrape: five in the engine.
    together = bundle(_progress(0, 0, 1, 0), _progress(100, 10, 2, 3), _progress(200, 20, 1, 0))
    assert compute_signals(together).get("in_flight_max") == 5


def test_a_compressed_kv_cache_hits_in_units_of_block_times_its_largest_ratio() -> None:
    # DeepSeek-V4: uncompressed, 4x and 128x layers. A block of 16 compressed entries of the
    # 128x layers covers 2,048 tokens, and it is hashed whole.
    cfg = {"model_type": "deepseek_v4", "compress_ratios": [0, 0, 4, 128, 4, 128]}
    s = compute_signals(healthy(model_config_raw=cfg))
    block = s.get("block_size")
    assert isinstance(block, int)
    assert s.get("kv_compress_ratio_max") == 128
    assert s.get("prefix_hit_granularity_tokens") == block * 128
    # Speculative decoding doubles the unit (vllm-ascend #10710: 16k becomes 32k with MTP).
    spec = EngineArgs(argv=None, args={"speculative-config": '{"method": "mtp"}'})
    s = compute_signals(healthy(model_config_raw=cfg, engine_args=spec))
    assert s.get("prefix_hit_granularity_tokens") == block * 128 * 2
    # No compressed layer: hits land at whole blocks.
    plain = compute_signals(healthy(model_config_raw={"compress_ratios": [0, 1, 1]}))
    assert plain.get("kv_compress_ratio_max") == 1
    assert plain.get("prefix_hit_granularity_tokens") == block
