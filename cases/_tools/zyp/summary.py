"""Window numbers of a bundle, read back from metrics.jsonl and logs.txt (used to check
the case texts; not a diagnosis). Usage: summary.py <bundle> [engine]"""
import json
import re
import sys
from prometheus_client.parser import text_string_to_metric_families

path = sys.argv[1]
rows = [json.loads(l) for l in open(path + "/metrics.jsonl")]


def fams(text):
    out = {}
    for f in text_string_to_metric_families(text):
        for s in f.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


first, last = fams(rows[0]["text"]), fams(rows[-1]["text"])


def hist_q(name, qs, eng=None):
    def b(fm):
        d = {}
        for l, v in fm.get(name + "_bucket", []):
            if eng is not None and l.get("engine") != eng:
                continue
            le = float(l["le"])
            d[le] = d.get(le, 0) + v
        return d
    a, z = b(first), b(last)
    les = sorted(z)
    delta = [(le, z[le] - a.get(le, 0)) for le in les]
    tot = delta[-1][1]
    res = []
    for q in qs:
        prev = 0.0
        for le, c in delta:
            if c >= q * tot:
                res.append(le)
                break
    return tot, res


for n in ["vllm:time_to_first_token_seconds", "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
          "vllm:time_per_output_token_seconds", "vllm:e2e_request_latency_seconds"]:
    print(n, "count, p50/p95 bucket upper bounds:", hist_q(n, [0.5, 0.95]))
mx = {}
for r in rows:
    f = fams(r["text"])
    for g in ["vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"]:
        for l, v in f.get(g, []):
            k = (g, l.get("engine"))
            mx[k] = max(mx.get(k, 0), v)
print("max gauges", mx)
for c in ["vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total"]:
    print(c, [(l.get("engine"), v) for l, v in last.get(c, [])], "first", [v for l, v in first.get(c, [])])
pts = [float(m.group(1)) for m in re.finditer(r"Avg prompt throughput: ([0-9.]+)", open(path + "/logs.txt").read())]
if pts:
    print("log prompt throughput max %.1f, lines %d" % (max(pts), len(pts)))
