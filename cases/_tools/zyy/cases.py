"""zyy cases: run `python3 cases/_tools/zyy/cases.py [case-id ...]` from the repository root.
Adapted from cases/_tools/zyc/cases.py (same simulator, gen.py)."""
from __future__ import annotations

import calendar
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3


def utc(y, mo, d, h, mi, s=0):
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def scrape_rows(model, snaps, times, ci, created, spec_k=0, mml=0):
    rows = []
    for t in times:
        e = gen.Engine(0, mml)
        gen.restore(e, snaps[t])
        rows.append({"t": t, "status": 200, "text": gen.render(model, [e], ci, created, spec_k=spec_k)})
    return rows


def cache_info(block_size, gmu, num_blocks, prefix=True, dtype="auto"):
    return {"block_size": str(block_size), "cache_dtype": dtype, "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix),
            "gpu_memory_utilization": str(gmu), "is_attention_free": "False",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(num_blocks),
            "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
            "sliding_window": "None", "swap_space": "4"}


def clone(rs):
    return [gen.Req(r.rid, r.t_arr, r.prompt, r.cached, r.gen, r.max_tokens, r.reason) for r in rs]


def run(cid, model, mml, cfg, reqs, t_start, times, ltimes, ci, interval, pid, head, spec_k=0,
        lg_line="loggers.py:310", extra_logs=()):
    seed = cfg["rng"].random()
    snaps = gen.run_engine(dict(cfg, rng=random.Random(seed)), clone(reqs), t_start, times[-1], times, mml)
    rows = scrape_rows(model, snaps, times, ci, float(t_start), spec_k=spec_k, mml=mml)
    lsn = gen.run_engine(dict(cfg, rng=random.Random(seed)), clone(reqs), t_start, times[-1], ltimes, mml)
    stat = gen.log_lines(lsn, ltimes, interval, pid, spec_k=spec_k, lg_line=lg_line, sd_line="metrics.py:101")
    stat += list(extra_logs)
    stat.sort(key=lambda x: x[0])
    return rows, "\n".join(head + [l for _, l in stat]) + "\n"


def server(model, root, mml, version, t0):
    return {"version": {"version": version},
            "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                       "owned_by": "vllm", "root": root, "parent": None, "max_model_len": mml}]},
            "health": 200}


def manifest(endpoint, times, interval, notes, not_checked=None):
    m = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": endpoint,
         "started_at": times[0], "ended_at": times[-1], "interval_s": interval, "notes": notes}
    if not_checked:
        m["not_checked"] = not_checked
    return m


