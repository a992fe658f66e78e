"""Builds the four zxn-* bundles (writer zxn, round 24) with gen.py (copied from writer zxb).

Run: python cases/_tools/zxn/build.py   (deterministic: fixed seeds)
"""
from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Req, Scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def ts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def cache_labels(block, blocks, util, prefix=True, dtype="auto"):
    return {"block_size": str(block), "cache_dtype": dtype, "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(util),
            "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
            "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}


# ---------------------------------------------------------------- 1 skip gate defers newcomer
def skip_gate():
    rng = random.Random(119)
    t0 = 1788430000.0
    window, interval = 600.0, 5.0
    reqs = []
    c = t0 - 420.0
    while c < t0 + window:
        prose_gen = 1500
        itl = rng.uniform(0.039, 0.041)
        prose = Req(t_arrive=c, prompt=rng.randint(240, 320), hit=0, gen=prose_gen, queue=0.02,
                    prefill=0.3, itl=itl, max_tokens=2048)
        reqs.append(prose)
        free = prose.t_end + 0.05
        a1 = c + 2.0
        p1 = rng.randint(9400, 9600)
        pre1 = rng.uniform(7.6, 9.4)
        r1 = Req(t_arrive=a1, prompt=p1, hit=0, gen=rng.randint(250, 350), queue=free - a1, prefill=pre1,
                 itl=rng.uniform(0.042, 0.046), max_tokens=1024)
        reqs.append(r1)
        a2 = c + 4.0
        p2 = rng.randint(37500, 38500)
        r2 = Req(t_arrive=a2, prompt=p2, hit=0, gen=rng.randint(150, 250), queue=free - a2,
                 prefill=pre1 + rng.uniform(28.0, 31.0), itl=rng.uniform(0.046, 0.05), max_tokens=1024)
        reqs.append(r2)
        c += 150.0
    sc = Scenario(model="glm-5.3-flash", version="0.20.1", max_model_len=262144, pool_tokens=412_032,
                  block_size=64, cache_labels=cache_labels(64, 6438, 0.78, dtype="fp8"), reqs=reqs, t0=t0,
                  window=window, interval=interval, families="0.12.0", step_s=0.04)
    sc.mnbt = 2048
    args = {"argv": None,
            "args": {"model": "/models/GLM-5.3-Flash-EXL3-TR3-4bpw", "served-model-name": "glm-5.3-flash",
                     "tensor-parallel-size": 2, "gpu-memory-utilization": 0.78, "max-model-len": 262144,
                     "max-num-batched-tokens": 2048, "max-num-seqs": 4, "kv-cache-dtype": "fp8",
                     "enable-prefix-caching": True,
                     "speculative-config": '{"method": "dflash", "num_speculative_tokens": 7}'}}
    T = t0 - 1500
    start = [
        f"[start.sh] node0: GPU_MEM_UTIL=0.78 MAX_MODEL_LEN=262144 MAX_NUM_BATCHED_TOKENS=2048 MAX_NUM_SEQS=4 GLM53_INDEXER_WORKSPACE=rightsize GLM53_MIXED_PREFILL_CHUNK=skip NUM_SPECULATIVE_TOKENS=7",
        f"(APIServer pid=1) INFO {ts(T)} [api_server.py:1885] vLLM API server version 0.20.1",
        f"(APIServer pid=1) INFO {ts(T + 1)} [scheduler.py:224] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"(EngineCore pid=301) INFO {ts(T + 610)} [kv_cache_utils.py:1291] GPU KV cache size: 412,032 tokens",
        f"(EngineCore pid=301) INFO {ts(T + 610)} [kv_cache_utils.py:1296] Maximum concurrency for 262,144 tokens per request: 1.57x",
        f"(APIServer pid=1) INFO {ts(T + 700)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    sc.write(ROOT / "cases/zxn-glm53-skip-gate-defers-newcomer/bundle",
             manifest_notes="2x DGX Spark (GB10) TP=2, GLM-5.3-Flash EXL3 recipe. Probe repeated every ~150 s: a 1500-token prose decode, a ~9.5k-token request 2 s later, then a ~38k request. Client sees 67-71 s TTFT for the 9.5k newcomer.",
             endpoint="http://spark-a:8000", engine_args=args, model_config=None, served_name="glm-5.3-flash",
             startup_logs=start, log_prefix="(APIServer pid=1)", logger_line="loggers.py:271", gpu=None,
             server_version={"version": "0.20.1"})


# ---------------------------------------------------------------- 2 339k cold prefill freezes warm session
def long_prefill_hol():
    rng = random.Random(110)
    t0 = 1788990000.0
    window, interval = 600.0, 10.0
    reqs = []
    b_arr = t0 + 60.0
    b_pre = 440.0
    b = Req(t_arrive=b_arr, prompt=339_112, hit=0, gen=256, queue=0.03, prefill=b_pre, itl=0.05, max_tokens=256)
    b_done = b.t_first
    reqs.append(b)
    t = t0 - 600.0
    while t < t0 + window:
        prompt = 339_200 + rng.randint(0, 600)
        hit = 335_616
        if b_arr <= t < b_done:
            q = b_done - t + 0.05
        else:
            q = rng.uniform(0.01, 0.03)
        r = Req(t_arrive=t, prompt=prompt, hit=hit, gen=32, queue=q, prefill=rng.uniform(3.78, 3.86),
                itl=0.045, max_tokens=32)
        reqs.append(r)
        nxt = t + 25.0
        t = max(nxt, r.t_end + 0.2)
        if r.queue > 10:
            t = r.t_end + 25.0
    # warm-up turns of session A before the capture
    sc = Scenario(model="glm-5.3-flash", version="0.20.1", max_model_len=700000, pool_tokens=1_105_152,
                  block_size=64, cache_labels=cache_labels(64, 17268, 0.8, dtype="fp8"), reqs=reqs, t0=t0,
                  window=window, interval=interval, families="0.12.0", step_s=0.045)
    sc.mnbt = 2048
    args = {"argv": None,
            "args": {"model": "/models/GLM-5.3-Flash-EXL3-TR3-4bpw", "served-model-name": "glm-5.3-flash",
                     "tensor-parallel-size": 2, "gpu-memory-utilization": 0.8, "max-model-len": 700000,
                     "max-num-batched-tokens": 2048, "max-num-seqs": 8, "kv-cache-dtype": "fp8",
                     "enable-prefix-caching": True,
                     "speculative-config": '{"method": "dflash", "num_speculative_tokens": 7}'}}
    T = t0 - 2400
    start = [
        f"[start.sh] node0: GPU_MEM_UTIL=0.80 MAX_MODEL_LEN=700000 MAX_NUM_BATCHED_TOKENS=2048 MAX_NUM_SEQS=8 GLM53_INDEXER_WORKSPACE=rightsize GLM53_MIXED_PREFILL_CHUNK=skip LONG_PREFILL_TOKEN_THRESHOLD=",
        f"(APIServer pid=1) INFO {ts(T)} [api_server.py:1885] vLLM API server version 0.20.1",
        f"(APIServer pid=1) INFO {ts(T + 1)} [scheduler.py:224] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"(EngineCore pid=301) INFO {ts(T + 640)} [kv_cache_utils.py:1291] GPU KV cache size: 1,105,151 tokens",
        f"(EngineCore pid=301) INFO {ts(T + 640)} [kv_cache_utils.py:1296] Maximum concurrency for 700,000 tokens per request: 1.58x",
        f"(APIServer pid=1) INFO {ts(T + 720)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    sc.write(ROOT / "cases/zxn-glm53-339k-cold-prefill-freezes-warm-session/bundle",
             manifest_notes="2x DGX Spark GB10 TP=2. Session A (~339k tokens, warm) polled with the same short follow-up every 25 s; 60 s into the capture session B starts a cold ~339k prefill. A's polls froze until B's prefill ended.",
             endpoint="http://spark-a:8000", engine_args=args, model_config=None, served_name="glm-5.3-flash",
             startup_logs=start, log_prefix="(APIServer pid=1)", logger_line="loggers.py:271", gpu=None,
             server_version={"version": "0.20.1"})


# ---------------------------------------------------------------- 3 interval-8 burst admission
def interval8():
    rng = random.Random(164)
    t0 = 1788350000.0
    window, interval = 600.0, 5.0
    reqs = []
    c = t0 - 300.0
    while c < t0 + window:
        for k in range(8):
            p = rng.randint(5800, 6300)
            pre = rng.uniform(2.5, 2.7)
            q = k * rng.uniform(4.25, 4.45) + rng.uniform(0.01, 0.05)
            itl = rng.uniform(0.105, 0.175) if k < 7 else 0.11
            reqs.append(Req(t_arrive=c + rng.uniform(0, 0.05), prompt=p, hit=0, gen=300, queue=q, prefill=pre,
                            itl=itl, max_tokens=300))
        c += 75.0
    sc = Scenario(model="glm-5.3-flash", version="0.21.0", max_model_len=1048576, pool_tokens=4_321_618,
                  block_size=256, cache_labels=cache_labels(256, 16881, 0.8, dtype="fp8"), reqs=reqs, t0=t0,
                  window=window, interval=interval, families="0.12.0", step_s=0.25)
    sc.mnbt = 8192
    args = {"argv": None,
            "args": {"model": "/models/glm-5.3-flash-nvfp4", "served-model-name": "glm-5.3-flash",
                     "tensor-parallel-size": 4, "decode-context-parallel-size": 4,
                     "max-model-len": 1048576, "max-num-batched-tokens": 8192, "max-num-seqs": 16,
                     "kv-cache-dtype": "fp8", "kv-cache-memory-bytes": "24G", "enable-prefix-caching": True,
                     "prefill-schedule-interval": 8,
                     "speculative-config": '{"method": "dflash", "num_speculative_tokens": 7}'}}
    T = t0 - 3000
    start = [
        f"(APIServer pid=1) INFO {ts(T)} [api_server.py:1885] vLLM API server version 0.21.0",
        f"(APIServer pid=1) INFO {ts(T + 1)} [scheduler.py:224] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"(EngineCore pid=412) INFO {ts(T + 900)} [kv_cache_utils.py:1291] GPU KV cache size: 4,321,618 tokens",
        f"(EngineCore pid=412) INFO {ts(T + 900)} [kv_cache_utils.py:1296] Maximum concurrency for 1,048,576 tokens per request: 4.12x",
        f"(APIServer pid=1) INFO {ts(T + 960)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    sc.write(ROOT / "cases/zxn-dcp4-interval8-burst-34s-ttft/bundle",
             manifest_notes="SparkRing preferred DCP4 profile on four GB10 (TP4/DCP4). Repeated C8 rungs: eight distinct ~6K-token prompts fired together, 300 output tokens, ring drained between rungs. Client: TTFT mean 23.7 s, max 34.0 s at C8.",
             endpoint="http://ring-rank0:8000", engine_args=args, model_config=None, served_name="glm-5.3-flash",
             startup_logs=start, log_prefix="(APIServer pid=1)", logger_line="loggers.py:271", gpu=None,
             server_version={"version": "0.21.0"})


# ---------------------------------------------------------------- 4 ascend 0.10.2rc1 multi-turn
QWEN3_14B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 17408,
    "max_position_embeddings": 40960, "max_window_layers": 40, "model_type": "qwen3",
    "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936}


def ascend():
    rng = random.Random(3269)
    t0 = 1759130000.0
    window, interval = 600.0, 10.0
    reqs = []
    for client in range(8):
        t = t0 - 400.0 + rng.uniform(0, 5)
        ctx = rng.randint(600, 1500)
        while t < t0 + window:
            new = rng.randint(380, 900)
            prompt = ctx + new
            hit = (ctx // 128) * 128
            gen = rng.randint(120, 200)
            r = Req(t_arrive=t, prompt=prompt, hit=hit, gen=gen, queue=rng.uniform(0.002, 0.02),
                    prefill=rng.uniform(0.36, 0.50), itl=rng.uniform(0.030, 0.034), max_tokens=256)
            reqs.append(r)
            ctx = prompt + gen
            if ctx > rng.randint(6000, 8000):
                ctx = rng.randint(600, 1500)
            t = r.t_end + rng.uniform(0.05, 0.3)
    sc = Scenario(model="Qwen3-14B", version="0.10.2", max_model_len=40960, pool_tokens=80_000,
                  block_size=128, cache_labels=cache_labels(128, 625, 0.63), reqs=reqs, t0=t0,
                  window=window, interval=interval, families="0.10.2", step_s=0.032)
    sc.mnbt = 2048
    args = {"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "10112",
                     "--dtype", "bfloat16", "--model", "/models/Qwen3-14B", "--served-model-name", "Qwen3-14B",
                     "--tensor-parallel-size", "1", "--gpu-memory-utilization", "0.63"],
            "args": {"dtype": "bfloat16", "model": "/models/Qwen3-14B", "served-model-name": "Qwen3-14B",
                     "tensor-parallel-size": 1, "gpu-memory-utilization": 0.63}}
    T = t0 - 900
    start = [
        f"INFO {ts(T - 5)} [__init__.py:216] Automatically detected platform npu.",
        f"(APIServer pid=4021) INFO {ts(T)} [api_server.py:1896] vLLM API server version 0.10.2",
        f"(APIServer pid=4021) INFO {ts(T)} [utils.py:328] non-default args: {{'host': '0.0.0.0', 'port': 10112, 'model': '/models/Qwen3-14B', 'dtype': 'bfloat16', 'served_model_name': ['Qwen3-14B'], 'gpu_memory_utilization': 0.63}}",
        f"(APIServer pid=4021) INFO {ts(T + 2)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"(EngineCore_DP0 pid=4188) INFO {ts(T + 60)} [model_runner_v1.py:2291] Loading model weights took 27.5171 GB",
        f"(EngineCore_DP0 pid=4188) INFO {ts(T + 95)} [kv_cache_utils.py:864] GPU KV cache size: 80,000 tokens",
        f"(EngineCore_DP0 pid=4188) INFO {ts(T + 95)} [kv_cache_utils.py:868] Maximum concurrency for 40,960 tokens per request: 1.95x",
        f"(APIServer pid=4021) INFO {ts(T + 150)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:10112",
    ]
    sc.write(ROOT / "cases/zxn-ascend-0102-multiturn-ttft-440ms/bundle",
             manifest_notes="vllm-ascend 0.10.2rc1, Qwen3-14B bf16. benchmarks/multi_turn/benchmark_serving_multi_turn.py --num-clients 8 --max-active-conversations 24 --seed 1234. Client TTFT 440 ms (174 ms on vllm-ascend 0.9.2rc1 with the same script).",
             endpoint="http://127.0.0.1:10112", engine_args=args, model_config=QWEN3_14B, served_name="Qwen3-14B",
             startup_logs=start, log_prefix="(APIServer pid=4021)", logger_line="loggers.py:123", gpu=None,
             server_version={"version": "0.10.2"})


if __name__ == "__main__":
    skip_gate()
    long_prefill_hol()
    interval8()
    ascend()
