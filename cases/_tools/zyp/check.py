"""Format check for zyk bundles: reader parses, every text parses as Prometheus
exposition, cumulative series never decrease. Usage: check.py <bundle> [...]"""
import json
import sys
from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

for path in sys.argv[1:]:
    read_bundle(path)
    prev = {}
    bad = 0
    n = 0
    for line in open(f"{path}/metrics.jsonl"):
        rec = json.loads(line)
        if "text" not in rec:
            continue
        n += 1
        for fam in text_string_to_metric_families(rec["text"]):
            if fam.type not in ("counter", "histogram"):
                continue
            for s in fam.samples:
                if fam.type == "histogram" and not (s.name.endswith("_bucket") or s.name.endswith("_sum") or s.name.endswith("_count")):
                    continue
                key = (s.name, tuple(sorted(s.labels.items())))
                if key in prev and s.value < prev[key] - 1e-9:
                    bad += 1
                    if bad < 5:
                        print("DECREASE", key, prev[key], s.value)
                prev[key] = s.value
    print(path, "ok scrapes", n, "decreases", bad)
