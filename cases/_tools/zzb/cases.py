"""Writer zzb's cases (round 12): builds cases/zzb-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzb/cases.py
Numbers not quoted from the source are listed under `assumed:` in each case.yaml. Seeded, no wall clock.
Families / HELP / buckets come from the last scrape of an existing case bundle of a nearby release (gen._template).
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


def args_of(argv: list[str]) -> dict:
    a, i = {}, 2
    while i < len(argv):
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            try:
                v = int(v)
            except ValueError:
                try:
                    v = float(v)
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


# ---------------------------------------------------------------- 1: vllm#15664
def nemotron() -> None:
    cid = "zzb-v1-graph-oom-nemotron49b-l40s"
    t0 = utc(2025, 4, 11, 9, 40, 2)
    path = "Llama-3_3-Nemotron-Super-49B-v1-4bit-GPTQ/"
    argv = ["vllm", "serve", path, "--trust-remote-code", "-q", "gptq", "--max-model-len", "32768"]
    args = {"trust-remote-code": True, "quantization": "gptq", "max-model-len": 32768}
    L = []
    T = lambda s: ts(t0 + s)
    L.append(f"INFO {T(0)} [__init__.py:239] Automatically detected platform cuda.")
    L.append(f"INFO {T(2)} [api_server.py:1034] vLLM API server version 0.8.3")
    L.append(f"INFO {T(2)} [api_server.py:1035] args: Namespace(model='{path}', trust_remote_code=True, quantization='gptq', max_model_len=32768)")
    L.append(f"INFO {T(9)} [config.py:600] This model supports multiple tasks: {{'reward', 'classify', 'generate', 'score', 'embed'}}. Defaulting to 'generate'.")
    L.append(f"INFO {T(9)} [gptq_marlin.py:143] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.")
    L.append(f"INFO {T(9)} [config.py:1780] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    L.append(f"INFO {T(12)} [core.py:58] Initializing a V1 LLM engine (v0.8.3) with config: model='{path}', speculative_config=None, tokenizer='{path}', "
             f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, "
             f"dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
             f"disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=None, "
             f"served_model_name={path}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, "
             f"use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, "
             f"compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],"
             f"\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":"
             f"[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}")
    L.append(f"INFO {T(14)} [cuda.py:221] Using Flash Attention backend on V1 engine.")
    L.append(f"INFO {T(14)} [gpu_model_runner.py:1258] Starting to load model {path}...")
    L.append(f"INFO {T(46)} [gpu_model_runner.py:1273] Model loading took 26.53 GiB and 31.84 seconds")
    L.append(f"INFO {T(58)} [backends.py:416] Using cache directory: /root/.cache/vllm/torch_compile_cache/5f0c2d91e4/rank_0_0 for vLLM's torch.compile")
    L.append(f"INFO {T(58)} [backends.py:426] Dynamo bytecode transform time: 11.62 s")
    L.append(f"INFO {T(101)} [backends.py:144] Compiling a graph for general shape takes 41.37 s")
    L.append(f"INFO {T(113)} [monitor.py:33] torch.compile takes 53.0 s in total")
    L.append(f"INFO {T(115)} [kv_cache_utils.py:578] GPU KV cache size: 59,392 tokens")
    L.append(f"INFO {T(115)} [kv_cache_utils.py:581] Maximum concurrency for 32,768 tokens per request: 1.81x")
    tb = [
        "ERROR {t} [core.py:390] EngineCore hit an exception: Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 378, in run_engine_core',
        "    engine_core = EngineCoreProc(*args, **kwargs)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 320, in __init__',
        "    super().__init__(vllm_config, executor_class, log_stats)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 71, in __init__',
        "    self._initialize_kv_caches(vllm_config)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 161, in _initialize_kv_caches',
        "    self.model_executor.initialize_from_config(kv_cache_configs)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/abstract.py", line 64, in initialize_from_config',
        '    self.collective_rpc("compile_or_warm_up_model")',
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 229, in compile_or_warm_up_model',
        "    self.model_runner.capture_model()",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1594, in capture_model',
        "    self._dummy_run(num_tokens)",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/utils/marlin_utils.py", line 353, in apply_gptq_marlin_linear',
        "    output = ops.gptq_marlin_gemm(reshaped_x,",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 160.00 MiB. GPU 0 has a total capacity of 44.52 GiB of which 118.44 MiB is free. "
        "Including non-PyTorch memory, this process has 44.39 GiB memory in use. Of the allocated memory 39.71 GiB is allocated by PyTorch, with 3.88 GiB "
        "allocated in private pools (e.g., CUDA Graphs), and 181.63 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
        "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
    ]
    L.append(tb[0].format(t=T(131)))
    L.extend(tb[1:])
    L.append(f"CRITICAL {T(131)} [core_client.py:361] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    gpu = [{"t": round(t0 + 125, 3), "devices": [
        {"index": 0, "name": "NVIDIA L40S", "memory_total": 46068 * MiB, "memory_used": 45450 * MiB,
         "processes": [{"pid": 3121, "name": "VLLM::EngineCore", "used_memory": 45450 * MiB}]},
        {"index": 1, "name": "NVIDIA L40S", "memory_total": 46068 * MiB, "memory_used": 1 * MiB, "processes": []}]}]
    server = {"version": None, "models": None, "health": None}
    write_failed_start(ROOT / "cases" / cid / "bundle", t0=t0 + 120, n=10, interval=5.0, endpoint="http://127.0.0.1:8000",
                       server=server, engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu, logs=L,
                       notes="vLLM 0.8.3 (V1 default) start-up on one L40S (CUDA_VISIBLE_DEVICES=0) after upgrading from 0.7.3; the API server never came up. "
                             "The same command with VLLM_USE_V1=0 starts (V0 graph capturing took 3.34 GiB).")


# ---------------------------------------------------------------- 2: vllm#15942
def util099() -> None:
    cid = "zzb-v08-util099-concurrent-oom-2xh100"
    rnd = random.Random(15942)
    t0 = utc(2025, 4, 2, 12, 30, 0)
    T = 480.0
    interval = 10.0
    n_ok = 50  # scrapes 0..49 served, then the engine dies
    crash = t0 + 495.0
    pool = 734_016
    reqs, t, rid = [], t0 - 240, 0
    while t < crash:
        frac = min(1.0, max(0.0, (t - t0 + 240) / (T + 240)))
        conc = 40 + 150 * frac
        rate = conc / 78.0
        t += rnd.expovariate(rate)
        g = rnd.randint(1000, 3000)
        reqs.append(Req(rid, t, rnd.randint(2000, 3000), 0, g, 3000, "stop")); rid += 1
    c = Case(cid=cid, version="0.8.2", v0=False, model_name="Qwen2.5-32B-Instruct", model_root="/models/Qwen2.5-32B-Instruct",
             max_model_len=32768, start=t0, n_scrapes=n_ok, interval=interval,
             labels_cc=gen.tmpl_cc("d-lora-8k-prompt-runtime-oom-llama33", gpu_memory_utilization="0.99", num_gpu_blocks=str(pool // 16),
                                   enable_prefix_caching="True", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=200, tmpl="d-lora-8k-prompt-runtime-oom-llama33")
    gen.simulate(c, reqs, lambda n: 0.021 + 0.00011 * n, lambda r, n: 0.12 + r.prompt / 9000.0, gen_reserve=False, gen_frac=0.45)
    out = ROOT / "cases" / cid / "bundle"
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
          "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 40,
          "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    argv = ["vllm", "serve", "/models/Qwen2.5-32B-Instruct", "--served-model-name", "Qwen2.5-32B-Instruct", "--tensor-parallel-size", "2",
            "--distributed-executor-backend", "ray", "--gpu-memory-utilization", "0.99", "--max-model-len", "32768",
            "--max-num-seqs", "200", "--enforce-eager", "--disable-log-requests"]
    P = "(EngineCore_0 pid=912)" if False else ""
    logs = []
    ts0 = t0 - 420
    pre = lambda s: ts(ts0 + s)
    logs += [(ts0, f"INFO {pre(0)} [api_server.py:1028] vLLM API server version 0.8.2"),
             (ts0 + 0.1, f"INFO {pre(0)} [api_server.py:1029] args: Namespace(model='/models/Qwen2.5-32B-Instruct', served_model_name=['Qwen2.5-32B-Instruct'], "
                         f"tensor_parallel_size=2, distributed_executor_backend='ray', gpu_memory_utilization=0.99, max_model_len=32768, max_num_seqs=200, "
                         f"enforce_eager=True, disable_log_requests=True)"),
             (ts0 + 8, f"INFO {pre(8)} [config.py:1697] Chunked prefill is enabled with max_num_batched_tokens=8192."),
             (ts0 + 8.1, f"WARNING {pre(8)} [cuda.py:95] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used"),
             (ts0 + 20, f"INFO {pre(20)} [ray_distributed_executor.py:176] use_ray_spmd_worker: True"),
             (ts0 + 75, f"INFO {pre(75)} [gpu_model_runner.py:1176] Model loading took 30.54 GiB and 48.21 seconds"),
             (ts0 + 80, f"INFO {pre(80)} [kv_cache_utils.py:537] GPU KV cache size: 734,016 tokens"),
             (ts0 + 80.1, f"INFO {pre(80)} [kv_cache_utils.py:540] Maximum concurrency for 32,768 tokens per request: 22.40x"),
             (ts0 + 81, f"INFO {pre(81)} [core.py:138] init engine (profile, create kv cache, warmup model) took 6.12 seconds"),
             (ts0 + 83, f"INFO {pre(83)} [api_server.py:1081] Starting vLLM API server on http://0.0.0.0:8000")]
    # stats lines every 10 s (V1 0.8.2 loggers.py format, no engine prefix)
    for line_t, line in gen.stats_lines(c, t0 - 200, crash - 1, 0, "loggers.py:80", prefix=False):
        logs.append((line_t, line.replace("Engine 000: ", "")))
    tb = ["ERROR {t} [core.py:340] EngineCore hit an exception: Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 333, in run_engine_core',
          "    engine_core.run_busy_loop()",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 367, in run_busy_loop',
          "    outputs = step_fn()",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 192, in step',
          "    output = self.model_executor.execute_model(scheduler_output)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/ray_distributed_executor.py", line 57, in execute_model',
          "    return refs[0].get()",
          "ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_model_ray() (pid=1544, ip=10.0.4.21, actor_id=9b1e0c2f7d, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f3a1c2b5d90>)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1051, in execute_model',
          "    sampler_output = self.model.sample(",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", line 49, in forward',
          "    logits = self.apply_temperature(logits, sampling_metadata.temperature)",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of 79.19 GiB of which 731.88 MiB is free. "
          "Including non-PyTorch memory, this process has 78.45 GiB memory in use. Of the allocated memory 76.63 GiB is allocated by PyTorch, and 1.02 GiB is "
          "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."]
    logs.append((crash, tb[0].format(t=ts(crash))))
    for k, ln in enumerate(tb[1:]):
        logs.append((crash + 0.001 * (k + 1), ln))
    logs.append((crash + 0.1, f"CRITICAL {ts(crash)} [core_client.py:269] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue."))
    gpu = []
    for k in range(n_ok + 4):
        tt = t0 + k * interval
        used = (80_200 if tt < crash else 0) * MiB
        devs = []
        for i in range(2):
            devs.append({"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": used + 4 * MiB,
                         "processes": ([{"pid": 1544 + i, "name": "ray::RayWorkerWrapper", "used_memory": used}] if used else [])})
        gpu.append({"t": round(tt, 3), "devices": devs})
    gen.write(c, out, server=gen.server_json("0.8.2", "Qwen2.5-32B-Instruct", "/models/Qwen2.5-32B-Instruct", 32768, int(t0 - 400)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Production API (vLLM 0.8.2, V1, TP2 on 2xH100) after the upgrade from 0.6.1; client concurrency ramps up; the engine dies with CUDA OOM and /metrics stops answering.",
              endpoint="http://10.0.4.21:8000")
    recs = (out / "metrics.jsonl").read_text().splitlines()
    for k in range(4):
        tt = t0 + (n_ok + k) * interval
        recs.append(json.dumps({"t": round(tt, 3), "error": "GET http://10.0.4.21:8000/metrics: connection refused ([Errno 111] Connection refused)"}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = json.loads((out / "manifest.json").read_text())
    man["ended_at"] = t0 + (n_ok + 3) * interval
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    peak = max(sum(1 for r in reqs if r.t_sched <= t0 + k * interval < r.t_end) for k in range(n_ok))
    print(cid, "peak running", peak, "waiting max", max(sum(1 for r in reqs if r.t_arr <= t0 + k * interval < r.t_sched) for k in range(n_ok)))


# ---------------------------------------------------------------- 3: vllm#12274
def v066() -> None:
    cid = "zzb-v066-ttft-37s-70b-awq-burst"
    t0 = utc(2025, 1, 21, 8, 0, 0)
    rnd = random.Random(12274)
    interval, n = 10.0, 61
    reqs, rid = [], 0
    for b, tb in enumerate((t0 + 30, t0 + 230, t0 + 430)):
        for i in range(20):
            reqs.append(Req(rid, tb + 0.002 * i, rnd.randint(980, 1040), 0, 256, 256, "length")); rid += 1
    pool = 383_424
    c = Case(cid=cid, version="0.6.6.post1", v0=True, model_name="llama3.1-70b-awq", model_root="/models/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
             max_model_len=131072, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc("c-long-context-decode-itl-batch90", gpu_memory_utilization="0.9", num_gpu_blocks=str(pool // 16),
                                   enable_prefix_caching="False", block_size="16"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl="c-long-context-decode-itl-batch90")
    gen.simulate(c, reqs, lambda n_: 0.060 + 0.0017 * n_, lambda r, k: 0.25 + 1.80 * k, gen_reserve=False)
    out = ROOT / "cases" / cid / "bundle"
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009],
          "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 28672, "max_position_embeddings": 131072, "model_type": "llama",
          "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
          "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "float16", "vocab_size": 128256,
          "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq", "version": "gemm", "zero_point": True}}
    root = "/models/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"
    argv = ["vllm", "serve", root, "--served-model-name", "llama3.1-70b-awq", "--tensor-parallel-size", "4"]
    logs = []
    ts0 = t0 - 600
    logs += [(ts0, f"INFO {ts(ts0)} api_server.py:712] vLLM API server version 0.6.6.post1"),
             (ts0 + 0.1, f"INFO {ts(ts0)} api_server.py:713] args: Namespace(model='{root}', served_model_name=['llama3.1-70b-awq'], tensor_parallel_size=4)"),
             (ts0 + 5, f"INFO {ts(ts0 + 5)} awq_marlin.py:109] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel."),
             (ts0 + 5.1, f"INFO {ts(ts0 + 5)} config.py:1020] Defaulting to use mp for distributed inference"),
             (ts0 + 5.2, f"INFO {ts(ts0 + 5)} config.py:1136] Chunked prefill is enabled with max_num_batched_tokens=2048."),
             (ts0 + 90, f"INFO {ts(ts0 + 90)} model_runner.py:1099] Loading model weights took 9.2867 GB"),
             (ts0 + 100, f"INFO {ts(ts0 + 100)} worker.py:241] Memory profiling takes 6.31 seconds"),
             (ts0 + 100.1, f"INFO {ts(ts0 + 100)} worker.py:241] the current vLLM instance can use total_gpu_memory (44.52GiB) x gpu_memory_utilization (0.90) = 40.07GiB"),
             (ts0 + 100.2, f"INFO {ts(ts0 + 100)} worker.py:241] model weights take 9.29GiB; non_torch_memory takes 0.82GiB; PyTorch activation peak memory takes 0.70GiB; the rest of the memory reserved for KV Cache is 29.26GiB."),
             (ts0 + 100.3, f"INFO {ts(ts0 + 100)} distributed_gpu_executor.py:57] # GPU blocks: 23964, # CPU blocks: 3276"),
             (ts0 + 100.4, f"INFO {ts(ts0 + 100)} distributed_gpu_executor.py:61] Maximum concurrency for 131072 tokens per request: 2.93x"),
             (ts0 + 130, f"INFO {ts(ts0 + 130)} model_runner.py:1535] Graph capturing finished in 29 secs, took 0.54 GiB"),
             (ts0 + 131, f"INFO {ts(ts0 + 131)} llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 38.42 seconds"),
             (ts0 + 133, f"INFO {ts(ts0 + 133)} api_server.py:640] Using supplied chat template:")]
    # V0 stats line every 5 s while there is work (metrics.py:467 in 0.6.6)
    t = t0
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    while t < t0 + (n - 1) * interval:
        a, b = t, t + 5
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        if run or pt or gt:
            blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
            logs.append((b, f"INFO {ts(b)} metrics.py:467] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                            f"Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {100 * blocks * 16 / pool:.1f}%, CPU KV cache usage: 0.0%."))
        t = b
    for r in reqs:
        logs.append((r.t_arr + 0.001, f'INFO:     10.1.0.7:{40000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK'))
    gpu = gen.gpu_samples(c, [{"index": i, "name": "NVIDIA L40S", "memory_total": 46068 * MiB, "memory_used": 41730 * MiB,
                               "processes": [{"pid": 211 + i, "name": "python3" if i == 0 else "VllmWorkerProcess", "used_memory": 41726 * MiB}]} for i in range(4)])
    gen.write(c, out, server=gen.server_json("0.6.6.post1", "llama3.1-70b-awq", root, 131072, int(t0 - 400)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="Benchmark of the upgraded server (0.6.6.post1, was 0.6.1.post2): bursts of 20 requests of ~1k prompt tokens; max TTFT went from 10 s to 37 s.",
              endpoint="http://10.1.0.5:8000")
    tt = sorted(r.t_first - r.t_arr for r in reqs)
    print(cid, "ttft min/max", round(tt[0], 2), round(tt[-1], 2))


# ---------------------------------------------------------------- 4: vllm#33155
def gptoss() -> None:
    cid = "zzb-v0141-gptoss120b-h100-oom"
    t0 = utc(2026, 1, 27, 0, 31, 30)
    P = "(EngineCore_DP0 pid=70073)"
    A = "(APIServer pid=69912)"
    argv = ["vllm", "serve", "openai/gpt-oss-120b", "--gpu-memory-utilization", "0.92", "--max-num-batched-tokens", "5120"]
    L = [f"{A} INFO 01-27 00:31:30 [api_server.py:1351] vLLM API server version 0.14.1",
         f"{A} INFO 01-27 00:31:30 [utils.py:253] non-default args: {{'model_tag': 'openai/gpt-oss-120b', 'model': 'openai/gpt-oss-120b', 'gpu_memory_utilization': 0.92, 'max_num_batched_tokens': 5120}}",
         f"{A} INFO 01-27 00:31:36 [model.py:547] Resolved architecture: GptOssForCausalLM",
         f"{A} INFO 01-27 00:31:36 [model.py:1510] Using max model len 131072",
         f"{A} INFO 01-27 00:31:37 [scheduler.py:229] Chunked prefill is enabled with max_num_batched_tokens=5120.",
         f"{P} INFO 01-27 00:31:44 [gpu_model_runner.py:3808] Starting to load model openai/gpt-oss-120b...",
         f"{P} INFO 01-27 00:31:44 [cuda.py:351] Using FLASH_ATTN attention backend out of potential backends: ('FLASH_ATTN', 'TRITON_ATTN')",
         f"{P} INFO 01-27 00:31:44 [mxfp4.py:165] Using Triton backend",
         f"{P}",
         f"{P} INFO 01-27 00:31:55 [default_loader.py:291] Loading weights took 9.69 seconds",
         f"{P} INFO 01-27 00:31:59 [gpu_model_runner.py:3905] Model loading took 64.38 GiB memory and 14.380607 seconds",
         f"{P} INFO 01-27 00:32:03 [backends.py:644] Using cache directory: /root/.cache/vllm/torch_compile_cache/ece87d2aa9/rank_0_0/backbone for vLLM's torch.compile",
         f"{P} INFO 01-27 00:32:03 [backends.py:704] Dynamo bytecode transform time: 3.70 s",
         f"{P} INFO 01-27 00:32:06 [backends.py:226] Directly load the compiled graph(s) for compile range (1, 5120) from the cache, took 0.808 s",
         f"{P} INFO 01-27 00:32:06 [monitor.py:34] torch.compile takes 4.51 s in total",
         f"{P} ERROR 01-27 00:32:09 [core.py:866] EngineCore failed to start.",
         f"{P} ERROR 01-27 00:32:09 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.25 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.31 GiB is free. "
         f"Including non-PyTorch memory, this process has 77.86 GiB memory in use. Of the allocated memory 75.92 GiB is allocated by PyTorch, and 1.21 GiB is reserved by PyTorch but unallocated. "
         f"If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
         f"{A} RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    gpu = [{"t": round(t0 + 38, 3), "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB,
                                                 "memory_used": 79730 * MiB + 4 * MiB,
                                                 "processes": [{"pid": 70073, "name": "VLLM::EngineCore", "used_memory": 79730 * MiB}]}]}]
    mc = {"architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0, "eos_token_id": 200002,
          "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "initial_context_length": 4096,
          "intermediate_size": 2880, "layer_types": ["sliding_attention", "full_attention"] * 18, "max_position_embeddings": 131072,
          "model_type": "gpt_oss", "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 36, "num_key_value_heads": 8,
          "num_local_experts": 128, "pad_token_id": 199999, "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
          "rms_norm_eps": 1e-05, "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
          "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 201088}
    write_failed_start(ROOT / "cases" / cid / "bundle", t0=t0 + 35, n=8, interval=5.0, endpoint="http://127.0.0.1:8000",
                       server={"version": None, "models": None, "health": None},
                       engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=L,
                       notes="gpt-oss-120b on one H100 after upgrading vLLM from v0.11.2 to v0.14.1: the engine core fails to start with CUDA OOM; log as the operator pasted it.")


if __name__ == "__main__":
    for f in (nemotron, util099, v066, gptoss):
        f()
