"""Step-level vLLM engine simulation and kvdoctor.bundle/1 writer, copied from cases/_tools/zp (writer zp,
round 10). Written for this round; no import of the project package.

The engine is simulated one scheduler step at a time: a FCFS waiting queue, a running set bounded
by max_num_seqs and by the KV block pool, recompute preemption of the most recently admitted
request when a decode step cannot get a block (V0 and V1 both do this for n=1 requests), and a
step time of a + b*decoding_seqs + c*prefill_tokens. V0 ("v0") prefills whole prompts in
prefill-only steps (no chunked prefill); V1 ("v1") mixes decodes and prefill chunks under
max_num_batched_tokens. Every counter, histogram, gauge and stats line comes from that one run, so
they agree with each other.

Metric families per release (names, HELP texts, bucket layouts):
  * "0.3.3"      V0, model_name label; no request_* histograms, no preemption counter.
  * "0.4.2"      V0 metrics.py of the 0.4.x line (num_preemptions_total, request_* histograms,
                 request_params_best_of/n, avg throughput gauges), Info cache_config_info.
  * "0.6.1"      V0 of the 0.6.x line (as 0.4.2 without the deprecated avg-throughput gauges).
  * "v1"         V1 0.27/0.28 families (engine label, _created samples) as in the corpus' 0.27.1
                 recordings (format examples).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------- requests


@dataclass
class Req:
    rid: str
    arrive: float
    prompt: int
    out: int                 # tokens the request will generate
    max_tokens: int
    reason: str = "length"   # finish reason when out is reached
    # runtime
    gen: int = 0             # tokens generated so far
    computed: int = 0        # tokens whose KV is in the pool (prompt part + generated)
    prefilled: bool = False
    t_sched: float | None = None       # first time scheduled
    t_first: float | None = None
    t_end: float | None = None
    t_last_tok: float | None = None
    prefill_start: float | None = None
    preempts: int = 0
    itls: list = field(default_factory=list)


# --------------------------------------------------------------------------- histograms

def b125(maxv: int) -> list[float]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(float(v))
        e += 1


class Hist:
    def __init__(self, bounds):
        self.bounds = [float(b) for b in bounds]
        self.counts = [0] * len(self.bounds)
        self.n = 0
        self.s = 0.0

    def obs(self, v, k=1):
        for i, b in enumerate(self.bounds):
            if v <= b:
                self.counts[i] += k
                break
        self.n += k
        self.s += v * k

    def cum(self):
        c, out = 0, []
        for x in self.counts:
            c += x
            out.append(c)
        return out


def num(v) -> str:
    v = float(v)
    if v.is_integer():
        return f"{v:.1f}"
    return repr(round(v, 6))


V0_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
V0_TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
V0_E2E = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
V1_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
           20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
V1_ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
          40.0, 80.0]
V1_LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
          480.0, 960.0, 1920.0, 7680.0]
V1_ITER = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_B = [1, 2, 5, 10, 20]

V0_HELP = {
    "vllm:num_requests_running": "Number of requests currently running on GPU.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:num_requests_swapped": "Number of requests swapped to CPU.",
    "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:cpu_cache_usage_perc": "CPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:num_preemptions_total": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens_total": "Number of prefill tokens processed.",
    "vllm:generation_tokens_total": "Number of generation tokens processed.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:e2e_request_latency_seconds": "Histogram of end to end request latency in seconds.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:request_params_best_of": "Histogram of the best_of request parameter.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_success_total": "Count of successfully processed requests.",
    "vllm:avg_prompt_throughput_toks_per_s": "Average prefill throughput in tokens/s.",
    "vllm:avg_generation_throughput_toks_per_s": "Average generation throughput in tokens/s.",
}

V1_HELP = {
    "vllm:num_requests_running": "Number of requests in model execution batches.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:num_requests_waiting_by_reason": "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; 'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). Sum of all reasons equals vllm:num_requests_waiting.",
    "vllm:engine_sleep_state": "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
    "vllm:kv_cache_usage_perc": "KV-cache usage. 1 means 100 percent usage.",
    "vllm:prefix_cache_queries": "Prefix cache queries, in terms of number of queried tokens.",
    "vllm:prefix_cache_hits": "Prefix cache hits, in terms of number of cached tokens.",
    "vllm:external_prefix_cache_queries": "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.",
    "vllm:external_prefix_cache_hits": "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.",
    "vllm:mm_cache_queries": "Multi-modal cache queries, in terms of number of queried items.",
    "vllm:mm_cache_hits": "Multi-modal cache hits, in terms of number of cached items.",
    "vllm:num_preemptions": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens": "Number of prefill tokens processed.",
    "vllm:prompt_tokens_by_source": "Number of prompt tokens by source.",
    "vllm:prompt_tokens_cached": "Number of cached prompt tokens (local + external).",
    "vllm:generation_tokens": "Number of generation tokens processed.",
    "vllm:request_success": "Count of successfully processed requests.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:request_max_num_generation_tokens": "Histogram of maximum number of requested generation tokens.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_params_max_tokens": "Histogram of the max_tokens request parameter.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "vllm:request_time_per_output_token_seconds": "Histogram of time_per_output_token_seconds per request.",
    "vllm:e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
    "vllm:request_prefill_kv_computed_tokens": "Histogram of new KV tokens computed during prefill (excluding cached tokens).",
}


# --------------------------------------------------------------------------- engine


class Engine:
    def __init__(self, *, family, model_name, max_model_len, num_blocks, block_size, max_num_seqs,
                 mnbt, step_a, step_b, step_c, step_d=0.0, cache_info, t_created, chunked,
                 watermark=0.01, log_prefix="", log_every=5.0, log_style="v0-0.4", engine="0",
                 preempt_log=True, preempt_log_prefix=""):
        self.family = family
        self.model = model_name
        self.mml = max_model_len
        self.nb = num_blocks
        self.bs = block_size
        self.max_num_seqs = max_num_seqs
        self.mnbt = mnbt
        self.a, self.b, self.c, self.d = step_a, step_b, step_c, step_d
        self.cache_info = cache_info
        self.t_created = t_created
        self.chunked = chunked
        self.watermark_blocks = int(watermark * num_blocks) if not chunked else 0
        self.log_prefix = log_prefix
        self.log_every = log_every
        self.log_style = log_style
        self.engine = engine
        self.preempt_log = preempt_log
        self.preempt_log_prefix = preempt_log_prefix
        tb = b125(max_model_len)
        v1 = family == "v1"
        self.h = {
            "ttft": Hist(V1_TTFT if v1 else V0_TTFT),
            "tpot": Hist(V1_ITL if v1 else V0_TPOT),
            "e2e": Hist(V1_LAT if v1 else V0_E2E),
            "ptok": Hist(tb), "gtok": Hist(tb), "n": Hist(N_B), "best_of": Hist(N_B),
            "maxgen": Hist(tb), "maxtok": Hist(tb), "iter": Hist(V1_ITER),
            "rtpot": Hist(V1_ITL), "queue": Hist(V1_LAT), "infer": Hist(V1_LAT),
            "prefill": Hist(V1_LAT), "decode": Hist(V1_LAT), "pkv": Hist(tb),
        }
        self.c_prompt = 0
        self.c_gen = 0
        self.c_preempt = 0
        self.success = {"stop": 0, "length": 0, "abort": 0}
        self.running: list[Req] = []
        self.waiting: list[Req] = []
        self.win_p = 0
        self.win_g = 0
        self.last_log = None
        self.logs: list[tuple[float, str]] = []
        self.scrapes: list[dict] = []
        self.max_tokens_seen = 0
        self.used = 0

    # ---- KV accounting
    def blocks_of(self, tokens):
        return (tokens + self.bs - 1) // self.bs

    def used_blocks(self):
        return self.used

    def usage(self):
        return min(1.0, self.used_blocks() / self.nb)

    # ---- run
    def run(self, reqs, t0, t_stop, scrape_times, log_from, on_finish=None):
        """on_finish(req, t) -> list of new Req (closed-loop clients)."""
        import heapq
        heap = []
        seq = 0
        for r in reqs:
            heapq.heappush(heap, (r.arrive, seq, r))
            seq += 1
        self.on_finish = on_finish
        self._new = []
        t = t0
        si = 0
        self.last_log = log_from
        scrape_times = list(scrape_times)
        while t < t_stop:
            for r in self._new:
                heapq.heappush(heap, (r.arrive, seq, r))
                seq += 1
            self._new = []
            while heap and heap[0][0] <= t:
                self.waiting.append(heapq.heappop(heap)[2])
            if not self.running and not self.waiting:
                nxt = heap[0][0] if heap else t_stop
                nxt = min(nxt, t_stop)
                self._flush(nxt, scrape_times, si)
                si = self._scrape_upto(nxt, scrape_times, si)
                t = max(nxt, t + 1e-3)
                continue
            dt_, events = self._step(t)
            t_new = t + dt_
            si = self._scrape_upto(t, scrape_times, si)
            self._apply(t, t_new, events)
            self._flush(t_new, scrape_times, si)
            t = t_new
        si = self._scrape_upto(t_stop + 1e-9, scrape_times, si)

    def _scrape_upto(self, t, times, si):
        while si < len(times) and times[si] <= t:
            self.scrapes.append({"t": times[si], "status": 200, "text": self.text(times[si])})
            si += 1
        return si

    def _flush(self, t, times, si):
        while self.last_log + self.log_every <= t:
            self.last_log += self.log_every
            idle = not (self.win_p or self.win_g or self.running or self.waiting)
            if not (idle and (self.log_style != "v1" or getattr(self, "_was_idle", False))):
                self.logs.append((self.last_log, self.stats_line(self.last_log)))
            self._was_idle = idle
            self.win_p = 0
            self.win_g = 0

    def _preempt(self, t):
        victim = self.running.pop()
        self.used -= self.blocks_of(victim.computed)
        victim.computed = 0
        victim.prefilled = False
        victim.preempts += 1
        self.waiting.insert(0, victim)
        self.c_preempt += 1
        if self.preempt_log and self.c_preempt % 50 == 0:
            ts = dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
            if self.family == "v1":
                pass
            else:
                self.logs.append((t, f"{self.preempt_log_prefix}WARNING {ts} scheduler.py:1089] Sequence group {victim.rid} "
                                  "is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache "
                                  "space. This can affect the end-to-end performance. Increase gpu_memory_utilization "
                                  "or tensor_parallel_size to provide more KV cache memory. "
                                  f"total_num_cumulative_preemption={self.c_preempt}"))
        return victim

    def _step(self, t):
        """Decide one scheduler step; return (duration, events)."""
        prefill = []   # (req, tokens)
        decode = []
        if not self.chunked:
            # V0: prefill-only step if anything can be admitted, else a decode step
            free = self.nb - self.used_blocks()
            budget = max(self.mnbt, 1)
            while self.waiting and len(self.running) + len(prefill) < self.max_num_seqs:
                r = self.waiting[0]
                toks = r.prompt + r.gen
                need = self.blocks_of(toks)
                if free - need < self.watermark_blocks:
                    break
                if sum(x[1] for x in prefill) + toks > budget and prefill:
                    break
                self.waiting.pop(0)
                free -= need
                r.computed = toks
                self.used += need
                prefill.append((r, toks))
            if prefill:
                for r, _ in prefill:
                    self.running.append(r)
                ptoks = sum(x[1] for x in prefill)
                return self.a + self.c * ptoks, {"prefill": prefill, "decode": []}
        # decode (V0), or decode + chunks (V1)
        i = 0
        while i < len(self.running):
            r = self.running[i]
            if not r.prefilled:
                i += 1
                continue
            need_new = r.computed % self.bs == 0
            if need_new:
                while self.nb - self.used_blocks() < 1:
                    v = self._preempt(t)
                    if v is r:
                        break
                if r not in self.running:
                    continue
            if need_new:
                self.used += 1
            r.computed += 1
            decode.append(r)
            i += 1
        if self.chunked:
            budget = self.mnbt - len(decode)
            for r in self.running:
                if not r.prefilled and budget > 0:
                    left = (r.prompt + r.gen) - r.computed
                    k = min(left, budget)
                    nb_ = self.blocks_of(r.computed + k) - self.blocks_of(r.computed)
                    if nb_ > self.nb - self.used_blocks():
                        continue
                    self.used += nb_
                    r.computed += k
                    budget -= k
                    prefill.append((r, k))
            while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
                r = self.waiting[0]
                total = r.prompt + r.gen
                k = min(total, budget)
                if self.blocks_of(k) > self.nb - self.used_blocks():
                    break
                self.waiting.pop(0)
                r.computed = k
                self.used += self.blocks_of(k)
                self.running.append(r)
                prefill.append((r, k))
                budget -= k
        ptoks = sum(x[1] for x in prefill)
        ctx = sum(r.computed for r in decode)
        dur = self.a + self.b * len(decode) + self.c * ptoks + self.d * ctx
        return dur, {"prefill": prefill, "decode": decode}

    def _apply(self, t0, t, ev):
        done = []
        ntok = 0
        for r, k in ev["prefill"]:
            if r.t_sched is None:
                r.t_sched = t0
            if r.prefill_start is None:
                r.prefill_start = t0
            self.c_prompt += k
            self.win_p += k
            ntok += k
            if r.computed >= r.prompt + r.gen:
                r.prefilled = True
                # the step that completes a prefill samples one token
                r.gen += 1
                self.c_gen += 1
                self.win_g += 1
                if r.t_first is None:
                    r.t_first = t
                    self.h["ttft"].obs(t - r.arrive)
                else:
                    r.itls.append(t - r.t_last_tok)
                    self.h["tpot"].obs(t - r.t_last_tok)
                r.t_last_tok = t
                if r.gen >= r.out:
                    done.append(r)
        for r in ev["decode"]:
            r.gen += 1
            self.c_gen += 1
            self.win_g += 1
            ntok += 1
            self.h["tpot"].obs(t - r.t_last_tok)
            r.itls.append(t - r.t_last_tok)
            r.t_last_tok = t
            if r.gen >= r.out:
                done.append(r)
        if ntok:
            self.h["iter"].obs(ntok)
        for r in done:
            if r in self.running:
                self.running.remove(r)
                self.used -= self.blocks_of(r.computed)
            if getattr(self, "on_finish", None):
                self._new.extend(self.on_finish(r, t) or [])
            r.t_end = t
            self.success[r.reason] += 1
            self.h["e2e"].obs(t - r.arrive)
            self.h["ptok"].obs(r.prompt)
            self.h["gtok"].obs(r.gen)
            self.h["n"].obs(1)
            self.h["best_of"].obs(1)
            self.h["maxgen"].obs(r.max_tokens)
            self.h["maxtok"].obs(r.max_tokens)
            q = r.t_sched - r.arrive
            self.h["queue"].obs(max(0.0, q))
            self.h["infer"].obs(t - r.prefill_start)
            self.h["prefill"].obs(r.t_first - r.prefill_start)
            self.h["decode"].obs(t - r.t_first)
            self.h["pkv"].obs(r.prompt)
            if r.gen > 1:
                self.h["rtpot"].obs((t - r.t_first) / (r.gen - 1))
            else:
                self.h["rtpot"].obs(0.0)

    # ---- exposition
    def text(self, t):
        if self.family == "v1":
            return self._text_v1(t)
        return self._text_v0(t)

    def _text_v0(self, t):
        lab = f'model_name="{self.model}"'
        L = []
        fam = self.family
        ci = ",".join(f'{k}="{v}"' for k, v in sorted(self.cache_info.items()))
        L += ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
              "vllm:cache_config_info{" + ci + "} 1.0"]

        def g(name, v):
            L.extend([f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} gauge", f"{name}{{{lab}}} {num(v)}"])

        def c(name, v):
            L.extend([f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} counter", f"{name}{{{lab}}} {num(v)}"])

        def h(name, H):
            L.extend([f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} histogram"])
            for b, cc in zip(H.bounds, H.cum()):
                L.append(f'{name}_bucket{{{lab},le="{b}"}} {num(cc)}')
            L.append(f'{name}_bucket{{{lab},le="+Inf"}} {num(H.n)}')
            L.append(f"{name}_count{{{lab}}} {num(H.n)}")
            L.append(f"{name}_sum{{{lab}}} {num(H.s)}")

        waiting = len(self.waiting)
        g("vllm:num_requests_running", len(self.running))
        g("vllm:num_requests_waiting", waiting)
        g("vllm:num_requests_swapped", 0)
        g("vllm:gpu_cache_usage_perc", self.usage())
        g("vllm:cpu_cache_usage_perc", 0.0)
        if fam != "0.3.3":
            c("vllm:num_preemptions_total", self.c_preempt)
        c("vllm:prompt_tokens_total", self.c_prompt)
        c("vllm:generation_tokens_total", self.c_gen)
        h("vllm:time_to_first_token_seconds", self.h["ttft"])
        h("vllm:time_per_output_token_seconds", self.h["tpot"])
        h("vllm:e2e_request_latency_seconds", self.h["e2e"])
        if fam != "0.3.3":
            h("vllm:request_prompt_tokens", self.h["ptok"])
            h("vllm:request_generation_tokens", self.h["gtok"])
            h("vllm:request_params_best_of", self.h["best_of"])
            h("vllm:request_params_n", self.h["n"])
            name = "vllm:request_success_total"
            L.extend([f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} counter"])
            for reason in ("length", "stop"):
                if self.success[reason]:
                    L.append(f'{name}{{finished_reason="{reason}",{lab}}} {num(self.success[reason])}')
        if fam in ("0.3.3", "0.4.2"):
            p, gg = self._tp(t)
            g("vllm:avg_prompt_throughput_toks_per_s", p)
            g("vllm:avg_generation_throughput_toks_per_s", gg)
        return "\n".join(L) + "\n"

    def _tp(self, t):
        # last logged interval's throughput (the gauges are set when the stats line is logged)
        for tt, line in reversed(self.logs):
            if tt <= t and "Avg prompt throughput" in line:
                p = float(line.split("Avg prompt throughput: ")[1].split(" ")[0])
                gg = float(line.split("Avg generation throughput: ")[1].split(" ")[0])
                return p, gg
        return 0.0, 0.0

    def _text_v1(self, t):
        base = f'engine="{self.engine}",model_name="{self.model}"'
        L = []
        tc = self.t_created

        def lab(extra=""):
            return "{" + base + ("," + extra if extra else "") + "}"

        def created(name, help_, rows=None):
            L.append(f"# HELP {name}_created {help_}")
            L.append(f"# TYPE {name}_created gauge")
            for extra in (rows or [""]):
                L.append(f"{name}_created{lab(extra)} {tc!r}")

        def g(name, v, extra=None):
            L.extend([f"# HELP {name} {V1_HELP[name]}", f"# TYPE {name} gauge"])
            if extra is None:
                L.append(f"{name}{lab()} {num(v)}")
            else:
                for e, vv in extra:
                    L.append(f"{name}{lab(e)} {num(vv)}")

        def c(name, v, rows=None):
            full = name + "_total"
            L.extend([f"# HELP {full} {V1_HELP[name]}", f"# TYPE {full} counter"])
            if rows is None:
                L.append(f"{full}{lab()} {num(v)}")
                created(name, V1_HELP[name])
            else:
                for e, vv in rows:
                    L.append(f"{full}{lab(e)} {num(vv)}")
                created(name, V1_HELP[name], [e for e, _ in rows])

        def h(name, H):
            L.extend([f"# HELP {name} {V1_HELP[name]}", f"# TYPE {name} histogram"])
            for b, cc in zip(H.bounds, H.cum()):
                L.append(f'{name}_bucket{lab("le=" + json.dumps(num(b)))} {num(cc)}')
            L.append(f'{name}_bucket{lab(chr(108) + "e=" + chr(34) + "+Inf" + chr(34))} {num(H.n)}')
            L.append(f"{name}_count{lab()} {num(H.n)}")
            L.append(f"{name}_sum{lab()} {num(H.s)}")
            created(name, V1_HELP[name])

        g("vllm:num_requests_running", len(self.running))
        g("vllm:num_requests_waiting", len(self.waiting))
        g("vllm:num_requests_waiting_by_reason", None,
          [('reason="capacity"', len(self.waiting)), ('reason="deferred"', 0)])
        g("vllm:engine_sleep_state", None, [('sleep_state="awake"', 1), ('sleep_state="weights_offloaded"', 0),
                                            ('sleep_state="discard_all"', 0)])
        g("vllm:kv_cache_usage_perc", self.usage())
        c("vllm:prefix_cache_queries", self.c_prompt)
        c("vllm:prefix_cache_hits", 0)
        c("vllm:external_prefix_cache_queries", 0)
        c("vllm:external_prefix_cache_hits", 0)
        c("vllm:mm_cache_queries", 0)
        c("vllm:mm_cache_hits", 0)
        c("vllm:num_preemptions", self.c_preempt)
        c("vllm:prompt_tokens", self.c_prompt)
        c("vllm:prompt_tokens_by_source", None, [('source="local_compute"', self.c_prompt),
                                                  ('source="local_cache_hit"', 0),
                                                  ('source="external_kv_transfer"', 0)])
        c("vllm:prompt_tokens_cached", 0)
        c("vllm:generation_tokens", self.c_gen)
        c("vllm:request_success", None, [(f'finished_reason="{k}"', v) for k, v in
                                          (("stop", self.success["stop"]), ("length", self.success["length"]),
                                           ("abort", 0), ("error", 0))])
        h("vllm:request_prompt_tokens", self.h["ptok"])
        h("vllm:request_generation_tokens", self.h["gtok"])
        h("vllm:iteration_tokens_total", self.h["iter"])
        h("vllm:request_max_num_generation_tokens", self.h["maxgen"])
        h("vllm:request_params_n", self.h["n"])
        h("vllm:request_params_max_tokens", self.h["maxtok"])
        h("vllm:time_to_first_token_seconds", self.h["ttft"])
        h("vllm:inter_token_latency_seconds", self.h["tpot"])
        h("vllm:request_time_per_output_token_seconds", self.h["rtpot"])
        h("vllm:e2e_request_latency_seconds", self.h["e2e"])
        h("vllm:request_queue_time_seconds", self.h["queue"])
        h("vllm:request_inference_time_seconds", self.h["infer"])
        h("vllm:request_prefill_time_seconds", self.h["prefill"])
        h("vllm:request_decode_time_seconds", self.h["decode"])
        h("vllm:request_prefill_kv_computed_tokens", self.h["pkv"])
        ci = ",".join(f'{k}="{v}"' for k, v in sorted({**self.cache_info, "engine": self.engine}.items()))
        L += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
              "# TYPE vllm:cache_config_info gauge", "vllm:cache_config_info{" + ci + "} 1.0"]
        return "\n".join(L) + "\n"

    # ---- logs
    def stats_line(self, t):
        ts = dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
        p = self.win_p / self.log_every
        g = self.win_g / self.log_every
        u = 100.0 * self.usage()
        if self.log_style == "v1":
            return (f"{self.log_prefix}INFO {ts} [loggers.py:263] Engine {int(self.engine):03d}: Avg prompt throughput: "
                    f"{p:.1f} tokens/s, Avg generation throughput: {g:.1f} tokens/s, Running: {len(self.running)} reqs, "
                    f"Waiting: {len(self.waiting)} reqs, GPU KV cache usage: {u:.1f}%, Prefix cache hit rate: 0.0%")
        where = {"0.3.3": "metrics.py:161]", "0.4.2": "metrics.py:334]", "0.6.1": "metrics.py:351]"}[self.family]
        tail = "." if self.family == "0.6.1" else ""
        return (f"{self.log_prefix}INFO {ts} {where} Avg prompt throughput: {p:.1f} tokens/s, Avg generation "
                f"throughput: {g:.1f} tokens/s, Running: {len(self.running)} reqs, Swapped: 0 reqs, Pending: "
                f"{len(self.waiting)} reqs, GPU KV cache usage: {u:.1f}%, CPU KV cache usage: 0.0%{tail}")


# --------------------------------------------------------------------------- writer


def stamp(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)


def write_bundle(out: Path, *, eng: Engine, t0, t1, interval, endpoint, notes, version, served, root,
                 mml, engine_args, model_config, startup_logs, gpu=None, extra_logs=(), log_window=None,
                 models_extra=None):
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps({
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
        "started_at": t0, "ended_at": t1, "interval_s": interval, "notes": notes}, indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for s in eng.scrapes:
            f.write(json.dumps(s) + "\n")
    model = {"id": served, "object": "model", "created": int(t0 - 600), "owned_by": "vllm", "root": root,
             "parent": None}
    if mml is not None:
        model["max_model_len"] = mml
    if models_extra:
        model.update(models_extra)
    (out / "server.json").write_text(json.dumps({"version": {"version": version},
                                                  "models": {"object": "list", "data": [model]},
                                                  "health": 200}, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with (out / "gpu.jsonl").open("w") as f:
            for s in eng.scrapes:
                f.write(json.dumps({"t": s["t"], "devices": gpu(s["t"])}) + "\n")
    lo, hi = log_window if log_window else (t0 - 60, t1)
    ev = [(t, l) for t, l in eng.logs if lo <= t <= hi]
    ev += [(t, l) for t, l in extra_logs if lo <= t <= hi]
    ev.sort(key=lambda x: x[0])
    lines = list(startup_logs) + [l for _, l in ev]
    (out / "logs.txt").write_text("\n".join(lines) + "\n")
