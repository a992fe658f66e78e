"""zyz-qwen32b-h100-burst-preempt: Qwen3-32B bf16 on one H100 at 0.9, max_num_seqs 128,
max_model_len 32768, native CPU offload 8 GiB; fm3-burst-like traffic. Source:
inference-sim/inference-sim issue #963 (vLLM trace side). Imitates vLLM 0.19.0 (V1)."""

from __future__ import annotations

import random

from common import GiB, MiB, epoch, models_body, stamp, write_bundle
from v1prom import V1Prom
from v1sim import Req, Sim

CASE = "zyz-qwen32b-h100-burst-preempt"
MODEL = "Qwen/Qwen3-32B"
MAX_LEN = 32768
BLOCKS = 2076
CAP = BLOCKS * 16                    # 33,216 tokens
INTERVAL = 5.0
T0 = epoch(2026, 4, 16, 9, 20)
rng = random.Random(963)

cache_info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native", "kv_offloading_size": "8.0",
              "mamba_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
              "swap_space": "4.0", "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)
# state at the start of the window (the replay has been running ~25 min)
prom.c.update(preempt=1121, prompt=19_850_000, gen=3_410_000, pq=21_900_000, ph=6_150_000)
prom.success.update(stop=12_480, length=1_310, abort=0)
for v, n in [(0.2, 6000), (0.9, 4200), (3.0, 2100), (12.0, 1100), (35.0, 390)]:
    prom.h["ttft"].observe(v, n); prom.h["queue"].observe(v * 0.7, n); prom.h["prefill"].observe(v * 0.3, n)
for v, n in [(0.03, 2_600_000), (0.045, 700_000), (0.09, 110_000)]:
    prom.h["itl"].observe(v, n)
for v, n in [(9.0, 7000), (20.0, 5000), (55.0, 1790)]:
    prom.h["e2e"].observe(v, n); prom.h["inference"].observe(v * 0.8, n); prom.h["decode"].observe(v * 0.7, n)
for v, n in [(1400, 9000), (4000, 2500), (16900, 2290)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(250, 10000), (600, 3790)]:
    prom.h["gtok"].observe(v, n)

sim = Sim(CAP, 128, prefill_rate=7000, decode_rate=24, chunk=2048, share=0.85)
arrivals: dict[int, list[Req]] = {}
rid = 0
for s in range(600):
    if rng.random() < 0.55:
        arrivals.setdefault(s, []).append(Req(rid, s, rng.randint(600, 2400), rng.randint(120, 420), cached=0)); rid += 1
for b0 in (40, 170, 300, 430, 540):          # bursts of 16k-prefix requests
    for j in range(rng.randint(6, 9)):
        s = b0 + rng.randint(0, 12)
        arrivals.setdefault(s, []).append(Req(rid, s, 16384 + rng.randint(300, 900), rng.randint(150, 400),
                                              cached=int(16384 * 0.55))); rid += 1

scrapes, logs, gpu = [], [], []
pre_t = T0 - 1500
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", "vLLM server version 0.19.0, serving model Qwen/Qwen3-32B")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': 'Qwen/Qwen3-32B', 'model': 'Qwen/Qwen3-32B', 'max_model_len': 32768, "
  "'gpu_memory_utilization': 0.9, 'max_num_seqs': 128, 'max_num_batched_tokens': 2048, 'kv_offloading_size': 8.0, "
  "'kv_offloading_backend': 'native'}")
