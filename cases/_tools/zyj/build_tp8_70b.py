"""zyj-tp8-70b-weights-exceed-15gib: vllm serve of a 70B bf16 model at TP 8 on
14.62 GiB cards; load_model OOMs, the server never comes up."""
import os
from common import GIB, write_json, write_jsonl, bundle_dir, manifest

CASE = "zyj-tp8-70b-weights-exceed-15gib"
d = bundle_dir(CASE)
T0 = 1740944893.0          # 2025-03-02 19:48:13 UTC, launch
LOAD0 = T0 + 27            # weights start streaming in
CRASH = 1740944983.0       # 19:49:43, the quoted OOM
T1 = T0 + 120
TOTAL = int(14.62 * GIB)   # torch: total capacity 14.62 GiB
CTX = int(0.19 * GIB)      # CUDA context + NCCL before weights
FULL = int(14.61 * GIB)    # "this process has 14.61 GiB memory in use"

manifest(d, "http://gpu-node:8000", T0, T1, 5.0,
         "Capture started with the launch of vllm serve (TP 8 on GPUs 0-7 of 24 visible); "
         "the API server never listened, every scrape failed; engine log attached.")

# metrics: every scrape refused
rows = []
t = T0 + 5
while t <= T1:
    rows.append({"t": t, "error": "GET http://gpu-node:8000/metrics: connection refused"})
    t += 5
write_jsonl(os.path.join(d, "metrics.jsonl"), rows)

write_json(os.path.join(d, "server.json"), {"version": None, "models": None, "health": None})

argv = ["vllm", "serve", "/path to models/DeepSeek-R1:70B", "--tensor-parallel-size", "8",
        "--max-model-len", "65536", "--trust-remote-code", "--enforce-eager", "--block-size", "16"]
write_json(os.path.join(d, "engine_args.json"), {"argv": argv, "args": {
    "model": "/path to models/DeepSeek-R1:70B", "tensor-parallel-size": 8,
    "max-model-len": 65536, "trust-remote-code": True, "enforce-eager": True,
    "block-size": 16}})

write_json(os.path.join(d, "model_config.json"), {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu",
    "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 28672,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.47.0.dev0", "use_cache": True, "vocab_size": 128256})

# NVML: ranks 0-7 hold pids 195290..195297 (rank 0 = api process' driver worker)
pids = [195290] + [195291 + i for i in range(7)]
gpu_rows = []
t = T0
while t <= T1:
    devs = []
    for i in range(24):
        used = 0
        procs = []
        if i < 8:
            if t < T0 + 20:
                used = 0
            elif t < LOAD0:
                used = CTX
            elif t < CRASH:
                frac = min(1.0, (t - LOAD0) / (CRASH - 3 - LOAD0))
                used = int(CTX + frac * (FULL - CTX))
            elif t < CRASH + 4:
                used = FULL
            else:
                used = 0
            if used:
                name = "python3" if i == 0 else "python3"
                procs = [{"pid": pids[i], "name": name, "used_memory": used}]
        devs.append({"index": i, "name": "Tesla T4", "memory_total": TOTAL + int(0.38 * GIB),
                     "memory_used": used + (int(0.0 * GIB)), "processes": procs})
    gpu_rows.append({"t": t, "devices": devs})
    t += 5
write_jsonl(os.path.join(d, "gpu.jsonl"), gpu_rows)

L = []
def log(ts, lvl, src, msg, pid=None):
    import time
    s = time.strftime("%m-%d %H:%M:%S", time.gmtime(ts))
    pre = f"(VllmWorkerProcess pid={pid}) " if pid else ""
    L.append(f"{pre}{lvl} {s} [{src}] {msg}")

