"""zyi-ascend-160k-hang-big-pool: GLM-5.3-Flash-w8a8 on an Atlas 800 A2 node (vllm-ascend on vLLM 0.23.0),
config C of vllm-ascend issue #15984: pool 1,246,157 tokens, max-model-len 524288, max-num-seqs 2.
A ~160K-token prompt prefills to ~153.6K and then makes no progress; 5-token probes slow from <1 s to ~9.5 s.
No NVML on Ascend: no gpu.jsonl."""

from __future__ import annotations

import random

from common import epoch, models_body, stamp, write_bundle
from v1prom import V1Prom

CASE = "zyi-ascend-160k-hang-big-pool"
MODEL = "glm-5.3-flash"
ROOT = "/models/GLM-5.3-Flash-w8a8"
MAX_LEN = 524288
POOL = 1_246_157
BLOCK = 128
T0 = epoch(2026, 9, 9, 6, 10)
INTERVAL = 10.0
N = 43
LONG = 160_012
STALL_AT = 153_600
CHUNK_RATE = 3_580          # prefill tokens/s (113,401 tokens took 31.6 s in config B)
rng = random.Random(15984)

cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.95", "is_attention_free": "False",
              "kv_cache_memory_bytes": "None", "mamba_cache_dtype": "auto", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(POOL // BLOCK), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
              "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)
prom.c.update(preempt=0, prompt=1_204_331, gen=88_410, pq=1_204_331, ph=402_112)
prom.success.update(stop=143, length=6, abort=1)
for v, n in [(0.3, 60), (0.7, 50), (4.0, 20), (31.6, 1), (420.0, 0)]:
    if n:
        prom.h["ttft"].observe(v, n); prom.h["queue"].observe(0.01, n); prom.h["prefill"].observe(v, n)
for v, n in [(0.025, 70_000), (0.04, 18_410)]:
    prom.h["itl"].observe(v, n)
for v, n in [(3.0, 80), (12.0, 50), (60.0, 20)]:
    prom.h["e2e"].observe(v, n); prom.h["inference"].observe(v, n); prom.h["decode"].observe(v * 0.8, n)
for v, n in [(5, 40), (4000, 70), (40000, 39), (113401, 1)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(5, 40), (500, 110)]:
    prom.h["gtok"].observe(v, n)

logs, scrapes = [], []
pre_t = epoch(2026, 9, 9, 5, 31)
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.23.0, serving model {ROOT}")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'tensor_parallel_size': 8, "
  "'enable_expert_parallel': True, 'max_model_len': 524288, 'max_num_seqs': 2, 'max_num_batched_tokens': 8192, "
  "'gpu_memory_utilization': 0.95, 'enable_prefix_caching': True, 'quantization': 'ascend', "
  "'compilation_config': {'cudagraph_capture_sizes': [1, 2, 4, 8, 12, 16]}}")
L(pre_t + 410, "EngineCore pid=120", "INFO", "kv_cache_utils.py:1480", f"GPU KV cache size: {POOL:,} tokens")
L(pre_t + 410, "EngineCore pid=120", "INFO", "kv_cache_utils.py:1481",
  f"Maximum concurrency for {MAX_LEN:,} tokens per request: {POOL / MAX_LEN:.2f}x")
L(pre_t + 470, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")

done = 0
probe_times = [5 + 60 * k for k in range(7)]
long_arrival = 20
stuck = False
for i in range(N):
    t0, t1 = i * INTERVAL, (i + 1) * INTERVAL
    prompt = gen = queried = hit = 0
    probes_here = [p for p in probe_times if t0 <= p < t1]
    for p in probes_here:
        slow = p > long_arrival
        ttft = rng.uniform(9.1, 9.9) if slow else rng.uniform(0.45, 0.8)
        prompt += 5; gen += 5; queried += 5
        prom.h["ttft"].observe(ttft); prom.h["queue"].observe(0.01); prom.h["prefill"].observe(ttft)
        prom.h["decode"].observe(0.12 if not slow else 1.9); prom.h["inference"].observe(ttft + (0.12 if not slow else 1.9))
        prom.h["e2e"].observe(ttft + (0.12 if not slow else 1.9)); prom.h["ptok"].observe(5); prom.h["gtok"].observe(5)
        prom.h["itl"].observe(0.03 if not slow else 0.45, 4)
        prom.success["stop"] += 1
    if t1 > long_arrival and done < STALL_AT:
        if done == 0:
            queried += LONG
        start = max(t0, long_arrival)
        adv = min(STALL_AT - done, int((t1 - start) * CHUNK_RATE) // 8192 * 8192 or 8192)
        done += adv; prompt += adv
    running = (1 if t1 > long_arrival else 0)
    waiting = 0
    kv = done / POOL
    prom.running, prom.waiting, prom.kv = running, waiting, kv
    prom.c["prompt"] += prompt; prom.c["gen"] += gen; prom.c["pq"] += queried; prom.c["ph"] += hit
    t = epoch(2026, 9, 9, 6, 10) + t1
    scrapes.append({"t": t, "status": 200, "text": prom.text()})
    logs.append(f"(APIServer pid=1) INFO {stamp(t)} [loggers.py:259] Engine 000: Avg prompt throughput: "
                f"{prompt / INTERVAL:.1f} tokens/s, Avg generation throughput: {gen / INTERVAL:.1f} tokens/s, "
                f"Running: {running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: {kv * 100:.1f}%, "
                f"Prefix cache hit rate: {100 * prom.c['ph'] / prom.c['pq']:.1f}%")

model_config = {"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": 6144,
                "num_hidden_layers": 78, "num_attention_heads": 64, "num_key_value_heads": 64,
                "kv_lora_rank": 512, "q_lora_rank": 2048, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64,
                "v_head_dim": 256, "n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
                "moe_intermediate_size": 2048, "vocab_size": 154880, "max_position_embeddings": 1048576,
                "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "ascend", "weights": "w8a8"}}
engine_args = {"argv": None,
               "args": {"model": ROOT, "served-model-name": MODEL, "tensor-parallel-size": 8,
                        "enable-expert-parallel": True, "max-model-len": 524288, "max-num-seqs": 2,
                        "max-num-batched-tokens": 8192, "gpu-memory-utilization": 0.95,
                        "enable-prefix-caching": True,
                        "compilation-config": {"cudagraph_capture_sizes": [1, 2, 4, 8, 12, 16]}}}
server = {"version": {"version": "0.23.0"}, "models": models_body(MODEL, ROOT, MAX_LEN, int(pre_t) + 470), "health": 200}
write_bundle(CASE, endpoint="https://llm-gw.internal/glm", started_at=epoch(2026, 9, 9, 6, 10), interval_s=INTERVAL,
             notes="one ~160K-token prompt sent at 06:10:20 never returns; 5-token probe every minute",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes), "prefilled", done)
