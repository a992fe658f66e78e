"""Builds the four zxb-* bundles (writer zxb, round 22) with gen.py (copied from writer zd).

Run: python cases/_tools/zxb/build.py   (deterministic: fixed seeds)
"""
from __future__ import annotations

import datetime as dt
import json
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


# ---------------------------------------------------------------- 1 voxcpm2 decode-first defer
def voxcpm2_defer():
    rng = random.Random(6365)
    t0 = 1787400000.0
    window, interval = 600.0, 5.0
    reqs, t = [], t0 - 600.0
    while t < t0 + window:
        t += rng.expovariate(2.0)
        gen = rng.randint(32, 48)
        reqs.append(Req(t_arrive=t, prompt=rng.randint(90, 150), hit=0, gen=gen,
                        queue=rng.uniform(0.0, 0.78), prefill=rng.uniform(0.04, 0.06),
                        itl=rng.uniform(0.017, 0.021), max_tokens=2048))
    sc = Scenario(model="tts-service", version="0.26.0", max_model_len=8192, pool_tokens=1_954_816,
                  block_size=16, cache_labels=cache_labels(16, 122176, 0.9), reqs=reqs, t0=t0,
                  window=window, interval=interval, families="0.12.0", step_s=0.02)
    # note: pool 122,176 blocks x 16 tokens; the metrics do not depend on the model's layout
    args = {"argv": ["vllm-omni", "serve", "/models/voxcpm2-ft", "--omni", "--served-model-name", "tts-service",
                     "--host", "0.0.0.0", "--port", "8000"],
            "args": {"model": "/models/voxcpm2-ft", "omni": True, "served-model-name": "tts-service",
                     "max-num-seqs": 8}}
    start = [f"(APIServer pid=1) INFO {ts(t0 - 900)} [utils.py:253] vLLM-Omni 0.26.0 on vLLM 0.26.0",
             f"(EngineCore pid=212) INFO {ts(t0 - 880)} [kv_cache_utils.py:1291] GPU KV cache size: 1,954,816 tokens",
             f"(APIServer pid=1) INFO {ts(t0 - 860)} [api_server.py:1937] Starting vLLM API server 0 on http://0.0.0.0:8000"]
    gpu = lambda t: [{"index": 0, "name": "NVIDIA H100 PCIe", "memory_total": 85520809984,
                      "memory_used": 76800000000, "processes": [{"pid": 212, "name": "VLLM::EngineCore", "used_memory": 76200000000}]}]
    sc.write(ROOT / "cases/zxb-voxcpm2-decode-first-defer/bundle",
             manifest_notes="vllm-omni serving a VoxCPM2 fine-tune, open-loop load test at 2 req/s; clients report first-audio p95 ~0.84 s vs 0.19 s at 1 req/s",
             endpoint="http://tts-h100:8000", engine_args=args, model_config=None, served_name="tts-service",
             startup_logs=start, log_prefix="(APIServer pid=1)", logger_line="loggers.py:271", gpu=gpu,
             server_version={"version": "0.26.0"})


