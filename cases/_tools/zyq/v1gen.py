"""V1 bundle builder (kvdoctor.bundle/1), copied from writer zyb's cases/_tools/zyb/gen.py and adapted by zyq
(option `v09`: the 0.9 line exports only the vllm:gpu_* cache families, with HELP strings of that line).

Requests are given explicitly (arrival, engine, prompt tokens, prefix-cache hit tokens, output
tokens, prefill seconds, seconds per output token); there is no queueing model, so cases must keep
concurrency below max_num_seqs and the pool. Every counter, histogram, gauge and stats log line is
computed from that one request list, so they agree and cumulative series never decrease.

Metric families, HELP strings, label names and bucket layouts are those of
vllm/v1/metrics/loggers.py (PrometheusStatLogger, read from the vLLM repository via read_file,
commit 005a810bc40f, 0.10/0.11 line): model_name + engine labels, counters exposed with _total,
build_1_2_5_buckets(max_model_len) for token histograms. The deprecated vllm:gpu_* families are
written only for releases that still export them (flag `legacy_gpu`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
PFT_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
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


def fnum(v):
    if isinstance(v, float) and v.is_integer():
        return f"{v:.1f}"
    return repr(float(v)) if isinstance(v, float) else f"{float(v):.1f}"


class Hist:
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * len(self.b)
        self.n = 0
        self.s = 0.0

    def obs(self, v, k=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.c[i] += k
        self.n += k
        self.s += v * k


def _lbl(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


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


def scrape(T, reqs, cfg):
    mn = cfg["model_name"]
    engines = cfg.get("engines", 1)
    mml = cfg["max_model_len"]
    nb = cfg["num_blocks"]
    bs = cfg["block_size"]
    L = []

    def fam(name, typ, help_):
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} {typ}")

    per = []
    for e in range(engines):
        rs = [r for r in reqs if r["engine"] == e]
        st = {}
        st["running"] = sum(1 for r in rs if r["t_sched"] <= T < r["t_end"] or (r["t_sched"] <= T and r["out"] <= 1 and T < r["t_first"]))
        st["waiting"] = sum(1 for r in rs if r["t"] <= T < r["t_sched"])
        used = 0
        for r in rs:
            if r["t_sched"] <= T < max(r["t_end"], r["t_first"]):
                used += math.ceil((r["prompt"] + gen_done(r, T)) / bs)
        st["kv"] = min(1.0, used / nb)
        sched = [r for r in rs if r["t_sched"] <= T]
        st["q"] = 0 if cfg.get("caching_off") else sum(r["prompt"] for r in sched)
        st["h"] = sum(r["hit"] for r in sched)
        first = [r for r in rs if r["t_first"] <= T]
        st["prompt_tok"] = sum(r["prompt"] for r in first)
        st["gen_tok"] = sum(gen_done(r, T) for r in rs)
        fin = [r for r in rs if r["t_end"] <= T and r["t_first"] <= T]
        st["fin"] = fin
        st["preempt"] = 0
        per.append(st)

    lab = lambda e: {"model_name": mn, "engine": str(e)}
    fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
    for e, st in enumerate(per):
        L.append(f"vllm:num_requests_running{{{_lbl(lab(e))}}} {fnum(float(st['running']))}")
    fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
    for e, st in enumerate(per):
        L.append(f"vllm:num_requests_waiting{{{_lbl(lab(e))}}} {fnum(float(st['waiting']))}")
    if cfg.get("v09"):
        fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_cache_usage_perc{{{_lbl(lab(e))}}} {st['kv']!r}")
        fam("vllm:gpu_prefix_cache_queries_total", "counter", "GPU prefix cache queries, in terms of number of queried tokens.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_prefix_cache_queries_total{{{_lbl(lab(e))}}} {fnum(float(st['q']))}")
        fam("vllm:gpu_prefix_cache_hits_total", "counter", "GPU prefix cache hits, in terms of number of cached tokens.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_prefix_cache_hits_total{{{_lbl(lab(e))}}} {fnum(float(st['h']))}")
    if cfg.get("legacy_gpu"):
        fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_cache_usage_perc{{{_lbl(lab(e))}}} {st['kv']!r}")
        fam("vllm:gpu_prefix_cache_queries_total", "counter", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_prefix_cache_queries_total{{{_lbl(lab(e))}}} {fnum(float(st['q']))}")
        fam("vllm:gpu_prefix_cache_hits_total", "counter", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.")
        for e, st in enumerate(per):
            L.append(f"vllm:gpu_prefix_cache_hits_total{{{_lbl(lab(e))}}} {fnum(float(st['h']))}")
    if not cfg.get("v09"):
        fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.")
        for e, st in enumerate(per):
            L.append(f"vllm:kv_cache_usage_perc{{{_lbl(lab(e))}}} {st['kv']!r}")
        fam("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.")
        for e, st in enumerate(per):
            L.append(f"vllm:prefix_cache_queries_total{{{_lbl(lab(e))}}} {fnum(float(st['q']))}")
        fam("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.")
        for e, st in enumerate(per):
            L.append(f"vllm:prefix_cache_hits_total{{{_lbl(lab(e))}}} {fnum(float(st['h']))}")
    fam("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.")
    for e, st in enumerate(per):
        L.append(f"vllm:num_preemptions_total{{{_lbl(lab(e))}}} {fnum(float(st['preempt']))}")
    fam("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.")
    for e, st in enumerate(per):
        L.append(f"vllm:prompt_tokens_total{{{_lbl(lab(e))}}} {fnum(float(st['prompt_tok']))}")
    fam("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
    for e, st in enumerate(per):
        L.append(f"vllm:generation_tokens_total{{{_lbl(lab(e))}}} {fnum(float(st['gen_tok']))}")
    fam("vllm:request_success_total", "counter", "Count of successfully processed requests.")
    for e, st in enumerate(per):
        for reason in ("stop", "length", "abort"):
            k = sum(1 for r in st["fin"] if r.get("reason", "length") == reason)
            L.append(f"vllm:request_success_total{{{_lbl({**lab(e), 'finished_reason': reason})}}} {fnum(float(k))}")

    def hist(name, help_, buckets, getter, each_fin=True):
        fam(name, "histogram", help_)
        for e, st in enumerate(per):
            h = Hist(buckets)
            for r in (st["fin"] if each_fin else [r for r in reqs if r["engine"] == e and r["t_first"] <= T]):
                for v, k in getter(r):
                    h.obs(v, k)
            lb = lab(e)
            for le, c in zip(h.b, h.c):
                L.append(f"{name}_bucket{{{_lbl({**lb, 'le': fnum(float(le))})}}} {fnum(float(c))}")
            L.append(f"{name}_bucket{{{_lbl({**lb, 'le': '+Inf'})}}} {fnum(float(h.n))}")
            L.append(f"{name}_count{{{_lbl(lb)}}} {fnum(float(h.n))}")
            L.append(f"{name}_sum{{{_lbl(lb)}}} {h.s!r}")

    B = b125(mml)
    hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", B, lambda r: [(r["prompt"], 1)])
    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", B, lambda r: [(r["out"], 1)])
    hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITER_B,
         lambda r: [(r["prompt"] - r["hit"] + 1, 1)] + ([(1, r["out"] - 1)] if r["out"] > 1 else []))
    hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", B, lambda r: [(r.get("max_tokens", r["out"]), 1)])
    hist("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20], lambda r: [(1, 1)])
    hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", B, lambda r: [(r.get("max_tokens", r["out"]), 1)])
    hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B,
         lambda r: [(r["t_first"] - r["t"], 1)], each_fin=False)
    hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B,
         lambda r: [(r["tpot"], r["out"] - 1)] if r["out"] > 1 else [])
    hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", PFT_B,
         lambda r: [(r["prefill"] / r["prompt"], 1)])
    hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B, lambda r: [(r["t_end"] - r["t"], 1)])
    hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B, lambda r: [(r["queue"], 1)])
    hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B, lambda r: [(r["t_end"] - r["t_sched"], 1)])
    hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B, lambda r: [(r["prefill"], 1)])
    hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B, lambda r: [(r["t_end"] - r["t_first"], 1)])
    if cfg.get("lora_info"):
        fam("vllm:lora_requests_info", "gauge", "Running stats on lora requests.")
        run = sorted({r["lora"] for r in reqs if r.get("lora") and r["t_sched"] <= T < r["t_end"]})
        L.append(f'vllm:lora_requests_info{{max_lora="{cfg["lora_info"]}",running_lora_adapters="{",".join(run)}",waiting_lora_adapters=""}} {T!r}')
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    for e in range(engines):
        L.append(f"vllm:cache_config_info{{{_lbl({**cfg['cache_labels'], 'engine': str(e)})}}} 1.0")
    for extra in cfg.get("extra", []):
        L.extend(extra(T, reqs))
    return "\n".join(L) + "\n"


def stats_logs(reqs, cfg, t0, t1, every=10.0):
    """Per-engine LoggingStatLogger lines; hit rate over the last 1000 requests (PrefixCachingMetrics)."""
    import datetime as dt
    out = []
    engines = cfg.get("engines", 1)
    last = {e: (0.0, 0.0) for e in range(engines)}
    T = t0 + every
    while T <= t1 + 1e-6:
        for e in range(engines):
            rs = [r for r in reqs if r["engine"] == e]
            pt = sum(r["prompt"] for r in rs if T - every < r["t_first"] <= T) / every
            gt = (sum(gen_done(r, T) for r in rs) - sum(gen_done(r, T - every) for r in rs)) / every
            if not any((pt, gt) + last[e]):
                continue
            last[e] = (pt, gt)
            sched = [r for r in rs if r["t_sched"] <= T][-1000:]
            q = sum(r["prompt"] for r in sched)
            h = sum(r["hit"] for r in sched)
            run = sum(1 for r in rs if r["t_sched"] <= T < r["t_end"])
            wait = sum(1 for r in rs if r["t"] <= T < r["t_sched"])
            used = sum(math.ceil((r["prompt"] + gen_done(r, T)) / cfg["block_size"]) for r in rs if r["t_sched"] <= T < r["t_end"])
            ts = dt.datetime.fromtimestamp(T, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
            out.append((T, cfg["log_prefix"](e) + f"INFO {ts} [loggers.py:{cfg.get('log_lineno', 123)}] Engine {e:03d}: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {100*used/cfg['num_blocks']:.1f}%, Prefix cache hit rate: {(100*h/q if q else 0.0):.1f}%"))
        T += every
    return out


def write_bundle(d: Path, *, reqs, cfg, t0, t1, interval, server, engine_args, model_config, gpu, logs_head, extra_logs=(), notes="", prompts=None, endpoint="http://vllm:8000"):
    d.mkdir(parents=True, exist_ok=True)
    for r in reqs:
        timeline(r)
    reqs.sort(key=lambda r: r["t"])
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": t0, "ended_at": t1, "interval_s": float(interval), "notes": notes}
    (d / "manifest.json").write_text(json.dumps(man, indent=2) + "\n")
    lines = []
    T = t0
    while T <= t1 + 1e-6:
        lines.append(json.dumps({"t": round(T, 3), "status": 200, "text": scrape(T, reqs, cfg)}))
        T += interval
    (d / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    if server is not None:
        (d / "server.json").write_text(json.dumps(server, indent=2) + "\n")
    if engine_args is not None:
        (d / "engine_args.json").write_text(json.dumps(engine_args, indent=2) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=2) + "\n")
    if gpu is not None:
        g = []
        T = t0
        while T <= t1 + 1e-6:
            g.append(json.dumps({"t": round(T, 3), "devices": gpu(T)}))
            T += interval
        (d / "gpu.jsonl").write_text("\n".join(g) + "\n")
    logs = stats_logs(reqs, cfg, t0 - 60.0 if cfg.get("log_before") else t0, t1) + list(extra_logs)
    logs.sort(key=lambda x: x[0])
    (d / "logs.txt").write_text("\n".join(list(logs_head) + [l for _, l in logs]) + "\n")
    if prompts is not None:
        (d.parent / "prompts.jsonl").write_text("\n".join(json.dumps(p) for p in prompts) + "\n")


def check(d: Path):
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from kvdoctor.bundle.reader import read_bundle
    from prometheus_client.parser import text_string_to_metric_families
    read_bundle(str(d))
    prev = {}
    for ln in (d / "metrics.jsonl").read_text().splitlines():
        rec = json.loads(ln)
        for f in text_string_to_metric_families(rec["text"]):
            for s in f.samples:
                if f.type in ("counter", "histogram") and not s.name.endswith("_created"):
                    k = (s.name, tuple(sorted(s.labels.items())))
                    if k in prev and s.value < prev[k] - 1e-9:
                        raise SystemExit(f"decreasing {k} {prev[k]} -> {s.value}")
                    prev[k] = s.value
    print("ok", d)
