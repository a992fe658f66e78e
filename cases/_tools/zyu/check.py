"""zyu: format check of a bundle (read_bundle + Prometheus parser + counters monotonic)."""
import json, re, sys
from kvdoctor.bundle.reader import read_bundle
from prometheus_client.parser import text_string_to_metric_families
d = sys.argv[1]
read_bundle(d)
prev = {}
for line in open(d + "/metrics.jsonl"):
    s = json.loads(line)
    if "text" not in s:
        continue
    list(text_string_to_metric_families(s["text"]))
    for l in s["text"].splitlines():
        if l.startswith("#"):
            continue
        k, v = l.rsplit(" ", 1)
        if re.search(r"(_total|_bucket|_sum|_count)\{", k):
            if float(v) < prev.get(k, 0) - 1e-9:
                print("DECREASE", k, prev[k], v)
            prev[k] = float(v)
print("ok", d)
