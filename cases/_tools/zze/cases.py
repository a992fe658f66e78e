"""Writer zze's cases (round 13): builds cases/zze-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zze/cases.py
Seeded, no wall clock. Numbers not quoted from the sources are listed under `assumed:` in each case.yaml.
Families / HELP / buckets: gen._template(<case bundle of the nearest release>).
"""
from __future__ import annotations

import bisect
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


class ReqT(Req):
    """A request with explicit output-token times (tt[0] = first token)."""

    def set_times(self, tt):
        self.tt = tt
        self.t_first = tt[0]
        self.t_end = tt[-1]
        self.gen = len(tt)
        self.step_s = (tt[-1] - tt[0]) / max(1, len(tt) - 1)

    def gen_by(self, t):
        return bisect.bisect_right(self.tt, t)

    def steps_by(self, t):
        return max(0, self.gen_by(t) - 1)

    def steps(self):
        return self.gen - 1

    def itl_by(self, t):
        k = self.gen_by(t)
        return [self.tt[i] - self.tt[i - 1] for i in range(1, k)]


def v0_stats(c: Case, t0, t1, ref: str, every=10.0):
    L = []
    t = t0 + every
    R = c.reqs
    while t <= t1:
        a, b = t - every, t
        pt = sum(r.prompt for r in R if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in R if r.t_first <= b and r.t_end > a)
        run = [r for r in R if r.t_sched <= b < r.t_end]
        wait = sum(1 for r in R if r.t_arr <= b < r.t_sched)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) * c.kv_factor / c.block_size) for r in run)
        use = min(1.0, blocks * c.block_size / c.pool_tokens) * 100
        L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                     f"Running: {len(run)} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {use:.1f}%, CPU KV cache usage: 0.0%."))
        t += every
    return L


def rates(c: Case):
    """V0 avg throughput gauges: the last 5 s window before the scrape."""
    R = c.reqs
    c._avg_pt = lambda t: sum(r.prompt for r in R if t - 5 < r.t_first <= t) / 5.0
    c._avg_gt = lambda t: sum(r.gen_by(t) - r.gen_by(t - 5) for r in R if r.t_first <= t and r.t_end > t - 5) / 5.0


def gpus(c: Case, name, total, used, pids, pname="python3"):
    devs = [{"index": i, "name": name, "memory_total": total, "memory_used": used,
             "processes": [{"pid": p, "name": pname if i == 0 else "VllmWorkerProcess", "used_memory": used - 420 * MiB}]} for i, p in enumerate(pids)]
    return gen.gpu_samples(c, devs)


