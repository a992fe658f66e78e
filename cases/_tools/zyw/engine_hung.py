"""zyw-engine-hung-behind-live-api: vLLM 0.19.0 V1, Qwen3-8B on one H100; the engine stops
making progress ~3 min into a 10-min capture while the API server keeps answering.
Source: https://github.com/vllm-project/vllm/issues/39863 (numbers beyond the quoted ones assumed).
"""
import random
import time as _t
from common import Prom, v1_families, TPOT_B, write_bundle

CASE = "zyw-engine-hung-behind-live-api"
MODEL = "Qwen/Qwen3-8B"
MML = 40960
BLOCKS = 22664
POOL = BLOCKS * 16            # 362,624 tokens
T0 = 1776240000               # 2026-04-15 08:00:00 UTC
IV = 10
N = 61                        # scrapes 0..60
STALL = 18                    # last scrape whose values move
rng = random.Random(39863)

fams = v1_families(MML, kv_usage_name="vllm:kv_cache_usage_perc", prefix="vllm:prefix_cache")
fixed = []
for name, typ, help_, b in fams:
    if name == "vllm:kv_cache_usage_perc":
        help_ = "KV-cache usage. 1 means 100 percent usage."
    elif name == "vllm:prefix_cache_queries":
        help_ = "Prefix cache queries, in terms of number of queried tokens."
    elif name == "vllm:prefix_cache_hits":
        help_ = "Prefix cache hits, in terms of number of cached tokens."
    fixed.append((name, typ, help_, b))
fixed.append(("vllm:inter_token_latency_seconds", "histogram", "Histogram of inter-token latency in seconds.", TPOT_B))
base = {"model_name": MODEL, "engine": "0"}
info = [("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
         {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
          "cpu_offload_gb": "0", "enable_prefix_caching": "True", "engine": "0",
          "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
          "sliding_window": "None", "swap_space": "4.0", "swap_space_bytes": "4294967296"})]
P = Prom(fixed, base, info=info, finish_reasons=("stop", "length", "abort"))

def ts(t):
    return _t.strftime("%m-%d %H:%M:%S", _t.gmtime(t))

API = "(APIServer pid=2817)"
ENG = "(EngineCore_DP0 pid=2941)"
logs = [
    f"{API} INFO 04-15 07:52:10 [api_server.py:1815] vLLM API server version 0.19.0",
    f"{API} INFO 04-15 07:52:10 [utils.py:233] non-default args: {{'model': '{MODEL}', 'max_model_len': {MML}, 'gpu_memory_utilization': 0.9}}",
    f"{ENG} INFO 04-15 07:52:41 [gpu_model_runner.py:2338] Model loading took 15.2683 GiB and 6.812441 seconds",
    f"{ENG} INFO 04-15 07:53:12 [gpu_worker.py:298] Available KV cache memory: 49.80 GiB",
    f"{ENG} INFO 04-15 07:53:12 [kv_cache_utils.py:1087] GPU KV cache size: {POOL:,} tokens",
    f"{ENG} INFO 04-15 07:53:12 [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {POOL/MML:.2f}x",
    f"{ENG} INFO 04-15 07:53:31 [core.py:210] init engine (profile, create kv cache, warmup model) took 41.07 seconds",
    f"{API} INFO 04-15 07:53:32 [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {BLOCKS}",
    f"{API} INFO 04-15 07:53:33 [api_server.py:1910] Starting vLLM API server 0 on http://0.0.0.0:8000",
]

# active requests: [prompt, gen_target, generated]
active = []
for _ in range(12):      # already under load when the capture starts
    g0 = rng.randint(150, 300)
    active.append([rng.randint(1400, 2200), g0, rng.randint(0, g0 - 40), 0.3])
