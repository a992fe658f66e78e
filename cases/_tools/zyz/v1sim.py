"""Writer zyz: a 1-second-step fluid model of the V1 scheduler, in tokens of one KV pool.

Running requests are served FCFS; a prefill chunk or a decode token that finds no free room
preempts the most recently admitted request (recompute: its prompt and output are prefilled
again); if that is the request itself it goes back to the head of the waiting queue. A waiting
request is admitted while a seat is free and its first chunk fits."""

from __future__ import annotations


class Req:
    def __init__(self, rid, arr, prompt, out, cached=0):
        self.id, self.arr, self.prompt, self.out = rid, arr, prompt, out
        self.need = prompt          # tokens to prefill (prompt + generated after a preemption)
        self.done = 0               # tokens resident in KV
        self.gen = 0
        self.first = None
        self.adm = None
        self.fin = None
        self.qstart = arr
        self.queued = 0.0
        self.acc = 0.0
        self.cached = cached        # prefix-cache hit tokens on (re)admission
        self.npre = 0
        self.shared = 0


class Sim:
    def __init__(self, cap, seats, prefill_rate, decode_rate, chunk=2048, share=0.0):
        self.share = share          # fraction of prefix-cache hit tokens held in blocks shared with others
        self.cap, self.seats, self.prate, self.drate, self.chunk = cap, seats, prefill_rate, decode_rate, chunk
        self.running: list[Req] = []
        self.waiting: list[Req] = []
        self.used = 0
        self.tick = {"prompt": 0, "gen": 0, "pre": 0, "pq": 0, "ph": 0}
        self.finished: list[Req] = []
        self.first_tokens: list[tuple[Req, float]] = []

    def _preempt(self, v, s):
        self.running.remove(v)
        self.used -= v.done - v.shared
        v.shared = 0
        v.cached = max(v.cached, v.done)     # its blocks stay in the prefix cache (and the CPU tier)
        v.need = v.prompt + v.gen
        v.done = 0
        v.npre += 1
        v.qstart = s
        self.waiting.insert(0, v)
        self.tick["pre"] += 1

    def _room(self, r, k, s):
        """Make room for k tokens of r; False if r had to preempt itself."""
        while self.used + k > self.cap:
            tail = self.running[-1]
            self._preempt(tail, s)
            if tail is r:
                return False
        return True

    def step(self, s, arrivals):
        for r in arrivals:
            r.qstart = s
            self.waiting.append(r)
        while self.waiting and len(self.running) < self.seats:
            r = self.waiting[0]
            hit = min(r.cached, r.need - 1) if r.cached else 0
            first = min(self.chunk, r.need - hit)
            if self.used + hit + first > self.cap:
                break
            self.waiting.pop(0)
            r.queued += s - r.qstart
            if r.adm is None:
                r.adm = s
            self.tick["pq"] += r.need
            self.tick["ph"] += hit
            r.done = hit
            r.shared = int(hit * self.share)
            self.used += hit - r.shared
            self.running.append(r)
        budget = self.prate
        for r in list(self.running):
            if r not in self.running:
                continue
            if r.done < r.need:
                k = min(r.need - r.done, budget)
                if k <= 0:
                    continue
                if not self._room(r, k, s):
                    continue
                r.done += k
                self.used += k
                budget -= k
                self.tick["prompt"] += k
                continue
            r.acc += self.drate
            k = min(int(r.acc), r.out - r.gen)
            r.acc -= int(r.acc)
            if k <= 0:
                continue
            if not self._room(r, k, s):
                continue
            if r.first is None:
                r.first = s
                self.first_tokens.append((r, s - r.arr))
            r.gen += k
            r.done += k
            r.need += k
            self.used += k
            self.tick["gen"] += k
            if r.gen >= r.out:
                self.running.remove(r)
                self.used -= r.done - r.shared
                r.fin = s
                self.finished.append(r)

    def take(self):
        t = self.tick
        self.tick = {"prompt": 0, "gen": 0, "pre": 0, "pq": 0, "ph": 0}
        fins, self.finished = self.finished, []
        firsts, self.first_tokens = self.first_tokens, []
        return t, fins, firsts
