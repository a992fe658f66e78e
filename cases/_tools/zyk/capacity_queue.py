"""zyk-1m-context-capacity-queue: V1 engine, max_model_len 1,000,000, max_num_seqs 4,
pool 1,526,178 tokens. Two long sessions (700K, 480K) hold ~77% of the pool; a 400K
session waits for capacity, a short chat waits behind it, until the 700K one ends.
Run from the worktree root."""
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import family, write_bundle  # noqa
from v1prom import EngineMetrics, render  # noqa

OUT = "cases/zyk-1m-context-capacity-queue/bundle"
MODEL = "glm-5.3-flash"
T0 = 1788094800  # 2026-08-30 13:00:00 UTC
INTERVAL, N = 10, 61
POOL = 1526178
MAXLEN = 1000000
rng = random.Random(43)
em = EngineMetrics(MAXLEN)

# history before the window: a handful of finished sessions and the prefills of A and B
for (p, o, tt) in [(12000, 900, 4.1), (86000, 2400, 31.0), (5200, 640, 2.2), (230000, 3100, 96.0),
                   (9000, 1200, 3.4), (41000, 1800, 14.5)]:
    em.c["prompt"] += p; em.c["gen"] += o
    em.c["prefix_q"] += p; em.c["prefix_h"] += int(p * 0.4)
    em.h["vllm:time_to_first_token_seconds"].observe(tt)
    em.h["vllm:time_per_output_token_seconds"].observe(0.07, o - 1)
    em.finish(p, o, 32768, tt + o * 0.07, 0.05, tt, o * 0.07)
A = {"name": "A", "p": 694000, "done": 6000, "o": 6000 + 14 * 420, "arr": T0 - 900, "first": T0 - 610}
B = {"name": "B", "p": 476000, "done": 4000, "o": 20000, "arr": T0 - 700, "first": T0 - 480}
for r, tt in ((A, 290.0), (B, 220.0)):
    em.c["prompt"] += r["p"]; em.c["gen"] += r["done"]
    em.c["prefix_q"] += r["p"]; em.c["prefix_h"] += 0
    em.h["vllm:time_to_first_token_seconds"].observe(tt)
    em.h["vllm:time_per_output_token_seconds"].observe(0.07, r["done"] - 1)
