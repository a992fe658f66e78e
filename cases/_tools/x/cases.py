"""Builders of the x-* cases (writer x). Run: PYTHONPATH=<worktree> python cases/_tools/x/cases.py
Deterministic (seeded RNGs, fixed epochs). Parameters from each case.yaml (quoted / assumed)."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Engine, Req, epoch, merge_expositions, vtime, write_bundle  # noqa: E402

GiB = 1024 ** 3
MiB = 1024 ** 2


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def cfg(blocks, gmu, prefix=True, override="None"):
    return {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(gmu),
            "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
            "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": str(override),
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def startup(version, model, nondefault, t_boot, pool_tokens, mml, kv_gib, weights_gib, dp=1, api=1, eng=40):
    A = "(APIServer pid=%d) " % api
    L = [A + f"INFO {vtime(t_boot)} [api_server.py:1839] vLLM API server version {version}",
         A + f"INFO {vtime(t_boot)} [utils.py:233] non-default args: {nondefault}",
         A + f"INFO {vtime(t_boot + 5)} [model.py:1510] Using max model len {mml}"]
    for d in range(dp):
        E = "(EngineCore_DP%d pid=%d) " % (d, eng + d)
        L += [E + f"INFO {vtime(t_boot + 40)} [gpu_model_runner.py:2602] Model loading took {weights_gib:.4f} GiB and 20.4 seconds",
              E + f"INFO {vtime(t_boot + 70)} [gpu_worker.py:298] Available KV cache memory: {kv_gib:.2f} GiB",
              E + f"INFO {vtime(t_boot + 70)} [kv_cache_utils.py:1087] GPU KV cache size: {pool_tokens:,} tokens",
              E + f"INFO {vtime(t_boot + 70)} [kv_cache_utils.py:1091] Maximum concurrency for {mml:,} tokens per request: {pool_tokens / mml:.2f}x",
              E + f"INFO {vtime(t_boot + 95)} [core.py:210] init engine (profile, create kv cache, warmup model) took 52.10 seconds"]
    L += [A + f"INFO {vtime(t_boot + 100)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
          A + "INFO:     Application startup complete."]
    return L


def stats_logs(engines, t0, t1, api=1):
    out, t = [], t0
    while t <= t1 + 1e-6:
        for e in engines:
            out.append("(APIServer pid=%d) " % api + f"INFO {vtime(t)} [loggers.py:123] " + e.stats_line(t - 10, t))
        t += 10
    return out


def gpu_rows(t0, t1, devs, step=10):
    rows, t = [], t0
    while t <= t1 + 1e-6:
        rows.append({"t": t, "devices": devs}); t += step
    return rows


# ------------------------------------------------------------------ healthy 96 users on an RTX 3060
def x_rtx3060():
    cid = "x-rtx3060-qwen7b-awq-96-users-healthy"
    rng = random.Random(3060)
    model = "Qwen/Qwen2.5-7B-Instruct-AWQ"
    t_boot = epoch(2025, 11, 8, 14, 2, 0)
    t0, t1 = epoch(2025, 11, 8, 14, 30, 0), epoch(2025, 11, 8, 14, 40, 0)
    reqs, free = [], [t0 - 300 + rng.uniform(0, 5) for _ in range(96)]
    while True:
        c = min(range(96), key=lambda k: free[k]); t = free[c]
        if t > t1: break
        p, g = rng.randint(200, 520), rng.randint(180, 320)
        pf = rng.uniform(0.08, 0.42) if rng.random() < 0.9 else rng.uniform(0.45, 0.95)
        r = Req(rid=hexid(rng), t_arrive=t, prompt=p, gen=g, queue_s=rng.uniform(0.0, 0.004), prefill_s=pf,
                itl_s=rng.uniform(0.058, 0.066), hit=(rng.choice([0, 16, 32]) ), max_tokens=512,
                reason="stop" if rng.random() < 0.8 else "length")
        reqs.append(r); free[c] = r.t_end + rng.uniform(0.1, 0.6)
    blocks = 4875
    e = Engine(ver="0110", model=model, reqs=reqs, pool_tokens=blocks * 16, block_size=16, cache_cfg=cfg(blocks, 0.9), t_created=t_boot + 100)
    nd = "{'model_tag': '%s', 'model': '%s', 'max_model_len': 4096, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 96, 'enable_prefix_caching': True}" % (model, model)
    logs = startup("0.11.0", model, nd, t_boot, blocks * 16, 4096, 4.18, 5.58) + stats_logs([e], t0, t1)
    dev = [{"index": 0, "name": "NVIDIA GeForce RTX 3060", "memory_total": 12 * GiB, "memory_used": int(11.02 * GiB),
            "processes": [{"pid": 40, "name": "VLLM::EngineCore", "used_memory": int(10.81 * GiB)}]}]
    argv = ["vllm", "serve", model, "--max-model-len", "4096", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "96", "--enable-prefix-caching"]
    write_bundle(cid, engines=[e], t0=t0, t1=t1, interval=10.0, endpoint="http://proxmox-gpu:8000",
                 notes="96-user step of a concurrency sweep; users say answers stream slower than when alone.",
                 server={"version": {"version": "0.11.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 4096}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": model, "max-model-len": 4096, "gpu-memory-utilization": 0.9, "max-num-seqs": 96, "enable-prefix-caching": True}},
                 model_config=QWEN25_7B_AWQ, gpu=gpu_rows(t0, t1, dev), logs=logs)


QWEN25_7B_AWQ = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
                 "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
                 "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
                 "num_hidden_layers": 28, "num_key_value_heads": 4, "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq", "version": "gemm", "zero_point": True},
                 "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
                 "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}


# ------------------------------------------------------------------ DP8 Ouro, load stuck on two engines
def x_dp8():
    cid = "x-dp8-ouro-lb-stuck-long-gen"
    rng = random.Random(40279)
    model = "ByteDance/Ouro-2.6B-Thinking"
    t_boot = epoch(2026, 4, 16, 9, 0, 0)
    t0, t1 = epoch(2026, 4, 18, 21, 0, 0), epoch(2026, 4, 18, 21, 8, 0)
    counts = [29, 2, 2, 2, 0, 15, 0, 0]
    engines = []
    blocks = 52000
    for k, n in enumerate(counts):
        reqs = []
        itl = 0.045 if n > 20 else (0.034 if n > 10 else 0.021)
        for i in range(n):
            g = rng.randint(12000, 28000) if n > 10 else rng.randint(28500, 30000)
            # started somewhere in the past, still running through the window
            start = min(t1 + rng.uniform(5, 0.5 * g * itl) - g * itl, t0 - 30 - rng.uniform(0, 20))
            reqs.append(Req(rid=hexid(rng), t_arrive=start, prompt=rng.randint(1500, 2600), gen=g, queue_s=0.0,
                            prefill_s=rng.uniform(0.15, 0.3), itl_s=itl * rng.uniform(0.97, 1.03), max_tokens=30000))
        # a few short jobs finishing/arriving on the light engines keep their histograms alive
        e = Engine(ver="0180", model=model, reqs=reqs, pool_tokens=blocks * 16, block_size=16, cache_cfg=cfg(blocks, 0.9, prefix=True),
                   engine=str(k), t_created=t_boot + 120)
        engines.append(e)
    nd = "{'model_tag': '%s', 'port': 5000, 'model': '%s', 'trust_remote_code': True, 'dtype': 'bfloat16', 'max_model_len': 32768, 'data_parallel_size': 8}" % (model, model)
    logs = startup("0.19.0", model, nd, t_boot, blocks * 16, 32768, 60.94, 5.12, dp=8) + stats_logs(engines, t0, t1)
    devs = []
    for k in range(8):
        devs.append({"index": k, "name": "NVIDIA H100 80GB HBM3", "memory_total": int(79.65 * GiB), "memory_used": int(72.1 * GiB),
                     "processes": [{"pid": 40 + k, "name": "VLLM::EngineCore_DP%d" % k, "used_memory": int(71.6 * GiB)}]})
    argv = ["vllm", "serve", model, "--tensor-parallel-size", "1", "-dp", "8", "--dtype", "bfloat16", "--trust-remote-code", "--port", "5000", "--max-model-len", "32768"]
    write_bundle(cid, engines=engines, t0=t0, t1=t1, interval=10.0, endpoint="http://gpu-node:5000",
                 notes="~60 h into a run of long generations; requests appear concentrated on a few GPUs.",
                 server={"version": {"version": "0.19.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 32768}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": model, "tensor-parallel-size": 1, "data-parallel-size": 8, "dtype": "bfloat16", "trust-remote-code": True, "port": 5000, "max-model-len": 32768}},
                 model_config=OURO, gpu=gpu_rows(t0, t1, devs), logs=logs, merge=merge_expositions)


OURO = {"architectures": ["OuroForCausalLM"], "model_type": "ouro", "hidden_size": 2048, "intermediate_size": 5632,
        "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 128, "total_ut_steps": 4,
        "max_position_embeddings": 65536, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "vocab_size": 49152, "use_cache": True}


# ------------------------------------------------------------------ recompute tax, 7B, KV capped
def x_recompute():
    cid = "x-recompute-tax-7b-kv-cap"
    rng = random.Random(54644)
    model = "Qwen/Qwen2.5-7B-Instruct"
    t_boot = epoch(2026, 8, 27, 16, 0, 0)
    t0, t1 = epoch(2026, 8, 27, 16, 20, 0), epoch(2026, 8, 27, 16, 30, 0)
    blocks = 1200
    reqs = []
    # 800 prompts sent at 4 req/s from t0-600; the capped pool keeps ~11 running, the rest wait for blocks;
    # FCFS pops the last admitted request, which usually has few computed tokens, many times per request
    slots = 11
    t_free = [t0 - 600 + i * 1.5 for i in range(slots)]
    ta = t0 - 600
    for i in range(800):
        ta += rng.expovariate(4.0)
        p, g = rng.randint(512, 1536), rng.randint(512, 1536)
        s = min(range(slots), key=lambda k: t_free[k])
        sched = max(ta, t_free[s])
        npre = rng.choices([0, 1, 2, 3, 4, 5, 6], [0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.1])[0]
        itl = rng.uniform(0.022, 0.027)
        pf = 0.05 + p / 9000
        dur = pf + g * itl
        ev = []
        for j in range(npre):
            te = sched + rng.uniform(0.05, 0.9) * (pf + g * itl)
            ev.append((te, rng.randint(32, 300)))
            dur += rng.uniform(0.3, 1.2)
        r = Req(rid=hexid(rng), t_arrive=ta, prompt=p, gen=g, queue_s=sched - ta, prefill_s=pf,
                itl_s=(dur - pf) / g, max_tokens=g, pre_ev=tuple(sorted(ev)))
        reqs.append(r); t_free[s] = sched + dur
    e = Engine(ver="0180", model=model, reqs=reqs, pool_tokens=blocks * 16, block_size=16,
               cache_cfg=cfg(blocks, 0.9, prefix=True, override=blocks), t_created=t_boot + 100)
    e.kv_fn = lambda t: min(1.0, 0.955 + 0.04 * ((int(t) * 7919) % 97) / 97)
    nd = "{'model_tag': '%s', 'model': '%s', 'num_gpu_blocks_override': 1200}" % (model, model)
    logs = startup("0.18.0", model, nd, t_boot, blocks * 16, 32768, 1.03, 14.25) + stats_logs([e], t0, t1)
    logs.insert(4, "(EngineCore_DP0 pid=40) " + f"INFO {vtime(t_boot + 70)} [kv_cache_utils.py:1040] Overriding num_gpu_blocks=75420 with num_gpu_blocks_override=1200")
    dev = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": int(79.25 * GiB), "memory_used": int(71.9 * GiB),
            "processes": [{"pid": 40, "name": "VLLM::EngineCore", "used_memory": int(71.4 * GiB)}]}]
    argv = ["vllm", "serve", model, "--num-gpu-blocks-override", "1200"]
    write_bundle(cid, engines=[e], t0=t0, t1=t1, interval=10.0, endpoint="http://bench-a100:8000",
                 notes="vllm bench serve random 800 prompts, --random-range-ratio 0.5, KV capped for a pressure run.",
                 server={"version": {"version": "0.18.0"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 32768}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": model, "num-gpu-blocks-override": 1200}},
                 model_config=QWEN25_7B, gpu=gpu_rows(t0, t1, dev), logs=logs)


QWEN25_7B = {k: v for k, v in QWEN25_7B_AWQ.items() if k != "quantization_config"}
QWEN25_7B.update({"torch_dtype": "bfloat16", "transformers_version": "4.43.1"})


# ------------------------------------------------------------------ L4 agent sessions past the KV cliff
def x_l4():
    cid = "x-l4-qwen3-4b-agent-kv-cliff"
    rng = random.Random(2202)
    model = "Qwen/Qwen3-4B-FP8"
    t_boot = epoch(2026, 5, 21, 10, 0, 0)
    t0, t1 = epoch(2026, 5, 21, 10, 40, 0), epoch(2026, 5, 21, 10, 50, 0)
    blocks = 6500
    reqs = []
    for s in range(14):
        turn = rng.randint(1, 12)
        t = t0 - 900 + rng.uniform(0, 20)
        while t < t1:
            ctx = 10000 + turn * 1000 + rng.randint(-150, 150)
            evicted = turn > 1 and rng.random() < 0.75
            hit = 10000 if evicted else (ctx - 1000 - rng.randint(0, 200)) // 16 * 16
            comp = ctx - hit
            queue = rng.uniform(6, 38) if (evicted and rng.random() < 0.6) else rng.uniform(0.0, 3.0)
            pf = 0.06 + comp / 9500 + rng.uniform(0, 1.5)
            r = Req(rid=hexid(rng), t_arrive=t, prompt=ctx, gen=75, queue_s=queue, prefill_s=pf,
                    itl_s=rng.uniform(0.030, 0.042), hit=hit, max_tokens=75)
            reqs.append(r)
            t = r.t_end + rng.uniform(0.5, 2.0)
            turn = turn + 1 if turn < 12 else 1
    e = Engine(ver="0180", model=model, reqs=reqs, pool_tokens=blocks * 16, block_size=16, cache_cfg=cfg(blocks, 0.9, prefix=True),
               t_created=t_boot + 100, step_tokens=8192)
    e.kv_fn = lambda t: min(1.0, 0.985 + 0.015 * ((int(t) * 104729) % 89) / 89)
    nd = "{'model_tag': '%s', 'model': '%s', 'max_model_len': 32768, 'enable_prefix_caching': True}" % (model, model)
    logs = startup("0.20.2", model, nd, t_boot, blocks * 16, 32768, 14.28, 4.41) + stats_logs([e], t0, t1)
    dev = [{"index": 0, "name": "NVIDIA L4", "memory_total": int(22.49 * GiB), "memory_used": int(20.6 * GiB),
            "processes": [{"pid": 40, "name": "VLLM::EngineCore", "used_memory": int(20.1 * GiB)}]}]
    argv = ["vllm", "serve", model, "--max-model-len", "32768", "--enable-prefix-caching"]
    write_bundle(cid, engines=[e], t0=t0, t1=t1, interval=10.0, endpoint="http://g6-4xlarge:8000",
                 notes="14 concurrent coding-agent sessions (10k shared system prompt, +1k per turn, 75 output tokens).",
                 server={"version": {"version": "0.20.2"}, "models": {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 32768}]}, "health": 200},
                 engine_args={"argv": argv, "args": {"model": model, "max-model-len": 32768, "enable-prefix-caching": True}},
                 model_config=QWEN3_4B, gpu=gpu_rows(t0, t1, dev), logs=logs)


QWEN3_4B = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
            "head_dim": 128, "hidden_act": "silu", "hidden_size": 2560, "intermediate_size": 9728, "max_position_embeddings": 40960,
            "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
            "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
            "rms_norm_eps": 1e-06, "rope_theta": 1000000, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "vocab_size": 151936}


ALL = {"x-rtx3060-qwen7b-awq-96-users-healthy": x_rtx3060, "x-dp8-ouro-lb-stuck-long-gen": x_dp8,
       "x-recompute-tax-7b-kv-cap": x_recompute, "x-l4-qwen3-4b-agent-kv-cliff": x_l4}

if __name__ == "__main__":
    for k in (sys.argv[1:] or ALL):
        ALL[k](); print("built", k)
