"""Build the y-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/y/cases.py [case-id ...]

Simulator and writer copied from cases/_tools/u/gen.py. Family names, HELP texts and buckets come from the last
scrape of an existing case bundle of a nearby vLLM release (format examples allowed by the brief).
"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
T028 = "u-dsv41-sm120-eager-1tps-per-stream"  # vLLM 0.28.1
T019 = "b-hybrid-qwen35-block528"             # vLLM 0.19.1
T011 = "d-kv-93pct-38-streams-healthy"        # vLLM 0.11.0
GiB = 2 ** 30
H20_141 = 143771 * 2 ** 20   # H20 141 GB (NVML total)


def startup(t, api, core, nondef, kv_gib, kv_tok, mml, refs, extra=(), prefix=True, core_tag="EngineCore_DP0"):
    A = f"(APIServer pid={api}) " if prefix else ""
    E = f"({core_tag} pid={core}) " if prefix else ""
    L = [(t, f"{A}INFO {ts(t)} [{refs['args']}] non-default args: {nondef}")]
    for i, x in enumerate(extra):
        L.append((t + 10 + i, f"{E}{x[0]} {ts(t+10+i)} {x[1]}" if isinstance(x, tuple) else f"{E}INFO {ts(t+10+i)} {x}"))
    L += [(t + 60, f"{E}INFO {ts(t+60)} [{refs['worker']}] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t+60)} [{refs['kv1']}] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t+60)} [{refs['kv2']}] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t+90)} [{refs['api']}] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


# ---------------------------------------------------------------- dev-7: stale --cpu-offload-gb 35 on 8xH20
def case_offload():
    cid = "y-cpu-offload-35gb-stale-dsv41-h20"
    rng = random.Random(57771)
    t0 = 1789797600.0  # 2026-09-19 06:00 UTC
    start, n, iv = t0 + 1500, 61, 10.0
    block = 256; blocks = 25600; pool = blocks * block; mml = 131072
    c = Case(cid, "0.29.1rc1.dev64+g3c2f9e1d7", False, "deepseek-v4.1-flash", "/models/DeepSeek-V4.1-Flash", mml, start, n, iv, {},
             pool, block, 128, tmpl=T028)
    step = 0.533
    reqs, rid = [], 0
    bench0 = start - 240.0
    for slot in range(64):
        t = bench0 + slot * 0.05
        while t < start + n * iv:
            p = rng.randint(900, 1300)
            r = Req(rid, round(t, 3), p, 0, 256, 256, "length"); rid += 1
            r.t_sched = t + 0.004
            # prefill chunks share steps that each pay the weight transfer; first token after 2-9 steps
            r.t_first = r.t_sched + step * rng.randint(2, 9) + rng.uniform(0.0, 0.3)
            r.step_s = step * rng.uniform(0.97, 1.04); r.t_end = r.t_first + 255 * r.step_s
            reqs.append(r)
            t = r.t_end + rng.uniform(0.02, 0.15)
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T028, block_size=block, cache_dtype="fp8", gpu_memory_utilization=0.9, num_gpu_blocks=blocks,
                          kv_cache_size_tokens=pool, kv_cache_max_concurrency=f"{pool / mml:.2f}", user_specified_block_size="True")
    api, core = 1, 388
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1314", "kv2": "kv_cache_utils.py:1319", "api": "api_server.py:1104"}
    nondef = ("{'model_tag': '/models/DeepSeek-V4.1-Flash', 'model': '/models/DeepSeek-V4.1-Flash', 'served_model_name': ['deepseek-v4.1-flash'], "
              "'trust_remote_code': True, 'max_model_len': 131072, 'tensor_parallel_size': 8, 'block_size': 256, 'cpu_offload_gb': 35.0, "
              "'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 128}")
    extra = [
        "[model.py:1582] Using max model len 131072",
        "[scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        "[core.py:114] Initializing a V1 LLM engine (v0.29.1rc1.dev64+g3c2f9e1d7) with config: model='/models/DeepSeek-V4.1-Flash', tensor_parallel_size=8, quantization=mxfp4, enforce_eager=False, kv_cache_dtype=fp8, max_seq_len=131072, enable_prefix_caching=True, enable_chunked_prefill=True",
        "[default_loader.py:291] Loading weights took 188.52 seconds",
        "[gpu_model_runner.py:3480] Model loading took 29.61 GiB memory and 231.07 seconds",
        "[gpu_worker.py:410] Memory profiling takes 41.88 seconds. Total non KV cache memory: 37.12 GiB; torch peak memory increase: 5.87 GiB; non-torch forward increase memory: 0.41 GiB; weights memory: 29.61 GiB.",
    ]
    L = startup(t0, api, core, nondef, 89.24, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1947] vLLM API server version 0.29.1rc1.dev64+g3c2f9e1d7"))
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259") + access_lines(c, api, "/v1/completions")
    used = int(0.9 * H20_141) + 610 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA H20", "memory_total": H20_141, "memory_used": used,
            "processes": [{"pid": 520 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 540 * 2 ** 20}]} for i in range(8)]
    argv = ["vllm", "serve", "/models/DeepSeek-V4.1-Flash", "--served-model-name", "deepseek-v4.1-flash", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8", "--block-size", "256", "--gpu-memory-utilization", "0.9",
            "--max-num-seqs", "128", "--max-model-len", "131072", "--cpu-offload-gb", "35"]
    args = {"model": "/models/DeepSeek-V4.1-Flash", "served-model-name": "deepseek-v4.1-flash", "trust-remote-code": True,
            "tensor-parallel-size": 8, "kv-cache-dtype": "fp8", "block-size": 256, "gpu-memory-utilization": 0.9, "max-num-seqs": 128,
            "max-model-len": 131072, "cpu-offload-gb": 35}
    write(c, C / cid / "bundle", server=server_json("0.29.1rc1.dev64+g3c2f9e1d7", "deepseek-v4.1-flash", "/models/DeepSeek-V4.1-Flash", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="DeepSeek-V4.1-Flash (MXFP4) moved from a 4-GPU box to 8x H20 141 GB, TP8, launch script carried over unchanged. "
                "Benchmark: 64 concurrent clients, max_tokens 256, unique prompts. Complaint: output throughput about 120 tok/s, far below expectations. "
                "/metrics every 10 s for 10 min, server log.")


def _err_after(cid, t_fail, msg):
    """Replace scrapes after t_fail by failed scrapes (engine gone)."""
    p = C / cid / "bundle" / "metrics.jsonl"
    out = []
    for ln in p.read_text().splitlines():
        r = json.loads(ln)
        if r["t"] > t_fail:
            r = {"t": r["t"], "error": msg}
        out.append(json.dumps(r))
    p.write_text("\n".join(out) + "\n")


# ---------------------------------------------------------------- holdout-7: Qwen3.5-35B-A3B two 12 MP images, align-mode livelock
def case_livelock():
    cid = "y-qwen35-two-12mp-images-align-livelock"
    rng = random.Random(40707)
    t0 = 1776830400.0  # 2026-04-22 04:00 UTC
    start, n, iv = t0 + 5400, 61, 10.0
    block = 528; blocks = 9840; pool = blocks * block; mml = 262144
    c = Case(cid, "0.19.1", False, "Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-35B-A3B", mml, start, n, iv, {}, pool, block, 256, tmpl=T019)
    reqs = []
    for i in range(4):  # one-image requests before the capture, all fine
        t = start - 1500 + i * 260
        r = Req(i, t, 12100 + rng.randint(0, 120), 0, rng.randint(180, 420), 2048, "stop", mm=1)
        r.t_sched = t + 0.01; r.t_first = r.t_sched + rng.uniform(1.6, 2.1); r.step_s = 0.0125
        r.t_end = r.t_first + (r.gen - 1) * r.step_s
        reqs.append(r)
    s = Req(9, start + 4.2, 220 + 11844 + 40 + 11844 + 30, 0, 0, 2048, "stop", mm=2)
    s.t_sched = s.t_arr + 0.01; s.t_first = 1e12; s.t_end = 1e12; s.step_s = 0.0125
    reqs.append(s)
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T019, num_gpu_blocks=blocks)
    api, core = 1, 214
    refs = {"args": "utils.py:299", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1316", "kv2": "kv_cache_utils.py:1321", "api": "api_server.py:1988"}
    nondef = ("{'model_tag': 'Qwen/Qwen3.5-35B-A3B', 'model': 'Qwen/Qwen3.5-35B-A3B', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, "
              "'enable_prefix_caching': True}")
    extra = [
        "[model.py:552] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
        "[model.py:1677] Using max model len 262144",
        "[scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        "[config.py:281] Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.",
        "[config.py:305] Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are exactly equal.",
        "[core.py:101] Initializing a V1 LLM engine (v0.19.1) with config: model='Qwen/Qwen3.5-35B-A3B', tensor_parallel_size=2, enable_prefix_caching=True, enable_chunked_prefill=True, mamba_cache_mode=align",
        "[gpu_model_runner.py:4188] Model loading took 33.71 GiB memory and 41.22 seconds",
        "[gpu_model_runner.py:4997] Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.",
    ]
    L = startup(t0, api, core, nondef, 46.08, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1947] vLLM API server version 0.19.1"))
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259") + access_lines(c, api, "/v1/chat/completions")
    L = [x for x in L if not ("POST /v1/chat/completions" in x[1] and "41009" in x[1])]  # the stuck request never returns
    H100 = 81559 * 2 ** 20
    used = int(0.9 * H100) + 530 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": H100, "memory_used": used,
            "processes": [{"pid": 300 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 500 * 2 ** 20}]} for i in range(2)]
    argv = ["vllm", "serve", "Qwen/Qwen3.5-35B-A3B", "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching"]
    args = {"model": "Qwen/Qwen3.5-35B-A3B", "tensor-parallel-size": 2, "gpu-memory-utilization": 0.9, "enable-prefix-caching": True}
    write(c, C / cid / "bundle", server=server_json("0.19.1", "Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-35B-A3B", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="Qwen3.5-35B-A3B on 2x H100, TP2, prefix caching on. Document-QA client; a request with two 3024x4032 photos never returns "
                "(client still waiting), GPUs at ~89% memory and 0% utilisation. /metrics every 10 s for 10 min, server log, the request.")
    pr = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Compare the two photos of the delivery note. List every line item whose quantity differs between them."},
        {"type": "image_url", "image_url": {"url": "https://files.internal/uploads/IMG_4411.jpg"}},
        {"type": "text", "text": "Second photo (after correction):"},
        {"type": "image_url", "image_url": {"url": "https://files.internal/uploads/IMG_4412.jpg"}},
        {"type": "text", "text": "Answer as a table."}]}], "max_tokens": 2048,
        "note": "both images 3024x4032 JPEG (12 MP phone photos)"}
    (C / cid / "prompts.jsonl").write_text(json.dumps(pr) + "\n")


# ---------------------------------------------------------------- holdout-7: sleep-mode leak of the mm-encoder DP model, glm wake_up OOM
def case_sleepleak():
    cid = "y-sleep-mm-encoder-dp-leak-wake-oom"
    t0 = 1783224000.0  # 2026-07-05 04:00 UTC
    start, n, iv = t0 + 2400, 61, 10.0
    block = 64; blocks = 61440; pool = blocks * block; mml = 32768
    c = Case(cid, "0.11.0", False, "glm-5.2", "/models/glm-5.2", mml, start, n, iv, {}, pool, block, 128, tmpl=T011)
    c.reqs = []
    c.labels_cc = tmpl_cc(T011, block_size=block, gpu_memory_utilization=0.7, num_gpu_blocks=blocks)
    api, core = 1, 402
    t_sleep = start - 240; t_wake = start + 290
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:298", "kv1": "kv_cache_utils.py:1087", "kv2": "kv_cache_utils.py:1091", "api": "api_server.py:1873"}
    nondef = ("{'model_tag': '/models/glm-5.2', 'model': '/models/glm-5.2', 'served_model_name': ['glm-5.2'], 'trust_remote_code': True, "
              "'max_model_len': 32768, 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.7, 'max_num_seqs': 128, 'enable_sleep_mode': True}")
    extra = ["[core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/glm-5.2', tensor_parallel_size=8, max_seq_len=32768, enable_prefix_caching=True",
             ("WARNING", "[api_server.py:1090] SECURITY WARNING: Development endpoints are enabled! This should NOT be used in production!"),
             "[gpu_model_runner.py:2653] Model loading took 94.37 GiB and 402.18 seconds"]
    L = startup(t0, api, core, nondef, 21.74, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1839] vLLM API server version 0.11.0"))
    W = lambda i: f"(Worker_TP{i} pid={500 + i}) "
    E = f"(EngineCore_DP0 pid={core}) "
    A = f"(APIServer pid={api}) "
    for i in range(8):
        L.append((t_sleep + 4 + i * 0.01, f"{W(i)}INFO {ts(t_sleep+4)} [gpu_worker.py:117] Sleep mode freed 118.64 GiB memory, 3.38 GiB memory is still in use."))
    L.append((t_sleep + 5, f"{E}INFO {ts(t_sleep+5)} [abstract.py:288] It took 5.112413 seconds to fall asleep."))
    L.append((t_sleep + 5.1, f'{A}INFO:     10.0.0.7:51402 - "POST /sleep?level=1 HTTP/1.1" 200 OK'))
    tb = ["ERROR {t} [multiproc_executor.py:671] WorkerProc hit an exception.",
          "ERROR {t} [multiproc_executor.py:671] Traceback (most recent call last):",
          'ERROR {t} [multiproc_executor.py:671]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 130, in wake_up',
          "ERROR {t} [multiproc_executor.py:671]     allocator.wake_up(tags)",
          'ERROR {t} [multiproc_executor.py:671]   File "/usr/local/lib/python3.12/dist-packages/vllm/device_allocator/cumem.py", line 238, in wake_up',
          "ERROR {t} [multiproc_executor.py:671]     create_and_map(handle)",
          'ERROR {t} [multiproc_executor.py:671]   File "/usr/local/lib/python3.12/dist-packages/vllm/device_allocator/cumem.py", line 77, in create_and_map',
          "ERROR {t} [multiproc_executor.py:671]     python_create_and_map(*allocation_handle)",
          "ERROR {t} [multiproc_executor.py:671] RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:163"]
    for i in range(8):
        for k, ln in enumerate(tb):
            L.append((t_wake + 2 + i * 0.01 + k * 0.0001, W(i) + ln.format(t=ts(t_wake + 2))))
    L.append((t_wake + 3, f"{E}ERROR {ts(t_wake+3)} [core.py:708] EngineCore encountered a fatal error."))
    L.append((t_wake + 3.1, f"{E}ERROR {ts(t_wake+3)} [core.py:708] RuntimeError: Worker failed with error 'CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:163', please check the stack trace above for the root cause"))
    L.append((t_wake + 3.2, f"{A}ERROR {ts(t_wake+3)} [async_llm.py:480] AsyncLLM output_handler failed."))
    L.append((t_wake + 3.3, f'{A}INFO:     10.0.0.7:51488 - "POST /wake_up HTTP/1.1" 500 Internal Server Error'))
    L.append((t_wake + 4, f"{A}INFO:     Shutting down"))
    B200 = 183359 * 2 ** 20
    G = 2 ** 30
    gpu = []
    for k in range(n):
        t = start + k * iv
        devs = []
        for i in range(8):
            procs = []
            if i < 4:
                procs.append({"pid": 8100 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(2.1 * G)})  # gpt-oss-120b, asleep
            procs.append({"pid": 9200 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(148.2 * G)})     # kimi-k2.6, asleep
            if t < t_sleep + 4:
                procs.append({"pid": 500 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(122.0 * G)})
            elif t < t_wake + 4:
                procs.append({"pid": 500 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(3.38 * G)})
            used = sum(p["used_memory"] for p in procs) + int(0.6 * G)
            devs.append({"index": i, "name": "NVIDIA B200", "memory_total": B200, "memory_used": used, "processes": procs})
        gpu.append({"t": round(t, 3), "devices": devs})
    argv = ["vllm", "serve", "/models/glm-5.2", "--served-model-name", "glm-5.2", "--trust-remote-code", "--tensor-parallel-size", "8",
            "--max-model-len", "32768", "--max-num-seqs", "128", "--gpu-memory-utilization", "0.70", "--enable-sleep-mode"]
    args = {"model": "/models/glm-5.2", "served-model-name": "glm-5.2", "trust-remote-code": True, "tensor-parallel-size": 8,
            "max-model-len": 32768, "max-num-seqs": 128, "gpu-memory-utilization": 0.70, "enable-sleep-mode": True}
    write(c, C / cid / "bundle", server=server_json("0.11.0", "glm-5.2", "/models/glm-5.2", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu, logs=L, endpoint="http://127.0.0.1:8002",
          notes="glm-5.2 (TP8) shares 8x B200 with gpt-oss-120b (TP4, GPUs 0-3) and kimi-k2.6 (TP8, --mm-encoder-tp-mode data), three containers, "
                "all with --enable-sleep-mode; the orchestrator sleeps the idle ones and wakes the one it needs. All three were put to sleep "
                "(POST /sleep 200), then POST /wake_up on glm-5.2 failed and its engine died. /metrics every 10 s for 10 min, NVML per process, server log.")
    _err_after(cid, t_wake + 4, "GET http://127.0.0.1:8002/metrics: connection refused ([Errno 111] Connection refused)")


# ---------------------------------------------------------------- holdout-7: reranker sleep residual grows, OOM on wake (RTX 3090)
def case_rerank():
    cid = "y-reranker-sleep-residual-wake-oom-3090"
    rng = random.Random(36651)
    T024 = "w-int8-kv-triton-decode-falloff-2x3090"   # vLLM 0.24.0 (nearest 0.2x bundle)
    t0 = 1780916400.0  # 2026-06-08 11:00 UTC (container booted the day before; capture inside the outage)
    start, n, iv = t0 + 600, 61, 10.0
    block = 16; blocks = 4681; pool = blocks * block; mml = 8192
    c = Case(cid, "0.22.1", False, "mxbai-rerank-base-v2", "mixedbread-ai/mxbai-rerank-base-v2", mml, start, n, iv, {}, pool, block, 256, tmpl=T024)
    c.reqs = []
    c.labels_cc = tmpl_cc(T024, gpu_memory_utilization=0.1, num_gpu_blocks=blocks, kv_cache_memory_bytes=1073741824)
    api, core = 1, 88
    A = f"(APIServer pid={api}) "; E = f"(EngineCore_DP0 pid={core}) "
    L = [(t0 - 86400 + 5, f"{A}INFO {ts(t0-86400+5)} [api_server.py:1947] vLLM API server version 0.22.1"),
         (t0 - 86400 + 6, f"{A}INFO {ts(t0-86400+6)} [utils.py:299] non-default args: {{'model_tag': 'mixedbread-ai/mxbai-rerank-base-v2', 'model': 'mixedbread-ai/mxbai-rerank-base-v2', 'runner': 'pooling', 'served_model_name': ['mxbai-rerank-base-v2'], 'gpu_memory_utilization': 0.1, 'kv_cache_memory_bytes': 1073741824, 'enable_sleep_mode': True}}"),
         (t0 - 86400 + 30, f"{E}INFO {ts(t0-86400+30)} [gpu_model_runner.py:4188] Model loading took 0.96 GiB memory and 6.41 seconds"),
         (t0 - 86400 + 40, f"{E}INFO {ts(t0-86400+40)} [kv_cache_utils.py:1316] GPU KV cache size: {pool:,} tokens"),
         (t0 - 86400 + 41, f"{E}INFO {ts(t0-86400+41)} [kv_cache_utils.py:1321] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
         (t0 - 86400 + 60, f"{A}INFO {ts(t0-86400+60)} [api_server.py:1988] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    # the last successful sleep before the outage, with the residual it left
    ts_ = t0 - 700
    L.append((ts_, f"{E}INFO {ts(ts_)} [gpu_worker.py:151] Sleep mode freed 2.05 GiB memory, 5.06 GiB memory is still in use."))
    L.append((ts_ + 0.2, f"{E}INFO {ts(ts_)} [abstract.py:288] It took 0.913372 seconds to fall asleep."))
    L.append((ts_ + 0.3, f'{A}INFO:     172.18.0.5:40112 - "POST /sleep?level=1 HTTP/1.1" 200 OK'))
    tb = ["ERROR {t} [core.py:1120] Invocation of wake_up method failed",
          "ERROR {t} [core.py:1120] Traceback (most recent call last):",
          'ERROR {t} [core.py:1120]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 165, in wake_up',
          "ERROR {t} [core.py:1120]     allocator.wake_up(tags)",
          'ERROR {t} [core.py:1120]   File "/usr/local/lib/python3.12/dist-packages/vllm/device_allocator/cumem.py", line 262, in wake_up',
          "ERROR {t} [core.py:1120]     create_and_map(handle)",
          "ERROR {t} [core.py:1120] RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:163"]
    tw = t0 - 300 + 13
    k = 0
    while tw < start + n * iv:
        for j, ln in enumerate(tb):
            L.append((tw + j * 0.0001, E + ln.format(t=ts(tw))))
        L.append((tw + 0.01, f'{A}INFO:     172.18.0.5:{40200 + k} - "POST /wake_up HTTP/1.1" 500 Internal Server Error'))
        if True:
            tr = tw + rng.uniform(3, 9)
            L.append((tr, f"{A}ERROR {ts(tr)} [serving.py:412] Error in rerank request: the engine is sleeping"))
            L.append((tr + 0.001, f'{A}INFO:     172.18.0.9:{51000 + k} - "POST /v1/rerank HTTP/1.1" 500 Internal Server Error'))
        k += 1
        tw += rng.uniform(70, 95)
    G = 2 ** 30; M = 2 ** 20
    R3090 = 24576 * M
    procs = [{"pid": 4102, "name": "VLLM::EngineCore", "used_memory": int(17.5 * G)},   # awake neighbour of the swap group
             {"pid": 88, "name": "VLLM::EngineCore", "used_memory": 5184 * M}]          # vllm-reranker, asleep
    used = sum(p["used_memory"] for p in procs) + 520 * M
    dev = [{"index": 2, "name": "NVIDIA GeForce RTX 3090", "memory_total": R3090, "memory_used": used, "processes": procs}]
    argv = ["vllm", "serve", "mixedbread-ai/mxbai-rerank-base-v2", "--runner", "pooling", "--served-model-name", "mxbai-rerank-base-v2",
            "--gpu-memory-utilization", "0.10", "--kv-cache-memory-bytes", "1073741824", "--enable-sleep-mode"]
    args = {"model": "mixedbread-ai/mxbai-rerank-base-v2", "runner": "pooling", "served-model-name": "mxbai-rerank-base-v2",
            "gpu-memory-utilization": 0.10, "kv-cache-memory-bytes": 1073741824, "enable-sleep-mode": True}
    write(c, C / cid / "bundle", server=server_json("0.22.1", "mxbai-rerank-base-v2", "mixedbread-ai/mxbai-rerank-base-v2", mml, int(t0 - 86400 + 60)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://vllm-reranker:8000",
          notes="vllm-reranker container (mxbai-rerank-base-v2, pooling runner, sleep mode) on one RTX 3090 of a 4x3090 box; a jukebox "
                "orchestrator rotates swap groups, sleeping the reranker and waking it on demand. Up for ~24 h. Complaint: rerank calls fail, "
                "wake_up returns 500 over and over. /metrics every 10 s for 10 min, NVML for its GPU, container log.")


BUILDERS = {"y-cpu-offload-35gb-stale-dsv41-h20": case_offload,
            "y-qwen35-two-12mp-images-align-livelock": case_livelock, "y-sleep-mm-encoder-dp-leak-wake-oom": case_sleepleak,
            "y-reranker-sleep-residual-wake-oom-3090": case_rerank}

if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILDERS)
    for nme in names:
        BUILDERS[nme]()
        print("built", nme)
