"""Writer zxm's cases (round 24): builds cases/zxm-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zxm/cases.py
Adapted from cases/_tools/zxg/cases.py (helpers refused / write_failed_start / finish_with_crash / oom_line).
Numbers not quoted from the source are listed under `assumed:` in each case.yaml. Seeded, no wall clock.
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


def oom_line(dev, tried, total, free, inuse, alloc, pools, reserved):
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried}. GPU {dev} has a total capacity of {total} of which {free} is free. "
            f"Including non-PyTorch memory, this process has {inuse} memory in use. Of the allocated memory {alloc} is allocated by PyTorch, with {pools} "
            f"allocated in private pools (e.g., CUDA Graphs), and {reserved} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
            f"try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
            f"(https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)")


NO_SERVER = {"version": None, "models": None, "health": None}


# ---------------------------------------------------------------- 1: vllm PR #51590 comment (dev-24)
def gptoss() -> None:
    cid = "zxm-gptoss120b-tp8-pro4500-budget-overrun"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://127.0.0.1:8000"
    t0 = utc(2026, 9, 21, 8, 12, 5)
    mdl = "openai/gpt-oss-120b"
    ver = "0.28.0"
    P, E = "(APIServer pid=51207) ", "(EngineCore pid=51388) "
    W = [f"(Worker_TP{i} pid={51455 + i}) " for i in range(8)]
    T = lambda s: ts(t0 + s)
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    L = [f"{P}INFO {T(0)} [api_server.py:1388] vLLM API server version {ver}",
         f"{P}INFO {T(0)} [utils.py:279] non-default args: {{'model_tag': '{mdl}', 'model': '{mdl}', 'tensor_parallel_size': 8, "
         f"'gpu_memory_utilization': 0.95, 'max_num_seqs': 256}}",
         f"{P}INFO {T(6)} [model.py:552] Resolved architecture: GptOssForCausalLM",
         f"{P}INFO {T(6)} [model.py:1598] Using max model len 131072",
         f"{P}INFO {T(6)} [scheduler.py:236] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"{E}INFO {T(11)} [core.py:101] Initializing a V1 LLM engine (v{ver}) with config: model='{mdl}', tokenizer='{mdl}', dtype=torch.bfloat16, "
         f"max_seq_len=131072, tensor_parallel_size=8, pipeline_parallel_size=1, quantization=mxfp4, enforce_eager=False, kv_cache_dtype=auto, "
         f"enable_prefix_caching=True, enable_chunked_prefill=True"]
    for i in range(8):
        L.append(f"{W[i]}INFO {T(20)} [gpu_model_runner.py:4225] Starting to load model {mdl}...")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(20)} [mxfp4.py:165] Using Marlin backend")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(49)} [gpu_model_runner.py:4310] Model loading took 9.98 GiB memory and 28.512304 seconds")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(83)} [monitor.py:53] torch.compile took 31.27 s in total")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(85)} [gpu_model_runner.py:6063] Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)")
        L.append(f"{W[i]}INFO {T(87)} [gpu_model_runner.py:6142] Estimated CUDA graph memory: 0.06 GiB total")
        L.append(f"{W[i]}INFO {T(88)} [gpu_worker.py:462] Available KV cache memory: 19.0 GiB")
    kv_tokens = int(19.0 * GiB // 9216)
    L += [f"{E}INFO {T(88)} [kv_cache_utils.py:1710] GPU KV cache size: {kv_tokens:,} tokens",
          f"{E}INFO {T(88)} [kv_cache_utils.py:1711] Maximum concurrency for 131,072 tokens per request: {kv_tokens / 131072:.2f}x"]
    for i in range(8):
        L.append(f"{W[i]}INFO {T(101)} [gpu_model_runner.py:6582] Graph capturing finished in 12 secs, took 0.06 GiB")
        L.append(f"{W[i]}INFO {T(101)} [gpu_worker.py:619] CUDA graph pool memory: 0.06 GiB (actual), 0.06 GiB (estimated), difference: 0.0 GiB (3.3%).")
    for i in range(8):
        pre = f"{W[i]}ERROR {T(103)} [multiproc_executor.py:949] "
        L += [f"{pre}WorkerProc hit an exception.",
              f"{pre}Traceback (most recent call last):",
              f'{pre}  File "{site}/v1/worker/gpu_worker.py", line 745, in compile_or_warm_up_model',
              f"{pre}    kernel_warmup(self)",
              f'{pre}  File "{site}/model_executor/warmup/kernel_warmup.py", line 61, in kernel_warmup',
              f"{pre}    worker.model_runner._dummy_sampler_run(hidden_states=dummy_hidden)",
              f'{pre}  File "{site}/v1/worker/gpu_model_runner.py", line 5127, in _dummy_sampler_run',
              f"{pre}    raise RuntimeError(",
              pre + oom_line(i, "256.00 MiB", "31.38 GiB", "169.69 MiB", "31.18 GiB", "30.41 GiB", "62.00 MiB", "416.25 MiB"),
              f"{pre}RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` "
              f"or `gpu_memory_utilization` when initializing the engine."]
    L += [f"{E}ERROR {T(104)} [core.py:1165] EngineCore failed to start.",
          f"{E}ERROR {T(104)} [core.py:1165] RuntimeError: Worker failed with error 'CUDA out of memory occurred when warming up sampler with 256 dummy requests. "
          f"Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.', please check the stack trace above for the root cause",
          f"{P}ERROR {T(106)} [api_server.py:1951] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    n, iv = 13, 10.0
    gpu = []
    for k in range(n):
        s = k * iv
        if s < 20:
            used = None
        elif s < 49:
            used = 0.55 + 9.98 * (s - 20) / 29
        elif s < 88:
            used = 11.4
        elif s <= 104:
            used = 31.18
        else:
            used = None
        devs = []
        for i in range(8):
            if used is None:
                devs.append({"index": i, "name": "NVIDIA RTX PRO 4500 Blackwell Server Edition", "memory_total": 32623 * MiB,
                             "memory_used": 0, "processes": []})
            else:
                devs.append({"index": i, "name": "NVIDIA RTX PRO 4500 Blackwell Server Edition", "memory_total": 32623 * MiB,
                             "memory_used": int((used + 0.41) * GiB),
                             "processes": [{"pid": 51455 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(used * GiB)}]})
        gpu.append({"t": round(t0 + s, 3), "devices": devs})
    mc = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
          "num_hidden_layers": 36, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088,
          "num_local_experts": 128, "num_experts_per_tok": 4, "sliding_window": 128,
          "layer_types": ["sliding_attention", "full_attention"] * 18, "max_position_embeddings": 131072,
          "rope_theta": 150000, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
          "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                                                    "model.embed_tokens", "lm_head"]}}
    argv = ["vllm", "serve", mdl, "--tensor-parallel-size", "8", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "256"]
    write_failed_start(out, t0=t0, n=n, interval=iv, endpoint=ep, server=NO_SERVER,
                       engine_args={"argv": argv, "args": {"tensor-parallel-size": 8, "gpu-memory-utilization": 0.95, "max-num-seqs": 256}},
                       model_config=mc, gpu=gpu, logs=L,
                       notes="vLLM 0.28.0 on a dedicated host with 8x RTX PRO 4500 Blackwell (32 GB), all GPUs at 0 MiB before the run, no co-tenants. "
                             "gpt-oss-120b MXFP4, TP=8, max_num_seqs=256, gpu_memory_utilization=0.95. Operator: the engine dies at start-up; "
                             "the API server never came up.")


# ---------------------------------------------------------------- 2: club-3090 #58 (holdout-24)
QWEN36 = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
          "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 64,
                          "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256, "full_attention_interval": 4,
                          "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
                          "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                          "linear_conv_kernel_dim": 4, "vocab_size": 248320, "max_position_embeddings": 262144, "rope_theta": 10000000,
                          "torch_dtype": "bfloat16"},
          "torch_dtype": "bfloat16", "tie_word_embeddings": False}


def agent_session(rng, t_a, t_crash, p0, step_lo, step_hi, gap):
    """One agent: turns in sequence, each prompt = previous prompt + previous output + a tool result."""
    R, t, p, i = [], t_a, p0, 0
    while t < t_crash:
        g = rng.randint(250, 900)
        R.append(Req(i, t, p, max(0, (R[-1].prompt + R[-1].gen) if R else 0), g, 8192))
        p = p + g + rng.randint(step_lo, step_hi)
        t += gap + rng.uniform(-4, 6)
        i += 1
    return R


def runtime_case(*, cid, t_start, t_crash, rng_seed, p0, steps, gap, pool, util, ver, served, mdl_path, argv, args, tp, mml,
                 cache_dtype, crash_prompt, oom, notes, api_pid, eng_pid, workers, dev_name, dev_total, used_gib, extra_start):
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://127.0.0.1:8000"
    rng = random.Random(rng_seed)
    reqs = agent_session(rng, t_start - 240, t_crash - 1, p0, steps[0], steps[1], gap)
    c = Case(cid, ver, False, served, mdl_path, mml, t_start, 0, 10.0, {}, pool, 528, 2, tmpl=gen.V1_T)
    gen.simulate(c, reqs, lambda n: 0.031 + 0.004 * n, lambda r, n: 0.35 + (r.prompt - r.cached) * 0.00021, gen_reserve=False)
    # the crashing turn: its prefill never completes
    crash_prompt = reqs[-1].prompt + reqs[-1].gen + crash_prompt  # crash_prompt: the tool result appended by the last turn
    last = Req(len(reqs), t_crash - 2.5, crash_prompt, reqs[-1].prompt + reqs[-1].gen, 600, 8192)
    print(cid, "turns", len(reqs) + 1, "first prompt", reqs[0].prompt, "crash prompt", crash_prompt)
    last.t_sched, last.t_first, last.t_end, last.step_s = last.t_arr, 10 ** 12, 10 ** 12, 1.0
    for r in reqs:
        if r.t_end > t_crash:
            r.t_end = 10 ** 12
    c.reqs = reqs + [last]
    c.n_scrapes = int((t_crash - t_start) // c.interval) + 1
    c.labels_cc = gen.tmpl_cc(gen.V1_T, gpu_memory_utilization=str(util), num_gpu_blocks=str(pool // 528), cache_dtype=cache_dtype,
                              block_size="528", enable_prefix_caching="True")
    gen.write(c, out, server=gen.server_json(ver, served, mdl_path, mml, int(t_start - 3000)), engine_args={"argv": argv, "args": args},
              model_config=QWEN36, gpu=[], logs=[], notes=notes, endpoint=ep)
    n_after = 6
    finish_with_crash(out, c, n_after, ep)
    gpu = []
    for k in range(c.n_scrapes + n_after):
        t = t_start + k * c.interval
        alive = t <= t_crash + 1
        devs = []
        for i in range(tp):
            u = used_gib if alive else 0.0
            devs.append({"index": i, "name": dev_name, "memory_total": dev_total, "memory_used": int((u + 0.28) * GiB) if alive else int(0.02 * GiB),
                         "processes": ([{"pid": workers[i][1], "name": workers[i][0], "used_memory": int(u * GiB)}] if alive else [])})
        gpu.append({"t": round(t, 3), "devices": devs})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    P = f"(APIServer pid={api_pid}) "
    s0 = t_start - 900
    L = [(s0 + x[0], x[1].replace("{T}", ts(s0 + x[0]))) for x in extra_start]
    for r in c.reqs:
        if r.t_arr > s0 + 300:
            L.append((r.t_arr + 0.002, f'{P}INFO:     172.18.0.1:{41000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    L += [x for x in gen.stats_lines(c, s0 + 300, t_crash, api_pid, "loggers.py:259") if x[0] < t_crash]
    L += [(t_crash + 0.01 * i, x.replace("{T}", ts(t_crash))) for i, x in enumerate(oom)]
    L += [(t_crash + 2, f"{P}ERROR {ts(t_crash + 2)} [async_llm.py:546] AsyncLLM output_handler failed."),
          (t_crash + 2.1, f"{P}ERROR {ts(t_crash + 2)} [async_llm.py:546] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. "
                          f"See stack trace (above) for the root cause."),
          (t_crash + 2.2, f'{P}INFO:     172.18.0.1:{41000 + last.rid} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'),
          (t_crash + 3, f"{P}INFO:     Shutting down"),
          (t_crash + 3.5, f"{P}INFO:     Finished server process [{api_pid}]")]
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(L, key=lambda x: x[0])) + "\n")
    return c


def qwen36_single() -> None:
    cid = "zxm-qwen36-27b-3090-gdn-agentic-oom"
    ver = "0.20.1rc1.dev188+g3e4d1c2b7"
    mdl = "/root/.cache/huggingface/qwen3.6-27b-autoround-int4"
    served = "qwen3.6-27b-autoround"
    t_crash = utc(2026, 5, 5, 12, 36, 59)
    t_start = t_crash - 540
    api, eng = 1, 104
    E = f"(EngineCore pid={eng}) "
    P = f"(APIServer pid={api}) "
    site = "/usr/local/lib/python3.12/dist-packages"
    pool = 186 * 528
    start = [
        (0, f"{P}INFO {{T}} [api_server.py:1388] vLLM API server version {ver}"),
        (0.1, f"{P}INFO {{T}} [utils.py:279] non-default args: {{'model_tag': '{mdl}', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', "
              f"'host': '0.0.0.0', 'model': '{mdl}', 'trust_remote_code': True, 'dtype': 'float16', 'max_model_len': 125000, 'quantization': 'auto_round', "
              f"'served_model_name': ['{served}'], 'reasoning_parser': 'qwen3', 'gpu_memory_utilization': 0.95, 'kv_cache_dtype': 'fp8_e5m2', "
              f"'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 2}}"),
        (6, f"{P}INFO {{T}} [model.py:552] Resolved architecture: Qwen3_5ForConditionalGeneration"),
        (6.1, f"{P}INFO {{T}} [model.py:1598] Using max model len 125000"),
        (11, f"{E}INFO {{T}} [core.py:101] Initializing a V1 LLM engine (v{ver}) with config: model='{mdl}', dtype=torch.float16, max_seq_len=125000, "
             f"tensor_parallel_size=1, quantization=auto_round, enforce_eager=False, kv_cache_dtype=fp8_e5m2, enable_prefix_caching=True"),
        (52, f"{E}INFO {{T}} [gpu_model_runner.py:4310] Model loading took 17.21 GiB memory and 38.204117 seconds"),
        (92, f"{E}INFO {{T}} [gpu_model_runner.py:6142] Estimated CUDA graph memory: 0.14 GiB total"),
        (93, f"{E}INFO {{T}} [gpu_worker.py:462] Available KV cache memory: 3.02 GiB"),
        (93.1, f"{E}INFO {{T}} [kv_cache_utils.py:1710] GPU KV cache size: {pool:,} tokens"),
        (93.2, f"{E}INFO {{T}} [kv_cache_utils.py:1711] Maximum concurrency for 125,000 tokens per request: {pool / 125000:.2f}x"),
        (118, f"{E}INFO {{T}} [gpu_model_runner.py:6582] Graph capturing finished in 24 secs, took 0.15 GiB"),
        (121, f"{P}INFO {{T}} [api_server.py:2103] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    pre = f"{E}ERROR {{T}} [core.py:1138] "
    oom = [f"{pre}EngineCore encountered a fatal error.",
           f"{pre}Traceback (most recent call last):",
           f'{pre}  File "{site}/vllm/v1/engine/core.py", line 1129, in run_engine_core',
           f"{pre}    engine_core.run_busy_loop()",
           f'{pre}  File "{site}/vllm/v1/worker/gpu_model_runner.py", line 3561, in execute_model',
           f"{pre}    model_output = self._model_forward(",
           f'{pre}  File "{site}/vllm/model_executor/models/qwen3_5.py", line 695, in forward',
           f"{pre}    hidden_states = self.language_model.model(",
           f'{pre}  File "{site}/vllm/compilation/decorators.py", line 480, in __call__',
           f"{pre}    return self.aot_compiled_fn(self, *args, **kwargs)",
           f'{pre}  File "{site}/vllm/model_executor/layers/fla/ops/chunk.py", line 221, in chunk_gated_delta_rule',
           f"{pre}    o, final_state = ChunkGatedDeltaRuleFunction.apply(",
           f'{pre}  File "{site}/vllm/model_executor/layers/fla/ops/chunk.py", line 96, in chunk_gated_delta_rule_fwd',
           f"{pre}    h, v_new, final_state = chunk_gated_delta_rule_fwd_h(",
           pre + oom_line(0, "50.00 MiB", "23.56 GiB", "56.88 MiB", "23.48 GiB", "22.61 GiB", "24.00 MiB", "571.36 MiB")]
    runtime_case(cid=cid, t_start=t_start, t_crash=t_crash, rng_seed=5858, p0=9200, steps=(250, 550), gap=55, pool=pool, util=0.95,
                 ver=ver, served=served, mdl_path=mdl,
                 argv=["vllm", "serve", mdl, "--served-model-name", served, "--max-model-len", "125000", "--gpu-memory-utilization", "0.95",
                       "--kv-cache-dtype", "fp8_e5m2", "--max-num-seqs", "2", "--max-num-batched-tokens", "8192", "--quantization", "auto_round",
                       "--dtype", "float16", "--enable-prefix-caching", "--trust-remote-code", "--enable-auto-tool-choice",
                       "--tool-call-parser", "qwen3_coder", "--reasoning-parser", "qwen3", "--host", "0.0.0.0", "--port", "8000"],
                 args={"max-model-len": 125000, "gpu-memory-utilization": 0.95, "kv-cache-dtype": "fp8_e5m2", "max-num-seqs": 2,
                       "max-num-batched-tokens": 8192, "quantization": "auto_round", "enable-prefix-caching": True},
                 tp=1, mml=125000, cache_dtype="fp8_e5m2", crash_prompt=2300, oom=oom,
                 notes="club-3090 single-card compose (long-vision), vLLM nightly on one RTX 3090 24 GB, Qwen3.6-27B INT4. One opencode agent session; "
                       "operator: the engine dies after a few turns with a CUDA OOM, every time the conversation passes ~20-25K tokens.",
                 api_pid=api, eng_pid=eng, workers=[("VLLM::EngineCore", eng)], dev_name="NVIDIA GeForce RTX 3090", dev_total=25769803776,
                 used_gib=23.48, extra_start=start)


# ---------------------------------------------------------------- 4: club-3090 #138 (holdout-24)
def qwen36_dual() -> None:
    cid = "zxm-qwen36-dual3090-dflash-opencode-tp0-oom"
    ver = "0.20.2rc1.dev41+g9b7e21f0c"
    mdl = "/root/.cache/huggingface/qwen3.6-27b-autoround-int4"
    served = "qwen3.6-27b-dflash"
    t_crash = utc(2026, 5, 20, 20, 54, 32)
    t_start = t_crash - 480
    api, eng = 1, 121
    P = f"(APIServer pid={api}) "
    E = f"(EngineCore pid={eng}) "
    W = ["(Worker_TP0 pid=160) ", "(Worker_TP1 pid=161) "]
    site = "/usr/local/lib/python3.12/dist-packages"
    pool = 670 * 528
    start = [
        (0, f"{P}INFO {{T}} [api_server.py:1388] vLLM API server version {ver}"),
        (0.1, f"{P}INFO {{T}} [utils.py:279] non-default args: {{'model_tag': '{mdl}', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', "
              f"'host': '0.0.0.0', 'port': 8013, 'model': '{mdl}', 'trust_remote_code': True, 'dtype': 'float16', 'max_model_len': 262144, "
              f"'quantization': 'auto_round', 'served_model_name': ['{served}'], 'reasoning_parser': 'qwen3', 'tensor_parallel_size': 2, "
              f"'gpu_memory_utilization': 0.97, 'kv_cache_dtype': 'fp8_e5m2', 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, "
              f"'max_num_seqs': 2, 'speculative_config': {{'method': 'dflash', 'num_speculative_tokens': 8}}}}"),
        (6, f"{P}INFO {{T}} [model.py:552] Resolved architecture: Qwen3_5ForConditionalGeneration"),
        (6.1, f"{P}INFO {{T}} [model.py:1598] Using max model len 262144"),
        (11, f"{E}INFO {{T}} [core.py:101] Initializing a V1 LLM engine (v{ver}) with config: model='{mdl}', dtype=torch.float16, max_seq_len=262144, "
             f"tensor_parallel_size=2, quantization=auto_round, enforce_eager=False, kv_cache_dtype=fp8_e5m2, enable_prefix_caching=True"),
        (48, f"{W[0]}INFO {{T}} [gpu_model_runner.py:4310] Model loading took 10.36 GiB memory and 33.904311 seconds"),
        (48.1, f"{W[1]}INFO {{T}} [gpu_model_runner.py:4310] Model loading took 9.62 GiB memory and 33.871502 seconds"),
        (95, f"{W[0]}INFO {{T}} [gpu_worker.py:462] Available KV cache memory: 5.41 GiB"),
        (95.1, f"{W[1]}INFO {{T}} [gpu_worker.py:462] Available KV cache memory: 6.12 GiB"),
        (95.2, f"{E}INFO {{T}} [kv_cache_utils.py:1710] GPU KV cache size: {pool:,} tokens"),
        (95.3, f"{E}INFO {{T}} [kv_cache_utils.py:1711] Maximum concurrency for 262,144 tokens per request: {pool / 262144:.2f}x"),
        (121, f"{W[0]}INFO {{T}} [gpu_model_runner.py:6582] Graph capturing finished in 25 secs, took 0.19 GiB"),
        (124, f"{P}INFO {{T}} [api_server.py:2103] Starting vLLM API server 0 on http://0.0.0.0:8013"),
    ]
    pre = f"{W[0]}ERROR {{T}} [multiproc_executor.py:962] "
    oom = [f"{pre}WorkerProc hit an exception.",
           pre + oom_line(0, "136.00 MiB", "23.56 GiB", "117.38 MiB", "22.82 GiB", "21.98 GiB", "21.71 MiB", "391.42 MiB"),
           f"{pre}Traceback (most recent call last):",
           f'{pre}  File "{site}/vllm/v1/executor/multiproc_executor.py", line 957, in worker_busy_loop',
           f"{pre}    output = func(*args, **kwargs)",
           f'{pre}  File "{site}/vllm/v1/worker/gpu_model_runner.py", line 3561, in execute_model',
           f"{pre}    model_output = self._model_forward(",
           f'{pre}  File "{site}/vllm/model_executor/models/qwen3_5.py", line 695, in forward',
           f"{pre}    hidden_states = self.language_model.model(",
           f"(EngineCore pid={eng}) ERROR {{T}} [core.py:1138] EngineCore encountered a fatal error.",
           f"(EngineCore pid={eng}) ERROR {{T}} [core.py:1138] RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 136.00 MiB. "
           f"GPU 0 has a total capacity of 23.56 GiB of which 117.38 MiB is free.', please check the stack trace above for the root cause",
           f"(EngineCore pid={eng}) WARNING {{T}} [multiproc_executor.py:782] Worker proc Worker_TP1 pid=161 was terminated"]
    runtime_case(cid=cid, t_start=t_start, t_crash=t_crash, rng_seed=13813, p0=14200, steps=(1500, 2600), gap=34, pool=pool, util=0.97,
                 ver=ver, served=served, mdl_path=mdl,
                 argv=["vllm", "serve", mdl, "--served-model-name", served, "--tensor-parallel-size", "2", "--max-model-len", "262144",
                       "--gpu-memory-utilization", "0.97", "--kv-cache-dtype", "fp8_e5m2", "--max-num-seqs", "2", "--max-num-batched-tokens", "8192",
                       "--speculative-config", '{"method": "dflash", "num_speculative_tokens": 8}', "--quantization", "auto_round",
                       "--dtype", "float16", "--enable-prefix-caching", "--trust-remote-code", "--enable-auto-tool-choice",
                       "--tool-call-parser", "qwen3_coder", "--reasoning-parser", "qwen3", "--host", "0.0.0.0", "--port", "8013"],
                 args={"tensor-parallel-size": 2, "max-model-len": 262144, "gpu-memory-utilization": 0.97, "kv-cache-dtype": "fp8_e5m2",
                       "max-num-seqs": 2, "max-num-batched-tokens": 8192, "speculative-config": '{"method": "dflash", "num_speculative_tokens": 8}',
                       "quantization": "auto_round", "enable-prefix-caching": True},
                 tp=2, mml=262144, cache_dtype="fp8_e5m2", crash_prompt=5200, oom=oom,
                 notes="club-3090 dual compose (qwen3.6-27b dflash-noviz), vLLM nightly on 2x RTX 3090, TP=2. One opencode session; operator: "
                       "crashes under opencode with a CUDA OOM although not even half of the context was used.",
                 api_pid=api, eng_pid=eng, workers=[("VLLM::Worker_TP0", 160), ("VLLM::Worker_TP1", 161)], dev_name="NVIDIA GeForce RTX 3090",
                 dev_total=25769803776, used_gib=22.82, extra_start=start)
    # the dual endpoint listens on 8013
    out = ROOT / "cases" / cid / "bundle"
    for fn in ("metrics.jsonl", "manifest.json"):
        p = out / fn
        p.write_text(p.read_text().replace("127.0.0.1:8000", "127.0.0.1:8013"))


# ---------------------------------------------------------------- 3: yhfgyyf/vllm-deepseek-v4-sm89 #56 (holdout-24)
def dsv4() -> None:
    cid = "zxm-dsv4flash-8xl20-dspark-indexer-oom"
    out = ROOT / "cases" / cid / "bundle"
    ep = "http://127.0.0.1:8000"
    t0 = utc(2026, 8, 8, 6, 40, 12)
    ver = "0.23.1rc1.dev904+g8e321cc4f.cu130"
    mdl = "/models/DeepSeek-V4-Flash-0731"
    P, E = "(APIServer pid=1) ", "(EngineCore pid=312) "
    W = [f"(Worker_TP{i}_EP{i} pid={2532463 + i}) " for i in range(8)]
    T = lambda s: ts(t0 + s)
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    L = [f"{P}INFO {T(0)} [api_server.py:1388] vLLM API server version {ver}",
         f"{P}INFO {T(0)} [utils.py:279] non-default args: {{'model_tag': '{mdl}', 'model': '{mdl}', 'trust_remote_code': True, "
         f"'tensor_parallel_size': 8, 'enable_expert_parallel': True, 'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'fp8_ds_mla', "
         f"'block_size': 256, 'speculative_config': {{'method': 'dspark'}}}}",
         f"{P}INFO {T(7)} [model.py:552] Resolved architecture: DeepseekV4ForCausalLM",
         f"{P}INFO {T(7)} [model.py:1598] Using max model len 1048576",
         f"{E}INFO {T(14)} [core.py:101] Initializing a V1 LLM engine (v{ver}) with config: model='{mdl}', dtype=torch.bfloat16, max_seq_len=1048576, "
         f"tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=fp8_ds_mla"]
    for i in range(8):
        L.append(f"{W[i]}INFO {T(160)} [gpu_model_runner.py:4310] Model loading took 20.71 GiB memory and 141.223807 seconds")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(172)} [gpu_model_runner.py:4402] Loading drafter model (dspark)...")
        L.append(f"{W[i]}INFO {T(181)} [gpu_model_runner.py:4310] Model loading took 1.96 GiB memory and 8.402551 seconds")
    for i in range(8):
        L.append(f"{W[i]}INFO {T(236)} [gpu_worker.py:462] Available KV cache memory: 13.9 GiB")
    kv_tokens = int(13.9 * GiB // (656 * 43))
    L += [f"{E}INFO {T(237)} [kv_cache_utils.py:1710] GPU KV cache size: {kv_tokens:,} tokens",
          f"{E}INFO {T(237)} [kv_cache_utils.py:1711] Maximum concurrency for 1,048,576 tokens per request: {kv_tokens / 1048576:.2f}x"]
    for i in range(8):
        pre = f"{W[i]}ERROR {T(244)} [multiproc_executor.py:949] "
        L += [f"{pre}WorkerProc hit an exception.",
              f"{pre}Traceback (most recent call last):",
              f'{pre}  File "{site}/v1/worker/gpu_worker.py", line 745, in compile_or_warm_up_model',
              f"{pre}    self.model_runner._dummy_run(num_tokens, skip_eplb=True)",
              f'{pre}  File "{site}/v1/spec_decode/dspark.py", line 388, in dummy_run',
              f"{pre}    self.model(input_ids, positions, hidden_states)",
              f'{pre}  File "{site}/model_executor/layers/sparse_attn_indexer.py", line 214, in forward',
              f"{pre}    logits = torch.empty((num_tokens, max_kv_len), dtype=torch.float32, device=q.device)",
              f"{pre}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU {i} has a total capacity of 44.53 GiB of which 505.94 MiB "
              f"is free. Process {2532463 + i} has 44.03 GiB memory in use. Of the allocated memory 41.12 GiB is allocated by PyTorch, and 1.62 GiB is "
              f"reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
              f"to avoid fragmentation."]
    L += [f"{E}ERROR {T(245)} [core.py:1165] EngineCore failed to start.",
          f"{E}ERROR {T(245)} [core.py:1165] RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total "
          f"capacity of 44.53 GiB of which 505.94 MiB is free.', please check the stack trace above for the root cause",
          f"{P}ERROR {T(247)} [api_server.py:1951] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    n, iv = 27, 10.0
    gpu = []
    for k in range(n):
        s = k * iv
        if s < 20 or s > 245:
            used = None
        elif s < 160:
            used = 0.6 + 20.71 * (s - 20) / 140
        elif s < 236:
            used = 24.6
        else:
            used = 44.03
        devs = []
        for i in range(8):
            if used is None:
                devs.append({"index": i, "name": "NVIDIA L20", "memory_total": 46068 * MiB, "memory_used": int(0.01 * GiB), "processes": []})
            else:
                devs.append({"index": i, "name": "NVIDIA L20", "memory_total": 46068 * MiB, "memory_used": int((used + 0.45) * GiB),
                             "processes": [{"pid": 2532463 + i, "name": "VLLM::Worker_TP%d_EP%d" % (i, i), "used_memory": int(used * GiB)}]})
        gpu.append({"t": round(t0 + s, 3), "devices": devs})
    argv = ["vllm", "serve", mdl, "--trust-remote-code", "--tensor-parallel-size", "8", "--enable-expert-parallel",
            "--speculative-config.method", "dspark", "--kv-cache-dtype", "fp8_ds_mla", "--block-size", "256", "--gpu-memory-utilization", "0.92"]
    write_failed_start(out, t0=t0, n=n, interval=iv, endpoint=ep, server=NO_SERVER,
                       engine_args={"argv": argv, "args": {"tensor-parallel-size": 8, "enable-expert-parallel": True, "speculative-config.method": "dspark",
                                                           "kv-cache-dtype": "fp8_ds_mla", "block-size": 256, "gpu-memory-utilization": 0.92,
                                                           "trust-remote-code": True}},
                       model_config=None, gpu=gpu, logs=L,
                       notes="vllm-deepseek-v4-sm89 fork 0.23.1rc1 on 8x L20 (44.5 GiB), DeepSeek-V4-Flash-0731 (FP4+FP8, 167 GB), TP=8 + EP, DSpark "
                             "speculative decoding, fp8_ds_mla KV. Operator: without DSpark it serves (~154 tok/s, KV pool 15.62 GiB); with DSpark every "
                             "start fails with an OOM in sparse_attn_indexer. The API server never came up.")


if __name__ == "__main__":
    which = sys.argv[1:] or ["gptoss", "qwen36_single", "dsv4", "qwen36_dual"]
    for w in which:
        globals()[w]()
        print("built", w)
