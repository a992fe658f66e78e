"""Build the zzf-* bundles (round 13): python3 cases/_tools/zzf/cases.py [case-id ...] (from the worktree root).

Every bundle comes from gen.simulate (FIFO admission into max_num_seqs slots and a KV pool); counters, histograms,
gauges and log lines are computed from the one simulated request list. Family names / HELP / buckets / cache_config
labels are those of an existing bundle of the same (or nearest) vLLM release, named per case (tmpl).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402

ROOT = gen.ROOT
CASES = ROOT / "cases"
GiB = 1024 ** 3


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def ts(t: float) -> str:
    return gen.ts(t)


def rid(rnd: random.Random, prefix: str) -> str:
    return prefix + uuid.UUID(int=rnd.getrandbits(128)).hex


def v0_stats(c: gen.Case, t0: float, t1: float, every: float, prefix_line: bool) -> list[tuple[float, str]]:
    """V0 (0.6.x) metrics.py log lines every `every` seconds while the engine has work."""
    L = []
    t = t0 + every
    while t <= t1:
        a, b = t - every, t
        pt = sum(r.prompt for r in c.reqs if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
        wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched and not (r.ab and r.ab <= b))
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
        use = min(1.0, blocks * c.block_size / c.pool_tokens) * 100
        if run or wait or pt or gt:
            L.append((b, f"INFO {ts(b)} metrics.py:449] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                         f"Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {use:.1f}%, CPU KV cache usage: 0.0%."))
            if prefix_line:
                L.append((b + 0.001, f"INFO {ts(b)} metrics.py:465] Prefix cache hit rate: GPU: 0.00%, CPU: 0.00%"))
        t += every
    return L


def v0_avg_vals(every: float):
    def f(c, t):
        a = t - every
        pt = sum(r.prompt for r in c.reqs if a < r.t_first <= t)
        gt = sum(r.gen_by(t) - r.gen_by(a) for r in c.reqs)
        return {"vllm:avg_prompt_throughput_toks_per_s": pt / every, "vllm:avg_generation_throughput_toks_per_s": gt / every}
    return f


def check(out: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families
    for ln in (out / "metrics.jsonl").read_text().splitlines():
        rec = json.loads(ln)
        if "text" in rec:
            list(text_string_to_metric_families(rec["text"]))


# --------------------------------------------------------------------------------------------
def gpustack():
    """gpustack#1842: vLLM behind the GPUStack proxy (aiohttp connector limit 100), 256-concurrency benchmark."""
    cid = "zzf-gpustack-proxy-conn-limit"
    tmpl = "zu-eager-a6000-igx-decode-4x"  # vLLM 0.8.5 (V1) families
    rnd = random.Random(1842)
    t0 = utc(2025, 4, 21, 6, 30, 0)
    pool_tokens = 1_451_776  # 90736 blocks x 16
    c = gen.Case(cid=cid, version="0.8.5", v0=False, model_name="qwen2.5-0.5b-instruct", model_root="Qwen/Qwen2.5-0.5B-Instruct",
                 max_model_len=32768, start=t0, n_scrapes=61, interval=5.0, labels_cc={}, pool_tokens=pool_tokens,
                 block_size=16, max_num_seqs=256, tmpl=tmpl)
    reqs, k = [], 0
    for run_start in (t0 + 25, t0 + 95, t0 + 165, t0 + 235):  # the proxied benchmark, 768 requests, 4 runs
        ta = run_start
        for j in range(768):
            ta += rnd.expovariate(17.4)
            p = rnd.randint(44, 70)
            gen_len = 128 if rnd.random() < 0.93 else rnd.randint(60, 127)
            reqs.append(gen.Req(rid=k, t_arr=ta, prompt=p, cached=0, gen=gen_len, max_tokens=128,
                                reason="length" if gen_len == 128 else "stop"))
            k += 1
    gen.simulate(c, reqs, step_fn=lambda n: 0.0095 + 0.00011 * n, prefill_fn=lambda r, n: 0.018 + 0.0002 * r.prompt,
                 gen_reserve=False)
    c.labels_cc = gen.tmpl_cc(tmpl, num_gpu_blocks=pool_tokens // 16, gpu_memory_utilization="0.9", enable_prefix_caching="True")
    end = t0 + 300
    logs = []
    boot = t0 - 900
    pre = [
        f"INFO {ts(boot)} [api_server.py:1043] vLLM API server version 0.8.5",
        f"INFO {ts(boot)} [api_server.py:1044] args: Namespace(subparser='serve', model_tag='/var/lib/gpustack/cache/huggingface/Qwen/Qwen2.5-0.5B-Instruct', config='', host='0.0.0.0', port=40011, served_model_name=['qwen2.5-0.5b-instruct'], max_model_len=None, max_num_seqs=None, gpu_memory_utilization=0.9, disable_log_requests=True)",
        f"INFO {ts(boot + 9)} [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: model='/var/lib/gpustack/cache/huggingface/Qwen/Qwen2.5-0.5B-Instruct', speculative_config=None, dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, served_model_name=qwen2.5-0.5b-instruct, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"INFO {ts(boot + 14)} [gpu_model_runner.py:1347] Model loading took 0.9275 GiB and 1.94 seconds",
        f"INFO {ts(boot + 22)} [kv_cache_utils.py:634] GPU KV cache size: 1,451,776 tokens",
        f"INFO {ts(boot + 22)} [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: 44.30x",
        f"INFO {ts(boot + 35)} [gpu_model_runner.py:1686] Graph capturing finished in 13 secs, took 0.46 GiB",
        f"INFO {ts(boot + 36)} [core.py:159] init engine (profile, create kv cache, warmup model) took 21.72 seconds",
        f"INFO {ts(boot + 37)} [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:40011",
        "INFO:     Started server process [1]", "INFO:     Waiting for application startup.", "INFO:     Application startup complete.",
    ]
    logs += [(boot + i * 0.01, l) for i, l in enumerate(pre)]
    logs += gen.stats_lines(c, t0 - 10, end, api_pid=1, logger_ref="loggers.py:111", prefix=False, mm_line=False)
    logs += [(r.t_arr + 0.003, f'INFO:     127.0.0.1:{42000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in c.reqs if r.t_arr <= end]
    logs += [(t, f'INFO:     10.0.3.17:{51000 + i} - "GET /metrics HTTP/1.1" 200 OK') for i, t in enumerate(t0 + 5 * k2 for k2 in range(61))]
    out = CASES / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.8.5", "qwen2.5-0.5b-instruct", "/var/lib/gpustack/cache/huggingface/Qwen/Qwen2.5-0.5B-Instruct", 32768, int(boot)),
              engine_args={"argv": None, "args": {"served-model-name": "qwen2.5-0.5b-instruct", "port": 40011, "disable-log-requests": True}},
              model_config=None, gpu=[], logs=logs,
              notes="vLLM backend of a GPUStack worker, scraped directly on its port while the GPUStack-proxied benchmark (concurrency 256, 768 requests, max_completion_tokens=128) ran four times; client saw TTFT avg 9.4 s through the proxy",
              endpoint="http://gpustack-worker-1:40011")
    check(out)


# --------------------------------------------------------------------------------------------
def dsv4_spark():
    """MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark#7: MAX_NUM_SEQS=1, reasoning requests serialize."""
    cid = "zzf-dsv4-spark-max-num-seqs-1"
    tmpl = "a-max-num-seqs-100-piecewise-cliff"  # vLLM 0.28.0 families
    rnd = random.Random(7)
    t0 = utc(2026, 8, 22, 14, 0, 0)
    pool_tokens = 430_080  # 6720 blocks x 64
    c = gen.Case(cid=cid, version="0.28.0", v0=False, model_name="deepseek-v4-flash", model_root="/models/DeepSeek-V4-Flash",
                 max_model_len=1_048_576, start=t0, n_scrapes=73, interval=10.0, labels_cc={}, pool_tokens=pool_tokens,
                 block_size=64, max_num_seqs=1, spec_k=5, spec_pos_rates=[0.62, 0.33, 0.19, 0.11, 0.05], tmpl=tmpl)
    # arrivals (s after t0, prompt, cached, output): a handful of users; R1/R2 pair 0.3 s apart at 200 s
    plan = [(4, 3100, 2048, 210), (70, 7800, 6144, 700), (150, 2400, 1536, 160), (200, 5200, 3840, 470),
            (200.3, 4300, 2560, 380), (300, 9600, 8192, 600), (310, 1800, 0, 240), (440, 11800, 10240, 900),
            (452, 2900, 2048, 300), (560, 4700, 3584, 500), (566, 2100, 1536, 150), (650, 2600, 0, 260)]
    reqs = [gen.Req(rid=i, t_arr=t0 + a, prompt=p, cached=cc, gen=g, max_tokens=32768, reason="stop", tps=2.3)
            for i, (a, p, cc, g) in enumerate(plan)]
    gen.simulate(c, reqs, step_fn=lambda n: 0.238, prefill_fn=lambda r, n: 0.35 + (r.prompt - r.cached) / 3200.0, gen_reserve=False)
    c.labels_cc = gen.tmpl_cc(tmpl, num_gpu_blocks=6720, block_size=64, gpu_memory_utilization="0.94", enable_prefix_caching="True",
                              kv_cache_size_tokens=pool_tokens, kv_cache_max_concurrency="0.41")
    end = t0 + 720
    boot = t0 - 3 * 86400
    pre = [
        f"(APIServer pid=1) INFO {ts(boot)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.28.0",
        f"(APIServer pid=1) INFO {ts(boot)} [utils.py:233] non-default args: {{'model_tag': '/models/DeepSeek-V4-Flash', 'port': 8888, 'model': '/models/DeepSeek-V4-Flash', 'trust_remote_code': True, 'max_model_len': 1048576, 'served_model_name': ['deepseek-v4-flash'], 'reasoning_parser': 'deepseek_v4', 'gpu_memory_utilization': 0.94, 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 1, 'speculative_config': {{'method': 'dspark', 'num_speculative_tokens': 5}}, 'compilation_config': {{'cudagraph_capture_sizes': [6, 12, 24], 'max_cudagraph_capture_size': 24}}}}",
        f"(EngineCore pid=212) INFO {ts(boot + 190)} [kv_cache_utils.py:1319] GPU KV cache size: 430,080 tokens",
        f"(EngineCore pid=212) INFO {ts(boot + 190)} [kv_cache_utils.py:1324] Maximum concurrency for 1,048,576 tokens per request: 0.41x",
        f"(APIServer pid=1) INFO {ts(boot + 260)} [api_server.py:1542] Starting vLLM API server 0 on http://0.0.0.0:8888",
    ]
    logs = [(boot + i * 0.01, l) for i, l in enumerate(pre)]
    logs += gen.stats_lines(c, t0 - 10, end, api_pid=1, logger_ref="loggers.py:257", spec_ref="metrics.py:100", prefix=True)
    logs += [(r.t_arr + 0.002, f'(APIServer pid=1) INFO:     172.18.0.{5 + r.rid % 3}:{39000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in c.reqs]
    out = CASES / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.28.0", "deepseek-v4-flash", "/models/DeepSeek-V4-Flash", 1_048_576, int(boot)),
              engine_args={"argv": None, "args": {"max-num-seqs": 1, "gpu-memory-utilization": 0.94, "max-model-len": 1048576,
                                                  "max-num-batched-tokens": 8192, "enable-prefix-caching": True,
                                                  "speculative-config": "{\"method\": \"dspark\", \"num_speculative_tokens\": 5}"}},
              model_config=None, gpu=[], logs=logs,
              notes="stock start.sh (MAX_NUM_SEQS=1) on one DGX Spark; 12 minutes of normal multi-user use; users report second requests waiting for minutes",
              endpoint="http://spark-01:8888")
    # GB10 has unified memory: NVML reports no framebuffer total; leave gpu.jsonl out (not checked)
    check(out)


# --------------------------------------------------------------------------------------------
def kubeai_gh200():
    """kubeai#341: Llama-3.3-70B bf16 with --cpu-offload-gb=60 on one GH200, benchmark_serving at request rate inf."""
    cid = "zzf-kubeai-gh200-cpu-offload-bench"
    tmpl = "zo-v064-70b-fp8-8k-tpot-regress"  # vLLM 0.6.4.post1 (V0) families
    rnd = random.Random(341)
    tb = utc(2024, 12, 7, 21, 10, 0)  # benchmark start
    pool_tokens = 49_152  # 3072 blocks x 16
    c = gen.Case(cid=cid, version="0.6.4.post1", v0=True, model_name="llama-3.3-70b-instruct-bf16-gh200",
                 model_root="meta-llama/Llama-3.3-70B-Instruct", max_model_len=32768, start=tb + 180, n_scrapes=61,
                 interval=10.0, labels_cc={}, pool_tokens=pool_tokens, block_size=16, max_num_seqs=256, tmpl=tmpl)
    reqs = []
    ta = tb
    for i in range(1000):
        ta += rnd.uniform(0.0, 0.0016)
        p = max(8, min(1800, int(rnd.lognormvariate(4.85, 0.95))))
        g = max(4, min(1500, int(rnd.lognormvariate(4.75, 0.95))))
        reqs.append(gen.Req(rid=i, t_arr=ta, prompt=p, cached=0, gen=g, max_tokens=g, reason="length"))
    gen.simulate(c, reqs, step_fn=lambda n: 0.25 + 0.0006 * n, prefill_fn=lambda r, n: 0.28 + r.prompt * 0.00012,
                 gen_reserve=False, gen_frac=0.7)  # V0 admits on the prompt; ~70 % of the outputs' growth is held back
    c.extra_vals = v0_avg_vals(5.0)
    c.labels_cc = gen.tmpl_cc(tmpl, num_gpu_blocks=3072, num_cpu_blocks=1638, gpu_memory_utilization="0.98",
                              cache_dtype="fp8", cpu_offload_gb="60", enable_prefix_caching="True")
    end = c.start + 600
    boot = tb - 1500
    pre = [
        f"INFO {ts(boot)} api_server.py:585] vLLM API server version 0.6.4.post1",
        f"INFO {ts(boot)} api_server.py:586] args: Namespace(subparser='serve', model_tag='meta-llama/Llama-3.3-70B-Instruct', config='', host=None, port=8000, served_model_name=['llama-3.3-70b-instruct-bf16-gh200'], kv_cache_dtype='fp8', max_model_len=32768, max_num_batched_tokens=32768, gpu_memory_utilization=0.98, cpu_offload_gb=60.0, enable_prefix_caching=True, max_num_seqs=256, disable_log_requests=True, block_size=16, swap_space=4)",
        f"INFO {ts(boot + 6)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='meta-llama/Llama-3.3-70B-Instruct', speculative_config=None, tokenizer='meta-llama/Llama-3.3-70B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=fp8, served_model_name=llama-3.3-70b-instruct-bf16-gh200, num_scheduler_steps=1, chunked_prefill_enabled=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None, pooler_config=None",
        f"INFO {ts(boot + 7)} selector.py:135] Using Flashinfer backend.",
        f"INFO {ts(boot + 8)} model_runner.py:1072] Starting to load model meta-llama/Llama-3.3-70B-Instruct...",
        f"INFO {ts(boot + 610)} model_runner.py:1077] Loading model weights took 71.4031 GB",
        f"INFO {ts(boot + 640)} worker.py:232] Memory profiling results: total_gpu_memory=95.58GiB initial_memory_usage=72.08GiB peak_torch_memory=85.24GiB memory_usage_post_profile=72.92GiB non_torch_memory=0.93GiB kv_cache_size=7.50GiB gpu_memory_utilization=0.98",
        f"INFO {ts(boot + 640)} gpu_executor.py:113] # GPU blocks: 3072, # CPU blocks: 1638",
        f"INFO {ts(boot + 640)} gpu_executor.py:117] Maximum concurrency for 32768 tokens per request: 1.50x",
        f"INFO {ts(boot + 643)} model_runner.py:1400] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {ts(boot + 700)} model_runner.py:1518] Graph capturing finished in 57 secs, took 1.05 GiB",
        f"INFO {ts(boot + 702)} launcher.py:19] Available routes are:",
        "INFO:     Started server process [1]", "INFO:     Waiting for application startup.", "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    logs = [(boot + i * 0.01, l) for i, l in enumerate(pre)]
    logs += v0_stats(c, tb, end, 5.0, prefix_line=True)
    logs += [(r.t_arr + 0.002, f'INFO:     10.42.0.{30 + r.rid % 4}:{50100 + r.rid} - "POST /v1/completions HTTP/1.1" 200 OK') for r in c.reqs]
    mem_total = 97871 * 1024 * 1024
    used = int(94.31 * GiB)
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA GH200 480GB", "memory_total": mem_total, "memory_used": used,
                               "processes": [{"pid": 1, "name": "python3", "used_memory": used - 460 * 1024 * 1024}]}])
    cfg = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
           "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu", "hidden_size": 8192,
           "initializer_range": 0.02, "intermediate_size": 28672, "max_position_embeddings": 131072, "mlp_bias": False,
           "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
           "pretraining_tp": 1, "rms_norm_eps": 1e-05,
           "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
           "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.47.0.dev0",
           "use_cache": True, "vocab_size": 128256}
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=meta-llama/Llama-3.3-70B-Instruct",
            "--served-model-name=llama-3.3-70b-instruct-bf16-gh200", "--max-model-len=32768", "--max-num-batched-token=32768",
            "--gpu-memory-utilization=0.98", "--kv-cache-dtype=fp8", "--cpu-offload-gb=60", "--enable-prefix-caching",
            "--disable-log-requests"]
    out = CASES / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.6.4.post1", "llama-3.3-70b-instruct-bf16-gh200", "meta-llama/Llama-3.3-70B-Instruct", 32768, int(boot)),
              engine_args={"argv": argv, "args": {"max-model-len": 32768, "max-num-batched-token": 32768, "gpu-memory-utilization": 0.98,
                                                  "kv-cache-dtype": "fp8", "cpu-offload-gb": 60, "enable-prefix-caching": True,
                                                  "disable-log-requests": True}},
              model_config=cfg, gpu=gpu, logs=logs,
              notes="kubeai model llama-3.3-70b-instruct-bf16-gh200 on one GH200; 10 minutes from the middle of benchmark_serving.py (ShareGPT, 1000 prompts, request rate inf)",
              endpoint="http://model-llama-3.3-70b-instruct-bf16-gh200:8000")
    check(out)


