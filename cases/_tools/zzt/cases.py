"""Writer zzt's cases (round 16): builds cases/zzt-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzt/cases.py
gen.py is zzq's builder copied unchanged (families/HELP/buckets from the vLLM 0.28.0 bundle
cases/a-max-num-seqs-100-piecewise-cliff). Log line refs follow that bundle's 0.28.0 logs.
Seeded, no wall clock. Numbers not quoted are under `assumed:` of each case.yaml.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V28 = "a-max-num-seqs-100-piecewise-cliff"
INF = float("inf")


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv):
    a, i = {}, 3
    a["model"] = argv[2]
    while i < len(argv):
        k = argv[i][2:]
        if "=" in k:
            k, v = k.split("=", 1); a[k] = v; i += 1; continue
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for cast in (int, float):
                try:
                    v = cast(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


def start_logs(s, root, version, nd, tp, pool, mml, kv_gib, cg_gib, load_gib, mnbt=8192, extra="", quant="None", kvd="auto", core=251, wk=312):
    w = f"(Worker_TP0 pid={wk})" if tp > 1 else f"(EngineCore pid={core})"
    return [
        (s, f"(APIServer pid=1) INFO {ts(s)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version {version}"),
        (s + .1, f"(APIServer pid=1) INFO {ts(s)} [utils.py:233] non-default args: {nd}"),
        (s + 9, f"(APIServer pid=1) INFO {ts(s + 9)} [model.py:1582] Using max model len {mml}"),
        (s + 9.1, f"(APIServer pid=1) INFO {ts(s + 9)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens={mnbt}."),
        (s + 18, f"(EngineCore pid={core}) INFO {ts(s + 18)} [core.py:114] Initializing a V1 LLM engine (v{version}) with config: model='{root}', "
                 f"speculative_config=None, tokenizer='{root}', dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size={tp}, pipeline_parallel_size=1, "
                 f"data_parallel_size=1, quantization={quant}, enforce_eager=False, kv_cache_dtype={kvd}, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True{extra}"),
        (s + 80, f"{w} INFO {ts(s + 80)} [gpu_model_runner.py:5405] Model loading took {load_gib:.2f} GiB memory and 61.402211 seconds"),
        (s + 104, f"{w} INFO {ts(s + 104)} [gpu_model_runner.py:6806] Estimated CUDA graph memory: {cg_gib:.2f} GiB total"),
        (s + 104.1, f"{w} INFO {ts(s + 104)} [gpu_worker.py:563] Available KV cache memory: {kv_gib:.2f} GiB"),
        (s + 104.2, f"(EngineCore pid={core}) INFO {ts(s + 104)} [kv_cache_utils.py:2146] GPU KV cache size: {pool:,} tokens"),
        (s + 104.3, f"(EngineCore pid={core}) INFO {ts(s + 104)} [kv_cache_utils.py:2147] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
        (s + 120, f"{w} INFO {ts(s + 120)} [gpu_model_runner.py:6582] Graph capturing finished in 12 secs, took {cg_gib * 0.97:.2f} GiB"),
        (s + 140, f"(APIServer pid=1) INFO {ts(s + 140)} [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000"),
    ]


def devices(name, total, used_each, n, pid0=312):
    return [{"index": i, "name": name, "memory_total": total, "memory_used": used_each + 520 * MiB,
             "processes": [{"pid": pid0 + i, "name": ("VLLM::Worker_TP%d" % i) if n > 1 else "VLLM::EngineCore", "used_memory": used_each}]} for i in range(n)]


def stall_stats(c, t0, t1, t_stall, kv_pct, logger_ref="loggers.py:257"):
    """V1 stats lines every 10 s; at the stall the first all-zero line is INFO, the following idle ones go to DEBUG (not printed)."""
    L = [x for x in gen.stats_lines(c, t0, t1, 1, logger_ref) if x[0] < t_stall]
    b = math.ceil((t_stall - t0) / 10) * 10 + t0
    wait = sum(1 for r in c.reqs if r.t_arr <= b and r.t_sched > b)
    L.append((b, f"(APIServer pid=1) INFO {ts(b)} [{logger_ref}] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
                 f"Running: 0 reqs, Waiting: {wait} reqs, GPU KV cache usage: {kv_pct:.1f}%, Prefix cache hit rate: 0.0%"))
    return L


def write_override(c, out, kv_after=None, t_kv=None, dead_after=None, **kw):
    gen.write(c, out, **kw)
    p = out / "metrics.jsonl"
    recs = [json.loads(x) for x in p.read_text().splitlines()]
    for r in recs:
        if kv_after is not None and r["t"] >= t_kv:
            r["text"] = re.sub(r'^(vllm:kv_cache_usage_perc\{[^}]*\}) .*$', lambda m: f"{m.group(1)} {kv_after!r}", r["text"], flags=re.M)
        if dead_after is not None and r["t"] >= dead_after:
            r.pop("text"); r.pop("status")
            r["error"] = "ClientConnectorError: Cannot connect to host qwen36-27b.local:8000 ssl:default [Connect call failed ('10.20.0.9', 8000)]"
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")


# ------------------------------------------------ 1: vllm PR #33499 comment (dev-16)
def hol():
    cid = "zzt-hol-16k-head-strict-fcfs"
    t0 = utc(2026, 8, 6, 9, 0, 0)
    rnd = random.Random(33499)
    interval, n = 10.0, 61
    root = "Qwen/Qwen3-8B"
    blocks, mml = 1400, 32768
    pool = blocks * 16
    reqs, rid = [], 0
    for k in range(-1, 6):  # one round every 120 s
        tr = t0 + k * 120 + 5
        reqs.append(Req(rid, tr, 8192, 0, 512, 512, "length")); rid += 1
        reqs.append(Req(rid, tr + 0.5, 16384, 0, 512, 512, "length")); rid += 1
        for j in range(8):
            reqs.append(Req(rid, tr + 0.6 + 0.05 * j, 1024 + rnd.randint(-40, 40), 0, 110 + rnd.randint(0, 15), 512, "stop")); rid += 1
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), num_gpu_blocks_override=str(blocks),
                     kv_cache_size_tokens=str(pool), kv_cache_max_concurrency=f"{pool / mml:.2f}")
    c = Case(cid=cid, version="0.28.0", v0=False, model_name=root, model_root=root, max_model_len=mml, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V28)
    gen.simulate(c, reqs, lambda k: 0.057 + 0.0006 * k, lambda r, k: 0.05 + r.prompt * 0.0001, gen_reserve=False, gen_frac=0.0)
    argv = ["vllm", "serve", root, "--max-model-len", "32768", "--num-gpu-blocks-override", str(blocks), "--port", "8000"]
    s = t0 - 3600
    nd = {"model_tag": root, "model": root, "max_model_len": mml, "num_gpu_blocks_override": blocks}
    logs = start_logs(s, root, "0.28.0", nd, 1, pool, mml, 22.96, 0.41, 15.27)
    logs.insert(9, (s + 104.15, f"(EngineCore pid=251) INFO {ts(s + 104)} [kv_cache_utils.py:1512] Overriding num_gpu_blocks=10449 with num_gpu_blocks_override={blocks}"))
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:257")
    logs += gen.access_lines(c, 1, "/v1/completions")
    gpu = gen.gpu_samples(c, devices("NVIDIA L40S", 46068 * MiB, 41_200 * MiB, 1, 251))
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.28.0", root, root, mml, int(s + 140)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen3_8b(), gpu=gpu, logs=logs,
              notes="Batch-analysis service: one 8K job, then a 16K job and eight 1K chat calls every two minutes. The 1K calls take ~30 s to their first token.",
              endpoint="http://l40s-01.lab:8000")
    return c


def qwen3_8b():
    return {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128,
            "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36,
            "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
            "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}


def stalled(c, reqs, t_stall):
    for r in reqs:
        if r.t_sched >= t_stall or r.t_arr >= t_stall:
            r.t_sched = r.t_first = r.t_end = INF
        elif r.t_end > t_stall:  # finishes normally (the stall hits admission, running ones drain)
            pass


# ------------------------------------------------ 2: vllm#45388 (holdout-16)
def offload():
    cid = "zzt-offload-load-promotion-deadlock"
    t0 = utc(2026, 6, 11, 14, 0, 0)
    rnd = random.Random(45388)
    interval, n = 10.0, 61
    root = "Qwen/Qwen3-8B"
    blocks, mml = 2048, 32768
    pool = blocks * 16
    t_stall = t0 + 200
    reqs, rid, t = [], 0, t0 - 120
    while t < t0 + 600:
        p = rnd.randint(6000, 13000)
        reqs.append(Req(rid, t, p, int(p * rnd.uniform(0.0, 0.7)) // 16 * 16, rnd.randint(150, 500), 1024, "stop")); rid += 1
        t += rnd.uniform(6, 14)
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), num_gpu_blocks_override=str(blocks),
                     kv_cache_size_tokens=str(pool), kv_cache_max_concurrency=f"{pool / mml:.2f}", kv_offloading_backend="native",
                     kv_offloading_size="32.0")
    c = Case(cid=cid, version="0.22.1.dev2+g175a57ed9", v0=False, model_name=root, model_root=root, max_model_len=mml, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V28)
    gen.simulate(c, reqs, lambda k: 0.011 + 0.0004 * k, lambda r, k: 0.03 + (r.prompt - r.cached) * 0.00007, gen_reserve=False, gen_frac=0.0)
    # A1 / B1 arrive just before the stall and never get a first token
    reqs.append(Req(rid, t_stall - 2, 25596, 8192, 300, 1024, "stop")); rid += 1
    reqs.append(Req(rid, t_stall - 1.9, 19196, 11776, 300, 1024, "stop")); rid += 1
    stalled(c, reqs, t_stall - 3)
    for r in reqs:  # no request is running when the stall begins
        if r.t_sched < t_stall <= r.t_end:
            r.t_end = min(r.t_end, t_stall - 4); r.gen = max(1, r.gen_by(r.t_end)) if r.t_first < r.t_end else r.gen
    c.reqs = sorted(reqs, key=lambda r: r.t_arr)
    kv_frac = 1248 / 2048
    kvtc = json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"cpu_bytes_to_use": 34359738368}})
    argv = ["vllm", "serve", root, "--max-model-len", "32768", "--num-gpu-blocks-override", "2048", "--kv-transfer-config", kvtc, "--port", "8000"]
    s = t0 - 3000
    nd = {"model_tag": root, "model": root, "max_model_len": mml, "num_gpu_blocks_override": blocks, "kv_transfer_config": json.loads(kvtc)}
    logs = start_logs(s, root, "0.22.1.dev2+g175a57ed9", nd, 1, pool, mml, 53.50, 0.41, 15.27)
    logs.insert(5, (s + 18.5, f"(EngineCore pid=251) INFO {ts(s + 18)} [factory.py:51] Creating offloading spec with name: CPUOffloadingSpec"))
    logs.insert(6, (s + 18.6, f"(EngineCore pid=251) WARNING {ts(s + 18)} [spec.py:75] Initializing OffloadingSpec. This API is experimental and subject to change in the future as we iterate the design."))
    logs.insert(10, (s + 104.15, f"(EngineCore pid=251) INFO {ts(s + 104)} [kv_cache_utils.py:1512] Overriding num_gpu_blocks=24348 with num_gpu_blocks_override=2048"))
    logs += stall_stats(c, t0 - 60, t0 + (n - 1) * interval, t_stall, kv_frac * 100)
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    gpu = gen.gpu_samples(c, devices("NVIDIA H100 80GB HBM3", 81559 * MiB, 72_100 * MiB, 1, 251))
    write_override(c, ROOT / "cases" / cid / "bundle", kv_after=kv_frac, t_kv=t_stall,
                   server=gen.server_json("0.22.1.dev2+g175a57ed9", root, root, mml, int(s + 140)),
                   engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen3_8b(), gpu=gpu, logs=logs,
                   notes="Agent backend with CPU KV offload. Since ~14:03 no response comes back; /health is 200. Captured before restarting.",
                   endpoint="http://qwen3-8b-offload.agents.svc:8000")
    return c


# ------------------------------------------------ 3: vllm#45414 (holdout-16)
def q35_cfg():
    lt = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 15
    return {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
            "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 4096, "num_hidden_layers": 60, "layer_types": lt,
                            "full_attention_interval": 4, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 256,
                            "linear_num_key_heads": 16, "linear_num_value_heads": 64, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                            "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10, "max_position_embeddings": 262144,
                            "torch_dtype": "bfloat16"},
            "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}, "torch_dtype": "bfloat16"}


def stall397():
    cid = "zzt-waiting-stall-no-connector-397b"
    t0 = utc(2026, 6, 12, 8, 30, 0)
    rnd = random.Random(45414)
    interval, n = 10.0, 61
    root = "Qwen/Qwen3.5-397B-A17B-GPTQ-Int4"
    mml, pool, bs = 262144, 1_032_448, 1056
    t_stall = t0 + 240
    reqs, rid, t = [], 0, t0 - 120
    while t < t0 + 600:
        p = rnd.randint(2000, 20000)
        reqs.append(Req(rid, t, p, int(p * rnd.uniform(0.3, 0.9)) // bs * bs, rnd.randint(200, 1200), 4096, "stop")); rid += 1
        t += rnd.uniform(8, 30)
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.9", block_size=str(bs), _block_size_resolved="True", num_gpu_blocks=str(pool // bs),
                     kv_cache_size_tokens=str(pool), kv_cache_max_concurrency=f"{pool / mml:.2f}", mamba_cache_mode="align",
                     mamba_block_size=str(bs), mamba_page_size_padded="2162688")
    c = Case(cid=cid, version="0.22.1", v0=False, model_name=root, model_root=root, max_model_len=mml, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=bs, max_num_seqs=256, tmpl=V28)
    gen.simulate(c, reqs, lambda k: 0.024 + 0.0008 * k, lambda r, k: 0.08 + (r.prompt - r.cached) * 0.00011, gen_reserve=False, gen_frac=0.0)
    stalled(c, reqs, t_stall)
    for r in reqs:
        if r.t_sched < t_stall <= r.t_end:
            r.t_end = t_stall - 1; r.gen = max(1, r.gen_by(r.t_end)); r.reason = "stop"
    argv = ["vllm", "serve", root, "--port", "8000", "--tensor-parallel-size", "4", "--served-model-name", root,
            "--disable-uvicorn-access-log", "--gpu-memory-utilization=0.90", "--max-num-batched-tokens=8192"]
    s = t0 - 7200
    nd = {"model_tag": root, "model": root, "served_model_name": [root], "tensor_parallel_size": 4, "disable_uvicorn_access_log": True,
          "gpu_memory_utilization": 0.9, "max_num_batched_tokens": 8192}
    logs = start_logs(s, root, "0.22.1", nd, 4, pool, mml, 22.61, 1.12, 52.4, quant="gptq_marlin")
    logs += stall_stats(c, t0 - 60, t0 + (n - 1) * interval, t_stall, 0.0)
    devs = devices("NVIDIA H100 80GB HBM3", 81559 * MiB, 73_180 * MiB, 4)
    gpu = gen.gpu_samples(c, devs)
    write_override(c, ROOT / "cases" / cid / "bundle", kv_after=0.0, t_kv=t_stall,
                   server=gen.server_json("0.22.1", root, root, mml, int(s + 140)),
                   engine_args={"argv": argv, "args": args_of(argv)}, model_config=None, gpu=gpu, logs=logs,
                   notes="Kubernetes deployment, no KV connector. Clients time out; liveness/readiness probes pass. Captured during a stall.",
                   endpoint="http://qwen35-397b.inference.svc:8000")
    return c


# ------------------------------------------------ 4: vllm#52872 (holdout-16)
def q36_cfg():
    lt = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 16
    return {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
            "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 64,
                            "layer_types": lt, "full_attention_interval": 4, "num_attention_heads": 24, "num_key_value_heads": 4,
                            "head_dim": 256, "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
                            "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "max_position_embeddings": 262144, "torch_dtype": "bfloat16"},
            "torch_dtype": "bfloat16"}


def gdn_oom():
    cid = "zzt-gdn-profile-under-predicts-prefill-oom"
    t0 = utc(2026, 8, 18, 20, 10, 0)
    interval, n = 5.0, 61
    root = "Qwen/Qwen3.6-27B-AWQ"
    mml, pool, bs = 238400, 238400, 800
    t_oom = t0 + 128
    reqs = [Req(0, t0 + 12, 2048, 0, 4950, 8192, "stop"), Req(1, t_oom - 1.2, 6144, 0, 500, 8192, "stop")]
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.93", block_size=str(bs), num_gpu_blocks=str(pool // bs), cache_dtype="fp8",
                     kv_cache_size_tokens=str(pool), kv_cache_max_concurrency="1.00", mamba_cache_mode="align", mamba_block_size=str(bs))
    c = Case(cid=cid, version="0.28.0", v0=False, model_name=root, model_root=root, max_model_len=mml, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=bs, max_num_seqs=256, tmpl=V28)
    gen.simulate(c, reqs, lambda k: 0.0232, lambda r, k: 0.35, gen_reserve=False, gen_frac=0.0)
    r1 = reqs[1]
    r1.t_first = r1.t_end = INF  # dies in its first prefill chunk
    r0 = reqs[0]
    argv = ["vllm", "serve", root, "--gpu-memory-utilization", "0.93", "--max-num-batched-tokens", "8192", "--kv-cache-dtype", "fp8", "--max-model-len", "238400", "--port", "8000"]
    s = t0 - 1800
    nd = {"model_tag": root, "model": root, "gpu_memory_utilization": 0.93, "max_num_batched_tokens": 8192, "kv_cache_dtype": "fp8", "max_model_len": mml}
    logs = start_logs(s, root, "0.28.0", nd, 1, pool, mml, 8.89, 0.89, 16.93, quant="awq_marlin", kvd="fp8")
    logs.insert(7, (s + 103, f"(EngineCore pid=251) INFO {ts(s + 103)} [gpu_worker.py:541] Memory profiling takes 14.21 seconds. Total non-KV cache memory: 20.17 GiB; torch peak memory increase: 2.84 GiB; non-torch forward increase memory: 0.17 GiB; weights memory: 16.93 GiB."))
    logs += [x for x in gen.stats_lines(c, t0 - 20, t_oom, 1, "loggers.py:257")]
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    tb = [
        "(EngineCore pid=251) ERROR {T} [core.py:1177] EngineCore encountered a fatal error.",
        "(EngineCore pid=251) ERROR {T} [core.py:1177] Traceback (most recent call last):",
        '(EngineCore pid=251) ERROR {T} [core.py:1177]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 1168, in run_engine_core',
        "(EngineCore pid=251) ERROR {T} [core.py:1177]     engine_core.run_busy_loop()",
        '(EngineCore pid=251) ERROR {T} [core.py:1177]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fla/ops/chunk.py", line 214, in chunk_gated_delta_rule_fwd',
        "(EngineCore pid=251) ERROR {T} [core.py:1177] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.31 GiB. GPU 0 has a total capacity of 31.36 GiB of which 702.31 MiB is free. Including non-PyTorch memory, this process has 30.62 GiB memory in use. Of the allocated memory 29.48 GiB is allocated by PyTorch, and 402.19 MiB is reserved by PyTorch but unallocated.",
        "(APIServer pid=1) ERROR {T} [async_llm.py:693] AsyncLLM output_handler failed.",
        "(APIServer pid=1) ERROR {T} [async_llm.py:693] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        '(APIServer pid=1) INFO:     10.20.0.12:41001 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
        "(APIServer pid=1) INFO:     Shutting down",
    ]
    logs += [(t_oom + 0.01 * i, x.replace("{T}", ts(t_oom))) for i, x in enumerate(tb)]
    gpu = []
    for k in range(n):
        tk = t0 + k * interval
        used = (29_860 * MiB) if tk < t_oom else 0
        procs = [{"pid": 251, "name": "VLLM::EngineCore", "used_memory": used}] if used else []
        gpu.append({"t": round(tk, 3), "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "memory_total": 32607 * MiB,
                                                    "memory_used": used + 420 * MiB, "processes": procs}]})
    write_override(c, ROOT / "cases" / cid / "bundle", dead_after=t_oom + 2,
                   server=gen.server_json("0.28.0", root, root, mml, int(s + 140)),
                   engine_args={"argv": argv, "args": args_of(argv)}, model_config=q36_cfg(), gpu=gpu, logs=logs,
                   notes="Single-user workstation, RTX 5090. Sent a 2k prompt (fine) and then a 6k prompt; the server died.",
                   endpoint="http://127.0.0.1:8000")
    # server.json: health no longer answers after the crash
    sj = json.loads((ROOT / "cases" / cid / "bundle" / "server.json").read_text()); sj["health"] = None
    (ROOT / "cases" / cid / "bundle" / "server.json").write_text(json.dumps(sj, indent=1) + "\n")
    return c


if __name__ == "__main__":
    for f in (hol, offload, stall397, gdn_oom):
        f()
        print("built", f.__name__)
