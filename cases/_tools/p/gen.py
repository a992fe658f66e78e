"""Writer p's bundle builder (kvdoctor.bundle/1).

A step-level V1 scheduler simulation: FCFS waiting queue, max_num_seqs slots, a block pool of
num_blocks-1 usable blocks (block 0 is the null block), prompts allocated on admission, one block
more each time a decoding sequence crosses a block boundary, and recompute preemption of the most
recently admitted running request when no block is free (V1 behaviour). A request that needs
more blocks than the whole pool stays at the head of the queue forever (V1 breaks out of the
admission loop). All counters, histograms, gauges and stats lines come from the one simulation.

Metric family names, HELP texts, TYPEs and bucket layouts are copied from the last scrape of an
existing case bundle of the same or a nearby vLLM release (format examples allowed by the brief).
"""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def template(case: str) -> list[dict]:
    from prometheus_client.parser import text_string_to_metric_families
    lines = (ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()
    text = [json.loads(l) for l in lines if "text" in json.loads(l)][-1]["text"]
    helps = {}
    for ln in text.splitlines():
        if ln.startswith("# HELP "):
            n, h = ln[7:].split(" ", 1)
            helps[n] = h
    fams = []
    for f in text_string_to_metric_families(text):
        if f.name.endswith("_created") or not f.name.startswith("vllm:"):
            continue
        les = sorted({float(s.labels["le"]) for s in f.samples if "le" in s.labels and s.labels["le"] != "+Inf"})
        expo = f.name + ("_total" if f.type == "counter" else "")
        fams.append({"name": f.name, "type": f.type, "help": helps.get(expo, helps.get(f.name, "")), "les": les})
    return fams


@dataclass
class Req:
    rid: int
    t_arr: float
    prompt: int
    cached: int
    gen_target: int
    max_tokens: int
    reason: str = "stop"
    engine: int = 0
    gen: int = 0
    blocks: int = 0
    prefilled: bool = False
    t_sched: float | None = None
    t_first: float | None = None
    t_end: float | None = None
    preempts: int = 0
    admit_seq: int = 0


@dataclass
class Engine:
    idx: int
    num_blocks: int
    block_size: int
    max_num_seqs: int
    step_fn: object  # (n_decode, n_prefill_tokens, ctx_tokens) -> seconds
    reqs: list = field(default_factory=list)
    # time series recorded at every step: (t, running, waiting, used_blocks, preempt_total, recomputed_total)
    steps: list = field(default_factory=list)
    itl: list = field(default_factory=list)    # (t, value) per decode step (one obs per running decoder)
    iters: list = field(default_factory=list)  # (t, tokens in step)
    preempt_t: list = field(default_factory=list)
    recomputed: list = field(default_factory=list)  # (t, tokens)
    gen_series: list = field(default_factory=list)  # (t, cumulative generated tokens)

    def run(self, t0: float, t1: float) -> None:
        pend = sorted(self.reqs, key=lambda r: r.t_arr)
        usable = self.num_blocks - 1
        waiting: list[Req] = []
        running: list[Req] = []
        free = usable
        t, i, seq = t0, 0, 0
        bs = self.block_size
        while t < t1:
            while i < len(pend) and pend[i].t_arr <= t:
                waiting.append(pend[i]); i += 1
            # admission (FCFS, head blocks the queue)
            pre_tokens = 0
            while waiting and len(running) < self.max_num_seqs:
                r = waiting[0]
                need = math.ceil((r.prompt + r.gen) / bs)
                if need > free:
                    break
                waiting.pop(0)
                free -= need; r.blocks = need
                seq += 1; r.admit_seq = seq
                if r.t_sched is None:
                    r.t_sched = t
                comp = r.prompt + r.gen - (r.cached if r.preempts == 0 else 0)
                if r.preempts:
                    self.recomputed.append((t, r.prompt + r.gen))
                pre_tokens += comp
                r.prefilled = False
                running.append(r)
            decoders = [r for r in running if r.prefilled]
            ctx = sum(r.prompt + r.gen for r in running)
            dt_ = self.step_fn(len(decoders), pre_tokens, ctx) if (running or pre_tokens) else 0.05
            t += dt_
            if running:
                self.iters.append((t, pre_tokens + len(decoders)))
            # decode: each decoder produces one token; may need a new block
            for r in sorted(decoders, key=lambda x: x.admit_seq):
                if r not in running:
                    continue
                if (r.prompt + r.gen) % bs == 0:
                    while free == 0:
                        victim = max(running, key=lambda x: x.admit_seq)
                        running.remove(victim)
                        free += victim.blocks; victim.blocks = 0
                        victim.preempts += 1
                        self.preempt_t.append(t)
                        waiting.insert(0, victim)
                        if victim is r:
                            break
                    if r not in running:
                        continue
                    free -= 1; r.blocks += 1
                r.gen += 1
                self.itl.append((t, dt_))
            for r in running:
                if not r.prefilled and r in running:
                    r.prefilled = True
                    if r.t_first is None:
                        r.t_first = t
                        r.gen = max(r.gen, 1)
            for r in list(running):
                if r.prefilled and r.gen >= r.gen_target:
                    r.t_end = t
                    running.remove(r)
                    free += r.blocks; r.blocks = 0
            self.steps.append((t, len(running), len(waiting), usable - free, len(self.preempt_t)))
            self._g = getattr(self, "_g", 0) + len(decoders) + sum(1 for r in running if r.gen == 1 and r.t_first == t)
            self.gen_series.append((t, self._g))


def lab(d: dict) -> str:
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def num(v: float) -> str:
    return repr(float(v))


def hist(out, name, base, vals, les):
    vals = sorted(vals)
    j = 0
    for le in les:
        while j < len(vals) and vals[j] <= le:
            j += 1
        out.append(f'{name}_bucket{{{lab({**base, "le": num(le)})}}} {num(j)}')
    out.append(f'{name}_bucket{{{lab({**base, "le": "+Inf"})}}} {num(len(vals))}')
    out.append(f"{name}_count{{{lab(base)}}} {num(len(vals))}")
    out.append(f"{name}_sum{{{lab(base)}}} {num(round(sum(vals), 6))}")


def state_at(e: Engine, t: float):
    last = None
    lo, hi = 0, len(e.steps)
    while lo < hi:
        m = (lo + hi) // 2
        if e.steps[m][0] <= t:
            lo = m + 1
        else:
            hi = m
    if lo:
        last = e.steps[lo - 1]
    return last or (t, 0, 0, 0, 0)


def gen_total(e: Engine, t: float) -> int:
    import bisect
    k = bisect.bisect_right(e.gen_series, (t, float("inf")))
    return e.gen_series[k - 1][1] if k else 0


def gen_by(r: Req, t: float, e: Engine) -> int:
    """Generated tokens by time t: linear between first token and end (approximation for counters)."""
    if r.t_first is None or t < r.t_first:
        return 0
    end = r.t_end
    if end is not None and t >= end:
        return r.gen_target
    last_t = end if end is not None else e.steps[-1][0]
    if last_t <= r.t_first:
        return 1
    frac = (t - r.t_first) / (last_t - r.t_first)
    return max(1, min(r.gen, int(1 + frac * (r.gen - 1))))


def scrape(engines: list[Engine], fams: list[dict], t: float, model: str, cc: dict, num_blocks: int,
           by_reason: bool = True) -> str:
    out: list[str] = []
    per = []
    for e in engines:
        base = {"engine": str(e.idx), "model_name": model}
        st = state_at(e, t)
        R = e.reqs
        first = [r for r in R if r.t_first is not None and r.t_first <= t]
        done = [r for r in R if r.t_end is not None and r.t_end <= t]
        prompt_tot = sum(r.prompt for r in first)
        cached_tot = sum(r.cached for r in first)
        gen_tot = gen_total(e, t)
        recomp = sum(n for (tt, n) in e.recomputed if tt <= t)
        itl = [v for (tt, v) in e.itl if tt <= t]
        its = [v for (tt, v) in e.iters if tt <= t]
        usage = st[3] / (num_blocks - 1)
        vals = {"vllm:num_requests_running": st[1], "vllm:num_requests_waiting": st[2],
                "vllm:kv_cache_usage_perc": usage, "vllm:gpu_cache_usage_perc": usage,
                "vllm:num_preemptions": st[4], "vllm:prompt_tokens": prompt_tot + recomp,
                "vllm:prompt_tokens_cached": cached_tot, "vllm:prompt_tokens_recomputed": recomp,
                "vllm:generation_tokens": gen_tot, "vllm:prefix_cache_queries": prompt_tot + recomp,
                "vllm:prefix_cache_hits": cached_tot, "vllm:gpu_prefix_cache_queries": prompt_tot + recomp,
                "vllm:gpu_prefix_cache_hits": cached_tot}
        hists = {
            "vllm:time_to_first_token_seconds": [r.t_first - r.t_arr for r in first],
            "vllm:inter_token_latency_seconds": itl, "vllm:time_per_output_token_seconds": itl,
            "vllm:request_time_per_output_token_seconds": [(r.t_end - r.t_first) / max(1, r.gen_target - 1) for r in done],
            "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arr for r in done],
            "vllm:request_queue_time_seconds": [r.t_sched - r.t_arr for r in done],
            "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
            "vllm:request_prefill_time_seconds": [r.t_first - r.t_sched for r in done],
            "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
            "vllm:request_prompt_tokens": [r.prompt for r in done],
            "vllm:request_generation_tokens": [r.gen_target for r in done],
            "vllm:request_max_num_generation_tokens": [r.gen_target for r in done],
            "vllm:request_params_max_tokens": [r.max_tokens for r in done],
            "vllm:request_params_n": [1 for r in done],
            "vllm:request_prefill_kv_computed_tokens": [r.prompt - r.cached for r in done],
            "vllm:iteration_tokens_total": its,
        }
        per.append((base, vals, hists, done, prompt_tot, cached_tot, st))
    for f in fams:
        n, ty = f["name"], f["type"]
        if n == "vllm:cache_config_info":
            continue
        if n == "vllm:num_requests_waiting_by_reason" and not by_reason:
            continue
        en = n + "_total" if ty == "counter" else n
        out.append(f"# HELP {en} {f['help']}")
        out.append(f"# TYPE {en} {ty}")
        for base, vals, hists, done, pt, ct, st in per:
            if n == "vllm:engine_sleep_state":
                for s, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                    out.append(f'{n}{{{lab({**base, "sleep_state": s})}}} {num(v)}')
            elif n == "vllm:num_requests_waiting_by_reason":
                out.append(f'{n}{{{lab({**base, "reason": "capacity"})}}} {num(st[2])}')
                out.append(f'{n}{{{lab({**base, "reason": "deferred"})}}} {num(0)}')
            elif n == "vllm:prompt_tokens_by_source":
                for s, v in (("local_compute", pt - ct), ("local_cache_hit", ct), ("external_kv_transfer", 0)):
                    out.append(f'{n}_total{{{lab({**base, "source": s})}}} {num(v)}')
            elif n == "vllm:request_success":
                for reason in ("stop", "length", "abort", "error"):
                    v = sum(1 for r in done if r.reason == reason)
                    out.append(f'{n}_total{{{lab({**base, "finished_reason": reason})}}} {num(v)}')
            elif ty == "histogram":
                hist(out, n, base, hists.get(n, []), f["les"])
            elif ty == "counter":
                out.append(f"{n}_total{{{lab(base)}}} {num(vals.get(n, 0))}")
            else:
                out.append(f"{n}{{{lab(base)}}} {num(vals.get(n, 0))}")
    out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    out.append("# TYPE vllm:cache_config_info gauge")
    for e in engines:
        out.append(f"vllm:cache_config_info{{{lab(dict(sorted(({'engine': str(e.idx)} | cc).items())))}}} 1.0")
    return "\n".join(out) + "\n"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def stats_lines(engines: list[Engine], t0: float, t1: float, api_pid: int, ref: str, num_blocks: int, every: float = 10.0):
    L = []
    t = t0 + every
    while t <= t1 + 1e-6:
        a, b = t - every, t
        for e in engines:
            first_b = [r for r in e.reqs if r.t_first is not None and a < r.t_first <= b]
            pt = sum(r.prompt for r in first_b) + sum(n for (tt, n) in e.recomputed if a < tt <= b)
            ct = sum(r.cached for r in first_b)
            gt = gen_total(e, b) - gen_total(e, a)
            st = state_at(e, b)
            usage = 100.0 * st[3] / (num_blocks - 1)
            hit = 100.0 * ct / pt if pt else 0.0
            L.append((b + 0.001 * e.idx, f"(APIServer pid={api_pid}) INFO {ts(b)} [{ref}] Engine {e.idx:03d}: Avg prompt throughput: {pt / every:.1f} tokens/s, "
                      f"Avg generation throughput: {gt / every:.1f} tokens/s, Running: {st[1]} reqs, Waiting: {st[2]} reqs, "
                      f"GPU KV cache usage: {usage:.1f}%, Prefix cache hit rate: {hit:.1f}%"))
        t += every
    return L


def write(out: Path, *, engines, fams, model, cc, num_blocks, start, n, interval, server, engine_args,
          model_config, gpu, logs, notes, endpoint, by_reason=True):
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.dumps({"t": round(start + k * interval, 3), "status": 200,
                        "text": scrape(engines, fams, start + k * interval, model, cc, num_blocks, by_reason)})
            for k in range(n)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": start, "ended_at": start + (n - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def server_json(version: str, served: str, root: str, mml: int, created: int) -> dict:
    return {"version": {"version": version}, "models": {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root, "parent": None,
        "max_model_len": mml, "permission": [{"id": "modelperm-3f9c2a7d41e84b0c9a55e1d2c6b7f018",
        "object": "model_permission", "created": created, "allow_create_engine": False, "allow_sampling": True,
        "allow_logprobs": True, "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
        "organization": "*", "group": None, "is_blocking": False}]}]}, "health": 200}
