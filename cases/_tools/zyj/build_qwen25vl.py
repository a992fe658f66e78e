"""zyj-qwen25vl-12img-profile-oom: offline LLM(...) of Qwen2.5-VL-72B-AWQ, TP 2 on
2x A100-40GB, limit_mm_per_prompt image=12; the profile run's worst-case vision
encoder batch OOMs before KV sizing."""
import os, time
from common import GIB, write_json, write_jsonl, bundle_dir, manifest

CASE = "zyj-qwen25vl-12img-profile-oom"
d = bundle_dir(CASE)
T0 = 1747900800.0 + 3 * 3600 + 600   # 2025-05-22 03:10:00 UTC
T1 = T0 + 150
TOTAL_NVML = 40960 * 1024 * 1024     # A100-SXM4-40GB, 40960 MiB
WEIGHTS = 20.61 * GIB
CTX = 0.52 * GIB
LOAD0, LOAD1 = T0 + 25, T0 + 70
PROF0, OOM = T0 + 95, T0 + 104

manifest(d, "offline:python LLM(...) script", T0, T1, 5.0,
         "Offline vllm.LLM(...) script (no HTTP server, no /metrics); NVML sampled during start-up; script output attached.")
write_jsonl(os.path.join(d, "metrics.jsonl"),
            [{"t": T1, "error": "no /metrics endpoint: offline vllm.LLM() script, no HTTP server"}])

write_json(os.path.join(d, "engine_args.json"), {"argv": None, "args": {
    "model": "Qwen/Qwen2.5-VL-72B-Instruct-AWQ", "tensor-parallel-size": 2,
    "gpu-memory-utilization": 0.95, "max-model-len": 32768, "max-num-seqs": 1,
    "limit-mm-per-prompt": {"image": 12, "video": 0}}})

write_json(os.path.join(d, "model_config.json"), {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "vision_start_token_id": 151652,
    "vision_end_token_id": 151653, "vision_token_id": 151654, "image_token_id": 151655,
    "video_token_id": 151656, "hidden_act": "silu", "hidden_size": 8192,
    "initializer_range": 0.02, "intermediate_size": 29568, "max_position_embeddings": 128000,
    "max_window_layers": 80, "model_type": "qwen2_5_vl", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.49.0", "use_cache": True,
    "use_sliding_window": False,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": ["visual"],
                            "quant_method": "awq", "version": "gemm", "zero_point": True},
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280,
                      "intermediate_size": 3456, "num_heads": 16, "in_chans": 3,
                      "out_hidden_size": 8192, "patch_size": 14, "spatial_merge_size": 2,
                      "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2,
                      "temporal_patch_size": 2},
    "vocab_size": 152064})

pids = [48211, 48377]
rows = []
t = T0
while t <= T1:
    devs = []
    for i in range(2):
        if t < T0 + 20:
            used = 0
        elif t < LOAD0:
            used = CTX
        elif t < LOAD1:
            used = CTX + (t - LOAD0) / (LOAD1 - LOAD0) * WEIGHTS
        elif t < PROF0:
            used = CTX + WEIGHTS + 0.3 * GIB
        elif t <= OOM:
            used = CTX + WEIGHTS + 0.3 * GIB + (t - PROF0) / (OOM - PROF0) * 15.59 * GIB
        elif t < OOM + 6:
            used = 37.02 * GIB
        else:
            used = 0
        used = int(min(used, 37.02 * GIB))
        procs = [{"pid": pids[i], "name": "python" if i == 0 else "VllmWorker", "used_memory": used}] if used else []
        devs.append({"index": i, "name": "NVIDIA A100-SXM4-40GB", "memory_total": TOTAL_NVML,
                     "memory_used": used + (int(0.0) if used else 0), "processes": procs})
    rows.append({"t": t, "devices": devs})
    t += 5
write_jsonl(os.path.join(d, "gpu.jsonl"), rows)

L = []
def log(ts, lvl, src, msg, pre=""):
    s = time.strftime("%m-%d %H:%M:%S", time.gmtime(ts))
    L.append(f"{pre}{lvl} {s} [{src}] {msg}")
