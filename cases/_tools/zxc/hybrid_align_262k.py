"""zxc-hybrid-align-262k-one-block-short (vllm-project/vllm#46778, comment of 2026-08-16).

One RTX 5090, hybrid Qwen3.5-architecture model at --max-model-len 262144; adding
--enable-prefix-caching --mamba-cache-mode align makes the start-up KV check ask 9.29 GiB against
9.28 GiB available (attention block 1,600 tokens). The server never comes up.

Run: python3 cases/_tools/zxc/hybrid_align_262k.py
"""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import write_bundle  # noqa: E402

CID = "zxc-hybrid-align-262k-one-block-short"
MODEL_PATH = "/models/Qwen3.6-27B-AWQ"
SERVED = "qwen3.6-27b"
VERSION = "0.27.0"
TOTAL = 34190917632              # RTX 5090: 32,607 MiB
INTERVAL = 10.0
T_START = dt.datetime(2026, 8, 16, 19, 31, 7, tzinfo=dt.timezone.utc).timestamp()
T_FAIL = T_START + 151.0
T0 = T_START + 200.0
N = 31
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore_DP0 pid=212) "
args = (f"{{'model_tag': '{MODEL_PATH}', 'model': '{MODEL_PATH}', 'served_model_name': ['{SERVED}'], "
        "'max_model_len': 262144, 'gpu_memory_utilization': 0.9412, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 4, "
        "'enable_prefix_caching': True, 'mamba_cache_mode': 'align', 'language_model_only': True}")
err = ("ValueError: To serve at least one request with the model's max seq len (262144), 9.29 GiB KV cache is needed, "
       "which is larger than the available KV cache memory (9.28 GiB). Based on the available memory, the estimated "
       "maximum model length is 260800. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
       "initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
E = f"{P_ENG}ERROR {fts(T_FAIL)} [core.py:1023] "
L = [
    f"INFO {fts(T_START)} [__init__.py:216] Automatically detected platform cuda.",
    f"{P_API}INFO {fts(T_START+2)} [api_server.py:2085] vLLM API server version {VERSION}",
    f"{P_API}INFO {fts(T_START+2)} [utils.py:302] non-default args: {args}",
    f"{P_API}INFO {fts(T_START+8)} [model.py:561] Resolved architecture: Qwen3_5ForConditionalGeneration",
    f"{P_API}INFO {fts(T_START+8)} [model.py:1702] Using max model len 262144",
    f"{P_API}INFO {fts(T_START+8)} [cache.py:224] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{P_API}INFO {fts(T_START+9)} [scheduler.py:248] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_API}INFO {fts(T_START+9)} [interface.py:773] Setting attention block size to 1600 tokens to ensure that attention page size is >= mamba page size.",
    f"{P_API}INFO {fts(T_START+9)} [interface.py:797] Padding mamba page size by 2.17% to ensure that mamba page size and attention page size are exactly equal.",
    f"{P_ENG}INFO {fts(T_START+17)} [core.py:104] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL_PATH}', speculative_config=None, tokenizer='{MODEL_PATH}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=262144, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, seed=0, served_model_name={SERVED}, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{P_ENG}INFO {fts(T_START+24)} [gpu_model_runner.py:3702] Starting to load model {MODEL_PATH}...",
    f"{P_ENG}INFO {fts(T_START+25)} [cuda.py:412] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']",
    f"{P_ENG}INFO {fts(T_START+69)} [gpu_model_runner.py:3795] Model loading took 18.19 GiB and 43.775120 seconds",
    f"{P_ENG}INFO {fts(T_START+148)} [gpu_worker.py:388] Memory profiling takes 77.94 seconds. Total non-KV cache memory: 20.69GiB; torch peak memory increase: 1.78GiB; non-torch forward increase memory: 0.27GiB; weights memory: 18.19GiB; estimated CUDA graph memory: 0.45GiB.",
    f"{P_ENG}INFO {fts(T_START+148)} [gpu_worker.py:402] Available KV cache memory: 9.28 GiB",
    f"{E}EngineCore failed to start.",
    f"{E}Traceback (most recent call last):",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 1014, in run_engine_core",
    f"{E}    engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 781, in __init__",
    f"{E}    super().__init__(",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 116, in __init__",
    f"{E}    num_gpu_blocks, num_cpu_blocks, kv_cache_config = self._initialize_kv_caches(vllm_config)",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 254, in _initialize_kv_caches",
    f"{E}    kv_cache_configs = get_kv_cache_configs(",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 1502, in get_kv_cache_configs",
    f"{E}    _check_enough_kv_cache_memory(",
    f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 731, in _check_enough_kv_cache_memory",
    f"{E}    raise ValueError(",
    f"{E}{err}",
    f"{P_ENG}Process EngineCore_DP0:",
    f"{P_ENG}Traceback (most recent call last):",
    f"{P_ENG}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 731, in _check_enough_kv_cache_memory",
    f"{P_ENG}    raise ValueError(",
    f"{P_ENG}{err}",
    f"[rank0]:[W816 {fts(T_FAIL+1)[6:]}.412233193 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())",
    f"{P_API}Traceback (most recent call last):",
    f"{P_API}  File \"/usr/local/bin/vllm\", line 10, in <module>",
    f"{P_API}    sys.exit(main())",
    f"{P_API}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py\", line 969, in wait_for_engine_startup",
    f"{P_API}    raise RuntimeError(",
    f"{P_API}RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{'EngineCore_DP0': 1}}",
]
scrapes = [{"t": T0 + i * INTERVAL, "error": "GET http://127.0.0.1:8000/metrics: connection refused ([Errno 111] Connection refused)"}
           for i in range(N)]
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "memory_total": TOTAL,
        "memory_used": 488_636_416, "processes": []}]} for i in range(N)]
layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(64)]
model_config = {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64, "layer_types": layer_types,
        "full_attention_interval": 4, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "intermediate_size": 17408,
        "max_position_embeddings": 262144, "rms_norm_eps": 1e-06, "vocab_size": 248320,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
        "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152},
    "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm",
                            "modules_to_not_convert": ["visual", "linear_attn.in_proj_a", "linear_attn.in_proj_b", "mtp"]},
    "torch_dtype": "bfloat16",
}
argv = ["vllm", "serve", MODEL_PATH, "--served-model-name", SERVED, "--max-model-len", "262144",
        "--gpu-memory-utilization", "0.9412", "--kv-cache-dtype", "fp8", "--max-num-seqs", "4",
        "--language-model-only", "--enable-prefix-caching", "--mamba-cache-mode", "align"]
engine_args = {"argv": argv, "args": {"served-model-name": SERVED, "max-model-len": 262144,
                                      "gpu-memory-utilization": 0.9412, "kv-cache-dtype": "fp8", "max-num-seqs": 4,
                                      "language-model-only": True, "enable-prefix-caching": True,
                                      "mamba-cache-mode": "align"}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://127.0.0.1:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "gpu-oom",
            "notes": "single RTX 5090, hybrid Qwen3.5-architecture model that has been serving a 262,144-token window; the only change in this start is --enable-prefix-caching --mamba-cache-mode align. The engine refuses to start (log attached); /metrics refused for 5 min after, NVML of the idle card"}
write_bundle(CID, manifest=manifest, scrapes=scrapes, engine_args=engine_args, model_config=model_config,
             gpu=gpu, logs=L)