def argv_args(argv):
    a, i = {}, 0
    while i < len(argv):
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for f in (int, float):
                try:
                    v = f(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


# ------------------------------------------------------------ 1: vllm PR 33743 (gemma-3-27b burst)
def gemma() -> None:
    cid = "zze-gemma3-27b-burst-16-prefills-one-step"
    rng = random.Random(1301)
    t0 = utc(2026, 2, 4, 10, 0, 0)
    n, iv = 41, 15.0
    pool = 222800
    c = Case(cid, "0.16.0", False, "google/gemma-3-27b-it", "google/gemma-3-27b-it", 131072, t0, n, iv,
             gen.tmpl_cc("b-claude-code-cch-debug-ids", num_gpu_blocks=pool // 16, gpu_memory_utilization="0.9"),
             pool, 16, 256, kv_factor=5.0, tmpl="b-claude-code-cch-debug-ids")
    R, rid = [], 0
    b = t0 - 600
    while b < t0 + (n - 1) * iv:
        first_step = rng.uniform(0.37, 0.41)
        big_step = rng.uniform(3.78, 3.86)
        for i in range(16):
            r = ReqT(rid, b + i * 0.0015, 1023, 0, 350, 350, reason="length"); rid += 1
            step = rng.uniform(0.0458, 0.0475)
            if i == 0:
                r.t_sched = b
                tt = [b + first_step, b + first_step + big_step]
                for k in range(348):
                    tt.append(tt[-1] + step)
            else:
                r.t_sched = b + first_step
                f = b + first_step + big_step + rng.uniform(0.0, 0.004)
                tt = [f + k * step for k in range(350)]
            r.set_times(tt)
            R.append(r)
        b += 30.0
    c.reqs = R
    api, core = 2211, 2473
    A = lambda s, m: f"(APIServer pid={api}) INFO {ts(t0 - 3000 + s)} {m}"
    E = lambda s, m: f"(EngineCore_DP0 pid={core}) INFO {ts(t0 - 3000 + s)} {m}"
    logs = [(t0 - 3000, f"INFO {ts(t0 - 3000)} [__init__.py:216] Automatically detected platform cuda."),
            (t0 - 2998, A(2, "[api_server.py:1947] vLLM API server version 0.16.0")),
            (t0 - 2998, A(2, "[utils.py:299] non-default args: {'model_tag': 'google/gemma-3-27b-it', 'model': 'google/gemma-3-27b-it', 'max_num_batched_tokens': 16384}")),
            (t0 - 2991, A(9, "[model.py:552] Resolved architecture: Gemma3ForConditionalGeneration")),
            (t0 - 2991, A(9, "[model.py:1677] Using max model len 131072")),
            (t0 - 2990, A(10, "[scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=16384.")),
            (t0 - 2982, E(18, "[core.py:101] Initializing a V1 LLM engine (v0.16.0) with config: model='google/gemma-3-27b-it', speculative_config=None, tokenizer='google/gemma-3-27b-it', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True")),
            (t0 - 2975, E(25, "[gpu_model_runner.py:3489] Starting to load model google/gemma-3-27b-it...")),
            (t0 - 2915, E(85, "[gpu_model_runner.py:3582] Model loading took 51.3791 GiB and 58.120000 seconds")),
            (t0 - 2880, E(120, "[gpu_worker.py:379] Available KV cache memory: 16.99 GiB")),
            (t0 - 2880, E(120, "[kv_cache_utils.py:1313] GPU KV cache size: 222,800 tokens, Maximum concurrency for 131,072 tokens per request: 7.94x")),
            (t0 - 2851, E(149, "[gpu_model_runner.py:4512] Graph capturing finished in 27 secs, took 0.61 GiB")),
            (t0 - 2850, E(150, "[core.py:262] init engine (profile, create kv cache, warmup model) took 64.30 seconds")),
            (t0 - 2849, A(151, f"[loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}")),
            (t0 - 2848, A(152, "[api_server.py:2024] Starting vLLM API server 0 on http://0.0.0.0:8000"))]
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * iv, api, "loggers.py:257")
    logs += [(r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     127.0.0.1:{41000 + r.rid % 20000} - "POST /v1/completions HTTP/1.1" 200 OK')
             for r in R if r.t_arr >= t0 - 60]
    mc = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "torch_dtype": "bfloat16",
          "text_config": {"model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504, "num_hidden_layers": 62,
                          "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "sliding_window": 1024,
                          "sliding_window_pattern": 6, "max_position_embeddings": 131072, "vocab_size": 262208,
                          "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": 168},
          "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "num_hidden_layers": 27, "image_size": 896, "patch_size": 14},
          "mm_tokens_per_image": 256, "transformers_version": "4.50.0.dev0"}
    argv = ["vllm", "serve", "google/gemma-3-27b-it", "--max-num-batched-tokens", "16384"]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.16.0", "google/gemma-3-27b-it", "google/gemma-3-27b-it", 131072, int(t0 - 2848)),
              engine_args={"argv": argv, "args": argv_args(argv[3:])}, model_config=mc,
              gpu=gpus(c, "NVIDIA A100-SXM4-80GB", 85899345920, 77240000000, [core]),
              logs=logs, notes="vllm bench serve loop (16 x 1024-in/350-out random prompts every 30 s) against one A100 80GB", endpoint="http://gemma27b:8000")


