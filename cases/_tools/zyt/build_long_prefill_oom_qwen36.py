"""Bundle for zyt-long-prefill-oom-qwen36-tp2-3090 (noonghunna/club-3090#487): vLLM 0.22 V1, Qwen3.6-27B
AutoRound INT4, TP2 on 2x RTX 3090. Short soak chats run fine, then one 88,284-token prompt OOMs
both TP workers ~10 chunks into its prefill; the engine dies and scrapes fail. Writer zyt."""
import calendar
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, write_json, write_jsonl, fmt_ts  # noqa: E402
from v1prom import State  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyt-long-prefill-oom-qwen36-tp2-3090/bundle"
os.makedirs(OUT, exist_ok=True)
rnd = random.Random(487)

MODEL = "qwen3.6-27b-autoround"
MML = 262144
CACHE = {"block_size": "528", "cache_dtype": "fp8_e5m2", "calculate_kv_scales": "False",
         "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.92",
         "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": "1159",
         "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
         "swap_space": "4", "swap_space_bytes": "4294967296"}
st = State(MODEL, MML, CACHE)
TOK_PER_BLOCK_FRAC = 1.0 / 612157           # usage per token of context

t_up = calendar.timegm((2026, 6, 26, 22, 47, 40, 0, 0, 0))   # API server listening
t0 = t_up + 20
interval = 10
N = 60                                     # 10 minutes of scrapes
T_LONG = t0 + 360                          # the 88k request arrives
STEP = 4.1                                 # seconds per 8,000-token prefill chunk at this depth (assumed)
T_OOM = T_LONG + 10 * STEP                 # ~10 chunks in
T_DOWN = T_OOM + 3                         # API server exits

# ---- soak: 5 sessions x 5 turns, one request at a time, from t0+15 ----
reqs = []
t = t0 + 15.0
for s in range(5):
    ctx = 1800 + rnd.randint(0, 300)
    for turn in range(5):
        prompt = ctx
        ttft = [0.44, 1.36, 1.35, 1.26, 1.8][turn] + rnd.uniform(-0.03, 0.03)
        tps = [145.6, 141.0, 122.4, 110.4, 74.5][turn] + rnd.uniform(-2, 2)
        gen = int([28, 27, 38, 44, 860][turn] * rnd.uniform(0.9, 1.1))
        dec = gen / tps
        reqs.append({"arr": t, "prompt": prompt, "gen": gen, "ttft": ttft, "dec": dec, "end": t + ttft + dec})
        ctx += prompt // 6 + gen + 1400    # tool outputs / next user turn appended
        t = t + ttft + dec + rnd.uniform(2.0, 4.0)
    t += rnd.uniform(6, 10)

logs = []
def L(t, msg, who="(APIServer pid=1)", lvl="INFO", src="x.py:1"):
    logs.append((t, len(logs), "%s %s %s [%s] %s" % (who, lvl, fmt_ts(t), src, msg)))

tb = t_up - 190
L(tb, "vLLM API server version 0.22.0", src="utils.py:277")
L(tb, "non-default args: {'model_tag': '~/.cache/huggingface/qwen3.6-27b-autoround-int4', 'host': '0.0.0.0', "
      "'model': '~/.cache/huggingface/qwen3.6-27b-autoround-int4', 'trust_remote_code': True, 'dtype': 'float16', "
      "'max_model_len': 262144, 'quantization': 'auto_round', 'served_model_name': ['qwen3.6-27b-autoround'], "
      "'reasoning_parser': 'qwen3', 'tensor_parallel_size': 2, 'kv_cache_dtype': 'fp8_e5m2', "
      "'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 2, "
      "'enable_chunked_prefill': True, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}, "
      "'gpu_memory_utilization': 0.92}", src="utils.py:278")
for r, pid in ((0, 95), (1, 96)):
    L(tb + 95, "Model loading took 8.61 GiB memory and 61.482913 seconds", "(Worker_TP%d pid=%d)" % (r, pid),
      src="gpu_model_runner.py:3512")
for r, pid in ((0, 95), (1, 96)):
    L(tb + 150, "Available KV cache memory: 10.85 GiB", "(Worker_TP%d pid=%d)" % (r, pid), src="gpu_worker.py:466")
