"""zyd-gemma3-120k-pool-25k-stuck: vLLM 0.8.4 V1, gemma-3-12b-it fp8, pool 25,072 tokens,
one 38,000-token prompt cycles prefill -> pool full -> self-preemption; short requests queue."""
import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Prom, v1_families, write_bundle  # noqa: E402

CASE = "zyd-gemma3-120k-pool-25k-stuck"
MODEL = "/home/ubuntu/fine-tune-new/base_models/gemma-3-12b-it"
MAXLEN = 120000
POOL = 25072
BLOCKS = 1567
T0 = 1744707600  # 2025-04-15 09:00:00 UTC
INTERVAL = 10
N = 61
rng = random.Random(16580)

fams = v1_families(MAXLEN)
info = [("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", {
    "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
    "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
    "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "builtin", "sliding_window": "1024", "swap_space": "4",
    "swap_space_bytes": "4294967296"})]
P = Prom(fams, {"model_name": MODEL, "engine": "0"}, info=info)

PREFILL_TPS = 9000.0   # prompt tokens/s for a short request alone
DECODE_S = 0.022       # s per output token
SYS_HIT = 592          # shared system prompt, 37 full blocks
# short requests before the long one: (arrival s, prompt, output)
shorts = [(4.0, 5210, 412), (31.0, 7830, 388), (57.5, 3390, 301), (84.0, 8620, 455), (109.0, 6040, 366)]
L_ARR, L_PROMPT, L_MAXTOK = 130.0, 38000, 2048
CYCLE_FILL = 6000.0    # tokens/s while the long prompt is chunk-prefilled (2048-token chunks)
CYCLE = POOL / CYCLE_FILL + 0.3  # fill the pool, one failed step, self-preemption
later = [150.0, 178.0, 205.0, 241.0, 262.0, 300.0, 333.0, 361.0, 395.0, 421.0, 452.0, 488.0, 515.0, 547.0, 580.0]

reqs = []
busy_until = 0.0
for a, p, g in shorts:
    st = max(a, busy_until)
    first = st + p / PREFILL_TPS
    end = first + (g - 1) * DECODE_S
    reqs.append(dict(a=a, p=p, g=g, st=st, first=first, end=end))
    busy_until = end

