"""Writer zzz (round 17) bundle builder. Metric families, HELP texts and buckets are taken from
vllm/engine/metrics.py as stored for the 0.4.x line (Metrics class, build_1_2_5_buckets);
V1 start-up lines follow vllm/v1/worker/gpu_model_runner.py / gpu_worker.py log calls."""
import json, math, random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3] / "cases"
GIB = 1024 ** 3


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def hist(L, name, help_, lab, vals, les):
    L += [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
    vals = sorted(vals)
    for le in les:
        n = sum(1 for v in vals if v <= le)
        L.append(f'{name}_bucket{{le="{float(le)}",{lab}}} {float(n)}')
    L.append(f'{name}_bucket{{le="+Inf",{lab}}} {float(len(vals))}')
    L.append(f"{name}_count{{{lab}}} {float(len(vals))}")
    L.append(f"{name}_sum{{{lab}}} {float(round(sum(vals), 6))}")


def w(d, name, obj):
    p = d / name
    if name.endswith(".jsonl"):
        p.write_text("".join(json.dumps(x) + "\n" for x in obj))
    elif isinstance(obj, str):
        p.write_text(obj)
    else:
        p.write_text(json.dumps(obj, indent=1) + "\n")


def opt_healthy():
    cid = "zzz-opt125m-20gb-reserved-healthy"
    d = ROOT / cid / "bundle"; d.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(4723)
    model, mml = "facebook/opt-125m", 2048
    total = 23028 * 1024 * 1024  # A10G
    blocks, cpu_blocks, bs = 35862, 7281, 16  # 19.70 GiB / (16 * 36864 B)
    t0, n, iv = 1715250000.0, 60, 10.0  # 10 min at 10 s
    # requests: ~0.8/s, short prompts, ~100 output tokens, ~7 ms per token
    reqs, t = [], t0 - 30
    while t < t0 + n * iv:
        t += rnd.expovariate(0.8)
        p, g = rnd.randint(12, 120), rnd.randint(40, 160)
        tt = 0.012 + p * 0.00004
        tp = 0.0068 + rnd.random() * 0.0008
        reqs.append(dict(a=t, p=p, g=g, ttft=tt, tpot=tp, end=t + tt + (g - 1) * tp))
    lab = f'model_name="{model}"'
    cc = dict(block_size="16", gpu_memory_utilization="0.9", swap_space_bytes=str(4 * GIB), cache_dtype="auto",
              sliding_window="None", enable_prefix_caching="False", num_gpu_blocks=str(blocks),
              num_cpu_blocks=str(cpu_blocks))
    mets, gpu, logs = [], [], []
    pid, used = 2817, int(20.61 * GIB)
    prev_gen = 0
    for i in range(n):
        ts = t0 + i * iv
        fin = [r for r in reqs if r["end"] <= ts]
        started = [r for r in reqs if r["a"] + r["ttft"] <= ts]
        run = [r for r in reqs if r["a"] <= ts < r["end"]]
        gen = sum(min(r["g"], 1 + int(max(0, ts - r["a"] - r["ttft"]) / r["tpot"])) for r in started)
        tok = sum(r["p"] + min(r["g"], int(max(0, ts - r["a"] - r["ttft"]) / r["tpot"])) for r in run)
        usage = sum(math.ceil((r["p"] + r["g"]) / bs) for r in run) / blocks if run else 0.0
        tpot_obs = []
        for r in started:
            k = min(r["g"] - 1, int((ts - r["a"] - r["ttft"]) / r["tpot"]))
            tpot_obs += [r["tpot"]] * max(0, k)
        L = ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
             "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in cc.items()) + "} 1.0"]
        for nm, hp, v in [("vllm:num_requests_running", "Number of requests currently running on GPU.", len(run)),
                          ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0),
                          ("vllm:num_requests_swapped", "Number of requests swapped to CPU.", 0),
                          ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", usage),
                          ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0.0)]:
            L += [f"# HELP {nm} {hp}", f"# TYPE {nm} gauge", f"{nm}{{{lab}}} {float(v)}"]
        for nm, hp, v in [("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0),
                          ("vllm:prompt_tokens", "Number of prefill tokens processed.", sum(r["p"] for r in started)),
                          ("vllm:generation_tokens", "Number of generation tokens processed.", gen)]:
            L += [f"# HELP {nm}_total {hp}", f"# TYPE {nm}_total counter", f"{nm}_total{{{lab}}} {float(v)}"]
        hist(L, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lab, [r["ttft"] for r in started], TTFT)
        hist(L, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", lab, tpot_obs, TPOT)
        hist(L, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", lab, [r["end"] - r["a"] for r in fin], E2E)
        hist(L, "vllm:request_prompt_tokens", "Number of prefill tokens processed.", lab, [r["p"] for r in fin], b125(mml))
        hist(L, "vllm:request_generation_tokens", "Number of generation tokens processed.", lab, [r["g"] for r in fin], b125(mml))
        hist(L, "vllm:request_params_best_of", "Histogram of the best_of request parameter.", lab, [1] * len(fin), [1, 2, 5, 10, 20])
        hist(L, "vllm:request_params_n", "Histogram of the n request parameter.", lab, [1] * len(fin), [1, 2, 5, 10, 20])
        L += ["# HELP vllm:request_success_total Count of successfully processed requests.", "# TYPE vllm:request_success_total counter"]
        L.append(f'vllm:request_success_total{{finished_reason="length",{lab}}} {float(len(fin))}')
        win = [r for r in started if r["a"] + r["ttft"] > ts - iv]
        pt = sum(r["p"] for r in win) / iv
        gt = (gen - prev_gen) / iv if i else gen / iv
        prev_gen = gen
        for nm, hp, v in [("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", pt),
                          ("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", gt)]:
            L += [f"# HELP {nm} {hp}", f"# TYPE {nm} gauge", f"{nm}{{{lab}}} {round(v, 3)}"]
        mets.append({"t": ts, "status": 200, "text": "\n".join(L) + "\n"})
        gpu.append({"t": ts, "devices": [{"index": 0, "name": "NVIDIA A10G", "memory_total": total, "memory_used": used,
                                          "processes": [{"pid": pid, "name": "python3", "used_memory": used - 262 * 1024 * 1024}]}]})
        stamp = __import__("time").strftime("%m-%d %H:%M:%S", __import__("time").gmtime(ts))
        logs.append(f"INFO {stamp} metrics.py:334] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                    f"Running: {len(run)} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {usage*100:.1f}%, CPU KV cache usage: 0.0%.")
    st = __import__("time").strftime("%m-%d %H:%M:%S", __import__("time").gmtime(t0 - 95))
    head = [f"INFO {st} api_server.py:151] vLLM API server version 0.4.2",
            f"INFO {st} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={model})",
            f"INFO {st} model_runner.py:175] Loading model weights took 0.2389 GB",
            f"INFO {st} gpu_executor.py:114] # GPU blocks: {blocks}, # CPU blocks: {cpu_blocks}",
            f"INFO {st} model_runner.py:937] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
            f"INFO {st} model_runner.py:941] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
            f"INFO {st} model_runner.py:1017] Graph capturing finished in 5 secs.",
            f"INFO {st} serving_chat.py:388] Using default chat template:",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"]
    w(d, "logs.txt", "\n".join(head + logs) + "\n")
    w(d, "metrics.jsonl", mets)
    w(d, "gpu.jsonl", gpu)
    w(d, "manifest.json", {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:8000",
                           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
                           "notes": "Operator asked why a 125M model holds ~20 GB of GPU memory."})
    w(d, "server.json", {"version": {"version": "0.4.2"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "root": model, "max_model_len": mml}]}, "health": 200})
    w(d, "engine_args.json", {"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model], "args": {"model": model}})
    w(d, "model_config.json", {"_name_or_path": "facebook/opt-125m", "architectures": ["OPTForCausalLM"], "model_type": "opt",
                               "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12, "ffn_dim": 3072,
                               "max_position_embeddings": 2048, "vocab_size": 50272, "torch_dtype": "float16",
                               "word_embed_proj_dim": 768, "do_layer_norm_before": True, "activation_function": "relu"})


def qwen3vl_oom():
    import time as _t
    cid = "zzz-qwen3vl-235b-sampler-warmup-oom"
    d = ROOT / cid / "bundle"; d.mkdir(parents=True, exist_ok=True)
    model = "Qwen/Qwen3-VL-235B-A22B-Instruct"
    t0, n, iv = 1758790000.0, 30, 10.0
    total = int(79.19 * GIB)
    def S(ts): return _t.strftime("%m-%d %H:%M:%S", _t.gmtime(ts))
    ts0 = t0 - 40
    L = [f"INFO {S(ts0-600)} [api_server.py:1896] vLLM API server version 0.10.2",
         f"INFO {S(ts0-600)} [utils.py:328] non-default args: {{'model': '{model}', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.7}}",
         f"INFO {S(ts0-590)} [model.py:547] Resolved architecture: Qwen3VLMoeForConditionalGeneration",
         f"INFO {S(ts0-590)} [model.py:1510] Using max model len 262144",
         f"INFO {S(ts0-590)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=8192."]
    for r in range(8):
        L.append(f"(Worker_TP{r} pid={5100+r}) INFO {S(ts0-200)} [gpu_model_runner.py:2392] Model loading took 58.8043 GiB and 391.524117 seconds")
    for r in range(8):
        L.append(f"(Worker_TP{r} pid={5100+r}) INFO {S(ts0-150)} [gpu_model_runner.py:3118] Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.")
    for r in range(8):
        L += [f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671] WorkerProc hit an exception.",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671] Traceback (most recent call last):",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py\", line 263, in determine_available_memory",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]     self.model_runner.profile_run()",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 3212, in profile_run",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]     output = self._dummy_sampler_run(last_hidden_states)",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 3021, in _dummy_sampler_run",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671]     sampler_output = self.sampler(logits=logits,",
              f"(Worker_TP{r} pid={5100+r}) ERROR {S(ts0)} [multiproc_executor.py:671] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.32 GiB. GPU {r} has a total capacity of 79.19 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.97 GiB memory in use. Of the allocated memory 75.86 GiB is allocated by PyTorch, and 1.18 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
    L += [f"(EngineCore_DP0 pid=4988) ERROR {S(ts0+1)} [core.py:718] EngineCore failed to start.",
          f"(EngineCore_DP0 pid=4988) ERROR {S(ts0+1)} [core.py:718] Exception: WorkerProc hit an exception. See stack trace for more details.",
          f"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    w(d, "logs.txt", "\n".join(L) + "\n")
    w(d, "metrics.jsonl", [{"t": t0 + i * iv, "error": "Connection refused (http://localhost:8000/metrics)"} for i in range(n)])
    w(d, "gpu.jsonl", [{"t": t0 + i * iv, "devices": [{"index": k, "name": "NVIDIA H100 80GB HBM3", "memory_total": total,
                        "memory_used": 4 * 1024 * 1024, "processes": []} for k in range(8)]} for i in range(n)])
    w(d, "manifest.json", {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:8000",
                           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
                           "notes": "Recorded after the start-up failure; the server process had exited."})
    w(d, "engine_args.json", {"argv": ["vllm", "serve", model, "--tensor-parallel-size", "8", "--gpu-memory-utilization", "0.70"],
                              "args": {"model": model, "tensor-parallel-size": 8, "gpu-memory-utilization": 0.7}})
    w(d, "model_config.json", {"architectures": ["Qwen3VLMoeForConditionalGeneration"], "model_type": "qwen3_vl_moe",
                               "text_config": {"model_type": "qwen3_vl_moe_text", "hidden_size": 4096, "num_hidden_layers": 94,
                                               "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128,
                                               "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
                                               "max_position_embeddings": 262144, "dtype": "bfloat16"},
                               "vision_config": {"model_type": "qwen3_vl_moe", "depth": 27, "hidden_size": 1152},
                               "torch_dtype": "bfloat16"})


if __name__ == "__main__":
    opt_healthy()
    qwen3vl_oom()
