"""Writer zzj's four cases: timelines for gen.py (see its docstring)."""
import calendar, math

GiB = 1024 ** 3


def ts(s):
    return float(calendar.timegm(__import__("time").strptime(s, "%Y-%m-%d %H:%M:%S")))


def fifo_sim(reqs, total_blocks, rate, cap, warn, dur, block=16, prefill_s=1):
    """reqs: (arrival_s, prompt, gen, max_tokens). Per-second FIFO admission into the pool."""
    reqs = sorted(reqs)
    waiting, running, states, hist5 = [], [], [], []
    i = 0
    for sec in range(dur + 1):
        logs, done, ptps = [], [], 0.0
        while i < len(reqs) and reqs[i][0] <= sec:
            a, p, g, mt = reqs[i]; i += 1
            if math.ceil(p / block) > total_blocks:
                logs.append(warn.format(p=p, ts="{ts}"))
                continue
            waiting.append({"a": a, "p": p, "g": g, "mt": mt, "n": 0})
        used = sum(math.ceil((r["p"] + r["n"]) / block) for r in running)
        while waiting and len(running) < cap:
            r = waiting[0]
            if used + math.ceil((r["p"] + 1) / block) + max(1, int(0.01 * total_blocks)) > total_blocks:
                break
            waiting.pop(0); r["s"] = sec; r["first"] = sec + prefill_s; running.append(r)
            used += math.ceil((r["p"] + 1) / block); ptps += r["p"]
        gtps = 0.0
        for r in list(running):
            if sec >= r["first"]:
                k = min(rate, r["g"] - r["n"]); r["n"] += k; gtps += k
                if r["n"] >= r["g"]:
                    running.remove(r)
                    e2e = sec - r["a"] + 0.4
                    ttft = r["first"] - r["a"] + 0.3
                    done.append((ttft, e2e, (e2e - ttft) / max(1, r["g"] - 1), "length" if r["g"] >= r["mt"] else "stop", r["g"]))
        used = sum(math.ceil((r["p"] + r["n"]) / block) for r in running)
        hist5.append((ptps, gtps)); hist5 = hist5[-5:]
        states.append({"run": len(running), "wait": len(waiting), "swp": 0, "gpu": used / total_blocks, "cpu": 0.0,
                       "ptps": ptps, "gtps": gtps, "ptps5": sum(x[0] for x in hist5) / 5, "gtps5": sum(x[1] for x in hist5) / 5,
                       "done": done, "log": logs})
    return lambda sec: states[sec]


QWEN72 = {"architectures": ["QWenLMHeadModel"], "auto_map": {"AutoConfig": "configuration_qwen.QWenConfig", "AutoModelForCausalLM": "modeling_qwen.QWenLMHeadModel"},
          "model_type": "qwen", "hidden_size": 8192, "intermediate_size": 49152, "num_attention_heads": 64, "num_hidden_layers": 80,
          "kv_channels": 128, "max_position_embeddings": 32768, "seq_length": 32768, "vocab_size": 152064, "bf16": True,
          "rotary_emb_base": 1000000, "use_dynamic_ntk": True, "use_logn_attn": True, "layer_norm_epsilon": 1e-06, "torch_dtype": "bfloat16"}
STAT026 = "INFO {ts} llm_engine.py:653] Avg prompt throughput: {ptps5:.1f} tokens/s, Avg generation throughput: {gtps5:.1f} tokens/s, Running: {run} reqs, Swapped: {swp} reqs, Pending: {wait} reqs, GPU KV cache usage: {gpu:.1%}, CPU KV cache usage: {cpu:.1%}"
WARN026 = "WARNING {ts} scheduler.py:161] Input prompt ({p} tokens) is too long and exceeds the capacity of block_manager"

# A: QwenLM/Qwen#889
A_reqs = [(10, 1100, 380, 2048), (95, 3916, 0, 2048), (150, 1440, 600, 2048), (160, 900, 350, 2048), (240, 1250, 420, 2048),
          (300, 3916, 0, 2048), (318, 3950, 0, 2048), (380, 1600, 560, 2048), (392, 700, 300, 2048), (470, 1020, 400, 2048), (540, 4310, 0, 2048)]
