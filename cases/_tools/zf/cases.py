"""Build the zf-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/zf/cases.py [case-id ...]

Simulator and writer copied from cases/_tools/y/gen.py. Family names, HELP texts and buckets come from the last
scrape of an existing case bundle of a nearby vLLM release (format examples allowed by the brief).
A stalled engine is modelled by freezing requests at t_freeze: their token counts stop, they never finish.
"""
import copy, json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
T019 = "b-hybrid-qwen35-block528"             # vLLM 0.19.1
T011 = "d-kv-93pct-38-streams-healthy"        # vLLM 0.11.0
T073 = "c-v0-recompute-warnings-limo32b"      # vLLM 0.7.3 (V0)
GiB, MiB = 2 ** 30, 2 ** 20
NEVER = 1e12


class SReq(Req):
    """A request whose progress stops at `freeze` (engine stalled); it never finishes."""
    freeze: float = NEVER

    def gen_by(self, t):
        return Req.gen_by(self, min(t, self.freeze))

    def steps_by(self, t):
        return Req.steps_by(self, min(t, self.freeze))


def stall(r: Req, t_freeze: float) -> SReq:
    s = SReq(**{k: getattr(r, k) for k in Req.__dataclass_fields__})
    s.freeze = t_freeze
    if s.t_sched > t_freeze:      # never admitted
        s.t_sched = NEVER
    if s.t_first > t_freeze:      # no first token
        s.t_first = NEVER
    s.t_end = NEVER
    return s


