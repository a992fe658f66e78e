"""zyp-ascend-a3b-15k-prompt-ttft-tail: vllm-ascend 0.11.0rc0 (vLLM 0.11.0), Qwen3-30B-A3B
bf16 at TP2 on two 910B. A 6-thread benchmark step ends just before the window; the
8-thread step (closed loop, threads start together) runs through it. Prompts ~14.7K
tokens (10-12% of them 24-28K), outputs skewed (median ~200). Prefill cost is linear
plus an attention term that grows with the context already computed.
Run from the worktree root: python3 cases/_tools/zyp/ascend_a3b_tail.py"""
import calendar
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle  # noqa
from prom0101 import EngineMetrics, render, cache_info  # noqa
from stepsim import Engine, Req  # noqa

OUT = "cases/zyp-ascend-a3b-15k-prompt-ttft-tail/bundle"
MODEL = "Qwen3-30B-A3B"
T0 = calendar.timegm((2025, 10, 24, 7, 30, 0))
INTERVAL, N = 10, 61
MAXLEN, BUDGET, MAXSEQ, BLOCK, NUM_BLOCKS = 32768, 8192, 256, 128, 4266   # 546,048 tokens
PRATE, KATT = 9500.0, 1.0e-8
LONGF, MODE = float(os.environ.get("LONGF", "0.15")), float(os.environ.get("MODE", "12700"))
rng = random.Random(int(os.environ.get("SEED", "23")))
em = EngineMetrics(MAXLEN)


def step_time(pt, nd, e):
    att = sum(min(r.p - r.done, BUDGET) * (r.done + 4096) for r in e.running if r.done < r.p)
    return (0.016 + pt / PRATE + KATT * att + (0.0005 * nd + 0.004 if nd else 0.0)) * rng.uniform(0.98, 1.02)


eng = Engine(em, MAXSEQ, BUDGET, NUM_BLOCKS, BLOCK, step_time)


def newreq(t, c):
    if rng.random() < LONGF:
        p = int(rng.uniform(24000, 28000))
    else:
        p = int(min(24000, max(3000, rng.gauss(MODE, 3000))))
    o = int(min(4096, max(16, 205 * math.exp(rng.gauss(0, 1.3)))))
    return Req("chatcmpl-%032x" % rng.getrandbits(128), p, o, t, c, 8192)


END = T0 + (N - 1) * INTERVAL
scrapes, logs = [], []
next_scrape, next_log = T0, T0 - 705.0
prev_log = None
CI = cache_info(NUM_BLOCKS, 0.9, block=BLOCK)


def ts(x):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(x))


def tick(now):
    global next_scrape, next_log
    while next_scrape <= END and next_scrape <= now:
        scrapes.append({"t": next_scrape, "status": 200, "text": render({0: em}, MODEL, CI, deprecated=False)})
        next_scrape += INTERVAL
    while next_log <= now and next_log <= END:
        pt, gt = eng.win["p"] / 10.0, eng.win["g"] / 10.0
        eng.win["p"] = eng.win["g"] = 0
        if pt or gt or em.running:
            logs.append((next_log, f"(APIServer pid=1147) INFO {ts(next_log)} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                         f"Avg generation throughput: {gt:.1f} tokens/s, Running: {em.running} reqs, Waiting: {em.waiting} reqs, "
                         f"GPU KV cache usage: {em.kv*100:.1f}%, Prefix cache hit rate: {pc_rate():.1f}%"))
        next_log += 10.0


def pc_rate():
    q, h = em.c["prefix_q"], em.c["prefix_h"]
    return h / q * 100 if q else 0.0


