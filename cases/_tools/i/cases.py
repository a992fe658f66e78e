#!/usr/bin/env python3
"""Scenario numbers for the i- cases; writes cases/<id>/bundle/.

    PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/i/cases.py [case-id ...]

Every number is either quoted from the case's source (its case.yaml ``quoted``) or an
assumption listed under ``assumed``. Formats come from bundlegen.py (copied from writer c).
Deterministic: seeded RNGs and fixed timestamps, no wall clock.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundlegen import ROOT, Capture, Engine, cum, models_body, write_bundle  # noqa: E402
from common import gpu_samples, hseries, jit, stamp, ts, v1_stats_line  # noqa: E402

CASES = ROOT / "cases"
GiB = 1024 ** 3

QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 32768,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}


def hist_from_obs(n: int, per_interval: list[list[float]]) -> list:
    """Histogram increments from raw observations per interval (index 0 = before capture)."""
    out = []
    for i in range(n):
        d: dict[float, float] = {}
        for v in per_interval[i]:
            d[v] = d.get(v, 0.0) + 1.0
        out.append(sorted(d.items()))
    return out


# =====================================================================================
# i-v1-nopc-long-context-preempt-loop  (vllm #18115 comment + PR #21809)
# =====================================================================================
def nopc_preempt_loop() -> None:
    cid = "i-v1-nopc-long-context-preempt-loop"
    rng = random.Random(18115)
    model = "Qwen/Qwen2.5-7B-Instruct"
    pool = 655_360
    block = 16
    mnbt = 8192
    t_q0 = ts("2025-07-28 06:40:59")  # first quoted stats line
    t0 = ts("2025-07-28 06:41:00")
    dt, n = 5.0, 85
    t_end = t0 + dt * (n - 1)
    # eight long-context requests, all decoding at t_q0 (91.2 % of the pool)
    prompts = [68_911, 71_402, 69_870, 70_533, 69_218, 70_961, 69_645, 69_460]
    assert sum(prompts) == 560_000
    target = int(0.912 * pool)
    gen0 = [(target - sum(prompts)) // 8 + (1 if i < (target - sum(prompts)) % 8 else 0)
            for i in range(8)]
    ctx = [prompts[i] + gen0[i] for i in range(8)]

    def blocks_of(c: float) -> int:
        return math.ceil(c / block)

    # step simulation from a little before the first quoted line to the end of the capture
    t = t_q0 - 12.0
    # back off the contexts by 12 s of decoding at ~240 tok/s (30 tok/s each)
    step_a = 0.03338  # 8 tokens per step -> 239.7 tok/s
    back = int(round(12.0 / step_a))
    ctx = [c - back for c in ctx]
    gen_total = sum(ctx) - sum(prompts)
    x = 7  # the last-admitted request: the preemption victim
    x_computed = ctx[x]  # tokens of x resident in the pool
    recomputing = False
    preempts = 0
    events = []  # (t, step_time, gen_tokens, iter_tokens)
    samples = []  # (t, usage, running, waiting)
    full_seen = None
    while t < t_end + 1.0:
        if not recomputing:
            others = sum(ctx[i] for i in range(8) if i != x)
            need = sum(blocks_of(ctx[i] + 1) for i in range(8))
            if need > pool // block:
                # the pool is full: the scheduler preempts the last request in the running list
                preempts += 1
                events.append((t, 0.0, 0, 0, "preempt"))
                recomputing = True
                x_computed = 0
                full_seen = full_seen or t
                continue
            st = step_a * (1.0 + 0.004 * math.sin(t / 7.0))
            for i in range(8):
                ctx[i] += 1
            x_computed = ctx[x]
            gen_total += 8
            events.append((t, st, 8, 8, "decode"))
            t += st
        else:
            # x re-admitted on its next chunk; the 7 others decode one token each per step
            chunk = min(mnbt - 7, ctx[x] - x_computed)
            need = sum(blocks_of(ctx[i] + 1) for i in range(8) if i != x) + blocks_of(
                x_computed + chunk)
            if need > pool // block:
                preempts += 1
                events.append((t, 0.0, 0, 0, "preempt"))
                x_computed = 0
                continue
            st = 0.045 + chunk * 5.0e-5 * (1.0 + 0.01 * math.sin(t))
            for i in range(8):
                if i != x:
                    ctx[i] += 1
            x_computed += chunk
            gen_total += 7
            events.append((t, st, 7, chunk + 7, "mixed"))
            t += st
            if x_computed >= ctx[x]:
                # never reached in practice: the pool fills before x's context is back
                recomputing = False
        used = sum(blocks_of(ctx[i]) for i in range(8) if i != x) + blocks_of(x_computed)
        samples.append((t, used / (pool // block)))

    def state_at(tq: float):
        u = 0.0
        for ts_, uu in samples:
            if ts_ > tq:
                break
            u = uu
        return u

    scr = [t0 + dt * i for i in range(n)]
    gen_c, pre_c, kv, run, wait = [], [], [], [], []
    itl_per: list[list[float]] = [[] for _ in range(n)]
    iter_per: list[list[float]] = [[] for _ in range(n)]
    g = gen_total - sum(e[2] for e in events)  # generated before the simulation started
    p = 0
    k = 0
    for i, tq in enumerate(scr):
        while k < len(events) and events[k][0] < tq:
            e = events[k]
            g += e[2]
            if e[4] == "preempt":
                p += 1
            elif i > 0:
                iter_per[i].append(float(e[3]))
                itl_per[i].extend([round(e[1], 3)] * e[2])
            k += 1
        gen_c.append(float(g))
        pre_c.append(float(p))
        u = min(1.0, round(state_at(tq), 4))
        kv.append(u)
        # the victim sits in the waiting queue only between its preemption and the next step
        last = events[k - 1] if k else None
        w = 1 if (last is not None and last[4] == "preempt" and tq - last[0] < 0.05) else 0
        run.append(8 - w)
        wait.append(w)
    # prior observations (before the capture): 8 TTFTs of the burst, ~4.9k decode steps
    ttft0 = [(7.4, 1), (14.6, 1), (21.9, 1), (29.3, 1), (36.2, 1), (43.8, 1), (50.9, 1),
             (58.1, 1)]
    prior_steps = (sum(gen0) - back * 8) // 8
    itl_hist = [[(0.0334, float(prior_steps * 8))]] + [
        sorted({v: float(itl_per[i].count(v)) for v in set(itl_per[i])}.items())
        for i in range(1, n)]
    iter_hist = [[(8.0, float(prior_steps)), (8192.0, 69.0)]] + [
        sorted({v: float(iter_per[i].count(v)) for v in set(iter_per[i])}.items())
        for i in range(1, n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:kv_cache_usage_perc": kv, "vllm:gpu_cache_usage_perc": kv}
    e.counters = {"vllm:num_preemptions": pre_c,
                  "vllm:prompt_tokens": [float(sum(prompts))] * n,
                  "vllm:generation_tokens": gen_c,
                  "vllm:prefix_cache_queries": [0.0] * n, "vllm:prefix_cache_hits": [0.0] * n,
                  "vllm:gpu_prefix_cache_queries": [0.0] * n,
                  "vllm:gpu_prefix_cache_hits": [0.0] * n}
    e.lcounters = {("vllm:request_success", "finished_reason", r): [0.0] * n
                   for r in ("stop", "length", "abort")}
    e.hists = {
        "vllm:time_to_first_token_seconds": [ttft0] + [[] for _ in range(1, n)],
        "vllm:time_per_output_token_seconds": itl_hist,
        "vllm:iteration_tokens_total": iter_hist,
        "vllm:e2e_request_latency_seconds": [[] for _ in range(n)],
        "vllm:request_queue_time_seconds": [[] for _ in range(n)],
        "vllm:request_prefill_time_seconds": [[] for _ in range(n)],
        "vllm:request_decode_time_seconds": [[] for _ in range(n)],
        "vllm:request_inference_time_seconds": [[] for _ in range(n)],
        "vllm:request_prompt_tokens": [[] for _ in range(n)],
        "vllm:request_generation_tokens": [[] for _ in range(n)],
        "vllm:request_params_max_tokens": [[] for _ in range(n)],
        "vllm:request_max_num_generation_tokens": [[] for _ in range(n)],
        "vllm:request_params_n": [[] for _ in range(n)],
    }
    s0 = ts("2025-07-28 06:31:12")
    cap = Capture("0.10.0", "0.10.0", model, t0, dt, n, 131072, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto",
                              "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.65", "is_attention_free": "False",
                              "num_gpu_blocks": str(pool // block),
                              "num_gpu_blocks_override": "None",
                              "prefix_caching_hash_algo": "builtin", "sliding_window": "None",
                              "swap_space": "4"},
                  created_at=s0 + 96.0)
    nondefault = ("{'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 131072, "
                  "'gpu_memory_utilization': 0.65, 'enable_prefix_caching': False}")
    logs = [
        f"INFO {stamp(s0)} [__init__.py:235] Automatically detected platform cuda.",
        f"INFO {stamp(s0 + 3)} [api_server.py:1755] vLLM API server version 0.10.0",
        f"INFO {stamp(s0 + 3)} [cli_args.py:261] non-default args: {nondefault}",
        f"INFO {stamp(s0 + 11)} [config.py:1604] Using max model len 131072",
        f"INFO {stamp(s0 + 11)} [config.py:2434] Chunked prefill is enabled with "
        f"max_num_batched_tokens={mnbt}.",
        f"INFO {stamp(s0 + 19)} [core.py:572] Waiting for init message from front-end.",
        f"INFO {stamp(s0 + 19)} [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: "
        f"model='{model}', speculative_config=None, tokenizer='{model}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={}, "
        "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
        "max_seq_len=131072, download_dir=None, load_format=auto, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
        f"served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, "
        "enable_prefix_caching=False, chunked_prefill_enabled=True, use_async_output_proc=True",
        f"INFO {stamp(s0 + 27)} [gpu_model_runner.py:1843] Starting to load model {model}...",
        f"INFO {stamp(s0 + 41)} [gpu_model_runner.py:1875] Model loading took 14.2487 GiB and "
        "12.884511 seconds",
        f"INFO {stamp(s0 + 63)} [gpu_worker.py:255] Available KV cache memory: 35.00 GiB",
        f"INFO {stamp(s0 + 63)} [kv_cache_utils.py:833] GPU KV cache size: 655,360 tokens",
        f"INFO {stamp(s0 + 63)} [kv_cache_utils.py:837] Maximum concurrency for 131,072 tokens "
        "per request: 5.00x",
        f"INFO {stamp(s0 + 89)} [gpu_model_runner.py:2485] Graph capturing finished in 25 secs, "
        "took 0.52 GiB",
        f"INFO {stamp(s0 + 90)} [core.py:193] init engine (profile, create kv cache, warmup "
        "model) took 63.41 seconds",
        f"INFO {stamp(s0 + 96)} [api_server.py:1818] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    quoted = [
        "INFO 07-28 06:40:59 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV "
        "cache usage: 91.2%, Prefix cache hit rate: 0.0%",
        "INFO 07-28 06:41:09 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV "
        "cache usage: 91.6%, Prefix cache hit rate: 0.0%",
        "INFO 07-28 06:41:19 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 240.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV "
        "cache usage: 91.9%, Prefix cache hit rate: 0.0%",
    ]
    logs += quoted
    tl = t_q0 + 30.0
    while tl <= t_end:
        gsum = sum(ev[2] for ev in events if tl - 10.0 <= ev[0] < tl)
        u = state_at(tl)
        logs.append(v1_stats_line(tl, "", "loggers.py:118", 0.0, gsum / 10.0, 8, 0, u, 0.0))
        tl += 10.0
    argv = ["vllm", "serve", model, "--max-model-len", "131072", "--gpu-memory-utilization",
            "0.65", "--no-enable-prefix-caching"]
    args = {"model": model, "max-model-len": 131072, "gpu-memory-utilization": 0.65,
            "enable-prefix-caching": False, "max-num-batched-tokens": mnbt,
            "max-num-seqs": 256, "tensor-parallel-size": 1, "block-size": 16}
    cfg = dict(QWEN25_7B, rope_scaling={"factor": 4.0, "original_max_position_embeddings": 32768,
                                        "type": "yarn"})
    used = int(0.65 * 85_520_809_984) + 520 * 1024 ** 2
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://127.0.0.1:8000",
        notes="Preemption test on a single H100: 8 long-context requests (~70k-token prompts, "
              "up to 16k new tokens) sent at once to a V1 server started with prefix caching "
              "off and 0.65 GPU memory utilization. Streams ran at ~30 tok/s each until the KV "
              "cache filled up; since then generation has almost stopped.",
        argv=argv, args=args, models=models_body(model, model, 131072, int(s0 + 96)),
        logs="\n".join(logs) + "\n", model_config=cfg,
        gpu=gpu_samples(t0, dt, n, "NVIDIA H100 80GB HBM3", 85_520_809_984, used,
                        [(24113, "VLLM::EngineCore", used - 530 * 1024 ** 2)]))
    print(f"  full at {stamp(full_seen) if full_seen else None}, preemptions {pre_c[-1]:.0f}, "
          f"gen/5s last {gen_c[-1] - gen_c[-2]:.0f}, kv last {kv[-5:]}")


# =====================================================================================
# i-fp8-kv-qwen25-math-question-marks  (verl PR #4435, comment of 2026-03-29)
# =====================================================================================
QWEN25_MATH_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 4096,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 10000, "sliding_window": 4096, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.37.0", "use_cache": True,
    "use_mrope": False, "use_sliding_window": False, "vocab_size": 152064}


def fp8_qwen25_math() -> None:
    cid = "i-fp8-kv-qwen25-math-question-marks"
    rng = random.Random(4435)
    model = "Qwen/Qwen2.5-Math-7B"
    n, dt = 61, 5.0
    t0 = ts("2026-03-29 07:12:00")
    blocks = 126_387
    inflight = 64
    itl = 0.0141
    fin = [0] + [int(round(jit(rng, 7.9, 0.35))) for _ in range(n - 1)]
    n_len = [0] + [sum(1 for _ in range(f) if rng.random() < 0.92) for f in fin[1:]]
    n_stop = [fin[i] - n_len[i] for i in range(n)]
    plen = [0] + [f * int(jit(rng, 300, 0.12)) for f in fin[1:]]
    gen = [0] + [jit(rng, inflight * dt / itl, 0.015) for _ in range(n - 1)]
    run = [inflight - rng.choice([0, 0, 0, 1]) for _ in range(n)]
    kv = [round(jit(rng, 0.0565, 0.06), 4) for _ in range(n)]
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": [0.0] * n,
                "vllm:kv_cache_usage_perc": kv}
    done0 = 1_883
    e.counters = {
        "vllm:num_preemptions": [0.0] * n,
        "vllm:prompt_tokens": cum(566_950, plen),
        "vllm:generation_tokens": cum(5_412_780, gen),
        "vllm:prefix_cache_queries": cum(566_950, plen),
        "vllm:prefix_cache_hits": cum(180_768, [f * 96 for f in fin]),
    }
    e.lcounters = {("vllm:request_success", "finished_reason", "length"): cum(1_731, n_len),
                   ("vllm:request_success", "finished_reason", "stop"): cum(152, n_stop),
                   ("vllm:request_success", "finished_reason", "abort"): [0.0] * n}
    ttft = [(0.09, 30), (0.14, 40), (0.22, 22), (0.31, 8)]
    itl_sh = [(0.0136, 35), (0.0141, 45), (0.0152, 15), (0.019, 5)]
    genh = [(3072, 92), (480, 3), (560, 3), (690, 2)]
    e2e = [(43.6, 92), (7.0, 3), (8.1, 3), (9.9, 2)]
    ptok = [(190, 15), (260, 35), (330, 35), (410, 15)]
    e.hists = {
        "vllm:time_to_first_token_seconds": hseries(n, done0 + inflight, ttft, fin, ttft),
        "vllm:inter_token_latency_seconds": hseries(n, 5_410_000, itl_sh, gen, itl_sh),
        "vllm:time_per_output_token_seconds": hseries(n, 5_410_000, itl_sh, gen, itl_sh),
        "vllm:request_time_per_output_token_seconds": hseries(
            n, done0, [(0.0139, 1), (0.0143, 2), (0.0148, 1)], fin,
            [(0.0139, 1), (0.0143, 2), (0.0148, 1)]),
        "vllm:e2e_request_latency_seconds": hseries(n, done0, e2e, fin, e2e),
        "vllm:request_queue_time_seconds": hseries(n, done0, [(0.002, 3), (0.006, 1)], fin,
                                                   [(0.002, 3), (0.006, 1)]),
        "vllm:request_prefill_time_seconds": hseries(n, done0, [(0.05, 2), (0.11, 1)], fin,
                                                     [(0.05, 2), (0.11, 1)]),
        "vllm:request_decode_time_seconds": hseries(n, done0, [(v - 0.1, w) for v, w in e2e],
                                                    fin, [(v - 0.1, w) for v, w in e2e]),
        "vllm:request_inference_time_seconds": hseries(
            n, done0, [(v - 0.02, w) for v, w in e2e], fin, [(v - 0.02, w) for v, w in e2e]),
        "vllm:request_prompt_tokens": hseries(n, done0, ptok, fin, ptok),
        "vllm:request_generation_tokens": hseries(n, done0, genh, fin, genh),
        "vllm:request_params_max_tokens": hseries(n, done0, [(3072, 1)], fin, [(3072, 1)]),
        "vllm:request_max_num_generation_tokens": hseries(n, done0, [(3072, 1)], fin,
                                                          [(3072, 1)]),
        "vllm:request_params_n": hseries(n, done0, [(1, 1)], fin, [(1, 1)]),
        "vllm:iteration_tokens_total": hseries(
            n, 85_400, [(64, 97), (300, 3)], [0] + [dt / itl] * (n - 1), [(64, 97), (300, 3)]),
    }
    s0 = t0 - 1_964.0
    cap = Capture("0.11.0", "0.11.2", model, t0, dt, n, 4096, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "fp8",
                              "calculate_kv_scales": "True", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "is_attention_free": "False", "kv_sharing_fast_prefill": "False",
                              "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto",
                              "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
                              "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
                              "swap_space": "4"},
                  created_at=s0 + 74.0)
    api, ec = "(APIServer pid=1) ", "(EngineCore_DP0 pid=207) "
    logs = [
        f"{api}INFO {stamp(s0)} [api_server.py:1839] vLLM API server version 0.11.2",
        f"{api}INFO {stamp(s0)} [utils.py:233] non-default args: {{'model_tag': '{model}', "
        f"'host': '0.0.0.0', 'model': '{model}', 'max_model_len': 4096, "
        "'kv_cache_dtype': 'fp8', 'calculate_kv_scales': True}",
        f"{api}INFO {stamp(s0 + 6)} [model.py:547] Resolved architecture: Qwen2ForCausalLM",
        f"{api}INFO {stamp(s0 + 6)} [model.py:1510] Using max model len 4096",
        f"{api}INFO {stamp(s0 + 6)} [cache.py:180] Using fp8 data type to store kv cache. It "
        "reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause "
        "accuracy drop without a proper scaling factor.",
        f"{api}INFO {stamp(s0 + 6)} [scheduler.py:205] Chunked prefill is enabled with "
        "max_num_batched_tokens=8192.",
        f"{ec}INFO {stamp(s0 + 14)} [core.py:77] Initializing a V1 LLM engine (v0.11.2) with "
        f"config: model='{model}', speculative_config=None, tokenizer='{model}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
        "max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, "
        "quantization=None, enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, "
        f"seed=0, served_model_name={model}, enable_prefix_caching=True, "
        "chunked_prefill_enabled=True",
        f"{ec}INFO {stamp(s0 + 22)} [gpu_model_runner.py:2602] Starting to load model "
        f"{model}...",
        f"{ec}INFO {stamp(s0 + 24)} [cuda.py:403] Using Flash Attention backend on V1 engine.",
        f"{ec}INFO {stamp(s0 + 31)} [gpu_model_runner.py:2653] Model loading took 14.2487 GiB "
        "and 7.204117 seconds",
        f"{ec}INFO {stamp(s0 + 49)} [gpu_worker.py:298] Available KV cache memory: 54.00 GiB",
        f"{ec}INFO {stamp(s0 + 49)} [kv_cache_utils.py:864] GPU KV cache size: "
        f"{blocks * 16:,} tokens",
        f"{ec}INFO {stamp(s0 + 49)} [kv_cache_utils.py:868] Maximum concurrency for 4,096 "
        f"tokens per request: {blocks * 16 / 4096:.2f}x",
        f"{ec}INFO {stamp(s0 + 71)} [gpu_model_runner.py:3480] Graph capturing finished in 22 "
        "secs, took 0.48 GiB",
        f"{ec}INFO {stamp(s0 + 72)} [core.py:210] init engine (profile, create kv cache, warmup "
        "model) took 40.93 seconds",
        f"{api}INFO {stamp(s0 + 74)} [api_server.py:1912] Starting vLLM API server 0 on "
        "http://0.0.0.0:8000",
    ]
    for i in range(2, n, 2):
        logs.append(v1_stats_line(t0 + dt * i, api, "loggers.py:207",
                                  (plen[i - 1] + plen[i]) / (2 * dt),
                                  (gen[i - 1] + gen[i]) / (2 * dt), run[i], 0, kv[i],
                                  96 / 300))
    argv = ["vllm", "serve", model, "--host", "0.0.0.0", "--max-model-len", "4096",
            "--kv-cache-dtype", "fp8", "--calculate-kv-scales"]
    args = {"model": model, "max-model-len": 4096, "kv-cache-dtype": "fp8",
            "calculate-kv-scales": True, "gpu-memory-utilization": 0.9, "max-num-seqs": 256,
            "enable-prefix-caching": True, "tensor-parallel-size": 1,
            "max-num-batched-tokens": 8192}
    used = 77_804_650_496
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://qwen25-math-val.rl.svc:8000",
        notes="Validation endpoint of the GRPO run (MATH, temperature 1.0, max_tokens 3072), "
              "started with the rollout's FP8 KV-cache settings. Since then the answers are "
              "garbage such as '????////' and MATH accuracy is around 0; the same weights and "
              "prompts score normally with --kv-cache-dtype auto, and Qwen3-8B-Base with the "
              "same flags is fine. Latency looks normal. /metrics every 5 s for 5 min.",
        argv=argv, args=args, models=models_body(model, model, 4096, int(s0 + 74)),
        logs="\n".join(logs) + "\n", model_config=QWEN25_MATH_7B,
        gpu=gpu_samples(t0, dt, n, "NVIDIA H100 80GB HBM3", 85_520_809_984, used,
                        [(207, "VLLM::EngineCore", used - 560 * 1024 ** 2)]))


# =====================================================================================
# i-qwen2-72b-int4-4x4090-prefill-queue  (vllm #9722)
# =====================================================================================
QWEN2_72B_GPTQ = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192,
    "initializer_range": 0.02, "intermediate_size": 29568, "max_position_embeddings": 32768,
    "max_window_layers": 80, "model_type": "qwen2", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.41.2", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064,
    "quantization_config": {"batch_size": 1, "bits": 4, "block_name_to_quantize": None,
                            "cache_block_outputs": True, "damp_percent": 0.01,
                            "dataset": None, "desc_act": False, "exllama_config": {"version": 1},
                            "group_size": 128, "max_input_length": None,
                            "model_seqlen": None, "module_name_preceding_first_block": None,
                            "modules_in_block_to_quantize": None, "pad_token_id": None,
                            "quant_method": "gptq", "sym": True, "tokenizer": None,
                            "true_sequential": True, "use_cuda_fp16": False,
                            "use_exllama": True}}


def v0_prefill_first(reqs: list[dict], clients: int, t_start: float, budget: int,
                     pre_a: float, pre_b: float, dec: float, min_batch: int = 1):
    """Closed-loop clients against a V0 prefill-first scheduler (chunked prefill off).
    Returns per-step records and fills each request's timestamps."""
    queue = list(reqs)
    waiting: list[dict] = []
    running: list[dict] = []
    t = t_start
    for _ in range(clients):
        r = queue.pop(0)
        r["arr"] = t
        waiting.append(r)
    steps = []
    while waiting or running or queue:
        if waiting and (len(waiting) >= min_batch or not running or not queue):
            batch, tok = [], 0
            while waiting and tok + waiting[0]["p"] <= budget:
                r = waiting.pop(0)
                batch.append(r)
                tok += r["p"]
            st = pre_a + tok * pre_b
            t_end = t + st
            for r in batch:
                r["sched"] = t
                r["first"] = t_end
                r["toks"] = [t_end]
                running.append(r)
            steps.append((t, st, tok, "prefill", [r for r in running if r not in batch]))
            t = t_end
        else:
            st = dec * (1.0 + 0.004 * len(running))
            t_end = t + st
            for r in running:
                r["toks"].append(t_end)
            steps.append((t, st, len(running), "decode", list(running)))
            t = t_end
        done = [r for r in running if len(r["toks"]) >= r["g"]]
        for r in done:
            running.remove(r)
            r["end"] = r["toks"][-1]
            if queue:
                nr = queue.pop(0)
                nr["arr"] = r["end"] + 0.004
                waiting.append(nr)
    return steps


