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


# ---------------------------------------------------------------- 2: gonka-ai/gonka#1171 (holdout-23)
def kimi() -> None:
    cid = "zxg-kimi-k26-tp4-prompt-logprobs-oom"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://mlnode-3.devshard.internal:8000"
    start = utc(2026, 5, 14, 18, 20, 0)
    t_crash = utc(2026, 5, 14, 18, 26, 41)
    rng = random.Random(1171)
    pool = 372928
    c = Case(cid, "0.20.0", False, "moonshotai/Kimi-K2.6", "/models/Kimi-K2.6", 262144, start, 0, 10.0, {}, pool, 16, 256,
             tmpl=gen.V1_T)
    reqs = mk_reqs(rng, start - 300, t_crash + 30, 0.8, lambda: rng.randint(1500, 9000), lambda: rng.randint(150, 900), 4096)
    for r in reqs:
        r.cached = 0
    gen.simulate(c, reqs, lambda n: 0.030 + 0.0004 * n, lambda r, n: 0.12 + r.prompt * 0.00004)
    for r in c.reqs:
        if r.t_end > t_crash:
            r.t_end = t_crash + 10 ** 6
    c.n_scrapes = int((t_crash - start) // c.interval) + 1
    c.labels_cc = gen.tmpl_cc(gen.V1_T, block_size="16", enable_prefix_caching="True", gpu_memory_utilization="0.95",
                              mamba_block_size="None", mamba_cache_mode="none", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto",
                              num_gpu_blocks=str(pool // 16))
    argv = ["vllm", "serve", "/models/Kimi-K2.6", "--served-model-name", "moonshotai/Kimi-K2.6", "--tensor-parallel-size", "4",
            "--gpu-memory-utilization", "0.95", "--trust-remote-code", "--tool-call-parser", "kimi_k2", "--reasoning-parser", "kimi_k2",
            "--enable-auto-tool-choice", "--port", "8000"]
    args = {"served-model-name": "moonshotai/Kimi-K2.6", "tensor-parallel-size": 4, "gpu-memory-utilization": 0.95, "trust-remote-code": True,
            "tool-call-parser": "kimi_k2", "reasoning-parser": "kimi_k2", "enable-auto-tool-choice": True, "port": 8000}
    mc = dsv3_config(num_attention_heads=64, num_key_value_heads=64, n_routed_experts=384, first_k_dense_replace=1, vocab_size=163840,
                     max_position_embeddings=262144, quantization_config={"quant_method": "compressed-tensors", "format": "pack-quantized",
                     "config_groups": {"group_0": {"weights": {"num_bits": 4, "group_size": 32, "type": "int", "symmetric": True}, "targets": ["Linear"]}},
                     "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]})
    gen.write(c, out, server=gen.server_json("0.20.0", "moonshotai/Kimi-K2.6", "/models/Kimi-K2.6", 262144, int(start)),
              engine_args={"argv": argv, "args": args}, model_config=mc, gpu=[], logs=[], notes="", endpoint=ep)
    finish_with_crash(out, c, 20, ep)
    total = int(178.35 * GiB)
    gpu = []
    for k in range(c.n_scrapes + 20):
        t = start + k * c.interval
        alive = t <= t_crash
        devs = []
        for i in range(4):
            used = int((170.02 + 0.02 * i) * GiB) if alive else int(0.55 * GiB)
            devs.append({"index": i, "name": "NVIDIA B200", "memory_total": total, "memory_used": used,
                         "processes": ([{"pid": 412 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - int(0.5 * GiB)}] if alive else [])})
        gpu.append({"t": round(t, 3), "devices": devs})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    api = 1
    P = f"(APIServer pid={api}) "
    E = "(EngineCore_DP0 pid=298) "
    T = ts
    s0 = start - 900
    L = [(s0, f"{P}INFO {T(s0)} [api_server.py:1921] vLLM API server version 0.20.0"),
         (s0 + 1, f"{P}INFO {T(s0 + 1)} [utils.py:253] non-default args: {{'model_tag': '/models/Kimi-K2.6', 'enable_auto_tool_choice': True, "
                  f"'tool_call_parser': 'kimi_k2', 'port': 8000, 'model': '/models/Kimi-K2.6', 'trust_remote_code': True, 'served_model_name': ['moonshotai/Kimi-K2.6'], "
                  f"'reasoning_parser': 'kimi_k2', 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.95}}"),
         (s0 + 300, f"(Worker_TP0 pid=412) INFO {T(s0 + 300)} [gpu_model_runner.py:4302] Model loading took 138.32 GiB memory and 281.440012 seconds"),
         (s0 + 380, f"(Worker_TP0 pid=412) INFO {T(s0 + 380)} [gpu_worker.py:436] Available KV cache memory: 24.41 GiB"),
         (s0 + 381, f"{E}INFO {T(s0 + 381)} [kv_cache_utils.py:1316] GPU KV cache size: 372,928 tokens"),
         (s0 + 381, f"{E}INFO {T(s0 + 381)} [kv_cache_utils.py:1321] Maximum concurrency for 262,144 tokens per request: 1.42x"),
         (s0 + 420, f"(Worker_TP0 pid=412) INFO {T(s0 + 420)} [gpu_model_runner.py:5461] Graph capturing finished in 38 secs, took 0.91 GiB"),
         (s0 + 421, f"{E}INFO {T(s0 + 421)} [core.py:272] init engine (profile, create kv cache, warmup model) took 118.27 seconds"),
         (s0 + 425, f"{P}INFO {T(s0 + 425)} [api_server.py:2016] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += [x for x in gen.stats_lines(c, start - 300, t_crash, api, "loggers.py:259") if x[0] < t_crash]
    L += [x for x in gen.access_lines(c, api, "/v1/chat/completions") if x[0] < t_crash]
    W = "(Worker_TP0 pid=412) "
    tb = [f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839] WorkerProc hit an exception.",
          f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839] Traceback (most recent call last):",
          f'{W}ERROR {T(t_crash)} [multiproc_executor.py:839]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3471, in _bookkeeping_sync',
          f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839]     prompt_logprobs_dict = self._get_prompt_logprobs_dict(",
          f'{W}ERROR {T(t_crash)} [multiproc_executor.py:839]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 5121, in _get_prompt_logprobs_dict',
          f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839]     logits = self.model.compute_logits(prompt_hidden_states)",
          f'{W}ERROR {T(t_crash)} [multiproc_executor.py:839]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/logits_processor.py", line 83, in _gather_logits',
          f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839]     logits = tensor_model_parallel_all_gather(logits)",
          f"{W}ERROR {T(t_crash)} [multiproc_executor.py:839] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.82 GiB. GPU 0 has a total capacity of 178.35 GiB "
          f"of which 3.22 GiB is free. Including non-PyTorch memory, this process has 175.11 GiB memory in use. Of the allocated memory 171.36 GiB is allocated by PyTorch, "
          f"with 0.91 GiB allocated in private pools (e.g., CUDA Graphs), and 1.06 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
          f"setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
          f"{E}ERROR {T(t_crash + 0.2)} [core.py:1101] EngineCore encountered a fatal error.",
          f"{E}ERROR {T(t_crash + 0.2)} [core.py:1101] RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 3.82 GiB. GPU 0 has a total capacity of 178.35 GiB of which 3.22 GiB is free.', please check the stack trace above for the root cause",
          f"{P}ERROR {T(t_crash + 0.3)} [async_llm.py:541] AsyncLLM output_handler failed.",
          f"{P}ERROR {T(t_crash + 0.3)} [async_llm.py:541] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
          f'{P}INFO:     10.40.2.17:52210 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
          f'{P}INFO:     10.40.2.11:41873 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
          f"{P}INFO:     Shutting down",
          f"{P}INFO:     Finished server process [1]"]
    L += [(t_crash + 0.001 * i, x) for i, x in enumerate(tb)]
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(L, key=lambda x: x[0])) + "\n")
    man = json.loads((out / "manifest.json").read_text())
    man["notes"] = ("vLLM 0.20.0 V1, Kimi-K2.6 TP4 on 4x B200, util 0.95, devshard mlnode. Operator: the engine dies every few hours "
                    "(8 fatal crashes in 24h), HTTP 500 and the node is down for minutes until it reloads.")
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


# ---------------------------------------------------------------- 3: vllm#12895 (holdout-23)
def pp3() -> None:
    cid = "zxg-pp3-r1-bf16-last-stage-runtime-oom"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://10.0.1.11:8000"
    start = utc(2025, 2, 7, 3, 32, 50)
    t_crash = utc(2025, 2, 7, 3, 41, 52)
    rng = random.Random(12895)
    pool = 48812 * 16
    mdl = "/models/unsloth-DeepSeek-R1-BF16/"
    c = Case(cid, "0.7.2", True, mdl, mdl, 4096, start, 0, 10.0, {}, pool, 16, 256, tmpl=gen.V0_T)
    reqs = mk_reqs(rng, start - 600, t_crash + 60, 0.42, lambda: rng.randint(700, 1900), lambda: rng.randint(300, 900), 2048)
    gen.simulate(c, reqs, lambda n: 0.085 + 0.0012 * n, lambda r, n: 0.6 + r.prompt * 0.0004)
    for r in c.reqs:
        if r.t_end > t_crash:
            r.t_end = t_crash + 10 ** 6
    c.n_scrapes = int((t_crash - start) // c.interval) + 1
    c.labels_cc = gen.tmpl_cc(gen.V0_T, enable_prefix_caching="False", gpu_memory_utilization="0.95", num_cpu_blocks="45511",
                              num_gpu_blocks="48812", swap_space="16")
    argv = ["vllm", "serve", mdl, "-pp", "3", "-tp", "8", "--trust-remote-code", "--max-model-len", "4096", "--worker-use-ray",
            "--swap-space", "16", "--gpu-memory-utilization", "0.95"]
    args = {"pipeline-parallel-size": 3, "tensor-parallel-size": 8, "trust-remote-code": True, "max-model-len": 4096, "worker-use-ray": True,
            "swap-space": 16, "gpu-memory-utilization": 0.95}
    gen.write(c, out, server=gen.server_json("0.7.2", mdl, mdl, 4096, int(start)), engine_args={"argv": argv, "args": args},
              model_config=dsv3_config(), gpu=[], logs=[], notes="", endpoint=ep)
    finish_with_crash(out, c, 8, ep)
    gpu = []
    for k in range(c.n_scrapes + 8):
        t = start + k * c.interval
        alive = t <= t_crash + 3
        devs = []
        for i in range(8):
            used = int((71.62 + 0.01 * i) * GiB) if alive else int(0.43 * GiB)
            devs.append({"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": used,
                         "processes": ([{"pid": 30211 + i * 17, "name": "ray::RayWorkerWrapper" if i else "python3", "used_memory": used - int(0.4 * GiB)}] if alive else [])})
        gpu.append({"t": round(t, 3), "devices": devs})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    T = ts
    s0 = start - 1800
    L = [(s0, f"INFO {T(s0)} api_server.py:840] vLLM API server version 0.7.2"),
         (s0 + 1, f"INFO {T(s0 + 1)} api_server.py:841] args: Namespace(subparser='serve', model_tag='{mdl}', model='{mdl}', trust_remote_code=True, "
                  f"max_model_len=4096, worker_use_ray=True, pipeline_parallel_size=3, tensor_parallel_size=8, swap_space=16.0, gpu_memory_utilization=0.95)"),
         (s0 + 12, f"INFO {T(s0 + 12)} ray_distributed_executor.py:149] use_ray_spmd_worker: False"),
         (s0 + 40, f"INFO {T(s0 + 40)} cuda.py:161] Using Triton MLA backend."),
         (s0 + 700, f"INFO {T(s0 + 700)} model_runner.py:1115] Loading model weights took 51.3154 GB"),
         (s0 + 702, f"(RayWorkerWrapper pid=18822, ip=10.0.1.13) INFO {T(s0 + 702)} model_runner.py:1115] Loading model weights took 53.8387 GB [repeated 7x across cluster]"),
         (s0 + 740, f"INFO {T(s0 + 740)} worker.py:267] Memory profiling takes 34.81 seconds"),
         (s0 + 740, f"INFO {T(s0 + 740)} worker.py:267] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.95) = 75.19GiB"),
         (s0 + 740, f"INFO {T(s0 + 740)} worker.py:267] model weights take 51.32GiB; non_torch_memory takes 0.93GiB; PyTorch activation peak memory takes 2.41GiB; "
                    f"the rest of the memory reserved for KV Cache is 20.53GiB."),
         (s0 + 741, f"INFO {T(s0 + 741)} executor_base.py:110] # CUDA blocks: 48812, # CPU blocks: 45511"),
         (s0 + 741, f"INFO {T(s0 + 741)} executor_base.py:115] Maximum concurrency for 4096 tokens per request: 190.67x"),
         (s0 + 800, f"INFO {T(s0 + 800)} model_runner.py:1562] Graph capturing finished in 58 secs, took 1.06 GiB"),
         (s0 + 801, f"INFO {T(s0 + 801)} llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 101.23 seconds"),
         (s0 + 802, f"INFO {T(s0 + 802)} api_server.py:926] Starting vLLM API server on http://0.0.0.0:8000")]
    for r in c.reqs:
        if s0 + 802 < r.t_arr < t_crash:
            L.append((r.t_arr + 0.002, f'INFO:     10.0.2.{20 + r.rid % 4}:{43000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    L += [x for x in v0_stats(c, start - 600, t_crash) if x[0] < t_crash]
    W = "(RayWorkerWrapper pid=18829, ip=10.0.1.13) "
    tb = [f"{W}ERROR {T(t_crash)} worker_base.py:581] Error executing method 'execute_model'. This might cause deadlock in distributed execution.",
          f"{W}ERROR {T(t_crash)} worker_base.py:581] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.32 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.18 GiB is free. "
          f"Including non-PyTorch memory, this process has 77.96 GiB memory in use. Of the allocated memory 74.02 GiB is allocated by PyTorch, with 96.00 MiB allocated in private pools "
          f"(e.g., CUDA Graphs), and 1.21 GiB is reserved by PyTorch but unallocated.",
          f"ERROR {T(t_crash + 1)} engine.py:139] RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_method() (pid=18829, ip=10.0.1.13, actor_id=5c1e0a9f2b7e4c1d8a6f0e3b01000000)",
          f"CRITICAL {T(t_crash + 1)} launcher.py:101] MQLLMEngine is already dead, terminating server process",
          f'INFO:     10.0.2.21:43377 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
          "INFO:     Shutting down",
          "INFO:     Finished server process [7]"]
    L += [(t_crash + 0.01 * i, x) for i, x in enumerate(tb)]
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(L, key=lambda x: x[0])) + "\n")
    man = json.loads((out / "manifest.json").read_text())
    man["notes"] = ("vLLM 0.7.2 V0, Ray cluster of 3 nodes x 8 A100, -pp 3 -tp 8, DeepSeek-R1 BF16, util 0.95. kvdoctor on the head node (10.0.1.11, PP stage 0): "
                    "NVML covers only its 8 GPUs. Operator: the last node uses more GPU memory and runs out after serving for a while, the others stay underutilized.")
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


# ---------------------------------------------------------------- 4: vllm#24436 (holdout-23)
def qwen3() -> None:
    cid = "zxg-qwen3-4b-fp8-4090-v1-sampler-warmup-oom"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://127.0.0.1:8850"
    t0 = utc(2025, 9, 8, 18, 58, 57)
    mdl = "Qwen/Qwen3-4B-Instruct-2507-FP8"
    root = "/home/usr1/.cache/modelscope/hub/models/Qwen/Qwen3-4B-Instruct-2507-FP8"
    argv = ["vllm", "serve", mdl, "--max-model-len", "32768", "--host", "0.0.0.0", "--port", "8850"]
    args = {"max-model-len": 32768, "host": "0.0.0.0", "port": 8850}
    P, E = "(APIServer pid=2738812) ", "(EngineCore_0 pid=2739080) "
    T = lambda s: ts(t0 + s)
    L = [f"INFO {T(0)} [__init__.py:241] Automatically detected platform cuda.",
         f"{P}INFO {T(3)} [api_server.py:1805] vLLM API server version 0.10.1.1",
         f"{P}INFO {T(3)} [utils.py:326] non-default args: {{'model_tag': '{mdl}', 'host': '0.0.0.0', 'port': 8850, 'model': '{mdl}', 'max_model_len': 32768}}",
         f"{P}INFO {T(15)} [__init__.py:711] Resolved architecture: Qwen3ForCausalLM",
         f"{P}INFO {T(15)} [__init__.py:1750] Using max model len 32768",
         f"{P}INFO {T(16)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=2048.",
         f"{E}INFO {T(22)} [core.py:636] Waiting for init message from front-end.",
         f"{E}INFO {T(22)} [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
         f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, "
         f"dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
         f"disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
         f"served_model_name={mdl}, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True",
         f"{E}INFO {T(24)} [gpu_model_runner.py:1953] Starting to load model {root}...",
         f"{E}INFO {T(24)} [cuda.py:328] Using Flash Attention backend on V1 engine.",
         f"{E}INFO {T(31)} [default_loader.py:262] Loading weights took 5.87 seconds",
         f"{E}INFO {T(32)} [gpu_model_runner.py:2007] Model loading took 4.6128 GiB and 7.126840 seconds",
         f"{E}INFO {T(41)} [backends.py:548] Using cache directory: /home/usr1/.cache/vllm/torch_compile_cache/3b1f9a7c2e/rank_0_0/backbone for vLLM's torch.compile",
         f"{E}INFO {T(41)} [backends.py:559] Dynamo bytecode transform time: 8.73 s",
         f"{E}INFO {T(66)} [backends.py:215] Compiling a graph for dynamic shape takes 24.61 s",
         f"{E}INFO {T(80)} [monitor.py:34] torch.compile takes 33.34 s in total",
         f"{E}INFO {T(82)} [gpu_worker.py:276] Available KV cache memory: 15.19 GiB",
         f"{E}INFO {T(82)} [kv_cache_utils.py:849] GPU KV cache size: 110,608 tokens",
         f"{E}INFO {T(82)} [kv_cache_utils.py:853] Maximum concurrency for 32,768 tokens per request: 3.38x",
         f"{E}INFO {T(126)} [gpu_model_runner.py:2708] Graph capturing finished in 43 secs, took 0.45 GiB",
         f"{E}ERROR {T(127)} [core.py:700] EngineCore failed to start.",
         f"{E}ERROR {T(127)} [core.py:700] Traceback (most recent call last):",
         f'{E}ERROR {T(127)} [core.py:700]   File "/home/usr1/.local/intelpython3/envs/vllm/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
         f"{E}ERROR {T(127)} [core.py:700]     engine_core = EngineCoreProc(*args, **kwargs)",
         f'{E}ERROR {T(127)} [core.py:700]   File "/home/usr1/.local/intelpython3/envs/vllm/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 180, in _initialize_kv_caches',
         f"{E}ERROR {T(127)} [core.py:700]     self.model_executor.initialize_from_config(kv_cache_configs)",
         f'{E}ERROR {T(127)} [core.py:700]   File "/home/usr1/.local/intelpython3/envs/vllm/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 341, in compile_or_warm_up_model',
         f"{E}ERROR {T(127)} [core.py:700]     self.model_runner._dummy_sampler_run(",
         f'{E}ERROR {T(127)} [core.py:700]   File "/home/usr1/.local/intelpython3/envs/vllm/lib/python3.12/site-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 83, in forward_native',
         f"{E}ERROR {T(127)} [core.py:700]     logits = apply_top_k_top_p(logits, k, p)",
         f'{E}ERROR {T(127)} [core.py:700]   File "/home/usr1/.local/intelpython3/envs/vllm/lib/python3.12/site-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 189, in apply_top_k_top_p',
         f"{E}ERROR {T(127)} [core.py:700]     logits_sort, logits_idx = logits.sort(dim=-1, descending=False)",
         f"{E}ERROR {T(127)} [core.py:700] " + oom_line("298.00 MiB", "23.65 GiB", "98.25 MiB", "23.53 GiB", "20.32 GiB", "66.00 MiB", "74.74 MiB"),
         f"{E}ERROR {T(127)} [core.py:700] ",
         f"{E}ERROR {T(127)} [core.py:700] The above exception was the direct cause of the following exception:",
         f"{E}ERROR {T(127)} [core.py:700] ",
         f"{E}ERROR {T(127)} [core.py:700] RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` "
         f"or `gpu_memory_utilization` when initializing the engine.",
         f"{P}ERROR {T(129)} [api_server.py:1951] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    n, iv = 19, 10.0
    gpu = []
    for k in range(n):
        s = k * iv
        used = 0.45 if s < 24 else (5.4 if s < 32 else (7.1 if s < 82 else (22.95 if s < 126 else (23.53 if s <= 127 else 0.0))))
        procs = [{"pid": 2739080, "name": "VLLM::EngineCore", "used_memory": int(used * GiB)}] if 24 <= s <= 127 else []
        gpu.append({"t": round(t0 + s, 3), "devices": [{"index": 1, "name": "NVIDIA GeForce RTX 4090", "memory_total": 25757220864,
                                                         "memory_used": int((used + 0.0) * GiB) if procs else int(0.42 * GiB), "processes": procs}]})
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36,
          "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 262144,
          "torch_dtype": "bfloat16", "tie_word_embeddings": True, "rope_theta": 5000000,
          "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128]}}
    write_failed_start(out, t0=t0, n=n, interval=iv, endpoint=ep, server={"version": None, "models": None, "health": None},
                       engine_args={"argv": ["vllm", "serve", mdl, "--max-model-len", "32768", "--host", "0.0.0.0", "--port", "8850"], "args": args},
                       model_config=mc, gpu=gpu, logs=L,
                       notes="vLLM 0.10.1.1 (V1) on one RTX 4090 (CUDA_VISIBLE_DEVICES=1), Qwen3-4B-Instruct-2507-FP8, --max-model-len 32768, defaults otherwise. "
                             "Operator: crashes at start-up unless VLLM_USE_V1=0; the API server never came up.")


if __name__ == "__main__":
    which = sys.argv[1:] or ["r1_awq", "kimi", "pp3", "qwen3"]
    for w in which:
        globals()[w]()
        print("built", w)