# ------------------------------------------------------------ 2: vllm#13234 (Llama-2-70B, 4x A100-40GB)
def llama70() -> None:
    cid = "zze-llama2-70b-4xa100-40g-7s-hardware-floor"
    rng = random.Random(1302)
    t0 = utc(2025, 2, 12, 14, 0, 0)
    n, iv = 61, 10.0
    total = 39.39 * GiB
    kv_mem = 0.90 * total - 32.12 * GiB - 0.52 * GiB - 0.87 * GiB
    blocks = int(kv_mem // (80 * 1024 * 16))
    pool = blocks * 16
    c = Case(cid, "0.7.2", True, "meta-llama/Llama-2-70b-chat-hf", "meta-llama/Llama-2-70b-chat-hf", 4096, t0, n, iv,
             gen.tmpl_cc("o-llama70b-osl1-prefill-only-ttft-healthy", num_gpu_blocks=blocks, num_cpu_blocks=3276,
                         enable_prefix_caching="True", gpu_memory_utilization="0.9"),
             pool, 16, 256, tmpl="o-llama70b-osl1-prefill-only-ttft-healthy")
    # arrivals, prefill pauses: requests are prefilled FIFO, one prefill at a time (V0, chunked prefill off)
    R, t, rid = [], t0 - 400, 0
    while t < t0 + (n - 1) * iv:
        t += rng.expovariate(0.65)
        p = rng.randint(1200, 1800)
        r = ReqT(rid, t, p, 32 if rng.random() < 0.9 else 0, 0, 512, reason="stop"); rid += 1
        r.gen = rng.randint(50, 100)
        R.append(r)
    busy = t0 - 400
    pre = []
    for r in R:  # prefill slots
        start = max(r.t_arr + rng.uniform(0.0, 0.045), busy)
        dur = 0.16 + 0.0002 * (r.prompt - r.cached)
        r.t_sched = start
        busy = start + dur
        pre.append((start, busy))
    starts = [s for s, _ in pre]
    for r in R:
        f = r.t_sched + (0.16 + 0.0002 * (r.prompt - r.cached))
        tt = [f]
        k = bisect.bisect_right(starts, f)
        while len(tt) < r.gen:
            x = tt[-1]
            running = sum(1 for q in R[max(0, r.rid - 12): r.rid + 12] if q.t_sched <= x < (q.t_end or q.t_sched + 6))
            step = 0.0405 + 0.0007 * running + rng.uniform(-0.0015, 0.0015)
            nxt = x + step
            while k < len(pre) and pre[k][0] < nxt:  # another request's prefill runs before this decode step
                nxt = max(nxt, pre[k][1] + step)
                k += 1
            tt.append(nxt)
        r.set_times(tt)
    c.reqs = R
    rates(c)
    T = lambda s: ts(t0 - 5000 + s)
    logs = [(t0 - 5000, f"INFO {T(0)} __init__.py:190] Automatically detected platform cuda."),
            (t0 - 4998, f"INFO {T(2)} api_server.py:840] vLLM API server version 0.7.2"),
            (t0 - 4998, f"INFO {T(2)} api_server.py:841] args: Namespace(model='meta-llama/Llama-2-70b-chat-hf', tensor_parallel_size=4, dtype='float16', enable_prefix_caching=True, port=8000)"),
            (t0 - 4990, f"INFO {T(10)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='meta-llama/Llama-2-70b-chat-hf', speculative_config=None, tokenizer='meta-llama/Llama-2-70b-chat-hf', dtype=torch.float16, max_seq_len=4096, tensor_parallel_size=4, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0, served_model_name=meta-llama/Llama-2-70b-chat-hf, num_scheduler_steps=1, chunked_prefill_enabled=False, use_async_output_proc=True, enable_prefix_caching=True"),
            (t0 - 4700, f"INFO {T(300)} model_runner.py:1115] Loading model weights took 32.1210 GB"),
            (t0 - 4688, f"INFO {T(312)} worker.py:267] Memory profiling takes 11.84 seconds"),
            (t0 - 4688, f"INFO {T(312)} worker.py:267] the current vLLM instance can use total_gpu_memory (39.39GiB) x gpu_memory_utilization (0.90) = 35.45GiB"),
            (t0 - 4688, f"INFO {T(312)} worker.py:267] model weights take 32.12GiB; non_torch_memory takes 0.52GiB; PyTorch activation peak memory takes 0.87GiB; the rest of the memory reserved for KV Cache is {kv_mem / GiB:.2f}GiB."),
            (t0 - 4688, f"INFO {T(312)} executor_base.py:110] # CUDA blocks: {blocks}, # CPU blocks: 3276"),
            (t0 - 4688, f"INFO {T(312)} executor_base.py:115] Maximum concurrency for 4096 tokens per request: {pool / 4096:.2f}x"),
            (t0 - 4660, f"INFO {T(340)} model_runner.py:1562] Graph capturing finished in 28 secs, took 0.31 GiB"),
            (t0 - 4658, f"INFO {T(342)} api_server.py:937] Starting vLLM API server on http://0.0.0.0:8000")]
    logs += v0_stats(c, t0 - 60, t0 + (n - 1) * iv, "metrics.py:455")
    logs += [(r.t_arr + 0.002, f'INFO:     10.40.1.{20 + r.rid % 5}:{50000 + r.rid % 15000} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for r in R if r.t_arr >= t0 - 60]
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
          "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8, "max_position_embeddings": 4096,
          "vocab_size": 32000, "rms_norm_eps": 1e-05, "torch_dtype": "float16", "bos_token_id": 1, "eos_token_id": 2,
          "hidden_act": "silu", "rope_scaling": None, "tie_word_embeddings": False, "transformers_version": "4.32.0.dev0"}
    argv = ["vllm", "serve", "meta-llama/Llama-2-70b-chat-hf", "--tensor-parallel-size", "4", "--dtype", "float16", "--enable-prefix-caching"]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.7.2", "meta-llama/Llama-2-70b-chat-hf", "meta-llama/Llama-2-70b-chat-hf", 4096, int(t0 - 4658)),
              engine_args={"argv": argv, "args": argv_args(argv[3:])}, model_config=mc,
              gpu=gpus(c, "NVIDIA A100-PCIE-40GB", 42949672960, 38710000000, [3301, 3530, 3531, 3532]),
              logs=logs, notes="production chat traffic, Llama-2-70B fp16 TP4 on 4x A100 40GB", endpoint="http://llm-70b:8000")


# ------------------------------------------------------------ 3: vllm#8086 (TTFT minutes behind a batch backlog)
def backlog() -> None:
    cid = "zze-llama3-8b-ttft-minutes-batch-backlog"
    rng = random.Random(1303)
    t0 = utc(2024, 9, 2, 11, 0, 0)
    n, iv = 61, 10.0
    kv_mem = 0.90 * 79.15 * GiB - 14.96 * GiB - 2.41 * GiB
    blocks = int(kv_mem // (128 * 1024 * 32))
    pool = blocks * 32
    c = Case(cid, "0.5.3.post1", True, "meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct", 16000, t0, n, iv,
             gen.tmpl_cc("zb-qwen2-72b-gptq-one-h100-rate12", block_size=32, num_gpu_blocks=blocks, num_cpu_blocks=1024,
                         enable_prefix_caching="True", gpu_memory_utilization="0.9"),
             pool, 32, 256, tmpl="zb-qwen2-72b-gptq-one-h100-rate12")
    T0 = t0 - 1500
    R, rid = [], 0
    for i in range(2560):
        p = max(300, int(rng.gauss(1450, 300))); g = max(40, int(rng.gauss(300, 80)))
        R.append(Req(rid, T0 + i * 0.0005, p, 0, g, 512)); rid += 1
    t = T0 + 1.3
    while t < t0 + (n - 1) * iv:
        t += rng.expovariate(4.1)
        p = max(300, int(rng.gauss(1450, 300))); g = max(40, int(rng.gauss(300, 80)))
        R.append(Req(rid, t, p, 0, g, 512)); rid += 1
    gen.simulate(c, R, lambda k: 0.205, lambda r, k: rng.uniform(0.25, 1.1), gen_reserve=False, gen_frac=0.5)
    for r in R:
        r.reason = "stop" if r.gen < 512 else "length"
    rates(c)
    T = lambda s: ts(T0 - 600 + s)
    logs = [(T0 - 600, f"INFO {T(0)} api_server.py:219] vLLM API server version 0.5.3.post1"),
            (T0 - 600, f"INFO {T(0)} api_server.py:220] args: Namespace(host=None, port=8000, model='meta-llama/Meta-Llama-3-8B-Instruct', max_model_len=16000, block_size=32, enable_prefix_caching=True, use_v2_block_manager=True, gpu_memory_utilization=0.9, max_num_batched_tokens=16000, max_num_seqs=256, enable_chunked_prefill=None)"),
            (T0 - 598, f"INFO {T(2)} llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: model='meta-llama/Meta-Llama-3-8B-Instruct', speculative_config=None, tokenizer='meta-llama/Meta-Llama-3-8B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name=meta-llama/Meta-Llama-3-8B-Instruct, use_v2_block_manager=True, enable_prefix_caching=True)"),
            (T0 - 580, f"INFO {T(20)} model_runner.py:680] Loading model weights took 14.9595 GB"),
            (T0 - 576, f"INFO {T(24)} gpu_executor.py:102] # GPU blocks: {blocks}, # CPU blocks: 1024"),
            (T0 - 575, f"INFO {T(25)} model_runner.py:1000] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
            (T0 - 558, f"INFO {T(42)} model_runner.py:1225] Graph capturing finished in 17 secs."),
            (T0 - 557, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    logs += v0_stats(c, t0 - 60, t0 + (n - 1) * iv, "metrics.py:396")
    logs += [(r.t_arr + 0.002, f'INFO:     10.8.3.{2 + r.rid % 4}:{33000 + r.rid % 30000} - "POST /v1/completions HTTP/1.1" 200 OK')
             for r in R if r.t_arr >= t0 - 60]
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
          "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 8192,
          "vocab_size": 128256, "rope_theta": 500000.0, "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16",
          "bos_token_id": 128000, "eos_token_id": 128009, "hidden_act": "silu", "tie_word_embeddings": False, "transformers_version": "4.40.0.dev0"}
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--enable-prefix-caching",
            "--block-size", "32", "--max-num-batched-tokens", "16000", "--max-model-len", "16000", "--use-v2-block-manager"]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.5.3.post1", "meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct", 16000, int(T0 - 557)),
              engine_args={"argv": argv, "args": argv_args(argv[3:])}, model_config=mc,
              gpu=gpus(c, "NVIDIA A100-SXM4-80GB", 85899345920, 77800000000, [5120]),
              logs=logs, notes="batch job: 100k requests pushed through the OpenAI server by a client keeping ~2.5k outstanding; capture in the middle of the run", endpoint="http://batch-llama3:8000")


# ------------------------------------------------------------ 4: arena-hard-auto#81 (eager, TP2, 1.5B, 1-2 streams)
def eager() -> None:
    cid = "zze-qwen25-1p5b-eager-tp2-l20-two-streams"
    rng = random.Random(1304)
    t0 = utc(2025, 7, 15, 4, 20, 0)
    n, iv = 61, 10.0
    kv_mem = 0.95 * 44.99 * GiB - 1.44 * GiB - 1.31 * GiB - 0.40 * GiB
    blocks = int(kv_mem // (14 * 1024 * 16))
    pool = blocks * 16
    name = "qwen2.5-1.5B-wspo"
    c = Case(cid, "0.9.2", False, name, "/data3/zyh/workspace/wspo/qwen_models/qwen2.5-1.5B-wspo", 8192, t0, n, iv,
             gen.tmpl_cc("c-long-prompt-hol-short-chats", num_gpu_blocks=blocks, gpu_memory_utilization="0.95"),
             pool, 16, 1024, tmpl="c-long-prompt-hol-short-chats")
    # two client workers; a worker sometimes pauses (judge calls elsewhere), so 0-2 requests run
    R, rid = [], 0
    workers = [t0 - 300, t0 - 296.5]
    events = []
    for w in range(2):
        t = workers[w]
        while t < t0 + (n - 1) * iv + 60:
            p = rng.randint(60, 700)
            r = ReqT(rid, t, p, (int(p * 0.36) // 16) * 16, 0, 4096, reason="stop"); rid += 1
            r.gen = rng.randint(400, 1500)
            r.w = w
            events.append(r)
            t = t + 0.030 + r.gen * 0.0095 + rng.uniform(0.5, 8.0)  # provisional; fixed below
    events.sort(key=lambda r: r.t_arr)
    # step simulation: every running request gets one token per step
    for r in events:
        r.tt = []
    clock = events[0].t_arr
    pending = list(events)
    running = []
    nxt_arr = {0: None, 1: None}
    queue = {0: [r for r in events if r.w == 0], 1: [r for r in events if r.w == 1]}
    ready = {0: queue[0][0].t_arr, 1: queue[1][0].t_arr}
    idx = {0: 0, 1: 0}
    end = t0 + (n - 1) * iv + 30
    while clock < end:
        for w in (0, 1):
            if idx[w] < len(queue[w]) and ready[w] is not None and ready[w] <= clock and not any(q.w == w for q in running):
                r = queue[w][idx[w]]
                r.t_arr = ready[w]; r.t_sched = clock
                clock += 0.012 + 0.00004 * (r.prompt - r.cached)
                r.tt = [clock]
                running.append(r)
                ready[w] = None
        if not running:
            clock = min(v for v in ready.values() if v is not None) if any(v is not None for v in ready.values()) else end
            continue
        step = (0.00776 if len(running) == 1 else 0.0104) * rng.uniform(0.97, 1.03)
        clock += step
        for r in list(running):
            r.tt.append(clock)
            if len(r.tt) >= r.gen:
                running.remove(r)
                w = r.w; idx[w] += 1
                ready[w] = clock + rng.uniform(0.5, 8.0) if idx[w] < len(queue[w]) else None
    R = [r for r in events if r.tt]
    for r in R:
        r.set_times(r.tt)
    c.reqs = R
    T = lambda s: ts(t0 - 2000 + s)
    logs = [(t0 - 2000, f"INFO {T(0)} [__init__.py:244] Automatically detected platform cuda."),
            (t0 - 1998, f"INFO {T(2)} [api_server.py:1395] vLLM API server version 0.9.2"),
            (t0 - 1998, f"INFO {T(2)} [cli_args.py:325] non-default args: {{'host': '127.0.0.1', 'port': 6006, 'api_key': 'xxx', 'model': '/data3/zyh/workspace/wspo/qwen_models/qwen2.5-1.5B-wspo', 'max_model_len': 8192, 'enforce_eager': True, 'served_model_name': ['{name}'], 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95}}"),
            (t0 - 1990, f"INFO {T(10)} [config.py:2180] Chunked prefill is enabled with max_num_batched_tokens=2048."),
            (t0 - 1990, f"WARNING {T(10)} [cuda.py:102] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used"),
            (t0 - 1985, f"INFO {T(15)} [core.py:526] Waiting for init message from front-end."),
            (t0 - 1985, f"INFO {T(15)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='/data3/zyh/workspace/wspo/qwen_models/qwen2.5-1.5B-wspo', speculative_config=None, dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=2, pipeline_parallel_size=1, quantization=None, enforce_eager=True, kv_cache_dtype=auto, served_model_name={name}, enable_prefix_caching=True, chunked_prefill_enabled=True"),
            (t0 - 1970, f"INFO {T(30)} [gpu_model_runner.py:1801] Model loading took 1.4406 GiB and 6.810 seconds"),
            (t0 - 1966, f"INFO {T(34)} [gpu_worker.py:232] Available KV cache memory: {kv_mem / GiB:.2f} GiB"),
            (t0 - 1966, f"INFO {T(34)} [kv_cache_utils.py:716] GPU KV cache size: {pool:,} tokens"),
            (t0 - 1966, f"INFO {T(34)} [kv_cache_utils.py:720] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x"),
            (t0 - 1965, f"INFO {T(35)} [core.py:172] init engine (profile, create kv cache, warmup model) took 9.71 seconds"),
            (t0 - 1964, f"INFO {T(36)} [api_server.py:1457] Starting vLLM API server 0 on http://127.0.0.1:6006")]
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * iv, 0, "loggers.py:118", prefix=False)
    for r in R:
        if r.t_arr >= t0 - 60:
            logs.append((r.t_arr + 0.003, f"INFO {ts(r.t_arr)} [async_llm.py:270] Added request chatcmpl-{(r.rid * 2654435761) % (16 ** 32):032x}."))
            logs.append((r.t_arr + 0.004, f'INFO:     127.0.0.1:{57000 + r.rid % 8000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    mc = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 1536, "intermediate_size": 8960,
          "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2, "max_position_embeddings": 32768,
          "max_window_layers": 21, "sliding_window": 32768, "use_sliding_window": False, "vocab_size": 151936,
          "rope_theta": 1000000.0, "rms_norm_eps": 1e-06, "torch_dtype": "bfloat16", "tie_word_embeddings": True,
          "bos_token_id": 151643, "eos_token_id": 151645, "hidden_act": "silu", "transformers_version": "4.51.3"}
    argv = ["vllm", "serve", "/data3/zyh/workspace/wspo/qwen_models/qwen2.5-1.5B-wspo", "--tensor-parallel-size", "2", "--host", "127.0.0.1",
            "--port", "6006", "--served-model-name", name, "--gpu-memory-utilization", "0.95", "--max_model_len", "8192", "--enforce-eager"]
    args = argv_args(argv[3:])
    args.pop("host"); args.pop("port")
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.9.2", name, "/data3/zyh/workspace/wspo/qwen_models/qwen2.5-1.5B-wspo", 8192, int(t0 - 1964)),
              engine_args={"argv": argv, "args": args}, model_config=mc,
              gpu=gpus(c, "NVIDIA L20", 48305799168, 46420000000, [88110, 88372]),
              logs=logs, notes="arena-hard answer generation against a local vllm serve; 2 x L20", endpoint="http://127.0.0.1:6006")


if __name__ == "__main__":
    which = sys.argv[1:] or ["gemma", "llama70", "backlog", "eager"]
    for w in which:
        globals()[w]()
        print("built", w)
