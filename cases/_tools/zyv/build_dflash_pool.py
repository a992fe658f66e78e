"""zyv-dflash-graph-estimate-small-pool: vLLM 0.20.2, Qwen3.6-35B-A3B-FP8 + DFlash, A800 80GB, util 0.62.

Source: https://github.com/vllm-project/vllm/issues/46462. Closed-loop 16 requests against an 83-block
(528 tokens/block) pool where each request also holds 2 fixed blocks (assumed): usage ~100%, steady
preemptions. 1 s simulation ticks, 5 s scrapes, 5 minutes."""
from __future__ import annotations

import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import epoch, manifest, stamp, write_json, write_jsonl  # noqa: E402
from v1prom import V1  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "zyv-dflash-graph-estimate-small-pool", "bundle")
SERVED = "qwen36_35b_a3b"
BLOCKS, BS, FIXED = 83, 528, 2
CONC, RATE = 16, 40       # requests in flight, tokens/s per running request
PREFILL_TPS = 12000       # prompt tokens/s (chunked prefill budget share)
INTERVAL, N = 5.0, 61
WARM = 60                # ticks simulated before the capture starts (rounds already running)
OFFSET = 2               # seconds of the first scrape after the rounds start (tick phase)
SHARED = 1056             # few-shot prefix shared by all prompts (2 blocks)


class Req:
    _id = 0

    def __init__(self, rng, t):
        Req._id += 1
        self.id = Req._id
        self.p = rng.randint(1400, 1600)
        self.out = rng.randint(400, 1000)
        self.g = 0
        self.arr = t
        self.first = None
        self.sched = None
        self.computed = False
        self.pre = 0


def need(r):
    # one of the FIXED blocks (the drafter's lookahead) is only taken at the request's first decode step
    return math.ceil((r.p + r.g) / BS) + (FIXED if getattr(r, "dec", False) else FIXED - 1)


