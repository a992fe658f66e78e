"""Bundle for zxa-dsv4-4x4090-48g-pool-720 (yhfgyyf/vllm-deepseek-v4-sm89#54): DeepSeek-V4 on 4x RTX 4090 48GB,
TP=4, max_model_len 131072, util 0.97; start-up refused: 1.34 GiB needed for one request, 0.3 GiB available.
No model_config.json (fields not known to the writer). Writer zxa."""
import calendar, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, engine_args, Log, refused_scrapes, nvml  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zxa-dsv4-4x4090-48g-pool-720/bundle"
os.makedirs(OUT, exist_ok=True)
M = "/models/DeepSeek-V4-Flash"
ARGV = ["vllm", "serve", M, "--tensor-parallel-size", "4", "--kv-cache-dtype", "fp8_ds_mla", "--block-size", "256",
        "--max-model-len", "131072", "--gpu-memory-utilization", "0.97", "--max-num-seqs", "16",
        "--attention-backend", "FLASHINFER_MLA_SPARSE_DSV4", "--reasoning-parser", "deepseek_v4",
        "--enable-auto-tool-choice", "--tool-call-parser", "deepseek_v4", "--trust-remote-code"]
TOTAL = 47.37; BUDGET = 0.97 * TOTAL     # 45.95
WEIGHTS = 40.89; NONTORCH = 0.91; PEAK = 2.10; GRAPH = 1.75
KV = 0.30
t0 = calendar.timegm((2026, 8, 7, 3, 20, 0, 0, 0, 0))
T = lambda s: t0 + s  # noqa: E731
L = Log()
A = "(APIServer pid=1) "; EC = "(EngineCore pid=1713) "
W = {r: "(Worker_TP%d pid=%d) " % (r, 1790 + r) for r in range(4)}
V = "0.27.1.dev118+dsv4sm89"
L.add(T(0), "vLLM API server version %s" % V, A, src="api_server.py:1402")
L.add(T(0), "non-default args: {'model': '%s', 'trust_remote_code': True, 'max_model_len': 131072, "
      "'tensor_parallel_size': 4, 'block_size': 256, 'gpu_memory_utilization': 0.97, 'kv_cache_dtype': 'fp8_ds_mla', "
      "'max_num_seqs': 16, 'attention_backend': 'FLASHINFER_MLA_SPARSE_DSV4', 'reasoning_parser': 'deepseek_v4', "
      "'enable_auto_tool_choice': True, 'tool_call_parser': 'deepseek_v4'}" % M, A, src="utils.py:281")
L.add(T(8), "Resolved architecture: DeepseekV4ForCausalLM", A, src="model.py:561")
L.add(T(8), "Using max model len 131072", A, src="model.py:1612")
L.add(T(8), "Chunked prefill is enabled with max_num_batched_tokens=8192.", A, src="scheduler.py:236")
L.add(T(14), "Initializing a V1 LLM engine (v%s) with config: model='%s', tokenizer='%s', dtype=torch.bfloat16, "
      "max_seq_len=131072, tensor_parallel_size=4, pipeline_parallel_size=1, kv_cache_dtype=fp8_ds_mla, "
      "enable_prefix_caching=True, compilation_config={'mode': <CompilationMode.VLLM_COMPILE: 3>, "
      "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'max_cudagraph_capture_size': 512}"
      % (V, M, M), EC, src="core.py:101")
for r in range(4):
    L.add(T(30), "Starting to load model %s..." % M, W[r], src="gpu_model_runner.py:4102")
for r in range(4):
    L.add(T(260), "Model loading took %.2f GiB memory and 229.417533 seconds" % WEIGHTS, W[r], src="gpu_model_runner.py:4198")
for r in range(4):
    L.add(T(300), "torch.compile takes 31.22 s in total", W[r], src="monitor.py:34")
    L.add(T(304), "Profiling CUDA graph memory: PIECEWISE=67 (largest=512), FULL=67 (largest=512)", W[r],
          src="gpu_model_runner.py:6012")
    L.add(T(330), "Estimated CUDA graph memory: %.2f GiB total" % GRAPH, W[r], src="gpu_model_runner.py:6071")
for r in range(4):
    L.add(T(331), "Available KV cache memory: %.2f GiB" % KV, W[r], src="gpu_worker.py:468")
T_ERR = T(332)
EE = lambda m: L.add(T_ERR, m, EC, "ERROR", "core.py:1136")  # noqa: E731
for m in ["EngineCore failed to start.",
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 128, in __init__',
          "    num_gpu_blocks, num_cpu_blocks, kv_cache_config = self._initialize_kv_caches(vllm_config)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 271, in _initialize_kv_caches',
          "    kv_cache_configs = get_kv_cache_configs(",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 2013, in get_kv_cache_configs',
          "    _check_enough_kv_cache_memory(",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 714, in _check_enough_kv_cache_memory',
          "    raise ValueError("]:
    EE(m)
L.raw("start.py:1395 (EngineCore pid=1713) ValueError: To serve at least one request with the model's max seq len "
      "(131072), (1.34 GiB KV cache is needed, which is larger than the available KV cache memory (0.3 GiB). Based on "
      "the available memory, the estimated maximum model length is 720. Try increasing `gpu_memory_utilization` "
      "(which also controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. "
      "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
for r in range(4):
    L.add(T_ERR + 1, "WorkerProc was terminated", W[r], "WARNING", "multiproc_executor.py:812")
L.raw(A + "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
L.write(OUT)

iv = 15
a, b = T(15), T(600)
refused_scrapes(OUT, a, b, iv)
def used(t, r):
    if t < T(28) or t > T_ERR + 2:
        return 0.0
    if t < T(32):
        return 0.52
    if t < T(260):
        return 0.52 + WEIGHTS * (t - T(32)) / 228
    if t < T(304):
        return WEIGHTS + NONTORCH + PEAK
    return WEIGHTS + NONTORCH + PEAK + 0.4
nvml(OUT, a, b, iv, 4, "NVIDIA GeForce RTX 4090", 49140 * MIB, used, [1790, 1791, 1792, 1793], base_mib=22)
engine_args(OUT, ARGV)
manifest(OUT, "http://127.0.0.1:8000", a, b, float(iv),
         "Captured while the fork's container was starting; it never listened. logs.txt is the container log. "
         "No model config collected.")
print("wrote", OUT)
