"""State of a vLLM V1 server as a pure function of time, from a request list:
every scrape rebuilds the counters from the events at or before its time, so
cumulative series can never decrease. Requests are dicts:
  a (arrival), s (scheduled), f (first token), e (end), eng (engine index),
  P (prompt tokens), H (local prefix-cache hit tokens), X (external connector hit
  tokens), XQ (external queried tokens), G (generated), M (max_tokens), reason,
  chunks (list of prefill chunk sizes), step (decode step seconds),
  k (spec tokens, 0 = none), acc (per-position acceptance probabilities)."""
import math
from datetime import datetime, timezone

from prom import Engine


def engine_at(t, reqs, eng, max_model_len, kv_blocks, block, kv_extra=0, external=False,
              spec_k=0, preempt=0):
    e = Engine(max_model_len, external=external, spec_k=spec_k)
    used = 0
    for r in reqs:
        if r["eng"] != eng or r["a"] > t:
            continue
        if r["s"] > t:
            e.waiting += 1
            continue
        e.c["prefix_q"] += r["P"]
        e.c["prefix_h"] += r["H"]
        if external:
            e.c["ext_q"] += r.get("XQ", r["P"] - r["H"])
            e.c["ext_h"] += r.get("X", 0)
        if r["e"] > t:
            e.running += 1
        if r["f"] <= t:
            X = r.get("X", 0)
            e.c["prompt"] += r["P"]
            e.c["cached"] += r["H"] + X
            e.src["local_compute"] += r["P"] - r["H"] - X
            e.src["local_cache_hit"] += r["H"]
            e.src["external_kv_transfer"] += X
            e.h["vllm:time_to_first_token_seconds"].observe(r["f"] - r["a"])
            for c in r["chunks"]:
                e.h["vllm:iteration_tokens_total"].observe(c)
            # decode progress
            nd = max(1, round((r["e"] - r["f"]) / r["step"])) if r["G"] > 1 else 0
            frac = 1.0 if r["e"] <= t else (t - r["f"]) / (r["e"] - r["f"])
            done = int(nd * frac)
            produced = 1 + int((r["G"] - 1) * (done / nd if nd else 1.0))
            e.c["gen"] += produced
            k = r.get("k", 0)
            per = k + 1 if k else 1
            e.h["vllm:iteration_tokens_total"].observe(per, done)
            if done:
                e.h["vllm:inter_token_latency_seconds"].observe(r["step"], done)
            if k:
                # accepted tokens = produced - 1 (first) - one bonus per step
                acc_tot = max(0, produced - 1 - done)
                e.spec["drafts"] += done
                e.spec["draft_tokens"] += done * k
                e.spec["accepted"] += acc_tot
                # split accepted over positions by the cumulative acceptance profile
                w = r["acc"]
                sw = sum(w)
                left = acc_tot
                for p in range(k):
                    v = min(done, int(acc_tot * w[p] / sw)) if p < k - 1 else min(done, left)
                    e.spec_pos[p] += v
                    left -= v
            if r["e"] <= t:
                e.finish(r["P"], r["G"], r["M"], r["s"] - r["a"], r["f"] - r["s"], r["e"] - r["f"],
                         r.get("reason", "stop"))
            else:
                used += math.ceil((r["P"] + produced) / block) + kv_extra
        elif r["e"] > t:
            # mid-prefill: allocated up to the chunks done so far (approx: whole prompt)
            used += math.ceil(r["P"] / block) + kv_extra
    e.kv = min(1.0, used / kv_blocks)
    e.c["preempt"] = preempt
    return e


def stamp(t, fmt="%m-%d %H:%M:%S"):
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime(fmt)


def stats_lines(t0, t1, reqs, eng, kv_of, pid, line="loggers.py:271", spec_line=None, ext=False):
    """One 'Engine 000: ...' line per 10 s interval in (t0, t1], as LoggingStatLogger prints them."""
    out = []
    t = t0 + 10
    q = h = xq = xh = 0
    while t <= t1 + 1e-9:
        pt = gt = 0.0
        run = wait = 0
        acc = dr = 0
        for r in reqs:
            if r["eng"] != eng:
                continue
            if t - 10 < r["f"] <= t:
                pt += r["P"] - r["H"] - r.get("X", 0)
            if t - 10 < r["s"] <= t:
                q += r["P"]; h += r["H"]
                xq += r.get("XQ", r["P"] - r["H"]); xh += r.get("X", 0)
            if r["a"] <= t < r["s"]:
                wait += 1
            elif r["s"] <= t < r["e"]:
                run += 1
            # generated tokens in (t-10, t]
            if r["G"] > 0 and r["e"] > r["f"]:
                lo, hi = max(t - 10, r["f"]), min(t, r["e"])
                if hi > lo:
                    g = (r["G"] - 1) * (hi - lo) / (r["e"] - r["f"])
                    gt += g
                    if r.get("k"):
                        steps = (hi - lo) / r["step"]
                        dr += steps * r["k"]
                        acc += g - steps
        if pt or gt:
            parts = [f"Avg prompt throughput: {pt / 10:.1f} tokens/s",
                     f"Avg generation throughput: {gt / 10:.1f} tokens/s",
                     f"Running: {run} reqs", f"Waiting: {wait} reqs",
                     f"GPU KV cache usage: {kv_of(t) * 100:.1f}%",
                     f"Prefix cache hit rate: {(h / q * 100) if q else 0.0:.1f}%"]
            if ext and xq:
                parts.append(f"External prefix cache hit rate: {xh / xq * 100:.1f}%")
            out.append((t, f"(APIServer pid={pid}) INFO {stamp(t)} [{line}] Engine {eng:03d}: " + ", ".join(parts)))
            if spec_line and dr:
                out.append((t, f"(APIServer pid={pid}) INFO {stamp(t)} [{spec_line[0]}] " + spec_line[1](acc, dr)))
        t += 10
    return out
