"""Bundle for zyo-qwen25-72b-v1-capture-oom (vLLM #15228): V1 start-up dies in CUDA-graph capture."""
import os, sys, calendar, time
sys.path.insert(0, os.path.dirname(__file__))
from common import write_json, write_jsonl, manifest, engine_args

D = os.path.join(os.path.dirname(__file__), "..", "..", "zyo-qwen25-72b-v1-capture-oom", "bundle")
os.makedirs(D, exist_ok=True)
T0 = calendar.timegm((2025, 3, 20, 16, 52, 0))  # first scrape attempt

MODEL = "Qwen2.5-72B-Instruct-GPTQ-Int4"
argv = ["vllm", "serve", MODEL, "--tensor-parallel-size", "2", "--max-model-len", "16000",
        "--max-num-seqs", "2", "--gpu-memory-utilization", "0.9", "--port", "8000"]
engine_args(D, argv)

# ---- KV math (per rank) ----
GiB = 2 ** 30
total_torch = 44.53          # torch-visible capacity of an L40S
util = 0.90
weights = 19.4213            # GB as vLLM prints it (GiB in fact)
peak_act = 1.21              # profile run at 2048 batched tokens (V1 chunked prefill)
non_torch = 0.47             # NCCL + custom all-reduce buffers
kv_gib = total_torch * util - weights - peak_act - non_torch
per_tok = 80 * 8 * 128 * 2 * 2 // 2   # bytes / token / rank at TP=2 (fp16 KV)
blocks = int(kv_gib * GiB // (per_tok * 16))
tokens = blocks * 16
conc = tokens / 16000

model_config = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
    "intermediate_size": 29568, "max_position_embeddings": 32768, "max_window_layers": 80,
    "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "quantization_config": {"bits": 4, "damp_percent": 0.01,
    "desc_act": False, "group_size": 128, "modules_in_block_to_quantize": None,
    "quant_method": "gptq", "sym": True, "true_sequential": True},
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
    "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.43.1",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
write_json(os.path.join(D, "model_config.json"), model_config)

def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))

L = []
t = T0 - 250
L.append(f"INFO {ts(t)} [__init__.py:256] Automatically detected platform cuda.")
L.append(f"INFO {ts(t+2)} [api_server.py:977] vLLM API server version 0.8.1")
L.append(f"INFO {ts(t+2)} [api_server.py:978] args: Namespace(subparser='serve', model_tag='{MODEL}', host=None, port=8000, model='{MODEL}', max_model_len=16000, tensor_parallel_size=2, gpu_memory_utilization=0.9, max_num_seqs=2, enforce_eager=False, ...)")
L.append(f"INFO {ts(t+9)} [config.py:583] This model supports multiple tasks: {{'generate', 'classify', 'score', 'embed', 'reward'}}. Defaulting to 'generate'.")
L.append(f"INFO {ts(t+9)} [gptq_marlin.py:143] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.")
L.append(f"INFO {ts(t+9)} [config.py:1515] Defaulting to use mp for distributed inference")
L.append(f"INFO {ts(t+9)} [config.py:1693] Chunked prefill is enabled with max_num_batched_tokens=2048.")
L.append(f"INFO {ts(t+12)} [core.py:53] Initializing a V1 LLM engine (v0.8.1) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=16000, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, served_model_name={MODEL}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")
pid = {0: 2764, 1: 2775}
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+20)} [parallel_state.py:967] rank {r} in world size 2 is assigned as DP rank 0, PP rank 0, TP rank {r}")
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+20)} [cuda.py:215] Using Flash Attention backend on V1 engine.")
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+21)} [gpu_model_runner.py:1128] Starting to load model {MODEL}...")
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+83)} [gpu_model_runner.py:1140] Loading model weights took {weights:.4f} GB")
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+92)} [backends.py:409] Using cache directory: /root/.cache/vllm/torch_compile_cache/5c0a61d8e1/rank_{r}_0 for vLLM's torch.compile")
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+92)} [backends.py:419] Dynamo bytecode transform time: 9.87 s")
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+131)} [backends.py:132] Compiling a graph for general shape takes 38.41 s")
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(t+140)} [monitor.py:33] torch.compile takes 48.28 s in total")
L.append(f"INFO {ts(t+152)} [kv_cache_utils.py:537] GPU KV cache size: {tokens:,} tokens")
L.append(f"INFO {ts(t+152)} [kv_cache_utils.py:540] Maximum concurrency for 16,000 tokens per request: {conc:.2f}x")
tc = t + 153
for r in (0, 1):
    L.append(f"(VllmWorker rank={r} pid={pid[r]}) INFO {ts(tc+2)} [custom_all_reduce.py:226] Registering 5360 cuda graph addresses")
