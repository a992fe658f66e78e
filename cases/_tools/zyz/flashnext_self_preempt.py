"""zyz-flashnext-250k-self-preempt: one 249,950-token prompt on Qwen3.8-Flash-Next (hybrid), one
RTX PRO 6000; the request's real footprint is 1.9x the capacity estimate, so it fills the pool
(~158k of its tokens), preempts itself and starts over every ~25 s. Source: vllm PR #56028.
V1 exposition (vllm/v1/metrics/loggers.py); no stat log lines (no step produces output)."""

from __future__ import annotations

import random

from common import GiB, MiB, epoch, models_body, stamp, write_bundle
from v1prom import V1Prom

CASE = "zyz-flashnext-250k-self-preempt"
MODEL = "qwen3.8-flash-next"
ROOT = "RadixArk/Qwen3.8-Flash-Next-NVFP4"
MAX_LEN = 262144
EST_CAP = 301_056                 # what the start-up estimate reports
REAL_FIT = 158_400                # what the pool really holds of this request (EST_CAP / 1.9)
PROMPT = 249_950
RATE = 6_300                      # prefill tokens/s
INTERVAL = 5.0
T0 = epoch(2026, 9, 8, 14, 2)
ARR = 37                          # request arrives 37 s into the window
rng = random.Random(56028)

cache_info = {"block_size": "1056", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.92", "is_attention_free": "False",
              "kv_cache_memory_bytes": "None", "mamba_block_size": "1056", "mamba_cache_dtype": "auto",
              "mamba_cache_mode": "align", "num_cpu_blocks": "None", "num_gpu_blocks": "2851",
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
              "swap_space": "4.0", "swap_space_bytes": "4294967296"}
prom = V1Prom(MODEL, MAX_LEN, cache_info)
prom.c.update(preempt=0, prompt=1_204_330, gen=18_944, pq=1_204_330, ph=512_000)
prom.success.update(stop=41, length=2, abort=1)
for v, n in [(0.3, 20), (2.0, 12), (21.0, 9), (48.0, 3)]:
    prom.h["ttft"].observe(v, n); prom.h["queue"].observe(0.01, n); prom.h["prefill"].observe(v, n)
for v, n in [(0.012, 17_000), (0.02, 1_900)]:
    prom.h["itl"].observe(v, n)
for v, n in [(6.0, 25), (30.0, 14), (90.0, 4)]:
    prom.h["e2e"].observe(v, n); prom.h["inference"].observe(v, n); prom.h["decode"].observe(v * 0.5, n)
for v, n in [(2000, 20), (30000, 15), (120000, 8)]:
    prom.h["ptok"].observe(v, n)
for v, n in [(400, 30), (1500, 13)]:
    prom.h["gtok"].observe(v, n)

logs, scrapes, gpu = [], [], []
pre_t = T0 - 1300
def L(t, who, lvl, src, msg):
    logs.append(f"({who}) {lvl} {stamp(t)} [{src}] {msg}")
L(pre_t, "APIServer pid=1", "INFO", "utils.py:299", f"vLLM server version 0.1.dev20073+g8e685d198, serving model {ROOT}")
L(pre_t + 1, "APIServer pid=1", "INFO", "utils.py:233",
  "non-default args: {'model_tag': '" + ROOT + "', 'served_model_name': ['" + MODEL + "'], 'max_model_len': 262144, "
  "'quantization': 'modelopt', 'max_num_seqs': 4, 'max_num_batched_tokens': 8192, 'enable_prefix_caching': True, "
  "'gpu_memory_utilization': 0.92, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}, "
  "'reasoning_parser': 'qwen3'}")
L(pre_t + 400, "EngineCore pid=97", "INFO", "gpu_worker.py:563", "Available KV cache memory: 13.71 GiB")
L(pre_t + 400, "EngineCore pid=97", "INFO", "interface.py:911",
  "Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba page size.")
L(pre_t + 401, "EngineCore pid=97", "INFO", "kv_cache_utils.py:2235", f"GPU KV cache size: {EST_CAP:,} tokens")
L(pre_t + 401, "EngineCore pid=97", "INFO", "kv_cache_utils.py:2236", f"Maximum concurrency for {MAX_LEN:,} tokens per request: 1.15x")
L(pre_t + 470, "APIServer pid=1", "INFO", "api_server.py:1960", "Starting vLLM API server 0 on http://0.0.0.0:8000")
L(T0 + ARR, "APIServer pid=1", "INFO", "logger.py:71", "Received request chatcmpl-7c1e0b93d4f94f6a: params: SamplingParams(n=1, "
  "temperature=0.6, top_p=0.95, top_k=20, max_tokens=8192), prompt_token_ids: None, lora_request: None.")
logs.append(f"(APIServer pid=1) INFO:     10.0.0.14:51822 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")

done = 0
running = waiting = 0
tick_p = tick_pre = tick_pq = 0
cycles = 0
for s in range(600):
    if s >= ARR:
        if done == 0:
            tick_pq += PROMPT
        k = RATE + rng.randint(-200, 200)
        if done + k > REAL_FIT:       # the pool is full and nothing else can be preempted
            tick_p += REAL_FIT - done
            done = 0
            tick_pre += 1
            cycles += 1
            running, waiting = 0, 1
        else:
            done += k
            tick_p += k
            running, waiting = 1, 0
    if (s + 1) % int(INTERVAL) == 0:
        t = T0 + s + 1
        prom.running, prom.waiting = running, waiting
        prom.kv = min(0.999, done / REAL_FIT) if s >= ARR else 0.0
        prom.c["preempt"] += tick_pre; prom.c["prompt"] += tick_p; prom.c["pq"] += tick_pq
        tick_p = tick_pre = tick_pq = 0
        scrapes.append({"t": t, "status": 200, "text": prom.text()})
        mem = int(91.6 * GiB + rng.randint(0, 60) * MiB)
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                                         "memory_total": 102_641_958_912, "memory_used": mem,
                                         "processes": [{"pid": 97, "name": "VLLM::EngineCore", "used_memory": mem - 600 * MiB}]}]})
print("cycles", cycles)
layer_types = ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(48)]
model_config = {"architectures": ["Qwen3_8NextForCausalLM"], "model_type": "qwen3_8_next", "hidden_size": 4096,
                "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 256,
                "full_attention_interval": 4, "layer_types": layer_types, "linear_num_key_heads": 16,
                "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10,
                "max_position_embeddings": 262144, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1,
                "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
argv = ["vllm", "serve", ROOT, "--served-model-name", MODEL, "--quantization", "modelopt", "--max-model-len", "262144",
        "--max-num-seqs", "4", "--max-num-batched-tokens", "8192", "--enable-prefix-caching", "--gpu-memory-utilization",
        "0.92", "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}', "--reasoning-parser", "qwen3"]
engine_args = {"argv": argv, "args": {"model": ROOT, "served-model-name": MODEL, "quantization": "modelopt",
                                      "max-model-len": 262144, "max-num-seqs": 4, "max-num-batched-tokens": 8192,
                                      "enable-prefix-caching": True, "gpu-memory-utilization": 0.92,
                                      "speculative-config": '{"method":"mtp","num_speculative_tokens":3}',
                                      "reasoning-parser": "qwen3"}}
server = {"version": {"version": "0.1.dev20073+g8e685d198"}, "models": models_body(MODEL, ROOT, MAX_LEN, int(pre_t) + 470),
          "health": 200}
write_bundle(CASE, endpoint="http://127.0.0.1:8000", started_at=T0, interval_s=INTERVAL,
             notes="single long-document request (249,950 prompt tokens) sent at 14:02:37; client still waiting",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes))
