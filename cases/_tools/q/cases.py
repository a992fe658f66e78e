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


if __name__ == "__main__":
    want = set(sys.argv[1:])
    for fn in [case_dp8, case_minimax]:
        if not want or fn.__name__ in want:
            fn()