def main():
    rng = random.Random(47)
    os.makedirs(OUT, exist_ok=True)
    t0 = epoch("2026-06-23 10:40:00")
    m = V1(SERVED, 8192, {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
                          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.62",
                          "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
                          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256_cbor",
                          "sliding_window": "None", "swap_space": "4.0"})
    running, waiting = [], []
    metrics, logs = [], []
    logs += startup(t0 - 300)
    last = (0.0, 0.0)
    prev = None
    T = int((N - 1) * INTERVAL) + WARM
    for tick in range(0, T + 1):
        t = float(tick)
        if tick == 5:
            for _ in range(CONC):
                waiting.append(Req(rng, t))
        if tick > 0:
            # decode
            for r in list(running):
                if getattr(r, "fresh", False):
                    r.fresh = False
                    if r.first is None:
                        r.first = t
                        m.h["ttft"].observe(t - r.arr + 0.35)
                    continue
                step = min(RATE, r.out - r.g)
                newg = r.g + step
                while math.ceil((r.p + newg) / BS) + FIXED > need(r) and \
                        sum(need(x) for x in running) + math.ceil((r.p + newg) / BS) + FIXED - need(r) > BLOCKS \
                        and r in running:
                    victim = running[-1]
                    running.remove(victim)
                    victim.pre += 1
                    m.c["pre"] += 1
                    waiting.insert(0, victim)
                    logs.append(None)  # placeholder, nothing logged per preemption in V1
                    if victim is r:
                        break
                if r not in running:
                    continue
                r.g = newg
                r.dec = True
                m.c["gt"] += step
                m.h["itl"].observe(1.0 / RATE * 2.6, step)  # slow per-token gaps (DFlash + prefill steps)
                if r.g >= r.out:
                    running.remove(r)
                    m.succ["length" if r.out == 1000 else "stop"] += 1
                    m.h["ptok"].observe(r.p); m.h["gtok"].observe(r.g)
                    e2e = t - r.arr + 0.4
                    m.h["e2e"].observe(e2e); m.h["prefill"].observe(0.35)
                    m.h["decode"].observe(max(e2e - (r.first - r.arr) - 0.35, 0.1))
                    waiting.append(Req(rng, t))  # closed loop
            # admission (FCFS), prefill takes this tick
            used = sum(need(r) for r in running)
            while waiting and used + need(waiting[0]) <= BLOCKS:
                r = waiting.pop(0)
                used += need(r)
                toks = r.p + r.g
                # new requests hit the shared few-shot prefix; a preempted request returns after its blocks
                # (and the linear-attention state at the prefix boundary) were evicted: full recompute (assumed)
                hit = 0 if r.computed else SHARED
                m.c["pq"] += toks
                m.c["ph"] += hit
                m.c["pt"] += toks - hit
                m.h["iter"].observe(min(toks - hit, 8192))
                if r.sched is None:
                    r.sched = t
                    m.h["queue"].observe(t - r.arr)
                r.computed = True
                r.dec = False
                r.fresh = True
                running.append(r)
            m.h["iter"].observe(len(running) * 7 if running else 1)
        if os.environ.get("ZYV_DUMP"):
            print(tick, sum(need(r) for r in running) / BLOCKS, len(running), m.c["pt"], m.c["pre"])
        if tick >= WARM and tick % int(INTERVAL) == OFFSET:
            m.running, m.waiting = len(running), len(waiting)
            m.kv = sum(need(r) for r in running) / BLOCKS
            metrics.append({"t": t0 + t - WARM, "status": 200, "text": m.text()})
            if prev is not None:
                pthr = (m.c["pt"] - prev[0]) / INTERVAL
                gthr = (m.c["gt"] - prev[1]) / INTERVAL
                if pthr or gthr or last[0] or last[1]:
                    hit = 100.0 * m.c["ph"] / max(m.c["pq"], 1)
                    logs.append(f"(APIServer pid=29601) INFO {stamp(t0 + t - WARM)} [loggers.py:271] Engine 000: Avg prompt "
                                f"throughput: {pthr:.1f} tokens/s, Avg generation throughput: {gthr:.1f} tokens/s, "
                                f"Running: {len(running)} reqs, Waiting: {len(waiting)} reqs, GPU KV cache usage: "
                                f"{m.kv * 100:.1f}%, Prefix cache hit rate: {hit:.1f}%")
                last = (pthr, gthr)
            prev = (m.c["pt"], m.c["gt"])
    logs = [l for l in logs if l is not None]
    t1 = metrics[-1]["t"]
    t0 = metrics[0]["t"]
    manifest(OUT, "http://a800-node:10024", t0, t1, INTERVAL,
             "AISBench gsm8k-4-shot at concurrency 16 against vLLM 0.20.2 with DFlash; captured over repeated rounds.")
    write_jsonl(os.path.join(OUT, "metrics.jsonl"), metrics)
    gib = 1 << 30
    gpu = [{"t": r["t"], "devices": [{"index": 0, "name": "NVIDIA A800-SXM4-80GB", "memory_total": 85899345920,
                                      "memory_used": int(50.2 * gib),
                                      "processes": [{"pid": 29723, "name": "VLLM::EngineCore",
                                                     "used_memory": int(49.7 * gib)}]}]} for r in metrics]
    write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)
    spec = '{"method": "dflash", "model": "/data/xxx/models/Qwen3.6-35B-A3B-Dflash/", "num_speculative_tokens": 6}'
    argv = ["vllm", "serve", "/data/xxx/models/Qwen3.6-35B-A3B-FP8", "--served-model-name", SERVED, "--host",
            "0.0.0.0", "--port", "10024", "--gpu-memory-utilization", "0.62", "--tensor-parallel-size", "1",
            "--trust-remote-code", "--max-model-len", "8192", "--enable-prefix-caching", "--enable-chunked-prefill",
            "--speculative-config", spec, "--attention-backend", "flash_attn", "--max-num-seqs", "24"]
    write_json(os.path.join(OUT, "engine_args.json"), {"argv": argv, "args": {
        "model": "/data/xxx/models/Qwen3.6-35B-A3B-FP8", "served-model-name": SERVED, "gpu-memory-utilization": 0.62,
        "tensor-parallel-size": 1, "max-model-len": 8192, "enable-prefix-caching": True,
        "enable-chunked-prefill": True, "speculative-config": spec, "attention-backend": "flash_attn",
        "max-num-seqs": 24}})
    write_json(os.path.join(OUT, "server.json"), {
        "version": {"version": "0.20.2"},
        "models": {"object": "list", "data": [{"id": SERVED, "object": "model", "created": int(t0), "owned_by": "vllm",
                                               "root": "/data/xxx/models/Qwen3.6-35B-A3B-FP8", "parent": None,
                                               "max_model_len": 8192}]},
        "health": 200})
    with open(os.path.join(OUT, "logs.txt"), "w") as f:
        f.write("\n".join(logs) + "\n")


def startup(ts):
    s = stamp
    e = "(EngineCore pid=29723)"
    return [
        f"{e} INFO {s(ts + 160)} [monitor.py:81] Initial profiling/warmup run took 0.14 s",
        f"{e} WARNING {s(ts + 169)} [kv_cache_utils.py:1152] Add 2 padding layers, may waste at most 6.67% KV cache memory",
        f"{e} WARNING {s(ts + 169)} [kv_cache_utils.py:1152] Add 6 padding layers, may waste at most 60.00% KV cache memory",
        f"{e} INFO {s(ts + 169)} [gpu_model_runner.py:5963] Profiling CUDA graph memory: PIECEWISE=38 (largest=336), FULL=22 (largest=168)",
        f"{e} INFO {s(ts + 174)} [gpu_model_runner.py:6042] Estimated CUDA graph memory: 6.24 GiB total",
        f"{e} INFO {s(ts + 174)} [gpu_worker.py:440] Available KV cache memory: 5.16 GiB",
        f"{e} INFO {s(ts + 174)} [gpu_worker.py:455] CUDA graph memory profiling is enabled (default since v0.21.0). "
        "The current --gpu-memory-utilization=0.6200 is equivalent to --gpu-memory-utilization=0.5413 without CUDA graph "
        "memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization "
        "to 0.6987. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
        f"{e} INFO {s(ts + 175)} [kv_cache_utils.py:1311] GPU KV cache size: 43,824 tokens",
        f"{e} INFO {s(ts + 175)} [kv_cache_utils.py:1316] Maximum concurrency for 8,192 tokens per request: 5.35x",
    ]


if __name__ == "__main__":
    main()
