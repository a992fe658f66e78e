"""Writer zyg's bundle simulator (kvdoctor.bundle/1), adapted from writer zyf's sim.py.

Each case builds a list of requests with analytic timings; every counter, histogram, gauge and
stats log line is computed from that one list, so they agree and cumulative series never decrease.
Metric family names, HELP texts, label order and bucket layouts follow vLLM V1
vllm/v1/metrics/loggers.py as read (a 0.10.x-era revision: labelnames ["model_name", "engine"]).
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
    rid: int
    t_arr: float
    prompt: int
    gen: int
    max_tokens: int
    t_sched: float = 0.0
    t_first: float = 0.0
    itl: float = 0.02
    cached: int = 0
    reason: str = "stop"  # stop | length | abort
    stuck: bool = False  # never finishes inside the window

    @property
    def t_end(self) -> float:
        if self.stuck:
            return float("inf")
        return self.t_first + (self.gen - 1) * self.itl

    def gen_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        if self.stuck:
            return min(self.gen, 1 + int((min(t, self.stall_at) - self.t_first) / self.itl))
        if t >= self.t_end:
            return self.gen
        return min(self.gen, 1 + int((t - self.t_first) / self.itl))

    stall_at: float = float("inf")


@dataclass
class Engine:
    model_name: str
    engine: str
    pool_tokens: int
    block_size: int
    max_model_len: int
    reqs: list = field(default_factory=list)
    step_times: list = field(default_factory=list)  # sorted end times of engine steps
    created: float = 0.0
    cc_labels: dict = field(default_factory=dict)  # cache_config_info labels (without engine)
    usage_fn: object = None  # optional t -> KV usage (blocks held outside running requests, e.g. P/D)


def _lab(d: dict) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


def state(e: Engine, t: float) -> dict:
    R = e.reqs
    running = [r for r in R if r.t_sched <= t < r.t_end]
    waiting = [r for r in R if r.t_arr <= t < r.t_sched]
    blocks = sum(math.ceil((r.prompt + r.gen_by(t)) / e.block_size) for r in running)
    usage = e.usage_fn(t) if e.usage_fn is not None else min(1.0, blocks * e.block_size / e.pool_tokens)
    return {"running": len(running), "waiting": len(waiting), "usage": usage}


def iteration_obs(e: Engine) -> list[tuple[float, int]]:
    """(step end, tokens) for every engine step: prompt tokens of requests whose first token lands
    in the step, plus one token for each request that was decoding when the step began."""
    import bisect
    firsts = sorted((r.t_first, r.prompt - r.cached) for r in e.reqs)
    ft = [f for f, _ in firsts]
    # decoding intervals [t_first, min(t_end, stall_at)) as +1/-1 events
    ev = sorted([(r.t_first, 1) for r in e.reqs] + [(min(r.t_end, r.stall_at), -1) for r in e.reqs if min(r.t_end, r.stall_at) < float("inf")])
    out, prev, fi, ei, dec = [], None, 0, 0, 0
    for st in e.step_times:
        start = prev if prev is not None else st
        while ei < len(ev) and ev[ei][0] <= start:
            dec += ev[ei][1]; ei += 1
        p = 0
        while fi < len(firsts) and firsts[fi][0] <= st:
            p += firsts[fi][1]; fi += 1
        if p + dec > 0:
            out.append((st, p + dec))
        prev = st
    return out


def scrape(e: Engine, t: float, iter_cache: dict) -> str:
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
        n = r.gen_by(t)
        if n > 1:
            itl.extend([r.itl] * (n - 1))
    if "it" not in iter_cache:
        iter_cache["it"] = iteration_obs(e)
    it = [n for st, n in iter_cache["it"] if st <= t]
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
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    L.append(f"vllm:cache_config_info{_lab({**e.cc_labels, 'engine': e.engine})} 1.0")
    return "\n".join(L) + "\n"


def merge(texts: list[str]) -> str:
    """One exposition for several engines of one server: HELP/TYPE once, samples of each engine."""
    order, fams = [], {}
    for text in texts:
        cur = None
        for ln in text.splitlines():
            if ln.startswith("# HELP "):
                cur = ln.split()[2]
                if cur not in fams:
                    fams[cur] = [[ln], []]; order.append(cur)
            elif ln.startswith("# TYPE "):
                if len(fams[cur][0]) < 2:
                    fams[cur][0].append(ln)
            elif ln:
                fams[cur][1].append(ln)
    return "\n".join(l for n in order for l in fams[n][0] + fams[n][1]) + "\n"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def stats_line(e: Engine, a: float, b: float, pid: int, ref: str = "loggers.py:123") -> str:
    pt = sum(r.prompt for r in e.reqs if a < r.t_first <= b)
    gt = sum(r.gen_by(b) - r.gen_by(a) for r in e.reqs)
    q = sum(r.prompt for r in e.reqs if r.t_first <= b)
    h = sum(r.cached for r in e.reqs if r.t_first <= b)
    s = state(e, b)
    return (f"(APIServer pid={pid}) INFO {ts(b)} [{ref}] Engine {int(e.engine):03d}: Avg prompt throughput: {pt / (b - a):.1f} tokens/s, "
            f"Avg generation throughput: {gt / (b - a):.1f} tokens/s, Running: {s['running']} reqs, Waiting: {s['waiting']} reqs, "
            f"GPU KV cache usage: {s['usage'] * 100:.1f}%, Prefix cache hit rate: {(100.0 * h / q) if q else 0.0:.1f}%")


def write_bundle(out: Path, *, scrapes: list[tuple[float, str]], interval: float, endpoint: str, notes: str,
                 server: dict | None, engine_args: dict | None, model_config: dict | None, gpu: list | None,
                 logs: list[tuple[float, str]] | None, extra_manifest: dict | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("".join(json.dumps(x if isinstance(x, dict) else {"t": round(t, 3), "status": 200, "text": x}) + "\n" for t, x in scrapes))
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": round(scrapes[0][0], 3), "ended_at": round(scrapes[-1][0], 3), "interval_s": interval, "notes": notes}
    man.update(extra_manifest or {})
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs:
        (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def server_json(version: str, served: str, root: str, mml: int, created: int, health: int = 200) -> dict:
    return {"version": {"version": version}, "models": {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root, "parent": None,
        "max_model_len": mml}]}, "health": health}


# ---------------------------------------------------------------- writer zyx: newer V1 exposition
# Family set, HELP texts, label order and bucket layouts as in the 0.27-era recordings kept in
# cases/*/bundle (format examples): labels engine, model_name (sorted), a separate `_created`
# gauge family after each counter/histogram. `era` "mid" (0.13 line) drops the families added later.

REQ_LAT_B = LAT_B


def scrape_v2(e: Engine, t: float, iter_cache: dict, era: str = "new", ext: bool = True) -> str:
    R = e.reqs
    base = {"engine": e.engine, "model_name": e.model_name}
    s = state(e, t)
    first = [r for r in R if r.t_first <= t]
    done = [r for r in R if r.t_end <= t]
    prompt_tot = sum(r.prompt for r in first)
    hits = sum(r.cached for r in first)
    gen_tot = sum(r.gen_by(t) for r in R)
    itl = []
    for r in R:
        n = r.gen_by(t)
        if n > 1:
            itl.extend([r.itl] * (n - 1))
    if "it" not in iter_cache:
        iter_cache["it"] = iteration_obs(e)
    it = [n for st, n in iter_cache["it"] if st <= t]
    L: list[str] = []

    def fam(name, typ, help_):
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} {typ}")

    def created(name, help_, extras=None):
        fam(name + "_created", "gauge", help_)
        for ex in (extras or [{}]):
            L.append(f"{name}_created{_lab({**base, **ex})} {G(e.created)}")

    def gauge(name, help_, v, extra=None):
        fam(name, "gauge", help_)
        L.append(f"{name}{_lab({**base, **(extra or {})})} {G(v)}")

    def counter(name, help_, vals):
        # vals: list of (extra_labels, value)
        fam(name + "_total", "counter", help_)
        for ex, v in vals:
            L.append(f"{name}_total{_lab({**base, **ex})} {G(v)}")
        created(name, help_, [ex for ex, _ in vals])

    def hist(name, help_, vals, les):
        fam(name, "histogram", help_)
        vals = sorted(vals)
        j = 0
        for le in les:
            while j < len(vals) and vals[j] <= le + 1e-12:
                j += 1
            L.append(f"{name}_bucket{_lab({**base, 'le': G(float(le))})} {G(j)}")
        L.append(f"{name}_bucket{_lab({**base, 'le': '+Inf'})} {G(len(vals))}")
        L.append(f"{name}_count{_lab(base)} {G(len(vals))}")
        L.append(f"{name}_sum{_lab(base)} {G(round(sum(vals), 6))}")
        created(name, help_)

    new = era == "new"
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", s["running"])
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", s["waiting"])
    if new:
        fam("vllm:num_requests_waiting_by_reason", "gauge", "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; 'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). Sum of all reasons equals vllm:num_requests_waiting.")
        L.append(f"vllm:num_requests_waiting_by_reason{_lab({**base, 'reason': 'capacity'})} {G(s['waiting'])}")
        L.append(f"vllm:num_requests_waiting_by_reason{_lab({**base, 'reason': 'deferred'})} 0.0")
        fam("vllm:engine_sleep_state", "gauge", "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.")
        for st_, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
            L.append(f"vllm:engine_sleep_state{_lab({**base, 'sleep_state': st_})} {G(v)}")
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", round(s["usage"], 6))
    counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", [({}, prompt_tot)])
    counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [({}, hits)])
    if ext:
        counter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.", [({}, 0)])
        counter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.", [({}, 0)])
    counter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", [({}, 0)])
    counter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", [({}, 0)])
    counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [({}, 0)])
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [({}, prompt_tot)])
    if new:
        counter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.",
                [({"source": "local_compute"}, prompt_tot - hits), ({"source": "local_cache_hit"}, hits),
                 ({"source": "external_kv_transfer"}, 0)])
        counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).", [({}, hits)])
    counter("vllm:generation_tokens", "Number of generation tokens processed.", [({}, gen_tot)])
    reasons = ("stop", "length", "abort", "error") if new else ("stop", "length", "abort")
    counter("vllm:request_success", "Count of successfully processed requests.",
            [({"finished_reason": rs}, sum(1 for r in done if r.reason == rs)) for rs in reasons])
    tb = b125(e.max_model_len)
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", [r.prompt for r in done], tb)
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", [r.gen for r in done], tb)
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", it, ITER_B)
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", [r.max_tokens for r in done], tb)
    hist("vllm:request_params_n", "Histogram of the n request parameter.", [1 for r in done], [1, 2, 5, 10, 20])
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", [r.max_tokens for r in done], tb)
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", [r.t_first - r.t_arr for r in first], TTFT_B)
    hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itl, TPOT_B)
    hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.",
         [(r.t_end - r.t_first) / max(1, r.gen - 1) for r in done], TPOT_B)
    hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", [r.t_end - r.t_arr for r in done], LAT_B)
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", [r.t_sched - r.t_arr for r in done], LAT_B)
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", [r.t_end - r.t_sched for r in done], LAT_B)
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", [r.t_first - r.t_sched for r in done], LAT_B)
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", [r.t_end - r.t_first for r in done], LAT_B)
    if new:
        hist("vllm:request_prefill_kv_computed_tokens", "Histogram of new KV tokens computed during prefill (excluding cached tokens).",
             [r.prompt - r.cached for r in done], tb)
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    L.append(f"vllm:cache_config_info{_lab(dict(sorted({**e.cc_labels, 'engine': e.engine}.items())))} 1.0")
    return "\n".join(L) + "\n"


def steps_for(reqs) -> list[float]:
    return sorted({round(x, 3) for r in reqs for x in [r.t_first] + [r.t_first + k * r.itl for k in range(1, r.gen)]})


def stats_logs(e: Engine, start: float, end: float, pid: int, ref: str, every: float = 10.0) -> list:
    out = []
    a, b = start, start + every
    while b <= end + 1e-6:
        pt = sum(r.prompt for r in e.reqs if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in e.reqs)
        if pt or gt:
            out.append((b, stats_line(e, a, b, pid, ref=ref)))
        a, b = b, b + every
    return out
