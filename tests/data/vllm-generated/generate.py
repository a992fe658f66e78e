#!/usr/bin/env python3
"""Write the GENERATED bundles of this folder (see README.md): not recorded from a server.

Metric names, kinds and label names come from ``kvdoctor/data/vllm_metrics.yaml`` (read from
each release's source); a metric is written only if that release exports it. Histogram bucket
layouts are copied from the real vLLM 0.32 recording in ``tests/data/vllm-0.32``. Only the
numbers are scripted, per scenario. Re-run after changing a scenario:

    .venv/bin/python tests/data/vllm-generated/generate.py
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from kvdoctor.vllm_metrics import exported_names, metric_entry  # noqa: E402

T0 = 1_790_000_000.0
STEP = 5.0
SCRAPES = 7
BASE = 'engine="0",model_name="gen-model"'
RECORDED = ROOT / "tests" / "data" / "vllm-0.32" / "metrics-prefix-hits.txt"
DEFAULT_BUCKETS = (0.001, 0.01, 0.1, 1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)


def _recorded_buckets() -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for m in re.finditer(
        r'^(vllm:[a-z0-9_]+)_bucket\{[^}]*le="([^"]+)"', RECORDED.read_text(), re.M
    ):
        if m.group(2) != "+Inf":
            out.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: sorted(set(v)) for k, v in out.items()}


BUCKETS = _recorded_buckets()
# The old ITL histogram used the same layout as its successor.
BUCKETS["vllm:time_per_output_token_seconds"] = BUCKETS["vllm:inter_token_latency_seconds"]

# A value per scrape index i: gauges give the level, counters the cumulative total, histograms
# (value, observations added per scrape).
Gauge = Callable[[int], float]
Hist = tuple[float, int]


@dataclass
class Scenario:
    name: str
    version: str
    notes: str
    gauges: dict[str, Callable[[int], float]] = field(default_factory=dict)
    labelled: dict[tuple[str, str, str], Callable[[int], float]] = field(default_factory=dict)
    counters: dict[str, Callable[[int], float]] = field(default_factory=dict)
    hists: dict[str, Hist | list[Hist]] = field(default_factory=dict)
    logs: str | None = None
    model_config: dict[str, object] | None = None
    cache_labels: dict[str, str] = field(default_factory=dict)
    engine_args: dict[str, object] = field(default_factory=dict)


def _num(v: float) -> str:
    return repr(float(v))


def exposition(sc: Scenario, i: int) -> str:
    have = exported_names(sc.version)
    lines: list[str] = [f"# GENERATED for vLLM {sc.version} by {HERE.name}/generate.py"]

    def kind(name: str) -> str | None:
        e = metric_entry(sc.version, name) if name in have else None
        return None if e is None else str(e["kind"])

    for name, f in sorted(sc.gauges.items()):
        if kind(name) == "gauge":
            lines += [f"# TYPE {name} gauge", f"{name}{{{BASE}}} {_num(f(i))}"]
    for (name, label, value), f in sorted(sc.labelled.items()):
        k = kind(name)
        if k is None:
            continue
        wire = name + ("_total" if k == "counter" else "")
        lines.append(f'{wire}{{{BASE},{label}="{value}"}} {_num(f(i))}')
    for name, f in sorted(sc.counters.items()):
        if kind(name) == "counter":
            lines += [f"# TYPE {name}_total counter", f"{name}_total{{{BASE}}} {_num(f(i))}"]
    for name, spec in sorted(sc.hists.items()):
        if kind(name) != "histogram":
            continue
        parts = spec if isinstance(spec, list) else [spec]
        lines.append(f"# TYPE {name} histogram")
        for le in BUCKETS.get(name, list(DEFAULT_BUCKETS)):
            n = sum(per * i for value, per in parts if value <= le)
            lines.append(f'{name}_bucket{{{BASE},le="{le}"}} {_num(n)}')
        total = sum(per * i for _, per in parts)
        lines.append(f'{name}_bucket{{{BASE},le="+Inf"}} {_num(total)}')
        lines.append(f"{name}_sum{{{BASE}}} {_num(sum(per * i * v for v, per in parts))}")
        lines.append(f"{name}_count{{{BASE}}} {_num(total)}")
    if "vllm:cache_config_info" in have:
        labels = {
            "block_size": "16",
            "cache_dtype": "auto",
            "enable_prefix_caching": "True",
            "gpu_memory_utilization": "0.9",
            "num_gpu_blocks": "20000",
            "engine": "0",
        }
        allowed = set(metric_entry(sc.version, "vllm:cache_config_info")["labels"])  # type: ignore[index]
        labels.update(sc.cache_labels)
        body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()) if k in allowed)
        lines += ["# TYPE vllm:cache_config_info gauge", f"vllm:cache_config_info{{{body}}} 1.0"]
    return "\n".join(lines) + "\n"


def write(sc: Scenario) -> None:
    out = HERE / sc.name
    out.mkdir(exist_ok=True)
    manifest = {
        "schema": "kvdoctor.bundle/1",
        "created_by": "tests/data/vllm-generated/generate.py",
        "endpoint": f"generated:vllm-{sc.version}",
        "started_at": T0,
        "ended_at": T0 + STEP * (SCRAPES - 1),
        "interval_s": STEP,
        "notes": f"GENERATED (not recorded) from vLLM {sc.version}'s metric names: {sc.notes}",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for i in range(SCRAPES):
            rec = {"t": T0 + STEP * i, "status": 200, "text": exposition(sc, i)}
            f.write(json.dumps(rec) + "\n")
    server = {"version": {"version": sc.version}, "models": None, "health": 200}
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if sc.logs is not None:
        (out / "logs.txt").write_text(sc.logs)
    if sc.model_config is not None:
        (out / "model_config.json").write_text(json.dumps(sc.model_config, indent=1) + "\n")
    args = {"max-num-seqs": 64, "max-num-batched-tokens": 8192, **sc.engine_args}
    (out / "engine_args.json").write_text(json.dumps({"argv": None, "args": args}, indent=1) + "\n")


def _lin(start: float, per: float) -> Callable[[int], float]:
    return lambda i: start + per * i


def _const(v: float) -> Callable[[int], float]:
    return lambda i: v


def baseline(version: str) -> Scenario:
    """Light, healthy traffic; every family kvdoctor reads, where the release exports it."""
    sc = Scenario(f"baseline-{version}", version, "healthy light load, every family present")
    sc.gauges = {
        "vllm:kv_cache_usage_perc": _const(0.2),
        "vllm:gpu_cache_usage_perc": _const(0.2),
        "vllm:num_requests_running": _const(4),
        "vllm:num_requests_waiting": _const(0),
    }
    sc.labelled = {
        ("vllm:num_requests_waiting_by_reason", "reason", "capacity"): _const(0),
        ("vllm:num_requests_waiting_by_reason", "reason", "deferred"): _const(0),
        ("vllm:prompt_tokens_by_source", "source", "local_compute"): _lin(1000, 600),
        ("vllm:prompt_tokens_by_source", "source", "local_cache_hit"): _lin(1000, 400),
        ("vllm:prompt_tokens_by_source", "source", "external_kv_transfer"): _const(0),
        ("vllm:prompt_tokens_cached_by_source", "source", "device"): _lin(1000, 400),
        ("vllm:prompt_tokens_cached_by_source", "source", "host"): _const(0),
    }
    sc.counters = {
        "vllm:num_preemptions": _const(0),
        "vllm:request_success": _lin(10, 2),
        "vllm:prompt_tokens": _lin(2000, 1000),
        "vllm:generation_tokens": _lin(500, 200),
        "vllm:prefix_cache_queries": _lin(2000, 1000),
        "vllm:prefix_cache_hits": _lin(1000, 400),
        "vllm:gpu_prefix_cache_queries": _lin(2000, 1000),
        "vllm:gpu_prefix_cache_hits": _lin(1000, 400),
        "vllm:prompt_tokens_cached": _lin(1000, 400),
        "vllm:external_prefix_cache_queries": _const(0),
        "vllm:external_prefix_cache_hits": _const(0),
    }
    sc.hists = {
        "vllm:time_to_first_token_seconds": (0.08, 2),
        "vllm:inter_token_latency_seconds": (0.02, 200),
        "vllm:time_per_output_token_seconds": (0.02, 200),
        "vllm:request_queue_time_seconds": (0.005, 2),
        "vllm:request_prefill_time_seconds": (0.07, 2),
        "vllm:request_decode_time_seconds": (2.0, 2),
        "vllm:e2e_request_latency_seconds": (2.1, 2),
        "vllm:request_prompt_tokens": (500, 2),
        "vllm:request_generation_tokens": (100, 2),
        "vllm:iteration_tokens_total": (8, 50),
        "vllm:request_prefill_kv_computed_tokens": (300, 2),
        "vllm:request_num_preemptions": (0, 2),
    }
    return sc


def deferred_admission() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "deferred-admission"
    sc.notes = (
        "LoRA server (--max-loras 1): requests for other adapters are deferred while the KV "
        "pool is at 15% and running stays at 2 of --max-num-seqs 64"
    )
    sc.gauges["vllm:num_requests_running"] = _const(2)
    sc.gauges["vllm:num_requests_waiting"] = lambda i: min(12, 3 * i)
    sc.gauges["vllm:kv_cache_usage_perc"] = _const(0.15)
    sc.labelled[("vllm:num_requests_waiting_by_reason", "reason", "deferred")] = lambda i: min(
        12, 3 * i
    )
    sc.hists["vllm:time_to_first_token_seconds"] = (6.0, 2)
    sc.hists["vllm:request_queue_time_seconds"] = (5.8, 2)
    sc.engine_args = {"enable-lora": True, "max-loras": 1}
    return sc


def external_never_serves() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "external-cache-never-serves"
    sc.notes = (
        "OffloadingConnector to CPU: 60k prompt tokens looked up in the offload tier, none "
        "found; stores keep going, nothing is ever loaded back"
    )
    sc.counters["vllm:external_prefix_cache_queries"] = _lin(20000, 10000)
    sc.counters["vllm:external_prefix_cache_hits"] = _const(0)
    sc.counters["vllm:kv_offload_store_bytes"] = _lin(1e9, 4e8)
    sc.counters["vllm:kv_offload_load_bytes"] = _const(0)
    sc.cache_labels = {"kv_offloading_size": "32.0", "kv_offloading_backend": "native"}
    sc.engine_args = {
        "kv-transfer-config": '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}'
    }
    return sc


def spec_decode_low() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "spec-decode-low-acceptance"
    sc.notes = (
        "ngram speculation with 4 draft tokens per step; 5% of draft tokens accepted, "
        "inter-token latency p95 well above p50"
    )
    sc.counters["vllm:spec_decode_num_drafts"] = _lin(1000, 2000)
    sc.counters["vllm:spec_decode_num_draft_tokens"] = _lin(4000, 8000)
    sc.counters["vllm:spec_decode_num_accepted_tokens"] = _lin(200, 400)
    sc.hists["vllm:inter_token_latency_seconds"] = (0.06, 200)
    sc.engine_args = {"speculative-config": '{"method":"ngram","num_speculative_tokens":4}'}
    return sc


def kv_transfer_trouble() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "kv-transfer-trouble"
    sc.notes = (
        "decode instance of a P/D pair (NixlConnector, kv_consumer): 12 failed NIXL transfers, "
        "up to 8 requests waiting for their KV, TTFT ~5 s"
    )
    sc.gauges["vllm:num_requests_waiting"] = lambda i: min(8, 2 * i)
    sc.labelled[("vllm:num_requests_waiting_by_reason", "reason", "deferred")] = lambda i: min(
        8, 2 * i
    )
    sc.labelled[("vllm:num_requests_kv_fetch_by_stage", "stage", "waiting_to_start")] = lambda i: (
        min(5, i)
    )
    sc.labelled[("vllm:num_requests_kv_fetch_by_stage", "stage", "in_progress")] = lambda i: min(
        3, i
    )
    sc.labelled[("vllm:num_requests_kv_fetch_by_stage", "stage", "completed_waiting")] = _const(0)
    sc.counters["vllm:nixl_num_failed_transfers"] = lambda i: 2 * i
    sc.counters["vllm:nixl_num_failed_notifications"] = _const(0)
    sc.hists["vllm:time_to_first_token_seconds"] = (5.0, 2)
    sc.hists["vllm:request_queue_time_seconds"] = (4.8, 2)
    sc.engine_args = {
        "kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
    }
    return sc


# Start-up lines in vLLM 0.32's own formats (config/vllm.py, v1/worker/gpu_model_runner.py,
# v1/worker/gpu_worker.py), with the numbers of each scenario.
def _startup_log(max_size: int, truncated: bool, util: float, equiv: float) -> str:
    sizes = ", ".join(str(x) for x in [1, 2, 4, *range(8, max_size + 1, 8)])
    lines = [
        "INFO 12-01 03:00:00 [core.py:93] Initializing a V1 LLM engine (v0.33.0) with config: "
        "model='gen-model', dtype=torch.bfloat16, max_seq_len=8192, "
        "compilation_config={'mode': <CompilationMode.VLLM_COMPILE: 3>, "
        f"'cudagraph_capture_sizes': [{sizes}], 'max_cudagraph_capture_size': {max_size}}}",
    ]
    if truncated:
        lines.append(
            f"WARNING 12-01 03:00:00 [vllm.py:2519] Truncating max_cudagraph_capture_size to "
            f"{max_size}"
        )
    lines += [
        "INFO 12-01 03:00:20 [gpu_model_runner.py:6475] Estimated CUDA graph memory: 0.41 GiB "
        "total",
        "INFO 12-01 03:00:21 [gpu_worker.py:760] Available KV cache memory: 52.10 GiB",
        "INFO 12-01 03:00:21 [gpu_worker.py:774] CUDA graph memory profiling is enabled (default "
        f"since v0.21.0). The current --gpu-memory-utilization={util:.4f} is equivalent to "
        f"--gpu-memory-utilization={equiv:.4f} without CUDA graph memory profiling. To maintain "
        "the same effective KV cache size as before, increase --gpu-memory-utilization to "
        f"{min(1.0, util + (util - equiv)):.4f}. To disable, set "
        "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
        "INFO 12-01 03:00:40 [gpu_model_runner.py:6582] Graph capturing finished in 19 secs, "
        "took 0.41 GiB",
    ]
    return "\n".join(lines) + "\n"


def cudagraph_batch_above_capture() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "cudagraph-batch-above-capture"
    sc.notes = (
        "96 running sequences while CUDA graphs were captured up to batch 64 (truncated at "
        "start-up): a third of the decode steps run eagerly, ITL p99 far above p50"
    )
    sc.gauges["vllm:num_requests_running"] = lambda i: [40, 64, 80, 96, 96, 96, 90][i]
    sc.hists["vllm:inter_token_latency_seconds"] = [(0.018, 400), (0.09, 200)]
    sc.engine_args = {"max-num-seqs": 128}
    sc.logs = _startup_log(64, True, 0.90, 0.8995)
    return sc


def cudagraph_profiling_shrinks_pool() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "cudagraph-profiling-shrinks-pool"
    sc.notes = (
        "after an upgrade past 0.21, CUDA graph memory profiling takes 4 % of GPU memory from "
        "the KV pool: KV usage at 97 %, preemptions climbing"
    )
    sc.gauges["vllm:kv_cache_usage_perc"] = lambda i: [0.8, 0.9, 0.95, 0.97, 0.97, 0.97, 0.96][i]
    sc.gauges["vllm:num_requests_waiting"] = lambda i: min(6, i)
    sc.counters["vllm:num_preemptions"] = lambda i: 3 * i
    sc.cache_labels = {"gpu_memory_utilization": "0.9"}
    sc.logs = _startup_log(512, False, 0.90, 0.86)
    return sc


def hybrid_alignment_miss() -> Scenario:
    sc = baseline("0.33.0")
    sc.name = "hybrid-alignment-miss"
    sc.notes = (
        "Jamba-shaped hybrid (1 attention layer in 8, the rest Mamba), prefix caching in "
        "mamba_cache_mode=align with 1,024-token hybrid blocks; prompts of 1,500 tokens share "
        "a 900-token system prompt, so no prefix hit can land"
    )
    sc.counters["vllm:prefix_cache_queries"] = _lin(15000, 3000)
    sc.counters["vllm:prefix_cache_hits"] = _const(0)
    sc.labelled[("vllm:prompt_tokens_by_source", "source", "local_compute")] = _lin(15000, 3000)
    sc.labelled[("vllm:prompt_tokens_by_source", "source", "local_cache_hit")] = _const(0)
    sc.labelled[("vllm:prompt_tokens_cached_by_source", "source", "device")] = _const(0)
    sc.counters["vllm:prompt_tokens_cached"] = _const(0)
    sc.hists["vllm:request_prompt_tokens"] = (1500, 2)
    sc.cache_labels = {
        "block_size": "1024",
        "mamba_cache_mode": "align",
        "mamba_block_size": "1024",
        "cache_hit_alignment_tokens": "1024",
        "num_gpu_blocks": "2000",
    }
    sc.model_config = {
        "model_type": "jamba",
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_size": 4096,
        "attn_layer_period": 8,
        "attn_layer_offset": 4,
        "mamba_d_state": 16,
        "mamba_d_conv": 4,
        "mamba_expand": 2,
        "vocab_size": 65536,
        "torch_dtype": "bfloat16",
    }
    return sc


SCENARIOS: list[Scenario] = [
    *(baseline(v) for v in ("0.10.0", "0.11.0", "0.12.0", "0.24.0", "0.33.0")),
    deferred_admission(),
    external_never_serves(),
    spec_decode_low(),
    kv_transfer_trouble(),
    cudagraph_batch_above_capture(),
    cudagraph_profiling_shrinks_pool(),
    hybrid_alignment_miss(),
]


if __name__ == "__main__":
    for sc in SCENARIOS:
        write(sc)
        print(f"wrote {sc.name}")
