"""zyu-gdn-livelock-gb10-zero-tps: Qwen3.6-35B-A3B on one GB10, max-num-seqs 8; healthy for
~3 minutes, then the engine livelocks with 8 requests running and nothing computed."""
import random, sys, time, calendar
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from prom import Engine, render, write_bundle

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyu-gdn-livelock-gb10-zero-tps/bundle"
import os
rnd = random.Random(int(os.environ.get("SEED", "14")))
T0 = calendar.timegm((2026, 8, 21, 9, 40, 0))
IV, N = 10, 61
ONSET = 185           # seconds into the window when the engine stops computing
MAXSEQ, MML = 8, 65536
BLOCK, NBLK = 528, 3971
MODEL = "Qwen/Qwen3.6-35B-A3B-FP8"

e = Engine(MML)
waiting, running = [], []     # running: dict(p, n, done, t_arr, t_sched, t_first)
scrapes, logs = [], []
last_pt = last_gt = 0.0
acc_p = acc_g = 0
reqid = 0
logs.append("(APIServer pid=1) INFO 08-21 09:31:12 [kv_cache_utils.py:1314] GPU KV cache size: 2,096,688 tokens\n")
logs.append("(APIServer pid=1) INFO 08-21 09:31:12 [kv_cache_utils.py:1319] Maximum concurrency for 65,536 tokens per request: 31.99x\n")
logs.append("(APIServer pid=1) INFO 08-21 09:33:40 [api_server.py:1878] Starting vLLM API server 0 on http://0.0.0.0:8000\n")
stuck = False
onset_at = None
for s in range(0, IV * (N - 1) + 1):
    t = T0 + s
    if not stuck and s >= ONSET and len(running) == MAXSEQ and all(r["pf"] == r["p"] for r in running):
        stuck = True
        onset_at = s
    rate = 0.48 if not stuck else 0.1
    if rnd.random() < rate:
        reqid += 1
        waiting.append(dict(p=rnd.randint(1800, 5200), n=rnd.randint(300, 950), done=0, t_arr=s, pf=0))
    if not stuck:
        while waiting and len(running) < MAXSEQ:
            r = waiting.pop(0)
            r["t_sched"] = s
            running.append(r)
        # one second of engine work: prefill first (chunked, 8192 tok/step budget), then decode
        budget = 8192
        for r in running:
            if r["pf"] < r["p"] and budget > 0:
                k = min(budget, r["p"] - r["pf"])
                r["pf"] += k; budget -= k; acc_p += k; e.c["prompt"] += k
                e.c["prefix_q"] += k
                e.h["vllm:iteration_tokens_total"].observe(k)
                if r["pf"] == r["p"]:
                    r["t_first"] = s + 0.05 + k / 8192.0
                    e.first_token(r["t_first"] - r["t_arr"], 1024)
                    r["done"] = 1; acc_g += 1; e.c["gen"] += 1
        dec = [r for r in running if r["pf"] == r["p"] and r["done"] < r["n"]]
        if dec:
            per = min(48.0, 360.0 / len(dec))
            for r in dec:
                k = min(int(per + rnd.random()), r["n"] - r["done"])
                r["done"] += k; acc_g += k; e.c["gen"] += k
                e.h["vllm:inter_token_latency_seconds"].observe(1.0 / per, k)
            for _ in range(int(per)):
                e.h["vllm:iteration_tokens_total"].observe(len(dec))
        fin = [r for r in running if r["done"] >= r["n"]]
        for r in fin:
            running.remove(r)
            q = r["t_sched"] - r["t_arr"]
            pre = r["t_first"] - r["t_sched"]
            e.finish(r["p"], r["n"], 1024, q, pre, (s + 1) - r["t_first"], "stop")
    e.running, e.waiting = len(running), len(waiting)
    used = sum(r["pf"] + r["done"] for r in running)
    if not stuck or s == onset_at:
        e.kv = min(1.0, (used + 528 * len(running)) / (BLOCK * NBLK))
    if s % IV == 0:
        hs = time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
        scrapes.append({"t": t, "status": 200})
        if s > 0:
            pt, gt = acc_p / IV, acc_g / IV
            idle = not any((pt, gt, last_pt, last_gt))
            last_pt, last_gt = pt, gt
            acc_p = acc_g = 0
            if not idle:
                logs.append(f"(APIServer pid=1) INFO {hs} [loggers.py:271] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {e.running} reqs, Waiting: {e.waiting} reqs, "
                            f"GPU KV cache usage: {e.kv*100:.1f}%, Prefix cache hit rate: 0.0%\n")
        logs.append(f'(APIServer pid=1) INFO:     10.20.0.7:51432 - "GET /metrics HTTP/1.1" 200 OK\n')
        if (s // IV) % 3 == 0:
            logs.append(f'(APIServer pid=1) INFO:     127.0.0.1:40118 - "GET /health HTTP/1.1" 200 OK\n')
        scrapes[-1]["text"] = render({0: e}, MODEL, {
            "block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.8",
            "is_attention_free": "False", "kv_sharing_fast_prefill": "False",
            "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(NBLK), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None"})
    # POST access lines for new arrivals are not logged by default (request logging off)

write_bundle(OUT,
    {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://spark-01:8000",
     "started_at": T0, "ended_at": T0 + IV * (N - 1), "interval_s": float(IV),
     "notes": "captured while agents reported requests hanging; container not restarted yet"},
    scrapes,
    server={"version": {"version": "0.24.0rc1.dev412+g9e57de719"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                       "root": MODEL, "max_model_len": MML}]}, "health": 200},
    engine_args={"argv": None, "args": {"model": MODEL, "max-num-seqs": MAXSEQ, "max-model-len": MML,
                 "gpu-memory-utilization": 0.8, "attention-backend": "auto", "enable-prefix-caching": True,
                 "reasoning-parser": "qwen3"}},
    logs="".join(logs))
print("scrapes", len(scrapes), "onset", onset_at)
