"""Writer zxk, round 24: four slow-ITL bundles (request-level simulation, one per case).

Adapted from cases/_tools/zxe (common.py copied unchanged: Template/render/write_bundle). The
simulation here is step-based: every request decodes in engine steps of a given duration that
emit one or more tokens (speculative decoding emits 1 + accepted drafts), so the inter-token
latency histogram records one observation per step (per output chunk, as V1 does) while
request_time_per_output_token is decode time / (tokens - 1). Spec-decode counters come from the
same steps. Metric families, HELP/TYPE lines and label layouts are those of a capture of the same
vLLM line in this corpus (format examples):
  0.29.x  cases/zzm-qwen38-3090-block448      (spec-decode families included)
  0.20.2  cases/x-l4-qwen3-4b-agent-kv-cliff
  0.11.x  cases/d-kv-93pct-38-streams-healthy
Run: python3 cases/_tools/zxk/build.py
"""
import datetime as dt
import math
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Snap, Template, b125, models_body, render, write_bundle  # noqa: E402,F401


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def ts(y, mo, d, h, mi):
    return dt.datetime(y, mo, d, h, mi, 0, tzinfo=dt.timezone.utc).timestamp()


@dataclass
class Req:
    t_arrive: float
    prompt_len: int
    gen_len: int
    queue_s: float
    prefill_s: float
    steps: list = field(default_factory=list)   # [(duration_s, tokens, accepted_per_pos list)]
    max_tokens: int = 0
    finished_reason: str = "length"
    hit: int = 0

    def __post_init__(self):
        self.max_tokens = self.max_tokens or self.gen_len
        self.t_sched = self.t_arrive + self.queue_s
        self.t_first = self.t_sched + self.prefill_s
        ends, t = [], self.t_first
        for d, _, _ in self.steps:
            t += d
            ends.append(t)
        self.ends = ends
        self.t_end = ends[-1] if ends else self.t_first

    def done_steps(self, t):
        if t < self.t_first:
            return 0
        lo, hi = 0, len(self.ends)
        while lo < hi:
            m = (lo + hi) // 2
            if self.ends[m] <= t:
                lo = m + 1
            else:
                hi = m
        return lo

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        n = self.done_steps(t)
        return 1 + sum(s[1] for s in self.steps[:n])


def make_steps(rng, n_tokens, k, cond, dur_fn):
    """Steps until n_tokens-1 tokens after the first are emitted. cond[j]: P(pos j accepted | pos j-1)."""
    out, left, i = [], n_tokens - 1, 0
    while left > 0:
        acc = 0
        for j in range(k):
            if rng.random() < cond[j]:
                acc += 1
            else:
                break
        tok = min(left, 1 + acc)
        per = [1 if j < acc else 0 for j in range(k)]
        out.append((dur_fn(i), tok, per))
        left -= tok
        i += 1
    return out


def counts(reqs, t, *, block, num_blocks, k):
    sched = [r for r in reqs if r.t_sched <= t]
    first = [r for r in reqs if r.t_first <= t]
    done = [r for r in reqs if r.t_end <= t]
    running = [r for r in reqs if r.t_sched <= t < r.t_end]
    waiting = [r for r in reqs if r.t_arrive <= t < r.t_sched]
    blocks = sum(math.ceil((r.prompt_len + r.gen_by(t)) / block) for r in running)
    usage = min(1.0, blocks / num_blocks) if running else 0.0
    gen = sum(r.gen_by(t) for r in reqs)
    itl, drafts, acc, per = [], 0, 0, [0] * k
    for r in reqs:
        n = r.done_steps(t)
        for d, tok, p in r.steps[:n]:
            itl.append(d)
            if k:
                drafts += 1
                acc += sum(p)
                for j in range(k):
                    per[j] += p[j]
    return dict(sched=sched, first=first, done=done, running=running, waiting=waiting, usage=usage,
                gen=gen, itl=itl, drafts=drafts, acc=acc, per=per,
                prompt=sum(r.prompt_len for r in first), q=sum(r.prompt_len for r in sched),
                h=sum(r.hit for r in sched))


