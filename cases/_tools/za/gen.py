"""Bundle builder for the za-* cases (kvdoctor.bundle/1).

    cd <worktree> && python3 cases/_tools/za/gen.py

Each case is a list of simulated requests (arrival, prompt tokens, prefix-hit tokens, output
tokens, queue time, prefill time, per-token decode time); counters, histograms, gauges and the
periodic log lines are all derived from those requests.  Deterministic (seeded)."""
import json, math, os, random

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
TOK_B = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]


def names(ver):
    new = tuple(int(x) for x in ver.split(".")[:2]) >= (0, 11)
    return {
        "usage": "vllm:kv_cache_usage_perc" if new else "vllm:gpu_cache_usage_perc",
        "pq": "vllm:prefix_cache_queries" if new else "vllm:gpu_prefix_cache_queries",
        "ph": "vllm:prefix_cache_hits" if new else "vllm:gpu_prefix_cache_hits",
        "itl": new,
    }


class Hist:
    def __init__(self, b):
        self.b, self.c, self.s, self.n = b, [0] * len(b), 0.0, 0

    def add(self, v):
        self.s += v
        self.n += 1
        for i, x in enumerate(self.b):
            if v <= x:
                self.c[i] += 1

    def lines(self, name, lab):
        out = []
        for x, c in zip(self.b, self.c):
            out.append('%s_bucket{%s,le="%s"} %.1f' % (name, lab, float(x), c))
        out.append('%s_bucket{%s,le="+Inf"} %.1f' % (name, lab, self.n))
        out.append("%s_count{%s} %.1f" % (name, lab, self.n))
        out.append("%s_sum{%s} %r" % (name, lab, round(self.s, 6)))
        return out


def fam(typ, name, help_, lines):
    return ["# HELP %s %s" % (name, help_), "# TYPE %s %s" % (name, typ)] + lines


