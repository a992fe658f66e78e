"""Step-level V1 scheduler simulator for the zxf preemption cases (writer zxf, round 23).

A closed-loop client keeps N requests in flight against a paged KV pool (num_blocks x block_size).
Each engine step: running requests decode one token (a new block when the last one is full); when no
block is free the scheduler preempts the request at the end of the running list (V1 policy:
RECOMPUTE, blocks freed, request back at the front of the waiting queue). Then waiting requests are
admitted FCFS under the token budget (chunked prefill) while blocks last. A resumed request re-prefills
prompt + generated tokens; part of its old full blocks may still be in the prefix cache (counted as
hits, as vLLM V1 does). Every number of the bundle comes from this run: per-request times feed the
histograms, the per-step timeline feeds the gauges, the preemption counter and the stats lines.
"""
from __future__ import annotations

import bisect
import math
import random
from array import array

from gen import Req, Scenario


class SimReq(Req):
    """A simulated request: times come from its own token timeline, not from queue/prefill/itl."""

    @property
    def t_sched(self):
        return self.sched0 if self.sched0 is not None else float("inf")

    @property
    def t_first(self):
        return self.tok[0] if len(self.tok) else float("inf")

    @property
    def t_end(self):
        return self.end if self.end is not None else float("inf")

    def gen_by(self, t):
        return bisect.bisect_right(self.tok, t)


def make_simreq(**kw):
    r = SimReq(t_arrive=kw["t_arrive"], prompt=kw["prompt"], hit=0, gen=kw["gen"], queue=0.0, prefill=0.0,
               itl=0.0, reason=kw["reason"], max_tokens=kw["max_tokens"])
    r.tok = array("d")
    r.sched0 = None
    r.end = None
    r.npre = 0
    r.hits = 0
    r.queried = 0
    return r


def _fix(r):
    r.queue = r.sched0 - r.t_arrive
    r.prefill = r.tok[0] - r.sched0
    r.itl = (r.tok[-1] - r.tok[0]) / max(1, len(r.tok) - 1)
    r.hit = r.hits


def simulate(*, seed, t_start, t_stop, inflight, num_blocks, block, budget, max_seqs, prompt_fn, gen_fn,
             max_tokens, step_fn, think=0.2, resume_hit_frac=0.4):
    rng = random.Random(seed)
    free = num_blocks
    waiting: list = []
    running: list = []
    alloc = {}      # id(req) -> blocks held
    done_ctx = {}   # id(req) -> tokens computed (prompt+generated in KV)
    reqs = []
    timeline = []   # (t, running, waiting, used_blocks, preemptions_cum, queries_cum, hits_cum)
    pre_cum = q_cum = h_cum = 0
    t = t_start
    pending = []    # arrival times
    for i in range(inflight):
        pending.append(t_start + rng.uniform(0, 20.0))
    pending.sort()

    def new_req(ta):
        g, reason = gen_fn(rng)
        r = make_simreq(t_arrive=ta, prompt=prompt_fn(rng), gen=g, reason=reason, max_tokens=max_tokens)
        reqs.append(r)
        return r

    last_rec = -1e9
    while t < t_stop:
        while pending and pending[0] <= t:
            waiting.append(new_req(pending.pop(0)))
        # --- decode running
        n_dec = 0
        i = 0
        finished = []
        while i < len(running):
            r = running[i]
            ctx = done_ctx[id(r)]
            need = math.ceil((ctx + 1) / block) - alloc[id(r)]
            while need > free and len(running) > i + 1:
                v = running.pop()
                free += alloc.pop(id(v))
                v.pre_ctx = done_ctx.pop(id(v))
                v.npre += 1
                pre_cum += 1
                waiting.insert(0, v)
            if need > free:
                # the request itself has to go (it is the last one)
                running.pop(i)
                free += alloc.pop(id(r))
                r.pre_ctx = done_ctx.pop(id(r))
                r.npre += 1
                pre_cum += 1
                waiting.insert(0, r)
                continue
            free -= need
            alloc[id(r)] += need
            done_ctx[id(r)] = ctx + 1
            n_dec += 1
            i += 1
        # --- admit waiting
        tok_budget = budget - n_dec
        pref = 0
        admitted = []
        while waiting and tok_budget > 0 and len(running) + len(admitted) < max_seqs:
            r = waiting[0]
            resumed = getattr(r, "pre_ctx", None)
            total = r.prompt + (len(r.tok) if resumed is not None else 0)
            hit = 0
            if resumed is not None:
                hit = int((total // block) * resume_hit_frac) * block
            new = total - hit
            if new > tok_budget:  # chunk limit: take it in later steps (approximate: admit when budget allows)
                if pref > 0 or new > budget:
                    # long prefill of one request: let it consume this whole step
                    if pref > 0:
                        break
                else:
                    break
            blocks = math.ceil(total / block)
            if blocks > free:
                break
            waiting.pop(0)
            free -= blocks
            alloc[id(r)] = blocks
            done_ctx[id(r)] = total
            q_cum += total
            h_cum += hit
            r.queried += total
            r.hits += hit
            r.pre_ctx = None
            if r.sched0 is None:
                r.sched0 = t
            pref += new
            tok_budget -= new
            admitted.append(r)
        dt = step_fn(n_dec, pref, rng)
        t += dt
        # tokens: decoders emit one token each, admitted emit their next token at the end of the step
        for r in running:
            r.tok.append(t)
        for r in admitted:
            r.tok.append(t)
        running.extend(admitted)
        keep = []
        for r in running:
            if len(r.tok) >= r.gen:
                r.end = t
                free += alloc.pop(id(r))
                done_ctx.pop(id(r))
                finished.append(r)
            else:
                keep.append(r)
        running = keep
        for r in finished:
            pending.append(t + rng.uniform(0.05, think))
        pending.sort()
        if t - last_rec >= 0.5:
            timeline.append((t, len(running), len(waiting), num_blocks - free, pre_cum, q_cum, h_cum))
            last_rec = t
    for r in reqs:
        if r.sched0 is not None and len(r.tok) > 0:
            _fix(r)
    return reqs, timeline


class SimScenario(Scenario):
    def __init__(self, *, timeline, num_blocks, **kw):
        super().__init__(**kw)
        self.tl = timeline
        self.tl_t = [x[0] for x in timeline]
        self.nb = num_blocks

    def _at(self, t):
        i = bisect.bisect_right(self.tl_t, t) - 1
        return self.tl[max(0, i)]

    def n_running(self, t, running):
        return self._at(t)[1]

    def n_waiting(self, t, waiting):
        return self._at(t)[2]

    def kv_at(self, t, running):
        return self._at(t)[3] / self.nb

    def preemptions_at(self, t):
        return self._at(t)[4]

    def prefix_counts(self, t, sched):
        x = self._at(t)
        return x[5], x[6]

    def stats_hit_rate(self, t, hits, queries):
        a, b = self._at(t - 120.0), self._at(t)
        q = b[5] - a[5]
        return 100.0 * (b[6] - a[6]) / q if q else 0.0


def finished_only(reqs, t_stop):
    """Requests with a first token: the gen.Req interface (t_sched/t_first/t_end/gen_by)."""
    out = []
    for r in reqs:
        if r.sched0 is None or len(r.tok) == 0:
            continue
        if r.end is None:
            r.gen = r.gen  # still running at t_stop: its end lies after the window
        out.append(r)
    return out


def gen_by_tok(r, t):
    return bisect.bisect_right(r.tok, t)
