"""Writer zm's bundle builder (kvdoctor.bundle/1), round 10.

All four zm cases are start-up or early-run GPU-memory failures: the API server never came up
(or the run was an offline script), so every /metrics scrape failed and the evidence is the
server log, the command line, the model's config.json and NVML samples. This module writes
those files; the numbers come from the sources quoted in each case.yaml, the rest is listed
there under `assumed`.

Run:  python cases/_tools/zm/gen.py            (writes cases/zm-*/bundle/)
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GIB = 1024 ** 3
MIB = 1024 ** 2


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def epoch(s: str) -> float:
    return dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp()


def write_bundle(case: str, manifest: dict, metrics: list[dict], engine_args: dict, model_config: dict,
                 gpu: list[dict], logs: list[str], server: dict | None = None) -> None:
    out = ROOT / "cases" / case / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (out / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    (out / "logs.txt").write_text("\n".join(logs) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")


def refused(t0: float, n: int, dt_s: float, url: str) -> list[dict]:
    return [{"t": round(t0 + i * dt_s, 1),
             "error": f"GET {url}/metrics: connection refused ([Errno 111] Connection refused)"}
            for i in range(n)]


def manifest(endpoint: str, t0: float, t1: float, interval: float, notes: str) -> dict:
    return {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
            "started_at": t0, "ended_at": t1, "interval_s": interval, "notes": notes}


def gpu_sample(t: float, devices: list[tuple[int, str, int, list[tuple[int, str, int]]]],
               base_used: int = 0) -> dict:
    devs = []
    for idx, name, total, procs in devices:
        used = base_used + sum(p[2] for p in procs)
        devs.append({"index": idx, "name": name, "memory_total": total, "memory_used": used,
                     "processes": [{"pid": p, "name": nm, "used_memory": u} for p, nm, u in procs]})
    return {"t": round(t, 1), "devices": devs}


def interp(points: list[tuple[float, float]], x: float) -> float:
    """Piecewise-linear GiB curve over time offsets (seconds)."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


# --------------------------------------------------------------------------------------------
# Model configs (Hugging Face config.json as published; only the fields the configs carry)
# --------------------------------------------------------------------------------------------

GEMMA3_27B_AWQ = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "boi_token_index": 255999,
    "eoi_token_index": 256000,
    "eos_token_id": [1, 106],
    "image_token_index": 262144,
    "initializer_range": 0.02,
    "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm",
                            "zero_point": True},
    "text_config": {
        "attention_bias": False, "attention_dropout": 0.0, "attn_logit_softcapping": None,
        "final_logit_softcapping": None, "head_dim": 128, "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 5376, "initializer_range": 0.02, "intermediate_size": 21504,
        "max_position_embeddings": 131072, "model_type": "gemma3_text", "num_attention_heads": 32,
        "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
        "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_theta": 1000000.0,
        "sliding_window": 1024, "sliding_window_pattern": 6, "torch_dtype": "float16",
        "use_cache": True, "vocab_size": 262208},
    "torch_dtype": "float16",
    "transformers_version": "4.50.0",
    "vision_config": {
        "attention_dropout": 0.0, "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152,
        "image_size": 896, "intermediate_size": 4304, "layer_norm_eps": 1e-06,
        "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_channels": 3,
        "num_hidden_layers": 27, "patch_size": 14, "torch_dtype": "float16", "vision_use_head": False},
}

QWEN3_8B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288,
    "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
    "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}

QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
    "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
    "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8,
    "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": False,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}


# --------------------------------------------------------------------------------------------
# Case 1: Gemma-3-27B int4 AWQ on one 24G card, vLLM 0.8.3 V0, max_model_len 4096 > 3584 pool
# --------------------------------------------------------------------------------------------