def qwen2_72b_4090() -> None:
    cid = "i-qwen2-72b-int4-4x4090-prefill-queue"
    rng = random.Random(9722)
    model = "Qwen2-72B-Chat-GPTQ-Int4"
    t_start = ts("2024-10-26 03:21:07")
    p = [int(rng.gauss(777, 140)) for _ in range(100)]
    p[-1] += 77_700 - sum(p)
    g = [rng.choice([5, 6, 6, 6, 7]) for _ in range(100)]
    g[-1] += 603 - sum(g)
    reqs = [{"p": p[i], "g": g[i]} for i in range(100)]
    steps = v0_prefill_first(reqs, 30, t_start, 10_000, 0.12, 1 / 940.0, 0.045, 12)
    t_last = max(r["end"] for r in reqs)
    dt = 4.0
    t0 = t_start - 2.0
    n = int((t_last - t0) / dt) + 3
    scr = [t0 + dt * i for i in range(n)]

    def count_between(a, b, key):
        return [r for r in reqs if key in r and a < r[key] <= b]

    # per-interval increments
    prompt_inc, gen_inc, fin_inc = [0.0] * n, [0.0] * n, [0] * n
    ttft_o = [[] for _ in range(n)]
    tpot_o = [[] for _ in range(n)]
    e2e_o, queue_o, pref_o, dec_o, inf_o = ([[] for _ in range(n)] for _ in range(5))
    ptok_o, gtok_o = [[] for _ in range(n)], [[] for _ in range(n)]
    iter_o = [[] for _ in range(n)]
    for i in range(1, n):
        a, b = scr[i - 1], scr[i]
        for r in count_between(a, b, "first"):
            prompt_inc[i] += r["p"]
            ttft_o[i].append(round(r["first"] - r["arr"], 3))
        for r in reqs:
            for k in range(1, len(r.get("toks", []))):
                if a < r["toks"][k] <= b:
                    tpot_o[i].append(round(r["toks"][k] - r["toks"][k - 1], 3))
            gen_inc[i] += sum(1 for x in r.get("toks", []) if a < x <= b)
        for r in count_between(a, b, "end"):
            fin_inc[i] += 1
            e2e_o[i].append(round(r["end"] - r["arr"], 3))
            queue_o[i].append(round(r["sched"] - r["arr"], 3))
            pref_o[i].append(round(r["first"] - r["sched"], 3))
            dec_o[i].append(round(r["end"] - r["first"], 3))
            inf_o[i].append(round(r["end"] - r["sched"], 3))
            ptok_o[i].append(float(r["p"]))
            gtok_o[i].append(float(r["g"]))
        for st in steps:
            if a < st[0] + st[1] <= b:
                iter_o[i].append(float(st[2]))
    run, wait, kv = [], [], []
    blocks = 2312
    ends = sorted(st[0] + st[1] for st in steps)

    def v0_state(tq: float):
        # V0 sets its gauges (and logs) at the end of an engine step
        te = max([x for x in ends if x <= tq] or [t_start - 1.0])
        rr = [r for r in reqs if "sched" in r and r["sched"] < te < r.get("end", 1e18) + 1e-9
              and r.get("end", 1e18) > te]
        ww = [r for r in reqs if "arr" in r and r["arr"] <= te and r.get("sched", 1e18) >= te]
        used = sum(math.ceil((r["p"] + sum(1 for x in r["toks"] if x <= te)) / 16) for r in rr)
        return te, rr, ww, used

    for tq in scr:
        _, rr, ww, used = v0_state(tq)
        run.append(len(rr))
        wait.append(len(ww))
        kv.append(round(used / blocks, 4))

    def hist(base: list, per: list[list[float]]):
        out = [base]
        for i in range(1, n):
            d: dict[float, float] = {}
            for v in per[i]:
                d[v] = d.get(v, 0.0) + 1.0
            out.append(sorted(d.items()))
        return out

    done0 = 205  # warm-up + the concurrency 5/10/20 runs before this one
    e = Engine()
    e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": wait,
                "vllm:num_requests_swapped": [0.0] * n, "vllm:gpu_cache_usage_perc": kv,
                "vllm:cpu_cache_usage_perc": [0.0] * n,
                "vllm:gpu_prefix_cache_hit_rate": [-1.0] * n,
                "vllm:cpu_prefix_cache_hit_rate": [-1.0] * n}
    e.counters = {"vllm:num_preemptions": [0.0] * n,
                  "vllm:prompt_tokens": cum(159_310, prompt_inc),
                  "vllm:generation_tokens": cum(1_236, gen_inc),
                  "vllm:tokens": cum(160_546, [prompt_inc[i] + gen_inc[i] for i in range(n)])}
    e.lcounters = {("vllm:request_success", "finished_reason", "stop"): cum(done0, fin_inc),
                   ("vllm:request_success", "finished_reason", "length"): [0.0] * n}
    e.hists = {
        "vllm:time_to_first_token_seconds": hist(
            [(0.9, 40.0), (2.4, 60.0), (4.8, 55.0), (9.6, 50.0)], ttft_o),
        "vllm:time_per_output_token_seconds": hist([(0.046, 900.0), (3.9, 131.0)], tpot_o),
        "vllm:e2e_request_latency_seconds": hist(
            [(1.2, 40.0), (3.1, 60.0), (5.6, 55.0), (10.5, 50.0)], e2e_o),
        "vllm:request_queue_time_seconds": hist(
            [(0.05, 40.0), (1.2, 60.0), (3.6, 55.0), (8.3, 50.0)], queue_o),
        "vllm:time_in_queue_requests": hist(
            [(0.05, 40.0), (1.2, 60.0), (3.6, 55.0), (8.3, 50.0)], queue_o),
        "vllm:request_prefill_time_seconds": hist([(0.8, 40.0), (1.3, 165.0)], pref_o),
        "vllm:request_decode_time_seconds": hist([(0.25, 100.0), (0.9, 105.0)], dec_o),
        "vllm:request_inference_time_seconds": hist([(1.1, 100.0), (2.2, 105.0)], inf_o),
        "vllm:request_prompt_tokens": hist([(777.0, float(done0))], ptok_o),
        "vllm:request_generation_tokens": hist([(6.0, float(done0))], gtok_o),
        "vllm:request_max_num_generation_tokens": hist(
            [(9223.0, float(done0))], [[9223.0] * len(x) for x in ptok_o]),
        "vllm:request_params_max_tokens": hist(
            [(9223.0, float(done0))], [[9223.0] * len(x) for x in ptok_o]),
        "vllm:request_params_n": hist([(1.0, float(done0))], [[1.0] * len(x) for x in ptok_o]),
        "vllm:iteration_tokens_total": hist([(4.0, 1_030.0), (3_900.0, 41.0)], iter_o),
    }
    s0 = t_start - 1_484.0
    cap = Capture("v0-0.6", "0.6.3.post1", model, t0, dt, n, 10000, {"0": e},
                  cache_info={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
                              "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.6", "is_attention_free": "False",
                              "num_cpu_blocks": "3276", "num_gpu_blocks": str(blocks),
                              "num_gpu_blocks_override": "None", "sliding_window": "None",
                              "swap_space": "4"},
                  created_at=s0 + 150)
    path = "/data/models/Qwen2-72B-Instruct-GPTQ-Int4"
    logs = [
        f"INFO {stamp(s0)} api_server.py:528] vLLM API server version 0.6.3.post1",
        f"INFO {stamp(s0)} api_server.py:529] args: Namespace(subparser='serve', "
        f"model_tag='{path}', config='', host=None, port=8000, uvicorn_log_level='info', "
        "allow_credentials=False, disable_frontend_multiprocessing=False, "
        f"model='{path}', tokenizer=None, skip_tokenizer_init=False, revision=None, "
        "dtype='auto', kv_cache_dtype='auto', max_model_len=10000, "
        "distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=4, "
        "block_size=16, enable_prefix_caching=False, swap_space=4, "
        "gpu_memory_utilization=0.6, num_gpu_blocks_override=None, "
        "max_num_batched_tokens=None, max_num_seqs=256, enforce_eager=False, "
        "enable_chunked_prefill=None, served_model_name=['Qwen2-72B-Chat-GPTQ-Int4'], "
        "disable_log_requests=False)",
        f"INFO {stamp(s0 + 9)} gptq_marlin.py:112] The model is convertible to gptq_marlin "
        "during runtime. Using gptq_marlin kernel.",
        f"INFO {stamp(s0 + 9)} config.py:887] Defaulting to use mp for distributed inference",
        f"INFO {stamp(s0 + 9)} llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with "
        f"config: model='{path}', speculative_config=None, tokenizer='{path}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config="
        "None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
        "trust_remote_code=False, dtype=torch.float16, max_seq_len=10000, download_dir=None, "
        "load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, "
        "disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=False, "
        "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
        "observability_config=ObservabilityConfig(otlp_traces_endpoint=None, "
        "collect_model_forward_time=False, collect_model_execute_time=False), seed=0, "
        "served_model_name=Qwen2-72B-Chat-GPTQ-Int4, use_v2_block_manager=True, "
        "num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, "
        "enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, "
        "mm_processor_kwargs=None)",
        f"WARNING {stamp(s0 + 10)} custom_all_reduce.py:132] Custom allreduce is disabled "
        "because it's not supported on more than two PCIe-only GPUs. To silence this warning, "
        "specify disable_custom_all_reduce=True explicitly.",
        f"INFO {stamp(s0 + 61)} model_runner.py:1067] Loading model weights took 9.7453 GB",
        f"INFO {stamp(s0 + 88)} distributed_gpu_executor.py:57] # GPU blocks: {blocks}, "
        "# CPU blocks: 3276",
        f"INFO {stamp(s0 + 88)} distributed_gpu_executor.py:61] Maximum concurrency for 10000 "
        f"tokens per request: {blocks * 16 / 10000:.2f}x",
        f"INFO {stamp(s0 + 141)} model_runner.py:1523] Graph capturing finished in 52 secs.",
        f"INFO {stamp(s0 + 150)} launcher.py:19] Available routes are:",
        f"INFO {stamp(s0 + 150)} launcher.py:27] Route: /metrics, Methods: GET",
        f"INFO {stamp(s0 + 150)} launcher.py:27] Route: /v1/chat/completions, Methods: POST",
    ]
    last_log = t_start - 1.0
    for te in ends:
        if te - last_log < 5.0:
            continue
        pt = sum(st[2] for st in steps if st[3] == "prefill" and last_log < st[0] + st[1] <= te)
        gt = sum(st[2] for st in steps if st[3] == "decode" and last_log < st[0] + st[1] <= te)
        gt += sum(1 for r in reqs if "first" in r and last_log < r["first"] <= te)
        _, rr, ww, used = v0_state(te)
        span = te - last_log
        logs.append(f"INFO {stamp(te)} metrics.py:349] Avg prompt throughput: {pt / span:.1f} "
                    f"tokens/s, Avg generation throughput: {gt / span:.1f} tokens/s, Running: "
                    f"{len(rr)} reqs, Swapped: 0 reqs, Pending: {len(ww)} reqs, GPU KV cache "
                    f"usage: {used / blocks * 100:.1f}%, CPU KV cache usage: 0.0%.")
        last_log = te
    argv = ["vllm", "serve", path, "--max-model-len", "10000", "--tensor-parallel-size", "4",
            "--gpu-memory-utilization", "0.6", "--served-model-name", model]
    args = {"model": path, "max-model-len": 10000, "tensor-parallel-size": 4,
            "gpu-memory-utilization": 0.6, "served-model-name": model}
    per_gpu = 15_240_000_000
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://192.168.10.115:8000",
        notes="Intent-recognition service (prompts ~1000 characters, answers of 5-9 characters). "
              "A single request is fast, but under concurrency the first token takes ~19 s and "
              "the server completes only 1-2 requests per second. Captured during "
              "benchmark_serving.py --max-concurrency 30 --num-prompts 100.",
        argv=argv, args=args, models=models_body(model, path, 10000, int(s0 + 150)),
        logs="\n".join(logs) + "\n", model_config=QWEN2_72B_GPTQ,
        gpu=gpu_samples(t0, dt, n, "NVIDIA GeForce RTX 4090", 25_757_220_864, per_gpu,
                        [(3811, "python3", per_gpu - 420_000_000)], ngpu=4))
    ttfts = [r["first"] - r["arr"] for r in reqs]
    itls = sorted(x for st in steps for x in [st[1]] * len(st[4]))
    print(f"  duration {t_last - t_start:.1f}s, mean TTFT {sum(ttfts) / 100:.2f}s, "
          f"req/s {100 / (t_last - t_start):.2f}, ITL p50 {itls[len(itls) // 2]:.3f} "
          f"p99 {itls[int(len(itls) * 0.99)]:.2f}, kv max {max(kv)}, wait max {max(wait)}")