def startup(t, api, core, nondef, kv_gib, kv_tok, mml, refs, extra=(), core_tag="EngineCore_DP0"):
    A = f"(APIServer pid={api}) "
    E = f"({core_tag} pid={core}) "
    L = [(t, f"{A}INFO {ts(t)} [{refs['args']}] non-default args: {nondef}")]
    for i, x in enumerate(extra):
        L.append((t + 10 + i, f"{E}INFO {ts(t+10+i)} {x}"))
    L += [(t + 60, f"{E}INFO {ts(t+60)} [{refs['worker']}] Available KV cache memory: {kv_gib:.2f} GiB"),
          (t + 60.1, f"{E}INFO {ts(t+60)} [{refs['kv1']}] GPU KV cache size: {kv_tok:,} tokens"),
          (t + 60.2, f"{E}INFO {ts(t+60)} [{refs['kv2']}] Maximum concurrency for {mml:,} tokens per request: {kv_tok / mml:.2f}x"),
          (t + 90, f"{A}INFO {ts(t+90)} [{refs['api']}] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


def closed_loop(rng, t_from, t_until, workers, mk):
    """Each worker sends the next request shortly after its previous one ends; mk(rid, t) -> Req with timings set."""
    reqs, rid = [], 0
    for w in range(workers):
        t = t_from + w * rng.uniform(0.2, 1.5)
        while t < t_until:
            r = mk(rid, t); rid += 1
            reqs.append(r)
            t = r.t_end + rng.uniform(0.05, 2.0)
    return reqs


# ---------------------------------------------------------------- dev-8: Qwen3-30B-A3B thinking runs to the cap, healthy
def case_thinking():
    cid = "zf-qwen3-30b-thinking-runs-to-cap-healthy"
    rng = random.Random(30599)
    t0 = 1765476000.0  # 2025-12-11 18:00 UTC
    start, n, iv = t0 + 9000, 61, 10.0
    block, blocks = 16, 44712
    pool, mml = block * blocks, 40960
    c = Case(cid, "0.12.0", False, "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B", mml, start, n, iv, {}, pool, block, 256, tmpl=T011)
    reqs, t, rid = [], start - 150.0, 0
    while t < start + n * iv:
        p = 1040 + rng.randint(0, 40)
        r = Req(rid, round(t, 3), p, 704, 32768, 32768, "length"); rid += 1
        r.t_sched = t + 0.004
        r.t_first = r.t_sched + rng.uniform(0.09, 0.14)
        r.step_s = rng.uniform(0.00595, 0.00625)  # ~165 tok/s averaged over 2k..33k context
        r.t_end = r.t_first + 32767 * r.step_s
        reqs.append(r)
        t = r.t_end + rng.uniform(4.0, 12.0)  # the user reads the answer, then repeats
    c.reqs = reqs
    c.labels_cc = tmpl_cc(T011, gpu_memory_utilization=0.9, num_gpu_blocks=blocks)
    api, core = 1, 167
    refs = {"args": "utils.py:253", "worker": "gpu_worker.py:298", "kv1": "kv_cache_utils.py:1229", "kv2": "kv_cache_utils.py:1234", "api": "api_server.py:2087"}
    nondef = "{'model_tag': 'Qwen/Qwen3-30B-A3B', 'model': 'Qwen/Qwen3-30B-A3B', 'max_model_len': 40960, 'reasoning_parser': 'qwen3', 'enable_auto_tool_choice': True, 'tool_call_parser': 'hermes'}"
    extra = ["[model.py:637] Resolved architecture: Qwen3MoeForCausalLM",
             "[model.py:1750] Using max model len 40960",
             "[scheduler.py:225] Chunked prefill is enabled with max_num_batched_tokens=8192.",
             "[core.py:93] Initializing a V1 LLM engine (v0.12.0) with config: model='Qwen/Qwen3-30B-A3B', tensor_parallel_size=1, max_seq_len=40960, enable_prefix_caching=True, enable_chunked_prefill=True",
             "[gpu_model_runner.py:3338] Model loading took 56.92 GiB memory and 38.10 seconds",
             "[gpu_worker.py:359] Free memory on device (139.1/139.8 GiB) on startup. Desired GPU memory utilization is (0.9, 125.8 GiB). Actual usage is 56.92 GiB for weight, 2.91 GiB for peak activation, 0.47 GiB for non-torch memory, and 1.25 GiB for CUDAGraph memory."]
    L = startup(t0, api, core, nondef, 65.50, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1913] vLLM API server version 0.12.0"))
    last = "67.9%"
    for tt, line in stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:236"):
        head, hit = line.rsplit("Prefix cache hit rate: ", 1)
        if hit != "0.0%":
            last = hit
        L.append((tt, head + "Prefix cache hit rate: " + last))  # V1 reports the rate over recent requests
    for r in reqs:
        L.append((r.t_arr + 0.001, f"(APIServer pid={api}) WARNING {ts(r.t_arr)} [protocol.py:112] The following fields were present in the request but ignored: {{'strict'}}"))
        L.append((r.t_end + 0.002, f'(APIServer pid={api}) INFO:     127.0.0.1:{39830 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    for k in range(0, n, 3):
        tt = start + k * iv + 4
        L.append((tt, f'(APIServer pid={api}) INFO:     127.0.0.1:39830 - "GET /health HTTP/1.1" 200 OK'))
    mc = json.loads((C / T011 / "bundle" / "model_config.json").read_text())
    mc.update({"max_position_embeddings": 40960, "_name_or_path": "Qwen/Qwen3-30B-A3B"})
    H200 = 143771 * MiB
    used = int(0.9 * H200) + 612 * MiB
    dev = [{"index": 0, "name": "NVIDIA H200", "memory_total": H200, "memory_used": used,
            "processes": [{"pid": 310, "name": "VLLM::EngineCore", "used_memory": used - 560 * MiB}]}]
    argv = ["vllm", "serve", "Qwen/Qwen3-30B-A3B", "--max-model-len", "40960", "--reasoning-parser", "qwen3",
            "--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
    args = {"model": "Qwen/Qwen3-30B-A3B", "max-model-len": 40960, "reasoning-parser": "qwen3", "enable-auto-tool-choice": True, "tool-call-parser": "hermes"}
    write(c, C / cid / "bundle", server=server_json("0.12.0", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="vllm/vllm-openai:v0.12.0 container, Qwen3-30B-A3B, thinking mode on. One user at a time from an agent app. "
                "Complaint: requests 'hang' - a single chat completion takes minutes and keeps reasoning. /metrics every 10 s for 10 min, container log, NVML.")


# ---------------------------------------------------------------- holdout-8: multimodal cache eviction hangs the engine input thread
def case_mmhang():
    cid = "zf-mm-cache-evict-input-thread-hang"
    rng = random.Random(47958)
    t0 = 1783296000.0 - 3 * 86400  # started 3 days before the capture
    start, n, iv = 1783296000.0 + 7200, 61, 10.0
    t_hang = start + 117.3
    block, blocks = 528, 385
    pool, mml = block * blocks, 32768
    c = Case(cid, "0.23.1", False, "qwen3.5-27b", "Qwen/Qwen3.5-27B", mml, start, n, iv, {}, pool, block, 256, tmpl=T019)

    def mk(rid, t):
        p = 1320 + rng.randint(250, 520)
        r = Req(rid, round(t, 3), p, 0, rng.randint(250, 450), 1024, "stop", mm=1)
        r.t_sched = t + 0.003
        r.t_first = r.t_sched + rng.uniform(0.38, 0.80)
        r.step_s = rng.uniform(0.028, 0.033)
        r.t_end = r.t_first + (r.gen - 1) * r.step_s
        return r
    allreq = closed_loop(rng, start - 300, start + n * iv, 8, mk)
    served = [r for r in allreq if r.t_arr < t_hang]
    # after the hang: arrivals are accepted by the API server but never reach the engine; clients give up at 300 s
    late, k = [], 0
    t = t_hang + 1.0
    while t < start + n * iv:
        late.append(t); k += 1
        t += rng.uniform(2.0, 9.0) if k > 8 else rng.uniform(0.3, 1.5)
    c.reqs = served
    c.labels_cc = tmpl_cc(T019, gpu_memory_utilization=0.92, num_gpu_blocks=blocks)
    api, core = 1, 96637
    refs = {"args": "utils.py:299", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1316", "kv2": "kv_cache_utils.py:1321", "api": "api_server.py:1988"}
    nondef = ("{'model_tag': 'Qwen/Qwen3.5-27B', 'model': 'Qwen/Qwen3.5-27B', 'served_model_name': ['qwen3.5-27b'], 'max_model_len': 32768, "
              "'gpu_memory_utilization': 0.92, 'limit_mm_per_prompt': {'image': 1}}")
    extra = ["[model.py:552] Resolved architecture: Qwen3_5ForConditionalGeneration",
             "[model.py:1677] Using max model len 32768",
             "[scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192.",
             "[config.py:281] Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.",
             "[core.py:101] Initializing a V1 LLM engine (v0.23.1) with config: model='Qwen/Qwen3.5-27B', tensor_parallel_size=1, enable_prefix_caching=True, enable_chunked_prefill=True, mamba_cache_mode=align",
             "[gpu_model_runner.py:4188] Model loading took 51.87 GiB memory and 62.40 seconds",
             "[gpu_model_runner.py:4997] Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size."]
    L = startup(t0, api, core, nondef, 14.90, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1947] vLLM API server version 0.23.1"))
    st = stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259")
    # the logger prints one last all-zero line, then stays silent while the engine is idle
    zero_seen = False
    for tt, line in st:
        if tt <= t_hang:
            L.append((tt, line)); continue
        if "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s" in line:
            if zero_seen:
                continue
            zero_seen = True
        L.append((tt, line))
    for r in served:
        L.append((r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     10.8.0.{21 + r.rid % 4}:{42000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    for j, tl in enumerate(late):
        L.append((tl + 0.002, f'(APIServer pid={api}) INFO:     10.8.0.{21 + j % 4}:{52000 + j} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    for k in range(n):
        L.append((start + k * iv + 2.5, f'(APIServer pid={api}) INFO:     10.8.0.2:38122 - "GET /health HTTP/1.1" 200 OK'))
    H100 = 81559 * MiB
    used = int(0.92 * H100) + 520 * MiB
    dev = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": H100, "memory_used": used,
            "processes": [{"pid": core, "name": "VLLM::EngineCore", "used_memory": used - 500 * MiB}]}]
    argv = ["vllm", "serve", "Qwen/Qwen3.5-27B", "--served-model-name", "qwen3.5-27b", "--max-model-len", "32768",
            "--gpu-memory-utilization", "0.92", "--limit-mm-per-prompt", '{"image": 1}']
    args = {"model": "Qwen/Qwen3.5-27B", "served-model-name": "qwen3.5-27b", "max-model-len": 32768, "gpu-memory-utilization": 0.92,
            "limit-mm-per-prompt": {"image": 1}}
    write(c, C / cid / "bundle", server=server_json("0.23.1", "qwen3.5-27b", "Qwen/Qwen3.5-27B", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://ocr-vllm:8000",
          notes="Single-GPU Qwen3.5-27B serving OCR / field extraction on document images (one image per request, streaming), up ~3 days. "
                "Complaint: requests hang - the OCR workers get HTTP 200 and then nothing, and time out after 300 s; /health stays 200. "
                "/metrics every 10 s for 10 min, NVML, server log.")


# ---------------------------------------------------------------- holdout-8: NVFP4 + MTP on 4x B300, engine stops with the last request in flight
def case_nvfp4():
    cid = "zf-nvfp4-mtp-b300-last-request-stall-undecided"
    rng = random.Random(40350)
    t0 = 1776650400.0  # 2026-04-20 02:00 UTC
    start, n, iv = t0 + 2400, 61, 10.0
    block, blocks = 1056, 2368
    pool, mml = block * blocks, 3072
    rates = [0.80, 0.60, 0.42]
    c = Case(cid, "0.19.1rc1.dev391+g80b18230e", False, "nvidia/Qwen3.5-397B-A17B-NVFP4", "nvidia/Qwen3.5-397B-A17B-NVFP4", mml,
             start, n, iv, {}, pool, block, 1024, spec_k=3, spec_pos_rates=rates, tmpl=T019)
    tps = 1 + sum(rates)
    todo = 3500
    # closed loop of 256 clients over a fixed list of prompts (vllm bench serve --max-concurrency 256)
    reqs, rid = [], 0
    free = [start - 75 + w * 0.004 for w in range(256)]
    while rid < todo:
        w = min(range(256), key=lambda i: free[i])
        t = free[w]
        p = rng.randint(1000, 1500)
        g = rng.randint(512, 1024)
        r = Req(rid, round(t, 3), p, 0, g, g, "length"); rid += 1
        r.tps = tps
        r.t_sched = t + 0.003
        r.t_first = r.t_sched + rng.uniform(0.6, 1.8)
        r.step_s = rng.uniform(0.062, 0.070)
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r)
        free[w] = r.t_end + 0.002
    reqs.sort(key=lambda r: r.t_end)
    # the engine stops stepping once only the last request is left, with tokens still to go
    t_freeze = min(reqs[-2].t_end + 1.3, (reqs[-2].t_end + reqs[-1].t_end) / 2)
    c.reqs = [stall(r, t_freeze) if r.t_end > t_freeze else r for r in reqs]
    c.labels_cc = tmpl_cc(T019, cache_dtype="fp8_e4m3", enable_prefix_caching="False", block_size=block, mamba_block_size=block,
                          mamba_cache_mode="none", num_gpu_blocks=blocks)
    api, core = 563220, 563410
    refs = {"args": "utils.py:299", "worker": "gpu_worker.py:436", "kv1": "kv_cache_utils.py:1316", "kv2": "kv_cache_utils.py:1321", "api": "api_server.py:1988"}
    nondef = ("{'model': 'nvidia/Qwen3.5-397B-A17B-NVFP4', 'trust_remote_code': True, 'max_model_len': 3072, 'quantization': 'modelopt', "
              "'tensor_parallel_size': 4, 'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8_e4m3', 'enable_prefix_caching': False, "
              "'language_model_only': True, 'async_scheduling': True, 'attention_backend': 'FLASHINFER', "
              "'compilation_config': {'max_cudagraph_capture_size': 2048}, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}")
    extra = ["[model.py:552] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
             "[model.py:1677] Using max model len 3072",
             "[scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192.",
             "[core.py:101] Initializing a V1 LLM engine (v0.19.1rc1.dev391+g80b18230e) with config: model='nvidia/Qwen3.5-397B-A17B-NVFP4', speculative_config=SpeculativeConfig(method='mtp', model='nvidia/Qwen3.5-397B-A17B-NVFP4', num_spec_tokens=3), tensor_parallel_size=4, quantization=modelopt_fp4, kv_cache_dtype=fp8_e4m3, enable_prefix_caching=False, enable_chunked_prefill=True",
             "[gpu_model_runner.py:4188] Model loading took 61.84 GiB memory and 212.52 seconds",
             "[gpu_worker.py:436] Memory profiling takes 21.05 seconds. Total non KV cache memory: 70.33 GiB; torch peak memory increase: 7.92 GiB; weights memory: 61.84 GiB."]
    L = startup(t0, api, core, nondef, 169.41, pool, mml, refs, extra=extra)
    L.insert(0, (t0 - 1, f"(APIServer pid={api}) INFO {ts(t0-1)} [api_server.py:1947] vLLM API server version 0.19.1rc1.dev391+g80b18230e"))
    L += stats_lines(c, start - 60, start + (n - 1) * iv, api, "loggers.py:259")
    for r in reqs:
        if r.t_end <= t_freeze:
            L.append((r.t_end + 0.002, f'(APIServer pid={api}) INFO:     127.0.0.1:{40000 + r.rid % 20000} - "POST /v1/completions HTTP/1.1" 200 OK'))
    for k in range(n):
        L.append((start + k * iv + 1.0, f'(APIServer pid={api}) INFO:     10.0.0.5:9090 - "GET /metrics HTTP/1.1" 200 OK'))
    B300 = 275040 * MiB
    used = int(0.9 * B300) + 700 * MiB
    dev = [{"index": i, "name": "NVIDIA B300 SXM6 AC", "memory_total": B300, "memory_used": used,
            "processes": [{"pid": core + 1 + i, "name": "VLLM::Worker_TP%d_EP%d" % (i, i), "used_memory": used - 640 * MiB}]} for i in range(4)]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "nvidia/Qwen3.5-397B-A17B-NVFP4", "--tensor-parallel-size", "4",
            "--kv-cache-dtype", "fp8_e4m3", "--trust-remote-code", "--max-model-len", "3072", "--no-enable-prefix-caching", "--language-model-only",
            "--async-scheduling", "--attention-backend", "FLASHINFER", "--enable-expert-parallel", "--quantization", "modelopt",
            "--compilation_config.max_cudagraph_capture_size", "2048", "--speculative_config.method", "mtp",
            "--speculative_config.num_speculative_tokens", "3"]
    args = {"model": "nvidia/Qwen3.5-397B-A17B-NVFP4", "tensor-parallel-size": 4, "kv-cache-dtype": "fp8_e4m3", "trust-remote-code": True,
            "max-model-len": 3072, "enable-prefix-caching": False, "language-model-only": True, "async-scheduling": True,
            "attention-backend": "FLASHINFER", "enable-expert-parallel": True, "quantization": "modelopt",
            "compilation-config": {"max_cudagraph_capture_size": 2048}, "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}
    write(c, C / cid / "bundle", server=server_json("0.19.1rc1.dev391+g80b18230e", "nvidia/Qwen3.5-397B-A17B-NVFP4", "nvidia/Qwen3.5-397B-A17B-NVFP4", mml, int(t0 + 90)),
          engine_args={"argv": argv, "args": args}, model_config=None, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="4x B300, TP4/EP4, Qwen3.5-397B-A17B NVFP4 with MTP and async scheduling; vllm bench serve, 3500 prompts at max-concurrency 256. "
                "Complaint: the benchmark never finishes - the last request hangs forever; /metrics stays 200. At 330 s into the capture a "
                "curl /v1/completions with max_tokens=1 got no response within 120 s. /metrics every 10 s for 10 min, NVML, server log.")


# ---------------------------------------------------------------- holdout-8: V0 0.7.2, priority policy + swap preemption, empty schedules
def v0_stats(c, t0, t1, ref="metrics.py:455", every=5.0):
    L, t = [], t0 + every
    pre = lambda x: [r for r in c.reqs if r.t_first <= x]
    while t <= t1:
        a, b = t - every, t
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
        wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
        usage = min(1.0, blocks * c.block_size / c.pool_tokens) * 100
        L.append((b, f"INFO {ts(b)} {ref}] Avg prompt throughput: {pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                     f"Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {usage:.1f}%, CPU KV cache usage: 0.0%."))
        t += every
    return L


def case_v0stall():
    cid = "zf-v0-priority-swap-a100-llama30b-empty-schedules"
    rng = random.Random(15996)
    t0 = 1743638400.0  # 2025-04-03 00:00 UTC
    start, n, iv = t0 + 600, 61, 10.0
    block, blocks = 16, 361
    pool, mml = block * blocks, 2048
    c = Case(cid, "0.7.2", True, "huggyllama/llama-30b", "huggyllama/llama-30b", mml, start, n, iv, {}, pool, block, 256, tmpl=T073)
    reqs, t, rid = [], start + 30.0, 0
    while t < start + n * iv:
        p = rng.randint(300, 600)
        r = Req(rid, round(t, 3), p, 0, rng.randint(100, 400), 512, "stop"); rid += 1
        reqs.append(r)
        t += rng.expovariate(1.75)
    def step_fn(k):
        return 0.030 + 0.0006 * k
    def prefill_fn(r, k):
        return 0.09 + r.prompt * 0.00018
    c.pool_tokens = pool - 12 * block   # V0 watermark and per-request block rounding
    simulate(c, reqs, step_fn, prefill_fn, gen_reserve=False, gen_frac=0.55)
    c.pool_tokens = pool
    # freeze: first moment after ~3.5 min where the pool is >= 96 % full with >= 9 running
    tt, t_freeze = start + 190.0, None
    while tt < start + 400:
        run = [r for r in reqs if r.t_sched <= tt < r.t_end]
        b = sum(math.ceil((r.prompt + r.gen_by(tt)) / block) for r in run)
        if 0.955 * pool <= b * block <= 0.99 * pool and len(run) == 9:
            t_freeze = tt; break
        tt += 0.25
    assert t_freeze, "no freeze point"
    c.reqs = [stall(r, t_freeze) if r.t_end > t_freeze else r for r in reqs]
    c.labels_cc = tmpl_cc(T073, num_gpu_blocks=blocks, num_cpu_blocks=168)
    L = [(t0 - 1, f"INFO {ts(t0-1)} api_server.py:912] vLLM API server version 0.7.2"),
         (t0, f"INFO {ts(t0)} api_server.py:913] args: Namespace(host=None, port=8000, model='huggyllama/llama-30b', tensor_parallel_size=1, max_model_len=2048, "
              f"gpu_memory_utilization=0.9, swap_space=4, block_size=None, enable_prefix_caching=None, preemption_mode='swap', scheduling_policy='priority', disable_log_requests=True)"),
         (t0 + 9, f"INFO {ts(t0+9)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='huggyllama/llama-30b', speculative_config=None, tokenizer='huggyllama/llama-30b', "
                  f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, tensor_parallel_size=1, pipeline_parallel_size=1, "
                  f"enforce_eager=False, kv_cache_dtype=auto, seed=0, served_model_name=huggyllama/llama-30b, num_scheduler_steps=1, multi_step_stream_outputs=True, "
                  f"enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=True"),
         (t0 + 70, f"INFO {ts(t0+70)} model_runner.py:1115] Loading model weights took 60.59 GB"),
         (t0 + 76, f"INFO {ts(t0+76)} worker.py:267] Memory profiling takes 5.62 seconds"),
         (t0 + 76.01, f"INFO {ts(t0+76)} worker.py:267] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB"),
         (t0 + 76.02, f"INFO {ts(t0+76)} worker.py:267] model weights take 60.59GiB; non_torch_memory takes 0.21GiB; PyTorch activation peak memory takes 1.82GiB; the rest of the memory reserved for KV Cache is 8.62GiB."),
         (t0 + 76.03, f"INFO {ts(t0+76)} executor_base.py:111] # cuda blocks: {blocks}, # CPU blocks: 168"),
         (t0 + 76.04, f"INFO {ts(t0+76)} executor_base.py:116] Maximum concurrency for 2048 tokens per request: {pool / mml:.2f}x"),
         (t0 + 95, f"INFO {ts(t0+95)} llm_engine.py:436] init engine (profile, create kv cache, warmup model) took 25.31 seconds"),
         (t0 + 96, f"INFO {ts(t0+96)} launcher.py:29] Available routes are:"),
         (t0 + 97, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    L += v0_stats(c, start - 30, start + (n - 1) * iv)
    for r in c.reqs:
        if r.t_end < NEVER:
            L.append((r.t_end + 0.002, f'INFO:     10.1.0.{5 + r.rid % 3}:{50000 + r.rid % 15000} - "POST /v1/completions HTTP/1.1" 200 OK'))
    A100 = 81920 * MiB
    used = int(0.9 * 81050 * MiB) + 420 * MiB
    dev = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": A100, "memory_used": used,
            "processes": [{"pid": 2231, "name": "python3", "used_memory": used - 410 * MiB}]}]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "huggyllama/llama-30b", "--max-model-len", "2048",
            "--preemption-mode", "swap", "--scheduling-policy", "priority", "--disable-log-requests"]
    args = {"model": "huggyllama/llama-30b", "max-model-len": 2048, "preemption-mode": "swap", "scheduling-policy": "priority", "disable-log-requests": True}
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 6656, "intermediate_size": 17920, "num_attention_heads": 52,
          "num_hidden_layers": 60, "max_position_embeddings": 2048, "max_sequence_length": 2048, "rms_norm_eps": 1e-06, "torch_dtype": "float16",
          "vocab_size": 32000, "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0, "tie_word_embeddings": False,
          "initializer_range": 0.02, "use_cache": True, "transformers_version": "4.28.0.dev0"}
    write(c, C / cid / "bundle", server=server_json("0.7.2", "huggyllama/llama-30b", "huggyllama/llama-30b", mml, int(t0 + 97)),
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu_samples(c, dev), logs=L, endpoint="http://127.0.0.1:8000",
          notes="Pressure test of LLaMA-30B on one A100 80G, vLLM 0.7.2 (V0), priority scheduling with swap preemption, ~2 req/s with client-set priorities. "
                "Complaint: after a few minutes the system is stuck - new requests stay pending, running ones return nothing. /metrics every 10 s for 10 min, server log, NVML.")


BUILDERS = {"zf-qwen3-30b-thinking-runs-to-cap-healthy": case_thinking,
            "zf-mm-cache-evict-input-thread-hang": case_mmhang,
            "zf-nvfp4-mtp-b300-last-request-stall-undecided": case_nvfp4,
            "zf-v0-priority-swap-a100-llama30b-empty-schedules": case_v0stall}

if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILDERS)
    for nme in names:
        BUILDERS[nme]()
        print("built", nme)
