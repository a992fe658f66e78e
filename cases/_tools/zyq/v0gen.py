"""Writer zyq's bundle builder for vLLM V0 engines (0.8 line), kvdoctor.bundle/1.

Metric families, HELP strings and bucket layouts follow vllm/engine/metrics.py of the 0.8 line
(read through read_file; the V0 Metrics class with the deprecated-in-0.8 gauges still exported):
labels {model_name}; multiprocess exposition, so label names come out sorted ('le' before
'model_name'); counters carry _total on HELP/TYPE/sample lines as prometheus_client writes them.

Requests are given explicitly (arrival t, prompt tokens, output tokens, prefill seconds, seconds
per output token, queue seconds); every series is computed from that one list, so cumulative
series never decrease.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
ITER_EAGER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8096]


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


def f(v):
    v = float(v)
    return repr(v)


def lbl(d):
    return "{" + ",".join(f'{k}="{d[k]}"' for k in sorted(d)) + "}"


def timeline(r):
    r.setdefault("queue", 0.0)
    r["t_sched"] = r["t"] + r["queue"]
    r["t_first"] = r["t_sched"] + r["prefill"]
    r["t_end"] = r["t_first"] + max(0, r["out"] - 1) * r["tpot"]
    return r


def gen_done(r, T):
    if T < r["t_first"]:
        return 0
    if T >= r["t_end"]:
        return r["out"]
    return min(r["out"], 1 + int((T - r["t_first"]) / r["tpot"]))


class Hist:
    def __init__(self, b):
        self.b, self.c, self.n, self.s = list(b), [0] * len(b), 0, 0.0

    def obs(self, v, k=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.c[i] += k
        self.n += k
        self.s += v * k


def scrape(T, reqs, cfg):
    mn = {"model_name": cfg["model_name"]}
    bs, nb = cfg["block_size"], cfg["num_blocks"]
    L = []

    def fam(name, typ, help_):
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} {typ}")

    run = [r for r in reqs if r["t_sched"] <= T < r["t_end"]]
    wait = [r for r in reqs if r["t"] <= T < r["t_sched"]]
    used = sum(math.ceil((r["prompt"] + gen_done(r, T)) / bs) for r in run)
    fin = [r for r in reqs if r["t_end"] <= T]
    first = [r for r in reqs if r["t_first"] <= T]

    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    L.append(f"vllm:cache_config_info{lbl(cfg['cache_labels'])} 1.0")
    fam("vllm:num_requests_running", "gauge", "Number of requests currently running on GPU.")
    L.append(f"vllm:num_requests_running{lbl(mn)} {f(len(run))}")
    fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
    L.append(f"vllm:num_requests_waiting{lbl(mn)} {f(len(wait))}")
    fam("vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU. DEPRECATED: KV cache offloading is not used in V1")
    L.append(f"vllm:num_requests_swapped{lbl(mn)} 0.0")
    fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.")
    L.append(f"vllm:gpu_cache_usage_perc{lbl(mn)} {f(used / nb)}")
    fam("vllm:cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage. DEPRECATED: KV cache offloading is not used in V1")
    L.append(f"vllm:cpu_cache_usage_perc{lbl(mn)} 0.0")
    fam("vllm:cpu_prefix_cache_hit_rate", "gauge", "CPU prefix cache block hit rate. DEPRECATED: KV cache offloading is not used in V1")
    L.append(f"vllm:cpu_prefix_cache_hit_rate{lbl(mn)} {f(cfg.get('cpu_hit_rate', lambda T: 0.0)(T))}")
    fam("vllm:gpu_prefix_cache_hit_rate", "gauge", "GPU prefix cache block hit rate. DEPRECATED: use vllm:gpu_prefix_cache_queries and vllm:gpu_prefix_cache_queries in V1")
    L.append(f"vllm:gpu_prefix_cache_hit_rate{lbl(mn)} {f(cfg.get('gpu_hit_rate', lambda T: 0.0)(T))}")
    fam("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.")
    L.append(f"vllm:num_preemptions_total{lbl(mn)} 0.0")
    fam("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.")
    L.append(f"vllm:prompt_tokens_total{lbl(mn)} {f(sum(r['prompt'] for r in first))}")
    fam("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
    L.append(f"vllm:generation_tokens_total{lbl(mn)} {f(sum(gen_done(r, T) for r in reqs))}")

    def hist(name, help_, b, obs):
        fam(name, "histogram", help_)
        h = Hist(b)
        for v, k in obs:
            h.obs(v, k)
        for le, c in zip(h.b, h.c):
            L.append(f"{name}_bucket{lbl({**mn, 'le': f(le)})} {f(c)}")
        L.append(f"{name}_bucket{lbl({**mn, 'le': '+Inf'})} {f(h.n)}")
        L.append(f"{name}_count{lbl(mn)} {f(h.n)}")
        L.append(f"{name}_sum{lbl(mn)} {f(h.s)}")

    it = []
    for r in reqs:
        if r["t_first"] <= T:
            it.append((r["prompt"] - r.get("hit", 0), 1))
            d = gen_done(r, T) - 1
            if d > 0:
                it.append((1, d))
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", cfg.get("iter_buckets", ITER_EAGER_B), it)
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B,
         [(r["t_first"] - r["t"], 1) for r in first])
    hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B,
         [(r["tpot"], gen_done(r, T) - 1) for r in first if gen_done(r, T) > 1])
    hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", LAT_B,
         [(r["t_end"] - r["t"], 1) for r in fin])
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B,
         [(r["queue"], 1) for r in fin])
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B,
         [(r["t_end"] - r["t_sched"], 1) for r in fin])
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B,
         [(r["prefill"], 1) for r in fin])
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B,
         [(r["t_end"] - r["t_first"], 1) for r in fin])
    hist("vllm:time_in_queue_requests", "Histogram of time the request spent in the queue in seconds. DEPRECATED: use vllm:request_queue_time_seconds instead.", LAT_B,
         [(r["queue"], 1) for r in first])
    B = b125(cfg["max_model_len"])
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", B, [(r["prompt"], 1) for r in fin])
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", B, [(r["out"], 1) for r in fin])
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", B,
         [(r["max_tokens"], 1) for r in fin])
    hist("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20], [(1, 1) for r in fin])
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", B,
         [(r["max_tokens"], 1) for r in fin])
    fam("vllm:request_success_total", "counter", "Count of successfully processed requests.")
    reasons = sorted({r.get("reason", "stop") for r in fin})
    for rs in reasons:
        k = sum(1 for r in fin if r.get("reason", "stop") == rs)
        L.append(f"vllm:request_success_total{lbl({**mn, 'finished_reason': rs})} {f(k)}")
    return "\n".join(L) + "\n"


def v0_stat_logs(reqs, cfg, t0, t1, fmt_ts, prefix_line):
    """LoggingStatLogger: logs on engine steps once more than 5 s passed since the last log."""
    steps = []
    for r in reqs:
        steps.append(r["t_first"])
        k = 1
        while r["t_first"] + k * r["tpot"] <= r["t_end"] + 1e-9:
            steps.append(r["t_first"] + k * r["tpot"])
            k += 1
    steps.sort()
    out, last = [], t0
    for s in steps:
        if s - last > 5.0:
            pt = sum(r["prompt"] for r in reqs if last < r["t_first"] <= s) / (s - last)
            gt = (sum(gen_done(r, s) for r in reqs) - sum(gen_done(r, last) for r in reqs)) / (s - last)
            run = sum(1 for r in reqs if r["t_sched"] <= s < r["t_end"])
            wait = sum(1 for r in reqs if r["t"] <= s < r["t_sched"])
            used = sum(math.ceil((r["prompt"] + gen_done(r, s)) / cfg["block_size"]) for r in reqs if r["t_sched"] <= s < r["t_end"])
            ts = fmt_ts(s)
            out.append((s, f"INFO {ts} [metrics.py:486] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {100 * used / cfg['num_blocks']:.1f}%, CPU KV cache usage: 0.0%."))
            if prefix_line:
                out.append((s + 1e-6, f"INFO {ts} [metrics.py:502] {prefix_line(s)}"))
            last = s
    return out


def write_bundle(d: Path, *, reqs, cfg, t0, t1, interval, server, engine_args, model_config, logs, notes, gpu=None):
    d.mkdir(parents=True, exist_ok=True)
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": cfg.get("endpoint", "http://localhost:8000"),
           "started_at": t0, "ended_at": t1, "interval_s": float(interval), "notes": notes}
    (d / "manifest.json").write_text(json.dumps(man, indent=2) + "\n")
    lines, T = [], t0
    while T <= t1 + 1e-6:
        lines.append(json.dumps({"t": round(T, 3), "status": 200, "text": scrape(T, reqs, cfg)}))
        T += interval
    (d / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    (d / "server.json").write_text(json.dumps(server, indent=2) + "\n")
    (d / "engine_args.json").write_text(json.dumps(engine_args, indent=2) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=2) + "\n")
    if gpu is not None:
        g, T = [], t0
        while T <= t1 + 1e-6:
            g.append(json.dumps({"t": round(T, 3), "devices": gpu(T)}))
            T += interval
        (d / "gpu.jsonl").write_text("\n".join(g) + "\n")
    (d / "logs.txt").write_text("\n".join(logs) + "\n")


def check(d: Path):
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from kvdoctor.bundle.reader import read_bundle
    from prometheus_client.parser import text_string_to_metric_families
    read_bundle(str(d))
    prev = {}
    for ln in (d / "metrics.jsonl").read_text().splitlines():
        rec = json.loads(ln)
        for fm in text_string_to_metric_families(rec["text"]):
            for s in fm.samples:
                if fm.type in ("counter", "histogram"):
                    k = (s.name, tuple(sorted(s.labels.items())))
                    if k in prev and s.value < prev[k] - 1e-9:
                        raise SystemExit(f"decreasing {k} {prev[k]} -> {s.value}")
                    prev[k] = s.value
    print("ok", d)


def ts_fmt(T, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(T, dt.timezone.utc).strftime(fmt)