def run_phase(t, clients, start, stop_issue):
    pend = [(start + rng.uniform(0, 0.3), c) for c in range(clients)]
    while pend or eng.running or eng.waiting:
        for x in [x for x in pend if x[0] <= t]:
            pend.remove(x)
            r = newreq(x[0], x[1])
            # the chat template's first 32 tokens are shared: one block of 128 never fills, no hit
            eng.add(r)
            logs.append((x[0], f'(APIServer pid=1147) INFO:     10.20.1.8:{30000 + rng.randint(0, 29999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        n = len(eng.finished)
        t2 = eng.step(t)
        for r in eng.finished[n:]:
            if r.end + 0.05 < stop_issue:
                pend.append((r.end + 0.05, r.client))
        if t2 > t:
            t = t2
        elif pend:
            t = max(t, min(x[0] for x in pend))
        else:
            break
        tick(t)
        if t > END + 5:
            break
    return t


t_idle = run_phase(T0 - 700.0, 6, T0 - 700.0, T0 - 100.0)
startB = max(T0 + 5.0, t_idle + 8.0)
tick(startB)
run_phase(startB, 8, startB, END + 100)
tick(END + 1)

lg = [
    f"(APIServer pid=1147) INFO {ts(T0-5400)} [api_server.py:1839] vLLM API server version 0.11.0",
    f"(APIServer pid=1147) INFO {ts(T0-5400)} [utils.py:233] non-default args: {{'model_tag': '/models/Qwen3-30B-A3B', 'host': '0.0.0.0', 'port': 8000, 'model': '/models/Qwen3-30B-A3B', 'max_model_len': 32768, 'served_model_name': ['Qwen3-30B-A3B'], 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 8192}}",
    f"(EngineCore_DP0 pid=1391) INFO {ts(T0-5390)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/Qwen3-30B-A3B', speculative_config=None, tokenizer='/models/Qwen3-30B-A3B', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=npu, served_model_name=Qwen3-30B-A3B, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"(Worker_TP0 pid=1525) INFO {ts(T0-5310)} [model_runner_v1.py:2604] Loading model weights took 28.5331 GB",
    f"(Worker_TP0 pid=1525) INFO {ts(T0-5290)} [worker_v1.py:230] Available memory: 26936983961, total memory: 65452113920",
    f"(EngineCore_DP0 pid=1391) INFO {ts(T0-5289)} [kv_cache_utils.py:1087] GPU KV cache size: 546,048 tokens",
    f"(EngineCore_DP0 pid=1391) INFO {ts(T0-5289)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 16.66x",
    f"(EngineCore_DP0 pid=1391) INFO {ts(T0-5240)} [core.py:210] init engine (profile, create kv cache, warmup model) took 71.84 seconds",
    f"(APIServer pid=1147) INFO {ts(T0-5236)} [api_server.py:1907] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs.sort(key=lambda e: e[0])
lg += [e for t, e in logs if T0 - 60 <= t <= END]

manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://npu-node-3:8000",
            "started_at": T0, "ended_at": END, "interval_s": float(INTERVAL),
            "notes": "Qwen3-30B-A3B on vllm-ascend; benchmark at 8 threads, ~14.7K-token prompts: first-token latency tail grows with thread count"}
server = {"version": {"version": "0.11.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": END, "owned_by": "vllm",
                                                  "root": "/models/Qwen3-30B-A3B", "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": ["vllm", "serve", "/models/Qwen3-30B-A3B", "--host", "0.0.0.0", "--port", "8000",
                        "--served-model-name", MODEL, "--tensor-parallel-size", "2", "--max-model-len", str(MAXLEN),
                        "--max-num-batched-tokens", str(BUDGET), "--gpu-memory-utilization", "0.9"],
               "args": {"model": "/models/Qwen3-30B-A3B", "served-model-name": MODEL, "tensor-parallel-size": 2,
                        "max-model-len": MAXLEN, "max-num-batched-tokens": BUDGET, "gpu-memory-utilization": 0.9}}
model_config = {"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
                "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
                "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
                "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
                "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
                "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": None,
                "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
                "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, None, "\n".join(lg) + "\n")

# window summary (not a diagnosis)
rs = [r for r in eng.finished if T0 <= r.arr and r.first is not None and r.first <= END]
tt = sorted(r.first - r.arr for r in rs)
q = sorted(r.sched - r.arr for r in rs)
pf = sorted(r.first - r.sched for r in rs)
pct = lambda a, x: a[min(len(a) - 1, int(len(a) * x))]
print("phaseB start", round(startB - T0, 1), "n", len(rs), "ttft p50 %.2f p95 %.2f max %.2f" % (pct(tt, .5), pct(tt, .95), tt[-1]),
      "queue p50 %.2f p95 %.2f" % (pct(q, .5), pct(q, .95)), "prefill p50 %.2f p95 %.2f" % (pct(pf, .5), pct(pf, .95)))
print("mean prompt", sum(r.p for r in rs) // len(rs))
