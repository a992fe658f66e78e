"""Build the zt-* bundles: cd <worktree> && /work/main/.venv/bin/python cases/_tools/zt/cases.py

Aggregate-level builder adapted from cases/_tools/zg/cases.py: per interval, the requests that got their first
token / finished, their prompt, cached and generated tokens, running/waiting and KV usage; every counter,
histogram and stats log line derives from those interval records. Families/HELP/buckets from the last scrape
of an existing case bundle (gen.py, copied from cases/_tools/zg/gen.py), vLLM 0.19.1 layout.
Extras: cumulative counter offsets (a pod up for days), a hits counter that is not wired (hits_broken).
"""
import json, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import _template, _lab, _num, _hist, ts, server_json, tmpl_cc, ROOT

T = "b-hybrid-qwen35-block528"
GiB = 2 ** 30


def scrape(model, cc, S, base_off, hits_broken):
    base = {"engine": "0", "model_name": model}
    o = base_off
    ph_metric = 0 if hits_broken else S["ph"] + o.get("ph", 0)
    vals = {"vllm:num_requests_running": S["run"], "vllm:num_requests_waiting": S["wait"], "vllm:kv_cache_usage_perc": S["kv"],
            "vllm:prefix_cache_queries": S["pq"] + o.get("pq", 0), "vllm:prefix_cache_hits": ph_metric, "vllm:num_preemptions": 0,
            "vllm:prompt_tokens": S["pt"] + o.get("pq", 0), "vllm:prompt_tokens_cached": S["ph"] + o.get("ph", 0),
            "vllm:generation_tokens": S["gt"] + o.get("gt", 0),
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
            pt, ph = S["pt"] + o.get("pq", 0), S["ph"] + o.get("ph", 0)
            for s, v in (("local_compute", pt - ph), ("local_cache_hit", ph), ("external_kv_transfer", 0)):
                out.append(f'{n}_total{{{_lab({**base, "source": s})}}} {_num(v)}')
        elif n == "vllm:request_success":
            for r in ("stop", "length", "abort", "error"):
                v = S["done"] + o.get("done", 0) if r == S.get("reason", "stop") else 0
                out.append(f'{n}_total{{{_lab({**base, "finished_reason": r})}}} {_num(v)}')
        elif ty == "histogram":
            _hist(out, n, base, H.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{_lab(base)}}} {_num(vals.get(n, 0))}")
        else:
            out.append(f"{n}{{{_lab(base)}}} {_num(vals.get(n, 0))}")
    out += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge",
            f"vllm:cache_config_info{{{_lab(dict(sorted(({'engine': '0'} | cc).items())))}}} 1.0"]
    return "\n".join(out) + "\n"


