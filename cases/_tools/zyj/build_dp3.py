"""zyj-dp3-shared-gpu0-runtime-oom: container A (DP 3, util 0.821) shares GPU 0 with a
smaller vLLM server B; ten minutes of ordinary traffic, then DP rank 0 OOMs on GPU 0
(~0.15 GiB free) and the API server stops answering."""
import os, random, time
from common import GIB, write_json, write_jsonl, bundle_dir, manifest
from v1expo import Engine, exposition

CASE = "zyj-dp3-shared-gpu0-runtime-oom"
MODEL = "unsloth/Qwen3.8-Flash-Next-FP8"
d = bundle_dir(CASE)
rnd = random.Random(54354)
T0 = 1788000000.0           # 2026-08-29 10:40:00 UTC
DT = 10.0
OOM = T0 + 562.0
T1 = T0 + 600.0
CARD = 94.97 * GIB
BUDGET = 0.821 * 94.97 * GIB     # 77.97 GiB
GRAPH = 2.3 * GIB
A_RANK = BUDGET + GRAPH          # ~80.27 GiB
B_USED = 14.55 * GIB
POOL_TOKENS = 1_451_008          # per engine (assumed)
BLOCK = 16

manifest(d, "http://chat-a:8000", T0, T1, DT,
         "Container A (DP 3 + EP, one API server) scraped every 10 s; NVML sampled on the host "
         "(sees both containers); container A's log attached.")

engines = [Engine(i) for i in range(3)]
cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.821",
              "is_attention_free": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(POOL_TOKENS // BLOCK), "prefix_caching_hash_algo": "sha256",
              "sliding_window": "None", "swap_space": "4.0"}
