#!/usr/bin/env python3
"""Build the bundles of the g-* cases. Usage (from the worktree root):

    PYTHONPATH=. .venv/bin/python cases/_tools/g/cases.py [case-id ...]

gen.py is a copy of cases/_tools/d/gen.py (metric text writers: names per release from
kvdoctor/data/vllm_metrics.yaml, HELP texts and buckets from tests/data/vllm-0.32). Each builder
takes the numbers its case.yaml quotes and fills in the rest as case.yaml's `assumed:` says.
Deterministic: seeded random generators, no wall clock.
"""

from __future__ import annotations

import datetime as _dt
import random
import sys
import time as _t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import models  # noqa: E402
from gen import GiB, MiB, Engine, device, prom_error, v1_text, write_bundle  # noqa: E402

CASES = Path(__file__).resolve().parents[2]
BUILDERS = {}


def case(fn):
    BUILDERS[fn.__name__.replace("_", "-")] = fn
    return fn


def epoch(y, mo, d, h=0, mi=0, s=0) -> float:
    return _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc).timestamp()


def stamp(t: float) -> str:
    return _t.strftime("%m-%d %H:%M:%S", _t.gmtime(t))


def models_body(served: str, root: str, max_len: int, created: int) -> dict:
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created, "owned_by": "vllm",
                                        "root": root, "parent": None, "max_model_len": max_len,
                                        "permission": [{"id": "modelperm-5c0e9d1b7a2f4c3e8d6b1a0f9e8d7c6b",
                                                        "object": "model_permission", "created": created,
                                                        "allow_create_engine": False, "allow_sampling": True,
                                                        "allow_logprobs": True, "allow_search_indices": False,
                                                        "allow_view": True, "allow_fine_tuning": False,
                                                        "organization": "*", "group": None, "is_blocking": False}]}]}