def run(cid, model, root, mml, cc, start, iv, ivals, *, version, args, mcfg, gpu_dev, startup, notes, endpoint,
        base_off=None, hits_broken=False, reason="stop", api=1):
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    S = {"run": 0, "wait": 0, "kv": 0.0, "pq": 0, "ph": 0, "pt": 0, "gt": 0, "done": 0, "h": {}, "reason": reason}
    recs, logs = [], list(startup)
    A = f"(APIServer pid={api}) "
    for k, I in enumerate(ivals):
        t = start + k * iv
        if k:
            S["pq"] += I["prompt"]; S["pt"] += I["prompt"]; S["ph"] += I["cached"]; S["gt"] += I["gen"]; S["done"] += I["done"]
            for hn, key in (("vllm:time_to_first_token_seconds", "ttft"), ("vllm:inter_token_latency_seconds", "itl"),
                            ("vllm:e2e_request_latency_seconds", "e2e"), ("vllm:request_queue_time_seconds", "queue"),
                            ("vllm:request_prompt_tokens", "ptok"), ("vllm:request_generation_tokens", "gtok"),
                            ("vllm:request_prefill_kv_computed_tokens", "comp"), ("vllm:iteration_tokens_total", "iter"),
                            ("vllm:request_params_max_tokens", "maxt"), ("vllm:request_max_num_generation_tokens", "gtok"),
                            ("vllm:request_params_n", "n1"), ("vllm:request_prefill_time_seconds", "pref"),
                            ("vllm:request_decode_time_seconds", "dec"), ("vllm:request_inference_time_seconds", "inf"),
                            ("vllm:request_time_per_output_token_seconds", "tpot")):
                S["h"].setdefault(hn, []).extend(I.get(key, []))
            S["h"]["vllm:time_per_output_token_seconds"] = S["h"].get("vllm:inter_token_latency_seconds", [])
        S["run"], S["wait"], S["kv"] = I["run"], I["wait"], I["kv"]
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": scrape(model, cc, S, base_off or {}, hits_broken)}))
        if k:
            hit = 0.0 if hits_broken else (100.0 * I["cached"] / I["prompt"] if I["prompt"] else 0.0)
            logs.append((t, f"{A}INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {I['prompt'] / iv:.1f} tokens/s, "
                             f"Avg generation throughput: {I['gen'] / iv:.1f} tokens/s, Running: {I['run']} reqs, Waiting: {I['wait']} reqs, "
                             f"GPU KV cache usage: {100 * I['kv']:.1f}%, Prefix cache hit rate: {hit:.1f}%"))
            for tt, line in I.get("access", []):
                logs.append((tt, line))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    end = start + (len(ivals) - 1) * iv
    (out / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
        "started_at": start, "ended_at": end, "interval_s": iv, "notes": notes}, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server_json(version, model, root, mml, int(start) - 7200), indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(args, indent=1) + "\n")
    if mcfg:
        (out / "model_config.json").write_text(json.dumps(mcfg, indent=1) + "\n")
    if gpu_dev:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps({"t": round(start + k * iv, 3), "devices": gpu_dev}) for k in range(len(ivals))) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def startup_lines(t, nondef, kv_gib, kv_tok, mml, api=1, core=2, extra=(), dev="GPU"):
    A, E = f"(APIServer pid={api}) ", f"(EngineCore_DP0 pid={core}) "
    L = [(t, f"{A}INFO {ts(t)} [utils.py:253] non-default args: {nondef}")]
    L += [(t + 5 + i, f"{E}INFO {ts(t + 5 + i)} {x}") for i, x in enumerate(extra)]
    L += [(t + 60, f"{E}INFO {ts(t + 60)} [gpu_worker.py:391] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t + 60)} [kv_cache_utils.py:1291] {dev} KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t + 60)} [kv_cache_utils.py:1296] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t + 90)} [api_server.py:1978] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


def interval(rng, iv, n, P, C, gen, ttft, itl_s, kv, run_n, maxt, path="/v1/chat/completions", t=None, api=1):
    itl = [itl_s * rng.uniform(0.9, 1.15) for _ in range(min(sum(gen), 3000))]
    e2e = [a + (g - 1) * itl_s for a, g in zip(ttft, gen)]
    I = {"prompt": sum(P), "cached": sum(C), "gen": sum(gen), "done": n, "run": run_n, "wait": 0, "kv": kv,
         "ttft": ttft, "itl": itl, "e2e": e2e, "queue": [rng.uniform(0.002, 0.03) for _ in range(n)],
         "ptok": P, "gtok": gen, "comp": [p - c for p, c in zip(P, C)], "maxt": [maxt] * n, "n1": [1] * n,
         "pref": ttft, "dec": [e - a for e, a in zip(e2e, ttft)], "inf": e2e,
         "tpot": [itl_s] * n, "iter": [p - c for p, c in zip(P, C)] + [run_n] * min(sum(gen), 2000)}
    if t is not None:
        I["access"] = [(t - iv + (j + 0.5) * iv / max(n, 1), f'(APIServer pid={api}) INFO:     10.42.3.{17 + j % 9}:{40000 + rng.randint(0, 20000)} - "POST {path} HTTP/1.1" 200 OK') for j in range(min(n, 40))]
    return I


# ---------------------------------------------------------------- dev-11: autoscaler query without _total, healthy
def autoscaler_healthy():
    cid, rng = "zt-autoscaler-hit-query-no-total-healthy", random.Random(1526)
    model, root, mml, iv, start = "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", 32768, 10.0, 1787900000.0
    kv_tok = 425_984
    cc = tmpl_cc(T, block_size=16, gpu_memory_utilization=0.9, num_gpu_blocks=kv_tok // 16, enable_prefix_caching="True",
                 mamba_cache_mode="none", mamba_block_size="None")
    ivals = []
    for k in range(61):
        n = rng.randint(80, 100)
        P = [rng.randint(3000, 9500) for _ in range(n)]
        C = [int(p * rng.uniform(0.84, 0.95)) // 16 * 16 for p in P]
        gen = [rng.randint(60, 420) for _ in range(n)]
        ttft = [rng.uniform(0.035, 0.09) + (p - c) * 2.2e-5 for p, c in zip(P, C)]
        ivals.append(interval(rng, iv, n, P, C, gen, ttft, 0.0125, rng.uniform(0.40, 0.55), rng.randint(28, 40), 1024, t=start + k * iv))
    nondef = ("{'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'host': '0.0.0.0', 'port': 8000, "
              "'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 32768, 'gpu_memory_utilization': 0.9}")
    st = startup_lines(start - 7000, nondef, 52.0, kv_tok, mml)
    args = {"argv": ["vllm", "serve", root, "--host", "0.0.0.0", "--port", "8000", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9"],
            "args": {"max-model-len": 32768, "gpu-memory-utilization": 0.9}}
    mcfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "head_dim": 128,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
            "vocab_size": 128256, "tie_word_embeddings": False}
    used = int(0.9 * 79.19 * GiB) + 500 * 2 ** 20
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": used,
            "processes": [{"pid": 2, "name": "VLLM::EngineCore", "used_memory": used - 600 * 2 ** 20}]}]
    run(cid, model, root, mml, cc, start, iv, ivals, version="0.25.0", args=args, mcfg=mcfg, gpu_dev=dev, startup=st,
        notes="llm-d variant pod, 10 min capture; operator's autoscaler panel shows PrefixCacheHitRate 0", endpoint="pod/llama-8b-decode-0",
        base_off={"pq": 512_000_000, "ph": 457_000_000, "gt": 21_400_000, "done": 83_500})


# ---------------------------------------------------------------- holdout: router thresholds scatter sessions
def router_scatter():
    cid, rng = "zt-router-balance-threshold-scatter-65pct", random.Random(3345)
    model, root, mml, iv, start = "nemotron-3.5-super", "nvidia/Nemotron-3.5-Super", 262144, 10.0, 1788700000.0
    kv_tok = 1_200_000
    cc = tmpl_cc(T, block_size=16, gpu_memory_utilization=0.9, num_gpu_blocks=kv_tok // 16, enable_prefix_caching="True",
                 mamba_cache_mode="none", mamba_block_size="None")
    ivals = []
    for k in range(61):
        n = rng.randint(3, 8)
        P = [rng.randint(20000, 90000) for _ in range(n)]
        C = []
        for p in P:
            r = rng.random()
            f = rng.uniform(0.90, 0.99) if r < 0.59 else (rng.uniform(0.0, 0.25) if r < 0.93 else rng.uniform(0.3, 0.7))
            C.append(int(p * f) // 16 * 16)
        gen = [1] * n
        ttft = [0.08 + (p - c) / 24000.0 * rng.uniform(0.9, 1.2) for p, c in zip(P, C)]
        I = interval(rng, iv, n, P, C, gen, ttft, 0.0, rng.uniform(0.70, 0.90), rng.randint(1, 4), 1, path="/v1/completions", t=start + k * iv)
        I["itl"] = []; I["tpot"] = []; I["dec"] = [0.0] * n; I["inf"] = ttft; I["e2e"] = ttft
        ivals.append(I)
    nondef = ("{'model_tag': 'nvidia/Nemotron-3.5-Super', 'host': '0.0.0.0', 'port': 8000, 'served_model_name': ['nemotron-3.5-super'], "
              "'max_model_len': 262144, 'enable_prefix_caching': True, "
              "'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_producer')}")
    st = startup_lines(start - 9000, nondef, 0.0, kv_tok, mml)
    st = [x for x in st if "Available KV cache memory" not in x[1]]
    args = {"argv": None, "args": {"served-model-name": "nemotron-3.5-super", "max-model-len": 262144, "enable-prefix-caching": True,
            "kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'}}
    run(cid, model, root, mml, cc, start, iv, ivals, version="0.19.1", args=args, mcfg=None, gpu_dev=None, startup=st,
        notes="prefill worker 2 of 4 (4P/6D) behind vllm-router cache_aware, ROUTER_BALANCE_ABS_THRESHOLD=4 REL=1.1; SWE-bench Pro OpenCode rollouts",
        endpoint="prefill-2", base_off={"pq": 1_930_000_000, "ph": 1_250_000_000, "gt": 36_000, "done": 36_000}, reason="length")


# ---------------------------------------------------------------- holdout: Ascend hybrid + MTP, hits counter not wired
def ascend_hits_zero():
    cid, rng = "zt-ascend-hybrid-mtp-hits-counter-zero", random.Random(16639)
    model, root, mml, iv, start = "qwen35-moe", "Qwen/Qwen3.5-35B-A3B", 65536, 15.0, 1789600000.0
    kv_tok = 368_640
    cc = tmpl_cc(T, block_size=1536, gpu_memory_utilization=0.9, num_gpu_blocks=kv_tok // 1536, enable_prefix_caching="True",
                 mamba_cache_mode="align", mamba_block_size=1536)
    ivals = []
    for k in range(41):
        n = rng.randint(6, 9)
        P, C, ttft = [], [], []
        for _ in range(n):
            p = rng.randint(6000, 12500)
            warm = rng.random() < 0.6
            c = ((p - 1) // 1536 - 1) * 1536 if warm else 0  # EAGLE/MTP path drops the last matched block
            c = max(0, c)
            P.append(p); C.append(c)
            ttft.append(rng.uniform(0.7, 0.95) if warm else rng.uniform(5.0, 6.0) * p / 10000)
        gen = [rng.randint(150, 600) for _ in range(n)]
        ivals.append(interval(rng, iv, n, P, C, gen, ttft, 0.021, rng.uniform(0.25, 0.45), rng.randint(3, 7), 2048, t=start + k * iv))
    nondef = ("{'model_tag': '/models/Qwen3.5-35B-A3B', 'host': '0.0.0.0', 'port': 8000, 'served_model_name': ['qwen35-moe'], "
              "'max_model_len': 65536, 'enable_prefix_caching': True, 'mamba_cache_mode': 'align', "
              "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 1}}")
    st = startup_lines(start - 5000, nondef, 21.1, kv_tok, mml, dev="NPU",
                       extra=["[config.py:311] Setting attention block size to 1536 tokens to ensure that attention page size is >= mamba page size."])
    args = {"argv": None, "args": {"served-model-name": "qwen35-moe", "max-model-len": 65536, "enable-prefix-caching": True,
            "mamba-cache-mode": "align", "speculative-config": '{"method":"mtp","num_speculative_tokens":1}'}}
    run(cid, model, root, mml, cc, start, iv, ivals, version="0.26.0", args=args, mcfg=None, gpu_dev=None, startup=st,
        notes="vllm-ascend v0.26.0rc1 on Ascend NPU; operator: dashboards read 0% prefix hits although repeats are fast",
        endpoint="npu-node-1:8000", hits_broken=True)


# ---------------------------------------------------------------- holdout: reasoning conversations, thinking blocks
def qwq_thinking():
    cid, rng = "zt-qwq-thinking-dead-branches-11pct", random.Random(39806)
    model, root, mml, iv, start = "Qwen/QwQ-32B", "Qwen/QwQ-32B", 131072, 10.0, 1790400000.0
    kv_tok = 1_048_576
    cc = tmpl_cc(T, block_size=16, gpu_memory_utilization=0.6, num_gpu_blocks=kv_tok // 16, enable_prefix_caching="True",
                 mamba_cache_mode="none", mamba_block_size="None")
    ivals = []
    for k in range(61):
        n = rng.randint(1, 3)
        P = [int(rng.triangular(8000, 40000, 12000)) for _ in range(n)]
        C = [int(p * (rng.uniform(0.0, 0.06) if rng.random() < 0.78 else rng.uniform(0.2, 0.45))) // 16 * 16 for p in P]
        gen = [rng.randint(4200, 7000) for _ in range(n)]
        ttft = [rng.uniform(0.3, 1.0) + (p - c) / 1900.0 * rng.uniform(0.8, 1.2) for p, c in zip(P, C)]
        ivals.append(interval(rng, iv, n, P, C, gen, ttft, 0.046, rng.uniform(0.85, 0.97), rng.randint(44, 50), 16384, t=start + k * iv))
    nondef = ("{'model_tag': 'Qwen/QwQ-32B', 'host': '0.0.0.0', 'port': 8000, 'model': 'Qwen/QwQ-32B', 'max_model_len': 131072, "
              "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.6, 'reasoning_parser': 'deepseek_r1'}")
    st = startup_lines(start - 6000, nondef, 128.0, kv_tok, mml)
    args = {"argv": ["vllm", "serve", "Qwen/QwQ-32B", "--tensor-parallel-size", "2", "--max-model-len", "131072",
                     "--gpu-memory-utilization", "0.6", "--reasoning-parser", "deepseek_r1"],
            "args": {"tensor-parallel-size": 2, "max-model-len": 131072, "gpu-memory-utilization": 0.6, "reasoning-parser": "deepseek_r1"}}
    mcfg = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648,
            "num_attention_heads": 40, "num_hidden_layers": 64, "num_key_value_heads": 8, "max_position_embeddings": 40960,
            "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": 32768, "use_sliding_window": False,
            "torch_dtype": "bfloat16", "vocab_size": 152064, "tie_word_embeddings": False}
    tot = 288 * 10 ** 9
    used = int(0.6 * tot) + 700 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA B300 SXM6 AC", "memory_total": tot, "memory_used": used,
            "processes": [{"pid": 3 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 800 * 2 ** 20}]} for i in range(2)]
    run(cid, model, root, mml, cc, start, iv, ivals, version="0.19.1", args=args, mcfg=mcfg, gpu_dev=dev, startup=st,
        notes="50 concurrent multi-turn reasoning conversations; client drops reasoning_content from history", endpoint="qwq-tp2")


CASES = {"zt-autoscaler-hit-query-no-total-healthy": autoscaler_healthy, "zt-router-balance-threshold-scatter-65pct": router_scatter,
         "zt-ascend-hybrid-mtp-hits-counter-zero": ascend_hits_zero, "zt-qwq-thinking-dead-branches-11pct": qwq_thinking}

if __name__ == "__main__":
    for c in (sys.argv[1:] or CASES):
        CASES[c]()
        print("built", c)
