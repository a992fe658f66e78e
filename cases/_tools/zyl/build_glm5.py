"""zyl-glm5-lmcache-mp-zero-hits: GLM-5-FP8 TP8 on 8xH200 with LMCacheMPConnector;
the LMCache server stores every prompt, the connector never returns a hit (LMCache#2977)."""
import json
import os
import random
from datetime import datetime, timezone

from common import write_bundle
from prom import render
from sim import engine_at, stamp, stats_lines

random.seed(2977)
OUT = os.path.join(os.path.dirname(__file__), "../../zyl-glm5-lmcache-mp-zero-hits")
T0 = int(datetime(2026, 4, 8, 6, 50, 0, tzinfo=timezone.utc).timestamp())
WIN = 600
BLOCK = 64
KV_BLOCKS = 1374
MML = 16384
MODEL = "/tmp/GLM-5-FP8"
K = 3
ACC = [0.82, 0.52, 0.28]
STEP = 0.031
reqs = []


def add(a, P, G, ttft, kind):
    s = a + 0.003
    f = a + ttft
    nd = max(1, round((G - 1) / 2.6))
    e = f + nd * STEP
    ch = []
    p = P
    while p > 0:
        ch.append(min(8192, p))
        p -= 8192
    reqs.append(dict(a=a, s=s, f=f, e=e, eng=0, P=P, H=0, X=0, XQ=P, G=G, M=G,
                     reason="length", chunks=ch, step=STEP, k=K, acc=ACC, kind=kind))


def cycle(a):
    P1 = random.randint(8300, 8400)
    add(a, P1, 256, 1.15 + random.random() * 0.1, "turn1")
    t = a + 6.0
    for w in range(3):
        for j in range(4):
            add(t, random.randint(8150, 8200), 64, 1.1 * (j + 1) + random.random() * 0.1, "noise")
        t += 5.6
    add(a + 30.0, P1 + 296, 256, 1.25 + random.random() * 0.1, "turn2")


for c in range(-2, 10):
    cycle(T0 + 5 + 60 * c)

cache_info = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.75",
              "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(KV_BLOCKS), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def eng(t):
    return engine_at(t, reqs, 0, MML, KV_BLOCKS, BLOCK, kv_extra=1, external=True, spec_k=K)


