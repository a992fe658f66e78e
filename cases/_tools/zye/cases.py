"""zye cases: python3 cases/_tools/zye/cases.py <case-id> (run with the kvdoctor venv python)."""
from __future__ import annotations

import datetime as dt
import math
import random
import sys

from gen import Req, scrape_text, write_bundle

MIB = 1024 * 1024
GIB = 1024 * MIB


def ts(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)


def qwen25_14b_config():
    return {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
        "intermediate_size": 13824, "max_position_embeddings": 131072, "max_window_layers": 48,
        "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 48,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
        "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False,
        "vocab_size": 152064}


def case_4090():
    cid = "zye-4090x4-vram93-idle-healthy"
    rnd = random.Random(1641)
    model = "deepseek-r1-distill-qwen-14b"
    t0 = 1743848400.0  # 2025-04-05 10:20:00 UTC
    start = t0 - 420.0  # server start 7 min before the window
    interval, n = 10.0, 61
    t_end = t0 + interval * (n - 1)
    # light traffic: ~3 requests a minute, reasoning outputs
    reqs, t = [], t0 - 60.0
    while t < t_end - 5:
        t += rnd.expovariate(3 / 60.0)
        p = rnd.randint(150, 1600)
        o = rnd.randint(250, 1400)
        mx = 8192
        tpot = round(rnd.uniform(0.021, 0.024), 4)
        ttft = round(0.05 + p * 0.00012 + rnd.uniform(0.0, 0.04), 3)
        reqs.append(Req(t_arr=t, prompt=p, out=o, queue=round(rnd.uniform(0.002, 0.01), 4), ttft=ttft,
                        tpot=tpot, max_tokens=mx, reason="stop"))
    reqs = [r for r in reqs if r.t_arr >= t0 - 60.0]
    cache_info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
                  "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
                  "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": "18158",
                  "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin",
                  "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}

    def iter_obs(tt):
        obs = []
        for r in reqs:
            if r.t_first <= tt:
                obs.append(r.prompt)
                done = min(r.out, 1 + int((tt - r.t_first) / r.tpot))
                obs += [1] * (done - 1)
        return obs

    cfg = {"model": model, "max_model_len": 131072, "num_gpu_blocks": 18158, "block_size": 16,
           "cache_info": cache_info, "iter_obs": iter_obs, "pre09": True}
    scrapes = []
    for i in range(n):
        tt = t0 + i * interval
        scrapes.append({"t": tt, "status": 200, "text": scrape_text(tt, reqs, cfg)})
    # GPU: four 4090s, each ~22845 MiB used of 24564 MiB, flat
    gpu = []
    for i in range(n):
        tt = t0 + i * interval
        devs = []
        for k in range(4):
            used = (22845 + [0, 2, -2, 4][k]) * MIB
            devs.append({"index": k, "name": "NVIDIA GeForce RTX 4090", "memory_total": 24564 * MIB,
                         "memory_used": used,
                         "processes": [{"pid": 2711 + k if k else 2650, "name": "python3" if k else "python3",
                                        "used_memory": used - 262 * MIB}]})
        gpu.append({"t": tt, "devices": devs})
    # logs
    L = []
    s = start
    L.append(f"INFO {ts(s)} [__init__.py:239] Automatically detected platform cuda.")
    L.append(f"INFO {ts(s+4)} [api_server.py:1034] vLLM API server version 0.8.2")
    L.append(f"INFO {ts(s+4)} [api_server.py:1035] args: Namespace(subparser='serve', model_tag='/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', host='0.0.0.0', port=40017, served_model_name=['{model}'], tensor_parallel_size=4, gpu_memory_utilization=0.9, max_model_len=None, enable_prefix_caching=None, enforce_eager=False)")
    L.append(f"INFO {ts(s+12)} [config.py:585] This model supports multiple tasks: {{'generate', 'classify', 'embed', 'reward', 'score'}}. Defaulting to 'generate'.")
    L.append(f"INFO {ts(s+12)} [config.py:1430] Defaulting to use mp for distributed inference")
    L.append(f"INFO {ts(s+12)} [config.py:1611] Chunked prefill is enabled with max_num_batched_tokens=8192.")
    L.append(f"INFO {ts(s+20)} [core.py:58] Initializing a V1 LLM engine (v0.8.2) with config: model='/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+75)} [gpu_model_runner.py:1174] Loading model weights took 6.89 GiB")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+102)} [gpu_worker.py:227] Available KV cache memory: 13.30 GiB")
    L.append(f"INFO {ts(s+103)} [kv_cache_utils.py:537] GPU KV cache size: 290,528 tokens")
    L.append(f"INFO {ts(s+103)} [kv_cache_utils.py:540] Maximum concurrency for 131,072 tokens per request: 2.22x")
    for k in range(4):
        L.append(f"(VllmWorker rank={k} pid={2650 if k == 0 else 2711 + k}) INFO {ts(s+131)} [gpu_model_runner.py:1499] Graph capturing finished in 28 secs, took 0.45 GiB")
    L.append(f"INFO {ts(s+131)} [core.py:138] init engine (profile, create kv cache, warmup model) took 56.12 seconds")
    L.append(f"INFO {ts(s+133)} [api_server.py:1081] Starting vLLM API server on http://0.0.0.0:40017")
    L.append(f"INFO {ts(s+133)} [launcher.py:26] Available routes are:")
    L.append(f"INFO:     Started server process [2590]")
    L.append(f"INFO:     Application startup complete.")
    # per-10s stats lines (0.8 V1 logs at INFO only when throughput is non-zero)
    prev_p = prev_g = 0
    for i in range(-20, n):
        tt = t0 + i * interval
        if tt < start + 140:
            continue
        txt = scrape_text(tt, reqs, cfg)
        vals = {}
        for ln in txt.splitlines():
            if ln.startswith("vllm:prompt_tokens_total") or ln.startswith("vllm:generation_tokens_total") \
                    or ln.startswith("vllm:num_requests_running") or ln.startswith("vllm:num_requests_waiting") \
                    or ln.startswith("vllm:gpu_cache_usage_perc"):
                vals[ln.split("{")[0]] = float(ln.rsplit(" ", 1)[1])
        pt, gt = vals["vllm:prompt_tokens_total"], vals["vllm:generation_tokens_total"]
        dp, dg = (pt - prev_p) / interval, (gt - prev_g) / interval
        if prev_p or prev_g:
            for r in reqs:
                if tt - interval < r.t_arr <= tt:
                    L.append(f"INFO:     10.0.3.17:{40000 + int(r.t_arr) % 20000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            if dp or dg:
                L.append(f"INFO {ts(tt)} [loggers.py:80] Engine 000: Avg prompt throughput: {dp:.1f} tokens/s, "
                         f"Avg generation throughput: {dg:.1f} tokens/s, Running: {int(vals['vllm:num_requests_running'])} reqs, "
                         f"Waiting: {int(vals['vllm:num_requests_waiting'])} reqs, GPU KV cache usage: "
                         f"{vals['vllm:gpu_cache_usage_perc'] * 100:.1f}%, Prefix cache hit rate: 0.0%")
        prev_p, prev_g = pt, gt
    write_bundle(
        cid,
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://gpustack-worker-1:40017",
         "started_at": t0, "ended_at": t_end, "interval_s": interval,
         "notes": "GPUStack worker, 4x RTX 4090, DeepSeek-R1-Distill-Qwen-14B on the vLLM backend; recorded after the operator asked why VRAM shows 93% with GPU at 0%."},
        scrapes,
        server={"version": {"version": "0.8.2"},
                "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm",
                                                        "root": "/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
                                                        "max_model_len": 131072}]},
                "health": 200},
        engine_args={"argv": ["vllm", "serve", "/var/lib/gpustack/cache/huggingface/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
                              "--host", "0.0.0.0", "--port", "40017", "--served-model-name", model,
                              "--tensor-parallel-size", "4"],
                     "args": {"served-model-name": model, "tensor-parallel-size": 4}},
        model_config=qwen25_14b_config(),
        gpu=gpu,
        logs="\n".join(L),
    )