running = [A, B]
waiting = []
arrivals = {65: {"name": "C", "p": 400000, "o": 3000}, 200: {"name": "D", "p": 5100, "o": 600}}
PREFILL_TPS = 8000.0
scrapes, logs = [], []
win = {"p": 0, "g": 0, "q": 0, "h": 0}
state = []
for sec in range(-1, (N - 1) * INTERVAL + 1):
    now = T0 + sec
    if sec in arrivals:
        r = dict(arrivals[sec]); r.update({"arr": now, "done": 0, "pf": 0, "first": None})
        waiting.append(r)
    # admission: FCFS, stop at the first request that does not fit (capacity)
    used = sum(x["pf"] if x.get("first") is None and "pf" in x else x["p"] + x["done"] for x in running)
    while waiting and len(running) < 4:
        r = waiting[0]
        if used + r["p"] > POOL:
            break
        waiting.pop(0)
        r["sched"] = now
        running.append(r)
        used += r["p"]  # blocks for the whole prompt are counted as they are filled below
        em.c["prefix_q"] += r["p"]; win["q"] += r["p"]
    # one second of engine work: prefills share the step budget with decodes
    budget = PREFILL_TPS
    for r in running:
        if r.get("first") is None:
            take = min(budget, r["p"] - r["pf"])
            r["pf"] += take
            budget -= take
            if r["pf"] >= r["p"]:
                r["first"] = now
                tt = now - r["arr"]
                em.h["vllm:time_to_first_token_seconds"].observe(tt)
                em.c["prompt"] += r["p"]; win["p"] += r["p"]
                r["done"] = 1; em.c["gen"] += 1; win["g"] += 1
    fin = []
    for r in running:
        if r.get("first") is not None and r["first"] < now:
            rate = 14 + rng.randint(-1, 2)
            adv = min(rate, r["o"] - r["done"])
            r["done"] += adv; em.c["gen"] += adv; win["g"] += adv
            em.h["vllm:time_per_output_token_seconds"].observe(1.0 / rate, adv)
            if r["done"] >= r["o"]:
                fin.append(r)
    for r in fin:
        running.remove(r)
        sched = r.get("sched", r["arr"] + 5)
        em.finish(r["p"], r["o"], 32768, now - r["arr"], sched - r["arr"], r["first"] - sched, now - r["first"])
    used = 0
    for r in running:
        used += (r["p"] + r["done"]) if r.get("first") is not None else r["pf"]
    em.running = len(running)
    em.waiting = len(waiting)
    em.kv = used / POOL
    if nrun := sum(1 for r in running if r.get("first") is not None):
        em.h["vllm:iteration_tokens_total"].observe(nrun, 14)
    if sec >= 0 and sec % 10 == 0:
        logs.append((now, win["p"] / 10.0, win["g"] / 10.0, em.running, em.waiting, em.kv,
                     (win["h"] / win["q"] * 100) if win["q"] else 0.0))
        win = {"p": 0, "g": 0, "q": 0, "h": 0}
        text = render({0: em}, MODEL, {
            "block_size": "64", "cache_dtype": "auto", "enable_prefix_caching": "True",
            "gpu_memory_utilization": "0.85", "kv_cache_max_concurrency": "1.53",
            "kv_cache_size_tokens": str(POOL), "num_cpu_blocks": "None",
            "num_gpu_blocks": str(POOL // 64), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None"})
        extra = family("vllm:num_requests_waiting_by_reason", "gauge",
                       "Number of requests waiting to be processed, by reason.",
                       [("vllm:num_requests_waiting_by_reason",
                         {"engine": "0", "model_name": MODEL, "reason": rr}, float(v))
                        for rr, v in (("capacity", em.waiting), ("deferred", 0))])
        scrapes.append({"t": now, "status": 200, "text": text + "\n".join(extra) + "\n"})
        state.append((sec, em.running, em.waiting, round(em.kv, 3)))


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


Ap, E = "(APIServer pid=1)", "(EngineCore_DP0 pid=288)"
st = T0 - 5400
lg = [f"{Ap} INFO {ts(st)} [utils.py:299] non-default args: {{'model_tag': '/models/GLM-5.3-Flash-EXL3', 'served_model_name': ['{MODEL}'], 'max_model_len': 1000000, 'max_num_seqs': 4, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85, 'enable_prefix_caching': True}}",
      f"{E} INFO {ts(st+610)} [kv_cache_utils.py:1305] GPU KV cache size: {POOL:,} tokens",
      f"{E} INFO {ts(st+610)} [kv_cache_utils.py:1310] Maximum concurrency for 1,000,000 tokens per request: 1.53x",
      f"{Ap} INFO {ts(st+700)} [api_server.py:1500] Starting vLLM API server 0 on http://0.0.0.0:8000"]
for (t, p, g, run, wt, kv, ph) in logs:
    lg.append(f"{Ap} INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {p:.1f} tokens/s, Avg generation throughput: {g:.1f} tokens/s, Running: {run} reqs, Waiting: {wt} reqs, GPU KV cache usage: {kv*100:.1f}%, Prefix cache hit rate: {ph:.1f}%")
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://spark-a:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "interactive multi-client use; new chats wait minutes for a first token although only 2 of 4 slots are busy"}
server = {"version": {"version": "0.27.1rc1.dev88+g4c1e2f0a7"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": "/models/GLM-5.3-Flash-EXL3", "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": None, "args": {"max-model-len": MAXLEN, "max-num-seqs": 4, "tensor-parallel-size": 2,
                                      "gpu-memory-utilization": 0.85, "enable-prefix-caching": True}}
write_bundle(OUT, manifest, scrapes, server, engine_args, None, None, "\n".join(lg) + "\n")
for s in state[::3]:
    print(s)
