"""Bundle for zyt-qwen3vl-235b-h20-memory-creep (QwenLM/Qwen3-VL#1522): vLLM 0.11.0rc2/nightly V1,
Qwen3-VL-235B-A22B-Instruct TP8+EP on 8x H20. Light multimodal load; per-GPU memory climbs in steps
outside the KV pool (pool usage low) until a worker OOMs. Writer zyt."""
import calendar
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, write_json, write_jsonl, fmt_ts, parse_argv  # noqa: E402
from v1prom import State  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyt-qwen3vl-235b-h20-memory-creep/bundle"
os.makedirs(OUT, exist_ok=True)
rnd = random.Random(1522)

MODEL = "Qwen3-VL-235B-A22B-Instruct"
MML = 41960
TOTAL_MIB = 97871                              # H20 as NVML reports it (95.58 GiB)
BUDGET = TOTAL_MIB * MIB * 0.9 / GIB           # 86.02 GiB
WEIGHTS, ACT_PEAK, NON_TORCH, GRAPHS = 54.66, 12.01, 1.55, 0.55
KV_GIB = BUDGET - WEIGHTS - ACT_PEAK - NON_TORCH   # 17.80
BYTES_PER_TOK = 2 * 94 * 1 * 128 * 2           # 94 layers, 4 KV heads over TP8 -> 1 per rank, bf16
NUM_BLOCKS = int(KV_GIB * GIB // (16 * BYTES_PER_TOK))
POOL_TOK = NUM_BLOCKS * 16
START_GIB = WEIGHTS + KV_GIB + NON_TORCH + GRAPHS - 0.55   # what each worker holds after start-up
CACHE = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
         "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
         "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
         "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
         "swap_space_bytes": "4294967296"}
st = State(MODEL, MML, CACHE)

t0 = calendar.timegm((2025, 9, 28, 7, 40, 0, 0, 0, 0))
interval, N = 10, 90                           # 15 minutes
T_OOM = t0 + 842

# requests: mostly image chat, some video; Poisson arrivals ~1 per 4 s
reqs, t = [], t0 - 60.0
while t < t0 + N * interval:
    t += rnd.expovariate(1 / 4.0)
    video = rnd.random() < 0.18
    prompt = rnd.randint(9000, 22000) if video else rnd.randint(900, 3200)
    gen = rnd.randint(150, 700)
    steps = prompt / 128.0                     # --max-num-batched-tokens 128
    ttft = steps * 0.021 + (1.8 if video else 0.25)
    dec = gen * 0.047
    reqs.append({"arr": t, "prompt": prompt, "gen": gen, "ttft": ttft, "dec": dec, "end": t + ttft + dec, "video": video})

# memory per worker: steps up after video requests (encoder peaks kept by the allocator), small drift otherwise
steps_at = [q["arr"] + q["ttft"] for q in reqs if q["video"] and q["arr"] > t0 - 60]
def held_gib(ts, rank):
    g = START_GIB                             # the window opens a few minutes after start-up
    for s in steps_at:
        if s <= ts:
            g += 0.56 + 0.02 * ((rank * 7 + int(s)) % 5) + (0.03 if rank == 3 else 0.0)
    return min(g, 95.17)

logs = []
def L(ts, msg, who="(APIServer pid=1)", lvl="INFO", src="x.py:1"):
    logs.append((ts, len(logs), "%s %s %s [%s] %s" % (who, lvl, fmt_ts(ts), src, msg)))

