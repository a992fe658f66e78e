"""Bundle for zxa-glm47flash-sampler-warmup-4090-tp2 (vllm#33920): vLLM 0.15.0rc2, GLM-4.7-Flash (4-bit AWQ
assumed), TP=2 on 2x RTX 4090; start-up dies in the V1 sampler warm-up with 256 dummy requests. Writer zxa."""
import calendar, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, engine_args, write_json, Log, refused_scrapes, nvml  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zxa-glm47flash-sampler-warmup-4090-tp2/bundle"
os.makedirs(OUT, exist_ok=True)
M = "/models/GLM-4.7-Flash-AWQ"
NAME = "glm-4.7-flash"
V = "0.15.0rc2.dev40+g2e8de8677"
ARGV = ["vllm", "serve", M, "--served-model-name", NAME, "--tensor-parallel-size", "2",
        "--gpu-memory-utilization", "0.90", "--max-model-len", "32768", "--trust-remote-code"]
# per-rank memory plan (GiB)
TOTAL = 23.52; BUDGET = 0.90 * TOTAL          # 21.17
WEIGHTS = 8.61; NONTORCH = 2.05; PEAK = 1.16
KV = round(BUDGET - WEIGHTS - NONTORCH - PEAK, 2)   # 9.35
BPT = 47 * (512 + 64) * 2                      # MLA latent, bf16, not split by TP: 54,144 B/token
BLOCKS = int(KV * GIB // (16 * BPT)); TOK = BLOCKS * 16

t0 = calendar.timegm((2026, 2, 5, 9, 12, 0, 0, 0, 0))
T = lambda s: t0 + s  # noqa: E731
L = Log()
A = "(APIServer pid=1) "; EC = "(EngineCore_DP0 pid=212) "
W = {0: "(Worker_TP0 pid=284) ", 1: "(Worker_TP1 pid=285) "}
L.add(T(0), "vLLM API server version %s" % V, A, src="api_server.py:1272")
L.add(T(0), "non-default args: {'model_tag': '%s', 'model': '%s', 'trust_remote_code': True, 'max_model_len': 32768, "
      "'served_model_name': ['%s'], 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9}" % (M, M, NAME), A,
      src="utils.py:263")
L.add(T(6), "Resolved architecture: Glm4MoeLiteForCausalLM", A, src="model.py:541")
L.add(T(6), "Using max model len 32768", A, src="model.py:1559")
L.add(T(6), "Chunked prefill is enabled with max_num_batched_tokens=2048.", A, src="scheduler.py:231")
L.add(T(12), "Initializing a V1 LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', "
      "dtype=torch.float16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=1, "
      "data_parallel_size=1, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
      "served_model_name=%s, enable_prefix_caching=True, enable_chunked_prefill=True, "
      "compilation_config={'level': None, 'mode': <CompilationMode.VLLM_COMPILE: 3>, "
      "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'max_cudagraph_capture_size': 512}"
      % (V, M, M, NAME), EC, src="core.py:93")
for r in (0, 1):
    L.add(T(20), "Starting to load model %s..." % M, W[r], src="gpu_model_runner.py:3721")
    L.add(T(21), "Using TRITON_MLA attention backend out of potential backends: ['TRITON_MLA']", W[r], src="cuda.py:351")
for r in (0, 1):
    L.add(T(44), "Loading weights took 21.37 seconds", W[r], src="default_loader.py:291")
    L.add(T(45), "Model loading took %.2f GiB memory and 23.518246 seconds" % WEIGHTS, W[r], src="gpu_model_runner.py:3810")
for r in (0, 1):
    L.add(T(52), "Using cache directory: /root/.cache/vllm/torch_compile_cache/9c41e0b7aa/rank_%d_0/backbone for "
          "vLLM's torch.compile" % r, W[r], src="backends.py:643")
    L.add(T(52), "Dynamo bytecode transform time: 6.84 s", W[r], src="backends.py:703")
    L.add(T(83), "Compiling a graph for compile range (1, 2048) takes 27.91 s", W[r], src="backends.py:261")
    L.add(T(84), "torch.compile takes 34.75 s in total", W[r], src="monitor.py:34")
for r in (0, 1):
    L.add(T(90), "Available KV cache memory: %.2f GiB" % KV, W[r], src="gpu_worker.py:358")
L.add(T(91), "GPU KV cache size: {:,} tokens".format(TOK), EC, src="kv_cache_utils.py:1305")
L.add(T(91), "Maximum concurrency for 32,768 tokens per request: %.2fx" % (TOK / 32768), EC, src="kv_cache_utils.py:1310")
for r in (0, 1):
    L.add(T(104), "Graph capturing finished in 12 secs, took 0.05 GiB", W[r], src="gpu_model_runner.py:4633")
T_OOM = T(106)
for r, free in ((0, "212.62 MiB"), (1, "201.62 MiB")):
    cap = "23.52" if r == 0 else "23.51"
    E = lambda m: L.add(T_OOM, m, W[r], "ERROR", "multiproc_executor.py:754")  # noqa: E731
    for m in [
        "WorkerProc hit an exception.",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 4298, in _dummy_sampler_run',
        "    sampler_output = self.sampler(logits=logits, sampling_metadata=dummy_metadata)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", line 94, in forward',
        "    sampled, processed_logprobs = self.sample(logits, sampling_metadata)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 262, in apply_top_k_top_p',
        "    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 304.00 MiB. GPU %d has a total capacity of %s GiB "
        "of which %s is free. Including non-PyTorch memory, this process has 23.30 GiB memory in use. Of the allocated "
        "memory 20.10 GiB is allocated by PyTorch, with 52.00 MiB allocated in private pools (e.g., CUDA Graphs), and "
        "914.21 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
        % (r, cap, free),
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 512, in compile_or_warm_up_model',
        "    self.model_runner._dummy_sampler_run(hidden_states=last_hidden_states)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 4304, in _dummy_sampler_run',
        "    raise RuntimeError(",
        "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering "
        "`max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
    ]:
        E(m)
L.add(T_OOM + 1, "EngineCore failed to start.", EC, "ERROR", "core.py:935")
L.add(T_OOM + 1, "Exception: Call to compile_or_warm_up_model method failed: CUDA out of memory occurred when warming up "
      "sampler with 256 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
      "initializing the engine.", EC, "ERROR", "core.py:935")
L.add(T_OOM + 2, "WorkerProc was terminated", W[0], "WARNING", "multiproc_executor.py:786")
L.raw(A + "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
L.write(OUT)

iv = 10
a, b = T(10), T(370)
refused_scrapes(OUT, a, b, iv)
def used(t, r):
    if t < T(18) or t > T_OOM + 3:
        return 0.0
    if t < T(21):
        return 0.48
    if t < T(45):
        return 0.48 + WEIGHTS * (t - T(21)) / 24
    if t < T(90):
        return WEIGHTS + NONTORCH + PEAK + 0.3
    if t < T_OOM:
        return WEIGHTS + NONTORCH + KV + 0.9 + 1.2
    return 23.30
nvml(OUT, a, b, iv, 2, "NVIDIA GeForce RTX 4090", 24564 * MIB, used, [40121, 40122], base_mib=18)
engine_args(OUT, ARGV)
write_json(os.path.join(OUT, "model_config.json"), {
    "architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "glm4_moe_lite", "hidden_size": 2048,
    "intermediate_size": 10240, "moe_intermediate_size": 1536, "num_hidden_layers": 47,
    "num_attention_heads": 20, "num_key_value_heads": 20, "q_lora_rank": 768, "kv_lora_rank": 512,
    "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256, "n_routed_experts": 64,
    "n_shared_experts": 1, "num_experts_per_tok": 4, "first_k_dense_replace": 1, "vocab_size": 154880,
    "max_position_embeddings": 202752, "rope_theta": 1000000, "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                            "version": "gemm"}})
manifest(OUT, "http://127.0.0.1:8000", a, b, float(iv),
         "Captured while the container was starting; it never listened. logs.txt is docker logs of the vLLM container.")
print("wrote", OUT, "KV", KV, "tokens", TOK)
