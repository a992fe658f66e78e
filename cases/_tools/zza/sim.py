"""Writer zza's bundle builder (round 12): a step-level engine simulator.

Each engine step: admit waiting requests FIFO while a slot and KV blocks for the prompt are free;
prefill the admitted ones (their first token comes at the end of the step); every running request
decodes one token; when the pool has no block for a growing request the newest running request is
preempted (recompute: it goes back to the head of the queue, keeps its output, frees its blocks).
All counters, histograms, gauges and stats lines are computed from the recorded events, so they
agree. Family names / HELP / buckets come from an existing bundle of the same release (gen._template).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import gen


@dataclass
class R:
    rid: int
    t_arr: float
    prompt: int
    out: int
    reason: str = "stop"
    done_tok: int = 0
    t_sched: float = -1.0
    t_first: float = -1.0
    t_end: float = -1.0
    tok_t: list = field(default_factory=list)  # times of every output token
    blocks: int = 0


@dataclass
class Sim:
    pool_blocks: int
    block: int
    max_seqs: int
    step_fn: object  # (n_running, prefill_tokens) -> seconds
    reqs: list
    steps: list = field(default_factory=list)  # (t_end, n_running, n_waiting, used_blocks, prefill_tok, decode_tok)
    preempt_t: list = field(default_factory=list)
    sched_t: list = field(default_factory=list)  # (t, rid) every admission

    def run(self, t_stop: float) -> None:
        pend = sorted(self.reqs, key=lambda r: r.t_arr)
        i, t = 0, pend[0].t_arr
        waiting, running = [], []
        used = 0
        while t < t_stop and (i < len(pend) or waiting or running):
            while i < len(pend) and pend[i].t_arr <= t:
                waiting.append(pend[i]); i += 1
            if not waiting and not running:
                t = pend[i].t_arr; continue
            admitted, pf = [], 0
            while waiting and len(running) < self.max_seqs:
                r = waiting[0]
                ctx = r.prompt + r.done_tok
                need = math.ceil((ctx + 1) / self.block)
                if used + need > self.pool_blocks:
                    break
                waiting.pop(0)
                r.blocks = need; used += need
                if r.t_sched < 0:
                    r.t_sched = t
                self.sched_t.append((t, r.rid))
                running.append(r); admitted.append(r); pf += ctx
            dec = [r for r in running if r not in admitted]
            # grow decoding requests; preempt newest when out of blocks
            for r in list(dec):
                if r not in running:
                    continue
                ctx = r.prompt + r.done_tok + 1
                need = math.ceil(ctx / self.block)
                while used + (need - r.blocks) > self.pool_blocks and running:
                    v = running[-1]
                    running.remove(v); used -= v.blocks; v.blocks = 0
                    waiting.insert(0, v); self.preempt_t.append(t)
                    if v in dec:
                        dec.remove(v)
                    if v in admitted:
                        admitted.remove(v)
                    if v is r:
                        break
                if r in running:
                    used += need - r.blocks; r.blocks = need
            dt = self.step_fn(len(running), pf)
            t += dt
            for r in running:
                r.done_tok += 1
                r.tok_t.append(t)
                if r.t_first < 0:
                    r.t_first = t
            fin = [r for r in running if r.done_tok >= r.out]
            for r in fin:
                r.t_end = t; running.remove(r); used -= r.blocks; r.blocks = 0
            self.steps.append((t, len(running) + len(fin), len(waiting), used + 0, pf, len(running) + len(fin)))


def _lab(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def scrape(s: Sim, t: float, tmpl: str, base: dict, cc: dict, v0: bool, skip=("spec_decode",)) -> str:
    R_ = s.reqs
    first = [r for r in R_ if 0 <= r.t_first <= t]
    done = [r for r in R_ if 0 <= r.t_end <= t]
    st = [x for x in s.steps if x[0] <= t]
    last = st[-1] if st else None
    idle = last is None or (t - last[0] > 2.0 and all(r.t_end >= 0 and r.t_end <= t or r.t_arr > t for r in R_))
    running = 0 if idle or last is None else last[1]
    waiting = sum(1 for r in R_ if r.t_arr <= t and (r.t_end < 0 or r.t_end > t)) - running
    used = 0 if idle or last is None else last[3]
    usage = min(1.0, used / s.pool_blocks)
    itl = []
    for r in R_:
        tt = [x for x in r.tok_t if x <= t]
        itl += [b - a for a, b in zip(tt, tt[1:])]
    gen_tot = sum(sum(1 for x in r.tok_t if x <= t) for r in R_)
    prompt_tot = sum(r.prompt for r in first) + sum(r.prompt + 0 for _ in [])
    recomputed = 0
    vals = {
        "vllm:num_requests_running": running, "vllm:num_requests_waiting": max(0, waiting),
        "vllm:num_requests_swapped": 0, "vllm:kv_cache_usage_perc": usage, "vllm:gpu_cache_usage_perc": usage,
        "vllm:cpu_cache_usage_perc": 0.0, "vllm:num_preemptions": sum(1 for x in s.preempt_t if x <= t),
        "vllm:prompt_tokens": prompt_tot, "vllm:generation_tokens": gen_tot,
        "vllm:prefix_cache_queries": prompt_tot, "vllm:prefix_cache_hits": 0,
        "vllm:prompt_tokens_recomputed": recomputed, "vllm:engine_sleep_state": 0,
    }
    hists = {
        "vllm:time_to_first_token_seconds": [r.t_first - r.t_arr for r in first],
        "vllm:inter_token_latency_seconds": itl, "vllm:time_per_output_token_seconds": itl,
        "vllm:request_time_per_output_token_seconds": [(r.t_end - r.t_first) / (r.out - 1) for r in done if r.out > 1],
        "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arr for r in done],
        "vllm:request_queue_time_seconds": [r.t_sched - r.t_arr for r in done],
        "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
        "vllm:request_prefill_time_seconds": [r.t_first - r.t_sched for r in done],
        "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
        "vllm:request_prompt_tokens": [r.prompt for r in done], "vllm:request_generation_tokens": [r.out for r in done],
        "vllm:request_max_num_generation_tokens": [r.out for r in done],
        "vllm:request_params_max_tokens": [r.out for r in done], "vllm:request_params_n": [1 for _ in done],
        "vllm:request_params_best_of": [1 for _ in done],
        "vllm:request_prefill_kv_computed_tokens": [r.prompt for r in done],
        "vllm:iteration_tokens_total": [x[4] + x[5] for x in st],
    }
    out = []
    for f in gen._template(tmpl):
        n, ty = f["name"], f["type"]
        if n in ("vllm:cache_config_info", "vllm:lora_requests_info") or any(k in n for k in skip):
            continue
        en = n + "_total" if ty == "counter" else n
        out.append(f"# HELP {en} {f['help']}")
        out.append(f"# TYPE {en} {ty}")
        if n == "vllm:engine_sleep_state":
            for st_, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                out.append(f'{n}{{{_lab({**base, "sleep_state": st_})}}} {float(v)!r}')
        elif n == "vllm:prompt_tokens_by_source":
            for src, v in (("local_compute", prompt_tot), ("local_cache_hit", 0), ("external_kv_transfer", 0)):
                out.append(f'{n}_total{{{_lab({**base, "source": src})}}} {float(v)!r}')
        elif n == "vllm:request_success":
            for reason in (("stop", "length") if v0 else ("stop", "length", "abort", "error")):
                v = sum(1 for r in done if r.reason == reason)
                out.append(f'{n}_total{{{_lab({**base, "finished_reason": reason})}}} {float(v)!r}')
        elif ty == "histogram":
            gen._hist(out, n, base, hists.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{_lab(base)}}} {float(vals.get(n, 0))!r}")
        else:
            out.append(f"{n}{{{_lab(base)}}} {float(vals.get(n, 0))!r}")
    hdr = "information of cache_config" if v0 else "Information of the LLMEngine CacheConfig"
    out.append(f"# HELP vllm:cache_config_info {hdr}")
    out.append("# TYPE vllm:cache_config_info gauge")
    out.append(f"vllm:cache_config_info{{{_lab(cc)}}} 1.0")
    return "\n".join(out) + "\n"


def window_stats(s: Sim, a: float, b: float):
    pt = sum(r.prompt for r in s.reqs if a < r.t_first <= b)
    gt = sum(sum(1 for x in r.tok_t if a < x <= b) for r in s.reqs)
    st = [x for x in s.steps if x[0] <= b]
    last = st[-1] if st else None
    busy = last is not None and b - last[0] <= 2.0
    run = last[1] if busy else 0
    wait = max(0, sum(1 for r in s.reqs if r.t_arr <= b and (r.t_end < 0 or r.t_end > b)) - run)
    use = (last[3] / s.pool_blocks * 100) if busy else 0.0
    return pt, gt, run, wait, use


def write_bundle(out: Path, recs: list, manifest: dict, server=None, engine_args=None, model_config=None, logs: str = "") -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "logs.txt").write_text(logs)