def build(case):
    random.seed(case["seed"])
    N = names(case["version"])
    lab = 'engine="0",model_name="%s"' % case["served"]
    reqs = case["requests"]  # dicts: t, p, hit, out, q, pre, tpot, preempt
    for r in reqs:
        r["first"] = r["t"] + r["q"] + r["pre"]
        r["end"] = r["first"] + r["tpot"] * max(r["out"] - 1, 0)
    t0, iv, n = case["t0"], case["interval"], case["scrapes"]
    created = t0 - 300.0
    metrics, logs = [], list(case["startup_logs"])
    prev = {"p": 0, "g": 0, "q": 0, "h": 0}
    for k in range(n):
        t = t0 + k * iv
        done = [r for r in reqs if r["end"] <= t]
        started = [r for r in reqs if r["first"] <= t]
        sched = [r for r in reqs if r["t"] + r["q"] <= t]
        running = [r for r in reqs if r["t"] + r["q"] <= t < r["end"]]
        waiting = [r for r in reqs if r["t"] <= t < r["t"] + r["q"]]
        prompt_tok = sum(r["p"] for r in sched)
        qtok = sum(r["p"] for r in sched)
        htok = sum(r["hit"] for r in sched)
        gen = 0
        for r in reqs:
            if r["first"] <= t:
                gen += min(r["out"], 1 + int((t - r["first"]) / r["tpot"]) if r["tpot"] > 0 else r["out"])
        usage = case["usage_fn"](t, running, waiting)
        ttft, e2e, qh, tpot, pt, gt, pre_h = (Hist(TTFT_B), Hist(LAT_B), Hist(LAT_B), Hist(TPOT_B),
                                              Hist(TOK_B), Hist(TOK_B), Hist(LAT_B))
        for r in started:
            ttft.add(r["first"] - r["t"])
        for r in sched:
            qh.add(r["q"])
        for r in done:
            e2e.add(r["end"] - r["t"])
            pt.add(r["p"])
            gt.add(r["out"])
            pre_h.add(r["pre"])
            for _ in range(max(r["out"] - 1, 0)):
                tpot.add(r["tpot"])
        preempt = sum(r.get("preempt", 0) for r in sched)
        L = []
        L += fam("gauge", "vllm:num_requests_running", "Number of requests in model execution batches.", ["vllm:num_requests_running{%s} %.1f" % (lab, len(running))])
        L += fam("gauge", "vllm:num_requests_waiting", "Number of requests waiting to be processed.", ["vllm:num_requests_waiting{%s} %.1f" % (lab, len(waiting))])
        L += fam("gauge", N["usage"], "KV-cache usage. 1 means 100 percent usage.", ["%s{%s} %r" % (N["usage"], lab, round(usage, 6))])
        L += fam("counter", N["pq"] + "_total", "Prefix cache queries, in terms of number of queried tokens.", ["%s_total{%s} %.1f" % (N["pq"], lab, qtok)])
        L += fam("counter", N["ph"] + "_total", "Prefix cache hits, in terms of number of cached tokens.", ["%s_total{%s} %.1f" % (N["ph"], lab, htok)])
        if case.get("mm"):
            L += fam("counter", "vllm:mm_cache_queries_total", "Multi-modal cache queries, in terms of number of queried items.", ["vllm:mm_cache_queries_total{%s} 0.0" % lab])
            L += fam("counter", "vllm:mm_cache_hits_total", "Multi-modal cache hits, in terms of number of cached items.", ["vllm:mm_cache_hits_total{%s} 0.0" % lab])
        L += fam("counter", "vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", ["vllm:num_preemptions_total{%s} %.1f" % (lab, preempt)])
        L += fam("counter", "vllm:prompt_tokens_total", "Number of prefill tokens processed.", ["vllm:prompt_tokens_total{%s} %.1f" % (lab, prompt_tok)])
        L += fam("counter", "vllm:generation_tokens_total", "Number of generation tokens processed.", ["vllm:generation_tokens_total{%s} %.1f" % (lab, gen)])
        L += fam("counter", "vllm:request_success_total", "Count of successfully processed requests.",
                 ['vllm:request_success_total{%s,finished_reason="%s"} %.1f' % (lab, fr, len(done) if fr == case.get("finish", "length") else 0)
                  for fr in ("stop", "length", "abort")])
        L += fam("histogram", "vllm:request_prompt_tokens", "Number of prefill tokens processed.", pt.lines("vllm:request_prompt_tokens", lab))
        L += fam("histogram", "vllm:request_generation_tokens", "Number of generation tokens processed.", gt.lines("vllm:request_generation_tokens", lab))
        L += fam("histogram", "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttft.lines("vllm:time_to_first_token_seconds", lab))
        L += fam("histogram", "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", tpot.lines("vllm:time_per_output_token_seconds", lab))
        if N["itl"]:
            L += fam("histogram", "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", tpot.lines("vllm:inter_token_latency_seconds", lab))
        L += fam("histogram", "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", e2e.lines("vllm:e2e_request_latency_seconds", lab))
        L += fam("histogram", "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", qh.lines("vllm:request_queue_time_seconds", lab))
        L += fam("histogram", "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", pre_h.lines("vllm:request_prefill_time_seconds", lab))
        ci = ",".join('%s="%s"' % kv for kv in sorted(case["cache_config"].items()))
        L += fam("gauge", "vllm:cache_config_info", "Information of the LLMEngine CacheConfig", ["vllm:cache_config_info{%s} 1.0" % ci])
        metrics.append({"t": t, "status": 200, "text": "\n".join(L) + "\n"})
        # periodic stats line, as the release prints it every ~10 s
        if k > 0 and (t - t0) % 10 < iv:
            dt = 10.0 if iv <= 10 else iv
            ptp = (prompt_tok - prev["p"]) / dt
            gtp = (gen - prev["g"]) / dt
            dq, dh = qtok, htok  # the logged rate covers recent requests (cumulative here)
            rate = 100.0 * dh / dq if dq else 0.0
            line = case["logfmt"](t, ptp, gtp, len(running), len(waiting), usage, rate)
            logs.append(line)
            prev = {"p": prompt_tok, "g": gen, "q": qtok, "h": htok}
        for r in reqs:
            if t - iv < r["t"] <= t and case.get("req_log"):
                logs.extend(case["req_log"](r))
    d = os.path.join(ROOT, case["id"], "bundle")
    os.makedirs(d, exist_ok=True)
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": case["endpoint"],
           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv, "notes": case["notes"]}
    json.dump(man, open(os.path.join(d, "manifest.json"), "w"), indent=1)
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for m in metrics:
            f.write(json.dumps(m) + "\n")
    json.dump({"version": {"version": case["version"]},
               "models": {"object": "list", "data": [{"id": case["served"], "object": "model", "created": int(t0 - 200),
                                                       "owned_by": "vllm", "root": case["model_path"], "parent": None,
                                                       "max_model_len": case["max_model_len"]}]},
               "health": 200}, open(os.path.join(d, "server.json"), "w"), indent=1)
    json.dump({"argv": case["argv"], "args": case["args"]}, open(os.path.join(d, "engine_args.json"), "w"), indent=1)
    json.dump(case["model_config"], open(os.path.join(d, "model_config.json"), "w"), indent=1)
    if case.get("gpu"):
        with open(os.path.join(d, "gpu.jsonl"), "w") as f:
            for k in range(n):
                f.write(json.dumps({"t": t0 + k * iv, "devices": case["gpu"]}) + "\n")
    with open(os.path.join(d, "logs.txt"), "w") as f:
        f.write("\n".join(logs) + "\n")


def hms(t):
    import time
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


def v1log(pid="APIServer pid=1", mm=False, lineno=215):
    def f(t, ptp, gtp, run, wait, usage, rate):
        s = "(%s) INFO %s [loggers.py:%d] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (
            pid, hms(t), lineno, ptp, gtp, run, wait, usage * 100, rate)
        if mm:
            s += ", MM cache hit rate: 0.0%"
        return s
    return f
