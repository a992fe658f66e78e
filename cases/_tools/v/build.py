"""Bundle builder for writer v's cases (kvdoctor.bundle/1). Self-contained: metric names, HELP texts,
label sets and bucket layouts copied from other cases' bundles of nearby releases (format examples);
the numbers come from each case's case.yaml (quoted / assumed). Deterministic (seeded RNGs, fixed times).
Run from the worktree root:  python3 cases/_tools/v/build.py [case-id ...]"""
import datetime as dt
import json
import random
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]
GiB, MiB = 1 << 30, 1 << 20


def epoch(y, mo, d, h=0, mi=0, s=0.0):
    return dt.datetime(y, mo, d, h, mi, 0, tzinfo=dt.timezone.utc).timestamp() + s


def stamp(t):
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def refused(t, port=8000):
    return {"t": round(t, 1), "error": f"GET http://127.0.0.1:{port}/metrics: connection refused ([Errno 111] Connection refused)"}


def dev(index, name, total, procs, extra=0):
    used = sum(p[2] for p in procs) + extra
    return {"index": index, "name": name, "memory_total": int(total), "memory_used": int(min(used, total)),
            "processes": [{"pid": p, "name": n, "used_memory": int(u)} for p, n, u in procs]}


def write(case, *, endpoint, started_at, interval_s, notes, scrapes, server=None, engine_args=None,
          model_config=None, gpu=None, logs=None):
    b = CASES / case / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    for old in b.iterdir():
        old.unlink()
    ended = max([s["t"] for s in scrapes] + [started_at])
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": started_at, "ended_at": ended, "interval_s": interval_s, "notes": notes}
    (b / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (b / "metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scrapes))
    for fn, obj in (("server.json", server), ("engine_args.json", engine_args), ("model_config.json", model_config)):
        if obj is not None:
            (b / fn).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu is not None:
        (b / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs is not None:
        (b / "logs.txt").write_text(logs)


LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256,
}

R1_DISTILL_LLAMA_70B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 8192,
    "initializer_range": 0.02, "intermediate_size": 28672, "max_position_embeddings": 131072,
    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.47.0.dev0", "use_cache": True, "vocab_size": 128256,
}


# ------------------------------------------------------------------------------------------------
def asr_aligner():
    """#55827: aligner (util 0.20) started at the same time as the ASR instance (util 0.35) on one RTX 5090."""
    case = "v-asr-aligner-concurrent-start-negative-kv"
    t0 = epoch(2026, 9, 8, 10, 0, 0.0)
    api, core, asr = 4160, 4188, 4121
    L = []

    def ln(dt_, pid_tag, lvl, src, msg):
        L.append(f"({pid_tag}) {lvl} {stamp(t0 + dt_)} [{src}] {msg}")

    A, C = f"APIServer pid={api}", f"EngineCore pid={core}"
    ln(2, A, "INFO", "utils.py:297", "\u2584\u2584 \u2584\u2588 \u2588     \u2588     \u2588 \u2580\u2584\u2580 \u2588  version 0.28.0")
    ln(2, A, "INFO", "utils.py:233", "non-default args: {'model_tag': 'Qwen/Qwen3-ForcedAligner-0.6B', 'port': 8001, "
       "'model': 'Qwen/Qwen3-ForcedAligner-0.6B', 'served_model_name': ['aligner'], 'gpu_memory_utilization': 0.2}")
    ln(9, A, "INFO", "model.py:1582", "Using max model len 32768")
    ln(9, A, "INFO", "scheduler.py:231", "Chunked prefill is enabled with max_num_batched_tokens=8192.")
    ln(12, C, "INFO", "core.py:114", "Initializing a V1 LLM engine (v0.28.0) with config: model='Qwen/Qwen3-ForcedAligner-0.6B', "
       "speculative_config=None, tokenizer='Qwen/Qwen3-ForcedAligner-0.6B', dtype=torch.bfloat16, max_seq_len=32768, "
       "tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, "
       "kv_cache_dtype=auto, device_config=cuda, served_model_name=aligner, enable_prefix_caching=True")
    ln(14, C, "INFO", "parallel_state.py:1411", "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0")
    ln(14, C, "INFO", "gpu_model_runner.py:5371", "Starting to load model Qwen/Qwen3-ForcedAligner-0.6B...")
    ln(17, C, "INFO", "default_loader.py:291", "Loading weights took 1.62 seconds")
    ln(17, C, "INFO", "gpu_model_runner.py:5405", "Model loading took 1.18 GiB memory and 2.874113 seconds")
    ln(21, C, "INFO", "backends.py:1051", "Using cache directory: /root/.cache/vllm/torch_compile_cache/5b1f0c93d2/rank_0_0/backbone for vLLM's torch.compile")
    ln(21, C, "INFO", "backends.py:1111", "Dynamo bytecode transform time: 3.71 s")
    ln(27, C, "INFO", "monitor.py:48", "torch.compile took 9.34 s in total")
    ln(29, C, "INFO", "gpu_model_runner.py:6681", "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)")
    ln(31, C, "INFO", "gpu_model_runner.py:6806", "Estimated CUDA graph memory: 0.11 GiB total")
    ln(31, C, "INFO", "gpu_worker.py:563", "Available KV cache memory: -3.21 GiB")
    ln(31, C, "ERROR", "core.py:1330", "EngineCore failed to start.")
    tb = [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 1320, in run_engine_core',
        "    engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 902, in __init__',
        "    super().__init__(",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 121, in __init__',
        "    kv_cache_config = self._initialize_kv_caches(vllm_config)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 268, in _initialize_kv_caches',
        "    kv_cache_configs = get_kv_cache_configs(",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 2098, in get_kv_cache_configs',
        "    check_enough_kv_cache_memory(",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 1187, in check_enough_kv_cache_memory',
        '    raise ValueError(',
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
    ]
    for x in tb:
        ln(31, C, "ERROR", "core.py:1330", x)
    L.append(f"({C}) Process EngineCore:")
    L.append(f"({A}) Traceback (most recent call last):")
    L.append(f'({A})   File "/usr/local/bin/vllm", line 10, in <module>')
    L.append(f"({A})     sys.exit(main())")
    L.append(f"({A}) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}")
    logs = "\n".join(L) + "\n"

    total = 32607 * MiB
    asr_mem = [0.55, 2.9, 5.6, 8.4, 10.1, 10.98]  # GiB at t0+5, +15, ...
    ali_mem = [0.52, 1.71, 2.94, 3.06]
    gpu, scrapes = [], []
    for i in range(30):
        t = t0 + 5 + 10 * i
        a = asr_mem[min(i, len(asr_mem) - 1)] * GiB
        procs = [(asr, "VLLM::EngineCore", a)]
        if i < len(ali_mem):
            procs.append((core, "VLLM::EngineCore", ali_mem[i] * GiB))
        gpu.append({"t": round(t + 0.4, 1), "devices": [dev(0, "NVIDIA GeForce RTX 5090", total, procs, extra=310 * MiB)]})
        scrapes.append(refused(t, 8001))
    write(case, endpoint="http://localhost:8001", started_at=t0 + 5, interval_s=10.0,
          notes="Forced-aligner instance (port 8001) started on the RTX 5090 that also serves the ASR instance (port 8000); "
                "both launched by the same compose file at 10:00. The aligner never came up. NVML sampled with each scrape.",
          scrapes=scrapes,
          engine_args={"argv": ["vllm", "serve", "Qwen/Qwen3-ForcedAligner-0.6B", "--port", "8001",
                                "--served-model-name", "aligner", "--gpu-memory-utilization", "0.20"],
                       "args": {"model": "Qwen/Qwen3-ForcedAligner-0.6B", "port": 8001, "served-model-name": "aligner",
                                "gpu-memory-utilization": 0.2}},
          gpu=gpu, logs=logs)


# ------------------------------------------------------------------------------------------------
def llama8b_3090():
    """#10517 comment: Llama-3.1-8B-Instruct on one RTX 3090, --max-model-len 29000 refuses to start (V0, 0.6.4.post1)."""
    case = "v-llama8b-3090-29k-profile-peak"
    t0 = epoch(2024, 12, 2, 10, 14, 0.0)
    L = []

    def ln(d, lvl, src, msg):
        L.append(f"{lvl} {stamp(t0 + d)} {src}] {msg}")

    ln(3, "INFO", "api_server.py:585", "vLLM API server version 0.6.4.post1")
    ln(3, "INFO", "api_server.py:586", "args: Namespace(subparser='serve', model_tag='meta-llama/Llama-3.1-8B-Instruct', config='', "
       "host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
       "allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', "
       "model='meta-llama/Llama-3.1-8B-Instruct', task='auto', tokenizer=None, skip_tokenizer_init=False, revision=None, "
       "trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', max_model_len=29000, distributed_executor_backend=None, "
       "pipeline_parallel_size=1, tensor_parallel_size=1, block_size=None, enable_prefix_caching=None, swap_space=4, "
       "cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, "
       "max_num_seqs=None, enforce_eager=False, max_seq_len_to_capture=8192, enable_chunked_prefill=None, "
       "disable_log_requests=False, dispatch_function=<function serve at 0x7f3b1c2d9f30>)")
    ln(3, "INFO", "api_server.py:175", "Multiprocessing frontend to use ipc:///tmp/6a1e1c0b-52a4-4f0e-9d0a-3c7f52f0e4a1 for IPC Path.")
    ln(3, "INFO", "api_server.py:194", "Started engine process with PID 2231")
    ln(8, "INFO", "config.py:350", "This model supports multiple tasks: {'generate', 'embedding'}. Defaulting to 'generate'.")
    ln(11, "INFO", "llm_engine.py:249", "Initializing an LLM engine (v0.6.4.post1) with config: model='meta-llama/Llama-3.1-8B-Instruct', "
       "speculative_config=None, tokenizer='meta-llama/Llama-3.1-8B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, "
       "revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
       "max_seq_len=29000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
       "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, "
       "device_config=cuda, seed=0, served_model_name=meta-llama/Llama-3.1-8B-Instruct, num_scheduler_steps=1, "
       "chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, "
       "use_cached_outputs=True, mm_processor_kwargs=None, pooler_config=None")
    ln(12, "INFO", "selector.py:135", "Using Flash Attention backend.")
    ln(13, "INFO", "model_runner.py:1072", "Starting to load model meta-llama/Llama-3.1-8B-Instruct...")
    ln(14, "INFO", "weight_utils.py:243", "Using model weights format ['*.safetensors']")
    ln(21, "INFO", "model_runner.py:1077", "Loading model weights took 14.9888 GB")
    ln(25, "INFO", "worker.py:232", "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
       "peak_torch_memory=17.98GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=2.89GiB "
       "gpu_memory_utilization=0.90")
    ln(25, "INFO", "gpu_executor.py:113", "# GPU blocks: 1478, # CPU blocks: 2048")
    ln(25, "INFO", "gpu_executor.py:117", "Maximum concurrency for 29000 tokens per request: 0.82x")
    err = ["The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). "
           "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
           "Traceback (most recent call last):",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 357, in run_mp_engine',
           "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 323, in __init__',
           "    self._initialize_kv_caches()",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 471, in _initialize_kv_caches',
           "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 287, in initialize_cache',
           "    raise_if_cache_size_invalid(num_gpu_blocks,",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 500, in raise_if_cache_size_invalid',
           "    raise ValueError(",
           "ValueError: The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV "
           "cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    for x in err:
        ln(25, "ERROR", "engine.py:366", x)
    L.append("Process SpawnProcess-1:")
    L.append("Traceback (most recent call last):")
    L.append("ValueError: The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). "
             "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.")
    L.append("RuntimeError: Engine process failed to start. See stack trace for the root cause.")
    logs = "\n".join(L) + "\n"
    total = 24576 * MiB
    mem = [0.42, 8.9, 15.7]  # GiB, engine process at t0+5, +15, +25 (just after profiling); gone after the refusal
    gpu, scrapes = [], []
    for i in range(30):
        t = t0 + 5 + 10 * i
        procs = [(2231, "python3", mem[i] * GiB)] if i < len(mem) else []
        gpu.append({"t": round(t + 0.3, 1), "devices": [dev(0, "NVIDIA GeForce RTX 3090", total, procs, extra=240 * MiB)]})
        scrapes.append(refused(t))
    write(case, endpoint="http://localhost:8000", started_at=t0 + 5, interval_s=10.0,
          notes="Start of meta-llama/Llama-3.1-8B-Instruct with --max-model-len 29000 on one RTX 3090; the server did not come up. "
                "NVML sampled with each scrape.",
          scrapes=scrapes,
          engine_args={"argv": ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "29000"],
                       "args": {"model": "meta-llama/Llama-3.1-8B-Instruct", "max-model-len": 29000}},
          model_config=LLAMA31_8B, gpu=gpu, logs=logs)


# ------------------------------------------------------------------------------------------------
def r1_70b_4090():
    """#15617: 8x RTX 4090, vLLM 0.8.2 V1; start 1 refuses max_model_len 116160, start 2 OOMs warming up the sampler (1024)."""
    case = "v-r1-70b-4090x8-v1-sampler-1024"
    model = "/models/DeepSeek-R1-Distill-Llama-70B"
    kv_tok = 80 * 8 * 128 * 2 * 2 // 8          # bytes per token per GPU (TP=8): 40 KiB
    avail = 3.48 * GiB
    blocks = int(avail // (kv_tok * 16))
    L = []

    def attempt(t0, max_len, fail):
        def ln(d, tag, lvl, src, msg):
            pre = f"({tag}) " if tag else ""
            L.append(f"{pre}{lvl} {stamp(t0 + d)} [{src}] {msg}")
        ln(0, None, "INFO", "__init__.py:239", "Automatically detected platform cuda.")
        ln(3, None, "INFO", "api_server.py:981", "vLLM API server version 0.8.2")
        ln(3, None, "INFO", "api_server.py:982", f"args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, port=18081, "
           f"uvicorn_log_level='info', api_key=None, model='{model}', task='auto', tokenizer=None, trust_remote_code=False, "
           f"dtype='auto', kv_cache_dtype='auto', max_model_len={max_len}, distributed_executor_backend=None, "
           f"pipeline_parallel_size=1, tensor_parallel_size=8, block_size=None, enable_prefix_caching=None, swap_space=4, "
           f"cpu_offload_gb=0, gpu_memory_utilization=0.95, num_gpu_blocks_override=None, max_num_batched_tokens=None, "
           f"max_num_seqs=None, enforce_eager=False, enable_chunked_prefill=None, enable_reasoning=True, "
           f"reasoning_parser='deepseek_r1', disable_log_requests=False)")
        ln(12, None, "INFO", "config.py:585", "This model supports multiple tasks: {'generate', 'embed', 'reward', 'classify', 'score'}. Defaulting to 'generate'.")
        ln(12, None, "INFO", "config.py:1519", "Defaulting to use mp for distributed inference")
        ln(12, None, "INFO", "config.py:1697", "Chunked prefill is enabled with max_num_batched_tokens=2048.")
        ln(19, None, "INFO", "core.py:54", f"Initializing a V1 LLM engine (v0.8.2) with config: model='{model}', speculative_config=None, "
           f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, "
           f"dtype=torch.bfloat16, max_seq_len={max_len}, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, "
           f"pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
           f"device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar', reasoning_backend='deepseek_r1'), "
           f"seed=None, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, "
           f"enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, "
           f"mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],"
           f"\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,"
           f"\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")
        for r in range(8):
            ln(24, f"VllmWorker rank={r} pid={412 + r}", "INFO", "parallel_state.py:957", f"rank {r} in world size 8 is assigned as DP rank 0, PP rank 0, TP rank {r}")
        ln(26, "VllmWorker rank=0 pid=412", "INFO", "cuda.py:220", "Using Flash Attention backend on V1 engine.")
        ln(27, "VllmWorker rank=0 pid=412", "INFO", "gpu_model_runner.py:1164", f"Starting to load model {model}...")
        for r in range(8):
            ln(168, f"VllmWorker rank={r} pid={412 + r}", "INFO", "gpu_model_runner.py:1179", f"Model loading took 16.4607 GB and {139.2 + 0.3 * r:.6f} seconds")
        ln(181, "VllmWorker rank=0 pid=412", "INFO", "backends.py:415", "Using cache directory: /root/.cache/vllm/torch_compile_cache/8d41c07b3e/rank_0_0 for vLLM's torch.compile")
        ln(181, "VllmWorker rank=0 pid=412", "INFO", "backends.py:425", "Dynamo bytecode transform time: 12.05 s")
        ln(190, "VllmWorker rank=0 pid=412", "INFO", "backends.py:132", "Directly load the compiled graph for shape None from the cache, took 8.113 s")
        ln(191, "VllmWorker rank=0 pid=412", "INFO", "monitor.py:33", "torch.compile takes 20.16 s in total")
        return ln

    # start 1: 116160 refused at the KV-size check
    t1 = epoch(2025, 3, 27, 16, 40, 2.0)
    ln = attempt(t1, 116160, True)
    need = 116160 * kv_tok / GiB
    msg = (f"ValueError: To serve at least one request with the models's max seq len (116160), ({need:.2f} GB KV cache is needed, "
           f"which is larger than the available KV cache memory (3.48 GB). Try increasing `gpu_memory_utilization` or "
           f"decreasing `max_model_len` when initializing the engine.")
    for x in ["EngineCore hit an exception: Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 335, in run_engine_core',
              "    engine_core = EngineCoreProc(*args, **kwargs)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 290, in __init__',
              "    super().__init__(vllm_config, executor_class, log_stats)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 63, in __init__',
              "    num_gpu_blocks, num_cpu_blocks = self._initialize_kv_caches(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 122, in _initialize_kv_caches',
              "    kv_cache_configs = [",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 604, in get_kv_cache_config',
              "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 468, in check_enough_kv_cache_memory',
              "    raise ValueError(", msg]:
        ln(197, None, "ERROR", "core.py:343", x)
    ln(197, None, "CRITICAL", "core_client.py:269", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    # start 2: max_model_len lowered to 65536 -> KV allocated, sampler warm-up with 1024 dummy requests OOMs
    t2 = epoch(2025, 3, 27, 17, 30, 24.0)
    ln = attempt(t2, 65536, True)
    ln(197, None, "INFO", "kv_cache_utils.py:537", f"GPU KV cache size: {blocks * 16:,} tokens")
    ln(197, None, "INFO", "kv_cache_utils.py:540", f"Maximum concurrency for 65,536 tokens per request: {blocks * 16 / 65536:.2f}x")
    for r in range(8):
        ln(231, f"VllmWorker rank={r} pid={412 + r}", "INFO", "gpu_model_runner.py:1534", "Graph capturing finished in 33 secs, took 0.52 GiB")
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 502.00 MiB. GPU 0 has a total capacity of 23.64 GiB of which "
           "311.06 MiB is free. Including non-PyTorch memory, this process has 23.33 GiB memory in use. Of the allocated memory "
           "21.84 GiB is allocated by PyTorch, with 522.00 MiB allocated in private pools (e.g., CUDA Graphs), and 402.61 MiB is "
           "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
    rt = ("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering "
          "`max_num_seqs` or `gpu_memory_utilization` when initializing the engine.")
    W = "VllmWorker rank=0 pid=412"
    for x in ["WorkerProc hit an exception: %s", "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1424, in _dummy_sampler_run',
              "    sampler_output = self.model.sample(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", line 49, in forward',
              "    logits = self.apply_penalties(logits, sampling_metadata)", oom, "",
              "The above exception was the direct cause of the following exception:", "",
              "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 233, in compile_or_warm_up_model',
              "    self.model_runner._dummy_sampler_run(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1428, in _dummy_sampler_run',
              "    raise RuntimeError(", rt]:
        ln(234, W, "ERROR", "multiproc_executor.py:375", x)
    ln(234, None, "ERROR", "core.py:343", "EngineCore hit an exception: Traceback (most recent call last):")
    ln(234, None, "ERROR", "core.py:343", rt)
    ln(234, None, "CRITICAL", "core_client.py:269", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    logs = "\n".join(L) + "\n"
    total = 24564 * MiB
    gpu, scrapes = [], []
    start = t2 + 5
    prog = {0: 0.45, 1: 0.45, 2: 0.45, 3: 0.46}  # GiB per worker before weights arrive
    for i in range(30):
        t = start + 10 * i
        el = t - t2
        if el < 20:
            per = 0.0
        elif el < 165:
            per = 0.45 + (16.46 - 0.45) * (el - 20) / 145.0
        elif el < 196:
            per = 18.7
        elif el < 234:
            per = 22.84
        else:
            per = 0.0
        devs = []
        for r in range(8):
            procs = [(412 + r, "VllmWorker", (per + 0.02 * (r % 3)) * GiB)] if per > 0 else []
            devs.append(dev(r, "NVIDIA GeForce RTX 4090", total, procs, extra=18 * MiB))
        gpu.append({"t": round(t + 0.5, 1), "devices": devs})
        scrapes.append(refused(t, 18081))
    write(case, endpoint="http://localhost:18081", started_at=start, interval_s=10.0,
          notes="vllm/vllm-openai:v0.8.2 container on 8x RTX 4090 after the upgrade from 0.7.3; the server does not come up. "
                "logs.txt is `docker logs` of the container across its two most recent starts; metrics and NVML captured during the second.",
          scrapes=scrapes,
          engine_args={"argv": ["vllm", "serve", model, "--tensor-parallel-size", "8", "--gpu-memory-utilization", "0.95",
                                "--port", "18081", "--max-model-len", "65536", "--enable-reasoning", "--reasoning-parser", "deepseek_r1"],
                       "args": {"model": model, "tensor-parallel-size": 8, "gpu-memory-utilization": 0.95, "port": 18081,
                                "max-model-len": 65536, "enable-reasoning": True, "reasoning-parser": "deepseek_r1"}},
          model_config=R1_DISTILL_LLAMA_70B, gpu=gpu, logs=logs)


# ------------------------------------------------------------------------------------------------
HELP = {
    "vllm:num_requests_running": "Number of requests in model execution batches.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:kv_cache_usage_perc": "KV-cache usage. 1 means 100 percent usage.",
    "vllm:prefix_cache_queries": "Prefix cache queries, in terms of number of queried tokens.",
    "vllm:prefix_cache_hits": "Prefix cache hits, in terms of number of cached tokens.",
    "vllm:num_preemptions": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens": "Number of prefill tokens processed.",
    "vllm:generation_tokens": "Number of generation tokens processed.",
    "vllm:request_success": "Count of successfully processed requests.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "vllm:request_time_per_output_token_seconds": "Histogram of time_per_output_token_seconds per request.",
    "vllm:e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
}
TOK_B = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 50000.0, 100000.0]
ITER_B = [1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
E2E_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
HIST_B = {"vllm:request_prompt_tokens": TOK_B, "vllm:request_generation_tokens": TOK_B, "vllm:iteration_tokens_total": ITER_B,
          "vllm:time_to_first_token_seconds": TTFT_B, "vllm:inter_token_latency_seconds": ITL_B,
          "vllm:request_time_per_output_token_seconds": ITL_B, "vllm:e2e_request_latency_seconds": E2E_B,
          "vllm:request_queue_time_seconds": E2E_B, "vllm:request_inference_time_seconds": E2E_B,
          "vllm:request_prefill_time_seconds": E2E_B, "vllm:request_decode_time_seconds": E2E_B}


class Hist:
    def __init__(self, b):
        self.b, self.c, self.s, self.n = b, [0] * (len(b) + 1), 0.0, 0

    def obs(self, v, n=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.c[i] += n
                break
        else:
            self.c[-1] += n
        self.s += v * n
        self.n += n


def v1_text(lab, gauges, counters, hists, created, cache_info):
    lb = ",".join(f'{k}="{v}"' for k, v in lab.items())
    out = []
    for n in ("vllm:num_requests_running", "vllm:num_requests_waiting"):
        out += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} gauge", f"{n}{{{lb}}} {float(gauges[n])}"]
    n = "vllm:engine_sleep_state"
    out += [f"# HELP {n} Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
            "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.", f"# TYPE {n} gauge"]
    for st, v in (("awake", 1.0), ("weights_offloaded", 0.0), ("discard_all", 0.0)):
        out.append(f'{n}{{{lb},sleep_state="{st}"}} {v}')
    n = "vllm:kv_cache_usage_perc"
    out += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} gauge", f"{n}{{{lb}}} {gauges[n]}"]
    for n in ("vllm:prefix_cache_queries", "vllm:prefix_cache_hits", "vllm:num_preemptions", "vllm:prompt_tokens",
              "vllm:generation_tokens"):
        out += [f"# HELP {n}_total {HELP[n]}", f"# TYPE {n}_total counter", f"{n}_total{{{lb}}} {float(int(counters[n]))}",
                f"# HELP {n}_created {HELP[n]}", f"# TYPE {n}_created gauge", f"{n}_created{{{lb}}} {created}"]
    n = "vllm:request_success"
    out += [f"# HELP {n}_total {HELP[n]}", f"# TYPE {n}_total counter"]
    for r in ("stop", "length", "abort", "error"):
        out.append(f'{n}_total{{{lb},finished_reason="{r}"}} {float(int(counters[n + ":" + r]))}')
    out += [f"# HELP {n}_created {HELP[n]}", f"# TYPE {n}_created gauge"]
    for r in ("stop", "length", "abort", "error"):
        out.append(f'{n}_created{{{lb},finished_reason="{r}"}} {created}')
    for n, h in hists.items():
        out += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} histogram"]
        cum = 0
        for le, c in zip(h.b, h.c):
            cum += c
            out.append(f'{n}_bucket{{{lb},le="{le}"}} {float(cum)}')
        out.append(f'{n}_bucket{{{lb},le="+Inf"}} {float(h.n)}')
        out.append(f"{n}_count{{{lb}}} {float(h.n)}")
        out.append(f"{n}_sum{{{lb}}} {round(h.s, 6)}")
        out += [f"# HELP {n}_created {HELP[n]}", f"# TYPE {n}_created gauge", f"{n}_created{{{lb}}} {created}"]
    out += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge",
            "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cache_info.items())) + "} 1.0"]
    return "\n".join(out) + "\n"


def glm_spark():
    """eugr/spark-vllm-docker#43: GLM-4.7-Flash AWQ on one DGX Spark, --gpu-mem 0.8; process memory 60993 -> 83521 MiB, then flat."""
    case = "v-glm47-flash-spark-memory-climb-plateau"
    rnd = random.Random(43)
    t0 = epoch(2026, 2, 13, 15, 0, 0.0)
    created = t0 - 3 * 3600 + 17.25
    lab = {"engine": "0", "model_name": "glm-4.7-flash"}
    blocks = 52340
    cache_info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
                  "cpu_offload_gb": "0", "enable_prefix_caching": "True", "engine": "0", "gpu_memory_utilization": "0.8",
                  "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
                  "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
                  "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
                  "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
                  "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    # counters carried over from the three hours the server has been up
    C = {"vllm:prefix_cache_queries": 1.91e6, "vllm:prefix_cache_hits": 1.12e6, "vllm:num_preemptions": 0,
         "vllm:prompt_tokens": 0.79e6, "vllm:generation_tokens": 2.31e5, "vllm:request_success:stop": 412,
         "vllm:request_success:length": 9, "vllm:request_success:abort": 3, "vllm:request_success:error": 0}
    H = {n: Hist(b) for n, b in HIST_B.items()}
    for _ in range(424):  # seed the histograms with the earlier three hours
        p = int(rnd.lognormvariate(8.3, 0.7)); g = int(rnd.lognormvariate(6.0, 0.6))
        itl = rnd.uniform(0.021, 0.029); ttft = 0.15 + p / 6500.0
        for n, v in (("vllm:request_prompt_tokens", p), ("vllm:request_generation_tokens", g), ("vllm:time_to_first_token_seconds", ttft),
                     ("vllm:request_time_per_output_token_seconds", itl), ("vllm:e2e_request_latency_seconds", ttft + g * itl),
                     ("vllm:request_queue_time_seconds", rnd.uniform(0.001, 0.01)), ("vllm:request_inference_time_seconds", ttft + g * itl),
                     ("vllm:request_prefill_time_seconds", ttft - 0.05), ("vllm:request_decode_time_seconds", g * itl)):
            H[n].obs(v)
        H["vllm:inter_token_latency_seconds"].obs(itl, g)
        H["vllm:iteration_tokens_total"].obs(rnd.choice([1, 2, 3, 2048]), g)
    scrapes, gpu = [], []
    total = 128849018880  # 120 GiB visible to CUDA/NVML on the GB10 (assumed)
    active = []  # [remaining_gen, ctx]
    for i in range(72):  # 12 minutes at 10 s
        t = t0 + 10 * i
        # arrivals: ~0.8 request / 10 s (agentic chat with long contexts), finishes counted when remaining hits 0
        for _ in range(1 if rnd.random() < 0.8 else 0):
            p = min(120000, int(rnd.lognormvariate(10.0, 0.6))); g = int(rnd.lognormvariate(6.6, 0.4))
            hit = int(p * rnd.uniform(0.45, 0.75)) // 16 * 16
            C["vllm:prefix_cache_queries"] += p; C["vllm:prefix_cache_hits"] += hit; C["vllm:prompt_tokens"] += p - hit
            ttft = 0.12 + (p - hit) / 6500.0; itl = rnd.uniform(0.021, 0.029)
            H["vllm:request_prompt_tokens"].obs(p); H["vllm:time_to_first_token_seconds"].obs(ttft)
            H["vllm:request_queue_time_seconds"].obs(rnd.uniform(0.001, 0.008)); H["vllm:request_prefill_time_seconds"].obs(ttft - 0.05)
            H["vllm:iteration_tokens_total"].obs(min(2048, p - hit))
            active.append([g, p, itl, ttft, g])
        done = []
        for a in active:
            slow = max(1.0, 0.85 + 0.15 * len(active))
            step = min(a[0], int(10 / (a[2] * slow)))
            a[0] -= step; a[1] += step
            C["vllm:generation_tokens"] += step
            H["vllm:inter_token_latency_seconds"].obs(a[2] * slow, step); H["vllm:iteration_tokens_total"].obs(len(active), step)
            if a[0] <= 0:
                done.append(a)
        for a in done:
            active.remove(a)
            g, itl, ttft = a[4], a[2], a[3]
            C["vllm:request_success:stop"] += 1
            H["vllm:request_generation_tokens"].obs(g); H["vllm:request_time_per_output_token_seconds"].obs(itl)
            H["vllm:e2e_request_latency_seconds"].obs(ttft + g * itl); H["vllm:request_inference_time_seconds"].obs(ttft + g * itl)
            H["vllm:request_decode_time_seconds"].obs(g * itl)
        used_tok = sum(a[1] for a in active)
        usage = round(min(0.2, used_tok / (blocks * 16.0) + 0.004 * len(active)), 6)
        g_ = {"vllm:num_requests_running": len(active), "vllm:num_requests_waiting": 0, "vllm:kv_cache_usage_perc": usage}
        scrapes.append({"t": round(t, 1), "status": 200, "text": v1_text(lab, g_, C, H, created, cache_info)})
        # process footprint: 60993 MiB, climbing to 83521 MiB over the first ~7 minutes, then flat
        frac = min(1.0, i / 42.0)
        proc = (60993 + (83521 - 60993) * (frac ** 0.8)) * MiB
        gpu.append({"t": round(t + 0.3, 1), "devices": [dev(0, "NVIDIA GB10", total, [(342697, "VLLM::EngineCore", proc)], extra=5.8 * GiB)]})
    write(case, endpoint="http://localhost:8000", started_at=t0, interval_s=10.0,
          notes="GLM-4.7-Flash AWQ served on one DGX Spark (spark-vllm-docker recipe glm-4.7-flash-awq, --solo, --gpu-mem 0.8) "
                "during ordinary use; the operator suspects a memory leak because the EngineCore's memory in nvidia-smi keeps rising.",
          scrapes=scrapes,
          server={"version": "0.15.2rc1.dev118+g13397841a", "models": {"object": "list", "data": [{"id": "glm-4.7-flash", "object": "model",
                  "owned_by": "vllm", "root": "cyankiwi/GLM-4.7-Flash-AWQ-4bit", "parent": None, "max_model_len": 202752}]}, "health": 200},
          engine_args={"argv": None, "args": {"model": "cyankiwi/GLM-4.7-Flash-AWQ-4bit", "served-model-name": "glm-4.7-flash",
                                              "gpu-memory-utilization": 0.8}},
          gpu=gpu)


BUILDERS = {"v-asr-aligner-concurrent-start-negative-kv": asr_aligner, "v-llama8b-3090-29k-profile-peak": llama8b_3090,
            "v-r1-70b-4090x8-v1-sampler-1024": r1_70b_4090, "v-glm47-flash-spark-memory-climb-plateau": glm_spark}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[cid]()
        print("built", cid)
