"""zyi-offload-parked-loads-strand: vLLM 0.22.1 dev (+#44560), hybrid Mamba/attention model, OffloadingConnector,
FCFS with full-ISL reservation, num_gpu_blocks 630 x block_size 416. Source: vllm-project/vllm PR #45406
(howarlii's comment). The service runs normally, then four shared-prefix requests park as async loads while a
large request heads the FCFS queue; from then on Running 0, Waiting N, KV 0 %, no tokens, health 200."""

from __future__ import annotations

import random

from common import GiB, MiB, epoch, models_body, stamp, write_bundle
from v1prom import V1Prom

CASE = "zyi-offload-parked-loads-strand"
MODEL = "qwen3-next-80b-a3b"
ROOT = "/models/Qwen3-Next-80B-A3B-Instruct"
MAX_LEN = 131072
BLOCKS, BLOCK = 630, 416
T0 = epoch(2026, 6, 15, 9, 30)
INTERVAL = 10.0
N = 61
WEDGE = 14            # scrape index at which the engine stops scheduling
rng = random.Random(45406)

cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "kv_cache_memory_bytes": "None", "mamba_cache_dtype": "auto", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(BLOCKS), "num_gpu_blocks_override": str(BLOCKS),
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
              "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)
prom.c.update(preempt=41, prompt=9_884_102, gen=1_210_556, pq=21_450_331, ph=11_402_880)
prom.success.update(stop=1_804, length=77, abort=5)
for v, n in [(0.15, 700), (0.4, 600), (0.9, 380), (2.0, 160), (6.0, 46)]:
    prom.h["ttft"].observe(v, n); prom.h["queue"].observe(v * 0.2, n); prom.h["prefill"].observe(v * 0.8, n)
for v, n in [(0.012, 900_000), (0.02, 250_000), (0.06, 60_556)]:
    prom.h["itl"].observe(v, n)
for v, n in [(4.0, 600), (9.0, 800), (20.0, 400), (45.0, 86)]:
    prom.h["e2e"].observe(v, n); prom.h["inference"].observe(v * 0.95, n); prom.h["decode"].observe(v * 0.85, n)
for v, n in [(2000, 400), (6000, 900), (15000, 500), (40000, 86)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(150, 600), (600, 900), (1500, 386)]:
    prom.h["gtok"].observe(v, n)

logs, scrapes, gpu = [], [], []
pre_t = epoch(2026, 6, 15, 7, 12)
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.22.1.dev2+g175a57ed9, serving model {ROOT}")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'tensor_parallel_size': 4, "
  "'max_model_len': 131072, 'enable_prefix_caching': True, 'num_gpu_blocks_override': 630, "
  "'scheduler_reserve_full_isl': True, 'kv_transfer_config': KVTransferConfig(kv_connector='OffloadingConnector', "
  "kv_role='kv_both', kv_connector_extra_config={'cpu_bytes_to_use': 68719476736})}")
L(pre_t + 140, "EngineCore pid=97", "INFO", "kv_cache_utils.py:1480", f"GPU KV cache size: {BLOCKS * BLOCK:,} tokens")
L(pre_t + 140, "EngineCore pid=97", "INFO", "kv_cache_utils.py:1481",
  f"Maximum concurrency for {MAX_LEN:,} tokens per request: {BLOCKS * BLOCK / MAX_LEN:.2f}x")