scrapes, logs = [], []
ts = lambda s: dt.datetime.fromtimestamp(T0 + s, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
logs += [
    f"INFO {ts(-175)} [__init__.py:239] Automatically detected platform cuda.",
    f"INFO {ts(-173)} [api_server.py:1034] vLLM API server version 0.8.4",
    f"INFO {ts(-173)} [api_server.py:1035] args: Namespace(model='{MODEL}', host='0.0.0.0', port=8000, gpu_memory_utilization=0.9, max_model_len=120000, enable_chunked_prefill=True, enable_lora=True, lora_modules=[LoRAModulePath(name='lora_name', path='/home/ubuntu/fine-tune-new/citation-gemma-12b/lora_adapters/lora_20250411_193639/checkpoint-20', base_model_name=None)], quantization='fp8', max_num_batched_tokens=None, max_num_seqs=None, block_size=None, enable_prefix_caching=None)",
    f"INFO {ts(-166)} [config.py:689] This model supports multiple tasks: {{'generate', 'classify', 'embed', 'reward', 'score'}}. Defaulting to 'generate'.",
    f"INFO {ts(-166)} [config.py:1901] Chunked prefill is enabled with max_num_batched_tokens=2048.",
    f"INFO {ts(-160)} [core.py:58] Initializing a V1 LLM engine (v0.8.4) with config: model='{MODEL}', dtype=torch.bfloat16, max_seq_len=120000, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"INFO {ts(-158)} [gpu_model_runner.py:1276] Starting to load model {MODEL}...",
    f"INFO {ts(-120)} [gpu_model_runner.py:1291] Model loading took 12.7012 GiB and 37.84 seconds",
    f"INFO {ts(-104)} [backends.py:115] Directly load the compiled graph for shape None from the cache",
    f"INFO {ts(-75)} [monitor.py:33] torch.compile takes 27.73 s in total",
    f"INFO {ts(-74)} [gpu_worker.py:217] Available KV cache memory: 9.18 GiB",
    f"INFO {ts(-74)} [kv_cache_utils.py:578] GPU KV cache size: 25,072 tokens",
    f"INFO {ts(-74)} [kv_cache_utils.py:581] Maximum concurrency for 120,000 tokens per request: 0.21x",
    f"INFO {ts(-1)} [gpu_model_runner.py:1608] Graph capturing finished in 73 secs, took 1.16 GiB",
    f"INFO {ts(-1)} [core.py:162] init engine (profile, create kv cache, warmup model) took 137.48 seconds",
    f"INFO {ts(0)} [serving_models.py:174] Loaded new LoRA adapter: name 'lora_name', path '/home/ubuntu/fine-tune-new/citation-gemma-12b/lora_adapters/lora_20250411_193639/checkpoint-20'",
    f"INFO {ts(0)} [api_server.py:1081] Starting vLLM API server on http://0.0.0.0:8000",
    f"INFO {ts(0)} [launcher.py:26] Available routes are:",
]

ev = []  # (time, log line)
for i, r in enumerate(reqs):
    ev.append((r["a"], f"INFO {ts(r['a'])} [logger.py:39] Received request chatcmpl-{i:04x}a1: prompt: '<bos><start_of_turn>user\\nYou are a citation assistant...', params: SamplingParams(n=1, temperature=1.0, top_p=0.95, top_k=64, max_tokens=1024), prompt_token_ids: None, lora_request: LoRARequest(lora_name='lora_name', lora_int_id=1).") )
    ev.append((r["a"], f"INFO {ts(r['a'])} [async_llm.py:228] Added request chatcmpl-{i:04x}a1."))
    ev.append((r["first"], f"INFO:     10.0.3.17:{41000+i} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
ev.append((L_ARR, f"INFO {ts(L_ARR)} [logger.py:39] Received request chatcmpl-0100b7: prompt: '<bos><start_of_turn>user\\nYou are a citation assistant...', params: SamplingParams(n=1, temperature=1.0, top_p=0.95, top_k=64, max_tokens=2048), prompt_token_ids: None, lora_request: LoRARequest(lora_name='lora_name', lora_int_id=1)."))
ev.append((L_ARR, f"INFO {ts(L_ARR)} [async_llm.py:228] Added request chatcmpl-0100b7."))
for j, a in enumerate(later):
    ev.append((a, f"INFO {ts(a)} [logger.py:39] Received request chatcmpl-{0x200+j:04x}c3: prompt: '<bos><start_of_turn>user\\nYou are a citation assistant...', params: SamplingParams(n=1, temperature=1.0, top_p=0.95, top_k=64, max_tokens=1024), prompt_token_ids: None, lora_request: LoRARequest(lora_name='lora_name', lora_int_id=1)."))
    ev.append((a, f"INFO {ts(a)} [async_llm.py:228] Added request chatcmpl-{0x200+j:04x}c3."))

last_pt = last_gt = 0.0
pc_q = pc_h = 0.0  # for the log's hit rate
gpu = []
prev_preempt = 0
for k in range(N):
    t = k * INTERVAL
    lo = t - INTERVAL
    pt = gt = 0.0
    if k > 0:
        for r in reqs:
            if lo < r["st"] <= t:
                P.inc("vllm:gpu_prefix_cache_queries", r["p"] // 16 * 16)
                P.inc("vllm:gpu_prefix_cache_hits", SYS_HIT if r is not reqs[0] else 0)
                pc_q += r["p"] // 16 * 16
                pc_h += SYS_HIT if r is not reqs[0] else 0
            if lo < r["first"] <= t:
                P.inc("vllm:prompt_tokens", r["p"]); pt += r["p"]
                P.obs("vllm:time_to_first_token_seconds", r["first"] - r["a"])
                P.obs("vllm:iteration_tokens_total", r["p"] - (2048 * (r["p"] // 2048)) or 2048)
                for _ in range(r["p"] // 2048):
                    P.obs("vllm:iteration_tokens_total", 2048)
            # generated tokens in (lo, t]
            def gen_by(x):
                if x < r["first"]:
                    return 0
                return min(r["g"], 1 + int((x - r["first"]) / DECODE_S))
            dg = gen_by(t) - gen_by(lo)
            if dg:
                P.inc("vllm:generation_tokens", dg); gt += dg
                n_itl = dg - (1 if lo < r["first"] <= t else 0)
                for _ in range(n_itl):
                    P.obs("vllm:time_per_output_token_seconds", DECODE_S + rng.uniform(-0.001, 0.002))
                    P.obs("vllm:iteration_tokens_total", 1)
            if lo < r["end"] <= t:
                P.inc("vllm:request_success", 1, reason="stop")
                P.obs("vllm:e2e_request_latency_seconds", r["end"] - r["a"])
                P.obs("vllm:request_queue_time_seconds", r["st"] - r["a"])
                P.obs("vllm:request_inference_time_seconds", r["end"] - r["st"])
                P.obs("vllm:request_prefill_time_seconds", r["first"] - r["st"])
                P.obs("vllm:request_decode_time_seconds", r["end"] - r["first"])
                P.obs("vllm:request_prompt_tokens", r["p"])
                P.obs("vllm:request_generation_tokens", r["g"])
                P.obs("vllm:request_max_num_generation_tokens", 1024)
                P.obs("vllm:request_params_n", 1)
                P.obs("vllm:request_params_max_tokens", 1024)
        # the long request: admissions and self-preemptions
        if t > L_ARR:
            n_pre = int((t - L_ARR) // CYCLE)
            n_adm = int((t - L_ARR) // CYCLE) + 1
            n_adm_prev = 0 if lo < L_ARR else int((lo - L_ARR) // CYCLE) + 1
            n_pre_prev = 0 if lo < L_ARR else int((lo - L_ARR) // CYCLE)
            for _ in range(n_adm - n_adm_prev):
                P.inc("vllm:gpu_prefix_cache_queries", L_PROMPT // 16 * 16)
                P.inc("vllm:gpu_prefix_cache_hits", SYS_HIT)
                pc_q += L_PROMPT // 16 * 16; pc_h += SYS_HIT
            P.inc("vllm:num_preemptions", n_pre - n_pre_prev)
            steps = int(min(INTERVAL, t - max(lo, L_ARR)) * CYCLE_FILL / 2048)
            for _ in range(steps):
                P.obs("vllm:iteration_tokens_total", 2048)
    # gauges at t
    run = sum(1 for r in reqs if r["st"] <= t < r["end"])
    wait = sum(1 for r in reqs if r["a"] <= t < r["st"])
    used = sum(min(r["p"] + max(0, int((t - r["first"]) / DECODE_S)), r["p"] + r["g"]) if t >= r["st"] else 0
               for r in reqs if r["st"] <= t < r["end"])
    if t >= L_ARR:
        run += 1
        wait += sum(1 for a in later if a <= t)
        phase = (t - L_ARR) % CYCLE
        used += min(POOL, int(phase * CYCLE_FILL) + SYS_HIT)
    usage = min(1.0, math.ceil(used / 16) / BLOCKS)
    P.set("vllm:num_requests_running", run)
    P.set("vllm:num_requests_waiting", wait)
    P.set("vllm:gpu_cache_usage_perc", round(usage, 6))
    scrapes.append((T0 + t, P.text()))
    if k > 0:
        ptp, gtp = pt / INTERVAL, gt / INTERVAL
        if any((ptp, gtp, last_pt, last_gt)):
            hr = 100.0 * pc_h / pc_q if pc_q else 0.0
            ev.append((t + 0.4, f"INFO {ts(t + 0.4)} [loggers.py:111] Engine 000: Avg prompt throughput: {ptp:.1f} tokens/s, Avg generation throughput: {gtp:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {usage*100:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
        last_pt, last_gt = ptp, gtp
        ev.append((t + 0.1, f"INFO:     10.0.9.4:52110 - \"GET /metrics HTTP/1.1\" 200 OK"))
    mem = 32_130_000_000 + (rng.randint(-3, 3) * 1_048_576)
    gpu.append({"t": T0 + t, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "memory_total": 34_190_917_632,
                                          "memory_used": mem, "processes": [{"pid": 2817, "name": "python3", "used_memory": mem - 420_000_000}]}]})

ev.sort(key=lambda e: e[0])
logs += [e[1] for e in ev if e[0] <= (N - 1) * INTERVAL]

model_config = {
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "boi_token_index": 255999, "eoi_token_index": 256000, "image_token_index": 262144,
    "initializer_range": 0.02, "mm_tokens_per_image": 256, "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 3840, "intermediate_size": 15360,
                    "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 8,
                    "head_dim": 256, "query_pre_attn_scalar": 256, "sliding_window": 1024,
                    "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "max_position_embeddings": 131072, "vocab_size": 262208, "rms_norm_eps": 1e-06,
                    "final_logit_softcapping": None, "attn_logit_softcapping": None},
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 896,
                      "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": False},
}
argv = ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--port", "8000", "--gpu-memory-utilization", "0.9",
        "--max-model-len", "120000", "--enable-chunked-prefill", "--enable-lora", "--lora-modules",
        "lora_name=/home/ubuntu/fine-tune-new/citation-gemma-12b/lora_adapters/lora_20250411_193639/checkpoint-20",
        "--quantization", "fp8"]
write_bundle(CASE, start=T0, end=T0 + (N - 1) * INTERVAL, interval=INTERVAL, scrapes=scrapes,
             notes="vLLM 0.8.4 V1, gemma-3-12b-it fp8 + LoRA on one GPU; requests stop completing a couple of minutes in",
             server={"version": {"version": "0.8.4"},
                     "models": {"object": "list", "data": [
                         {"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MAXLEN},
                         {"id": "lora_name", "object": "model", "owned_by": "vllm", "root": "/home/ubuntu/fine-tune-new/citation-gemma-12b/lora_adapters/lora_20250411_193639/checkpoint-20", "parent": MODEL, "max_model_len": None}]},
                     "health": 200},
             engine_args={"argv": argv, "args": {"model": MODEL, "gpu-memory-utilization": 0.9, "max-model-len": 120000,
                                                 "enable-chunked-prefill": True, "enable-lora": True, "quantization": "fp8"}},
             model_config=model_config, gpu=gpu, logs=logs)
print("ok", CYCLE)
