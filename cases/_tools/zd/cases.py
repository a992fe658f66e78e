"""Builders of the zd-* bundles (writer zd, round 8). Deterministic: seeded RNGs, fixed clocks.

    /work/main/.venv/bin/python cases/_tools/zd/cases.py [case-id ...]
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Req, Scenario  # noqa: E402

CASES = Path(__file__).resolve().parents[2]
GIB = 1024 ** 3
MIB = 1024 ** 2


def ts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def cache_labels(fam, *, block, dtype, util, blocks, pc=True):
    lab = {"block_size": str(block), "cache_dtype": dtype, "calculate_kv_scales": "False",
           "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0",
           "enable_prefix_caching": str(pc), "gpu_memory_utilization": str(util),
           "is_attention_free": "False"}
    if fam in ("0.10.2", "0.11.0", "0.12.0"):
        lab.update({"kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
                    "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
                    "mamba_ssm_cache_dtype": "auto"})
    if fam == "0.12.0":
        lab.update({"kv_offloading_backend": "native", "kv_offloading_size": "None",
                    "mamba_block_size": "None"})
    lab.update({"num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
                "num_gpu_blocks_override": "None",
                "prefix_caching_hash_algo": "builtin" if fam == "0.9.2" else "sha256",
                "sliding_window": "None", "swap_space": "4"})
    return dict(sorted(lab.items()))


def gpu_sampler(name, total, used_fn, pid, pname):
    def f(t):
        used = used_fn(t)
        return [{"index": 0, "name": name, "memory_total": total, "memory_used": used,
                 "processes": [{"pid": pid, "name": pname, "used_memory": max(0, used - 540 * MIB)}]}]
    return f


def poisson(rng, t_from, t_to, rate):
    t, out = t_from, []
    while True:
        t += rng.expovariate(rate)
        if t >= t_to:
            return out
        out.append(t)


# ---------------------------------------------------------------------------------------------
# 1. dev-8: TPOT panel empty on 0.12 (time_per_output_token_seconds hidden), Qwen3-8B on L40S
# ---------------------------------------------------------------------------------------------
def case_tpot():
    cid = "zd-tpot-panel-empty-v012-hidden"
    rng = random.Random(27)
    t0, window, interval = 1766052000.0, 600.0, 10.0  # 2025-12-18 10:00 UTC
    reqs = []
    for t in poisson(rng, t0 - 900, t0 + window, 0.5):
        prompt = rng.randint(380, 1050)
        hit = 192 if t > t0 - 895 else 0
        gen = rng.randint(70, 450)
        itl = 0.024 * rng.uniform(0.96, 1.06)
        prefill = 0.045 + (prompt - hit) * 0.00012
        reqs.append(Req(t, prompt, hit, gen, rng.uniform(0.002, 0.01), prefill, itl, "stop" if gen < 450 else "length", 1024))
    blocks = 10_877
    pool = blocks * 16
    model = "Qwen/Qwen3-8B"
    sc = Scenario(model=model, version="0.12.0", max_model_len=8192, pool_tokens=pool, block_size=16,
                  cache_labels=cache_labels("0.12.0", block=16, dtype="auto", util=0.9, blocks=blocks),
                  reqs=reqs, t0=t0, window=window, interval=interval, families="0.12.0", step_s=0.024)
    argv = ["vllm", "serve", model, "--max-model-len", "8192", "--gpu-memory-utilization", "0.90",
            "--port", "8000"]
    args = {"max-model-len": 8192, "gpu-memory-utilization": 0.9}
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
          "intermediate_size": 12288, "num_hidden_layers": 36, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960,
          "rope_theta": 1000000, "torch_dtype": "bfloat16", "vocab_size": 151936,
          "tie_word_embeddings": False, "sliding_window": None, "use_sliding_window": False}
    ta = t0 - 1500
    P = "(APIServer pid=1)"
    E = "(EngineCore_DP0 pid=214)"
    logs = [
        f"{P} INFO {ts(ta)} [api_server.py:1977] vLLM API server version 0.12.0",
        f"{P} INFO {ts(ta)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 8192, 'gpu_memory_utilization': 0.9}}",
        f"{P} INFO {ts(ta + 6)} [model.py:631] Resolved architecture: Qwen3ForCausalLM",
        f"{P} INFO {ts(ta + 6)} [model.py:1745] Using max model len 8192",
        f"{P} INFO {ts(ta + 6)} [scheduler.py:216] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"{E} INFO {ts(ta + 14)} [core.py:93] Initializing a V1 LLM engine (v0.12.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"{E} INFO {ts(ta + 20)} [cuda.py:411] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']",
        f"{E} INFO {ts(ta + 58)} [gpu_model_runner.py:3338] Model loading took 15.27 GiB memory and 36.81 seconds",
        f"{E} INFO {ts(ta + 80)} [gpu_worker.py:359] Available KV cache memory: 23.90 GiB",
        f"{E} INFO {ts(ta + 80)} [kv_cache_utils.py:1229] GPU KV cache size: {pool:,} tokens",
        f"{E} INFO {ts(ta + 80)} [kv_cache_utils.py:1234] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x",
        f"{E} INFO {ts(ta + 101)} [gpu_model_runner.py:4244] Graph capturing finished in 19 secs, took 0.74 GiB",
        f"{E} INFO {ts(ta + 101)} [core.py:250] init engine (profile, create kv cache, warmup model) took 42.57 seconds",
        f"{P} INFO {ts(ta + 104)} [api_server.py:2052] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    used = int(0.9 * 44.39 * GIB) + 540 * MIB
    sc.write(CASES / cid / "bundle", manifest_notes="EKS workshop replica; Grafana 'vLLM Time Per Output Token' panel shows No data since the image bump; captured while investigating",
             endpoint="http://vllm-qwen3-8b.genai.svc:8000", engine_args={"argv": argv, "args": args},
             model_config=mc, served_name=model, startup_logs=logs, log_prefix=P,
             logger_line="loggers.py:236",
             gpu=gpu_sampler("NVIDIA L40S", int(44.99 * GIB), lambda t: used, 214, "VLLM::EngineCore"),
             access_prefix=P)


# ---------------------------------------------------------------------------------------------
# 2. holdout-8: kv_cache_usage_perc once per API-server pid (0.11.0, --api-server-count 8)
# ---------------------------------------------------------------------------------------------
def case_pids():
    cid = "zd-kv-usage-gauge-eight-pids"
    rng = random.Random(28792)
    t0, window, interval = 1763200800.0, 600.0, 10.0  # 2025-11-15 10:00 UTC
    reqs = []
    for slot in range(58):                          # ~58 users in a closed loop, 0.3-1.5 s think time
        t = t0 - 900.0 + slot * 0.31
        while t < t0 + window:
            prompt = rng.randint(3100, 5100)
            hit = rng.choice([0, 0, 0, 512, 1024]) if t > t0 - 890 else 0
            gen = min(1024, max(120, int(rng.gauss(600, 180))))
            itl = 0.030 * rng.uniform(0.95, 1.07)
            prefill = 0.12 + (prompt - hit) * 0.00007
            r = Req(t, prompt, hit, gen, rng.uniform(0.005, 0.04), prefill, itl,
                    "stop" if gen < 1024 else "length", 2048)
            reqs.append(r)
            t = r.t_end + rng.uniform(0.3, 1.5)
    blocks = 23_456
    pool = blocks * 16
    model = "Qwen/Qwen3-VL-8B-Instruct"
    pids = list(range(271, 279))
    sc = Scenario(model=model, version="0.11.0", max_model_len=32768, pool_tokens=pool, block_size=16,
                  cache_labels=cache_labels("0.11.0", block=16, dtype="auto", util=0.9, blocks=blocks),
                  reqs=reqs, t0=t0, window=window, interval=interval, families="0.11.0", step_s=0.030,
                  mp_pids=pids, live_pid=273)
    argv = ["vllm", "serve", model, "--api-server-count", "8", "--max-model-len", "32768",
            "--gpu-memory-utilization", "0.90", "--limit-mm-per-prompt", '{"image": 2}']
    args = {"api-server-count": 8, "max-model-len": 32768, "gpu-memory-utilization": 0.9,
            "limit-mm-per-prompt": '{"image": 2}'}
    mc = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
          "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096, "intermediate_size": 12288,
                          "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
                          "head_dim": 128, "max_position_embeddings": 262144, "rope_theta": 5000000,
                          "torch_dtype": "bfloat16", "vocab_size": 151936},
          "vision_config": {"model_type": "qwen3_vl", "depth": 27, "hidden_size": 1152, "num_heads": 16,
                            "patch_size": 16, "spatial_merge_size": 2, "out_hidden_size": 4096},
          "image_token_id": 151655, "video_token_id": 151656, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16"}
    ta = t0 - 1400
    P = "(APIServer pid=1)"
    E = "(EngineCore_DP0 pid=240)"
    logs = [
        f"{P} INFO {ts(ta)} [api_server.py:1839] vLLM API server version 0.11.0",
        f"{P} INFO {ts(ta)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'api_server_count': 8, 'model': '{model}', 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'limit_mm_per_prompt': {{'image': 2}}}}",
        f"{P} INFO {ts(ta + 7)} [model.py:547] Resolved architecture: Qwen3VLForConditionalGeneration",
        f"{P} INFO {ts(ta + 7)} [model.py:1510] Using max model len 32768",
        f"{P} INFO {ts(ta + 7)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"{E} INFO {ts(ta + 15)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, kv_cache_dtype=auto, enable_prefix_caching=True",
        f"{E} INFO {ts(ta + 22)} [cuda.py:366] Using Flash Attention backend on V1 engine.",
        f"{E} INFO {ts(ta + 61)} [gpu_model_runner.py:2653] Model loading took 16.78 GiB and 38.44 seconds",
        f"{E} INFO {ts(ta + 70)} [gpu_model_runner.py:3344] Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size.",
        f"{E} INFO {ts(ta + 96)} [gpu_worker.py:298] Available KV cache memory: 51.54 GiB",
        f"{E} INFO {ts(ta + 96)} [kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens",
        f"{E} INFO {ts(ta + 96)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: {pool / 32768:.2f}x",
        f"{E} INFO {ts(ta + 118)} [gpu_model_runner.py:3480] Graph capturing finished in 21 secs, took 0.88 GiB",
        f"{E} INFO {ts(ta + 118)} [core.py:210] init engine (profile, create kv cache, warmup model) took 57.13 seconds",
    ]
    for i, pid in enumerate(pids):
        logs.append(f"(ApiServer_{i} pid={pid}) INFO {ts(ta + 121)} [api_server.py:1912] Starting vLLM API server {i} on http://0.0.0.0:8000")
    used = int(0.9 * 79.19 * GIB) + 540 * MIB
    # access lines from the eight API servers; no periodic stats lines (stat logging is off with >1 API server)
    ev = []
    for i, r in enumerate(reqs):
        if t0 - 120 <= r.t_end < t0 + window and i % 4 == 0:
            ev.append((r.t_end, f'(ApiServer_{(i // 4) % 8} pid={pids[(i // 4) % 8]}) INFO:     10.4.{(i % 5) + 1}.{20 + i % 60}:{41000 + i % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    sc.write(CASES / cid / "bundle", manifest_notes="dashboard panel 'KV cache usage' = avg(vllm:kv_cache_usage_perc) reads ~8%; scrape shows eight pid series",
             endpoint="http://qwen3-vl.internal:8000", engine_args={"argv": argv, "args": args},
             model_config=mc, served_name=model, startup_logs=logs, log_prefix=P,
             logger_line="loggers.py:123",
             gpu=gpu_sampler("NVIDIA H100 80GB HBM3", int(79.65 * GIB), lambda t: used, 240, "VLLM::EngineCore"),
             stats=False, extra_events=ev)


# ---------------------------------------------------------------------------------------------
# 3. holdout-8: fp8 KV + sleep(level=2) -> gibberish after wake (0.10.2, Qwen3-1.7B, H100)
# ---------------------------------------------------------------------------------------------
def case_sleep():
    cid = "zd-fp8-kv-sleep2-wake-gibberish"
    rng = random.Random(25800)
    t0, window, interval = 1759053600.0, 600.0, 10.0  # 2025-09-28 10:00 UTC
    t_sleep, t_wake = t0 + 272.0, t0 + 346.0
    reqs = []
    itl = 0.0085
    for slot in range(48):
        t = t0 - 300.0 + slot * 0.03
        while t < t0 + window:
            if t_sleep - 12 <= t < t_wake:          # trainer drains, sleeps, syncs weights, wakes
                t = t_wake + 2.0 + rng.uniform(0.0, 9.0)
                continue
            prompt = rng.randint(300, 500)
            hit = 96 if t > t0 - 299 else 0
            after = t >= t_wake
            if after:
                gen, reason = 1024, "length"
            else:
                gen, reason = max(60, int(rng.gauss(350, 110))), "stop"
                gen = min(gen, 1023)
            prefill = 0.02 + (prompt - hit) * 0.00004
            r = Req(t, prompt, hit, gen, 0.002, prefill, itl * rng.uniform(0.97, 1.05), reason, 1024)
            if (not after) and r.t_end > t_sleep - 12:
                break_t = t_wake + 2.0 + rng.uniform(0.0, 9.0)
                t = break_t
                continue
            reqs.append(r)
            t = r.t_end + rng.uniform(0.01, 0.05)
    blocks = 72_560
    pool = blocks * 16
    model = "Qwen/Qwen3-1.7B"
    sc = Scenario(model=model, version="0.10.2", max_model_len=8192, pool_tokens=pool, block_size=16,
                  cache_labels=cache_labels("0.10.2", block=16, dtype="fp8", util=0.85, blocks=blocks),
                  reqs=reqs, t0=t0, window=window, interval=interval, families="0.10.2", step_s=0.0085)
    argv = ["vllm", "serve", model, "--enable-sleep-mode", "--kv-cache-dtype", "fp8",
            "--gpu-memory-utilization", "0.85", "--max-model-len", "8192", "--port", "8000"]
    args = {"enable-sleep-mode": True, "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.85,
            "max-model-len": 8192}
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048,
          "intermediate_size": 6144, "num_hidden_layers": 28, "num_attention_heads": 16,
          "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960,
          "rope_theta": 1000000, "torch_dtype": "bfloat16", "vocab_size": 151936,
          "tie_word_embeddings": True, "sliding_window": None, "use_sliding_window": False}
    ta = t0 - 1200
    P = "(APIServer pid=1)"
    E = "(EngineCore_0 pid=188)"
    logs = [
        f"{P} INFO {ts(ta)} [api_server.py:1896] vLLM API server version 0.10.2",
        f"{P} INFO {ts(ta)} [utils.py:328] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 8192, 'enable_sleep_mode': True, 'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'fp8'}}",
        f"{P} INFO {ts(ta + 5)} [__init__.py:742] Resolved architecture: Qwen3ForCausalLM",
        f"{P} INFO {ts(ta + 5)} [__init__.py:1815] Using max model len 8192",
        f"{P} INFO {ts(ta + 5)} [cache.py:180] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
        f"{P} INFO {ts(ta + 5)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"{P} WARNING {ts(ta + 6)} [api_server.py:1598] SECURITY WARNING: Development endpoints are enabled! This should NOT be used in production!",
        f"{E} INFO {ts(ta + 12)} [core.py:654] Waiting for init message from front-end.",
        f"{E} INFO {ts(ta + 12)} [core.py:76] Initializing a V1 LLM engine (v0.10.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, kv_cache_dtype=fp8, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"{E} INFO {ts(ta + 18)} [cuda.py:328] Using Flash Attention backend on V1 engine.",
        f"{E} WARNING {ts(ta + 30)} [kv_cache.py:86] Checkpoint does not provide a q scaling factor. Setting it to k_scale. This only matters for the flash-attn backend.",
        f"{E} WARNING {ts(ta + 30)} [kv_cache.py:100] Using KV cache scaling factor 1.0 for fp8_e4m3. This may cause accuracy issues. Please make sure k/v_scale scaling factors are available in the fp8 checkpoint.",
        f"{E} INFO {ts(ta + 30)} [gpu_model_runner.py:2007] Model loading took 3.21 GiB and 9.62 seconds",
        f"{E} INFO {ts(ta + 44)} [gpu_worker.py:276] Available KV cache memory: 62.00 GiB",
        f"{E} INFO {ts(ta + 44)} [kv_cache_utils.py:849] GPU KV cache size: {pool:,} tokens",
        f"{E} INFO {ts(ta + 44)} [kv_cache_utils.py:853] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x",
        f"{E} INFO {ts(ta + 61)} [gpu_model_runner.py:2708] Graph capturing finished in 16 secs, took 0.52 GiB",
        f"{E} INFO {ts(ta + 61)} [core.py:217] init engine (profile, create kv cache, warmup model) took 30.84 seconds",
        f"{P} INFO {ts(ta + 63)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    ev = [
        (t_sleep - 0.5, f'{P} INFO:     10.1.0.5:52210 - "POST /reset_prefix_cache HTTP/1.1" 200 OK'),
        (t_sleep + 0.9, f"{E} INFO {ts(t_sleep + 0.9)} [gpu_worker.py:104] Sleep mode freed 66.94 GiB memory, 0.62 GiB memory is still in use."),
        (t_sleep + 0.9, f"{E} INFO {ts(t_sleep + 0.9)} [executor_base.py:214] It took 0.884215 seconds to fall asleep."),
        (t_sleep + 1.0, f'{P} INFO:     10.1.0.5:52210 - "POST /sleep?level=2 HTTP/1.1" 200 OK'),
        (t_wake - 20.0, f"{E} INFO {ts(t_wake - 20.0)} [executor_base.py:230] It took 0.091733 seconds to wake up tags ['weights']."),
        (t_wake - 20.0, f'{P} INFO:     10.1.0.5:52210 - "POST /wake_up?tags=weights HTTP/1.1" 200 OK'),
        (t_wake - 4.0, f"{E} INFO {ts(t_wake - 4.0)} [gpu_model_runner.py:2212] Reloading weights inplace..."),
        (t_wake - 1.5, f'{P} INFO:     10.1.0.5:52210 - "POST /collective_rpc HTTP/1.1" 200 OK'),
        (t_wake - 0.6, f"{E} INFO {ts(t_wake - 0.6)} [executor_base.py:230] It took 0.213340 seconds to wake up tags ['kv_cache']."),
        (t_wake - 0.5, f'{P} INFO:     10.1.0.5:52210 - "POST /wake_up?tags=kv_cache HTTP/1.1" 200 OK'),
    ]
    used_awake = int(0.85 * 79.19 * GIB) + 540 * MIB

    def used(t):
        if t_sleep + 1 <= t < t_wake - 20:
            return int(0.62 * GIB) + 540 * MIB
        if t_wake - 20 <= t < t_wake - 0.5:
            return int(3.83 * GIB) + 540 * MIB
        return used_awake
    sc.write(CASES / cid / "bundle", manifest_notes="RL rollout server (dev-mode sleep/wake between rollout and training phases); trainer reports garbage completions and reward collapse after the first weight sync",
             endpoint="http://rollout-0:8000", engine_args={"argv": argv, "args": args},
             model_config=mc, served_name=model, startup_logs=logs, log_prefix=P,
             logger_line="loggers.py:123",
             gpu=gpu_sampler("NVIDIA H100 80GB HBM3", int(79.65 * GIB), used, 188, "VLLM::EngineCore"),
             extra_events=ev)


# ---------------------------------------------------------------------------------------------
# 4. holdout-8: FlashInfer fp8 KV on V1 -> GSM8K exact_match 0, Llama-3.1-8B-Instruct, H100
# ---------------------------------------------------------------------------------------------
def case_flashinfer():
    cid = "zd-flashinfer-fp8-kv-gsm8k-zero"
    rng = random.Random(17005)
    t0, window, interval = 1752055200.0, 360.0, 10.0  # 2025-07-09 10:00 UTC
    reqs = []
    itl = 0.0082
    n = 0
    for slot in range(8):
        t = t0 - 15.0 + slot * 0.02
        while n < 1319 and t < t0 + window:
            prompt = rng.randint(820, 960)
            hit = 768 if n > 0 else 0
            prefill = 0.018 + (prompt - hit) * 0.00006
            r = Req(t, prompt, hit, 256, 0.001, prefill, itl * rng.uniform(0.97, 1.04), "length", 256)
            reqs.append(r)
            n += 1
            t = r.t_end + rng.uniform(0.003, 0.012)
    blocks = 55_910
    pool = blocks * 16
    model = "meta-llama/Llama-3.1-8B-Instruct"
    sc = Scenario(model=model, version="0.9.2", max_model_len=8192, pool_tokens=pool, block_size=16,
                  cache_labels=cache_labels("0.9.2", block=16, dtype="fp8", util=0.9, blocks=blocks),
                  reqs=reqs, t0=t0, window=window, interval=interval, families="0.9.2", step_s=0.0082)
    argv = ["vllm", "serve", model, "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
            "--gpu-memory-utilization", "0.90", "--port", "8000"]
    args = {"kv-cache-dtype": "fp8", "max-model-len": 8192, "gpu-memory-utilization": 0.9}
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
          "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
          "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0,
                                                   "low_freq_factor": 1.0,
                                                   "original_max_position_embeddings": 8192,
                                                   "rope_type": "llama3"},
          "torch_dtype": "bfloat16", "vocab_size": 128256, "tie_word_embeddings": False}
    ta = t0 - 600
    logs = [
        f"INFO {ts(ta)} [__init__.py:244] Automatically detected platform cuda.",
        f"INFO {ts(ta + 2)} [api_server.py:1395] vLLM API server version 0.9.2",
        f"INFO {ts(ta + 2)} [cli_args.py:325] non-default args: {{'model': '{model}', 'max_model_len': 8192, 'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8'}}",
        f"INFO {ts(ta + 9)} [config.py:841] This model supports multiple tasks: {{'generate', 'embed', 'classify', 'reward'}}. Defaulting to 'generate'.",
        f"INFO {ts(ta + 9)} [config.py:1472] Using max model len 8192",
        f"INFO {ts(ta + 9)} [config.py:1592] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
        f"INFO {ts(ta + 9)} [config.py:2285] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"INFO {ts(ta + 16)} [core.py:526] Waiting for init message from front-end.",
        f"INFO {ts(ta + 16)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, kv_cache_dtype=fp8, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"INFO {ts(ta + 22)} [cuda.py:270] Using FlashInfer backend on V1 engine.",
        f"WARNING {ts(ta + 40)} [kv_cache.py:87] Checkpoint does not provide a q scaling factor. Setting it to k_scale. This only matters for the flash-attn backend.",
        f"WARNING {ts(ta + 40)} [kv_cache.py:101] Using KV cache scaling factor 1.0 for fp8_e4m3. This may cause accuracy issues. Please make sure k/v_scale scaling factors are available in the fp8 checkpoint.",
        f"INFO {ts(ta + 40)} [gpu_model_runner.py:1801] Model loading took 14.99 GiB and 17.08 seconds",
        f"INFO {ts(ta + 58)} [gpu_worker.py:232] Available KV cache memory: 54.60 GiB",
        f"INFO {ts(ta + 58)} [kv_cache_utils.py:716] GPU KV cache size: {pool:,} tokens",
        f"INFO {ts(ta + 58)} [kv_cache_utils.py:720] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x",
        f"INFO {ts(ta + 80)} [gpu_model_runner.py:2326] Graph capturing finished in 21 secs, took 0.61 GiB",
        f"INFO {ts(ta + 80)} [core.py:172] init engine (profile, create kv cache, warmup model) took 39.71 seconds",
        f"INFO {ts(ta + 82)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    used = int(0.9 * 79.19 * GIB) + 540 * MIB
    sc.write(CASES / cid / "bundle", manifest_notes="lm_eval gsm8k 5-shot (local-completions, 8 concurrent) against this server returned exact_match 0; captured during the eval run",
             endpoint="http://localhost:8000", engine_args={"argv": argv, "args": args},
             model_config=mc, served_name=model, startup_logs=logs, log_prefix="",
             logger_line="loggers.py:118",
             gpu=gpu_sampler("NVIDIA H100 80GB HBM3", int(79.65 * GIB), lambda t: used, 3102, "python3"),
             access_prefix="", server_version={"version": "0.9.2"})


BUILDERS = {
    "zd-tpot-panel-empty-v012-hidden": case_tpot,
    "zd-kv-usage-gauge-eight-pids": case_pids,
    "zd-fp8-kv-sleep2-wake-gibberish": case_sleep,
    "zd-flashinfer-fp8-kv-gsm8k-zero": case_flashinfer,
}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[cid]()
        print("wrote", cid)
