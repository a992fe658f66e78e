"""Writer zyh's bundle builder (kvdoctor.bundle/1), adapted from writer zyf's sim.py.

Requests carry analytic timings; with speculative decoding a request emits `tps` tokens per
engine step of `step` seconds on average, so vLLM V1 records one inter-token observation per step
(IterationStats appends one time_per_output_token per request per step that produced output).
Every counter, histogram, gauge and log line is computed from the one request list, so cumulative
series never decrease.

Metric names, HELP texts, label sets and buckets follow vllm/v1/metrics/loggers.py and
vllm/v1/spec_decode/metrics.py as read from vllm-project/vllm (0.10.x-era V1 PrometheusStatLogger
and SpecDecodingProm / SpecDecodingLogging).
"""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.utils import floatToGoString as G

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
         480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(mx: int) -> list[int]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


@dataclass
class Req:
    t_arr: float
    prompt: int
    gen: int
    max_tokens: int
    t_sched: float
    t_first: float
    step: float          # seconds per engine step while decoding
    tps: float = 1.0     # output tokens per step (1 + accepted drafts on average)
    k: int = 0           # draft tokens per step (0: no speculative decoding)
    cached: int = 0
    reason: str = "stop"

    @property
    def nsteps(self) -> int:
        return math.ceil((self.gen - 1) / self.tps) if self.gen > 1 else 0

    @property
    def t_end(self) -> float:
        return self.t_first + self.nsteps * self.step

    def steps_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        return min(self.nsteps, int((t - self.t_first) / self.step + 1e-9))

    def gen_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        s = self.steps_by(t)
        if s >= self.nsteps:
            return self.gen
        return 1 + min(self.gen - 1, int(s * self.tps))


@dataclass
class Engine:
    model_name: str
    engine: str
    pool_tokens: int
    block_size: int
    max_model_len: int
    created: float
    cc_labels: dict
    reqs: list = field(default_factory=list)
    k: int = 0
    pos_profile: list = field(default_factory=list)  # relative acceptance per position (sums to 1)


def _lab(d: dict) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


def state(e: Engine, t: float) -> dict:
    running = [r for r in e.reqs if r.t_sched <= t < r.t_end]
    waiting = [r for r in e.reqs if r.t_arr <= t < r.t_sched]
    blocks = sum(math.ceil((r.prompt + r.gen_by(t)) / e.block_size) for r in running)
    return {"running": len(running), "waiting": len(waiting), "usage": min(1.0, blocks * e.block_size / e.pool_tokens)}


def spec_totals(e: Engine, t: float) -> tuple[int, int, int, list[int]]:
    drafts = sum(r.steps_by(t) for r in e.reqs)
    acc = sum(max(0, r.gen_by(t) - 1 - r.steps_by(t)) for r in e.reqs)
    per = [int(acc * p) for p in e.pos_profile]
    if per:
        per[0] += acc - sum(per)
    return drafts, drafts * e.k, acc, per


def iteration_obs(e: Engine, step: float, t0: float, t1: float, prefill_per_step) -> list[tuple[float, int]]:
    """Engine steps on a fixed grid: scheduled tokens = (1 + k) per decoding request + prefill."""
    out, t = [], t0
    while t <= t1:
        dec = sum(1 for r in e.reqs if r.t_first <= t - step and t <= r.t_end)
        n = dec * (1 + e.k) + prefill_per_step(t - step, t)
        if n > 0:
            out.append((t, n))
        t += step
    return out