def snapshot(reqs, t, *, block, num_blocks, k, iter_obs):
    c = counts(reqs, t, block=block, num_blocks=num_blocks, k=k)
    C = {}

    def put(name, v, **extra):
        C[(name, frozenset(extra.items()))] = float(v)
    first, done = c["first"], c["done"]
    put("vllm:prefix_cache_queries", c["q"])
    put("vllm:prefix_cache_hits", c["h"])
    put("vllm:prompt_tokens", c["prompt"])
    put("vllm:prompt_tokens_by_source", sum(r.prompt_len - r.hit for r in first), source="local_compute")
    put("vllm:prompt_tokens_by_source", sum(r.hit for r in first), source="local_cache_hit")
    put("vllm:prompt_tokens_by_source", 0, source="external_kv_transfer")
    put("vllm:prompt_tokens_cached", sum(r.hit for r in first))
    put("vllm:generation_tokens", c["gen"])
    for fr in ("stop", "length", "abort", "error", "repetition"):
        put("vllm:request_success", sum(1 for r in done if r.finished_reason == fr), finished_reason=fr)
    if k:
        put("vllm:spec_decode_num_drafts", c["drafts"])
        put("vllm:spec_decode_num_draft_tokens", c["drafts"] * k)
        put("vllm:spec_decode_num_accepted_tokens", c["acc"])
    G = {("vllm:num_requests_running", frozenset()): len(c["running"]),
         ("vllm:num_requests_waiting", frozenset()): len(c["waiting"]),
         ("vllm:kv_cache_usage_perc", frozenset()): round(c["usage"], 6),
         ("vllm:gpu_cache_usage_perc", frozenset()): round(c["usage"], 6),
         ("vllm:engine_sleep_state", frozenset({("sleep_state", "awake")})): 1}
    H = {
        "vllm:request_prompt_tokens": [r.prompt_len for r in done],
        "vllm:request_generation_tokens": [r.gen_len for r in done],
        "vllm:iteration_tokens_total": iter_obs,
        "vllm:request_max_num_generation_tokens": [r.max_tokens for r in done],
        "vllm:request_params_n": [1 for _ in done],
        "vllm:request_params_max_tokens": [r.max_tokens for r in done],
        "vllm:time_to_first_token_seconds": [round(r.t_first - r.t_arrive, 4) for r in first],
        "vllm:inter_token_latency_seconds": c["itl"],
        "vllm:time_per_output_token_seconds": c["itl"],
        "vllm:request_time_per_output_token_seconds": [(r.t_end - r.t_first) / (r.gen_len - 1) for r in done if r.gen_len > 1],
        "vllm:e2e_request_latency_seconds": [round(r.t_end - r.t_arrive, 4) for r in done],
        "vllm:request_queue_time_seconds": [r.queue_s for r in done],
        "vllm:request_inference_time_seconds": [round(r.t_end - r.t_sched, 4) for r in done],
        "vllm:request_prefill_time_seconds": [r.prefill_s for r in done],
        "vllm:request_decode_time_seconds": [round(r.t_end - r.t_first, 4) for r in done],
        "vllm:request_prefill_kv_computed_tokens": [r.prompt_len - r.hit for r in done],
    }
    return Snap(C, G, H), c


def fix_per_pos(text, k, per):
    """Rewrite the per-position accepted-token samples to k positions with the simulated values."""
    out, done = [], False
    for line in text.split("\n"):
        if line.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_total{"):
            if not done:
                lab = re.sub(r',?position="\d+"', "", re.match(r'^\S+?\{(.*)\}', line).group(1))
                for p in range(k):
                    out.append(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{lab},position="{p}"}} {float(per[p]):.1f}')
                done = True
            continue
        out.append(line)
    return "\n".join(out)


def cache_labels_of(tpl, **over):
    b = next(b for b in tpl.blocks if b[2] == "vllm:cache_config_info")
    d = {k: v for k, v in b[4][0][1] if k != "engine"}
    d.update({k: str(v) for k, v in over.items()})
    return d


