"""Bundle builder for the zs-* cases (start-up failures: the endpoint never serves /metrics).

Writes manifest, metrics.jsonl (refused scrapes), engine_args, model_config, gpu.jsonl, logs.txt.
Run: python cases/_tools/zs/build.py  (from the worktree root)."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3] / "cases"
GiB = 1 << 30


def refused(t, url):
    return {"t": t, "error": f"GET {url}/metrics: connection refused ([Errno 111] Connection refused)"}


def write(case, *, endpoint, t0, notes, args, model_config, gpu, logs, n=3, interval=5.0):
    b = ROOT / case / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    scrapes = [refused(t0 + interval * (i + 1), endpoint) for i in range(n)]
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": t0, "ended_at": scrapes[-1]["t"], "interval_s": interval, "notes": notes}
    (b / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (b / "metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scrapes))
    (b / "engine_args.json").write_text(json.dumps({"argv": None, "args": args}, indent=1) + "\n")
    (b / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (b / "gpu.jsonl").write_text("".join(json.dumps({"t": t, "devices": d}) + "\n" for t, d in gpu))
    (b / "logs.txt").write_text(logs)


def dev(i, name, total, procs):
    used = sum(p[2] for p in procs) + int(0.4 * GiB) * (1 if procs else 0)
    return {"index": i, "name": name, "memory_total": int(total), "memory_used": int(min(used, total)),
            "processes": [{"pid": p, "name": nm, "used_memory": int(u)} for p, nm, u in procs]}


# ---------------- A: gpt-oss-120b on one H100, 131072 context ----------------
def case_a():
    t0 = 1761397600.0
    pre = "(EngineCore_DP0 pid=6880) "
    need = (18 * (131072 // 16) + 18 * (-(-(127 + 1024) // 16) + 1)) * (2 * 16 * 8 * 64 * 2) / GiB
    tb = f"{pre}ERROR 10-31 15:07:50 [core.py:708] "
    logs = "\n".join([
        "(APIServer pid=6712) INFO 10-31 15:05:58 [api_server.py:1839] vLLM API server version 0.11.0",
        "(APIServer pid=6712) INFO 10-31 15:05:58 [utils.py:233] non-default args: {'model_tag': 'openai/gpt-oss-120b', 'model': 'openai/gpt-oss-120b', 'max_num_batched_tokens': 1024, 'gpu_memory_utilization': 0.95}",
        "(APIServer pid=6712) INFO 10-31 15:06:05 [model.py:547] Resolved architecture: GptOssForCausalLM",
        "(APIServer pid=6712) INFO 10-31 15:06:05 [model.py:1510] Using max model len 131072",
        "(APIServer pid=6712) INFO 10-31 15:06:05 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=1024.",
        f"{pre}INFO 10-31 15:06:12 [core.py:644] Waiting for init message from front-end.",
        f"{pre}INFO 10-31 15:06:14 [gpu_model_runner.py:2602] Starting to load model openai/gpt-oss-120b...",
        f"{pre}INFO 10-31 15:06:15 [cuda.py:366] Using Flash Attention backend on V1 engine.",
        f"{pre}INFO 10-31 15:06:15 [mxfp4.py:98] Using Marlin backend",
        f"{pre}INFO 10-31 15:07:21 [default_loader.py:267] Loading weights took 62.84 seconds",
        f"{pre}INFO 10-31 15:07:24 [gpu_model_runner.py:2653] Model loading took 65.9651 GiB and 69.581203 seconds",
        f"{pre}INFO 10-31 15:07:31 [backends.py:548] Using cache directory: /root/.cache/vllm/torch_compile_cache/3c1f0e7a52/rank_0_0/backbone for vLLM's torch.compile",
        f"{pre}INFO 10-31 15:07:31 [backends.py:559] Dynamo bytecode transform time: 6.12 s",
        f"{pre}INFO 10-31 15:07:36 [backends.py:164] Directly load the compiled graph(s) for dynamic shape from the cache, took 4.731 s",
        f"{pre}INFO 10-31 15:07:37 [monitor.py:34] torch.compile takes 6.12 s in total",
        f"{pre}INFO 10-31 15:07:49 [gpu_worker.py:298] Available KV cache memory: 1.71 GiB",
        f"{pre}ERROR 10-31 15:07:50 [core.py:708] EngineCore failed to start.",
        f"{tb}Traceback (most recent call last):",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/engine/core.py\", line 699, in run_engine_core",
        f"{tb}    engine_core = EngineCoreProc(*args, **kwargs)",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/engine/core.py\", line 498, in __init__",
        f"{tb}    super().__init__(vllm_config, executor_class, log_stats,",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/engine/core.py\", line 92, in __init__",
        f"{tb}    self._initialize_kv_caches(vllm_config)",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/engine/core.py\", line 199, in _initialize_kv_caches",
        f"{tb}    kv_cache_configs = get_kv_cache_configs(vllm_config, kv_cache_specs,",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py\", line 1243, in get_kv_cache_configs",
        f"{tb}    check_enough_kv_cache_memory(vllm_config, kv_cache_spec_one_worker,",
        f"{tb}  File \"/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py\", line 716, in check_enough_kv_cache_memory",
        f"{tb}    raise ValueError(",
        f"{tb}ValueError: To serve at least one request with the models's max seq len (131072), ({need:.2f} GiB KV cache is needed, which is larger than the available KV cache memory (1.71 GiB). Based on the available memory, the estimated maximum model length is 48640. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        "(APIServer pid=6712) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
        ""])
    total = 84942979072  # 79.11 GiB as torch reports it
    gpu = [(t0 + 5.0 * (i + 1), [dev(0, "NVIDIA H100 80GB HBM3", total,
                                     [(6880, "VLLM::EngineCore", int(74.9 * GiB))] if i == 0 else [])])
           for i in range(3)]
    for _, d in gpu[1:]:
        d[0]["memory_used"] = int(0.5 * GiB)
    layer_types = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(36)]
    cfg = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880,
           "num_hidden_layers": 36, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
           "intermediate_size": 2880, "num_local_experts": 128, "num_experts_per_tok": 4, "experts_per_token": 4,
           "sliding_window": 128, "layer_types": layer_types, "max_position_embeddings": 131072,
           "initial_context_length": 4096, "rope_theta": 150000,
           "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                            "truncate": False, "original_max_position_embeddings": 4096},
           "vocab_size": 201088, "torch_dtype": "bfloat16", "attention_bias": True, "swiglu_limit": 7.0,
           "tie_word_embeddings": False, "use_cache": True, "eos_token_id": 200002, "pad_token_id": 199999,
           "quantization_config": {"quant_method": "mxfp4",
                                   "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                              "model.embed_tokens", "lm_head"]}}
    write("zs-gptoss120b-h100-131k-context", endpoint="http://127.0.0.1:8000", t0=t0,
          notes="vllm serve openai/gpt-oss-120b on one H100 with --gpu-memory-utilization 0.95 --max-num-batched-tokens 1024; the engine exits during KV cache initialisation and the API server never comes up.",
          args={"model": "openai/gpt-oss-120b", "gpu-memory-utilization": 0.95, "max-num-batched-tokens": 1024},
          model_config=cfg, gpu=gpu, logs=logs)


# ---------------- B: 72B (util 0.75) running, 14B (util 0.20) refused, vLLM 0.6.4.post1 ----------------
def case_b():
    t0 = 1732190400.0
    total_gib = 79.15
    other = 58.90
    weights = 8.66
    ctx = 0.45
    initial = other + weights + ctx  # 68.01
    peak_torch = weights + 1.21
    post = initial + 0.04
    non_torch = post - weights
    kv = total_gib * 0.20 - peak_torch - non_torch
    L = lambda ts, lvl, f, msg: f"{lvl} 11-21 {ts} {f}] {msg}"
    logs = "\n".join([
        L("19:20:03", "INFO", "api_server.py:585", "vLLM API server version 0.6.4.post1"),
        L("19:20:03", "INFO", "api_server.py:586", "args: Namespace(host=None, port=8001, uvicorn_log_level='info', model='/models/Qwen2.5-14B-Instruct-GPTQ-Int4', max_model_len=16384, quantization='gptq', enforce_eager=True, enable_chunked_prefill=True, enable_prefix_caching=True, gpu_memory_utilization=0.2, served_model_name=['qwen2.5-14b'], ...)"),
        L("19:20:10", "INFO", "gptq_marlin.py:108", "The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel."),
        L("19:20:10", "INFO", "config.py:1020", "Chunked prefill is enabled with max_num_batched_tokens=512."),
        L("19:20:10", "INFO", "llm_engine.py:249", "Initializing an LLM engine (v0.6.4.post1) with config: model='/models/Qwen2.5-14B-Instruct-GPTQ-Int4', dtype=torch.float16, max_seq_len=16384, tensor_parallel_size=1, quantization=gptq_marlin, enforce_eager=True, kv_cache_dtype=auto, served_model_name=qwen2.5-14b, num_scheduler_steps=1, chunked_prefill_enabled=True, enable_prefix_caching=True"),
        L("19:20:12", "INFO", "selector.py:135", "Using Flash Attention backend."),
        L("19:20:12", "INFO", "model_runner.py:1072", "Starting to load model /models/Qwen2.5-14B-Instruct-GPTQ-Int4..."),
        L("19:20:31", "INFO", "model_runner.py:1077", f"Loading model weights took {weights * 1.073741824:.4f} GB"),
        L("19:20:33", "INFO", "worker.py:232", f"Memory profiling results: total_gpu_memory={total_gib:.2f}GiB initial_memory_usage={initial:.2f}GiB peak_torch_memory={peak_torch:.2f}GiB memory_usage_post_profile={post:.2f}GiB non_torch_memory={non_torch:.2f}GiB kv_cache_size={kv:.2f}GiB gpu_memory_utilization=0.20"),
        L("19:20:33", "INFO", "gpu_executor.py:113", "# GPU blocks: 0, # CPU blocks: 1365"),
        L("19:20:33", "INFO", "gpu_executor.py:117", "Maximum concurrency for 16384 tokens per request: 0.00x"),
        L("19:20:33", "ERROR", "engine.py:366", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."),
        L("19:20:33", "ERROR", "engine.py:366", "Traceback (most recent call last):"),
        L("19:20:33", "ERROR", "engine.py:366", "  File \"/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid"),
        L("19:20:33", "ERROR", "engine.py:366", "    raise ValueError(\"No available memory for the cache blocks. \""),
        L("19:20:33", "ERROR", "engine.py:366", "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."),
        ""])
    total = int(total_gib * GiB)
    p72 = (31877, "python3", int(other * GiB))
    p14 = (33410, "python3", int((weights + ctx + 0.5) * GiB))
    gpu = []
    for i in range(3):
        procs = [p72, p14] if i == 0 else [p72]
        gpu.append((t0 + 5.0 * (i + 1), [dev(0, "NVIDIA A100-SXM4-80GB", total, procs)]))
    cfg = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 13824,
           "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "max_position_embeddings": 32768,
           "max_window_layers": 48, "sliding_window": 131072, "use_sliding_window": False, "rms_norm_eps": 1e-06,
           "rope_theta": 1000000.0, "vocab_size": 152064, "tie_word_embeddings": False, "torch_dtype": "float16",
           "bos_token_id": 151643, "eos_token_id": 151645, "hidden_act": "silu", "use_cache": True,
           "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                                   "sym": True, "damp_percent": 0.01, "true_sequential": True}}
    write("zs-two-instances-a100-72b-then-14b", endpoint="http://127.0.0.1:8001", t0=t0,
          notes="Second vLLM instance (Qwen2.5-14B-Instruct-GPTQ-Int4, --gpu-memory-utilization 0.20, port 8001) started on the A100 where a Qwen2.5-72B-Instruct-GPTQ-Int4 instance (0.75, port 8000) already runs; it exits during cache initialisation.",
          args={"model": "/models/Qwen2.5-14B-Instruct-GPTQ-Int4", "port": 8001, "gpu-memory-utilization": 0.2,
                "max-model-len": 16384, "served-model-name": "qwen2.5-14b", "quantization": "gptq",
                "enforce-eager": True, "enable-chunked-prefill": True, "enable-prefix-caching": True},
          model_config=cfg, gpu=gpu, logs=logs)


# ---------------- C: Qwen2.5-VL-72B bf16, TP4 on A100-40GB, vLLM 0.8.3 V0 ----------------
def case_c():
    t0 = 1744675500.0
    kvs = [0.04, 0.13, 0.09, 0.11]
    nts = [0.43, 0.34, 0.38, 0.36]
    pids = [None, 126555, 126553, 126554]
    bpt = 80 * 2 * 2 * 128 * 2
    blocks = int(min(kvs) * GiB / (bpt * 16))
    lines = [
        "INFO 04-15 00:04:21 [__init__.py:239] Automatically detected platform cuda.",
        "INFO 04-15 00:04:22 [api_server.py:1034] vLLM API server version 0.8.3",
        "INFO 04-15 00:04:22 [api_server.py:1035] args: Namespace(subparser='serve', model_tag='/data/ps/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/', port=8009, model='/data/ps/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/', dtype='bfloat16', trust_remote_code=True, max_model_len=4096, tensor_parallel_size=4, gpu_memory_utilization=0.95, max_num_seqs=2, limit_mm_per_prompt={'image': 1, 'video': 0}, mm_processor_kwargs={'max_pixels': 1024}, served_model_name=['qwen2vl'], ...)",
        "INFO 04-15 00:04:30 [config.py:2610] Downcasting torch.float32 to torch.bfloat16.",
        "INFO 04-15 00:04:31 [llm_engine.py:243] Initializing a V0 LLM engine (v0.8.3) with config: model='/data/ps/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/', dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=qwen2vl, enable_prefix_caching=None, chunked_prefill_enabled=False",
        "INFO 04-15 00:04:40 [cuda.py:292] Using Flash Attention backend.",
        "INFO 04-15 00:04:44 [model_runner.py:1110] Starting to load model /data/ps/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/...",
    ]
    for r, pid in enumerate(pids):
        pre = f"(VllmWorkerProcess pid={pid}) " if pid else ""
        lines.append(f"{pre}INFO 04-15 00:05:31 [model_runner.py:1146] Model loading took 34.4304 GiB and 46.218303 seconds")
    for r, pid in enumerate(pids):
        pre = f"(VllmWorkerProcess pid={pid}) " if pid else ""
        lines += [f"{pre}INFO 04-15 00:05:58 [worker.py:267] Memory profiling takes {20.84 + 0.01 * r:.2f} seconds",
                  f"{pre}INFO 04-15 00:05:58 [worker.py:267] the current vLLM instance can use total_gpu_memory (39.38GiB) x gpu_memory_utilization (0.95) = 37.41GiB",
                  f"{pre}INFO 04-15 00:05:58 [worker.py:267] model weights take 34.43GiB; non_torch_memory takes {nts[r]:.2f}GiB; PyTorch activation peak memory takes 2.51GiB; the rest of the memory reserved for KV Cache is {kvs[r]:.2f}GiB."]
    lines += [f"INFO 04-15 00:05:59 [executor_base.py:112] # cuda blocks: {blocks}, # CPU blocks: 3276",
              f"INFO 04-15 00:05:59 [executor_base.py:117] Maximum concurrency for 4096 tokens per request: {blocks * 16 / 4096:.2f}x",
              "ERROR 04-15 00:05:59 [engine.py:448] The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (%d). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine." % (blocks * 16),
              "ERROR 04-15 00:05:59 [engine.py:448] Traceback (most recent call last):",
              "ERROR 04-15 00:05:59 [engine.py:448]   File \"/data/ps/venv/lib/python3.10/site-packages/vllm/worker/worker.py\", line 550, in raise_if_cache_size_invalid",
              "ERROR 04-15 00:05:59 [engine.py:448]     raise ValueError(",
              "ERROR 04-15 00:05:59 [engine.py:448] ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (%d). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine." % (blocks * 16),
              "INFO 04-15 00:06:01 [multiproc_worker_utils.py:124] Killing local vLLM worker processes",
              ""]
    total = int(39.38 * GiB)
    wpids = [126490, 126555, 126553, 126554]
    gpu = []
    for i in range(3):
        devs = []
        for g in range(4):
            procs = [(wpids[g], "python", int(37.3 * GiB))] if i == 0 else []
            d = dev(g, "NVIDIA A100-SXM4-40GB", total, procs)
            if i > 0:
                d["memory_used"] = int(0.004 * GiB)
            devs.append(d)
        gpu.append((t0 + 5.0 * (i + 1), devs))
    cfg = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "hidden_size": 8192,
           "intermediate_size": 29568, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
           "max_position_embeddings": 128000, "max_window_layers": 80, "sliding_window": 32768, "use_sliding_window": False,
           "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
           "vocab_size": 152064, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "hidden_act": "silu",
           "bos_token_id": 151643, "eos_token_id": 151645, "image_token_id": 151655, "video_token_id": 151656,
           "vision_start_token_id": 151652, "vision_end_token_id": 151653,
           "vision_config": {"depth": 32, "hidden_size": 1280, "hidden_act": "silu", "intermediate_size": 3456,
                             "num_heads": 16, "in_chans": 3, "out_hidden_size": 8192, "patch_size": 14,
                             "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                             "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2}}
    write("zs-qwen25vl-72b-4xa100-40g", endpoint="http://127.0.0.1:8009", t0=t0,
          notes="vllm serve Qwen2.5-VL-72B-Instruct (bf16) with tensor parallel 4 on four A100 40GB; the engine exits after memory profiling and the API server never comes up.",
          args={"model": "/data/ps/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/", "port": 8009, "dtype": "bfloat16",
                "trust-remote-code": True, "served-model-name": "qwen2vl", "tensor-parallel-size": 4,
                "gpu-memory-utilization": 0.95, "max-num-seqs": 2, "max-model-len": 4096,
                "limit-mm-per-prompt": "image=1,video=0", "mm-processor-kwargs": "{\"max_pixels\":1024}"},
          model_config=cfg, gpu=gpu, logs="\n".join(lines))


# ---------------- D: second TinyLlama on an L40S, vLLM 0.7.3 V1 ----------------
def case_d():
    t0 = 1741182405.0
    logs = "\n".join([
        "INFO 03-05 13:46:21 __init__.py:207] Automatically detected platform cuda.",
        "INFO 03-05 13:46:22 api_server.py:912] vLLM API server version 0.7.3",
        "INFO 03-05 13:46:22 api_server.py:913] args: Namespace(host=None, port=8000, model='TinyLlama/TinyLlama-1.1B-Chat-v1.0', max_model_len=1024, gpu_memory_utilization=0.2, ...)",
        "WARNING 03-05 13:46:22 arg_utils.py:1385] Setting max_num_batched_tokens to 2048 for OPENAI_API_SERVER usage context.",
        "INFO 03-05 13:46:30 config.py:549] This model supports multiple tasks: {'generate', 'embed', 'classify', 'score', 'reward'}. Defaulting to 'generate'.",
        "INFO 03-05 13:46:30 config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        "INFO 03-05 13:46:31 core.py:50] Initializing a V1 LLM engine (v0.7.3) with config: model='TinyLlama/TinyLlama-1.1B-Chat-v1.0', dtype=torch.bfloat16, max_seq_len=1024, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, served_model_name=TinyLlama/TinyLlama-1.1B-Chat-v1.0, enable_prefix_caching=True, chunked_prefill_enabled=True",
        "INFO 03-05 13:46:32 gpu_model_runner.py:1049] Starting to load model TinyLlama/TinyLlama-1.1B-Chat-v1.0...",
        "INFO 03-05 13:46:32 cuda.py:157] Using Flash Attention backend on V1 engine.",
        "INFO 03-05 13:46:37 gpu_model_runner.py:1061] Loading model weights took 2.0512 GB",
        "INFO 03-05 13:46:41 backends.py:409] Using cache directory: /root/.cache/vllm/torch_compile_cache/0c3a5e1f27/rank_0 for vLLM's torch.compile",
        "INFO 03-05 13:46:41 backends.py:419] Dynamo bytecode transform time: 3.87 s",
        "INFO 03-05 13:46:48 backends.py:132] Compiling a graph for general shape takes 6.41 s",
        "INFO 03-05 13:46:49 monitor.py:33] torch.compile takes 10.28 s in total",
        "ERROR 03-05 13:46:50 core.py:291] EngineCore hit an exception: Traceback (most recent call last):",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 283, in run_engine_core",
        "ERROR 03-05 13:46:50 core.py:291]     engine_core = EngineCoreProc(*args, **kwargs)",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 238, in __init__",
        "ERROR 03-05 13:46:50 core.py:291]     super().__init__(vllm_config, executor_class, log_stats)",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 59, in __init__",
        "ERROR 03-05 13:46:50 core.py:291]     num_gpu_blocks, num_cpu_blocks = self._initialize_kv_caches(",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 99, in _initialize_kv_caches",
        "ERROR 03-05 13:46:50 core.py:291]     kv_cache_configs = [",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 533, in get_kv_cache_config",
        "ERROR 03-05 13:46:50 core.py:291]     check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
        "ERROR 03-05 13:46:50 core.py:291]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 390, in check_enough_kv_cache_memory",
        "ERROR 03-05 13:46:50 core.py:291]     raise ValueError(\"No available memory for the cache blocks. \"",
        "ERROR 03-05 13:46:50 core.py:291] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
        "ERROR 03-05 13:46:50 core.py:291] ",
        "CRITICAL 03-05 13:46:50 core_client.py:191] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
        ""])
    total = int(44.42 * GiB)
    first = (2211, "python3", int(9.38 * GiB))
    second = (2874, "python3", int(2.92 * GiB))
    gpu = [(t0 + 5.0 * (i + 1), [dev(0, "NVIDIA L40S", total, [first, second] if i == 0 else [first])]) for i in range(3)]
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632,
           "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4, "max_position_embeddings": 2048,
           "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "rope_scaling": None, "vocab_size": 32000,
           "tie_word_embeddings": False, "torch_dtype": "bfloat16", "hidden_act": "silu", "bos_token_id": 1,
           "eos_token_id": 2, "initializer_range": 0.02, "pretraining_tp": 1, "use_cache": True, "attention_bias": False}
    write("zs-v1-second-tinyllama-l40s", endpoint="http://127.0.0.1:8001", t0=t0,
          notes="Second vllm/vllm-openai container (VLLM_USE_V1=1, TinyLlama-1.1B, --gpu-memory-utilization 0.2, host port 8001) on an L40S where an identical container at 0.2 already serves; the engine core exits during KV cache initialisation.",
          args={"model": "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "max-model-len": 1024, "gpu-memory-utilization": 0.2,
                "env": {"VLLM_USE_V1": "1"}},
          model_config=cfg, gpu=gpu, logs=logs)


if __name__ == "__main__":
    case_a(); case_b(); case_c(); case_d()