# ---------------------------------------------------------------- 2 kimi engine dead
def kimi_dead():
    rng = random.Random(42363)
    t0 = 1778548920.0  # 05-12 01:22 UTC
    window, interval = 600.0, 10.0
    t_death = t0 + 362.0
    reqs, t = [], t0 - 900.0
    while t < t_death:
        t += rng.expovariate(0.25)
        if t >= t_death:
            break
        p = rng.randint(12000, 32000)
        hit = int(p * rng.uniform(0.72, 0.9)) // 64 * 64
        new = p - hit
        reqs.append(Req(t_arrive=t, prompt=p, hit=hit, gen=rng.randint(120, 420), queue=rng.uniform(0.01, 0.08),
                        prefill=0.25 + new / 9000.0, itl=rng.uniform(0.028, 0.036), max_tokens=32000))
    sc = Scenario(model="Kimi-K2.6", version="0.20.2", max_model_len=262144, pool_tokens=153600, block_size=64,
                  cache_labels=cache_labels(64, 2400, 0.9), reqs=reqs, t0=t0, window=window, interval=interval,
                  families="0.12.0", step_s=0.035)
    out = ROOT / "cases/zxb-kimi-k26-gb200-engine-dead/bundle"
    args = {"argv": None, "args": {"model": "/models/Kimi-K2.6", "served-model-name": "Kimi-K2.6",
                                   "tensor-parallel-size": 4, "trust-remote-code": True, "max-model-len": 262144,
                                   "gpu-memory-utilization": 0.9}}
    ev = []
    inflight = [r for r in reqs if r.t_arrive < t_death <= r.t_end]
    d = ts(t_death)
    ev.append((t_death, f"(APIServer pid=1) ERROR {d} [async_llm.py:708] AsyncLLM output_handler failed."))
    ev.append((t_death + 0.01, f"(APIServer pid=1) ERROR {d} [async_llm.py:708] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."))
    for i, r in enumerate(inflight):
        ev.append((t_death + 0.02 + i * 0.001, f'(APIServer pid=1) INFO:     10.1.6.81:{16900 + i} - "POST /v1/messages?beta=true HTTP/1.1" 500 Internal Server Error'))
    d2 = ts(t_death + 1)
    tb = ["Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/site-packages/vllm/entrypoints/openai/chat_completion/api_router.py", line 70, in create_messages',
          "    generator = await self.create_chat_completion(chat_req, raw_request)",
          '  File "/usr/local/lib/python3.12/site-packages/vllm/entrypoints/openai/chat_completion/serving.py", line 251, in create_chat_completion',
          "    result = await self.render_chat_request(request)",
          '  File "/usr/local/lib/python3.12/site-packages/vllm/entrypoints/openai/chat_completion/serving.py", line 225, in render_chat_request',
          "    raise self.engine_client.dead_error",
          "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]
    for j, l in enumerate(tb):
        ev.append((t_death + 1 + j * 0.0001, f"(APIServer pid=1) ERROR {d2} [api_router.py:72] {l}"))
    ev.append((t_death + 1.01, '(APIServer pid=1) INFO:     10.1.6.81:16983 - "POST /v1/messages?beta=true HTTP/1.1" 500 Internal Server Error'))
    ev.append((t_death + 1.5, "(APIServer pid=1) INFO:     Shutting down"))
    ev.append((t_death + 1.6, "(APIServer pid=1) INFO:     Waiting for application shutdown."))
    ev.append((t_death + 1.7, "(APIServer pid=1) INFO:     Application shutdown complete."))
    ev.append((t_death + 1.8, "(APIServer pid=1) INFO:     Finished server process [1]"))
    start = [f"(APIServer pid=1) INFO {ts(t0 - 2400)} [utils.py:299] vLLM API server version 0.20.2",
             f"(APIServer pid=1) INFO {ts(t0 - 1300)} [loggers.py:271] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 2400"]
    sc.write(out, manifest_notes="Kimi-K2.6 on 4x GB200 behind a coding agent (/v1/messages); requests started failing with 500 and the server went away",
             endpoint="http://kimi-gb200:8000", engine_args=args, model_config=None, served_name="Kimi-K2.6",
             startup_logs=start, log_prefix="(APIServer pid=1)", logger_line="loggers.py:271",
             access_prefix="(APIServer pid=1)", extra_events=ev, server_version={"version": "0.20.2"})
    # stats lines after the death never printed; drop them
    lines = (out / "logs.txt").read_text().splitlines()
    keep = []
    for l in lines:
        if "Engine 000: Avg prompt" in l or '" 200 OK' in l:
            stamp = l.split(" INFO ")[1][:14] if " INFO " in l and "Engine 000" in l else None
            if stamp is not None:
                tt = dt.datetime.strptime("2026-" + stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp()
                if tt > t_death:
                    continue
        keep.append(l)
    # access lines are time-sorted before the error events; remove 200s written after death
    cut = next(i for i, l in enumerate(keep) if "AsyncLLM output_handler failed" in l)
    keep = keep[:cut] + [l for l in keep[cut:] if '" 200 OK' not in l]
    (out / "logs.txt").write_text("\n".join(keep) + "\n")
    rows = [json.loads(l) for l in (out / "metrics.jsonl").read_text().splitlines()]
    with (out / "metrics.jsonl").open("w") as f:
        for r in rows:
            if r["t"] > t_death + 2:
                r = {"t": r["t"], "error": "Cannot connect to host kimi-gb200:8000 ssl:default [Connect call failed ('10.1.6.20', 8000)]"}
            f.write(json.dumps(r) + "\n")


# ---------------------------------------------------------------- 3 qwen3-32b awq 25k crawl
def qwen_crawl():
    rng = random.Random(18136)
    bench0 = 1747209600.0  # 05-14 08:00 UTC
    t0 = bench0 + 1800.0
    window, interval = 900.0, 15.0
    reqs = []
    tsched = bench0 + 0.5
    for i in range(50):
        p = 25000 + rng.randint(-3, 3)
        pre = rng.uniform(110.0, 124.0)
        reqs.append(Req(t_arrive=bench0 + i * 0.002, prompt=p, hit=0, gen=1024, queue=tsched - (bench0 + i * 0.002),
                        prefill=pre, itl=rng.uniform(1.36, 1.46), reason="length", max_tokens=1024))
        tsched += pre
    sc = Scenario(model="Qwen/Qwen3-32B-AWQ", version="0.8.5.post1", max_model_len=40960, pool_tokens=557056,
                  block_size=16, cache_labels=cache_labels(16, 34816, 0.9), reqs=reqs, t0=t0, window=window,
                  interval=interval, families="0.9.2", step_s=1.4)
    cfg = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
           "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
           "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 25600,
           "max_position_embeddings": 40960, "max_window_layers": 64, "model_type": "qwen3",
           "num_attention_heads": 64, "num_hidden_layers": 64, "num_key_value_heads": 8,
           "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                                   "quant_method": "awq", "version": "gemm", "zero_point": True},
           "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
           "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.51.0",
           "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-32B-AWQ", "--port", "8000",
            "--gpu-memory-utilization", "0.90", "--tensor-parallel-size", "4", "--disable-log-requests",
            "--quantization", "awq_marlin", "-O3"]
    args = {"argv": argv, "args": {"model": "Qwen/Qwen3-32B-AWQ", "port": 8000, "gpu-memory-utilization": 0.9,
                                   "tensor-parallel-size": 4, "disable-log-requests": True,
                                   "quantization": "awq_marlin", "O": 3}}

    def gpu(t):
        return [{"index": i, "name": "NVIDIA L40S", "memory_total": 48305799168, "memory_used": 44560000000,
                 "processes": [{"pid": 3100 + i, "name": "python3", "used_memory": 44020000000}]} for i in range(4)]
    sc.write(ROOT / "cases/zxb-qwen3-32b-awq-25k-prefill-crawl/bundle",
             manifest_notes="vllm bench serve: 50 prompts x 25000 input / 1024 output, request-rate inf; recorded 30-45 min into the run. VLLM_ATTENTION_BACKEND=FLASHINFER",
             endpoint="http://localhost:8000", engine_args=args, model_config=cfg, served_name="Qwen/Qwen3-32B-AWQ",
             startup_logs=[], log_prefix="", logger_line="loggers.py:111", gpu=gpu,
             server_version={"version": "0.8.5.post1"})


# ---------------------------------------------------------------- 4 voxcpm2 l40s bursts
def voxcpm2_burst():
    rng = random.Random(5365)
    t0 = 1785000000.0
    window, interval = 600.0, 5.0
    reqs = []
    b = t0 - 300.0
    while b < t0 + window:
        b += rng.uniform(19.0, 21.0)
        arr = sorted(b + rng.uniform(0, 0.03) for _ in range(10))
        free = b
        for g in range(0, 10, 3):
            grp = arr[g:g + 3]
            start = max(free, max(grp))
            dur = 0
            for a in grp:
                gen = rng.randint(44, 56)
                itl = rng.uniform(0.018, 0.021)
                pre = rng.uniform(0.08, 0.12)
                reqs.append(Req(t_arrive=a, prompt=rng.randint(80, 120), hit=0, gen=gen, queue=start - a,
                                prefill=pre, itl=itl, max_tokens=4096))
                dur = max(dur, pre + (gen - 1) * itl)
            free = start + dur
    sc = Scenario(model="tts-service", version="0.20.0", max_model_len=8192, pool_tokens=1_017_856, block_size=16,
                  cache_labels=cache_labels(16, 63616, 0.9), reqs=reqs, t0=t0, window=window, interval=interval,
                  families="0.12.0", step_s=0.02)
    argv = ["vllm-omni", "serve", "/models/VoxCPM2", "--omni", "--served-model-name", "tts-service", "--host",
            "0.0.0.0", "--port", "8000", "--enforce-eager", "--dtype", "bfloat16"]
    args = {"argv": argv, "args": {"model": "/models/VoxCPM2", "omni": True, "served-model-name": "tts-service",
                                   "host": "0.0.0.0", "port": 8000, "enforce-eager": True, "dtype": "bfloat16"}}
    gpu = lambda t: [{"index": 0, "name": "NVIDIA L40S", "memory_total": 48305799168, "memory_used": 43900000000,
                      "processes": [{"pid": 188, "name": "VLLM::EngineCore", "used_memory": 43400000000}]}]
    sc.write(ROOT / "cases/zxb-voxcpm2-l40s-burst-of-ten/bundle",
             manifest_notes="VoxCPM2 TTS on one L40S; load test sends 10 concurrent /api/tts_direct_stream requests every ~20 s; TTFB 0.49 s for the first few, 3.53 s for the last",
             endpoint="http://tts-l40s:8000", engine_args=args, model_config=None, served_name="tts-service",
             startup_logs=[], log_prefix="(APIServer pid=1)", logger_line="loggers.py:271", gpu=gpu,
             server_version={"version": "0.20.0"})


if __name__ == "__main__":
    voxcpm2_defer()
    kimi_dead()
    qwen_crawl()
    voxcpm2_burst()
