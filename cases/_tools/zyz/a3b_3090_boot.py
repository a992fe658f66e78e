"""zyz-a3b-3090-cudagraph-kv-0p07: a 35B-A3B 4-bit model on one RTX 3090 with vLLM 0.22.0 at
--gpu-memory-utilization 0.92: the CUDA-graph estimate (default since 0.21) leaves 0.07 GiB of KV
and the engine refuses an 8,192-token window. Source: noonghunna/club-3090 PR #323.
The server never comes up: every scrape fails."""

from __future__ import annotations

from common import GiB, MiB, epoch, stamp, write_bundle

CASE = "zyz-a3b-3090-cudagraph-kv-0p07"
ROOT = "/models/Qwen3.6-35B-A3B-AWQ"
MODEL = "qwen3.6-35b-a3b"
T0 = epoch(2026, 6, 5, 8, 40)
INTERVAL = 10.0
logs = []
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
t = T0 - 150
L(t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.22.0, serving model {ROOT}")
L(t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'max_model_len': 8192, "
  "'gpu_memory_utilization': 0.92, 'max_num_seqs': 4, 'quantization': 'awq_marlin', 'reasoning_parser': 'qwen3'}")
L(t + 9, "EngineCore pid=71", "INFO", "core.py:114", "Initializing a V1 LLM engine (v0.22.0) with config: model='" + ROOT +
  "', dtype=torch.float16, max_seq_len=8192, tensor_parallel_size=1, quantization=awq_marlin, enforce_eager=False, "
  "kv_cache_dtype=auto, enable_prefix_caching=True")
L(t + 58, "EngineCore pid=71", "INFO", "gpu_model_runner.py:4102", "Model loading took 19.87 GiB memory and 46.3 seconds")
L(t + 92, "EngineCore pid=71", "INFO", "gpu_model_runner.py:5640", "Profiling CUDA graph memory: PIECEWISE=11 (largest=32), FULL=7 (largest=16)")
L(t + 95, "EngineCore pid=71", "INFO", "gpu_model_runner.py:5765", "Estimated CUDA graph memory: 0.42 GiB total")
L(t + 95, "EngineCore pid=71", "INFO", "gpu_worker.py:456", "Available KV cache memory: 0.07 GiB")
L(t + 95, "EngineCore pid=71", "INFO", "gpu_worker.py:471",
  "CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9200 is "
  "equivalent to --gpu-memory-utilization=0.9025 without CUDA graph memory profiling. To maintain the same effective KV "
  "cache size as before, increase --gpu-memory-utilization to 0.9375. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.")
L(t + 96, "EngineCore pid=71", "ERROR", "core.py:946", "EngineCore failed to start.")
tb = ["Traceback (most recent call last):",
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 937, in run_engine_core',
      "    engine_core = EngineCoreProc(*args, **kwargs)",
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 122, in _initialize_kv_caches',
      "    kv_cache_configs = get_kv_cache_configs(vllm_config, kv_cache_specs, available_gpu_memory)",
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 711, in check_enough_kv_cache_memory',
      "    raise ValueError(",
      "ValueError: To serve at least one request with the models's max seq len (8192), (0.21 GiB KV cache is needed, which is "
      "larger than the available KV cache memory (0.07 GiB). Based on the available memory, the estimated maximum model "
      "length is 2784. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
for line in tb:
    L(t + 96, "EngineCore pid=71", "ERROR", "core.py:946", line)
L(t + 97, "APIServer pid=1", "ERROR", "api_server.py:2120", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
scrapes, gpu = [], []
for i in range(30):
    ts = T0 + i * INTERVAL
    scrapes.append({"t": ts, "error": "GET http://127.0.0.1:8000/metrics: [Errno 111] Connection refused"})
    gpu.append({"t": ts, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": 25_769_803_776,
                                      "memory_used": 412 * MiB, "processes": [{"pid": 1388, "name": "/usr/lib/xorg/Xorg",
                                                                               "used_memory": 212 * MiB}]}]})
layer_types = ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(40)]
model_config = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
                "text_config": {"hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16,
                                "num_key_value_heads": 2, "head_dim": 256, "full_attention_interval": 4,
                                "layer_types": layer_types, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
                                "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
                                "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
                                "max_position_embeddings": 262144, "vocab_size": 248320},
                "torch_dtype": "bfloat16",
                "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}}
argv = ["vllm", "serve", ROOT, "--served-model-name", MODEL, "--max-model-len", "8192", "--gpu-memory-utilization", "0.92",
        "--max-num-seqs", "4", "--quantization", "awq_marlin", "--reasoning-parser", "qwen3"]
engine_args = {"argv": argv, "args": {"model": ROOT, "served-model-name": MODEL, "max-model-len": 8192,
                                      "gpu-memory-utilization": 0.92, "max-num-seqs": 4, "quantization": "awq_marlin",
                                      "reasoning-parser": "qwen3"}}
write_bundle(CASE, endpoint="http://127.0.0.1:8000", started_at=T0, interval_s=INTERVAL,
             notes="compose up vllm/qwen-a3b-preview-single after the v0.22.0 image bump; container exited",
             scrapes=scrapes, server=None, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes))
