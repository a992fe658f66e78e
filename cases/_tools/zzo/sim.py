"""Writer zzo's builder (round 15): a small step simulator with on-demand KV allocation and
recompute preemption (V1-style: the last running request is preempted when a step cannot get
blocks), plus two stuck modes ("freeze": the engine computes nothing; "livelock": every step
preempts the running requests and re-adds them, generating nothing). Every counter, gauge,
histogram and stats log line comes from the one simulated request list, so they agree.
Families / HELP / buckets are copied from existing case bundles of the same release line via
gen._template (gen.py is zzl's builder copied unchanged). Seeded, no wall clock."""
from __future__ import annotations

import bisect
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import gen

ROOT = gen.ROOT


@dataclass
class R:
    rid: int
    t_arr: float
    prompt: int
    out: int
    max_tokens: int
    gen: int = 0
    computed: int = 0
    allocated: bool = False
    t_sched: float = -1.0
    t_first: float = -1.0
    t_end: float = -1.0
    t_last_tok: float = -1.0
    n_pre: int = 0
    reason: str = "length"


@dataclass
class Cfg:
    pool: int
    block: int
    max_seqs: int
    mnbt: int
    fixed: int = 0            # pool tokens per request beyond its context (hybrid pages)
    base: float = 0.02        # step time: base + per_dec * decodes + per_pf * prefill tokens
    per_dec: float = 0.0005
    per_pf: float = 0.0001
    tps: int = 1              # tokens per decode step
    freeze_at: float = 1e18   # engine stops computing (steps still logged)
    livelock_at: float = 1e18
    stuck_step: float = 1.0
    fixed_after_prefill: bool = False


