"""Bundle for zyh-b300-dspark-capture-512 (source: vllm-project/vllm PR #49390)."""
import random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_lines, iteration_obs, write_bundle, server_json, ts

OUT = Path(__file__).resolve().parents[2] / "zyh-b300-dspark-capture-512" / "bundle"
rng = random.Random(49390)
T0 = 1784628000.0          # 2026-07-21 10:00:00 UTC, first scrape
CREATED = T0 - 2400.0
SIM0 = T0 - 420.0          # benchmark (concurrency 128) began 7 min before the window
STOP = T0 + 377.0          # client sends no new request after this
STEP, TPS, K = 0.4445, 4.5, 7   # eager verify step of 128 x 8 = 1024 tokens; 98.8 ms per output token
POOL, BS, MML = 2411520, 64, 32768
MODEL = "deepseek-ai/DeepSeek-V4-Flash"

cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL // BS), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
e = Engine(MODEL, "0", POOL, BS, MML, CREATED, cc, k=K,
           pos_profile=[0.262, 0.205, 0.160, 0.125, 0.098, 0.084, 0.066])

for slot in range(128):
    t = SIM0 + rng.uniform(0.0, 118.0)
    while t < STOP:
        p = rng.randint(900, 1100)
        g = rng.randint(768, 1280)
        first = t + STEP * 2 + rng.uniform(0.0, STEP)
        r = Req(t_arr=t, prompt=p, gen=g, max_tokens=g, t_sched=t, t_first=first, step=STEP, tps=TPS, k=K, reason="length")
        e.reqs.append(r)
        t = r.t_end + rng.uniform(0.02, 0.08)

firsts = sorted((r.t_first, r.prompt) for r in e.reqs)
def prefill(a, b):
    return sum(p for f, p in firsts if a < f <= b)
it = iteration_obs(e, STEP, SIM0, T0 + 600.0, prefill)

scr, logs = [], []
for i in range(61):
    t = T0 + 10.0 * i
    scr.append((t, scrape(e, t, it)))
    for l in stats_lines(e, t - 10.0, t, pid=1):
        logs.append((t, l))

start = [
    "(APIServer pid=1) INFO 07-21 09:20:02 [api_server.py:1830] vLLM API server version 0.26.1",
    "(APIServer pid=1) INFO 07-21 09:20:02 [utils.py:326] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V4-Flash', 'model': 'deepseek-ai/DeepSeek-V4-Flash', 'trust_remote_code': True, 'max_model_len': 32768, 'tensor_parallel_size': 8, 'max_num_seqs': 128, 'speculative_config': {'method': 'dspark', 'num_speculative_tokens': 7}}",
    "(EngineCore_DP0 pid=412) INFO 07-21 09:20:31 [core.py:93] Initializing a V1 LLM engine (v0.26.1) with config: model='deepseek-ai/DeepSeek-V4-Flash', speculative_config=SpeculativeConfig(method='dspark', model='deepseek-ai/DeepSeek-V4-Flash', num_spec_tokens=7), tensor_parallel_size=8, max_seq_len=32768, enforce_eager=False, kv_cache_dtype=auto, compilation_config={'level': 3, 'cudagraph_mode': 'FULL_AND_PIECEWISE', 'cudagraph_capture_sizes': [512, 504, 496, 488, 480, 472, 464, 456, 448, 440, 432, 424, 416, 408, 400, 392, 384, 376, 368, 360, 352, 344, 336, 328, 320, 312, 304, 296, 288, 280, 272, 264, 256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8], 'max_cudagraph_capture_size': 512}",
    "(EngineCore_DP0 pid=412) INFO 07-21 09:31:40 [kv_cache_utils.py:1087] GPU KV cache size: 2,411,520 tokens",
    "(EngineCore_DP0 pid=412) INFO 07-21 09:31:40 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 73.59x",
    "(EngineCore_DP0 pid=412) INFO 07-21 09:32:21 [gpu_model_runner.py:3480] Graph capturing finished in 41 secs, took 2.63 GiB",
    "(EngineCore_DP0 pid=412) INFO 07-21 09:32:22 [core.py:210] init engine (profile, create kv cache, warmup model) took 651.20 seconds",
    "(APIServer pid=1) INFO 07-21 09:32:25 [api_server.py:1923] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs = [(T0 - 3000 + i, l) for i, l in enumerate(start)] + logs

gib = 1024 ** 3
gpu = [{"t": t, "devices": [{"index": d, "name": "NVIDIA B300 SXM6 AC", "memory_total": 288 * 10 ** 9,
        "memory_used": int(259.6 * gib), "processes": [{"pid": 530 + d, "name": "VLLM::Worker_TP%d" % d, "used_memory": int(258.9 * gib)}]}
        for d in range(8)]} for t, _ in scr]

write_bundle(OUT, scrapes=scr, interval=10.0, endpoint="http://dsv4-b300:8000",
             notes="vllm bench serve against DeepSeek-V4-Flash + DSpark (7 draft tokens, fixed verification), max concurrency 128, random 1k in / ~1k out; default CUDA graph capture ceiling 512; window covers the end of the run and its drain. Benchmark report for this run: output throughput 904 tok/s, mean TPOT 98.77 ms.",
             server=server_json("0.26.1", MODEL, MODEL, MML, int(CREATED)),
             engine_args={"argv": ["vllm", "serve", MODEL, "--trust-remote-code", "--tensor-parallel-size", "8", "--max-model-len", "32768",
                                   "--max-num-seqs", "128", "--speculative-config", '{"method": "dspark", "num_speculative_tokens": 7}'],
                          "args": {"tensor-parallel-size": 8, "max-model-len": 32768, "max-num-seqs": 128,
                                   "speculative-config": {"method": "dspark", "num_speculative_tokens": 7}, "trust-remote-code": True}},
             model_config=None, gpu=gpu, logs=logs)
print("reqs", len(e.reqs))
