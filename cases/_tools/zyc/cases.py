"""zyc cases: run `python cases/_tools/zyc/cases.py <case-id>` from the repository root."""
from __future__ import annotations

import calendar
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3


def utc(y, mo, d, h, mi, s=0):
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def scrape_rows(model, snaps_by_engine, times, cache_info, created, spec_k=0, mml=0, errors=()):
    rows = []
    for t in times:
        if t in errors:
            rows.append({"t": t, "error": errors[t]})
            continue
        engines = []
        for idx, snaps in enumerate(snaps_by_engine):
            e = gen.Engine(idx, mml)
            gen.restore(e, snaps[t])
            engines.append(e)
        rows.append({"t": t, "status": 200,
                     "text": gen.render(model, engines, cache_info, created, spec_k=spec_k)})
    return rows


def cache_info(block_size, gmu, num_blocks, prefix=True, dtype="auto", offload=0, extra=None):
    ci = {"block_size": str(block_size), "cache_dtype": dtype, "calculate_kv_scales": "False",
          "cpu_offload_gb": str(offload), "enable_prefix_caching": str(prefix),
          "gpu_memory_utilization": str(gmu), "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(num_blocks),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
          "sliding_window": "None", "swap_space": "4"}
    if extra:
        ci.update(extra)
    return ci


