"""Writer zzv's cases (round 16): builds cases/zzv-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzv/cases.py
gen.py is zzq's builder copied unchanged. Seeded, no wall clock. Numbers not quoted are under `assumed:`.
Templates (families/HELP/buckets): 0.11.0 b-eviction-churn-contract-qa, 0.21.0 o-qwen36-35b-mtp-kv-full-admission,
0.6.3 zzj-v063-swap-preempt-engine-halts.
"""
from __future__ import annotations

import datetime as dt
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
T11, T21, T063 = "b-eviction-churn-contract-qa", "o-qwen36-35b-mtp-kv-full-admission", "zzj-v063-swap-preempt-engine-halts"
_orig_scrape = gen.scrape


def utc(*a):
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv):
    a, i = {}, 2
    while i < len(argv):
        k = argv[i][2:]
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


class StallReq(Req):
    """A request whose engine stops stepping at t_stall: tokens freeze, it stays running."""
    t_stall: float = 1e18

    def gen_by(self, t):
        return Req.gen_by(self, min(t, self.t_stall))

    def steps_by(self, t):
        return Req.steps_by(self, min(t, self.t_stall))


def apply_stall(reqs, t_stall):
    for r in reqs:
        r.t_stall = t_stall
        if r.t_end > t_stall:
            r.t_end = 1e18
        if r.t_sched > t_stall:
            r.t_sched = r.t_first = 1e18
        elif r.t_first > t_stall:
            r.t_first = 1e18


def qwen3_32b():
    return {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
            "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "intermediate_size": 25600, "max_position_embeddings": 40960,
            "max_window_layers": 64, "model_type": "qwen3", "num_attention_heads": 64, "num_hidden_layers": 64, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}


def qwen25_72b_awq():
    return {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
            "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 29568,
            "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 64,
            "num_hidden_layers": 80, "num_key_value_heads": 8, "quantization_config": {"bits": 4, "group_size": 128,
            "modules_to_not_convert": None, "quant_method": "awq", "version": "gemm", "zero_point": True},
            "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
            "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}


# ------------------------------------------------ 1: vllm#26896 (dev-16)
def nixl_reprefill():
    cid = "zzv-nixl-demo-proxy-reprefill"
    t0 = utc(2025, 10, 16, 7, 30, 0)
    rnd = random.Random(26896)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 60, 0
    while t < t0 + 610:
        t += rnd.expovariate(1.5)
        reqs.append(Req(rid, t, rnd.randint(1500, 2500), 0, rnd.randint(100, 200), 200, "stop")); rid += 1
    root = "/home/Qwen3-32B/"
    blocks = 53120
    cc = gen.tmpl_cc(T11, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="16", enable_prefix_caching="True")
    c = Case(cid=cid, version="0.11.0", v0=False, model_name=root, model_root=root, max_model_len=8192, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=blocks * 16, block_size=16, max_num_seqs=256, tmpl=T11)
    gen.simulate(c, reqs, lambda k: 0.021 + 0.0002 * k, lambda r, k: 0.15 + r.prompt * 0.0001 + rnd.uniform(0.0, 0.5), gen_reserve=False)
    argv = ["vllm", "serve", root, "--port", "8200", "--max-model-len", "8192", "--gpu-memory-utilization", "0.9", "--trust-remote-code",
            "--tensor-parallel-size", "4", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}']
    s = t0 - 3600
    api, core = 3121, 3388
    nd = {"model_tag": root, "port": 8200, "model": root, "trust_remote_code": True, "max_model_len": 8192, "tensor_parallel_size": 4,
          "gpu_memory_utilization": 0.9, "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_consumer"}}
    logs = [(s, f"(APIServer pid={api}) INFO {ts(s)} [api_server.py:1839] vLLM API server version 0.11.0"),
            (s + .1, f"(APIServer pid={api}) INFO {ts(s)} [utils.py:233] non-default args: {nd}"),
            (s + 9, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 9)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{root}', "
                    f"speculative_config=None, tokenizer='{root}', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=4, pipeline_parallel_size=1, "
                    f"data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True")]
    for w in range(4):
        logs += [(s + 20 + w * .01, f"(Worker_TP{w} pid={3500 + w}) INFO {ts(s + 20)} [factory.py:51] Creating v1 connector with name: NixlConnector and engine_id: 5f1c2a9e-0d4b-4e8a-9c1f-7b2d3e4a5c6d"),
                 (s + 20.5 + w * .01, f"(Worker_TP{w} pid={3500 + w}) INFO {ts(s + 20)} [nixl_connector.py:799] Initializing NIXL wrapper"),
                 (s + 80 + w * .01, f"(Worker_TP{w} pid={3500 + w}) INFO {ts(s + 80)} [nixl_connector.py:1154] Registering KV_Caches. use_mla: False, kv_buffer_device: cuda, use_host_buffer: False")]
    logs += [(s + 75, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 75)} [kv_cache_utils.py:1087] GPU KV cache size: {blocks * 16:,} tokens"),
             (s + 75.1, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 75)} [kv_cache_utils.py:1091] Maximum concurrency for 8,192 tokens per request: {blocks * 16 / 8192:.2f}x"),
             (s + 120, f"(APIServer pid={api}) INFO {ts(s + 120)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8200")]
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, api, "loggers.py:123")
    logs += gen.access_lines(c, api, "/v1/completions")
    devs = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": 72_100 * MiB + 540 * MiB,
             "processes": [{"pid": 3500 + i - 4, "name": "VLLM::Worker_TP%d" % (i - 4), "used_memory": 72_100 * MiB}]} for i in range(4, 8)]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.11.0", root, root, 8192, int(s + 120)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen3_32b(), gpu=gen.gpu_samples(c, devs), logs=logs,
              notes="Decode instance (kv_consumer, port 8200) of a 1P1D NixlConnector setup behind examples/online_serving/disaggregated_serving/disagg_proxy_demo.py; load test through the proxy. Complaint: TTFT through P/D is no better than a single instance.",
              endpoint="http://localhost:8200")