scrapes = []
for i in range(WIN // 10 + 1):
    t = T0 + 10 * i
    scrapes.append({"t": t, "status": 200, "text": render({0: eng(t)}, "/tmp/GLM-5-FP8", cache_info)})

API, CORE = 30511, 30790
boot = T0 - 1300
L = [f"(APIServer pid={API}) INFO {stamp(boot)} [api_server.py:1839] vLLM API server version 0.19.0",
     f"(APIServer pid={API}) INFO {stamp(boot)} [utils.py:233] non-default args: {{'model_tag': '/tmp/GLM-5-FP8', "
     "'enable_auto_tool_choice': True, 'tool_call_parser': 'glm47', 'model': '/tmp/GLM-5-FP8', 'trust_remote_code': True, "
     "'max_model_len': 16384, 'reasoning_parser': 'glm45', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.75, "
     "'enable_prefix_caching': True, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}, "
     "'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheMPConnector', kv_role='kv_both', "
     "kv_connector_extra_config={'lmcache.mp.port': 6555})}",
     f"(EngineCore_DP0 pid={CORE}) INFO {stamp(boot + 30)} [factory.py:51] Creating v1 connector with name: LMCacheMPConnector and engine_id: 3f2c8a1e-5d0b-4c7e-9a61-2b8f0d4e7c15",
     f"(EngineCore_DP0 pid={CORE}) INFO {stamp(boot + 640)} [gpu_worker.py:391] Available KV cache memory: 9.61 GiB",
     f"(EngineCore_DP0 pid={CORE}) INFO {stamp(boot + 640)} [kv_cache_utils.py:1087] GPU KV cache size: {KV_BLOCKS * BLOCK:,} tokens",
     f"(EngineCore_DP0 pid={CORE}) INFO {stamp(boot + 640)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {KV_BLOCKS * BLOCK / MML:.2f}x",
     f"(APIServer pid={API}) INFO {stamp(boot + 760)} [api_server.py:1911] Starting vLLM API server 0 on http://0.0.0.0:8000",
     f"(APIServer pid={API}) INFO:     Application startup complete."]
ev = []
for r in reqs:
    if T0 - 130 < r["e"] <= T0 + WIN:
        ev.append((r["e"], f"(APIServer pid={API}) INFO:     127.0.0.1:{random.randint(40000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))


def spec_text(acc, dr):
    per = ", ".join(f"{a:.3f}" for a in ACC)
    return (f"SpecDecoding metrics: Mean acceptance length: {1 + acc / (dr / K):.2f}, Accepted throughput: {acc / 10:.2f} tokens/s, "
            f"Drafted throughput: {dr / 10:.2f} tokens/s, Accepted: {int(acc)} tokens, Drafted: {int(dr)} tokens, "
            f"Per-position acceptance rate: {per}, Avg Draft acceptance rate: {acc / dr * 100:.1f}%")


ev += stats_lines(T0 - 130, T0 + WIN, reqs, 0, lambda t: eng(t).kv, API, line="loggers.py:257",
                  spec_line=("metrics.py:100", spec_text), ext=True)
ev.sort(key=lambda x: x[0])
logs = "\n".join(L + [x[1] for x in ev]) + "\n"

# the LMCache server log, as tee'd by the reporter
lm = []
lb = boot - 60
for i in range(195, 201):
    lm.append((lb + (i - 194) * 0.7, f"LazyMemoryAllocator: Expanded 1024 MB pinned memory, now total is {i * 1024} MB (lazy_memory_allocator.py:249:lmcache.v1.lazy_memory_allocator)"))
for r in reqs:
    if T0 - 130 < r["f"] <= T0 + WIN:
        n = (r["P"] // 256) * 256
        lm.append((r["f"] + 0.06, f"Stored {n} tokens in {0.008 + random.random() * 0.03:.3f} seconds (server.py:375:lmcache.v1.multiprocess.server)"))
lm.sort()


def lmstamp(t):
    d = datetime.fromtimestamp(t, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int((t % 1) * 1000):03d}"


logs += "\n# ---- lmcache server log (lmcache server --max-workers 4 --port 6555 --l1-size 200 --eviction-policy LRU --http-port 7555) ----\n"
logs += "\n".join(f"[{lmstamp(t)}] LMCache INFO: {m}" for t, m in lm) + "\n"

model_config = {
    "architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa",
    "hidden_size": 6144, "num_hidden_layers": 78, "num_attention_heads": 64, "num_key_value_heads": 64,
    "q_lora_rank": 2048, "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
    "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 3,
    "moe_intermediate_size": 2048, "intermediate_size": 12288, "index_topk": 2048, "index_n_heads": 32,
    "index_head_dim": 128, "num_nextn_predict_layers": 1, "vocab_size": 154880,
    "max_position_embeddings": 202752, "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128],
                            "activation_scheme": "dynamic"},
}
TOT = 150_754_820_096
gpu = []
for s in scrapes:
    devs = []
    for d in range(8):
        used = int(TOT * 0.75) + 1_073_741_824 + d * 2_097_152
        devs.append({"index": d, "name": "NVIDIA H200", "memory_total": TOT, "memory_used": used,
                     "processes": [{"pid": CORE + 20 + d, "name": f"VLLM::Worker_TP{d}", "used_memory": used - 553_648_128}]})
    gpu.append({"t": s["t"], "devices": devs})
server = {"version": {"version": "0.19.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
ktc = {"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"lmcache.mp.port": 6555}}
argv = ["vllm", "serve", MODEL, "--trust-remote-code", "--tensor-parallel-size", "8",
        "--speculative-config.method", "mtp", "--speculative-config.num_speculative_tokens", "3",
        "--tool-call-parser", "glm47", "--reasoning-parser", "glm45", "--enable-auto-tool-choice",
        "--port", "8000", "--max-model-len", "16384", "--gpu-memory-utilization", "0.75",
        "--enable-prefix-caching", "--kv-transfer-config", json.dumps(ktc)]
args = {"trust-remote-code": True, "tensor-parallel-size": 8, "speculative-config": {"method": "mtp", "num_speculative_tokens": 3},
        "max-model-len": 16384, "gpu-memory-utilization": 0.75, "enable-prefix-caching": True, "kv-transfer-config": ktc}
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8000",
            "started_at": T0, "ended_at": T0 + WIN, "interval_s": 10.0,
            "notes": "GLM-5-FP8 TP8 + LMCache MP server on port 6555; test: turn 1, noise to evict GPU cache, turn 2 expected from LMCache"}
write_bundle(os.path.join(OUT, "bundle"), manifest, scrapes, server=server, engine_args={"argv": argv, "args": args},
             model_config=model_config, gpu=gpu, logs=logs)
w = [r for r in reqs if T0 <= r["s"] <= T0 + WIN]
print("window reqs", len(w), "tokens", sum(r["P"] for r in w), "noise/cycle", sum(r["P"] for r in w if r["kind"] == "noise") / 10)
