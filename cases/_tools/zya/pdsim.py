"""Writer zya's small bundle builder for decode-side (P/D disaggregated) vLLM V1 instances.

Family names, HELP texts and bucket layouts are transcribed from vLLM's
vllm/v1/metrics/loggers.py (a 0.1x release read through the library's read_file) and, for the
NIXL connector series, from the vLLM metrics documentation page; nothing is copied from other
case bundles. Every series is computed from one request list, so counters, histograms, gauges
and the per-interval log lines agree.

A request reaching the decode instance: arrives (t_arr) -> blocks allocated FCFS when the pool has
room (t_alloc; counted as waiting: WAITING_FOR_REMOTE_KVS) -> remote KV loaded (t_sched) ->
first token one step later (t_first) -> one token per decode step until t_end. A request whose
transfer fails (xfer_ok False) finishes at t_sched with finished_reason "error" and no token.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
         20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_B = [1, 2, 5, 10, 20]


def b125(mx):
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
    local_hit: int = 0
    xfer_s: float = 1.0
    xfer_ok: bool = True
    t_alloc: float = math.inf
    t_sched: float = math.inf
    t_first: float = math.inf
    t_end: float = math.inf
    step: float = 0.065
    reason: str = "stop"

    def blocks(self, t, bs):
        if not (self.t_alloc <= t < self.t_end):
            return 0
        return math.ceil((self.prompt + self.gen_by(t)) / bs)

    def gen_by(self, t):
        if t < self.t_first or not self.xfer_ok:
            return 0
        if t >= self.t_end:
            return self.gen
        return min(self.gen, 1 + int((t - self.t_first) / self.step))


def simulate(reqs, pool_blocks, bs, step_fn, max_num_seqs=256):
    """FCFS block admission; blocks (prompt + output) reserved at admission so no preemption."""
    pend = sorted(reqs, key=lambda r: r.t_arr)
    queue, active = [], []
    t, i = pend[0].t_arr, 0
    while i < len(pend) or queue:
        while i < len(pend) and pend[i].t_arr <= t + 1e-9:
            queue.append(pend[i]); i += 1
        active = [r for r in active if r.t_end > t + 1e-9]
        used = sum(math.ceil((r.prompt + r.gen) / bs) for r in active)
        while queue and len(active) < max_num_seqs:
            r = queue[0]
            need = math.ceil((r.prompt + r.gen) / bs)
            if used + need > pool_blocks:
                break
            queue.pop(0)
            r.t_alloc = t
            r.t_sched = t + r.xfer_s
            if not r.xfer_ok:
                r.t_first = math.inf
                r.t_end = r.t_sched
                r.reason = "error"
                r.gen = 0
            else:
                nrun = 1 + sum(1 for a in active if a.t_sched <= r.t_sched < a.t_end)
                r.step = step_fn(nrun)
                r.t_first = r.t_sched + r.step
                r.t_end = r.t_first + max(0, r.gen - 1) * r.step
                if r.gen >= r.max_tokens:
                    r.reason = "length"
            active.append(r); used += need
        nxt = [r.t_end for r in active] + ([pend[i].t_arr] if i < len(pend) else [])
        if not nxt:
            break
        t = max(t + 1e-6, min(nxt))
    return reqs


def _lab(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def _f(v):
    return repr(float(v))


class Expo:
    def __init__(self):
        self.lines = []

    def head(self, name, typ, doc):
        self.lines.append(f"# HELP {name} {doc}")
        self.lines.append(f"# TYPE {name} {typ}")

    def gauge(self, name, doc, samples):
        self.head(name, "gauge", doc)
        for lab, v in samples:
            self.lines.append(f"{name}{{{_lab(lab)}}} {_f(v)}")

    def counter(self, name, doc, samples, created):
        self.head(name + "_total", "counter", doc)
        for lab, v in samples:
            self.lines.append(f"{name}_total{{{_lab(lab)}}} {_f(v)}")
        for lab, v in samples:
            self.lines.append(f"{name}_created{{{_lab(lab)}}} {_f(created)}")

    def hist(self, name, doc, lab, vals, les, created):
        self.head(name, "histogram", doc)
        vals = sorted(vals)
        j = 0
        for le in les:
            while j < len(vals) and vals[j] <= le:
                j += 1
            self.lines.append(f'{name}_bucket{{{_lab({**lab, "le": _f(le)})}}} {_f(j)}')
        self.lines.append(f'{name}_bucket{{{_lab({**lab, "le": "+Inf"})}}} {_f(len(vals))}')
        self.lines.append(f"{name}_count{{{_lab(lab)}}} {_f(len(vals))}")
        self.lines.append(f"{name}_sum{{{_lab(lab)}}} {_f(round(sum(vals), 6))}")
        self.lines.append(f"{name}_created{{{_lab(lab)}}} {_f(created)}")

    def text(self):
        return "\n".join(self.lines) + "\n"


def state(reqs, t, bs, pool_blocks):
    arrived = [r for r in reqs if r.t_arr <= t]
    running = [r for r in arrived if r.t_sched <= t < r.t_end and r.xfer_ok]
    waiting = [r for r in arrived if t < r.t_sched]
    blocks = sum(r.blocks(t, bs) for r in reqs)
    return running, waiting, blocks / pool_blocks


def scrape(reqs, t, created, model, max_model_len, bs, pool_blocks, cache_info, steps, nixl=None):
    lab = {"engine": "0", "model_name": model}
    running, waiting, usage = state(reqs, t, bs, pool_blocks)
    first = [r for r in reqs if r.t_first <= t]
    started = [r for r in reqs if r.t_sched <= t]  # prefix lookups happen at scheduling
    done = [r for r in reqs if r.t_end <= t]
    e = Expo()
    e.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", [(lab, len(running))])
    e.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(lab, len(waiting))])
    e.gauge("vllm:engine_sleep_state", "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
            [({**lab, "sleep_state": "awake"}, 1), ({**lab, "sleep_state": "weights_offloaded"}, 0), ({**lab, "sleep_state": "discard_all"}, 0)])
    e.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [(lab, round(usage, 6))])
    q = sum(r.prompt for r in started)
    h = sum(r.local_hit for r in started)
    eq = sum(r.prompt - r.local_hit for r in started)
    eh = sum(r.prompt - r.local_hit - 1 for r in started)
    e.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", [(lab, q)], created)
    e.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [(lab, h)], created)
    e.counter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.", [(lab, eq)], created)
    e.counter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.", [(lab, eh)], created)
    e.counter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", [(lab, 0)], created)
    e.counter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", [(lab, 0)], created)
    e.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(lab, 0)], created)
    e.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [(lab, sum(r.prompt for r in first))], created)
    e.counter("vllm:generation_tokens", "Number of generation tokens processed.", [(lab, sum(r.gen_by(t) for r in reqs))], created)
    succ = []
    for reason in ("stop", "length", "abort", "error"):
        succ.append(({**lab, "finished_reason": reason}, sum(1 for r in done if r.reason == reason)))
    e.counter("vllm:request_success", "Count of successfully processed requests.", succ, created)
    b = b125(max_model_len)
    e.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", lab, [r.prompt for r in done], b, created)
    e.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", lab, [r.gen for r in done], b, created)
    it = [r.prompt - r.local_hit - (r.prompt - r.local_hit - 1) for r in first]
    it.extend(n for (ts, n) in steps if ts <= t)
    e.hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", lab, it, ITER_B, created)
    e.hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", lab, [r.max_tokens for r in started], b, created)
    e.hist("vllm:request_params_n", "Histogram of the n request parameter.", lab, [1 for r in started], N_B, created)
    e.hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", lab, [r.max_tokens for r in done], b, created)
    e.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lab, [r.t_first - r.t_arr for r in first], TTFT_B, created)
    itl = []
    for r in reqs:
        itl.extend([r.step] * max(0, r.gen_by(t) - 1))
    e.hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", lab, itl, ITL_B, created)
    tpot = [(r.t_end - r.t_first) / (r.gen - 1) for r in done if r.gen > 1]
    e.hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", lab, tpot, ITL_B, created)
    e.hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", lab, [r.t_end - r.t_arr for r in done], LAT_B, created)
    e.hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", lab, [r.t_sched - r.t_arr for r in done], LAT_B, created)
    e.hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", lab, [r.t_end - r.t_sched for r in done], LAT_B, created)
    e.hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", lab, [min(r.t_first, r.t_end) - r.t_sched for r in done], LAT_B, created)
    e.hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", lab, [max(0.0, r.t_end - r.t_first) if r.xfer_ok else 0.0 for r in done], LAT_B, created)
    if nixl is not None:
        nixl(e, lab, t, created)
    e.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", [({**cache_info, "engine": "0"}, 1)])
    return e.text()


def write_bundle(out, manifest, scrapes, server=None, engine_args=None, model_config=None, gpu=None, logs=None):
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with open(out / "metrics.jsonl", "w") as f:
        for t, text in scrapes:
            f.write(json.dumps({"t": t, "status": 200, "text": text}) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with open(out / "gpu.jsonl", "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        (out / "logs.txt").write_text(logs)


def step_timeline(reqs, t0, t1):
    """(time, tokens) of each decode step: one step per max step time while any request decodes."""
    out = []
    ev = sorted(reqs, key=lambda r: r.t_first)
    t = t0
    while t < t1:
        dec = [r for r in ev if r.xfer_ok and r.t_first <= t < r.t_end]
        if dec:
            st = max(r.step for r in dec)
            out.append((t, len(dec)))
            t += st
        else:
            nxt = [r.t_first for r in ev if r.t_first > t]
            if not nxt:
                break
            t = min(nxt)
    return out
