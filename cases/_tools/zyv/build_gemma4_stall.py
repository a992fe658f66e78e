"""zyv-gemma4-long-prompt-stall-at-pool: vLLM 0.18.2rc1, gemma-4-26B-A4B AWQ, TP2 (2x RTX 4090 assumed).

Source: https://github.com/vllm-project/vllm/issues/40002. One 243,712-token prompt fills the pool after
~198,000 computed tokens (blocks fill 1.3677x faster than the reported token count, assumed), the two
running chats are preempted, and the engine stalls with Running 1 and usage 99.8%."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import epoch, manifest, stamp, write_json, write_jsonl  # noqa: E402
from v1prom import V1  # noqa: E402

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "zyv-gemma4-long-prompt-stall-at-pool")
OUT = os.path.join(CASE, "bundle")
MODEL = "gemma-4-26B-A4B-it-AWQ-4bit"
POOL = 271_360          # reported "GPU KV cache size" (assumed N)
F = 1.3677              # real block cost per reported token for this model (assumed)
MAXLEN = 262_144
LONG = 243_712
PREFILL = 2_200         # prompt tokens/s while the long prompt is prefilled
DEC = 28                # tokens/s per decoding chat
INTERVAL = 10.0
MiB = 1 << 20


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    t0 = epoch("2026-04-20 09:00:00")
    n = 60
    m = V1(MODEL, MAXLEN, {"block_size": "16", "cache_dtype": "fp8", "calculate_kv_scales": "False",
                           "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                           "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL // 16),
                           "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
                           "sliding_window": "None", "swap_space": "0"})
    # history before the window (40 finished requests)
    for i in range(40):
        m.h["ptok"].observe(2600 + 37 * i)
        m.h["gtok"].observe(480 + 11 * i)
        m.h["ttft"].observe(0.45 + 0.01 * i)
        m.h["itl"].observe(0.034, 500)
        m.h["e2e"].observe(15.0 + 0.3 * i)
        m.h["queue"].observe(0.02)
        m.h["prefill"].observe(0.42 + 0.01 * i)
        m.h["decode"].observe(14.5 + 0.3 * i)
        m.h["iter"].observe(2600 + 37 * i)
        m.h["iter"].observe(2, 480 + 11 * i)
        m.c["pt"] += 2600 + 37 * i
        m.c["gt"] += 480 + 11 * i
        m.c["pq"] += 2600 + 37 * i
        m.c["ph"] += 1024
        m.succ["stop"] += 1
    # the two chats already running (prefilled before the window)
    chats = [18_000, 22_000]
    for c in chats:
        m.c["pt"] += c - 900
        m.c["pq"] += c - 900
        m.c["ph"] += 1024
        m.c["gt"] += 900
    chats_alive = True
    L = 0
    long_in = False
    waiting = 0
    arrivals = {260: 1, 330: 1, 420: 1, 500: 1}
    short = {"start": 30, "end": 50, "p": 1500, "g": 420}
    metrics, gpu, logs = [], [], []
    logs += startup_log(t0 - 480)
    pq_prev, ph_prev = m.c["pq"], m.c["ph"]
    last_thr = (0.0, 56.0)
    for k in range(n):
        t_rel = k * INTERVAL
        t = t0 + t_rel
        pt0, gt0 = m.c["pt"], m.c["gt"]
        if k > 0:
            a, b = t_rel - INTERVAL, t_rel  # interval (a, b]
            running_dec = 2 if chats_alive else 0
            # short request within the window
            if a < short["start"] <= b:
                m.c["pt"] += short["p"]
                m.c["pq"] += short["p"]
                m.c["ph"] += 1024
                logs.append(f"(APIServer pid=1) INFO:     10.0.3.21:51344 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            if a < short["end"] <= b:
                m.c["gt"] += short["g"]
                m.succ["stop"] += 1
                m.h["ptok"].observe(short["p"]); m.h["gtok"].observe(short["g"])
                m.h["ttft"].observe(0.62); m.h["itl"].observe(0.036, short["g"] - 1)
                m.h["e2e"].observe(16.1); m.h["queue"].observe(0.02); m.h["prefill"].observe(0.6)
                m.h["decode"].observe(15.5); m.h["iter"].observe(short["p"] + 2)
            # long prompt arrives at 120 s
            if a < 120 <= b:
                long_in = True
                m.c["pq"] += LONG
                logs.append("(APIServer pid=1) INFO:     10.0.3.17:40118 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            # decode of chats
            dec_secs = INTERVAL
            if long_in and L < 198_000 and b > 120:
                add = PREFILL * min(INTERVAL, b - 120)
                newL = L + add
                if chats_alive and F * (sum(chats) + DEC * 2 * INTERVAL + newL) >= POOL * 0.99999:
                    # pool full mid-interval: preempt the chats (FCFS victims are the newest? here the chats)
                    dec_secs = 6.0
                    chats_alive = False
                    m.c["pre"] += 2
                    waiting += 2
                L = min(newL, 198_000)
                m.c["pt"] += int(add)
                steps = int(add // 8192) + 1
                m.h["iter"].observe(8194, steps)
            if running_dec:
                g = int(DEC * 2 * dec_secs)
                m.c["gt"] += g
                chats[0] += g // 2
                chats[1] += g - g // 2
                m.h["itl"].observe(0.036 if not long_in else 0.21, g)
                m.h["iter"].observe(2, int(dec_secs * DEC))
            for ta, w in arrivals.items():
                if a < ta <= b:
                    waiting += w
                    m.c["pq"] += 0  # never scheduled: not queried
                    logs.append("(APIServer pid=1) INFO:     10.0.3.21:5" + str(2000 + ta) + " - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
        running = (2 if chats_alive else 0) + (1 if long_in else 0) + (1 if short["start"] <= t_rel < short["end"] else 0)
        used = (sum(chats) if chats_alive else 0) + L + (short["p"] + 200 if short["start"] <= t_rel < short["end"] else 0)
        m.running, m.waiting = running, waiting
        m.kv = min(F * used / POOL, 0.998)
        metrics.append({"t": t, "status": 200, "text": m.text()})
        if k > 0:
            pthr = (m.c["pt"] - pt0) / INTERVAL
            gthr = (m.c["gt"] - gt0) / INTERVAL
            dq, dh = m.c["pq"] - pq_prev, m.c["ph"] - ph_prev
            hit = 100.0 * m.c["ph"] / m.c["pq"]
            # LoggingStatLogger demotes the line to DEBUG when this and the last interval were idle
            if pthr or gthr or last_thr[0] or last_thr[1]:
                logs.append(f"(APIServer pid=1) INFO {stamp(t)} [loggers.py:259] Engine 000: Avg prompt throughput: "
                        f"{pthr:.1f} tokens/s, Avg generation throughput: {gthr:.1f} tokens/s, Running: {running} reqs, "
                            f"Waiting: {waiting} reqs, GPU KV cache usage: {m.kv * 100:.1f}%, Prefix cache hit rate: {hit:.1f}%")
            last_thr = (pthr, gthr)
        logs.append(f"(APIServer pid=1) INFO:     10.0.9.4:38110 - \"GET /metrics HTTP/1.1\" 200 OK")
        gpu.append({"t": t, "devices": [
            {"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": 24564 * MiB,
             "memory_used": (22871 + 3 * i) * MiB,
             "processes": [{"pid": 402 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": (22610 + 3 * i) * MiB}]}
            for i in range(2)]})
    t1 = t0 + (n - 1) * INTERVAL
    manifest(OUT, "http://gemma4-box:8000", t0, t1, INTERVAL,
             "Recorded during the hang: an agent's long prompt came in at 09:02 and the server stopped answering.")
    write_jsonl(os.path.join(OUT, "metrics.jsonl"), metrics)
    write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)
    argv = ["vllm", "serve", "--model", "/models/" + MODEL, "--max-model-len", "262144", "--max-num-seqs", "4",
            "--tensor-parallel-size", "2", "--enable-expert-parallel", "--tokenizer-mode", "auto",
            "--gpu-memory-utilization", "0.90", "--dtype", "auto", "--runner", "generate",
            "--kv-cache-dtype", "fp8", "--structured-outputs-config", "{\"backend\":\"xgrammar\"}",
            "--enable-prefix-caching", "--enable-chunked-prefill", "--reasoning-parser", "gemma4",
            "--enable-auto-tool-choice", "--tool-call-parser", "gemma4"]
    write_json(os.path.join(OUT, "engine_args.json"), {"argv": argv, "args": {
        "model": "/models/" + MODEL, "max-model-len": 262144, "max-num-seqs": 4, "tensor-parallel-size": 2,
        "enable-expert-parallel": True, "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8",
        "enable-prefix-caching": True, "enable-chunked-prefill": True, "reasoning-parser": "gemma4",
        "enable-auto-tool-choice": True, "tool-call-parser": "gemma4"}})
    write_json(os.path.join(OUT, "server.json"), {
        "version": {"version": "0.18.2rc1.dev73+gdb7a17ecc"},
        "models": {"object": "list", "data": [{"id": "/models/" + MODEL, "object": "model", "created": int(t0),
                                               "owned_by": "vllm", "root": "/models/" + MODEL, "parent": None,
                                               "max_model_len": MAXLEN}]},
        "health": 200})
    with open(os.path.join(OUT, "logs.txt"), "w") as f:
        f.write("\n".join(logs) + "\n")


def startup_log(ts: float) -> list[str]:
    s = stamp
    return [
        f"(APIServer pid=1) INFO {s(ts)} [utils.py:233] non-default args: {{'model': '/models/{MODEL}', "
        "'max_model_len': 262144, 'max_num_seqs': 4, 'tensor_parallel_size': 2, 'enable_expert_parallel': True, "
        "'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, "
        "'enable_chunked_prefill': True, 'reasoning_parser': 'gemma4', 'enable_auto_tool_choice': True, "
        "'tool_call_parser': 'gemma4'}",
        f"(EngineCore_DP0 pid=310) INFO {s(ts + 95)} [gpu_model_runner.py:4102] Model loading took 7.62 GiB memory",
        f"(Worker_TP0 pid=402) INFO {s(ts + 170)} [gpu_worker.py:440] Available KV cache memory: 9.87 GiB",
        f"(Worker_TP1 pid=403) INFO {s(ts + 170)} [gpu_worker.py:440] Available KV cache memory: 9.87 GiB",
        f"(EngineCore_DP0 pid=310) INFO {s(ts + 171)} [kv_cache_utils.py:1319] GPU KV cache size: 271,360 tokens",
        f"(EngineCore_DP0 pid=310) INFO {s(ts + 171)} [kv_cache_utils.py:1324] Maximum concurrency for 262,144 tokens per request: 1.04x",
        f"(APIServer pid=1) INFO {s(ts + 240)} [api_server.py:1918] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]


if __name__ == "__main__":
    main()
