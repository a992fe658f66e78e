"""Bundles of the three holdout-7 w- cases (see each case.yaml for what is quoted and assumed)."""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen import ROOT, Engine, load_template, write_bundle, models_body, ts  # noqa: E402


def mc_of(case):
    return json.loads((ROOT / "cases" / case / "bundle" / "model_config.json").read_text())


def run(e: Engine, rnd, t0, iv, n, step, log_prefix="(APIServer pid=1)", logger="loggers.py:259",
        client="10.0.4"):
    """step(i) -> dict(running, waiting, usage, gen, itls, finished=[(pt, gt, q, pre, dec, itl, cached)],
    preempt, hit_pct, spec=(drafts, draft_tokens, accepted, per_pos))"""
    scrapes, logs = [], []
    for i in range(n):
        t = t0 + iv * i
        s = step(i)
        if i > 0:
            e.inc("vllm:generation_tokens", s["gen"])
            for v, c in s["itls"]:
                e.h["vllm:inter_token_latency_seconds"].obs(v, c)
            pts = 0
            for pt, gt, q, pre, dec, itl, cached in s["finished"]:
                H = e.h
                H["vllm:request_queue_time_seconds"].obs(q)
                H["vllm:time_to_first_token_seconds"].obs(q + pre)
                H["vllm:request_prefill_time_seconds"].obs(pre)
                H["vllm:request_decode_time_seconds"].obs(dec)
                H["vllm:request_inference_time_seconds"].obs(pre + dec)
                H["vllm:e2e_request_latency_seconds"].obs(q + pre + dec)
                H["vllm:request_time_per_output_token_seconds"].obs(itl)
                H["vllm:request_prompt_tokens"].obs(pt)
                H["vllm:request_generation_tokens"].obs(gt)
                for k in ("vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens"):
                    if k in H:
                        H[k].obs(s.get("max_tokens", 4096))
                H["vllm:request_params_n"].obs(1)
                if "vllm:request_prefill_kv_computed_tokens" in H:
                    H["vllm:request_prefill_kv_computed_tokens"].obs(pt - cached)
                e.inc("vllm:request_success", 1, finished_reason="stop")
                e.inc("vllm:prompt_tokens", pt)
                e.inc("vllm:prefix_cache_queries", pt)
                e.inc("vllm:prefix_cache_hits", cached)
                e.inc("vllm:prompt_tokens_cached", cached)
                e.inc("vllm:prompt_tokens_by_source", pt - cached, source="local_compute")
                e.inc("vllm:prompt_tokens_by_source", cached, source="local_cache_hit")
                pts += pt - cached
                logs.append((t - 2, f'{log_prefix} INFO:     {client}.{rnd.randint(10, 40)}:{rnd.randint(40000, 60000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
            e.h["vllm:iteration_tokens_total"].obs(max(1, s["running"]), s.get("steps", 100))
            if s.get("preempt"):
                e.inc("vllm:num_preemptions", s["preempt"])
            if s.get("spec"):
                d, dt, a, pp = s["spec"]
                e.inc("vllm:spec_decode_num_drafts", d)
                e.inc("vllm:spec_decode_num_draft_tokens", dt)
                e.inc("vllm:spec_decode_num_accepted_tokens", a)
                for pos, v in enumerate(pp):
                    e.inc("vllm:spec_decode_num_accepted_tokens_per_pos", v, position=str(pos))
            line = (f"{log_prefix} INFO {ts(t)} [{logger}] Engine 000: Avg prompt throughput: {pts / iv:.1f} tokens/s, "
                    f"Avg generation throughput: {s['gen'] / iv:.1f} tokens/s, Running: {s['running']} reqs, "
                    f"Waiting: {s['waiting']} reqs, GPU KV cache usage: {s['usage'] * 100:.1f}%, "
                    f"Prefix cache hit rate: {s.get('hit_pct', 0.0):.1f}%")
            logs.append((t, line))
            if s.get("spec"):
                d, dt, a, pp = s["spec"]
                if d:
                    logs.append((t + 0.001, f"{log_prefix} INFO {ts(t)} [metrics.py:100] SpecDecoding metrics: Mean acceptance length: {1 + a / d:.2f}, Accepted throughput: {a / iv:.2f} tokens/s, Drafted throughput: {dt / iv:.2f} tokens/s, Accepted: {a} tokens, Drafted: {dt} tokens, Per-position acceptance rate: {', '.join(f'{v / d:.3f}' for v in pp)}, Avg Draft acceptance rate: {100 * a / dt:.1f}%"))
            for extra in s.get("extra_logs", []):
                logs.append((t + 0.002, extra))
        e.g["vllm:kv_cache_usage_perc"] = s["usage"]
        e.g["vllm:num_requests_running"] = float(s["running"])
        e.g["vllm:num_requests_waiting"] = float(s["waiting"])
        e.waiting_reason = {"capacity": float(s["waiting"]), "deferred": 0.0}
        st = round(t + 0.013 * ((i * 7) % 5), 3)
        scrapes.append({"t": st, "status": 200, "text": e.render()})
    logs.sort(key=lambda x: x[0])
    return scrapes, [l for _, l in logs]


def gpu_rows(scrapes, name, total, used, nd, pid0, pname="VLLM::Worker_TP{d}"):
    return [{"t": s["t"] + 0.4, "devices": [
        {"index": d, "name": name, "memory_total": total, "memory_used": used,
         "processes": [{"pid": pid0 + d, "name": pname.format(d=d), "used_memory": used - 402653184}]}
        for d in range(nd)]} for s in scrapes]


# ---------------------------------------------------------------------------------------- 1
def int8_triton():
    case = "w-int8-kv-triton-decode-falloff-2x3090"
    rnd = random.Random(585)
    model = "qwen3.6-27b"
    root = "Qwen/Qwen3.6-27B-FP8"
    tpl = [f for f in load_template("b-agent-header-drift-noprompts", 5)]
    spec = [f for f in load_template("o-qwen36-35b-mtp-kv-full-admission", 5) if "spec_decode" in f[0]]
    boot, t0, iv, n = 1783266000.0, 1783270800.0, 10.0, 61   # 2026-07-05 15:40 / 17:00 UTC
    pool = 398_336
    e = Engine(tpl + spec, model, boot + 10, {
        "block_size": "16", "cache_dtype": "int8_per_token_head", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.92", "kv_cache_size_tokens": str(pool), "num_gpu_blocks": "24896"})
    # earlier turns of the session (counters before the window)
    ctx0 = 5_000
    for k in range(3):
        e.inc("vllm:request_success", 1, finished_reason="stop")
    e.inc("vllm:prompt_tokens", 9_800); e.inc("vllm:prefix_cache_queries", 9_800)
    e.inc("vllm:prefix_cache_hits", 4_200); e.inc("vllm:generation_tokens", 2_100)
    state = {"ctx": ctx0, "phase": "decode", "left": 0, "pf_left": 0}

    def tps_at(ctx):  # quoted: 130.8 warm, 50.7 at 35K; falls further with depth
        return max(22.0, 130.8 / (1 + (ctx / 35000.0) * 1.58))

    def step(i):
        ctx = state["ctx"]
        tps = tps_at(ctx)
        # alternate: a prefill of the new turn, then an answer of ~900-1600 tokens
        fin = []
        gen = 0
        if state["left"] <= 0 and state["pf_left"] <= 0:
            state["pf_left"] = rnd.randint(8000, 14000)  # file reads / tool output appended to the turn
            state["pf_rate"] = rnd.uniform(467, 700)
            state["answer"] = rnd.randint(500, 1000)
            state["left"] = state["answer"]
            state["prompt"] = ctx + state["pf_left"]
            state["pf_time"] = state["pf_left"] / state["pf_rate"]
        budget = iv
        if state["pf_left"] > 0:
            used = min(budget, state["pf_left"] / state["pf_rate"])
            state["pf_left"] = 0 if used < budget else state["pf_left"] - int(used * state["pf_rate"])
            budget -= used
        if state["pf_left"] <= 0 and budget > 0:
            g = min(state["left"], int(budget * tps))
            gen += g
            state["left"] -= g
            if state["left"] <= 0:
                gt = state["answer"]
                itl = 1.0 / tps
                fin.append((state["prompt"], gt, 0.01, state["pf_time"], gt * itl, itl, ctx - 2000))
                state["ctx"] = state["prompt"] + gt
        per_step_tokens = 3.4
        steps = int(gen / per_step_tokens)
        itl_step = per_step_tokens / tps
        itls = [(itl_step * rnd.uniform(0.97, 1.03), 1)] * 0
        if gen:
            itls = [(1.0 / tps * rnd.uniform(0.96, 1.04), gen)]
        acc = int(steps * 2.4)
        pp = [int(steps * 0.93), int(steps * 0.82), int(steps * 0.65)]
        acc = sum(pp)
        usage = round(min(0.99, (state["ctx"] + 3000) / pool), 4)
        return {"running": 1, "waiting": 0, "usage": usage, "gen": gen, "itls": itls, "finished": fin,
                "hit_pct": 93.0, "steps": max(steps, 1), "spec": (steps, steps * 3, acc, pp), "max_tokens": 8192}

    scrapes, loop = run(e, rnd, t0, iv, n, step)
    b = boot
    head = [
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:299] vLLM API server version 0.24.0",
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'port': 8010, 'model': '{root}', 'served_model_name': ['{model}'], 'max_model_len': 262144, 'tensor_parallel_size': 2, 'disable_custom_all_reduce': True, 'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'int8_per_token_head', 'enable_prefix_caching': True, 'max_num_seqs': 4, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 3}}}}",
        f"(EngineCore pid=97) INFO {ts(b+8)} [core.py:101] Initializing a V1 LLM engine (v0.24.0) with config: model='{root}', speculative_config=SpeculativeConfig(method='mtp', model='{root}', num_spec_tokens=3), tokenizer='{root}', dtype=torch.bfloat16, max_seq_len=262144, tensor_parallel_size=2, quantization=fp8, enforce_eager=False, kv_cache_dtype=int8_per_token_head, served_model_name={model}, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"(Worker_TP0 pid=161) INFO {ts(b+20)} [cuda.py:368] Using TRITON_ATTN attention backend out of potential backends: ['TRITON_ATTN']",
        f"(Worker_TP0 pid=161) INFO {ts(b+71)} [gpu_model_runner.py:4380] Model loading took 14.62 GiB memory and 48.113 seconds",
        f"(Worker_TP0 pid=161) INFO {ts(b+98)} [gpu_worker.py:466] Available KV cache memory: 5.71 GiB",
        f"(EngineCore pid=97) INFO {ts(b+99)} [kv_cache_utils.py:1733] GPU KV cache size: 398,336 tokens",
        f"(EngineCore pid=97) INFO {ts(b+99)} [kv_cache_utils.py:1734] Maximum concurrency for 262,144 tokens per request: 1.52x",
        f"(EngineCore pid=97) INFO {ts(b+118)} [core.py:274] init engine (profile, create kv cache, warmup model) took 44.90 seconds",
        f"(APIServer pid=1) INFO {ts(b+122)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8010",
    ]
    args = {"model": root, "served-model-name": model, "max-model-len": 262144, "tensor-parallel-size": 2,
            "disable-custom-all-reduce": True, "gpu-memory-utilization": 0.92, "kv-cache-dtype": "int8_per_token_head",
            "enable-prefix-caching": True, "max-num-seqs": 4,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}
    write_bundle(case, {"endpoint": "http://localhost:8010", "started_at": t0, "ended_at": t0 + iv * (n - 1),
                        "interval_s": iv, "complaint": "slow-itl",
                        "notes": "Single-user coding session on the dual-max recipe; below ~50k context tokens/s is fine, past ~90k it gets significantly slow."},
                 scrapes, server={"version": {"version": "0.24.0"}, "models": models_body(model, root, 262144, int(b + 122)), "health": 200},
                 engine_args={"argv": None, "args": args}, model_config=mc_of("h-qwen36-27b-block784-370tok-batch"),
                 gpu=gpu_rows(scrapes, "NVIDIA GeForce RTX 3090", 25769803776, 23890755584, 2, 161),
                 logs="\n".join(head + loop) + "\n")


# ---------------------------------------------------------------------------------------- 2
def gemma4_upgrade():
    case = "w-gemma4-upgrade-10x-pool-usage-drop"
    rnd = random.Random(43308)
    model = "cyankiwi/gemma-4-31B-it-AWQ-4bit"
    tpl = [f for f in load_template("o-qwen36-35b-mtp-kv-full-admission", 5) if "spec_decode" not in f[0]]
    boot, t0, iv, n = 1779350400.0, 1779354000.0, 10.0, 61   # 2026-05-21 08:00 / 09:00 UTC
    pool = 525_312
    e = Engine(tpl, model, boot + 10, {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True",
                                       "gpu_memory_utilization": "0.9", "kv_cache_size_tokens": str(pool),
                                       "num_gpu_blocks": "32832", "sliding_window": "1024"})
    for _ in range(380):
        e.inc("vllm:request_success", 1, finished_reason="stop")
    e.inc("vllm:prompt_tokens", 380 * 3100); e.inc("vllm:generation_tokens", 380 * 500)
    e.inc("vllm:prefix_cache_queries", 380 * 3100); e.inc("vllm:prefix_cache_hits", 380 * 640)
    carry = [0.0]

    def step(i):
        running = rnd.choice([18, 19, 20, 21, 22, 20, 19])
        itl = rnd.uniform(0.028, 0.034)
        gen = int(running * iv / itl)
        carry[0] += gen / 500.0
        k = int(carry[0]); carry[0] -= k
        fin = []
        for _ in range(k):
            pt = rnd.randint(1800, 4400); gt = rnd.randint(250, 800)
            pre = pt / 9000.0 + rnd.uniform(0.05, 0.25)
            fin.append((pt, gt, rnd.uniform(0.002, 0.02), pre, gt * itl, itl, 640))
        # ~running x ~3.4k tokens; sliding layers keep 1024 -> usage as the engine reports it
        usage = round(running * rnd.uniform(1900, 2100) / pool, 4)
        return {"running": running, "waiting": 0, "usage": usage, "gen": gen,
                "itls": [(itl * rnd.uniform(0.9, 1.1), gen // 2), (itl * rnd.uniform(0.8, 1.3), gen - gen // 2)],
                "finished": fin, "hit_pct": 20.0 + rnd.uniform(-1, 1), "steps": int(iv / itl), "max_tokens": 1024}

    scrapes, loop = run(e, rnd, t0, iv, n, step, logger="loggers.py:271", client="10.2.0")
    b = boot
    head = [
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:299] vLLM API server version 0.21.0",
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'model': '{model}', 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 64}}",
        f"(APIServer pid=1) INFO {ts(b)} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration",
        f"(EngineCore pid=88) INFO {ts(b+9)} [core.py:101] Initializing a V1 LLM engine (v0.21.0) with config: model='{model}', tokenizer='{model}', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, served_model_name={model}, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"(EngineCore pid=88) INFO {ts(b+52)} [gpu_model_runner.py:4380] Model loading took 18.41 GiB memory and 40.921 seconds",
        f"(EngineCore pid=88) INFO {ts(b+71)} [gpu_worker.py:436] Available KV cache memory: 50.12 GiB",
        f"(EngineCore pid=88) INFO {ts(b+71)} [kv_cache_utils.py:1733] GPU KV cache size: 525,312 tokens",
        f"(EngineCore pid=88) INFO {ts(b+71)} [kv_cache_utils.py:1734] Maximum concurrency for 32,768 tokens per request: 16.03x",
        f"(EngineCore pid=88) INFO {ts(b+86)} [core.py:274] init engine (profile, create kv cache, warmup model) took 33.10 seconds",
        f"(APIServer pid=1) INFO {ts(b+90)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    args = {"model": model, "max-model-len": 32768, "gpu-memory-utilization": 0.9, "max-num-seqs": 64}
    write_bundle(case, {"endpoint": "http://10.2.0.5:8000", "started_at": t0, "ended_at": t0 + iv * (n - 1), "interval_s": iv,
                        "notes": "After upgrading v0.20.0 -> v0.21.0 with the same args, the KV-usage panel fell from ~60-70% to ~7% for the same traffic; checking whether the metric is broken."},
                 scrapes, server={"version": {"version": "0.21.0"}, "models": models_body(model, model, 32768, int(b + 90)), "health": 200},
                 engine_args={"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "64"], "args": args},
                 model_config=mc_of("g-mrv2-gemma4-runtime-oom-3090-tp2"),
                 gpu=gpu_rows(scrapes, "NVIDIA A100-SXM4-80GB", 85899345920, 77846282240, 1, 88, pname="VLLM::EngineCore"),
                 logs="\n".join(head + loop) + "\n")


# ---------------------------------------------------------------------------------------- 3
def pd_fp8():
    case = "w-pd-fp8-kv-garbled-unreproduced"
    rnd = random.Random(42179)
    model = "Qwen3.5-397B-A17B-NVFP4"
    root = "nvidia/Qwen3.5-397B-A17B-NVFP4"
    tpl = load_template("r-fp8-e5m2-qwen25-vl-default-scale", 5)
    boot, t0, iv, n = 1778354400.0, 1778355900.0, 10.0, 61   # 2026-05-09 19:20 / 19:45 UTC
    pool = 1_104_384
    e = Engine(tpl, model, boot + 10, {"block_size": "16", "cache_dtype": "fp8", "enable_prefix_caching": "False",
                                       "gpu_memory_utilization": "0.9", "kv_cache_size_tokens": str(pool)})
    reqs_at = {3: 1, 12: 1, 19: 1, 27: 1, 33: 1, 41: 1, 50: 1}
    expired = {51: "cmpl-a57cb56c-7bd6-4778-a60c-9e790b6c7b0a-0-9e45808f"}

    def step(i):
        k = reqs_at.get(i, 0)
        fin = [(rnd.randint(60, 180), 1, rnd.uniform(0.002, 0.01), rnd.uniform(0.09, 0.2), 0.0, 0.0, 0) for _ in range(k)]
        extra = []
        if i in expired:
            for w in range(4):
                extra.append(f"(Worker_TP{w}_EP{w} pid={389567 + w}) WARNING {ts(t0 + iv * i)} [worker.py:1719] Releasing expired KV blocks for request {expired[i]} which were retrieved by 0 decode worker(s) within 480 seconds.")
        return {"running": 0, "waiting": 0, "usage": 0.0 if not k else round(rnd.uniform(0.0001, 0.0003), 5), "gen": k,
                "itls": [], "finished": fin, "hit_pct": 0.0, "steps": max(1, k), "max_tokens": 1,
                "extra_logs": extra}

    scrapes, loop = run(e, rnd, t0, iv, n, step, log_prefix="(APIServer pid=389410)", logger="loggers.py:259", client="10.60.1")
    b = boot
    kvt = '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_load_failure_policy":"fail"}'
    head = [
        f"(APIServer pid=389410) INFO {ts(b)} [utils.py:299] vLLM API server version 0.19.2rc1.dev215+g32e45636e",
        f"(APIServer pid=389410) INFO {ts(b)} [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'port': 8100, 'model': '{root}', 'served_model_name': ['{model}'], 'generation_config': 'vllm', 'tensor_parallel_size': 4, 'pipeline_parallel_size': 1, 'enable_expert_parallel': True, 'enable_prefix_caching': False, 'async_scheduling': False, 'kv_cache_dtype': 'fp8', 'kv_transfer_config': {kvt}}}",
        f"(EngineCore pid=389480) INFO {ts(b+12)} [core.py:101] Initializing a V1 LLM engine (v0.19.2rc1.dev215+g32e45636e) with config: model='{root}', tokenizer='{root}', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=fp8, served_model_name={model}, enable_prefix_caching=False, enable_chunked_prefill=True",
        f"(Worker_TP0_EP0 pid=389567) INFO {ts(b+40)} [nixl_connector.py:912] Initializing NIXL wrapper",
        f"(Worker_TP0_EP0 pid=389567) INFO {ts(b+210)} [gpu_worker.py:436] Available KV cache memory: 101.84 GiB",
        f"(EngineCore pid=389480) INFO {ts(b+212)} [kv_cache_utils.py:1733] GPU KV cache size: 1,104,384 tokens",
        f"(EngineCore pid=389480) INFO {ts(b+212)} [kv_cache_utils.py:1734] Maximum concurrency for 32,768 tokens per request: 33.70x",
        f"(EngineCore pid=389480) INFO {ts(b+260)} [core.py:274] init engine (profile, create kv cache, warmup model) took 96.33 seconds",
        f"(APIServer pid=389410) INFO {ts(b+266)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8100",
    ]
    args = {"model": root, "served-model-name": model, "tensor-parallel-size": 4, "pipeline-parallel-size": 1,
            "enable-expert-parallel": True, "generation-config": "vllm", "no-enable-prefix-caching": True,
            "no-async-scheduling": True, "kv-cache-dtype": "fp8", "kv-transfer-config": kvt, "port": 8100}
    write_bundle(case, {"endpoint": "http://prefill-node:8100", "started_at": t0, "ended_at": t0 + iv * (n - 1), "interval_s": iv,
                        "complaint": "quant-quality",
                        "notes": "Prefill node of a 1P1D NixlConnector pair (toy proxy in front). With --kv-cache-dtype fp8 on both nodes the answers come back garbled; with bfloat16 they are fine. Decode node not captured."},
                 scrapes, server={"version": {"version": "0.19.2rc1.dev215+g32e45636e"}, "models": models_body(model, root, 32768, int(b + 266)), "health": 200},
                 engine_args={"argv": None, "args": args}, model_config=mc_of("r-nvfp4-kv-trtllm-qwen35-397b-b200"),
                 gpu=gpu_rows(scrapes, "NVIDIA B200", 191514247168, 173409042432, 4, 389567, pname="VLLM::Worker_TP{d}_EP{d}"),
                 logs="\n".join(head + loop) + "\n")


if __name__ == "__main__":
    int8_triton(); gemma4_upgrade(); pd_fp8()
