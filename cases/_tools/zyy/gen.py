"""Writer zyy's bundle builder (kvdoctor.bundle/1), adapted from cases/_tools/zyc/gen.py.

Changes for the zyy-* cases (2026 V1 releases): the per-step latency histogram is emitted as
vllm:inter_token_latency_seconds plus a per-request vllm:request_time_per_output_token_seconds,
the deprecated gpu_cache_usage_perc / gpu_prefix_cache_* families are dropped, and a step can
be frozen (cfg["freeze"] = (t_start, seconds)) to model an engine that stops and resumes.

A step-level engine simulation: requests arrive, are admitted FIFO into max_num_seqs slots and
a KV pool of blocks, prefill in chunks of max_num_batched_tokens and decode one step at a time;
each step's duration comes from the case (decode cost, prefill cost, eager / offload factors).
Every counter, histogram, gauge and stats log line is computed from that one simulation.

Metric families, HELP texts, label names and bucket layouts are taken from the vLLM source
(vllm/v1/metrics/loggers.py PrometheusStatLogger, vllm/v1/spec_decode/metrics.py
SpecDecodingProm). Log lines follow LoggingStatLogger.log() / SpecDecodingLogging.log().
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
from pathlib import Path

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_B = [1, 2, 5, 10, 20]


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
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * (len(self.b) + 1)
        self.sum = 0.0
        self.n = 0

    def obs(self, v, k=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.c[i] += k
                break
        else:
            self.c[-1] += k
        self.sum += v * k
        self.n += k


def fmt(v):
    if isinstance(v, int):
        return f"{float(v)}"
    r = repr(float(v))
    return r


class Engine:
    """Per-engine cumulative state (one engine label)."""

    def __init__(self, idx, mml):
        self.idx = idx
        self.c = {k: 0 for k in ("preempt", "prompt", "gen", "pq", "ph", "drafts", "dtok", "acc")}
        self.acc_pos = []
        self.success = {"stop": 0, "length": 0, "abort": 0}
        self.h = {
            "ttft": Hist(TTFT_B), "tpot": Hist(TPOT_B), "ptok": Hist(PREFILL_TOK_B),
            "e2e": Hist(LAT_B), "rtpot": Hist(TPOT_B), "queue": Hist(LAT_B), "inf": Hist(LAT_B), "prefill": Hist(LAT_B),
            "decode": Hist(LAT_B), "rpt": Hist(b125(mml)), "rgt": Hist(b125(mml)),
            "iter": Hist(ITER_B), "maxgen": Hist(b125(mml)), "n": Hist(N_B), "maxtok": Hist(b125(mml)),
        }
        self.running = 0
        self.waiting = 0
        self.kv = 0.0


class Req:
    __slots__ = ("rid", "t_arr", "prompt", "cached", "gen", "max_tokens", "reason", "done_pf",
                 "made", "t_sched", "t_first", "t_last", "t_end", "blocks", "eng")

    def __init__(self, rid, t_arr, prompt, cached, gen, max_tokens, reason="stop", eng=0):
        self.rid, self.t_arr, self.prompt, self.cached, self.gen = rid, t_arr, prompt, cached, gen
        self.max_tokens, self.reason, self.eng = max_tokens, reason, eng
        self.done_pf = 0
        self.made = 0
        self.t_sched = self.t_first = self.t_last = self.t_end = None
        self.blocks = 0


def simulate(cfg, reqs, t0, t1, eng_state, on_step=None):
    """Run one engine over requests (sorted by arrival). cfg keys:
    max_num_seqs, mnbt, block_size, num_blocks, spec_k, accept(rng)->int,
    step_time(n_dec, ctx_sum, pf_tokens, n_tok)->s, rng."""
    rng = cfg["rng"]
    bs = cfg["block_size"]
    pending = list(reqs)
    waiting, running, finished = [], [], []
    t = t0
    k = cfg.get("spec_k", 0)
    if k and not eng_state.acc_pos:
        eng_state.acc_pos = [0] * k
    used_blocks = 0
    samples = []  # (t, running, waiting, kv)
    idle_dt = cfg.get("idle_dt", 0.05)
    while t < t1:
        while pending and pending[0].t_arr <= t:
            waiting.append(pending.pop(0))
        # admit
        while waiting and len(running) < cfg["max_num_seqs"]:
            r = waiting[0]
            need = math.ceil((r.prompt + 1) / bs)
            if used_blocks + need > cfg["num_blocks"]:
                break
            waiting.pop(0)
            r.t_sched = t
            r.blocks = need
            used_blocks += need
            r.done_pf = r.cached
            eng_state.c["pq"] += r.prompt
            eng_state.c["ph"] += r.cached
            running.append(r)
        if not running:
            samples.append((t, 0, len(waiting), used_blocks / cfg["num_blocks"]))
            t += idle_dt
            continue
        budget = cfg["mnbt"]
        dec = [r for r in running if r.done_pf >= r.prompt]
        ntok = 0
        for r in dec:
            ntok += 1 + k
        budget -= ntok
        pf = []
        pf_tokens = 0
        for r in running:
            if r.done_pf < r.prompt and budget > 0:
                take = min(budget, r.prompt - r.done_pf)
                pf.append((r, take))
                budget -= take
                pf_tokens += take
        ctx = sum(r.prompt + r.made for r in dec)
        dtime = cfg["step_time"](len(dec), ctx, pf_tokens, ntok + pf_tokens)
        fz = cfg.get("freeze")
        if fz and not cfg.get("_frozen") and t >= fz[0]:
            cfg["_frozen"] = True
            dtime += fz[1]
        t_end = t + dtime
        gen_tokens = 0
        prompt_tokens = 0
        done = []
        for r in dec:
            a = cfg["accept"](rng) if k else 0
            n_new = min(1 + a, r.gen - r.made)
            if k:
                eng_state.c["drafts"] += 1
                eng_state.c["dtok"] += k
                eng_state.c["acc"] += a
                for p in range(a):
                    eng_state.acc_pos[p] += 1
            r.made += n_new
            gen_tokens += n_new
            eng_state.h["tpot"].obs(t_end - r.t_last)
            r.t_last = t_end
            nb = math.ceil((r.prompt + r.made + 1) / bs)
            if nb > r.blocks:
                used_blocks += nb - r.blocks
                r.blocks = nb
            if r.made >= r.gen:
                done.append(r)
        for r, take in pf:
            r.done_pf += take
            if r.done_pf >= r.prompt:
                prompt_tokens += r.prompt
                r.made = 1
                gen_tokens += 1
                r.t_first = t_end
                r.t_last = t_end
                eng_state.h["ttft"].obs(t_end - r.t_arr)
                eng_state.h["maxgen"].obs(r.max_tokens)
                eng_state.h["n"].obs(1)
                if r.made >= r.gen:
                    done.append(r)
        eng_state.c["prompt"] += prompt_tokens
        eng_state.c["gen"] += gen_tokens
        eng_state.h["iter"].obs(prompt_tokens + gen_tokens)
        for r in done:
            r.t_end = t_end
            running.remove(r)
            used_blocks -= r.blocks
            h = eng_state.h
            eng_state.success[r.reason] += 1
            h["e2e"].obs(r.t_end - r.t_arr)
            h["queue"].obs(r.t_sched - r.t_arr)
            h["prefill"].obs(r.t_first - r.t_sched)
            h["ptok"].obs((r.t_first - r.t_sched) / r.prompt)
            h["inf"].obs(r.t_end - r.t_sched)
            h["decode"].obs(r.t_end - r.t_first)
            if r.gen > 1:
                h["rtpot"].obs((r.t_end - r.t_first) / (r.gen - 1))
            h["rpt"].obs(r.prompt)
            h["rgt"].obs(r.gen)
            h["maxtok"].obs(r.max_tokens)
            finished.append(r)
        t = t_end
        samples.append((t, len(running), len(waiting), used_blocks / cfg["num_blocks"]))
        if on_step:
            on_step(t, eng_state, len(running), len(waiting), used_blocks / cfg["num_blocks"])
    return finished


def render(model, engines, cache_info, created, spec_k=0):
    L = []
    lab = lambda e, extra="": f'engine="{e.idx}",model_name="{model}"' + extra

    def gauge(name, doc, getter):
        L.append(f"# HELP {name} {doc}")
        L.append(f"# TYPE {name} gauge")
        for e in engines:
            L.append(f"{name}{{{lab(e)}}} {fmt(getter(e))}")

    def counter(name, doc, key):
        L.append(f"# HELP {name}_total {doc}")
        L.append(f"# TYPE {name}_total counter")
        for e in engines:
            L.append(f"{name}_total{{{lab(e)}}} {fmt(e.c[key])}")
        for e in engines:
            L.append(f"{name}_created{{{lab(e)}}} {created}")

    def hist(name, doc, key):
        L.append(f"# HELP {name} {doc}")
        L.append(f"# TYPE {name} histogram")
        for e in engines:
            h = e.h[key]
            cum = 0
            for le, c in zip(h.b, h.c):
                cum += c
                L.append(f'{name}_bucket{{{lab(e)},le="{float(le)}"}} {fmt(cum)}')
            cum += h.c[-1]
            L.append(f'{name}_bucket{{{lab(e)},le="+Inf"}} {fmt(cum)}')
            L.append(f"{name}_count{{{lab(e)}}} {fmt(h.n)}")
            L.append(f"{name}_sum{{{lab(e)}}} {fmt(round(h.sum, 6))}")
        for e in engines:
            L.append(f"{name}_created{{{lab(e)}}} {created}")

    # cache_config_info (log_engine_initialized)
    L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    L.append("# TYPE vllm:cache_config_info gauge")
    for e in engines:
        ci = dict(cache_info)
        ci["engine"] = str(e.idx)
        labs = ",".join(f'{k}="{v}"' for k, v in sorted(ci.items()))
        L.append(f"vllm:cache_config_info{{{labs}}} 1.0")
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", lambda e: e.running)
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", lambda e: e.waiting)
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lambda e: round(e.kv, 6))
    counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", "pq")
    counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", "ph")
    counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", "preempt")
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", "prompt")
    counter("vllm:generation_tokens", "Number of generation tokens processed.", "gen")
    L.append("# HELP vllm:request_success_total Count of successfully processed requests.")
    L.append("# TYPE vllm:request_success_total counter")
    for e in engines:
        for reason in ("stop", "length", "abort"):
            L.append(f'vllm:request_success_total{{{lab(e)},finished_reason="{reason}"}} {fmt(e.success[reason])}')
    for e in engines:
        for reason in ("stop", "length", "abort"):
            L.append(f'vllm:request_success_created{{{lab(e)},finished_reason="{reason}"}} {created}')
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", "rpt")
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", "rgt")
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", "iter")
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", "maxgen")
    hist("vllm:request_params_n", "Histogram of the n request parameter.", "n")
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", "maxtok")
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", "ttft")
    hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", "tpot")
    hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", "rtpot")
    hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", "ptok")
    hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", "e2e")
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", "queue")
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", "inf")
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", "prefill")
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", "decode")
    if spec_k:
        for name, doc, key in (("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", "drafts"),
                               ("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", "dtok"),
                               ("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", "acc")):
            counter(name, doc, key)
        name = "vllm:spec_decode_num_accepted_tokens_per_pos"
        L.append(f"# HELP {name}_total Accepted tokens per draft position.")
        L.append(f"# TYPE {name}_total counter")
        for e in engines:
            for p in range(spec_k):
                L.append(f'{name}_total{{{lab(e)},position="{p}"}} {fmt(e.acc_pos[p])}')
        for e in engines:
            for p in range(spec_k):
                L.append(f'{name}_created{{{lab(e)},position="{p}"}} {created}')
    return "\n".join(L) + "\n"


def snap(e):
    return {"c": dict(e.c), "acc_pos": list(e.acc_pos),
            "success": dict(e.success), "running": e.running, "waiting": e.waiting, "kv": e.kv,
            "h": {k: (list(h.c), h.sum, h.n) for k, h in e.h.items()}}


def restore(e, s):
    e.c = dict(s["c"]); e.acc_pos = list(s["acc_pos"]); e.success = dict(s["success"])
    e.running, e.waiting, e.kv = s["running"], s["waiting"], s["kv"]
    for k, (c, sm, n) in s["h"].items():
        e.h[k].c, e.h[k].sum, e.h[k].n = list(c), sm, n


def ts(t, fmt_="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt_)


def write_bundle(out: Path, manifest, metrics_rows, server=None, engine_args=None,
                 model_config=None, gpu_rows=None, logs=None):
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for r in metrics_rows:
            f.write(json.dumps(r) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=2) + "\n")
    if engine_args is not None:
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=2) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=2) + "\n")
    if gpu_rows is not None:
        with (out / "gpu.jsonl").open("w") as f:
            for r in gpu_rows:
                f.write(json.dumps(r) + "\n")
    if logs is not None:
        (out / "logs.txt").write_text(logs)


def run_engine(cfg, reqs, t0, t1, times, mml, idx=0):
    """Simulate one engine; return {time: snapshot} for each time in `times` (state after the
    last step that ended at or before it)."""
    e = Engine(idx, mml)
    times = sorted(times)
    out = {}
    st = {"i": 0}

    def on_step(t, es, running, waiting, kv):
        while st["i"] < len(times) and times[st["i"]] < t:
            out[times[st["i"]]] = st.get("last") or snap(es_init)
            st["i"] += 1
        es.running, es.waiting, es.kv = running, waiting, kv
        st["last"] = snap(es)

    es_init = Engine(idx, mml)
    cfg2 = dict(cfg)
    simulate(cfg2, reqs, t0, t1 + 1, e, on_step=on_step)
    while st["i"] < len(times):
        out[times[st["i"]]] = st.get("last") or snap(es_init)
        st["i"] += 1
    return out


def log_lines(snaps, times, interval, pid, model_idx=0, spec_k=0, engine_label=None,
              lg_line="loggers.py:271", sd_line="metrics.py:101"):
    """Stats log lines (LoggingStatLogger.log format) every `interval` seconds from snapshots."""
    lines = []
    prev = None
    hits_q = [0, 0]
    for t in times:
        s = snaps[t]
        if prev is not None:
            dp = s["c"]["prompt"] - prev["c"]["prompt"]
            dg = s["c"]["gen"] - prev["c"]["gen"]
            if dp or dg or prev.get("_act"):
                pq, ph = s["c"]["pq"], s["c"]["ph"]
                hr = 100.0 * ph / pq if pq else 0.0
                eng = engine_label if engine_label is not None else 0
                lines.append((t, f"(APIServer pid={pid}) INFO {ts(t)} [{lg_line}] Engine {eng:03d}: Avg prompt throughput: {dp/interval:.1f} tokens/s, Avg generation throughput: {dg/interval:.1f} tokens/s, Running: {s['running']} reqs, Waiting: {s['waiting']} reqs, GPU KV cache usage: {s['kv']*100:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
                if spec_k:
                    nd = s["c"]["drafts"] - prev["c"]["drafts"]
                    if nd:
                        ndt = s["c"]["dtok"] - prev["c"]["dtok"]
                        na = s["c"]["acc"] - prev["c"]["acc"]
                        pos = [(a - b) / nd for a, b in zip(s["acc_pos"], prev["acc_pos"])]
                        lines.append((t, f"(APIServer pid={pid}) INFO {ts(t)} [{sd_line}] SpecDecoding metrics: Mean acceptance length: {1 + na/nd:.2f}, Accepted throughput: {na/interval:.2f} tokens/s, Drafted throughput: {ndt/interval:.2f} tokens/s, Accepted: {na} tokens, Drafted: {ndt} tokens, Per-position acceptance rate: {', '.join(f'{p:.3f}' for p in pos)}, Avg Draft acceptance rate: {100.0*na/ndt:.1f}%"))
            s["_act"] = bool(dp or dg)
        prev = s
    return lines