def case_gemma3() -> None:
    case = "zm-gemma3-awq-4096-over-3584-pool"
    t0 = epoch("2025-04-07 15:50:55")
    model = "gaunernst/gemma-3-27b-it-int4-awq"
    site = "/python3.9/site-packages/vllm"
    # KV: 62 layers x 16 KV heads x 128 x 2 (K,V) x 2 B = 507,904 B/token; block 16 = 7.75 MiB
    per_tok = 62 * 16 * 128 * 2 * 2
    blk = 16 * per_tok
    total = round(21.99 * GIB)
    budget = 0.98 * total
    weights, non_torch, act = 17.611 * GIB, 0.13 * GIB, 2.11 * GIB
    kv = budget - weights - non_torch - act
    nblk = int(kv // blk)
    assert nblk == 224 and nblk * 16 == 3584, (nblk, kv / GIB)
    cpu_blk = int(4 * GIB // blk)
    L = []

    def log(off: float, lvl: str, msg: str) -> None:
        L.append(f"{lvl} {ts(t0 + off)} {msg}")

    log(0, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(4, "INFO", "[api_server.py:1034] vLLM API server version 0.8.3")
    log(4, "INFO", "[api_server.py:1035] args: Namespace(subparser='serve', model_tag='gaunernst/gemma-3-27b-it-int4-awq', config='', host=None, port=8000, uvicorn_log_level='info', disable_uvicorn_access_log=False, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, enable_ssl_refresh=False, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='gaunernst/gemma-3-27b-it-int4-awq', task='auto', tokenizer=None, hf_config_path=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, allowed_local_media_path=None, download_dir=None, load_format='auto', config_format=<ConfigFormat.AUTO: 'auto'>, dtype='float16', kv_cache_dtype='auto', max_model_len=4096, guided_decoding_backend='xgrammar', logits_processor_pattern=None, model_impl='auto', distributed_executor_backend='ray', pipeline_parallel_size=1, tensor_parallel_size=1, data_parallel_size=1, enable_expert_parallel=False, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=None, enable_prefix_caching=None, prefix_caching_hash_algo='builtin', disable_sliding_window=False, use_v2_block_manager=True, num_lookahead_slots=0, seed=None, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.98, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_partial_prefills=1, max_long_partial_prefills=1, long_prefill_token_threshold=0, max_num_seqs=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=False, enable_prompt_adapter=False, scheduler_delay_factor=0.0, enable_chunked_prefill=None, speculative_config=None, preemption_mode=None, served_model_name=None, disable_async_output_proc=False, scheduling_policy='fcfs', scheduler_cls='vllm.core.scheduler.Scheduler', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', worker_extension_cls='', generation_config='auto', override_generation_config=None, enable_sleep_mode=False, calculate_kv_scales=False, additional_config=None, enable_reasoning=False, reasoning_parser=None, disable_cascade_attn=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, enable_server_load_tracking=False, dispatch_function=<function ServeSubcommand.cmd at 0x7f3c2a1b5af0>)")
    log(13, "INFO", "[config.py:600] This model supports multiple tasks: {'generate', 'embed', 'reward', 'score', 'classify'}. Defaulting to 'generate'.")
    log(13, "WARNING", "[config.py:679] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models.")
    log(13, "WARNING", "[arg_utils.py:1708] --distributed-executor-backend ray is not supported by the V1 Engine. Falling back to V0. ")
    log(13, "INFO", "[config.py:1634] Defaulting to use ray for distributed inference")
    log(13, "INFO", "[api_server.py:246] Started engine process with PID 2417")
    log(21, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(24, "INFO", f"[llm_engine.py:242] Initializing a V0 LLM engine (v0.8.3) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=None, chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=True, ")
    log(27, "INFO", "[ray_utils.py:335] No current placement group found. Creating a new placement group.")
    log(30, "INFO", "[ray_distributed_executor.py:176] use_ray_spmd_worker: False")
    log(36, "INFO", "[cuda.py:292] Using Flash Attention backend.")
    log(37, "INFO", "[parallel_state.py:957] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0")
    log(37, "INFO", f"[model_runner.py:1110] Starting to load model {model}...")
    log(38, "INFO", "[config.py:3334] cudagraph sizes specified by model runner [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256] is overridden by config [256, 128, 2, 1, 4, 136, 8, 144, 16, 152, 24, 160, 32, 168, 40, 176, 48, 184, 56, 192, 64, 200, 72, 208, 80, 216, 88, 120, 224, 96, 232, 104, 240, 112, 248]")
    log(39, "INFO", "[weight_utils.py:265] Using model weights format ['*.safetensors']")
    L.append("Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]")
    L.append("Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:11<00:00,  2.91s/it]")
    log(51, "INFO", "[loader.py:447] Loading weights took 11.66 seconds")
    log(52, "INFO", "[model_runner.py:1146] Model loading took 17.6110 GiB and 12.273077 seconds")
    log(60, "INFO", "[worker.py:267] Memory profiling takes 7.68 seconds")
    log(60, "INFO", f"[worker.py:267] the current vLLM instance can use total_gpu_memory ({total / GIB:.2f}GiB) x gpu_memory_utilization (0.98) = {budget / GIB:.2f}GiB")
    log(60, "INFO", f"[worker.py:267] model weights take {weights / GIB:.2f}GiB; non_torch_memory takes {non_torch / GIB:.2f}GiB; PyTorch activation peak memory takes {act / GIB:.2f}GiB; the rest of the memory reserved for KV Cache is {kv / GIB:.2f}GiB.")
    log(61, "INFO", f"[executor_base.py:112] # cuda blocks: {nblk}, # CPU blocks: {cpu_blk}")
    log(61, "INFO", f"[executor_base.py:117] Maximum concurrency for 4096 tokens per request: {nblk * 16 / 4096:.2f}x")
    err = f"ERROR {ts(t0 + 61)} [engine.py:448] "
    msg = ("The model's max seq len (4096) is larger than the maximum number of tokens that can be "
           "stored in KV cache (3584). Try increasing `gpu_memory_utilization` or decreasing "
           "`max_model_len` when initializing the engine.")
    tb = [
        msg,
        "Traceback (most recent call last):",
        f'  File "{site}/engine/multiprocessing/engine.py", line 436, in run_mp_engine',
        "    engine = MQLLMEngine.from_vllm_config(",
        f'  File "{site}/engine/multiprocessing/engine.py", line 128, in from_vllm_config',
        "    return cls(",
        f'  File "{site}/engine/multiprocessing/engine.py", line 82, in __init__',
        "    self.engine = LLMEngine(*args, **kwargs)",
        f'  File "{site}/engine/llm_engine.py", line 285, in __init__',
        "    self._initialize_kv_caches()",
        f'  File "{site}/engine/llm_engine.py", line 447, in _initialize_kv_caches',
        "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
        f'  File "{site}/executor/executor_base.py", line 118, in initialize_cache',
        '    self.collective_rpc("initialize_cache",',
        f'  File "{site}/executor/executor_base.py", line 331, in collective_rpc',
        "    return self._run_workers(method, *args, **(kwargs or {}))",
        f'  File "{site}/executor/ray_distributed_executor.py", line 516, in _run_workers',
        "    self.driver_worker.execute_method(sent_method, *args, **kwargs)",
        f'  File "{site}/worker/worker_base.py", line 621, in execute_method',
        "    raise e",
        f'  File "{site}/worker/worker_base.py", line 612, in execute_method',
        "    return run_method(self, method, args, kwargs)",
        f'  File "{site}/utils.py", line 2363, in run_method',
        "    return func(*args, **kwargs)",
        f'  File "{site}/worker/worker.py", line 291, in initialize_cache',
        "    raise_if_cache_size_invalid(",
        f'  File "{site}/worker/worker.py", line 544, in raise_if_cache_size_invalid',
        "    raise ValueError(",
        "ValueError: " + msg,
    ]
    L.extend(err + x for x in tb)
    L.append("Process SpawnProcess-1:")
    L.append("Traceback (most recent call last):")
    L.append(f'  File "{site}/engine/multiprocessing/engine.py", line 450, in run_mp_engine')
    L.append("    raise e")
    L.append("ValueError: " + msg)
    log(63, "INFO", "[ray_distributed_executor.py:127] Shutting down Ray distributed executor. If you see error log from logging.cc regarding SIGTERM received, please ignore because this is the expected termination process in Ray.")
    L.append("Traceback (most recent call last):")
    L.append('  File "/python3.9/site-packages/vllm/entrypoints/openai/api_server.py", line 1121, in <module>')
    L.append("    uvloop.run(run_server(args))")
    L.append('  File "/python3.9/site-packages/vllm/entrypoints/openai/api_server.py", line 183, in build_async_engine_client_from_engine_args')
    L.append('    raise RuntimeError(')
    L.append("RuntimeError: Engine process failed to start. See stack trace for the root cause.")

    # NVML: one process (the engine process holds the model; ray driver worker in-process)
    name, pid = "NVIDIA A10G", 2417
    curve = [(0, 0.0), (21, 0.0), (36, 0.42), (52, 18.05), (56, 20.40), (60, 18.20), (61, 20.02),
             (64, 20.02), (66, 0.0)]
    gpu = []
    for i in range(13):
        t = t0 + 2 + i * 10
        gib = interp(curve, t - t0)
        procs = [(pid, "/usr/bin/python3", int(gib * GIB))] if gib > 0 else []
        gpu.append(gpu_sample(t, [(0, name, total, procs)], base_used=int(0.25 * GIB)))
    metrics = refused(t0 + 1.5, 13, 10.0, "http://127.0.0.1:8000")
    ea = {"argv": ["vllm", "serve", model, "--max-model-len", "4096", "--gpu-memory-utilization", "0.98",
                   "--distributed-executor-backend", "ray", "--dtype", "float16"],
          "args": {"model": model, "max-model-len": 4096, "gpu-memory-utilization": 0.98,
                   "distributed-executor-backend": "ray", "dtype": "float16"}}
    man = manifest("http://127.0.0.1:8000", round(t0 + 1.5, 1), round(t0 + 123.5, 1), 10.0,
                   "Start-up of `VLLM_USE_V1=0 vllm serve gaunernst/gemma-3-27b-it-int4-awq --max-model-len 4096 "
                   "--gpu-memory-utilization 0.98 --distributed-executor-backend ray --dtype float16` on one 24G "
                   "card; the engine exits at the KV-cache size check, the API server never listens, no scrape "
                   "succeeded. The operator's next attempt (--max-model-len 128, same utilization) died in "
                   "CUDA-graph capture with 'CUDA error: out of memory' (not recorded here).")
    write_bundle(case, man, metrics, ea, GEMMA3_27B_AWQ, gpu, L)


# --------------------------------------------------------------------------------------------
# Case 2: Qwen3-8B on a shared A800, vLLM 0.8.5 V1, utilization 0.4, co-tenant charged as own
# --------------------------------------------------------------------------------------------

def case_cotenant() -> None:
    case = "zm-v1-085-a800-cotenant-no-cache-blocks"
    t0 = epoch("2025-04-30 10:19:00")
    mp = "/root/yjpzmodel/basemodel/Qwen3-8B"
    site = "/home/python_vllm_env_085/lib/python3.11/site-packages/vllm"
    total = round(79.15 * GIB)
    co_pid, co_used = 51877, int(32.6 * GIB)
    pid = 83412
    L = []

    def log(off: float, lvl: str, msg: str) -> None:
        L.append(f"{lvl} {ts(t0 + off)} {msg}")

    log(2, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(6, "INFO", "[api_server.py:1043] vLLM API server version 0.8.5")
    log(6, "INFO", f"[api_server.py:1044] args: Namespace(host=None, port=8001, uvicorn_log_level='info', disable_uvicorn_access_log=False, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, enable_ssl_refresh=False, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='{mp}', task='auto', tokenizer=None, hf_config_path=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, allowed_local_media_path=None, load_format='auto', download_dir=None, model_loader_extra_config={{}}, use_tqdm_on_load=True, config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', max_model_len=None, guided_decoding_backend='auto', reasoning_parser=None, logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, data_parallel_size=1, enable_expert_parallel=False, max_parallel_loading_workers=None, ray_workers_use_nsight=False, disable_custom_all_reduce=False, block_size=None, gpu_memory_utilization=0.4, swap_space=4, kv_cache_dtype='auto', num_gpu_blocks_override=None, enable_prefix_caching=None, prefix_caching_hash_algo='builtin', cpu_offload_gb=0, calculate_kv_scales=False, disable_sliding_window=False, use_v2_block_manager=True, seed=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_token=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config={{}}, limit_mm_per_prompt={{}}, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=None, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=None, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', speculative_config=None, ignore_patterns=[], served_model_name=['Qwen3-8B'], qlora_adapter_name_or_path=None, show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, max_num_batched_tokens=None, max_num_seqs=None, max_num_partial_prefills=1, max_long_partial_prefills=1, long_prefill_token_threshold=0, num_lookahead_slots=0, scheduler_delay_factor=0.0, preemption_mode=None, num_scheduler_steps=1, multi_step_stream_outputs=True, scheduling_policy='fcfs', enable_chunked_prefill=None, disable_chunked_mm_input=False, scheduler_cls='vllm.core.scheduler.Scheduler', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', worker_extension_cls='', generation_config='auto', override_generation_config=None, enable_sleep_mode=False, additional_config=None, enable_reasoning=False, disable_cascade_attn=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, enable_server_load_tracking=False)")
    log(15, "INFO", "[config.py:717] This model supports multiple tasks: {'classify', 'reward', 'score', 'embed', 'generate'}. Defaulting to 'generate'.")
    log(15, "INFO", "[config.py:2003] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    log(19, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(22, "INFO", f"[core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=40960, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name=Qwen3-8B, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")
    log(23, "WARNING", "[utils.py:2522] Methods determine_num_available_blocks,device_config,get_cache_block_size_bytes,initialize_cache not implemented in <vllm.v1.worker.gpu_worker.Worker object at 0x7f5a9c3e1d10>")
    log(24, "INFO", "[parallel_state.py:1004] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0")
    log(24, "INFO", "[cuda.py:221] Using Flash Attention backend on V1 engine.")
    log(24, "WARNING", "[topk_topp_sampler.py:69] FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.")
    log(24, "INFO", f"[gpu_model_runner.py:1329] Starting to load model {mp}...")
    L.append("Loading safetensors checkpoint shards:   0% Completed | 0/5 [00:00<?, ?it/s]")
    L.append("Loading safetensors checkpoint shards: 100% Completed | 5/5 [00:48<00:00,  9.71s/it]")
    log(73, "INFO", "[loader.py:458] Loading weights took 48.62 seconds")
    log(73, "INFO", "[gpu_model_runner.py:1347] Model loading took 15.2683 GiB and 48.917310 seconds")
    log(81, "INFO", "[backends.py:420] Using cache directory: /root/.cache/vllm/torch_compile_cache/8e3c0b7f19/rank_0_0 for vLLM's torch.compile")
    log(81, "INFO", "[backends.py:430] Dynamo bytecode transform time: 7.41 s")
    log(88, "INFO", "[backends.py:136] Cache the graph of shape None for later use")
    log(95, "INFO", "[backends.py:148] Compiling a graph for general shape takes 6.52 s")
    log(95, "INFO", "[monitor.py:33] torch.compile takes 13.93 s in total")
    err = f"ERROR {ts(t0 + 96)} [core.py:396] "
    tb = [
        "EngineCore failed to start.",
        "Traceback (most recent call last):",
        f'  File "{site}/v1/engine/core.py", line 387, in run_engine_core',
        "    engine_core = EngineCoreProc(*args, **kwargs)",
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/v1/engine/core.py", line 329, in __init__',
        "    super().__init__(vllm_config, executor_class, log_stats,",
        f'  File "{site}/v1/engine/core.py", line 71, in __init__',
        "    self._initialize_kv_caches(vllm_config)",
        f'  File "{site}/v1/engine/core.py", line 137, in _initialize_kv_caches',
        "    kv_cache_configs = [",
        "                       ^",
        f'  File "{site}/v1/engine/core.py", line 138, in <listcomp>',
        "    get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
        f'  File "{site}/v1/core/kv_cache_utils.py", line 699, in get_kv_cache_config',
        "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
        f'  File "{site}/v1/core/kv_cache_utils.py", line 527, in check_enough_kv_cache_memory',
        '    raise ValueError("No available memory for the cache blocks. "',
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
    ]
    L.extend(err + x for x in tb)
    L.append("Process EngineCore_0:")
    L.append("Traceback (most recent call last):")
    L.append('  File "/usr/local/lib/python3.11/multiprocessing/process.py", line 314, in _bootstrap')
    L.append("    self.run()")
    L.append('  File "/usr/local/lib/python3.11/multiprocessing/process.py", line 108, in run')
    L.append("    self._target(*self._args, **self._kwargs)")
    L.append(f'  File "{site}/v1/engine/core.py", line 400, in run_engine_core')
    L.append("    raise e")
    L.append("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.")
    L.append("Traceback (most recent call last):")
    L.append(f'  File "{site}/entrypoints/openai/api_server.py", line 1130, in <module>')
    L.append("    uvloop.run(run_server(args))")
    L.append(f'  File "{site}/v1/engine/core_client.py", line 394, in _wait_for_engine_startup')
    L.append('    raise RuntimeError("Engine core initialization failed. "')
    L.append("RuntimeError: Engine core initialization failed. See root cause above.")

    # NVML: co-tenant (an earlier V0 server) all the time + this server's curve
    curve = [(0, 0.0), (22, 0.0), (24, 0.48), (73, 15.78), (81, 16.05), (90, 17.02), (96, 16.95),
             (98, 0.0)]
    gpu = []
    for i in range(11):
        t = t0 + 3 + i * 10
        gib = interp(curve, t - t0)
        procs = [(co_pid, "python", co_used)]
        if gib > 0:
            procs.append((pid, "python", int(gib * GIB)))
        gpu.append(gpu_sample(t, [(0, "NVIDIA A800 80GB PCIe", total, procs)], base_used=int(0.3 * GIB)))
    metrics = refused(t0 + 2.5, 11, 10.0, "http://127.0.0.1:8001")
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", mp, "--served-model-name",
            "Qwen3-8B", "--gpu-memory-utilization", "0.4", "--port", "8001"]
    ea = {"argv": argv, "args": {"model": mp, "served-model-name": "Qwen3-8B",
                                 "gpu-memory-utilization": 0.4, "port": 8001}}
    man = manifest("http://127.0.0.1:8001", round(t0 + 2.5, 1), round(t0 + 102.5, 1), 10.0,
                   "Start-up of a second OpenAI server (Qwen3-8B, --gpu-memory-utilization 0.4, vLLM 0.8.5 with "
                   "the default V1 engine) on an A800 80GB PCIe that already runs another server; the engine exits "
                   "after torch.compile, before any KV cache is allocated; no scrape succeeded. The operator reports "
                   "the same command starts with VLLM_USE_V1=0.")
    write_bundle(case, man, metrics, ea, QWEN3_8B, gpu, L)


# --------------------------------------------------------------------------------------------
# Case 3: Qwen3-30B-A3B TP4 on 4x A10, vLLM 0.8.5 V1, OOM in CUDA-graph capture
# --------------------------------------------------------------------------------------------

def case_graph_capture() -> None:
    case = "zm-qwen3-30b-a3b-a10x4-graph-capture-oom"
    t0 = epoch("2025-04-29 00:57:40")
    model = "Qwen/Qwen3-30B-A3B"
    site = "/usr/local/lib/python3.12/dist-packages"
    total = 23028 * MIB
    # KV per rank: 48 layers x 1 KV head (4 / TP4) x 128 x 2 x 2 B = 24,576 B/token
    per_tok = 48 * 1 * 128 * 2 * 2
    tokens = 198_784
    kv = tokens * per_tok
    assert abs(kv / GIB - 4.55) < 0.01
    pids = [105, 106, 107, 108]
    P = "qwen3-1  | "
    L = []

    def log(off: float, lvl: str, msg: str, rank: int | None = None) -> None:
        pre = f"(VllmWorker rank={rank} pid={pids[rank]}) " if rank is not None else ""
        L.append(f"{P}{pre}{lvl} {ts(t0 + off)} {msg}")

    log(2, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(10, "INFO", "[api_server.py:1043] vLLM API server version 0.8.5")
    log(10, "INFO", f"[api_server.py:1044] args: Namespace(host=None, port=8000, uvicorn_log_level='info', disable_uvicorn_access_log=False, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key='<redacted>', lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, enable_ssl_refresh=False, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='{model}', task='auto', tokenizer=None, hf_config_path=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, allowed_local_media_path=None, load_format='auto', download_dir=None, model_loader_extra_config={{}}, use_tqdm_on_load=True, config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', max_model_len=8192, guided_decoding_backend='auto', reasoning_parser=None, logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=4, data_parallel_size=1, enable_expert_parallel=False, max_parallel_loading_workers=None, ray_workers_use_nsight=False, disable_custom_all_reduce=False, block_size=None, gpu_memory_utilization=0.9, swap_space=4, kv_cache_dtype='auto', num_gpu_blocks_override=None, enable_prefix_caching=None, prefix_caching_hash_algo='builtin', cpu_offload_gb=0, calculate_kv_scales=False, disable_sliding_window=False, use_v2_block_manager=True, seed=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_token=None, hf_overrides=None, enforce_eager=False, max_seq_len_to_capture=8192, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config={{}}, limit_mm_per_prompt={{}}, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=None, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=None, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', speculative_config=None, ignore_patterns=[], served_model_name=None, qlora_adapter_name_or_path=None, show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, max_num_batched_tokens=None, max_num_seqs=None, max_num_partial_prefills=1, max_long_partial_prefills=1, long_prefill_token_threshold=0, num_lookahead_slots=0, scheduler_delay_factor=0.0, preemption_mode=None, num_scheduler_steps=1, multi_step_stream_outputs=True, scheduling_policy='fcfs', enable_chunked_prefill=None, disable_chunked_mm_input=False, scheduler_cls='vllm.core.scheduler.Scheduler', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', worker_extension_cls='', generation_config='auto', override_generation_config=None, enable_sleep_mode=False, additional_config=None, enable_reasoning=False, disable_cascade_attn=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, enable_server_load_tracking=False)")
    log(22, "INFO", "[config.py:717] This model supports multiple tasks: {'generate', 'classify', 'score', 'reward', 'embed'}. Defaulting to 'generate'.")
    log(22, "INFO", "[config.py:1770] Defaulting to use mp for distributed inference")
    log(22, "INFO", "[config.py:2003] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    log(29, "INFO", "[__init__.py:239] Automatically detected platform cuda.")
    log(33, "INFO", f"[core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")
    log(33, "WARNING", "[multiproc_worker_utils.py:306] Reducing Torch parallelism from 24 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    log(33, "INFO", "[shm_broadcast.py:266] vLLM message queue communication handle: Handle(local_reader_ranks=[0, 1, 2, 3], buffer_handle=(4, 10485760, 10, 'psm_5b1f2c07'), local_subscribe_addr='ipc:///tmp/6f1e2a8c-3d54-4b1a-9c0e-2f7d8a1b6c3e', remote_subscribe_addr=None, remote_addr_ipv6=False)")
    for r in range(4):
        log(38, "INFO", f"[utils.py:1055] Found nccl from library libnccl.so.2", r)
        log(38, "INFO", f"[pynccl.py:69] vLLM is using nccl==2.21.5", r)
    log(41, "INFO", "[shm_broadcast.py:266] vLLM message queue communication handle: Handle(local_reader_ranks=[1, 2, 3], buffer_handle=(3, 4194304, 6, 'psm_d0f9f695'), local_subscribe_addr='ipc:///tmp/22358ed2-dec6-4e1b-812d-bb6df0196376', remote_subscribe_addr=None, remote_addr_ipv6=False)", 0)
    for r in range(4):
        log(41, "INFO", f"[parallel_state.py:1004] rank {r} in world size 4 is assigned as DP rank 0, PP rank 0, TP rank {r}", r)
        log(41, "INFO", "[cuda.py:221] Using Flash Attention backend on V1 engine.", r)
        log(41, "INFO", "[topk_topp_sampler.py:59] Using FlashInfer for top-p & top-k sampling.", r)
        log(41, "INFO", f"[gpu_model_runner.py:1329] Starting to load model {model}...", r)
    for r in range(4):
        log(46, "INFO", "[weight_utils.py:265] Using model weights format ['*.safetensors']", r)
    load = [558.37, 558.63, 558.57, 558.63]
    for r in range(4):
        log(600, "INFO", f"[loader.py:458] Loading weights took {load[r]:.2f} seconds", r)
    took = [558.868858, 559.043662, 559.045517, 559.041898]
    for r in (0, 2, 1, 3):
        log(601, "INFO", f"[gpu_model_runner.py:1347] Model loading took 14.2474 GiB and {took[r]:.6f} seconds", r)
    dirs = {0: "rank_0_0", 1: "rank_1_0", 2: "rank_2_0", 3: "rank_3_0"}
    for r in (1, 2, 0, 3):
        log(622, "INFO", f"[backends.py:420] Using cache directory: /root/.cache/vllm/torch_compile_cache/5477567bed/{dirs[r]} for vLLM's torch.compile", r)
        log(622, "INFO", "[backends.py:430] Dynamo bytecode transform time: 20.34 s", r)
    for r in range(4):
        log(634, "INFO", "[backends.py:136] Cache the graph of shape None for later use", r)
    for r in range(4):
        log(700, "INFO", "[backends.py:148] Compiling a graph for general shape takes 77.86 s", r)
    for r in range(4):
        log(707, "INFO", "[monitor.py:33] torch.compile takes 98.20 s in total", r)
    for _ in range(4):
        log(729, "INFO", f"[kv_cache_utils.py:634] GPU KV cache size: {tokens:,} tokens")
        log(729, "INFO", f"[kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per request: {tokens / 8192:.2f}x")
    e = "ERROR"
    off = 752
    tb = [
        "WorkerProc hit an exception.",
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/v1/executor/multiproc_executor.py", line 465, in worker_busy_loop',
        "    output = func(*args, **kwargs)",
        "             ^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/v1/worker/gpu_worker.py", line 242, in compile_or_warm_up_model',
        "    self.model_runner.capture_model()",
        f'  File "{site}/vllm/v1/worker/gpu_model_runner.py", line 1686, in capture_model',
        "    self._dummy_run(num_tokens)",
        f'  File "{site}/torch/utils/_contextlib.py", line 116, in decorate_context',
        "    return func(*args, **kwargs)",
        "           ^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/v1/worker/gpu_model_runner.py", line 1498, in _dummy_run',
        "    outputs = model(",
        "              ^^^^^^",
        f'  File "{site}/vllm/compilation/decorators.py", line 238, in __call__',
        "    output = self.compiled_callable(*args, **kwargs)",
        f'  File "{site}/vllm/compilation/backends.py", line 677, in __call__',
        "    with torch.cuda.graph(cudagraph, pool=self.graph_pool):",
        "         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/torch/cuda/graphs.py", line 186, in __exit__',
        "    self.cuda_graph.capture_end()",
        f'  File "{site}/torch/cuda/graphs.py", line 84, in capture_end',
        "    super().capture_end()",
        "RuntimeError: CUDA error: out of memory",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "",
    ]
    for r in (1, 0, 3, 2):
        for x in tb:
            log(off, e, "[multiproc_executor.py:470] " + x, r)
    ce = [
        "EngineCore failed to start.",
        "Traceback (most recent call last):",
        f'  File "{site}/vllm/v1/engine/core.py", line 387, in run_engine_core',
        "    engine_core = EngineCoreProc(*args, **kwargs)",
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{site}/vllm/v1/engine/core.py", line 329, in __init__',
        "    super().__init__(vllm_config, executor_class, log_stats,",
        f'  File "{site}/vllm/v1/engine/core.py", line 71, in __init__',
        "    self._initialize_kv_caches(vllm_config)",
        f'  File "{site}/vllm/v1/engine/core.py", line 159, in _initialize_kv_caches',
        "    self.model_executor.initialize_from_config(kv_cache_configs)",
        f'  File "{site}/vllm/v1/executor/abstract.py", line 65, in initialize_from_config',
        '    self.collective_rpc("compile_or_warm_up_model")',
        f'  File "{site}/vllm/v1/executor/multiproc_executor.py", line 197, in collective_rpc',
        "    raise RuntimeError(",
        "RuntimeError: ('Worker failed with error %s, please check the stack trace above for the root cause', 'CUDA error: out of memory\\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\\n')",
    ]
    for x in ce:
        log(off + 1, e, "[core.py:396] " + x)
    log(off + 2, "CRITICAL", "[core_client.py:359] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    L.append("qwen3-1 exited with code 1")

    # NVML: 4 ranks; weights load slowly (558 s), profile, KV pool, then capture fills the card
    curve = [(0, 0.0), (41, 0.0), (44, 0.52), (600, 15.01), (700, 15.40), (720, 16.55), (729, 21.10),
             (745, 22.21), (752, 22.43), (754, 0.0)]
    gpu = []
    n = int(780 // 15) + 1
    for i in range(n):
        t = t0 + 4 + i * 15
        gib = interp(curve, t - t0)
        devs = []
        for r in range(4):
            g = max(0.0, gib - 0.03 * (r == 0) + 0.01 * r) if gib > 0 else 0.0
            procs = [(pids[r], "python3", int(g * GIB))] if g > 0 else []
            devs.append((r, "NVIDIA A10", total, procs))
        gpu.append(gpu_sample(t, devs, base_used=int(0.26 * GIB)))
    metrics = refused(t0 + 3.5, n, 15.0, "http://qwen3:8000")
    ea = {"argv": ["vllm", "serve", model, "--tensor-parallel-size", "4", "--max-model-len", "8192",
                   "--api-key", "<redacted>"],
          "args": {"model": model, "tensor-parallel-size": 4, "max-model-len": 8192}}
    man = manifest("http://qwen3:8000", round(t0 + 3.5, 1), round(t0 + 3.5 + (n - 1) * 15, 1), 15.0,
                   "docker compose service 'qwen3' (vllm/vllm-openai v0.8.5, Qwen/Qwen3-30B-A3B, TP 4 on 4x A10); "
                   "recorder started with the container; weights take ~9 minutes to load; the API server never "
                   "listened (connection refused throughout). The operator reports the same OOM with "
                   "--max-model-len 1024 --max-num-seqs 1 and a clean start with --enforce-eager (~20 tok/s).")
    write_bundle(case, man, metrics, ea, QWEN3_30B_A3B, gpu, L)


# --------------------------------------------------------------------------------------------
# Case 4: LMCache CPU-offload example, Qwen3-8B on RTX A5000, vLLM 0.21.0, utilization 0.9764
# --------------------------------------------------------------------------------------------

def case_lmcache() -> None:
    case = "zm-lmcache-qwen3-8b-a5000-util-0976-oom"
    t0 = epoch("2026-05-28 07:55:30")
    model = "Qwen/Qwen3-8B"
    total = round(23.53 * GIB)
    per_tok = 36 * 8 * 128 * 2 * 2
    blocks = 2898
    tokens = blocks * 16
    assert tokens == 46368 and round(tokens / 16384, 2) == 2.83
    kv_gib = 6.37
    pid = 4108
    venv = "/workspace/lmcache-experiments/.venv/lib/python3.12/site-packages"
    L = []

    def lm(off: float, msg: str, src: str) -> None:
        t = dt.datetime.fromtimestamp(t0 + off, dt.timezone.utc)
        stamp = t.strftime("%Y-%m-%d %H:%M:%S") + f",{int((off % 1) * 1000):03d}"
        L.append(f"[{stamp}] LMCache INFO: {msg} ({src})")

    def log(off: float, lvl: str, msg: str, ec: bool = True) -> None:
        pre = f"(EngineCore pid={pid}) " if ec else ""
        L.append(f"{pre}{lvl} {ts(t0 + off)} {msg}")

    lm(4.092, f" torch_dev=<module 'torch.cuda' from '{venv}/torch/cuda/__init__.py'>, torch_device_type=cuda", "__init__.py:59:lmcache")
    log(7, "INFO", "[utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B', 'max_model_len': 16384, 'gpu_memory_utilization': 0.9764, 'disable_log_stats': True, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', engine_id=None, kv_buffer_device='cuda', kv_buffer_size=1000000000.0, kv_role='kv_both', kv_rank=None, kv_parallel_size=1, kv_ip='127.0.0.1', kv_port=14579, kv_connector_extra_config={}, kv_connector_module_path=None, enable_permute_local_kv=False, kv_load_failure_policy='recompute')}", ec=False)
    log(9, "INFO", "[model.py:549] Resolved architecture: Qwen3ForCausalLM", ec=False)
    log(9, "INFO", "[model.py:1672] Using max model len 16384", ec=False)
    log(9, "INFO", "[scheduler.py:238] Chunked prefill is enabled with max_num_batched_tokens=8192.", ec=False)
    log(15, "INFO", "[core.py:105] Initializing a V1 LLM engine (v0.21.0) with config: model='Qwen/Qwen3-8B', speculative_config=None, tokenizer='Qwen/Qwen3-8B', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=Qwen/Qwen3-8B, enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None")
    log(17, "INFO", "[parallel_state.py:1413] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 0, EP rank 0")
    log(17, "INFO", "[factory.py:64] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 0b6f2d8e-6a41-4c1e-9f52-3e7d0c4a9b18")
    log(17, "WARNING", "[base.py:163] Initializing KVConnectorBase_V1. This API is experimental and subject to change in the future as we iterate the design.")
    lm(17.412, "Loading LMCache config file None", "utils.py:107:lmcache.integration.vllm.utils")
    lm(17.415, "Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 5.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None, 'save_decode_cache': False, 'use_layerwise': False, 'enable_blending': False, 'save_unfull_chunk': True, 'cache_policy': 'LRU'}", "cache_engine.py:87:lmcache.v1.cache_engine")
    lm(17.431, "Initializing LRUCachePolicy", "lru.py:20:lmcache.v1.storage_backend.cache_policy.lru")
    lm(22.118, "Initializing usage context.", "usage_context.py:357:lmcache.usage_context")
    log(23, "INFO", "[gpu_model_runner.py:4520] Starting to load model Qwen/Qwen3-8B...")
    log(24, "INFO", "[cuda.py:367] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']")
    log(229, "INFO", "[default_loader.py:314] Loading weights took 203.71 seconds")
    log(230, "INFO", "[gpu_model_runner.py:4614] Model loading took 15.27 GiB memory and 205.912044 seconds")
    log(238, "INFO", "[backends.py:1003] Using cache directory: /root/.cache/vllm/torch_compile_cache/1f6c3a9d2e/rank_0_0/backbone for vLLM's torch.compile")
    log(238, "INFO", "[backends.py:1062] Dynamo bytecode transform time: 7.88 s")
    log(262, "INFO", "[backends.py:313] Compiling a graph for compile range (1, 8192) takes 22.41 s")
    log(262, "INFO", "[monitor.py:53] torch.compile took 30.29 s in total")
    log(263, "INFO", "[monitor.py:81] Initial profiling/warmup run took 0.61 s")
    log(294, "INFO", "[gpu_model_runner.py:6063] Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)")
    log(295, "INFO", "[gpu_model_runner.py:6142] Estimated CUDA graph memory: 0.52 GiB total")
    log(296, "INFO", f"[gpu_worker.py:462] Available KV cache memory: {kv_gib:.2f} GiB")
    log(296, "INFO", "[gpu_worker.py:477] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9764 is equivalent to --gpu-memory-utilization=0.9543 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.9984. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.")
    log(296, "INFO", f"[kv_cache_utils.py:1710] GPU KV cache size: {tokens:,} tokens")
    log(296, "INFO", f"[kv_cache_utils.py:1711] Maximum concurrency for 16,384 tokens per request: {tokens / 16384:.2f}x")
    log(296, "INFO", "[kernel_warmup.py:44] Skipping FlashInfer autotune because it is disabled.")
    L.append(f"(EngineCore pid={pid}) ")
    L.append("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 51/51 [00:06<00:00,  8.12it/s]")
    L.append("Capturing CUDA graphs (decode, FULL): 100%|██████████| 35/35 [00:03<00:00, 10.37it/s]")
    log(306, "INFO", "[gpu_model_runner.py:6231] Graph capturing finished in 10 secs, took 0.49 GiB")
    log(306, "INFO", "[gpu_worker.py:601] CUDA graph pool memory: 0.49 GiB (actual), 0.52 GiB (estimated), difference: 0.03 GiB (5.8%).")
    log(306, "INFO", "[gpu_worker.py:664] Free memory on device (23.22/23.53 GiB) on startup. Desired GPU memory utilization is (0.9764, 22.97 GiB). Actual usage is 15.61 GiB for consumed memory (weights + non-torch), 0.47 GiB for peak activation, and 0.49 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory=6872036147` (6.40 GiB) to fit into requested memory, or `--kv-cache-memory=7001911296` (6.52 GiB) to fully utilize gpu memory. Current kv cache memory in use is 6.37 GiB.")
    log(307, "INFO", "[core.py:298] init engine (profile, create kv cache, warmup model) took 76.85 seconds")
    lm(307.520, "Post-initializing LMCacheEngine with GPU connector VLLMPagedMemGPUConnectorV2 (chunk_size=256, hidden_dim_size=1024, num_layers=36)", "vllm_v1_adapter.py:741:lmcache.integration.vllm.vllm_v1_adapter")
    log(308, "INFO", "[llm.py:345] Supported tasks: ['generate']", ec=False)
    L.append("Adding requests: 100%|██████████| 10/10 [00:00<00:00, 41.27it/s]")
    L.append("Processed prompts:   0%|          | 0/10 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]")
    lm(311.204, "Storing KV cache for 8192 out of 10021 tokens (skip_leading_tokens=0) for request 0", "vllm_v1_adapter.py:1186:lmcache.integration.vllm.vllm_v1_adapter")
    lm(312.977, "Stored 8192 out of total 8192 tokens. size: 1.1250 gb, cost 1771.4132 ms, throughput: 0.6351 GB/s", "cache_engine.py:262:lmcache.v1.cache_engine")
    lm(313.681, "Storing KV cache for 1829 out of 10021 tokens (skip_leading_tokens=8192) for request 0", "vllm_v1_adapter.py:1186:lmcache.integration.vllm.vllm_v1_adapter")
    log(314, "ERROR", "[core.py:1108] EngineCore encountered a fatal error.")
    log(314, "ERROR", "[core.py:1108] Traceback (most recent call last):")
    log(314, "ERROR", "[core.py:1108]   [frames not included in the report]")
    log(314, "ERROR", "[core.py:1108] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 704.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 412.31 MiB is free. Including non-PyTorch memory, this process has 23.11 GiB memory in use. Of the allocated memory 22.58 GiB is allocated by PyTorch, with 0.49 GiB allocated in private pools (e.g., CUDA Graphs), and 96.45 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-alloc-conf)")
    L.append("Processed prompts:   0%|          | 0/10 [00:04<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]")
    log(315, "ERROR", "[llm_engine.py:244] EngineCore encountered an issue. See stack trace (above) for the root cause.", ec=False)
    L.append("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")

    curve = [(0, 0.0), (16, 0.0), (18, 0.46), (230, 15.73), (263, 16.42), (295, 16.70), (297, 22.71),
             (306, 23.06), (310, 23.08), (313, 23.11), (314.5, 23.11), (316, 0.0)]
    gpu = []
    n = 33
    for i in range(n):
        t = t0 + 2 + i * 10
        gib = interp(curve, t - t0)
        procs = [(pid, "python", int(gib * GIB))] if gib > 0 else []
        gpu.append(gpu_sample(t, [(0, "NVIDIA RTX A5000", total, procs)], base_used=int(0.02 * GIB)))
    metrics = [{"t": round(t0 + 2 + i * 10, 1),
                "error": "no /metrics endpoint: offline vllm.LLM() in cpu_offload.py, no HTTP server"}
               for i in range(n)]
    ea = {"argv": ["python", "cpu_offload.py"],
          "args": {"model": model, "max-model-len": 16384, "gpu-memory-utilization": 0.9764,
                   "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}}
    man = manifest("offline:cpu_offload.py", round(t0 + 2, 1), round(t0 + 2 + (n - 1) * 10, 1), 10.0,
                   "LMCache CPU-offloading quickstart (examples cpu_offload.py: 10 prompts of ~10,000 tokens) run "
                   "offline with vLLM 0.21.0 and lmcache nightly on one RTX A5000; no HTTP server, so no /metrics; "
                   "NVML sampled from a second shell. The process dies with CUDA OOM on the first batch; the "
                   "reporter's traceback frames were not included in the issue.")
    write_bundle(case, man, metrics, ea, QWEN3_8B, gpu, L)


def main() -> None:
    case_gemma3()
    case_cotenant()
    case_graph_capture()
    case_lmcache()


if __name__ == "__main__":
    main()