# --------------------------------------------------------------------------------------------
def qwen32b_async():
    """vllm#9482: several hundred 4-5k-token requests at once to Qwen2.5-32B on 2xA100; the client times out queued ones."""
    cid = "zzf-qwen25-32b-async-hundreds-timeouts"
    tmpl = "zo-v064-70b-fp8-8k-tpot-regress"  # V0 families (0.6.4.post1, nearest stored release with the full V0 set)
    cc_tmpl = "s-v0-multistep16-util0941-h100-runtime-oom"  # vLLM 0.6.3 cache_config labels
    rnd = random.Random(9482)
    t0 = utc(2024, 10, 18, 3, 20, 0)
    pool_tokens = 294_912  # 18432 blocks x 16
    c = gen.Case(cid=cid, version="0.6.3", v0=True, model_name="Qwen/Qwen2.5-32B-Instruct", model_root="Qwen/Qwen2.5-32B-Instruct",
                 max_model_len=32768, start=t0, n_scrapes=61, interval=10.0, labels_cc={}, pool_tokens=pool_tokens,
                 block_size=16, max_num_seqs=256, tmpl=tmpl, abort_after=120.0)
    reqs = []
    ta = t0 + 20
    for i in range(400):
        ta += rnd.uniform(0.0, 0.02)
        p = rnd.randint(4000, 5000)
        g = max(120, min(1400, int(rnd.gauss(600, 220))))
        reqs.append(gen.Req(rid=i, t_arr=ta, prompt=p, cached=0, gen=g, max_tokens=2048, reason="stop"))
    busy = {"until": 0.0}

    def prefill(r, n):  # V0 without chunked prefill: one ~0.9 s prefill step at a time, decode waits meanwhile
        start = max(r.t_sched, busy["until"])
        busy["until"] = start + 0.2 + r.prompt * 0.00015
        return busy["until"] - r.t_sched

    # decode step ~44 ms at ~57 running, stretched to ~0.12 s per token by the prefill steps interleaved with it
    gen.simulate(c, reqs, step_fn=lambda n: 0.02 + 0.0017 * n, prefill_fn=prefill, gen_reserve=False, gen_frac=0.7)
    c.extra_vals = v0_avg_vals(5.0)
    c.labels_cc = gen.tmpl_cc(cc_tmpl, num_gpu_blocks=18432, num_cpu_blocks=2048, gpu_memory_utilization="0.9")
    end = t0 + 600
    boot = t0 - 2400
    pre = [
        f"INFO {ts(boot)} api_server.py:528] vLLM API server version 0.6.3",
        f"INFO {ts(boot)} api_server.py:529] args: Namespace(host='0.0.0.0', port=8000, model='Qwen/Qwen2.5-32B-Instruct', tensor_parallel_size=2, max_model_len=None, gpu_memory_utilization=0.9, max_num_seqs=256, block_size=16, swap_space=4, enable_prefix_caching=False, enable_chunked_prefill=None, disable_log_requests=False, disable_log_stats=False)",
        f"INFO {ts(boot + 8)} llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='Qwen/Qwen2.5-32B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-32B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=Qwen/Qwen2.5-32B-Instruct, num_scheduler_steps=1, chunked_prefill_enabled=False, multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True",
        f"INFO {ts(boot + 9)} multiproc_gpu_executor.py:56] Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.",
        f"INFO {ts(boot + 120)} model_runner.py:1060] Loading model weights took 30.5402 GB",
        f"(VllmWorkerProcess pid=311) INFO {ts(boot + 121)} model_runner.py:1060] Loading model weights took 30.5402 GB",
        f"INFO {ts(boot + 130)} distributed_gpu_executor.py:57] # GPU blocks: 18432, # CPU blocks: 2048",
        f"INFO {ts(boot + 130)} distributed_gpu_executor.py:61] Maximum concurrency for 32768 tokens per request: 9.00x",
        f"INFO {ts(boot + 152)} model_runner.py:1508] Graph capturing finished in 21 secs.",
        "INFO:     Started server process [7]", "INFO:     Waiting for application startup.", "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    logs = [(boot + i * 0.01, l) for i, l in enumerate(pre)]
    logs += v0_stats(c, t0, end, 5.0, prefix_line=False)
    ids = {r.rid: rid(rnd, "chat-") for r in c.reqs}
    for r in c.reqs:
        logs.append((r.t_arr + 0.004, f"INFO {ts(r.t_arr)} async_llm_engine.py:208] Added request {ids[r.rid]}."))
        if r.ab and r.ab <= end:
            logs.append((r.ab, f"INFO {ts(r.ab)} async_llm_engine.py:63] Aborted request {ids[r.rid]}."))
        elif r.t_end <= end:
            logs.append((r.t_end, f"INFO {ts(r.t_end)} async_llm_engine.py:166] Finished request {ids[r.rid]}."))
            logs.append((r.t_end + 0.003, f'INFO:     10.8.1.21:{40000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = []
    for i, pid in enumerate((7, 311)):
        used = int(76.9 * GiB)
        gpus.append({"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": used,
                     "processes": [{"pid": pid, "name": "python3", "used_memory": used - 420 * 1024 * 1024}]})
    cfg = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
           "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
           "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 40,
           "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
           "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
           "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-32B-Instruct", "--tensor-parallel-size", "2",
            "--host", "0.0.0.0", "--port", "8000"]
    out = CASES / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.6.3", "Qwen/Qwen2.5-32B-Instruct", "Qwen/Qwen2.5-32B-Instruct", 32768, int(boot)),
              engine_args={"argv": argv, "args": {"tensor-parallel-size": 2}}, model_config=cfg, gpu=gen.gpu_samples(c, gpus), logs=logs,
              notes="2xA100 80GB, TP=2; an asyncio front-end sent several hundred 4-5k-token chat requests at once; only part of them come back. logs.txt: server log with the per-request 'Received request' lines (full prompts) filtered out",
              endpoint="http://10.8.1.5:8000")
    check(out)


BUILDERS = {"zzf-gpustack-proxy-conn-limit": gpustack, "zzf-dsv4-spark-max-num-seqs-1": dsv4_spark,
            "zzf-kubeai-gh200-cpu-offload-bench": kubeai_gh200, "zzf-qwen25-32b-async-hundreds-timeouts": qwen32b_async}

if __name__ == "__main__":
    for name in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[name]()
        print("built", name)
