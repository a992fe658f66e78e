"""Step-level V1 scheduler simulator (chunked prefill, token budget, max-num-seqs,
KV blocks, FCFS waiting queue) feeding prom0101.EngineMetrics. Deterministic given
the RNG the caller passes. Used by the zyp builders."""
import math


class Req:
    __slots__ = ("id", "p", "o", "arr", "sched", "done", "gen", "first", "end", "blocks", "client", "maxtok", "extra", "tag")

    def __init__(self, rid, p, o, arr, client=None, maxtok=None):
        self.id, self.p, self.o, self.arr = rid, p, o, arr
        self.sched = self.first = self.end = None
        self.done = self.gen = self.blocks = 0
        self.client = client
        self.maxtok = maxtok or o
        self.extra = 0   # generated tokens to recompute after a preemption
        self.tag = None


class Engine:
    def __init__(self, em, max_seqs, budget, num_blocks, block, step_time):
        self.em, self.max_seqs, self.budget = em, max_seqs, budget
        self.num_blocks, self.block, self.step_time = num_blocks, block, step_time
        self.waiting, self.running, self.finished = [], [], []
        self.used = 0
        self.win = {"p": 0, "g": 0}

    def add(self, r):
        self.waiting.append(r)

    def step(self, now):
        """Run one engine step starting at now; return its end time (now if idle)."""
        em, left = self.em, self.budget
        plan = []
        for r in self.running:
            if left <= 0:
                break
            take = min(r.p + r.extra - r.done, left) if r.done < r.p + r.extra else 1
            plan.append((r, take))
            left -= take
        while self.waiting and left > 0 and len(self.running) < self.max_seqs:
            r = self.waiting[0]
            take = min(r.p + r.extra - r.done, left)
            need = math.ceil(take / self.block)
            if self.used + need > self.num_blocks:
                break
            self.waiting.pop(0)
            if r.sched is None:
                r.sched = now
            em.c["prefix_q"] += r.p + r.extra
            self.running.append(r)
            plan.append((r, take))
            left -= take
        if not plan:
            return now
        ptok = sum(t for r, t in plan if r.done < r.p + r.extra)
        ndec = sum(1 for r, t in plan if r.done >= r.p + r.extra)
        dt = self.step_time(ptok, ndec, self)
        end = now + dt
        prompt_iter = gen_iter = tpot_k = 0
        fin = []
        for r, take in plan:
            if r.done < r.p + r.extra:
                r.done += take
                nb = math.ceil(r.done / self.block)
                self.used += nb - r.blocks
                r.blocks = nb
                if r.done >= r.p + r.extra and r.extra:
                    # resumed after preemption: the recompute ends, decoding goes on
                    r.gen += 1
                    gen_iter += 1
                    r.extra = 0
                    r.done = r.p
                elif r.done >= r.p:
                    r.first = end
                    r.gen = 1
                    gen_iter += 1
                    prompt_iter += r.p
                    em.start(r.maxtok)
                    em.h["vllm:time_to_first_token_seconds"].observe(end - r.arr)
            else:
                r.gen += 1
                gen_iter += 1
                tpot_k += 1
                nb = math.ceil((r.p + r.gen) / self.block)
                self.used += nb - r.blocks
                r.blocks = nb
            if r.done >= r.p and not r.extra and r.gen >= r.o:
                fin.append(r)
        if tpot_k:
            em.h["vllm:time_per_output_token_seconds"].observe(dt, tpot_k)
        em.c["prompt"] += prompt_iter
        em.c["gen"] += gen_iter
        self.win["p"] += prompt_iter
        self.win["g"] += gen_iter
        if prompt_iter + gen_iter:
            em.h["vllm:iteration_tokens_total"].observe(prompt_iter + gen_iter)
        for r in fin:
            r.end = end
            self.running.remove(r)
            self.used -= r.blocks
            self.finished.append(r)
            em.finish(r.p, r.gen, r.maxtok, end - r.arr, r.sched - r.arr, r.first - r.sched, end - r.first,
                      reason="stop" if r.gen < r.maxtok else "length")
        # pool over-committed by decode growth: preempt the newest running requests (recompute)
        while self.used > self.num_blocks and len(self.running) > 1:
            v = self.running.pop()
            self.used -= v.blocks
            v.blocks = 0
            v.extra = v.gen
            v.done = 0
            self.waiting.insert(0, v)
            em.c["preempt"] += 1
        em.running, em.waiting = len(self.running), len(self.waiting)
        em.kv = self.used / self.num_blocks
        return end