# ------------------------------------------------ 2: vllm-ascend#9673 (holdout-16)
def dp_skew():
    cid = "zzv-ascend-dsv4-dp-skew-hang"
    t0 = utc(2026, 5, 28, 13, 50, 0)
    interval, n = 10.0, 61
    t_stall = t0 + 440
    root = "/models/DeepSeek-V4-Flash"
    served = "deepseek-v4-flash"
    blocks = 2816  # block_size 256 -> 720,896 tokens per engine (assumed)
    cc = gen.tmpl_cc(T21, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="256", enable_prefix_caching="True")
    texts_by_engine, cases = [], []
    api = 731205
    logs = []
    for e in range(4):
        rnd = random.Random(9673 + e)
        heavy = e == 3
        reqs, t, rid = [], t0 - 1500, e * 100000
        # the skew starts ~6 minutes before the window: engine 003 then gets 0.34 req/s of longer generations
        while t < t0 + 610:
            skewed = heavy and t > t0 - 900
            t += rnd.expovariate(0.3 if skewed else 0.17)
            cls = StallReq if heavy else Req
            g = rnd.randint(5000, 11000) if skewed else rnd.randint(2500, 6000)
            reqs.append(cls(rid, t, rnd.randint(900, 1600), 0, g, 16384, "stop")); rid += 1
        c = Case(cid=cid, version="0.21.0", v0=False, model_name=served, model_root=root, max_model_len=131072, start=t0, n_scrapes=n,
                 interval=interval, labels_cc=cc, pool_tokens=blocks * 256, block_size=256, max_num_seqs=256, tmpl=T21, engine=str(e),
                 spec_k=1, spec_pos_rates=[0.81 if not heavy else 0.86])
        step = (lambda k: 0.16) if not heavy else (lambda k: 0.16)
        gen.simulate(c, reqs, step, lambda r, k, rnd=rnd: 0.4 + rnd.uniform(0, 0.3), gen_reserve=False, gen_frac=0.5 if not heavy else 0.3)
        for r in reqs:
            r.tps = 1.81 if not heavy else 1.86
        # recompute ends with tokens-per-step
        for r in reqs:
            if r.t_end < 1e17:
                r.t_end = r.t_first + r.steps() * r.step_s
        if heavy:
            apply_stall(reqs, t_stall)
        cases.append(c)
        logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, api, "loggers.py:271", "metrics.py:101", eng=f"{e:03d}")
    # the log prints the four engines per interval; merged scrapes below
    import json
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    recs = []
    for k in range(n):
        t = t0 + k * interval
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": gen.merge_scrapes([gen.scrape(c, t, t0 - 3600) for c in cases])}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    c = cases[0]
    argv = ["vllm", "serve", root, "--served-model-name", served, "--data-parallel-size", "4", "--tensor-parallel-size", "4",
            "--enable-expert-parallel", "--max-model-len", "131072", "--gpu-memory-utilization", "0.9", "--block-size", "256",
            "--speculative-config", '{"method":"deepseek_mtp","num_speculative_tokens":1}', "--quantization", "ascend"]
    s = t0 - 7200
    logs.insert(0, (s, f"(APIServer pid={api}) INFO {ts(s)} [api_utils.py:339] version 0.21.0"))
    logs += [(r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     10.119.3.149:{39000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for cc_ in cases for r in cc_.reqs if t0 - 60 <= r.t_arr <= t0 + 600]
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://10.119.3.20:8000", "started_at": t0,
           "ended_at": t0 + (n - 1) * interval, "interval_s": interval,
           "notes": "vllm-ascend, DeepSeek V4 Flash, DP=4 behind one API server, mmlu_pro evaluation running for 20+ minutes. Complaint: DP scheduling becomes very uneven, one DP's KV keeps growing, concurrency does not drop, then the service hangs. No NVML on Ascend."}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(gen.server_json("0.21.0", served, root, 131072, int(s + 300)), indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps({"argv": argv, "args": args_of(argv)}, indent=1) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


# ------------------------------------------------ 3: vllm#13508 (holdout-16), V0 0.6.3
def v063_pending():
    cid = "zzv-v063-72b-awq-pending-low-kv"
    t0 = utc(2025, 2, 19, 3, 10, 0)
    rnd = random.Random(13508)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 240, 0
    while t < t0 + 610:
        t += rnd.expovariate(0.45)
        reqs.append(Req(rid, t, rnd.randint(4500, 7500), 0, rnd.randint(3, 9), 512, "stop")); rid += 1
    # serial chunked prefill at ~2,050 prompt tokens/s (one 4,096-token chunk per ~2 s step); decode tokens ride on those steps
    free = t0 - 240
    for r in reqs:
        r.t_sched = max(free, r.t_arr)
        pf = r.prompt / 2050.0
        free = r.t_sched + pf
        r.step_s = 2.0
        r.t_first = r.t_sched + pf
        r.t_end = r.t_first + r.steps() * r.step_s
    blocks = 5952  # ~93k tokens: 7.27 GiB per GPU / 80 KiB per token per GPU
    root = "/models/Qwen2.5-72B-Instruct-AWQ"
    served = "Qwen1.5-72B-Chat-AWQ"
    cc = gen.tmpl_cc(T063, gpu_memory_utilization="0.8", num_gpu_blocks=str(blocks), block_size="16", enable_prefix_caching="True")
    c = Case(cid=cid, version="0.6.3", v0=True, model_name=served, model_root=root, max_model_len=32768, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=blocks * 16, block_size=16, max_num_seqs=64, tmpl=T063)
    c.reqs = reqs
    L = [(t0 - 3000, f"INFO {ts(t0 - 3000)} api_server.py:528] vLLM API server version 0.6.3"),
         (t0 - 2990, f"INFO {ts(t0 - 2990)} llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                     f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
                     f"trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, "
                     f"pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, "
                     f"served_model_name={served}, num_scheduler_steps=1, chunked_prefill_enabled=True multi_step_stream_outputs=True, enable_prefix_caching=True, use_async_output_proc=True"),
         (t0 - 2900, f"INFO {ts(t0 - 2900)} distributed_gpu_executor.py:57] # GPU blocks: {blocks}, # CPU blocks: 3276")]
    tt = t0 - 60
    while tt <= t0 + 600:
        a, b = tt - 5, tt
        pt = sum(min(r.prompt, max(0.0, (min(b, r.t_first) - r.t_sched)) * 2050) - min(r.prompt, max(0.0, (min(a, r.t_first) - r.t_sched)) * 2050) for r in reqs if r.t_sched < b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        blk = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        L.append((b, f"INFO {ts(b)} metrics.py:349] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                     f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blk / blocks:.1f}%, CPU KV cache usage: 0.0%."))
        tt += 5
    L += [(r.t_arr + 0.002, f'INFO:     10.42.1.{17 + r.rid % 5}:{40000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in reqs if r.t_arr >= t0 - 60]
    argv = ["vllm", "serve", root, "--port", "9066", "--gpu-memory-utilization", "0.8", "--served-model-name", served, "--max-model-len", "32768",
            "--max-num-seqs", "64", "--enable-prefix-caching", "--dtype", "bfloat16", "--tensor-parallel-size", "4", "--enable-chunked-prefill",
            "--max-num-batched-tokens", "4096", "--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
    argv[0:2] = ["python3", "-m"]; argv[2] = "vllm.entrypoints.openai.api_server"
    argv = argv[:3] + ["--model", root] + argv[3:]
    devs = [{"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": 24564 * MiB, "memory_used": 19_950 * MiB,
             "processes": [{"pid": 71 + i, "name": "python3", "used_memory": 19_640 * MiB}]} for i in range(4)]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.6.3", served, root, 32768, int(t0 - 2800)),
              engine_args={"argv": argv, "args": args_of(argv[2:])}, model_config=qwen25_72b_awq(), gpu=gen.gpu_samples(c, devs), logs=L,
              notes="Kubernetes deployment, vllm/vllm-openai:v0.6.3 on 4x RTX 4090. Complaint: low GPU KV cache usage, low running requests and high pending requests; asking which settings to change.",
              endpoint="http://qwen-72b-awq.llm.svc:9066")


# ------------------------------------------------ 4: vllm-ascend#12179 (holdout-16)
def p_node_running0():
    cid = "zzv-ascend-1p1d-prefill-running0"
    t0 = utc(2026, 7, 16, 8, 0, 0)
    rnd = random.Random(12179)
    interval, n = 10.0, 61
    t_stall = t0 + 180
    reqs, t, rid = [], t0 - 120, 0
    while t < t0 + 610:
        t += rnd.expovariate(0.2)
        if t > t0 + 180 and sum(1 for r in reqs if r.t_arr > t0 + 180) >= 30:
            break
        reqs.append(StallReq(rid, t, rnd.randint(46000, 54000), 0, 1, 1, "length")); rid += 1
    root = "/ai_models/DeepSeek-V4-Flash-w8a8-mtp"
    served = "deepseekv4-flash"
    blocks = 1568  # block 256 -> 401,408 tokens (assumed)
    cc = gen.tmpl_cc(T21, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="256", enable_prefix_caching="True")
    c = Case(cid=cid, version="0.21.0", v0=False, model_name=served, model_root=root, max_model_len=131072, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=blocks * 256, block_size=256, max_num_seqs=16, tmpl=T21)
    gen.simulate(c, reqs, lambda k: 0.05, lambda r, k: r.prompt / 12000.0, gen_reserve=False)
    apply_stall(reqs, t_stall)
    for r in reqs:  # prefill finished but not yet stepping past t_stall stays running, holding blocks
        pass
    held = [r for r in reqs if r.t_first < t_stall]
    held_blocks = 4 * math.ceil(50000 / 256)

    def usage_at(t):
        if t < t_stall:
            run = [r for r in reqs if r.t_sched <= t < r.t_end]
            bl = sum(math.ceil(r.prompt / 256) for r in run) + min(held_blocks, sum(math.ceil(r.prompt / 256) for r in held if r.t_end <= t and t - r.t_end < 60))
        else:
            bl = held_blocks
        return min(1.0, bl / blocks)

    def scrape(cc_, t, created):
        txt = _orig_scrape(cc_, t, created)
        u = usage_at(t)
        txt = re.sub(r'^(vllm:kv_cache_usage_perc\{[^}]*\}) \S+$', lambda m: f"{m.group(1)} {float(u)!r}", txt, flags=re.M)
        if t >= t_stall:
            txt = re.sub(r'^(vllm:num_requests_running\{[^}]*\}) \S+$', lambda m: f"{m.group(1)} 0.0", txt, flags=re.M)
        return txt
    # after the stall no request is running: requests scheduled before it finished their 1 token; later arrivals wait
    for r in reqs:
        if r.t_sched < 1e17 and r.t_end >= 1e17:
            r.t_end = min(r.t_first + 0.05, t_stall) if r.t_first < 1e17 else t_stall
            if r.t_first >= 1e17:
                r.t_sched = r.t_first = 1e18
    gen.scrape = scrape
    logs = [(t0 - 3600, f"(APIServer pid=4411) INFO {ts(t0 - 3600)} [api_utils.py:339] version 0.21.0rc1")]
    tt = t0 - 50
    while tt <= t0 + 600:
        a, b = tt - 10, tt
        pt = sum(r.prompt for r in reqs if a < r.t_first <= b)
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end) if b < t_stall else 0
        wait = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        logs.append((b, f"(APIServer pid=4411) INFO {ts(b)} [loggers.py:271] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, Avg generation throughput: "
                        f"{sum(1 for r in reqs if a < r.t_first <= b) / 10:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {100 * usage_at(b):.1f}%, Prefix cache hit rate: 0.0%"))
        tt += 10
    logs += [(r.t_arr + 0.002, f'(APIServer pid=4411) INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs if r.t_first < 1e17 and r.t_arr >= t0 - 60]
    argv = ["vllm", "serve", root, "--host", "0.0.0.0", "--port", "8100", "--data-parallel-size", "1", "--tensor-parallel-size", "16",
            "--enable-expert-parallel", "--seed", "1024", "--served-model-name", served, "--max-model-len", "131072",
            "--max-num-batched-tokens", "8192", "--max-num-seqs", "16", "--no-disable-hybrid-kv-cache-manager"]
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.21.0rc1", served, root, 131072, int(t0 - 3300)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=None, gpu=[], logs=logs,
              notes="Prefill (P) node of a single-machine 1P1D deployment on Ascend A3, ~50k-token prompts at high concurrency. Complaint: running 0, many waiting, KV cache usage 50%. No NVML on Ascend.",
              endpoint="http://127.0.0.1:8100")
    gen.scrape = _orig_scrape


if __name__ == "__main__":
    nixl_reprefill()
    dp_skew()
    v063_pending()
    p_node_running0()
