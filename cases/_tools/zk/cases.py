"""Build the zk-* bundles: cd <worktree> && /work/main/.venv/bin/python cases/_tools/zk/cases.py [case-id ...]

Each builder is a small simulator of the incident's engine; every gauge, counter, histogram and
log line of a bundle is computed from the same simulated requests, so they agree. Rendering and
metric families: gen.py (adapted from cases/_tools/zf/gen.py).
"""
import calendar, collections, json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import Hacc, render, ts, tmpl_cc, server_json, write, ROOT, V0_T, V1_T

C = ROOT / "cases"
GiB, MiB = 2 ** 30, 2 ** 20


def utc(y, mo, d, h, mi, s=0):
    return float(calendar.timegm((y, mo, d, h, mi, s)))


# --------------------------------------------------------------------------------------------
# zk-r1distill-32k-rollout-preempt: V0 engine (0.6.3.post1) of a verl GRPO rollout, TP=2 A100-80GB,
# 64 sampled reasoning traces per generate call (BS=8 x n=8), max_tokens 32768, recompute preemption.
# --------------------------------------------------------------------------------------------
def r1distill():
    cid = "zk-r1distill-32k-rollout-preempt"
    rnd = random.Random(93)
    model = "/workspace/models/DeepSeek-R1-Distill-Qwen-32B"
    BS, BLOCKS, WM = 16, 11200, 112           # 11,200 blocks x 16 = 179,200 tokens; 1% watermark
    MAXTOK, MAXBT = 32768, 34816
    start = utc(2025, 4, 14, 20, 0, 0)
    interval, n_scr = 10.0, 61
    t_end = start + (n_scr - 1) * interval + 1
    t = start - 95.0                           # the current rollout batch began 95 s before the window
    kv_b = 2 * 64 * 8 * 128 * 2 // 2           # bytes per token per GPU at TP=2 (bf16)

    H = {k: Hacc() for k in ("vllm:time_per_output_token_seconds", "vllm:time_to_first_token_seconds",
                            "vllm:request_queue_time_seconds", "vllm:time_in_queue_requests",
                            "vllm:e2e_request_latency_seconds", "vllm:request_inference_time_seconds",
                            "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds",
                            "vllm:request_prompt_tokens", "vllm:request_generation_tokens",
                            "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens",
                            "vllm:request_params_n", "vllm:iteration_tokens_total")}
    cnt = collections.Counter()
    success = collections.Counter()
    logs = []
    W = "(WorkerDict pid=25295, ip=10.0.10.41)"
    next_id = [0]

    def new_batch(t0):
        seqs = []
        logs.append((t0, f"{W} Rank 6, TP rank 0 `generate_sequence`: BS=8"))
        for _ in range(8):
            p = rnd.randint(300, 1800)
            for _ in range(8):
                L = int(min(MAXTOK, max(600, rnd.lognormvariate(math.log(9000), 0.75))))
                seqs.append({"id": next_id[0], "p": p, "L": L, "g": 0, "arr": t0, "first": None, "sched": None})
                next_id[0] += 1
        return seqs

    waiting = collections.deque(new_batch(t))
    running = []
    pending_batch_at = None
    used = lambda: sum(math.ceil((s["p"] + s["g"]) / BS) for s in running)
    snaps, k = [], 0

    def snap(now):
        nonlocal k
        while k < n_scr and start + k * interval <= now:
            ub = used()
            vals = {"vllm:num_requests_running": len(running), "vllm:num_requests_waiting": len(waiting),
                    "vllm:num_requests_swapped": 0, "vllm:gpu_cache_usage_perc": round(ub / BLOCKS, 4),
                    "vllm:cpu_cache_usage_perc": 0.0, "vllm:gpu_prefix_cache_hit_rate": -1.0,
                    "vllm:cpu_prefix_cache_hit_rate": -1.0, "vllm:num_preemptions": cnt["pre"],
                    "vllm:prompt_tokens": cnt["pt"], "vllm:generation_tokens": cnt["gt"], "vllm:tokens": cnt["pt"] + cnt["gt"]}
            snaps.append({"vals": vals, "hists": {n: h.snapshot() for n, h in H.items()}, "success": dict(success)})
            k += 1

    while t < t_end:
        snap(t)
        if not running and not waiting:
            if pending_batch_at is None:
                pending_batch_at = t + 3.0
            if t >= pending_batch_at:
                waiting.extend(new_batch(t)); pending_batch_at = None
            else:
                t = min(pending_batch_at, t + 0.5); continue
        free = BLOCKS - used()
        adm, tok = [], 0
        while waiting and len(running) + len(adm) < 256:
            s = waiting[0]
            need = math.ceil((s["p"] + s["g"] + 1) / BS)
            if free - need < WM or tok + s["p"] + s["g"] > MAXBT:
                break
            waiting.popleft(); adm.append(s); free -= need; tok += s["p"] + s["g"]
        if adm:                                        # a prefill step (no chunked prefill)
            dt = 0.02 + tok / 4900.0
            t += dt
            H["vllm:iteration_tokens_total"].add(tok)
            for s in adm:
                cnt["pt"] += s["p"] + s["g"]; cnt["gt"] += 1
                if s["first"] is None:
                    s["first"] = t; s["sched"] = t - dt
                    H["vllm:time_to_first_token_seconds"].add(round(t - s["arr"], 3))
                s["g"] += 1
                running.append(s)
            continue
        if not running:
            t += 0.5; continue
        grow = sum(1 for s in running if (s["p"] + s["g"]) % BS == 0)
        free = BLOCKS - used()
        while grow > free and running:                 # preempt from the tail (lowest priority)
            v = running.pop()
            if (v["p"] + v["g"]) % BS == 0:
                grow -= 1
            free = BLOCKS - used()
            if cnt["pre"] % 50 == 0:
                logs.append((t, f"{W} WARNING {ts(t)} scheduler.py:1484] Sequence group {v['id']} is preempted by "
                                 f"PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect "
                                 f"the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to "
                                 f"provide more KV cache memory. total_num_cumulative_preemption={cnt['pre'] + 1}"))
            cnt["pre"] += 1
            waiting.appendleft(v)
        n = len(running)
        kvtok = sum(s["p"] + s["g"] for s in running)
        dt = 0.013 + 0.00022 * n + kvtok * kv_b / 1.4e12
        t += dt
        H["vllm:iteration_tokens_total"].add(n)
        H["vllm:time_per_output_token_seconds"].add(round(dt, 4), n)
        cnt["gt"] += n
        keep = []
        for s in running:
            s["g"] += 1
            if s["g"] >= s["L"]:
                reason = "length" if s["L"] >= MAXTOK else "stop"
                success[reason] += 1
                for name, v in (("vllm:e2e_request_latency_seconds", t - s["arr"]),
                                ("vllm:request_queue_time_seconds", s["sched"] - s["arr"]),
                                ("vllm:time_in_queue_requests", s["sched"] - s["arr"]),
                                ("vllm:request_inference_time_seconds", t - s["sched"]),
                                ("vllm:request_prefill_time_seconds", s["first"] - s["sched"]),
                                ("vllm:request_decode_time_seconds", t - s["first"]),
                                ("vllm:request_prompt_tokens", s["p"]), ("vllm:request_generation_tokens", s["g"]),
                                ("vllm:request_max_num_generation_tokens", s["g"]),
                                ("vllm:request_params_max_tokens", MAXTOK), ("vllm:request_params_n", 1)):
                    H[name].add(round(v, 3) if isinstance(v, float) else v)
            else:
                keep.append(s)
        running = keep
    snap(t_end + interval)
    cc = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.7", "is_attention_free": "False", "num_cpu_blocks": "0",
          "num_gpu_blocks": str(BLOCKS), "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "0"}
    texts = [render(s, v0=True, model_name=model, cc=cc) for s in snaps[:n_scr]]
    boot = start - 3 * 3600
    L0 = [
        (boot, f"{W} INFO {ts(boot)} llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=34816, download_dir=None, load_format=LoadFormat.DUMMY, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={model}, use_v2_block_manager=True, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=False, use_cached_outputs=False, mm_processor_kwargs=None)"),
        (boot + 60, f"{W} INFO {ts(boot + 60)} model_runner.py:1056] Loading model weights took 30.7076 GB"),
        (boot + 75, f"{W} INFO {ts(boot + 75)} distributed_gpu_executor.py:57] # GPU blocks: {BLOCKS}, # CPU blocks: 0"),
        (boot + 75.1, f"{W} INFO {ts(boot + 75)} distributed_gpu_executor.py:61] Maximum concurrency for 34816 tokens per request: {BLOCKS * BS / 34816:.2f}x"),
        (boot + 100, f"{W} kwargs: {{'n': 8, 'logprobs': 1, 'max_tokens': 32768, 'detokenize': False, 'temperature': 0.6, 'top_k': -1, 'top_p': 1, 'ignore_eos': False}}"),
    ]
    logs = L0 + [l for l in logs if l[0] >= start - 120]
    gpu = [{"t": start + i * interval, "devices": [
        {"index": d, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": int(64.6 * GiB),
         "processes": [{"pid": 25295 + d, "name": "ray::WorkerDict", "used_memory": int(64.1 * GiB)}]} for d in (0, 1)]}
        for i in range(n_scr)]
    mc = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648,
          "num_hidden_layers": 64, "num_attention_heads": 40, "num_key_value_heads": 8, "max_position_embeddings": 131072,
          "rope_theta": 1000000.0, "rms_norm_eps": 1e-05, "vocab_size": 152064, "torch_dtype": "bfloat16",
          "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 64, "tie_word_embeddings": False,
          "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "initializer_range": 0.02,
          "attention_dropout": 0.0, "use_cache": True, "transformers_version": "4.43.1"}
    ea = {"argv": None, "args": {"model": model, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.7,
          "max-model-len": 34816, "max-num-batched-tokens": 34816, "max-num-seqs": 256, "enable-chunked-prefill": False,
          "enable-prefix-caching": False, "swap-space": 0, "block-size": 16, "dtype": "bfloat16",
          "n": 8, "max_tokens": 32768, "temperature": 0.6}}
    write(C / cid / "bundle", start=start, interval=interval, texts=texts, server=None, engine_args=ea, model_config=mc,
          gpu=gpu, logs=logs, endpoint="verl-rollout-worker-6 (in-process vLLM engine, stats exported)",
          notes="One TP=2 vLLM rollout engine of a verl GRPO run (rllm/deepscaler recipe) during a generate_sequence batch; "
                "metrics exported from the in-process engine's stat logger, logs are the Ray worker's output.")
    last = snaps[n_scr - 1]["vals"]
    print(cid, "preemptions", last["vllm:num_preemptions"], "gen", last["vllm:generation_tokens"], "success", snaps[n_scr - 1]["success"])


