"""zyw-qwen05b-3090-21g-prealloc: vLLM 0.4.0.post1 (V0), a Qwen1.5-0.5B fine-tune on one RTX 3090
with default flags; ~21.6 GiB of the card held from start-up, light traffic, a few % KV usage.
Source: https://github.com/vllm-project/vllm/issues/4253 (numbers beyond the quoted ones assumed).
V0 metric families and HELP texts from vllm/engine/metrics.py as stored (a later 0.4.x copy),
trimmed to the families 0.4.0 served (no request_* histograms, request_success, num_preemptions).
"""
import random
import time as _t
from common import Prom, write_bundle

CASE = "zyw-qwen05b-3090-21g-prealloc"
MODEL = "/data/models/qwen-0.5b-sft"
MML = 32768
BLOCKS = 12397
CPU_BLOCKS = 2730
T0 = 1713780000               # 2024-04-22 10:00:00 UTC
IV = 15
N = 41                        # 10 minutes
MiB = 1024 * 1024
rng = random.Random(4253)

g, c, h = "gauge", "counter", "histogram"
fams = [
    ("vllm:num_requests_running", g, "Number of requests currently running on GPU.", None),
    ("vllm:num_requests_swapped", g, "Number of requests swapped to CPU.", None),
    ("vllm:num_requests_waiting", g, "Number of requests waiting to be processed.", None),
    ("vllm:gpu_cache_usage_perc", g, "GPU KV-cache usage. 1 means 100 percent usage.", None),
    ("vllm:cpu_cache_usage_perc", g, "CPU KV-cache usage. 1 means 100 percent usage.", None),
    ("vllm:prompt_tokens_total", c, "Number of prefill tokens processed.", None),
    ("vllm:generation_tokens_total", c, "Number of generation tokens processed.", None),
    ("vllm:time_to_first_token_seconds", h, "Histogram of time to first token in seconds.",
     [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]),
    ("vllm:time_per_output_token_seconds", h, "Histogram of time per output token in seconds.",
     [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
    ("vllm:e2e_request_latency_seconds", h, "Histogram of end to end request latency in seconds.",
     [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]),
    ("vllm:avg_prompt_throughput_toks_per_s", g, "Average prefill throughput in tokens/s.", None),
    ("vllm:avg_generation_throughput_toks_per_s", g, "Average generation throughput in tokens/s.", None),
]
info = [("vllm:cache_config_info", "information of cache_config",
         {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": str(CPU_BLOCKS),
          "num_gpu_blocks": str(BLOCKS), "num_gpu_blocks_override": "None",
          "sliding_window": "None", "swap_space_bytes": "4294967296"})]
P = Prom(fams, {"model_name": MODEL}, info=info)

def ts(t):
    return _t.strftime("%m-%d %H:%M:%S", _t.gmtime(t))

S0 = T0 - 140
logs = [
    f"INFO {ts(S0)} api_server.py:149] vLLM API server version 0.4.0.post1",
    f"INFO {ts(S0)} api_server.py:150] args: Namespace(host=None, port=8000, model='{MODEL}', gpu_memory_utilization=0.9, max_model_len=None, tensor_parallel_size=1, block_size=16, swap_space=4, enforce_eager=False, enable_prefix_caching=False)",
    f"INFO {ts(S0 + 1)} llm_engine.py:74] Initializing an LLM engine (v0.4.0.post1) with config: model='{MODEL}', tokenizer='{MODEL}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len={MML}, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=True, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0)",
    f"INFO {ts(S0 + 4)} selector.py:40] Using FlashAttention backend.",
    f"INFO {ts(S0 + 9)} model_runner.py:104] Loading model weights took 1.1607 GB",
    f"INFO {ts(S0 + 14)} gpu_executor.py:94] # GPU blocks: {BLOCKS}, # CPU blocks: {CPU_BLOCKS}",
    f"INFO {ts(S0 + 16)} model_runner.py:791] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
    f"INFO {ts(S0 + 16)} model_runner.py:795] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
    f"INFO {ts(S0 + 21)} model_runner.py:867] Graph capturing finished in 5 secs.",
    f"INFO:     Started server process [30211]",
    f"INFO:     Waiting for application startup.",
    f"INFO:     Application startup complete.",
    f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
]

# per-second simulation of the requests
reqs = []   # [arrive, prompt, gen, ttft, tpot]
t = T0 - 30 + rng.expovariate(0.5)
while t < T0 + (N - 1) * IV:
    p = rng.randint(300, 800)
    gen = rng.randint(100, 400)
    reqs.append([t, p, gen, rng.uniform(0.018, 0.06), rng.uniform(0.0092, 0.0118)])
    t += rng.expovariate(0.5)

def active_at(x):
    out = []
    for a, p, gen, ttft, tpot in reqs:
        end = a + ttft + gen * tpot
        if a <= x < end:
            done = 0 if x < a + ttft else min(gen, int((x - a - ttft) / tpot))
            out.append((p, done))
    return out

ev = []
for a, p, gen, ttft, tpot in reqs:
    end = a + ttft + gen * tpot
    ev.append((end, f"INFO:     127.0.0.1:{rng.randint(40000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
# 5 s stats lines while the engine steps
for s5 in range(int(T0 - 30), T0 + (N - 1) * IV, 5):
    pt = sum(p for a, p, *_ in reqs if s5 - 5 < a + 0.01 <= s5)
    gt = 0
    for a, p, gen, ttft, tpot in reqs:
        lo, hi = max(s5 - 5, a + ttft), min(s5, a + ttft + gen * tpot)
        if hi > lo:
            gt += int((hi - lo) / tpot)
    if pt == 0 and gt == 0:
        continue
    act = active_at(s5)
    kv = sum(-(-(p + d) // 16) for p, d in act) / BLOCKS
    ev.append((s5, f"INFO {ts(s5)} metrics.py:218] Avg prompt throughput: {pt/5:.1f} tokens/s, Avg generation throughput: {gt/5:.1f} tokens/s, Running: {len(act)} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {100*kv:.1f}%, CPU KV cache usage: 0.0%."))
ev.sort(key=lambda e: e[0])
logs += [e[1] for e in ev if e[0] <= T0 + (N - 1) * IV]

scrapes, gpu = [], []
cursor = 0
reqs.sort()
fin_seen = set()
maxkv = 0.0
for i in range(N):
    x = T0 + i * IV
    # everything that happened up to x
    for k, (a, p, gen, ttft, tpot) in enumerate(reqs):
        if a + ttft <= x and ("f", k) not in fin_seen:
            fin_seen.add(("f", k))
            P.inc("vllm:prompt_tokens_total", p)
            P.obs("vllm:time_to_first_token_seconds", ttft)
        end = a + ttft + gen * tpot
        if end <= x and ("e", k) not in fin_seen:
            fin_seen.add(("e", k))
            P.inc("vllm:generation_tokens_total", gen)
            for _ in range(gen // 10):
                P.obs("vllm:time_per_output_token_seconds", tpot)
            P.obs("vllm:e2e_request_latency_seconds", end - a)
    act = active_at(x)
    kv = sum(-(-(p + d) // 16) for p, d in act) / BLOCKS
    maxkv = max(maxkv, kv)
    P.set("vllm:num_requests_running", len(act))
    P.set("vllm:num_requests_swapped", 0)
    P.set("vllm:num_requests_waiting", 0)
    P.set("vllm:gpu_cache_usage_perc", round(kv, 6))
    P.set("vllm:cpu_cache_usage_perc", 0.0)
    pt = sum(p for a, p, *_ in reqs if x - 5 < a <= x)
    P.set("vllm:avg_prompt_throughput_toks_per_s", round(pt / 5, 1))
    P.set("vllm:avg_generation_throughput_toks_per_s", round(sum(1 / r[4] for r in reqs if r[0] + r[3] <= x < r[0] + r[3] + r[2] * r[4]), 1))
    scrapes.append((x, P.text()))
    gpu.append({"t": x, "devices": [
        {"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24576 * MiB,
         "memory_used": 22431 * MiB, "processes": [{"pid": 30211, "name": "python", "used_memory": 22160 * MiB}]},
        {"index": 1, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24576 * MiB,
         "memory_used": 3 * MiB, "processes": []}]})

model_config = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 1024, "initializer_range": 0.02,
    "intermediate_size": 2816, "max_position_embeddings": 32768, "max_window_layers": 21,
    "model_type": "qwen2", "num_attention_heads": 16, "num_hidden_layers": 24,
    "num_key_value_heads": 16, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    "transformers_version": "4.39.3", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 151936}
write_bundle(
    CASE, start=T0, end=T0 + (N - 1) * IV, interval=IV, scrapes=scrapes,
    notes="single vLLM OpenAI server on GPU 0 of a two-3090 box; the owner asks why a 0.5B model takes 21G of GPU memory.",
    server={"version": {"version": "0.4.0.post1"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                                   "root": MODEL, "parent": None}]},
            "health": 200},
    engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL],
                 "args": {"model": MODEL}},
    model_config=model_config, gpu=gpu, logs=logs, endpoint="http://localhost:8000")
print("requests", len(reqs), "max kv", round(maxkv, 4), "used/total", 22160 / 24576, 22431 / 24576)
