"""Writer zys: checks that every cumulative series (counters, buckets, _sum, _count) never decreases."""
import json
import sys
from prometheus_client.parser import text_string_to_metric_families

prev = {}
bad = 0
for ln in open(sys.argv[1]):
    rec = json.loads(ln)
    if "text" not in rec:
        continue
    for f in text_string_to_metric_families(rec["text"]):
        if f.type not in ("counter", "histogram"):
            continue
        for s in f.samples:
            if s.name.endswith("_created"):
                continue
            k = (s.name, tuple(sorted(s.labels.items())))
            if k in prev and s.value < prev[k] - 1e-9:
                bad += 1
                print("decrease", k, prev[k], s.value, rec["t"])
            prev[k] = s.value
print("decreases:", bad)