tf = T0 + 8   # crash time
for r in (1, 0):
    p = f"(VllmWorker rank={r} pid={pid[r]}) ERROR {ts(tf)} [multiproc_executor.py:375]"
    L.append(f"{p} WorkerProc hit an exception: %s")
    L.append(f"{p} Traceback (most recent call last):")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 371, in worker_busy_loop")
    L.append(f"{p}     output = func(*args, **kwargs)")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_worker.py\", line 219, in compile_or_warm_up_model")
    L.append(f"{p}     self.model_runner.capture_model()")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 1429, in capture_model")
    L.append(f"{p}     self._dummy_run(num_tokens)")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/vllm/compilation/backends.py\", line 681, in __call__")
    L.append(f"{p}     with torch.cuda.graph(cudagraph, pool=self.graph_pool):")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/graphs.py\", line 186, in __exit__")
    L.append(f"{p}     self.cuda_graph.capture_end()")
    L.append(f"{p}   File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/graphs.py\", line 84, in capture_end")
    L.append(f"{p}     super().capture_end()")
    L.append(f"{p} RuntimeError: CUDA error: out of memory")
    L.append(f"{p} CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    L.append(f"{p} For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
    L.append(f"{p} Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    L.append(f"{p} ")
L.append(f"ERROR {ts(tf+1)} [core.py:340] EngineCore hit an exception: Traceback (most recent call last):")
L.append(f"ERROR {ts(tf+1)} [core.py:340] RuntimeError: CUDA error: out of memory")
L.append(f"CRITICAL {ts(tf+1)} [core_client.py:269] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
with open(os.path.join(D, "logs.txt"), "w") as f:
    f.write("\n".join(L) + "\n")

# ---- metrics: the API server never came up ----
rows = []
for i in range(3):
    rows.append({"t": T0 + 5.0 * i, "error": "GET http://127.0.0.1:8000/metrics: connection refused ([Errno 111] Connection refused)"})
write_jsonl(os.path.join(D, "metrics.jsonl"), rows)

# ---- NVML: one sample during capture, one after the crash ----
NV_TOTAL = 48305799168
used_cap = [47_712_000_000, 47_729_000_000]
gpu = [{"t": T0 + 5.0, "devices": [
    {"index": i, "name": "NVIDIA L40S", "memory_total": NV_TOTAL, "memory_used": used_cap[i],
     "processes": [{"pid": pid[i], "name": "python3", "used_memory": used_cap[i] - 520_000_000}]} for i in (0, 1)]},
       {"t": T0 + 10.0, "devices": [
    {"index": i, "name": "NVIDIA L40S", "memory_total": NV_TOTAL, "memory_used": 545_000_000,
     "processes": []} for i in (0, 1)]}]
write_jsonl(os.path.join(D, "gpu.jsonl"), gpu)

manifest(D, "http://127.0.0.1:8000", T0, T0 + 10.0, 5.0,
         "vLLM 0.8.1 (V1) start-up of Qwen2.5-72B-Instruct-GPTQ-Int4 at TP=2 on 2 x L40S; the API server never came up (engine died in CUDA-graph capture). NVML sampled during capture and after the crash.")
print("kv_gib=%.2f tokens=%d conc=%.2f per_tok=%d" % (kv_gib, tokens, conc, per_tok))
for u in used_cap:
    print("nvml used GiB", u / GiB, "torch-visible", total_torch)
