"""Bundle for zyh-ascend-offgrid-seqs12-eager (source: vllm-project/vllm-ascend issue #16049)."""
import random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_lines, iteration_obs, write_bundle, server_json

OUT = Path(__file__).resolve().parents[2] / "zyh-ascend-offgrid-seqs12-eager" / "bundle"
rng = random.Random(16049)
T0 = 1789300800.0          # 2026-09-13 12:00:00 UTC
CREATED = T0 - 1800.0
STEP = 0.16374             # eager decode step, batch 12 above the largest captured size 8
POOL, BS, MML = 1587200, 128, 32768
MODEL = "Qwen/Qwen3-30B-A3B"

cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL // BS), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
e = Engine(MODEL, "0", POOL, BS, MML, CREATED, cc)
SIM0 = T0 - 400.0
for slot in range(12):
    t = SIM0 + rng.uniform(0.0, 160.0)
    while t < T0 + 620.0:
        p = rng.randint(480, 544)
        first = t + STEP * (1 + rng.random())
        r = Req(t_arr=t, prompt=p, gen=1024, max_tokens=1024, t_sched=t, t_first=first, step=STEP, reason="length")
        e.reqs.append(r)
        t = r.t_end + rng.uniform(0.01, 0.05)

firsts = sorted((r.t_first, r.prompt) for r in e.reqs)
it = iteration_obs(e, STEP, SIM0, T0 + 600.0, lambda a, b: sum(p for f, p in firsts if a < f <= b))
scr, logs = [], []
for i in range(61):
    tt = T0 + 10.0 * i
    scr.append((tt, scrape(e, tt, it)))
    for l in stats_lines(e, tt - 10.0, tt, pid=2231, ref="loggers.py:236"):
        logs.append((tt, l))
start = [
    "(APIServer pid=2231) INFO 09-13 11:30:05 [api_server.py:1911] vLLM API server version 0.28.0",
    "(APIServer pid=2231) INFO 09-13 11:30:05 [utils.py:253] non-default args: {'model_tag': 'Qwen/Qwen3-30B-A3B', 'model': 'Qwen/Qwen3-30B-A3B', 'max_model_len': 32768, 'tensor_parallel_size': 4, 'max_num_seqs': 12, 'compilation_config': {'cudagraph_mode': 'FULL_DECODE_ONLY'}}",
    "(APIServer pid=2231) WARNING 09-13 11:30:09 [vllm.py:1719] Truncating max_cudagraph_capture_size to 8",
    "(EngineCore_DP0 pid=2415) INFO 09-13 11:30:14 [core.py:93] Initializing a V1 LLM engine (v0.28.0) with config: model='Qwen/Qwen3-30B-A3B', tensor_parallel_size=4, max_seq_len=32768, device_config=npu, enforce_eager=False, kv_cache_dtype=auto, compilation_config={'cudagraph_mode': 'FULL_DECODE_ONLY', 'cudagraph_capture_sizes': [8, 4, 2, 1], 'max_cudagraph_capture_size': 8}",
    "(EngineCore_DP0 pid=2415) INFO 09-13 11:33:40 [kv_cache_utils.py:1087] GPU KV cache size: 1,587,200 tokens",
    "(EngineCore_DP0 pid=2415) INFO 09-13 11:33:40 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 48.44x",
    "(APIServer pid=2231) INFO 09-13 11:34:31 [api_server.py:1986] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
logs = [(T0 - 1800 + i, l) for i, l in enumerate(start)] + logs
mc = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
      "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144, "moe_intermediate_size": 768,
      "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "max_position_embeddings": 40960,
      "rope_theta": 1000000.0, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
write_bundle(OUT, scrapes=scr, interval=10.0, endpoint="http://910b-node:8000",
             notes="vllm-ascend, Qwen3-30B-A3B TP=4 on 910B2, max_num_seqs=12, FULL_DECODE_ONLY; closed-loop benchmark of 12 clients (ignore_eos, 1024 output tokens). Decode is far slower than expected.",
             server=server_json("0.28.0", MODEL, MODEL, MML, int(CREATED)),
             engine_args={"argv": ["vllm", "serve", MODEL, "--tensor-parallel-size", "4", "--max-model-len", "32768", "--max-num-seqs", "12",
                                   "--compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLY"}'],
                          "args": {"tensor-parallel-size": 4, "max-model-len": 32768, "max-num-seqs": 12,
                                   "compilation-config": {"cudagraph_mode": "FULL_DECODE_ONLY"}}},
             model_config=mc, gpu=None, logs=logs)
print(len(e.reqs))
