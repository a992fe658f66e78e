"""Writer zq's kvdoctor.bundle/1 writer (round 10), adapted from cases/_tools/zh/gen.py.

Changes against zh: several engines behind one endpoint (one HELP/TYPE per family, one sample per
engine), request states beyond queued/running (deferred = parked for an async KV load or a remote
prefill, holding blocks; a stall time after which a running request produces no token; aborts), an
engine freeze time after which an engine's scheduler stats stop updating (a hung engine core), the
`num_requests_waiting_by_reason` gauge and the `Deferred:` part of the stat line of the 2026
releases, per-version family sets and cache_config_info labels, and an inter-token gap mixture.
Every number of a scrape derives from one list of simulated requests. Self-contained: no import of
the project package.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

INF = float("inf")
LAT_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
               120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
               10.0, 20.0, 40.0, 80.0]
ITER_BUCKETS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_BUCKETS = [1, 2, 5, 10, 20]
_NB = [0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0]
NIXL_XFER_BUCKETS = _NB[1:]
NIXL_POST_BUCKETS = _NB
NIXL_BYTES_BUCKETS = [2 ** (10 + i) for i in range(1, 25, 2)]
NIXL_DESC_BUCKETS = [10, 20, 30, 50, 75, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 50000]


def b125(maxv: int) -> list[float]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(float(v))
        e += 1


def stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


@dataclass
class Req:
    t_arrive: float
    prompt: int
    gen: int                      # tokens the request produces if it completes
    max_tokens: int
    hit: int = 0                  # local prefix-cache hit tokens
    ext: int = 0                  # tokens received over a KV connector (remote prefill / CPU tier)
    t_defer: float | None = None  # parked (deferred) from here, holding blocks
    t_sched: float = INF          # admitted to running
    prefill: float = 0.05         # running -> first token
    itl: float = 0.03             # mean gap between output tokens
    t_stall: float = INF          # no token after this time
    t_end: float | None = None    # explicit end (abort); default: last token
    reason: str = "length"
    hold: int | None = None       # tokens held while deferred (default: prompt)
    extra_blocks: int = 0         # per-request blocks beyond the attention blocks (state groups)
    xfer: dict | None = None      # NIXL pull {"dur","post","bytes","descs"}
    t_loaded: float | None = None  # deferred ends here; waits (holding blocks) for a running slot

    @property
    def t_first(self):
        return self.t_sched + self.prefill

    @property
    def t_last(self):
        return self.t_first + max(0, self.gen - 1) * self.itl

    @property
    def end(self):
        return self.t_end if self.t_end is not None else self.t_last

    def gen_by(self, t):
        tt = min(t, self.t_stall, self.end)
        if tt < self.t_first:
            return 0
        return min(self.gen, 1 + int((tt - self.t_first) / self.itl + 1e-9))

    def state(self, t):
        if t < self.t_arrive:
            return "pending"
        if t >= self.end:
            return "done"
        if t >= self.t_sched:
            return "running"
        if self.t_loaded is not None and t >= self.t_loaded:
            return "loaded"
        if self.t_defer is not None and t >= self.t_defer:
            return "deferred"
        return "waiting"


VERSION_FAMILIES = {
    "v011": dict(waiting_reason=False, external=False, by_source=False, tpot_old=True, kv_computed=False,
                 deferred_log=False),
    "v022": dict(waiting_reason=True, external=True, by_source=True, tpot_old=False, kv_computed=True,
                 deferred_log=True),
}

HELP = {
    "vllm:num_requests_running": ("gauge", "Number of requests in model execution batches."),
    "vllm:num_requests_waiting": ("gauge", "Number of requests waiting to be processed."),
    "vllm:num_requests_waiting_by_reason": ("gauge", "Number of requests waiting to be processed, by reason."),
    "vllm:kv_cache_usage_perc": ("gauge", "KV-cache usage. 1 means 100 percent usage."),
    "vllm:prefix_cache_queries": ("counter", "Prefix cache queries, in terms of number of queried tokens."),
    "vllm:prefix_cache_hits": ("counter", "Prefix cache hits, in terms of number of cached tokens."),
    "vllm:external_prefix_cache_queries": ("counter", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens."),
    "vllm:external_prefix_cache_hits": ("counter", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens."),
    "vllm:num_preemptions": ("counter", "Cumulative number of preemption from the engine."),
    "vllm:prompt_tokens": ("counter", "Number of prefill tokens processed."),
    "vllm:prompt_tokens_by_source": ("counter", "Number of prompt tokens by source."),
    "vllm:prompt_tokens_cached": ("counter", "Number of cached prompt tokens (local + external)."),
    "vllm:prompt_tokens_recomputed": ("counter", "Number of cached tokens recomputed for forward pass."),
    "vllm:generation_tokens": ("counter", "Number of generation tokens processed."),
    "vllm:request_success": ("counter", "Count of successfully processed requests."),
    "vllm:request_prompt_tokens": ("histogram", "Number of prefill tokens processed."),
    "vllm:request_generation_tokens": ("histogram", "Number of generation tokens processed."),
    "vllm:iteration_tokens_total": ("histogram", "Histogram of number of tokens per engine_step."),
    "vllm:request_max_num_generation_tokens": ("histogram", "Histogram of maximum number of requested generation tokens."),
    "vllm:request_params_n": ("histogram", "Histogram of the n request parameter."),
    "vllm:request_params_max_tokens": ("histogram", "Histogram of the max_tokens request parameter."),
    "vllm:time_to_first_token_seconds": ("histogram", "Histogram of time to first token in seconds."),
    "vllm:time_per_output_token_seconds": ("histogram", "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead."),
    "vllm:inter_token_latency_seconds": ("histogram", "Histogram of inter-token latency in seconds."),
    "vllm:request_time_per_output_token_seconds": ("histogram", "Histogram of time_per_output_token_seconds per request."),
    "vllm:e2e_request_latency_seconds": ("histogram", "Histogram of e2e request latency in seconds."),
    "vllm:request_queue_time_seconds": ("histogram", "Histogram of time spent in WAITING phase for request."),
    "vllm:request_inference_time_seconds": ("histogram", "Histogram of time spent in RUNNING phase for request."),
    "vllm:request_prefill_time_seconds": ("histogram", "Histogram of time spent in PREFILL phase for request."),
    "vllm:request_decode_time_seconds": ("histogram", "Histogram of time spent in DECODE phase for request."),
    "vllm:request_prefill_kv_computed_tokens": ("histogram", "Histogram of new KV tokens computed during prefill (excluding cached tokens)."),
    "vllm:spec_decode_num_drafts": ("counter", "Number of spec decoding drafts."),
    "vllm:spec_decode_num_draft_tokens": ("counter", "Number of draft tokens."),
    "vllm:spec_decode_num_accepted_tokens": ("counter", "Number of accepted tokens."),
    "vllm:spec_decode_num_accepted_tokens_per_pos": ("counter", "Accepted tokens per draft position."),
    "vllm:nixl_xfer_time_seconds": ("histogram", "Histogram of transfer duration for NIXL KV Cache transfers."),
    "vllm:nixl_post_time_seconds": ("histogram", "Histogram of transfer post time for NIXL KV Cache transfers."),
    "vllm:nixl_bytes_transferred": ("histogram", "Histogram of bytes transferred per NIXL KV Cache transfers."),
    "vllm:nixl_num_descriptors": ("histogram", "Histogram of number of descriptors per NIXL  KV Cache transfers."),
    "vllm:nixl_num_failed_transfers": ("counter", "Number of failed NIXL KV Cache transfers."),
    "vllm:nixl_num_failed_notifications": ("counter", "Number of failed NIXL KV Cache notifications."),
}


def fmt(v) -> str:
    v = float(v)
    if v.is_integer():
        return f"{v:.1f}"
    return repr(round(v, 6))


@dataclass
class Engine:
    index: int
    pool_blocks: int
    block_size: int
    reqs: list
    cache_labels: dict
    freeze_at: float = INF        # engine core hung: its stats stop updating
    budget: int = 8192
    itl_mix: list | None = None   # [(gap_s, fraction)] for the ITL histogram (default: per-request itl)
    step_s: float = 0.03          # decode step (for the iteration histogram)
    shared_prefix: int = 0        # tokens of a prefix every hitting request shares (blocks counted once)
    _steps: list | None = field(default=None, repr=False)

    def at(self, t):
        return min(t, self.freeze_at)

    def blocks(self, r, t):
        s = r.state(t)
        sh = self.shared_prefix if (self.shared_prefix and r.hit >= self.shared_prefix) else 0
        if s == "running":
            return math.ceil((r.prompt + r.gen_by(t) - sh) / self.block_size) + r.extra_blocks
        if s in ("deferred", "loaded"):
            return math.ceil((r.hold if r.hold is not None else r.prompt) / self.block_size) + r.extra_blocks
        return 0

    def usage(self, t):
        t = self.at(t)
        used = sum(self.blocks(r, t) for r in self.reqs)
        if self.shared_prefix and any(r.state(t) == "running" and r.hit >= self.shared_prefix for r in self.reqs):
            used += math.ceil(self.shared_prefix / self.block_size)
        return min(1.0, used / self.pool_blocks)

    def counts(self, t):
        t = self.at(t)
        st = [r.state(t) for r in self.reqs]
        return st.count("running"), st.count("waiting") + st.count("loaded"), st.count("deferred")

    def steps(self, t0, t1):
        """(slice end, tokens per step, number of steps) per 1-s slice."""
        if self._steps is None:
            out = []
            tt = t0
            while tt < t1:
                b = tt + 1.0
                if b > self.freeze_at + 1.0:
                    tt = b
                    continue
                gen = sum(r.gen_by(b) - r.gen_by(tt) for r in self.reqs)
                run = [r for r in self.reqs if r.state(b - 0.5) == "running"]
                pre = sum(max(1, r.prompt - r.hit - r.ext) for r in self.reqs if tt <= r.t_first < b)
                if pre > 0:
                    n = max(1, math.ceil(pre / self.budget))
                    out.append((b, min(self.budget, pre / n + len(run)), n))
                if gen > 0 and run:
                    n = max(1, round(gen / len(run)))
                    out.append((b, float(len(run)), n))
                tt = b
            self._steps = out
        return self._steps


class Capture:
    def __init__(self, *, fam: str, model: str, version: str, mml: int, engines: list, t0: float,
                 n: int, interval: float, t_start: float, nixl: bool = False, connector: bool = False,
                 sim_from: float | None = None, spec: tuple | None = None, served: str | None = None):
        self.f = VERSION_FAMILIES[fam]
        self.fam = fam
        self.model, self.version, self.mml = model, version, mml
        self.engines, self.t0, self.n, self.interval = engines, t0, n, interval
        self.t_start = t_start
        self.nixl, self.connector = nixl, connector
        self.tok_b = b125(mml)
        self.sim_from = sim_from if sim_from is not None else t0 - 600
        self.spec = spec              # (num_speculative_tokens, per-position acceptance rates)
        self.label = served or model  # model_name label = the served model name

    def spec_counts(self, gen):
        """drafts, draft tokens, accepted, accepted per position for `gen` generated tokens."""
        k, rates = self.spec
        cum, p = [], 1.0
        for a in rates:
            p *= a
            cum.append(p)
        mean_len = 1.0 + sum(cum)
        drafts = int(gen / mean_len)
        per = [int(drafts * c) for c in cum]
        return drafts, drafts * k, sum(per), per

    # --------------------------------------------------------------- exposition
    def lab(self, e, extra=""):
        s = f'engine="{e.index}",model_name="{self.label}"'
        return "{" + s + ("," + extra if extra else "") + "}"

    def created(self, L, full, help_, rows):
        L.append(f"# HELP {full}_created {help_}")
        L.append(f"# TYPE {full}_created gauge")
        for e, lbl in rows:
            L.append(f"{full}_created{self.lab(e, lbl)} {self.t_start!r}")

    def scalar(self, L, name, per_engine):
        """per_engine: list of (engine, [(label, value)]) ; label '' for the plain series."""
        typ, help_ = HELP[name]
        full = name + ("_total" if typ == "counter" else "")
        L.append(f"# HELP {full} {help_}")
        L.append(f"# TYPE {full} {typ}")
        rows = []
        for e, vals in per_engine:
            for lbl, v in vals:
                L.append(f"{full}{self.lab(e, lbl)} {fmt(v)}")
                rows.append((e, lbl))
        if typ == "counter":
            self.created(L, name, help_, rows)

    def hist(self, L, name, buckets, per_engine):
        """per_engine: list of (engine, values, weights|None)."""
        typ, help_ = HELP[name]
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} histogram")
        for e, values, weights in per_engine:
            weights = weights or [1] * len(values)
            pairs = sorted(zip(values, weights))
            i, c = 0, 0.0
            for le in buckets:
                while i < len(pairs) and pairs[i][0] <= le:
                    c += pairs[i][1]
                    i += 1
                L.append(f"{name}_bucket{self.lab(e, 'le=' + json.dumps(fmt(le)))} {fmt(c)}")
            tot = sum(weights)
            L.append(f"{name}_bucket{self.lab(e, chr(108) + 'e=' + chr(34) + '+Inf' + chr(34))} {fmt(tot)}")
            L.append(f"{name}_count{self.lab(e)} {fmt(tot)}")
            L.append(f"{name}_sum{self.lab(e)} {fmt(sum(v * w for v, w in zip(values, weights)))}")
        self.created(L, name, help_, [(e, "") for e, _, _ in per_engine])

    def text(self, t):
        f, E = self.f, self.engines
        L: list[str] = []
        cnt = {e.index: e.counts(t) for e in E}
        self.scalar(L, "vllm:num_requests_running", [(e, [("", cnt[e.index][0])]) for e in E])
        self.scalar(L, "vllm:num_requests_waiting", [(e, [("", cnt[e.index][1] + cnt[e.index][2])]) for e in E])
        if f["waiting_reason"]:
            self.scalar(L, "vllm:num_requests_waiting_by_reason", [
                (e, [('reason="capacity"', cnt[e.index][1]), ('reason="deferred"', cnt[e.index][2])]) for e in E])
        self.scalar(L, "vllm:kv_cache_usage_perc", [(e, [("", round(e.usage(t), 6))]) for e in E])

        def per(fn):
            return [(e, [("", fn(e, e.at(t)))]) for e in E]

        def sched(e, tt):
            return [r for r in e.reqs if r.state(tt) in ("running", "done", "deferred", "loaded")]

        def first(e, tt):
            return [r for r in e.reqs if r.t_first <= tt and r.t_first <= r.end]

        def done(e, tt):
            return [r for r in e.reqs if r.end <= tt and r.reason != "abort"]

        def ended(e, tt):
            return [r for r in e.reqs if r.end <= tt]

        self.scalar(L, "vllm:prefix_cache_queries", per(lambda e, tt: sum(r.prompt for r in sched(e, tt))))
        self.scalar(L, "vllm:prefix_cache_hits", per(lambda e, tt: sum(r.hit for r in sched(e, tt))))
        if f["external"]:
            self.scalar(L, "vllm:external_prefix_cache_queries",
                        per(lambda e, tt: sum(r.prompt for r in sched(e, tt)) if self.connector else 0))
            self.scalar(L, "vllm:external_prefix_cache_hits", per(lambda e, tt: sum(r.ext for r in sched(e, tt))))
        self.scalar(L, "vllm:num_preemptions", per(lambda e, tt: 0))
        self.scalar(L, "vllm:prompt_tokens", per(lambda e, tt: sum(r.prompt for r in first(e, tt))))
        if f["by_source"]:
            rows = []
            for e in E:
                fr = first(e, e.at(t))
                fq, fh, fe = (sum(r.prompt for r in fr), sum(r.hit for r in fr), sum(r.ext for r in fr))
                rows.append((e, [('source="local_compute"', fq - fh - fe), ('source="local_cache_hit"', fh),
                                 ('source="external_kv_transfer"', fe)]))
            self.scalar(L, "vllm:prompt_tokens_by_source", rows)
            self.scalar(L, "vllm:prompt_tokens_cached", per(lambda e, tt: sum(r.hit + r.ext for r in first(e, tt))))
            self.scalar(L, "vllm:prompt_tokens_recomputed", per(lambda e, tt: 0))
        self.scalar(L, "vllm:generation_tokens", per(lambda e, tt: sum(r.gen_by(tt) for r in e.reqs)))
        if self.spec:
            sc = {e.index: self.spec_counts(sum(r.gen_by(e.at(t)) for r in e.reqs)) for e in E}
            self.scalar(L, "vllm:spec_decode_num_drafts", [(e, [("", sc[e.index][0])]) for e in E])
            self.scalar(L, "vllm:spec_decode_num_draft_tokens", [(e, [("", sc[e.index][1])]) for e in E])
            self.scalar(L, "vllm:spec_decode_num_accepted_tokens", [(e, [("", sc[e.index][2])]) for e in E])
            self.scalar(L, "vllm:spec_decode_num_accepted_tokens_per_pos", [
                (e, [(f'position="{i}"', v) for i, v in enumerate(sc[e.index][3])]) for e in E])
        rows = []
        for e in E:
            en = ended(e, e.at(t))
            rows.append((e, [(f'finished_reason="{x}"', sum(1 for r in en if r.reason == x))
                             for x in ("stop", "length", "abort", "error")]))
        self.scalar(L, "vllm:request_success", rows)

        def H(name, buckets, fn):
            per_e = []
            for e in E:
                v = fn(e, e.at(t))
                if isinstance(v, tuple):
                    per_e.append((e, v[0], v[1]))
                else:
                    per_e.append((e, v, None))
            self.hist(L, name, buckets, per_e)

        H("vllm:request_prompt_tokens", self.tok_b, lambda e, tt: [r.prompt for r in done(e, tt)])
        H("vllm:request_generation_tokens", self.tok_b, lambda e, tt: [r.gen for r in done(e, tt)])

        def iters(e, tt):
            st = [(v, w) for b, v, w in e.steps(self.sim_from, self.t0 + self.n * self.interval + 1) if b <= tt]
            return ([v for v, _ in st], [w for _, w in st])
        H("vllm:iteration_tokens_total", ITER_BUCKETS, iters)
        H("vllm:request_max_num_generation_tokens", self.tok_b, lambda e, tt: [r.max_tokens for r in done(e, tt)])
        H("vllm:request_params_n", N_BUCKETS, lambda e, tt: [1 for r in done(e, tt)])
        H("vllm:request_params_max_tokens", self.tok_b, lambda e, tt: [r.max_tokens for r in done(e, tt)])
        H("vllm:time_to_first_token_seconds", TTFT_BUCKETS, lambda e, tt: [r.t_first - r.t_arrive for r in first(e, tt)])

        def itl(e, tt):
            vals, ws = [], []
            for r in e.reqs:
                g = r.gen_by(tt)
                if g > 1:
                    if e.itl_mix:
                        for gap, frac in e.itl_mix:
                            vals.append(gap)
                            ws.append((g - 1) * frac)
                    else:
                        vals.append(r.itl)
                        ws.append(g - 1)
            return (vals, ws)
        if f["tpot_old"]:
            H("vllm:time_per_output_token_seconds", ITL_BUCKETS, itl)
        H("vllm:inter_token_latency_seconds", ITL_BUCKETS, itl)
        H("vllm:request_time_per_output_token_seconds", ITL_BUCKETS,
          lambda e, tt: [(r.end - r.t_first) / max(1, r.gen - 1) for r in done(e, tt)])
        H("vllm:e2e_request_latency_seconds", LAT_BUCKETS, lambda e, tt: [r.end - r.t_arrive for r in done(e, tt)])
        H("vllm:request_queue_time_seconds", LAT_BUCKETS, lambda e, tt: [r.t_sched - r.t_arrive for r in done(e, tt)])
        H("vllm:request_inference_time_seconds", LAT_BUCKETS, lambda e, tt: [r.end - r.t_sched for r in done(e, tt)])
        H("vllm:request_prefill_time_seconds", LAT_BUCKETS, lambda e, tt: [r.prefill for r in done(e, tt)])
        H("vllm:request_decode_time_seconds", LAT_BUCKETS, lambda e, tt: [r.end - r.t_first for r in done(e, tt)])
        if f["kv_computed"]:
            H("vllm:request_prefill_kv_computed_tokens", self.tok_b,
              lambda e, tt: [max(0, r.prompt - r.hit - r.ext) for r in done(e, tt)])
        if self.nixl:
            def xs(e, tt, k):
                return [r.xfer[k] for r in e.reqs if r.xfer and (r.t_loaded or r.t_sched) <= tt]
            H("vllm:nixl_xfer_time_seconds", NIXL_XFER_BUCKETS, lambda e, tt: xs(e, tt, "dur"))
            H("vllm:nixl_post_time_seconds", NIXL_POST_BUCKETS, lambda e, tt: xs(e, tt, "post"))
            H("vllm:nixl_bytes_transferred", NIXL_BYTES_BUCKETS, lambda e, tt: xs(e, tt, "bytes"))
            H("vllm:nixl_num_descriptors", NIXL_DESC_BUCKETS, lambda e, tt: xs(e, tt, "descs"))
            self.scalar(L, "vllm:nixl_num_failed_transfers", per(lambda e, tt: 0))
            self.scalar(L, "vllm:nixl_num_failed_notifications", per(lambda e, tt: 0))
        L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
        L.append("# TYPE vllm:cache_config_info gauge")
        for e in E:
            lbl = dict(e.cache_labels)
            lbl["engine"] = str(e.index)
            s = ",".join(f'{k}="{lbl[k]}"' for k in sorted(lbl))
            L.append(f"vllm:cache_config_info{{{s}}} 1.0")
        return "\n".join(L) + "\n"

    # --------------------------------------------------------------- logs
    def stats_lines(self, prefix, loc, t_from, t_to, every=10.0):
        out = []
        last = {e.index: (0.0, 0.0) for e in self.engines}
        win = {e.index: [] for e in self.engines}
        t = t_from
        while t < t_to:
            a, b = t, t + every
            for e in self.engines:
                # a hung engine core sends no more stats: the frontend logger keeps its last ones
                bb = max(a, min(b, e.freeze_at))
                pt = sum(r.prompt for r in e.reqs if a <= r.t_first < bb)
                gt = sum(r.gen_by(bb) - r.gen_by(a) for r in e.reqs)
                pt, gt = pt / every, gt / every
                idle = not any((pt, gt) + last[e.index])
                last[e.index] = (pt, gt)
                for r in e.reqs:
                    s0 = r.t_defer if r.t_defer is not None else r.t_sched
                    if a <= min(s0, r.t_sched) < bb:
                        win[e.index].append((r.prompt, r.hit, r.ext))
                win[e.index] = win[e.index][-1000:]
                q = sum(x[0] for x in win[e.index])
                h = sum(x[1] for x in win[e.index])
                x_ = sum(x[2] for x in win[e.index])
                run, wait, dfr = e.counts(bb)
                if idle:
                    continue
                parts = [f"Avg prompt throughput: {pt:.1f} tokens/s", f"Avg generation throughput: {gt:.1f} tokens/s",
                         f"Running: {run} reqs", f"Waiting: {wait + dfr} reqs"]
                if self.f["deferred_log"] and dfr > 0:
                    parts.append(f"Deferred: {dfr} reqs")
                parts += [f"GPU KV cache usage: {100 * e.usage(bb):.1f}%",
                          f"Prefix cache hit rate: {100.0 * h / q if q else 0.0:.1f}%"]
                if self.connector and q:
                    parts.append(f"External prefix cache hit rate: {100.0 * x_ / q:.1f}%")
                out.append((b + 0.001 * e.index,
                            f"{prefix}INFO {stamp(b)} [{loc}] Engine {e.index:03d}: " + ", ".join(parts)))
                if self.spec and gt > 0:
                    g = sum(r.gen_by(bb) - r.gen_by(a) for r in e.reqs)
                    d, dt_, acc, per = self.spec_counts(g)
                    if d:
                        out.append((b + 0.001 * e.index + 0.0005, (
                            f"{prefix}INFO {stamp(b)} [metrics.py:100] SpecDecoding metrics: Mean acceptance length: "
                            f"{1 + acc / d:.2f}, Accepted throughput: {acc / every:.2f} tokens/s, Drafted throughput: "
                            f"{dt_ / every:.2f} tokens/s, Accepted: {acc} tokens, Drafted: {dt_} tokens, "
                            f"Per-position acceptance rate: {', '.join(f'{v / d:.3f}' for v in per)}, "
                            f"Avg Draft acceptance rate: {100.0 * acc / dt_:.1f}%")))
                if self.nixl:
                    xs = [r.xfer for r in e.reqs if r.xfer and a <= (r.t_loaded or r.t_sched) < bb]
                    if xs:
                        d = sorted(x["dur"] for x in xs)
                        p = sorted(x["post"] for x in xs)
                        mb = [x["bytes"] / 2 ** 20 for x in xs]
                        p90 = lambda v: v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
                        out.append((b + 0.001 * e.index + 0.0007, (
                            f"{prefix}INFO {stamp(b)} [{loc}] KV Transfer metrics: "
                            f"Num successful transfers={len(xs)}, Avg xfer time (ms)={1e3 * sum(d) / len(d):.3f}, "
                            f"P90 xfer time (ms)={1e3 * p90(d):.3f}, Avg post time (ms)={1e3 * sum(p) / len(p):.3f}, "
                            f"P90 post time (ms)={1e3 * p90(p):.3f}, Avg MB per transfer={sum(mb) / len(mb):.3f}, "
                            f"Throughput (MB/s)={sum(mb) / sum(d):.3f}, "
                            f"Avg number of descriptors={sum(x['descs'] for x in xs) / len(xs):.1f}")))
            t = b
        return out

    # --------------------------------------------------------------- write
    def write(self, out: Path, *, notes, endpoint, served, engine_args, model_config, logs, gpu=None,
              health=200):
        out.mkdir(parents=True, exist_ok=True)
        times = [self.t0 + i * self.interval for i in range(self.n)]
        (out / "manifest.json").write_text(json.dumps({
            "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
            "started_at": times[0], "ended_at": times[-1], "interval_s": self.interval, "notes": notes},
            indent=1) + "\n")
        with (out / "metrics.jsonl").open("w") as fh:
            for t in times:
                fh.write(json.dumps({"t": round(t, 3), "status": 200, "text": self.text(t)}) + "\n")
        (out / "server.json").write_text(json.dumps({
            "version": {"version": self.version},
            "models": {"object": "list", "data": [{
                "id": served, "object": "model", "created": int(self.t_start), "owned_by": "vllm",
                "root": self.model, "parent": None, "max_model_len": self.mml, "permission": []}]},
            "health": health}, indent=1) + "\n")
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
        if model_config is not None:
            (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
        if gpu is not None:
            with (out / "gpu.jsonl").open("w") as fh:
                for t in times:
                    fh.write(json.dumps({"t": round(t + 0.4, 3), "devices": gpu(t)}) + "\n")
        (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