# --------------------------------------------------------------------------------------------
def glm53_prefill():
    cid = "zyy-glm53-64k-prefill-starves-decode"
    model = "glm-5.3"
    root = "/models/GLM-5.3-NVFP4"
    mml = 131072
    t_start = utc(2026, 8, 27, 9, 10, 0)
    t0 = utc(2026, 8, 27, 9, 30, 0)
    interval, n = 10.0, 30
    times = [t0 + interval * i for i in range(n + 1)]
    ltimes = [t0 - 4 + interval * i for i in range(n + 1)]
    # A: 4,094 in / 8,192 out, re-sent back to back; B: 65,535 in / 1 out, twice
    reqs, rid = [], 0
    t = t0 - 25.0
    while t < times[-1] + 5:
        reqs.append(gen.Req(rid, t, 4094, 0, 8192, 8192, reason="length"))
        rid += 1
        t += 8192 * 0.00367 + 0.4 + 2 * 16.5 / 8  # approximate re-send cadence
    for tb in (t0 + 62.0, t0 + 201.0):
        reqs.append(gen.Req(rid, tb, 65535, 0, 1, 1, reason="length"))
        rid += 1
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.00355 + 0.0002 * (n_dec - 1) + 1.5e-9 * ctx_sum
        if pf:
            s += pf / 3978.0
        return s

    nblocks = 21504  # 1,376,256 tokens at block 64
    cfg = {"max_num_seqs": 64, "mnbt": 1024, "block_size": 64, "num_blocks": nblocks, "spec_k": 0,
           "accept": None, "step_time": step_time, "rng": random.Random(541), "idle_dt": 0.05}
    ci = cache_info(64, 0.92, nblocks, dtype="fp8")
    pid = 1
    head = [
        f"(APIServer pid={pid}) INFO 08-27 09:08:12 [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'model': '{root}', 'trust_remote_code': True, 'max_model_len': 131072, 'served_model_name': ['{model}'], 'block_size': 64, 'kv_cache_dtype': 'fp8', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.92, 'enable_chunked_prefill': True, 'max_num_batched_tokens': 1024, 'max_num_seqs': 64}}",
        "(EngineCore_DP0 pid=412) INFO 08-27 09:09:40 [kv_cache_utils.py:1291] GPU KV cache size: 1,376,256 tokens",
        "(EngineCore_DP0 pid=412) INFO 08-27 09:09:40 [kv_cache_utils.py:1296] Maximum concurrency for 131,072 tokens per request: 10.50x",
        f"(APIServer pid={pid}) INFO 08-27 09:09:58 [api_server.py:1932] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    rows, logs = run(cid, model, mml, cfg, reqs, t_start, times, ltimes, ci, interval, pid, head)
    argv = ["vllm", "serve", root, "--served-model-name", model, "--host", "0.0.0.0", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--max-model-len", "131072", "--block-size", "64",
            "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.92", "--enable-chunked-prefill",
            "--max-num-batched-tokens", "1024", "--max-num-seqs", "64"]
    args = {"model": root, "served-model-name": model, "tensor-parallel-size": 8, "max-model-len": mml,
            "block-size": 64, "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.92,
            "enable-chunked-prefill": True, "max-num-batched-tokens": 1024, "max-num-seqs": 64,
            "trust-remote-code": True}
    gpu_rows = []
    for t in times:
        devs = []
        for i in range(8):
            used = int((88.1 + 0.02 * i) * GiB)
            devs.append({"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                         "memory_total": int(95.59 * GiB), "memory_used": used,
                         "processes": [{"pid": 520 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": used - int(0.45 * GiB)}]})
        gpu_rows.append({"t": t, "devices": devs})
    gen.write_bundle(ROOT / "cases" / cid / "bundle",
                     manifest("http://glm53-box:8000", times, interval,
                              "A/B repro: request A (4,094 in / 8,192 out) decoding in a loop; request B (65,535 in / 1 out) sent twice while A decodes."),
                     rows, server=server(model, root, mml, "0.28.1.dev412+gb3f0c2a7e", t0),
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logs)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
QWEN38_CFG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408,
        "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
        "full_attention_interval": 4,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
        "max_position_embeddings": 262144, "vocab_size": 248320, "rms_norm_eps": 1e-06,
        "mtp_num_hidden_layers": 1, "torch_dtype": "bfloat16", "rope_theta": 10000000},
    "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}


def arc_mtp():
    cid = "zyy-arc-b60-mtp-50k-below-baseline"
    model = "Qwen3.8-27B-int4"
    root = "/llm/models/Qwen3.8-27B-int4-AutoRound"
    mml = 65536
    t_start = utc(2026, 8, 29, 6, 0, 0)
    t0 = utc(2026, 8, 29, 6, 40, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    ltimes = [t0 - 6 + interval * i for i in range(n + 1)]
    rng = random.Random(657)
    # one stream at a time: 50K in / 1K out, next request sent when the previous one ends
    K = 4

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            # verify of 1+K tokens per request over a ~50K context: weights + KV reads, plus MTP drafts
            s += 0.0520 + 0.0105 * K + 1.05e-6 * ctx_sum
        if pf:
            s += 0.02 + pf / 2300.0
        return s

    # build requests sequentially: estimated duration = prefill (~22 s) + 1000 tokens / 13.5 tok/s
    reqs, t, rid = [], t_start + 60, 0
    while t < times[-1] + 5:
        p = 50000 + rng.randint(-300, 300)
        reqs.append(gen.Req(rid, t, p, 1024, 1000, 1000, reason="length"))
        rid += 1
        t += p / 2300.0 + 1000 / 13.5 + rng.uniform(1.0, 3.0)

    def accept(r):
        a = 0
        for p in (0.38, 0.26, 0.2, 0.0):
            if r.random() < p:
                a += 1
            else:
                break
        return a

    nblocks = 2960  # 189,440 tokens at block 64
    cfg = {"max_num_seqs": 8, "mnbt": 8192, "block_size": 64, "num_blocks": nblocks, "spec_k": K,
           "accept": accept, "step_time": step_time, "rng": random.Random(6570)}
    ci = cache_info(64, 0.9, nblocks)
    pid = 63
    head = [
        f"(APIServer pid={pid}) INFO 08-29 05:58:21 [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'port': 8000, 'model': '{root}', 'trust_remote_code': True, 'dtype': 'float16', 'max_model_len': 65536, 'served_model_name': ['{model}'], 'block_size': 64, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 8, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 4}}}}",
        "(EngineCore_DP0 pid=151) INFO 08-29 05:59:47 [kv_cache_utils.py:1291] GPU KV cache size: 189,440 tokens",
        "(EngineCore_DP0 pid=151) INFO 08-29 05:59:47 [kv_cache_utils.py:1296] Maximum concurrency for 65,536 tokens per request: 2.89x",
        f"(APIServer pid={pid}) INFO 08-29 05:59:58 [api_server.py:1932] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    # both runs (scrape grid, log grid) replay the same acceptance draws
    snaps_cfg = dict(cfg, rng=random.Random(6570))
    rows_snaps = gen.run_engine(snaps_cfg, clone(reqs), t_start, times[-1], times, mml)
    rows = scrape_rows(model, rows_snaps, times, ci, float(t_start), spec_k=K, mml=mml)
    lcfg = dict(cfg, rng=random.Random(6570))
    lsn = gen.run_engine(lcfg, clone(reqs), t_start, times[-1], ltimes, mml)
    stat = gen.log_lines(lsn, ltimes, interval, pid, spec_k=K, lg_line="loggers.py:259", sd_line="metrics.py:101")
    logs = "\n".join(head + [l for _, l in stat]) + "\n"
    argv = ["vllm", "serve", root, "--served-model-name", model, "--host", "0.0.0.0", "--port", "8000",
            "--trust-remote-code", "--dtype", "float16", "--tensor-parallel-size", "2", "--block-size", "64",
            "--max-model-len", "65536", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching",
            "--max-num-batched-tokens", "8192", "--max-num-seqs", "8",
            "--speculative-config", '{"method":"mtp","num_speculative_tokens":4}']
    args = {"model": root, "served-model-name": model, "port": 8000, "trust-remote-code": True,
            "dtype": "float16", "tensor-parallel-size": 2, "block-size": 64, "max-model-len": mml,
            "gpu-memory-utilization": 0.9, "enable-prefix-caching": True, "max-num-batched-tokens": 8192,
            "max-num-seqs": 8, "speculative-config": {"method": "mtp", "num_speculative_tokens": 4}}
    gen.write_bundle(ROOT / "cases" / cid / "bundle",
                     manifest("http://b60-node:8000", times, interval,
                              "50K-in / 1K-out benchmark loop, one request at a time, MTP k=4, int4 weights.",
                              not_checked=[{"what": "gpu", "why": "NVML not available (no NVIDIA driver): Intel Arc Pro B60 (XPU)"}]),
                     rows, server=server(model, root, mml, "0.21.0-b3", t0),
                     engine_args={"argv": argv, "args": args}, model_config=QWEN38_CFG, logs=logs)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
def glm52_tp8():
    cid = "zyy-glm52-tp8-pex-fixed-step-overhead"
    model = "glm-5.2"
    root = "/models/lukealonso/GLM-5.2-NVFP4"
    mml = 202752
    t_start = utc(2026, 7, 11, 13, 5, 0)
    t0 = utc(2026, 7, 11, 14, 0, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    ltimes = [t0 - 2 + interval * i for i in range(n + 1)]
    rng = random.Random(25)
    reqs, t, rid, ctx = [], t_start + 40, 0, 6000
    while t < times[-1] + 5:
        new = rng.randint(300, 2500)
        ctx = ctx + new if ctx + new < 20000 else rng.randint(6000, 8000)
        g = rng.randint(300, 900)
        reqs.append(gen.Req(rid, t, ctx, int(max(0, ctx - new) // 64 * 64), g, 8192))
        rid += 1
        t += rng.uniform(8, 30)
        if rng.random() < 0.15:  # an occasional side chat
            reqs.append(gen.Req(rid, t - 4, rng.randint(800, 2500), 0, rng.randint(200, 500), 4096))
            rid += 1
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.0253 + 0.0018 * (n_dec - 1) + 1.0e-8 * ctx_sum
        if pf:
            s += 0.026 + pf / 9000.0
        return s

    nblocks = 8992  # 575,488 tokens at block 64
    cfg = {"max_num_seqs": 64, "mnbt": 8192, "block_size": 64, "num_blocks": nblocks, "spec_k": 0,
           "accept": None, "step_time": step_time, "rng": rng}
    ci = cache_info(64, 0.93, nblocks, dtype="fp8_e4m3")
    pid = 1
    head = [
        f"(APIServer pid={pid}) INFO 07-11 13:02:33 [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'model': '{root}', 'trust_remote_code': True, 'max_model_len': 202752, 'served_model_name': ['{model}'], 'block_size': 64, 'kv_cache_dtype': 'fp8_e4m3', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.93, 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 64, 'compilation_config': {{'cudagraph_mode': 'FULL_AND_PIECEWISE', 'max_cudagraph_capture_size': 256}}}}",
        "(EngineCore_DP0 pid=301) INFO 07-11 13:04:10 [gpu_model_runner.py:4416] Graph capturing finished in 21 secs, took 1.84 GiB",
        "(EngineCore_DP0 pid=301) INFO 07-11 13:04:11 [kv_cache_utils.py:1291] GPU KV cache size: 575,488 tokens",
        "(EngineCore_DP0 pid=301) INFO 07-11 13:04:11 [kv_cache_utils.py:1296] Maximum concurrency for 202,752 tokens per request: 2.84x",
        f"(APIServer pid={pid}) INFO 07-11 13:04:40 [api_server.py:1932] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    rows, logs = run(cid, model, mml, cfg, reqs, t_start, times, ltimes, ci, interval, pid, head, lg_line="loggers.py:259")
    argv = ["vllm", "serve", root, "--served-model-name", model, "--host", "0.0.0.0", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--max-model-len", "202752", "--block-size", "64",
            "--kv-cache-dtype", "fp8_e4m3", "--gpu-memory-utilization", "0.93", "--enable-prefix-caching",
            "--max-num-batched-tokens", "8192", "--max-num-seqs", "64",
            "--compilation-config", '{"cudagraph_mode":"FULL_AND_PIECEWISE","max_cudagraph_capture_size":256}']
    args = {"model": root, "served-model-name": model, "tensor-parallel-size": 8, "max-model-len": mml,
            "block-size": 64, "kv-cache-dtype": "fp8_e4m3", "gpu-memory-utilization": 0.93,
            "enable-prefix-caching": True, "max-num-batched-tokens": 8192, "max-num-seqs": 64,
            "trust-remote-code": True,
            "compilation-config": {"cudagraph_mode": "FULL_AND_PIECEWISE", "max_cudagraph_capture_size": 256}}
    gpu_rows = []
    for t in times:
        devs = []
        for i in range(8):
            used = int((89.3 + 0.02 * i) * GiB)
            devs.append({"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                         "memory_total": int(95.59 * GiB), "memory_used": used,
                         "processes": [{"pid": 410 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": used - int(0.42 * GiB)}]})
        gpu_rows.append({"t": t, "devices": devs})
    gen.write_bundle(ROOT / "cases" / cid / "bundle",
                     manifest("http://rtx6k-8x:8000", times, interval,
                              "Coding-agent stream on the 8x RTX PRO 6000 host (EPYC 9565, PEX89144); operator reports ~40 tok/s per stream vs ~88 expected."),
                     rows, server=server(model, root, mml, "0.23.1.dev733+g0d1ad03", t0),
                     engine_args={"argv": argv, "args": args}, gpu_rows=gpu_rows, logs=logs)
    print(cid, "ok", len(rows))


# --------------------------------------------------------------------------------------------
def mi300x_freeze():
    cid = "zyy-mi300x-glm53-81s-engine-freeze"
    model = "GLM-5.3"
    root = "/data/GLM-5.3-FP8"
    mml = 131072
    t_start = utc(2026, 9, 17, 18, 50, 0)
    t0 = utc(2026, 9, 17, 19, 15, 0)
    interval, n = 10.0, 60
    times = [t0 + interval * i for i in range(n + 1)]
    ltimes = [t0 - 2 + interval * i for i in range(n + 1)]
    rng = random.Random(57429)
    # fixed-shape sweep: 4 clients, 1,024 in / 1,024 out, each sends the next when its response ends
    reqs, rid = [], 0
    for c in range(4):
        t = t0 - 30 + c * 1.7
        while t < times[-1] + 5:
            reqs.append(gen.Req(rid, t, 1024, 0, 1024, 1024, reason="length"))
            rid += 1
            t += 7.3 + rng.uniform(0.1, 0.4)
    t_freeze = t0 + 118.0
    # clients: after the freeze their requests resume; shift later arrivals by the freeze length
    for r in reqs:
        if r.t_arr > t_freeze:
            r.t_arr += 81.131
    reqs.sort(key=lambda r: r.t_arr)
    for i, r in enumerate(reqs):
        r.rid = i

    def step_time(n_dec, ctx_sum, pf, ntok):
        s = 0.0
        if n_dec:
            s += 0.0287 + 0.0002 * (n_dec - 1) + 1.0e-8 * ctx_sum
        if pf:
            s += 0.012 + pf / 30000.0
        return s

    nblocks = 18804  # 1,203,456 tokens at block 64
    K = 4

    def accept(r):  # MTP: each streamed chunk carries ~4.4 tokens (1,024 tokens in ~7 s at 29.4 ms gaps)
        a = 0
        for p in (0.97, 0.93, 0.9, 0.85):
            if r.random() < p:
                a += 1
            else:
                break
        return a

    cfg = {"max_num_seqs": 64, "mnbt": 8192, "block_size": 64, "num_blocks": nblocks, "spec_k": K,
           "accept": accept, "step_time": step_time, "rng": random.Random(5742), "freeze": (t_freeze, 81.131)}
    ci = cache_info(64, 0.9, nblocks, dtype="fp8")
    pid = 1
    head = [
        f"(APIServer pid={pid}) INFO 09-17 18:47:02 [utils.py:233] non-default args: {{'model_tag': '{root}', 'host': '0.0.0.0', 'model': '{root}', 'trust_remote_code': True, 'max_model_len': 131072, 'served_model_name': ['{model}'], 'block_size': 64, 'kv_cache_dtype': 'fp8', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 8192, 'max_num_seqs': 64, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 4}}}}",
        "(EngineCore_DP0 pid=288) INFO 09-17 18:49:31 [kv_cache_utils.py:1291] GPU KV cache size: 1,203,456 tokens",
        "(EngineCore_DP0 pid=288) INFO 09-17 18:49:31 [kv_cache_utils.py:1296] Maximum concurrency for 131,072 tokens per request: 9.18x",
        f"(APIServer pid={pid}) INFO 09-17 18:49:52 [api_server.py:1932] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    extra = [(t_freeze + 61.5, f"(EngineCore_DP0 pid=288) INFO {gen.ts(t_freeze + 61.5)} [shm_broadcast.py:801] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache quantization).")]
    rows, logs = run(cid, model, mml, cfg, reqs, t_start, times, ltimes, ci, interval, pid, head,
                     lg_line="loggers.py:310", extra_logs=extra, spec_k=K)
    argv = ["vllm", "serve", root, "--served-model-name", model, "--host", "0.0.0.0", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--max-model-len", "131072", "--block-size", "64",
            "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.9", "--max-num-batched-tokens", "8192",
            "--max-num-seqs", "64", "--speculative-config", '{"method":"mtp","num_speculative_tokens":4}']
    args = {"model": root, "served-model-name": model, "tensor-parallel-size": 8, "max-model-len": mml,
            "block-size": 64, "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.9,
            "max-num-batched-tokens": 8192, "max-num-seqs": 64, "trust-remote-code": True,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 4}}
    gen.write_bundle(ROOT / "cases" / cid / "bundle",
                     manifest("http://mi300x-node:8000", times, interval,
                              "Fixed-shape sweep 1,024 in / 1,024 out, 4 in flight; users report slow streams.",
                              not_checked=[{"what": "gpu", "why": "NVML not available (no NVIDIA driver): AMD Instinct MI300X (ROCm)"}]),
                     rows, server=server(model, root, mml, "0.29.0", t0),
                     engine_args={"argv": argv, "args": args}, logs=logs)
    print(cid, "ok", len(rows))


CASES = {"zyy-glm53-64k-prefill-starves-decode": glm53_prefill,
         "zyy-arc-b60-mtp-50k-below-baseline": arc_mtp,
         "zyy-glm52-tp8-pex-fixed-step-overhead": glm52_tp8,
         "zyy-mi300x-glm53-81s-engine-freeze": mi300x_freeze}

if __name__ == "__main__":
    for c in (sys.argv[1:] or list(CASES)):
        CASES[c]()