def _v1_hists():
    return {k: Hacc() for k in (
        "vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds", "vllm:request_time_per_output_token_seconds",
        "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_inference_time_seconds",
        "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:request_prompt_tokens",
        "vllm:request_generation_tokens", "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens",
        "vllm:request_params_n", "vllm:request_prefill_kv_computed_tokens", "vllm:iteration_tokens_total")}


def _finish(H, r, max_tokens):
    for name, v in (("vllm:e2e_request_latency_seconds", r["end"] - r["arr"]),
                    ("vllm:request_queue_time_seconds", r["sched"] - r["arr"]),
                    ("vllm:request_inference_time_seconds", r["end"] - r["sched"]),
                    ("vllm:request_prefill_time_seconds", r["first"] - r["sched"]),
                    ("vllm:request_decode_time_seconds", r["end"] - r["first"]),
                    ("vllm:request_prompt_tokens", r["p"]), ("vllm:request_generation_tokens", r["g"]),
                    ("vllm:request_max_num_generation_tokens", r["g"]), ("vllm:request_params_max_tokens", max_tokens),
                    ("vllm:request_params_n", 1), ("vllm:request_prefill_kv_computed_tokens", r["p"] - r.get("cached", 0))):
        H[name].add(round(v, 4) if isinstance(v, float) else v)
    if r["g"] > 1:
        H["vllm:request_time_per_output_token_seconds"].add(round((r["end"] - r["first"]) / (r["g"] - 1), 5))


