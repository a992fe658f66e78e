"""Writer ze: a small step-level V1 scheduler simulation that writes kvdoctor.bundle/1 directories.

Metric families (names, HELP, TYPE, bucket bounds) come from fam_0110.json / fam_0180.json, copied from
writer x (extracted from V1 expositions of vLLM 0.11.0 and 0.18.0). The engine is simulated step by
step: a block pool, a token budget per step (chunked prefill), FCFS admission, recompute preemption of
the last running request when a decode step cannot get a block (as V1's scheduler does). Every number
of a bundle (gauges, counters, histograms, the periodic log lines) comes from that one run.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE.parents[1]


@dataclass
class R:
    rid: str
    t_arrive: float
    prompt: int
    max_out: int
    computed: int = 0          # tokens whose KV is in the pool (prompt + generated)
    gen: int = 0
    blocks: int = 0
    t_sched: float | None = None
    t_first: float | None = None
    t_last_tok: float | None = None
    t_end: float | None = None
    itls: list = field(default_factory=list)
    n_pre: int = 0
    queue_s: float = 0.0
    t_wait_start: float = 0.0


class Sim:
    """steps: cost(prefill_tokens, decode_reqs, ctx_tokens) -> seconds."""

    def __init__(self, *, blocks, block_size, budget, max_seqs, cost, extra_blocks_per_req=0, watermark=0.0):
        self.total, self.bs, self.budget, self.max_seqs = blocks, block_size, budget, max_seqs
        self.cost, self.extra, self.free = cost, extra_blocks_per_req, blocks
        self.running: list[R] = []
        self.waiting: list[R] = []
        self.pending: list[R] = []
        self.done: list[R] = []
        self.t = 0.0
        # counters
        self.c = dict(prompt=0, gen=0, pre=0, recomputed=0, computed_prompt=0)
        self.iter_tokens: list[int] = []
        self.snap = []          # (t, state dict) after each step
        self.flops = 0.0

    def need(self, r, tokens):
        return math.ceil(tokens / self.bs) + self.extra

    def alloc(self, r, tokens):
        n = self.need(r, tokens) - r.blocks
        if n <= 0:
            return True
        if n > self.free:
            return False
        self.free -= n
        r.blocks += n
        return True

    def preempt(self, r):
        self.free += r.blocks
        r.blocks = 0
        self.c["pre"] += 1
        self.c["recomputed"] += r.computed
        r.n_pre += 1
        r.computed = 0
        self.running.remove(r)
        r.t_wait_start = self.t
        self.waiting.insert(0, r)

    def step(self):
        budget = self.budget
        ntok = 0
        decodes = 0
        prefill = 0
        # running requests first (decode, or the rest of a chunked prefill)
        for r in list(self.running):
            if r not in self.running:
                continue
            target = r.prompt + r.gen  # tokens that must be computed before the next sample
            if r.computed < target:    # still prefilling (or recomputing)
                chunk = min(budget, target - r.computed)
                if chunk <= 0:
                    continue
                while not self.alloc(r, r.computed + chunk):
                    victim = self.running[-1]
                    self.preempt(victim)
                    if victim is r:
                        break
                if r not in self.running:
                    continue
                r.computed += chunk
                budget -= chunk
                prefill += chunk
                ntok += chunk
            else:
                if budget <= 0:
                    continue
                while not self.alloc(r, r.computed + 1):
                    victim = self.running[-1]
                    self.preempt(victim)
                    if victim is r:
                        break
                if r not in self.running:
                    continue
                r.computed += 1
                budget -= 1
                decodes += 1
                ntok += 1
        # admit waiting
        while self.waiting and budget > 0 and len(self.running) < self.max_seqs:
            r = self.waiting[0]
            chunk = min(budget, r.prompt + r.gen)
            if not self.alloc(r, chunk):
                break
            self.waiting.pop(0)
            r.queue_s += self.t - r.t_wait_start
            if r.t_sched is None:
                r.t_sched = self.t
            r.computed = chunk
            budget -= chunk
            prefill += chunk
            ntok += chunk
            self.running.append(r)
        ctx = sum(r.computed for r in self.running)
        dtt = self.cost(prefill, decodes, ctx, len(self.running))
        self.t += dtt
        if ntok:
            self.iter_tokens.append(ntok)
        # sampling: requests whose computed reached prompt+gen produce a token
        for r in list(self.running):
            if r.computed >= r.prompt + r.gen:
                if r.t_first is None:
                    r.t_first = self.t
                    self.c["prompt"] += r.prompt
                    self.c["computed_prompt"] += r.prompt
                else:
                    if r.n_pre == 0 or r.t_last_tok is not None:
                        r.itls.append(self.t - r.t_last_tok)
                r.t_last_tok = self.t
                r.gen += 1
                self.c["gen"] += 1
                if r.gen >= r.max_out:
                    r.t_end = self.t
                    self.running.remove(r)
                    self.free += r.blocks
                    r.blocks = 0
                    self.done.append(r)
        return dtt

    def arrive(self, t):
        while self.pending and self.pending[0].t_arrive <= t:
            r = self.pending.pop(0)
            r.t_wait_start = r.t_arrive
            self.waiting.append(r)

    def run(self, reqs, t_start, t_end, closed_loop=None, new_req=None, rec_dt=1.0, flush_at=()):
        """Open loop: reqs carry arrival times. Closed loop: keep `closed_loop` in flight using new_req(t)."""
        self.pending = sorted(reqs, key=lambda r: r.t_arrive)
        self.t = t_start
        self.all = list(self.pending)
        next_rec = t_start
        flushes = sorted(flush_at)
        while self.t < t_end:
            if flushes and self.t >= flushes[0]:
                flushes.pop(0)
                for r in list(reversed(self.running)):
                    self.preempt(r)
            if closed_loop is not None:
                inflight = len(self.running) + len(self.waiting) + len(self.pending)
                while inflight < closed_loop:
                    r = new_req(self.t)
                    if r is None:
                        break
                    self.all.append(r); self.pending.append(r); inflight += 1
            self.arrive(self.t)
            if not self.running and not self.waiting:
                nxt = self.pending[0].t_arrive if self.pending else t_end
                self.t = max(self.t + 0.01, min(nxt, t_end))
            else:
                self.step()
            while next_rec <= self.t:
                self.snap.append((next_rec, self.state()))
                next_rec += rec_dt

    def state(self):
        return dict(running=len(self.running), waiting=len(self.waiting) + len([r for r in self.pending if r.t_arrive <= self.t]),
                    usage=(self.total - self.free) / self.total, c=dict(self.c), iters=len(self.iter_tokens),
                    done=len(self.done))


# ----------------------------------------------------------------------------- exposition
def fams(ver):
    return json.loads((HERE / f"fam_{ver}.json").read_text())


def fmt(v):
    if isinstance(v, int) or float(v).is_integer():
        return f"{float(v):.1f}"
    return f"{v:.6g}" if abs(v) < 1e-3 else f"{round(v, 6)}"


def hist(values, les):
    out = []
    for le in les:
        b = math.inf if le == "+Inf" else float(le)
        out.append(sum(1 for v in values if v <= b))
    return out


def exposition(sim, t, *, ver, model, cache_cfg, t_created, mfu=False, lora_info=None):
    st = _st(sim, t)
    L = {"engine": "0", "model_name": model}
    lab = lambda extra=None: "{" + ",".join(f'{k}="{v}"' for k, v in sorted({**L, **(extra or {})}.items())) + "}"
    done = [r for r in sim.all if r.t_end is not None and r.t_end <= t]
    firsts = [r for r in sim.all if r.t_first is not None and r.t_first <= t]
    c = st["c"]
    itls = [x for r in sim.all for x in r.itls[: max(0, min(len(r.itls), _gen_by(r, t) - 1))]]
    vals = {
        "vllm:num_requests_running": [(lab(), st["running"])],
        "vllm:num_requests_waiting": [(lab(), st["waiting"])],
        "vllm:kv_cache_usage_perc": [(lab(), st["usage"])],
        "vllm:engine_sleep_state": [(lab({"sleep_state": "awake"}), 1.0), (lab({"sleep_state": "weights_offloaded"}), 0.0),
                                     (lab({"sleep_state": "discard_all"}), 0.0)],
        "vllm:prefix_cache_queries_total": [(lab(), c["queries"] if "queries" in c else 0)],
        "vllm:prefix_cache_hits_total": [(lab(), 0)],
        "vllm:external_prefix_cache_queries_total": [(lab(), 0)],
        "vllm:external_prefix_cache_hits_total": [(lab(), 0)],
        "vllm:mm_cache_queries_total": [(lab(), 0)],
        "vllm:mm_cache_hits_total": [(lab(), 0)],
        "vllm:num_preemptions_total": [(lab(), c["pre"])],
        "vllm:prompt_tokens_total": [(lab(), c["prompt"])],
        "vllm:prompt_tokens_by_source_total": [(lab({"source": "local_compute"}), c["prompt"]),
                                               (lab({"source": "local_cache_hit"}), 0),
                                               (lab({"source": "external_kv_transfer"}), 0)],
        "vllm:prompt_tokens_cached_total": [(lab(), 0)],
        "vllm:prompt_tokens_recomputed_total": [(lab(), c["recomputed"])],
        "vllm:generation_tokens_total": [(lab(), c["gen"])],
        "vllm:request_success_total": [(lab({"finished_reason": fr}), (len(done) if fr == "length" else 0))
                                       for fr in ("abort", "error", "length", "repetition", "stop")
                                       if ver == "0180" or fr in ("stop", "length")],
    }
    if mfu:
        vals["vllm:estimated_flops_per_gpu_total"] = [(lab(), c.get("flops", 0.0))]
        vals["vllm:estimated_read_bytes_per_gpu_total"] = [(lab(), c.get("rbytes", 0.0))]
        vals["vllm:estimated_write_bytes_per_gpu_total"] = [(lab(), c.get("wbytes", 0.0))]
    hv = {
        "vllm:request_prompt_tokens": [r.prompt for r in done],
        "vllm:request_generation_tokens": [r.max_out for r in done],
        "vllm:request_max_num_generation_tokens": [r.max_out for r in done],
        "vllm:request_params_n": [1 for r in done],
        "vllm:request_params_max_tokens": [r.max_out for r in done],
        "vllm:time_to_first_token_seconds": [r.t_first - r.t_arrive for r in firsts],
        "vllm:time_per_output_token_seconds": itls,
        "vllm:inter_token_latency_seconds": itls,
        "vllm:request_time_per_output_token_seconds": [(r.t_end - r.t_first) / max(1, r.max_out - 1) for r in done],
        "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arrive for r in done],
        "vllm:request_queue_time_seconds": [r.queue_s for r in done],
        "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
        "vllm:request_prefill_time_seconds": [r.t_first - r.t_sched for r in done],
        "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
        "vllm:request_prefill_kv_computed_tokens": [r.prompt for r in done],
        "vllm:iteration_tokens_total": sim.iter_tokens[: st["iters"]],
    }
    out = []
    skip = set()
    if not mfu:
        skip |= {"vllm:estimated_flops_per_gpu", "vllm:estimated_read_bytes_per_gpu", "vllm:estimated_write_bytes_per_gpu"}
    for f in fams(ver):
        n, typ = f["name"], f["type"]
        base = n[:-len("_created")] if n.endswith("_created") else n[:-len("_total")] if n.endswith("_total") else n
        if base in skip:
            continue
        if n == "vllm:lora_requests_info":
            if lora_info is None:
                continue
        out.append(f"# HELP {n} {f['help']}")
        out.append(f"# TYPE {n} {typ}")
        if n.endswith("_created"):
            src = vals.get(base + "_total") or ([(lab(), 0)] if base in hv else None)
            for l, _ in (src or [(lab(), 0)]):
                out.append(f"{n}{l} {fmt(t_created)}")
            continue
        if n == "vllm:cache_config_info":
            cl = dict(cache_cfg); cl["engine"] = "0"
            out.append(n + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(cl.items())) + "} 1.0")
            continue
        if n == "vllm:lora_requests_info":
            out.append(n + lora_info + " " + fmt(t_created))
            continue
        if typ == "histogram":
            v = hv.get(n, [])
            for le, cnt in zip(f["le"], hist(v, f["le"])):
                out.append(f"{n}_bucket{lab({'le': le})} {fmt(cnt)}")
            out.append(f"{n}_count{lab()} {fmt(len(v))}")
            out.append(f"{n}_sum{lab()} {fmt(round(sum(v), 4))}")
            continue
        for l, v in vals.get(n, [(lab(), 0.0)]):
            out.append(f"{n}{l} {fmt(v)}")
    return "\n".join(out) + "\n"


EMPTY = dict(running=0, waiting=0, usage=0.0, c=dict(prompt=0, gen=0, pre=0, recomputed=0, computed_prompt=0,
                                                 queries=0, flops=0.0, rbytes=0.0, wbytes=0.0), iters=0, done=0)


def _st(sim, t):
    c = [s for s in sim.snap if s[0] <= t]
    return max(c, key=lambda s: s[0])[1] if c else EMPTY


def _gen_by(r, t):
    """Tokens generated by time t (approximate: from the per-token times)."""
    if r.t_first is None or r.t_first > t:
        return 0
    if r.t_end is not None and r.t_end <= t:
        return r.max_out
    n, tt = 1, r.t_first
    for x in r.itls:
        tt += x
        if tt > t:
            break
        n += 1
    return n


def stats_line(sim, t0, t1):
    s0, s1 = _st(sim, t0), _st(sim, t1)
    p = s1["c"]["prompt"] - s0["c"]["prompt"]
    g = s1["c"]["gen"] - s0["c"]["gen"]
    return (f"Engine 000: Avg prompt throughput: {p / (t1 - t0):.1f} tokens/s, Avg generation throughput: {g / (t1 - t0):.1f} tokens/s, "
            f"Running: {s1['running']} reqs, Waiting: {s1['waiting']} reqs, GPU KV cache usage: {100 * s1['usage']:.1f}%, "
            f"Prefix cache hit rate: 0.0%")


def vtime(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def epoch(*a):
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def write_bundle(cid, *, texts, t0, t1, interval, endpoint, notes, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None):
    d = CASES / cid / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    for p in d.iterdir():
        p.unlink()
    (d / "manifest.json").write_text(json.dumps({
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": endpoint,
        "started_at": t0, "ended_at": t1, "interval_s": interval, "notes": notes}, indent=1) + "\n")
    (d / "metrics.jsonl").write_text("\n".join(json.dumps({"t": round(t, 3), "status": 200, "text": x}) for t, x in texts) + "\n")
    for name, obj in (("server.json", server), ("engine_args.json", engine_args), ("model_config.json", model_config)):
        if obj is not None:
            (d / name).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu is not None:
        (d / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    if logs is not None:
        (d / "logs.txt").write_text("\n".join(logs) + "\n")
    return d