A = {"id": "zzj-qwen72b-tp2-3916-exceeds-pool", "v026": True, "version": "0.2.6", "served": "/data/models/Qwen-72B-Chat", "mml": 8192,
     "start": ts("2023-12-29 06:00:00"), "n": 60, "interval": 10.0,
     "state": fifo_sim(A_reqs, 154, 33, 256, WARN026, 600), "statfmt": STAT026,
     "notes": "Single-user chat front end on Qwen-72B-Chat, TP 2 on two A100 80GB; prompts above ~3000 tokens come back empty.",
     "argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/data/models/Qwen-72B-Chat", "--dtype", "auto", "--max-model-len", "8192",
              "--tensor-parallel-size", "2", "--max-num-batched-tokens", "8192", "--max-paddings", "8192", "--enforce-eager", "--trust-remote-code"],
     "args": {"model": "/data/models/Qwen-72B-Chat", "dtype": "auto", "max-model-len": 8192, "tensor-parallel-size": 2, "max-num-batched-tokens": 8192,
              "max-paddings": 8192, "enforce-eager": True, "trust-remote-code": True},
     "model_config": QWEN72, "gpu_name": "NVIDIA A100-SXM4-80GB", "gpu_total": 85899345920, "gpu_used": int(72.6 * GiB), "ngpu": 2, "pid": 40211,
     "startup_logs": [
         "INFO 12-29 05:58:02 api_server.py:727] args: Namespace(host=None, port=8000, model='/data/models/Qwen-72B-Chat', tokenizer=None, dtype='auto', max_model_len=8192, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, block_size=16, seed=0, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=8192, max_num_seqs=256, max_paddings=8192, disable_log_stats=False, quantization=None, enforce_eager=True, trust_remote_code=True)",
         "INFO 12-29 05:58:05 llm_engine.py:73] Initializing an LLM engine with config: model='/data/models/Qwen-72B-Chat', tokenizer='/data/models/Qwen-72B-Chat', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=auto, tensor_parallel_size=2, quantization=None, enforce_eager=True, seed=0)",
         "INFO 12-29 05:59:41 llm_engine.py:222] # GPU blocks: 154, # CPU blocks: 204",
         "INFO 12-29 05:59:44 api_server.py:113] Using default chat template"]}

# B: vllm #2275
B_reqs = [(5, 2400, 380, 1024), (40, 5200, 520, 1024), (70, 3100, 300, 1024), (130, 10854, 0, 1024), (175, 10854, 0, 1024),
          (230, 7900, 610, 1024), (250, 4400, 350, 1024), (330, 10854, 0, 1024), (380, 6300, 480, 1024), (450, 2900, 260, 1024),
          (500, 9100, 700, 1024), (560, 3600, 330, 1024)]
B = {"id": "zzj-qwen72b-awq-a800-10854-prompt", "v026": True, "version": "0.2.6", "served": "/models/Qwen-72B-Chat-AWQ", "mml": 16384,
     "start": ts("2023-12-27 01:30:00"), "n": 60, "interval": 10.0,
     "state": fifo_sim(B_reqs, 652, 24, 256, WARN026, 600), "statfmt": STAT026,
     "notes": "Document QA on AWQ Qwen-72B-Chat, one A800 80GB, --max-model-len 16384; ~10k-token prompts return an empty string.",
     "argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/Qwen-72B-Chat-AWQ", "--quantization", "awq",
              "--max-model-len", "16384", "--trust-remote-code"],
     "args": {"model": "/models/Qwen-72B-Chat-AWQ", "quantization": "awq", "max-model-len": 16384, "trust-remote-code": True},
     "model_config": {**QWEN72, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}, "torch_dtype": "float16"},
     "gpu_name": "NVIDIA A800-SXM4-80GB", "gpu_total": 85899345920, "gpu_used": int(72.1 * GiB), "ngpu": 1, "pid": 18876,
     "startup_logs": [
         "INFO 12-27 01:27:10 llm_engine.py:73] Initializing an LLM engine with config: model='/models/Qwen-72B-Chat-AWQ', tokenizer='/models/Qwen-72B-Chat-AWQ', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.float16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, quantization=awq, enforce_eager=False, seed=0)",
         "WARNING 12-27 01:27:10 config.py:175] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
         "INFO 12-27 01:28:52 llm_engine.py:222] # GPU blocks: 652, # CPU blocks: 204",
         "INFO 12-27 01:28:55 model_runner.py:403] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
         "INFO 12-27 01:29:07 model_runner.py:437] Graph capturing finished in 12 secs."]}


# C: vllm #546 (0.6.3, swap preemption then no progress)
def c_state(sec):
    s = {"swp": 0, "ptps": 0.0, "ptps5": 0.0, "done": [], "log": [], "wait": 98}
    if sec < 201:
        s.update(run=2, gpu=0.70 + 0.16 * sec / 200, cpu=0.0, gtps=7190.0 + (sec % 7) * 9, gtps5=7190.0 + (sec % 3) * 15)
    else:
        s.update(run=1, swp=1, gpu=0.437, cpu=0.642, gtps=0.0, gtps5=7180.0 * max(0, 205 - sec) / 5 if sec < 205 else 0.0)
        if sec == 201:
            s["pre"] = 1
            s["log"] = ["WARNING {ts} scheduler.py:1483] Sequence group chat-7e630abf1a8b4c8a88775b1e98a54cf2 is preempted by PreemptionMode.SWAP mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=1"]
    return s


QWEN7 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
         "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 32768, "vocab_size": 152064, "rope_theta": 1000000.0,
         "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 28, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