# --------------------------------------------------------------------------------------------
# zk-blocks-override-prompt-never-fits: V1 (0.16.0), opt-125m, num_gpu_blocks_override=50.
# Round 1: 10 x "Hello, my name is" (6 tokens, 50 out) completes; round 2: 5 x ~1,002-token prompts
# need 63 blocks of a 49-block pool and wait forever at the head of the queue.
# --------------------------------------------------------------------------------------------
def blocks_override():
    cid = "zk-blocks-override-prompt-never-fits"
    model = "facebook/opt-125m"
    start = utc(2026, 2, 27, 14, 20, 0)
    interval, n_scr = 10.0, 31
    H = _v1_hists()
    reqs = []
    t1 = start + 12.4
    step = 0.0062
    for i in range(10):                       # scheduled together in one step, decode 49 more steps
        r = {"arr": t1 + 0.001 * i, "p": 6, "g": 50}
        r["sched"] = t1 + 0.011
        r["first"] = r["sched"] + 0.009
        r["end"] = r["first"] + 49 * step
        reqs.append(r)
    t2 = start + 19.7
    stuck = [{"arr": t2 + 0.002 * i, "p": 1002} for i in range(5)]
    texts, done_at = [], set()
    for k in range(n_scr):
        t = start + k * interval
        for i, r in enumerate(reqs):
            if r["end"] <= t and i not in done_at:
                done_at.add(i)
                H["vllm:time_to_first_token_seconds"].add(round(r["first"] - r["arr"], 4))
                for _ in range(49):
                    H["vllm:inter_token_latency_seconds"].add(step)
                _finish(H, r, 50)
        first = [r for r in reqs if r["first"] <= t]
        it = Hacc()
        if first:
            it.add(60, 1); it.add(10, 49)
        hs = {n: h.snapshot() for n, h in H.items()}
        hs["vllm:iteration_tokens_total"] = it.snapshot()
        hs["vllm:inter_token_latency_seconds"] = H["vllm:inter_token_latency_seconds"].snapshot()
        pt = sum(r["p"] for r in first)
        gt = sum(r["g"] for r in reqs if r["end"] <= t)
        vals = {"vllm:num_requests_running": sum(1 for r in reqs if r["sched"] <= t < r["end"]),
                "vllm:num_requests_waiting": sum(1 for r in stuck if r["arr"] <= t),
                "vllm:kv_cache_usage_perc": 0.0, "vllm:prefix_cache_queries": pt, "vllm:prefix_cache_hits": 0,
                "vllm:prompt_tokens": pt, "vllm:generation_tokens": gt, "vllm:num_preemptions": 0}
        texts.append(render({"vals": vals, "hists": hs, "success": {"length": len([r for r in reqs if r["end"] <= t])},
                             "by_source": {"local_compute": pt}}, v0=False, model_name=model,
                            cc=tmpl_cc(V1_T, block_size=16, num_gpu_blocks=50, num_gpu_blocks_override=50,
                                       gpu_memory_utilization=0.3, enable_prefix_caching=True, mamba_block_size="None",
                                       mamba_cache_mode="none", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto",
                                       _block_size_resolved="True")))
    A, E = "(APIServer pid=41877)", "(EngineCore_DP0 pid=42011)"
    boot = start - 600
    L = [(boot, f"INFO {ts(boot)} [__init__.py:216] Automatically detected platform cuda."),
         (boot + 2, f"{A} INFO {ts(boot + 2)} [api_server.py:1947] vLLM API server version 0.16.0"),
         (boot + 2.1, f"{A} INFO {ts(boot + 2)} [utils.py:299] non-default args: {{'model_tag': 'facebook/opt-125m', 'model': 'facebook/opt-125m', 'enforce_eager': True, 'gpu_memory_utilization': 0.3, 'num_gpu_blocks_override': 50}}"),
         (boot + 6, f"{A} INFO {ts(boot + 6)} [model.py:552] Resolved architecture: OPTForCausalLM"),
         (boot + 6.1, f"{A} INFO {ts(boot + 6)} [model.py:1677] Using max model len 2048"),
         (boot + 6.2, f"{A} INFO {ts(boot + 6)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=2048."),
         (boot + 6.3, f"{A} WARNING {ts(boot + 6)} [vllm.py:771] Enforce eager set, overriding optimization level to -O0"),
         (boot + 12, f"{E} INFO {ts(boot + 12)} [core.py:101] Initializing a V1 LLM engine (v0.16.0) with config: model='facebook/opt-125m', speculative_config=None, tokenizer='facebook/opt-125m', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=facebook/opt-125m, enable_prefix_caching=True, enable_chunked_prefill=True"),
         (boot + 18, f"{E} INFO {ts(boot + 18)} [gpu_model_runner.py:3489] Starting to load model facebook/opt-125m..."),
         (boot + 21, f"{E} INFO {ts(boot + 21)} [gpu_model_runner.py:3582] Model loading took 0.2389 GiB and 2.410000 seconds"),
         (boot + 23, f"{E} INFO {ts(boot + 23)} [gpu_worker.py:379] Available KV cache memory: 5.71 GiB"),
         (boot + 23.1, f"{E} INFO {ts(boot + 23)} [kv_cache_utils.py:1018] Overriding num_gpu_blocks=166285 with num_gpu_blocks_override=50"),
         (boot + 23.2, f"{E} INFO {ts(boot + 23)} [kv_cache_utils.py:1313] GPU KV cache size: 800 tokens, Maximum concurrency for 2,048 tokens per request: 0.39x"),
         (boot + 24, f"{E} INFO {ts(boot + 24)} [core.py:262] init engine (profile, create kv cache, warmup model) took 3.02 seconds"),
         (boot + 25, f"{A} INFO {ts(boot + 25)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 50"),
         (boot + 26, f"{A} INFO {ts(boot + 26)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000"),
         (boot + 26.1, f"{A} INFO:     Application startup complete.")]
    for i, r in enumerate(reqs):
        L.append((r["end"] + 0.001, f'{A} INFO:     10.0.3.7:{51200 + i} - "POST /v1/completions HTTP/1.1" 200 OK'))
    t = start + 10
    while t <= start + (n_scr - 1) * interval:
        a, b = t - 10, t
        pt = sum(r["p"] for r in reqs if a < r["first"] <= b)
        gt = sum(r["g"] for r in reqs if a < r["end"] <= b)
        run = sum(1 for r in reqs if r["sched"] <= b < r["end"])
        wait = sum(1 for r in stuck if r["arr"] <= b)
        if pt or gt or run or wait:
            L.append((b, f"{A} INFO {ts(b)} [loggers.py:257] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, "
                         f"Avg generation throughput: {gt / 10:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, "
                         f"GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%"))
        t += 10
    gpu = [{"t": start + i * interval, "devices": [{"index": 0, "name": "NVIDIA A10G", "memory_total": 24146608128,
            "memory_used": int(1.46 * GiB), "processes": [{"pid": 42011, "name": "VLLM::EngineCore", "used_memory": int(1.04 * GiB)}]}]}
           for i in range(n_scr)]
    mc = {"_name_or_path": "facebook/opt-125m", "architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 768,
          "num_hidden_layers": 12, "num_attention_heads": 12, "ffn_dim": 3072, "max_position_embeddings": 2048,
          "vocab_size": 50272, "torch_dtype": "float16", "word_embed_proj_dim": 768, "do_layer_norm_before": True,
          "activation_function": "relu", "bos_token_id": 2, "eos_token_id": 2, "pad_token_id": 1, "dropout": 0.1,
          "attention_dropout": 0.0, "init_std": 0.02, "enable_bias": True, "layer_norm_elementwise_affine": True,
          "use_cache": True, "transformers_version": "4.21.0.dev0"}
    ea = {"argv": ["vllm", "serve", "facebook/opt-125m", "--gpu-memory-utilization", "0.3", "--num-gpu-blocks-override", "50",
                   "--enforce-eager"],
          "args": {"model": "facebook/opt-125m", "gpu-memory-utilization": 0.3, "num-gpu-blocks-override": 50, "enforce-eager": True}}
    write(C / cid / "bundle", start=start, interval=interval, texts=texts,
          server=server_json("0.16.0", model, model, 2048, int(boot + 26)), engine_args=ea, model_config=mc, gpu=gpu, logs=L,
          endpoint="http://localhost:8000", notes="Captured after a client's second batch of five long completions stopped returning.")
    print(cid, "ok")