waiting = 0
scrapes = []
ttl_q = ttl_h = 0
last_counts = None
for i in range(N):
    t = T0 + i * IV
    if 0 < i <= STALL:
        ptoks = gtoks = 0
        q_int = h_int = 0
        arrivals = rng.choice([10, 11, 11, 12, 13]) if i < STALL else 3
        for k in range(arrivals):
            at = t - IV + (k + rng.random()) * IV / arrivals
            logs.append(f"{API} INFO:     10.2.0.{rng.randint(10, 60)}:{rng.randint(30000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
            if i < STALL:
                p = rng.randint(1600, 2200)
                hit = 16 * (rng.choice([0, 24, 40, 40, 64]))  # shared system prompt blocks
                hit = min(hit, p - 1)
                ptoks += p
                q_int += p
                h_int += hit
                g = rng.randint(150, 300)
                active.append([p, g, 0, rng.uniform(0.15, 0.6)])
                P.obs("vllm:request_max_num_generation_tokens", 1024)
                P.obs("vllm:request_params_n", 1)
            else:
                waiting += 1
        # decode 10 s of tokens; per-stream ~20 tok/s (ITL ~50 ms)
        done = []
        for r in active:
            if i == STALL:
                step = r[1] - r[2]            # the last running ones finish, nothing new is admitted
            else:
                step = min(r[1] - r[2], rng.randint(230, 270) if r[2] else rng.randint(30, 150))
            if r[2] == 0 and step > 0:
                P.obs("vllm:time_to_first_token_seconds", r[3])
            for _ in range(0, step, 20):
                itl = rng.uniform(0.036, 0.044)
                P.obs("vllm:time_per_output_token_seconds", itl)
                P.obs("vllm:inter_token_latency_seconds", itl)
            r[2] += step
            gtoks += step
            if r[2] >= r[1]:
                done.append(r)
        for r in done:
            active.remove(r)
            e2e = r[3] + r[1] * 0.04
            P.inc("vllm:request_success", 1, reason="stop")
            P.obs("vllm:e2e_request_latency_seconds", e2e)
            P.obs("vllm:request_queue_time_seconds", rng.uniform(0.002, 0.02))
            P.obs("vllm:request_inference_time_seconds", e2e - 0.01)
            P.obs("vllm:request_prefill_time_seconds", r[3] - 0.01)
            P.obs("vllm:request_decode_time_seconds", r[1] * 0.04)
            P.obs("vllm:request_prompt_tokens", r[0])
            P.obs("vllm:request_generation_tokens", r[1])
            P.obs("vllm:request_params_max_tokens", 1024)
        P.inc("vllm:prompt_tokens", ptoks)
        P.inc("vllm:generation_tokens", gtoks)
        P.inc("vllm:prefix_cache_queries", q_int)
        P.inc("vllm:prefix_cache_hits", h_int)
        ttl_q += q_int
        ttl_h += h_int
        for _ in range(max(1, gtoks // 12)):
            P.obs("vllm:iteration_tokens_total", rng.randint(10, 14))
        for _ in range(len(active) and 8):
            P.obs("vllm:iteration_tokens_total", rng.randint(1100, 2400))
        run = len(active)
        used = sum(-(-(r[0] + r[2]) // 16) for r in active) / BLOCKS
        P.set("vllm:num_requests_running", run)
        P.set("vllm:num_requests_waiting", waiting)
        P.set("vllm:kv_cache_usage_perc", round(used, 6) if run else 0.0)
        hr = 100.0 * ttl_h / ttl_q if ttl_q else 0.0
        logs.append(f"{API} INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {ptoks/IV:.1f} tokens/s, "
                    f"Avg generation throughput: {gtoks/IV:.1f} tokens/s, Running: {run} reqs, Waiting: {waiting} reqs, "
                    f"GPU KV cache usage: {100*used if run else 0.0:.1f}%, Prefix cache hit rate: {hr:.1f}%")
    elif i > STALL:
        # the engine makes no progress: nothing it reports changes; the API server keeps accepting
        for k in range(rng.choice([7, 8, 8, 9, 9, 10])):
            logs.append(f"{API} INFO:     10.2.0.{rng.randint(10, 60)}:{rng.randint(30000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
        if i % 3 == 0:
            logs.append(f"{API} INFO:     10.2.0.3:{rng.randint(30000, 60000)} - \"GET /health HTTP/1.1\" 200 OK")
        hr = 100.0 * ttl_h / ttl_q
        logs.append(f"{API} INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
                    f"Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: {waiting} reqs, "
                    f"GPU KV cache usage: 0.0%, Prefix cache hit rate: {hr:.1f}%")
    else:
        P.set("vllm:num_requests_running", len(active))
        P.set("vllm:num_requests_waiting", 0)
        P.set("vllm:kv_cache_usage_perc", round(sum(-(-(r[0] + r[2]) // 16) for r in active) / BLOCKS, 6))
    scrapes.append((t, P.text()))

model_config = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288,
    "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
    "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
write_bundle(
    CASE, start=T0, end=T0 + (N - 1) * IV, interval=IV, scrapes=scrapes,
    notes="captured from the ops host over the service address; no NVML on this host. Users report chat completions that never return.",
    server={"version": {"version": "0.19.0"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                                   "root": MODEL, "max_model_len": MML}]},
            "health": 200},
    engine_args={"argv": None, "args": {"model": MODEL, "gpu-memory-utilization": 0.9,
                                        "max-model-len": MML}},
    model_config=model_config, logs=logs, endpoint="http://chat-llm.internal:8000")
print("kv usage check, pool", POOL, "hit", ttl_h, "/", ttl_q)
