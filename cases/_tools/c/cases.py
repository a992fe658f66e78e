#!/usr/bin/env python3
"""Scenario numbers for the c- cases; writes cases/<id>/bundle/ (and prompts.jsonl).

    PYTHONPATH=. .venv/bin/python cases/_tools/c/cases.py [case-id ...]

Every number here is either quoted from the case's source (see its case.yaml ``quoted``) or
an assumption listed in the case.yaml ``assumed``. Formats come from bundlegen.py.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundlegen import (  # noqa: E402
    ROOT, Capture, Engine, cum, models_body, spread, write_bundle,
)

CASES = ROOT / "cases"


def ts(s: str) -> float:
    return _dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=_dt.timezone.utc).timestamp()


def stamp(t: float, v0: bool = False) -> str:
    d = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
    return d.strftime("%m-%d %H:%M:%S")


def jit(rng: random.Random, base: float, rel: float) -> float:
    return base * (1.0 + rng.uniform(-rel, rel))


def hseries(n: int, base_total: float, base_shape, per: list[float], shape) -> list:
    """Histogram increments: index 0 holds what accumulated before the capture. Later
    intervals share out their observations over ``shape`` with the rounding remainder carried
    to the next interval, so rare tail values still appear at their overall weight."""
    out = [spread(base_total, base_shape)]
    wsum = sum(w for _, w in shape)
    acc = [0.0] * len(shape)
    emitted = [0] * len(shape)
    for i in range(1, n):
        step = []
        for j, (v, w) in enumerate(shape):
            acc[j] += max(0.0, per[i]) * w / wsum
            k = int(acc[j] + 1e-9) - emitted[j]
            if k > 0:
                emitted[j] += k
                step.append((v, float(k)))
        out.append(step)
    return out


def hmix(n: int, base_total: float, base_shape, per_shapes: list) -> list:
    """Like hseries but each interval has its own (count, shape)."""
    out = [spread(base_total, base_shape)]
    for i in range(1, n):
        c, sh = per_shapes[i]
        out.append(spread(c, sh) if c > 0 else [])
    return out


def gpu_samples(t0: float, dt: float, n: int, name: str, total: int, used: int,
                procs: list[tuple[int, str, int]], ngpu: int = 1) -> list[dict]:
    out = []
    for i in range(0, n, 2):
        devs = []
        for g in range(ngpu):
            devs.append({"index": g, "name": name, "memory_total": total, "memory_used": used,
                         "processes": [{"pid": p + g, "name": nm, "used_memory": u}
                                       for p, nm, u in procs]})
        out.append({"t": round(t0 + dt * i + 0.4, 3), "devices": devs})
    return out


# =====================================================================================
# c-watermark-off-recompute-thrash  (vllm PR #44594, watermark "off" row)
# =====================================================================================
def watermark_off() -> None:
    cid = "c-watermark-off-recompute-thrash"
    rng = random.Random(44594)
    n, dt = 31, 2.0
    t0 = ts("2026-06-04 10:14:00")
    model = "Qwen/Qwen2.5-7B-Instruct"
    run = [int(round(jit(rng, 86, 0.03))) for _ in range(n)]
    wait = [128 - r for r in run]
    kv = [min(1.0, round(jit(rng, 0.992, 0.008), 4)) for _ in range(n)]
    pre = [0] + [rng.choice([7, 9, 10, 11, 12, 13, 15]) for _ in range(n - 1)]
    gen = [0] + [jit(rng, 11582 * dt, 0.06) for _ in range(n - 1)]
    newp = [0] + [jit(rng, 2306 * dt, 0.15) for _ in range(n - 1)]
    recomp = [0] + [pre[i - 1 if i > 1 else 1] * jit(rng, 3500, 0.1) for i in range(1, n)]
    prompt = [newp[i] + recomp[i] for i in range(n)]
    done = [0] + [rng.choice([4, 4, 5, 5, 5]) for _ in range(n - 1)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv, "vllm:gpu_cache_usage_perc": kv}
    e.counters = {
        "vllm:num_preemptions": cum(412, pre),
        "vllm:generation_tokens": cum(1_003_450, gen),
        "vllm:prompt_tokens": cum(1_601_300, prompt),
        "vllm:prompt_tokens_recomputed": cum(1_432_100, recomp),
        "vllm:prefix_cache_queries": [0.0] * n, "vllm:prefix_cache_hits": [0.0] * n,
        "vllm:prompt_tokens_cached": [0.0] * n,
    }
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(168, done),
                   ("vllm:request_success", "finished_reason", "stop"): [0.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    ttft_shape = [(1.2, 15), (4.0, 20), (6.5, 16), (8.5, 20), (12.0, 16), (18.0, 7), (24.0, 4),
                  (28.0, 2)]
    first = done
    e.hists = {
        "vllm:time_to_first_token_seconds": hseries(n, 296, ttft_shape, first, ttft_shape),
        "vllm:request_queue_time_seconds": hseries(
            n, 296, [(v - 0.4, w) for v, w in ttft_shape], first,
            [(v - 0.4, w) for v, w in ttft_shape]),
        "vllm:inter_token_latency_seconds": hseries(
            n, 1_003_000, [(0.0085, 55), (0.0115, 30), (0.018, 10), (0.032, 3.8), (0.045, 1.2)],
            gen, [(0.0085, 55), (0.0115, 30), (0.018, 10), (0.032, 3.8), (0.045, 1.2)]),
        "vllm:e2e_request_latency_seconds": hseries(
            n, 168, [(38, 20), (48, 30), (55, 30), (65, 15), (80, 5)], done,
            [(38, 20), (48, 30), (55, 30), (65, 15), (80, 5)]),
        "vllm:request_prompt_tokens": hseries(n, 168, [(850, 1), (1000, 2), (1150, 1)], done,
                                              [(850, 1), (1000, 2), (1150, 1)]),
        "vllm:request_generation_tokens": hseries(
            n, 168, [(4200, 1), (5000, 2), (5800, 1)], done, [(4200, 1), (5000, 2), (5800, 1)]),
        "vllm:request_params_max_tokens": hseries(
            n, 168, [(4200, 1), (5000, 2), (5800, 1)], done, [(4200, 1), (5000, 2), (5800, 1)]),
        "vllm:request_decode_time_seconds": hseries(
            n, 168, [(36, 1), (45, 2), (58, 1)], done, [(36, 1), (45, 2), (58, 1)]),
        "vllm:request_prefill_time_seconds": hseries(
            n, 168, [(0.2, 2), (0.9, 1), (2.2, 1)], done, [(0.2, 2), (0.9, 1), (2.2, 1)]),
        "vllm:request_inference_time_seconds": hseries(
            n, 168, [(37, 1), (46, 2), (60, 1)], done, [(37, 1), (46, 2), (60, 1)]),
        "vllm:request_time_per_output_token_seconds": hseries(
            n, 168, [(0.0095, 1), (0.0105, 2), (0.0121, 1)], done,
            [(0.0095, 1), (0.0105, 2), (0.0121, 1)]),
        "vllm:request_prefill_kv_computed_tokens": hseries(
            n, 168, [(850, 1), (1000, 2), (1150, 1)], done, [(850, 1), (1000, 2), (1150, 1)]),
        "vllm:request_params_n": hseries(n, 168, [(1, 1)], done, [(1, 1)]),
        "vllm:iteration_tokens_total": hseries(
            n, 10300, [(86, 60), (1500, 15), (4000, 10), (8192, 15)],
            [0] + [270] * (n - 1), [(86, 60), (1500, 15), (4000, 10), (8192, 15)]),
    }
    cap = Capture("0.18.0", "0.22.0", model, t0, dt, n, 8192, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "num_gpu_blocks": "18724",
                              "kv_cache_memory_bytes": "17179869184",
                              "calculate_kv_scales": "False", "is_attention_free": "False",
                              "prefix_caching_hash_algo": "sha256",
                              "_block_size_resolved": "True",
                              "user_specified_block_size": "False",
                              "kv_offloading_backend": "native",
                              "kv_sharing_fast_prefill": "False"},
                  created_at=t0 - 171.3)
    argv = ["vllm", "serve", model, "--max-model-len", "8192", "--max-num-seqs", "256",
            "--no-enable-prefix-caching", "--kv-cache-memory-bytes", "17179869184"]
    args = {"model": model, "max-model-len": 8192, "max-num-seqs": 256,
            "enable-prefix-caching": False, "kv-cache-memory-bytes": 17179869184,
            "tensor-parallel-size": 1, "max-num-batched-tokens": 8192,
            "gpu-memory-utilization": 0.9, "block-size": 16}
    s0 = t0 - 171.3
    logs = [
        f"(APIServer pid=30512) INFO {stamp(s0)} [utils.py:299] non-default args: "
        f"{{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 8192, "
        "'enable_prefix_caching': False, 'kv_cache_memory_bytes': 17179869184, "
        "'max_num_seqs': 256}",
        f"(EngineCore_DP0 pid=30788) INFO {stamp(s0 + 22)} [gpu_model_runner.py:3480] Model "
        "loading took 14.25 GiB memory and 6.11 seconds",
        f"(EngineCore_DP0 pid=30788) INFO {stamp(s0 + 41)} [gpu_worker.py:440] Available KV "
        "cache memory: 16.00 GiB",
        f"(EngineCore_DP0 pid=30788) INFO {stamp(s0 + 41)} [kv_cache_utils.py:1087] GPU KV "
        "cache size: 299,584 tokens",
        f"(EngineCore_DP0 pid=30788) INFO {stamp(s0 + 41)} [kv_cache_utils.py:1091] Maximum "
        "concurrency for 8,192 tokens per request: 36.57x",
        f"(APIServer pid=30512) INFO {stamp(s0 + 70)} [api_server.py:1978] Starting vLLM API "
        "server 0 on http://0.0.0.0:8000",
    ]
    for k in range(0, n, 5):
        i = min(k, n - 1)
        pt = sum(prompt[max(1, i - 4):i + 1]) / (dt * 5) if i else 21480.2
        gt = sum(gen[max(1, i - 4):i + 1]) / (dt * 5) if i else 11601.7
        logs.append(
            f"(APIServer pid=30512) INFO {stamp(t0 + dt * i)} [loggers.py:259] Engine 000: Avg "
            f"prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} "
            f"tokens/s, Running: {run[i]} reqs, Waiting: {wait[i]} reqs, GPU KV cache usage: "
            f"{kv[i] * 100:.1f}%, Prefix cache hit rate: 0.0%")
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://10.0.3.21:8000",
        notes="On-call capture during the nightly long-generation batch (about 128 requests in "
              "flight, ~1000-token prompts, ~5000-token outputs). Users of the batch report "
              "slower and more uneven token streams than last week.",
        argv=argv, args=args, models=models_body(model, model, 8192, int(s0 + 70)),
        logs="\n".join(logs) + "\n",
        model_config=QWEN25_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA GB200", 199_715_979_264, 186_503_790_592,
                        [(30788, "VLLM::EngineCore", 185_437_126_656)]))


QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 32768,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}

LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256}



def v0_stats_line(t: float, lineno: str, pt: float, gt: float, run: int, pend: int,
                  kv: float) -> str:
    return (f"INFO {stamp(t)} metrics.py:{lineno}] Avg prompt throughput: {pt:.1f} tokens/s, "
            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: 0 "
            f"reqs, Pending: {pend} reqs, GPU KV cache usage: {kv * 100:.1f}%, CPU KV cache "
            "usage: 0.0%.")


def v1_stats_line(t: float, prefix: str, loc: str, pt: float, gt: float, run: int, wait: int,
                  kv: float, hit: float, engine: str | None = "000") -> str:
    eng = f"Engine {engine}: " if engine is not None else ""
    return (f"{prefix}INFO {stamp(t)} [{loc}] {eng}Avg prompt throughput: {pt:.1f} tokens/s, "
            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: "
            f"{wait} reqs, GPU KV cache usage: {kv * 100:.1f}%, Prefix cache hit rate: "
            f"{hit * 100:.1f}%")


# =====================================================================================
# c-v0-recompute-warnings-limo32b  (GAIR-NLP/LIMO#29: V0 recompute warning at 101)
# =====================================================================================
QWEN25_32B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "intermediate_size": 27648, "max_position_embeddings": 32768,
    "max_window_layers": 64, "model_type": "qwen2", "num_attention_heads": 40,
    "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.46.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}


def limo_v0() -> None:
    cid = "c-v0-recompute-warnings-limo32b"
    rng = random.Random(29)
    n, dt = 31, 4.0
    t0 = ts("2025-03-06 14:00:00")
    model = "GAIR/LIMO"
    run = [rng.choice([36, 37, 38, 38, 39, 40]) for _ in range(n)]
    wait = [128 - r for r in run]
    kv = [round(min(0.999, jit(rng, 0.99, 0.006)), 4) for _ in range(n)]
    pre = [0] + [rng.choice([0, 1, 1, 1, 1, 2]) for _ in range(n - 1)]
    pre_c = cum(84, pre)
    recomp = [pre[i] * jit(rng, 6000, 0.35) for i in range(n)]
    newp = [0] + [rng.choice([0, 0, 0, 180, 210]) for _ in range(n - 1)]
    prompt = [recomp[i] + newp[i] for i in range(n)]
    gen = [0] + [jit(rng, 2128, 0.1) * (1 - 0.35 * pre[i]) for i in range(1, n)]
    done = [0] + [1 if newp[i] else 0 for i in range(1, n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:num_requests_swapped": [0.0] * n, "vllm:gpu_cache_usage_perc": kv,
                "vllm:cpu_cache_usage_perc": [0.0] * n,
                "vllm:gpu_prefix_cache_hit_rate": [-1.0] * n,
                "vllm:cpu_prefix_cache_hit_rate": [-1.0] * n}
    e.counters = {"vllm:num_preemptions": pre_c,
                  "vllm:prompt_tokens": cum(1_203_300, prompt),
                  "vllm:generation_tokens": cum(811_240, gen),
                  "vllm:tokens": cum(2_014_540, [prompt[i] + gen[i] for i in range(n)])}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(37, done),
                   ("vllm:request_success", "finished_reason", "length"): [3.0] * n}
    tpot = [(2128.0 - 38 * pre[i], [(0.045, 1)]) if i else (0, []) for i in range(n)]
    per = []
    for i in range(n):
        if i == 0:
            per.append(spread(809_000, [(0.045, 97), (1.5, 3)]))
        else:
            obs = spread(max(0.0, gen[i] - 38 * pre[i]), [(0.045, 1)])
            if pre[i]:
                obs += [(round(recomp[i] / 4000.0, 2), 38.0 * pre[i])]
            per.append(obs)
    lat_long = [(420, 1), (650, 2), (900, 1)]
    e.hists = {
        "vllm:time_per_output_token_seconds": per,
        "vllm:time_to_first_token_seconds": hseries(n, 168, [(140, 1), (380, 1)], done,
                                                    [(430, 1)]),
        "vllm:request_queue_time_seconds": hseries(n, 40, [(150, 1), (360, 1)], done,
                                                   [(425, 1)]),
        "vllm:time_in_queue_requests": hseries(n, 40, [(150, 1), (360, 1)], done, [(425, 1)]),
        "vllm:e2e_request_latency_seconds": hseries(n, 40, lat_long, done, lat_long),
        "vllm:request_inference_time_seconds": hseries(n, 40, [(380, 1), (560, 1)], done,
                                                       [(520, 1)]),
        "vllm:request_prefill_time_seconds": hseries(n, 40, [(0.3, 3), (2.1, 1)], done,
                                                     [(0.3, 1)]),
        "vllm:request_decode_time_seconds": hseries(n, 40, [(380, 1), (560, 1)], done,
                                                    [(520, 1)]),
        "vllm:request_prompt_tokens": hseries(n, 40, [(160, 1), (230, 1)], done, [(190, 1)]),
        "vllm:request_generation_tokens": hseries(n, 40, [(4200, 1), (9800, 2), (16500, 1)],
                                                  done, [(8700, 1)]),
        "vllm:request_max_num_generation_tokens": hseries(n, 40, [(32768, 1)], done,
                                                          [(32768, 1)]),
        "vllm:request_params_max_tokens": hseries(n, 40, [(32768, 1)], done, [(32768, 1)]),
        "vllm:request_params_n": hseries(n, 40, [(1, 1)], done, [(1, 1)]),
        "vllm:iteration_tokens_total": hmix(
            n, 21_000, [(38, 99), (6000, 1)],
            [(0, None)] + [(int(gen[i] / 38) + pre[i], [(38, int(gen[i] / 38)),
                                                          (6000, max(pre[i], 0))])
                           for i in range(1, n)]),
    }
    cap = Capture("v0-0.6", "0.7.3", model, t0, dt, n, 32768, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                              "num_cpu_blocks": "2048", "num_gpu_blocks": "19712",
                              "swap_space": "4"},
                  iteration_buckets=[1, 2, 4] + list(range(8, 257, 8)))
    s0 = t0 - 1140
    logs = [
        f"INFO {stamp(s0)} api_server.py:912] vLLM API server version 0.7.3",
        f"INFO {stamp(s0)} api_server.py:913] args: Namespace(host=None, port=8000, "
        f"model='{model}', tensor_parallel_size=2, max_model_len=32768, "
        "gpu_memory_utilization=0.9, swap_space=4, block_size=None, "
        "enable_prefix_caching=None, enable_chunked_prefill=None, max_num_seqs=None, "
        "preemption_mode=None, disable_log_requests=True)",
        f"INFO {stamp(s0 + 9)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.3) with "
        f"config: model='{model}', speculative_config=None, tokenizer='{model}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, "
        "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, "
        "load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, "
        "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
        "kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=GAIR/LIMO, "
        "num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, "
        "chunked_prefill_enabled=False, use_async_output_proc=True",
        f"INFO {stamp(s0 + 96)} worker.py:267] Memory profiling takes 5.31 seconds",
        f"INFO {stamp(s0 + 96)} worker.py:267] the current vLLM instance can use "
        "total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB",
        f"INFO {stamp(s0 + 96)} worker.py:267] model weights take 30.59GiB; non_torch_memory "
        "takes 1.62GiB; PyTorch activation peak memory takes 0.56GiB; the rest of the memory "
        "reserved for KV Cache is 38.47GiB.",
        f"INFO {stamp(s0 + 97)} executor_base.py:111] # CUDA blocks: 19712, # CPU blocks: 2048",
        f"INFO {stamp(s0 + 97)} executor_base.py:116] Maximum concurrency for 32768 tokens per "
        "request: 9.62x",
        f"INFO {stamp(s0 + 131)} api_server.py:958] Starting vLLM API server on "
        "http://0.0.0.0:8000",
        f"WARNING {stamp(s0 + 402)} scheduler.py:1754] Sequence group "
        "cmpl-5b1e0c7d9a3f4e21b6c8d0f2a4e6b8c1-0 is preempted by PreemptionMode.RECOMPUTE mode "
        "because there is not enough KV cache space. This can affect the end-to-end "
        "performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more "
        "KV cache memory. total_num_cumulative_preemption=1",
        f"WARNING {stamp(s0 + 931)} scheduler.py:1754] Sequence group "
        "cmpl-0c93d2e7f1a84b6c9e5d7a1f3b2c4d6e-0 is preempted by PreemptionMode.RECOMPUTE mode "
        "because there is not enough KV cache space. This can affect the end-to-end "
        "performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more "
        "KV cache memory. total_num_cumulative_preemption=51",
    ]
    warned = False
    for i in range(n):
        t = t0 + dt * i
        if i % 2 == 0 or i == 1:
            k = max(1, i)
            pt = sum(prompt[max(1, k - 1):k + 1]) / (dt * min(2, k))
            gt = sum(gen[max(1, k - 1):k + 1]) / (dt * min(2, k))
            logs.append(v0_stats_line(t + 0.6, "455", pt, gt, run[i], wait[i], kv[i]))
        if not warned and pre_c[i] >= 101:
            warned = True
            logs.append(
                f"WARNING {stamp(t - 1.7)} scheduler.py:1754] Sequence group "
                "cmpl-221f6a0e3c5b47d8a9e1c2b3d4f5a6b7-0 is preempted by "
                "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This "
                "can affect the end-to-end performance. Increase gpu_memory_utilization or "
                "tensor_parallel_size to provide more KV cache memory. "
                "total_num_cumulative_preemption=101")
    logs.sort(key=lambda l: l.split(" ", 3)[1] + l.split(" ", 3)[2])
    argv = ["vllm", "serve", model, "--tensor-parallel-size", "2", "--max-model-len", "32768",
            "--disable-log-requests"]
    args = {"model": model, "tensor-parallel-size": 2, "max-model-len": 32768,
            "gpu-memory-utilization": 0.9, "max-num-seqs": 256, "swap-space": 4,
            "block-size": 16, "enable-prefix-caching": False, "enable-chunked-prefill": False}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://eval-gpu-07:8000",
        notes="Math-reasoning evaluation (AIME/MATH500-style prompts, max_tokens 32768) sent "
              "through the OpenAI endpoint at 128 concurrent requests. The eval is much slower "
              "than expected and the server log keeps printing preemption warnings.",
        argv=argv, args=args, models=models_body(model, model, 32768, int(s0 + 131)),
        logs="\n".join(logs) + "\n", model_config=QWEN25_32B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA A100-SXM4-80GB", 85_899_345_920, 78_417_395_712,
                        [(41877, "/usr/bin/python3", 77_283_737_600)], ngpu=2))


# =====================================================================================
# c-v1-preempt-storm-fake-prefix-hits  (vllm #25780 / PR #25787)
# =====================================================================================
def fake_prefix_hits() -> None:
    cid = "c-v1-preempt-storm-fake-prefix-hits"
    rng = random.Random(25780)
    n, dt = 31, 5.0
    t0 = ts("2025-09-26 11:20:22")
    model = "NousResearch/Hermes-3-Llama-3.1-8B"
    burst = [False] + [rng.random() < 0.5 for _ in range(n - 1)]
    burst[5] = burst[6] = True  # the 10 s ending 11:20:52 (the quoted log line)
    pt = [0.0] + [jit(rng, 9000 if b else 2500, 0.08) for b in burst[1:]]
    gt = [0.0] + [jit(rng, 1250 if b else 6600, 0.08) for b in burst[1:]]
    pt[5] = pt[6] = 6102.8
    gt[5] = gt[6] = 1221.7
    pre = [0] + [int(round(jit(rng, 5.6 if b else 1.0, 0.2) * dt)) for b in burst[1:]]
    prompt = [p * dt for p in pt]
    gen = [g * dt for g in gt]
    hitfrac = [0.0] + [jit(rng, 0.36 if b else 0.2, 0.1) for b in burst[1:]]
    hitfrac[5] = hitfrac[6] = 0.322
    hits = [prompt[i] * hitfrac[i] for i in range(n)]
    done = [0] + [int(round(g / 1024)) for g in gen[1:]]
    base_done = 1000 - 259 - 535 - sum(done[1:7])  # 1000 prompts in total
    run = [rng.choice([257, 258, 259, 260, 261]) for _ in range(n)]
    run[6] = 259
    wait = [565]
    for i in range(1, n):
        wait.append(max(0, wait[-1] - done[i] + (run[i - 1] - run[i])))
    shift = 535 - wait[6]
    wait = [w + shift for w in wait]
    kv = [round(min(1.0, jit(rng, 0.86 if burst[i] else 0.97, 0.05)), 3) for i in range(n)]
    kv[6] = 0.823
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv, "vllm:gpu_cache_usage_perc": kv}
    qc = cum(1_412_000, prompt)
    hc = cum(401_300, hits)
    e.counters = {"vllm:num_preemptions": cum(1_187, pre),
                  "vllm:prompt_tokens": cum(1_412_000, prompt),
                  "vllm:generation_tokens": cum(402_500, gen),
                  "vllm:prefix_cache_queries": qc, "vllm:prefix_cache_hits": hc,
                  "vllm:gpu_prefix_cache_queries": qc, "vllm:gpu_prefix_cache_hits": hc}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(base_done, done),
                   ("vllm:request_success", "finished_reason", "stop"): [0.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    tpot_b = [(0.03, 20), (0.45, 70), (0.9, 10)]
    tpot_c = [(0.03, 80), (0.12, 15), (0.45, 5)]
    ttft = [(190, 1), (240, 2), (300, 2), (335, 1)]
    e.hists = {
        "vllm:time_per_output_token_seconds": hmix(
            n, 401_000, [(0.03, 55), (0.12, 10), (0.45, 30), (0.9, 5)],
            [(0, None)] + [(gen[i], tpot_b if burst[i] else tpot_c) for i in range(1, n)]),
        "vllm:time_to_first_token_seconds": hseries(n, base_done + 259, [(20, 1), (90, 2), (160, 2)], done,
                                                    ttft),
        "vllm:request_queue_time_seconds": hseries(n, base_done + 259, [(19, 1), (88, 2), (158, 2)], done,
                                                   [(v - 2, w) for v, w in ttft]),
        "vllm:e2e_request_latency_seconds": hseries(n, base_done, [(230, 1), (330, 2), (410, 1)], done,
                                                    [(400, 1), (450, 2), (500, 1)]),
        "vllm:request_inference_time_seconds": hseries(n, base_done, [(190, 1), (230, 1)], done,
                                                       [(170, 1), (215, 1)]),
        "vllm:request_prefill_time_seconds": hseries(n, base_done, [(0.6, 1), (3.5, 1)], done,
                                                     [(0.6, 1), (3.5, 1)]),
        "vllm:request_decode_time_seconds": hseries(n, base_done, [(190, 1), (228, 1)], done,
                                                    [(168, 1), (212, 1)]),
        "vllm:request_prompt_tokens": hseries(n, base_done, [(1024, 1)], done, [(1024, 1)]),
        "vllm:request_generation_tokens": hseries(n, base_done, [(1024, 1)], done, [(1024, 1)]),
        "vllm:request_max_num_generation_tokens": hseries(n, base_done, [(1024, 1)], done,
                                                          [(1024, 1)]),
        "vllm:request_params_max_tokens": hseries(n, base_done, [(1024, 1)], done, [(1024, 1)]),
        "vllm:request_params_n": hseries(n, base_done, [(1, 1)], done, [(1, 1)]),
        "vllm:iteration_tokens_total": hmix(
            n, 19_500, [(260, 70), (8192, 30)],
            [(0, None)] + [((60 if burst[i] else 190), [(8192, 1)] if burst[i]
                            else [(260, 9), (4000, 1)]) for i in range(1, n)]),
    }
    cap = Capture("0.10.0", "0.10.2", model, t0, dt, n, 131072, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "num_gpu_blocks": "27392", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "builtin",
                              "swap_space": "4", "cpu_offload_gb": "0"},
                  created_at=t0 - 261.0)
    s0 = t0 - 261.0
    pre_ = "(APIServer pid=1873) "
    ec = "(EngineCore_0 pid=2044) "
    logs = [
        f"{pre_}INFO {stamp(s0)} [api_server.py:1896] vLLM API server version 0.10.2",
        f"{pre_}INFO {stamp(s0)} [utils.py:328] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'disable_log_requests': True}}",
        f"{ec}INFO {stamp(s0 + 38)} [gpu_model_runner.py:2007] Model loading took 14.99 GiB and "
        "4.21 seconds",
        f"{ec}INFO {stamp(s0 + 52)} [gpu_worker.py:276] Available KV cache memory: 53.50 GiB",
        f"{ec}INFO {stamp(s0 + 52)} [kv_cache_utils.py:849] GPU KV cache size: 438,272 tokens",
        f"{ec}INFO {stamp(s0 + 52)} [kv_cache_utils.py:853] Maximum concurrency for 131,072 "
        "tokens per request: 3.34x",
        f"{pre_}INFO {stamp(s0 + 71)} [api_server.py:1971] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        a, b = i - 1, i
        q = prompt[a] + prompt[b]
        logs.append(v1_stats_line(t0 + dt * i, pre_, "loggers.py:127",
                                  q / (2 * dt), (gen[a] + gen[b]) / (2 * dt), run[i], wait[i],
                                  kv[i], (hits[a] + hits[b]) / q))
    # the quoted line: the 10 s window ending at scrape 6
    logs = [l for l in logs if f"{stamp(t0 + dt * 6)} [loggers" not in l]
    logs.append(v1_stats_line(t0 + dt * 6, pre_, "loggers.py:127", 6102.8, 1221.7, 259, 535,
                              0.823, 0.322))
    logs.sort(key=lambda l: l.split("INFO ", 1)[1][:14])
    argv = ["vllm", "serve", model, "--disable-log-requests"]
    args = {"model": model, "max-model-len": 131072, "max-num-seqs": 1024,
            "max-num-batched-tokens": 8192, "gpu-memory-utilization": 0.9,
            "enable-prefix-caching": True, "block-size": 16, "tensor-parallel-size": 1}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://bench-h100-02:8000",
        notes="Throughput benchmark: 1000 random-token prompts of 1024 tokens, 1024 output "
              "tokens each (ignore_eos), all submitted at once. Dashboard shows a prefix-cache "
              "hit rate around 30% and generation throughput swinging between ~1.2k and ~7k "
              "tokens/s.",
        argv=argv, args=args, models=models_body(model, model, 131072, int(s0 + 71)),
        logs="\n".join(logs) + "\n", model_config=LLAMA31_8B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA H100 80GB HBM3", 85_520_809_984, 78_383_431_680,
                        [(2044, "VLLM::EngineCore", 77_322_207_232)]))
    prng = random.Random(1024)
    with (CASES / cid / "prompts.jsonl").open("w") as f:
        for _ in range(8):
            ids = [prng.randrange(128000) for _ in range(1024)]
            f.write(json.dumps({"prompt_token_ids": ids}) + "\n")


# =====================================================================================
# c-pp2-halved-pool-75k-prompt  (vllm #7878, with #7039)
# =====================================================================================
MISTRAL_NEMO = {
    "architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
    "eos_token_id": 2, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 1024000, "model_type": "mistral", "num_attention_heads": 32,
    "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.0.dev0", "use_cache": True,
    "vocab_size": 131072}


def pp_halved() -> None:
    cid = "c-pp2-halved-pool-75k-prompt"
    rng = random.Random(7878)
    n, dt = 31, 4.0
    t0 = ts("2024-08-26 19:30:00")
    model = "Mistral-Nemo-Instruct-2407/"
    big = {6: 81_344, 15: 94_210, 24: 88_903}       # ignored (> 77,200 tokens)
    ok_arr = {2: 31_200, 9: 52_480, 12: 12_900, 19: 64_100, 27: 23_750}
    run, kv, prompt, gen = [], [], [0.0], [0.0]
    active: list[list[float]] = []   # [tokens_in_kv, remaining_prefill, remaining_decode]
    succ_stop = [0]
    for i in range(n):
        if i in ok_arr:
            active.append([0.0, float(ok_arr[i]), 300.0])
        pre_t, gen_t, fin = 0.0, 0.0, 0
        for a in active:
            if a[1] > 0:
                step = min(a[1], 2600.0 * dt)    # ~2.6k prompt tok/s on 2x L4 PP
                a[1] -= step
                a[0] += step
                pre_t += step
            elif a[2] > 0:
                g = min(a[2], 15.0 * dt)
                a[2] -= g
                a[0] += g
                gen_t += g
        for a in list(active):
            if a[1] <= 0 and a[2] <= 0:
                active.remove(a)
                fin += 1
        run.append(len(active))
        kv.append(round(sum(a[0] for a in active) / 16 / 9650, 4))
        if i:
            prompt.append(pre_t)
            gen.append(gen_t)
            succ_stop.append(fin)
    ign = [1 if i in big else 0 for i in range(n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:num_requests_swapped": [0.0] * n, "vllm:gpu_cache_usage_perc": kv,
                "vllm:cpu_cache_usage_perc": [0.0] * n,
                "vllm:avg_prompt_throughput_toks_per_s": [p / dt for p in prompt],
                "vllm:avg_generation_throughput_toks_per_s": [g / dt for g in gen]}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(2_313_400, prompt),
                  "vllm:generation_tokens": cum(41_870, gen)}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(97, succ_stop),
                   ("vllm:request_success", "finished_reason", "length"): cum(11, ign)}
    e2e = [0] + [succ_stop[i] + ign[i] for i in range(1, n)]
    e.hists = {
        "vllm:time_to_first_token_seconds": hmix(
            n, 104, [(3.1, 20), (9.0, 30), (20.0, 40), (35.0, 14)],
            [(0, None)] + [(1, [(ok_arr[i] / 2600.0 + 0.4, 1)]) if i in ok_arr else (0, None)
                           for i in range(1, n)]),
        "vllm:time_per_output_token_seconds": hseries(
            n, 29_000, [(0.066, 90), (0.09, 10)], [g - (1 if g else 0) for g in gen],
            [(0.066, 9), (0.09, 1)]),
        "vllm:e2e_request_latency_seconds": hmix(
            n, 108, [(0.05, 11), (25.0, 30), (40.0, 40), (55.0, 27)],
            [(0, None)] + [(e2e[i], [(0.05, ign[i]), (44.0, succ_stop[i])] if e2e[i] else None)
                           for i in range(1, n)]),
        "vllm:request_prompt_tokens": hmix(
            n, 108, [(4_800, 20), (18_000, 40), (45_000, 37), (83_000, 11)],
            [(0, None)] + [(e2e[i], [(big.get(i, 30_000), 1)]) if e2e[i] else (0, None)
                           for i in range(1, n)]),
        "vllm:request_generation_tokens": hmix(
            n, 108, [(0, 11), (300, 97)],
            [(0, None)] + [(e2e[i], [(0, ign[i]), (300, succ_stop[i])]) if e2e[i] else (0, None)
                           for i in range(1, n)]),
        "vllm:request_params_n": hseries(n, 108, [(1, 1)], e2e, [(1, 1)]),
        "vllm:request_params_best_of": hseries(n, 108, [(1, 1)], e2e, [(1, 1)]),
    }
    cap = Capture("v0-0.5", "0.5.5", model, t0, dt, n, 128000, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "num_cpu_blocks": "3276",
                              "num_gpu_blocks": "9650", "swap_space": "4"})
    s0 = t0 - 671
    logs = [
        f"INFO {stamp(s0)} api_server.py:440] vLLM API server version 0.5.5",
        f"INFO {stamp(s0)} api_server.py:441] args: Namespace(model_tag='{model}', "
        "host='langmodel2', port=8006, uvicorn_log_level='debug', allow_credentials=False, "
        "allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        f"model='{model}', tokenizer=None, dtype='auto', kv_cache_dtype='auto', "
        "max_model_len=128000, distributed_executor_backend=None, worker_use_ray=False, "
        "pipeline_parallel_size=2, tensor_parallel_size=1, block_size=16, "
        "enable_prefix_caching=False, use_v2_block_manager=False, swap_space=4, "
        "cpu_offload_gb=0, gpu_memory_utilization=0.9, max_num_batched_tokens=None, "
        "max_num_seqs=256, enable_chunked_prefill=None)",
        f"WARNING {stamp(s0 + 1)} arg_utils.py:839] The model has a long context length "
        "(128000). This may cause OOM errors during the initial memory profiling phase, or "
        "result in low performance due to small KV cache space. Consider setting "
        "--max-model-len to a smaller value.",
        f"WARNING {stamp(s0 + 1)} arg_utils.py:872] Chunked prefill is enabled by default for "
        "models with max_model_len > 32K. Currently, chunked prefill might not work with some "
        "features or models. If you encounter any issues, please disable chunked prefill by "
        "setting --enable-chunked-prefill=False.",
        f"INFO {stamp(s0 + 1)} config.py:911] Chunked prefill is enabled with "
        "max_num_batched_tokens=512.",
        f"INFO {stamp(s0 + 6)} llm_engine.py:184] Initializing an LLM engine (v0.5.5) with "
        f"config: model='{model}', speculative_config=None, tokenizer='{model}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "dtype=torch.bfloat16, max_seq_len=128000, download_dir=None, load_format=LoadFormat.AUTO, "
        "tensor_parallel_size=1, pipeline_parallel_size=2, disable_custom_all_reduce=False, "
        "quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
        f"seed=0, served_model_name={model}, use_v2_block_manager=False, "
        "enable_prefix_caching=False)",
        f"INFO {stamp(s0 + 44)} model_runner.py:890] Loading model weights took 6.5727 GB",
        f"(RayWorkerWrapper pid=2169, ip=10.0.4.135) INFO {stamp(s0 + 44)} "
        "model_runner.py:890] Loading model weights took 6.5727 GB",
        f"INFO {stamp(s0 + 44)} distributed_gpu_executor.py:56] # GPU blocks: 9650, # CPU "
        "blocks: 3276",
        f"INFO {stamp(s0 + 47)} model_runner.py:1181] Capturing the model for CUDA graphs. This "
        "may lead to unexpected consequences if the model is not static. To run the model in "
        "eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(s0 + 47)} model_runner.py:1185] CUDA graphs can take additional 1~3 GiB "
        "memory per GPU. If you are running out of memory, consider decreasing "
        "`gpu_memory_utilization` or enforcing eager mode. You can also reduce the "
        "`max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(s0 + 71)} model_runner.py:1300] Graph capturing finished in 24 secs.",
        f"INFO {stamp(s0 + 73)} api_server.py:292] Available routes are:",
    ]
    for i in range(0, n, 2):
        k = max(1, i)
        logs.append(v0_stats_line(t0 + dt * i + 1.1, "406", prompt[k] / dt, gen[k] / dt,
                                  run[i], 0, kv[i]))
    for i, toks in big.items():
        ta = t0 + dt * i - 2.2
        logs.append(f"INFO {stamp(ta)} async_llm_engine.py:674] Received request "
                    f"chat-{rng.getrandbits(128):032x}: prompt: None, params: "
                    "SamplingParams(n=1, best_of=1, temperature=0.2, top_p=1.0, max_tokens=1024), "
                    f"prompt_token_ids: [1, 3, ...] ({toks} tokens), lora_request: None, "
                    "prompt_adapter_request: None.")
        logs.append(f"WARNING {stamp(ta + 0.1)} scheduler.py:706] Input prompt (512 tokens) is "
                    "too long and exceeds the capacity of block_manager")
    logs.sort(key=lambda l: l.split("INFO " if "INFO " in l.split("]")[0] else "WARNING ",
                                    1)[1][:14])
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", model, "--host",
            "langmodel2", "--port", "8006", "--max-model-len", "128000",
            "--pipeline-parallel-size", "2", "--uvicorn-log-level", "debug"]
    args = {"model": model, "max-model-len": 128000, "pipeline-parallel-size": 2,
            "tensor-parallel-size": 1, "block-size": 16, "swap-space": 4,
            "gpu-memory-utilization": 0.9, "enable-chunked-prefill": True,
            "max-num-batched-tokens": 512, "max-num-seqs": 256, "enable-prefix-caching": False}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://langmodel2:8006",
        notes="Document-QA service on two L4 nodes (pipeline parallel 2, Ray). Requests whose "
              "input is larger than about 75k tokens come back immediately with an empty "
              "answer although the server advertises max_model_len 128000.",
        argv=argv, args=args, models=models_body(model, model, 128000, int(s0 + 73)),
        logs="\n".join(logs) + "\n", model_config=MISTRAL_NEMO,
        gpu=gpu_samples(t0, dt, n, "NVIDIA L4", 24_152_899_584, 21_920_481_280,
                        [(1544, "python", 21_735_931_904)]))


# =====================================================================================
# c-mi300x-fp8-kv-garbage-minimax-m3  (vllm #45562, fixed by PR #45720)
# =====================================================================================
def mi300x_fp8() -> None:
    cid = "c-mi300x-fp8-kv-garbage-minimax-m3"
    rng = random.Random(45562)
    n, dt = 25, 5.0
    t0 = ts("2026-06-14 08:20:00")
    model = "MiniMaxAI/MiniMax-M3-MXFP8"
    run = [rng.choice([31, 32, 32, 32]) for _ in range(n)]
    kv = [round(jit(rng, 0.031, 0.15), 4) for _ in range(n)]
    fin = [0] + [int(round(jit(rng, 27, 0.1))) for _ in range(n - 1)]
    stop = [0] + [rng.choice([0, 0, 1, 1, 2]) for _ in range(n - 1)]
    length = [fin[i] - stop[i] for i in range(n)]
    gen = [0] + [fin[i] * 250 for i in range(1, n)]
    prompt = [0] + [fin[i] * 905 for i in range(1, n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:kv_cache_usage_perc": kv}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(1_167_450, prompt),
                  "vllm:generation_tokens": cum(318_900, gen),
                  "vllm:prefix_cache_queries": [0.0] * n, "vllm:prefix_cache_hits": [0.0] * n,
                  "vllm:prompt_tokens_cached": [0.0] * n}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(1_236, length),
                   ("vllm:request_success", "finished_reason", "stop"): cum(54, stop),
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    itl = [(0.021, 70), (0.024, 25), (0.035, 5)]
    e.hists = {
        "vllm:time_to_first_token_seconds": hseries(n, 1290, [(0.18, 3), (0.3, 5), (0.6, 2)],
                                                    fin, [(0.18, 3), (0.3, 5), (0.6, 2)]),
        "vllm:request_queue_time_seconds": hseries(n, 1290, [(0.002, 1)], fin, [(0.002, 1)]),
        "vllm:inter_token_latency_seconds": hseries(n, 317_600, itl,
                                                    [g - f for g, f in zip(gen, fin)], itl),
        "vllm:e2e_request_latency_seconds": hseries(n, 1290, [(5.3, 1), (5.9, 2), (6.6, 1)],
                                                    fin, [(5.3, 1), (5.9, 2), (6.6, 1)]),
        "vllm:request_prompt_tokens": hseries(n, 1290, [(780, 1), (905, 2), (1040, 1)], fin,
                                              [(780, 1), (905, 2), (1040, 1)]),
        "vllm:request_generation_tokens": hmix(
            n, 1290, [(96, 54), (256, 1236)],
            [(0, None)] + [(fin[i], [(110, stop[i]), (256, length[i])]) for i in range(1, n)]),
        "vllm:request_params_max_tokens": hseries(n, 1290, [(256, 1)], fin, [(256, 1)]),
        "vllm:request_max_num_generation_tokens": hseries(n, 1290, [(256, 1)], fin,
                                                          [(256, 1)]),
        "vllm:request_params_n": hseries(n, 1290, [(1, 1)], fin, [(1, 1)]),
        "vllm:request_time_per_output_token_seconds": hseries(
            n, 1290, [(0.0225, 1)], fin, [(0.0222, 1), (0.0231, 1)]),
        "vllm:request_prefill_time_seconds": hseries(n, 1290, [(0.25, 1)], fin, [(0.25, 1)]),
        "vllm:request_decode_time_seconds": hseries(n, 1290, [(5.6, 1)], fin, [(5.6, 1)]),
        "vllm:request_inference_time_seconds": hseries(n, 1290, [(5.9, 1)], fin, [(5.9, 1)]),
        "vllm:request_prefill_kv_computed_tokens": hseries(n, 1290, [(905, 1)], fin,
                                                           [(905, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 61_000, [(32, 80), (1024, 20)],
                                               [0] + [235] * (n - 1), [(32, 85), (1024, 15)]),
    }
    cap = Capture("0.18.0", "0.22.1rc1.dev490+g4a560dd8d", model, t0, dt, n, 196608,
                  {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "fp8",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "num_gpu_blocks": "262144",
                              "calculate_kv_scales": "False", "is_attention_free": "False",
                              "prefix_caching_hash_algo": "sha256",
                              "_block_size_resolved": "True",
                              "user_specified_block_size": "False",
                              "kv_offloading_backend": "native"},
                  created_at=t0 - 1322.0)
    s0 = t0 - 1322.0
    api = "(APIServer pid=412) "
    w = "(Worker_TP0_EP0 pid=718) "
    ec = "(EngineCore_DP0 pid=655) "
    logs = [
        f"{api}INFO {stamp(s0)} [utils.py:299] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'trust_remote_code': True, 'tensor_parallel_size': 8, "
        "'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8', "
        "'enable_prefix_caching': False, 'attention_backend': 'TRITON_ATTN'}",
        f"{api}INFO {stamp(s0 + 3)} [cache.py:214] Using fp8 data type to store kv cache. It "
        "reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause "
        "accuracy drop without a proper scaling factor.",
        f"{w}INFO {stamp(s0 + 41)} [rocm.py:402] Using Triton Attention backend on V1 engine.",
        f"{w}WARNING {stamp(s0 + 322)} [kv_cache.py:126] Using uncalibrated q_scale 1.0 and/or "
        "prob_scale 1.0 with fp8 attention. This may cause accuracy issues. Please make sure "
        "q/prob scaling factors are available in the fp8 checkpoint.",
        f"{ec}INFO {stamp(s0 + 571)} [kv_cache_utils.py:1087] GPU KV cache size: 4,194,304 "
        "tokens",
        f"{ec}INFO {stamp(s0 + 571)} [kv_cache_utils.py:1091] Maximum concurrency for 196,608 "
        "tokens per request: 21.33x",
        f"{api}INFO {stamp(s0 + 640)} [api_server.py:1978] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        pt = (prompt[i - 1] + prompt[i]) / (2 * dt)
        gt = (gen[i - 1] + gen[i]) / (2 * dt)
        logs.append(v1_stats_line(t0 + dt * i, api, "loggers.py:259", pt, gt, run[i], 0,
                                  kv[i], 0.0))
    argv = ["vllm", "serve", model, "--trust-remote-code", "--tensor-parallel-size", "8",
            "--enable-expert-parallel", "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching",
            "--attention-backend", "TRITON_ATTN"]
    args = {"model": model, "tensor-parallel-size": 8, "enable-expert-parallel": True,
            "kv-cache-dtype": "fp8", "enable-prefix-caching": False,
            "attention-backend": "TRITON_ATTN", "max-model-len": 196608,
            "gpu-memory-utilization": 0.9, "trust-remote-code": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://mi300x-node-3:8000",
        notes="MiniMax-M3 on 8x MI300X (ROCm image). Since the launch flags gained "
              "--kv-cache-dtype fp8, users report unreadable answers; requests return HTTP 200. "
              "Our lm-eval GSM8K run (strict-match) scored 0.0099 on this server and 0.9666 on "
              "the same image with --kv-cache-dtype auto. Latency dashboards are green.",
        argv=argv, args=args, models=models_body(model, model, 196608, int(s0 + 640)),
        logs="\n".join(logs) + "\n")


# =====================================================================================
# c-nvfp4-kv-sm120-vscale-garbled  (vllm #50084; fix in #46329 / #55976)
# =====================================================================================
def nvfp4_sm120() -> None:
    cid = "c-nvfp4-kv-sm120-vscale-garbled"
    rng = random.Random(50084)
    n, dt = 25, 5.0
    t0 = ts("2026-07-28 09:00:00")
    model = "Qwen3.6-27B-NVFP4"
    run = [rng.choice([1, 1, 2, 2, 2, 3]) for _ in range(n)]
    kv = [round(jit(rng, 0.19, 0.2), 4) for _ in range(n)]
    fin = [0] + [rng.choice([0, 0, 1]) for _ in range(n - 1)]
    arr = [0] + [rng.choice([0, 0, 1]) for _ in range(n - 1)]
    gen = [0] + [run[i] * dt * 27.0 for i in range(1, n)]
    prompt = [0] + [arr[i] * 14_200 for i in range(1, n)]
    hits = [0] + [arr[i] * 11_900 for i in range(1, n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:kv_cache_usage_perc": kv}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(212, fin),
                   ("vllm:request_success", "finished_reason", "length"): [9.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): [4.0] * n,
                   ("vllm:num_requests_waiting_by_reason", "reason", "capacity"): [0.0] * n,
                   ("vllm:num_requests_waiting_by_reason", "reason", "deferred"): [0.0] * n,
                   ("vllm:prompt_tokens_by_source", "source", "local_compute"):
                       cum(610_400, [p - h for p, h in zip(prompt, hits)]),
                   ("vllm:prompt_tokens_by_source", "source", "local_cache_hit"):
                       cum(2_409_000, hits),
                   ("vllm:prompt_tokens_by_source", "source", "external_kv_transfer"):
                       [0.0] * n}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(3_019_400, prompt),
                  "vllm:generation_tokens": cum(301_770, gen),
                  "vllm:prefix_cache_queries": cum(3_019_400, prompt),
                  "vllm:prefix_cache_hits": cum(2_409_000, hits),
                  "vllm:prompt_tokens_cached": cum(2_409_000, hits),
                  "vllm:external_prefix_cache_queries": [0.0] * n,
                  "vllm:external_prefix_cache_hits": [0.0] * n}
    itl = [(0.034, 75), (0.04, 20), (0.06, 5)]
    e.hists = {
        "vllm:time_to_first_token_seconds": hseries(n, 225, [(0.9, 3), (2.6, 2), (6.0, 1)],
                                                    arr, [(1.1, 2), (2.4, 1)]),
        "vllm:request_queue_time_seconds": hseries(n, 225, [(0.003, 1)], arr, [(0.003, 1)]),
        "vllm:inter_token_latency_seconds": hseries(n, 301_500, itl, gen, itl),
        "vllm:e2e_request_latency_seconds": hseries(n, 225, [(22, 1), (41, 2), (70, 1)], fin,
                                                    [(38, 1)]),
        "vllm:request_prompt_tokens": hseries(n, 225, [(6_000, 1), (14_000, 2), (30_000, 1)],
                                              fin, [(14_200, 1)]),
        "vllm:request_generation_tokens": hseries(n, 225, [(600, 1), (1_400, 2)], fin,
                                                  [(1_050, 1)]),
        "vllm:request_params_n": hseries(n, 225, [(1, 1)], fin, [(1, 1)]),
        "vllm:request_prefill_kv_computed_tokens": hseries(n, 225, [(2_300, 1)], fin,
                                                           [(2_300, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 90_000, [(1, 50), (2, 40), (2048, 10)],
                                               [0] + [140] * (n - 1), [(2, 95), (2048, 5)]),
    }
    cap = Capture("0.24.0", "0.25.1", model, t0, dt, n, 245760, {"0": e},
                  cache_info={"block_size": "544", "cache_dtype": "nvfp4",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.92",
                              "num_gpu_blocks": "468", "kv_cache_size_tokens": "254592",
                              "kv_cache_max_concurrency": "1.04",
                              "mamba_cache_mode": "align", "mamba_block_size": "544",
                              "_block_size_resolved": "True", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
                              "user_specified_block_size": "False",
                              "kv_offloading_backend": "native", "mamba_cache_dtype": "auto",
                              "mamba_ssm_cache_dtype": "float32"},
                  created_at=t0 - 2461.0)
    s0 = t0 - 2461.0
    api = "(APIServer pid=203) "
    ec = "(EngineCore pid=377) "
    logs = [
        f"{api}INFO {stamp(s0)} [utils.py:299] non-default args: {{'model_tag': "
        f"'/models/{model}', 'model': '/models/{model}', 'served_model_name': ['{model}'], "
        "'max_model_len': 245760, 'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'nvfp4', "
        "'language_model_only': True, 'attention_backend': 'FLASHINFER', 'max_num_seqs': 4}",
        f"{api}INFO {stamp(s0 + 2)} [cache.py:231] Using nvfp4 data type to store kv cache",
        f"{ec}INFO {stamp(s0 + 58)} [flashinfer.py:612] FlashInfer resolved query dtypes: "
        "prefill=torch.bfloat16, decode=torch.bfloat16, decode_backend=xqa, "
        "kv_cache_dtype=nvfp4, arch=sm120",
        f"{ec}INFO {stamp(s0 + 97)} [kv_cache_utils.py:1087] GPU KV cache size: 254,592 tokens",
        f"{ec}INFO {stamp(s0 + 97)} [kv_cache_utils.py:1091] Maximum concurrency for 245,760 "
        "tokens per request: 1.04x",
        f"{api}INFO {stamp(s0 + 160)} [api_server.py:2011] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        q = prompt[i - 1] + prompt[i]
        logs.append(v1_stats_line(t0 + dt * i, api, "loggers.py:261", q / (2 * dt),
                                  (gen[i - 1] + gen[i]) / (2 * dt), run[i], 0, kv[i],
                                  (hits[i - 1] + hits[i]) / q if q else 0.0))
    argv = ["vllm", "serve", f"/models/{model}", "--served-model-name", model,
            "--max-model-len", "245760", "--gpu-memory-utilization", "0.92",
            "--kv-cache-dtype", "nvfp4", "--language-model-only", "--attention-backend",
            "FLASHINFER", "--max-num-seqs", "4"]
    args = {"model": f"/models/{model}", "served-model-name": model, "max-model-len": 245760,
            "gpu-memory-utilization": 0.92, "kv-cache-dtype": "nvfp4",
            "language-model-only": True, "attention-backend": "FLASHINFER", "max-num-seqs": 4,
            "enable-prefix-caching": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://127.0.0.1:8000",
        notes="Single RTX 5090 (WSL2) serving a local coding agent. After switching the KV "
              "cache to nvfp4 to fit ~245K context, answers degrade into incoherent / garbled "
              "text; the same prompts are fine with --kv-cache-dtype fp8. No latency or error "
              "alarms.",
        argv=argv, args=args,
        models=models_body(model, f"/models/{model}", 245760, int(s0 + 160)),
        logs="\n".join(logs) + "\n",
        gpu=gpu_samples(t0, dt, n, "NVIDIA GeForce RTX 5090", 34_190_917_632, 32_105_299_968,
                        [(377, "/python3.12", 31_457_280_000)]))


# =====================================================================================
# c-long-prompt-hol-short-chats  (vllm #21495; V0 remedy PR #10235)
# =====================================================================================
def hol_short_chats() -> None:
    cid = "c-long-prompt-hol-short-chats"
    rng = random.Random(21495)
    n, dt = 31, 3.0
    t0 = ts("2025-07-24 06:00:00")
    model = "meta-llama/Llama-3.1-8B-Instruct"
    longs = {7: 127_850, 20: 128_300}   # interval index the long prompt's prefill starts in
    hol = {}                             # interval -> fraction of the interval blocked
    for s, _ in longs.items():
        hol[s] = 0.6
        hol[s + 1] = 1.0
        hol[s + 2] = 1.0
        hol[s + 3] = 1.0
        hol[s + 4] = 0.4
    run, wait, kv, prompt, gen, ttft_obs, itl_obs, iters, fin = ([] for _ in range(9))
    backlog = 0.0
    long_kv = 0.0
    long_left = 0.0
    for i in range(n):
        arrivals = jit(rng, 6.0 * dt, 0.15)
        blocked = hol.get(i, 0.0)
        if i in longs:
            long_left = float(longs[i])
        p_long = 0.0
        if long_left > 0:
            p_long = min(long_left, 128_000 / 4.0 * (1.0 if blocked >= 1 else blocked + 0.2))
            long_left -= p_long
            long_kv += p_long
        elif long_kv > 0:
            long_kv = max(0.0, long_kv - 0.0) if i - max(k for k in longs if k <= i) < 7 else 0.0
        newly_blocked = arrivals * blocked
        served = arrivals - newly_blocked
        release = 0.0
        if blocked < 1.0 and backlog > 0:
            release = backlog
            backlog = 0.0
        backlog += newly_blocked
        shorts = int(round(jit(rng, 18, 0.08)))
        run.append(shorts + (1 if long_kv > 0 else 0))
        wait.append(int(round(backlog)))
        kv.append(round((shorts * 725 + long_kv) / 438_272, 4))
        if i == 0:
            prompt.append(0.0); gen.append(0.0); ttft_obs.append([]); itl_obs.append([])
            iters.append([]); fin.append(0)
            continue
        prompt.append((served + release) * 600 + p_long)
        g_norm = (1 - blocked) * dt * shorts / 0.012
        g_hol = blocked * dt * shorts / 0.75
        gen.append(g_norm + g_hol)
        t_obs = spread(served, [(0.05, 3), (0.08, 5), (0.12, 2)])
        if release:
            t_obs += spread(release, [(2.0, 1), (5.0, 1), (8.0, 1), (11.0, 1), (13.5, 1)])
        if i in longs or (i - 1 in longs and False):
            pass
        if long_left == 0 and p_long > 0:
            t_obs += [(12.4, 1.0)]
        ttft_obs.append(t_obs)
        itl_obs.append(spread(g_norm, [(0.011, 6), (0.013, 3), (0.02, 1)]) +
                       spread(g_hol, [(0.45, 1), (0.75, 2), (1.2, 1)]))
        iters.append(spread(g_norm / shorts if shorts else 0, [(20, 2), (200, 2), (640, 1)]) +
                     spread(blocked * dt / 0.75, [(8192, 1)]))
        fin.append(int(round(served + release * 0.0)))
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv, "vllm:gpu_cache_usage_perc": kv}
    q = cum(9_120_000, prompt)
    h = cum(1_132_000, [p * 0.12 for p in prompt])
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": q,
                  "vllm:generation_tokens": cum(3_842_000, gen),
                  "vllm:prefix_cache_queries": q, "vllm:prefix_cache_hits": h,
                  "vllm:gpu_prefix_cache_queries": q, "vllm:gpu_prefix_cache_hits": h}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(15_310, fin),
                   ("vllm:request_success", "finished_reason", "length"): [212.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): cum(6, [0] * n)}
    e.hists = {
        "vllm:time_to_first_token_seconds": [spread(15_530, [(0.05, 30), (0.08, 50),
                                                             (0.12, 18), (3.0, 1), (9.0, 1)])]
                                            + ttft_obs[1:],
        "vllm:request_queue_time_seconds": [spread(15_530, [(0.003, 97), (5.0, 3)])] +
                                           [[(max(0.002, v - 0.05), c) for v, c in o]
                                            for o in ttft_obs[1:]],
        "vllm:time_per_output_token_seconds": [spread(3_830_000, [(0.011, 60), (0.013, 30),
                                                                  (0.02, 9), (0.75, 1)])]
                                              + itl_obs[1:],
        "vllm:e2e_request_latency_seconds": hseries(
            n, 15_528, [(2.4, 3), (3.1, 5), (4.5, 2)], fin, [(2.4, 3), (3.1, 5), (4.5, 2)]),
        "vllm:request_prompt_tokens": hseries(
            n, 15_528, [(300, 2), (600, 5), (1100, 3)], fin, [(300, 2), (600, 5), (1100, 3)]),
        "vllm:request_generation_tokens": hseries(n, 15_528, [(120, 2), (250, 5), (420, 3)],
                                                  fin, [(120, 2), (250, 5), (420, 3)]),
        "vllm:request_params_n": hseries(n, 15_528, [(1, 1)], fin, [(1, 1)]),
        "vllm:iteration_tokens_total": [spread(330_000, [(20, 40), (200, 40), (640, 19.9),
                                                          (8192, 0.1)])] + iters[1:],
    }
    cap = Capture("0.9.2", "0.9.2", model, t0, dt, n, 131072, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "num_gpu_blocks": "27392", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "builtin",
                              "swap_space": "4", "cpu_offload_gb": "0"},
                  created_at=t0 - 9_312.0)
    s0 = t0 - 9_312.0
    logs = [
        f"INFO {stamp(s0)} [api_server.py:1395] vLLM API server version 0.9.2",
        f"INFO {stamp(s0)} [cli_args.py:325] non-default args: {{'model': '{model}', "
        "'max_model_len': 131072, 'disable_log_requests': True}",
        f"INFO {stamp(s0 + 8)} [config.py:2180] Chunked prefill is enabled with "
        "max_num_batched_tokens=8192.",
        f"INFO {stamp(s0 + 49)} [gpu_worker.py:232] Available KV cache memory: 53.50 GiB",
        f"INFO {stamp(s0 + 49)} [kv_cache_utils.py:716] GPU KV cache size: 438,272 tokens",
        f"INFO {stamp(s0 + 49)} [kv_cache_utils.py:720] Maximum concurrency for 131,072 tokens "
        "per request: 3.34x",
        f"INFO {stamp(s0 + 71)} [api_server.py:1457] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(0, n, 3):
        if i == 0:
            continue
        a = max(1, i - 2)
        pq = sum(prompt[a:i + 1])
        logs.append(v1_stats_line(t0 + dt * i + 0.2, "", "loggers.py:118",
                                  pq / (dt * (i + 1 - a)), sum(gen[a:i + 1]) / (dt * (i + 1 - a)),
                                  run[i], wait[i], kv[i], 0.12))
    argv = ["vllm", "serve", model, "--max-model-len", "131072", "--disable-log-requests"]
    args = {"model": model, "max-model-len": 131072, "max-num-batched-tokens": 8192,
            "max-num-seqs": 1024, "enable-chunked-prefill": True, "gpu-memory-utilization": 0.9,
            "enable-prefix-caching": True, "block-size": 16}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://chat-h100-01:8000",
        notes="Internal chat assistant (~6 short requests/s) that also accepts whole documents. "
              "Right after someone submits a ~128k-token document, every other user's next "
              "reply takes 10+ seconds to start and running answers freeze; it recovers on its "
              "own after ~15 s.",
        argv=argv, args=args, models=models_body(model, model, 131072, int(s0 + 71)),
        logs="\n".join(logs) + "\n", model_config=LLAMA31_8B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA H100 80GB HBM3", 85_520_809_984, 78_383_431_680,
                        [(2211, "python3", 77_322_207_232)]))


# =====================================================================================
# c-long-context-decode-itl-batch90  (vllm #11286)
# =====================================================================================
def long_ctx_decode() -> None:
    cid = "c-long-context-decode-itl-batch90"
    rng = random.Random(11286)
    n, dt = 31, 2.0
    t0 = ts("2024-12-18 03:30:00")
    model = "Qwen/Qwen2.5-7B-Instruct"
    run = [90] * n
    kv = [round(0.842 + 0.0016 * i * dt / 2 + rng.uniform(-0.002, 0.002), 4) for i in range(n)]
    gen = [0] + [jit(rng, 782 * dt, 0.04) for _ in range(n - 1)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:num_requests_swapped": [0.0] * n, "vllm:gpu_cache_usage_perc": kv,
                "vllm:cpu_cache_usage_perc": [0.0] * n,
                "vllm:gpu_prefix_cache_hit_rate": [-1.0] * n,
                "vllm:cpu_prefix_cache_hit_rate": [-1.0] * n}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": [2_311_440.0] * n,
                  "vllm:generation_tokens": cum(1_236_900, gen),
                  "vllm:tokens": cum(3_548_340, gen)}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): [630.0] * n,
                   ("vllm:request_success", "finished_reason", "stop"): [1_810.0] * n}
    itl = [(0.108, 40), (0.115, 45), (0.125, 13), (0.16, 2)]
    e.hists = {
        "vllm:time_per_output_token_seconds": hseries(
            n, 1_236_000, [(0.017, 52), (0.03, 14), (0.06, 10), (0.115, 24)], gen, itl),
        "vllm:time_to_first_token_seconds": [spread(2_530, [(0.12, 20), (0.6, 30), (2.0, 30),
                                                            (6.0, 15), (12.0, 5)])] +
                                            [[] for _ in range(n - 1)],
        "vllm:e2e_request_latency_seconds": [spread(2_440, [(8, 30), (25, 30), (50, 20),
                                                            (90, 20)])] +
                                            [[] for _ in range(n - 1)],
        "vllm:request_queue_time_seconds": [spread(2_440, [(0.1, 60), (3.0, 40)])] +
                                           [[] for _ in range(n - 1)],
        "vllm:request_prompt_tokens": [spread(2_530, [(80, 30), (1500, 30), (5000, 25),
                                                      (9000, 15)])] +
                                      [[] for _ in range(n - 1)],
        "vllm:request_generation_tokens": [spread(2_440, [(300, 40), (1024, 60)])] +
                                          [[] for _ in range(n - 1)],
        "vllm:iteration_tokens_total": hseries(
            n, 64_000, [(90, 96), (9000, 4)], [round(g / 90) for g in gen], [(90, 1)]),
    }
    cap = Capture("v0-0.6", "0.6.4.post1", model, t0, dt, n, 32768, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                              "num_cpu_blocks": "4681", "num_gpu_blocks": "27977",
                              "swap_space": "4"},
                  iteration_buckets=[1, 2, 4] + list(range(8, 257, 8)))
    s0 = t0 - 1_980
    logs = [
        f"INFO {stamp(s0)} api_server.py:585] vLLM API server version 0.6.4.post1",
        f"INFO {stamp(s0)} api_server.py:586] args: Namespace(host=None, port=8000, "
        f"model='{model}', max_model_len=32768, gpu_memory_utilization=0.9, "
        "max_num_seqs=256, enable_chunked_prefill=None, enable_prefix_caching=False, "
        "disable_log_requests=True)",
        f"INFO {stamp(s0 + 7)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) "
        f"with config: model='{model}', speculative_config=None, tokenizer='{model}', "
        "dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, quantization=None, enforce_eager=False, "
        "kv_cache_dtype=auto, num_scheduler_steps=1, chunked_prefill_enabled=False, "
        "multi_step_stream_outputs=True, enable_prefix_caching=False, "
        "use_async_output_proc=True",
        f"INFO {stamp(s0 + 31)} worker.py:232] Memory profiling results: total_gpu_memory="
        "44.52GiB initial_memory_usage=14.71GiB peak_torch_memory=18.81GiB "
        "memory_usage_post_profile=14.92GiB non_torch_memory=0.71GiB kv_cache_size=23.91GiB "
        "gpu_memory_utilization=0.90",
        f"INFO {stamp(s0 + 31)} distributed_gpu_executor.py:57] # GPU blocks: 27977, # CPU "
        "blocks: 4681",
        f"INFO {stamp(s0 + 31)} distributed_gpu_executor.py:61] Maximum concurrency for 32768 "
        "tokens per request: 13.66x",
        f"INFO {stamp(s0 + 52)} api_server.py:640] Starting vLLM API server on "
        "http://0.0.0.0:8000",
    ]
    for i in range(1, n, 3):
        logs.append(v0_stats_line(t0 + dt * i + 0.3, "449", 0.0, gen[i] / dt, 90, 0, kv[i]))
    argv = ["vllm", "serve", model, "--max-model-len", "32768", "--disable-log-requests"]
    args = {"model": model, "max-model-len": 32768, "max-num-seqs": 256,
            "gpu-memory-utilization": 0.9, "enable-chunked-prefill": False,
            "enable-prefix-caching": False, "block-size": 16, "swap-space": 4}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://10.20.1.14:8000",
        notes="Batch of 90 concurrent long-document requests (prompts 4k-8k tokens). Decode "
              "throughput is a fraction of what the same server gives at batch 90 with short "
              "prompts; no errors.",
        argv=argv, args=args, models=models_body(model, model, 32768, int(s0 + 52)),
        logs="\n".join(logs) + "\n", model_config=QWEN25_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA L20", 48_305_799_168, 44_170_215_424,
                        [(9023, "python3", 43_502_223_360)]))


# =====================================================================================
# c-prefill-interference-dsr1-dp8  (vllm PR #44558 baseline, interval=1)
# =====================================================================================
DSR1_0528_FP4 = {
    "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False,
    "attention_dropout": 0.0, "auto_map": {
        "AutoConfig": "configuration_deepseek.DeepseekV3Config",
        "AutoModel": "modeling_deepseek.DeepseekV3Model",
        "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM"},
    "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
    "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02,
    "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
    "model_type": "deepseek_v3", "moe_intermediate_size": 2048, "moe_layer_freq": 1,
    "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True,
    "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61,
    "num_key_value_heads": 128, "num_nextn_predict_layers": 1, "q_lora_rank": 1536,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                     "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                     "type": "yarn"},
    "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid",
    "tie_word_embeddings": False, "topk_group": 4, "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16", "transformers_version": "4.46.3", "use_cache": True,
    "v_head_dim": 128, "vocab_size": 129280,
    "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
                            "kv_cache_quant_algo": "FP8", "group_size": 16}}


def prefill_interference_dp8() -> None:
    cid = "c-prefill-interference-dsr1-dp8"
    rng = random.Random(44558)
    n, dt = 25, 4.0
    t0 = ts("2026-06-04 03:10:00")
    model = "nvidia/DeepSeek-R1-0528-FP4"
    engines: dict[str, Engine] = {}
    itl = [(0.032, 12), (0.045, 8), (0.27, 50), (0.29, 22), (0.32, 8)]
    ttft = [(0.35, 30), (0.6, 30), (0.9, 20), (1.4, 12), (2.0, 6), (2.5, 2)]
    for k in range(8):
        run = [int(round(jit(rng, 137, 0.04))) for _ in range(n)]
        wait = [rng.choice([0, 0, 0, 1, 2]) for _ in range(n)]
        kv = [round(jit(rng, 0.052, 0.08), 4) for _ in range(n)]
        fin = [0] + [int(round(jit(rng, 2.8 * dt, 0.12))) for _ in range(n - 1)]
        arr = [0] + [int(round(jit(rng, 3.0 * dt, 0.1))) for _ in range(n - 1)]
        gen = [0] + [jit(rng, 570 * dt, 0.05) for _ in range(n - 1)]
        prompt = [a * 1000 for a in arr]
        e = Engine()
        e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                    "vllm:kv_cache_usage_perc": kv}
        e.counters = {"vllm:num_preemptions": [0.0] * n,
                      "vllm:prompt_tokens": cum(2_190_000 + 9_000 * k, prompt),
                      "vllm:generation_tokens": cum(412_300 + 1_700 * k, gen),
                      "vllm:prefix_cache_queries": cum(2_190_000 + 9_000 * k, prompt),
                      "vllm:prefix_cache_hits": cum(1_344 + 16 * k, [a * 1.6 for a in arr]),
                      "vllm:prompt_tokens_cached": cum(1_344 + 16 * k, [a * 1.6 for a in arr])}
        e.lcounters = {("vllm:request_success", "finished_reason", "length"):
                           cum(2_047 + 9 * k, fin),
                       ("vllm:request_success", "finished_reason", "stop"): [0.0] * n,
                       ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
        e.hists = {
            "vllm:inter_token_latency_seconds": hseries(n, 410_000, itl,
                                                        [g - a for g, a in zip(gen, arr)], itl),
            "vllm:time_to_first_token_seconds": hseries(n, 2_190, ttft, arr, ttft),
            "vllm:request_queue_time_seconds": hseries(n, 2_190, [(0.004, 9), (0.3, 1)], arr,
                                                       [(0.004, 9), (0.3, 1)]),
            "vllm:e2e_request_latency_seconds": hseries(n, 2_047, [(42, 1), (48, 2), (55, 1)],
                                                        fin, [(42, 1), (48, 2), (55, 1)]),
            "vllm:request_time_per_output_token_seconds": hseries(
                n, 2_047, [(0.22, 1), (0.24, 2), (0.26, 1)], fin,
                [(0.22, 1), (0.24, 2), (0.26, 1)]),
            "vllm:request_prompt_tokens": hseries(n, 2_047, [(1000, 1)], fin, [(1000, 1)]),
            "vllm:request_generation_tokens": hseries(n, 2_047, [(200, 1)], fin, [(200, 1)]),
            "vllm:request_params_max_tokens": hseries(n, 2_047, [(200, 1)], fin, [(200, 1)]),
            "vllm:request_params_n": hseries(n, 2_047, [(1, 1)], fin, [(1, 1)]),
            "vllm:request_prefill_time_seconds": hseries(n, 2_047, [(0.3, 1), (0.55, 1)], fin,
                                                         [(0.3, 1), (0.55, 1)]),
            "vllm:request_decode_time_seconds": hseries(n, 2_047, [(47, 1)], fin, [(47, 1)]),
            "vllm:request_inference_time_seconds": hseries(n, 2_047, [(47.5, 1)], fin,
                                                           [(47.5, 1)]),
            "vllm:request_prefill_kv_computed_tokens": hseries(n, 2_047, [(1000, 1)], fin,
                                                               [(1000, 1)]),
            "vllm:iteration_tokens_total": hseries(n, 9_300, [(137, 20), (900, 80)],
                                                   [0] + [17] * (n - 1),
                                                   [(137, 20), (900, 80)]),
        }
        engines[str(k)] = e
    cap = Capture("0.18.0", "0.22.0", model, t0, dt, n, 163840, engines,
                  cache_info={"block_size": "64", "cache_dtype": "fp8",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "num_gpu_blocks": "45312", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
                              "_block_size_resolved": "True",
                              "user_specified_block_size": "False",
                              "kv_offloading_backend": "native"},
                  created_at=t0 - 1_904.0)
    s0 = t0 - 1_904.0
    api = "(APIServer pid=5120) "
    logs = [
        f"{api}INFO {stamp(s0)} [utils.py:299] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'data_parallel_size': 8, 'data_parallel_size_local': 4, "
        "'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8', "
        "'data_parallel_address': '10.52.0.11', 'data_parallel_rpc_port': 13345}",
        f"(EngineCore_DP0 pid=5401) INFO {stamp(s0 + 802)} [kv_cache_utils.py:1087] GPU KV "
        "cache size: 2,899,968 tokens",
        f"(EngineCore_DP0 pid=5401) INFO {stamp(s0 + 802)} [kv_cache_utils.py:1091] Maximum "
        "concurrency for 163,840 tokens per request: 17.70x",
        f"(EngineCore_DP0 pid=5401) INFO {stamp(s0 + 951)} [gpu_model_runner.py:4502] Graph "
        "capturing finished in 61 secs, took 3.12 GiB",
        f"{api}INFO {stamp(s0 + 1020)} [api_server.py:1978] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(3, n, 3):
        for k in range(8):
            e = engines[str(k)]
            pc = e.counters["vllm:prompt_tokens"]
            gc = e.counters["vllm:generation_tokens"]
            logs.append(v1_stats_line(
                t0 + dt * i + 0.05 * k, api, "loggers.py:259", (pc[i] - pc[i - 3]) / (3 * dt),
                (gc[i] - gc[i - 3]) / (3 * dt),
                int(e.gauges["vllm:num_requests_running"][i]),
                int(e.gauges["vllm:num_requests_waiting"][i]),
                e.gauges["vllm:kv_cache_usage_perc"][i], 0.0016, engine=f"{k:03d}"))
    argv = ["vllm", "serve", model, "--data-parallel-size", "8", "--data-parallel-size-local",
            "4", "--enable-expert-parallel", "--kv-cache-dtype", "fp8",
            "--data-parallel-address", "10.52.0.11", "--data-parallel-rpc-port", "13345"]
    args = {"model": model, "data-parallel-size": 8, "data-parallel-size-local": 4,
            "tensor-parallel-size": 1, "enable-expert-parallel": True, "kv-cache-dtype": "fp8",
            "max-model-len": 163840, "max-num-batched-tokens": 8192, "max-num-seqs": 1024,
            "gpu-memory-utilization": 0.9, "enable-prefix-caching": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://10.52.0.11:8000",
        notes="DeepSeek-R1-0528 FP4 on 2x GB200 trays (DP=8, EP, internal load balancer), "
              "~24 req/s of 1k-token prompts with 200-token answers. Streaming clients "
              "complain that tokens arrive at roughly 4 per second although the model "
              "decodes much faster when traffic is light.",
        argv=argv, args=args, models=models_body(model, model, 163840, int(s0 + 1020)),
        logs="\n".join(logs) + "\n", model_config=DSR1_0528_FP4,
        gpu=gpu_samples(t0, dt, n, "NVIDIA GB200", 199_715_979_264, 181_251_342_336,
                        [(5401, "VLLM::EngineCore_DP0", 180_147_470_336)], ngpu=4))


# =====================================================================================
# c-ngram-spec-low-acceptance-coder7b  (vllm #16258)
# =====================================================================================
def ngram_low_accept() -> None:
    cid = "c-ngram-spec-low-acceptance-coder7b"
    rng = random.Random(16258)
    n, dt = 25, 4.0
    t0 = ts("2025-04-08 14:20:00")
    model = "Qwen/Qwen2.5-Coder-7B-Instruct"
    run = [rng.choice([9, 10, 10, 10]) for _ in range(n)]
    steps = [0] + [int(round(jit(rng, 28 * 10, 0.05))) for _ in range(n - 1)]
    drafts = [0] + [int(round(s * jit(rng, 0.58, 0.08))) for s in steps[1:]]
    dtoks = [d * 5 for d in drafts]
    acc = [0] + [int(round(dt_ * jit(rng, 0.09, 0.15))) for dt_ in dtoks[1:]]
    gen = [steps[i] + acc[i] for i in range(n)]
    fin = [0] + [rng.choice([0, 0, 1]) for _ in range(n - 1)]
    kv = [round(jit(rng, 0.018, 0.15), 4) for _ in range(n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:gpu_cache_usage_perc": kv}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(5_810, [f * 140 for f in fin]),
                  "vllm:generation_tokens": cum(40_020, gen),
                  "vllm:gpu_prefix_cache_queries": cum(5_810, [f * 140 for f in fin]),
                  "vllm:gpu_prefix_cache_hits": cum(1_264, [f * 32 for f in fin]),
                  "vllm:spec_decode_num_drafts": cum(6_520, drafts),
                  "vllm:spec_decode_num_draft_tokens": cum(32_600, dtoks),
                  "vllm:spec_decode_num_accepted_tokens": cum(2_941, acc)}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(31, fin),
                   ("vllm:request_success", "finished_reason", "stop"): [8.0] * n}
    tpot = [(0.118, 30), (0.135, 45), (0.16, 20), (0.2, 5)]
    e.hists = {
        "vllm:time_per_output_token_seconds": hseries(n, 37_100, tpot, steps, tpot),
        "vllm:time_to_first_token_seconds": hseries(n, 49, [(0.08, 3), (0.2, 1)], fin,
                                                    [(0.09, 1)]),
        "vllm:request_queue_time_seconds": hseries(n, 39, [(0.004, 1)], fin, [(0.004, 1)]),
        "vllm:e2e_request_latency_seconds": hseries(n, 39, [(95, 1), (118, 2)], fin,
                                                    [(116, 1)]),
        "vllm:request_prompt_tokens": hseries(n, 39, [(120, 1), (160, 1)], fin, [(140, 1)]),
        "vllm:request_generation_tokens": hseries(n, 39, [(820, 1), (1024, 3)], fin,
                                                  [(1024, 1)]),
        "vllm:request_params_max_tokens": hseries(n, 39, [(1024, 1)], fin, [(1024, 1)]),
        "vllm:request_params_n": hseries(n, 39, [(1, 1)], fin, [(1, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 3_700, [(38, 1)], [0] + [28] * (n - 1),
                                               [(30, 1), (45, 1)]),
    }
    cap = Capture("v1-0.8.3", "0.8.3", model, t0, dt, n, 16384, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "num_gpu_blocks": "24944", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "builtin",
                              "swap_space": "4", "cpu_offload_gb": "0"},
                  created_at=t0 - 655.0)
    s0 = t0 - 655.0
    logs = [
        f"INFO {stamp(s0)} [api_server.py:1034] vLLM API server version 0.8.3",
        f"INFO {stamp(s0)} [api_server.py:1035] args: Namespace(model='{model}', "
        "max_model_len=16384, speculative_config={'method': 'ngram', "
        "'num_speculative_tokens': 5, 'prompt_lookup_max': 5, 'prompt_lookup_min': 2}, "
        "disable_log_requests=True)",
        f"INFO {stamp(s0 + 44)} [backends.py:144] Compiling a graph for general shape takes "
        "34.82 s",
        f"INFO {stamp(s0 + 57)} [monitor.py:33] torch.compile takes 44.62 s in total",
        f"INFO {stamp(s0 + 58)} [kv_cache_utils.py:578] GPU KV cache size: 399,104 tokens",
        f"INFO {stamp(s0 + 58)} [kv_cache_utils.py:581] Maximum concurrency for 16,384 tokens "
        "per request: 24.36x",
        f"INFO {stamp(s0 + 87)} [gpu_model_runner.py:1608] Graph capturing finished in 28 secs, "
        "took 0.44 GiB",
        f"INFO {stamp(s0 + 87)} [core.py:162] init engine (profile, create kv cache, warmup "
        "model) took 88.15 seconds",
    ]
    for i in range(2, n, 2):
        d = dtoks[i - 1] + dtoks[i]
        a = acc[i - 1] + acc[i]
        dr = drafts[i - 1] + drafts[i]
        logs.append(f"INFO {stamp(t0 + dt * i)} [loggers.py:80] Avg prompt throughput: "
                    f"{(fin[i - 1] + fin[i]) * 140 / (2 * dt):.1f} tokens/s, Avg generation "
                    f"throughput: {(gen[i - 1] + gen[i]) / (2 * dt):.1f} tokens/s, Running: "
                    f"{run[i]} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv[i] * 100:.1f}%, "
                    "Prefix cache hit rate: 21.8%")
        logs.append(f"INFO {stamp(t0 + dt * i)} [metrics.py:86] SpecDecoding metrics: Draft "
                    f"acceptance rate: {a / d * 100:.1f}%, Mean acceptance length: "
                    f"{1 + a / dr:.2f}, Accepted: {a} tokens, Drafted: {d} tokens, "
                    "Per-position acceptance rate: 0.262, 0.102, 0.047, 0.019, 0.008")
    argv = ["vllm", "serve", model, "--max-model-len", "16384", "--speculative-config",
            '{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5, '
            '"prompt_lookup_min": 2}', "--disable-log-requests"]
    args = {"model": model, "max-model-len": 16384,
            "speculative-config": '{"method": "ngram", "num_speculative_tokens": 5, '
                                  '"prompt_lookup_max": 5, "prompt_lookup_min": 2}',
            "gpu-memory-utilization": 0.9, "max-num-seqs": 256, "enable-prefix-caching": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://l40s-dev-3:8000",
        notes="VLLM_USE_V1=1. Code-generation service, 10 concurrent requests with short "
              "instructions (~140 tokens) and up to 1024 output tokens. Since n-gram "
              "speculation was switched on, each stream crawls at ~8-9 tokens/s; without it "
              "the same load streamed ~30 tokens/s per request (305 tok/s in total).",
        argv=argv, args=args, models=models_body(model, model, 16384, int(s0 + 90)),
        logs="\n".join(logs) + "\n", model_config=QWEN25_CODER_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA L40S", 48_305_799_168, 44_612_222_976,
                        [(7781, "python3", 43_929_042_944)]))


QWEN25_CODER_7B = dict(QWEN25_7B, transformers_version="4.44.0")


# =====================================================================================
# c-stream-stalls-40k-char-prompt  (vllm #7537)
# =====================================================================================
QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 32768,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}


def stream_stalls() -> None:
    cid = "c-stream-stalls-40k-char-prompt"
    rng = random.Random(7537)
    n, dt = 31, 4.0
    t0 = ts("2024-08-15 02:10:00")
    model = "Qwen2-7B-Instruct"
    docs = {4: 28_700, 13: 29_450, 22: 28_100}   # interval in which a long prefill runs
    stall = {k: v / 4_150.0 for k, v in docs.items()}   # ~7 s at ~4.15k prompt tok/s
    stall_in: dict[int, float] = {}
    stall_end: dict[int, float] = {}
    for k, v in stall.items():
        stall_in[k] = max(3.0, v - 3.6)
        stall_in[k + 1] = v - stall_in[k]
        stall_end[k + 1] = v
    run, wait, kv = [], [], []
    prompt, gen, fin, ttft, tpot, e2e_obs = [0.0], [0.0], [0], [[]], [[]], [[]]
    for i in range(n):
        r = int(round(jit(rng, 12, 0.12)))
        indoc = i in docs or (i - 1) in docs or (i - 2) in docs
        run.append(r + (1 if indoc else 0))
        wait.append(rng.choice([2, 3, 4]) if i in stall_in else 0)
        kv.append(round((r * 780 + (docs.get(i) or docs.get(i - 1) or docs.get(i - 2) or 0))
                        / 389_472, 4))
        if i == 0:
            continue
        st = stall_in.get(i, 0.0)
        arrivals = int(round(jit(rng, 1.0 * dt, 0.25)))
        prompt.append(arrivals * 600 + docs.get(i, 0))
        gen.append((dt - st) * r / 0.028)
        fin.append(arrivals)
        blocked = int(round(arrivals * st / dt))
        t_obs = spread(arrivals - blocked, [(0.07, 2), (0.11, 1)])
        p_obs = spread(gen[-1] - (r if i in stall_end else 0), [(0.026, 3), (0.031, 1)])
        if blocked:
            t_obs += spread(blocked, [(2.5, 1), (5.0, 1), (6.8, 1)])
        if i in stall_end:
            t_obs += [(stall_end[i] + 0.4, 1.0)]
            p_obs += [(stall_end[i], float(r))]
        ttft.append(t_obs)
        tpot.append(p_obs)
        e2e_obs.append(spread(arrivals, [(8.0, 1), (11.0, 2), (14.0, 1)]) +
                       ([(25.0, 1.0)] if (i - 3) in docs else []))
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:num_requests_swapped": [0.0] * n, "vllm:gpu_cache_usage_perc": kv,
                "vllm:cpu_cache_usage_perc": [0.0] * n,
                "vllm:gpu_prefix_cache_hit_rate": [-1.0] * n,
                "vllm:cpu_prefix_cache_hit_rate": [-1.0] * n,
                "vllm:avg_prompt_throughput_toks_per_s": [p / dt for p in prompt],
                "vllm:avg_generation_throughput_toks_per_s": [g / dt for g in gen]}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(4_418_000, prompt),
                  "vllm:generation_tokens": cum(1_932_500, gen)}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(5_210, fin),
                   ("vllm:request_success", "finished_reason", "length"): [61.0] * n}
    e.hists = {
        "vllm:time_to_first_token_seconds": [spread(5_283, [(0.07, 60), (0.11, 30), (2.5, 3),
                                                            (5.0, 3), (7.2, 2), (7.4, 2)])]
                                            + ttft[1:],
        "vllm:time_per_output_token_seconds": [spread(1_930_000, [(0.026, 75), (0.031, 24.9),
                                                                  (7.0, 0.1)])] + tpot[1:],
        "vllm:e2e_request_latency_seconds": [spread(5_271, [(8, 25), (11, 50), (14, 22),
                                                            (25, 3)])] + e2e_obs[1:],
        "vllm:request_prompt_tokens": hseries(n, 5_271, [(600, 97), (28_000, 3)], fin,
                                              [(450, 1), (750, 1)]),
        "vllm:request_generation_tokens": hseries(n, 5_271, [(360, 1)], fin, [(360, 1)]),
        "vllm:request_params_n": hseries(n, 5_271, [(1, 1)], fin, [(1, 1)]),
        "vllm:request_params_best_of": hseries(n, 5_271, [(1, 1)], fin, [(1, 1)]),
    }
    cap = Capture("v0-0.5", "0.5.4", model, t0, dt, n, 32768, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "num_cpu_blocks": "4681",
                              "num_gpu_blocks": "24342", "swap_space": "4"})
    s0 = t0 - 3_640
    logs = [
        f"INFO {stamp(s0)} api_server.py:339] vLLM API server version 0.5.4",
        f"INFO {stamp(s0)} api_server.py:340] args: Namespace(host='0.0.0.0', port=8000, "
        f"model='/data/models/{model}', served_model_name=['{model}'], max_model_len=32768, "
        "gpu_memory_utilization=0.9, enable_chunked_prefill=None, max_num_batched_tokens=None, "
        "max_num_seqs=256, enable_prefix_caching=False, disable_log_requests=True)",
        f"INFO {stamp(s0 + 6)} llm_engine.py:174] Initializing an LLM engine (v0.5.4) with "
        f"config: model='/data/models/{model}', speculative_config=None, "
        f"tokenizer='/data/models/{model}', dtype=torch.bfloat16, max_seq_len=32768, "
        "tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, "
        f"served_model_name={model}, use_v2_block_manager=False, enable_prefix_caching=False)",
        f"INFO {stamp(s0 + 29)} model_runner.py:732] Loading model weights took 14.2487 GB",
        f"INFO {stamp(s0 + 34)} gpu_executor.py:102] # GPU blocks: 24342, # CPU blocks: 4681",
        f"INFO {stamp(s0 + 57)} model_runner.py:1225] Graph capturing finished in 21 secs.",
    ]
    for i in range(1, n):
        if (i % 2 == 1) or i in stall_in:
            logs.append(v0_stats_line(t0 + dt * i + 0.5, "406", prompt[i] / dt, gen[i] / dt,
                                      run[i], wait[i], kv[i]))
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model",
            f"/data/models/{model}", "--served-model-name", model, "--max-model-len", "32768",
            "--host", "0.0.0.0", "--port", "8000", "--disable-log-requests"]
    args = {"model": f"/data/models/{model}", "served-model-name": model,
            "max-model-len": 32768, "gpu-memory-utilization": 0.9, "max-num-seqs": 256,
            "enable-chunked-prefill": False, "enable-prefix-caching": False, "block-size": 16}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://10.8.0.23:8000",
        notes="Chinese-language assistant, ~12 concurrent streaming chats. Users report that "
              "streaming output freezes for 6-9 seconds in the middle of an answer (several "
              "tokens already shown), then continues; it coincides with someone submitting a "
              "long document of 40,000+ Chinese characters.",
        argv=argv, args=args,
        models=models_body(model, f"/data/models/{model}", 32768, int(s0 + 60)),
        logs="\n".join(logs) + "\n", model_config=QWEN2_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA L20", 48_305_799_168, 43_981_471_744,
                        [(3317, "python", 43_414_192_128)]))


# =====================================================================================
# c-kv-admission-long-outputs-4090  (stackbytes blog)
# =====================================================================================
def kv_admission_4090() -> None:
    cid = "c-kv-admission-long-outputs-4090"
    rng = random.Random(4090)
    n, dt = 25, 5.0
    t0 = ts("2025-09-15 12:00:00")
    model = "Qwen/Qwen2.5-7B-Instruct"
    run = [rng.choice([4, 4, 5, 5, 5, 6]) for _ in range(n)]
    wait = [int(round(61 + 3.8 * i + rng.uniform(-1, 1))) for i in range(n)]
    kv = [round(min(1.0, jit(rng, 0.975, 0.025)), 4) for _ in range(n)]
    fin = [0] + [rng.choice([1, 1, 1, 2]) for _ in range(n - 1)]
    pre = [0] + [rng.choice([0, 0, 1, 1, 2]) for _ in range(n - 1)]
    recomp = [pre[i] * jit(rng, 700, 0.3) for i in range(n)]
    newp = [f * 200 for f in fin]
    prompt = [newp[i] + recomp[i] for i in range(n)]
    gen = [0] + [run[i] * dt / 0.018 * jit(rng, 0.97, 0.02) for i in range(1, n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv, "vllm:gpu_cache_usage_perc": kv}
    q = cum(240_310, prompt)
    hit = cum(51_800, [r * 0.45 for r in recomp])
    e.counters = {"vllm:num_preemptions": cum(118, pre),
                  "vllm:prompt_tokens": q, "vllm:generation_tokens": cum(1_081_000, gen),
                  "vllm:prefix_cache_queries": q, "vllm:prefix_cache_hits": hit,
                  "vllm:gpu_prefix_cache_queries": q, "vllm:gpu_prefix_cache_hits": hit}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(1_049, fin),
                   ("vllm:request_success", "finished_reason", "stop"): [0.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    ttft = [(118, 1), (135, 2), (150, 2), (168, 1)]
    tpot = [(0.0178, 80), (0.019, 17), (0.045, 3)]
    e.hists = {
        "vllm:time_to_first_token_seconds": hseries(
            n, 1_054, [(0.19, 300), (3.1, 250), (49.9, 250), (144, 254)], fin, ttft),
        "vllm:request_queue_time_seconds": hseries(
            n, 1_054, [(0.15, 300), (3.0, 250), (49.8, 250), (143.9, 254)], fin,
            [(v - 0.05, w) for v, w in ttft]),
        "vllm:time_per_output_token_seconds": hseries(n, 1_075_000, tpot, gen, tpot),
        "vllm:e2e_request_latency_seconds": hseries(
            n, 1_049, [(2.5, 300), (7.8, 250), (59.0, 250), (162.0, 249)], fin,
            [(v + 18.4, w) for v, w in ttft]),
        "vllm:request_prompt_tokens": hseries(n, 1_049, [(200, 1)], fin, [(200, 1)]),
        "vllm:request_generation_tokens": hseries(
            n, 1_049, [(128, 300), (256, 250), (512, 250), (1024, 249)], fin, [(1024, 1)]),
        "vllm:request_params_max_tokens": hseries(
            n, 1_049, [(128, 300), (256, 250), (512, 250), (1024, 249)], fin, [(1024, 1)]),
        "vllm:request_params_n": hseries(n, 1_049, [(1, 1)], fin, [(1, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 60_000, [(5, 97), (700, 3)],
                                               [0] + [277] * (n - 1), [(5, 98), (700, 2)]),
    }
    cap = Capture("0.10.0", "0.10.1.1", model, t0, dt, n, 4096, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "True",
                              "gpu_memory_utilization": "0.66", "num_gpu_blocks": "490",
                              "calculate_kv_scales": "False", "is_attention_free": "False",
                              "prefix_caching_hash_algo": "builtin", "swap_space": "4",
                              "cpu_offload_gb": "0"},
                  created_at=t0 - 4_410.0)
    s0 = t0 - 4_410.0
    api = "(APIServer pid=88) "
    ec = "(EngineCore_0 pid=241) "
    logs = [
        f"{api}INFO {stamp(s0)} [api_server.py:1805] vLLM API server version 0.10.1.1",
        f"{api}INFO {stamp(s0)} [utils.py:326] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'max_model_len': 4096, 'gpu_memory_utilization': 0.66}}",
        f"{ec}INFO {stamp(s0 + 31)} [gpu_model_runner.py:1953] Model loading took 14.2488 GiB "
        "and 5.02 seconds",
        f"{ec}INFO {stamp(s0 + 44)} [gpu_worker.py:276] Available KV cache memory: 0.42 GiB",
        f"{ec}INFO {stamp(s0 + 44)} [kv_cache_utils.py:849] GPU KV cache size: 7,840 tokens",
        f"{ec}INFO {stamp(s0 + 44)} [kv_cache_utils.py:853] Maximum concurrency for 4,096 "
        "tokens per request: 1.91x",
        f"{api}INFO {stamp(s0 + 63)} [api_server.py:1880] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        qq = prompt[i - 1] + prompt[i]
        hh = (recomp[i - 1] + recomp[i]) * 0.45
        logs.append(v1_stats_line(t0 + dt * i, api, "loggers.py:123", qq / (2 * dt),
                                  (gen[i - 1] + gen[i]) / (2 * dt), run[i], wait[i], kv[i],
                                  hh / qq if qq else 0.0))
    argv = ["vllm", "serve", model, "--max-model-len", "4096", "--gpu-memory-utilization",
            "0.66"]
    args = {"model": model, "max-model-len": 4096, "gpu-memory-utilization": 0.66,
            "max-num-seqs": 256, "max-num-batched-tokens": 2048, "enable-prefix-caching": True,
            "block-size": 16}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://localhost:8000",
        notes="RTX 4090 test box. Same offered request rate as before, but the app now asks "
              "for 1024 output tokens per request instead of 128: time to first token went "
              "from ~0.2 s to minutes (mean 144 s in the last benchmark) while time per output "
              "token stayed ~18 ms; achieved 0.24 req/s.",
        argv=argv, args=args, models=models_body(model, model, 4096, int(s0 + 63)),
        logs="\n".join(logs) + "\n", model_config=QWEN25_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA GeForce RTX 4090", 25_757_220_864, 17_410_555_904,
                        [(241, "VLLM::EngineCore", 16_424_894_464)]))


# =====================================================================================
# c-compute-queueing-prefill-saturation  (llm-d/llm-d-autoscaling #662)
# =====================================================================================
def compute_queueing() -> None:
    cid = "c-compute-queueing-prefill-saturation"
    rng = random.Random(662)
    n, dt = 31, 4.0
    t0 = ts("2026-01-28 10:00:00")
    model = "meta-llama/Llama-3.1-8B-Instruct"
    arr = [0] + [int(round(jit(rng, 8.0 * dt, 0.1))) for _ in range(n - 1)]
    served = [0] + [int(round(jit(rng, 4.9 * dt, 0.06))) for _ in range(n - 1)]
    wait = [312]
    for i in range(1, n):
        wait.append(wait[-1] + arr[i] - served[i])
    run = [int(round(jit(rng, 20, 0.1))) for _ in range(n)]
    kv = [round(jit(rng, 0.318, 0.04), 4) for _ in range(n)]
    prompt = [s * 6000 for s in served]
    gen = [s * 2 for s in served]
    ttft = []
    for i in range(n):
        q = wait[i] / 4.9
        ttft.append([(q * 0.9 + 2.3, 1), (q + 2.3, 2), (q * 1.1 + 2.3, 1)])
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(14_322_000, prompt),
                  "vllm:generation_tokens": cum(4_774, gen),
                  "vllm:prefix_cache_queries": cum(14_322_000, prompt),
                  "vllm:prefix_cache_hits": cum(2_112, [s * 0.5 for s in served]),
                  "vllm:prompt_tokens_cached": cum(2_112, [s * 0.5 for s in served]),
                  "vllm:external_prefix_cache_queries": [0.0] * n,
                  "vllm:external_prefix_cache_hits": [0.0] * n}
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(2_387, served),
                   ("vllm:request_success", "finished_reason", "stop"): [0.0] * n,
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    e.hists = {
        "vllm:time_to_first_token_seconds": hmix(
            n, 2_387, [(4.0, 20), (18.0, 30), (40.0, 30), (60.0, 20)],
            [(0, None)] + [(served[i], ttft[i]) for i in range(1, n)]),
        "vllm:request_queue_time_seconds": hmix(
            n, 2_387, [(1.8, 20), (15.7, 30), (37.7, 30), (57.7, 20)],
            [(0, None)] + [(served[i], [(v - 2.3, w) for v, w in ttft[i]])
                           for i in range(1, n)]),
        "vllm:inter_token_latency_seconds": hseries(n, 2_387, [(2.2, 1)], served, [(2.2, 1)]),
        "vllm:e2e_request_latency_seconds": hmix(
            n, 2_387, [(6.2, 20), (20.2, 30), (42.2, 30), (62.2, 20)],
            [(0, None)] + [(served[i], [(v + 2.2, w) for v, w in ttft[i]])
                           for i in range(1, n)]),
        "vllm:request_prefill_time_seconds": hseries(n, 2_387, [(2.2, 1), (4.4, 1)], served,
                                                     [(2.2, 1), (4.4, 1)]),
        "vllm:request_decode_time_seconds": hseries(n, 2_387, [(2.2, 1)], served, [(2.2, 1)]),
        "vllm:request_inference_time_seconds": hseries(n, 2_387, [(4.4, 1), (6.6, 1)], served,
                                                       [(4.4, 1), (6.6, 1)]),
        "vllm:request_prompt_tokens": hseries(n, 2_387, [(6000, 1)], served, [(6000, 1)]),
        "vllm:request_generation_tokens": hseries(n, 2_387, [(2, 1)], served, [(2, 1)]),
        "vllm:request_params_max_tokens": hseries(n, 2_387, [(2, 1)], served, [(2, 1)]),
        "vllm:request_params_n": hseries(n, 2_387, [(1, 1)], served, [(1, 1)]),
        "vllm:request_time_per_output_token_seconds": hseries(n, 2_387, [(2.2, 1)], served,
                                                              [(2.2, 1)]),
        "vllm:request_prefill_kv_computed_tokens": hseries(n, 2_387, [(6000, 1)], served,
                                                           [(6000, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 1_090, [(65000, 1)], [0] + [2] * (n - 1),
                                               [(65000, 1)]),
    }
    cap = Capture("0.12.0", "0.14.0", model, t0, dt, n, 131072, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "num_gpu_blocks": "25088", "calculate_kv_scales": "False",
                              "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
                              "kv_sharing_fast_prefill": "False",
                              "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto"},
                  created_at=t0 - 612.0)
    s0 = t0 - 612.0
    api = "(APIServer pid=1) "
    ec = "(EngineCore_DP0 pid=274) "
    logs = [
        f"{api}INFO {stamp(s0)} [utils.py:253] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'max_num_batched_tokens': 65000}}",
        f"{ec}INFO {stamp(s0 + 61)} [gpu_worker.py:359] Available KV cache memory: 49.00 GiB",
        f"{ec}INFO {stamp(s0 + 61)} [kv_cache_utils.py:1087] GPU KV cache size: 401,408 tokens",
        f"{ec}INFO {stamp(s0 + 61)} [kv_cache_utils.py:1091] Maximum concurrency for 131,072 "
        "tokens per request: 3.06x",
        f"{api}INFO {stamp(s0 + 98)} [api_server.py:1351] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        logs.append(v1_stats_line(t0 + dt * i, api, "loggers.py:236",
                                  (prompt[i - 1] + prompt[i]) / (2 * dt),
                                  (gen[i - 1] + gen[i]) / (2 * dt), run[i], wait[i], kv[i],
                                  0.0))
    argv = ["vllm", "serve", model, "--max-num-batched-tokens", "65000"]
    args = {"model": model, "max-num-batched-tokens": 65000, "max-model-len": 131072,
            "max-num-seqs": 1024, "gpu-memory-utilization": 0.9, "enable-prefix-caching": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://vllm-decode-0.llm-d.svc:8000",
        notes="Prefill-heavy load test for the autoscaler: 8 requests/s, 6000 input tokens and "
              "2 output tokens each. The KV-cache-based saturation signal never fires, yet "
              "clients see time to first token growing minute after minute.",
        argv=argv, args=args, models=models_body(model, model, 131072, int(s0 + 98)),
        logs="\n".join(logs) + "\n", model_config=LLAMA31_8B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA H100 80GB HBM3", 85_520_809_984, 78_700_000_000,
                        [(274, "VLLM::EngineCore", 77_638_000_000)]))


REGISTRY = {
    "c-watermark-off-recompute-thrash": watermark_off,
    "c-v0-recompute-warnings-limo32b": limo_v0,
    "c-v1-preempt-storm-fake-prefix-hits": fake_prefix_hits,
    "c-pp2-halved-pool-75k-prompt": pp_halved,
    "c-mi300x-fp8-kv-garbage-minimax-m3": mi300x_fp8,
    "c-nvfp4-kv-sm120-vscale-garbled": nvfp4_sm120,
    "c-long-prompt-hol-short-chats": hol_short_chats,
    "c-long-context-decode-itl-batch90": long_ctx_decode,
    "c-prefill-interference-dsr1-dp8": prefill_interference_dp8,
    "c-ngram-spec-low-acceptance-coder7b": ngram_low_accept,
    "c-stream-stalls-40k-char-prompt": stream_stalls,
    "c-kv-admission-long-outputs-4090": kv_admission_4090,
    "c-compute-queueing-prefill-saturation": compute_queueing,
}

if __name__ == "__main__":
    names = sys.argv[1:] or list(REGISTRY)
    for nm in names:
        REGISTRY[nm]()
        print("wrote", nm)