# =====================================================================================
# i-pd-mooncake-failed-pulls-strand-decode  (vllm #50719, PR #50984)
# =====================================================================================
def pd_mooncake_strand() -> None:
    cid = "i-pd-mooncake-failed-pulls-strand-decode"
    rng = random.Random(50719)
    model = "/modules/GLM-5.2-NVFP4"
    t0 = ts("2026-08-01 12:38:00")
    dt, n = 10.0, 49
    t_fail = ts("2026-08-01 12:41:00")
    pool = 1_180_160
    neng = 8
    pids = {0: 9778, 1: 9776, 2: 9781, 3: 9779, 4: 9783, 5: 9780, 6: 9774, 7: 9782}
    quoted_ids = {6: ["973ca62f1bc3666d", "a067ac70e68581a1"], 0: ["94a7d5ac08490bb5"]}
    t_quote = ts("2026-08-01 12:42:13")
    engines: dict[str, Engine] = {}
    err_lines: list[tuple[float, str]] = []
    stats_lines: list[tuple[float, str]] = []
    for k in range(neng):
        er = random.Random(50719 * 10 + k)
        # warm state at t0 - 60: ~52 running requests mid-generation
        running = []  # [t_end, prompt, gen_total, t_first]
        tt = t0 - 60.0
        for _ in range(52):
            pl = er.randint(6000, 12000)
            g = er.randint(300, 900)
            done_frac = er.random()
            running.append([tt + (1 - done_frac) * g * 0.035, pl, g, tt - done_frac * g * 0.035])
        queue: list[tuple[float, int, int]] = []  # (arrival, prompt, gen)
        stranded: list[int] = []  # prompt tokens held
        acc = 0.0
        rows = []
        counters = {"prompt": 4_801_220_000.0 / neng, "gen": 351_400_000.0 / neng,
                    "done_len": 21_300.0, "done_stop": 27_100.0}
        obs = {"ttft": [], "itl": [], "e2e": [], "queue": [], "ptok": [], "gtok": []}
        per_scrape = []
        next_scr = 0
        scr_times = [t0 + dt * i for i in range(n)]
        step = 0.5
        t = t0 - 60.0
        fail_ids = list(quoted_ids.get(k, []))
        while t <= scr_times[-1] + 1e-6:
            # arrivals
            acc += 2.2 * step * (1.0 + 0.2 * math.sin(t / 37.0 + k))
            while acc >= 1.0:
                acc -= 1.0
                queue.append((t, er.randint(6000, 12000), er.randint(300, 900)))
            used = sum(r[1] + int(r[2] * min(1.0, max(0.0, (t - r[3]) / max(1e-6, r[0] - r[3]))))
                       for r in running) + sum(stranded)
            f = 0.0 if t < t_fail else min(0.35, 0.05 + 0.30 * (t - t_fail) / 300.0)
            while queue and used + queue[0][1] + 64 <= pool and len(running) + len(stranded) < 64 * 2:
                if len(running) >= 64:
                    break
                ta, pl, g = queue.pop(0)
                if er.random() < f:
                    stranded.append(pl)
                    used += pl
                    tt = t + 0.25
                    rid_ = fail_ids.pop(0) if (fail_ids and abs(t - t_quote) < 40 and tt < t_quote) \
                        else f"{er.getrandbits(64):016x}"
                    order = {"973ca62f1bc3666d": 0.001, "a067ac70e68581a1": 0.002,
                             "94a7d5ac08490bb5": 0.003}
                    tl = t_quote + order[rid_] if rid_ in order else t + er.uniform(4.0, 6.0)
                    err_lines.append((tl, f"(Worker_DP{k}_EP{k} pid={pids[k]}) ERROR {stamp(tl)} "
                                          f"[mooncake_connector.py:1899] pulling kv_caches for "
                                          f"['{rid_}'] failed: Timeout waiting for P side ready."))
                    continue
                itl = 0.035 * (0.6 + 0.4 * len(running) / 52.0)
                tf = t + 0.25
                running.append([tf + g * itl, pl, g, tf])
                used += pl
                if t >= t0 - dt:
                    obs["ttft"].append((tf, round(tf - ta, 2)))
                    obs["queue"].append((tf, round(t - ta, 2)))
                counters["prompt"] += pl
            # finish
            still = []
            for r in running:
                if r[0] <= t:
                    counters["gen"] += 0  # counted by rate below
                    if er.random() < 0.55:
                        counters["done_stop"] += 1
                    else:
                        counters["done_len"] += 1
                    obs["e2e"].append((r[0], round(r[0] - r[3] + 0.3, 1)))
                    obs["ptok"].append((r[0], float(r[1])))
                    obs["gtok"].append((r[0], float(r[2])))
                else:
                    still.append(r)
            running = still
            itl = 0.035 * (0.6 + 0.4 * len(running) / 52.0)
            counters["gen"] += len(running) * step / itl
            obs["itl"].append((t, round(itl, 3), len(running) * step / itl))
            while next_scr < n and scr_times[next_scr] <= t + 1e-6:
                per_scrape.append({"run": len(running), "cap": len(queue), "def": len(stranded),
                                   "kv": round(min(1.0, used / pool), 4),
                                   "prompt": counters["prompt"], "gen": round(counters["gen"]),
                                   "dl": counters["done_len"], "ds": counters["done_stop"]})
                next_scr += 1
            t += step
        # histogram increments per scrape interval
        def bucket_obs(key, n_scr):
            out = [[] for _ in range(n_scr)]
            for (tt_, v) in obs[key]:
                for i in range(1, n_scr):
                    if scr_times[i - 1] < tt_ <= scr_times[i]:
                        out[i].append(v)
            return out
        itl_per = [[] for _ in range(n)]
        for (tt_, v, cnt) in obs["itl"]:
            for i in range(1, n):
                if scr_times[i - 1] < tt_ <= scr_times[i]:
                    itl_per[i].append((v, cnt))
        e = Engine()
        e.gauges = {"vllm:num_requests_running": [float(x["run"]) for x in per_scrape],
                    "vllm:num_requests_waiting": [float(x["cap"] + x["def"]) for x in per_scrape],
                    "vllm:kv_cache_usage_perc": [x["kv"] for x in per_scrape]}
        e.counters = {"vllm:num_preemptions": [0.0] * n,
                      "vllm:prompt_tokens": [float(x["prompt"]) for x in per_scrape],
                      "vllm:generation_tokens": [float(x["gen"]) for x in per_scrape],
                      "vllm:prefix_cache_queries": [0.0] * n, "vllm:prefix_cache_hits": [0.0] * n}
        e.lcounters = {
            ("vllm:num_requests_waiting_by_reason", "reason", "capacity"):
                [float(x["cap"]) for x in per_scrape],
            ("vllm:num_requests_waiting_by_reason", "reason", "deferred"):
                [float(x["def"]) for x in per_scrape],
            ("vllm:prompt_tokens_by_source", "source", "external_kv_transfer"):
                [float(x["prompt"]) - 1.0 * 0 for x in per_scrape],
            ("vllm:prompt_tokens_by_source", "source", "local_compute"): [0.0] * n,
            ("vllm:prompt_tokens_by_source", "source", "local_cache_hit"): [0.0] * n,
            ("vllm:request_success", "finished_reason", "length"): [x["dl"] for x in per_scrape],
            ("vllm:request_success", "finished_reason", "stop"): [x["ds"] for x in per_scrape],
            ("vllm:request_success", "finished_reason", "abort"): [0.0] * n,
            ("vllm:request_success", "finished_reason", "error"): [0.0] * n,
        }
        base_done = 48_400.0
        ttft_h = hist_from_obs(n, bucket_obs("ttft", n))
        ttft_h[0] = [(0.21, base_done * 0.6), (0.32, base_done * 0.35), (0.6, base_done * 0.05)]
        q_h = hist_from_obs(n, bucket_obs("queue", n))
        q_h[0] = [(0.004, base_done)]
        e2e_h = hist_from_obs(n, bucket_obs("e2e", n))
        e2e_h[0] = [(12.0, base_done * 0.3), (21.0, base_done * 0.45), (31.0, base_done * 0.25)]
        pt_h = hist_from_obs(n, bucket_obs("ptok", n))
        pt_h[0] = [(9000.0, base_done)]
        gt_h = hist_from_obs(n, bucket_obs("gtok", n))
        gt_h[0] = [(600.0, base_done)]
        itl_h = [[(0.035, 29_000_000.0)]] + [
            [(v, float(int(c))) for v, c in _merge(itl_per[i])] for i in range(1, n)]
        e.hists = {"vllm:time_to_first_token_seconds": ttft_h,
                   "vllm:request_queue_time_seconds": q_h,
                   "vllm:e2e_request_latency_seconds": e2e_h,
                   "vllm:request_prompt_tokens": pt_h,
                   "vllm:request_generation_tokens": gt_h,
                   "vllm:inter_token_latency_seconds": itl_h}
        engines[str(k)] = e
        for i in range(1, n):
            if i % 1 == 0:
                x, xp = per_scrape[i], per_scrape[i - 1]
                tl = scr_times[i] + 0.6 + 0.01 * k
                stats_lines.append((tl, v1_stats_line(
                    tl, "(APIServer pid=1) ", "loggers.py:248", (x["prompt"] - xp["prompt"]) / dt,
                    (x["gen"] - xp["gen"]) / dt, x["run"], x["cap"] + x["def"], x["kv"], 0.0,
                    engine=f"{k:03d}") + ", External prefix cache hit rate: 99.9%"))
    cap = Capture("0.24.0", "0.26.1rc1.dev77+g6f91edf96", model, t0, dt, n, 131072, engines,
                  cache_info={"_block_size_resolved": "True", "block_size": "64",
                              "cache_dtype": "fp8", "calculate_kv_scales": "False",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                              "hash_block_size": "None", "is_attention_free": "False",
                              "kv_cache_dtype_skip_layers": "[]",
                              "kv_cache_max_concurrency": "9.00",
                              "kv_cache_memory_bytes": "None",
                              "kv_cache_size_tokens": str(pool),
                              "kv_offloading_backend": "native", "kv_offloading_size": "None",
                              "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
                              "mamba_cache_dtype": "auto", "mamba_cache_mode": "none",
                              "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
                              "num_gpu_blocks": str(pool // 64),
                              "num_gpu_blocks_override": "None",
                              "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
                              "user_specified_block_size": "False",
                              "user_specified_mamba_block_size": "False"},
                  created_at=t0 - 9_311.0)
    s0 = t0 - 9_311.0
    kvcfg = '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'
    logs = [
        (s0, f"(APIServer pid=1) INFO {stamp(s0)} [utils.py:299] vLLM API server version "
             "0.26.1rc1.dev77+g6f91edf96"),
        (s0, f"(APIServer pid=1) INFO {stamp(s0)} [utils.py:233] non-default args: "
             f"{{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 131072, "
             "'data_parallel_size': 8, 'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8', "
             "'block_size': 64, 'max_num_seqs': 64, 'trust_remote_code': True, "
             f"'kv_transfer_config': KVTransferConfig(kv_connector='MooncakeConnector', "
             "kv_role='kv_consumer')}"),
    ]
    for k in range(neng):
        logs.append((s0 + 140 + k * 0.1,
                     f"(EngineCore_DP{k} pid={pids[k] - 180}) INFO {stamp(s0 + 140)} "
                     "[kv_cache_utils.py:1313] GPU KV cache size: "
                     f"{pool:,} tokens"))
        logs.append((s0 + 140.05 + k * 0.1,
                     f"(EngineCore_DP{k} pid={pids[k] - 180}) INFO {stamp(s0 + 140)} "
                     "[kv_cache_utils.py:1317] Maximum concurrency for 131,072 tokens per "
                     f"request: {pool / 131072:.2f}x"))
    logs.append((s0 + 190, f"(APIServer pid=1) INFO {stamp(s0 + 190)} [api_server.py:2024] "
                           "Starting vLLM API server 0 on http://0.0.0.0:8000"))
    logs += stats_lines + [x for x in err_lines if x[0] <= t0 + dt * (n - 1)]
    logs.sort(key=lambda x: x[0])
    argv = ["vllm", "serve", model, "--max-model-len", "131072", "--data-parallel-size", "8",
            "--enable-expert-parallel", "--kv-cache-dtype", "fp8", "--block-size", "64",
            "--max-num-seqs", "64", "--trust-remote-code", "--kv-transfer-config", kvcfg]
    args = {"model": model, "max-model-len": 131072, "data-parallel-size": 8,
            "enable-expert-parallel": True, "kv-cache-dtype": "fp8", "block-size": 64,
            "max-num-seqs": 64, "trust-remote-code": True, "kv-transfer-config": kvcfg,
            "gpu-memory-utilization": 0.9, "tensor-parallel-size": 1}
    gpus = []
    for i in range(0, n, 3):
        gpus.append({"t": round(t0 + dt * i + 0.4, 3), "devices": [
            {"index": g, "name": "NVIDIA B300 SXM6 AC", "memory_total": 288_230_375_424,
             "memory_used": 263_066_779_648,
             "processes": [{"pid": pids[g] - 180, "name": "VLLM::EngineCore",
                            "used_memory": 262_542_491_648}]} for g in range(neng)]})
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://glm52-decode-0.pd.svc:8000",
        notes="Decode node of the P/D deployment (MooncakeConnector, 8 x B300, DP=8 + EP). "
              "Clients report first tokens taking tens of seconds or never arriving; the node "
              "looks idle. /metrics every 10 s for 8 minutes, the decode pod log, NVML.",
        argv=argv, args=args, models=models_body(model, model, 131072, int(s0 + 190)),
        logs="\n".join(x[1] for x in logs) + "\n", model_config=None, gpu=gpus)
    last = {k: (engines[k].gauges["vllm:num_requests_running"][-1],
                engines[k].lcounters[("vllm:num_requests_waiting_by_reason", "reason",
                                      "deferred")][-1],
                engines[k].gauges["vllm:kv_cache_usage_perc"][-1]) for k in engines}
    print("  last (running, deferred, kv):", last)


