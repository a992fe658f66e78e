"""Writer zxe, round 23: the four slow-ITL bundles (one request-level simulation each).

Metric families, HELP/TYPE lines and label layouts come from the first scrape of an existing
capture of the same vLLM line (format examples, see common.py); spec-decode families are taken from
a 0.27.1 MTP/DFlash capture and rewritten to the case's number of draft positions.
Run: python3 cases/_tools/zxe/build_all.py
"""
import datetime as dt
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import LAB, Req, Template, models_body, render, snapshot, write_bundle  # noqa: E402


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def template(base, drop=(), spec=False):
    tpl = Template(base)
    tpl.blocks = [b for b in tpl.blocks if not any(b[2].startswith(d) for d in drop)]
    if spec and not any("spec_decode" in b[2] for b in tpl.blocks):
        src = Template("zyl-dflash-drafter-hybrid-zero-hits")
        sb = [b for b in src.blocks if "spec_decode" in b[2]]
        i = next(k for k, b in enumerate(tpl.blocks) if b[2] == "vllm:cache_config_info")
        tpl.blocks[i:i] = sb
    return tpl


def cache_labels_of(tpl, **over):
    b = next(b for b in tpl.blocks if b[2] == "vllm:cache_config_info")
    d = {k: v for k, v in b[4][0][1] if k != "engine"}
    d.update({k: str(v) for k, v in over.items()})
    return d