# --------------------------------------------------------------------------------------------
def paro_mtp():
    cid = "zyc-paro-mtp-no-draft-head"
    model = "Qwen 3.6 27B ParoQuant"
    mml = 163840
    rng = random.Random(4201)
    t_start = utc(2026, 5, 9, 0, 5, 40)       # engine ready
    t0 = utc(2026, 5, 9, 0, 31, 0)            # capture start
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    # coding-agent traffic: a growing conversation, requests every 12-30 s, 1-2 in flight
    reqs, t, ctx, rid = [], t_start + 60, 6000, 0
    while t < times[-1] + 5:
        new = rng.randint(400, 2600)
        ctx = ctx + new if ctx + new < 40000 else rng.randint(6000, 9000)
        gen_len = rng.randint(300, 1500)
        cached = max(0, (ctx - new) // 16 * 16)
        reqs.append(gen.Req(rid, t, ctx, cached, gen_len, 32768))
        rid += 1
        t += rng.uniform(12, 30)
    K = 3

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.0230 + 0.0062 + 0.0009 * (n_dec - 1) + 3.5e-8 * ctx_sum
        if pf:
            s += 0.012 + pf / 2600.0
        return s

    cfg = {"max_num_seqs": 4, "mnbt": 2048, "block_size": 16, "num_blocks": 16384,
           "spec_k": K, "accept": lambda r: 0, "step_time": step_time, "rng": rng}
    snaps = gen.run_engine(cfg, reqs, t_start, times[-1], times, mml)
    ci = cache_info(16, 0.94, 16384)
    rows = scrape_rows(model, [snaps], times, ci, float(t_start), spec_k=K, mml=mml)

    # logs: the stats logger prints every 10 s; give the lines inside the window
    pid = 770382
    ltimes = [t0 - 2 + interval * i for i in range(n + 1)]
    lsn = gen.run_engine(dict(cfg, rng=random.Random(4201)), [gen.Req(r.rid, r.t_arr, r.prompt, r.cached, r.gen, r.max_tokens) for r in reqs], t_start, times[-1], ltimes, mml)
    stat = gen.log_lines(lsn, ltimes, interval, pid, spec_k=K)
    head = [
        f"(APIServer pid={pid}) INFO 05-09 00:05:01 [utils.py:233] non-default args: {{'model_tag': '/home/user/ai/models/qwen/Qwen3.6-27B-PARO/', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', 'port': 5001, 'model': '/home/user/ai/models/qwen/Qwen3.6-27B-PARO/', 'trust_remote_code': True, 'max_model_len': 163840, 'served_model_name': ['Qwen 3.6 27B ParoQuant'], 'attention_backend': 'flashinfer', 'reasoning_parser': 'qwen3', 'tensor_parallel_size': 2, 'disable_custom_all_reduce': True, 'gpu_memory_utilization': 0.94, 'enable_prefix_caching': True, 'max_num_batched_tokens': 2048, 'max_num_seqs': 4, 'enable_chunked_prefill': True, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 3, 'max_model_len': 163840}}}}",
    ]
    logs = "\n".join(head + [l for _, l in stat]) + "\n"

    argv = ["vllm", "serve", "--model", "/home/user/ai/models/qwen/Qwen3.6-27B-PARO/", "--port", "5001",
            "--served-model-name", model, "--enable-chunked-prefill", "--max-num-seqs", "4",
            "--max-model-len", "160K", "--reasoning-parser", "qwen3", "--enable-auto-tool-choice",
            "--tool-call-parser", "qwen3_coder", "--tensor-parallel-size", "2",
            "--gpu_memory_utilization", "0.940", "--max_num_batched_tokens", "2048",
            "--attention-backend", "flashinfer", "--enable-prefix-caching",
            "--disable-custom-all-reduce", "--trust-remote-code", "--speculative-config",
            '{"method":"mtp","num_speculative_tokens":3, "max_model_len": 163840}',
            "--default-chat-template-kwargs", '{"preserve_thinking": true}',
            "--override-generation-config",
            '{"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0}']
    args = {"model": "/home/user/ai/models/qwen/Qwen3.6-27B-PARO/", "port": 5001,
            "served-model-name": model, "enable-chunked-prefill": True, "max-num-seqs": 4,
            "max-model-len": 163840, "reasoning-parser": "qwen3", "enable-auto-tool-choice": True,
            "tool-call-parser": "qwen3_coder", "tensor-parallel-size": 2,
            "gpu-memory-utilization": 0.94, "max-num-batched-tokens": 2048,
            "attention-backend": "flashinfer", "enable-prefix-caching": True,
            "disable-custom-all-reduce": True, "trust-remote-code": True,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 3, "max_model_len": 163840}}
    server = {"version": {"version": "0.20.1"},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                         "owned_by": "vllm", "root": "/home/user/ai/models/qwen/Qwen3.6-27B-PARO/",
                         "parent": None, "max_model_len": mml}]},
              "health": 200}
    gpu_rows = []
    for t in times:
        devs = []
        for i in range(2):
            used = int(23.05 * GiB + 0.31 * GiB + (i * 0.04 * GiB))
            devs.append({"index": i, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24 * GiB,
                         "memory_used": used,
                         "processes": [{"pid": 770610 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": used - int(0.31 * GiB)}]})
        gpu_rows.append({"t": t, "devices": devs})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0",
                "endpoint": "http://localhost:5001", "started_at": times[0], "ended_at": times[-1],
                "interval_s": interval,
                "notes": "Single-operator coding-agent session against the 2x3090 box; MTP configured."}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest, rows, server=server,
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logs)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
def grug_eager():
    cid = "zyc-grug67b-enforce-eager-dp8"
    model = "grug-67b"
    mml = 32768
    DP = 8
    t_start = utc(2026, 9, 21, 16, 2, 10)
    t0 = utc(2026, 9, 21, 16, 40, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    ltimes = [t0 - 3 + interval * i for i in range(n + 1)]

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.0436 + 0.0006 * (n_dec - 1) + 2.0e-8 * ctx_sum
        if pf:
            s += 0.030 + pf / 6000.0
        return s

    nblocks = 23040
    snaps_all, logs = [], []
    pid = 1
    for e in range(DP):
        rng = random.Random(9339 + e)
        reqs, t, rid = [], t_start + 30 + rng.uniform(0, 20), 0
        while t < times[-1] + 5:
            p = rng.randint(600, 1600)
            g = rng.randint(256, 768)
            reqs.append(gen.Req(rid, t, p, (p // 2) // 16 * 16 if rng.random() < 0.3 else 0, g, 1024,
                                reason="stop" if g < 768 else "length"))
            rid += 1
            t += rng.uniform(20, 45)
        cfg = {"max_num_seqs": 256, "mnbt": 8192, "block_size": 16, "num_blocks": nblocks,
               "spec_k": 0, "accept": None, "step_time": step_time, "rng": rng}
        clone = lambda rs: [gen.Req(r.rid, r.t_arr, r.prompt, r.cached, r.gen, r.max_tokens, r.reason) for r in rs]
        snaps_all.append(gen.run_engine(cfg, clone(reqs), t_start, times[-1], times, mml, idx=e))
        lsn = gen.run_engine(dict(cfg), clone(reqs), t_start, times[-1], ltimes, mml, idx=e)
        logs += gen.log_lines(lsn, ltimes, interval, pid, engine_label=e, lg_line="loggers.py:310")
    ci = cache_info(16, 0.9, nblocks)
    rows = scrape_rows(model, snaps_all, times, ci, float(t_start), mml=mml)
    logs.sort(key=lambda x: x[0])
    head = [
        "(APIServer pid=1) INFO 09-21 16:00:42 [utils.py:233] non-default args: {'model_tag': '/models/grug-67b-0921', 'host': '0.0.0.0', 'model': '/models/grug-67b-0921', 'max_model_len': 32768, 'enforce_eager': True, 'served_model_name': ['grug-67b'], 'data_parallel_size': 8, 'enable_expert_parallel': True}",
    ]
    logtxt = "\n".join(head + [l for _, l in logs]) + "\n"
    argv = ["vllm", "serve", "/models/grug-67b-0921", "--served-model-name", model, "--host", "0.0.0.0",
            "--max-model-len", "32768", "--data-parallel-size", "8", "--enable-expert-parallel",
            "--enforce-eager"]
    args = {"model": "/models/grug-67b-0921", "served-model-name": model, "max-model-len": mml,
            "data-parallel-size": 8, "enable-expert-parallel": True, "enforce-eager": True}
    server = {"version": {"version": "0.23.0"},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                         "owned_by": "vllm", "root": "/models/grug-67b-0921", "parent": None,
                         "max_model_len": mml}]}, "health": 200}
    gpu_rows = []
    for t in times:
        devs = []
        for i in range(DP):
            used = int((72.0 + 0.03 * (i % 3)) * GiB)
            devs.append({"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": int(79.65 * GiB),
                         "memory_used": used,
                         "processes": [{"pid": 212 + i, "name": f"VLLM::EngineCore_DP{i}", "used_memory": used - int(0.5 * GiB)}]})
        gpu_rows.append({"t": t, "devices": devs})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0",
                "endpoint": "http://grug-playground:8000", "started_at": times[0], "ended_at": times[-1],
                "interval_s": interval, "notes": "Playground deployment of the Grug-67B checkpoint on one 8xH100 node."}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest, rows, server=server,
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logtxt)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
def qwen36_mtp6():
    cid = "zyc-qwen36-mtp6-long-context-decay"
    model = "Qwen/Qwen3.6-27B"
    mml = 262144
    rng = random.Random(47602)
    t_start = utc(2026, 7, 3, 13, 58, 20)
    t0 = utc(2026, 7, 3, 14, 30, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    K = 6
    P0, PC = 0.72, 0.55

    def accept(r):
        a = 0
        p = P0
        while a < K and r.random() < p:
            a += 1
            p = PC
        return a

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.0300 + 0.0012 * (n_dec - 1) + 2.8e-7 * ctx_sum
        if pf:
            s += 0.015 + pf / 5200.0 + 1.5e-9 * pf * ctx_sum
        return s

    # user A: long document / coding conversation 60k-120k, one turn at a time
    reqs, rid = [], 0
    t, ctx = t_start + 40, 58000
    while t < times[-1] + 5:
        new = rng.randint(300, 3000)
        ctx = ctx + new if ctx + new < 120000 else rng.randint(60000, 66000)
        g = rng.randint(400, 1400)
        reqs.append(gen.Req(rid, t, ctx, (ctx - new) // 16 * 16, g, 8192))
        rid += 1
        # next turn after this one would finish (~g/46 s) plus think time
        t += g / 46.0 + rng.uniform(4, 15)
        ctx += g
    # user B: occasional short questions
    t = t_start + 90
    while t < times[-1] + 5:
        p = rng.randint(1500, 8000)
        g = rng.randint(150, 600)
        reqs.append(gen.Req(rid, t, p, 0, g, 2048))
        rid += 1
        t += rng.uniform(60, 150)
    reqs.sort(key=lambda r: r.t_arr)
    nblocks = 15360
    cfg = {"max_num_seqs": 16, "mnbt": 8192, "block_size": 16, "num_blocks": nblocks,
           "spec_k": K, "accept": accept, "step_time": step_time, "rng": rng}
    clone = lambda rs: [gen.Req(r.rid, r.t_arr, r.prompt, r.cached, r.gen, r.max_tokens, r.reason) for r in rs]
    snaps = gen.run_engine(cfg, clone(reqs), t_start, times[-1], times, mml)
    ltimes = [t0 - 4 + interval * i for i in range(n + 1)]
    lsn = gen.run_engine(dict(cfg, rng=random.Random(47602)), clone(reqs), t_start, times[-1], ltimes, mml)
    stat = gen.log_lines(lsn, ltimes, interval, 1, spec_k=K, lg_line="loggers.py:310", sd_line="metrics.py:120")
    ci = cache_info(16, 0.92, nblocks)
    rows = scrape_rows(model, [snaps], times, ci, float(t_start), spec_k=K, mml=mml)
    head = ["(APIServer pid=1) INFO 07-03 13:56:02 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3.6-27B', 'host': '0.0.0.0', 'model': 'Qwen/Qwen3.6-27B', 'max_model_len': 262144, 'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 6}}"]
    logs = "\n".join(head + [l for _, l in stat]) + "\n"
    argv = ["vllm", "serve", "Qwen/Qwen3.6-27B", "--host", "0.0.0.0", "--max-model-len", "262144",
            "--gpu-memory-utilization", "0.92", "--enable-prefix-caching", "--speculative-config",
            '{"method": "mtp", "num_speculative_tokens": 6}']
    args = {"model": "Qwen/Qwen3.6-27B", "max-model-len": mml, "gpu-memory-utilization": 0.92,
            "enable-prefix-caching": True,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 6}}
    server = {"version": {"version": "0.24.0"},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                         "owned_by": "vllm", "root": model, "parent": None, "max_model_len": mml}]},
              "health": 200}
    gpu_rows = []
    for t in times:
        used = int(73.4 * GiB)
        gpu_rows.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3",
                         "memory_total": int(79.65 * GiB), "memory_used": used,
                         "processes": [{"pid": 97, "name": "VLLM::EngineCore", "used_memory": used - int(0.5 * GiB)}]}]})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0",
                "endpoint": "http://localhost:8000", "started_at": times[0], "ended_at": times[-1],
                "interval_s": interval, "notes": "Long-document assistant on Qwen3.6-27B with native MTP (6 draft tokens)."}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest, rows, server=server,
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logs)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
def v100_capture():
    cid = "zyc-v100-sm70-capture-1-2-cliff"
    model = "Qwen3.6-35B-A3B-AWQ"
    mml = 32768
    rng = random.Random(89)
    t_start = utc(2026, 6, 29, 9, 12, 30)
    t0 = utc(2026, 6, 29, 9, 40, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            if n_dec <= 2:
                s += 0.0275 + 0.0012 * (n_dec - 1) + 4e-8 * ctx_sum
            else:
                s += 0.88 + 0.006 * (n_dec - 3) + 4e-8 * ctx_sum
        if pf:
            s += 0.04 + pf / 4200.0
        return s

    reqs, rid = [], 0
    # single tasks one after another (history and the first ~2.5 minutes)
    t = t_start + 20
    while t < t0 + 150:
        p, g = rng.randint(1800, 6500), rng.randint(250, 800)
        reqs.append(gen.Req(rid, t, p, (p // 3) // 16 * 16, g, 4096))
        rid += 1
        t += 0.3 + g * 0.0285 + rng.uniform(3, 12)
    # burst of parallel agent tasks, then one more joining later
    tb = t0 + 152
    for k in range(4):
        p, g = rng.randint(2000, 7000), rng.randint(200, 650)
        reqs.append(gen.Req(rid, tb + k * rng.uniform(0.5, 1.5), p, (p // 3) // 16 * 16, g, 4096))
        rid += 1
    for dtj in (250,):
        p, g = rng.randint(2000, 6000), rng.randint(150, 400)
        reqs.append(gen.Req(rid, t0 + dtj, p, (p // 3) // 16 * 16, g, 4096))
        rid += 1
    reqs.sort(key=lambda r: r.t_arr)
    nblocks = 9600
    cfg = {"max_num_seqs": 8, "mnbt": 8192, "block_size": 16, "num_blocks": nblocks,
           "spec_k": 0, "accept": None, "step_time": step_time, "rng": rng}
    clone = lambda rs: [gen.Req(r.rid, r.t_arr, r.prompt, r.cached, r.gen, r.max_tokens, r.reason) for r in rs]
    snaps = gen.run_engine(cfg, clone(reqs), t_start, times[-1], times, mml)
    ltimes = [t0 - 5 + interval * i for i in range(n + 1)]
    lsn = gen.run_engine(dict(cfg), clone(reqs), t_start, times[-1], ltimes, mml)
    stat = gen.log_lines(lsn, ltimes, interval, 1, lg_line="loggers.py:271")
    ci = cache_info(16, 0.9, nblocks)
    rows = scrape_rows(model, [snaps], times, ci, float(t_start), mml=mml)
    ver = "0.21.1+1cat.v1.2.1"
    head = [
        "(APIServer pid=1) INFO 06-29 09:10:02 [utils.py:233] non-default args: {'model_tag': '/models/Qwen3.6-35B-A3B-AWQ', 'host': '0.0.0.0', 'model': '/models/Qwen3.6-35B-A3B-AWQ', 'trust_remote_code': True, 'max_model_len': 32768, 'served_model_name': ['Qwen3.6-35B-A3B-AWQ'], 'attention_backend': 'FLASH_ATTN_V100', 'tensor_parallel_size': 4, 'max_num_seqs': 8}",
        f"(EngineCore pid=88) INFO 06-29 09:10:31 [core.py:109] Initializing a V1 LLM engine (v{ver}) with config: model='/models/Qwen3.6-35B-A3B-AWQ', speculative_config=None, tokenizer='/models/Qwen3.6-35B-A3B-AWQ', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=4, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=Qwen3.6-35B-A3B-AWQ, enable_prefix_caching=True, enable_chunked_prefill=True, compilation_config={{'level': None, 'mode': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [1, 2], 'max_cudagraph_capture_size': 2}}",
    ]
    logs = "\n".join(head + [l for _, l in stat]) + "\n"
    argv = ["vllm", "serve", "/models/Qwen3.6-35B-A3B-AWQ", "--served-model-name", model, "--host", "0.0.0.0",
            "--trust-remote-code", "--max-model-len", "32768", "--tensor-parallel-size", "4",
            "--max-num-seqs", "8", "--attention-backend", "FLASH_ATTN_V100"]
    args = {"model": "/models/Qwen3.6-35B-A3B-AWQ", "served-model-name": model, "trust-remote-code": True,
            "max-model-len": mml, "tensor-parallel-size": 4, "max-num-seqs": 8,
            "attention-backend": "FLASH_ATTN_V100"}
    server = {"version": {"version": ver},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                         "owned_by": "vllm", "root": "/models/Qwen3.6-35B-A3B-AWQ", "parent": None,
                         "max_model_len": mml}]}, "health": 200}
    gpu_rows = []
    for t in times:
        devs = []
        for i in range(4):
            used = int((14.3 + 0.02 * i) * GiB)
            devs.append({"index": i, "name": "Tesla V100-SXM2-16GB", "memory_total": int(16.0 * GiB),
                         "memory_used": used,
                         "processes": [{"pid": 140 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": used - int(0.3 * GiB)}]})
        gpu_rows.append({"t": t, "devices": devs})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0",
                "endpoint": "http://v100-box:8000", "started_at": times[0], "ended_at": times[-1],
                "interval_s": interval, "notes": "4x V100 TP4 box serving an agent orchestrator; slow when several tasks run."}
    gen.write_bundle(ROOT / "cases" / cid / "bundle", manifest, rows, server=server,
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logs)
    print(cid, "ok", len(rows))


CASES = {"zyc-paro-mtp-no-draft-head": paro_mtp,
         "zyc-grug67b-enforce-eager-dp8": grug_eager,
         "zyc-qwen36-mtp6-long-context-decay": qwen36_mtp6,
         "zyc-v100-sm70-capture-1-2-cliff": v100_capture}

if __name__ == "__main__":
    for c in sys.argv[1:] or CASES:
        CASES[c]()