def run_case(cid, *, base, version, model, served, mml, block, num_blocks, reqs, t0, n, interval,
             k, cache_over, logs_head, gpu, engine_args, notes, model_config=None, api="(APIServer pid=1) ",
             stats_line="loggers.py:257", spec_line="metrics.py:101", step_tokens_fn=None,
             drop=("vllm:estimated_",), access_ip="10.0.0.21", created=None):
    tpl = Template(base)
    tpl.blocks = [b for b in tpl.blocks if not any(b[2].startswith(d) for d in drop)]
    labels = cache_labels_of(tpl, **cache_over)
    t_end = t0 + interval * (n - 1)
    created = created or (t0 - 1800.0)
    scrapes, iter_obs = [], []
    prev = None
    for i in range(n):
        t = t0 + i * interval
        c = counts(reqs, t, block=block, num_blocks=num_blocks, k=k)
        if prev is not None:
            iter_obs.extend(step_tokens_fn(prev, c, interval))
        snap, c = snapshot(reqs, t, block=block, num_blocks=num_blocks, k=k, iter_obs=list(iter_obs))
        text = render(tpl, snap, model_name=served, created=created, max_model_len=mml, cache_labels=labels)
        if k:
            text = fix_per_pos(text, k, c["per"])
        scrapes.append({"t": t, "status": 200, "text": text})
        prev = c
    # logs: head, periodic stats + spec lines every 10 s, access log lines
    L, ev = list(logs_head), []
    t, pc = t0 - 60.0, None
    while t <= t_end + 1e-6:
        c = counts(reqs, t, block=block, num_blocks=num_blocks, k=k)
        if pc is not None and (c["gen"] != pc["gen"] or c["running"] or c["waiting"]):
            pt = (c["prompt"] - pc["prompt"]) / 10.0
            gt = (c["gen"] - pc["gen"]) / 10.0
            hr = 100.0 * c["h"] / c["q"] if c["q"] else 0.0
            ev.append((t, f"{api}INFO {fts(t)} [{stats_line}] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {len(c['running'])} reqs, Waiting: {len(c['waiting'])} reqs, GPU KV cache usage: {100*c['usage']:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
            dd = c["drafts"] - pc["drafts"]
            if k and dd > 0:
                aa = c["acc"] - pc["acc"]
                pp = ", ".join(f"{(c['per'][j]-pc['per'][j])/dd:.3f}" for j in range(k))
                ev.append((t + 0.001, f"{api}INFO {fts(t)} [{spec_line}] SpecDecoding metrics: Mean acceptance length: {1+aa/dd:.2f}, Accepted throughput: {aa/10:.2f} tokens/s, Drafted throughput: {dd*k/10:.2f} tokens/s, Accepted: {aa} tokens, Drafted: {dd*k} tokens, Per-position acceptance rate: {pp}, Avg Draft acceptance rate: {100*aa/(dd*k):.1f}%"))
        pc = c
        t += 10.0
    for j, r in enumerate(reqs):
        if t0 - 60 <= r.t_end <= t_end:
            ev.append((r.t_end, f"{api}INFO:     {access_ip}:{40000 + j % 20000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    for i in range(n):
        ev.append((t0 + i * interval + 0.003, f"{api}INFO:     127.0.0.1:52210 - \"GET /metrics HTTP/1.1\" 200 OK"))
    L += [x for _, x in sorted(ev, key=lambda e: e[0])]
    gpu_rows = None
    if gpu is not None:
        gpu_rows = [{"t": t0 + i * interval, "devices": gpu} for i in range(n)]
    server = {"version": {"version": version}, "models": models_body(served, model, mml, int(created)), "health": 200}
    manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": t0, "ended_at": t_end,
                "interval_s": interval, "notes": notes}
    write_bundle(cid, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args, gpu=gpu_rows,
                 logs=L, model_config=model_config)
    fin = [r for r in reqs if t0 <= r.t_end <= t_end]
    c = counts(reqs, t_end, block=block, num_blocks=num_blocks, k=k)
    c0 = counts(reqs, t0, block=block, num_blocks=num_blocks, k=k)
    itl = c["itl"][len(c0["itl"]):]
    tpot = [(r.t_end - r.t_first) / (r.gen_len - 1) for r in fin]
    print(cid, "finished", len(fin), "gen tok/s", round((c["gen"] - c0["gen"]) / (t_end - t0), 1),
          "mean ITL ms", round(1000 * sum(itl) / max(1, len(itl)), 1), "mean TPOT ms", round(1000 * sum(tpot) / max(1, len(tpot)), 1),
          "req/s", round(len(fin) / (t_end - t0), 3), "ttft", round(sum(r.t_first - r.t_arrive for r in fin) / max(1, len(fin)), 2),
          "accept", round(c["acc"] / max(1, c["drafts"] * k), 3) if k else "-", "usage", round(c["usage"], 3))


def closed_loop(rng, slots, t_start, t_stop, make):
    """`slots` clients, each sending the next request right after the previous one finished."""
    out = []
    for s in range(slots):
        t = t_start + rng.uniform(0, 30)
        while t < t_stop:
            r = make(rng, t)
            out.append(r)
            t = r.t_end + rng.uniform(0.02, 0.3)
    return out


def step_obs(k, prefill_every=None):
    def fn(prev, cur, interval):
        # engine steps in the interval: one per decode step of the busiest request (all run in lockstep)
        n_steps = max(1, len(cur["itl"]) - len(prev["itl"])) // max(1, len(cur["running"]) or 1)
        run = len(cur["running"])
        pt = cur["prompt"] - prev["prompt"]
        obs = [float(run * (1 + k))] * max(0, n_steps)
        # prefill tokens ride along in some steps (chunks of up to 2048 / 8192)
        i = 0
        while pt > 0 and obs:
            ch = min(pt, 2048)
            obs[i % len(obs)] += ch
            pt -= ch
            i += 1
        return obs
    return fn


A = "(APIServer pid=1) "

# ============================================================== 1. Flash-Next H100 TP4 MTP c64
def case1():
    cid = "zxk-flashnext-h100-mtp-c64-itl-4x"
    rng = random.Random(2401)
    T = ts(2026, 9, 2, 15, 0)
    t0 = T + 1500.0
    M = "Qwen/Qwen3.8-Flash-Next-FP8"
    k, p = 3, [0.62, 0.33, 0.145]
    cond = [p[0], p[1] / p[0], p[2] / p[1]]

    def make(rng, t):
        return Req(t_arrive=round(t, 3), prompt_len=1024, gen_len=256, queue_s=round(rng.uniform(0.003, 0.02), 4),
                   prefill_s=round(rng.uniform(3.6, 5.8), 3), max_tokens=256, finished_reason="length",
                   steps=make_steps(rng, 256, k, cond, lambda i: round(rng.uniform(0.090, 0.107), 4)))
    reqs = closed_loop(rng, 64, t0 - 140, t0 + 700, make)
    E = "(EngineCore_DP0 pid=288) "
    head = [
        f"INFO {fts(T)} [__init__.py:216] Automatically detected platform cuda.",
        f"{A}INFO {fts(T+2)} [api_server.py:1947] vLLM API server version 0.29.0",
        f"{A}INFO {fts(T+2)} [utils.py:299] non-default args: {{'model_tag': '{M}', 'model': '{M}', 'tensor_parallel_size': 4, 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 3}}}}",
        f"{A}INFO {fts(T+9)} [model.py:552] Resolved architecture: Qwen4ExpForCausalLM",
        f"{A}INFO {fts(T+9)} [config.py:281] Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba page size.",
        f"{E}INFO {fts(T+24)} [core.py:101] Initializing a V1 LLM engine (v0.29.0) with config: model='{M}', speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=3), tensor_parallel_size=4, pipeline_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True",
        f"{E}(Worker_TP0 pid=352) INFO {fts(T+40)} [ple.py:214] VLLM_PLE_CPU_OFFLOAD=1: keeping the n-gram embedding table (47.7 GiB) in pinned host memory",
        f"{E}(Worker_TP0 pid=352) INFO {fts(T+301)} [gpu_model_runner.py:4420] Model loading took 47.3125 GiB and 254.118 seconds",
        f"{E}(Worker_TP0 pid=352) INFO {fts(T+352)} [gpu_worker.py:563] Available KV cache memory: 19.84 GiB",
        f"{E}INFO {fts(T+353)} [kv_cache_utils.py:1291] GPU KV cache size: 1,486,848 tokens",
        f"{E}INFO {fts(T+353)} [kv_cache_utils.py:1296] Maximum concurrency for 32,768 tokens per request: 45.38x",
        f"{E}(Worker_TP0 pid=352) INFO {fts(T+399)} [gpu_model_runner.py:5012] Graph capturing finished in 45 secs, took 1.21 GiB",
        f"{A}INFO {fts(T+411)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 1408",
        f"{A}INFO {fts(T+412)} [api_server.py:2040] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    gpu = [{"index": g, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": 77_300_000_000,
            "processes": [{"pid": 352 + g, "name": f"VLLM::Worker_TP{g}", "used_memory": 76_860_000_000}]} for g in range(4)]
    argv = ["vllm", "serve", M, "--tensor-parallel-size", "4", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9",
            "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 3}']
    run_case(cid, base="zzm-qwen38-3090-block448", version="0.29.0", model=M, served=M, mml=32768, block=1056,
             num_blocks=1408, reqs=reqs, t0=t0, n=61, interval=10.0, k=k,
             cache_over={"block_size": 1056, "mamba_block_size": 1056, "num_gpu_blocks": 1408, "gpu_memory_utilization": 0.9,
                         "enable_prefix_caching": "True", "mamba_cache_mode": "align"},
             logs_head=head, gpu=gpu, step_tokens_fn=step_obs(k), access_ip="10.1.0.8",
             engine_args={"argv": argv, "args": {"tensor-parallel-size": 4, "max-model-len": 32768, "gpu-memory-utilization": 0.9,
                                                 "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}},
             notes="4x H100 80GB, Qwen3.8-Flash-Next FP8, TP4, VLLM_PLE_CPU_OFFLOAD=1 (required: plain TP4 FP8 OOMs at start-up without it), MTP on. "
                   "Load: vllm bench serve random 1024-in/256-out at max concurrency 64, repeated. Operator: with MTP the bench gives 970 output tok/s, "
                   "TPOT 47.8 ms, ITL 97.7 ms; the same bench without MTP gave 1,428 tok/s, TPOT 26.4 ms, ITL 26.5 ms. /metrics every 10 s for 10 min, NVML, server log.")


# ============================================================== 2. Flash-Next PP4 PCIe Gen2 MTP k=2
def case2():
    cid = "zxk-flashnext-pp4-gen2-mtp-93pct-slower"
    rng = random.Random(2402)
    T = ts(2026, 8, 31, 20, 10)
    t0 = T + 1200.0
    M = "RadixArk/Qwen3.8-Flash-Next-NVFP4"
    k, p = 2, [0.93, 0.66]
    cond = [p[0], p[1] / p[0]]
    reqs, t = [], t0 - 100
    while t < t0 + 700:
        pl, gl = rng.randint(1500, 2000), rng.randint(600, 1000)
        r = Req(t_arrive=round(t, 3), prompt_len=pl, gen_len=gl, queue_s=round(rng.uniform(0.003, 0.01), 4),
                prefill_s=round(0.12 + pl / 3100.0, 3), max_tokens=2048, finished_reason="stop",
                steps=make_steps(rng, gl, k, cond, lambda i: round(rng.uniform(0.0565, 0.0620), 4)))
        reqs.append(r)
        t = r.t_end + rng.uniform(3, 9)
    E = "(EngineCore_DP0 pid=214) "
    head = [
        f"INFO {fts(T)} [__init__.py:216] Automatically detected platform cuda.",
        f"{A}INFO {fts(T+2)} [api_server.py:1947] vLLM API server version 0.29.1rc1.dev118+g2d4e6b1c9",
        f"{A}INFO {fts(T+2)} [utils.py:299] non-default args: {{'model_tag': '{M}', 'model': '{M}', 'pipeline_parallel_size': 4, 'max_model_len': 65536, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 8, 'served_model_name': ['flash-next'], 'speculative_config': {{'method': 'mtp', 'num_speculative_tokens': 2}}}}",
        f"{A}INFO {fts(T+10)} [model.py:552] Resolved architecture: Qwen4ExpForCausalLM",
        f"{A}WARNING {fts(T+10)} [speculative.py:702] MTP speculative decoding with pipeline_parallel_size > 1 is experimental.",
        f"{A}INFO {fts(T+10)} [config.py:281] Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba page size.",
        f"{E}INFO {fts(T+25)} [core.py:101] Initializing a V1 LLM engine (v0.29.1rc1.dev118+g2d4e6b1c9) with config: model='{M}', speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=2), tensor_parallel_size=1, pipeline_parallel_size=4, quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True",
        f"{E}(Worker_PP0 pid=301) INFO {fts(T+31)} [pynccl.py:111] vLLM is using nccl==2.28.3",
        f"{E}(Worker_PP0 pid=301) INFO {fts(T+32)} [custom_all_reduce.py:84] Custom allreduce is disabled because this process group spans across nodes or P2P is not available",
        f"{E}(Worker_PP3 pid=304) INFO {fts(T+402)} [gpu_model_runner.py:4420] Model loading took 22.9417 GiB and 361.207 seconds",
        f"{E}INFO {fts(T+455)} [kv_cache_utils.py:1291] GPU KV cache size: 1,520,640 tokens",
        f"{E}INFO {fts(T+455)} [kv_cache_utils.py:1296] Maximum concurrency for 65,536 tokens per request: 23.20x",
        f"{E}(Worker_PP3 pid=304) INFO {fts(T+497)} [gpu_model_runner.py:5012] Graph capturing finished in 41 secs, took 0.74 GiB",
        f"{A}INFO {fts(T+508)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 1440",
        f"{A}INFO {fts(T+509)} [api_server.py:2040] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    gpu = [{"index": g, "name": "NVIDIA A100-PCIE-40GB", "memory_total": 42949672960, "memory_used": 38_900_000_000,
            "processes": [{"pid": 301 + g, "name": f"VLLM::Worker_PP{g}", "used_memory": 38_480_000_000}]} for g in range(4)]
    argv = ["vllm", "serve", M, "--pipeline-parallel-size", "4", "--max-model-len", "65536", "--gpu-memory-utilization", "0.9",
            "--max-num-seqs", "8", "--served-model-name", "flash-next", "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']
    run_case(cid, base="zzm-qwen38-3090-block448", version="0.29.1rc1.dev118+g2d4e6b1c9", model=M, served="flash-next",
             mml=65536, block=1056, num_blocks=1440, reqs=reqs, t0=t0, n=61, interval=10.0, k=k,
             cache_over={"block_size": 1056, "mamba_block_size": 1056, "num_gpu_blocks": 1440, "gpu_memory_utilization": 0.9,
                         "enable_prefix_caching": "True", "mamba_cache_mode": "align"},
             logs_head=head, gpu=gpu, step_tokens_fn=step_obs(k), access_ip="192.168.5.20",
             engine_args={"argv": argv, "args": {"pipeline-parallel-size": 4, "max-model-len": 65536, "gpu-memory-utilization": 0.9,
                                                 "max-num-seqs": 8, "served-model-name": "flash-next",
                                                 "speculative-config": {"method": "mtp", "num_speculative_tokens": 2}}},
             notes="4x A100-PCIE-40GB (SM80) on PCIe Gen2 x4 risers, no NVLink; Qwen3.8-Flash-Next NVFP4, PP=4 / TP=1, source build with the MTP-under-PP patches, MTP k=2. "
                   "Single-stream prose runs, one request at a time. Operator: 43.7 tok/s single-stream with MTP; the same runs without MTP gave 61.2 tok/s "
                   "(8-way: 143.8 with MTP vs 163.2 without); k=1 was worse than k=2. /metrics every 10 s for 10 min, NVML, server log.")


# ============================================================== 3. Qwen3-Omni 30B-A3B, 5090 TP4, video captions
def case3():
    cid = "zxk-qwen3omni-5090-tp4-video-itl-179ms"
    rng = random.Random(2403)
    T = ts(2026, 7, 15, 6, 20)
    t0 = T + 1300.0
    M = "/models/qwen3-omni-30b-a3b-caption-ft"

    def make(rng, t):
        pl = 50 + rng.randint(4480, 4720)
        gl = 128 if rng.random() < 0.8 else rng.randint(88, 127)
        return Req(t_arrive=round(t, 3), prompt_len=pl, gen_len=gl, queue_s=round(rng.uniform(0.05, 0.6), 3),
                   prefill_s=round(rng.uniform(8.5, 14.0), 3), max_tokens=128,
                   finished_reason="length" if gl == 128 else "stop",
                   steps=make_steps(rng, gl, 0, [], lambda i: round(rng.uniform(0.34, 0.46), 4) if rng.random() < 0.15 else round(rng.uniform(0.128, 0.152), 4)))
    reqs = closed_loop(rng, 16, t0 - 120, t0 + 700, make)
    E = "(EngineCore_DP0 pid=412) "
    head = [
        f"INFO {fts(T)} [__init__.py:216] Automatically detected platform cuda.",
        f"{A}INFO {fts(T+3)} [api_server.py:1839] vLLM API server version 0.11.2",
        f"{A}INFO {fts(T+3)} [utils.py:233] non-default args: {{'model_tag': '{M}', 'model': '{M}', 'tensor_parallel_size': 4, 'max_model_len': 32768, 'served_model_name': ['qwen3-omni-caption'], 'limit_mm_per_prompt': {{'video': 1, 'image': 0, 'audio': 0}}}}",
        f"{A}INFO {fts(T+11)} [model.py:547] Resolved architecture: Qwen3OmniMoeThinkerForConditionalGeneration",
        f"{E}INFO {fts(T+26)} [core.py:93] Initializing a V1 LLM engine (v0.11.2) with config: model='{M}', tensor_parallel_size=4, pipeline_parallel_size=1, dtype=torch.bfloat16, quantization=None, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"{E}(Worker_TP0 pid=480) INFO {fts(T+34)} [pynccl.py:103] vLLM is using nccl==2.27.3",
        f"{E}(Worker_TP0 pid=480) INFO {fts(T+35)} [custom_all_reduce.py:84] Custom allreduce is disabled because this process group spans across nodes or P2P is not available",
        f"{E}(Worker_TP0 pid=480) INFO {fts(T+118)} [gpu_model_runner.py:2653] Model loading took 15.9102 GiB and 79.305 seconds",
        f"{E}(Worker_TP0 pid=480) WARNING {fts(T+131)} [fused_moe.py:886] Using default MoE config. Performance might be sub-optimal! Config file not found at ['/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/configs/E=128,N=192,device_name=NVIDIA_GeForce_RTX_5090.json']",
        f"{E}(Worker_TP0 pid=480) INFO {fts(T+152)} [gpu_worker.py:298] Available KV cache memory: 14.10 GiB",
        f"{E}INFO {fts(T+153)} [kv_cache_utils.py:1087] GPU KV cache size: 616,000 tokens",
        f"{E}INFO {fts(T+153)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 18.80x",
        f"{E}(Worker_TP0 pid=480) INFO {fts(T+181)} [gpu_model_runner.py:3480] Graph capturing finished in 27 secs, took 0.88 GiB",
        f"{A}INFO {fts(T+190)} [api_server.py:1911] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    gpu = ([{"index": g, "name": "NVIDIA GeForce RTX 5090", "memory_total": 34190917632, "memory_used": 31_010_000_000,
             "processes": [{"pid": 480 + g, "name": f"VLLM::Worker_TP{g}", "used_memory": 30_560_000_000}]} for g in range(4)]
           + [{"index": g, "name": "NVIDIA GeForce RTX 5090", "memory_total": 34190917632, "memory_used": 472_000_000, "processes": []}
              for g in range(4, 8)])
    argv = ["vllm", "serve", M, "--tensor-parallel-size", "4", "--max-model-len", "32768", "--served-model-name", "qwen3-omni-caption",
            "--limit-mm-per-prompt", '{"video": 1, "image": 0, "audio": 0}']
    run_case(cid, base="d-kv-93pct-38-streams-healthy", version="0.11.2", model=M, served="qwen3-omni-caption", mml=32768,
             block=16, num_blocks=38500, reqs=reqs, t0=t0, n=61, interval=10.0, k=0,
             cache_over={"block_size": 16, "num_gpu_blocks": 38500, "gpu_memory_utilization": 0.9, "enable_prefix_caching": "True"},
             logs_head=head, gpu=gpu, step_tokens_fn=step_obs(0), stats_line="loggers.py:127", access_ip="10.8.0.31",
             engine_args={"argv": argv, "args": {"tensor-parallel-size": 4, "max-model-len": 32768, "served-model-name": "qwen3-omni-caption",
                                                 "limit-mm-per-prompt": {"video": 1, "image": 0, "audio": 0}}},
             notes="8x RTX 5090 32GB box, driver 570.124; this server uses GPUs 0-3 (TP=4), 4-7 idle. Fine-tuned Qwen3-Omni-30B-A3B thinker-only, bf16, "
                   "video caption job (~50-token instruction + 10 s 720x1280 video, max_tokens=128) at concurrency 16. Operator: mean ITL 178.8 ms, "
                   "median TTFT 11.6 s, 0.41 req/s; another engine on the same TP=4 layout gets 27-52 ms ITL and 0.74 req/s on the same requests. "
                   "/metrics every 10 s for 10 min, NVML, server log.")


# ============================================================== 4. Phi-4-mini on MUSA S5000, eager, c64
def case4():
    cid = "zxk-musa-phi4mini-eager-c64-crawl"
    rng = random.Random(2404)
    T = ts(2026, 8, 20, 2, 5)
    t0 = T + 300 + 1500.0   # ~25 min into the bench
    M = "FlagRelease/Phi-4-mini-instruct-mthreads-FlagOS"
    t_bench = T + 300

    def dur(t_abs):
        return 0.35 + 0.00006 * (t_abs - t_bench)   # slow growth with context over the run

    reqs = []
    for s in range(64):
        t = t_bench + rng.uniform(0, 2.0)
        first = True
        while t < t0 + 700:
            pf = rng.uniform(6.0, 12.0) if first else rng.uniform(1.2, 2.4)
            r0 = Req(t_arrive=round(t, 3), prompt_len=4096, gen_len=1024, queue_s=0.005, prefill_s=round(pf, 3))
            base_t = r0.t_first
            steps, tt = [], base_t
            for i in range(1023):
                d = round(dur(tt) * rng.uniform(0.96, 1.05), 4)
                steps.append((d, 1, []))
                tt += d
            r = Req(t_arrive=round(t, 3), prompt_len=4096, gen_len=1024, queue_s=0.005, prefill_s=round(pf, 3),
                    max_tokens=1024, finished_reason="length", steps=steps)
            reqs.append(r)
            t = r.t_end + rng.uniform(0.02, 0.2)
            first = False
    E = "(EngineCore_DP0 pid=167) "
    head = [
        f"INFO {fts(T)} [__init__.py:43] Available plugins for group vllm.platform_plugins:",
        f"INFO {fts(T)} [__init__.py:45] - fl -> vllm_fl:register",
        f"INFO {fts(T)} [__init__.py:225] Platform plugin fl is activated",
        f"{A}INFO {fts(T+3)} [api_server.py:1896] vLLM API server version 0.20.2",
        f"{A}INFO {fts(T+3)} [utils.py:253] non-default args: {{'model_tag': '/models/{M}', 'model': '/models/{M}', 'trust_remote_code': True, 'enforce_eager': True, 'served_model_name': ['Phi-4-mini-instruct']}}",
        f"{A}INFO {fts(T+9)} [model.py:547] Resolved architecture: Phi3ForCausalLM",
        f"{A}INFO {fts(T+9)} [vllm.py:1288] Cudagraph is disabled under eager mode",
        f"{A}INFO {fts(T+9)} [scheduler.py:226] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"{E}INFO {fts(T+21)} [core.py:93] Initializing a V1 LLM engine (v0.20.2) with config: model='/models/{M}', tensor_parallel_size=1, pipeline_parallel_size=1, dtype=torch.bfloat16, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=musa, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"{E}INFO {fts(T+24)} [platform.py:188] Using FlagGems attention backend (FL_ATTN) on MUSA.",
        f"{E}INFO {fts(T+61)} [gpu_model_runner.py:2702] Model loading took 7.1652 GiB and 33.914 seconds",
        f"{E}INFO {fts(T+84)} [gpu_worker.py:301] Available KV cache memory: 61.04 GiB",
        f"{E}INFO {fts(T+84)} [kv_cache_utils.py:1087] GPU KV cache size: 500,000 tokens",
        f"{E}INFO {fts(T+84)} [kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens per request: 3.81x",
        f"{A}INFO {fts(T+96)} [api_server.py:1968] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    model_config = {
        "architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
        "num_hidden_layers": 32, "num_attention_heads": 24, "num_key_value_heads": 8, "hidden_act": "silu",
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75,
        "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "rope_scaling": {"type": "longrope", "long_factor": [1.0] * 48, "short_factor": [1.0] * 48},
        "sliding_window": 262144, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "vocab_size": 200064,
        "bos_token_id": 199999, "eos_token_id": 199999, "pad_token_id": 199999, "use_cache": True,
        "transformers_version": "4.45.0"}
    argv = ["vllm", "serve", f"/models/{M}", "--trust-remote-code", "--enforce-eager", "--served-model-name", "Phi-4-mini-instruct"]
    run_case(cid, base="x-l4-qwen3-4b-agent-kv-cliff", version="0.20.2", model=f"/models/{M}", served="Phi-4-mini-instruct",
             mml=131072, block=16, num_blocks=31250, reqs=reqs, t0=t0, n=61, interval=10.0, k=0,
             cache_over={"block_size": 16, "num_gpu_blocks": 31250, "gpu_memory_utilization": 0.9, "enable_prefix_caching": "True"},
             logs_head=head, gpu=None, step_tokens_fn=step_obs(0), stats_line="loggers.py:123", access_ip="127.0.0.1",
             model_config=model_config,
             engine_args={"argv": argv, "args": {"trust-remote-code": True, "enforce-eager": True, "served-model-name": "Phi-4-mini-instruct"}},
             notes="Moore Threads S5000 (MUSA), single card, vllm-plugin-FL 0.2.0 on vLLM 0.20.2 (VLLM_PLUGINS=fl), serve command as in the model's README "
                   "(--enforce-eager). Load: vllm bench serve random 4096-in/1024-out, max concurrency 64, 256 prompts; capture from minute ~25 of the run. "
                   "Operator: VLLM::EngineCore at ~383% CPU in top; bench progress 4.4 s/it early, 12.2 s/it later; estimated output 100-250 tok/s, "
                   "6-10x below what a 3.8B model does on one card with graphs. No NVML on this card (gpu not checked). /metrics every 10 s for 10 min, server log.")


if __name__ == "__main__":
    sel = sys.argv[1:] or ["1", "2", "3", "4"]
    for s in sel:
        {"1": case1, "2": case2, "3": case3, "4": case4}[s]()