# --------------------------------------------------------------------------------------------
@case
def g_mrv2_gemma4_runtime_oom_3090_tp2():
    """vllm#50159: MRv2 sizes the KV pool 0.89 GiB larger than MRv1; under a 128-worker load both ranks OOM."""
    vers = ("0.24.0", "0.32.0")
    served = "cyankiwi/gemma-4-31B-it-AWQ-4bit"
    rnd = random.Random(50159)
    t0 = epoch(2026, 7, 28, 9, 40, 0)          # first scrape of the window
    boot = t0 - 1500.0                          # server up 25 min before the window
    load_at = t0 + 60.0
    crash_at = t0 + 226.4
    bs = 16
    blocks = 38928                              # 6 layer groups (1 full + 5 sliding) share the pool
    groups_sliding, win_blocks = 5, 1024 // bs + 1
    maxseq, budget = 48, 2048

    def blocks_of(tokens: int) -> int:
        b = -(-tokens // bs)
        return b + groups_sliding * min(b, win_blocks)

    # requests: (id, arrival, prompt, output); light probes before the load, 128 closed-loop workers after
    reqs: list[dict] = []
    for k, ta in enumerate([t0 - 1380.0, t0 - 1240.0, t0 - 900.0, t0 - 420.0, t0 + 12.0, t0 + 37.0]):
        reqs.append({"id": k, "arr": ta, "p": rnd.randint(400, 1500), "o": rnd.randint(60, 200)})
    workers = 128
    nid = len(reqs)
    pending: list[dict] = []
    for w in range(workers):
        r = {"id": nid, "arr": load_at + w * 0.05, "p": rnd.randint(3000, 9000), "o": rnd.randint(200, 700), "w": w}
        nid += 1
        pending.append(r)
    reqs_all = list(reqs)
    waiting: list[dict] = []
    running: list[dict] = []
    done: list[dict] = []
    t = t0 - 1400.0
    events = sorted(reqs, key=lambda r: r["arr"]) + pending
    events.sort(key=lambda r: r["arr"])
    ev_i = 0
    snapshots = {}
    scrape_ts = [t0 + 10 * i + 0.3 for i in range(31)]
    si = 0
    iters: list[tuple[int, float]] = []
    while t < crash_at:
        while ev_i < len(events) and events[ev_i]["arr"] <= t:
            waiting.append(events[ev_i])
            if events[ev_i] not in reqs_all:
                reqs_all.append(events[ev_i])
            ev_i += 1
        # admit (FCFS) while slots and blocks allow the prompt
        used = sum(blocks_of(r["pf"] + r["g"]) for r in running)
        while waiting and len(running) < maxseq and used + blocks_of(waiting[0]["p"] + 16) <= blocks:
            r = waiting.pop(0)
            r.update(pf=0, g=0, sched=t)
            running.append(r)
            used = sum(blocks_of(x["pf"] + x["g"]) for x in running)
        if not running:
            nxt = events[ev_i]["arr"] if ev_i < len(events) else crash_at
            while si < len(scrape_ts) and scrape_ts[si] <= nxt:
                snapshots[si] = (list(waiting), [dict(x) for x in running], len(done), list(done), len(iters))
                si += 1
            t = max(t + 0.001, min(nxt, crash_at))
            continue
        dec = [r for r in running if r["pf"] >= r["p"]]
        room = budget - len(dec)
        pre_tok = 0
        for r in running:
            if r["pf"] < r["p"] and room > 0:
                c = min(room, r["p"] - r["pf"])
                r["pf"] += c
                room -= c
                pre_tok += c
                if r["pf"] >= r["p"]:
                    r["first"] = t + 0.0  # set after step time below
                    r["_first_pending"] = True
        dt = 0.019 + 0.00015 * len(running) + pre_tok / 2300.0
        t += dt
        iters.append((len(dec) + pre_tok, dt))
        for r in running:
            if r.pop("_first_pending", False):
                r["first"] = t
                r["g"] = 1
                r["last"] = t
        for r in dec:
            r["g"] += 1
            r.setdefault("itl", []).append(t - r["last"])
            r["last"] = t
        fin = [r for r in running if r["pf"] >= r["p"] and r["g"] >= r["o"]]
        for r in fin:
            r["end"] = t
            running.remove(r)
            done.append(r)
            if "w" in r:  # the worker sends its next request right away
                nr = {"id": nid, "arr": t + 0.02, "p": rnd.randint(3000, 9000), "o": rnd.randint(200, 700), "w": r["w"]}
                nid += 1
                events.insert(ev_i, nr)
                events[ev_i:] = sorted(events[ev_i:], key=lambda x: x["arr"])
        while si < len(scrape_ts) and scrape_ts[si] <= t:
            snapshots[si] = (list(waiting), [dict(x) for x in running], len(done), list(done), len(iters))
            si += 1

    # ---- scrapes
    cache = {"block_size": str(bs), "_block_size_resolved": "True", "cache_dtype": "int8_per_token_head",
             "calculate_kv_scales": "False", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.94",
             "hash_block_size": "16", "is_attention_free": "False", "kv_cache_dtype_skip_layers": "[]",
             "kv_cache_max_concurrency": "0.40", "kv_cache_memory_bytes": "None", "kv_cache_size_tokens": "103812",
             "kv_offloading_backend": "native", "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False",
             "mamba_block_size": "None", "mamba_cache_dtype": "auto", "mamba_cache_mode": "none",
             "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
             "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
             "sliding_window": "1024", "user_specified_block_size": "False"}
    scrapes, gpu, logs = [], [], []
    total_mem = 24576 * MiB
    base_iters = 0
    for i, ts in enumerate(scrape_ts):
        if ts > crash_at:
            scrapes.append({"t": ts, "error": "GET http://10.0.0.7:8000/metrics: connection refused ([Errno 111] Connection refused)"})
            gpu.append({"t": ts + 0.1, "devices": [device(k, "NVIDIA GeForce RTX 3090", total_mem, [], extra_used=int(0.25 * GiB)) for k in range(2)]})
            continue
        wait, run, ndone, dlist, nit = snapshots[i]
        e = Engine(labels={"engine": "0", "model_name": served}, created=boot + 88.0)
        started = [r for r in reqs_all if "first" in r and r["first"] <= ts]
        e.counters["vllm:prompt_tokens"] = sum(r["p"] for r in started) + sum(r["pf"] for r in run if "first" not in r)
        e.counters["vllm:generation_tokens"] = sum(r["o"] for r in dlist) + sum(r["g"] for r in run)
        e.counters["vllm:num_preemptions"] = 0.0
        q = sum(r["p"] for r in reqs_all if r.get("sched", 1e18) <= ts)
        e.counters["vllm:prefix_cache_queries"] = q
        e.counters["vllm:prefix_cache_hits"] = 0.0
        e.counters["vllm:prompt_tokens_cached"] = 0.0
        for n in ("vllm:external_prefix_cache_queries", "vllm:external_prefix_cache_hits", "vllm:mm_cache_queries", "vllm:mm_cache_hits", "vllm:corrupted_requests"):
            e.counters[n] = 0.0
        e.labelled[("vllm:prompt_tokens_by_source", "source", "local_compute")] = e.counters["vllm:prompt_tokens"]
        e.labelled[("vllm:prompt_tokens_by_source", "source", "local_cache_hit")] = 0.0
        e.labelled[("vllm:prompt_tokens_by_source", "source", "external_kv_transfer")] = 0.0
        e.labelled[("vllm:request_success", "finished_reason", "length")] = float(ndone)
        e.labelled[("vllm:num_requests_waiting_by_reason", "reason", "capacity")] = float(len(wait))
        e.labelled[("vllm:num_requests_waiting_by_reason", "reason", "deferred")] = 0.0
        for st, v in (("awake", 1.0), ("weights_offloaded", 0.0), ("discard_all", 0.0)):
            e.labelled[("vllm:engine_sleep_state", "sleep_state", st)] = v
        for r in started:
            e.observe("vllm:time_to_first_token_seconds", r["first"] - r["arr"])
            e.observe("vllm:request_queue_time_seconds", r["sched"] - r["arr"])
        # ITL observations up to ts: rebuild from the per-request lists bounded by time
        for r in reqs_all:
            if "first" not in r or r["first"] > ts:
                continue
            acc = r["first"]
            for x in r.get("itl", []):
                acc += x
                if acc > ts + 1e-9:
                    break
                e.observe("vllm:inter_token_latency_seconds", x)
        for r in dlist:
            e.observe("vllm:e2e_request_latency_seconds", r["end"] - r["arr"])
            e.observe("vllm:request_inference_time_seconds", r["end"] - r["sched"])
            e.observe("vllm:request_prefill_time_seconds", r["first"] - r["sched"])
            e.observe("vllm:request_decode_time_seconds", r["end"] - r["first"])
            e.observe("vllm:request_prompt_tokens", r["p"])
            e.observe("vllm:request_generation_tokens", r["o"])
            e.observe("vllm:request_params_max_tokens", r["o"])
            e.observe("vllm:request_max_num_generation_tokens", r["o"])
            e.observe("vllm:request_params_n", 1)
            e.observe("vllm:request_prefill_kv_computed_tokens", r["p"])
            e.observe("vllm:request_time_per_output_token_seconds", (r["end"] - r["first"]) / max(1, r["o"] - 1))
        for toks, _dt_ in iters[:nit]:
            e.observe("vllm:iteration_tokens_total", toks)
        used = sum(blocks_of(r["pf"] + r["g"]) for r in run)
        e.gauges["vllm:num_requests_running"] = len(run)
        e.gauges["vllm:num_requests_waiting"] = len(wait)
        e.gauges["vllm:kv_cache_usage_perc"] = round(used / blocks, 6)
        scrapes.append({"t": ts, "status": 200, "text": v1_text(vers, [e], cache)})
        act = 0.0 if ts < load_at else min(1.0, (ts - load_at) / 40.0)
        gpu.append({"t": ts + 0.1, "devices": [device(k, "NVIDIA GeForce RTX 3090", total_mem,
                                                      [(2251 + k, f"VLLM::Worker_TP{k}", int((22.86 + 0.55 * act) * GiB))],
                                                      extra_used=int(0.25 * GiB)) for k in range(2)]})
        if i > 0:
            prev = snapshots[i - 1]
            pt = (e.counters["vllm:prompt_tokens"] - pprompt) / 10.0
            gt = (e.counters["vllm:generation_tokens"] - pgen) / 10.0
            logs.append((ts - 0.2, f"(APIServer pid=1) INFO {stamp(ts - 0.2)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {len(run)} reqs, Waiting: {len(wait)} reqs, GPU KV cache usage: {100 * used / blocks:.1f}%, Prefix cache hit rate: 0.0%"))
        pprompt, pgen = e.counters["vllm:prompt_tokens"], e.counters["vllm:generation_tokens"]
    for r in reqs_all:
        if "end" in r and r["end"] <= crash_at:
            logs.append((r["end"], f"(APIServer pid=1) INFO:     10.0.0.{31 + (r['id'] % 4)}:{41000 + r['id']} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))

    # ---- start-up and crash text
    mp = served
    sa = f"(APIServer pid=1) INFO {stamp(boot)}"
    core = "(EngineCore pid=118)"
    w0, w1 = "(Worker_TP0 pid=2251)", "(Worker_TP1 pid=2252)"
    head = [f"{sa} [utils.py:299] vLLM API server version 0.26.0",
            f"{sa} [utils.py:233] non-default args: {{'model_tag': '{mp}', 'host': '0.0.0.0', 'model': '{mp}', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.94, 'kv_cache_dtype': 'int8_per_token_head', 'max_num_seqs': 48, 'attention_backend': 'TRITON_ATTN'}}",
            f"{sa} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration",
            f"{sa} [model.py:1712] Using max model len 262144",
            f"{sa} [scheduler.py:233] Chunked prefill is enabled with max_num_batched_tokens=2048.",
            f"{core} INFO {stamp(boot + 9)} [core.py:101] Initializing a V1 LLM engine (v0.26.0) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=262144, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=int8_per_token_head, device_config=cuda, seed=0, served_model_name={mp}, enable_prefix_caching=True, enable_chunked_prefill=True",
            f"{w0} INFO {stamp(boot + 21)} [gpu_model_runner.py:4410] Starting to load model {mp}...",
            f"{w0} INFO {stamp(boot + 21)} [cuda.py:368] Using AttentionBackendEnum.TRITON_ATTN backend.",
            f"{w0} INFO {stamp(boot + 64)} [gpu_model_runner.py:4502] Model loading took 9.87 GiB memory and 41.306512 seconds",
            f"{w1} INFO {stamp(boot + 64)} [gpu_model_runner.py:4502] Model loading took 9.87 GiB memory and 41.522078 seconds",
            f"{w0} INFO {stamp(boot + 79)} [monitor.py:34] torch.compile takes 11.92 s in total",
            f"{w0} INFO {stamp(boot + 84)} [gpu_model_runner.py:6365] Estimated CUDA graph memory: 0.10 GiB total",
            f"{w0} INFO {stamp(boot + 84)} [gpu_worker.py:466] Available KV cache memory: 11.43 GiB",
            f"{w1} INFO {stamp(boot + 84)} [gpu_worker.py:466] Available KV cache memory: 11.43 GiB",
            f"{w0} INFO {stamp(boot + 84)} [gpu_worker.py:481] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9400 is equivalent to --gpu-memory-utilization=0.9358 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.9442. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
            f"{core} INFO {stamp(boot + 85)} [kv_cache_utils.py:1733] GPU KV cache size: 103,812 tokens",
            f"{core} INFO {stamp(boot + 85)} [kv_cache_utils.py:1734] Maximum concurrency for 262,144 tokens per request: 0.40x",
            f"{w0} INFO {stamp(boot + 92)} [gpu_model_runner.py:5120] Graph capturing finished in 7 secs, took 0.31 GiB",
            f"{core} INFO {stamp(boot + 93)} [core.py:274] init engine (profile, create kv cache, warmup model) took 28.41 seconds",
            f"(APIServer pid=1) INFO {stamp(boot + 97)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000",
            f"(APIServer pid=1) INFO {stamp(boot + 97)} [launcher.py:47] Available routes are: /v1/models, /v1/chat/completions, /v1/completions, /metrics, /health"]
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    crash: list[str] = []
    for wp, gi, free, inuse, alloc, resv in ((w0, 0, "42.06 MiB", "23.47 GiB", "22.58 GiB", "318.42 MiB"),
                                             (w1, 1, "42.06 MiB", "23.47 GiB", "22.58 GiB", "316.77 MiB")):
        er = f"{wp} ERROR {stamp(crash_at)} [multiproc_executor.py:949]"
        crash += [f"{er} WorkerProc hit an exception.",
                  f"{er} Traceback (most recent call last):",
                  f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 944, in worker_busy_loop",
                  f"{er}     output = func(*args, **kwargs)",
                  f"{er}   File \"{site}/v1/worker/gpu_worker.py\", line 712, in execute_model",
                  f"{er}     output = self.model_runner.execute_model(scheduler_output, intermediate_tensors)",
                  f"{er}   File \"{site}/v1/worker/gpu/model_runner.py\", line 1088, in execute_model",
                  f"{er}     hidden_states = self.model(",
                  f"{er}   File \"{site}/model_executor/models/gemma4.py\", line 871, in forward",
                  f"{er}     hidden_states, residual = layer(positions, hidden_states, residual, **kwargs)",
                  f"{er}   File \"{site}/model_executor/models/gemma4.py\", line 612, in forward",
                  f"{er}     hidden_states = self.mlp(hidden_states)",
                  f"{er} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 52.00 MiB. GPU {gi} has a total capacity of 23.56 GiB of which {free} is free. Including non-PyTorch memory, this process has {inuse} memory in use. Of the allocated memory {alloc} is allocated by PyTorch, with 288.00 MiB allocated in private pools (e.g., CUDA Graphs), and {resv} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
    ec = f"{core} ERROR {stamp(crash_at)} [core.py:1195]"
    crash += [f"{ec} EngineCore encountered a fatal error.",
              f"{ec} Traceback (most recent call last):",
              f"{ec}   File \"{site}/v1/engine/core.py\", line 1186, in run_engine_core",
              f"{ec}     engine_core.run_busy_loop()",
              f"{ec}   File \"{site}/v1/executor/multiproc_executor.py\", line 412, in get_response",
              f"{ec}     raise RuntimeError(",
              f"{ec} RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 52.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 42.06 MiB is free. Including non-PyTorch memory, this process has 23.47 GiB memory in use.', please check the stack trace above for the root cause",
              f"(APIServer pid=1) ERROR {stamp(crash_at + 0.1)} [async_llm.py:704] AsyncLLM output_handler failed.",
              f"(APIServer pid=1) ERROR {stamp(crash_at + 0.1)} [async_llm.py:704] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]
    for k in range(6):
        crash.append(f"(APIServer pid=1) INFO:     10.0.0.{31 + k % 4}:{47100 + k} - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error")
    crash += [f"(APIServer pid=1) INFO {stamp(crash_at + 1.2)} [launcher.py:101] Shutting down FastAPI HTTP server.",
              "(APIServer pid=1) INFO:     Shutting down",
              "(APIServer pid=1) INFO:     Waiting for application shutdown.",
              "(APIServer pid=1) INFO:     Application shutdown complete."]
    body = [ln for _, ln in sorted(logs, key=lambda x: x[0]) if True]
    all_logs = head + [ln for (tt, ln) in sorted(logs, key=lambda x: x[0]) if tt <= crash_at] + crash
    argv = ["vllm", "serve", mp, "--host", "0.0.0.0", "--tensor-parallel-size", "2", "--attention-backend", "TRITON_ATTN",
            "--kv-cache-dtype", "int8_per_token_head", "--gpu-memory-utilization", "0.94", "--max-num-seqs", "48"]
    args = {"model": mp, "tensor-parallel-size": 2, "attention-backend": "TRITON_ATTN", "kv-cache-dtype": "int8_per_token_head",
            "gpu-memory-utilization": 0.94, "max-num-seqs": 48, "enable-chunked-prefill": True}
    del body
    write_bundle(CASES / "g-mrv2-gemma4-runtime-oom-3090-tp2", endpoint="http://10.0.0.7:8000", started_at=t0, interval_s=10.0,
                 notes="Captured while a 128-worker load test ran against the production config on 2x RTX 3090 (TP=2); "
                       "the engine died during the window and the API server exited.",
                 scrapes=scrapes, server={"version": {"version": "0.26.0"}, "models": models_body(mp, mp, 262144, int(boot + 97)), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=models.GEMMA4_31B_AWQ, gpu=gpu,
                 logs="\n".join(all_logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def g_minimax_m27_196k_kv_short_spark_tp2():
    """eugr/spark-vllm-docker#396: 2x DGX Spark TP=2, util 0.8: 22.5 GiB KV < 23.25 GiB for 196,608 tokens."""
    mp = "/models/MiniMax-M2.7-AWQ"
    served = "minimax-m2.7"
    t_up = epoch(2026, 9, 14, 7, 12, 4)
    d = lambda dt: stamp(t_up + dt)  # noqa: E731
    a = "(APIServer pid=1) INFO"
    core = "(EngineCore pid=286)"
    w0 = "(RayWorkerWrapper pid=431)"
    w1 = "(RayWorkerWrapper pid=219, ip=192.168.177.12)"
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    L = [f"{a} {d(0)} [utils.py:299] vLLM API server version 0.29.1rc1.dev17+gd2d649e67.d20260913",
         f"{a} {d(0)} [utils.py:233] non-default args: {{'model_tag': '{mp}', 'host': '0.0.0.0', 'port': 8000, 'model': '{mp}', 'trust_remote_code': True, 'max_model_len': 196608, 'served_model_name': ['{served}'], 'distributed_executor_backend': 'ray', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.8, 'enable_auto_tool_choice': True, 'tool_call_parser': 'minimax_m2', 'reasoning_parser': 'minimax_m2_append_think'}}",
         f"{a} {d(6)} [model.py:552] Resolved architecture: MiniMaxM2ForCausalLM",
         f"{a} {d(6)} [model.py:1712] Using max model len 196608",
         f"{a} {d(7)} [awq_marlin.py:162] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.",
         f"{a} {d(7)} [scheduler.py:233] Chunked prefill is enabled with max_num_batched_tokens=2048.",
         f"{core} INFO {d(14)} [core.py:101] Initializing a V1 LLM engine (v0.29.1rc1.dev17+gd2d649e67.d20260913) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=196608, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={served}, enable_prefix_caching=True, enable_chunked_prefill=True",
         f"{core} INFO {d(15)} [ray_utils.py:402] Using the existing Ray cluster: 2 nodes, 2 GPUs.",
         f"{core} INFO {d(21)} [ray_executor.py:596] RAY_CGRAPH_get_timeout is set to 300",
         f"{w0} INFO {d(27)} [parallel_state.py:1411] rank 0 in world size 2 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 0, EP rank 0",
         f"{w1} INFO {d(27)} [parallel_state.py:1411] rank 1 in world size 2 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 1, EP rank 0",
         f"{w0} INFO {d(27)} [pynccl.py:111] vLLM is using nccl==2.28.9",
         f"{w0} INFO {d(28)} [gpu_model_runner.py:4410] Starting to load model {mp}...",
         f"{w1} INFO {d(28)} [gpu_model_runner.py:4410] Starting to load model {mp}...",
         f"{w0} INFO {d(52)} [default_loader.py:291] Loading weights took 23.87 seconds",
         f"{w1} INFO {d(52)} [default_loader.py:291] Loading weights took 24.12 seconds",
         f"{w0} INFO {d(55)} [gpu_model_runner.py:4502] Model loading took 58.91 GiB memory and 26.512044 seconds",
         f"{w1} INFO {d(55)} [gpu_model_runner.py:4502] Model loading took 58.91 GiB memory and 26.804117 seconds",
         f"{w0} INFO {d(96)} [monitor.py:34] torch.compile takes 31.08 s in total",
         f"{w1} INFO {d(96)} [monitor.py:34] torch.compile takes 31.47 s in total",
         f"{w0} INFO {d(118)} [gpu_model_runner.py:6365] Estimated CUDA graph memory: 5.11 GiB total",
         f"{w1} INFO {d(118)} [gpu_model_runner.py:6365] Estimated CUDA graph memory: 5.11 GiB total",
         f"{w0} INFO {d(118)} [gpu_worker.py:466] Available KV cache memory: 22.5 GiB",
         f"{w1} INFO {d(118)} [gpu_worker.py:466] Available KV cache memory: 22.5 GiB",
         f"{w0} INFO {d(118)} [gpu_worker.py:481] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.8000 is equivalent to --gpu-memory-utilization=0.7580 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.8417. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0."]
    er = f"{core} ERROR {d(119)} [core.py:1104]"
    L += [f"{er} EngineCore failed to start.",
          f"{er} Traceback (most recent call last):",
          f"{er}   File \"{site}/v1/engine/core.py\", line 1090, in run_engine_core",
          f"{er}     engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
          f"{er}   File \"{site}/v1/engine/core.py\", line 852, in __init__",
          f"{er}     super().__init__(",
          f"{er}   File \"{site}/v1/engine/core.py\", line 128, in __init__",
          f"{er}     kv_cache_config = self._initialize_kv_caches(vllm_config)",
          f"{er}   File \"{site}/v1/engine/core.py\", line 251, in _initialize_kv_caches",
          f"{er}     kv_cache_configs = get_kv_cache_configs(",
          f"{er}   File \"{site}/v1/core/kv_cache_utils.py\", line 1726, in get_kv_cache_configs",
          f"{er}     _check_enough_kv_cache_memory(",
          f"{er}   File \"{site}/v1/core/kv_cache_utils.py\", line 681, in _check_enough_kv_cache_memory",
          f"{er}     raise ValueError(",
          f"{er} ValueError: To serve at least one request with the model's max seq len (196608), 23.25 GiB KV cache is needed, which is larger than the available KV cache memory (22.5 GiB). Based on the available memory, the estimated maximum model length is 190272. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
          f"{core} Process EngineCore:",
          f"(APIServer pid=1) Traceback (most recent call last):",
          f"(APIServer pid=1)   File \"/usr/local/bin/vllm\", line 10, in <module>",
          f"(APIServer pid=1)     sys.exit(main())",
          f"(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t_fail = t_up + 119.4
    scrapes = [prom_error(t_up + 30.2 + 30 * k) for k in range(5)]
    args = {"model": mp, "served-model-name": served, "host": "0.0.0.0", "port": 8000, "trust-remote-code": True,
            "max-model-len": 196608, "distributed-executor-backend": "ray", "tensor-parallel-size": 2,
            "gpu-memory-utilization": 0.8, "enable-auto-tool-choice": True, "tool-call-parser": "minimax_m2",
            "reasoning-parser": "minimax_m2_append_think"}
    write_bundle(CASES / "g-minimax-m27-196k-kv-short-spark-tp2", endpoint="http://spark-a.local:8000", started_at=t_up + 30.0,
                 interval_s=30.0,
                 notes="run-recipe.py recipes/minimax-m2.7-awq.yaml on two DGX Spark nodes (Ray, TP=2); the server did not come up. "
                       "No gpu.jsonl: NVML on GB10 reports no framebuffer memory. Engine args are the recipe's flags.",
                 scrapes=scrapes, server=None, engine_args={"argv": None, "args": args},
                 model_config=models.MINIMAX_M27_AWQ, gpu=None, logs="\n".join(L) + "\n")
    assert t_fail < scrapes[-1]["t"]


# --------------------------------------------------------------------------------------------
@case
def g_mrv2_capture_oom_llama31_70b_fp8_l40s_tp8():
    """vllm#49224: 0.25.1, MRv2 default for dense models reserves 0 for CUDA graphs; capture_model() OOMs on L40S TP=8."""
    mp = "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8"
    t_up = epoch(2026, 7, 20, 13, 5, 11)
    d = lambda dt: stamp(t_up + dt)  # noqa: E731
    a = "(APIServer pid=1) INFO"
    core = "(EngineCore pid=204)"
    pids = [311 + k for k in range(8)]
    W = [f"(Worker_TP{k} pid={pids[k]})" for k in range(8)]
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    kv_gib = 29.86
    bpt = 80 * 1 * 128 * 2 * 2  # per rank at TP=8
    tokens = int(kv_gib * GiB) // bpt // 16 * 16
    L = [f"{a} {d(0)} [utils.py:299] vLLM API server version 0.25.1",
         f"{a} {d(0)} [utils.py:233] non-default args: {{'model_tag': '{mp}', 'host': '0.0.0.0', 'model': '{mp}', 'max_model_len': 32768, 'tensor_parallel_size': 8}}",
         f"{a} {d(7)} [model.py:552] Resolved architecture: LlamaForCausalLM",
         f"{a} {d(7)} [model.py:1712] Using max model len 32768",
         f"{a} {d(7)} [scheduler.py:233] Chunked prefill is enabled with max_num_batched_tokens=2048.",
         f"{core} INFO {d(13)} [core.py:101] Initializing a V1 LLM engine (v0.25.1) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={mp}, enable_prefix_caching=True, enable_chunked_prefill=True",
         f"{core} INFO {d(14)} [multiproc_executor.py:143] Creating 8 workers with tensor_parallel_size=8"]
    for k in range(8):
        L.append(f"{W[k]} INFO {d(24)} [parallel_state.py:1411] rank {k} in world size 8 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank {k}, EP rank 0")
    L.append(f"{W[0]} INFO {d(26)} [gpu_model_runner.py:4410] Starting to load model {mp}...")
    for k in range(8):
        L.append(f"{W[k]} INFO {d(61)} [gpu_model_runner.py:4502] Model loading took 8.31 GiB memory and {33.9 + 0.13 * k:.6f} seconds")
    L.append(f"{W[0]} INFO {d(88)} [monitor.py:34] torch.compile takes 21.47 s in total")
    for k in range(8):
        L.append(f"{W[k]} INFO {d(95)} [gpu_model_runner.py:6365] Estimated CUDA graph memory: 0.00 GiB total")
    for k in range(8):
        L.append(f"{W[k]} INFO {d(95)} [gpu_worker.py:466] Available KV cache memory: {kv_gib} GiB")
    L += [f"{core} INFO {d(96)} [kv_cache_utils.py:1733] GPU KV cache size: {tokens:,} tokens",
          f"{core} INFO {d(96)} [kv_cache_utils.py:1734] Maximum concurrency for 32,768 tokens per request: {tokens / 32768:.2f}x",
          "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  37%|███▋      | 19/51 [00:04<00:07,  4.41it/s]"]
    er = f"{W[3]} ERROR {d(103)} [multiproc_executor.py:949]"
    L += [f"{er} WorkerProc hit an exception.",
          f"{er} Traceback (most recent call last):",
          f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 944, in worker_busy_loop",
          f"{er}     output = func(*args, **kwargs)",
          f"{er}   File \"{site}/v1/worker/gpu_worker.py\", line 588, in compile_or_warm_up_model",
          f"{er}     cuda_graph_memory_bytes = self.model_runner.capture_model()",
          f"{er}   File \"{site}/v1/worker/gpu/model_runner.py\", line 1402, in capture_model",
          f"{er}     self.cudagraph_manager.capture(self._capture_one)",
          f"{er}   File \"{site}/v1/worker/gpu/cudagraph_utils.py\", line 233, in capture",
          f"{er}     with torch.cuda.graph(graph, pool=self.pool):",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/torch/cuda/graphs.py\", line 268, in __exit__",
          f"{er}     self.cuda_graph.capture_end()",
          f"{er} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.06 GiB. GPU 3 has a total capacity of 44.53 GiB of which 634.25 MiB is free. Including non-PyTorch memory, this process has 43.83 GiB memory in use. Of the allocated memory 42.61 GiB is allocated by PyTorch, with 4.92 GiB allocated in private pools (e.g., CUDA Graphs), and 102.77 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
    ec = f"{core} ERROR {d(103)} [core.py:1104]"
    L += [f"{ec} EngineCore failed to start.",
          f"{ec} Traceback (most recent call last):",
          f"{ec}   File \"{site}/v1/engine/core.py\", line 1090, in run_engine_core",
          f"{ec}     engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
          f"{ec}   File \"{site}/v1/engine/core.py\", line 258, in _initialize_kv_caches",
          f"{ec}     self.model_executor.initialize_from_config(kv_cache_configs)",
          f"{ec}   File \"{site}/v1/executor/multiproc_executor.py\", line 412, in get_response",
          f"{ec}     raise RuntimeError(",
          f"{ec} RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 1.06 GiB. GPU 3 has a total capacity of 44.53 GiB of which 634.25 MiB is free. Including non-PyTorch memory, this process has 43.83 GiB memory in use.', please check the stack trace above for the root cause",
          f"{core} INFO {d(104)} [multiproc_executor.py:720] Parent process exited, terminating worker",
          f"(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t_fail = t_up + 103.2
    used = [43.62, 43.71, 43.58, 43.83, 43.66, 43.49, 43.74, 43.41]
    gpu = [{"t": t_fail + 1.1, "devices": [device(k, "NVIDIA L40S", 46068 * MiB, [(pids[k], f"VLLM::Worker_TP{k}", int(used[k] * GiB))],
                                                  extra_used=int(0.27 * GiB)) for k in range(8)]}]
    argv = ["vllm", "serve", mp, "--host", "0.0.0.0", "--tensor-parallel-size", "8", "--max-model-len", "32768"]
    args = {"model": mp, "host": "0.0.0.0", "tensor-parallel-size": 8, "max-model-len": 32768}
    write_bundle(CASES / "g-mrv2-capture-oom-llama31-70b-fp8-l40s-tp8", endpoint="http://127.0.0.1:8000", started_at=t_up + 60.0,
                 interval_s=20.0,
                 notes="Restart after upgrading the image from v0.23.0 to v0.25.1 with an unchanged command; the server did not come up. "
                       "NVML sampled once, right after the failure.",
                 scrapes=[prom_error(t_up + 60.2 + 20 * k) for k in range(4)], server=None,
                 engine_args={"argv": argv, "args": args}, model_config=models.LLAMA31_70B_FP8, gpu=gpu,
                 logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def g_mixtral_fp8_tp8_h100_free_5gib():
    """vllm#23192: v0.9.1, TP=8 on 8x H100: free memory 5.31/79.18 GiB at start-up < 0.9 x 79.18."""
    mp = "RedHatAI/Mixtral-8x7B-Instruct-v0.1-FP8"
    served = "Mixtral-8x7B-Instruct-v0.1-FP8"
    t_up = epoch(2025, 8, 19, 9, 47, 2)
    d = lambda dt: stamp(t_up + dt)  # noqa: E731
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    free = [5.31, 5.29, 5.44, 5.18, 5.37, 5.12, 5.46, 5.25]
    pids = [402 + k for k in range(8)]
    L = [f"INFO {d(0)} [__init__.py:244] Automatically detected platform cuda.",
         f"INFO {d(4)} [api_server.py:1287] vLLM API server version 0.9.1",
         f"INFO {d(4)} [cli_args.py:309] non-default args: {{'host': '0.0.0.0', 'port': 8910, 'model': '{mp}', 'tensor_parallel_size': 8, 'served_model_name': ['{served}'], 'enable_prefix_caching': False}}",
         f"INFO {d(12)} [config.py:823] This model supports multiple tasks: {{'embed', 'classify', 'generate', 'reward', 'score'}}. Defaulting to 'generate'.",
         f"INFO {d(12)} [config.py:1946] Defaulting to use mp for distributed inference",
         f"INFO {d(12)} [config.py:2195] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"INFO {d(18)} [core.py:455] Waiting for init message from front-end.",
         f"INFO {d(18)} [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_backend=''), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name={served}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None, compilation_config={{\"level\":3,\"debug_dump_path\":\"\",\"cache_dir\":\"\",\"backend\":\"\",\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"max_capture_size\":512}}",
         f"WARNING {d(18)} [multiproc_worker_utils.py:307] Reducing Torch parallelism from 104 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.",
         f"INFO {d(18)} [shm_broadcast.py:289] vLLM message queue communication handle: Handle(local_reader_ranks=[0, 1, 2, 3, 4, 5, 6, 7], buffer_handle=(8, 16777216, 10, 'psm_8c1f0a2e'), local_subscribe_addr='ipc:///tmp/5a0c2e1d-9f7b-4e3a-b6d2-0c8e1f4a7b93', remote_subscribe_addr=None, remote_addr_ipv6=False)"]
    for k in range(8):
        L.append(f"WARNING {d(27)} [utils.py:2737] Methods determine_num_available_blocks,device_config,get_cache_block_size_bytes,initialize_cache not implemented in <vllm.v1.worker.gpu_worker.Worker object at 0x7f3c{0x91a0 + 0x30 * k:04x}>")
    for k in range(8):
        wp = f"(VllmWorker rank={k} pid={pids[k]})"
        er = f"{wp} ERROR {d(29)} [multiproc_executor.py:487]"
        L += [f"{er} WorkerProc failed to start.",
              f"{er} Traceback (most recent call last):",
              f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 461, in worker_main",
              f"{er}     worker = WorkerProc(*args, **kwargs)",
              f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 357, in __init__",
              f"{er}     self.worker.init_device()",
              f"{er}   File \"{site}/worker/worker_base.py\", line 606, in init_device",
              f"{er}     self.worker.init_device()  # type: ignore",
              f"{er}   File \"{site}/v1/worker/gpu_worker.py\", line 140, in init_device",
              f"{er}     raise ValueError(",
              f"{er} ValueError: Free memory on device ({free[k]:.2f}/79.18 GiB) on startup is less than desired GPU memory utilization (0.9, 71.26 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."]
    er = f"ERROR {d(30)} [core.py:515]"
    L += [f"{er} EngineCore failed to start.",
          f"{er} Traceback (most recent call last):",
          f"{er}   File \"{site}/v1/engine/core.py\", line 506, in run_engine_core",
          f"{er}     engine_core = EngineCoreProc(*args, **kwargs)",
          f"{er}   File \"{site}/v1/engine/core.py\", line 390, in __init__",
          f"{er}     super().__init__(vllm_config, executor_class, log_stats,",
          f"{er}   File \"{site}/v1/engine/core.py\", line 76, in __init__",
          f"{er}     self.model_executor = executor_class(vllm_config)",
          f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 98, in _init_executor",
          f"{er}     self.workers = WorkerProc.wait_for_ready(unready_workers)",
          f"{er}   File \"{site}/v1/executor/multiproc_executor.py\", line 427, in wait_for_ready",
          f"{er}     raise e from None",
          f"{er} Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
          f"Process EngineCore_0:",
          f"Traceback (most recent call last):",
          f"  File \"/usr/local/bin/vllm\", line 10, in <module>",
          f"    sys.exit(main())",
          f"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t_fail = t_up + 30.3
    gpu = []
    for j, tt in enumerate((t_up + 20.0, t_fail + 2.0)):
        gpu.append({"t": tt, "devices": [device(k, "NVIDIA H100 80GB HBM3", 81559 * MiB, [],
                                                 extra_used=int((79.18 - free[k] + (0.52 if j == 0 else 0.0)) * GiB))
                                          for k in range(8)]})
    argv = ["vllm", "serve", mp, "--port", "8910", "--host", "0.0.0.0", "--tensor-parallel-size", "8",
            "--served-model-name", served, "--no-enable-prefix-caching"]
    args = {"model": mp, "port": 8910, "host": "0.0.0.0", "tensor-parallel-size": 8, "served-model-name": served,
            "enable-prefix-caching": False}
    write_bundle(CASES / "g-mixtral-fp8-tp8-h100-free-5gib", endpoint="http://0.0.0.0:8910", started_at=t_up + 10.0,
                 interval_s=10.0,
                 notes="Captured inside the vllm/vllm-openai:v0.9.1 container during a start that failed; NVML sampled twice.",
                 scrapes=[prom_error(t_up + 10.2 + 10 * k, port=8910, host="0.0.0.0") for k in range(4)], server=None,
                 engine_args={"argv": argv, "args": args}, model_config=models.MIXTRAL_8X7B_FP8, gpu=gpu,
                 logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def g_gpt_oss_120b_h100_negative_kv():
    """vllm#23278: gpt-oss-120b on one H100: weights 65.97 GiB, available KV -2.14 GiB at utilization 0.9."""
    mp = "openai/gpt-oss-120b"
    t_up = epoch(2025, 8, 20, 18, 3, 41)
    d = lambda dt: stamp(t_up + dt)  # noqa: E731
    core = "(EngineCore_0 pid=5839)"
    a = "(APIServer pid=5702) INFO"
    site = "/home/ubuntu/miniconda3/envs/vllm/lib/python3.12/site-packages/vllm"
    L = [f"{a} {d(0)} [api_server.py:1805] vLLM API server version 0.10.1",
         f"{a} {d(0)} [utils.py:326] non-default args: {{'model_tag': '{mp}', 'model': '{mp}'}}",
         f"{a} {d(7)} [config.py:726] Resolved architecture: GptOssForCausalLM",
         f"{a} {d(7)} [config.py:1759] Using max model len 131072",
         f"{a} {d(8)} [config.py:2588] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"{a} {d(8)} [config.py:273] Overriding max cuda graph capture size to 1024 for performance.",
         f"{core} INFO {d(14)} [core.py:636] Waiting for init message from front-end.",
         f"{core} INFO {d(14)} [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=mxfp4, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, decoding_config=DecodingConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_backend='GptOss'), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name={mp}, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None",
         f"{core} INFO {d(16)} [parallel_state.py:1134] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
         f"{core} INFO {d(16)} [gpu_model_runner.py:1953] Starting to load model {mp}...",
         f"{core} INFO {d(16)} [gpu_model_runner.py:1985] Loading model from scratch...",
         f"{core} INFO {d(16)} [cuda.py:323] Using Flash Attention backend on V1 engine.",
         f"{core} INFO {d(25)} [default_loader.py:262] Loading weights took 9.12 seconds",
         f"{core} WARNING {d(27)} [marlin_utils_fp4.py:196] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads.",
         f"{core} INFO {d(29)} [gpu_model_runner.py:2007] Model loading took 65.9651 GiB and 12.799889 seconds",
         f"{core} INFO {d(35)} [backends.py:548] Using cache directory: /home/ubuntu/.cache/vllm/torch_compile_cache/d7f9b2c1b1/rank_0_0/backbone for vLLM's torch.compile",
         f"{core} INFO {d(35)} [backends.py:559] Dynamo bytecode transform time: 5.55 s",
         f"{core} INFO {d(39)} [backends.py:161] Directly load the compiled graph(s) for dynamic shape from the cache, took 4.513 s",
         f"{core} INFO {d(40)} [monitor.py:34] torch.compile takes 5.55 s in total",
         f"{core} INFO {d(41)} [gpu_worker.py:276] Available KV cache memory: -2.14 GiB"]
    er = f"{core} ERROR {d(41)} [core.py:700]"
    L += [f"{er} EngineCore failed to start.",
          f"{er} Traceback (most recent call last):",
          f"{er}   File \"{site}/v1/engine/core.py\", line 691, in run_engine_core",
          f"{er}     engine_core = EngineCoreProc(*args, **kwargs)",
          f"{er}   File \"{site}/v1/engine/core.py\", line 492, in __init__",
          f"{er}     super().__init__(vllm_config, executor_class, log_stats,",
          f"{er}   File \"{site}/v1/engine/core.py\", line 89, in __init__",
          f"{er}     self._initialize_kv_caches(vllm_config)",
          f"{er}   File \"{site}/v1/engine/core.py\", line 188, in _initialize_kv_caches",
          f"{er}     get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
          f"{er}   File \"{site}/v1/core/kv_cache_utils.py\", line 1056, in get_kv_cache_config",
          f"{er}     check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
          f"{er}   File \"{site}/v1/core/kv_cache_utils.py\", line 664, in check_enough_kv_cache_memory",
          f"{er}     raise ValueError(\"No available memory for the cache blocks. \"",
          f"{er} ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
          f"{core} Process EngineCore_0:",
          f"(APIServer pid=5702) Traceback (most recent call last):",
          f"(APIServer pid=5702)   File \"/home/ubuntu/miniconda3/envs/vllm/bin/vllm\", line 8, in <module>",
          f"(APIServer pid=5702)     sys.exit(main())",
          f"(APIServer pid=5702) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t_fail = t_up + 41.3
    gpu = [{"t": t_fail + 0.5, "devices": [device(0, "NVIDIA H100 80GB HBM3", 81559 * MiB, [(5839, "VLLM::EngineCore", int(73.62 * GiB))],
                                                  extra_used=int(0.31 * GiB))]}]
    argv = ["vllm", "serve", mp]
    args = {"model": mp}
    write_bundle(CASES / "g-gpt-oss-120b-h100-negative-kv", endpoint="http://localhost:8000", started_at=t_up + 20.0, interval_s=10.0,
                 notes="First start of openai/gpt-oss-120b on a single H100 (gpt-oss-20b served fine on it); the server did not come up. "
                       "NVML sampled once, at the failure.",
                 scrapes=[prom_error(t_up + 20.2 + 10 * k) for k in range(4)], server=None,
                 engine_args={"argv": argv, "args": args}, model_config=models.GPT_OSS_120B, gpu=gpu,
                 logs="\n".join(L) + "\n")


def main(argv: list[str]) -> None:
    names = argv or list(BUILDERS)
    for n in names:
        BUILDERS[n]()
        print("built", n)


if __name__ == "__main__":
    main(sys.argv[1:])