def set_spec(text, k, drafts, drafted, accepted, per_pos):
    """Replace spec-decode sample values (render() leaves them 0) and the per-position lines."""
    def sub(name, val):
        nonlocal text
        text = re.sub(rf'^({re.escape(name)}\{{[^}}]*\}}) \S+$', lambda m: f"{m.group(1)} {float(val):.1f}", text, flags=re.M)
    sub("vllm:spec_decode_num_drafts_total", drafts)
    sub("vllm:spec_decode_num_draft_tokens_total", drafted)
    sub("vllm:spec_decode_num_accepted_tokens_total", accepted)
    out = []
    done = False
    for line in text.split("\n"):
        if line.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_"):
            if not done:
                tot = re.match(r'^vllm:spec_decode_num_accepted_tokens_per_pos_total\{([^}]*)\}', line)
                labs = [x for x in text.split("\n") if x.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_total{")][0]
                cre = [x for x in text.split("\n") if x.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_created{")]
                lab = re.match(r'^\S+\{(.*)\}', labs).group(1)
                lab = re.sub(r',?position="\d+"', "", lab)
                for p in range(k):
                    out.append(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{lab},position="{p}"}} {float(per_pos[p]):.1f}')
                    if cre:
                        out.append(f'vllm:spec_decode_num_accepted_tokens_per_pos_created{{{lab},position="{p}"}} {cre[0].rsplit(" ", 1)[1]}')
                done = True
            continue
        out.append(line)
    return "\n".join(out)


def run_case(cid, *, base, drop, version, model, served, mml, block, num_blocks, t_start, reqs_fn,
             k, acc, step_s, interval=10.0, n=61, cache_over=None, logs_head=(), gpu_name, mem_total,
             proc_used, ngpu, engine_args, notes, prefix_api="(APIServer pid=1) ", stats_line="loggers.py:259",
             spec_line="metrics.py:96", extra_events=()):
    rng = random.Random(hash(cid) & 0xffff)
    tpl = template(base, drop=drop, spec=k > 0)
    labels = cache_labels_of(tpl, **(cache_over or {}))
    t0 = t_start + 900.0
    t_end = t0 + interval * (n - 1)
    reqs = reqs_fn(rng, t0 - 120, t_end)
    created = t_start + 300.0

    def spec_counts(t):
        steps = 0
        for r in reqs:
            g = r.gen_by(t)
            if g > 1:
                steps += (g - 1) / (1 + sum(acc))
        drafts = round(steps)
        per = [round(drafts * a) for a in acc]
        return drafts, drafts * k, sum(per), per

    scrapes = []
    for i in range(n):
        t = t0 + i * interval
        snap, st = snapshot(reqs, t, block_size=block, num_blocks=num_blocks, step_tokens=2048)
        text = render(tpl, snap, model_name=served, created=created, max_model_len=mml, cache_labels=labels)
        if k:
            d, dt_, a, per = spec_counts(t)
            text = set_spec(text, k, d, dt_, a, per)
        scrapes.append({"t": t, "status": 200, "text": text})
    # logs: head + periodic stats + spec lines + access log
    L = list(logs_head)
    ev = list(extra_events)
    prev = None
    t = t0 - 60
    while t <= t_end + 1e-6:
        _, st = snapshot(reqs, t, block_size=block, num_blocks=num_blocks)
        if prev is not None and (st["gen"] != prev["gen"] or st["running"] or st["waiting"]):
            pt = (st["prompt"] - prev["prompt"]) / 10.0
            gt = (st["gen"] - prev["gen"]) / 10.0
            hr = 100.0 * st["h"] / st["q"] if st["q"] else 0.0
            ev.append((t, f"{prefix_api}INFO {fts(t)} [{stats_line}] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {st['running']} reqs, Waiting: {st['waiting']} reqs, GPU KV cache usage: {100*st['usage']:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
            if k:
                d1, dd1, a1, p1 = spec_counts(t)
                d0, dd0, a0, p0 = spec_counts(t - 10.0)
                if d1 > d0:
                    dd, aa = dd1 - dd0, a1 - a0
                    pp = ", ".join(f"{(p1[j]-p0[j])/(d1-d0):.3f}" for j in range(k))
                    ev.append((t + 0.001, f"{prefix_api}INFO {fts(t)} [{spec_line}] SpecDecoding metrics: Mean acceptance length: {1+aa/(d1-d0):.2f}, Accepted throughput: {aa/10:.2f} tokens/s, Drafted throughput: {dd/10:.2f} tokens/s, Accepted: {aa} tokens, Drafted: {dd} tokens, Per-position acceptance rate: {pp}, Avg Draft acceptance rate: {100*aa/dd:.1f}%"))
        prev = st
        t += 10.0
    for j, r in enumerate(reqs):
        if t0 - 60 <= r.t_end <= t_end:
            ev.append((r.t_end, f"{prefix_api}INFO:     172.17.0.1:{41000 + j} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    for i in range(n):
        ev.append((t0 + i * interval + 0.003, f"{prefix_api}INFO:     127.0.0.1:52210 - \"GET /metrics HTTP/1.1\" 200 OK"))
    L += [x for _, x in sorted(ev, key=lambda e: e[0])]
    gpu = [{"t": t0 + i * interval, "devices": [
        {"index": g, "name": gpu_name, "memory_total": mem_total, "memory_used": proc_used + 412_000_000,
         "processes": [{"pid": 300 + g, "name": "VLLM::Worker_TP%d" % g if ngpu > 1 else "VLLM::EngineCore", "used_memory": proc_used}]}
        for g in range(ngpu)]} for i in range(n)]
    server = {"version": {"version": version}, "models": models_body(served, model, mml, int(created)), "health": 200}
    manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0, "ended_at": t_end,
                "interval_s": interval, "notes": notes}
    write_bundle(cid, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args, gpu=gpu, logs=L)
    done = [r for r in reqs if t0 <= r.t_end <= t_end]
    print(cid, "finished", len(done), "tok/s per stream", round(1 / done[0].itl_s, 1) if done else None)


def single_stream(plen, glen, itl, prefill_rate, gap=(3, 12), hit_frac=0.0):
    def fn(rng, ta, tb):
        out, t = [], ta
        while t < tb:
            p = rng.randint(*plen)
            g = rng.randint(*glen)
            it = round(itl * rng.uniform(0.95, 1.06), 5)
            hit = int(p * hit_frac) // 16 * 16
            r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, queue_s=round(rng.uniform(0.002, 0.01), 4),
                    prefill_s=round(0.05 + (p - hit) / prefill_rate, 3), itl_s=it, hit=hit, max_tokens=max(g, 4096))
            out.append(r)
            t = r.t_end + rng.uniform(*gap)
        return out
    return fn


def ts(y, mo, d, h, mi):
    return dt.datetime(y, mo, d, h, mi, 0, tzinfo=dt.timezone.utc).timestamp()


A, E = "(APIServer pid=1) ", "(EngineCore_DP0 pid=214) "

# ---------------------------------------------------------------- 1. GB10 FlashInfer + MTP -> PIECEWISE
T1 = ts(2026, 7, 22, 14, 5)
M1 = "Qwen/Qwen3.5-122B-A10B-INT4"
head1 = [
    f"{A}INFO {fts(T1)} [api_server.py:1897] vLLM API server version 0.23.1rc1.dev1302+ge765bbc97",
    f"{A}INFO {fts(T1)} [utils.py:253] non-default args: {{'model_tag': '{M1}', 'model': '{M1}', 'max_model_len': 262144, 'gpu_memory_utilization': 0.85, 'attention_backend': 'FLASHINFER', 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 2}}}}",
    f"{E}INFO {fts(T1+20)} [core.py:93] Initializing a V1 LLM engine (v0.23.1rc1.dev1302+ge765bbc97) with config: model='{M1}', speculative_config=SpeculativeConfig(method='mtp', model='{M1}', num_spec_tokens=2), tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True, compilation_config={{'level': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>}}",
    f"{E}INFO {fts(T1+31)} [cuda.py:298] Using AttentionBackendEnum.FLASHINFER backend.",
    f"{E}INFO {fts(T1+212)} [gpu_model_runner.py:3120] Model loading took 64.8812 GiB and 178.412 seconds",
    f"{E}WARNING {fts(T1+251)} [compilation.py:1201] CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=PIECEWISE",
    f"{E}INFO {fts(T1+252)} [gpu_worker.py:315] Available KV cache memory: 29.71 GiB",
    f"{E}INFO {fts(T1+252)} [kv_cache_utils.py:1134] GPU KV cache size: 1,372,800 tokens",
    f"{E}INFO {fts(T1+252)} [kv_cache_utils.py:1138] Maximum concurrency for 262,144 tokens per request: 5.24x",
    f"{E}INFO {fts(T1+289)} [gpu_model_runner.py:4012] Graph capturing finished in 37 secs, took 0.61 GiB",
    f"{A}INFO {fts(T1+300)} [api_server.py:1969] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
run_case("zxe-gb10-mtp-flashinfer-piecewise", base="zq-axk2-2p2d-decode-kv-full-stall", drop=("vllm:nixl",),
         version="0.23.1rc1.dev1302+ge765bbc97", model=M1, served=M1, mml=262144, block=528, num_blocks=2600,
         t_start=T1, reqs_fn=single_stream((900, 6000), (300, 900), 1 / 47.5, 1900.0, hit_frac=0.5),
         k=2, acc=[0.78, 0.55], step_s=0.049,
         cache_over={"block_size": 528, "num_gpu_blocks": 2600, "gpu_memory_utilization": 0.85, "enable_prefix_caching": "True"},
         logs_head=head1, gpu_name="NVIDIA GB10", mem_total=128_526_278_656, proc_used=104_900_000_000, ngpu=1,
         engine_args={"argv": ["vllm", "serve", M1, "--max-model-len", "262144", "--gpu-memory-utilization", "0.85",
                               "--attention-backend", "FLASHINFER", "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}'],
                      "args": {"max-model-len": 262144, "gpu-memory-utilization": 0.85, "attention-backend": "FLASHINFER",
                               "speculative-config": {"method": "mtp", "num_speculative_tokens": 2}}},
         notes="DGX Spark (GB10) single-user agent box, Qwen3.5-122B-A10B INT4 with MTP-2 on the FlashInfer backend. Operator: decode feels slower than the ~55 tok/s others report on the same box. /metrics every 10 s for 10 min, NVML, server log.")

# ---------------------------------------------------------------- 2. 4x Spark GLM-5.3-Flash eager
T2 = ts(2026, 8, 29, 9, 10)
M2 = "LibertAIDAI/GLM-5.3-Flash-NVFP4"
head2 = [
    f"{A}INFO {fts(T2)} [api_server.py:1911] vLLM API server version 0.27.1",
    f"{A}INFO {fts(T2)} [utils.py:261] non-default args: {{'model_tag': '{M2}', 'model': '{M2}', 'tensor_parallel_size': 4, 'max_model_len': 1048576, 'kv_cache_dtype': 'fp8_e4m3', 'enforce_eager': True, 'moe_backend': 'marlin', 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 4}}, 'distributed_executor_backend': 'ray'}}",
    f"{A}WARNING {fts(T2+1)} [scheduler.py:281] max_num_batched_tokens (2048) derived from the speculative settings is suboptimal for long prompts; consider setting --max-num-batched-tokens",
    f"{A}INFO {fts(T2+1)} [vllm.py:1426] Cudagraph is disabled under eager mode",
    f"{E}INFO {fts(T2+22)} [core.py:121] Initializing a V1 LLM engine (v0.27.1) with config: model='{M2}', speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=4), tensor_parallel_size=4, pipeline_parallel_size=1, data_parallel_size=1, quantization=modelopt_fp4, enforce_eager=True, kv_cache_dtype=fp8_e4m3, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{E}INFO {fts(T2+410)} [gpu_model_runner.py:3301] Model loading took 50.1420 GiB and 371.552 seconds",
    f"{E}INFO {fts(T2+455)} [kv_cache_utils.py:1161] GPU KV cache size: 2,516,582 tokens",
    f"{E}INFO {fts(T2+455)} [kv_cache_utils.py:1165] Maximum concurrency for 1,048,576 tokens per request: 2.40x",
    f"{A}INFO {fts(T2+470)} [api_server.py:1983] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
run_case("zxe-spark4-glm53-eager-203ms-step", base="zyl-dflash-drafter-hybrid-zero-hits", drop=(),
         version="0.27.1", model=M2, served="glm-5.3-flash", mml=1048576, block=64, num_blocks=39321,
         t_start=T2, reqs_fn=single_stream((8000, 32000), (400, 1500), 1 / 19.4, 1584.0, hit_frac=0.6),
         k=4, acc=[0.93, 0.80, 0.66, 0.56], step_s=0.2032,
         cache_over={"block_size": 64, "num_gpu_blocks": 39321, "cache_dtype": "fp8_e4m3", "enable_prefix_caching": "True"},
         logs_head=head2, gpu_name="NVIDIA GB10", mem_total=128_526_278_656, proc_used=110_800_000_000, ngpu=1,
         engine_args={"argv": ["vllm", "serve", M2, "--tensor-parallel-size", "4", "--max-model-len", "1048576",
                               "--kv-cache-dtype", "fp8_e4m3", "--moe-backend", "marlin", "--enforce-eager",
                               "--speculative-config", '{"method":"mtp","num_speculative_tokens":4}',
                               "--distributed-executor-backend", "ray", "--served-model-name", "glm-5.3-flash"],
                      "args": {"tensor-parallel-size": 4, "max-model-len": 1048576, "kv-cache-dtype": "fp8_e4m3",
                               "moe-backend": "marlin", "enforce-eager": True, "speculative-config": {"method": "mtp", "num_speculative_tokens": 4},
                               "distributed-executor-backend": "ray", "served-model-name": "glm-5.3-flash"}},
         notes="4x DGX Spark (GB10) over CX7, GLM-5.3-Flash NVFP4 fp8-KV lane, TP4, 1M context, launch-glm53-vllm-tp4.sh defaults. One agent session at a time; single-stream decode ~19 tok/s. /metrics every 10 s for 10 min from the head node, NVML of the head node only, head-node server log.")

# ---------------------------------------------------------------- 3. X99 dual 3090 TP2 no P2P
T3 = ts(2026, 6, 10, 1, 20)
M3 = "Lorbus/Qwen3.6-27B-int4-AutoRound"
head3 = [
    "[nvlink] topology PHB (no NVLink) — probing PCIe P2P ...",
    "[nvlink] P2P DISABLED — NCCL_P2P_DISABLE=1, custom all-reduce OFF",
    f"{A}INFO {fts(T3)} [api_server.py:1902] vLLM API server version 0.22.0",
    f"{A}INFO {fts(T3)} [utils.py:258] non-default args: {{'model_tag': '{M3}', 'model': '{M3}', 'tensor_parallel_size': 2, 'max_model_len': 262144, 'gpu_memory_utilization': 0.95, 'kv_cache_dtype': 'fp8_e5m2', 'disable_custom_all_reduce': True, 'served_model_name': ['qwen3.6-27b'], 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 3}}}}",
    f"{E}INFO {fts(T3+18)} [core.py:101] Initializing a V1 LLM engine (v0.22.0) with config: model='{M3}', speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=3), tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=True, quantization=inc, enforce_eager=False, kv_cache_dtype=fp8_e5m2, enable_prefix_caching=True",
    f"{E}(Worker_TP0 pid=251) INFO {fts(T3+24)} [pynccl.py:111] vLLM is using nccl==2.28.3",
    f"{E}(Worker_TP0 pid=251) INFO {fts(T3+25)} [custom_all_reduce.py:84] Custom allreduce is disabled because this process group spans across nodes or P2P is not available",
    f"{E}INFO {fts(T3+140)} [kv_cache_utils.py:1152] GPU KV cache size: 623,104 tokens",
    f"{E}INFO {fts(T3+140)} [kv_cache_utils.py:1156] Maximum concurrency for 262,144 tokens per request: 2.38x",
    f"{E}INFO {fts(T3+171)} [gpu_model_runner.py:3890] Graph capturing finished in 29 secs, took 0.44 GiB",
    f"{A}INFO {fts(T3+180)} [api_server.py:1977] Starting vLLM API server 0 on http://0.0.0.0:8020",
]
run_case("zxe-x99-dual3090-tp2-no-p2p", base="zyt-long-prefill-oom-qwen36-tp2-3090", drop=(),
         version="0.22.0", model=M3, served="qwen3.6-27b", mml=262144, block=16, num_blocks=38944,
         t_start=T3, reqs_fn=single_stream((100, 10000), (300, 1000), 1 / 50.0, 1150.0, gap=(4, 15)),
         k=3, acc=[0.90, 0.75, 0.57], step_s=0.064,
         cache_over={"block_size": 16, "num_gpu_blocks": 38944, "cache_dtype": "fp8_e5m2", "enable_prefix_caching": "True", "gpu_memory_utilization": 0.95},
         logs_head=head3, gpu_name="NVIDIA GeForce RTX 3090", mem_total=25_769_803_776, proc_used=24_100_000_000, ngpu=2,
         engine_args={"argv": ["vllm", "serve", M3, "--tensor-parallel-size", "2", "--max-model-len", "262144",
                               "--gpu-memory-utilization", "0.95", "--kv-cache-dtype", "fp8_e5m2", "--disable-custom-all-reduce",
                               "--served-model-name", "qwen3.6-27b", "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}', "--port", "8020"],
                      "args": {"tensor-parallel-size": 2, "max-model-len": 262144, "gpu-memory-utilization": 0.95, "kv-cache-dtype": "fp8_e5m2",
                               "disable-custom-all-reduce": True, "served-model-name": "qwen3.6-27b",
                               "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}},
         notes="club-3090 vllm/dual on an X99 board (2x Xeon E5-2680 v4), 2x RTX 3090 on PCIe Gen3 x16, power limit 290 W. Single-stream decode ~50 tok/s narrative vs ~66-71 published for the same compose. /metrics every 10 s for 10 min during the bench, NVML, container log.")

# ---------------------------------------------------------------- 4. 2x Spark GLM EXL3 100K+ prose
T4 = ts(2026, 8, 30, 6, 0)
M4 = "brandonmusic/GLM-5.3-Flash-EXL3-4bpw"
head4 = [
    f"{A}INFO {fts(T4)} [api_server.py:1911] vLLM API server version 0.27.1",
    f"{A}INFO {fts(T4)} [utils.py:261] non-default args: {{'model_tag': '{M4}', 'model': '{M4}', 'tensor_parallel_size': 2, 'max_model_len': 1048576, 'gpu_memory_utilization': 0.87, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 2, 'enable_prefix_caching': True, 'speculative_config': {{'method': 'dflash', 'model': 'incoai/GLM-5.3-Flash-DFlash2', 'num_speculative_tokens': 7}}, 'distributed_executor_backend': 'ray'}}",
    f"{E}INFO {fts(T4+30)} [core.py:121] Initializing a V1 LLM engine (v0.27.1) with config: model='{M4}', speculative_config=SpeculativeConfig(method='dflash', model='incoai/GLM-5.3-Flash-DFlash2', num_spec_tokens=7), tensor_parallel_size=2, pipeline_parallel_size=1, quantization=exl3, enforce_eager=False, kv_cache_dtype=fp8, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{E}INFO {fts(T4+460)} [kv_cache_utils.py:1161] GPU KV cache size: 1,206,272 tokens",
    f"{E}INFO {fts(T4+460)} [kv_cache_utils.py:1165] Maximum concurrency for 1,048,576 tokens per request: 1.15x",
    f"{E}INFO {fts(T4+512)} [gpu_model_runner.py:4420] Graph capturing finished in 51 secs, took 0.92 GiB",
    f"{A}INFO {fts(T4+520)} [api_server.py:1983] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
run_case("zxe-glm53-exl3-100k-prose-decode", base="zyl-dflash-drafter-hybrid-zero-hits", drop=(),
         version="0.27.1", model=M4, served="glm-5.3-flash", mml=1048576, block=64, num_blocks=18848,
         t_start=T4, reqs_fn=single_stream((100000, 180000), (600, 2000), 1 / 15.5, 950.0, gap=(5, 25), hit_frac=0.97),
         k=7, acc=[0.62, 0.42, 0.28, 0.19, 0.12, 0.07, 0.04], step_s=0.177,
         cache_over={"block_size": 64, "num_gpu_blocks": 18848, "cache_dtype": "fp8", "enable_prefix_caching": "True", "gpu_memory_utilization": 0.87},
         logs_head=head4, gpu_name="NVIDIA GB10", mem_total=128_526_278_656, proc_used=108_300_000_000, ngpu=1,
         engine_args={"argv": None, "args": {"tensor-parallel-size": 2, "max-model-len": 1048576, "gpu-memory-utilization": 0.87,
                                              "kv-cache-dtype": "fp8", "max-num-seqs": 2, "enable-prefix-caching": True,
                                              "speculative-config": {"method": "dflash", "model": "incoai/GLM-5.3-Flash-DFlash2", "num_speculative_tokens": 7}}},
         notes="2x DGX Spark (GB10), TP=2 over CX7, GLM-5.3-Flash EXL3 4bpw recipe image (main b5ab809), DFlash2 k=7, fp8 KV, 1M context, MAX_NUM_SEQS=2. Daily agent use: long prose replies at 100K+ context decode at ~12-20 tok/s (short prose ~27-30). /metrics every 10 s for 10 min from the head node, head-node NVML and log.")