L(tb + 150, "GPU KV cache size: 612,157 tokens", "(EngineCore pid=85)", src="kv_cache_utils.py:1733")
L(tb + 150, "Maximum concurrency for 262,144 tokens per request: 2.34x", "(EngineCore pid=85)", src="kv_cache_utils.py:1734")
for r, pid in ((0, 95), (1, 96)):
    L(tb + 180, "Graph capturing finished in 27 secs, took 0.41 GiB", "(Worker_TP%d pid=%d)" % (r, pid),
      src="gpu_model_runner.py:4611")
L(tb + 182, "init engine (profile, create kv cache, warmup model) took 148.77 seconds", "(EngineCore pid=85)", src="core.py:254")
L(t_up, "Starting vLLM API server 0 on http://0.0.0.0:8000", src="api_server.py:1942")

# ---- simulate, 1 s resolution for the engine log lines, scrapes every 10 s ----
metrics, gpu = [], []
done = set()
last_log = t_up
last_pt = last_gt = 0.0
win_prompt = win_gen = 0
prompt_tot = gen_tot = 0
long_prefilled = 0
for i in range(N):
    ts = t0 + i * interval
    # advance engine to ts
    sec = ts - interval if i else t0 - 1
    while sec < ts:
        sec += 1
        if sec >= T_OOM:
            break
        running = [q for q in reqs if q["arr"] <= sec < q["end"]]
        for q in reqs:
            k = id(q)
            if q["arr"] + q["ttft"] <= sec and ("p", k) not in done:
                done.add(("p", k))
                win_prompt += q["prompt"]
                st.c["prompt_tokens"] += q["prompt"]
                st.c["prefix_cache_queries"] += q["prompt"]
                hit = max(0, q["prompt"] - 1500) // 528 * 528 if q is not reqs[0] else 0
                st.c["prefix_cache_hits"] += hit
                st.obs["time_to_first_token_seconds"].append(q["ttft"])
                st.obs["iteration_tokens_total"].append(min(q["prompt"], 8192))
            if q["end"] <= sec and ("e", k) not in done:
                done.add(("e", k))
                win_gen += q["gen"]
                st.c["generation_tokens"] += q["gen"]
                st.success["stop"] += 1
                for name, v in (("request_prompt_tokens", q["prompt"]), ("request_generation_tokens", q["gen"]),
                                ("request_max_num_generation_tokens", 4096), ("request_params_n", 1),
                                ("request_params_max_tokens", 4096),
                                ("time_per_prefill_token_request_seconds", q["ttft"] / q["prompt"]),
                                ("e2e_request_latency_seconds", q["ttft"] + q["dec"]),
                                ("request_queue_time_seconds", 0.004), ("request_inference_time_seconds", q["ttft"] + q["dec"] - 0.004),
                                ("request_prefill_time_seconds", q["ttft"] - 0.004), ("request_decode_time_seconds", q["dec"])):
                    st.obs[name].append(v)
                st.obs["time_per_output_token_seconds"].extend([q["dec"] / max(1, q["gen"] - 1)] * max(1, q["gen"] // 4))
                st.obs["iteration_tokens_total"].extend([4] * max(1, q["gen"] // 4))
        long_on = sec >= T_LONG
        if long_on:
            long_prefilled = min(88284, int((sec - T_LONG) / STEP) * 8000)
        st.running = len(running) + (1 if long_on else 0)
        ctx = sum(q["prompt"] + q["gen"] for q in running) + long_prefilled
        st.kv = round(ctx * TOK_PER_BLOCK_FRAC + 0.0009, 4) if st.running else 0.0009
        if sec - last_log >= 10:
            pt, gt = win_prompt / 10.0, win_gen / 10.0
            if long_on:
                pt = 0.0
            quiet = not any((pt, gt, last_pt, last_gt))   # loggers.py demotes idle lines to DEBUG
            last_pt, last_gt = pt, gt
            if not quiet:
              L(sec, "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "
                   "Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%"
              % (pt, gt, st.running, 0, st.kv * 100,
                 100.0 * st.c["prefix_cache_hits"] / max(1, st.c["prefix_cache_queries"])),
              "(APIServer pid=1)", src="loggers.py:123")
            win_prompt = win_gen = 0
            last_log = sec
    if ts < T_DOWN:
        metrics.append({"t": ts, "status": 200, "text": st.text()})
    else:
        metrics.append({"t": ts, "error": "GET http://127.0.0.1:8000/metrics: [Errno 111] Connection refused"})
    # NVML
    devs = []
    for r, pid in ((0, 4121), (1, 4122)):
        if ts < T_DOWN:
            used = 23949 * MIB
            if ts >= T_LONG:
                used += int(min(1.0, (ts - T_LONG) / (T_OOM - T_LONG)) * 300) * MIB
            proc = [{"pid": pid, "name": "VLLM::Worker_TP%d" % r, "used_memory": used - 268 * MIB}]
        else:
            used, proc = 268 * MIB, []
        devs.append({"index": r, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24576 * MIB,
                     "memory_used": used, "processes": proc})
    gpu.append({"t": ts, "devices": devs})

# ---- the crash ----
L(T_LONG + 0.3, "10.0.0.7:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200", src="launcher.py:99")
for r, pid in ((0, 95), (1, 96)):
    who = "(Worker_TP%d pid=%d)" % (r, pid)
    E = lambda m: L(T_OOM, m, who, "ERROR", "multiproc_executor.py:870")  # noqa: E731
    for line in ["WorkerProc hit an exception.", "Traceback (most recent call last):",
                 '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 865, in worker_busy_loop',
                 "    output = func(*args, **kwargs)",
                 '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3101, in execute_model',
                 "    model_output = self._model_forward(",
                 '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py", line 360, in forward_native',
                 "    return fla_chunk_gated_delta_rule(",
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 640.00 MiB. GPU %d has a total capacity of 23.56 GiB "
                 "of which 391.06 MiB is free. Including non-PyTorch memory, this process has 23.16 GiB memory in use. Of the "
                 "allocated memory 21.93 GiB is allocated by PyTorch, with 412.00 MiB allocated in private pools (e.g., CUDA "
                 "Graphs), and 418.22 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
                 "try setting PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
                 "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % r]:
        E(line)
L(T_OOM + 0.2, "EngineCore encountered a fatal error.", "(EngineCore pid=85)", "ERROR", "core.py:1233")
L(T_OOM + 0.2, "RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 640.00 MiB. GPU 0 has a "
               "total capacity of 23.56 GiB of which 391.06 MiB is free.', please check the stack trace above for the root cause",
  "(EngineCore pid=85)", "ERROR", "core.py:1233")
L(T_OOM + 0.5, "AsyncLLM output_handler failed.", lvl="ERROR", src="async_llm.py:525")
L(T_OOM + 0.5, "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
  lvl="ERROR", src="async_llm.py:525")
L(T_OOM + 0.6, "10.0.0.7:51234 - \"POST /v1/chat/completions HTTP/1.1\" 500", src="launcher.py:99")
L(T_OOM + 1.0, "Shutting down FastAPI HTTP server.", src="launcher.py:110")
logs = [x[2] for x in sorted(logs)]

with open(os.path.join(OUT, "logs.txt"), "w") as f:
    f.write("\n".join(logs) + "\n")
write_jsonl(os.path.join(OUT, "metrics.jsonl"), metrics)
write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)
argv = ["vllm", "serve", "/root/.cache/huggingface/qwen3.6-27b-autoround-int4", "--tensor-parallel-size", "2",
        "--max-model-len", "262144", "--gpu-memory-utilization", "0.92", "--kv-cache-dtype", "fp8_e5m2",
        "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 3}', "--enable-prefix-caching",
        "--enable-chunked-prefill", "--max-num-batched-tokens", "8192", "--max-num-seqs", "2", "--dtype", "float16",
        "--quantization", "auto_round", "--served-model-name", MODEL, "--trust-remote-code"]
from common import parse_argv  # noqa: E402
write_json(os.path.join(OUT, "engine_args.json"), {"argv": argv, "args": parse_argv(argv)})
write_json(os.path.join(OUT, "server.json"), {"version": {"version": "0.22.0"},
           "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                                  "root": "/root/.cache/huggingface/qwen3.6-27b-autoround-int4",
                                                  "max_model_len": MML}]}, "health": 200})
manifest(OUT, "http://127.0.0.1:8000", t0, t0 + (N - 1) * interval, float(interval),
         "Soak test (5 sessions x 5 turns) then one 88,284-token chat request with max_tokens 65,536.")
print("scrapes", len(metrics), "ok", sum(1 for m in metrics if "text" in m), "reqs", len(reqs), "T_LONG-t0", T_LONG - t0)
