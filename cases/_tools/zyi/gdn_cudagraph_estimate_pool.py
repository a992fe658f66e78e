"""zyi-gdn-cudagraph-estimate-pool: vLLM 0.26.1 nightly, Qwen3.5-122B-A10B int4 on 4x RTX 5090 (TP=4).

Source: https://github.com/vllm-project/vllm/issues/50780 (pool 1,489,281 -> 1,135,957 tokens after the
CUDA-graph estimate grew to ~4.2 GiB). Traffic is assumed (see case.yaml): an agentic service whose
~24-28 running requests need more than the shrunken pool.
"""

from __future__ import annotations

import random

from common import GiB, MiB, epoch, models_body, stamp, write_bundle
from v1prom import V1Prom

CASE = "zyi-gdn-cudagraph-estimate-pool"
MODEL = "qwen3.5-122b-a10b"
ROOT = "/models/Qwen3.5-122B-A10B-int4-AutoRound"
MAX_LEN = 262144
POOL_TOKENS = 1_135_957          # 6.50 GiB / 6,144 B per token per GPU
BLOCK = 1568
BLOCKS = POOL_TOKENS // BLOCK    # 724
T0 = epoch(2026, 8, 3, 14, 20)
INTERVAL = 10.0
N = 61

rng = random.Random(50780)

cache_info = {"block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.95",
              "is_attention_free": "False", "kv_cache_memory_bytes": "None", "mamba_cache_dtype": "auto",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4.0",
              "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)

# state before the window (server up since 09:02 after the upgrade)
prom.c.update(preempt=1184, prompt=118_406_221, gen=9_812_554, pq=402_917_330, ph=228_110_902)
prom.success.update(stop=5_902, length=211, abort=64)
for v, n in [(0.8, 1200), (1.5, 1400), (3.0, 1100), (7.0, 900), (15.0, 800), (30.0, 500), (60.0, 170)]:
    prom.h["ttft"].observe(v, n)
for v, n in [(0.045, 6_900_000), (0.06, 2_300_000), (0.09, 420_000), (0.2, 150_000), (1.5, 42_554)]:
    prom.h["itl"].observe(v, n)
for v, n in [(0.2, 2100), (2.0, 1500), (8.0, 1100), (18.0, 900), (35.0, 450), (70.0, 126)]:
    prom.h["queue"].observe(v, n)
for v, n in [(25.0, 900), (45.0, 1900), (90.0, 2100), (200.0, 1000), (400.0, 277)]:
    prom.h["e2e"].observe(v, n)
    prom.h["inference"].observe(v * 0.8, n)
    prom.h["decode"].observe(v * 0.7, n)
    prom.h["prefill"].observe(v * 0.1, n)
for v, n in [(9000, 700), (30000, 2500), (60000, 2200), (120000, 777)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(300, 2100), (900, 2400), (3000, 1400), (9000, 277)]:
    prom.h["gtok"].observe(v, n)

scrapes, logs, gpu = [], [], []
pre = []
pre_t = epoch(2026, 8, 3, 9, 0)
def L(t, who, lvl, src, msg):
    pre.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.26.1rc1.dev212+g8c1e4a0d3, serving model {ROOT}")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'tensor_parallel_size': 4, "
  "'max_model_len': 262144, 'max_num_seqs': 32, 'max_num_batched_tokens': 32768, 'gpu_memory_utilization': 0.95, "
  "'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'reasoning_parser': 'qwen3', 'tool_call_parser': 'qwen3_coder', "
  "'enable_auto_tool_choice': True}")
L(pre_t + 58, "Worker_TP0 pid=211", "INFO", "gpu_model_runner.py:4021", "Model loading took 15.62 GiB memory and 41.281 seconds")
L(pre_t + 96, "Worker_TP0 pid=211", "INFO", "monitor.py:81", "Initial profiling/warmup run took 3.12 s")
L(pre_t + 97, "Worker_TP0 pid=211", "INFO", "gpu_model_runner.py:6681", "Profiling CUDA graph memory: PIECEWISE=7 (largest=32), FULL=5 (largest=16)")
L(pre_t + 101, "Worker_TP0 pid=211", "INFO", "gpu_model_runner.py:6806", "Estimated CUDA graph memory: 4.20 GiB total")
L(pre_t + 102, "Worker_TP0 pid=211", "INFO", "gpu_worker.py:563", "Available KV cache memory: 6.50 GiB")
L(pre_t + 102, "Worker_TP0 pid=211", "INFO", "gpu_worker.py:578",
  "CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9500 is "
  "equivalent to --gpu-memory-utilization=0.8161 without CUDA graph memory profiling. To maintain the same effective "
  "KV cache size as before, increase --gpu-memory-utilization to 1.0839. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.")
L(pre_t + 103, "EngineCore pid=142", "INFO", "kv_cache_utils.py:1710", f"GPU KV cache size: {POOL_TOKENS:,} tokens")
L(pre_t + 103, "EngineCore pid=142", "INFO", "kv_cache_utils.py:1711",
  f"Maximum concurrency for {MAX_LEN:,} tokens per request: {POOL_TOKENS / MAX_LEN:.2f}x")