from gen import scrape_text_v0  # noqa: E402


def _down_scrapes(t0, n, interval, err="ConnectError: [Errno 111] Connection refused"):
    return [{"t": t0 + i * interval, "error": err} for i in range(n)]


def case_sampler():
    cid = "zye-v1-sampler-warmup-8gb-r1-1p5b"
    t0 = 1741856760.0  # 03-13 09:06:00 UTC
    interval, n = 10.0, 31
    scrapes = _down_scrapes(t0, n, interval)
    tot = 8192 * MIB
    crash = t0 + 84.0
    gpu = []
    for i in range(n):
        tt = t0 + i * interval
        if tt < t0 + 25:
            used, procs = 415, []
        elif tt < t0 + 60:
            used = 415 + int(3430 * min(1.0, (tt - t0 - 25) / 30))
            procs = [{"pid": 48213, "name": "VLLM::EngineCore", "used_memory": (used - 415) * MIB}]
        elif tt < crash:
            used = 7530
            procs = [{"pid": 48213, "name": "VLLM::EngineCore", "used_memory": (used - 415) * MIB}]
        else:
            used, procs = 415, []
        gpu.append({"t": tt, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3070", "memory_total": tot,
                                          "memory_used": used * MIB, "processes": procs}]})
    s = t0 + 2
    P = "/home/gaocegege/code/vllm/vllm"
    L = [
        f"INFO {ts(s)} [__init__.py:256] Automatically detected platform cuda.",
        f"INFO {ts(s+3)} [api_server.py:972] vLLM API server version 0.7.4.dev409+g3556a4143",
        f"INFO {ts(s+3)} [api_server.py:973] args: Namespace(subparser='serve', model_tag='deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B', host=None, port=8000, max_model_len=2000, gpu_memory_utilization=0.9, max_num_seqs=None, enforce_eager=False)",
        f"INFO {ts(s+9)} [config.py:583] This model supports multiple tasks: {{'classify', 'embed', 'generate', 'reward', 'score'}}. Defaulting to 'generate'.",
        f"INFO {ts(s+9)} [config.py:1692] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"INFO {ts(s+14)} [core.py:53] Initializing a V1 LLM engine (v0.7.4.dev409+g3556a4143) with config: model='deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B', dtype=torch.bfloat16, max_seq_len=2000, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, served_model_name=deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"INFO {ts(s+18)} [gpu_model_runner.py:1128] Starting to load model deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B...",
        f"INFO {ts(s+19)} [weight_utils.py:257] Using model weights format ['*.safetensors']",
        f"INFO {ts(s+52)} [gpu_model_runner.py:1140] Loading model weights took 3.3460 GB",
        f"INFO {ts(s+61)} [backends.py:409] Using cache directory: /home/gaocegege/.cache/vllm/torch_compile_cache/5b1d6e0a2c/rank_0_0 for vLLM's torch.compile",
        f"INFO {ts(s+61)} [backends.py:419] Dynamo bytecode transform time: 5.12 s",
        f"INFO {ts(s+74)} [monitor.py:33] torch.compile takes 9.87 s in total",
        f"ERROR {ts(s+82)} [core.py:330] EngineCore hit an exception: Traceback (most recent call last):",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/engine/core.py\", line 322, in run_engine_core",
        f"ERROR {ts(s+82)} [core.py:330]     engine_core = EngineCoreProc(*args, **kwargs)",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/engine/core.py\", line 72, in _initialize_kv_caches",
        f"ERROR {ts(s+82)} [core.py:330]     available_gpu_memory = self.model_executor.determine_available_memory()",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/worker/gpu_worker.py\", line 157, in determine_available_memory",
        f"ERROR {ts(s+82)} [core.py:330]     self.model_runner.profile_run()",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/worker/gpu_model_runner.py\", line 1392, in profile_run",
        f"ERROR {ts(s+82)} [core.py:330]     sampler_output = self._dummy_sampler_run(hidden_states)",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/worker/gpu_model_runner.py\", line 1291, in _dummy_sampler_run",
        f"ERROR {ts(s+82)} [core.py:330]     sampler_output = self.model.sample(logits=logits,",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/model_executor/models/qwen2.py\", line 480, in sample",
        f"ERROR {ts(s+82)} [core.py:330]     next_tokens = self.sampler(logits, sampling_metadata)",
        f"ERROR {ts(s+82)} [core.py:330]   File \"{P}/v1/sample/sampler.py\", line 54, in forward",
        f"ERROR {ts(s+82)} [core.py:330]     logits = self.apply_temperature(logits, sampling_metadata.temperature)",
        f"ERROR {ts(s+82)} [core.py:330] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 594.00 MiB. GPU 0 has a total capacity of 7.66 GiB of which 161.62 MiB is free. Including non-PyTorch memory, this process has 7.09 GiB memory in use. Of the allocated memory 6.71 GiB is allocated by PyTorch, and 201.37 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        f"ERROR {ts(s+82)} [core.py:330] ",
        f"CRITICAL {ts(s+82)} [core_client.py:260] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
        "Killed",
    ]
    write_bundle(
        cid,
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000",
         "started_at": t0, "ended_at": t0 + interval * (n - 1), "interval_s": interval,
         "notes": "VLLM_USE_V1=1 vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B --max-model-len 2000 --gpu_memory_utilization=0.9 on an 8 GB card; recorded from launch, the engine died in start-up."},
        scrapes,
        engine_args={"argv": ["vllm", "serve", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "--max-model-len", "2000",
                              "--gpu_memory_utilization=0.9"],
                     "args": {"max-model-len": 2000, "gpu-memory-utilization": 0.9}},
        model_config={"architectures": ["Qwen2ForCausalLM"], "hidden_size": 1536, "intermediate_size": 8960,
                      "max_position_embeddings": 131072, "model_type": "qwen2", "num_attention_heads": 12,
                      "num_hidden_layers": 28, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
                      "rope_theta": 10000, "sliding_window": 4096, "tie_word_embeddings": False,
                      "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 151936},
        gpu=gpu, logs="\n".join(L))