def scrape(e: Engine, t: float, it_obs: list) -> str:
    R = e.reqs
    base = {"model_name": e.model_name, "engine": e.engine}
    s = state(e, t)
    first = [r for r in R if r.t_first <= t]
    done = [r for r in R if r.t_end <= t]
    prompt_tot = sum(r.prompt for r in first)
    hits = sum(r.cached for r in first)
    gen_tot = sum(r.gen_by(t) for r in R)
    itl = []
    for r in R:
        n = r.steps_by(t)
        if n:
            itl.extend([r.step] * n)
    it = [n for st, n in it_obs if st <= t]
    L: list[str] = []

    def fam(name, typ, help_):
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} {typ}")

    def gauge(name, help_, v):
        fam(name, "gauge", help_)
        L.append(f"{name}{_lab(base)} {G(v)}")

    def counter(name, help_, v, extra=None):
        fam(name + "_total", "counter", help_)
        L.append(f"{name}_total{_lab({**base, **(extra or {})})} {G(v)}")
        L.append(f"{name}_created{_lab({**base, **(extra or {})})} {G(e.created)}")

    def hist(name, help_, vals, les):
        fam(name, "histogram", help_)
        vals = sorted(vals)
        j = 0
        for le in les:
            while j < len(vals) and vals[j] <= le + 1e-12:
                j += 1
            L.append(f"{name}_bucket{_lab({**base, 'le': G(le)})} {G(j)}")
        L.append(f"{name}_bucket{_lab({**base, 'le': '+Inf'})} {G(len(vals))}")
        L.append(f"{name}_count{_lab(base)} {G(len(vals))}")
        L.append(f"{name}_sum{_lab(base)} {G(round(sum(vals), 6))}")
        L.append(f"{name}_created{_lab(base)} {G(e.created)}")

    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", s["running"])
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", s["waiting"])
    gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", s["usage"])
    counter("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", prompt_tot)
    counter("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", hits)
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", s["usage"])
    counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", prompt_tot)
    counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", hits)
    counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", prompt_tot)
    counter("vllm:generation_tokens", "Number of generation tokens processed.", gen_tot)
    fam("vllm:request_success_total", "counter", "Count of successfully processed requests.")
    for reason in ("stop", "length", "abort"):
        lab = {**base, "finished_reason": reason}
        L.append(f"vllm:request_success_total{_lab(lab)} {G(sum(1 for r in done if r.reason == reason))}")
        L.append(f"vllm:request_success_created{_lab(lab)} {G(e.created)}")
    tb = b125(e.max_model_len)
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", [r.prompt for r in done], tb)
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", [r.gen for r in done], tb)
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", it, ITER_B)
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", [r.max_tokens for r in first], tb)
    hist("vllm:request_params_n", "Histogram of the n request parameter.", [1 for r in first], [1, 2, 5, 10, 20])
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", [r.max_tokens for r in done], tb)
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", [r.t_first - r.t_arr for r in first], TTFT_B)
    hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", itl, TPOT_B)
    hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds",
         [(r.t_first - r.t_sched) / r.prompt for r in done], PREFILL_TOK_B)
    hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", [r.t_end - r.t_arr for r in done], LAT_B)
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", [r.t_sched - r.t_arr for r in done], LAT_B)
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", [r.t_end - r.t_sched for r in done], LAT_B)
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", [r.t_first - r.t_sched for r in done], LAT_B)
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", [r.t_end - r.t_first for r in done], LAT_B)
    if e.k:
        d, dt_, acc, per = spec_totals(e, t)
        counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", d)
        counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", dt_)
        counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", acc)
        fam("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter", "Accepted tokens per draft position.")
        for pos, v in enumerate(per):
            lab = {**base, "position": str(pos)}
            L.append(f"vllm:spec_decode_num_accepted_tokens_per_pos_total{_lab(lab)} {G(v)}")
            L.append(f"vllm:spec_decode_num_accepted_tokens_per_pos_created{_lab(lab)} {G(e.created)}")
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    L.append(f"vllm:cache_config_info{_lab({**e.cc_labels, 'engine': e.engine})} 1.0")
    return "\n".join(L) + "\n"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def stats_lines(e: Engine, a: float, b: float, pid: int, ref="loggers.py:123", sref="metrics.py:86") -> list[str]:
    pt = sum(r.prompt for r in e.reqs if a < r.t_first <= b)
    gt = sum(r.gen_by(b) - r.gen_by(a) for r in e.reqs)
    q = sum(r.prompt for r in e.reqs if r.t_first <= b)
    h = sum(r.cached for r in e.reqs if r.t_first <= b)
    s = state(e, b)
    pa = sum(r.prompt for r in e.reqs if a - (b - a) < r.t_first <= a)
    ga = sum(r.gen_by(a) - r.gen_by(a - (b - a)) for r in e.reqs)
    if not (pt or gt or pa or ga):
        return []  # LoggingStatLogger logs at DEBUG on an idle system
    out = [f"(APIServer pid={pid}) INFO {ts(b)} [{ref}] Engine {int(e.engine):03d}: Avg prompt throughput: {pt / (b - a):.1f} tokens/s, "
           f"Avg generation throughput: {gt / (b - a):.1f} tokens/s, Running: {s['running']} reqs, Waiting: {s['waiting']} reqs, "
           f"GPU KV cache usage: {s['usage'] * 100:.1f}%, Prefix cache hit rate: {(100.0 * h / q) if q else 0.0:.1f}%"]
    if e.k:
        d0, t0, a0, p0 = spec_totals(e, a)
        d1, t1, a1, p1 = spec_totals(e, b)
        nd, ndt, na = d1 - d0, t1 - t0, a1 - a0
        if nd > 0:
            rates = ", ".join(f"{(y - x) / nd:.3f}" for x, y in zip(p0, p1))
            out.append(f"(APIServer pid={pid}) INFO {ts(b)} [{sref}] SpecDecoding metrics: Mean acceptance length: {1 + na / nd:.2f}, "
                       f"Accepted throughput: {na / (b - a):.2f} tokens/s, Drafted throughput: {ndt / (b - a):.2f} tokens/s, "
                       f"Accepted: {na} tokens, Drafted: {ndt} tokens, Per-position acceptance rate: {rates}, "
                       f"Avg Draft acceptance rate: {100.0 * na / ndt:.1f}%")
    return out


def write_bundle(out: Path, *, scrapes, interval, endpoint, notes, server, engine_args, model_config, gpu, logs, extra_manifest=None):
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("".join(json.dumps({"t": round(t, 3), "status": 200, "text": x}) + "\n" for t, x in scrapes))
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": round(scrapes[0][0], 3), "ended_at": round(scrapes[-1][0], 3), "interval_s": interval, "notes": notes}
    man.update(extra_manifest or {})
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    for name, obj in (("server.json", server), ("engine_args.json", engine_args), ("model_config.json", model_config)):
        if obj is not None:
            (out / name).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs:
        (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def server_json(version, served, root, mml, created):
    return {"version": {"version": version}, "models": {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root, "parent": None,
        "max_model_len": mml}]}, "health": 200}
