"""Bundle for zyt-sampler-warmup-oom-qwq-3090 (vllm#15105): vLLM 0.8.0 V1, QwQ-32B GPTQ int4,
TP2 on 2x RTX 3090; start-up dies in the V1 sampler warm-up after KV allocation and graph capture.
The server never answered /metrics, so every scrape is an error. Writer zyt."""
import calendar
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, MIB, manifest, engine_args, write_json, write_jsonl, fmt_ts  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyt-sampler-warmup-oom-qwq-3090/bundle"
os.makedirs(OUT, exist_ok=True)

MODEL = "OPEA_QwQ-32B-int4-AutoRound-gptq-sym"
ARGV = ["vllm", "serve", MODEL, "--dtype", "auto", "--api-key", "<redacted>", "--host", "0.0.0.0",
        "--port", "8000", "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.95",
        "--max-model-len", "32768", "--max-num-seqs", "1536"]

# --- memory plan, per rank (GiB) ---
TOTAL_NVML = 24576 * MIB             # RTX 3090 as NVML reports it
WEIGHTS = 9.0701                     # "Loading model weights took 9.0701 GB"
KV_BLOCKS = 5734                     # 16 tokens x 128 KiB/token/rank = 2 MiB per block
KV_TOKENS = KV_BLOCKS * 16           # 91,744
KV_GIB = KV_BLOCKS * 2 * MIB / GIB   # 11.199
GRAPH_GIB = 0.51
NON_TORCH = 0.74
BASE_MIB = 268                       # idle card as NVML shows it (driver reserve)

t_start = calendar.timegm((2025, 3, 20, 2, 26, 10, 0, 0, 0))   # vllm serve launched
T = lambda s: t_start + s  # noqa: E731
ev = {
    "weights_done": T(55), "compile_done": T(145), "kv_alloc": T(152),
    "graphs_done": T(175), "oom": T(177), "exit": T(183),
}

logs = []
def L(t, msg, rank=None, pid=None, lvl="INFO", src="x.py:1"):
    pre = "(VllmWorker rank=%d pid=%d) " % (rank, pid) if rank is not None else ""
    logs.append("%s%s %s [%s] %s" % (pre, lvl, fmt_ts(t), src, msg))

L(T(0), "Automatically detected platform cuda.", src="__init__.py:256")
L(T(2), "vLLM API server version 0.8.0", src="api_server.py:981")
L(T(2), "args: Namespace(subparser='serve', model_tag='%s', host='0.0.0.0', port=8000, api_key='<redacted>', "
        "dtype='auto', max_model_len=32768, tensor_parallel_size=2, gpu_memory_utilization=0.95, "
        "max_num_seqs=1536, enforce_eager=False, ...)" % MODEL, src="api_server.py:982")
L(T(9), "This model supports multiple tasks: {'classify', 'embed', 'reward', 'score', 'generate'}. "
        "Defaulting to 'generate'.", src="config.py:583")
L(T(9), "The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.",
  src="gptq_marlin.py:143")
L(T(9), "Defaulting to use mp for distributed inference", src="config.py:1499")
L(T(9), "Chunked prefill is enabled with max_num_batched_tokens=2048.", src="config.py:1677")
L(T(12), "Initializing a V1 LLM engine (v0.8.0) with config: model='%s', tokenizer='%s', "
         "dtype=torch.float16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=1, "
         "quantization=gptq_marlin, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
         "served_model_name=%s, enable_prefix_caching=True, chunked_prefill_enabled=True, "
         "compilation_config={\"level\":3,\"use_cudagraph\":true,\"max_capture_size\":512}" % (MODEL, MODEL, MODEL),
  src="core.py:53")
for r, pid in ((0, 571), (1, 572)):
    L(T(20), "Using Flash Attention backend on V1 engine.", r, pid, src="cuda.py:215")
    L(T(21), "Starting to load model %s..." % MODEL, r, pid, src="gpu_model_runner.py:1128")
for r, pid in ((0, 571), (1, 572)):
    L(ev["weights_done"], "Loading model weights took %.4f GB and 33.412618 seconds" % WEIGHTS, r, pid,
      src="gpu_model_runner.py:1140")
for r, pid in ((0, 571), (1, 572)):
    L(T(70), "Using cache directory: /root/.cache/vllm/torch_compile_cache/3f1c2ab9d8/rank_%d for vLLM's "
             "torch.compile" % r, r, pid, src="backends.py:409")
    L(T(70), "Dynamo bytecode transform time: 14.66 s", r, pid, src="backends.py:419")
    L(T(128), "Compiling a graph for general shape takes 56.12 s", r, pid, src="backends.py:132")
    L(ev["compile_done"], "torch.compile takes 70.78 s in total", r, pid, src="monitor.py:33")
L(ev["kv_alloc"], "GPU KV cache size: {:,} tokens".format(KV_TOKENS), src="kv_cache_utils.py:537")
L(ev["kv_alloc"], "Maximum concurrency for 32,768 tokens per request: %.2fx" % (KV_TOKENS / 32768),
  src="kv_cache_utils.py:540")
for r, pid in ((0, 571), (1, 572)):
    L(ev["graphs_done"], "Graph capturing finished in 23 secs, took %.2f GiB" % GRAPH_GIB, r, pid,
      src="gpu_model_runner.py:1434")