def case_capture():
    cid = "zye-tp4-util098-graph-capture-oom"
    t0 = 1749103800.0  # 06-05 06:10:00 UTC
    interval, n = 10.0, 37
    scrapes = _down_scrapes(t0, n, interval)
    s = t0 + 5
    crash = s + 475
    tot = 40960 * MIB
    pids = [1087, 1088, 1089, 1090]
    gpu = []
    for i in range(n):
        tt = t0 + i * interval
        devs = []
        for k in range(4):
            if tt < s + 60:
                used, pr = 4, []
            else:
                if tt < s + 260:
                    used = 4 + int(16210 * min(1.0, (tt - s - 60) / 190))
                elif tt < s + 395:
                    used = 18420
                elif tt < crash:
                    used = 40352 + [0, 6, -4, 12][k]
                else:
                    used = 4
                pr = [] if used == 4 else [{"pid": pids[k], "name": "python3", "used_memory": (used - 4) * MIB}]
            devs.append({"index": k, "name": "NVIDIA A100-SXM4-40GB", "memory_total": tot,
                         "memory_used": used * MIB, "processes": pr})
        gpu.append({"t": tt, "devices": devs})
    W = lambda k: f"(VllmWorker rank={k} pid={pids[k]})"
    L = [f"INFO {ts(s)} [__init__.py:243] Automatically detected platform cuda.",
         f"INFO {ts(s+4)} [api_server.py:1289] vLLM API server version 0.9.0",
         f"INFO {ts(s+4)} [cli_args.py:300] non-default args: {{'model': '/models/Qwen2.5-32B-Instruct', 'served_model_name': ['qwen2.5-32b'], 'max_model_len': 32768, 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.98}}",
         f"INFO {ts(s+12)} [config.py:793] This model supports multiple tasks: {{'embed', 'classify', 'score', 'generate', 'reward'}}. Defaulting to 'generate'.",
         f"INFO {ts(s+12)} [config.py:1875] Defaulting to use mp for distributed inference",
         f"INFO {ts(s+12)} [config.py:2118] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"INFO {ts(s+20)} [core.py:438] Waiting for init message from front-end.",
         f"INFO {ts(s+20)} [core.py:65] Initializing a V1 LLM engine (v0.9.0) with config: model='/models/Qwen2.5-32B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=qwen2.5-32b, enable_prefix_caching=True, chunked_prefill_enabled=True, compilation_config={{\"level\":3,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}"]
    for k in range(4):
        L.append(f"{W(k)} INFO {ts(s+240+k)} [gpu_model_runner.py:1601] Model loading took 15.2644 GiB and 176.52 seconds")
    for k in range(4):
        L.append(f"{W(k)} INFO {ts(s+292)} [backends.py:462] Using cache directory: /root/.cache/vllm/torch_compile_cache/7c1e9ab2f4/rank_{k}_0 for vLLM's torch.compile")
    for k in range(4):
        L.append(f"{W(k)} INFO {ts(s+371)} [monitor.py:34] torch.compile takes 61.37 s in total")
    for k in range(4):
        L.append(f"{W(k)} INFO {ts(s+388)} [gpu_worker.py:227] Memory profiling takes 84.91 seconds\n"
                 f"{W(k)} INFO {ts(s+388)} [gpu_worker.py:227] the current vLLM instance can use total_gpu_memory (39.39GiB) x gpu_memory_utilization (0.98) = 38.60GiB\n"
                 f"{W(k)} INFO {ts(s+388)} [gpu_worker.py:227] model weights take 15.26GiB; non_torch_memory takes 0.62GiB; PyTorch activation peak memory takes 1.58GiB; the rest of the memory reserved for KV Cache is 21.14GiB.\n"
                 f"{W(k)} INFO {ts(s+388)} [gpu_worker.py:230] Available KV cache memory: 21.14 GiB")
    L.append(f"INFO {ts(s+390)} [kv_cache_utils.py:637] GPU KV cache size: 346,352 tokens")
    L.append(f"INFO {ts(s+390)} [kv_cache_utils.py:640] Maximum concurrency for 32,768 tokens per request: 10.57x")
    L.append(f"{W(3)} INFO {ts(s+395)} [gpu_model_runner.py:1933] Capturing CUDA graph shapes ...")
    E = f"{W(3)} ERROR {ts(crash)} [multiproc_executor.py:470]"
    for ln in ["WorkerProc hit an exception.", "Traceback (most recent call last):",
               '  File "/usr/local/lib/python3.10/site-packages/vllm/v1/executor/multiproc_executor.py", line 465, in worker_busy_loop',
               "    output = func(*args, **kwargs)",
               '  File "/usr/local/lib/python3.10/site-packages/vllm/v1/worker/gpu_worker.py", line 279, in compile_or_warm_up_model',
               "    self.model_runner.capture_model()",
               '  File "/usr/local/lib/python3.10/site-packages/vllm/v1/worker/gpu_model_runner.py", line 1954, in capture_model',
               "    self._dummy_run(num_tokens)",
               '  File "/usr/local/lib/python3.10/site-packages/vllm/compilation/backends.py", line 681, in __call__',
               "    with torch.cuda.graph(cudagraph, pool=self.graph_pool):",
               '  File "/usr/local/lib/python3.10/site-packages/torch/cuda/graphs.py", line 186, in __exit__',
               "    self.cuda_graph.capture_end()",
               '  File "/usr/local/lib/python3.10/site-packages/torch/cuda/graphs.py", line 84, in capture_end',
               "    super().capture_end()",
               "RuntimeError: CUDA error: out of memory",
               "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
               "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]:
        L.append(f"{E} {ln}")
    L.append(f"ERROR {ts(crash+1)} [core.py:500] EngineCore failed to start.")
    L.append(f"ERROR {ts(crash+1)} [core.py:500] Exception: WorkerProc hit an exception. See stack trace for root cause.")
    L.append(f"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}")
    write_bundle(
        cid,
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://10.20.1.14:8000",
         "started_at": t0, "ended_at": t0 + interval * (n - 1), "interval_s": interval,
         "notes": "vllm serve Qwen2.5-32B-Instruct TP4 on 4x A100 40GB at --gpu-memory-utilization 0.98; recorded from launch, the engine failed during CUDA-graph capture."},
        scrapes,
        engine_args={"argv": ["vllm", "serve", "/models/Qwen2.5-32B-Instruct", "--served-model-name", "qwen2.5-32b",
                              "--tensor-parallel-size", "4", "--max-model-len", "32768",
                              "--gpu-memory-utilization", "0.98"],
                     "args": {"tensor-parallel-size": 4, "max-model-len": 32768, "gpu-memory-utilization": 0.98}},
        model_config={"architectures": ["Qwen2ForCausalLM"], "hidden_size": 5120, "intermediate_size": 27648,
                      "max_position_embeddings": 32768, "model_type": "qwen2", "num_attention_heads": 40,
                      "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
                      "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
                      "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 152064},
        gpu=gpu, logs="\n".join(L))


def case_growth():
    cid = "zye-tp2-a100-eager-095-growth-crash"
    rnd = random.Random(8413)
    model = "chat-v2.0"
    t0 = 1726120800.0  # 09-12 06:00:00 UTC
    interval, n = 15.0, 61
    crash = t0 + 812.0
    t_end = t0 + interval * (n - 1)
    reqs, t = [], t0 - 120.0
    while t < crash - 1:
        t += rnd.expovariate(4.2)
        p = rnd.randint(2500, 6500)
        o = rnd.randint(60, 190)
        tpot = round(rnd.uniform(0.017, 0.020), 4)
        ttft = round(0.12 + p * 0.00007 + rnd.uniform(0, 0.15), 3)
        r = Req(t_arr=t, prompt=p, out=o, queue=round(rnd.uniform(0.002, 0.008), 3), ttft=ttft, tpot=tpot,
                max_tokens=1024, reason="stop")
        reqs.append(r)
    # requests still running at the crash never finish: cut them off after the crash
    alive = [r for r in reqs if r.t_end <= crash or r.t_arr > crash]
    inflight = [r for r in reqs if r.t_arr <= crash < r.t_end]
    cache_info = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
                  "gpu_memory_utilization": "0.95", "num_cpu_blocks": "1024", "num_gpu_blocks": "17024",
                  "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296",
                  "cpu_offload_gb": "0", "is_attention_free": "False"}

    def thr(tt):
        w = [r for r in reqs if tt - 10 < r.t_first <= tt]
        g = sum(1 for r in reqs if r.t_first <= tt < r.t_end) / 0.021
        return (round(sum(r.prompt for r in w) / 10.0, 1), round(g, 1))

    cfg = {"model": model, "max_model_len": 8000, "num_gpu_blocks": 17024, "block_size": 16,
           "cache_info": cache_info, "thr": thr}
    scrapes = []
    for i in range(n):
        tt = t0 + i * interval
        if tt >= crash:
            scrapes.append({"t": tt, "error": "ConnectError: [Errno 111] Connection refused"})
        else:
            scrapes.append({"t": tt, "status": 200, "text": scrape_text_v0(tt, reqs, cfg)})
    tot = 81920 * MIB
    gpu = []
    for i in range(n):
        tt = t0 + i * interval
        devs = []
        for k in range(2):
            if tt < crash:
                frac = (tt - t0) / (crash - t0)
                used = int(79900 + 1800 * frac ** 1.3 + rnd.randint(-12, 12)) + (18 if k else 0)
                used = min(used, 81702 + (18 if k else 0))
                pr = [{"pid": 31877 + k * 254, "name": "python", "used_memory": (used - 5) * MIB}]
            else:
                used, pr = 5, []
            devs.append({"index": k, "name": "NVIDIA A100-SXM4-80GB", "memory_total": tot,
                         "memory_used": used * MIB, "processes": pr})
        gpu.append({"t": tt, "devices": devs})
    st = t0 - 6 * 3600
    L = [f"INFO {ts(st)} api_server.py:459] vLLM API server version 0.6.0",
         f"INFO {ts(st)} api_server.py:460] args: Namespace(host='0.0.0.0', port=7864, served_model_name=['chat-v2.0'], model='/workspace/sdata/checkpoint-140-merged', max_model_len=8000, tensor_parallel_size=2, gpu_memory_utilization=0.95, enforce_eager=True, swap_space=4, max_num_seqs=256, enable_prefix_caching=False, enable_chunked_prefill=None)",
         f"INFO {ts(st+6)} config.py:890] Defaulting to use mp for distributed inference",
         f"INFO {ts(st+6)} llm_engine.py:213] Initializing an LLM engine (v0.6.0) with config: model='/workspace/sdata/checkpoint-140-merged', speculative_config=None, tokenizer='/workspace/sdata/checkpoint-140-merged', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=chat-v2.0, use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=False)",
         f"INFO {ts(st+40)} model_runner.py:915] Loading model weights took 7.1932 GB",
         f"(VllmWorkerProcess pid=32131) INFO {ts(st+40)} model_runner.py:915] Loading model weights took 7.1932 GB",
         f"INFO {ts(st+52)} distributed_gpu_executor.py:56] # GPU blocks: 17024, # CPU blocks: 1024",
         f"INFO {ts(st+55)} api_server.py:232] vLLM to use /tmp/tmpk2x1v7qa as PROMETHEUS_MULTIPROC_DIR",
         f"INFO {ts(st+56)} launcher.py:20] Available routes are:",
         "INFO:     Started server process [31702]",
         "INFO:     Uvicorn running on http://0.0.0.0:7864 (Press CTRL+C to quit)",
         f"# operator note: nvidia-smi right after start-up: GPU0 77446MiB / 81920MiB, GPU1 77463MiB / 81920MiB"]
    tt = t0 - interval
    while tt < crash:
        tt += 10.0
        if tt >= crash:
            break
        pr_, gen_ = thr(tt)
        run = sum(1 for r in reqs if r.t_arr + r.queue <= tt < r.t_end)
        wait = sum(1 for r in reqs if r.t_arr <= tt < r.t_arr + r.queue)
        used_b = 0
        for r in reqs:
            if r.t_arr + r.queue <= tt < r.t_end:
                done = 0 if tt < r.t_first else min(r.out, 1 + int((tt - r.t_first) / r.tpot))
                used_b += math.ceil((r.prompt + done) / 16)
        L.append(f"INFO {ts(tt)} metrics.py:351] Avg prompt throughput: {pr_:.1f} tokens/s, Avg generation throughput: {gen_:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {used_b / 17024 * 100:.1f}%, CPU KV cache usage: 0.0%.")
        for r in reqs:
            if tt - 10 < r.t_end <= tt:
                L.append(f"INFO:     10.8.0.{21 + r.out % 7}:{30000 + int(r.t_arr * 10) % 30000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
    E = f"ERROR {ts(crash)} async_llm_engine.py:63]"
    L += [f"{E} Engine background task failed",
          f"{E} Traceback (most recent call last):",
          f'{E}   File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 53, in _log_task_completion',
          f"{E}     return_value = task.result()",
          f'{E}   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1450, in execute_model',
          f"{E}     hidden_or_intermediate_states = model_executable(",
          f"{E} RuntimeError: CUDA error: out of memory",
          f"{E} CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
          f"{E} For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
          f"ERROR {ts(crash+1)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 32131 died, exit code: -6",
          f"INFO {ts(crash+1)} multiproc_worker_utils.py:124] Killing local vLLM worker processes",
          "INFO:     Shutting down",
          "INFO:     Finished server process [31702]"]
    write_bundle(
        cid,
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://0.0.0.0:7864",
         "started_at": t0, "ended_at": t_end, "interval_s": interval,
         "notes": "2x A100, TP2, --enforce-eager --gpu-memory-utilization 0.95; GPU memory had been growing for hours under steady calls; the last 15 minutes before the crash."},
        scrapes,
        server={"version": {"version": "0.6.0"},
                "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm",
                                                        "root": "/workspace/sdata/checkpoint-140-merged",
                                                        "max_model_len": 8000}]},
                "health": 200},
        engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "7864",
                              "--max-model-len", "8000", "--served-model-name", "chat-v2.0", "--model",
                              "/workspace/sdata/checkpoint-140-merged", "--enforce-eager", "--tensor-parallel-size", "2",
                              "--gpu-memory-utilization", "0.95"],
                     "args": {"max-model-len": 8000, "enforce-eager": True, "tensor-parallel-size": 2,
                              "gpu-memory-utilization": 0.95}},
        model_config={"architectures": ["Qwen2ForCausalLM"], "hidden_size": 4096, "intermediate_size": 11008,
                      "max_position_embeddings": 32768, "model_type": "qwen2", "num_attention_heads": 32,
                      "num_hidden_layers": 32, "num_key_value_heads": 32, "rms_norm_eps": 1e-06,
                      "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False,
                      "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 151936},
        gpu=gpu, logs="\n".join(L))


CASES = {"zye-4090x4-vram93-idle-healthy": case_4090,
         "zye-v1-sampler-warmup-8gb-r1-1p5b": case_sampler,
         "zye-tp4-util098-graph-capture-oom": case_capture,
         "zye-tp2-a100-eager-095-growth-crash": case_growth}

if __name__ == "__main__":
    for c in sys.argv[1:] or CASES:
        CASES[c]()
        print("built", c)
