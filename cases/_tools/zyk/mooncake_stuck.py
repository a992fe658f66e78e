"""zyk-mooncake-decode-stuck-remote-kvs: decode instance of a 1P1D MooncakeConnector
deployment (vLLM 0.16.0, Llama-3.1-8B, H100-80GB). From t=180 s pulls fail; each
failed pull leaves a request in WAITING_FOR_REMOTE_KVS holding its blocks forever.
Run from the worktree root: python cases/_tools/zyk/mooncake_stuck.py"""
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle  # noqa
from v1prom import EngineMetrics, render  # noqa

OUT = "cases/zyk-mooncake-decode-stuck-remote-kvs/bundle"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
T0 = 1772546400  # 2026-03-03 14:00:00 UTC
INTERVAL, N = 10, 88
BLOCK = 16
NUM_BLOCKS = 28160  # 450,560 tokens
SHARED = 2496  # shared system/tool prefix, cached once
SHARED_BLK = SHARED // BLOCK
MAXSEQ = 128
RATE = 7.5
TICK = 0.25
FAIL_LATE = float(os.environ.get('FAIL_LATE', '0.02'))
rng = random.Random(35943)
em = EngineMetrics(32768)


def fail_prob(t):
    rel = t - T0
    if rel < 180:
        return 0.0
    if rel < 200:
        return 0.15
    return FAIL_LATE


waiting = []   # not yet allocated: dicts
pulling = []   # allocated, pull in flight: (ready_time, req)
stuck = []     # allocated, pull failed, never released
running = []
used = SHARED_BLK
log_lines, errs = [], []
win = {"p": 0, "g": 0, "pq": 0, "ph": 0, "eq": 0, "eh": 0}
rid = 0
state_samples = []


def newreq(t):
    global rid
    rid += 1
    p = max(2600, int(rng.gauss(6000, 900)))
    o = max(30, min(512, int(rng.gauss(250, 70))))
    return {"id": "%016x" % rng.getrandbits(64), "p": p, "o": o, "arr": t, "done": 0,
            "blocks": 0, "recompute": False}


def need_blocks(r):
    return math.ceil((r["p"] - SHARED + r["done"] + 1) / BLOCK)


