"""Build the zn-* case bundles: python cases/_tools/zn/cases.py [case-id ...]  (from the worktree root).

Each case is one simulated request list (gen.simulate); metrics, stats log lines and the access
log are all computed from it (gen.scrape / gen.stats_lines / local V0 log helpers). Seeded, no
wall-clock input: re-running rewrites the same bundles.
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1 << 30
MiB = 1 << 20
ts = gen.ts


def out_dir(cid: str) -> Path:
    return ROOT / "cases" / cid / "bundle"


def gpu_recs(c: Case, devs: list, off: float = 0.4) -> list:
    return [{"t": round(c.start + k * c.interval + off, 3), "devices": devs} for k in range(c.n_scrapes)]


def v0_stats_lines(c: Case, t0: float, t1: float, ref: str, prefix_ref: str | None, every: float = 5.0, hit_fn=None) -> list:
    """V0 engine stats log (metrics.py): one line per interval in which the engine stepped."""
    L = []
    t = t0 + every
    pre = lambda x: [r for r in c.reqs if r.t_first <= x]
    while t <= t1:
        a, b = t - every, t
        active = any(r.t_sched < b and r.t_end > a for r in c.reqs)
        if active:
            pt = sum(r.prompt - r.cached for r in pre(b)) - sum(r.prompt - r.cached for r in pre(a))
            gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
            run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
            wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
            blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
            usage = 100.0 * blocks * c.block_size / c.pool_tokens
            L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {usage:.1f}%, CPU KV cache usage: 0.0%."))
            if prefix_ref:
                hr = hit_fn(c, b)["vllm:gpu_prefix_cache_hit_rate"]
                L.append((b + 0.001, f"INFO {ts(b)} {prefix_ref}] Prefix cache hit rate: GPU: {100.0 * hr:.2f}%, CPU: 0.00%"))
        t += every
    return L


def v0_access(c: Case, host: str, path: str = "/v1/chat/completions") -> list:
    return [(r.t_end + 0.003, f'INFO:     {host}:{40000 + (r.rid * 37) % 20000} - "POST {path} HTTP/1.1" 200 OK') for r in c.reqs]


def cumulative_v0(c: Case):
    """V0 gpu_prefix_cache_hit_rate: block-level hits / lookups since start (cumulative, as the V0 allocator keeps it)."""
    def fn(cc: Case, t: float) -> dict:
        pre = [r for r in cc.reqs if r.t_first <= t]
        q = sum(math.ceil(r.prompt / cc.block_size) for r in pre) + c.v0_prior_q
        h = sum(r.cached // cc.block_size for r in pre) + c.v0_prior_h
        return {"vllm:gpu_prefix_cache_hit_rate": (h / q) if q else 0.0, "vllm:cpu_prefix_cache_hit_rate": 0.0}
    return fn


# ------------------------------------------------------------------------------------------------
# zn-l4-agentic-95pct-reuse-6pct-gain (dev-10)
# ------------------------------------------------------------------------------------------------
def case_agentic():
    cid = "zn-l4-agentic-95pct-reuse-6pct-gain"
    rnd = random.Random(1010)
    start = 1787220000.0  # 2026-08-20 10:00 UTC
    tm = "zf-mm-cache-evict-input-thread-hang"  # vLLM 0.23.x bundle: families, HELP, buckets
    bpt = 24 * 2 * 64 * 2 * 2  # Qwen2.5-0.5B bf16: 12,288 bytes per token
    blocks = 89375
    pool = blocks * 16  # 1,430,000 tokens
    cc = gen.tmpl_cc(tm, block_size=16, num_gpu_blocks=blocks, gpu_memory_utilization=0.8, enable_prefix_caching=True,
                     mamba_block_size="None", mamba_cache_mode="none", mamba_page_size_padded="None",
                     mamba_ssm_cache_dtype="auto", user_specified_block_size=True, sliding_window="None")
    c = Case(cid=cid, version="0.23.0", v0=False, model_name="Qwen/Qwen2.5-0.5B-Instruct", model_root="Qwen/Qwen2.5-0.5B-Instruct",
             max_model_len=1024, start=start, n_scrapes=31, interval=10.0, labels_cc=cc, pool_tokens=pool,
             block_size=16, max_num_seqs=256, tmpl=tm, mm_hits=False)
    reqs, t, i = [], start - 60.0, 0
    seen_tasks = []
    while t < start + 300:
        p = rnd.randint(75, 90)
        g = rnd.randint(8, 16)
        if not seen_tasks or rnd.random() < 0.30:
            task = len(seen_tasks); seen_tasks.append(task); new_task = True
        else:
            task = rnd.choice(seen_tasks[-40:]); new_task = False
        cap = ((p - 1) // 16) * 16  # the last token (block) of the prompt is always computed
        cached = min(cap, 64 if (new_task or p < 80) else 80)
        if i == 0:
            cached = 0
        r = Req(i, t, p, cached, g, 16, reason="length" if g == 16 else "stop")
        r.full = (p // 16) * 16
        reqs.append(r); i += 1
        t += rnd.expovariate(73.0)
    gen.simulate(c, reqs, step_fn=lambda n: 0.033 + 0.0005 * n,
                 prefill_fn=lambda r, n: 0.045 + 0.0018 * n + 0.00012 * (r.prompt - r.cached))

    def lora_lines(cc_, tt, base):
        return ["# HELP vllm:lora_requests_info Running stats on lora requests.",
                "# TYPE vllm:lora_requests_info gauge",
                f'vllm:lora_requests_info{{max_lora="1",running_lora_adapters="",waiting_lora_adapters=""}} {tt - 1.7:.6e}']
    c.extra_lines = lora_lines

    used = int(18.41 * GiB)
    devs = [{"index": 0, "name": "NVIDIA L4", "memory_total": 23034 * MiB, "memory_used": used,
             "processes": [{"pid": 4187, "name": "ray::ServeReplica:llm:VLLMDeployment", "used_memory": used - 402 * MiB}]}]
    gpu = gpu_recs(c, devs)
    t0 = start - 420
    logs = [
        (t0, f"INFO {ts(t0)} [__init__.py:235] Automatically detected platform cuda."),
        (t0 + 2, f"INFO {ts(t0 + 2)} [utils.py:326] non-default args: {{'model': 'Qwen/Qwen2.5-0.5B-Instruct', 'revision': '7ae557604adf67be50417f59c2c2f167def9a775', 'max_model_len': 1024, 'block_size': 16, 'gpu_memory_utilization': 0.8, 'enforce_eager': True, 'enable_lora': True, 'max_loras': 1, 'max_lora_rank': 8}}"),
        (t0 + 9, f"INFO {ts(t0 + 9)} [model.py:548] Resolved architecture: Qwen2ForCausalLM"),
        (t0 + 9.1, f"INFO {ts(t0 + 9)} [model.py:1653] Using max model len 1024"),
        (t0 + 9.2, f"WARNING {ts(t0 + 9)} [__init__.py:1695] VLLM_USE_FLASHINFER_SAMPLER is set to 0: using the PyTorch-native top-p/top-k sampler."),
        (t0 + 10, f"INFO {ts(t0 + 10)} [core.py:95] Initializing a V1 LLM engine (v0.23.0) with config: model='Qwen/Qwen2.5-0.5B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-0.5B-Instruct', dtype=torch.bfloat16, max_seq_len=1024, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True"),
        (t0 + 31, f"INFO {ts(t0 + 31)} [gpu_model_runner.py:3120] Model loading took 0.9412 GiB and 12.82 seconds"),
        (t0 + 33, f"INFO {ts(t0 + 33)} [punica_selector.py:19] Using PunicaWrapperGPU."),
        (t0 + 52, f"INFO {ts(t0 + 52)} [gpu_worker.py:298] Available KV cache memory: 16.37 GiB"),
        (t0 + 52.1, f"INFO {ts(t0 + 52)} [kv_cache_utils.py:1087] GPU KV cache size: 1,430,000 tokens"),
        (t0 + 52.2, f"INFO {ts(t0 + 52)} [kv_cache_utils.py:1091] Maximum concurrency for 1,024 tokens per request: 1396.48x"),
        (t0 + 53, f"INFO {ts(t0 + 53)} [core.py:218] init engine (profile, create kv cache, warmup model) took 21.37 seconds"),
    ]
    logs += gen.stats_lines(c, start - 60, start + 300, 0, "loggers.py:257", prefix=False, mm_line=False)
    server = gen.server_json("0.23.0", "Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct", 1024, int(t0))
    server["models"]["data"].append({**server["models"]["data"][0], "id": "agentic-r8", "root": "/adapters/phase2-lora-r8",
                                     "parent": "Qwen/Qwen2.5-0.5B-Instruct"})
    engine_args = {"argv": None, "args": {"model": "Qwen/Qwen2.5-0.5B-Instruct", "max-model-len": 1024, "block-size": 16,
                                         "enforce-eager": True, "gpu-memory-utilization": 0.8, "enable-lora": True,
                                         "max-loras": 1, "max-lora-rank": 8, "enable-prefix-caching": True}}
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
          "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14,
          "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
    notes = ("Ray Serve replica (one L4) serving Qwen2.5-0.5B-Instruct + a rank-8 LoRA from one AsyncLLM engine; sustained "
             "agentic load (75-90-token prompts, 8-16 output tokens, ~64 in flight, base model only) with prefix caching on; "
             "/metrics every 10 s for 5 min, NVML, engine log. Question: the hit ratio is ~95% of full-block tokens but "
             "throughput gained only ~6% over cache-off - is the cache working?")
    gen.write(c, out_dir(cid), server=server, engine_args=engine_args, model_config=mc, gpu=gpu, logs=logs, notes=notes,
              endpoint="http://10.8.0.14:8000")
    fullq = sum(r.full for r in reqs if r.t_first <= start + 300)
    hits = sum(r.cached for r in reqs if r.t_first <= start + 300)
    q = sum(r.prompt for r in reqs if r.t_first <= start + 300)
    print(cid, "requests", len(reqs), "full-block reuse %.4f" % (hits / fullq), "counter ratio %.4f" % (hits / q))


# ------------------------------------------------------------------------------------------------
# zn-l4-multiturn-apc-decode-bound (holdout-10)
# ------------------------------------------------------------------------------------------------
def case_multiturn():
    cid = "zn-l4-multiturn-apc-decode-bound"
    rnd = random.Random(4917)
    start = 1716213600.0  # 2024-05-20 14:00 UTC
    tm = "zb-phi3-a40-rate60-quant-no-gain"  # vLLM 0.4.3 bundle (V0 families of the 0.4.x line)
    blocks = 845
    cc = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
          "num_cpu_blocks": "512", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
          "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
    c = Case(cid=cid, version="0.4.2", v0=True, model_name="meta-llama/Llama-2-7b-chat-hf", model_root="meta-llama/Llama-2-7b-chat-hf",
             max_model_len=4096, start=start, n_scrapes=52, interval=10.0, labels_cc=cc, pool_tokens=blocks * 16,
             block_size=16, max_num_seqs=256, tmpl=tm)
    q_prompts = [16, 485, 712, 974, 1348, 1757, 1806]
    q_comps = [453, 211, 245, 357, 392, 30, 37]
    step = 0.0626
    reqs, i = [], 0
    t = start + 4.0
    for run in range(4):
        prev_p = None
        p = 16
        for k in range(7):
            if run == 0:
                g = q_comps[k]
                p = q_prompts[k]
            else:
                g = max(12, int(q_comps[k] * rnd.uniform(0.8, 1.2)))
                if k > 0:
                    p = prev_p + prev_g + rnd.randint(15, 19)
            cached = 0 if prev_p is None else min((prev_p // 16) * 16, ((p - 1) // 16) * 16)
            r = Req(i, t, p, cached, g, 4096 - p)
            i += 1
            ttft = 0.035 + (p - cached) * 0.00018
            r.t_sched, r.step_s = t, step
            r.t_first = t + ttft
            r.t_end = r.t_first + r.steps() * step
            reqs.append(r)
            prev_p, prev_g = p, g
            t = r.t_end + rnd.uniform(0.05, 0.15)
        t += rnd.uniform(4, 7)
    c.reqs = reqs
    end = start + (c.n_scrapes - 1) * c.interval

    def thr(cc_, tt):
        a = tt - 5.0
        pt = sum(r.prompt for r in cc_.reqs if a < r.t_first <= tt)
        gt = sum(r.gen_by(tt) - r.gen_by(a) for r in cc_.reqs)
        return {"vllm:avg_prompt_throughput_toks_per_s": pt / 5.0, "vllm:avg_generation_throughput_toks_per_s": gt / 5.0}
    c.extra_vals = thr
    used = int(20.62 * GiB)
    devs = [{"index": 0, "name": "NVIDIA L4", "memory_total": 23034 * MiB, "memory_used": used,
             "processes": [{"pid": 30512, "name": "python", "used_memory": used - 268 * MiB}]}]
    gpu = gpu_recs(c, devs)
    t0 = start - 300
    logs = [
        (t0, f"INFO {ts(t0)} api_server.py:151] vLLM API server version 0.4.2"),
        (t0 + 0.1, f"INFO {ts(t0)} api_server.py:152] args: Namespace(host=None, port=7001, model='meta-llama/Llama-2-7b-chat-hf', max_model_len=None, block_size=16, enable_prefix_caching=True, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, enforce_eager=True, disable_log_requests=True, enable_chunked_prefill=False)"),
        (t0 + 2, f"INFO {ts(t0 + 2)} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='meta-llama/Llama-2-7b-chat-hf', speculative_config=None, tokenizer='meta-llama/Llama-2-7b-chat-hf', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name=meta-llama/Llama-2-7b-chat-hf)"),
        (t0 + 40, f"INFO {ts(t0 + 40)} model_runner.py:175] Loading model weights took 12.5523 GB"),
        (t0 + 43, f"INFO {ts(t0 + 43)} gpu_executor.py:114] # GPU blocks: 845, # CPU blocks: 512"),
        (t0 + 44, f"INFO {ts(t0 + 44)} serving_chat.py:388] Using default chat template:\n{{% if messages[0]['role'] == 'system' %}}{{% set loop_messages = messages[1:] %}}{{% set system_message = messages[0]['content'] %}}{{% else %}}{{% set loop_messages = messages %}}{{% set system_message = false %}}{{% endif %}}..."),
        (t0 + 45, f"INFO:     Started server process [30512]"),
        (t0 + 45.1, f"INFO:     Uvicorn running on http://0.0.0.0:7001 (Press CTRL+C to quit)"),
    ]
    logs += v0_stats_lines(c, start - 5, end, "metrics.py:341", None)
    logs += v0_access(c, "127.0.0.1")
    server = gen.server_json("0.4.2", "meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-chat-hf", 4096, int(t0))
    del server["models"]["data"][0]["max_model_len"]  # 0.4.x /v1/models has no max_model_len
    engine_args = {"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Llama-2-7b-chat-hf",
                            "--port", "7001", "--gpu-memory-utilization", "0.9", "--disable-log-requests", "--enforce-eager",
                            "--enable-prefix-caching"],
                   "args": {"model": "meta-llama/Llama-2-7b-chat-hf", "port": 7001, "gpu-memory-utilization": 0.9,
                            "disable-log-requests": True, "enforce-eager": True, "enable-prefix-caching": True}}
    mc = {"_name_or_path": "meta-llama/Llama-2-7b-chat-hf", "architectures": ["LlamaForCausalLM"], "bos_token_id": 1,
          "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008,
          "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "tie_word_embeddings": False,
          "torch_dtype": "float16", "transformers_version": "4.32.0.dev0", "use_cache": True, "vocab_size": 32000}
    notes = ("L4, vLLM 0.4.2 OpenAI server with --enable-prefix-caching; a 7-turn chat script (the growing message list re-sent "
             "each turn) run 4 times back to back, one request at a time; /metrics every 10 s, NVML, server log. Complaint: "
             "no performance improvement from prefix caching in multi-turn conversations.")
    gen.write(c, out_dir(cid), server=server, engine_args=engine_args, model_config=mc, gpu=gpu, logs=logs, notes=notes,
              endpoint="http://localhost:7001")
    q = sum(r.prompt for r in reqs); h = sum(r.cached for r in reqs)
    print(cid, "requests", len(reqs), "cached share %.3f" % (h / q), "last end %.0f s" % (reqs[-1].t_end - start), "window", end - start)


# ------------------------------------------------------------------------------------------------
# zn-ascend-qwen35-9b-1024n-last-block (holdout-10)
# ------------------------------------------------------------------------------------------------
def case_ascend():
    cid = "zn-ascend-qwen35-9b-1024n-last-block"
    rnd = random.Random(7965)
    start = 1775098800.0  # 2026-04-02 03:00 UTC
    tm = "b-cache-salt-per-user"  # vLLM 0.18.0 bundle
    bs = 1024
    blocks = 1184
    cc = gen.tmpl_cc(tm, block_size=bs, num_gpu_blocks=blocks, gpu_memory_utilization=0.9, enable_prefix_caching=True,
                     mamba_block_size=bs, mamba_cache_mode="align", mamba_page_size_padded=4194304,
                     mamba_ssm_cache_dtype="float32", user_specified_block_size=False, sliding_window="None")
    c = Case(cid=cid, version="0.18.0", v0=False, model_name="Qwen/Qwen3.5-9B", model_root="Qwen/Qwen3.5-9B",
             max_model_len=32768, start=start, n_scrapes=61, interval=10.0, labels_cc=cc, pool_tokens=blocks * bs,
             block_size=bs, max_num_seqs=256, tmpl=tm, mm_hits=False)
    prompts = [1024] * 186 + [2048] * 14
    rnd.shuffle(prompts)
    reqs, i, t = [], 0, start - 30.0
    rounds = 0
    while t < start + 600:
        for k, p in enumerate(prompts):
            if t >= start + 600:
                break
            cached = 0 if rounds == 0 else ((p - 1) // bs) * bs
            g = rnd.randint(64, 256)
            reqs.append(Req(i, t, p, cached, g, 256, reason="length" if g == 256 else "stop"))
            i += 1
            t += rnd.expovariate(4.0)
        rounds += 1
    # rounds before the window: the capture starts 30 s into round 1 (round 1 = cold)
    gen.simulate(c, reqs, step_fn=lambda n: 0.021 + 0.00045 * n,
                 prefill_fn=lambda r, n: 0.03 + 0.000145 * (r.prompt - r.cached) + 0.004 * n)
    t0 = start - 900
    P = "(APIServer pid=1) "
    E = "(EngineCore_DP0 pid=412) "
    logs = [
        (t0, f"{P}INFO {ts(t0)} [__init__.py:43] Available plugins for group vllm.platform_plugins:"),
        (t0 + 0.1, f"{P}INFO {ts(t0)} [__init__.py:45] - ascend -> vllm_ascend:register"),
        (t0 + 0.2, f"{P}INFO {ts(t0)} [__init__.py:229] Platform plugin ascend is activated"),
        (t0 + 3, f"{P}INFO {ts(t0 + 3)} [api_server.py:1894] vLLM API server version 0.18.0"),
        (t0 + 3.1, f"{P}INFO {ts(t0 + 3)} [utils.py:299] non-default args: {{'model_tag': 'Qwen/Qwen3.5-9B', 'model': 'Qwen/Qwen3.5-9B', 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'enable_chunked_prefill': True, 'max_num_batched_tokens': 8192}}"),
        (t0 + 9, f"{P}INFO {ts(t0 + 9)} [model.py:552] Resolved architecture: Qwen3_5ForConditionalGeneration"),
        (t0 + 9.2, f"{P}INFO {ts(t0 + 9)} [config.py:281] Setting attention block size to 1024 tokens to ensure that attention page size is >= mamba page size."),
        (t0 + 9.3, f"{P}INFO {ts(t0 + 9)} [config.py:305] Padding mamba page size by 0.00% to ensure that mamba page size and attention page size are exactly equal."),
        (t0 + 9.4, f"{P}INFO {ts(t0 + 9)} [vllm.py:750] Asynchronous scheduling is enabled."),
        (t0 + 75, f"{E}INFO {ts(t0 + 75)} [model_runner_v1.py:2961] Loading model weights took 17.6182 GB"),
        (t0 + 140, f"{E}INFO {ts(t0 + 140)} [worker_v1.py:247] Available KV cache memory: 37.00 GiB"),
        (t0 + 140.1, f"{E}INFO {ts(t0 + 140)} [kv_cache_utils.py:1313] GPU KV cache size: 1,212,416 tokens"),
        (t0 + 140.2, f"{E}INFO {ts(t0 + 140)} [kv_cache_utils.py:1318] Maximum concurrency for 32,768 tokens per request: 37.00x"),
        (t0 + 190, f"{E}INFO {ts(t0 + 190)} [core.py:259] init engine (profile, create kv cache, warmup model) took 112.45 seconds"),
        (t0 + 195, f"{P}INFO:     Started server process [1]"),
        (t0 + 195.1, f"{P}INFO:     Application startup complete."),
    ]
    logs += gen.stats_lines(c, start - 30, start + 600, 1, "loggers.py:259", mm_line=False)
    logs += [(r.t_arr + 0.002, f'{P}INFO:     10.30.2.{17 + r.rid % 2}:{41000 + r.rid % 20000} - "POST /v1/completions HTTP/1.1" 200 OK')
             for r in reqs if r.t_arr <= start + 600]
    server = gen.server_json("0.18.0", "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-9B", 32768, int(t0))
    engine_args = {"argv": ["vllm", "serve", "Qwen/Qwen3.5-9B", "--enable-prefix-caching", "--enable-chunked-prefill",
                            "--max-model-len", "32768", "--max-num-batched-tokens", "8192", "--gpu-memory-utilization", "0.9"],
                   "args": {"enable-prefix-caching": True, "enable-chunked-prefill": True, "max-model-len": 32768,
                            "max-num-batched-tokens": 8192, "gpu-memory-utilization": 0.9}}
    layer_types = (["linear_attention"] * 3 + ["full_attention"]) * 8
    mc = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "image_token_id": 248056,
          "video_token_id": 248057, "vision_start_token_id": 248053, "vision_end_token_id": 248054, "tie_word_embeddings": False,
          "transformers_version": "4.57.0.dev0",
          "text_config": {"model_type": "qwen3_5_text", "attention_bias": False, "attn_output_gate": True, "dtype": "bfloat16",
                          "eos_token_id": 248044, "full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu",
                          "hidden_size": 4096, "intermediate_size": 12288, "layer_types": layer_types,
                          "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
                          "linear_num_value_heads": 32, "linear_value_head_dim": 128, "mamba_ssm_dtype": "float32",
                          "max_position_embeddings": 262144, "mtp_num_hidden_layers": 1, "num_attention_heads": 16,
                          "num_hidden_layers": 32, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
                          "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25},
                          "vocab_size": 248320}}
    notes = ("Atlas 800I A2 (Ascend NPU, no NVML), vllm-ascend v0.18.0rc1 container serving Qwen3.5-9B with prefix caching and "
             "chunked prefill; multi-round benchmark re-sending the same 200 prompts (all exactly 1024*n tokens) over /v1/completions; "
             "/metrics every 10 s for 10 min plus the server log. Complaint: prefix-cache hit rate in single digits on a repeated "
             "workload, inference time abnormal.")
    gen.write(c, out_dir(cid), server=server, engine_args=engine_args, model_config=mc, gpu=[], logs=logs, notes=notes,
              endpoint="http://10.30.1.5:8000")
    w = [r for r in reqs if start <= r.t_first <= start + 600]
    print(cid, "requests", len(reqs), "rounds", rounds, "window counter ratio %.4f" % (sum(r.cached for r in w) / sum(r.prompt for r in w)))


# ------------------------------------------------------------------------------------------------
# zn-librechat-gguf70b-turn2-reprefill (holdout-10)
# ------------------------------------------------------------------------------------------------
def case_librechat():
    cid = "zn-librechat-gguf70b-turn2-reprefill"
    rnd = random.Random(11072)
    start = 1733860800.0  # 2024-12-10 20:00 UTC
    tm = "c-long-context-decode-itl-batch90"  # vLLM 0.6.4.post1 bundle (V0)
    blocks = 406
    cc = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "819",
          "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    served = "Llama-3.3-70B-Instruct-Q4_K_M"
    c = Case(cid=cid, version="0.6.4.post1", v0=True, model_name=served, model_root="./Llama-3.3-70B-Instruct-Q4_K_M.gguf",
             max_model_len=4096, start=start, n_scrapes=73, interval=10.0, labels_cc=cc, pool_tokens=blocks * 16,
             block_size=16, max_num_seqs=8, tmpl=tm)
    SYS = 361  # system prompt + template header: 22 full blocks = 352 tokens reusable
    step = 0.065
    pre_fixed, pre_rate = 2.5, 24.0
    reqs, i = [], 0

    def add(t, p, cached, g, kind):
        nonlocal i
        r = Req(i, t, p, cached, g, 4096 - p)
        r.kind = kind
        r.t_sched, r.step_s = t, step
        r.t_first = t + pre_fixed + (p - cached) / pre_rate
        r.t_end = r.t_first + r.steps() * step
        reqs.append(r); i += 1
        return r

    t = start - 20.0
    plan = [2, 2, 3, 2]  # turns per chat
    for turns in plan:
        u1 = rnd.randint(25, 70)
        p = SYS + u1 + 8
        r = add(t, p, 352, rnd.randint(380, 620), "turn1")
        # LibreChat title generation right after the first answer: its own prompt, nothing shared
        tt = add(r.t_end + 0.4, rnd.randint(140, 190), 0, rnd.randint(8, 14), "title")
        prev_p, prev_g = p, r.gen
        t = max(r.t_end, tt.t_end) + rnd.uniform(10, 25)
        for k in range(1, turns):
            p = prev_p + prev_g + 5 + rnd.randint(10, 45) + 8
            r = add(t, p, 0, rnd.randint(150, 420), f"turn{k + 1}")
            prev_p, prev_g = p, r.gen
            t = r.t_end + rnd.uniform(10, 25)
        t += rnd.uniform(3, 10)
    c.reqs = reqs
    end = start + (c.n_scrapes - 1) * c.interval
    # blocks looked up / hit before the capture (earlier new chats since start-up)
    c.v0_prior_q, c.v0_prior_h = 310, 132
    c.extra_vals = cumulative_v0(c)
    used = int(47.31 * GiB)
    devs = [{"index": 0, "name": "NVIDIA RTX A6000", "memory_total": 49140 * MiB, "memory_used": used,
             "processes": [{"pid": 2231, "name": "python3", "used_memory": used - 310 * MiB}]}]
    gpu = gpu_recs(c, devs)
    t0 = start - 3900
    logs = [
        (t0, f"INFO {ts(t0)} api_server.py:585] vLLM API server version 0.6.4.post1"),
        (t0 + 0.1, f"INFO {ts(t0)} api_server.py:586] args: Namespace(subparser='serve', model_tag='./Llama-3.3-70B-Instruct-Q4_K_M.gguf', config='', host=None, port=8000, model='./Llama-3.3-70B-Instruct-Q4_K_M.gguf', tokenizer=None, max_model_len=4096, gpu_memory_utilization=0.9, swap_space=4, max_num_seqs=8, enable_prefix_caching=True, enable_chunked_prefill=None, served_model_name=['{served}'], disable_log_requests=False)"),
        (t0 + 4, f"WARNING {ts(t0 + 4)} config.py:428] gguf quantization is not fully optimized yet. The speed can be slower than non-quantized models."),
        (t0 + 5, f"INFO {ts(t0 + 5)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='./Llama-3.3-70B-Instruct-Q4_K_M.gguf', speculative_config=None, tokenizer='./Llama-3.3-70B-Instruct-Q4_K_M.gguf', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.GGUF, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gguf, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={served}, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=True, use_async_output_proc=True, use_cached_outputs=False, mm_processor_kwargs=None, pooler_config=None)"),
        (t0 + 610, f"INFO {ts(t0 + 610)} model_runner.py:1077] Loading model weights took 39.6140 GB"),
        (t0 + 655, f"INFO {ts(t0 + 655)} worker.py:232] Memory profiling results: total_gpu_memory=47.99GiB initial_memory_usage=40.16GiB peak_torch_memory=41.09GiB memory_usage_post_profile=40.32GiB non_torch_memory=0.68GiB kv_cache_size=1.98GiB gpu_memory_utilization=0.90"),
        (t0 + 655.1, f"INFO {ts(t0 + 655)} gpu_executor.py:113] # GPU blocks: 406, # CPU blocks: 819"),
        (t0 + 655.2, f"INFO {ts(t0 + 655)} gpu_executor.py:117] Maximum concurrency for 4096 tokens per request: 1.59x"),
        (t0 + 660, f"INFO {ts(t0 + 660)} model_runner.py:1400] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
        (t0 + 702, f"INFO {ts(t0 + 702)} model_runner.py:1518] Graph capturing finished in 42 secs, took 0.31 GiB"),
        (t0 + 705, f"INFO:     Started server process [2231]"),
        (t0 + 705.1, f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"),
    ]
    logs += v0_stats_lines(c, start - 20, end, "metrics.py:449", "metrics.py:465", hit_fn=c.extra_vals)
    logs += v0_access(c, "172.18.0.5")
    server = gen.server_json("0.6.4.post1", served, "./Llama-3.3-70B-Instruct-Q4_K_M.gguf", 4096, int(t0))
    engine_args = {"argv": ["vllm", "serve", "./Llama-3.3-70B-Instruct-Q4_K_M.gguf", "--served-model-name", served,
                            "--max-num-seqs", "8", "--max-model-len", "4096", "--enable-prefix-caching"],
                   "args": {"served-model-name": served, "max-num-seqs": 8, "max-model-len": 4096, "enable-prefix-caching": True}}
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
          "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu", "hidden_size": 8192,
          "initializer_range": 0.02, "intermediate_size": 28672, "max_position_embeddings": 131072, "mlp_bias": False,
          "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
          "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
          "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.47.0.dev0",
          "use_cache": True, "vocab_size": 128256, "quantization_config": {"quant_method": "gguf", "file_type": "Q4_K_M"}}
    notes = ("Home server, one RTX A6000, vLLM serving a Llama-3.3-70B Q4_K_M GGUF behind LibreChat (system prompt of a few "
             "hundred tokens); one user for ~12 min: several new chats and follow-up turns; /metrics every 10 s, NVML, and the "
             "server log filtered to start-up, stats and access lines (the per-request 'Received request' lines were not kept). "
             "Complaint: new chats reach first token in ~5 s but every second message in a chat takes 45 s, as if nothing were cached.")
    gen.write(c, out_dir(cid), server=server, engine_args=engine_args, model_config=mc, gpu=gpu, logs=logs, notes=notes,
              endpoint="http://192.168.1.40:8000")
    for r in reqs:
        print("  ", r.kind, r.prompt, r.cached, r.gen, "ttft %.1f" % (r.t_first - r.t_arr), "t %.0f-%.0f" % (r.t_arr - start, r.t_end - start))
    print(cid, "requests", len(reqs), "last end", reqs[-1].t_end - start, "window", end - start)


CASES = {
    "zn-l4-agentic-95pct-reuse-6pct-gain": case_agentic,
    "zn-l4-multiturn-apc-decode-bound": case_multiturn,
    "zn-ascend-qwen35-9b-1024n-last-block": case_ascend,
    "zn-librechat-gguf70b-turn2-reprefill": case_librechat,
}

if __name__ == "__main__":
    for k in (sys.argv[1:] or list(CASES)):
        CASES[k]()