class Sim:
    def __init__(self, cfg: Cfg, reqs: list[R]):
        self.c, self.reqs = cfg, sorted(reqs, key=lambda r: r.t_arr)
        self.states = []  # (t, running, waiting, used_tokens)
        self.ev = {"prompt": [], "gen": [], "pre": []}  # (t, amount)
        self.obs = {k: [] for k in ("ttft", "itl", "e2e", "queue", "prefill", "decode", "infer", "ptok", "gtok", "maxtok", "tpot", "pfkv", "iter")}
        self.done: list[R] = []

    def used(self, running):
        return sum(self.blk(r) for r in running)

    def run(self, t_end: float):
        c = self.c
        t, i, waiting, running = self.reqs[0].t_arr, 0, [], []
        while t < t_end:
            while i < len(self.reqs) and self.reqs[i].t_arr <= t:
                waiting.append(self.reqs[i]); i += 1
            if t >= c.freeze_at or t >= c.livelock_at:
                if t >= c.livelock_at and running:
                    self.ev["pre"].append((t, len(running)))
                    for r in running:
                        r.n_pre += 1
                self.states.append((t, len(running), len(waiting), self.used(running)))
                t += c.stuck_step
                continue
            if not running and not waiting:
                t = self.reqs[i].t_arr if i < len(self.reqs) else t_end
                continue
            budget = c.mnbt
            plan = {}
            k = 0
            while k < len(running):
                r = running[k]
                left = self.left(r)
                need = min(left, budget) if left > 0 else 1
                if left > 0 and need <= 0:
                    k += 1; continue
                while self.used(running) - self.blk(r) + self.blk(r, r.computed + need) > c.pool:
                    v = running.pop()
                    v.computed, v.n_pre = 0, v.n_pre + 1
                    waiting.insert(0, v)
                    plan.pop(v.rid, None)
                    self.ev["pre"].append((t, 1))
                    if v is r:
                        break
                if r not in running:
                    break
                plan[r.rid] = need
                if left > 0:
                    budget -= need
                k += 1
            while waiting and len(running) < c.max_seqs and budget > 0:
                r = waiting[0]
                need = min(self.left(r), budget)
                if self.used(running) + self.blk(r, r.computed + need) > c.pool and running:
                    break
                waiting.pop(0)
                if r.t_sched < 0:
                    r.t_sched = t
                running.append(r); plan[r.rid] = need; budget -= need
            pf = sum(n for r in running if r.rid in plan and self.left(r) > 0 for n in [plan[r.rid]])
            dec = sum(1 for r in running if r.rid in plan and self.left(r) <= 0)
            dt = c.base + c.per_dec * dec + c.per_pf * pf
            t2 = t + dt
            self.obs["iter"].append((t2, pf + dec * c.tps))
            if pf:
                self.ev["prompt"].append((t2, pf))
            fin = []
            for r in list(running):
                if r.rid not in plan:
                    continue
                n = plan[r.rid]
                if self.left(r) > 0:
                    r.computed += n
                    if self.left(r) <= 0:
                        if r.gen == 0:
                            r.t_first = t2
                            self.obs["ttft"].append((t2, t2 - r.t_arr))
                        else:
                            self.obs["itl"].append((t2, t2 - r.t_last_tok))
                        r.gen += 1; r.t_last_tok = t2
                        self.ev["gen"].append((t2, 1))
                else:
                    g = min(c.tps, r.out - r.gen)
                    r.gen += g; r.computed += g
                    self.ev["gen"].append((t2, g))
                    self.obs["itl"].append((t2, t2 - r.t_last_tok))
                    r.t_last_tok = t2
                if r.gen >= r.out:
                    fin.append(r)
            for r in fin:
                running.remove(r)
                r.t_end = t2
                self.done.append(r)
                for key, v in (("e2e", t2 - r.t_arr), ("queue", r.t_sched - r.t_arr), ("prefill", r.t_first - r.t_sched),
                               ("decode", t2 - r.t_first), ("infer", t2 - r.t_sched), ("ptok", r.prompt), ("gtok", r.gen),
                               ("maxtok", r.max_tokens), ("pfkv", r.prompt)):
                    self.obs[key].append((t2, v))
                if r.gen > 1:
                    self.obs["tpot"].append((t2, (t2 - r.t_first) / (r.gen - 1)))
            t = t2
            self.states.append((t, len(running), len(waiting), self.used(running)))
        self.t_end = t_end
        return self

    @staticmethod
    def left(r):
        """context tokens still to prefill: prompt + generated minus the last sampled token"""
        return r.prompt + r.gen - (1 if r.gen else 0) - r.computed

    def blk(self, r, tokens=None):
        c = self.c
        tok = r.computed if tokens is None else tokens
        fx = c.fixed if (not c.fixed_after_prefill or r.gen > 0) else 0
        return math.ceil((fx + tok) / c.block) * c.block

    @staticmethod
    def by(rid, running):
        for r in running:
            if r.rid == rid:
                return r

    # ---- views at time t
    def _prep(self):
        if not hasattr(self, "_cum"):
            self._cum = {}
            for k, lst in self.ev.items():
                lst.sort(key=lambda x: x[0])
                acc, ts, cs = 0, [], []
                for tt, v in lst:
                    acc += v; ts.append(tt); cs.append(acc)
                self._cum[k] = (ts, cs)
            self._ots = {k: [x[0] for x in v] for k, v in self.obs.items()}

    def cum(self, key, t):
        self._prep()
        ts, cs = self._cum[key]
        j = bisect.bisect_right(ts, t)
        return cs[j - 1] if j else 0

    def upto(self, key, t):
        self._prep()
        j = bisect.bisect_right(self._ots[key], t)
        return [v for _, v in self.obs[key][:j]]

    def state(self, t):
        ts = [s[0] for s in self.states]
        j = bisect.bisect_right(ts, t) - 1
        if j < 0:
            return (t, 0, sum(1 for r in self.reqs if r.t_arr <= t), 0)
        s = self.states[j]
        extra = sum(1 for r in self.reqs if s[0] < r.t_arr <= t)
        return (t, s[1], s[2] + extra, s[3])


def hist_lines(out, name, base, vals, les):
    gen._hist(out, name, base, vals, les)


