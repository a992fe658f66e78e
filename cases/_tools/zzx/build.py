"""Writer zzx's bundle builder (kvdoctor.bundle/1): steady-state rate model.

Each engine has a constant number of running requests, a per-token decode time (itl), a prompt
length and output length; cumulative counters and histogram buckets grow linearly with time
(never decrease). Metric names follow vllm/engine/metrics.py (V0, 0.5/0.6) and
vllm/v1/metrics/loggers.py (V1, 0.10); stats log lines follow the formats quoted in the
source threads (V0 metrics.py line, V1 'Engine 000:' loggers.py line).
Run: python cases/_tools/zzx/build.py
"""
import json, math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E_B = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
TOK_B = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]


def lab(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


def hist(out, name, base, n, val, les):
    """n observations all equal to val (counts are integers and grow with n)."""
    for le in les:
        out.append(f"{name}_bucket{lab({**base, 'le': str(float(le))})} {float(n if val <= le else 0)}")
    out.append(f"{name}_bucket{lab({**base, 'le': '+Inf'})} {float(n)}")
    out.append(f"{name}_count{lab(base)} {float(n)}")
    out.append(f"{name}_sum{lab(base)} {round(n * val, 6)}")


def fam(out, name, typ, help_):
    out.append(f"# HELP {name} {help_}")
    out.append(f"# TYPE {name} {typ}")


def state(e, el):
    """cumulative quantities of engine e after el seconds."""
    step = e["itl"]
    gen_rate = e["running"] / step  # tokens/s
    per_req = e["prompt_prefill_s"] + e["out"] * step
    done = int(el * e["running"] / per_req) + e.get("done0", 0)
    started = done + e["running"]
    gen = int(el * gen_rate) + e.get("gen0", 0)
    decode_steps = int(gen - started) if gen > started else 0
    return dict(done=done, started=started, gen=gen, prompt=started * e["prompt"],
                cached=int(started * e["prompt"] * e.get("hit", 0.0)), tpot_n=max(0, decode_steps), gen_rate=gen_rate)


def scrape(case, el):
    out = []
    v0 = case["v0"]
    engines = case["engines"]
    def b(i):
        return {"model_name": case["served"]} if v0 else {"engine": str(i), "model_name": case["served"]}
    S = [state(e, el) for e in engines]
    for name, h in (("vllm:num_requests_running", "Number of requests currently running on GPU."),
                    ("vllm:num_requests_waiting", "Number of requests waiting to be processed.")):
        fam(out, name, "gauge", h)
        for i, e in enumerate(engines):
            out.append(f"{name}{lab(b(i))} {float(e['running'] if 'running' in name else 0)}")
    if v0:
        fam(out, "vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU.")
        out.append(f"vllm:num_requests_swapped{lab(b(0))} 0.0")
    fam(out, "vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.")
    for i, e in enumerate(engines):
        out.append(f"vllm:gpu_cache_usage_perc{lab(b(i))} {round(e['kv'] + e.get('kv_per_s', 0) * el, 5)}")
    if v0:
        fam(out, "vllm:cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage.")
        out.append(f"vllm:cpu_cache_usage_perc{lab(b(0))} 0.0")
    else:
        fam(out, "vllm:gpu_prefix_cache_queries_total", "counter", "GPU prefix cache queries, in terms of number of queried tokens.")
        for i, s in enumerate(S):
            out.append(f"vllm:gpu_prefix_cache_queries_total{lab(b(i))} {float(s['prompt'])}")
        fam(out, "vllm:gpu_prefix_cache_hits_total", "counter", "GPU prefix cache hits, in terms of number of cached tokens.")
        for i, s in enumerate(S):
            out.append(f"vllm:gpu_prefix_cache_hits_total{lab(b(i))} {float(s['cached'])}")
    fam(out, "vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.")
    for i in range(len(engines)):
        out.append(f"vllm:num_preemptions_total{lab(b(i))} 0.0")
    fam(out, "vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.")
    for i, s in enumerate(S):
        out.append(f"vllm:prompt_tokens_total{lab(b(i))} {float(s['prompt'])}")
    fam(out, "vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
    for i, s in enumerate(S):
        out.append(f"vllm:generation_tokens_total{lab(b(i))} {float(s['gen'])}")
    fam(out, "vllm:request_success_total", "counter", "Count of successfully processed requests.")
    for i, s in enumerate(S):
        out.append(f"vllm:request_success_total{lab({**b(i), 'finished_reason': 'stop'})} {float(s['done'])}")
        out.append(f"vllm:request_success_total{lab({**b(i), 'finished_reason': 'length'})} 0.0")
    for name, h, key, les in (
            ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", "ttft", TTFT_B),
            ("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", "itl", TPOT_B),
            ("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", "e2e", E2E_B),
            ("vllm:request_prompt_tokens", "Number of prefill tokens processed.", "prompt", TOK_B),
            ("vllm:request_generation_tokens", "Number of generation tokens processed.", "out", TOK_B)):
        fam(out, name, "histogram", h)
        for i, (e, s) in enumerate(zip(engines, S)):
            n = {"ttft": s["started"], "itl": s["tpot_n"]}.get(key, s["done"])
            val = {"ttft": e["prompt_prefill_s"], "itl": e["itl"], "e2e": e["prompt_prefill_s"] + e["out"] * e["itl"],
                   "prompt": e["prompt"], "out": e["out"]}[key]
            hist(out, name, b(i), n, val, les)
    if not v0:
        fam(out, "vllm:iteration_tokens_total", "histogram", "Histogram of number of tokens per engine_step.")
        for i, (e, s) in enumerate(zip(engines, S)):
            hist(out, "vllm:iteration_tokens_total", b(i), int(el / e["itl"]), e["running"], [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192])
    fam(out, "vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    for i in range(1 if v0 else len(engines)):
        cc = dict(case["cc"]) if v0 else {"engine": str(i), **case["cc"]}
        out.append(f"vllm:cache_config_info{lab(cc)} 1.0")
    return "\n".join(out) + "\n"


def ts(t):
    import datetime as dt
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def build(case):
    out = ROOT / "cases" / case["id"] / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    t0, iv, n = case["start"], case["interval"], case["n"]
    recs = [json.dumps({"t": t0 + k * iv, "status": 200, "text": scrape(case, case.get("el0", 600) + k * iv)}) for k in range(n)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": case["endpoint"],
           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv, "notes": case["notes"]}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    srv = {"version": {"version": case["version"]}, "models": {"object": "list", "data": [{"id": case["served"], "object": "model",
           "owned_by": "vllm", "root": case["root"], "parent": None, "max_model_len": case["mml"]}]}, "health": 200}
    (out / "server.json").write_text(json.dumps(srv, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(case["engine_args"], indent=1) + "\n")
    (out / "model_config.json").write_text(json.dumps(case["model_config"], indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps({"t": t0 + k * iv, "devices": case["gpus"]}) for k in range(n)) + "\n")
    logs = list(case["log_head"])
    t = t0 + 10
    el0 = case.get("el0", 600)
    while t <= t0 + (n - 1) * iv:
        el = el0 + (t - t0)
        for i, e in enumerate(case["engines"]):
            a, z = state(e, el - 10), state(e, el)
            g = (z["gen"] - a["gen"]) / 10
            pt = (z["prompt"] - a["prompt"]) / 10
            kv = (e["kv"] + e.get("kv_per_s", 0) * el) * 100
            if case["v0"]:
                logs.append(f"INFO {ts(t)} metrics.py:{case['logline']}] Avg prompt throughput: {pt:.1f} tokens/s, "
                            f"Avg generation throughput: {g:.1f} tokens/s, Running: {e['running']} reqs, Swapped: 0 reqs, Pending: 0 reqs, "
                            f"GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")
            else:
                logs.append(f"(APIServer pid={case['pid']}) INFO {ts(t)} [loggers.py:{case['logline']}] Engine {i:03d}: Avg prompt throughput: {pt:.1f} tokens/s, "
                            f"Avg generation throughput: {g:.1f} tokens/s, Running: {e['running']} reqs, Waiting: 0 reqs, "
                            f"GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {e.get('hit', 0) * 100:.1f}%")
        t += 10
    (out / "logs.txt").write_text("\n".join(logs) + "\n")


GIB = 1024 ** 3
START = 1752000000.0
CASES = []

# 1 cpu offload 70 GB, Llama-3-70B on GH200, vLLM 0.5.2 (V0)
CASES.append(dict(
    id="zzx-cpu-offload-70gb-gh200", v0=True, version="0.5.2", served="/models/Meta-Llama-3-70B-Instruct",
    root="/models/Meta-Llama-3-70B-Instruct", mml=8192, start=START, interval=10.0, n=61, endpoint="http://10.0.3.21:8000",
    notes="Single interactive user against Llama-3-70B-Instruct on one GH200 with --cpu-offload-gb 70; about 4 tokens/s per stream, first token fast.",
    engines=[dict(running=1, itl=0.244, prompt=420, out=480, prompt_prefill_s=0.9, kv=0.011)],
    cc={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "70", "enable_prefix_caching": "False",
        "gpu_memory_utilization": "0.95", "num_cpu_blocks": "819", "num_gpu_blocks": "2931", "num_gpu_blocks_override": "None",
        "sliding_window": "None", "swap_space_bytes": "4294967296"},
    engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/Meta-Llama-3-70B-Instruct",
                          "--cpu-offload-gb", "70", "--gpu-memory-utilization", "0.95"],
                 "args": {"model": "/models/Meta-Llama-3-70B-Instruct", "cpu-offload-gb": 70, "gpu-memory-utilization": 0.95,
                          "max-model-len": 8192, "max-num-seqs": 256, "block-size": 16, "swap-space": 4, "enforce-eager": False,
                          "tensor-parallel-size": 1, "dtype": "auto", "kv-cache-dtype": "auto"}},
    model_config={"architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
                  "num_attention_heads": 64, "num_key_value_heads": 8, "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
                  "vocab_size": 128256, "model_type": "llama", "rope_theta": 500000.0},
    gpus=[{"index": 0, "name": "NVIDIA GH200 480GB", "memory_total": 102625181696, "memory_used": 90413752320,
           "processes": [{"pid": 4188, "name": "python", "used_memory": 89902047232}]}],
    logline="406", pid=0,
    log_head=["INFO 07-17 13:38:58 api_server.py:215] vLLM API server version 0.5.2",
              "INFO 07-17 13:38:58 llm_engine.py:174] Initializing an LLM engine (v0.5.2) with config: model='/models/Meta-Llama-3-70B-Instruct', speculative_config=None, tokenizer='/models/Meta-Llama-3-70B-Instruct', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0, served_model_name=/models/Meta-Llama-3-70B-Instruct, use_v2_block_manager=False, enable_prefix_caching=False)",
              "INFO 07-17 13:46:51 model_runner.py:266] Loading model weights took 61.2922 GB",
              "INFO 07-17 13:47:02 gpu_executor.py:83] # GPU blocks: 2931, # CPU blocks: 819",
              "INFO 07-17 13:47:40 model_runner.py:1225] Graph capturing finished in 37 secs."]))

# 2 DP8 uneven running counts, Qwen3-30B-A3B on 8x H20, vLLM 0.10.1.1 (V1); lockstep -> common itl
runs = [58, 56, 40, 36, 20, 19, 18, 18]
CASES.append(dict(
    id="zzx-dp8-h20-uneven-running", v0=False, version="0.10.1.1", served="Qwen3-30B-A3B", root="/models/Qwen3-30B-A3B", mml=32768,
    start=START + 86400, interval=10.0, n=61, endpoint="http://10.8.0.5:8000", pid=2210, logline="123",
    notes="DP8 + expert parallel on 8x H20 under a 256-concurrency benchmark; running requests per engine very uneven, output throughput below expectation.",
    engines=[dict(running=r, itl=0.062, prompt=1024, out=1000, prompt_prefill_s=0.35, kv=round(r * 1524 / 390000, 4), hit=0.0) for r in runs],
    cc={"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": "24375",
        "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4"},
    engine_args={"argv": ["vllm", "serve", "/models/Qwen3-30B-A3B", "--served-model-name", "Qwen3-30B-A3B", "--data-parallel-size", "8",
                          "--enable-expert-parallel", "--max-model-len", "32768"],
                 "args": {"model": "/models/Qwen3-30B-A3B", "data-parallel-size": 8, "tensor-parallel-size": 1, "enable-expert-parallel": True,
                          "max-model-len": 32768, "max-num-seqs": 256, "max-num-batched-tokens": 8192, "gpu-memory-utilization": 0.9,
                          "block-size": 16, "enable-prefix-caching": True, "enforce-eager": False, "kv-cache-dtype": "auto"}},
    model_config={"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
                  "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768,
                  "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "model_type": "qwen3_moe", "vocab_size": 151936},
    gpus=[{"index": i, "name": "NVIDIA H20", "memory_total": 102642925568, "memory_used": 92400000000,
           "processes": [{"pid": 2300 + i, "name": "python3", "used_memory": 91900000000}]} for i in range(8)],
    log_head=["(APIServer pid=2210) INFO 09-09 02:10:01 [api_server.py:1805] vLLM API server version 0.10.1.1",
              "(EngineCore_0 pid=2300) INFO 09-09 02:11:40 [gpu_worker.py:276] Available KV cache memory: 35.70 GiB",
              "(EngineCore_0 pid=2300) INFO 09-09 02:11:40 [kv_cache_utils.py:849] GPU KV cache size: 390,000 tokens"]))

# 3 Qwen3 MoE long context decode, 1 request, ~84k context, V1 0.10.0
CASES.append(dict(
    id="zzx-qwen3moe-long-context-decode", v0=False, version="0.10.0", served="qwen3-30b-a3b", root="/models/Qwen3-30B-A3B-AWQ", mml=131072,
    start=START + 2 * 86400, interval=10.0, n=31, endpoint="http://192.168.1.40:8000", pid=12152, logline="123",
    notes="One user, one long agentic request (~84k-token context, long thinking output) on Qwen3 MoE; decode about 34-35 tokens/s against ~120 tokens/s on short prompts.",
    el0=20, engines=[dict(running=1, itl=0.0289, prompt=83600, out=17500, prompt_prefill_s=14.0, kv=0.2177, kv_per_s=34.6 / 384000, hit=0.664)],
    cc={"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.7", "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": "24000",
        "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4"},
    engine_args={"argv": ["vllm", "serve", "/models/Qwen3-30B-A3B-AWQ", "--served-model-name", "qwen3-30b-a3b", "-tp", "4", "--max-model-len", "131072",
                          "--gpu-memory-utilization", "0.7", "--enable-prefix-caching"],
                 "args": {"model": "/models/Qwen3-30B-A3B-AWQ", "tensor-parallel-size": 4, "max-model-len": 131072, "gpu-memory-utilization": 0.7, "quantization": "awq_marlin",
                          "max-num-seqs": 256, "max-num-batched-tokens": 8192, "block-size": 16, "enable-prefix-caching": True,
                          "enforce-eager": False, "kv-cache-dtype": "auto"}},
    model_config={"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
                  "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768,
                  "max_position_embeddings": 40960, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
                  "torch_dtype": "bfloat16", "model_type": "qwen3_moe", "vocab_size": 151936},
    gpus=[{"index": i, "name": "NVIDIA GeForce RTX 2080 Ti", "memory_total": 23622320128, "memory_used": 16900000000,
           "processes": [{"pid": 12200 + i, "name": "python3", "used_memory": 16600000000}]} for i in range(4)],
    log_head=["(APIServer pid=12152) INFO 08-11 03:40:02 [api_server.py:1755] vLLM API server version 0.10.0",
              "(VllmWorker rank=0 pid=12200) INFO 08-11 03:41:31 [gpu_worker.py:255] Available KV cache memory: 9.00 GiB",
              "(EngineCore_0 pid=12190) INFO 08-11 03:41:31 [kv_cache_utils.py:833] GPU KV cache size: 384,000 tokens"]))

# 4 enforce-eager with LoRA, Qwen2.5-7B on A100, vLLM 0.6.5 (V0)
CASES.append(dict(
    id="zzx-async-enforce-eager-lora", v0=True, version="0.6.5", served="qwen-lora", root="/models/Qwen2.5-7B-Instruct", mml=32768,
    start=START + 3 * 86400, interval=10.0, n=61, endpoint="http://10.1.2.9:8000", logline="467", pid=0,
    notes="Async (OpenAI server) deployment with a LoRA adapter, one request at a time; each answer takes about 7 s while the offline LLMEngine script takes about 2 s for the same prompts.",
    engines=[dict(running=1, itl=0.0196, prompt=300, out=350, prompt_prefill_s=0.03, kv=0.0012)],
    cc={"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9",
        "is_attention_free": "False", "num_cpu_blocks": "4681", "num_gpu_blocks": "77021", "num_gpu_blocks_override": "None",
        "sliding_window": "None", "swap_space_bytes": "4294967296"},
    engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/Qwen2.5-7B-Instruct", "--enable-lora",
                          "--lora-modules", "qwen-lora=/models/lora/qwen-lora", "--max-lora-rank", "16", "--enforce-eager"],
                 "args": {"model": "/models/Qwen2.5-7B-Instruct", "enable-lora": True, "max-lora-rank": 16, "enforce-eager": True,
                          "max-model-len": 32768, "max-num-seqs": 256, "gpu-memory-utilization": 0.9, "block-size": 16,
                          "tensor-parallel-size": 1, "kv-cache-dtype": "auto", "cpu-offload-gb": 0}},
    model_config={"architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
                  "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768, "torch_dtype": "bfloat16",
                  "model_type": "qwen2", "vocab_size": 152064},
    gpus=[{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": 77300000000,
           "processes": [{"pid": 3311, "name": "python", "used_memory": 76800000000}]}],
    log_head=["INFO 01-13 09:02:11 api_server.py:712] vLLM API server version 0.6.5",
              "WARNING 01-13 09:02:20 cuda.py:98] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used",
              "INFO 01-13 09:02:20 llm_engine.py:234] Initializing an LLM engine (v0.6.5) with config: model='/models/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, enforce_eager=True, kv_cache_dtype=auto, enable_prefix_caching=False",
              "INFO 01-13 09:02:41 worker.py:241] # GPU blocks: 77021, # CPU blocks: 4681"]))

if __name__ == "__main__":
    for c in CASES:
        build(c)
        print("built", c["id"])
