"""Writer zzc: start-up failure bundles (round 13, theme: start-up and memory).

zzc-two-qwen05b-4060ti-second-refused  second V1 instance on an 8 GB card counts the first one's memory
zzc-two-containers-a100-v1-w8a8        same mechanism, two containers on an A100 80GB (v0.8.5)
zzc-mllama-profile-oom-96g             Llama-3.2-11B-Vision OOM in the multimodal profile run (v0.6.3)
zzc-qwen25vl-72b-4xa100-40g-v1-oom     Qwen2.5-VL-72B TP4 on 40 GB cards OOM at V1 start-up (v0.8.2)

Every server here dies at start-up: /metrics is refused on every scrape; the evidence is the log the
operator kept, the flags, the model config and NVML samples. Deterministic, no wall clock.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GiB, MiB, device, epoch, refused, stamp, write_bundle  # noqa: E402

QWEN25_05B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
    "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 21,
    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": True,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}

QWEN25_14B_W8A8 = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 13824, "max_position_embeddings": 32768, "max_window_layers": 70,
    "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 48, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.48.2", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064,
    "quantization_config": {
        "config_groups": {"group_0": {
            "input_activations": {"actorder": None, "block_structure": None, "dynamic": True, "group_size": None,
                                  "num_bits": 8, "observer": None, "observer_kwargs": {}, "strategy": "token",
                                  "symmetric": True, "type": "int"},
            "output_activations": None, "targets": ["Linear"],
            "weights": {"actorder": None, "block_structure": None, "dynamic": False, "group_size": None,
                        "num_bits": 8, "observer": "minmax", "observer_kwargs": {}, "strategy": "channel",
                        "symmetric": True, "type": "int"}}},
        "format": "int-quantized", "global_compression_ratio": 1.46, "ignore": ["lm_head"],
        "kv_cache_scheme": None, "quant_method": "compressed-tensors", "quantization_status": "compressed"},
}

MLLAMA_11B = {
    "architectures": ["MllamaForConditionalGeneration"], "image_token_index": 128256, "model_type": "mllama",
    "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0",
    "text_config": {
        "model_type": "mllama_text_model", "hidden_size": 4096, "intermediate_size": 14336, "hidden_act": "silu",
        "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "max_position_embeddings": 131072,
        "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38], "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": 128001, "pad_token_id": 128004,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
    "vision_config": {
        "model_type": "mllama_vision_model", "hidden_size": 1280, "intermediate_size": 5120, "num_hidden_layers": 32,
        "num_global_layers": 8, "attention_heads": 16, "image_size": 560, "patch_size": 14, "max_num_tiles": 4,
        "num_channels": 3, "vision_output_dim": 7680, "intermediate_layers_indices": [3, 7, 15, 23, 30],
        "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
        "norm_eps": 1e-05, "hidden_act": "gelu", "torch_dtype": "bfloat16"},
}

QWEN25_VL_72B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "vision_start_token_id": 151652, "vision_end_token_id": 151653,
    "vision_token_id": 151654, "image_token_id": 151655, "video_token_id": 151656, "hidden_act": "silu",
    "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 29568, "max_position_embeddings": 128000,
    "max_window_layers": 80, "model_type": "qwen2_5_vl", "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.49.0.dev0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3456,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 8192, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2},
}


class Log:
    def __init__(self, t0: float) -> None:
        self.t0, self.lines = t0, []

    def __call__(self, dt: float, level: str, where: str, msg: str, pre: str = "") -> None:
        self.lines.append(f"{pre}{level} {stamp(self.t0 + dt)} {where} {msg}")

    def raw(self, *lines: str) -> None:
        self.lines.extend(lines)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def v1_ns(model: str, port: int, util: float, max_len: int | None, extra: str = "") -> str:
    ml = "None" if max_len is None else str(max_len)
    return (f"Namespace(subparser='serve', model_tag=None, config='', host=None, port={port}, uvicorn_log_level='info', "
            f"allowed_origins=['*'], api_key=None, lora_modules=None, chat_template=None, model='{model}', task='auto', "
            f"tokenizer=None, trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', max_model_len={ml}, "
            f"distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, block_size=None, "
            f"enable_prefix_caching=None, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization={util}, "
            f"num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=None, quantization=None, "
            f"enforce_eager=False, served_model_name=None, disable_log_stats=False, disable_log_requests=False{extra})")


# ---------------------------------------------------------------- zzc-two-qwen05b-4060ti-second-refused
def case_4060ti() -> None:
    cid = "zzc-two-qwen05b-4060ti-second-refused"
    t0 = epoch(2025, 6, 4, 11, 59, 52)
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    L = Log(t0)
    L(0, "INFO", "[__init__.py:243]", "Automatically detected platform cuda.")
    L(3, "INFO", "[api_server.py:1289]", "vLLM API server version 0.9.0.1")
    L(3, "INFO", "[api_server.py:1290]", "args: " + v1_ns(model, 8001, 0.4, None))
    L(9, "INFO", "[config.py:793]", "This model supports multiple tasks: {'classify', 'generate', 'embed', 'score', 'reward'}. Defaulting to 'generate'.")
    L(9, "INFO", "[config.py:2118]", "Chunked prefill is enabled with max_num_batched_tokens=2048.")
    L(12, "INFO", "[core.py:438]", "Waiting for init message from front-end.")
    L(12, "INFO", "[core.py:65]", f"Initializing a V1 LLM engine (v0.9.0.1) with config: model='{model}', speculative_config=None, "
      f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, "
      "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, "
      "load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
      "quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
      f"decoding_config=DecodingConfig(backend='auto'), seed=None, served_model_name={model}, num_scheduler_steps=1, "
      "multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, "
      "pooler_config=None, compilation_config={\"level\": 3, \"custom_ops\": [\"none\"], \"splitting_ops\": "
      "[\"vllm.unified_attention\", \"vllm.unified_attention_with_output\"], \"use_inductor\": true, \"compile_sizes\": [], "
      "\"use_cudagraph\": true, \"cudagraph_num_of_warmups\": 1, \"max_capture_size\": 512}")
    L(13, "INFO", "[parallel_state.py:1064]", "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0")
    L(13, "INFO", "[cuda.py:216]", "Using Flash Attention backend on V1 engine.")
    L(13, "INFO", "[gpu_model_runner.py:1531]", f"Starting to load model {model}...")
    L(14, "INFO", "[weight_utils.py:291]", "Using model weights format ['*.safetensors']")
    L(14, "INFO", "[weight_utils.py:344]", "No model.safetensors.index.json found in remote.")
    L(15, "INFO", "[default_loader.py:280]", "Loading weights took 0.41 seconds")
    L(15, "INFO", "[gpu_model_runner.py:1549]", "Model loading took 0.9276 GiB and 1.602151 seconds")
    L(20, "INFO", "[backends.py:459]", "Using cache directory: /home/xcwang/.cache/vllm/torch_compile_cache/5d1b0ab2c4/rank_0_0 for vLLM's torch.compile")
    L(20, "INFO", "[backends.py:469]", "Dynamo bytecode transform time: 4.06 s")
    L(23, "INFO", "[backends.py:135]", "Directly load the compiled graph(s) for shape None from the cache, took 2.612 s")
    L(24, "INFO", "[monitor.py:33]", "torch.compile takes 4.06 s in total")
    core = "[core.py:500]"
    tb = ["EngineCore failed to start.", "Traceback (most recent call last):",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 491, in run_engine_core',
          "    engine_core = EngineCoreProc(*args, **kwargs)",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 390, in __init__',
          "    super().__init__(vllm_config, executor_class, log_stats,",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 78, in __init__',
          "    self._initialize_kv_caches(vllm_config)",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 141, in _initialize_kv_caches',
          "    kv_cache_configs = [",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core.py", line 142, in <listcomp>',
          "    get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/core/kv_cache_utils.py", line 699, in get_kv_cache_config',
          "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/core/kv_cache_utils.py", line 527, in check_enough_kv_cache_memory',
          "    raise ValueError(\"No available memory for the cache blocks. \"",
          "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."]
    for s in tb:
        L(57, "ERROR", core, s)
    L.raw("Process EngineCore_0:", "Traceback (most recent call last):",
          '  File "/usr/lib/python3.10/multiprocessing/process.py", line 314, in _bootstrap',
          "    self.run()",
          "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
          "Traceback (most recent call last):",
          '  File "/home/xcwang/dev/llm_server/vllm/.venv/lib/python3.10/site-packages/vllm/v1/engine/core_client.py", line 484, in _wait_for_engine_startup',
          '    raise RuntimeError("Engine core initialization failed. "',
          "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
    total = 8188 * MiB
    first = 3420 * MiB  # the first instance's process (3578MiB on nvidia-smi with the display / driver share)
    gpu = []
    for i in range(31):
        t = t0 + 60 + i * 10
        ph = (i * 10) % 70  # the operator re-runs the second server: ~60 s per try, then it exits
        procs = [(41872, "python", first)]
        if 5 <= ph < 60:
            procs.append((43310 + i // 7, "python", int(min(1.62 * GiB, (0.35 + ph / 40) * GiB))))
        gpu.append({"t": t, "devices": [device(0, "NVIDIA GeForce RTX 4060 Ti", total, procs, extra_used=158 * MiB)]})
    write_bundle(cid, endpoint="http://127.0.0.1:8001", started_at=t0 + 60, interval_s=10.0,
                 notes="Second vLLM server (port 8001) on the same 8 GB card as a running one (port 8000, util 0.4); it exits at start-up. Log from the terminal of the second server.",
                 scrapes=[refused(t0 + 60 + i * 10, port=8001) for i in range(31)],
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--gpu_memory_utilization", "0.4", "--port", "8001"],
                              "args": {"model": model, "gpu-memory-utilization": 0.4, "port": 8001}},
                 model_config=QWEN25_05B, gpu=gpu, logs=L.text())


# ---------------------------------------------------------------- zzc-two-containers-a100-v1-w8a8
def case_a100_containers() -> None:
    cid = "zzc-two-containers-a100-v1-w8a8"
    t0 = epoch(2025, 4, 29, 1, 34, 32)
    model = "/data/model/"
    L = Log(t0)
    L(-4, "INFO", "[__init__.py:239]", "Automatically detected platform cuda.")
    L(0, "INFO", "[api_server.py:1043]", "vLLM API server version 0.8.5")
    L(0, "INFO", "[api_server.py:1044]", "args: " + v1_ns(model, 8901, 0.3, 4096))
    L(8, "INFO", "[config.py:717]", "This model supports multiple tasks: {'reward', 'score', 'classify', 'embed', 'generate'}. Defaulting to 'generate'.")
    L(8, "INFO", "[config.py:2003]", "Chunked prefill is enabled with max_num_batched_tokens=2048.")
    L(12, "INFO", "[core.py:58]", f"Initializing a V1 LLM engine (v0.8.5) with config: model='{model}', speculative_config=None, "
      f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
      "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, "
      "load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
      "quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
      f"decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), seed=None, "
      f"served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, "
      "chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, "
      "mm_processor_kwargs=None, pooler_config=None, compilation_config={\"level\":3,\"custom_ops\":[\"none\"],"
      "\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,"
      "\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"max_capture_size\":512}")
    L(13, "INFO", "[parallel_state.py:1004]", "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0")
    L(13, "INFO", "[cuda.py:221]", "Using Flash Attention backend on V1 engine.")
    L(13, "INFO", "[gpu_model_runner.py:1329]", f"Starting to load model {model}...")
    L(14, "INFO", "[compressed_tensors_w8a8_int8.py:52]", "Using CutlassScaledMMLinearKernel for CompressedTensorsW8A8Int8")
    L(24, "INFO", "[loader.py:458]", "Loading weights took 9.87 seconds")
    L(25, "INFO", "[gpu_model_runner.py:1347]", "Model loading took 15.7042 GiB and 10.532418 seconds")
    L(31, "INFO", "[backends.py:420]", "Using cache directory: /root/.cache/vllm/torch_compile_cache/9c4e2b1f07/rank_0_0 for vLLM's torch.compile")
    L(31, "INFO", "[backends.py:430]", "Dynamo bytecode transform time: 6.02 s")
    L(35, "INFO", "[backends.py:118]", "Directly load the compiled graph(s) for shape None from the cache, took 3.771 s")
    L(36, "INFO", "[monitor.py:33]", "torch.compile takes 6.02 s in total")
    for s in ["EngineCore failed to start.", "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 387, in run_engine_core',
              "    engine_core = EngineCoreProc(*args, **kwargs)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 329, in __init__',
              "    super().__init__(vllm_config, executor_class, log_stats,",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 71, in __init__',
              "    self._initialize_kv_caches(vllm_config)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 137, in _initialize_kv_caches',
              "    kv_cache_configs = [",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 138, in <listcomp>',
              "    get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 699, in get_kv_cache_config',
              "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 527, in check_enough_kv_cache_memory',
              "    raise ValueError(\"No available memory for the cache blocks. \"",
              "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."]:
        L(41, "ERROR", "[core.py:396]", s)
    L(41, "CRITICAL", "[core_client.py:359]", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    total = 81920 * MiB
    first = int(23.92 * GiB)
    gpu = []
    for i in range(31):
        t = t0 + 45 + i * 10
        ph = (i * 10) % 60  # docker restart policy: the second container retries every ~60 s
        procs = [(2213, "/usr/bin/python3", first)]
        if 5 <= ph < 50:
            procs.append((4100 + i // 6, "/usr/bin/python3", int(min(17.3 * GiB, (0.5 + ph / 30 * 16.2) * GiB))))
        gpu.append({"t": t, "devices": [device(0, "NVIDIA A100-SXM4-80GB", total, procs, extra_used=4 * MiB)]})
    write_bundle(cid, endpoint="http://gpu-host:8901", started_at=t0 + 45, interval_s=10.0,
                 notes="Second vllm-openai:v0.8.5 container on GPU 0 (first one on port 8900 serving normally, util 0.3). The second one exits at start-up; docker logs of vllm_qwen_second kept.",
                 scrapes=[refused(t0 + 45 + i * 10, host="gpu-host", port=8901) for i in range(31)],
                 engine_args={"argv": ["--model", model, "--max-model-len", "4096", "--gpu-memory-utilization", "0.3", "--port", "8901"],
                              "args": {"model": model, "max-model-len": 4096, "gpu-memory-utilization": 0.3, "port": 8901,
                                       "env": {"VLLM_USE_V1": "1"}}},
                 model_config=QWEN25_14B_W8A8, gpu=gpu, logs=L.text())


# ---------------------------------------------------------------- zzc-mllama-profile-oom-96g
def case_mllama() -> None:
    cid = "zzc-mllama-profile-oom-96g"
    t0 = epoch(2024, 10, 24, 18, 9, 12)
    model = "/models/LLM/Llama-3.2-11B-Vision"
    L = Log(t0)
    L(0, "INFO", "api_server.py:528]", "vLLM API server version 0.6.3")
    L(0, "INFO", "api_server.py:529]", f"args: Namespace(subparser='serve', model_tag='{model}', config='', host=None, port=8000, "
      f"uvicorn_log_level='info', api_key=None, lora_modules=None, chat_template=None, model='{model}', tokenizer=None, "
      "trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', max_model_len=32, distributed_executor_backend=None, "
      "pipeline_parallel_size=1, tensor_parallel_size=1, block_size=16, enable_prefix_caching=False, swap_space=4, "
      "cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, "
      "max_num_seqs=256, quantization=None, enforce_eager=False, max_seq_len_to_capture=8192, limit_mm_per_prompt=None, "
      "mm_processor_kwargs=None, enable_chunked_prefill=None, disable_log_stats=False, disable_log_requests=True, "
      "dispatch_function=<function serve at 0x7f1c2a6e8ae0>)")
    L(0, "INFO", "api_server.py:166]", "Multiprocessing frontend to use ipc:///tmp/3f0e6c8e-5a3b-4f4e-9d7b-2c1a8e1d4b57 for IPC Path.")
    L(0, "INFO", "api_server.py:179]", "Started engine process with PID 2891")
    L(7, "INFO", "llm_engine.py:237]", f"Initializing an LLM engine (v0.6.3) with config: model='{model}', speculative_config=None, "
      f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
      "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
      "max_seq_len=32, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
      "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
      "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
      f"observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, "
      f"collect_model_execute_time=False), seed=0, served_model_name={model}, num_scheduler_steps=1, "
      "chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, "
      "use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)")
    L(8, "INFO", "enc_dec_model_runner.py:141]", "EncoderDecoderModelRunner requires XFormers backend; overriding backend auto-selection and forcing XFormers.")
    L(8, "INFO", "selector.py:115]", "Using XFormers backend.")
    L(9, "INFO", "model_runner.py:1056]", f"Starting to load model {model}...")
    L(9, "INFO", "weight_utils.py:243]", "Using model weights format ['*.safetensors']")
    L(61, "INFO", "model_runner.py:1067]", "Loading model weights took 19.8557 GB")
    L(62, "INFO", "enc_dec_model_runner.py:301]", "Starting profile run for multi-modal models.")
    oom = ("CUDA out of memory. Tried to allocate 15.70 GiB. GPU 0 has a total capacity of 95.00 GiB of which 10.21 GiB is free. "
           "Process 2891 has 84.78 GiB memory in use. Of the allocated memory 82.37 GiB is allocated by PyTorch, and 1.73 GiB "
           "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
           "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    L(75, "ERROR", "engine.py:160]", f"OutOfMemoryError('{oom}')")
    for s in ["Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 158, in start',
              "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 348, in __init__',
              "    self._initialize_kv_caches()",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 483, in _initialize_kv_caches',
              "    self.model_executor.determine_num_available_blocks())",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/executor/gpu_executor.py", line 114, in determine_num_available_blocks',
              "    return self.driver_worker.determine_num_available_blocks()",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 223, in determine_num_available_blocks',
              "    self.model_runner.profile_run()",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/enc_dec_model_runner.py", line 348, in profile_run',
              "    self.execute_model(model_input, kv_caches, intermediate_tensors)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 1232, in forward',
              "    cross_attention_states = self.vision_model(pixel_values,",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 556, in forward',
              "    output = self.transformer(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 430, in forward',
              "    hidden_states = encoder_layer(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 398, in forward',
              "    hidden_state = self.mlp(hidden_state)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/clip.py", line 278, in forward',
              "    hidden_states, _ = self.fc1(hidden_states)",
              f"torch.OutOfMemoryError: {oom}"]:
        L(75, "ERROR", "engine.py:160]", s)
    L.raw("Traceback (most recent call last):",
          '  File "/usr/local/bin/vllm", line 8, in <module>',
          "    sys.exit(main())",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 198, in build_async_engine_client_from_engine_args',
          "    raise RuntimeError(",
          "RuntimeError: Engine process failed to start")
    total = 97871 * MiB
    gpu = []
    for i in range(31):
        t = t0 + 80 + i * 10
        # the operator retries the same command: ~75 s to load and profile, then the process is gone
        ph = (i * 10) % 90
        if ph < 10:
            procs = []
        elif ph < 65:
            procs = [(2891 + 37 * ((i * 10) // 90), "python3", int((0.6 + min(ph - 10, 52) / 52 * 19.6) * GiB))]
        else:
            procs = [(2891 + 37 * ((i * 10) // 90), "python3", int(min(86.5, 20.6 + (ph - 65) * 4.0) * GiB))]
        gpu.append({"t": t, "devices": [device(0, "NVIDIA GH200 480GB", total, procs, extra_used=0 if procs else 310 * MiB)]})
    write_bundle(cid, endpoint="http://localhost:8000", started_at=t0 + 80, interval_s=10.0,
                 notes="vllm serve Llama-3.2-11B-Vision (max-model-len 32) dies during the multi-modal profile run; restarted by hand. Nothing else runs on the GPU.",
                 scrapes=[refused(t0 + 80 + i * 10, host="localhost") for i in range(31)],
                 engine_args={"argv": ["vllm", "serve", model, "--disable-log-requests", "--gpu-memory-utilization", "0.9",
                                       "--max-model-len", "32"],
                              "args": {"model": model, "disable-log-requests": True, "gpu-memory-utilization": 0.9,
                                       "max-model-len": 32}},
                 model_config=MLLAMA_11B, gpu=gpu, logs=L.text())


# ---------------------------------------------------------------- zzc-qwen25vl-72b-4xa100-40g-v1-oom
def case_qwen25vl() -> None:
    cid = "zzc-qwen25vl-72b-4xa100-40g-v1-oom"
    t0 = epoch(2025, 4, 3, 8, 12, 5)
    model = "/home/ps/data/pretrained_model/Qwen/Qwen2.5-VL-72B-Instruct/"
    ranks = [(0, 51874), (1, 51875), (2, 51876), (3, 51877)]
    L = Log(t0)
    L(-5, "INFO", "[__init__.py:239]", "Automatically detected platform cuda.")
    L(0, "INFO", "[api_server.py:981]", "vLLM API server version 0.8.2")
    L(0, "INFO", "[api_server.py:982]", f"args: Namespace(host=None, port=8009, uvicorn_log_level='info', api_key=None, "
      f"lora_modules=None, chat_template=None, model='{model}', task='auto', tokenizer=None, trust_remote_code=True, "
      "dtype='auto', kv_cache_dtype='auto', max_model_len=8192, distributed_executor_backend=None, pipeline_parallel_size=1, "
      "tensor_parallel_size=4, block_size=None, enable_prefix_caching=None, swap_space=4, cpu_offload_gb=0, "
      "gpu_memory_utilization=0.95, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=2, "
      "quantization=None, enforce_eager=False, limit_mm_per_prompt=None, "
      "mm_processor_kwargs={'max_pixels': 1280, 'min_pixels': 256}, served_model_name=['qwen2vl'], "
      "disable_log_stats=False, disable_log_requests=False)")
    L(9, "INFO", "[config.py:585]", "This model supports multiple tasks: {'reward', 'score', 'classify', 'embed', 'generate'}. Defaulting to 'generate'.")
    L(9, "INFO", "[config.py:1519]", "Defaulting to use mp for distributed inference")
    L(9, "INFO", "[config.py:1697]", "Chunked prefill is enabled with max_num_batched_tokens=2048.")
    L(14, "INFO", "[core.py:54]", f"Initializing a V1 LLM engine (v0.8.2) with config: model='{model}', speculative_config=None, "
      f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
      "tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, "
      "load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
      "quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=None, served_model_name=qwen2vl, "
      "num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, "
      "use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs={'max_pixels': 1280, "
      "'min_pixels': 256}, pooler_config=None, compilation_config={\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":"
      "[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],"
      "\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"max_capture_size\":512}")
    L(14, "WARNING", "[multiproc_worker_utils.py:306]", "Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    for r, p in ranks:
        L(20, "INFO", "[gpu_model_runner.py:1174]", f"Starting to load model {model}...", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(21, "WARNING", "[vision.py:94]", "Current `vllm-flash-attn` has a bug inside vision module, so we use xformers backend instead. You can run `pip install flash-attn` to use flash-attention backend.", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(68, "INFO", "[gpu_model_runner.py:1186]", "Model loading took 34.4340 GiB and 46.812233 seconds", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(69, "INFO", "[gpu_model_runner.py:1426]", "Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(81, "INFO", "[backends.py:415]", f"Using cache directory: /root/.cache/vllm/torch_compile_cache/8be1c2f0a4/rank_{r}_0 for vLLM's torch.compile", pre=f"(VllmWorker rank={r} pid={p}) ")
        L(81, "INFO", "[backends.py:425]", "Dynamo bytecode transform time: 11.93 s", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(92, "INFO", "[backends.py:132]", "Cache the graph of shape None for later use", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(151, "INFO", "[backends.py:144]", "Compiling a graph for general shape takes 68.41 s", pre=f"(VllmWorker rank={r} pid={p}) ")
    for r, p in ranks:
        L(152, "INFO", "[monitor.py:33]", "torch.compile takes 80.34 s in total", pre=f"(VllmWorker rank={r} pid={p}) ")
    oom = ("CUDA out of memory. Tried to allocate 1.40 GiB. GPU 2 has a total capacity of 39.38 GiB of which 731.38 MiB is free. "
           "Including non-PyTorch memory, this process has 38.65 GiB memory in use. Of the allocated memory 36.02 GiB is allocated "
           "by PyTorch, and 1.62 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
           "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
           "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    pre = "(VllmWorker rank=2 pid=51876) "
    for s in ["WorkerProc hit an exception: %s", "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 371, in worker_busy_loop',
              "    output = func(*args, **kwargs)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 157, in determine_available_memory',
              "    self.model_runner.profile_run()",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1467, in profile_run',
              "    dummy_encoder_outputs = self.model.get_multimodal_embeddings(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_5_vl.py", line 1004, in get_multimodal_embeddings',
              "    vision_embeddings = self._process_image_input(image_input)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_5_vl.py", line 943, in _process_image_input',
              "    image_embeds = self.visual(pixel_values, grid_thw=grid_thw)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_5_vl.py", line 725, in forward',
              "    hidden_states = blk(",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2_5_vl.py", line 365, in forward',
              "    x = x + self.mlp(self.norm2(x))",
              f"torch.OutOfMemoryError: {oom}"]:
        L(171, "ERROR", "[multiproc_executor.py:375]", s, pre=pre)
    L(171, "ERROR", "[core.py:340]", "EngineCore hit an exception: Traceback (most recent call last):")
    L(171, "ERROR", "[core.py:340]", "RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 1.40 GiB. GPU 2 has a total capacity of 39.38 GiB of which 731.38 MiB is free.', please check the stack trace above for the root cause")
    L(171, "CRITICAL", "[core_client.py:269]", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    total = 40960 * MiB
    gpu = []
    for i in range(31):
        t = t0 + 5 + i * 10
        dt = 5 + i * 10
        devs = []
        for k, (r, p) in enumerate(ranks):
            if dt < 20:
                used, procs = 0, []
            elif dt < 68:
                used = int((0.6 + (dt - 20) / 48 * 34.4) * GiB)
                procs = [(p, "python", used)]
            elif dt < 172:
                used = int((35.4 + min(dt - 68, 100) / 100 * (3.25 if k == 2 else 2.9)) * GiB)
                procs = [(p, "python", used)]
            else:
                used, procs = 0, []
            devs.append(device(k, "NVIDIA A100-PCIE-40GB", total, procs, extra_used=0 if procs else 5 * MiB))
        gpu.append({"t": t, "devices": devs})
    write_bundle(cid, endpoint="http://127.0.0.1:8009", started_at=t0 + 5, interval_s=10.0,
                 notes="Qwen2.5-VL-72B TP4 on 4x A100-PCIE-40GB, same flags that started on 0.7.3; on 0.8.2 the server OOMs after torch.compile and never serves.",
                 scrapes=[refused(t0 + 5 + i * 10, port=8009) for i in range(31)],
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--dtype", "auto", "--port", "8009",
                                       "--trust-remote-code", "--served-model-name", "qwen2vl", "--model", model,
                                       "--tensor-parallel-size", "4", "--gpu_memory_utilization", "0.95", "--max_num_seqs", "2",
                                       "--max_model_len", "8192", "--mm_processor_kwargs", '{"max_pixels":1280, "min_pixels":256}'],
                              "args": {"model": model, "dtype": "auto", "port": 8009, "trust-remote-code": True,
                                       "served-model-name": "qwen2vl", "tensor-parallel-size": 4,
                                       "gpu-memory-utilization": 0.95, "max-num-seqs": 2, "max-model-len": 8192,
                                       "mm-processor-kwargs": {"max_pixels": 1280, "min_pixels": 256}}},
                 model_config=QWEN25_VL_72B, gpu=gpu, logs=L.text())


if __name__ == "__main__":
    case_4060ti()
    case_a100_containers()
    case_mllama()
    case_qwen25vl()