W0 = "(VllmWorker rank=0 pid=48377) "
W1 = "(VllmWorker rank=1 pid=48412) "
log(T0 + 3, "INFO", "__init__.py:239", "Automatically detected platform cuda.")
log(T0 + 12, "INFO", "config.py:717", "This model supports multiple tasks: {'reward', 'embed', 'score', 'generate', 'classify'}. Defaulting to 'generate'.")
log(T0 + 12, "INFO", "awq_marlin.py:116", "The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.")
log(T0 + 12, "INFO", "config.py:1770", "Defaulting to use mp for distributed inference")
log(T0 + 12, "INFO", "config.py:2003", "Chunked prefill is enabled with max_num_batched_tokens=16384.")
log(T0 + 14, "INFO", "core.py:58", "Initializing a V1 LLM engine (v0.8.5) with config: model='Qwen/Qwen2.5-VL-72B-Instruct-AWQ', dtype=torch.float16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=1, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, seed=None, enable_prefix_caching=True, chunked_prefill_enabled=True")
log(T0 + 24, "INFO", "gpu_model_runner.py:1329", "Starting to load model Qwen/Qwen2.5-VL-72B-Instruct-AWQ...", W0)
log(T0 + 24, "INFO", "gpu_model_runner.py:1329", "Starting to load model Qwen/Qwen2.5-VL-72B-Instruct-AWQ...", W1)
L.append("Loading safetensors checkpoint shards: 100% Completed | 11/11 [00:44<00:00,  4.05s/it]")
log(LOAD1 + 1, "INFO", "gpu_model_runner.py:1347", "Model loading took 20.6110 GiB and 46.38 seconds", W0)
log(LOAD1 + 1, "INFO", "gpu_model_runner.py:1347", "Model loading took 20.6110 GiB and 46.52 seconds", W1)
log(PROF0 - 1, "WARNING", "profiling.py:224", "The context length (32768) of the model is too short to hold the multi-modal embeddings in the worst case (196608 tokens in total, out of which {'image': 196608} are reserved for multi-modal embeddings). This may cause certain multi-modal inputs to fail during inference, even when the input text is short. To avoid this, you should increase `max_model_len`, reduce `max_num_seqs`, and/or reduce `mm_counts`.", W0)
log(PROF0, "INFO", "gpu_model_runner.py:1676", "Encoder cache will be initialized with a budget of 196608 tokens, and profiled with 12 image items of the maximum feature size.", W0)
log(PROF0, "INFO", "gpu_model_runner.py:1676", "Encoder cache will be initialized with a budget of 196608 tokens, and profiled with 12 image items of the maximum feature size.", W1)
for m in ["WorkerProc hit an exception.", "Traceback (most recent call last):",
          "  File \".../vllm/v1/worker/gpu_worker.py\", line 185, in determine_available_memory",
          "    self.model_runner.profile_run()",
          "  File \".../vllm/v1/worker/gpu_model_runner.py\", line 1703, in profile_run",
          "    dummy_encoder_outputs = self.model.get_multimodal_embeddings(",
          "  File \".../vllm/model_executor/models/qwen2_5_vl.py\", line 976, in _process_image_input",
          "    image_embeds = self.visual(pixel_values, grid_thw=grid_thw)",
          "  File \".../vllm/model_executor/models/qwen2_5_vl.py\", line 254, in forward",
          "    x_parallel, _ = self.gate_up_proj(x)",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.01 GiB. GPU 0 has a total capacity of 39.39 GiB of which 2.36 GiB is free. Including non-PyTorch memory, this process has 37.02 GiB memory in use. Of the allocated memory 35.87 GiB is allocated by PyTorch, and 0.61 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]:
    log(OOM, "ERROR", "multiproc_executor.py:470", m, W0)
log(OOM + 1, "ERROR", "core.py:396", "EngineCore failed to start.")
L.append("RuntimeError: Engine core initialization failed. See root cause above.")
with open(os.path.join(d, "logs.txt"), "w") as f:
    f.write("\n".join(L) + "\n")
print("wrote", d)