# --------------------------------------------------------------------------------------------
# zk-dflash-long-context-accept-collapse: V1 nightly (0.19.1rc1), Qwen3.5-27B-FP8 + DFlash draft,
# 15 speculative tokens, one user with growing prompts; acceptance and step time worsen with context.
# --------------------------------------------------------------------------------------------
def dflash():
    cid = "zk-dflash-long-context-accept-collapse"
    model = "Qwen/Qwen3.5-27B-FP8"
    K = 15
    start = utc(2026, 4, 16, 3, 0, 0)
    interval, n_scr = 10.0, 61
    BLOCK, NBLK = 784, 2940
    # (prompt tokens, mean acceptance length, step seconds)
    prof = {512: (4.0, 0.0200), 4096: (3.6, 0.0220), 16384: (2.5, 0.0281), 32768: (1.8, 0.0360), 65536: (1.3, 0.0542)}
    order = [512, 4096, 16384, 32768, 65536, 512, 16384, 65536, 512, 32768, 65536, 4096, 65536, 512, 65536]
    rnd = random.Random(66)
    reqs, t = [], start + 6.0
    for p in order:
        p2 = p - rnd.randint(0, 120)
        al, st = prof[p]
        out = 1024
        steps = math.ceil((out - 1) / al)
        r = {"arr": t, "p": p2, "g": out, "al": al, "step": st, "steps": steps}
        r["sched"] = t + 0.004
        r["first"] = r["sched"] + 0.05 + p2 / 9800.0 + (p2 / 1000.0) ** 2 * 0.0009
        r["end"] = r["first"] + steps * st
        reqs.append(r)
        t = r["end"] + rnd.uniform(8, 16)
    tend = start + (n_scr - 1) * interval

    def q_for(al):
        lo, hi = 0.0, 0.999
        for _ in range(60):
            m = (lo + hi) / 2
            if sum(m ** (i + 1) for i in range(K)) < al - 1:
                lo = m
            else:
                hi = m
        return lo

    for r in reqs:
        r["q"] = q_for(r["al"])

    def steps_by(r, tt):
        if tt < r["first"]:
            return 0
        return min(r["steps"], int((tt - r["first"]) / r["step"]))

    def gen_by(r, tt):
        if tt < r["first"]:
            return 0
        if tt >= r["end"]:
            return r["g"]
        return min(r["g"], 1 + int(steps_by(r, tt) * r["al"]))

    texts = []
    for k in range(n_scr):
        tt = start + k * interval
        H = _v1_hists()
        first = [r for r in reqs if r["first"] <= tt]
        for r in first:
            H["vllm:time_to_first_token_seconds"].add(round(r["first"] - r["arr"], 4))
            H["vllm:iteration_tokens_total"].add(min(8192, r["p"]), r["p"] // 8192)
            if r["p"] % 8192:
                H["vllm:iteration_tokens_total"].add(r["p"] % 8192)
            s = steps_by(r, tt)
            H["vllm:inter_token_latency_seconds"].add(round(r["step"], 4), s)
            H["vllm:iteration_tokens_total"].add(1 + K, s)
            if r["end"] <= tt:
                _finish(H, r, 1024)
        running = [r for r in reqs if r["sched"] <= tt < r["end"]]
        blocks = sum(4 * math.ceil((r["p"] + gen_by(r, tt)) / BLOCK) for r in running)
        pt = sum(r["p"] for r in first)
        drafts = sum(steps_by(r, tt) for r in reqs)
        per_pos = [round(sum(steps_by(r, tt) * r["q"] ** (i + 1) for r in reqs)) for i in range(K)]
        spec = {"vllm:spec_decode_num_drafts": drafts, "vllm:spec_decode_num_draft_tokens": drafts * K,
                "vllm:spec_decode_num_accepted_tokens": sum(per_pos), "per_pos": per_pos}
        vals = {"vllm:num_requests_running": len(running), "vllm:num_requests_waiting": 0,
                "vllm:kv_cache_usage_perc": round(blocks / NBLK, 5), "vllm:prefix_cache_queries": pt, "vllm:prefix_cache_hits": 0,
                "vllm:prompt_tokens": pt, "vllm:generation_tokens": sum(gen_by(r, tt) for r in reqs), "vllm:num_preemptions": 0}
        texts.append(render({"vals": vals, "hists": {n: h.snapshot() for n, h in H.items()},
                             "success": {"length": sum(1 for r in reqs if r["end"] <= tt)}, "by_source": {"local_compute": pt}},
                            v0=False, model_name=model, spec=spec,
                            cc=tmpl_cc(V1_T, block_size=BLOCK, mamba_block_size=BLOCK, num_gpu_blocks=NBLK,
                                       mamba_page_size_padded=3211264)))
    A, E = "(APIServer pid=1)", "(EngineCore_DP0 pid=214)"
    boot = start - 900
    L = [(boot, f"{A} INFO {ts(boot)} [api_server.py:2061] vLLM API server version 0.19.1rc1.dev412+g7c2e91f04"),
         (boot + 0.1, f"{A} INFO {ts(boot)} [utils.py:302] non-default args: {{'model_tag': 'Qwen/Qwen3.5-27B-FP8', 'model': 'Qwen/Qwen3.5-27B-FP8', 'max_model_len': 131072, 'max_num_seqs': 4, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'reasoning_parser': 'qwen3', 'speculative_config': {{'method': 'dflash', 'model': 'z-lab/Qwen3.5-27B-DFlash', 'num_speculative_tokens': 15}}}}"),
         (boot + 8, f"{A} INFO {ts(boot + 8)} [model.py:554] Resolved architecture: Qwen3_5ForConditionalGeneration"),
         (boot + 8.1, f"{A} INFO {ts(boot + 8)} [scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
         (boot + 8.2, f"{A} INFO {ts(boot + 8)} [interface.py:773] Setting attention block size to 784 tokens to ensure that attention page size is >= mamba page size."),
         (boot + 20, f"{E} INFO {ts(boot + 20)} [core.py:101] Initializing a V1 LLM engine (v0.19.1rc1.dev412+g7c2e91f04) with config: model='Qwen/Qwen3.5-27B-FP8', speculative_config=SpeculativeConfig(method='dflash', model='z-lab/Qwen3.5-27B-DFlash', num_spec_tokens=15), tokenizer='Qwen/Qwen3.5-27B-FP8', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, quantization=fp8, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True"),
         (boot + 95, f"{E} INFO {ts(boot + 95)} [gpu_model_runner.py:3582] Model loading took 30.9412 GiB and 71.220000 seconds"),
         (boot + 130, f"{E} INFO {ts(boot + 130)} [gpu_worker.py:402] Available KV cache memory: 35.98 GiB"),
         (boot + 130.1, f"{E} INFO {ts(boot + 130)} [kv_cache_utils.py:1388] GPU KV cache size: {NBLK * BLOCK // 4:,} tokens"),
         (boot + 130.2, f"{E} INFO {ts(boot + 130)} [kv_cache_utils.py:1393] Maximum concurrency for 131,072 tokens per request: {NBLK * BLOCK / 4 / 131072:.2f}x"),
         (boot + 170, f"{A} INFO {ts(boot + 170)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NBLK}"),
         (boot + 171, f"{A} INFO {ts(boot + 171)} [api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    for i, r in enumerate(reqs):
        if r["end"] <= tend + 30:
            L.append((r["end"] + 0.01, f'{A} INFO:     172.17.0.1:{40100 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    tt = start + 10
    while tt <= tend:
        a, b = tt - 10, tt
        pt = sum(r["p"] for r in reqs if a < r["first"] <= b)
        gt = sum(gen_by(r, b) - gen_by(r, a) for r in reqs)
        run = [r for r in reqs if r["sched"] <= b < r["end"]]
        blocks = sum(4 * math.ceil((r["p"] + gen_by(r, b)) / BLOCK) for r in run)
        if pt or gt or run:
            L.append((b, f"{A} INFO {ts(b)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, "
                         f"Avg generation throughput: {gt / 10:.1f} tokens/s, Running: {len(run)} reqs, Waiting: 0 reqs, "
                         f"GPU KV cache usage: {100 * blocks / NBLK:.1f}%, Prefix cache hit rate: 0.0%"))
            d = sum(steps_by(r, b) - steps_by(r, a) for r in reqs)
            if d:
                acc = [round(sum((steps_by(r, b) - steps_by(r, a)) * r["q"] ** (i + 1) for r in reqs)) for i in range(K)]
                na = sum(acc)
                L.append((b + 0.001, f"{A} INFO {ts(b)} [metrics.py:101] SpecDecoding metrics: Mean acceptance length: {1 + na / d:.2f}, "
                                     f"Accepted throughput: {na / 10:.2f} tokens/s, Drafted throughput: {d * K / 10:.2f} tokens/s, "
                                     f"Accepted: {na} tokens, Drafted: {d * K} tokens, Per-position acceptance rate: "
                                     f"{', '.join(f'{x / d:.3f}' for x in acc)}, Avg Draft acceptance rate: {100.0 * na / (d * K):.1f}%"))
        tt += 10
    gpu = [{"t": start + i * interval, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
            "memory_used": int(74.1 * GiB), "processes": [{"pid": 214, "name": "VLLM::EngineCore", "used_memory": int(73.6 * GiB)}]}]}
           for i in range(n_scr)]
    mc = json.loads((C / "h-qwen36-27b-block784-370tok-batch" / "bundle" / "model_config.json").read_text())
    mc["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}
    ea = {"argv": ["vllm", "serve", "Qwen/Qwen3.5-27B-FP8", "--max-model-len", "131072", "--max-num-seqs", "4",
                   "--gpu-memory-utilization", "0.9", "--enable-prefix-caching", "--reasoning-parser", "qwen3",
                   "--speculative-config", '{"method": "dflash", "model": "z-lab/Qwen3.5-27B-DFlash", "num_speculative_tokens": 15}'],
          "args": {"model": "Qwen/Qwen3.5-27B-FP8", "max-model-len": 131072, "max-num-seqs": 4, "gpu-memory-utilization": 0.9,
                   "enable-prefix-caching": True, "reasoning-parser": "qwen3",
                   "speculative-config": {"method": "dflash", "model": "z-lab/Qwen3.5-27B-DFlash", "num_speculative_tokens": 15}}}
    write(C / cid / "bundle", start=start, interval=interval, texts=texts,
          server=server_json("0.19.1rc1.dev412+g7c2e91f04", model, model, 131072, int(boot + 171)), engine_args=ea,
          model_config=mc, gpu=gpu, logs=L, endpoint="http://localhost:8000",
          notes="Single-user long-context test: requests of 0.5k to 64k prompt tokens, 1,024 output tokens each.")
    for r in reqs:
        print(cid, r["p"], "tok/s %.1f" % ((r["g"] - 1) / (r["end"] - r["first"])), "end", round(r["end"] - start))


BUILDERS = {"zk-r1distill-32k-rollout-preempt": r1distill, "zk-blocks-override-prompt-never-fits": blocks_override,
            "zk-dflash-long-context-accept-collapse": dflash}

if __name__ == "__main__":
    for name in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[name]()
