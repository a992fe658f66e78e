"""Bundle for zxa-scout-tp2-h100nvl-weights (vllm#16712): Llama-4-Scout bf16, TP=2 on 2x H100 NVL;
rank 1 dies while creating the MoE weights (~101 GiB per rank needed on a 93 GiB card). Writer zxa."""
import calendar, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, engine_args, write_json, Log, refused_scrapes, nvml  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zxa-scout-tp2-h100nvl-weights/bundle"
os.makedirs(OUT, exist_ok=True)
M = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
ARGV = ["vllm", "serve", M, "--gpu-memory-utilization=0.99", "--max-model-len=1000",
        "--tensor-parallel-size=2", "--kv-cache-dtype=fp8"]
t0 = calendar.timegm((2025, 4, 16, 14, 2, 0, 0, 0, 0))
T = lambda s: t0 + s  # noqa: E731
L = Log()
W = lambda r, p: "(VllmWorker rank=%d pid=%d) " % (r, p)  # noqa: E731
PIDS = {0: 253, 1: 254}
L.add(T(0), "Automatically detected platform cuda.", src="__init__.py:239")
L.add(T(6), "vLLM API server version 0.8.5.dev31+g7a4a5de72", src="api_server.py:1034")
L.add(T(6), "args: Namespace(subparser='serve', model_tag='%s', host=None, port=8000, model='%s', "
      "max_model_len=1000, tensor_parallel_size=2, gpu_memory_utilization=0.99, kv_cache_dtype='fp8', "
      "enforce_eager=False, max_num_seqs=None, quantization=None, ...)" % (M, M), src="api_server.py:1035")
L.add(T(14), "This model supports multiple tasks: {'generate', 'classify', 'embed', 'reward', 'score'}. "
      "Defaulting to 'generate'.", src="config.py:689")
L.add(T(14), "Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the "
      "performance. Meanwhile, it may cause accuracy drop without a proper scaling factor", src="cache.py:1227")
L.add(T(14), "Defaulting to use mp for distributed inference", src="config.py:1713")
L.add(T(14), "Chunked prefill is enabled with max_num_batched_tokens=8192.", src="config.py:1934")
L.add(T(20), "Initializing a V1 LLM engine (v0.8.5.dev31+g7a4a5de72) with config: model='%s', "
      "speculative_config=None, tokenizer='%s', dtype=torch.bfloat16, max_seq_len=1000, "
      "tensor_parallel_size=2, pipeline_parallel_size=1, quantization=None, enforce_eager=False, "
      "kv_cache_dtype=fp8, device_config=cuda, served_model_name=%s, enable_prefix_caching=True, "
      "chunked_prefill_enabled=True, compilation_config={\"level\":3,\"use_cudagraph\":true,"
      "\"max_capture_size\":512}" % (M, M, M), src="core.py:58")
L.add(T(20), "Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set "
      "OMP_NUM_THREADS in the external environment to tune this value as needed.",
      lvl="WARNING", src="multiproc_worker_utils.py:306")
for r, p in PIDS.items():
    L.add(T(24), "Found nccl from library libnccl.so.2", W(r, p), src="utils.py:1055")
for r, p in PIDS.items():
    L.add(T(26), "rank %d in world size 2 is assigned as DP rank 0, PP rank 0, TP rank %d" % (r, r), W(r, p),
          src="parallel_state.py:959")
    L.add(T(26), "Starting to load model %s..." % M, W(r, p), src="gpu_model_runner.py:1329")
    L.add(T(27), "Using Flash Attention backend on V1 engine.", W(r, p), src="cuda.py:221")
T_OOM = T(118)
E = lambda m: L.add(T_OOM, m, W(1, 254), "ERROR", "multiproc_executor.py:470")  # noqa: E731
tb = [
    "WorkerProc failed to start.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 444, in worker_main',
    "    worker = WorkerProc(*args, **kwargs)",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 341, in __init__',
    "    self.worker.load_model()",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 162, in load_model',
    "    self.model_runner.load_model()",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1332, in load_model',
    "    self.model = get_model(vllm_config=self.vllm_config)",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/model_loader/loader.py", line 452, in load_model',
    "    model = _initialize_model(vllm_config=vllm_config)",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama4.py", line 279, in __init__',
    "    self.feed_forward = Llama4MoE(",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py", line 509, in __init__',
    "    self.quant_method.create_weights(layer=self, **moe_quant_params)",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/layer.py", line 91, in create_weights',
    "    w13_weight = torch.nn.Parameter(torch.empty(",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 1 has a total capacity of 93.02 GiB "
    "of which 1.18 GiB is free. Process 2752205 has 91.82 GiB memory in use. Of the allocated memory 90.63 GiB is "
    "allocated by PyTorch, and 120.54 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
    "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
    "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
]
for m in tb:
    E(m)
L.add(T_OOM + 1, "EngineCore failed to start.", lvl="ERROR", src="core.py:396")
L.add(T_OOM + 1, "Exception: WorkerProc initialization failed due to an exception in a background process. "
      "See stack trace for root cause.", lvl="ERROR", src="core.py:396")
L.add(T_OOM + 2, "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
      lvl="CRITICAL", src="core_client.py:359")
L.raw("RuntimeError: Engine core initialization failed. See root cause above.")
L.write(OUT)

iv = 10
a, b = T(10), T(400)
refused_scrapes(OUT, a, b, iv)
PER_RANK = 101.3   # bf16 weights per rank it was heading for
def used(t, r):
    if t < T(24) or t > T_OOM + 3:
        return 0.0
    if t < T(27):
        return 0.55
    frac = min(1.0, (t - T(27)) / (T_OOM - T(27)))
    top = 91.82 if r == 1 else 91.70
    return 0.55 + (top - 0.55) * frac
nvml(OUT, a, b, iv, 2, "NVIDIA H100 NVL", 95830 * MIB, used, [2752204, 2752205], base_mib=4)
engine_args(OUT, ["vllm", "serve", M, "--gpu-memory-utilization", "0.99", "--max-model-len", "1000",
                  "--tensor-parallel-size", "2", "--kv-cache-dtype", "fp8"])
write_json(os.path.join(OUT, "model_config.json"), {
    "architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
    "boi_token_index": 200080, "eoi_token_index": 200081, "image_token_index": 200092,
    "text_config": {
        "model_type": "llama4_text", "attention_bias": False, "attention_chunk_size": 8192,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "intermediate_size": 8192,
        "intermediate_size_mlp": 16384, "interleave_moe_layer_step": 1, "max_position_embeddings": 10485760,
        "no_rope_layers": [], "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48,
        "num_key_value_heads": 8, "num_local_experts": 16, "rms_norm_eps": 1e-05,
        "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0, "torch_dtype": "bfloat16", "use_qk_norm": True, "vocab_size": 202048},
    "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "num_hidden_layers": 34,
                      "image_size": 336, "patch_size": 14, "intermediate_size": 5632,
                      "num_attention_heads": 16, "vision_output_dim": 4096},
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0.dev0"})
manifest(OUT, "http://127.0.0.1:8000", a, b, float(iv),
         "Recorded while the pod was starting Llama-4-Scout on 2x H100 NVL; the server never listened. "
         "logs.txt is the pod log.")
print("wrote", OUT)
