"""zyn-ascend-kv-full-freeze-100par: vLLM 0.10.0 + vllm-ascend on one 910B, Qwen2.5-32B W8A8,
pool 512 blocks x 128 = 65,536 tokens. Window: tail of a healthy 50-parallel evalscope run
(shared prefix), idle, then a 100-parallel random-prompt run: 56 admitted (9 blocks each),
44 wait; the pool fills and the engine freezes (no preemption, no tokens) for the rest.
Run from the worktree root."""
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from prom import Engine, render, write_bundle  # noqa

OUT = "cases/zyn-ascend-kv-full-freeze-100par/bundle"
MODEL = "qwen2.5-32b-instruct"
T0 = 1754445000  # 2025-08-06 01:50:00 UTC = 09:50:00 local (UTC+8)
INTERVAL, N = 10, 61
BS, NB = 128, 512
MAXLEN = 32768
rng = random.Random(2245)
e = Engine(MAXLEN, deprecated_gpu=True)
SHARED = 10  # shared prefix blocks of the 50-parallel run

# history: 150 requests of the 50-parallel run already done before the window
for _ in range(150):
    p, g = rng.randint(1350, 1450), rng.randint(300, 512)
    e.admit(512)
    e.c["prompt"] += p; e.c["gen"] += g
    e.c["pq"] += p; e.c["ph"] += 1280
    tt = rng.uniform(0.4, 9.0)
    e.h["vllm:time_to_first_token_seconds"].obs(tt)
    e.h["vllm:time_per_output_token_seconds"].obs(0.116, g - 1)
    e.finish(p, g, 512, tt + g * 0.116, rng.uniform(0.01, 0.3), tt, g * 0.116)
e.h["vllm:iteration_tokens_total"].obs(50, 2400)
e.h["vllm:iteration_tokens_total"].obs(2048, 40)

running, waiting = [], []
# the last 50 requests of the 50-parallel run, in flight at T0
for i in range(50):
    p = rng.randint(1350, 1450)
    g0 = rng.randint(150, 500)
    running.append(dict(p=p, o=rng.randint(max(g0 + 5, 300), 512), g=g0, arr=T0 - g0 * 0.116 - 3,
                        first=T0 - g0 * 0.116, sched=T0 - g0 * 0.116 - 2.5, shared=True, pf=p, mt=512))
B_AT = 170  # the 100-parallel run starts
frozen_at = None
scrapes, loglines = [], []
win = dict(p=0, g=0, q=0, h=0)
last_p = last_g = 1.0
hit_q = hit_h = 0  # LoggingStatLogger prefix-hit window (cumulative over recent queries)


def blocks_used():
    own = 0
    any_shared = False
    for r in running:
        tok = (r["pf"] + r["g"]) if r["first"] else r["pf"]
        if r["shared"]:
            any_shared = True
            own += max(0, math.ceil(tok / BS) - SHARED)
        else:
            own += math.ceil(tok / BS) if r["first"] else math.ceil(r["p"] / BS)
    return own + (SHARED if any_shared else 0)


