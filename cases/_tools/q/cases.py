"""Build the q-* bundles: cd <worktree> && /work/main/.venv/bin/python cases/_tools/q/cases.py [case-id ...]"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT,
                 scrape, merge_scrapes, tmpl_cc)

C = ROOT / "cases"
T014 = "c-compute-queueing-prefill-saturation"   # vLLM 0.14.0
T010 = "i-v1-nopc-long-context-preempt-loop"     # vLLM 0.10.0
T020 = "h-qwen36-27b-block784-370tok-batch"      # vLLM 0.20.0
B200 = 192265846784; B300 = 288233734144; H800 = 85520809984; A10 = 24146608128; V100S = 34359738368
GiB = 2 ** 30


def write_multi(cases: list, out: Path, *, server, engine_args, model_config, gpu, logs, notes, endpoint, start, n, interval):
    """Like gen.write, for one endpoint fronting several DP engines (engine label per engine)."""
    out.mkdir(parents=True, exist_ok=True)
    recs = []
    for k in range(n):
        t = start + k * interval
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": merge_scrapes([scrape(c, t, start - 3600) for c in cases])}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": start,
           "ended_at": start + (n - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


# ---------------------------------------------------------------- 1 DP8 B200, waiting piles on two engines
def case_dp8():
    cid = "q-dp8-b200-waiting-piles-two-engines"
    rng = random.Random(36748)
    t0 = 1773209400.0  # 2026-03-11 06:10 UTC
    start, n, iv = t0 + 3600 + 300, 61, 10.0
    bpt = 2 * 36 * 8 * 128 * 2  # 147456 B/token
    kv_gib = 0.9 * (B200 / GiB) - 16.78 - 6.9
    pool_tok = int(kv_gib * GiB / bpt) // 16 * 16
    blocks = pool_tok // 16
    rates = [0.098, 0.08] + [0.036, 0.033, 0.038, 0.032, 0.035, 0.036]
    engines = []
    for e in range(8):
        c = Case(cid, "0.14.0", False, "qwen3-vl-8b-thinking", "Qwen/Qwen3-VL-8B-Thinking", 40960, start, n, iv, {},
                 pool_tok, 16, 64, tmpl=T014, engine=str(e), mm_hits=False)
        reqs, t, i = [], t0, 0
        while t < start + n * iv:
            t += rng.expovariate(rates[e])
            if e == 1:
                p = rng.randint(14000, 24000)
            else:
                p = rng.randint(5000, 14000)
            g = rng.randint(9000, 30000)
            reqs.append(Req(e * 100000 + i, round(t, 3), p, int(p * rng.uniform(0.6, 0.78)) // 16 * 16, g, 32768,
                            "stop" if g < 30000 else "length", mm=1)); i += 1
        simulate(c, reqs, lambda k: 0.022 + 0.00043 * k, lambda r, k: 0.15 + (r.prompt - r.cached) / 40000.0,
                 gen_reserve=False, gen_frac=0.5)
        c.labels_cc = tmpl_cc(T014, num_gpu_blocks=blocks)
        engines.append(c)
    api = 387731
    nondef = "{'model_tag': 'qwen3-vl-8b-thinking', 'port': 8000, 'model': 'qwen3-vl-8b-thinking', 'data_parallel_size': 8, 'max_num_seqs': 64}"
    L = [(t0, f"(APIServer pid={api}) INFO {ts(t0)} [utils.py:253] non-default args: {nondef}")]
    for e in range(8):
        core = 388100 + e * 37
        L += [(t0 + 60 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+60)} [gpu_worker.py:359] Available KV cache memory: {kv_gib:.2f} GiB"),
              (t0 + 60.1 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+60)} [kv_cache_utils.py:1087] GPU KV cache size: {pool_tok:,} tokens"),
              (t0 + 60.2 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+60)} [kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: {pool_tok / 40960:.2f}x")]
    L.append((t0 + 95, f"(APIServer pid={api}) INFO {ts(t0+95)} [api_server.py:1351] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    for e, c in enumerate(engines):
        L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:257", eng=f"{e:03d}", mm_line=True)
    mc = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl", "text_config": {
        "model_type": "qwen3_vl_text", "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 262144,
        "rope_theta": 5000000, "vocab_size": 151936, "torch_dtype": "bfloat16"},
        "vision_config": {"depth": 27, "hidden_size": 1152, "out_hidden_size": 4096}, "torch_dtype": "bfloat16"}
    used = int(0.9 * B200) + 700 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA B200", "memory_total": B200, "memory_used": used,
            "processes": [{"pid": 388100 + i * 37, "name": "VLLM::EngineCore", "used_memory": used - 560 * 2 ** 20}]} for i in range(8)]
    argv = ["vllm", "serve", "--model", "qwen3-vl-8b-thinking", "--port", "8000", "--tensor-parallel-size", "1",
            "--data-parallel-size", "8", "--max-num-seqs", "64"]
    write_multi(engines, C / cid / "bundle", server=server_json("0.14.0", "qwen3-vl-8b-thinking", "qwen3-vl-8b-thinking", 40960, int(t0 + 95)),
                engine_args={"argv": argv, "args": {"model": "qwen3-vl-8b-thinking", "port": 8000, "tensor-parallel-size": 1,
                                                    "data-parallel-size": 8, "max-num-seqs": 64}},
                model_config=mc, gpu=[{"t": round(start + k * iv, 3), "devices": dev} for k in range(n)], logs=L,
                notes="qwen3-vl-8b-thinking on 8x B200 with --data-parallel-size 8 --max-num-seqs 64 behind one API server; a client thread pool of 512 sends image+text requests concurrently. Complaint: many requests wait a long time for their first token, and the waiting requests pile up on only a few DP ranks. /metrics every 10 s for 10 min and the server log.",
                endpoint="http://10.40.0.7:8000", start=start, n=n, interval=iv)
    return engines


# ---------------------------------------------------------------- 2 MiniMax-M2.5 NVFP4 DP2, 700-token steps run eager
def case_minimax():
    cid = "q-minimax-dp2-batched-700-eager"
    t0 = 1776931200.0  # 2026-04-23 08:00 UTC
    start, n, iv = t0 + 900, 49, 10.0
    A0, B0 = start - 60, start + 170
    stepA, stepB = 0.045, 0.12
    bpt = 2 * 62 * 8 * 128  # fp8 KV: 126976 B/token
    kv_gib = 86.94
    pool = int(kv_gib * GiB / bpt) // 16 * 16
    caps = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 689, 16))
    engines = []
    for e in range(2):
        c = Case(cid, "0.20.0", False, "nvidia/MiniMax-M2.5-NVFP4", "nvidia/MiniMax-M2.5-NVFP4", 2048, start, n, iv, {},
                 pool, 16, 1024, tmpl=T020, engine=str(e))
        reqs, rid = [], e * 100000
        # phase A: --max-concurrency 512 (256 per engine), steady, mixed steps of ~512 tokens (captured)
        durA = 1023 * stepA + 2 * stepA
        rateA = 256 / durA
        k = 0
        while True:
            ts_ = A0 - durA + k / rateA
            if ts_ > B0 - durA - 5:
                break
            r = Req(rid, round(ts_, 3), 1024, 0, 1024, 1024, "length"); rid += 1
            r.t_sched = ts_; r.t_first = ts_ + 2 * stepA; r.step_s = stepA; r.t_end = r.t_first + 1023 * stepA
            reqs.append(r); k += 1
        # phase B: --max-concurrency 2048 (1024 per engine): every step exactly 700 tokens, ~350 decode + ~350 prefill
        rateB = 350 / 1024 / stepB  # requests admitted per second
        ends = []
        for j in range(4000):
            tsch = B0 + j / rateB
            tarr = B0 if j < 1024 else min(tsch, ends[j - 1024])
            if tarr > start + n * iv:
                break
            r = Req(rid, round(tarr, 3), 1024, 0, 1024, 1024, "length"); rid += 1
            r.t_sched = tsch; r.t_first = tsch + 3 * stepB; r.step_s = stepB; r.t_end = r.t_first + 1023 * stepB
            ends.append(r.t_end); reqs.append(r)
        c.reqs = reqs

        def it(c_, t, e=e):
            obs = []
            a1 = min(t, B0)
            if a1 > A0:
                obs += [512] * int((a1 - A0) / stepA)
            if t > B0:
                obs += [700] * int((t - B0) / stepB)
            return obs
        c.iter_fn = it
        c.labels_cc = tmpl_cc(T020, cache_dtype="fp8", enable_prefix_caching="False", num_gpu_blocks=pool // 16)
        engines.append(c)
    api = 1
    nondef = ("{'model_tag': 'nvidia/MiniMax-M2.5-NVFP4', 'model': 'nvidia/MiniMax-M2.5-NVFP4', 'trust_remote_code': True, "
              "'max_model_len': 2048, 'data_parallel_size': 2, 'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8', "
              "'enable_prefix_caching': False, 'max_num_batched_tokens': 700, 'stream_interval': 20, "
              "'compilation_config': {'max_cudagraph_capture_size': 2048}}")
    capl = sorted(caps, reverse=True)
    L = [(t0, f"(APIServer pid={api}) INFO {ts(t0)} [utils.py:233] non-default args: {nondef}")]
    for e in range(2):
        core = 210 + e * 3
        L += [(t0 + 20 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+20)} [core.py:104] Initializing a V1 LLM engine (v0.20.0) with config: model='nvidia/MiniMax-M2.5-NVFP4', speculative_config=None, tokenizer='nvidia/MiniMax-M2.5-NVFP4', trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=2048, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=2, quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=fp8, enable_prefix_caching=False, enable_chunked_prefill=True, compilation_config={{'level': None, 'mode': 3, 'cudagraph_mode': [2, 1], 'cudagraph_capture_sizes': {capl}, 'max_cudagraph_capture_size': {max(caps)}}}"),
              (t0 + 240 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+240)} [gpu_worker.py:402] Available KV cache memory: {kv_gib:.2f} GiB"),
              (t0 + 240.1 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+240)} [kv_cache_utils.py:1388] GPU KV cache size: {pool:,} tokens"),
              (t0 + 240.2 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+240)} [kv_cache_utils.py:1392] Maximum concurrency for 2,048 tokens per request: {pool / 2048:.2f}x"),
              (t0 + 300 + e * 0.01, f"(EngineCore_DP{e} pid={core}) INFO {ts(t0+300)} [gpu_model_runner.py:4807] Graph capturing finished in 38 secs, took 1.46 GiB")]
    L.append((t0 + 320, f"(APIServer pid={api}) INFO {ts(t0+320)} [api_server.py:2061] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    for e, c in enumerate(engines):
        L += stats_lines(c, start - 50, start + (n - 1) * iv, api, "loggers.py:271", eng=f"{e:03d}", mm_line=False)
    mc = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072, "num_hidden_layers": 62,
          "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536,
          "num_local_experts": 256, "num_experts_per_tok": 8, "vocab_size": 200064, "max_position_embeddings": 196608,
          "rope_theta": 5000000, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
    used = int(0.9 * B200) + 900 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA B200", "memory_total": B200, "memory_used": used,
            "processes": [{"pid": 210 + i * 3, "name": "VLLM::EngineCore", "used_memory": used - 620 * 2 ** 20}]} for i in range(2)]
    argv = ["vllm", "serve", "nvidia/MiniMax-M2.5-NVFP4", "--data-parallel-size", "2", "--enable-expert-parallel", "--max-model-len", "2048",
            "--kv-cache-dtype", "fp8", "--max-cudagraph-capture-size", "2048", "--max-num-batched-tokens", "700",
            "--stream-interval", "20", "--no-enable-prefix-caching", "--trust-remote-code"]
    write_multi(engines, C / cid / "bundle", server=server_json("0.20.0", "nvidia/MiniMax-M2.5-NVFP4", "nvidia/MiniMax-M2.5-NVFP4", 2048, int(t0 + 320)),
                engine_args={"argv": argv, "args": {"data-parallel-size": 2, "enable-expert-parallel": True, "max-model-len": 2048,
                                                    "kv-cache-dtype": "fp8", "max-cudagraph-capture-size": 2048, "max-num-batched-tokens": 700,
                                                    "stream-interval": 20, "enable-prefix-caching": False, "trust-remote-code": True}},
                model_config=mc, gpu=[{"t": round(start + k * iv, 3), "devices": dev} for k in range(n)], logs=L,
                notes="MiniMax-M2.5-NVFP4, DP2 + expert parallel on 2x B200, --max-num-batched-tokens 700. vllm bench serve, random 1024 in / 1024 out: a run at --max-concurrency 512 ends about 3 min into the capture, then a run at --max-concurrency 2048 (4096 prompts) starts. Complaint: performance drops drastically when the batch reaches its peak. /metrics every 10 s for 8 min and the server log.",
                endpoint="http://10.60.2.14:8000", start=start, n=n, interval=iv)


def startup(t, api, core, version, nondef, kv_gib, kv_tok, mml, refs, extra=(), prefix=True):
    A = f"(APIServer pid={api}) " if prefix else ""
    E = f"(EngineCore_DP0 pid={core}) " if prefix else ""
    L = [(t, f"{A}INFO {ts(t)} [{refs['args']}] non-default args: {nondef}")]
    for i, x in enumerate(extra):
        L.append((t + 10 + i, f"{E}INFO {ts(t+10+i)} {x}"))
    L += [(t + 60, f"{E}INFO {ts(t+60)} [{refs['worker']}] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t+60)} [{refs['kv1']}] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t+60)} [{refs['kv2']}] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t+90)} [{refs['api']}] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


# ---------------------------------------------------------------- 3 Qwen3-4B-AWQ, TTFT after 10 s idle gaps
def case_idle():
    cid = "q-qwen3-4b-awq-idle-gap-ttft"
    rng = random.Random(31602)
    t0 = 1767254400.0  # 2026-01-01 08:00 UTC
    start, n, iv = t0 + 600, 73, 5.0
    bpt = 2 * 36 * 8 * 128 * 2
    kv_gib = 15.88
    pool = int(kv_gib * GiB / bpt) // 16 * 16
    c = Case(cid, "0.13.0", False, "Qwen3-4B-AWQ", "/workspace/models/Qwen3-4B-AWQ", 40960, start, n, iv, {}, pool, 16, 256, tmpl=T014)
    itl = 0.0178
    reqs, t, rid = [], start - 40, 0
    burst_at = start + 275
    while t < burst_at:
        p = rng.choice([3768, 3768, 1386, 1371, 1375, 2210, 2894, 1640])
        g = rng.randint(116, 243)
        r = Req(rid, round(t, 3), p, 0, g, 1024, "stop"); rid += 1
        r.t_sched = t + 0.004; r.t_first = r.t_sched + rng.uniform(1.5, 2.2) + (p / 3768) * rng.uniform(1.2, 2.0)
        r.step_s = itl; r.t_end = r.t_first + (g - 1) * itl
        reqs.append(r)
        t = r.t_end + 10.0 + rng.uniform(0.05, 0.3)
    # back-to-back control run at the end: first request after the pause is slow, the rest fast
    ctl = [(3768, 135, 4.0879), (3768, 243, 0.9032), (1386, 116, 0.0727), (1386, 124, 0.3351), (1371, 138, 0.1575), (1375, 119, 0.0694),
           (1386, 131, 0.0712), (1371, 122, 0.0703), (1375, 127, 0.0689), (1386, 118, 0.0721)]
    t = max(t, burst_at)
    for p, g, ttft in ctl:
        r = Req(rid, round(t, 3), p, 0, g, 1024, "stop"); rid += 1
        r.t_sched = t + 0.004; r.t_first = t + ttft; r.step_s = itl; r.t_end = r.t_first + (g - 1) * itl
        reqs.append(r)
        t = r.t_end + 0.02
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T014, num_gpu_blocks=pool // 16)
    refs = {"args": "utils.py:253", "worker": "gpu_worker.py:359", "kv1": "kv_cache_utils.py:1087", "kv2": "kv_cache_utils.py:1091", "api": "api_server.py:1351"}
    nondef = "{'host': '0.0.0.0', 'port': 8000, 'model': '/workspace/models/Qwen3-4B-AWQ', 'served_model_name': ['Qwen3-4B-AWQ']}"
    L = startup(t0, 7125, 7311, "0.13.0", nondef, kv_gib, pool, 40960, refs,
                extra=["[core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='/workspace/models/Qwen3-4B-AWQ', quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, max_seq_len=40960, enable_prefix_caching=True, enable_chunked_prefill=True"])
    L += stats_lines(c, start - 40, start + (n - 1) * iv, 7125, "loggers.py:257") + access_lines(c, 7125, "/v1/chat/completions")
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2560, "intermediate_size": 9728,
          "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
          "max_position_embeddings": 40960, "rope_theta": 1000000, "vocab_size": 151936, "torch_dtype": "float16",
          "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}}
    used = int(0.9 * A10) + 310 * 2 ** 20
    dev = [{"index": 0, "name": "NVIDIA A10", "memory_total": A10, "memory_used": used,
            "processes": [{"pid": 7311, "name": "VLLM::EngineCore", "used_memory": used - 260 * 2 ** 20}]}]
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/workspace/models/Qwen3-4B-AWQ",
            "--served-model-name", "Qwen3-4B-AWQ", "--host", "0.0.0.0", "--port", "8000"]
    write(c, C / cid / "bundle", server=server_json("0.13.0", "Qwen3-4B-AWQ", "/workspace/models/Qwen3-4B-AWQ", 40960, int(t0 + 90)),
          engine_args={"argv": argv, "args": {"model": "/workspace/models/Qwen3-4B-AWQ", "served-model-name": "Qwen3-4B-AWQ", "host": "0.0.0.0", "port": 8000}},
          model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://10.0.3.21:8000",
          notes="Qwen3-4B-AWQ on one GPU, default flags. A client sends one chat request at a time with a 10 s pause after each answer (first 4.5 min of the capture); every request after a pause waits seconds for its first token. At the end the same client sends 10 requests back to back for comparison (client-side TTFT: 4.09 s, 0.90 s, then 0.07-0.34 s). /metrics every 5 s for 6 min, server log.")


# ---------------------------------------------------------------- 4 NIXL 1p1d: the decode instance prefills again
def case_nixl():
    cid = "q-nixl-1p1d-decode-reprefills"
    rng = random.Random(21037)
    t0 = 1752739200.0  # 2025-07-17 08:00 UTC
    start, n, iv = t0 + 900, 73, 5.0
    bpt = 2 * 32 * 8 * 128 * 2
    kv_gib = 52.61
    pool = int(kv_gib * GiB / bpt) // 16 * 16
    c = Case(cid, "0.10.0", False, "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", 16384, start, n, iv, {}, pool, 16, 1024, tmpl=T010)
    reqs, t, rid = [], start - 30, 0
    while t < start + n * iv:
        p = rng.randint(3900, 4100); g = 200
        pf = 0.012 + p * 7.9e-5  # ~0.33 s for 4000 tokens on the decode side, same as the prefill instance
        r = Req(rid, round(t, 3), p, 0, g, 200, "length"); rid += 1
        r.t_sched = t + 0.002; r.t_first = r.t_sched + pf; r.step_s = 0.0071; r.t_end = r.t_first + (g - 1) * r.step_s
        reqs.append(r)
        t = r.t_end + 0.03 + (0.012 + rng.randint(3900, 4100) * 7.9e-5) + 0.02  # next request: client -> proxy -> prefill instance -> here
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T010, num_gpu_blocks=pool // 16, enable_prefix_caching="True", gpu_memory_utilization="0.9")
    refs = {"args": "cli_args.py:261", "worker": "gpu_worker.py:255", "kv1": "kv_cache_utils.py:833", "kv2": "kv_cache_utils.py:837", "api": "api_server.py:1818"}
    ktc = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    nondef = "{'port': 8200, 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 16384, 'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', engine_id='5c7a1e0e-7f0b-4c1e-9a56-2f3b8f0d1c44', kv_buffer_device='cuda', kv_buffer_size=1000000000.0, kv_role='kv_both', kv_rank=None, kv_parallel_size=1, kv_ip='127.0.0.1', kv_port=14579, kv_connector_extra_config={}, kv_connector_module_path=None)}"
    L = startup(t0, 0, 0, "0.10.0", nondef, kv_gib, pool, 16384, refs, prefix=False,
                extra=["[core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=16384, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
                       "[factory.py:74] Creating v1 connector with name: NixlConnector and engine_id: 5c7a1e0e-7f0b-4c1e-9a56-2f3b8f0d1c44",
                       "[nixl_connector.py:440] Initializing NIXL wrapper",
                       "[nixl_connector.py:441] Initializing NIXL worker 5c7a1e0e-7f0b-4c1e-9a56-2f3b8f0d1c44"])
    L = [(a, b.replace("Starting vLLM API server 0 on http://0.0.0.0:8000", "Starting vLLM API server 0 on http://0.0.0.0:8200")) for a, b in L]
    L += stats_lines(c, start - 30, start + (n - 1) * iv, 0, "loggers.py:118", prefix=False)
    L += [(r.t_arr + 0.002, f'INFO:     127.0.0.1:{52000 + r.rid % 900} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
          "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
          "max_position_embeddings": 131072, "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16",
          "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}}
    used = int(0.9 * H800) + 520 * 2 ** 20
    dev = [{"index": 0, "name": "NVIDIA H800", "memory_total": H800, "memory_used": used,
            "processes": [{"pid": 4121, "name": "python3", "used_memory": used - 480 * 2 ** 20}]}]
    argv = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8200", "--max-model-len", "16384", "--kv-transfer-config", ktc]
    write(c, C / cid / "bundle", server=server_json("0.10.0", c.model_name, c.model_root, 16384, int(t0 + 90)),
          engine_args={"argv": argv, "args": {"port": 8200, "max-model-len": 16384, "kv-transfer-config": ktc}},
          model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://0.0.0.0:8200",
          notes="Decode instance (port 8200) of a 1P1D NixlConnector setup (prefill instance on port 8100, same model, one H800 each, requests routed by a proxy). Benchmark at concurrency 1, random ~4000-token prompts, 200 output tokens. Client TTFT is ~0.68 s against ~0.33 s for a single plain instance (tp1); the prefill instance's own /metrics show a mean TTFT of ~0.33 s. /metrics of the decode instance every 5 s for 6 min and its log.")


class PReq(Req):
    """A request whose decode step time changes over time: segs = [(t_from, t_to, step_s), ...] after t_first."""
    def _steps(self, t):
        k = 0
        for a, b, st in self.segs:
            if t <= a:
                break
            k += int((min(t, b) - a) / st)
        return k

    def steps(self):
        return self._steps(self.t_end)

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        return min(self.gen, 1 + self._steps(min(t, self.t_end)))

    def steps_by(self, t):
        return 0 if t < self.t_first else self._steps(min(t, self.t_end))

    def itl_by(self, t):
        out = []
        for a, b, st in self.segs:
            if t <= a:
                break
            out += [st] * int((min(t, b) - a) / st)
        return out


# ---------------------------------------------------------------- 5 1Cat-vLLM, 2x V100S TP2, batch-2 decode collapse past ~221k
def case_v100():
    cid = "q-v100-tp2-221k-batch2-decode-collapse"
    t0 = 1788422400.0  # 2026-09-03 08:00 UTC
    start, n, iv = t0 + 1800, 73, 10.0
    pool = 540672
    c = Case(cid, "1.5.0", False, "Qwen3.8-27B-QUASAR-NVFP4", "/models/Qwen3.8-27B-QUASAR-NVFP4", 262144, start, n, iv, {}, pool, 16, 4, tmpl=T020)
    far = start + 86400
    T2 = start + 180
    T3 = T2 + 232000 / 1000.0
    r1 = PReq(0, start - 1400, 227800, 226304, 32768, 32768, "length")
    r1.t_sched = r1.t_arr; r1.t_first = r1.t_sched + 2.2; r1.step_s = 0.083; r1.t_end = far
    r1.segs = [(r1.t_first, T2, 0.083), (T2, T3, 0.125), (T3, far, 6.7)]
    r2 = PReq(1, T2, 231900, 0, 32768, 32768, "length")
    r2.t_sched = T2; r2.t_first = T3; r2.step_s = 6.7; r2.t_end = far
    r2.segs = [(T3, far, 6.7)]
    c.reqs = [r1, r2]
    c.labels_cc = tmpl_cc(T020, num_gpu_blocks=pool // 16, mamba_cache_mode="align", cache_dtype="auto")
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:402", "kv1": "kv_cache_utils.py:1388", "kv2": "kv_cache_utils.py:1392", "api": "api_server.py:2061"}
    nondef = "{'model_tag': '/models/Qwen3.8-27B-QUASAR-NVFP4', 'model': '/models/Qwen3.8-27B-QUASAR-NVFP4', 'dtype': 'float16', 'max_model_len': 262144, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': True, 'max_num_seqs': 4, 'attention_backend': 'FLASH_ATTN_V100'}"
    L = startup(t0, 1, 96, "1.5.0", nondef, 8.25, pool, 262144, refs,
                extra=["[core.py:104] Initializing a V1 LLM engine (v1.5.0) with config: model='/models/Qwen3.8-27B-QUASAR-NVFP4', dtype=torch.float16, max_seq_len=262144, tensor_parallel_size=2, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True",
                       "[compressed_tensors.py:611] SM70 compressed-tensors NVFP4 TurboMind W4A16 dense path enabled",
                       "[cuda.py:418] Using FLASH_ATTN_V100 attention backend.",
                       "[gdn_attn.py:212] SM70 FlashQLA GDN decode route enabled",
                       "[config.py:561] Prefix caching is enabled with Mamba cache 'align' mode."])
    L += stats_lines(c, start - 30, start + (n - 1) * iv, 1, "loggers.py:271")
    L += [(r.t_arr + 0.002, f'(APIServer pid=1) INFO:     10.8.0.{21 + r.rid}:{50110 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in c.reqs]
    mc = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4,
        "head_dim": 256, "full_attention_interval": 4, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "vocab_size": 248320, "max_position_embeddings": 262144, "torch_dtype": "bfloat16"},
        "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"}}
    used = int(0.95 * V100S) - 180 * 2 ** 20
    dev = [{"index": i, "name": "Tesla V100S-PCIE-32GB", "memory_total": V100S, "memory_used": used,
            "processes": [{"pid": 240 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 300 * 2 ** 20}]} for i in range(2)]
    argv = ["vllm", "serve", "/models/Qwen3.8-27B-QUASAR-NVFP4", "--dtype", "float16", "--tensor-parallel-size", "2", "--max-model-len", "262144",
            "--gpu-memory-utilization", "0.95", "--enable-prefix-caching", "--max-num-seqs", "4", "--attention-backend", "FLASH_ATTN_V100"]
    write(c, C / cid / "bundle", server=server_json("1.5.0", c.model_name, c.model_root, 262144, int(t0 + 90)),
          engine_args={"argv": argv, "args": {"dtype": "float16", "tensor-parallel-size": 2, "max-model-len": 262144, "gpu-memory-utilization": 0.95,
                                              "enable-prefix-caching": True, "max-num-seqs": 4, "attention-backend": "FLASH_ATTN_V100"}},
          model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://10.8.0.5:8000",
          notes="1Cat-vLLM 1.5.0 (vLLM fork for SM70) on 2x Tesla V100S-PCIE-32GB, TP2, NCCL_P2P_DISABLE=1, VLLM_SM70_FLASH_ATTN_V100=1. Two long agent sessions: one at ~228k tokens of context decoding alone, then a second one at ~232k starts. Once both decode, the stream crawls (client sees a token every ~7 s); nvidia-smi shows both GPUs at 100% utilization and ~250 W throughout. /metrics every 10 s for 12 min, server log.")


if __name__ == "__main__":
    want = set(sys.argv[1:])
    for fn in [case_dp8, case_minimax, case_idle, case_nixl, case_v100]:
        if not want or fn.__name__ in want:
            fn()
