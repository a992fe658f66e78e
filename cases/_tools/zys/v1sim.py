"""Writer zys: a small V1-scheduler simulator that writes a kvdoctor.bundle/1.

Metric families, HELP texts, label sets and bucket layouts were read from vLLM's
vllm/v1/metrics/loggers.py (PrometheusStatLogger, commit 005a810b read through the
search tool); the stats line format from LoggingStatLogger.log() in the same file;
the cache_config_info labels from CacheConfig.metrics_info() (vllm/config/cache.py).

Model of the scheduler (coarse, one tick = one scheduler step of `tick` seconds):
  * running requests are served first, in admission order: a decoding request needs
    `dec_per_tick` tokens, a prefilling one takes a chunk from the step's token budget;
  * when the pool cannot hold a running request's new tokens, the LAST admitted running
    request is preempted (blocks freed, back to the head of the waiting queue, recompute);
  * waiting requests are admitted only in a step without preemption, when the pool holds
    their first chunk (V1 allocates per chunk, not for the whole prompt).
Counters follow V1 IterationStats: prompt tokens and TTFT are counted once per request
(at its first token), preemptions per event; prefix-cache queries are counted at every
(re)scheduling, so recompute shows there.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


class Hist:
    def __init__(self, b):
        self.b, self.c, self.n, self.s = list(b), [0] * len(b), 0, 0.0

    def obs(self, v, k=1):
        for i, ub in enumerate(self.b):
            if v <= ub:
                self.c[i] += k
        self.n += k
        self.s += v * k


def fnum(v):
    v = float(v)
    return repr(v)


class Req:
    def __init__(self, rid, sess, t_arr, prompt, gen, max_tokens, cached=0):
        self.rid, self.sess, self.t_arr = rid, sess, t_arr
        self.prompt, self.gen, self.max_tokens, self.cached = prompt, gen, max_tokens, cached
        self.computed = 0      # tokens whose KV is in the pool
        self.generated = 0
        self.t_sched = None    # first scheduled
        self.t_first = None
        self.t_end = None
        self.t_last_tok = None
        self.npre = 0

    def target(self):
        # tokens that must be (re)computed before the next token is sampled
        return self.prompt + max(0, self.generated - 1) if self.generated else self.prompt


class Sim:
    def __init__(self, pool, max_seqs, budget, tick, dec_per_tick, dec_mixed_per_tick=None, req_overhead=0):
        self.req_overhead = req_overhead
        self.pool, self.max_seqs, self.budget, self.tick = pool, max_seqs, budget, tick
        self.dec = dec_per_tick
        self.dec_mixed = dec_mixed_per_tick if dec_mixed_per_tick is not None else dec_per_tick
        self.running, self.waiting, self.done = [], [], []
        self.used = 0
        self.c = dict(preempt=0, prompt=0, gen=0, pq=0, ph=0)
        self.h = dict(ttft=Hist(TTFT_B), tpot=Hist(TPOT_B), e2e=Hist(LAT_B), queue=Hist(LAT_B),
                      infer=Hist(LAT_B), prefill=Hist(LAT_B), decode=Hist(LAT_B),
                      pptok=Hist(PREFILL_TOK_B), iter=Hist(ITER_B),
                      maxgen=None, n=Hist([1, 2, 5, 10, 20]))
        self.finished = 0
        self.step_prompt = 0
        self.step_gen = 0
        self.preempt_log = []

    def _free(self):
        return self.pool - self.used

    def _preempt(self, t):
        r = self.running.pop()
        self.used -= r.computed + self.req_overhead
        r.computed = 0
        r.npre += 1
        self.c["preempt"] += 1
        self.waiting.insert(0, r)
        self.preempt_log.append((t, r.rid))


def run(sim: Sim, arrivals, t0, t1, hs_cb=None):
    """arrivals: callable(t, sim) -> list of new Req. Returns list of per-tick snapshots."""
    t = t0
    snaps = []
    while t < t1:
        for r in arrivals(t, sim):
            sim.waiting.append(r)
        ntok = step2(sim, t)
        snaps.append(t)
        t = round(t + sim.tick, 6)
        if hs_cb:
            hs_cb(t, sim)
    return snaps


def step2(sim: Sim, t):
    """One scheduler step, decode tokens handled explicitly."""
    budget = sim.budget
    preempted = False
    prefilling = [r for r in sim.running if r.generated == 0 or r.computed < r.target()]
    dec_k = sim.dec_mixed if prefilling else sim.dec
    gen_tokens = 0
    prompt_tokens_step = 0
    i = 0
    while i < len(sim.running):
        r = sim.running[i]
        if r.computed < r.target():
            need = min(budget, r.target() - r.computed)
            kind = "p"
        else:
            need = min(dec_k, r.gen - r.generated)
            kind = "d"
        if need <= 0:
            i += 1
            continue
        ok = True
        while sim._free() < need:
            victim = sim.running[-1]
            sim._preempt(t)
            preempted = True
            if victim is r:
                ok = False
                break
        if not ok:
            break
        sim.used += need
        r.computed += need
        if kind == "p":
            budget -= need
            prompt_tokens_step += need
            if r.computed >= r.target():
                if r.generated == 0:
                    _first(sim, r, t)
                    gen_tokens += 1
                # a resumed request continues decoding next step
        else:
            r.generated += need
            gen_tokens += need
            sim.c["gen"] += need
            if r.generated >= r.gen:
                _finish(sim, r, t + sim.tick)
                continue
        i += 1
    if not preempted:
        while sim.waiting and len(sim.running) < sim.max_seqs and budget > 0:
            r = sim.waiting[0]
            hit = r.cached if r.npre == 0 else 0
            first_chunk = min(budget, r.target() - hit)
            if sim._free() < hit + first_chunk + sim.req_overhead:
                break
            sim.waiting.pop(0)
            if r.t_sched is None:
                r.t_sched = t
            sim.c["pq"] += r.target()
            sim.c["ph"] += hit
            r.computed = hit + first_chunk
            sim.used += hit + first_chunk + sim.req_overhead
            budget -= first_chunk
            prompt_tokens_step += first_chunk
            sim.running.append(r)
            if r.computed >= r.target() and r.generated == 0:
                _first(sim, r, t)
                gen_tokens += 1
    sim.h["iter"].obs(prompt_tokens_step + gen_tokens) if (prompt_tokens_step + gen_tokens) else None
    return prompt_tokens_step + gen_tokens


def _first(sim, r, t):
    r.generated = 1
    r.t_first = t + sim.tick
    sim.c["prompt"] += r.prompt
    sim.c["gen"] += 1
    sim.h["ttft"].obs(r.t_first - r.t_arr)
    sim.h["maxgen"].obs(r.max_tokens)
    sim.h["n"].obs(1)


def _finish(sim, r, t):
    r.t_end = t
    sim.running.remove(r)
    sim.used -= r.computed + sim.req_overhead
    r.computed = 0
    sim.done.append(r)
    sim.finished += 1
    h = sim.h
    h["e2e"].obs(r.t_end - r.t_arr)
    h["queue"].obs(r.t_sched - r.t_arr)
    h["infer"].obs(r.t_end - r.t_sched)
    h["prefill"].obs(r.t_first - r.t_sched)
    h["decode"].obs(r.t_end - r.t_first)
    h["pptok"].obs((r.t_first - r.t_sched) / max(1, r.prompt))
    if r.gen > 1:
        h["tpot"].obs((r.t_end - r.t_first) / (r.gen - 1))


FAMS = [
    ("vllm:num_requests_running", "gauge", "Number of requests in model execution batches."),
    ("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."),
    ("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead."),
    ("vllm:gpu_prefix_cache_queries", "counter", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead."),
    ("vllm:gpu_prefix_cache_hits", "counter", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead."),
    ("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage."),
    ("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens."),
    ("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens."),
    ("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine."),
    ("vllm:prompt_tokens", "counter", "Number of prefill tokens processed."),
    ("vllm:generation_tokens", "counter", "Number of generation tokens processed."),
]


def exposition(sim: Sim, model, mml, cc_labels, done_stats):
    base = f'engine="0",model_name="{model}"'
    L = []
    usage = min(1.0, sim.used / sim.pool)
    vals = {
        "vllm:num_requests_running": len(sim.running), "vllm:num_requests_waiting": len(sim.waiting),
        "vllm:gpu_cache_usage_perc": usage, "vllm:kv_cache_usage_perc": usage,
        "vllm:gpu_prefix_cache_queries": sim.c["pq"], "vllm:gpu_prefix_cache_hits": sim.c["ph"],
        "vllm:prefix_cache_queries": sim.c["pq"], "vllm:prefix_cache_hits": sim.c["ph"],
        "vllm:num_preemptions": sim.c["preempt"], "vllm:prompt_tokens": sim.c["prompt"],
        "vllm:generation_tokens": sim.c["gen"],
    }
    for name, typ, hlp in FAMS:
        L.append(f"# HELP {name}{'_total' if typ == 'counter' else ''} {hlp}")
        L.append(f"# TYPE {name}{'_total' if typ == 'counter' else ''} {typ}")
        L.append(f"{name}{'_total' if typ == 'counter' else ''}{{{base}}} {fnum(vals[name])}")
    # request_success by finish reason
    L.append("# HELP vllm:request_success_total Count of successfully processed requests.")
    L.append("# TYPE vllm:request_success_total counter")
    for reason in ("stop", "length", "abort"):
        v = done_stats.get(reason, 0)
        L.append(f'vllm:request_success_total{{engine="0",finished_reason="{reason}",model_name="{model}"}} {fnum(v)}')

    def hist(name, hlp, h):
        L.append(f"# HELP {name} {hlp}")
        L.append(f"# TYPE {name} histogram")
        for ub, c in zip(h.b, h.c):
            L.append(f'{name}_bucket{{{base},le="{fnum(ub)}"}} {fnum(c)}')
        L.append(f'{name}_bucket{{{base},le="+Inf"}} {fnum(h.n)}')
        L.append(f"{name}_count{{{base}}} {fnum(h.n)}")
        L.append(f"{name}_sum{{{base}}} {fnum(round(h.s, 6))}")

    ptok, gtok, mtok = Hist(b125(mml)), Hist(b125(mml)), Hist(b125(mml))
    for r in sim.done:
        ptok.obs(r.prompt)
        gtok.obs(r.gen)
        mtok.obs(r.max_tokens)
    nh = sim.h["n"]
    mx = sim.h["maxgen"]
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", ptok)
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", gtok)
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", sim.h["iter"])
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", mx)
    hist("vllm:request_params_n", "Histogram of the n request parameter.", nh)
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", mtok)
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", sim.h["ttft"])
    hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", sim.h["tpot"])
    hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", sim.h["pptok"])
    hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", sim.h["e2e"])
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", sim.h["queue"])
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", sim.h["infer"])
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", sim.h["prefill"])
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", sim.h["decode"])
    lab = ",".join(f'{k}="{v}"' for k, v in sorted({**cc_labels, "engine": "0"}.items()))
    L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    L.append("# TYPE vllm:cache_config_info gauge")
    L.append(f"vllm:cache_config_info{{{lab}}} 1.0")
    return "\n".join(L) + "\n"
