"""Bundle for zyh-v100-awq-mtp3-healthy (source: 1CatAI/1Cat-vLLM issue #334)."""
import random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_lines, iteration_obs, write_bundle, server_json

OUT = Path(__file__).resolve().parents[2] / "zyh-v100-awq-mtp3-healthy" / "bundle"
rng = random.Random(334)
T0 = 1788000000.0          # 2026-08-29 10:40:00 UTC
CREATED = T0 - 3000.0
STEP, TPS, K = 0.105, 3.7, 3
POOL, BS, MML = 133120, 16, 131072
MODEL = "philbert440/Qwen3.8-27B-W4A16-AWQ"
cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.92", "is_attention_free": "False",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL // BS), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
e = Engine("qwen3.8-27b", "0", POOL, BS, MML, CREATED, cc, k=K, pos_profile=[0.96 / 2.7, 0.90 / 2.7, 0.84 / 2.7])

t = T0 - 300.0
while t < T0 + 600.0:
    # opencode keeps the session near its working size: old tool output is trimmed from the tail of
    # history, the system prompt and earlier turns stay, so all but the newest turn hit the cache
    new = rng.randint(400, 2200)
    prompt = rng.randint(44000, 48000)
    cached = ((prompt - new) // BS) * BS
    gen = rng.randint(300, 1500)
    first = t + 0.15 + (prompt - cached) / 1400.0
    r = Req(t_arr=t, prompt=prompt, gen=gen, max_tokens=32000, t_sched=t, t_first=first, step=STEP, tps=TPS, k=K, cached=cached)
    e.reqs.append(r)
    t = r.t_end + rng.uniform(1.5, 5.0)

firsts = sorted((r.t_first, r.prompt - r.cached) for r in e.reqs)
it = iteration_obs(e, STEP, T0 - 300.0, T0 + 600.0, lambda a, b: sum(p for f, p in firsts if a < f <= b))
scr, logs = [], []
for i in range(61):
    tt = T0 + 10.0 * i
    scr.append((tt, scrape(e, tt, it)))
    for l in stats_lines(e, tt - 10.0, tt, pid=7, ref="loggers.py:271", sref="metrics.py:101"):
        logs.append((tt, l))
start = [
    "(APIServer pid=7) INFO 08-29 09:50:02 [api_server.py:1896] vLLM API server version 0.27.1",
    "(APIServer pid=7) INFO 08-29 09:50:02 [utils.py:253] non-default args: {'model_tag': '/models/Qwen3.8-27B-W4A16-AWQ', 'model': '/models/Qwen3.8-27B-W4A16-AWQ', 'served_model_name': ['qwen3.8-27b'], 'trust_remote_code': True, 'max_model_len': 131072, 'max_num_seqs': 1, 'max_num_batched_tokens': 2048, 'gpu_memory_utilization': 0.92, 'attention_backend': 'FLASH_ATTN_V100', 'enable_prefix_caching': True, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}",
    "(EngineCore_DP0 pid=121) INFO 08-29 09:52:40 [kv_cache_utils.py:1087] GPU KV cache size: 133,120 tokens",
    "(EngineCore_DP0 pid=121) INFO 08-29 09:52:40 [kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens per request: 1.02x",
    "(APIServer pid=7) INFO 08-29 09:53:31 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs = [(T0 - 3000 + i, l) for i, l in enumerate(start)] + logs
gib = 1024 ** 3
gpu = [{"t": tt, "devices": [{"index": 0, "name": "Tesla V100-SXM2-32GB", "memory_total": 32768 * 1024 ** 2,
        "memory_used": int(29.6 * gib), "processes": [{"pid": 121, "name": "VLLM::EngineCore", "used_memory": int(29.2 * gib)}]}]} for tt, _ in scr]
args = {"served-model-name": "qwen3.8-27b", "trust-remote-code": True, "max-model-len": 131072, "max-num-seqs": 1,
        "max-num-batched-tokens": 2048, "gpu-memory-utilization": 0.92, "attention-backend": "FLASH_ATTN_V100",
        "enable-prefix-caching": True, "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}
write_bundle(OUT, scrapes=scr, interval=10.0, endpoint="http://localhost:8000",
             notes="1Cat-vLLM on one V100 32GB, Qwen3.8-27B W4A16 AWQ with MTP-3, one opencode agent session. Operator asks how to tune context length, multimodal and output limits; decode is about 35-40 tok/s.",
             server=server_json("0.27.1", "qwen3.8-27b", "/models/Qwen3.8-27B-W4A16-AWQ", MML, int(CREATED)),
             engine_args={"argv": None, "args": args}, model_config=None, gpu=gpu, logs=logs)
print(len(e.reqs))