STAT06 = "INFO {ts} metrics.py:349] Avg prompt throughput: {ptps5:.1f} tokens/s, Avg generation throughput: {gtps5:.1f} tokens/s, Running: {run} reqs, Swapped: {swp} reqs, Pending: {wait} reqs, GPU KV cache usage: {gpu:.1%}, CPU KV cache usage: {cpu:.1%}."
C = {"id": "zzj-v063-swap-preempt-engine-halts", "v026": False, "version": "0.6.3", "served": "Qwen/Qwen2.5-7B-Instruct", "mml": 8192,
     "start": ts("2024-10-28 11:13:20"), "n": 60, "interval": 10.0, "state": c_state, "statfmt": STAT06,
     "cc": {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.5",
            "is_attention_free": "False", "num_cpu_blocks": "18724", "num_gpu_blocks": "28000", "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "16"},
     "notes": "100 chat requests with n=64 samples each; the server stopped producing tokens a few minutes in and had to be restarted.",
     "argv": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--gpu-memory-utilization", "0.5", "--swap-space", "16", "--use-v2-block-manager"],
     "args": {"model": "Qwen/Qwen2.5-7B-Instruct", "max-model-len": 8192, "gpu-memory-utilization": 0.5, "swap-space": 16, "use-v2-block-manager": True},
     "model_config": QWEN7, "gpu_name": "NVIDIA A100-SXM4-80GB", "gpu_total": 85899345920, "gpu_used": int(40.3 * GiB), "ngpu": 1, "pid": 2231,
     "startup_logs": [
         "INFO 10-28 11:02:11 api_server.py:528] vLLM API server version 0.6.3",
         "INFO 10-28 11:02:19 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='Qwen/Qwen2.5-7B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=Qwen/Qwen2.5-7B-Instruct, use_v2_block_manager=True, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)",
         "INFO 10-28 11:02:41 model_runner.py:1067] Loading model weights took 14.2487 GB",
         "INFO 10-28 11:02:44 gpu_executor.py:122] # GPU blocks: 28000, # CPU blocks: 18724",
         "INFO 10-28 11:02:44 gpu_executor.py:126] Maximum concurrency for 8192 tokens per request: 54.69x",
         "INFO 10-28 11:03:02 model_runner.py:1523] Graph capturing finished in 18 secs."]}

# D: vllm #11517 (V0 0.6.5, TP 8, --enable-lora; one running, three pending at 3 % KV)
D_reqs = [(0, 23600, 1500, 4096), (0, 22100, 1400, 4096), (1, 24300, 1650, 4096), (2, 21800, 1300, 4096)]
t = 0
for k in range(40):
    D_reqs.append((33 * (k + 1) + (k % 3), 21000 + (k * 977) % 3800, 1250 + (k * 131) % 500, 4096))
D = {"id": "zzj-tp8-lora-pending-kv3pct", "v026": False, "version": "0.6.5", "served": "/Qwen/Qwen2.5-32B-Instruct", "mml": 32768,
     "start": ts("2024-12-23 10:20:00"), "n": 60, "interval": 10.0,
     "state": fifo_sim(D_reqs, 50231, 45.7, 1, "", 600), "statfmt": "2024-{ts} - vllm.engine.metrics - INFO - Avg prompt throughput: {ptps5:.1f} tokens/s, Avg generation throughput: {gtps5:.1f} tokens/s, Running: {run} reqs, Swapped: {swp} reqs, Pending: {wait} reqs, GPU KV cache usage: {gpu:.1%}, CPU KV cache usage: {cpu:.1%}.",
     "cc": {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.8",
            "is_attention_free": "False", "num_cpu_blocks": "8192", "num_gpu_blocks": "50231", "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"},
     "notes": "Tool-calling agent with 4 concurrent requests; only one runs at a time, the rest stay pending for minutes.",
     "argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "7071", "--model", "/Qwen/Qwen2.5-32B-Instruct", "--trust-remote-code",
              "--tensor-parallel-size", "8", "--gpu-memory-utilization", "0.8", "--enable-auto-tool-choice", "--tool-call-parser", "hermes",
              "--max-model-len", "32768", "--enable-lora", "--max-seq-len-to-capture", "32768", "--max-lora-rank", "64"],
     "args": {"port": 7071, "model": "/Qwen/Qwen2.5-32B-Instruct", "trust-remote-code": True, "tensor-parallel-size": 8, "gpu-memory-utilization": 0.8,
              "enable-auto-tool-choice": True, "tool-call-parser": "hermes", "max-model-len": 32768, "enable-lora": True, "max-seq-len-to-capture": 32768, "max-lora-rank": 64},
     "model_config": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648, "num_attention_heads": 40,
                      "num_key_value_heads": 8, "num_hidden_layers": 64, "max_position_embeddings": 32768, "vocab_size": 152064, "rope_theta": 1000000.0,
                      "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 70, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
     "gpu_name": "NVIDIA A100-SXM4-80GB", "gpu_total": 85899345920, "gpu_used": int(63.9 * GiB), "ngpu": 8, "pid": 51120,
     "startup_logs": [
         "2024-12-20 15:18:19 - vllm.executor.distributed_gpu_executor - INFO - # GPU blocks: 50231, # CPU blocks: 8192",
         "2024-12-20 15:18:19 - vllm.executor.distributed_gpu_executor - INFO - Maximum concurrency for 32768 tokens per request: 24.53x"]}
D["statfmt"] = D["statfmt"]

CASES = [A, B, C, D]