E = lambda t, m: L(t, m, 1, 572, "ERROR", "multiproc_executor.py:375")  # noqa: E731
tb = [
    "WorkerProc hit an exception: %s",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1325, in _dummy_sampler_run',
    "    sampler_output = self.model.sample(",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/qwen2.py", line 494, in sample',
    "    next_tokens = self.sampler(logits, sampling_metadata)",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/sample/sampler.py", line 52, in forward',
    "    sampled = self.sample(logits, sampling_metadata)",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/sample/sampler.py", line 109, in sample',
    "    random_sampled = self.topk_topp_sampler(",
    '  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1750, in _call_impl',
    "    return forward_call(*args, **kwargs)",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 79, in forward_native',
    "    logits = apply_top_k_top_p(logits, k, p)",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 111, in apply_top_k_top_p',
    "    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.74 GiB. GPU 1 has a total capacity of 23.69 GiB "
    "of which 1.07 GiB is free. Process 922108 has 22.61 GiB memory in use. Of the allocated memory 21.70 GiB is "
    "allocated by PyTorch, with 522.00 MiB allocated in private pools (e.g., CUDA Graphs), and 178.00 MiB is reserved "
    "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/executor/multiproc_executor.py", line 371, in worker_busy_loop',
    "    output = func(*args, **kwargs)",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_worker.py", line 233, in compile_or_warm_up_model',
    "    self.model_runner._dummy_sampler_run(",
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1329, in _dummy_sampler_run',
    "    raise RuntimeError(",
    "RuntimeError: CUDA out of memory occurred when warming up sampler with 1536 dummy requests. Please try lowering "
    "`max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
]
for line in tb:
    E(ev["oom"], line)
L(ev["oom"] + 1, "EngineCore hit an exception: Traceback (most recent call last):", lvl="ERROR", src="core.py:340")
for line in ['  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/engine/core.py", line 332, in run_engine_core',
             "    engine_core = EngineCoreProc(*args, **kwargs)",
             '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/engine/core.py", line 67, in __init__',
             "    self._initialize_kv_caches(vllm_config)",
             '  File "/usr/local/lib/python3.10/dist-packages/vllm/v1/engine/core.py", line 140, in _initialize_kv_caches',
             "    self.model_executor.initialize_from_config(kv_cache_configs)",
             "Exception: WorkerProc hit an exception: see stack trace above."]:
    L(ev["oom"] + 1, line, lvl="ERROR", src="core.py:340")
L(ev["oom"] + 1, "EngineCore failed to start.", lvl="CRITICAL", src="core_client.py:269")
logs.append("Traceback (most recent call last):")
logs.append('  File "/usr/local/bin/vllm", line 8, in <module>')
logs.append("    sys.exit(main())")
logs.append("RuntimeError: Engine core initialization failed. See root cause above.")

with open(os.path.join(OUT, "logs.txt"), "w") as f:
    f.write("\n".join(logs) + "\n")

# --- scrapes: every 10 s from launch +10 s for 6 min; the server never listens ---
interval = 10
t0, t1 = T(10), T(370)
rows = []
t = t0
while t <= t1:
    rows.append({"t": t, "error": "GET http://127.0.0.1:8000/metrics: [Errno 111] Connection refused"})
    t += interval
write_jsonl(os.path.join(OUT, "metrics.jsonl"), rows)

# --- NVML samples ---
def used_gib(t, rank):
    """vLLM process memory per rank (GiB) at time t, 0 when gone."""
    if t < T(18) or t >= ev["exit"]:
        return 0.0
    if t < T(22):
        return 0.42
    if t < ev["weights_done"]:
        frac = (t - T(22)) / (ev["weights_done"] - T(22))
        return 0.42 + WEIGHTS * frac
    if t < ev["kv_alloc"]:
        return WEIGHTS + NON_TORCH + (1.50 if t >= T(128) else 0.35)   # compile, then profile peak held in cache
    if t < ev["graphs_done"]:
        return WEIGHTS + NON_TORCH + KV_GIB + 0.20 + GRAPH_GIB * (t - ev["kv_alloc"]) / (ev["graphs_done"] - ev["kv_alloc"])
    return 22.61 if rank == 1 else 22.58
gpu = []
t = t0
while t <= t1:
    devs = []
    for rank, pid in ((0, 922107), (1, 922108)):
        u = used_gib(t, rank)
        procs = [{"pid": pid, "name": "/usr/bin/python3", "used_memory": int(u * GIB)}] if u > 0 else []
        devs.append({"index": rank, "name": "NVIDIA GeForce RTX 3090", "memory_total": TOTAL_NVML,
                     "memory_used": int(u * GIB) + BASE_MIB * MIB, "processes": procs})
    gpu.append({"t": t, "devices": devs})
    t += interval
write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)

engine_args(OUT, ARGV)
write_json(os.path.join(OUT, "model_config.json"), {
    "_name_or_path": "OPEA/QwQ-32B-int4-AutoRound-gptq-sym",
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 27648, "max_position_embeddings": 40960, "max_window_layers": 64,
    "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 64, "num_key_value_heads": 8,
    "quantization_config": {"amp": True, "autoround_version": "0.4.6", "batch_size": 8, "bits": 4,
                            "data_type": "int", "desc_act": False, "group_size": 128, "iters": 1000,
                            "lr": 0.001, "minmax_lr": 0.001, "nsamples": 512, "quant_method": "gptq",
                            "scale_dtype": "torch.float16", "seqlen": 2048, "sym": True, "true_sequential": False},
    "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.49.0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064})
manifest(OUT, "http://127.0.0.1:8000", t0, t1, float(interval),
         "Recorded while the server was starting after an upgrade to 0.8.0; it never began listening. "
         "logs.txt is the vllm serve console output.")
print("wrote", OUT, len(rows), "scrapes", len(logs), "log lines")