L(pre_t + 190, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")

waiting_after = 5
for i in range(N):
    t = T0 + i * INTERVAL
    if i < WEDGE - 1:
        running = rng.randint(3, 7); waiting = 0
        kv = rng.uniform(0.22, 0.58)
        fin = rng.randint(1, 3)
        prompt = sum(rng.randint(3000, 16000) for _ in range(fin))
        queried = int(prompt / rng.uniform(0.45, 0.6)); hit = queried - prompt
        gen = int(running * rng.uniform(60, 75) * INTERVAL)
        for _ in range(fin):
            q = rng.uniform(0.02, 0.3); pf = rng.uniform(0.2, 1.6); out = rng.randint(150, 1400); d = out * 0.014
            prom.h["ttft"].observe(q + pf); prom.h["queue"].observe(q); prom.h["prefill"].observe(pf)
            prom.h["decode"].observe(d); prom.h["inference"].observe(pf + d); prom.h["e2e"].observe(q + pf + d)
            prom.h["ptok"].observe(rng.randint(3000, 16000)); prom.h["gtok"].observe(out); prom.success["stop"] += 1
        prom.h["itl"].observe(0.013, int(gen * 0.8)); prom.h["itl"].observe(0.021, gen - int(gen * 0.8))
        pre = 0
    elif i == WEDGE - 1:       # the burst: four shared-prefix requests and one large request arrive
        running = 6; waiting = 3; kv = 0.97
        prompt, queried, hit, gen, pre = 6144, 61_000, 38_000, 900, 2
        prom.h["itl"].observe(0.03, gen)
    else:                      # wedged: nothing scheduled, the waiting queue only grows
        if i > WEDGE and i % 3 == 0:
            waiting_after += 1
        running, waiting, kv = 0, waiting_after, 0.0
        prompt = queried = hit = gen = pre = 0
    prom.running, prom.waiting, prom.kv = running, waiting, kv
    prom.c["prompt"] += prompt; prom.c["gen"] += gen; prom.c["pq"] += queried; prom.c["ph"] += hit
    prom.c["preempt"] += pre
    scrapes.append({"t": t, "status": 200, "text": prom.text()})
    hr = 100 * prom.c["ph"] / prom.c["pq"]
    logs.append(f"(APIServer pid=1) INFO {stamp(t)} [loggers.py:259] Engine 000: Avg prompt throughput: "
                f"{prompt / INTERVAL:.1f} tokens/s, Avg generation throughput: {gen / INTERVAL:.1f} tokens/s, "
                f"Running: {running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: {kv * 100:.1f}%, "
                f"Prefix cache hit rate: {hr:.1f}%")
    devs = []
    for d in range(4):
        used = int(71.2 * GiB + rng.randint(0, 20) * MiB)
        devs.append({"index": d, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85_520_809_984, "memory_used": used,
                     "processes": [{"pid": 310 + d, "name": "VLLM::Worker_TP%d" % d, "used_memory": used - 540 * MiB}]})
    gpu.append({"t": t, "devices": devs})

layer_types = ["linear_attention" if (k + 1) % 4 else "full_attention" for k in range(48)]
model_config = {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 2048,
                "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
                "full_attention_interval": 4, "layer_types": layer_types, "linear_num_key_heads": 16,
                "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10,
                "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "vocab_size": 151936,
                "max_position_embeddings": 262144, "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                "torch_dtype": "bfloat16"}
engine_args = {"argv": ["vllm", "serve", ROOT, "--served-model-name", MODEL, "--tensor-parallel-size", "4",
                        "--max-model-len", "131072", "--enable-prefix-caching", "--num-gpu-blocks-override", "630",
                        "--scheduler-reserve-full-isl", "--kv-transfer-config",
                        '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":68719476736}}'],
               "args": {"model": ROOT, "served-model-name": MODEL, "tensor-parallel-size": 4, "max-model-len": 131072,
                        "enable-prefix-caching": True, "num-gpu-blocks-override": 630, "scheduler-reserve-full-isl": True,
                        "kv-transfer-config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
                                               "kv_connector_extra_config": {"cpu_bytes_to_use": 68719476736}}}}
server = {"version": {"version": "0.22.1.dev2+g175a57ed9"}, "models": models_body(MODEL, ROOT, MAX_LEN, int(pre_t) + 190),
          "health": 200}
write_bundle(CASE, endpoint="http://10.1.0.7:8000", started_at=T0, interval_s=INTERVAL,
             notes="agent traffic with shared prefixes; clients report requests that never start",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes), "waiting at end", waiting_after)