now = T0 - 300.0
next_log = T0 - 300.0 + 10
next_scrape = T0
scrapes, gpu = [], []
while next_scrape <= T0 + (N - 1) * INTERVAL:
    now += TICK
    # arrivals
    k = 0
    lam = RATE * TICK
    x = rng.random()
    pcum = math.exp(-lam)
    acc = pcum
    while x > acc:
        k += 1
        pcum *= lam / k
        acc += pcum
    for _ in range(k):
        waiting.append(newreq(now))
    # pulls completing
    still = []
    for (rt, r) in pulling:
        if now >= rt:
            r["sched"] = now
            r["first"] = now + 0.03
            em.h["vllm:time_to_first_token_seconds"].observe(r["first"] - r["arr"])
            em.c["prompt"] += r["p"]; win["p"] += r["p"]
            em.c["gen"] += 1; win["g"] += 1
            r["done"] = 1
            running.append(r)
        else:
            still.append((rt, r))
    pulling = still
    # admission, FCFS, stops at the first that does not fit
    while waiting and len(running) + len(pulling) < MAXSEQ:
        r = waiting[0]
        nb = need_blocks(r)
        if used + nb > NUM_BLOCKS:
            break
        waiting.pop(0)
        used += nb
        r["blocks"] = nb
        em.c["prefix_q"] += r["p"]; em.c["prefix_h"] += SHARED
        win["pq"] += r["p"]; win["ph"] += SHARED
        if r["recompute"]:
            # local recompute after preemption: prefill prompt+generated on D
            pf = (r["p"] + r["done"]) / 14000.0
            em.c["prompt"] += r["p"]; win["p"] += r["p"]
            r["resume"] = now + pf
            running.append(r)
            continue
        em.c["ext_q"] += r["p"] - SHARED; win["eq"] += r["p"] - SHARED
        if rng.random() < fail_prob(now):
            stuck.append(r)
            errs.append((now + rng.uniform(0.5, 2.0), r["id"]))
        else:
            em.c["ext_h"] += r["p"] - SHARED; win["eh"] += r["p"] - SHARED
            pulling.append((now + rng.uniform(0.12, 0.3), r))
    # decode
    nrun = len(running)
    itl = 0.012 + 0.00022 * nrun
    steps = TICK / itl
    fin = []
    for r in running:
        if r.get("resume", 0) > now:
            continue
        adv = min(int(steps + rng.random()), r["o"] - r["done"])
        before = r["done"]
        r["done"] += adv
        em.c["gen"] += adv; win["g"] += adv
        em.h["vllm:time_per_output_token_seconds"].observe(itl * rng.uniform(0.95, 1.1), adv)
        grow = need_blocks(r) - r["blocks"]
        if grow > 0:
            r["blocks"] += grow
            used += grow
        if r["done"] >= r["o"]:
            fin.append(r)
    if nrun:
        em.h["vllm:iteration_tokens_total"].observe(nrun, int(steps))
    for r in fin:
        running.remove(r)
        used -= r["blocks"]
        e2e = now - r["arr"]
        pf = r["first"] - r["sched"]
        em.finish(r["p"], r["o"], 512, e2e, r["sched"] - r["arr"], pf, now - r["first"])
    # over-commit -> preempt newest running (recompute), stuck ones cannot be preempted
    while used > NUM_BLOCKS and running:
        v = running.pop()
        used -= v["blocks"]
        v["blocks"] = 0
        v["recompute"] = True
        waiting.insert(0, v)
        em.c["preempt"] += 1
    em.running = len(running)
    em.waiting = len(waiting) + len(pulling) + len(stuck)
    em.kv = used / NUM_BLOCKS
    if now >= next_log:
        log_lines.append((next_log, win["p"] / 10.0, win["g"] / 10.0, em.running, em.waiting, em.kv,
                          (win["ph"] / win["pq"] * 100) if win["pq"] else 0.0,
                          (win["eh"] / win["eq"] * 100) if win["eq"] else 0.0))
        for kk in win:
            win[kk] = 0
        next_log += 10
    if now >= next_scrape:
        scrapes.append({"t": next_scrape, "status": 200, "text": render({0: em}, MODEL, {
            "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
            "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
            "mamba_page_size_padded": "None", "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
            "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * 1024 ** 3)})})
        mem = int(72.6 * 1024 ** 3) + rng.randint(0, 3) * 1024 ** 2
        gpu.append({"t": next_scrape, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3",
                    "memory_total": 85520809984, "memory_used": mem,
                    "processes": [{"pid": 412, "name": "VLLM::EngineCore", "used_memory": mem - 560 * 1024 ** 2}]}]})
        state_samples.append((next_scrape - T0, em.running, em.waiting, len(stuck), round(em.kv, 3),
                              em.c["preempt"], sum(em.success.values())))
        next_scrape += INTERVAL


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


lg = []
st = T0 - 1500
A, E = "(APIServer pid=1)", "(EngineCore_DP0 pid=412)"
lg.append(f"{A} INFO {ts(st)} [api_server.py:1885] vLLM API server version 0.16.0")
lg.append(f"{A} INFO {ts(st)} [utils.py:328] non-default args: {{'model': '{MODEL}', 'port': 8200, 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 128, 'kv_transfer_config': KVTransferConfig(kv_connector='MooncakeConnector', kv_role='kv_consumer')}}")
lg.append(f"{E} INFO {ts(st+30)} [gpu_model_runner.py:2850] Model loading took 14.9889 GiB and 12.41 seconds")
lg.append(f"{E} INFO {ts(st+55)} [kv_cache_utils.py:1087] GPU KV cache size: 450,560 tokens")
lg.append(f"{E} INFO {ts(st+55)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 13.75x")
lg.append(f"{E} INFO {ts(st+70)} [core.py:210] init engine (profile, create kv cache, warmup model) took 38.20 seconds")
lg.append(f"{A} INFO {ts(st+72)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8200")
events = []
for (t, p, g, run, wt, kv, ph, eh) in log_lines:
    if t < T0 - 60:
        continue
    events.append((t, f"{A} INFO {ts(t)} [loggers.py:257] Engine 000: Avg prompt throughput: {p:.1f} tokens/s, Avg generation throughput: {g:.1f} tokens/s, Running: {run} reqs, Waiting: {wt} reqs, GPU KV cache usage: {kv*100:.1f}%, Prefix cache hit rate: {ph:.1f}%, External prefix cache hit rate: {eh:.1f}%"))
for (t, i) in errs:
    if t <= T0 + (N - 1) * INTERVAL:
        events.append((t, f"{E} ERROR {ts(t)} [mooncake_connector.py:1043] pulling kv_caches for ['{i}'] failed: batch_transfer_sync_read returned -1"))
events.sort(key=lambda x: x[0])
lg += [e for _, e in events]

manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://decode-0:8200",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "decode instance of a 1P1D Mooncake deployment; users report first tokens taking longer and longer"}
server = {"version": {"version": "0.16.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": 32768}]},
          "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--port", "8200", "--max-model-len", "32768",
                        "--gpu-memory-utilization", "0.9", "--max-num-seqs", "128", "--kv-transfer-config",
                        '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'],
               "args": {"model": MODEL, "port": 8200, "max-model-len": 32768, "gpu-memory-utilization": 0.9,
                        "max-num-seqs": 128,
                        "kv-transfer-config": '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'}}
model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000,
                "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu",
                "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 131072,
                "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
                "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
                "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "vocab_size": 128256}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, gpu, "\n".join(lg) + "\n")
for s in state_samples[::6]:
    print(s)
print("last", state_samples[-1], "errors", len([e for e in errs if e[0] <= T0 + 900]))