def _merge(pairs):
    d: dict[float, float] = {}
    for v, c in pairs:
        d[v] = d.get(v, 0.0) + c
    return sorted(d.items())


# =====================================================================================
# i-dspark-draft-shared-expert-dropped  (tonyd2wild DSpark README, Patch 4)
# =====================================================================================
def dspark_dropped() -> None:
    cid = "i-dspark-draft-shared-expert-dropped"
    rng = random.Random(4004)
    model = "deepseek-ai/DeepSeek-V4-Flash-0731"
    served = "deepseek-v4-flash"
    t0 = ts("2026-08-02 09:14:00")
    dt, n = 10.0, 37
    pos = [0.631, 0.282, 0.181, 0.114, 0.067]
    streams = [0] + [2 if rng.random() < 0.33 else 1 for _ in range(n - 1)]
    steps = [0] + [int(round(jit(rng, 144 if s_ == 1 else 132, 0.02))) for s_ in streams[1:]]
    drafts = [steps[i] * streams[i] for i in range(n)]
    per_pos = [[0] * 5] + [[int(round(drafts[i] * jit(rng, p_, 0.04))) for p_ in pos]
                           for i in range(1, n)]
    acc = [sum(x) for x in per_pos]
    gen = [drafts[i] + acc[i] for i in range(n)]
    # finished agent turns: ~900 output tokens each on average
    fin, carry = [0], 0.0
    for i in range(1, n):
        carry += gen[i] / 900.0
        k = int(carry)
        carry -= k
        fin.append(k)
    newp = [0] + [f * int(jit(rng, 24_000, 0.3)) for f in fin[1:]]
    hits = [int(x * jit(rng, 0.86, 0.05)) // 256 * 256 for x in newp]
    kv = [round(jit(rng, 0.0105 * max(1, s_), 0.15), 4) for s_ in streams]
    kv[0] = 0.0104
    e = Engine()
    e.gauges = {"vllm:num_requests_running": [float(max(1, s_)) for s_ in streams],
                "vllm:num_requests_waiting": [0.0] * n, "vllm:kv_cache_usage_perc": kv}
    acc0 = sum(int(615_300 * p_) for p_ in pos)
    base_gen = 615_300 + acc0
    e.counters = {
        "vllm:num_preemptions": [0.0] * n,
        "vllm:prompt_tokens": cum(36_950_000, newp),
        "vllm:generation_tokens": cum(base_gen, gen),
        "vllm:prefix_cache_queries": cum(36_950_000, newp),
        "vllm:prefix_cache_hits": cum(31_420_000, hits),
        "vllm:spec_decode_num_drafts": cum(615_300, drafts),
        "vllm:spec_decode_num_draft_tokens": cum(3_076_500, [5 * d for d in drafts]),
        "vllm:spec_decode_num_accepted_tokens": cum(acc0, acc),
    }
    e.lcounters = {("vllm:spec_decode_num_accepted_tokens_per_pos", "position", str(j)):
                   cum(int(615_300 * pos[j]), [x[j] for x in per_pos]) for j in range(5)}
    e.lcounters.update({
        ("vllm:request_success", "finished_reason", "stop"): cum(1_522, fin),
        ("vllm:request_success", "finished_reason", "length"): [3.0] * n,
        ("vllm:request_success", "finished_reason", "abort"): [11.0] * n,
        ("vllm:request_success", "finished_reason", "error"): [0.0] * n})
    itl_sh1 = [(0.068, 70), (0.071, 25), (0.09, 5)]
    itl_steps = [drafts[i] for i in range(n)]
    ttft = [(1.4, 40), (2.6, 35), (4.2, 20), (7.5, 5)]
    e2e = [(14.0, 25), (27.0, 40), (41.0, 25), (60.0, 10)]
    tpot = [(0.0296, 30), (0.0306, 45), (0.0322, 25)]
    gtok = [(420, 25), (850, 40), (1300, 25), (2000, 10)]
    ptok = [(9000, 20), (20000, 40), (33000, 30), (41000, 10)]
    done0 = 1_536
    e.hists = {
        "vllm:inter_token_latency_seconds": hseries(n, 615_300, itl_sh1, itl_steps, itl_sh1),
        "vllm:request_time_per_output_token_seconds": hseries(n, done0, tpot, fin, tpot),
        "vllm:time_to_first_token_seconds": hseries(n, done0, ttft, fin, ttft),
        "vllm:e2e_request_latency_seconds": hseries(n, done0, e2e, fin, e2e),
        "vllm:request_queue_time_seconds": hseries(n, done0, [(0.003, 1)], fin, [(0.003, 1)]),
        "vllm:request_prefill_time_seconds": hseries(n, done0, ttft, fin, ttft),
        "vllm:request_decode_time_seconds": hseries(n, done0, e2e, fin, e2e),
        "vllm:request_inference_time_seconds": hseries(n, done0, e2e, fin, e2e),
        "vllm:request_generation_tokens": hseries(n, done0, gtok, fin, gtok),
        "vllm:request_prompt_tokens": hseries(n, done0, ptok, fin, ptok),
        "vllm:request_params_max_tokens": hseries(n, done0, [(32768, 1)], fin, [(32768, 1)]),
        "vllm:request_max_num_generation_tokens": hseries(n, done0, [(32768, 1)], fin,
                                                          [(32768, 1)]),
        "vllm:request_params_n": hseries(n, done0, [(1, 1)], fin, [(1, 1)]),
        "vllm:iteration_tokens_total": hseries(n, 615_300, [(6, 80), (12, 15), (4096, 5)],
                                               steps, [(6, 67), (12, 33)]),
    }
    blocks = 2_790_000 // 256
    cap = Capture("0.18.0", "0.21.1rc1.dev339+g1967a5627bc3", served, t0, dt, n, 1048576,
                  {"0": e},
                  cache_info={"_block_size_resolved": "True", "block_size": "256",
                              "cache_dtype": "nvfp4_ds_mla", "calculate_kv_scales": "False",
                              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.85",
                              "is_attention_free": "False", "kv_cache_memory_bytes": "None",
                              "kv_offloading_backend": "native", "kv_offloading_size": "None",
                              "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
                              "mamba_cache_dtype": "auto", "mamba_cache_mode": "none",
                              "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
                              "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
                              "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
                              "user_specified_block_size": "True"},
                  created_at=t0 - 5_402.0)
    s0 = t0 - 5_402.0
    api, ec = "(APIServer pid=1) ", "(EngineCore pid=233) "
    spec = '{"method": "dspark", "num_speculative_tokens": 5}'
    logs = [
        f"{api}INFO {stamp(s0)} [utils.py:299] vLLM API server version "
        "0.21.1rc1.dev339+g1967a5627bc3",
        f"{api}INFO {stamp(s0)} [utils.py:233] non-default args: {{'model_tag': "
        f"'/models/DeepSeek-V4-Flash-0731', 'host': '0.0.0.0', 'port': 8888, "
        f"'model': '/models/DeepSeek-V4-Flash-0731', 'trust_remote_code': True, "
        "'max_model_len': 1048576, 'served_model_name': ['deepseek-v4-flash'], "
        "'tensor_parallel_size': 2, 'block_size': 256, 'gpu_memory_utilization': 0.85, "
        "'kv_cache_dtype': 'nvfp4_ds_mla', 'max_num_seqs': 12, "
        f"'speculative_config': {spec}}}",
        f"{ec}INFO {stamp(s0 + 512)} [gpu_model_runner.py:4489] Model loading took 61.37 GiB "
        "memory and 402.118834 seconds",
        f"{ec}INFO {stamp(s0 + 515)} [gpu_model_runner.py:4501] Loading drafter model...",
        f"{ec}INFO {stamp(s0 + 548)} [gpu_model_runner.py:4531] Drafter model loaded "
        "successfully",
        f"{ec}INFO {stamp(s0 + 610)} [gpu_worker.py:440] Available KV cache memory: 19.12 GiB",
        f"{ec}INFO {stamp(s0 + 610)} [kv_cache_utils.py:1313] GPU KV cache size: 2,790,000 "
        "tokens",
        f"{ec}INFO {stamp(s0 + 610)} [kv_cache_utils.py:1317] Maximum concurrency for "
        "1,048,576 tokens per request: 2.66x",
        f"{api}INFO {stamp(s0 + 700)} [api_server.py:2024] Starting vLLM API server 0 on "
        "http://0.0.0.0:8888",
    ]
    for i in range(1, n):
        tl = t0 + dt * i + 0.3
        hr = hits[i] / newp[i] if newp[i] else 0.0
        logs.append(v1_stats_line(tl, api, "loggers.py:259", newp[i] / dt, gen[i] / dt,
                                  max(1, streams[i]), 0, kv[i], 0.851 if not hr else hr))
        pp = ", ".join(f"{per_pos[i][j] / drafts[i]:.3f}" for j in range(5))
        logs.append(f"{api}INFO {stamp(tl)} [metrics.py:100] SpecDecoding metrics: Mean "
                    f"acceptance length: {1 + acc[i] / drafts[i]:.2f}, Accepted throughput: "
                    f"{acc[i] / dt:.2f} tokens/s, Drafted throughput: {5 * drafts[i] / dt:.2f} "
                    f"tokens/s, Accepted: {acc[i]} tokens, Drafted: {5 * drafts[i]} tokens, "
                    f"Per-position acceptance rate: {pp}, Avg Draft acceptance rate: "
                    f"{acc[i] / (5 * drafts[i]) * 100:.1f}%")
    argv = ["vllm", "serve", "/models/DeepSeek-V4-Flash-0731", "--host", "0.0.0.0", "--port",
            "8888", "--trust-remote-code", "--max-model-len", "1048576", "--served-model-name",
            served, "--tensor-parallel-size", "2", "--block-size", "256",
            "--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "nvfp4_ds_mla",
            "--max-num-seqs", "12", "--speculative-config", spec]
    args = {"model": "/models/DeepSeek-V4-Flash-0731", "max-model-len": 1048576,
            "served-model-name": served, "tensor-parallel-size": 2, "block-size": 256,
            "gpu-memory-utilization": 0.85, "kv-cache-dtype": "nvfp4_ds_mla", "max-num-seqs": 12,
            "speculative-config": spec, "enable-prefix-caching": True}
    write_bundle(
        CASES / cid / "bundle", cap, endpoint="http://asusi:8888",
        notes="Agent-serving endpoint on 2x DGX Spark (TP=2 across the pair). After switching "
              "from the DSpark preview checkpoint to the official DeepSeek-V4-Flash-0731 with the "
              "same recipe, decode speed roughly halved (~33 tok/s for one stream, was ~55); "
              "answers look as good as before. /metrics every 10 s for 6 minutes, server log "
              "at INFO.",
        argv=argv, args=args,
        models=models_body(served, "/models/DeepSeek-V4-Flash-0731", 1048576, int(s0 + 700)),
        logs="\n".join(logs) + "\n", model_config=None, gpu=None)
    print(f"  accept {sum(acc) / (5 * sum(drafts)):.3f}, tok/s 1-stream "
          f"{sum(gen[i] for i in range(1, n) if streams[i] == 1) / (dt * streams[1:].count(1)):.1f}")


REGISTRY = {
    "i-v1-nopc-long-context-preempt-loop": nopc_preempt_loop,
    "i-fp8-kv-qwen25-math-question-marks": fp8_qwen25_math,
    "i-qwen2-72b-int4-4x4090-prefill-queue": qwen2_72b_4090,
    "i-pd-mooncake-failed-pulls-strand-decode": pd_mooncake_strand,
    "i-dspark-draft-shared-expert-dropped": dspark_dropped,
}

if __name__ == "__main__":
    names = sys.argv[1:] or list(REGISTRY)
    for nm in names:
        REGISTRY[nm]()
        print("wrote", nm)
