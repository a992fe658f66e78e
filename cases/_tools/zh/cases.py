"""Builders of the zh-* cases (writer zh, round 9). Seeded, no wall clock.

    /work/main/.venv/bin/python cases/_tools/zh/cases.py [case-id ...]
"""
from __future__ import annotations

import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Req, Scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def ts(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)


def poisson(rng, rate, a, b):
    out, t = [], a
    while True:
        t += rng.expovariate(rate)
        if t >= b:
            return out
        out.append(t)


def cache_labels(block, dtype, blocks, util, prefix=True):
    return {"block_size": str(block), "cache_dtype": dtype, "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(util),
            "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
            "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
            "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def gpus(name, total, used, n, pids, pname):
    def f(t):
        return [{"index": i, "name": name, "memory_total": total, "memory_used": used,
                 "processes": [{"pid": pids[i], "name": pname.format(i=i), "used_memory": used - 566231040}]}
                for i in range(n)]
    return f


# --------------------------------------------------------------------------- case 1 (dev-9)
def h200_qwen3_235b_v012():
    cid = "zh-h200-qwen3-235b-v012-decode-halved"
    rng = random.Random(3103)
    t0 = 1766066400.0  # 2025-12-18 14:00 UTC
    model = "/models/Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    reqs = []
    for ta in poisson(rng, 0.55, t0 - 1200, t0 + 600):
        prompt = int(rng.uniform(1500, 12000))
        hit = (min(prompt - 1, int(rng.uniform(0.38, 0.55) * prompt)) // 16) * 16
        gen = int(rng.uniform(150, 900))
        computed = prompt - hit
        prefill = computed / 15000.0 + 0.036
        itl = max(0.030, rng.gauss(0.0355, 0.0018))
        reason = "length" if rng.random() < 0.03 else "stop"
        reqs.append(Req(ta, prompt, hit, gen, rng.uniform(0.004, 0.02), prefill, itl, reason=reason, max_tokens=2048))
    pool = 1294000
    sc = Scenario(model="qwen3-235b-v2", version="0.12.0", max_model_len=100000, pool_tokens=pool,
                  block_size=16, cache_labels=cache_labels(16, "auto", pool // 16, 0.9), reqs=reqs, t0=t0,
                  window=600.0, interval=10.0, budget=8192, prefill_tps=15000.0, decode_step_s=0.0355)
    pre = "(APIServer pid=1)"
    st = t0 - 2400
    startup = [
        f"INFO {ts(st)} [__init__.py:216] Automatically detected platform cuda.",
        f"{pre} INFO {ts(st + 2)} [api_server.py:1839] vLLM API server version 0.12.0",
        f"{pre} INFO {ts(st + 2)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'port': 80, 'enable_auto_tool_choice': True, 'tool_call_parser': 'hermes', 'model': '{model}', 'max_model_len': 100000, 'served_model_name': ['qwen3-235b-v2'], 'guided_decoding_backend': 'xgrammar', 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'enable_chunked_prefill': True}}",
        f"{pre} INFO {ts(st + 9)} [model.py:637] Resolved architecture: Qwen3MoeForCausalLM",
        f"{pre} INFO {ts(st + 9)} [model.py:1750] Using max model len 100000",
        f"{pre} INFO {ts(st + 10)} [scheduler.py:230] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"(Worker_TP0 pid=412) INFO {ts(st + 41)} [cuda.py:411] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']",
        f"(Worker_TP0 pid=412) INFO {ts(st + 42)} [topk_topp_sampler.py:36] Using FlashInfer for top-p & top-k sampling.",
        f"(Worker_TP0 pid=412) INFO {ts(st + 203)} [gpu_model_runner.py:2912] Model loading took 54.7531 GiB memory and 158.214 seconds",
        f"(Worker_TP0 pid=412) INFO {ts(st + 268)} [gpu_worker.py:298] Available KV cache memory: 58.00 GiB",
        f"(EngineCore_DP0 pid=388) INFO {ts(st + 269)} [kv_cache_utils.py:1087] GPU KV cache size: 1,294,000 tokens",
        f"(EngineCore_DP0 pid=388) INFO {ts(st + 269)} [kv_cache_utils.py:1091] Maximum concurrency for 100,000 tokens per request: 12.94x",
        f"(Worker_TP0 pid=412) INFO {ts(st + 301)} [gpu_model_runner.py:3758] Graph capturing finished in 32 secs, took 1.64 GiB",
        f"(EngineCore_DP0 pid=388) INFO {ts(st + 303)} [core.py:250] init engine (profile, create kv cache, warmup model) took 98.71 seconds",
        f"{pre} INFO {ts(st + 305)} [loggers.py:181] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}",
        f"{pre} INFO {ts(st + 306)} [api_server.py:1634] Starting vLLM API server 0 on http://0.0.0.0:80",
    ]
    argv = ["vllm", "serve", "--served-model-name", "qwen3-235b-v2", "--model", model, "--gpu-memory-utilization", "0.90",
            "--max-model-len", "100000", "--port", "80", "--enable-chunked-prefill", "--enable-prefix-caching",
            "--tensor-parallel-size", "4", "--guided_decoding_backend", "xgrammar", "--enable-auto-tool-choice",
            "--tool-call-parser", "hermes", "--disable-log-requests"]
    args = {"served-model-name": "qwen3-235b-v2", "model": model, "gpu-memory-utilization": 0.9, "max-model-len": 100000,
            "port": 80, "enable-chunked-prefill": True, "enable-prefix-caching": True, "tensor-parallel-size": 4,
            "guided-decoding-backend": "xgrammar", "enable-auto-tool-choice": True, "tool-call-parser": "hermes",
            "disable-log-requests": True}
    mc = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 4096,
          "num_hidden_layers": 94, "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128,
          "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_experts": 128, "num_experts_per_tok": 8,
          "max_position_embeddings": 262144, "vocab_size": 151936, "rope_theta": 5000000, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                  "weight_block_size": [128, 128]}}
    sc.write(ROOT / "cases" / cid / "bundle",
             manifest_notes="production deployment after the upgrade to 0.12.0 (env VLLM_USE_FLASHINFER_SAMPLER=1); users report ~28 tok/s per stream, ~60 tok/s on 0.10.2",
             endpoint="http://qwen3-235b-v2.prod.internal:80", engine_args={"argv": argv, "args": args}, model_config=mc,
             served_name="qwen3-235b-v2", startup_logs=startup, log_prefix=pre, logger_line="loggers.py:236",
             gpu=gpus("NVIDIA H200", 150754820096, 137970581504, 4, [412, 413, 414, 415], "VLLM::Worker_TP{i}"))


# --------------------------------------------------------------------------- case 2 (holdout-9)
def b200_glm_hol():
    cid = "zh-b200-glm-longprompt-prefill-hol"
    rng = random.Random(7413)
    t0 = 1789020000.0  # 2026-09-10 04:40 UTC
    model = "zai-org/GLM-4.6-FP8"
    tps, budget, base_itl = 14000.0, 16384, 0.025
    arr = poisson(rng, 0.08, t0 - 1500, t0 + 600)
    spec = []
    for ta in arr:
        if rng.random() < 0.7:
            p = int(min(190000, max(60000, rng.lognormvariate(math.log(120000), 0.3))))
        else:
            p = int(rng.uniform(2000, 12000))
        hit = (int(rng.uniform(0, 1500)) // 16) * 16 if p > 20000 else 0
        spec.append((ta, p, hit, int(rng.uniform(100, 300))))
    # FIFO prefill server: one long prompt takes the whole step budget until it is done
    free_at, busy = 0.0, []
    reqs = []
    for ta, p, hit, gen in spec:
        start = max(ta + 0.01, free_at)
        service = (p - hit) / tps + 0.03
        free_at = start + service
        busy.append((start, free_at))
        reqs.append([ta, p, hit, gen, start - ta, service])
    step_pf = budget / tps

    def decode_end(t, n):
        for _ in range(n - 1):
            inb = any(a <= t < b for a, b in busy)
            t += step_pf if inb else base_itl
        return t
    out = []
    for ta, p, hit, gen, q, service in reqs:
        tf = ta + q + service
        te = decode_end(tf, gen)
        itl = (te - tf) / max(1, gen - 1)
        out.append(Req(ta, p, hit, gen, q, service, itl, reason="stop", max_tokens=1024))
    pool = 1366016
    sc = Scenario(model=model, version="0.28.1", max_model_len=202752, pool_tokens=pool, block_size=16,
                  cache_labels=cache_labels(16, "fp8", pool // 16, 0.9), reqs=out, t0=t0, window=600.0,
                  interval=10.0, budget=budget, prefill_tps=tps, decode_step_s=base_itl)
    pre = "(APIServer pid=1)"
    st = t0 - 3000
    startup = [
        f"INFO {ts(st)} [__init__.py:216] Automatically detected platform cuda.",
        f"{pre} INFO {ts(st + 2)} [api_server.py:1985] vLLM API server version 0.28.1",
        f"{pre} INFO {ts(st + 2)} [utils.py:299] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 202752, 'tensor_parallel_size': 4, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'enable_chunked_prefill': True, 'max_num_batched_tokens': 16384, 'max_num_partial_prefills': 4, 'gpu_memory_utilization': 0.9}}",
        f"{pre} INFO {ts(st + 9)} [model.py:552] Resolved architecture: Glm4MoeForCausalLM",
        f"{pre} INFO {ts(st + 9)} [model.py:1677] Using max model len 202752",
        f"{pre} INFO {ts(st + 10)} [scheduler.py:219] Chunked prefill is enabled with max_num_batched_tokens=16384.",
        f"(Worker_TP0 pid=340) INFO {ts(st + 40)} [cuda.py:331] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN']",
        f"(Worker_TP0 pid=340) INFO {ts(st + 221)} [gpu_model_runner.py:3582] Model loading took 83.1247 GiB memory and 176.402 seconds",
        f"(Worker_TP0 pid=340) INFO {ts(st + 330)} [gpu_worker.py:379] Available KV cache memory: 60.01 GiB",
        f"(EngineCore_DP0 pid=312) INFO {ts(st + 331)} [kv_cache_utils.py:1313] GPU KV cache size: 1,366,016 tokens",
        f"(EngineCore_DP0 pid=312) INFO {ts(st + 331)} [kv_cache_utils.py:1317] Maximum concurrency for 202,752 tokens per request: 6.74x",
        f"(Worker_TP0 pid=340) INFO {ts(st + 380)} [gpu_model_runner.py:4480] Graph capturing finished in 44 secs, took 2.31 GiB",
        f"{pre} INFO {ts(st + 395)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}",
        f"{pre} INFO {ts(st + 396)} [api_server.py:2062] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    argv = ["vllm", "serve", model, "--tensor-parallel-size", "4", "--max-model-len", "202752", "--kv-cache-dtype", "fp8", "--enable-prefix-caching",
            "--enable-chunked-prefill", "--max-num-batched-tokens", "16384", "--max-num-partial-prefills", "4",
            "--gpu-memory-utilization", "0.9"]
    args = {"tensor-parallel-size": 4, "max-model-len": 202752, "kv-cache-dtype": "fp8", "enable-prefix-caching": True, "enable-chunked-prefill": True,
            "max-num-batched-tokens": 16384, "max-num-partial-prefills": 4, "gpu-memory-utilization": 0.9}
    mc = {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 5120, "num_hidden_layers": 92,
          "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "partial_rotary_factor": 0.5,
          "intermediate_size": 12288, "moe_intermediate_size": 1536, "n_routed_experts": 160, "n_shared_experts": 1,
          "num_experts_per_tok": 8, "first_k_dense_replace": 3, "max_position_embeddings": 202752,
          "vocab_size": 151552, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}}
    sc.write(ROOT / "cases" / cid / "bundle",
             manifest_notes="long-context RAG replica; users report first tokens taking 10-30 s, also for short follow-up questions",
             endpoint="http://glm-rag.prod.internal:8000", engine_args={"argv": argv, "args": args}, model_config=mc,
             served_name=model, startup_logs=startup, log_prefix=pre, logger_line="loggers.py:259",
             gpu=gpus("NVIDIA B200", 191514673152, 174483718144, 4, [340, 341, 342, 343], "VLLM::Worker_TP{i}"))


# --------------------------------------------------------------------------- case 3 (holdout-9)
def nixl_3p1d():
    cid = "zh-nixl-3p1d-block16-descriptor-handover"
    rng = random.Random(50913)
    t0 = 1785744000.0  # 2026-08-03 08:00 UTC
    model = "Qwen/Qwen3-32B"
    per_desc = 16 * 4 * 128 * 1   # one 16-token block of one layer's K or V on one rank, fp8
    reqs = []
    for ta in poisson(rng, 4.5, t0 - 900, t0 + 600):
        p = int(rng.uniform(4500, 6500))
        hit = 512 if rng.random() < 0.6 else 0
        ext = p - hit - 1
        blocks = math.ceil(ext / 16)
        descs = blocks * 64 * 2
        xs = []
        for _rank in range(2):
            xs.append({"dur": max(0.07, rng.gauss(0.105, 0.012)), "post": max(0.006, rng.gauss(0.018, 0.004)),
                       "bytes": descs * per_desc, "descs": descs})
        wait = max(x["post"] + x["dur"] for x in xs) + rng.uniform(0.04, 0.09)   # + engine-step alignment
        recompute = max(0.03, rng.gauss(0.058, 0.008))
        gen = int(rng.uniform(150, 400))
        itl = max(0.018, rng.gauss(0.022, 0.0012))
        r = Req(ta, p, hit, gen, wait, recompute, itl, ext=ext, max_tokens=512, xfer=xs)
        reqs.append(r)
    pool = 598016
    labels = cache_labels(16, "fp8", pool // 16, 0.9)
    sc = Scenario(model=model, version="0.27.0", max_model_len=32768, pool_tokens=pool, block_size=16,
                  cache_labels=labels, reqs=reqs, t0=t0, window=600.0, interval=10.0, budget=8192,
                  prefill_tps=30000.0, decode_step_s=0.022, nixl=True)
    pre = "(APIServer pid=1)"
    st = t0 - 2400
    kvcfg = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    startup = [
        f"INFO {ts(st)} [__init__.py:216] Automatically detected platform cuda.",
        f"{pre} INFO {ts(st + 2)} [api_server.py:1932] vLLM API server version 0.27.0",
        f"{pre} INFO {ts(st + 2)} [utils.py:299] non-default args: {{'model_tag': '{model}', 'port': 8200, 'model': '{model}', 'max_model_len': 32768, 'tensor_parallel_size': 2, 'kv_cache_dtype': 'fp8', 'gpu_memory_utilization': 0.9, 'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_both')}}",
        f"{pre} INFO {ts(st + 8)} [model.py:552] Resolved architecture: Qwen3ForCausalLM",
        f"{pre} INFO {ts(st + 8)} [model.py:1677] Using max model len 32768",
        f"{pre} INFO {ts(st + 9)} [scheduler.py:219] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"(EngineCore_DP0 pid=210) INFO {ts(st + 20)} [factory.py:51] Creating v1 connector with name: NixlConnector and engine_id: 6b1d2c84-0d0e-4b7a-9c55-1f3a9e2d7c10",
        f"(Worker_TP0 pid=244) INFO {ts(st + 24)} [nixl_connector.py:812] Initializing NIXL wrapper",
        f"(Worker_TP0 pid=244) INFO {ts(st + 31)} [cuda.py:331] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN']",
        f"(Worker_TP0 pid=244) INFO {ts(st + 62)} [gpu_model_runner.py:3582] Model loading took 30.5810 GiB memory and 29.771 seconds",
        f"(Worker_TP0 pid=244) INFO {ts(st + 96)} [gpu_worker.py:379] Available KV cache memory: 36.50 GiB",
        f"(EngineCore_DP0 pid=210) INFO {ts(st + 97)} [kv_cache_utils.py:1313] GPU KV cache size: 598,016 tokens",
        f"(EngineCore_DP0 pid=210) INFO {ts(st + 97)} [kv_cache_utils.py:1317] Maximum concurrency for 32,768 tokens per request: 18.25x",
        f"(Worker_TP0 pid=244) INFO {ts(st + 99)} [nixl_connector.py:1402] Registering KV_Caches. use_mla: False, kv_buffer_device: cuda, use_host_buffer: False",
        f"(Worker_TP0 pid=244) INFO {ts(st + 130)} [gpu_model_runner.py:4480] Graph capturing finished in 29 secs, took 0.88 GiB",
        f"{pre} INFO {ts(st + 140)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}",
        f"{pre} INFO {ts(st + 141)} [api_server.py:2009] Starting vLLM API server 0 on http://0.0.0.0:8200",
    ]
    argv = ["vllm", "serve", model, "--port", "8200", "--tensor-parallel-size", "2", "--max-model-len", "32768",
            "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.9", "--kv-transfer-config", kvcfg]
    args = {"port": 8200, "tensor-parallel-size": 2, "max-model-len": 32768, "kv-cache-dtype": "fp8",
            "gpu-memory-utilization": 0.9, "kv-transfer-config": kvcfg}
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, "num_hidden_layers": 64,
          "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 25600,
          "max_position_embeddings": 40960, "vocab_size": 151936, "torch_dtype": "bfloat16", "rope_theta": 1000000}
    sc.write(ROOT / "cases" / cid / "bundle",
             manifest_notes="decode instance (D) of a single-node 3P1D NixlConnector deployment behind the P/D router; client TTFT ~25% above the co-located baseline",
             endpoint="http://10.0.0.12:8200", engine_args={"argv": argv, "args": args}, model_config=mc,
             served_name=model, startup_logs=startup, log_prefix=pre, logger_line="loggers.py:259",
             gpu=gpus("NVIDIA H100 80GB HBM3", 85520809984, 77460783104, 2, [244, 245], "VLLM::Worker_TP{i}"))


BUILDERS = {
    "zh-h200-qwen3-235b-v012-decode-halved": h200_qwen3_235b_v012,
    "zh-b200-glm-longprompt-prefill-hol": b200_glm_hol,
    "zh-nixl-3p1d-block16-descriptor-handover": nixl_3p1d,
}

if __name__ == "__main__":
    for cid in sys.argv[1:] or list(BUILDERS):
        BUILDERS[cid]()
        print("wrote", cid)
