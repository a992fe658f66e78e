"""Helpers copied from cases/_tools/b/cases.py (writer b): arrivals, V1 start-up log lines, cache_config_info labels."""

from __future__ import annotations

import random

from engine import ts
from logs import http_started


def poisson_arrivals(rng: random.Random, t_start: float, t_end: float, rate: float) -> list[float]:
    out, t = [], t_start
    while True:
        t += rng.expovariate(rate)
        if t >= t_end:
            return out
        out.append(round(t, 3))


def v1_startup(
    *,
    t: float,
    version: str,
    api_pid: int,
    core_pid: int,
    worker: str,
    worker_pid: int,
    nondefault: str,
    arch: str,
    max_model_len: int,
    engine_cfg: str,
    extra_cfg_lines: list[str],
    weights_gib: float,
    kv_gib: float,
    kv_tokens: int,
    concurrency: float,
    num_gpu_blocks: int,
    refs: dict[str, str],
    combined_kv_line: bool,
    extra_after_kv: list[str] | None = None,
) -> list[tuple[float, str]]:
    A, E, W = f"(APIServer pid={api_pid})", f"(EngineCore_DP0 pid={core_pid})", f"({worker} pid={worker_pid})"
    L: list[tuple[float, str]] = []
    L.append((t, f"INFO {ts(t)} [__init__.py:216] Automatically detected platform cuda."))
    L.append((t + 2, f"{A} INFO {ts(t+2)} [{refs['apiver']}] vLLM API server version {version}"))
    L.append((t + 2, f"{A} INFO {ts(t+2)} [{refs['nondefault']}] non-default args: {nondefault}"))
    L.append((t + 9, f"{A} INFO {ts(t+9)} [{refs['arch']}] Resolved architecture: {arch}"))
    L.append((t + 9, f"{A} INFO {ts(t+9)} [{refs['mml']}] Using max model len {max_model_len}"))
    L.append((t + 10, f"{A} INFO {ts(t+10)} [{refs['sched']}] Chunked prefill is enabled with max_num_batched_tokens={refs.get('mnbt', '8192')}."))
    for i, line in enumerate(extra_cfg_lines):
        L.append((t + 10 + i * 0.01, f"{A} INFO {ts(t+10)} {line}"))
    L.append((t + 18, f"{E} INFO {ts(t+18)} [{refs['init']}] Initializing a V1 LLM engine (v{version}) with config: {engine_cfg}"))
    L.append((t + 25, f"{W} INFO {ts(t+25)} [{refs['load']}] Starting to load model {refs['model_path']}..."))
    L.append((t + 70, f"{W} INFO {ts(t+70)} [{refs['loaded']}] Model loading took {weights_gib:.4f} GiB and {44.3:.6f} seconds"))
    L.append((t + 95, f"{W} INFO {ts(t+95)} [{refs['avail']}] Available KV cache memory: {kv_gib:.2f} GiB"))
    if combined_kv_line:
        L.append((t + 95.1, f"{E} INFO {ts(t+95)} [{refs['kvsize']}] GPU KV cache size: {kv_tokens:,} tokens, Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x"))
    else:
        L.append((t + 95.1, f"{E} INFO {ts(t+95)} [{refs['kvsize']}] GPU KV cache size: {kv_tokens:,} tokens"))
        L.append((t + 95.2, f"{E} INFO {ts(t+95)} [{refs['conc']}] Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x"))
    for i, line in enumerate(extra_after_kv or []):
        L.append((t + 95.3 + i * 0.01, line))
    L.append((t + 121, f"{W} INFO {ts(t+121)} [{refs['graphs']}] Graph capturing finished in 24 secs, took 0.55 GiB"))
    L.append((t + 122, f"{E} INFO {ts(t+122)} [{refs['initdone']}] init engine (profile, create kv cache, warmup model) took 52.14 seconds"))
    L.append((t + 123, f"{A} INFO {ts(t+123)} [{refs['ccinfo']}] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {num_gpu_blocks}"))
    L.append((t + 124, f"{A} INFO {ts(t+124)} [{refs['start']}] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    L.extend(http_started(t + 124.5, api_pid))
    return L


def engine_cfg_str(model: str, served: str, *, dtype: str, max_seq_len: int, tp: int, quant: str = "None", kv_dtype: str = "auto", prefix: bool = True, extra: str = "") -> str:
    return (
        f"model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
        f"revision=None, tokenizer_revision=None, trust_remote_code=False, dtype={dtype}, max_seq_len={max_seq_len}, "
        f"download_dir=None, load_format=auto, tensor_parallel_size={tp}, pipeline_parallel_size=1, data_parallel_size=1, "
        f"disable_custom_all_reduce=False, quantization={quant}, enforce_eager=False, kv_cache_dtype={kv_dtype}, "
        f"device_config=cuda, seed=0, served_model_name={served}, enable_prefix_caching={prefix}, "
        f"chunked_prefill_enabled=True{extra}"
    )


def v1_refs(version: str) -> dict[str, str]:
    """Source-file references printed in the log lines (illustrative per release line)."""
    if version.startswith("0.10"):
        return {"apiver": "api_server.py:1896", "nondefault": "utils.py:328", "arch": "__init__.py:742", "mml": "__init__.py:1815",
                "sched": "scheduler.py:222", "init": "core.py:76", "load": "gpu_model_runner.py:2338", "loaded": "gpu_model_runner.py:2392",
                "avail": "gpu_worker.py:298", "kvsize": "kv_cache_utils.py:1028", "conc": "kv_cache_utils.py:1032",
                "graphs": "gpu_model_runner.py:3118", "initdone": "core.py:218", "ccinfo": "loggers.py:142", "start": "api_server.py:1971"}
    if version.startswith("0.11"):
        return {"apiver": "api_server.py:1839", "nondefault": "utils.py:233", "arch": "model.py:547", "mml": "model.py:1510",
                "sched": "scheduler.py:205", "init": "core.py:77", "load": "gpu_model_runner.py:2602", "loaded": "gpu_model_runner.py:2653",
                "avail": "gpu_worker.py:298", "kvsize": "kv_cache_utils.py:864", "conc": "kv_cache_utils.py:868",
                "graphs": "gpu_model_runner.py:3480", "initdone": "core.py:210", "ccinfo": "loggers.py:147", "start": "api_server.py:1912"}
    return {"apiver": "api_server.py:1947", "nondefault": "utils.py:299", "arch": "model.py:552", "mml": "model.py:1677",
            "sched": "scheduler.py:241", "init": "core.py:101", "load": "gpu_model_runner.py:3489", "loaded": "gpu_model_runner.py:3582",
            "avail": "gpu_worker.py:379", "kvsize": "kv_cache_utils.py:1313", "conc": "kv_cache_utils.py:1317",
            "graphs": "gpu_model_runner.py:4512", "initdone": "core.py:262", "ccinfo": "loggers.py:176", "start": "api_server.py:2024"}


def labels_v1(table: str, **kw: str) -> dict[str, str]:
    base = {
        "_block_size_resolved": "True", "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
        "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.9", "hash_block_size": "None", "is_attention_free": "False",
        "kv_cache_dtype_skip_layers": "[]", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
        "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
        "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
        "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks_override": "None",
        "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
        "user_specified_block_size": "False", "user_specified_mamba_block_size": "False",
    }
    if table in ("0.9.2", "0.10.0"):
        base["prefix_caching_hash_algo"] = "builtin"
    base.update(kw)
    return base


def v0_labels(gpu_blocks: int, prefix: bool) -> dict[str, str]:
    return {
        "block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix),
        "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "2048",
        "num_gpu_blocks": str(gpu_blocks), "num_gpu_blocks_override": "None", "sliding_window": "None",
        "swap_space_bytes": "4294967296",
    }
