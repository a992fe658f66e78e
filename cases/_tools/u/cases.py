"""Build the u-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/u/cases.py [case-id ...]

Simulator and writer copied from cases/_tools/q/gen.py (writer q). Family names, HELP texts and buckets come
from the last scrape of an existing case bundle of a nearby vLLM release (format examples allowed by the brief).
"""
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
T028 = "a-max-num-seqs-100-piecewise-cliff"   # vLLM 0.28.0
T091 = "n-lora-bench-warmup-base-split"       # vLLM 0.9.1
T016 = "b-claude-code-cch-debug-ids"          # vLLM 0.16.0
GiB = 2 ** 30
PRO6000 = 102641958912   # RTX PRO 6000 Blackwell 96 GB (NVML total)
A100_80 = 85899345920


def startup(t, api, core, nondef, kv_gib, kv_tok, mml, refs, extra=(), prefix=True, core_tag="EngineCore_DP0"):
    A = f"(APIServer pid={api}) " if prefix else ""
    E = f"({core_tag} pid={core}) " if prefix else ""
    L = [(t, f"{A}INFO {ts(t)} [{refs['args']}] non-default args: {nondef}")]
    for i, x in enumerate(extra):
        L.append((t + 10 + i, f"{E}{x[0]} {ts(t+10+i)} {x[1]}" if isinstance(x, tuple) else f"{E}INFO {ts(t+10+i)} {x}"))
    L += [(t + 60, f"{E}INFO {ts(t+60)} [{refs['worker']}] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t+60)} [{refs['kv1']}] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t+60)} [{refs['kv2']}] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t+90)} [{refs['api']}] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


# ---------------------------------------------------------------- dev: DeepSeek-V4.1-Flash SM120 eager, ~1 tok/s per stream
def case_dsv41():
    cid = "u-dsv41-sm120-eager-1tps-per-stream"
    rng = random.Random(56892)
    t0 = 1789977600.0  # 2026-09-21 08:00 UTC
    start, n, iv = t0 + 1800, 61, 10.0
    blocks = 14336; pool = blocks * 128; mml = 524288
    c = Case(cid, "0.28.1", False, "deepseek-ai/DeepSeek-V4.1-Flash", "/models/DeepSeek-V4.1-Flash", mml, start, n, iv, {},
             pool, 128, 16, tmpl=T028)
    # three client slots, each sends its next request when the previous one finishes (300 completion tokens)
    reqs, rid = [], 0
    for slot in range(3):
        t = start - 900 + slot * 95.0
        while t < start + n * iv:
            p = rng.randint(1000, 1400)
            step = rng.uniform(0.88, 1.12)
            r = Req(rid, round(t, 3), p, 0, 300, 300, "length"); rid += 1
            r.t_sched = t + 0.003
            r.t_first = r.t_sched + 5.2 + p / 1000.0 * rng.uniform(0.8, 1.1)
            r.step_s = step; r.t_end = r.t_first + 299 * step
            reqs.append(r)
            t = r.t_end + rng.uniform(0.5, 2.0)
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T028, block_size=128, cache_dtype="fp8", gpu_memory_utilization=0.85, num_gpu_blocks=blocks,
                          kv_cache_size_tokens=pool, kv_cache_max_concurrency=f"{pool / mml:.2f}", user_specified_block_size="True")
    api, core = 1, 412
    refs = {"args": "utils.py:233", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1314", "kv2": "kv_cache_utils.py:1319", "api": "api_server.py:1104"}
    nondef = ("{'model_tag': '/models/DeepSeek-V4.1-Flash', 'model': '/models/DeepSeek-V4.1-Flash', 'served_model_name': ['deepseek-ai/DeepSeek-V4.1-Flash'], "
              "'trust_remote_code': True, 'max_model_len': 524288, 'enforce_eager': True, 'tensor_parallel_size': 8, 'block_size': 128, "
              "'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 16, 'language_model_only': True}")
    extra = [
        "[model.py:1582] Using max model len 524288",
        "[scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        ("WARNING", "[vllm.py:712] Enforce eager set, disabling torch.compile and CUDA graphs (cudagraph_mode=NONE)."),
        "[core.py:114] Initializing a V1 LLM engine (v0.28.1) with config: model='/models/DeepSeek-V4.1-Flash', tensor_parallel_size=8, quantization=fp8, enforce_eager=True, kv_cache_dtype=fp8, max_seq_len=524288, enable_prefix_caching=True, enable_chunked_prefill=True, compilation_config={'mode': <CompilationMode.NONE: 0>, 'cudagraph_mode': <CUDAGraphMode.NONE: 0>}",
        ("WARNING", "[fp8_utils.py:118] DeepGEMM is disabled (VLLM_USE_DEEP_GEMM=0); using the Triton/CUTLASS block-FP8 fallback."),
        "[default_loader.py:291] Loading weights took 212.41 seconds",
        "[gpu_model_runner.py:3480] Model loading took 48.11 GiB memory and 219.73 seconds",
    ]
    L = startup(t0, api, core, nondef, 28.34, pool, mml, refs, extra=extra)
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259") + access_lines(c, api, "/v1/chat/completions")
    used = int(0.85 * PRO6000) + 520 * 2 ** 20
    dev = [{"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "memory_total": PRO6000, "memory_used": used,
            "processes": [{"pid": 600 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used - 480 * 2 ** 20}]} for i in range(8)]
    argv = ["vllm", "serve", "/models/DeepSeek-V4.1-Flash", "--served-model-name", "deepseek-ai/DeepSeek-V4.1-Flash", "--trust-remote-code",
            "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8", "--block-size", "128", "--gpu-memory-utilization", "0.85",
            "--max-num-seqs", "16", "--max-model-len", "524288", "--enforce-eager", "--language-model-only"]
    args = {"model": "/models/DeepSeek-V4.1-Flash", "served-model-name": "deepseek-ai/DeepSeek-V4.1-Flash", "trust-remote-code": True,
            "tensor-parallel-size": 8, "kv-cache-dtype": "fp8", "block-size": 128, "gpu-memory-utilization": 0.85, "max-num-seqs": 16,
            "max-model-len": 524288, "enforce-eager": True, "language-model-only": True}
    write(c, C / cid / "bundle", server=server_json("0.28.1", "deepseek-ai/DeepSeek-V4.1-Flash", "/models/DeepSeek-V4.1-Flash", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="DeepSeek-V4.1-Flash (FP8) on 8x RTX PRO 6000 Blackwell Max-Q (SM120), TP8, day-0 image with the community SM120 patch set and VLLM_USE_DEEP_GEMM=0; --enforce-eager because CUDA graph capture does not work on SM120. A benchmark keeps 3 requests in flight (300 completion tokens each). Complaint: decode is 2-4 tokens/s in total. /metrics every 10 s for 10 min, server log.")


BUILDERS = {"u-dsv41-sm120-eager-1tps-per-stream": case_dsv41}



class TReq(Req):
    """A request whose output-token times are recorded by a step simulation (tt: list of token times)."""
    def gen_by(self, t):
        return sum(1 for x in self.tt if x <= t)

    def steps_by(self, t):
        return max(0, self.gen_by(t) - 1)

    def steps(self):
        return max(0, len(self.tt) - 1)

    def itl_by(self, t):
        tt = [x for x in self.tt if x <= t]
        return [b - a for a, b in zip(tt, tt[1:])]


def step_sim(arrivals, budget, t_end, step_cost, max_seqs, on_finish):
    """V1-like chunked-prefill loop: decodes first, then FCFS prefill chunks within the token budget.
    arrivals: list of TReq (t_arr set, tt empty); on_finish(r, t) may return a new TReq (closed loop)."""
    waiting = sorted(arrivals, key=lambda r: r.t_arr)
    running = []
    t = min(r.t_arr for r in waiting)
    allr = list(waiting)
    iters = []
    while t < t_end:
        ready = [r for r in waiting if r.t_arr <= t]
        if not running and not ready:
            t = min(r.t_arr for r in waiting) if waiting else t_end
            continue
        tok = 0
        dec = [r for r in running if r.done_pf >= r.prompt]
        tok += len(dec)
        left = budget - tok
        pf = 0
        for r in [r for r in running if r.done_pf < r.prompt]:
            if left <= 0:
                break
            k = min(left, r.prompt - r.done_pf); r.done_pf += k; left -= k; pf += k
        for r in list(ready):
            if left <= 0 or len(running) >= max_seqs:
                break
            waiting.remove(r); running.append(r); r.t_sched = t; r.done_pf = 0
            k = min(left, r.prompt); r.done_pf += k; left -= k; pf += k
        dt = step_cost(pf, len(dec))
        t += dt
        iters.append((t, pf + len(dec)))
        for r in list(running):
            if r.done_pf >= r.prompt:
                if not r.tt:
                    r.t_first = t
                r.tt.append(t)
                if len(r.tt) >= r.gen:
                    r.t_end = t; running.remove(r)
                    nr = on_finish(r, t)
                    if nr is not None:
                        waiting.append(nr); allr.append(nr)
    for r in allr:
        if not r.tt or len(r.tt) < r.gen:
            r.t_end = float("inf")
            if not r.tt:
                r.t_first = float("inf")
            if not getattr(r, "t_sched", 0):
                r.t_sched = float("inf")
        r.step_s = 1.0
    return allr, iters


def mk(rid, t, p, g, mx, reason="length"):
    r = TReq(rid, round(t, 3), p, 0, g, mx, reason)
    r.tt = []; r.done_pf = 0; r.t_sched = 0.0
    return r


# ---------------------------------------------------------------- holdout: Qwen3-14B-AWQ, 16k prompts, 25 clients
def case_awq16k():
    cid = "u-qwen3-14b-awq-16k-prompts-prefill-bound"
    rng = random.Random(20469)
    t0 = 1751600000.0  # 2025-07-04
    start, n, iv = t0 + 1200, 61, 10.0
    blocks = 26624; pool = blocks * 16; mml = 16384
    c = Case(cid, "0.9.1", False, "Qwen/Qwen3-14B-AWQ", "Qwen/Qwen3-14B-AWQ", mml, start, n, iv, {}, pool, 16, 30, tmpl=T091)
    # benchmark_serving.py --num-prompts 30 --request-rate 1 --max-concurrency 25, run three times back to back
    reqs, iters, rid = [], [], 0
    tb = start - 30
    for run in range(3):
        arr, t = [], tb
        for i in range(30):
            t += rng.expovariate(1.0)
            arr.append(mk(rid, t, 16000, 200, 200)); rid += 1
        # client-side cap of 25 in flight: request 26+ leaves the client when an earlier one finishes (approximated below)
        rr, it = step_sim(arr, 8192, tb + 400, lambda pf, nd: 0.021 + pf / 4850.0 + nd * 0.0002, 25, lambda r, t: None)
        reqs += rr; iters += it
        tb = max(r.t_end for r in rr) + 20
        c.reqs = reqs
    c.iter_fn = lambda c_, t: [k for (x, k) in iters if x <= t]
    c.labels_cc = tmpl_cc(T091, gpu_memory_utilization=0.95, num_gpu_blocks=blocks)
    api = 1873
    refs = {"args": "cli_args.py:309", "worker": "gpu_worker.py:232", "kv1": "kv_cache_utils.py:716", "kv2": "kv_cache_utils.py:720", "api": "launcher.py:29"}
    nondef = ("{'model': 'Qwen/Qwen3-14B-AWQ', 'max_model_len': 16384, 'enforce_eager': True, 'guided_decoding_backend': 'guidance', "
              "'gpu_memory_utilization': 0.95, 'max_num_seqs': 30}")
    extra = ["[config.py:823] This model supports multiple tasks: {'generate', 'reward', 'embed', 'classify'}. Defaulting to 'generate'.",
             "[awq_marlin.py:116] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.",
             "[config.py:2195] Chunked prefill is enabled with max_num_batched_tokens=8192.",
             "[core.py:455] Waiting for init message from front-end.",
             "[core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='Qwen/Qwen3-14B-AWQ', dtype=torch.float16, max_seq_len=16384, quantization=awq_marlin, enforce_eager=True, kv_cache_dtype=auto, guided_decoding_backend='guidance', enable_prefix_caching=True, chunked_prefill_enabled=True",
             "[gpu_model_runner.py:1595] Model loading took 9.38 GiB and 7.41 seconds"]
    L = startup(t0, api, 0, nondef, 65.00, pool, mml, refs, extra=extra, prefix=False)
    L = [(t0 - 3, f"INFO {ts(t0-3)} [api_server.py:1287] vLLM API server version 0.9.1")] + L
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:118", prefix=False) + access_lines(c, api, "/v1/completions", v0=True)
    L = [(t, l) for t, l in L if t <= start + (n - 1) * iv + 1]
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, "intermediate_size": 17408,
          "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
          "max_position_embeddings": 40960, "rope_theta": 1000000, "vocab_size": 151936, "torch_dtype": "float16",
          "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}}
    used = int(0.95 * A100_80) + 420 * 2 ** 20
    dev = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": A100_80, "memory_used": used,
            "processes": [{"pid": 2051, "name": "python3", "used_memory": used - 400 * 2 ** 20}]}]
    argv = ["vllm", "serve", "Qwen/Qwen3-14B-AWQ", "--gpu-memory-utilization", "0.95", "--max-model-len", "16384", "--tensor-parallel-size", "1",
            "--enforce-eager", "--guided-decoding-backend", "guidance", "--max-num-seq", "30"]
    args = {"model": "Qwen/Qwen3-14B-AWQ", "gpu-memory-utilization": 0.95, "max-model-len": 16384, "tensor-parallel-size": 1,
            "enforce-eager": True, "guided-decoding-backend": "guidance", "max-num-seqs": 30}
    write(c, C / cid / "bundle", server=server_json("0.9.1", "Qwen/Qwen3-14B-AWQ", "Qwen/Qwen3-14B-AWQ", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="Qwen3-14B-AWQ on one A100 80GB. benchmark_serving.py random dataset, 16,000 input / 200 output tokens, --max-concurrency 25. Complaint: TTFT over 34 s and ~3 output tokens/s per request at concurrency 25 (at concurrency 1: TTFT 3.3 s, TPOT 21 ms). /metrics every 10 s for 10 min and the server log.")


# ---------------------------------------------------------------- holdout: Qwen3.5-35B-A3B MTP, p99 TTFT tail
def case_q35tail():
    cid = "u-qwen35-35b-mtp-ttft-p99-tail"
    rng = random.Random(35625)
    t0 = 1772272800.0  # 2026-02-28 10:00 UTC
    start, n, iv = t0 + 1500, 61, 10.0
    mml = 262144
    pool = 441344
    c = Case(cid, "0.16.0", False, "Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-35B-A3B", mml, start, n, iv, {}, pool, 16, 1024,
             spec_k=2, spec_pos_rates=[0.78, 0.52], tmpl=T016, mm_hits=False)
    b0 = start + 240.0
    reqs = []
    # closed loop, 100 clients; first wave waits 1.5-5 s for its first token, later requests 0.1-0.3 s
    slots = [b0 + i * 0.004 for i in range(100)]
    rid = 0
    done = 0
    import heapq
    heap = [(t, i) for i, t in enumerate(slots)]
    heapq.heapify(heap)
    while done < 1000:
        t, i = heapq.heappop(heap)
        first_wave = rid < 100
        if first_wave:
            ttft = rng.uniform(1.4, 5.1) if rid < 22 else rng.uniform(0.25, 0.9)
        else:
            ttft = rng.uniform(0.10, 0.30) if rng.random() > 0.02 else rng.uniform(0.4, 1.2)
        r = Req(rid, round(t, 3), 128, 0, 128, 128, "length"); rid += 1
        r.t_sched = t + min(ttft * 0.6, 0.05 if not first_wave else ttft * 0.7)
        r.t_first = t + ttft
        r.tps = 2.3
        r.step_s = rng.uniform(0.026, 0.034)
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r); done += 1
        heapq.heappush(heap, (r.t_end + 0.002, i))
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T016, gpu_memory_utilization=0.8, num_gpu_blocks=pool // 16, mamba_block_size="16")
    api, core = 2210, 2387
    refs = {"args": "utils.py:299", "worker": "gpu_worker.py:375", "kv1": "kv_cache_utils.py:1229", "kv2": "kv_cache_utils.py:1234", "api": "api_server.py:1980"}
    nondef = ("{'model_tag': 'Qwen/Qwen3.5-35B-A3B', 'model': 'Qwen/Qwen3.5-35B-A3B', 'max_model_len': 262144, 'reasoning_parser': 'qwen3', "
              "'gpu_memory_utilization': 0.8, 'speculative_config': {'method': 'qwen3_next_mtp', 'num_speculative_tokens': 2}, 'language_model_only': True}")
    extra = ["[model.py:552] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
             "[scheduler.py:224] Chunked prefill is enabled with max_num_batched_tokens=8192.",
             "[core.py:97] Initializing a V1 LLM engine (v0.16.0) with config: model='Qwen/Qwen3.5-35B-A3B', speculative_config=SpeculativeConfig(method='qwen3_next_mtp', model='Qwen/Qwen3.5-35B-A3B', num_spec_tokens=2), dtype=torch.bfloat16, max_seq_len=262144, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True",
             "[gpu_model_runner.py:3650] Model loading took 66.97 GiB memory and 41.22 seconds",
             "[gpu_model_runner.py:4534] Graph capturing finished in 18 secs, took 1.12 GiB"]
    L = startup(t0, api, core, nondef, 8.42, pool, mml, refs, extra=extra)
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:257", spec_ref="metrics.py:100", mm_line=False)
    L += access_lines(c, api, "/v1/completions")
    mc = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe", "text_config": {
        "model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16,
        "num_key_value_heads": 2, "head_dim": 256, "full_attention_interval": 4, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512, "mtp_num_hidden_layers": 1,
        "max_position_embeddings": 262144, "vocab_size": 248320, "torch_dtype": "bfloat16"}, "torch_dtype": "bfloat16"}
    used = int(0.8 * PRO6000) + 610 * 2 ** 20
    dev = [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memory_total": PRO6000, "memory_used": used,
            "processes": [{"pid": core, "name": "VLLM::EngineCore", "used_memory": used - 560 * 2 ** 20}]}]
    argv = ["vllm", "serve", "Qwen/Qwen3.5-35B-A3B", "--port", "8000", "--tensor-parallel-size", "1", "--max-model-len", "262144",
            "--reasoning-parser", "qwen3", "--speculative-config", '{"method":"qwen3_next_mtp","num_speculative_tokens":2}',
            "--gpu-memory-utilization", "0.8", "--language-model-only"]
    args = {"model": "Qwen/Qwen3.5-35B-A3B", "port": 8000, "tensor-parallel-size": 1, "max-model-len": 262144, "reasoning-parser": "qwen3",
            "speculative-config": '{"method":"qwen3_next_mtp","num_speculative_tokens":2}', "gpu-memory-utilization": 0.8, "language-model-only": True}
    write(c, C / cid / "bundle", server=server_json("0.16.0", "Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-35B-A3B", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="Qwen3.5-35B-A3B with MTP (2 speculative tokens) on one RTX PRO 6000 Blackwell. vllm bench serve: 1000 random prompts, 128 input / 128 output tokens, --max-concurrency 100, run about 4 minutes into the capture. Client result: mean TTFT 612 ms, median 192 ms, P99 4757 ms. Complaint: severe TTFT tail latency. /metrics every 10 s for 10 min and the server log.")


BUILDERS.update({"u-qwen3-14b-awq-16k-prompts-prefill-bound": case_awq16k, "u-qwen35-35b-mtp-ttft-p99-tail": case_q35tail})

if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILDERS)
    for nme in names:
        BUILDERS[nme]()
        print("built", nme)
