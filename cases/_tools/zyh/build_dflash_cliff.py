"""Bundle for zyh-dflash-swa-acceptance-cliff (source: AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash issue #6)."""
import random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_lines, iteration_obs, write_bundle, server_json

OUT = Path(__file__).resolve().parents[2] / "zyh-dflash-swa-acceptance-cliff" / "bundle"
rng = random.Random(6)
T0 = 1777644000.0          # 2026-05-01 14:00:00 UTC
CREATED = T0 - 1500.0
STEP, TPS, K = 0.154, 2.37, 15
POOL, BS, MML = 412160, 16, 65536
MODEL = "AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash"
prof = [0.600, 0.385, 0.215, 0.108, 0.062] + [0.0] * 10
prof = [p / sum(prof) for p in prof]

cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL // BS), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
e = Engine("qwen3.6-27b-aeon", "0", POOL, BS, MML, CREATED, cc, k=K, pos_profile=prof)

t = T0 - 240.0
ctx = 0
while t < T0 + 600.0:
    if ctx == 0 or ctx > 12500:
        prompt, cached = rng.randint(6000, 9000), 0
    else:
        prompt = ctx + rng.randint(100, 400)
        cached = (ctx // BS) * BS
    gen = rng.randint(600, 1800)
    first = t + 0.12 + (prompt - cached) / 9000.0
    r = Req(t_arr=t, prompt=prompt, gen=gen, max_tokens=4096, t_sched=t, t_first=first, step=STEP, tps=TPS, k=K, cached=cached)
    e.reqs.append(r)
    ctx = prompt + gen
    t = r.t_end + rng.uniform(3.0, 15.0)

firsts = sorted((r.t_first, r.prompt - r.cached) for r in e.reqs)
it = iteration_obs(e, STEP, T0 - 240.0, T0 + 600.0, lambda a, b: sum(p for f, p in firsts if a < f <= b))

scr, logs = [], []
for i in range(61):
    tt = T0 + 10.0 * i
    scr.append((tt, scrape(e, tt, it)))
    for l in stats_lines(e, tt - 10.0, tt, pid=1, ref="loggers.py:259", sref="metrics.py:101"):
        logs.append((tt, l))

start = [
    "(APIServer pid=1) INFO 05-01 13:35:04 [api_server.py:1896] vLLM API server version 0.20.1",
    "(APIServer pid=1) INFO 05-01 13:35:04 [utils.py:253] non-default args: {'model_tag': '/models/Qwen3.6-27B-AEON-Ultimate-Uncensored', 'host': '0.0.0.0', 'model': '/models/Qwen3.6-27B-AEON-Ultimate-Uncensored', 'served_model_name': ['qwen3.6-27b-aeon'], 'max_model_len': 65536, 'enable_prefix_caching': True, 'speculative_config': {'method': 'dflash', 'model': '/models/Qwen3.6-27B-AEON-DFlash', 'num_speculative_tokens': 15}}",
    "(EngineCore_DP0 pid=188) INFO 05-01 13:37:12 [kv_cache_utils.py:1087] GPU KV cache size: 412,160 tokens",
    "(EngineCore_DP0 pid=188) INFO 05-01 13:37:12 [kv_cache_utils.py:1091] Maximum concurrency for 65,536 tokens per request: 6.29x",
    "(APIServer pid=1) INFO 05-01 13:38:01 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs = [(T0 - 1500 + i, l) for i, l in enumerate(start)] + logs
gib = 1024 ** 3
gpu = [{"t": tt, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memory_total": 97887 * 1024 ** 2,
        "memory_used": int(87.9 * gib), "processes": [{"pid": 188, "name": "VLLM::EngineCore", "used_memory": int(87.4 * gib)}]}]} for tt, _ in scr]
args = {"served-model-name": "qwen3.6-27b-aeon", "max-model-len": 65536, "enable-prefix-caching": True,
        "speculative-config": {"method": "dflash", "model": "/models/Qwen3.6-27B-AEON-DFlash", "num_speculative_tokens": 15}}
write_bundle(OUT, scrapes=scr, interval=10.0, endpoint="http://localhost:8000",
             notes="Single user, long multi-turn chats against the pre-fix aeon-vllm-ultimate image; user asks why the Avg Draft acceptance rate is so low and why decode is slow.",
             server=server_json("0.20.1", "qwen3.6-27b-aeon", "/models/Qwen3.6-27B-AEON-Ultimate-Uncensored", MML, int(CREATED)),
             engine_args={"argv": None, "args": args}, model_config=None, gpu=gpu, logs=logs)
print(len(e.reqs))
