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


if __name__ == "__main__":
    want = set(sys.argv[1:])
    for fn in [case_dp8]:
        if not want or fn.__name__ in want:
            fn()
