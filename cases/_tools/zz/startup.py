"""Writer zz: start-up failure bundles (zz-30k-no-chunked-prefill, zz-405b-fp8-131k-pool).

The engine refuses to start on KV sizing; the operator's bundle holds the start-up log, the
flags, the model config, GPU samples of the crash-looping pod and connection-refused scrapes.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GiB, device, epoch, refused, stamp, write_bundle  # noqa: E402

LLAMA31_70B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 28672,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.43.3", "use_cache": True, "vocab_size": 128256,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                            "quant_method": "awq", "version": "gemm", "zero_point": True},
}

LLAMA31_405B_FP8 = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 16384, "initializer_range": 0.02, "intermediate_size": 53248,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 128,
    "num_hidden_layers": 126, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.42.3", "use_cache": True, "vocab_size": 128256,
    "quantization_config": {"activation_scheme": "dynamic", "modules_to_not_convert": [], "quant_method": "fbgemm_fp8",
                            "activation_scale_ub": 1200.0},
}


def crash_window(t0: float, n: int, dt: float) -> list[dict]:
    return [refused(t0 + i * dt) for i in range(n)]


def case_30k() -> None:
    cid = "zz-30k-no-chunked-prefill"
    t0 = epoch(2024, 8, 14, 9, 12)
    model = "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"
    L = []

    def log(dt: float, s: str) -> None:
        L.append(s.replace("@", stamp(t0 + dt)))
    log(0, "INFO @ api_server.py:339] vLLM API server version 0.5.4")
    log(0, "INFO @ api_server.py:340] args: Namespace(host='0.0.0.0', port=8000, uvicorn_log_level='info', "
        "allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        f"lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', model='{model}', "
        "tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, "
        "tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', "
        "kv_cache_dtype='auto', quantization_param_path=None, max_model_len=30000, guided_decoding_backend='outlines', "
        "distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, "
        "max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, "
        "disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, "
        "cpu_offload_gb=0, gpu_memory_utilization=0.95, num_gpu_blocks_override=None, max_num_batched_tokens=None, "
        "max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, "
        "rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, "
        "disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, "
        "enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', "
        "long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, "
        "max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', scheduler_delay_factor=0.0, "
        "enable_chunked_prefill=None, speculative_model=None, num_speculative_tokens=None, served_model_name=None, "
        "disable_log_requests=True, max_log_len=None)")
    log(2, "INFO @ awq_marlin.py:89] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.")
    log(2, f"INFO @ llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{model}', "
        f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, "
        "max_seq_len=30000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, "
        "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig("
        f"otlp_traces_endpoint=None), seed=0, served_model_name={model}, use_v2_block_manager=False, "
        "enable_prefix_caching=False)")
    log(3, "INFO @ model_runner.py:720] Starting to load model " + model + "...")
    log(4, "INFO @ weight_utils.py:225] Using model weights format ['*.safetensors']")
    log(61, "INFO @ model_runner.py:732] Loading model weights took 37.0832 GB")
    log(74, "INFO @ gpu_executor.py:102] # GPU blocks: 249, # CPU blocks: 819")
    tb = ["Process SpawnProcess-1:", "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/rpc/server.py", line 217, in run_rpc_server',
          "    server = AsyncEngineRPCServer(async_engine_args, usage_context, port)",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 740, in from_engine_args',
          "    engine = cls(",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 337, in _initialize_kv_caches',
          "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/executor/gpu_executor.py", line 105, in initialize_cache',
          "    self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 225, in initialize_cache',
          "    raise_if_cache_size_invalid(num_gpu_blocks, self.cache_config.block_size,",
          '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 374, in raise_if_cache_size_invalid',
          "    raise ValueError(",
          "ValueError: The model's max seq len (30000) is larger than the maximum number of tokens that can be stored in "
          "KV cache (3984). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    L += tb
    gpu = []
    total = int(47.99 * GiB)
    for i in range(31):
        t = t0 + 90 + i * 10
        # the pod restarts: weights reload for ~60 s, then profiling, then the crash
        phase = (i * 10) % 80
        used = int(0.45 * GiB) if phase < 5 else int(min(38.4 * GiB, 0.45 * GiB + phase / 60 * 37.1 * GiB))
        gpu.append({"t": t, "devices": [device(0, "NVIDIA RTX 6000 Ada Generation", total,
                                                [(1, "python3", used)] if phase >= 5 else [], extra_used=0 if phase >= 5 else used)]})
    write_bundle(cid, endpoint="http://vllm.llm.svc:8000", started_at=t0 + 90, interval_s=10.0,
                 notes="Pod crash-looping after setting --max-model-len 30000; /metrics never answered. Start-up log from kubectl logs --previous.",
                 scrapes=crash_window(t0 + 90, 31, 10.0),
                 engine_args={"argv": None, "args": {"model": model, "max-model-len": 30000, "gpu-memory-utilization": 0.95,
                                                     "disable-log-requests": True}},
                 model_config=LLAMA31_70B, gpu=gpu, logs="\n".join(L) + "\n")


def case_405b() -> None:
    cid = "zz-405b-fp8-131k-pool"
    t0 = epoch(2024, 7, 24, 14, 3)
    model = "/models/Meta-Llama-3.1-405B-Instruct-FP8"
    pids = [6494, 6495, 6496, 6497, 6498, 6499, 6500]
    L = []

    def log(dt: float, s: str) -> None:
        L.append(s.replace("@", stamp(t0 + dt)))
    log(0, "INFO @ api_server.py:219] vLLM API server version 0.5.3.post1")
    log(0, f"INFO @ api_server.py:220] args: Namespace(host=None, port=8000, model='{model}', max_model_len=None, "
        "tensor_parallel_size=8, pipeline_parallel_size=1, gpu_memory_utilization=0.9, block_size=16, swap_space=4, "
        "kv_cache_dtype='auto', enable_chunked_prefill=None, max_num_batched_tokens=None, max_num_seqs=256, "
        "enforce_eager=False, enable_prefix_caching=False, distributed_executor_backend=None, disable_log_requests=False)")
    log(1, f"INFO @ llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: model='{model}', "
        f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
        "max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fbgemm_fp8, enforce_eager=False, "
        "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig("
        f"otlp_traces_endpoint=None), seed=0, served_model_name={model}, use_v2_block_manager=False, "
        "enable_prefix_caching=False)")
    log(3, "INFO @ custom_all_reduce_utils.py:234] reading GPU P2P access cache from /root/.config/vllm/gpu_p2p_access_cache_for_0,1,2,3,4,5,6,7.json")
    for p in pids:
        log(36, f"(VllmWorkerProcess pid={p}) INFO @ model_runner.py:680] Starting to load model {model}...")
    log(36, f"INFO @ model_runner.py:680] Starting to load model {model}...")
    for p in [6499, 6498, None, 6500, 6497, 6496, 6495, 6494]:
        pre = f"(VllmWorkerProcess pid={p}) " if p else ""
        log(271, pre + "INFO @ model_runner.py:692] Loading model weights took 57.7520 GB")
    log(277, "INFO @ distributed_gpu_executor.py:56] # GPU blocks: 4962, # CPU blocks: 4161")
    for p in [6496]:
        pre = f"(VllmWorkerProcess pid={p}) ERROR @ multiproc_worker_utils.py:226] "
        for s in ["Exception in worker VllmWorkerProcess while processing method initialize_cache: The model's max seq len "
                  "(131072) is larger than the maximum number of tokens that can be stored in KV cache (79392). Try increasing "
                  "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine., Traceback (most recent call last):",
                  '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 372, in raise_if_cache_size_invalid',
                  "    raise ValueError(",
                  "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV "
                  "cache (79392). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]:
            log(277, pre + s)
    L += ["[rank0]: Traceback (most recent call last):",
          '[rank0]:   File "/usr/local/bin/vllm", line 8, in <module>',
          "[rank0]:     sys.exit(main())",
          '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 372, in raise_if_cache_size_invalid',
          "[rank0]:     raise ValueError(",
          "[rank0]: ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored "
          "in KV cache (79392). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
          f"ERROR {stamp(t0 + 280)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 6497 died, exit code: -15",
          f"INFO {stamp(t0 + 280)} multiproc_worker_utils.py:123] Killing local vLLM worker processes"]
    total = 85520809984  # 79.65 GiB as NVML reports an H100 80GB HBM3
    gpu = []
    for i in range(31):
        t = t0 + 300 + i * 10
        gpu.append({"t": t, "devices": [device(k, "NVIDIA H100 80GB HBM3", total, [], extra_used=int(0.53 * GiB))
                                         for k in range(8)]})
    write_bundle(cid, endpoint="http://10.0.0.12:8000", started_at=t0 + 300, interval_s=10.0,
                 notes="vllm serve exited at start-up; metrics never answered. Start-up log kept from the terminal.",
                 scrapes=crash_window(t0 + 300, 31, 10.0),
                 engine_args={"argv": ["vllm", "serve", model, "--tensor-parallel-size", "8"],
                              "args": {"model": model, "tensor-parallel-size": 8}},
                 model_config=LLAMA31_405B_FP8, gpu=gpu, logs="\n".join(L) + "\n")


if __name__ == "__main__":
    case_30k()
    case_405b()
