"""Build the y-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/y/cases.py [case-id ...]

Simulator and writer copied from cases/_tools/u/gen.py. Family names, HELP texts and buckets come from the last
scrape of an existing case bundle of a nearby vLLM release (format examples allowed by the brief).
"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
T028 = "u-dsv41-sm120-eager-1tps-per-stream"  # vLLM 0.28.1
T019 = "b-hybrid-qwen35-block528"             # vLLM 0.19.1
T011 = "d-kv-93pct-38-streams-healthy"        # vLLM 0.11.0
GiB = 2 ** 30
H20_141 = 143771 * 2 ** 20   # H20 141 GB (NVML total)


def startup(t, api, core, nondef, kv_gib, kv_tok, mml, refs, extra=(), prefix=True, core_tag="EngineCore_DP0"):
    A = f"(APIServer pid={api}) " if prefix else ""
    E = f"({core_tag} pid={core}) " if prefix else ""
    L = [(t, f"{A}INFO {ts(t)} [{refs['args']}] non-default args: {nondef}")]
    for i, x in enumerate(extra):
        L.append((t + 10 + i, f"{E}{x[0]} {ts(t+10+i)} {x[1]}" if isinstance(x, tuple) else f"{E}INFO {ts(t+10+i)} {x}"))
    L += [(t + 60, f"{E}INFO {ts(t+60)} [{refs['worker']}] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t+60)} [{refs['kv1']}] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t+60)} [{refs['kv2']}] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t+90)} [{refs['api']}] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


# ---------------------------------------------------------------- dev-7: stale --cpu-offload-gb 35 on 8xH20
def case_offload():
    cid = "y-cpu-offload-35gb-stale-dsv41-h20"
    rng = random.Random(57771)
    t0 = 1789797600.0  # 2026-09-19 06:00 UTC
    start, n, iv = t0 + 1500, 61, 10.0
    block = 256; blocks = 25600; pool = blocks * block; mml = 131072
    c = Case(cid, "0.29.1rc1.dev64+g3c2f9e1d7", False, "deepseek-v4.1-flash", "/models/DeepSeek-V4.1-Flash", mml, start, n, iv, {},
             pool, block, 128, tmpl=T028)
    step = 0.533
    reqs, rid = [], 0
    bench0 = start - 240.0
    for slot in range(64):
        t = bench0 + slot * 0.05
        while t < start + n * iv:
            p = rng.randint(900, 1300)
            r = Req(rid, round(t, 3), p, 0, 256, 256, "length"); rid += 1
            r.t_sched = t + 0.004
            # prefill chunks share steps that each pay the weight transfer; first token after 2-9 steps
            r.t_first = r.t_sched + step * rng.randint(2, 9) + rng.uniform(0.0, 0.3)
            r.step_s = step * rng.uniform(0.97, 1.04); r.t_end = r.t_first + 255 * r.step_s
            reqs.append(r)
            t = r.t_end + rng.uniform(0.02, 0.15)
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T028, block_size=block, cache_dtype="fp8", gpu_memory_utilization=0.9, num_gpu_blocks=blocks,
                          kv_cache_size_tokens=pool, kv_cache_max_concurrency=f"{pool / mml:.2f}", user_specified_block_size="True")
    api, core = 1, 388
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1314", "kv2": "kv_cache_utils.py:1319", "api": "api_server.py:1104"}
    nondef = ("{'model_tag': '/models/DeepSeek-V4.1-Flash', 'model': '/models/DeepSeek-V4.1-Flash', 'served_model_name': ['deepseek-v4.1-flash'], "
              "'trust_remote_code': True, 'max_model_len': 131072, 'tensor_parallel_size': 8, 'block_size': 256, 'cpu_offload_gb': 35.0, "
              "'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 128}")
    extra = [
        "[model.py:1582] Using max model len 131072",
        "[scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        "[core.py:114] Initializing a V1 LLM engine (v0.29.1rc1.dev64+g3c2f9e1d7) with config: model='/models/DeepSeek-V4.1-Flash', tensor_parallel_size=8, quantization=mxfp4, enforce_eager=False, kv_cache_dtype=fp8, max_seq_len=131072, enable_prefix_caching=True, enable_chunked_prefill=True",
        "[default_loader.py:291] Loading weights took 188.52 seconds",
        "[gpu_model_runner.py:3480] Model loading took 29.61 GiB memory and 231.07 seconds",
        "[gpu_worker.py:410] Memory profiling takes 41.88 seconds. Total non KV cache memory: 37.12 GiB; torch peak memory increase: 5.87 GiB; non-torch forward increase memory: 0.41 GiB; weights memory: 29.61 GiB.",
    ]
    L = startup(t0, api, core, nondef, 89.24, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1947] vLLM API server version 0.29.1rc1.dev64+g3c2f9e1d7"))
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259") + access_lines(c, api, "/v1/completions")
    used = int(0.9 * H20_141) + 610 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA H20", "memory_total": H20_141, "memory_used": used,
            "processes": [{"pid": 520 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 540 * 2 ** 20}]} for i in range(8)]
    argv = ["vllm", "serve", "/models/DeepSeek-V4.1-Flash", "--served-model-name", "deepseek-v4.1-flash", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8", "--block-size", "256", "--gpu-memory-utilization", "0.9",
            "--max-num-seqs", "128", "--max-model-len", "131072", "--cpu-offload-gb", "35"]
    args = {"model": "/models/DeepSeek-V4.1-Flash", "served-model-name": "deepseek-v4.1-flash", "trust-remote-code": True,
            "tensor-parallel-size": 8, "kv-cache-dtype": "fp8", "block-size": 256, "gpu-memory-utilization": 0.9, "max-num-seqs": 128,
            "max-model-len": 131072, "cpu-offload-gb": 35}
    write(c, C / cid / "bundle", server=server_json("0.29.1rc1.dev64+g3c2f9e1d7", "deepseek-v4.1-flash", "/models/DeepSeek-V4.1-Flash", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="DeepSeek-V4.1-Flash (MXFP4) moved from a 4-GPU box to 8x H20 141 GB, TP8, launch script carried over unchanged. "
                "Benchmark: 64 concurrent clients, max_tokens 256, unique prompts. Complaint: output throughput about 120 tok/s, far below expectations. "
                "/metrics every 10 s for 10 min, server log.")


BUILDERS = {"y-cpu-offload-35gb-stale-dsv41-h20": case_offload}

if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILDERS)
    for nme in names:
        BUILDERS[nme]()
        print("built", nme)