def scrape(sim: Sim, t: float, tmpl: str, base: dict, cc: dict, v0: bool, model_name: str) -> str:
    st = sim.state(t)
    usage = min(1.0, st[3] / sim.c.pool)
    upto = lambda k: sim.upto(k, t)
    done = [r for r in sim.done if r.t_end <= t]
    pt, gt, pre = sim.cum("prompt", t), sim.cum("gen", t), sim.cum("pre", t)
    vals = {"vllm:num_requests_running": st[1], "vllm:num_requests_waiting": st[2], "vllm:num_requests_swapped": 0,
            "vllm:kv_cache_usage_perc": usage, "vllm:gpu_cache_usage_perc": usage, "vllm:cpu_cache_usage_perc": 0.0,
            "vllm:gpu_prefix_cache_hit_rate": 0.0, "vllm:cpu_prefix_cache_hit_rate": 0.0, "vllm:num_preemptions": pre,
            "vllm:prompt_tokens": pt, "vllm:generation_tokens": gt, "vllm:prefix_cache_queries": pt,
            "vllm:prefix_cache_hits": 0, "vllm:prompt_tokens_cached": 0, "vllm:external_prefix_cache_hits": 0,
            "vllm:external_prefix_cache_queries": 0,
            "vllm:avg_prompt_throughput_toks_per_s": 0.0, "vllm:avg_generation_throughput_toks_per_s": 0.0}
    hists = {"vllm:time_to_first_token_seconds": upto("ttft"), "vllm:inter_token_latency_seconds": upto("itl"),
             "vllm:time_per_output_token_seconds": upto("itl"), "vllm:e2e_request_latency_seconds": upto("e2e"),
             "vllm:request_queue_time_seconds": upto("queue"), "vllm:request_prefill_time_seconds": upto("prefill"),
             "vllm:request_decode_time_seconds": upto("decode"), "vllm:request_inference_time_seconds": upto("infer"),
             "vllm:request_prompt_tokens": upto("ptok"), "vllm:request_generation_tokens": upto("gtok"),
             "vllm:request_max_num_generation_tokens": upto("gtok"), "vllm:request_params_max_tokens": upto("maxtok"),
             "vllm:request_params_n": [1] * len(done), "vllm:request_params_best_of": [1] * len(done),
             "vllm:request_time_per_output_token_seconds": upto("tpot"), "vllm:request_prefill_kv_computed_tokens": upto("pfkv"),
             "vllm:iteration_tokens_total": upto("iter")}
    out = []
    for f in gen._template(tmpl):
        n, ty = f["name"], f["type"]
        if n == "vllm:cache_config_info":
            continue
        en = n + "_total" if ty == "counter" else n
        out.append(f"# HELP {en} {f['help']}")
        out.append(f"# TYPE {en} {ty}")
        if n == "vllm:prompt_tokens_by_source":
            for s, v in (("local_compute", pt), ("local_cache_hit", 0), ("external_kv_transfer", 0)):
                out.append(f'{n}_total{{{gen._lab({**base, "source": s})}}} {gen._num(v)}')
        elif n == "vllm:request_success":
            for reason in (("stop", "length") if v0 else ("stop", "length", "abort", "error")):
                v = sum(1 for r in done if r.reason == reason)
                out.append(f'{n}_total{{{gen._lab({**base, "finished_reason": reason})}}} {gen._num(v)}')
        elif ty == "histogram":
            gen._hist(out, n, base, hists.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{gen._lab(base)}}} {gen._num(vals.get(n, 0))}")
        else:
            out.append(f"{n}{{{gen._lab(base)}}} {gen._num(vals.get(n, 0))}")
    out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    out.append("# TYPE vllm:cache_config_info gauge")
    lab = dict(sorted(((({} if v0 else {"engine": base["engine"]}) | cc)).items()))
    out.append(f"vllm:cache_config_info{{{gen._lab(lab)}}} 1.0")
    return "\n".join(out) + "\n"


def stats_lines(sim: Sim, t0: float, t1: float, step: float, fmt: str, stop_at: float = 1e18):
    """fmt gets pt, gt, run, wait, kv (percent)."""
    L, t = [], t0 + step
    while t <= t1:
        if t > stop_at:
            break
        a = t - step
        pt = (sim.cum("prompt", t) - sim.cum("prompt", a)) / step
        gt = (sim.cum("gen", t) - sim.cum("gen", a)) / step
        st = sim.state(t)
        L.append((t, fmt.format(ts=gen.ts(t), pt=pt, gt=gt, run=st[1], wait=st[2], kv=100 * min(1.0, st[3] / sim.c.pool))))
        t += step
    return L


def write(out: Path, sim: Sim, start: float, n: int, interval: float, tmpl: str, base: dict, cc: dict, v0: bool,
          model_name: str, server: dict, engine_args: dict, logs: list, notes: str, endpoint: str,
          gpu: list | None = None, model_config: dict | None = None):
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.dumps({"t": round(start + k * interval, 3), "status": 200,
                        "text": scrape(sim, start + k * interval, tmpl, base, cc, v0, model_name)}) for k in range(n)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": start,
           "ended_at": start + (n - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