rows, stat_lines = [], []
t = T0
while t <= T1 + 1e-6:
    if t > OOM:
        rows.append({"t": t, "error": "GET http://chat-a:8000/metrics: connection refused"})
        t += DT
        continue
    for e in engines:
        arrivals = rnd.randint(4, 8)
        fin = rnd.randint(4, 8)
        ptoks = sum(rnd.randint(2500, 9000) for _ in range(arrivals))
        hits = int(ptoks * rnd.uniform(0.35, 0.55)) // BLOCK * BLOCK
        gtoks = fin * rnd.randint(450, 900)
        e.c["prompt_tokens"] += ptoks
        e.c["prefix_cache_queries"] += ptoks
        e.c["prefix_cache_hits"] += hits
        e.c["generation_tokens"] += gtoks
        for _ in range(fin):
            e.success["stop" if rnd.random() < 0.93 else "length"] += 1
            e.ttft.observe(round(rnd.uniform(0.18, 0.9), 4))
            e.e2e.observe(round(rnd.uniform(6.0, 24.0), 3))
        for _ in range(gtoks // 20):
            e.itl.observe(round(rnd.uniform(0.012, 0.03), 5), 20)
        e.running = rnd.randint(9, 16)
        e.waiting = 0
        e.kv = e.running * rnd.uniform(6500, 9500) / POOL_TOKENS
    if t >= T0 + DT:
        rows.append({"t": t, "status": 200, "text": exposition(MODEL, engines, cache_info)})
        s = time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
        for e in engines:
            stat_lines.append((t, f"(APIServer pid=1) INFO {s} [loggers.py:248] Engine {int(e.idx):03d}: Avg prompt throughput: {rnd.uniform(3000, 6000):.1f} tokens/s, Avg generation throughput: {rnd.uniform(380, 640):.1f} tokens/s, Running: {e.running} reqs, Waiting: 0 reqs, GPU KV cache usage: {e.kv*100:.1f}%, Prefix cache hit rate: {rnd.uniform(35, 55):.1f}%"))
    t += DT
write_jsonl(os.path.join(d, "metrics.jsonl"), rows)

write_json(os.path.join(d, "server.json"), {
    "version": {"version": "0.1.dev20073+g8e685d198"},
    "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                           "root": MODEL, "max_model_len": 256000}]},
    "health": 200})
argv = ["vllm", "serve", MODEL, "--data-parallel-size", "3", "--enable-expert-parallel",
        "--gpu-memory-utilization", "0.821", "--max-model-len", "256000",
        "--max-num-batched-tokens", "24000", "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":2}']
write_json(os.path.join(d, "engine_args.json"), {"argv": argv, "args": {
    "model": MODEL, "data-parallel-size": 3, "enable-expert-parallel": True,
    "gpu-memory-utilization": 0.821, "max-model-len": 256000, "max-num-batched-tokens": 24000,
    "speculative-config": {"method": "mtp", "num_speculative_tokens": 2}}})

g = []
t = T0
while t <= T1 + 1e-6:
    devs = []
    for i in range(3):
        procs = []
        if t <= OOM + 3 or i != 0:
            a = int(A_RANK + rnd.uniform(-0.02, 0.02) * GIB) if t <= OOM + 3 else 0
        else:
            a = 0
        if t > OOM + 3:
            a = 0   # the whole DP group shuts down after engine 0 dies
        if a:
            procs.append({"pid": 3101 + i, "name": "VLLM::EngineCore", "used_memory": a})
        b = int(B_USED) if i == 0 else 0
        if b:
            procs.append({"pid": 7712, "name": "VLLM::EngineCore", "used_memory": b})
        used = a + b + int(0.62 * GIB)   # driver-reserved: NVML total 95.59 GiB vs 94.97 usable
        devs.append({"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                     "memory_total": 97887 * 1024 * 1024, "memory_used": used, "processes": procs})
    g.append({"t": t, "devices": devs})
    t += DT
write_jsonl(os.path.join(d, "gpu.jsonl"), g)

L = []
def lg(ts, msg):
    L.append((ts, msg))
def ts(x):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(x))
S = T0 - 900
lg(S, f"(APIServer pid=1) INFO {ts(S)} [api_server.py:1897] vLLM API server version 0.1.dev20073+g8e685d198")
for i in range(3):
    w = f"(EngineCore_DP{i} pid={3101+i})"
    lg(S + 300, f"{w} INFO {ts(S+300)} [gpu_model_runner.py:2653] Model loading took 41.87 GiB and 212.4 seconds")
    lg(S + 420, f"{w} INFO {ts(S+420)} [gpu_worker.py:298] Available KV cache memory: 32.04 GiB")
    lg(S + 421, f"{w} INFO {ts(S+421)} [kv_cache_utils.py:1087] GPU KV cache size: {POOL_TOKENS:,} tokens")
    lg(S + 421, f"{w} INFO {ts(S+421)} [kv_cache_utils.py:1091] Maximum concurrency for 256,000 tokens per request: 5.67x")
    lg(S + 470, f"{w} INFO {ts(S+470)} [gpu_model_runner.py:3481] Graph capturing finished in 41 secs, took 2.30 GiB")
    lg(S + 471, f"{w} INFO {ts(S+471)} [core.py:210] init engine (profile, create kv cache, warmup model) took 168.93 seconds")
lg(S + 480, f"(APIServer pid=1) INFO {ts(S+480)} [api_server.py:1968] Starting vLLM API server 0 on http://0.0.0.0:8000")
L += stat_lines
w = "(EngineCore_DP0 pid=3101)"
for m in ["EngineCore encountered a fatal error.", "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 869, in run_engine_core',
          "    engine_core.run_busy_loop()",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2287, in execute_model',
          "    model_output = self.model(",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 344.00 MiB. GPU 0 has a total capacity of 94.97 GiB of which 152.25 MiB is free. Process 7712 has 14.55 GiB memory in use. Including non-PyTorch memory, this process has 80.26 GiB memory in use. Of the allocated memory 76.41 GiB is allocated by PyTorch, with 2.30 GiB allocated in private pools (e.g., CUDA Graphs), and 0.84 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]:
    L.append((OOM, f"{w} ERROR {ts(OOM)} [core.py:878] {m}"))
L.append((OOM + 1, f"(APIServer pid=1) ERROR {ts(OOM+1)} [async_llm.py:480] AsyncLLM output_handler failed."))
L.append((OOM + 1, f"(APIServer pid=1) ERROR {ts(OOM+1)} [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."))
L.append((OOM + 2, f"(APIServer pid=1) INFO:     Shutting down"))
L.sort(key=lambda x: x[0])
with open(os.path.join(d, "logs.txt"), "w") as f:
    f.write("\n".join(m for _, m in L) + "\n")
print("wrote", d)
