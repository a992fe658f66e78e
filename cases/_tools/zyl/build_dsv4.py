"""zyl-dsv4-block128-16k-hit-floor: DeepSeek-V4-Flash-w8a8 on Ascend A3 (DP2 x TP4),
block-size 128; ~8.9k-token prompts sit below the 16k minimum hit length of the
compressed hybrid cache (vllm-ascend#10710)."""
import json
import os
import random
from datetime import datetime, timezone

from common import write_bundle
from prom import render
from sim import engine_at, stamp, stats_lines

random.seed(10710)
OUT = os.path.join(os.path.dirname(__file__), "../../zyl-dsv4-block128-16k-hit-floor")
T0 = int(datetime(2026, 6, 18, 6, 40, 0, tzinfo=timezone.utc).timestamp())
WIN = 300
BLOCK = 128
KV_BLOCKS = 2912
MML = 35536
MODEL = "dsv4"
SYS_TOK = 8890

reqs = []


def chunks(p):
    out = []
    while p > 0:
        out.append(min(4096, p))
        p -= 4096
    return out


def add(a, P, G):
    s = a + 0.003
    f = s + 0.2 + P * 0.000085          # ~0.95 s for 8.9k tokens
    step = 0.024 + random.random() * 0.002
    e = f + (G - 1) * step
    reqs.append(dict(a=a, s=s, f=f, e=e, eng=0, P=P, H=0, G=G, M=512, reason="stop",
                     chunks=chunks(P), step=step, k=0))
    return e


def run_loop(t, n_rounds=8, warm=True):
    if warm:
        t = add(t, SYS_TOK + 23, random.randint(40, 70)) + 0.6
    for _ in range(n_rounds):
        t = add(t, SYS_TOK + 23, random.randint(40, 70)) + 0.6          # identical request
        t = add(t, SYS_TOK + random.randint(15, 35), random.randint(40, 70)) + 0.6   # same system, other user
        t = add(t, SYS_TOK + random.randint(40, 90), random.randint(40, 70)) + 0.6   # other system prompt
    return t


t = T0 - 80
t = run_loop(t)            # an earlier run, before the capture
t = max(t, T0 + 1.5)
n = 0
while n < 96:
    cls = n % 3
    P = SYS_TOK + (23 if cls == 0 else random.randint(15, 35) if cls == 1 else random.randint(40, 90))
    t = add(t, P, random.randint(40, 70)) + 0.72
    n += 1

cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.86",
              "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(KV_BLOCKS), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def eng(t, i):
    return engine_at(t, reqs, i, MML, KV_BLOCKS, BLOCK, kv_extra=8)


scrapes = []
for i in range(WIN // 10 + 1):
    t = T0 + 10 * i
    scrapes.append({"t": t, "status": 200, "text": render({0: eng(t, 0), 1: eng(t, 1)}, MODEL, cache_info)})

API = 1873
boot = T0 - 1500
L = [f"INFO {stamp(boot)} [__init__.py:239] Platform plugin ascend is activated",
     f"(APIServer pid={API}) INFO {stamp(boot + 1)} [api_server.py:1885] vLLM API server version 0.20.2",
     f"(APIServer pid={API}) INFO {stamp(boot + 1)} [utils.py:233] non-default args: {{'model_tag': '/home/crassus/models/DeepSeek-V4-Flash-w8a8-mtp', "
     "'host': '0.0.0.0', 'port': 8900, 'enable_auto_tool_choice': True, 'tool_call_parser': 'deepseek_v4', "
     "'model': '/home/crassus/models/DeepSeek-V4-Flash-w8a8-mtp', 'tokenizer_mode': 'deepseek_v4', 'max_model_len': 35536, "
     "'quantization': 'ascend', 'served_model_name': ['dsv4'], 'reasoning_parser': 'deepseek_v4', "
     "'tensor_parallel_size': 4, 'data_parallel_size': 2, 'enable_expert_parallel': True, 'block_size': 128, "
     "'gpu_memory_utilization': 0.86, 'enable_prefix_caching': True, 'max_num_batched_tokens': 4096, "
     "'max_num_seqs': 16, 'async_scheduling': False, 'compilation_config': {'cudagraph_mode': 'FULL_DECODE_ONLY', "
     "'cudagraph_capture_sizes': [4, 8, 16]}}"]
for e_i in (0, 1):
    pid = 2210 + e_i
    L.append(f"(EngineCore_DP{e_i} pid={pid}) INFO {stamp(boot + 700 + e_i)} [kv_cache_utils.py:1087] GPU KV cache size: {KV_BLOCKS * BLOCK:,} tokens")
    L.append(f"(EngineCore_DP{e_i} pid={pid}) INFO {stamp(boot + 700 + e_i)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KV_BLOCKS * BLOCK / MML:.2f}x")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 905)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8900")