L(pre_t + 131, "Worker_TP0 pid=211", "INFO", "gpu_model_runner.py:6940", "Graph capturing finished in 27 secs, took 0.21 GiB")
L(pre_t + 133, "EngineCore pid=142", "INFO", "core.py:281", "init engine (profile, create kv cache, warmup model) took 95.44 seconds")
L(pre_t + 140, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")
logs += pre

last_prompt = last_gen = 0
for i in range(N):
    t = T0 + i * INTERVAL
    running = rng.choice([24, 25, 25, 26, 26, 27, 27, 28])
    waiting = rng.choice([3, 4, 5, 5, 6, 7, 8, 9])
    kv = min(0.999, 0.968 + rng.random() * 0.031)
    preempt = rng.choice([0, 0, 1, 1, 1, 2, 2, 3])
    finished = rng.choice([1, 2, 2, 3, 3, 4])
    gen = int(running * rng.uniform(19.0, 22.5) * INTERVAL)
    new_ctx = [rng.randint(30_000, 72_000) for _ in range(finished)]
    queried = sum(new_ctx)
    hit = int(queried * rng.uniform(0.42, 0.58))
    recompute = sum(rng.randint(25_000, 60_000) for _ in range(preempt))
    prompt = queried - hit + recompute
    prom.running, prom.waiting, prom.kv = running, waiting, kv
    prom.c["preempt"] += preempt
    prom.c["gen"] += gen
    prom.c["prompt"] += prompt
    prom.c["pq"] += queried + recompute
    prom.c["ph"] += hit
    prom.h["itl"].observe(0.047, int(gen * 0.70))
    prom.h["itl"].observe(0.063, int(gen * 0.22))
    prom.h["itl"].observe(0.11, gen - int(gen * 0.70) - int(gen * 0.22))
    for k, ctx in enumerate(new_ctx):
        q = rng.uniform(6.0, 38.0)
        pf = ctx * (1 - 0.5) / 11_000.0
        out = rng.randint(250, 2400)
        dec = out * 0.052
        prom.h["ttft"].observe(q + pf)
        prom.h["queue"].observe(q)
        prom.h["prefill"].observe(pf)
        prom.h["decode"].observe(dec)
        prom.h["inference"].observe(pf + dec)
        prom.h["e2e"].observe(q + pf + dec)
        prom.h["ptok"].observe(ctx)
        prom.h["gtok"].observe(out)
        prom.success["stop" if rng.random() > 0.05 else "length"] += 1
    scrapes.append({"t": t, "status": 200, "text": prom.text()})
    logs.append(f"(APIServer pid=1) INFO {stamp(t)} [loggers.py:271] Engine 000: Avg prompt throughput: "
                f"{prompt / INTERVAL:.1f} tokens/s, Avg generation throughput: {gen / INTERVAL:.1f} tokens/s, "
                f"Running: {running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: {kv * 100:.1f}%, "
                f"Prefix cache hit rate: {100 * prom.c['ph'] / prom.c['pq']:.1f}%")
    procs = []
    devs = []
    for d in range(4):
        used = int(29.79 * GiB + 0.55 * GiB + rng.randint(0, 40) * MiB)
        devs.append({"index": d, "name": "NVIDIA GeForce RTX 5090", "memory_total": 34_190_917_632,
                     "memory_used": used, "processes": [{"pid": 211 + d, "name": "VLLM::Worker_TP%d" % d,
                                                         "used_memory": used - 560 * MiB}]})
    gpu.append({"t": t, "devices": devs})

engine_args = {"argv": ["vllm", "serve", ROOT, "--served-model-name", MODEL, "--tensor-parallel-size", "4",
                        "--max-model-len", "262144", "--max-num-seqs", "32", "--max-num-batched-tokens", "32768",
                        "--gpu-memory-utilization", "0.95", "--kv-cache-dtype", "fp8", "--enable-prefix-caching",
                        "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder", "--reasoning-parser", "qwen3"],
               "args": {"model": ROOT, "served-model-name": MODEL, "tensor-parallel-size": 4, "max-model-len": 262144,
                        "max-num-seqs": 32, "max-num-batched-tokens": 32768, "gpu-memory-utilization": 0.95,
                        "kv-cache-dtype": "fp8", "enable-prefix-caching": True}}
layer_types = ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(48)]
model_config = {
    "architectures": ["Qwen3_5MoeForCausalLM"], "model_type": "qwen3_5_moe", "hidden_size": 3072,
    "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 256,
    "full_attention_interval": 4, "layer_types": layer_types, "linear_num_key_heads": 16,
    "linear_num_value_heads": 64, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8,
    "moe_intermediate_size": 1024, "shared_expert_intermediate_size": 1024, "vocab_size": 248320,
    "max_position_embeddings": 262144, "rope_theta": 10000000, "partial_rotary_factor": 0.25,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True,
                            "packing_format": "auto_round:auto_gptq"}}
server = {"version": {"version": "0.26.1rc1.dev212+g8c1e4a0d3"},
          "models": models_body(MODEL, ROOT, MAX_LEN, int(pre_t) + 140), "health": 200}
write_bundle(CASE, endpoint="http://10.0.4.21:8000", started_at=T0, interval_s=INTERVAL,
             notes="agentic coding service after the upgrade to a 0.26.1 nightly; users report stalls",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes))
