"""zyf-v0100-bs1-ttft-regression-4090: vLLM 0.10.0, DeepSeek-R1-Distill-Llama-70B W8A8 on 4x RTX 4090
(TP 4) serving a bs=1 benchmark: one 2,000-token prompt at a time, TTFT ~0.62 s, ITL ~45 ms."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_line, write_bundle, server_json, ts  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zyf-v0100-bs1-ttft-regression-4090" / "bundle"
rnd = random.Random(21983)
T0 = dt.datetime(2025, 7, 31, 9, 40, 0, tzinfo=dt.timezone.utc).timestamp()
INTERVAL, N = 15.0, 41
MODEL = "RedHatAI/DeepSeek-R1-Distill-Llama-70B-quantized.w8a8"
BLOCKS, BS, MML = 2703, 16, 16384

reqs, t, i = [], T0 + 5.0, 0
while t < T0 + 600:
    ttft = 0.62 + rnd.uniform(-0.03, 0.03)
    r = Req(rid=i, t_arr=t, prompt=2000, gen=256, max_tokens=256, t_sched=t + 0.004, t_first=t + ttft, itl=0.045, reason="length")
    reqs.append(r)
    t = r.t_end + 0.5
    i += 1
e = Engine(model_name=MODEL, engine="0", pool_tokens=BLOCKS * BS, block_size=BS, max_model_len=MML, created=T0 - 1500.0)
e.cc_labels = {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space": "4", "cache_dtype": "auto",
               "is_attention_free": "False", "num_gpu_blocks_override": "None", "sliding_window": "None",
               "enable_prefix_caching": "True", "prefix_caching_hash_algo": "builtin", "cpu_offload_gb": "0",
               "calculate_kv_scales": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
               "mamba_ssm_cache_dtype": "auto", "num_gpu_blocks": str(BLOCKS), "num_cpu_blocks": "None"}
e.reqs = reqs
steps = []
for r in reqs:
    steps.append(r.t_first)
    steps += [r.t_first + k * r.itl for k in range(1, r.gen)]
e.step_times = sorted(steps)
cache = {}
scrapes = [(T0 + k * INTERVAL, scrape(e, T0 + k * INTERVAL, cache)) for k in range(N)]

logs = []
tb = T0 - 1560.0
def L(t, s):
    logs.append((t, s))
L(tb, f"INFO {ts(tb)} [api_server.py:1755] vLLM API server version 0.10.0")
L(tb + 0.1, f"INFO {ts(tb)} [cli_args.py:261] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': {MML}, 'tensor_parallel_size': 4}}")
L(tb + 120, f"INFO {ts(tb + 120)} [gpu_worker.py:255] Available KV cache memory: 3.30 GiB")
L(tb + 120.1, f"INFO {ts(tb + 120)} [kv_cache_utils.py:833] GPU KV cache size: {BLOCKS * BS:,} tokens")
L(tb + 120.2, f"INFO {ts(tb + 120)} [kv_cache_utils.py:837] Maximum concurrency for {MML:,} tokens per request: {BLOCKS * BS / MML:.2f}x")
L(tb + 170, "INFO:     Application startup complete.")
for r in reqs:
    L(r.t_arr + 0.002, f'INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK')
t = T0 + 10
while t <= T0 + 600:
    L(t, stats_line(e, t - 10, t, 0, ref="loggers.py:118").split(") ", 1)[1])
    t += 10
gpu = [{"t": round(T0 + k * INTERVAL, 3), "devices": [{"index": d, "name": "NVIDIA GeForce RTX 4090", "memory_total": 25757220864,
        "memory_used": 23504879616, "processes": [{"pid": 21871 + d, "name": "python3", "used_memory": 23018340352}]} for d in range(4)]}
       for k in range(N)]
mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000, "eos_token_id": 128001,
      "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 28672, "max_position_embeddings": 131072, "model_type": "llama",
      "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256,
      "quantization_config": {"quant_method": "compressed-tensors", "format": "int-quantized",
                              "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True},
                                                            "input_activations": {"num_bits": 8, "type": "int", "strategy": "token", "dynamic": True, "symmetric": True}}},
                              "ignore": ["lm_head"]}}
write_bundle(OUT, scrapes=scrapes, interval=INTERVAL, endpoint="http://localhost:8000",
             notes="bs=1 latency benchmark after upgrading vllm 0.9.2 -> 0.10.0 (same model, same GPUs)",
             server=server_json("0.10.0", MODEL, MODEL, MML, int(tb + 170)),
             engine_args={"argv": ["vllm", "serve", MODEL, "--tensor-parallel-size", "4", "--max-model-len", str(MML)],
                          "args": {"model": MODEL, "tensor-parallel-size": 4, "max-model-len": MML}},
             model_config=mc, gpu=gpu, logs=logs, extra_manifest={"complaint": "high-ttft"})
print("ok", len(reqs))