for sec in range(0, (N - 1) * INTERVAL + 1):
    now = T0 + sec
    if sec == B_AT:
        for _ in range(100):
            waiting.append(dict(p=rng.randint(1040, 1150), o=2048, g=0, arr=now + rng.uniform(0, 0.5),
                                first=None, shared=False, pf=0, mt=2048))
    if frozen_at is None:
        # admission: whole prompt's blocks must fit
        while waiting:
            r = waiting[0]
            if blocks_used() + math.ceil(r["p"] / BS) > NB:
                break
            waiting.pop(0)
            r["sched"] = now
            running.append(r)
            e.admit(r["mt"])
            e.c["pq"] += r["p"]; win["q"] += r["p"]
            hit_q += r["p"]
        # prefill at ~7,000 tokens/s
        budget = 7000
        for r in running:
            if r["first"] is None and budget > 0:
                take = min(budget, r["p"] - r["pf"])
                r["pf"] += take; budget -= take
                e.c["prompt"] += take; win["p"] += take
                if r["pf"] >= r["p"]:
                    r["first"] = now + 0.5
                    e.h["vllm:time_to_first_token_seconds"].obs(r["first"] - r["arr"])
                    r["g"] = 1; e.c["gen"] += 1; win["g"] += 1
        # decode: 8.6 tok/s per request; a request crossing a block boundary needs a free block
        fin = []
        for r in running:
            if r["first"] is None or r["first"] >= now:
                continue
            adv = min(rng.choice((8, 9, 9)), r["o"] - r["g"])
            need_new = math.ceil((r["pf"] + r["g"] + adv) / BS) > math.ceil((r["pf"] + r["g"]) / BS)
            if need_new and blocks_used() >= NB:
                frozen_at = sec  # the engine stops here instead of preempting
                break
            r["g"] += adv; e.c["gen"] += adv; win["g"] += adv
            e.h["vllm:time_per_output_token_seconds"].obs(1.0 / 8.6, adv)
            if r["g"] >= r["o"]:
                fin.append(r)
        if frozen_at is None:
            nd = sum(1 for r in running if r["first"] is not None)
            if nd:
                e.h["vllm:iteration_tokens_total"].obs(nd, 8)
            for r in fin:
                running.remove(r)
                e.finish(r["p"], r["g"], r["mt"], now - r["arr"], r["sched"] - r["arr"],
                         r["first"] - r["sched"], now - r["first"], "length" if r["g"] >= r["mt"] else "stop")
        e.running, e.waiting = len(running), len(waiting)
        e.kv = blocks_used() / NB
    if sec % INTERVAL == 0:
        text = render(e, MODEL, {
            "block_size": "128", "cache_dtype": "auto", "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.85",
            "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(NB),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin",
            "sliding_window": "None", "swap_space": "4"})
        scrapes.append({"t": now, "status": 200, "text": text})
        if sec > 0:
            pt, gt = win["p"] / INTERVAL, win["g"] / INTERVAL
            if any((pt, gt, last_p, last_g)):
                hr = 100.0 * e.c["ph"] / e.c["pq"] if e.c["pq"] else 0.0
                loglines.append((now, pt, gt, e.running, e.waiting, e.kv * 100, hr))
            last_p, last_g = pt, gt
        win = dict(p=0, g=0, q=0, h=0)


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t + 8 * 3600))


st = T0 - 3000
lg = [f"INFO {ts(st)} [api_server.py:1818] vLLM API server version 0.10.0",
      f"INFO {ts(st)} [cli_args.py:309] non-default args: {{'model_tag': '/models/Qwen2.5-32B-Instruct-w8a8', 'served_model_name': ['{MODEL}'], 'max_model_len': 32768, 'gpu_memory_utilization': 0.85, 'quantization': 'ascend', 'enable_prefix_caching': True}}",
      f"INFO {ts(st + 140)} [kv_cache_utils.py:829] GPU KV cache size: {NB * BS:,} tokens",
      f"INFO {ts(st + 140)} [kv_cache_utils.py:833] Maximum concurrency for 32,768 tokens per request: {NB * BS / MAXLEN:.2f}x",
      f"INFO {ts(st + 190)} [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000"]
for (t, pt, gt, run, wt, kv, hr) in loglines:
    lg.append(f"INFO {ts(t)} [loggers.py:118] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wt} reqs, GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {hr:.1f}%")
lg.sort(key=lambda s: s.split(" ")[2])
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://npu-node-3:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "evalscope perf: a 50-parallel run, then --parallel 100; at 100 the server stops answering, npu-smi shows 0% AICore"}
server = {"version": {"version": "0.10.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": "/models/Qwen2.5-32B-Instruct-w8a8", "parent": None,
                                                  "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": ["vllm", "serve", "/models/Qwen2.5-32B-Instruct-w8a8", "--served-model-name", MODEL,
                        "--max-model-len", "32768", "--gpu-memory-utilization", "0.85", "--quantization", "ascend",
                        "--enable-prefix-caching"],
               "args": {"max-model-len": 32768, "gpu-memory-utilization": 0.85, "quantization": "ascend",
                        "enable-prefix-caching": True}}
model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
                "intermediate_size": 27648, "max_position_embeddings": 32768, "max_window_layers": 70,
                "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 64,
                "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, None, "\n".join(lg) + "\n")
print("frozen_at", frozen_at, "running", e.running, "waiting", e.waiting, "kv", e.kv, "pre", e.c["pre"])
for l in loglines:
    print(ts(l[0]), "p %.1f g %.1f run %d wait %d kv %.1f hit %.1f" % l[1:])
