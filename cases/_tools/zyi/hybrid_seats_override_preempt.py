"""zyi-hybrid-seats-override-preempt: Qwen3.8-27B (hybrid) on one RTX 3090, CTX=huge with the seat
override --max-num-seqs 8, eight 16k-token streams. Source: syv-ai/qwen38-27b-rtx3090 issue #25.

A 1-second step simulation of a V1 scheduler in token-equivalents of the 4.90 GiB pool:
KV at ~16 KiB/token and a ~0.8 GiB state page per resident request (52,429 token-equivalents).
Admission needs room for the state page; a running request that cannot grow preempts the last one
admitted (recompute: its prompt and generated tokens are prefilled again)."""

from __future__ import annotations

import random

from common import GiB, MiB, epoch, models_body, stamp, write_bundle
from v1prom import V1Prom

CASE = "zyi-hybrid-seats-override-preempt"
MODEL = "qwen3.8-27b"
ROOT = "/models/Qwen3.8-27B-int4"
MAX_LEN = 262144
CAP = int(4.90 * GiB / (16 * 1024))      # 321,126 token-equivalents
STATE = int(0.752 * GiB / (16 * 1024))   # the ~0.8 GiB state page (0.752 GiB)
PROMPT, OUT = 16384, 1024
PREFILL_RATE = 450                        # tokens/s on the 3090 at 16k context
DECODE_RATE = 4                           # tokens/s per decoding stream
SEATS = 8
ADMIT_NEED = STATE + 512               # a new request needs its state page and a first chunk
INTERVAL = 10.0
T0 = epoch(2026, 9, 2, 19, 40)
rng = random.Random(25)

cache_info = {"block_size": "1568", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "False", "gpu_memory_utilization": "0.92", "is_attention_free": "False",
              "kv_cache_memory_bytes": str(int(4.90 * GiB)), "mamba_cache_dtype": "auto", "num_cpu_blocks": "None",
              "num_gpu_blocks": "186", "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
              "sliding_window": "None", "swap_space": "4.0", "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)
prom.c.update(preempt=3, prompt=412_880, gen=61_240, pq=412_880, ph=0)
prom.success.update(stop=96, length=31, abort=2)
for v, n in [(0.4, 40), (1.3, 45), (3.0, 25), (14.6, 19)]:
    prom.h["ttft"].observe(v, n)
    prom.h["queue"].observe(v * 0.1, n)
    prom.h["prefill"].observe(v * 0.9, n)
for v, n in [(0.018, 40_000), (0.03, 15_000), (0.12, 6_240)]:
    prom.h["itl"].observe(v, n)
for v, n in [(8.0, 60), (25.0, 40), (70.0, 29)]:
    prom.h["e2e"].observe(v, n); prom.h["inference"].observe(v * 0.95, n); prom.h["decode"].observe(v * 0.8, n)
for v, n in [(900, 60), (4096, 40), (16384, 29)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(200, 50), (600, 50), (1024, 29)]:
    prom.h["gtok"].observe(v, n)

reqs = [{"id": i, "arr": 20 + 2 * i, "need": PROMPT, "done": 0, "gen": 0, "first": None, "queued": 0.0,
         "adm": None, "fin": None, "acc": 0.0} for i in range(8)]
running: list[dict] = []
waiting: list[dict] = []
used = 0
agg = {"prompt": 0, "gen": 0, "pre": 0}
scrapes, logs, gpu = [], [], []
pre_t = epoch(2026, 9, 2, 19, 31)
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.27.1, serving model {ROOT}")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'max_model_len': 262144, "
  "'max_num_seqs': 8, 'max_num_batched_tokens': 8192, 'kv_cache_memory_bytes': " + str(int(4.90 * GiB)) + ", "
  "'enable_prefix_caching': False, 'gpu_memory_utilization': 0.92}")
L(pre_t + 70, "EngineCore pid=88", "INFO", "gpu_worker.py:479",
  f"Initial free memory 23.31 GiB, reserved 4.9 GiB memory for KV Cache as specified by kv_cache_memory_bytes config "
  "and skipped memory profiling. This does not respect the gpu_memory_utilization config. Only use kv_cache_memory_bytes "
  "config when you want manual control of KV cache memory size. If OOM'ed, check the difference of initial free memory "
  "between the current run and the previous run where kv_cache_memory_bytes is suggested and update it correspondingly.")
