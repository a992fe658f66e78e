"""Writer zxg's cases (round 23): builds cases/zxg-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zxg/cases.py
Adapted from cases/_tools/zzb/cases.py (helpers refused / write_failed_start). Numbers not quoted from the
source are listed under `assumed:` in each case.yaml. Seeded, no wall clock.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1024 ** 3
MiB = 1024 ** 2
ts = gen.ts


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def refused(t0: float, n: int, interval: float, endpoint: str) -> list[dict]:
    return [{"t": round(t0 + k * interval, 3), "error": f"GET {endpoint}/metrics: connection refused ([Errno 111] Connection refused)"}
            for k in range(n)]


def finish_with_crash(out: Path, c: Case, n_after: int, endpoint: str) -> None:
    """Append refused scrapes after the served ones (server exited) and fix ended_at."""
    t_next = c.start + c.n_scrapes * c.interval
    with (out / "metrics.jsonl").open("a") as f:
        for r in refused(t_next, n_after, c.interval, endpoint):
            f.write(json.dumps(r) + "\n")
    man = json.loads((out / "manifest.json").read_text())
    man["ended_at"] = t_next + (n_after - 1) * c.interval
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


def write_failed_start(out: Path, *, t0: float, n: int, interval: float, endpoint: str, server: dict, engine_args: dict,
                       model_config: dict | None, gpu: list, logs: list[str], notes: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in refused(t0, n, interval, endpoint)) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": t0,
           "ended_at": t0 + (n - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(logs) + "\n")


def v0_stats(c: Case, t0: float, t1: float, ref: str = "metrics.py:455") -> list[tuple[float, str]]:
    L, t = [], t0 + 5
    while t <= t1:
        a, b = t - 5, t
        pt = sum(r.prompt for r in c.reqs if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
        wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
        u = 100.0 * blocks * c.block_size / c.pool_tokens
        if pt or gt or run:
            L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {u:.1f}%, CPU KV cache usage: 0.0%."))
        t += 5
    return L


def mk_reqs(rng, t_a, t_b, rate, prompt_fn, gen_fn, mt):
    R, t, i = [], t_a, 0
    while True:
        t += rng.expovariate(rate)
        if t >= t_b:
            return R
        R.append(Req(i, t, prompt_fn(), 0, gen_fn(), mt)); i += 1


def oom_line(tried, total, free, inuse, alloc, pools, reserved, other=False):
    who = f"Process {other} has {inuse} memory in use" if other else f"Including non-PyTorch memory, this process has {inuse} memory in use"
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried}. GPU 0 has a total capacity of {total} of which {free} is free. "
            f"{who}. Of the allocated memory {alloc} is allocated by PyTorch, with {pools} allocated in private pools (e.g., CUDA Graphs), and {reserved} "
            f"is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            f"to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def dsv3_config(**kw) -> dict:
    cfg = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
           "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
           "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
           "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
           "vocab_size": 129280, "max_position_embeddings": 163840, "torch_dtype": "bfloat16", "rope_theta": 10000,
           "rms_norm_eps": 1e-06, "tie_word_embeddings": False}
    cfg.update(kw)
    return cfg


# ---------------------------------------------------------------- 1: vllm#13067 (dev-23)
def r1_awq() -> None:
    cid = "zxg-r1-awq-tp8-a800-long-prompt-oom"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://10.25.164.20:8000"
    start = utc(2025, 2, 10, 17, 59, 0)
    t_crash = utc(2025, 2, 10, 18, 6, 30)
    rng = random.Random(13067)
    pool = 38355 * 16
    c = Case(cid, "0.7.2", True, "deepseek-reasoner", "cognitivecomputations/DeepSeek-R1-AWQ", 16384, start, 0, 10.0,
             {}, pool, 16, 256, tmpl=gen.V0_T)
    reqs = mk_reqs(rng, start - 120, t_crash - 20, 0.06, lambda: rng.randint(300, 2400), lambda: rng.randint(400, 1800), 8192)
    gen.simulate(c, reqs, lambda n: 0.052 + 0.0015 * n, lambda r, n: 0.25 + r.prompt * 0.00011)
    # in-flight requests at the crash are cut (they die with the engine)
    for r in c.reqs:
        if r.t_end > t_crash:
            r.t_end = t_crash + 10 ** 6  # never finishes inside the served window
    c.n_scrapes = int((t_crash - start) // c.interval) + 1
    c.labels_cc = gen.tmpl_cc(gen.V0_T, cache_dtype="fp8_e5m2", enable_prefix_caching="False", gpu_memory_utilization="0.9",
                              num_cpu_blocks="7641", num_gpu_blocks="38355")
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "8000", "--max-model-len", "16384",
            "--trust-remote-code", "--tensor-parallel-size", "8", "--quantization", "moe_wna16", "--gpu-memory-utilization", "0.9",
            "--kv-cache-dtype", "fp8_e5m2", "--calculate-kv-scales", "--served-model-name", "deepseek-reasoner", "--model",
            "cognitivecomputations/DeepSeek-R1-AWQ"]
    args = {"host": "0.0.0.0", "port": 8000, "max-model-len": 16384, "trust-remote-code": True, "tensor-parallel-size": 8,
            "quantization": "moe_wna16", "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8_e5m2", "calculate-kv-scales": True,
            "served-model-name": "deepseek-reasoner", "model": "cognitivecomputations/DeepSeek-R1-AWQ"}
    gen.write(c, out, server=gen.server_json("0.7.2", "deepseek-reasoner", "cognitivecomputations/DeepSeek-R1-AWQ", 16384, int(start)),
              engine_args={"argv": argv, "args": args},
              model_config=dsv3_config(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": True, "version": "gemm",
                                                            "modules_to_not_convert": ["self_attn", "mlp.gate"]}, torch_dtype="float16"),
              gpu=[], logs=[], notes="", endpoint=ep)
    finish_with_crash(out, c, 6, ep)
    # NVML: 8 A800 80GB, serving at ~72.6 GiB, freed after the crash
    gpu = []
    n_all = c.n_scrapes + 6
    for k in range(n_all):
        t = start + k * c.interval
        alive = t <= t_crash
        devs = []
        for i in range(8):
            used = int((72.61 + 0.01 * i) * GiB) if alive else int(0.41 * GiB)
            devs.append({"index": i, "name": "NVIDIA A800-SXM4-80GB", "memory_total": 85174583296, "memory_used": used,
                         "processes": ([{"pid": 2377657 + i * 61, "name": "python3", "used_memory": used - int(0.4 * GiB)}] if alive else [])})
        gpu.append({"t": round(t, 3), "devices": devs})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    T = lambda tt: ts(tt)
    s0 = start - 1500
    L = [(s0, f"INFO {T(s0)} api_server.py:840] vLLM API server version 0.7.2"),
         (s0 + 1, f"INFO {T(s0 + 1)} api_server.py:841] args: Namespace(host='0.0.0.0', port=8000, model='cognitivecomputations/DeepSeek-R1-AWQ', "
                  f"trust_remote_code=True, max_model_len=16384, quantization='moe_wna16', kv_cache_dtype='fp8_e5m2', calculate_kv_scales=True, "
                  f"tensor_parallel_size=8, gpu_memory_utilization=0.9, served_model_name=['deepseek-reasoner'])"),
         (s0 + 9, f"INFO {T(s0 + 9)} config.py:542] This model supports multiple tasks: {{'generate', 'reward', 'classify', 'score', 'embed'}}. Defaulting to 'generate'."),
         (s0 + 9, f"INFO {T(s0 + 9)} config.py:1020] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. "
                  f"Meanwhile, it may cause accuracy drop without a proper scaling factor"),
         (s0 + 9, f"INFO {T(s0 + 9)} config.py:1382] Defaulting to use mp for distributed inference"),
         (s0 + 9, f"INFO {T(s0 + 9)} cuda.py:161] Using Triton MLA backend."),
         (s0 + 400, f"INFO {T(s0 + 400)} model_runner.py:1115] Loading model weights took 42.3618 GB"),
         (s0 + 431, f"INFO {T(s0 + 431)} worker.py:267] Memory profiling takes 30.62 seconds"),
         (s0 + 431, f"INFO {T(s0 + 431)} worker.py:267] the current vLLM instance can use total_gpu_memory (79.33GiB) x gpu_memory_utilization (0.90) = 71.40GiB"),
         (s0 + 431, f"INFO {T(s0 + 431)} worker.py:267] model weights take 42.36GiB; non_torch_memory takes 1.12GiB; PyTorch activation peak memory takes 7.85GiB; "
                    f"the rest of the memory reserved for KV Cache is 20.07GiB."),
         (s0 + 432, f"INFO {T(s0 + 432)} executor_base.py:110] # CUDA blocks: 38355, # CPU blocks: 7641"),
         (s0 + 432, f"INFO {T(s0 + 432)} executor_base.py:115] Maximum concurrency for 16384 tokens per request: 37.46x"),
         (s0 + 436, f"INFO {T(s0 + 436)} model_runner.py:1434] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. "
                    f"To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph "
                    f"capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."),
         (s0 + 489, f"INFO {T(s0 + 489)} model_runner.py:1562] Graph capturing finished in 53 secs, took 1.31 GiB"),
         (s0 + 489, f"INFO {T(s0 + 489)} llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 89.14 seconds"),
         (s0 + 490, f"INFO {T(s0 + 490)} api_server.py:926] Starting vLLM API server on http://0.0.0.0:8000"),
         (s0 + 490, "INFO:     Application startup complete.")]
    for r in c.reqs:
        if r.t_arr >= s0 + 490:
            L.append((r.t_arr, f"INFO {T(r.t_arr)} engine.py:275] Added request cmpl-{rng.getrandbits(128):032x}-0."))
            L.append((r.t_arr + 0.002, f'INFO:     10.25.164.{30 + r.rid % 5}:{50000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    L += [x for x in v0_stats(c, start - 120, t_crash) if x[0] < t_crash]
    L += [(t_crash, f"INFO {T(t_crash)} engine.py:275] Added request cmpl-30aaf466904d4d148c2e17a584f448e0-0."),
          (t_crash + 0.01, f"CRITICAL {T(t_crash)} launcher.py:101] MQLLMEngine is already dead, terminating server process"),
          (t_crash + 0.02, 'INFO:     10.25.164.34:57224 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error'),
          (t_crash + 0.03, f"ERROR {T(t_crash)} engine.py:139] OutOfMemoryError('CUDA out of memory. Tried to allocate 1.27 GiB. GPU 0 has a total capacity of 79.33 GiB "
                           f"of which 109.81 MiB is free. Process 2377657 has 79.19 GiB memory in use. Of the allocated memory 67.68 GiB is allocated by PyTorch, with 76.00 MiB "
                           f"allocated in private pools (e.g., CUDA Graphs), and 1.47 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
                           f"setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
                           f"(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)')"),
          (t_crash + 0.04, f"ERROR {T(t_crash)} engine.py:139] Traceback (most recent call last):"),
          (t_crash + 0.05, f'ERROR {T(t_crash)} engine.py:139]   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 137, in start'),
          (t_crash + 0.06, f"ERROR {T(t_crash)} engine.py:139]     self.run_engine_loop()"),
          (t_crash + 0.07, f'ERROR {T(t_crash)} engine.py:139]   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1719, in execute_model'),
          (t_crash + 0.08, f"ERROR {T(t_crash)} engine.py:139]     hidden_or_intermediate_states = model_executable("),
          (t_crash + 0.09, f"ERROR {T(t_crash)} engine.py:139] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.27 GiB. GPU 0 has a total capacity of 79.33 GiB of which 109.81 MiB is free."),
          (t_crash + 1.2, "INFO:     Shutting down"),
          (t_crash + 1.3, "INFO:     Finished server process [1]")]
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(L, key=lambda x: x[0])) + "\n")
    man = json.loads((out / "manifest.json").read_text())
    man["notes"] = ("vLLM 0.7.2 (V0, MQLLMEngine) serving DeepSeek-R1-AWQ on 8x A800 80GB, TP8, moe_wna16, fp8_e5m2 KV, util 0.9. "
                    "Operator: after the service starts, it crashes due to the length of the prompt.")
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


if __name__ == "__main__":
    which = sys.argv[1:] or ["r1_awq", "kimi", "pp3", "qwen3"]
    for w in which:
        globals()[w]()
        print("built", w)
