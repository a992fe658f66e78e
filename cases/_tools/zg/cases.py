"""Build the zg-* bundles: cd <worktree> && /work/main/.venv/bin/python cases/_tools/zg/cases.py

Aggregate-level builder: each case gives, per 10-15 s interval, the requests that got their first token,
finished, their prompt/cached/generated tokens, preemptions, running/waiting and KV usage; every counter,
histogram and stats log line derives from those same interval records. Family names/HELP/buckets from the
last scrape of an existing case bundle (gen.py, copied from cases/_tools/zf/gen.py), vLLM 0.19.1 layout.
"""
import json, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import gen
from gen import _template, _lab, _num, _hist, ts, server_json, tmpl_cc, ROOT

T = "b-hybrid-qwen35-block528"


def scrape(model, cc, S):
    base = {"engine": "0", "model_name": model}
    vals = {"vllm:num_requests_running": S["run"], "vllm:num_requests_waiting": S["wait"], "vllm:kv_cache_usage_perc": S["kv"],
            "vllm:prefix_cache_queries": S["pq"], "vllm:prefix_cache_hits": S["ph"], "vllm:num_preemptions": S["pre"],
            "vllm:prompt_tokens": S["pt"], "vllm:prompt_tokens_cached": S["ph"], "vllm:generation_tokens": S["gt"],
            "vllm:external_prefix_cache_queries": 0, "vllm:external_prefix_cache_hits": 0, "vllm:num_requests_swapped": 0}
    H = S["h"]
    out = []
    for f in _template(T):
        n, ty = f["name"], f["type"]
        if n in ("vllm:cache_config_info", "vllm:lora_requests_info"):
            continue
        e = n + "_total" if ty == "counter" else n
        out += [f"# HELP {e} {f['help']}", f"# TYPE {e} {ty}"]
        if n == "vllm:engine_sleep_state":
            for s, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                out.append(f'{n}{{{_lab({**base, "sleep_state": s})}}} {_num(v)}')
        elif n == "vllm:prompt_tokens_by_source":
            for s, v in (("local_compute", S["pt"] - S["ph"]), ("local_cache_hit", S["ph"]), ("external_kv_transfer", 0)):
                out.append(f'{n}_total{{{_lab({**base, "source": s})}}} {_num(v)}')
        elif n == "vllm:request_success":
            for r in ("stop", "length", "abort", "error"):
                out.append(f'{n}_total{{{_lab({**base, "finished_reason": r})}}} {_num(S["done"] if r == "stop" else 0)}')
        elif ty == "histogram":
            _hist(out, n, base, H.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{_lab(base)}}} {_num(vals.get(n, 0))}")
        else:
            out.append(f"{n}{{{_lab(base)}}} {_num(vals.get(n, 0))}")
    out += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge",
            f"vllm:cache_config_info{{{_lab(dict(sorted(({'engine': '0'} | cc).items())))}}} 1.0"]
    return "\n".join(out) + "\n"