done = set()
win_p = win_g = 0
last_pt = last_gt = 0.0
metrics, gpu = [], []
for i in range(N):
    ts = t0 + i * interval
    for sec in range(ts - interval + 1 if i else t0 - 59, ts + 1):
        if sec >= T_OOM:
            break
        for q in reqs:
            k = id(q)
            if q["arr"] < t0 - 60:
                continue
            if q["arr"] + q["ttft"] <= sec and ("p", k) not in done:
                done.add(("p", k))
                win_p += q["prompt"]
                st.c["prompt_tokens"] += q["prompt"]
                st.c["prefix_cache_queries"] += q["prompt"]
                st.c["prefix_cache_hits"] += 160                  # shared system prompt
                st.obs["time_to_first_token_seconds"].append(q["ttft"])
                st.obs["iteration_tokens_total"].extend([128] * int(q["prompt"] // 128))
            if q["end"] <= sec and ("e", k) not in done:
                done.add(("e", k))
                win_g += q["gen"]
                st.c["generation_tokens"] += q["gen"]
                st.success["stop" if q["gen"] < 690 else "length"] += 1
                for name, v in (("request_prompt_tokens", q["prompt"]), ("request_generation_tokens", q["gen"]),
                                ("request_max_num_generation_tokens", 2048), ("request_params_n", 1),
                                ("request_params_max_tokens", 2048),
                                ("time_per_prefill_token_request_seconds", q["ttft"] / q["prompt"]),
                                ("e2e_request_latency_seconds", q["ttft"] + q["dec"]),
                                ("request_queue_time_seconds", 0.01), ("request_inference_time_seconds", q["ttft"] + q["dec"] - 0.01),
                                ("request_prefill_time_seconds", q["ttft"] - 0.01), ("request_decode_time_seconds", q["dec"])):
                    st.obs[name].append(v)
                st.obs["time_per_output_token_seconds"].extend([0.047] * max(1, q["gen"] // 10))
        running = [q for q in reqs if q["arr"] <= sec < q["end"]]
        st.running = len(running)
        st.waiting = 0
        ctx = sum(min(q["prompt"], int((sec - q["arr"]) / 0.021 * 128)) + max(0, int((sec - q["arr"] - q["ttft"]) / 0.047))
                  for q in running)
        st.kv = round(min(1.0, ctx / POOL_TOK) + 0.0004, 4)
        if sec % 10 == 0:
            pt, gt = win_p / 10.0, win_g / 10.0
            if any((pt, gt, last_pt, last_gt)):
                L(sec, "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "
                       "Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%"
                  % (pt, gt, st.running, 0, st.kv * 100, 100.0 * st.c["prefix_cache_hits"] / max(1, st.c["prefix_cache_queries"])),
                  src="loggers.py:123")
            last_pt, last_gt = pt, gt
            win_p = win_g = 0
    if ts < T_OOM + 4:
        metrics.append({"t": ts, "status": 200, "text": st.text()})
    else:
        metrics.append({"t": ts, "error": "GET http://10.0.0.21:22002/metrics: [Errno 111] Connection refused"})
    devs = []
    for r in range(8):
        if ts < T_OOM + 4:
            h = held_gib(ts, r)
            devs.append({"index": r, "name": "NVIDIA H20", "memory_total": TOTAL_MIB * MIB,
                         "memory_used": int((h + 0.45) * GIB),
                         "processes": [{"pid": 31200 + r, "name": "VLLM::Worker_TP%d_EP%d" % (r, r), "used_memory": int(h * GIB)}]})
        else:
            devs.append({"index": r, "name": "NVIDIA H20", "memory_total": TOTAL_MIB * MIB, "memory_used": int(0.45 * GIB), "processes": []})
    gpu.append({"t": ts, "devices": devs})

w = "(Worker_TP3_EP3 pid=31203)"
for line in ["WorkerProc hit an exception.", "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 666, in worker_busy_loop',
             "    output = func(*args, **kwargs)",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2121, in execute_model',
             "    self._execute_mm_encoder(scheduler_output)",
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen3_vl.py", line 1212, in get_multimodal_embeddings',
             "    video_embeddings = self._process_video_input(multimodal_input)",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.12 GiB. GPU 3 has a total capacity of 95.58 GiB of "
             "which 402.19 MiB is free. Including non-PyTorch memory, this process has 95.17 GiB memory in use. Of the allocated "
             "memory 88.41 GiB is allocated by PyTorch, with 548.00 MiB allocated in private pools (e.g., CUDA Graphs), and "
             "5.21 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
             "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]:
    L(T_OOM, line, w, "ERROR", "multiproc_executor.py:671")
L(T_OOM + 0.3, "EngineCore encountered a fatal error.", "(EngineCore_DP0 pid=30988)", "ERROR", "core.py:710")
L(T_OOM + 0.5, "AsyncLLM output_handler failed.", lvl="ERROR", src="async_llm.py:480")
L(T_OOM + 0.5, "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
  lvl="ERROR", src="async_llm.py:480")
L(T_OOM + 2, "Shutting down FastAPI HTTP server.", src="launcher.py:110")
head = []
tb = t0 - 330
head.append((tb, -9, "(APIServer pid=1) INFO %s [api_server.py:1839] vLLM API server version 0.11.0rc2" % fmt_ts(tb)))
head.append((tb + 140, -8, "(Worker_TP0_EP0 pid=31200) INFO %s [gpu_model_runner.py:2602] Model loading took %.4f GiB and 131.225847 seconds" % (fmt_ts(tb + 140), WEIGHTS)))
head.append((tb + 230, -7, "(Worker_TP0_EP0 pid=31200) INFO %s [gpu_worker.py:298] Available KV cache memory: %.2f GiB" % (fmt_ts(tb + 230), KV_GIB)))
head.append((tb + 231, -6, "(EngineCore_DP0 pid=30988) INFO %s [kv_cache_utils.py:1087] GPU KV cache size: %s tokens" % (fmt_ts(tb + 231), format(POOL_TOK, ","))))
head.append((tb + 231, -5, "(EngineCore_DP0 pid=30988) INFO %s [kv_cache_utils.py:1091] Maximum concurrency for 41,960 tokens per request: %.2fx" % (fmt_ts(tb + 231), POOL_TOK / MML)))
head.append((tb + 262, -4, "(Worker_TP0_EP0 pid=31200) INFO %s [gpu_model_runner.py:3480] Graph capturing finished in 29 secs, took %.2f GiB" % (fmt_ts(tb + 262), GRAPHS)))
head.append((tb + 270, -3, "(APIServer pid=1) INFO %s [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:22002" % fmt_ts(tb + 270)))
with open(os.path.join(OUT, "logs.txt"), "w") as f:
    f.write("\n".join(x[2] for x in sorted(head + logs)) + "\n")
write_jsonl(os.path.join(OUT, "metrics.jsonl"), metrics)
write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)
argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen3-VL-235B-A22B-Instruct",
        "--served-model-name", MODEL, "--tensor-parallel-size", "8", "--mm-encoder-tp-mode", "data",
        "--enable-expert-parallel", "--host", "0.0.0.0", "--port", "22002", "--dtype", "bfloat16",
        "--gpu-memory-utilization", "0.9", "--max-model-len", "41960", "--max-num-batched-tokens", "128",
        "--distributed-executor-backend", "mp", "--mm-processor-cache-type", "shm"]
write_json(os.path.join(OUT, "engine_args.json"), {"argv": argv, "args": parse_argv(argv)})
write_json(os.path.join(OUT, "server.json"), {"version": {"version": "0.11.0rc2"},
           "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "max_model_len": MML}]},
           "health": 200})
manifest(OUT, "http://10.0.0.21:22002", t0, t0 + (N - 1) * interval, float(interval),
         "Recorded after the operator noticed GPU memory creeping up over the day; the server died during the capture.")
print("pool tokens", POOL_TOK, "blocks", NUM_BLOCKS, "kv GiB %.2f" % KV_GIB, "start GiB %.2f" % START_GIB,
      "video steps in window", sum(1 for s in steps_at if t0 <= s < T_OOM))
for x in (0, 30, 60, 84, 85):
    print(x * 10, [round(d["memory_used"] / GIB, 1) for d in gpu[x]["devices"]][:4])
