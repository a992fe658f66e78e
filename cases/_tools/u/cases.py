"""Build the u-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/u/cases.py [case-id ...]

Simulator and writer copied from cases/_tools/q/gen.py (writer q). Family names, HELP texts and buckets come
from the last scrape of an existing case bundle of a nearby vLLM release (format examples allowed by the brief).
"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
T028 = "a-max-num-seqs-100-piecewise-cliff"   # vLLM 0.28.0
T091 = "n-lora-bench-warmup-base-split"       # vLLM 0.9.1
T016 = "b-claude-code-cch-debug-ids"          # vLLM 0.16.0
GiB = 2 ** 30
PRO6000 = 102641958912   # RTX PRO 6000 Blackwell 96 GB (NVML total)
A100_80 = 85899345920


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


# ---------------------------------------------------------------- dev: DeepSeek-V4.1-Flash SM120 eager, ~1 tok/s per stream
def case_dsv41():
    cid = "u-dsv41-sm120-eager-1tps-per-stream"
    rng = random.Random(56892)
    t0 = 1789977600.0  # 2026-09-21 08:00 UTC
    start, n, iv = t0 + 1800, 61, 10.0
    blocks = 14336; pool = blocks * 128; mml = 524288
    c = Case(cid, "0.28.1", False, "deepseek-ai/DeepSeek-V4.1-Flash", "/models/DeepSeek-V4.1-Flash", mml, start, n, iv, {},
             pool, 128, 16, tmpl=T028)
    # three client slots, each sends its next request when the previous one finishes (300 completion tokens)
    reqs, rid = [], 0
    for slot in range(3):
        t = start - 900 + slot * 95.0
        while t < start + n * iv:
            p = rng.randint(1000, 1400)
            step = rng.uniform(0.88, 1.12)
            r = Req(rid, round(t, 3), p, 0, 300, 300, "length"); rid += 1
            r.t_sched = t + 0.003
            r.t_first = r.t_sched + 5.2 + p / 1000.0 * rng.uniform(0.8, 1.1)
            r.step_s = step; r.t_end = r.t_first + 299 * step
            reqs.append(r)
            t = r.t_end + rng.uniform(0.5, 2.0)
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T028, block_size=128, cache_dtype="fp8", gpu_memory_utilization=0.85, num_gpu_blocks=blocks,
                          kv_cache_size_tokens=pool, kv_cache_max_concurrency=f"{pool / mml:.2f}", user_specified_block_size="True")
    api, core = 1, 412
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1314", "kv2": "kv_cache_utils.py:1319", "api": "api_server.py:1104"}
    nondef = ("{'model_tag': '/models/DeepSeek-V4.1-Flash', 'model': '/models/DeepSeek-V4.1-Flash', 'served_model_name': ['deepseek-ai/DeepSeek-V4.1-Flash'], "
              "'trust_remote_code': True, 'max_model_len': 524288, 'enforce_eager': True, 'tensor_parallel_size': 8, 'block_size': 128, "
              "'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 16, 'language_model_only': True}")
    extra = [
        "[model.py:1582] Using max model len 524288",
        "[scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        ("WARNING", "[vllm.py:712] Enforce eager set, disabling torch.compile and CUDA graphs (cudagraph_mode=NONE)."),
        "[core.py:114] Initializing a V1 LLM engine (v0.28.1) with config: model='/models/DeepSeek-V4.1-Flash', tensor_parallel_size=8, quantization=fp8, enforce_eager=True, kv_cache_dtype=fp8, max_seq_len=524288, enable_prefix_caching=True, enable_chunked_prefill=True, compilation_config={'mode': <CompilationMode.NONE: 0>, 'cudagraph_mode': <CUDAGraphMode.NONE: 0>}",
        ("WARNING", "[fp8_utils.py:118] DeepGEMM is disabled (VLLM_USE_DEEP_GEMM=0); using the Triton/CUTLASS block-FP8 fallback."),
        "[default_loader.py:291] Loading weights took 212.41 seconds",
        "[gpu_model_runner.py:3480] Model loading took 48.11 GiB memory and 219.73 seconds",
    ]
    L = startup(t0, api, core, nondef, 28.34, pool, mml, refs, extra=extra)
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259") + access_lines(c, api, "/v1/chat/completions")
    used = int(0.85 * PRO6000) + 520 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "memory_total": PRO6000, "memory_used": used,
            "processes": [{"pid": 600 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 480 * 2 ** 20}]} for i in range(8)]
    argv = ["vllm", "serve", "/models/DeepSeek-V4.1-Flash", "--served-model-name", "deepseek-ai/DeepSeek-V4.1-Flash", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8", "--block-size", "128", "--gpu-memory-utilization", "0.85",
            "--max-num-seqs", "16", "--max-model-len", "524288", "--enforce-eager", "--language-model-only"]
    args = {"model": "/models/DeepSeek-V4.1-Flash", "served-model-name": "deepseek-ai/DeepSeek-V4.1-Flash", "trust-remote-code": True,
            "tensor-parallel-size": 8, "kv-cache-dtype": "fp8", "block-size": 128, "gpu-memory-utilization": 0.85, "max-num-seqs": 16,
            "max-model-len": 524288, "enforce-eager": True, "language-model-only": True}
    write(c, C / cid / "bundle", server=server_json("0.28.1", "deepseek-ai/DeepSeek-V4.1-Flash", "/models/DeepSeek-V4.1-Flash", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="DeepSeek-V4.1-Flash (FP8) on 8x RTX PRO 6000 Blackwell Max-Q (SM120), TP8, day-0 image with the community SM120 patch set and VLLM_USE_DEEP_GEMM=0; --enforce-eager because CUDA graph capture does not work on SM120. A benchmark keeps 3 requests in flight (300 completion tokens each). Complaint: decode is 2-4 tokens/s in total. /metrics every 10 s for 10 min, server log.")


BUILDERS = {"u-dsv41-sm120-eager-1tps-per-stream": case_dsv41}

if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILDERS)
    for nme in names:
        BUILDERS[nme]()
        print("built", nme)