L(pre_t + 40, "EngineCore pid=212", "INFO", "gpu_model_runner.py:4102", "Model loading took 61.03 GiB memory and 38.2 seconds")
L(pre_t + 75, "EngineCore pid=212", "INFO", "gpu_model_runner.py:5640", "Estimated CUDA graph memory: 0.47 GiB total")
L(pre_t + 75, "EngineCore pid=212", "INFO", "gpu_worker.py:456", "Available KV cache memory: 8.11 GiB")
L(pre_t + 75, "EngineCore pid=212", "INFO", "kv_cache_utils.py:1314", "GPU KV cache size: 33,216 tokens")
L(pre_t + 75, "EngineCore pid=212", "INFO", "kv_cache_utils.py:1319", "Maximum concurrency for 32,768 tokens per request: 1.01x")
L(pre_t + 76, "EngineCore pid=212", "INFO", "factory.py:51", "Creating offloading spec with name: CPUOffloadingSpec")
L(pre_t + 76, "EngineCore pid=212", "INFO", "cpu.py:61", "Allocating 2048 CPU KV blocks (8.00 GiB) for KV offloading")
L(pre_t + 110, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")

total_pre = 0
for s in range(600):
    sim.step(s, arrivals.get(s, []))
    if (s + 1) % int(INTERVAL) == 0:
        t = T0 + s + 1
        tk, fins, firsts = sim.take()
        for r, v in firsts:
            prom.h["ttft"].observe(v + rng.uniform(0.05, 0.6))
        for r in fins:
            e2e = r.fin - r.arr + rng.uniform(0, 1)
            prom.h["e2e"].observe(e2e); prom.h["queue"].observe(r.queued)
            prom.h["inference"].observe(max(0.1, e2e - r.queued)); prom.h["prefill"].observe(max(0.05, r.first - r.adm))
            prom.h["decode"].observe(max(0.1, r.fin - r.first)); prom.h["ptok"].observe(r.prompt); prom.h["gtok"].observe(r.gen)
            prom.h["itl"].observe(0.032, max(1, r.gen - 1))
            prom.success["stop" if rng.random() < 0.9 else "length"] += 1
        prom.running, prom.waiting, prom.kv = len(sim.running), len(sim.waiting), sim.used / CAP
        prom.c["preempt"] += tk["pre"]; prom.c["prompt"] += tk["prompt"]; prom.c["gen"] += tk["gen"]
        prom.c["pq"] += tk["pq"]; prom.c["ph"] += tk["ph"]
        total_pre += tk["pre"]
        scrapes.append({"t": t, "status": 200, "text": prom.text()})
        hr = 100.0 * tk["ph"] / tk["pq"] if tk["pq"] else 0.0
        L(t, "APIServer pid=1", "INFO", "loggers.py:259",
          f"Engine 000: Avg prompt throughput: {tk['prompt'] / INTERVAL:.1f} tokens/s, Avg generation throughput: "
          f"{tk['gen'] / INTERVAL:.1f} tokens/s, Running: {len(sim.running)} reqs, Waiting: {len(sim.waiting)} reqs, "
          f"GPU KV cache usage: {100 * sim.used / CAP:.1f}%, Prefix cache hit rate: {hr:.1f}%")
        mem = int(73.9 * GiB + rng.randint(0, 40) * MiB)
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85_520_809_984,
                                         "memory_used": mem, "processes": [{"pid": 212, "name": "VLLM::EngineCore",
                                                                            "used_memory": mem - 520 * MiB}]}]})
print("preemptions in window", total_pre)

model_config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120,
                "intermediate_size": 25600, "num_hidden_layers": 64, "num_attention_heads": 64,
                "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960, "rope_theta": 1000000,
                "rms_norm_eps": 1e-06, "vocab_size": 151936, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "sliding_window": None, "use_sliding_window": False}
argv = ["vllm", "serve", MODEL, "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "128",
        "--max-num-batched-tokens", "2048", "--kv-offloading-size", "8", "--kv-offloading-backend", "native"]
engine_args = {"argv": argv, "args": {"model": MODEL, "max-model-len": 32768, "gpu-memory-utilization": 0.9,
                                      "max-num-seqs": 128, "max-num-batched-tokens": 2048, "kv-offloading-size": 8,
                                      "kv-offloading-backend": "native"}}
server = {"version": {"version": "0.19.0"}, "models": models_body(MODEL, MODEL, MAX_LEN, int(pre_t) + 110), "health": 200}
write_bundle(CASE, endpoint="http://127.0.0.1:8000", started_at=T0, interval_s=INTERVAL,
             notes="fm3-burst replay against one vLLM instance (Qwen3-32B, H100, TP=1); 10-minute window",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes))
