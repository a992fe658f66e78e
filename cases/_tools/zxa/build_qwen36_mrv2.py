"""Bundle for zxa-qwen36-27b-mrv2-flashinfer-sampler-h100 (vllm PR #48601): Qwen3.6-27B-FP8, TP=4 on H100 with
the V2 model runner; the FlashInfer top-k/top-p sampler is not profiled and OOMs at kernel warm-up after KV
allocation and graph capture. Writer zxa."""
import calendar, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, engine_args, write_json, Log, refused_scrapes, nvml  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zxa-qwen36-27b-mrv2-flashinfer-sampler-h100/bundle"
os.makedirs(OUT, exist_ok=True)
M = "Qwen/Qwen3.6-27B-FP8"
V = "0.25.1.dev212+g5c0e4f1a9"
ARGV = ["vllm", "serve", M, "--served-model-name", "qwen", "-tp", "4"]
WEIGHTS, PEAK, NONTORCH, GRAPH, KV = 7.39, 1.54, 0.60, 2.04, 63.25
PRE = 79.11 - 77.57
# hybrid: 16 full-attention layers (4 KV heads x 256 -> 1 head per rank at TP=4, bf16) share pages with 3 GDN groups
ATT_BPT = 16 * 2 * 1 * 256 * 2
TOK = int(KV * GIB // (4 * ATT_BPT) // 16 * 16)
t0 = calendar.timegm((2026, 7, 14, 9, 44, 0, 0, 0, 0))
T = lambda s: t0 + s  # noqa: E731
L = Log()
A = "(APIServer pid=3264301) "; EC = "(EngineCore pid=3264362) "
PIDS = {r: 3264435 + r for r in range(4)}
W = {r: "(Worker_TP%d pid=%d) " % (r, PIDS[r]) for r in range(4)}
L.add(T(0), "vLLM API server version %s" % V, A, src="api_server.py:1388")
L.add(T(0), "non-default args: {'model_tag': '%s', 'model': '%s', 'served_model_name': ['qwen'], "
      "'tensor_parallel_size': 4}" % (M, M), A, src="utils.py:279")
L.add(T(7), "Resolved architecture: Qwen3_5ForConditionalGeneration", A, src="model.py:552")
L.add(T(7), "Using max model len 262144", A, src="model.py:1598")
L.add(T(7), "Chunked prefill is enabled with max_num_batched_tokens=8192.", A, src="scheduler.py:236")
L.add(T(12), "Initializing a V1 LLM engine (v%s) with config: model='%s', tokenizer='%s', dtype=torch.bfloat16, "
      "max_seq_len=262144, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=fp8, kv_cache_dtype=auto, "
      "served_model_name=qwen, enable_prefix_caching=True, compilation_config={'mode': <CompilationMode.VLLM_COMPILE: 3>, "
      "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'max_cudagraph_capture_size': 512}"
      % (V, M, M), EC, src="core.py:101")
L.add(T(12), "Using V2 model runner (VLLM_USE_V2_MODEL_RUNNER=1). This is experimental.", EC, "WARNING", src="core.py:118")
for r in range(4):
    L.add(T(22), "Starting to load model %s..." % M, W[r], src="model_runner.py:301")
for r in range(4):
    L.add(T(51), "Model loading took %.2f GiB memory and 27.904417 seconds" % WEIGHTS, W[r], src="model_runner.py:338")
for r in range(4):
    L.add(T(88), "torch.compile takes 29.61 s in total", W[r], src="monitor.py:34")
    L.add(T(96), "Available KV cache memory: %.2f GiB" % KV, W[r], src="gpu_worker.py:402")
L.add(T(97), "GPU KV cache size: {:,} tokens".format(TOK), EC, src="kv_cache_utils.py:1331")
L.add(T(97), "Maximum concurrency for 262,144 tokens per request: %.2fx" % (TOK / 262144), EC, src="kv_cache_utils.py:1336")
for r in range(4):
    L.add(T(112), "Graph capturing finished in 15 secs, took %.2f GiB" % GRAPH, W[r], src="model_runner.py:729")
    L.add(T(112), "Free memory on device (77.57/79.11 GiB) on startup. Desired GPU memory utilization is (0.92, 72.78 GiB). "
          "Actual usage is 7.39 GiB for weight, 1.54 GiB for peak activation, 0.6 GiB for non-torch memory, and 2.04 GiB "
          "for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory=65565989131` (61.06 GiB) "
          "to fit into requested memory, or `--kv-cache-memory=70712017408` (65.86 GiB) to fully utilize gpu memory. "
          "Current kv cache memory in use is 63.25 GiB.", W[r], src="gpu_worker.py:855")
T_OOM = T(114)
for r in range(4):
    E = lambda m: L.add(T_OOM, m, W[r], "ERROR", "multiproc_executor.py:812")  # noqa: E731
    for m in ["WorkerProc hit an exception.",
              "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 561, in compile_or_warm_up_model',
              "    kernel_warmup(self)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/warmup/kernel_warmup.py", line 61, in kernel_warmup',
              "    worker.model_runner._dummy_sampler_run(hidden_states=dummy_hidden)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu/model_runner.py", line 812, in _dummy_sampler_run',
              "    self.sampler(logits, sampling_metadata)",
              '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu/sample/sampler.py", line 133, in sample',
              "    sampled = flashinfer_sample(probs, top_k, top_p, generators)",
              '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/sampling.py", line 1041, in top_k_top_p_sampling_from_probs',
              "    masked_probs = top_k_renorm_probs(probs, top_k)",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.90 GiB. GPU %d has a total capacity of 79.11 GiB "
              "of which 1.12 GiB is free. Including non-PyTorch memory, this process has 76.43 GiB memory in use. Of the "
              "allocated memory 73.61 GiB is allocated by PyTorch, with 2.04 GiB allocated in private pools (e.g., CUDA "
              "Graphs), and 1.18 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
              "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
              "Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)" % r]:
        E(m)
L.add(T_OOM + 1, "EngineCore failed to start.", EC, "ERROR", "core.py:1136")
L.add(T_OOM + 1, "Exception: Call to compile_or_warm_up_model method failed: CUDA out of memory. Tried to allocate 1.90 GiB.",
      EC, "ERROR", "core.py:1136")
L.raw(A + "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
L.write(OUT)

iv = 10
a, b = T(10), T(400)
refused_scrapes(OUT, a, b, iv)
def used(t, r):
    if t < T(20) or t > T_OOM + 2:
        return 0.0
    if t < T(23):
        return 0.6
    if t < T(51):
        return 0.6 + WEIGHTS * (t - T(23)) / 28
    if t < T(96):
        return WEIGHTS + NONTORCH + PEAK + 0.2
    if t < T(100):
        return WEIGHTS + NONTORCH + KV + 0.3
    if t < T_OOM:
        return WEIGHTS + NONTORCH + KV + GRAPH + 0.4
    return 76.43
nvml(OUT, a, b, iv, 4, "NVIDIA H100 80GB HBM3", 81559 * MIB, used, PIDS, base_mib=int(PRE * 1024 - 600))
engine_args(OUT, ARGV)
write_json(os.path.join(OUT, "model_config.json"), {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64,
                    "full_attention_interval": 4, "num_attention_heads": 24, "num_key_value_heads": 4,
                    "head_dim": 256, "linear_num_key_heads": 16, "linear_num_value_heads": 48,
                    "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
                    "intermediate_size": 17408, "vocab_size": 248320, "max_position_embeddings": 262144,
                    "torch_dtype": "bfloat16"},
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                            "weight_block_size": [128, 128]},
    "torch_dtype": "bfloat16"})
manifest(OUT, "http://127.0.0.1:8000", a, b, float(iv),
         "Captured while the server was starting with VLLM_USE_V2_MODEL_RUNNER=1; it never listened.")
print("wrote", OUT, TOK)
