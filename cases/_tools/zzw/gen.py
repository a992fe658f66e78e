"""Writer zzw's bundle builder (kvdoctor.bundle/1). Written from scratch for round 17.

Metric families, HELP texts, label sets and bucket layouts follow vLLM's released
vllm/v1/metrics/loggers.py (read through the search tool, commit 005a810: V1 PrometheusStatLogger,
labels model_name+engine, counters exposed with _total, vllm:cache_config_info as a gauge = 1);
the periodic log line is LoggingStatLogger.log's format string. Deprecated gpu_* families are
left out (hidden after 0.10). Traffic is a steady per-interval stream; every counter and
histogram is cumulative over one list of requests, so nothing falls between scrapes.
"""
from __future__ import annotations
import json, math, random, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


def lab(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def hist(L, name, help_, base, vals, les):
    L.append(f"# HELP {name} {help_}"); L.append(f"# TYPE {name} histogram")
    vals = sorted(vals); j = 0
    for le in les:
        while j < len(vals) and vals[j] <= le:
            j += 1
        L.append(f'{name}_bucket{{{lab({**base, "le": repr(float(le))})}}} {float(j)}')
    L.append(f'{name}_bucket{{{lab({**base, "le": "+Inf"})}}} {float(len(vals))}')
    L.append(f"{name}_count{{{lab(base)}}} {float(len(vals))}")
    L.append(f"{name}_sum{{{lab(base)}}} {round(sum(vals), 6)}")


def counter(L, name, help_, base, v):
    L.append(f"# HELP {name}_total {help_}"); L.append(f"# TYPE {name}_total counter")
    L.append(f"{name}_total{{{lab(base)}}} {float(v)}")


def gauge(L, name, help_, base, v):
    L.append(f"# HELP {name} {help_}"); L.append(f"# TYPE {name} gauge")
    L.append(f"{name}{{{lab(base)}}} {float(v)}")


def build(c: dict):
    """c: id, start, interval, n, model, engine, max_model_len, rate (req/s), mk_req(rng, t)->dict
    (prompt, cached, gen, max_tokens), ttft_fn(req)->s, tpot (s), kv_usage_fn(t, running)->frac,
    cc_labels, log_head (list of lines), version, engine_args, notes, gpu (name, total, used)."""
    rng = random.Random(c["seed"])
    out = ROOT / "cases" / c["id"] / "bundle"; out.mkdir(parents=True, exist_ok=True)
    base = {"engine": c["engine"], "model_name": c["model"]}
    reqs = []; t = c["start"] - 120
    end = c["start"] + c["interval"] * (c["n"] - 1)
    while t < end:
        t += rng.expovariate(c["rate"])
        r = c["mk_req"](rng, t); r["t"] = t
        r["ttft"] = c["ttft_fn"](r); r["tpot"] = c["tpot"] * rng.uniform(0.9, 1.1)
        r["end"] = t + r["ttft"] + r["tpot"] * max(0, r["gen"] - 1)
        reqs.append(r)
    mlen = c["max_model_len"]
    scrapes = []; logs = list(c["log_head"])
    lastlog = None
    for i in range(c["n"]):
        ts = c["start"] + i * c["interval"]
        first = [r for r in reqs if r["t"] + r["ttft"] <= ts]
        done = [r for r in reqs if r["end"] <= ts]
        running = [r for r in reqs if r["t"] <= ts < r["end"]]
        gen_tot = sum(r["gen"] if r["end"] <= ts else max(0, min(r["gen"], int((ts - r["t"] - r["ttft"]) / r["tpot"]) + 1)) for r in first)
        L = []
        gauge(L, "vllm:num_requests_running", "Number of requests in model execution batches.", base, len(running))
        gauge(L, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", base, 0)
        gauge(L, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", base, round(c["kv_usage_fn"](ts, running), 6))
        counter(L, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", base, sum(r["prompt"] for r in first))
        counter(L, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", base, sum(r["cached"] for r in first))
        counter(L, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", base, 0)
        counter(L, "vllm:prompt_tokens", "Number of prefill tokens processed.", base, sum(r["prompt"] for r in first))
        counter(L, "vllm:generation_tokens", "Number of generation tokens processed.", base, gen_tot)
        L.append("# HELP vllm:request_success_total Count of successfully processed requests.")
        L.append("# TYPE vllm:request_success_total counter")
        for reason in ("stop", "length", "abort"):
            n = sum(1 for r in done if r.get("reason", "stop") == reason)
            L.append(f'vllm:request_success_total{{{lab({**base, "finished_reason": reason})}}} {float(n)}')
        hist(L, "vllm:request_prompt_tokens", "Number of prefill tokens processed.", base, [r["prompt"] for r in done], b125(mlen))
        hist(L, "vllm:request_generation_tokens", "Number of generation tokens processed.", base, [r["gen"] for r in done], b125(mlen))
        hist(L, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", base, [r["prompt"] - r["cached"] for r in first], ITER_B)
        hist(L, "vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", base, [r["max_tokens"] for r in done], b125(mlen))
        hist(L, "vllm:request_params_n", "Histogram of the n request parameter.", base, [1 for r in done], [1, 2, 5, 10, 20])
        hist(L, "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", base, [r["max_tokens"] for r in done], b125(mlen))
        hist(L, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", base, [r["ttft"] for r in first], TTFT_B)
        hist(L, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", base, [r["tpot"] for r in done if r["gen"] > 1], TPOT_B)
        hist(L, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", base, [r["end"] - r["t"] for r in done], LAT_B)
        hist(L, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", base, [0.002 for r in done], LAT_B)
        hist(L, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", base, [r["ttft"] - 0.002 for r in done], LAT_B)
        hist(L, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", base, [r["end"] - r["t"] - r["ttft"] for r in done], LAT_B)
        L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
        L.append("# TYPE vllm:cache_config_info gauge")
        L.append(f'vllm:cache_config_info{{{lab(c["cc_labels"])}}} 1.0')
        scrapes.append({"t": ts, "status": 200, "text": "\n".join(L) + "\n"})
        # 10 s stats log line (LoggingStatLogger.log)
        if lastlog is None or ts - lastlog >= 10:
            lo = lastlog if lastlog is not None else ts - 10
            win = [r for r in reqs if lo < r["t"] + r["ttft"] <= ts]
            pt = sum(r["prompt"] for r in win) / (ts - lo)
            gt = sum(r["gen"] for r in reqs if lo < r["end"] <= ts) / (ts - lo)
            recent = [r for r in reqs if r["t"] + r["ttft"] <= ts][-1000:]
            q = sum(r["prompt"] for r in recent); h = sum(r["cached"] for r in recent)
            stamp = time.strftime("%m-%d %H:%M:%S", time.gmtime(ts))
            logs.append(f"{c['log_prefix']}INFO {stamp} [loggers.py:{c['log_line']}] Engine {int(c['engine']):03d}: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {len(running)} reqs, Waiting: 0 reqs, GPU KV cache usage: {c['kv_usage_fn'](ts, running)*100:.1f}%, Prefix cache hit rate: {(h/q*100 if q else 0):.1f}%")
            lastlog = ts
    with open(out / "metrics.jsonl", "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    (out / "logs.txt").write_text("\n".join(logs) + "\n")
    (out / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": c["endpoint"], "started_at": c["start"], "ended_at": end, "interval_s": float(c["interval"]), "notes": c["notes"]}, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps({"version": {"version": c["version"]}, "models": {"object": "list", "data": [{"id": c["model"], "object": "model", "owned_by": "vllm", "root": c.get("root", c["model"]), "max_model_len": mlen}]}, "health": 200}, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(c["engine_args"], indent=1) + "\n")
    if c.get("gpu"):
        name, tot, used = c["gpu"]
        with open(out / "gpu.jsonl", "w") as f:
            for s in scrapes:
                f.write(json.dumps({"t": s["t"], "devices": [{"index": 0, "name": name, "memory_total": tot, "memory_used": used, "processes": [{"pid": c["pid"], "name": "python3", "used_memory": used - 500 * 2**20}]}]}) + "\n")
    if c.get("prompts"):
        with open(out.parent / "prompts.jsonl", "w") as f:
            for p in c["prompts"]:
                f.write(json.dumps(p) + "\n")
    return reqs
