"""zyp-gateway-sse-buffer-healthy: a healthy vLLM 0.10.1.1 replica (Llama-3.1-8B on one
A100-80GB) serving a chat front end at ~1.5 req/s through a gateway that buffers SSE.
The replica's own metrics, log and NVML samples only.
Run from the worktree root: python3 cases/_tools/zyp/gateway_healthy.py"""
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

OUT = "cases/zyp-gateway-sse-buffer-healthy/bundle"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
T0 = calendar.timegm((2026, 9, 8, 9, 40, 0))
INTERVAL, N = 10, 61
MAXLEN, BUDGET, MAXSEQ, BLOCK, NUM_BLOCKS = 16384, 2048, 256, 16, 27936   # 446,976 tokens
SYS = 288   # cached part of the shared ~300-token system prompt (18 full blocks)
RATE = 1.5
rng = random.Random(4269)
em = EngineMetrics(MAXLEN)


def step_time(pt, nd, e):
    ctx = 0
    for r in e.running:
        ctx += r.done + r.gen
    return (0.0125 + pt / 20000.0 + 0.0002 * nd + ctx * 1.5e-8) * rng.uniform(0.97, 1.03)


eng = Engine(em, MAXSEQ, BUDGET, NUM_BLOCKS, BLOCK, step_time)
END = T0 + (N - 1) * INTERVAL
START = T0 - 600.0
arr = []
t = START
while t < END + 30:
    t += rng.expovariate(RATE)
    arr.append(t)
scrapes, gpu, logs = [], [], []
next_scrape, next_log = T0, START + 10.0
A, E = "(APIServer pid=1)", "(EngineCore_0 pid=283)"


def ts(x):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(x))


def tick(now):
    global next_scrape, next_log
    while next_scrape <= END and next_scrape <= now:
        scrapes.append({"t": next_scrape, "status": 200, "text": render({0: em}, MODEL, cache_info(NUM_BLOCKS, 0.9))})
        used = int((73728 + 520) * 1024 ** 2) + rng.randint(0, 2) * 1024 ** 2
        gpu.append({"t": next_scrape, "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920,
                    "memory_used": used, "processes": [{"pid": 283, "name": "VLLM::EngineCore", "used_memory": used - 520 * 1024 ** 2}]}]})
        next_scrape += INTERVAL
    while next_log <= now and next_log <= END:
        pt, gt = eng.win["p"] / 10.0, eng.win["g"] / 10.0
        eng.win["p"] = eng.win["g"] = 0
        q, h = em.c["prefix_q"], em.c["prefix_h"]
        if next_log >= T0 - 60:
            logs.append((next_log, f"{A} INFO {ts(next_log)} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                         f"Avg generation throughput: {gt:.1f} tokens/s, Running: {em.running} reqs, Waiting: {em.waiting} reqs, "
                         f"GPU KV cache usage: {em.kv*100:.1f}%, Prefix cache hit rate: {(h / q * 100) if q else 0.0:.1f}%"))
        next_log += 10.0


ai = 0
now = START
while now <= END + 1:
    while ai < len(arr) and arr[ai] <= now:
        p = int(min(2200, max(350, rng.lognormvariate(math.log(800), 0.5))))
        o = int(min(700, max(20, rng.lognormvariate(math.log(200), 0.7))))
        r = Req("chatcmpl-%032x" % rng.getrandbits(128), p, o, arr[ai], None, 1024)
        r.done = SYS
        em.c["prefix_h"] += SYS
        eng.add(r)
        if arr[ai] >= T0 - 60:
            logs.append((arr[ai], f'{A} INFO:     10.0.8.4:{33000 + rng.randint(0, 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        ai += 1
    t2 = eng.step(now)
    if t2 > now:
        now = t2
    else:
        now = arr[ai] if ai < len(arr) else now + 1.0
    tick(now)

lg = [
    f"{A} INFO {ts(T0-86400)} [api_server.py:1805] vLLM API server version 0.10.1.1",
    f"{A} INFO {ts(T0-86400)} [utils.py:326] non-default args: {{'model_tag': '{MODEL}', 'host': '0.0.0.0', 'port': 8000, 'model': '{MODEL}', 'max_model_len': {MAXLEN}, 'gpu_memory_utilization': 0.9}}",
    f"{E} INFO {ts(T0-86391)} [core.py:71] Initializing a V1 LLM engine (v0.10.1.1) with config: model='{MODEL}', tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MAXLEN}, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{E} INFO {ts(T0-86370)} [gpu_model_runner.py:1953] Model loading took 14.9889 GiB and 21.402117 seconds",
    f"{E} INFO {ts(T0-86352)} [gpu_worker.py:276] Available KV cache memory: 54.56 GiB",
    f"{E} INFO {ts(T0-86352)} [kv_cache_utils.py:849] GPU KV cache size: 446,976 tokens",
    f"{E} INFO {ts(T0-86352)} [kv_cache_utils.py:853] Maximum concurrency for 16,384 tokens per request: 27.28x",
    f"{E} INFO {ts(T0-86330)} [core.py:214] init engine (profile, create kv cache, warmup model) took 38.77 seconds",
    f"{A} INFO {ts(T0-86328)} [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs.sort(key=lambda e: e[0])
lg += [e for tt, e in logs if T0 - 60 <= tt <= END]
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://10.0.8.21:8000",
            "started_at": T0, "ended_at": END, "interval_s": float(INTERVAL),
            "notes": "replica behind the dstack gateway; users see first tokens after one to several seconds and short answers arriving all at once"}
server = {"version": {"version": "0.10.1.1"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": END, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--port", "8000", "--max-model-len", str(MAXLEN),
                        "--gpu-memory-utilization", "0.9"],
               "args": {"model": MODEL, "max-model-len": MAXLEN, "gpu-memory-utilization": 0.9}}
model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
                "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
                "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
                "pretraining_tp": 1, "rms_norm_eps": 1e-05,
                "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, gpu, "\n".join(lg) + "\n")
rs = [r for r in eng.finished if T0 <= r.arr and r.end <= END]
gl = sorted((r.end - r.first) / max(1, r.gen - 1) for r in rs)
short = sum(1 for r in rs if r.o < 65)
print("n", len(rs), "itl p50 %.4f" % gl[len(gl) // 2], "answers under 65 tokens", short,
      "client-side TTFT through the gateway p50 ~%.2f s" % sorted(min(r.end, r.first + 64 * (r.end - r.first) / max(1, r.gen - 1)) - r.arr for r in rs)[len(rs) // 2])