def run(cid, model, root, mml, cc, start, iv, ivals, *, args, mcfg, gpu_dev, startup, notes, api=1, core=2):
    """ivals: list of dicts per interval: n_first, prompt, cached, gen, done, pre, run, wait, kv, ttft[], itl[], e2e[], queue[]."""
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    S = {"run": 0, "wait": 0, "kv": 0.0, "pq": 0, "ph": 0, "pre": 0, "pt": 0, "gt": 0, "done": 0, "h": {}}
    recs, logs = [], list(startup)
    A = f"(APIServer pid={api}) "
    for k, I in enumerate(ivals):
        t = start + k * iv
        if k:
            S["pq"] += I["prompt"]; S["pt"] += I["prompt"]; S["ph"] += I["cached"]; S["gt"] += I["gen"]
            S["pre"] += I["pre"]; S["done"] += I["done"]
            for hn, key in (("vllm:time_to_first_token_seconds", "ttft"), ("vllm:inter_token_latency_seconds", "itl"),
                            ("vllm:e2e_request_latency_seconds", "e2e"), ("vllm:request_queue_time_seconds", "queue"),
                            ("vllm:request_prompt_tokens", "ptok"), ("vllm:request_generation_tokens", "gtok"),
                            ("vllm:request_prefill_kv_computed_tokens", "comp"), ("vllm:iteration_tokens_total", "iter")):
                S["h"].setdefault(hn, []).extend(I.get(key, []))
            S["h"]["vllm:time_per_output_token_seconds"] = S["h"].get("vllm:inter_token_latency_seconds", [])
        S["run"], S["wait"], S["kv"] = I["run"], I["wait"], I["kv"]
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": scrape(model, cc, S)}))
        if k:
            hit = 100.0 * I["cached"] / I["prompt"] if I["prompt"] else 0.0
            logs.append((t, f"{A}INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {I['prompt'] / iv:.1f} tokens/s, "
                             f"Avg generation throughput: {I['gen'] / iv:.1f} tokens/s, Running: {I['run']} reqs, Waiting: {I['wait']} reqs, "
                             f"GPU KV cache usage: {100 * I['kv']:.1f}%, Prefix cache hit rate: {hit:.1f}%"))
            for line in I.get("log", []):
                logs.append((t - 1, line))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    end = start + (len(ivals) - 1) * iv
    (out / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "replica-1",
        "started_at": start, "ended_at": end, "interval_s": iv, "notes": notes}, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server_json("0.19.1", model, root, mml, int(start) - 7200), indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(args, indent=1) + "\n")
    if mcfg:
        (out / "model_config.json").write_text(json.dumps(mcfg, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps({"t": round(start + k * iv, 3), "devices": gpu_dev}) for k in range(len(ivals))) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def startup_lines(t, nondef, kv_gib, kv_tok, mml, api=1, core=2, extra=()):
    A, E = f"(APIServer pid={api}) ", f"(EngineCore_DP0 pid={core}) "
    L = [(t, f"{A}INFO {ts(t)} [utils.py:253] non-default args: {nondef}")]
    L += [(t + 5 + i, f"{E}INFO {ts(t + 5 + i)} {x}") for i, x in enumerate(extra)]
    L += [(t + 60, f"{E}INFO {ts(t + 60)} [gpu_worker.py:391] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t + 60)} [kv_cache_utils.py:1291] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t + 60)} [kv_cache_utils.py:1296] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t + 90)} [api_server.py:1978] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


GiB = 2 ** 30


def hot_engine():
    cid, rng = "zg-consistent-hash-hot-engine", random.Random(3255)
    model, mml, iv, start = "zai-org/GLM-4.5-Air", 65536, 10.0, 1786500000.0
    kv_tok = 1_889_280
    cc = tmpl_cc(T, block_size=16, gpu_memory_utilization=0.9, num_gpu_blocks=kv_tok // 16, enable_prefix_caching="True",
                 mamba_cache_mode="none", mamba_block_size="None")
    iv_l = []
    for k in range(61):
        hot = k >= 12
        n = rng.randint(18, 24) if not hot else rng.randint(5, 8)
        P = [rng.randint(18000, 42000) for _ in range(n)]
        hr = 0.98 if not hot else max(0.04, 0.98 - (k - 12) * 0.12) if k < 20 else rng.uniform(0.03, 0.08)
        C = [int(p * hr) // 16 * 16 for p in P]
        pre = 0 if not hot else rng.randint(6, 14)
        gen_t = int((2400 if not hot else 600) * iv * rng.uniform(0.95, 1.05))
        I = {"prompt": sum(P), "cached": sum(C), "gen": gen_t, "done": n, "pre": pre,
             "run": rng.randint(150, 170) if not hot else rng.randint(70, 95), "wait": 0 if not hot else min(180, 20 + 8 * (k - 12)),
             "kv": rng.uniform(0.55, 0.7) if not hot else rng.uniform(0.985, 1.0),
             "ttft": [(0.15 + (p - c) / 9000) * (1 if not hot else rng.uniform(8, 20)) for p, c in zip(P, C)],
             "itl": [rng.uniform(0.06, 0.075) if not hot else rng.uniform(0.22, 0.32) for _ in range(min(400, gen_t // 20))],
             "e2e": [rng.uniform(20, 40) if not hot else rng.uniform(90, 200) for _ in range(n)],
             "queue": [0.01 if not hot else rng.uniform(5, 60) for _ in range(n)],
             "ptok": P, "gtok": [rng.randint(300, 900) for _ in range(n)], "comp": [p - c for p, c in zip(P, C)]}
        iv_l.append(I)
    nondef = "{'model': 'zai-org/GLM-4.5-Air', 'tensor_parallel_size': 8, 'max_model_len': 65536, 'max_num_seqs': 256, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True}"
    mcfg = {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 4096, "num_hidden_layers": 46,
            "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "torch_dtype": "bfloat16", "max_position_embeddings": 131072,
            "n_routed_experts": 128, "num_experts_per_tok": 8, "first_k_dense_replace": 1, "vocab_size": 151552}
    dev = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": 77100000000,
            "processes": [{"pid": 2 if i == 0 else 300 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": 76500000000}]} for i in range(8)]
    run(cid, model, model, mml, cc, start, iv, iv_l,
        args={"argv": None, "args": {"model": model, "tensor-parallel-size": 8, "max-model-len": 65536, "max-num-seqs": 256,
                                     "gpu-memory-utilization": 0.9, "enable-prefix-caching": True}},
        mcfg=mcfg, gpu_dev=dev, startup=startup_lines(start - 5400, nondef, 41.55, kv_tok, mml),
        notes="engine 1 of 4 behind vllm-router (policy consistent_hash); RL multi-turn rollouts")


def glm53():
    cid, rng = "zg-glm53-hits-freeze-agentic", random.Random(106)
    model, mml, iv, start = "GLM-5.3-Flash-EXL3", 131072, 15.0, 1788310000.0
    kv_tok = 502059
    cc = tmpl_cc(T, block_size=3584, gpu_memory_utilization=0.87, enable_prefix_caching="True", mamba_cache_mode="align",
                 mamba_block_size=3584, num_gpu_blocks=kv_tok // 3584)
    iv_l, backlog = [], 0
    for k in range(61):
        frozen = k >= 16
        if not frozen:
            n = 1 if k % 2 == 0 else 2
            P = [rng.randint(30000, 70000) for _ in range(n)]
            C = [int(p * 0.92) // 3584 * 3584 for p in P]
            ttft = [rng.uniform(2, 6) for _ in P]
        else:
            n = 1 if k % 4 == 0 else 0
            if k in (40, 44, 48):
                n = 1
            P = [52_311 if k in (40, 44, 48) else rng.randint(35000, 70000) for _ in range(n)]
            C = [0] * n
            ttft = [p / 1500 + rng.uniform(10, 40) for p in P]
        I = {"prompt": sum(P), "cached": sum(C), "gen": int((28 if not frozen else 6) * iv), "done": n, "pre": 0,
             "run": (3 if not frozen else 1), "wait": (0 if not frozen else 2), "kv": rng.uniform(0.35, 0.45) if not frozen else rng.uniform(0.18, 0.22),
             "ttft": ttft, "itl": [rng.uniform(0.07, 0.09) for _ in range(int(20 * iv) if not frozen else int(5 * iv))],
             "e2e": [x + rng.uniform(10, 40) for x in ttft], "queue": [0.02 if not frozen else rng.uniform(20, 90) for _ in P],
             "ptok": P, "gtok": [rng.randint(200, 800) for _ in P], "comp": [p - c for p, c in zip(P, C)]}
        iv_l.append(I)
    nondef = "{'model': '/models/GLM-5.3-Flash-EXL3', 'served_model_name': ['GLM-5.3-Flash-EXL3'], 'tensor_parallel_size': 2, 'max_model_len': 131072, 'max_num_seqs': 4, 'max_num_batched_tokens': 2048, 'gpu_memory_utilization': 0.87, 'enable_prefix_caching': True, 'speculative_config': {'method': 'dflash', 'num_speculative_tokens': 7, 'draft_tensor_parallel_size': 2}}"
    dev = [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128_000_000_000, "memory_used": 110_000_000_000,
            "processes": [{"pid": 2, "name": "VLLM::Worker_TP0", "used_memory": 109_000_000_000}]}]
    run(cid, model, "/models/GLM-5.3-Flash-EXL3", mml, cc, start, iv, iv_l,
        args={"argv": None, "args": {"tensor-parallel-size": 2, "max-model-len": 131072, "max-num-seqs": 4, "max-num-batched-tokens": 2048,
                                     "gpu-memory-utilization": 0.87, "enable-prefix-caching": True}},
        mcfg=None, gpu_dev=dev, startup=startup_lines(start - 3300, nondef, 21.54, kv_tok, mml,
                                                      extra=["[kv_cache_utils.py:1208] kv_cache_size_tokens=502059 kv_cache_max_concurrency=3.83"]),
        notes="head node (rank 0) of 2x GB10; 3 agent clients via litellm; operator re-sent one prompt byte-identically three times")


def restart():
    cid, rng = "zg-restart-cold-57-tokens", random.Random(22)
    model, mml, iv, start = "Qwen/Qwen3-Coder-30B-A3B-Instruct", 131072, 15.0, 1789560000.0
    kv_tok = 392_448
    cc = tmpl_cc(T, block_size=16, gpu_memory_utilization=0.9, enable_prefix_caching="True", mamba_cache_mode="none",
                 mamba_block_size="None", num_gpu_blocks=kv_tok // 16)
    iv_l = []
    for k in range(33):
        one = k == 3
        I = {"prompt": 57 if one else 0, "cached": 0, "gen": 41 if one else 0, "done": 1 if one else 0, "pre": 0, "run": 0, "wait": 0, "kv": 0.0,
             "ttft": [0.048] if one else [], "itl": [0.0085] * 40 if one else [], "e2e": [0.39] if one else [], "queue": [0.002] if one else [],
             "ptok": [57] if one else [], "gtok": [41] if one else [], "comp": [57] if one else []}
        if one:
            I["log"] = [f"(APIServer pid=1) INFO:     10.0.0.5:52114 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"]
        I.setdefault("log", []).append(f"(APIServer pid=1) INFO:     10.0.0.5:{40000 + k} - \"GET /health HTTP/1.1\" 200 OK")
        iv_l.append(I)
    nondef = "{'model': 'Qwen/Qwen3-Coder-30B-A3B-Instruct', 'max_model_len': 131072, 'gpu_memory_utilization': 0.9, 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder'}"
    mcfg = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
            "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "torch_dtype": "bfloat16", "max_position_embeddings": 262144,
            "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936}
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": 76800000000,
            "processes": [{"pid": 2, "name": "VLLM::EngineCore", "used_memory": 76200000000}]}]
    run(cid, model, model, mml, cc, start, iv, iv_l,
        args={"argv": None, "args": {"max-model-len": 131072, "gpu-memory-utilization": 0.9}},
        mcfg=mcfg, gpu_dev=dev, startup=startup_lines(start - 95, nondef, 35.94, kv_tok, mml),
        notes="backend restarted just before the window; one of two backends behind fastllm-proxy (cacheAffinity)")


if __name__ == "__main__":
    hot_engine(); glm53(); restart()