L(pre_t + 71, "EngineCore pid=88", "INFO", "kv_cache_utils.py:1710", "GPU KV cache size: 291,648 tokens")
L(pre_t + 71, "EngineCore pid=88", "INFO", "kv_cache_utils.py:1711", f"Maximum concurrency for {MAX_LEN:,} tokens per request: 1.11x")
L(pre_t + 95, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")

N_STEPS = 720
for s in range(N_STEPS):
    for r in reqs:
        if r["arr"] == s:
            waiting.append(r)
            r["qstart"] = s
    # admission (FCFS) while a state page fits
    while waiting and len(running) < SEATS and used + ADMIT_NEED <= CAP:
        r = waiting.pop(0)
        r["queued"] += s - r["qstart"]
        r["adm"] = r["adm"] if r["adm"] is not None else s
        running.append(r)
        used += STATE
    budget = PREFILL_RATE
    for r in list(running):
        if r not in running:
            continue
        if r["done"] < r["need"]:
            chunk = min(r["need"] - r["done"], budget)
            if chunk <= 0:
                continue
            while used + chunk > CAP and running[-1] is not r:
                v = running.pop()
                used -= STATE + v["done"]
                v["need"] = PROMPT + v["gen"]; v["done"] = 0
                waiting.insert(0, v); v["qstart"] = s
                agg["pre"] += 1
            if used + chunk > CAP:      # V1: the request preempts itself when it is the last one
                running.remove(r); used -= STATE + r["done"]
                r["need"] = PROMPT + r["gen"]; r["done"] = 0
                waiting.insert(0, r); r["qstart"] = s
                agg["pre"] += 1
                continue
            r["done"] += chunk; used += chunk; budget -= chunk; agg["prompt"] += chunk
        else:
            r["acc"] += DECODE_RATE * (0.5 if budget < PREFILL_RATE else 1.0)
            k = int(r["acc"]); r["acc"] -= k
            k = min(k, OUT - r["gen"])
            while k and used + k > CAP and running[-1] is not r:
                v = running.pop()
                used -= STATE + v["done"]
                v["need"] = PROMPT + v["gen"]; v["done"] = 0
                waiting.insert(0, v); v["qstart"] = s
                agg["pre"] += 1
            if k and used + k > CAP:
                running.remove(r); used -= STATE + r["done"]
                r["need"] = PROMPT + r["gen"]; r["done"] = 0
                waiting.insert(0, r); r["qstart"] = s
                agg["pre"] += 1
                continue
            if k and r["first"] is None:
                r["first"] = s
                prom.h["ttft"].observe(s - r["arr"] + rng.uniform(0, 0.9))
            r["gen"] += k; r["done"] += k; r["need"] += k; used += k; agg["gen"] += k
            if k:
                prom.h["itl"].observe(round(1.0 / (DECODE_RATE * (0.5 if budget < PREFILL_RATE else 1.0)), 4), k)
            if r["gen"] >= OUT:
                running.remove(r); used -= STATE + r["done"]; r["fin"] = s
                e2e = s - r["arr"]
                prom.h["e2e"].observe(e2e); prom.h["queue"].observe(r["queued"])
                prom.h["inference"].observe(e2e - r["queued"]); prom.h["prefill"].observe(r["first"] - r["adm"])
                prom.h["decode"].observe(s - r["first"]); prom.h["ptok"].observe(PROMPT); prom.h["gtok"].observe(OUT)
                prom.success["stop"] += 1
    if (s + 1) % int(INTERVAL) == 0:
        t = T0 + s + 1
        prom.running, prom.waiting, prom.kv = len(running), len(waiting), used / CAP
        prom.c["preempt"] += agg["pre"]; prom.c["prompt"] += agg["prompt"]; prom.c["gen"] += agg["gen"]
        prom.c["pq"] += agg["prompt"]
        scrapes.append({"t": t, "status": 200, "text": prom.text()})
        logs.append(f"(APIServer pid=1) INFO {stamp(t)} [loggers.py:271] Engine 000: Avg prompt throughput: "
                    f"{agg['prompt'] / INTERVAL:.1f} tokens/s, Avg generation throughput: {agg['gen'] / INTERVAL:.1f} tokens/s, "
                    f"Running: {len(running)} reqs, Waiting: {len(waiting)} reqs, GPU KV cache usage: {100 * used / CAP:.1f}%, "
                    f"Prefix cache hit rate: 0.0%")
        agg = {"prompt": 0, "gen": 0, "pre": 0}
        mem = int(22.9 * GiB + rng.randint(0, 30) * MiB)
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": 25_769_803_776,
                                         "memory_used": mem, "processes": [{"pid": 88, "name": "VLLM::EngineCore",
                                                                            "used_memory": mem - 310 * MiB}]}]})

fin = [r["fin"] for r in reqs]
print("finished at", fin, "preempt total in window", prom.c["preempt"] - 3, "gen", prom.c["gen"] - 61_240)
layer_types = ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(64)]
model_config = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "hidden_size": 5120,
                "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
                "full_attention_interval": 4, "layer_types": layer_types, "linear_num_key_heads": 16,
                "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                "linear_conv_kernel_dim": 4, "intermediate_size": 17408, "vocab_size": 248320,
                "max_position_embeddings": 262144, "torch_dtype": "bfloat16",
                "quantization_config": {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True}}
engine_args = {"argv": ["vllm", "serve", ROOT, "--served-model-name", MODEL, "--max-model-len", "262144",
                        "--max-num-seqs", "8", "--max-num-batched-tokens", "8192", "--kv-cache-memory-bytes",
                        str(int(4.90 * GiB)), "--gpu-memory-utilization", "0.92"],
               "args": {"model": ROOT, "served-model-name": MODEL, "max-model-len": 262144, "max-num-seqs": 8,
                        "max-num-batched-tokens": 8192, "kv-cache-memory-bytes": int(4.90 * GiB),
                        "gpu-memory-utilization": 0.92}}
server = {"version": {"version": "0.27.1"}, "models": models_body(MODEL, ROOT, MAX_LEN, int(pre_t) + 95), "health": 200}
write_bundle(CASE, endpoint="http://127.0.0.1:8000", started_at=T0, interval_s=INTERVAL,
             notes="conc_ladder N=8, eight 16k-token streams, CTX=huge with MAX_SEQS=8 override",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes))