L.append(f"(APIServer pid={API}) INFO:     Application startup complete.")
ev = []
for r in reqs:
    if T0 - 90 < r["e"] <= T0 + WIN:
        ev.append((r["e"], f"(APIServer pid={API}) INFO:     127.0.0.1:{random.randint(40000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
ev += stats_lines(T0 - 90, T0 + WIN, reqs, 0, lambda t: eng(t, 0).kv, API, line="loggers.py:257")
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
                                                  "root": "/home/crassus/models/DeepSeek-V4-Flash-w8a8-mtp",
                                                  "parent": None, "max_model_len": MML}]},
          "health": 200}
argv = ["vllm", "serve", "/home/crassus/models/DeepSeek-V4-Flash-w8a8-mtp", "--served-model-name", "dsv4",
        "--host", "0.0.0.0", "--port", "8900", "--data-parallel-size", "2", "--tensor-parallel-size", "4",
        "--enable-expert-parallel", "--tokenizer-mode", "deepseek_v4", "--tool-call-parser", "deepseek_v4",
        "--reasoning-parser", "deepseek_v4", "--enable-auto-tool-choice", "--quantization", "ascend",
        "--max-model-len", "35536", "--max-num-batched-tokens", "4096", "--max-num-seqs", "16",
        "--gpu-memory-utilization", "0.86", "--block-size", "128", "--enable-prefix-caching",
        "--no-async-scheduling", "--compilation-config",
        json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY", "cudagraph_capture_sizes": [4, 8, 16]})]
args = {"served-model-name": "dsv4", "data-parallel-size": 2, "tensor-parallel-size": 4,
        "enable-expert-parallel": True, "quantization": "ascend", "max-model-len": 35536,
        "max-num-batched-tokens": 4096, "max-num-seqs": 16, "gpu-memory-utilization": 0.86,
        "block-size": 128, "enable-prefix-caching": True, "async-scheduling": False}
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8900",
            "started_at": T0, "ended_at": T0 + WIN, "interval_s": 10.0,
            "notes": "Ascend A3, DP2 x TP4; identical serial requests, Prefix cache hit rate stays 0%; NPU memory not sampled (no NVML)"}
write_bundle(os.path.join(OUT, "bundle"), manifest, scrapes, server=server,
             engine_args={"argv": argv, "args": args}, model_config=model_config, logs=logs)

base = "你是一名专业技术助手。\n\n回答要求：\n1. 使用中文回答。\n2. 内容准确、简洁。\n3. 不要输出无关内容。\n4. 不要输出思考过程。"
rules = "\n".join(f"补充规则 {i}：回答必须保持技术准确性，不得遗漏关键条件，不得输出与问题无关的内容。" for i in range(1, 401))
SYS = base + "\n\n" + rules
SYS2 = base + "\n\n" + "\n".join(f"附加约束 {i}：回答需要引用可靠来源，避免猜测，并保持术语一致。" for i in range(1, 401))
U1 = "请解释什么是 Prefix Cache，并用一句话说明它的主要收益。"
users = ["请解释什么是 KV Cache，并说明它占用显存的主要因素。", "请用一句话说明 Chunked Prefill 的作用。",
         "什么是数据并行？请简要说明。"]
with open(os.path.join(OUT, "prompts.jsonl"), "w") as f:
    for i in range(3):
        f.write(json.dumps({"messages": [{"role": "system", "content": SYS}, {"role": "user", "content": U1}]}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"messages": [{"role": "system", "content": SYS}, {"role": "user", "content": users[i]}]}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"messages": [{"role": "system", "content": SYS2}, {"role": "user", "content": U1}]}, ensure_ascii=False) + "\n")
w = [r for r in reqs if T0 <= r["s"] <= T0 + WIN]
print("window reqs", len(w), "queries", sum(r["P"] for r in w))