log(T0 + 2, "INFO", "__init__.py:207", "Automatically detected platform cuda.")
log(T0 + 4, "INFO", "api_server.py:912", "vLLM API server version 0.7.4.dev112+gd0f1f5ab")
log(T0 + 4, "INFO", "api_server.py:913", "args: Namespace(subparser='serve', model_tag='/path to models/DeepSeek-R1:70B', host=None, port=8000, model='/path to models/DeepSeek-R1:70B', trust_remote_code=True, max_model_len=65536, block_size=16, tensor_parallel_size=8, pipeline_parallel_size=1, gpu_memory_utilization=0.9, enforce_eager=True, max_num_seqs=None, ...)")
log(T0 + 12, "INFO", "config.py:1438", "Defaulting to use mp for distributed inference")
log(T0 + 12, "INFO", "llm_engine.py:234", "Initializing a V0 LLM engine (v0.7.4.dev112+gd0f1f5ab) with config: model='/path to models/DeepSeek-R1:70B', tokenizer='/path to models/DeepSeek-R1:70B', dtype=torch.bfloat16, max_seq_len=65536, tensor_parallel_size=8, pipeline_parallel_size=1, quantization=None, enforce_eager=True, kv_cache_dtype=auto, seed=0, use_v2_block_manager=True, enable_prefix_caching=False, enable_chunked_prefill=False")
for i, p in enumerate(pids[1:]):
    log(T0 + 16, "INFO", "multiproc_worker_utils.py:229", "Worker ready; awaiting tasks", pid=p)
log(T0 + 22, "INFO", "cuda.py:229", "Using Flash Attention backend.")
log(T0 + 25, "INFO", "model_runner.py:1110", "Starting to load model /path to models/DeepSeek-R1:70B...")
for p in pids[1:]:
    log(T0 + 25, "INFO", "model_runner.py:1110", "Starting to load model /path to models/DeepSeek-R1:70B...", pid=p)
L.append("Loading safetensors checkpoint shards:   0% Completed | 0/17 [00:00<?, ?it/s]")
L.append("Loading safetensors checkpoint shards:  53% Completed | 9/17 [00:51<00:45,  5.70s/it]")
L.append("Loading safetensors checkpoint shards:  82% Completed | 14/17 [01:00<00:12,  4.31s/it]")
p = 195295
for m in ["Exception in worker VllmWorkerProcess while processing method load_model.",
          "Traceback (most recent call last):",
          "  File \"/home/uefi/vllm/source/vllm/vllm/executor/multiproc_worker_utils.py\", line 236, in _run_worker_process",
          "    output = run_method(worker, method, args, kwargs)",
          "  File \"/home/uefi/vllm/source/vllm/vllm/worker/worker.py\", line 183, in load_model",
          "    self.model_runner.load_model()",
          "  File \"/home/uefi/vllm/source/vllm/vllm/model_executor/model_loader/loader.py\", line 409, in load_model",
          "    model = _initialize_model(vllm_config=vllm_config)",
          "  File \"/home/uefi/.local/lib/python3.12/site-packages/torch/utils/_device.py\", line 106, in __torch_function__",
          "    return func(*args, **kwargs)",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 2 has a total capacity of 14.62 GiB of which 3.31 MiB is free. Including non-PyTorch memory, this process has 14.61 GiB memory in use. Of the allocated memory 14.42 GiB is allocated by PyTorch, and 23.14 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]:
    log(CRASH, "ERROR", "multiproc_worker_utils.py:242", m, pid=p)
log(CRASH, "ERROR", "multiproc_worker_utils.py:242", "Exception in worker VllmWorkerProcess while processing method load_model.", pid=195297)
log(CRASH + 1, "ERROR", "engine.py:400", "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 14.62 GiB of which 5.31 MiB is free.")
log(CRASH + 2, "INFO", "multiproc_worker_utils.py:128", "Killing local vLLM worker processes")
L.append("RuntimeError: Engine process failed to start. See stack trace for the root cause.")
with open(os.path.join(d, "logs.txt"), "w") as f:
    f.write("\n".join(L) + "\n")
print("wrote", d)
