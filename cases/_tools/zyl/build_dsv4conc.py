"""zyl-dsv4-concurrency-hit-collapse: DeepSeek-V4-Flash-w8a8 on Ascend A2 (TP8, DP1);
multi-turn 20k/800 at 5 concurrent sessions, hits collapse to ~7% (vllm-ascend#10574)."""
import json
import os
import random
from datetime import datetime, timezone

from common import write_bundle
from prom import render
from sim import engine_at, stamp, stats_lines

random.seed(10574)
OUT = os.path.join(os.path.dirname(__file__), "../../zyl-dsv4-concurrency-hit-collapse")
T0 = int(datetime(2026, 6, 17, 3, 10, 0, tzinfo=timezone.utc).timestamp())
WIN = 600
BLOCK = 128
KV_BLOCKS = 10240
MML = 1048576
MODEL = "dsv4"
STEP = 0.056
reqs = []


def chunks(n):
    out = []
    while n > 0:
        out.append(min(8192, n))
        n -= 8192
    return out


# 5 sessions, turns back to back
for s_i in range(5):
    t = T0 - 60 + s_i * 9.0
    for k in range(16):
        P = 20400 + 230 * k + random.randint(0, 80)
        reqs.append(dict(a=t, eng=0, P=P, H=0, G=800, M=800, reason="length", step=STEP, k=0, sess=s_i, turn=k))
        t += 5.9 + 799 * STEP + 4.0

win = sorted([r for r in reqs if T0 <= r["a"] <= T0 + WIN - 55], key=lambda r: r["a"])
for idx in (4, 15, 27, 38, 49):
    win[idx]["H"] = 16384
for r in reqs:
    r["s"] = r["a"] + 0.004
    ttft = (2.6 if r["H"] else 5.8) + random.random() * 0.35
    r["f"] = r["a"] + ttft
    r["e"] = r["f"] + 799 * STEP
    r["chunks"] = chunks(r["P"] - r["H"])
reqs = [r for r in reqs if r["a"] <= T0 + WIN]

cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
              "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(KV_BLOCKS), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def eng(t):
    return engine_at(t, reqs, 0, MML, KV_BLOCKS, BLOCK, kv_extra=6)


scrapes = [{"t": T0 + 10 * i, "status": 200, "text": render({0: eng(T0 + 10 * i)}, MODEL, cache_info)}
           for i in range(WIN // 10 + 1)]

API, CORE = 611, 902
boot = T0 - 2400
L = [f"INFO {stamp(boot)} [__init__.py:239] Platform plugin ascend is activated",
     f"(APIServer pid={API}) INFO {stamp(boot + 1)} [api_server.py:1885] vLLM API server version 0.20.2",
     f"(APIServer pid={API}) INFO {stamp(boot + 1)} [utils.py:233] non-default args: {{'model_tag': '/mnt/model/DeepSeek-V4-Flash-w8a8-mtp', "
     "'host': '0.0.0.0', 'port': 8080, 'enable_auto_tool_choice': True, 'tool_call_parser': 'deepseek_v4', "
     "'enable_prompt_tokens_details': True, 'model': '/mnt/model/DeepSeek-V4-Flash-w8a8-mtp', 'tokenizer_mode': 'deepseek_v4', "
     "'seed': 1024, 'max_model_len': 1048576, 'quantization': 'ascend', 'served_model_name': ['dsv4'], "
     "'reasoning_parser': 'deepseek_v4', 'safetensors_load_strategy': 'prefetch', 'tensor_parallel_size': 8, "
     "'data_parallel_size': 1, 'enable_expert_parallel': True, 'block_size': 128, 'enable_prefix_caching': True}",
     f"(EngineCore pid={CORE}) INFO {stamp(boot + 900)} [kv_cache_utils.py:1087] GPU KV cache size: {KV_BLOCKS * BLOCK:,} tokens",
     f"(EngineCore pid={CORE}) INFO {stamp(boot + 900)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KV_BLOCKS * BLOCK / MML:.2f}x",
     f"(APIServer pid={API}) INFO {stamp(boot + 1100)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8080",
     f"(APIServer pid={API}) INFO:     Application startup complete."]
ev = []
for r in reqs:
    if T0 - 170 < r["e"] <= T0 + WIN:
        ev.append((r["e"], f"(APIServer pid={API}) INFO:     10.12.0.31:{random.randint(40000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
ev += stats_lines(T0 - 170, T0 + WIN, reqs, 0, lambda t: eng(t).kv, API, line="loggers.py:257")
ev.sort(key=lambda x: x[0])
logs = "\n".join(L + [x[1] for x in ev]) + "\n"

model_config = {
    "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
    "hidden_size": 4096, "num_hidden_layers": 43, "num_attention_heads": 64,
    "num_key_value_heads": 1, "head_dim": 512, "q_lora_rank": 1024, "kv_lora_rank": 512,
    "qk_rope_head_dim": 64, "n_routed_experts": 256, "num_experts_per_tok": 6, "n_shared_experts": 1,
    "moe_intermediate_size": 2048, "vocab_size": 129280, "max_position_embeddings": 1048576,
    "sliding_window": 128, "compress_ratios": [0, 0] + [4, 128] * 20 + [4],
    "index_topk": 512, "num_nextn_predict_layers": 1, "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "ascend", "format": "w8a8_dynamic"},
}
server = {"version": {"version": "0.20.2"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": "/mnt/model/DeepSeek-V4-Flash-w8a8-mtp", "parent": None,
                                                  "max_model_len": MML}]},
          "health": 200}
argv = ["vllm", "serve", "/mnt/model/DeepSeek-V4-Flash-w8a8-mtp", "--served-model-name", "dsv4", "--enable-prefix-caching",
        "--safetensors-load-strategy", "prefetch", "--enable-auto-tool-choice", "--tool-call-parser", "deepseek_v4",
        "--reasoning-parser", "deepseek_v4", "--enable-prompt-tokens-details", "--host", "0.0.0.0", "--port", "8080",
        "--tensor-parallel-size", "8", "--data-parallel-size", "1", "--quantization", "ascend", "--seed", "1024",
        "--enable-expert-parallel", "--tokenizer-mode", "deepseek_v4", "--max-model-len", "1048576", "--block-size", "128"]
args = {"enable-prefix-caching": True, "tensor-parallel-size": 8, "data-parallel-size": 1, "quantization": "ascend",
        "enable-expert-parallel": True, "max-model-len": 1048576, "block-size": 128, "enable-prompt-tokens-details": True}
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8080",
            "started_at": T0, "ended_at": T0 + WIN, "interval_s": 10.0,
            "notes": "Ascend A2 64G*8, TP8 DP1; multi-turn 20k in / 800 out at 5 concurrent sessions; hit ~75% at 1 concurrent, ~7% here; NPU memory not sampled"}
write_bundle(os.path.join(OUT, "bundle"), manifest, scrapes, server=server, engine_args={"argv": argv, "args": args},
             model_config=model_config, logs=logs)
w = [r for r in reqs if T0 <= r["s"] <= T0 + WIN]
print("window reqs", len(w), "q", sum(r["P"] for r in w), "h", sum(r["H"] for r in w), "rate", sum(r["H"] for r in w) / sum(r["P"] for r in w))
