"""Format check: reader parses, texts parse as Prometheus, cumulative series never decrease."""
import json
import sys
from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

for path in sys.argv[1:]:
    read_bundle(path)
    prev, bad, n = {}, 0, 0
    for line in open(f"{path}/metrics.jsonl"):
        rec = json.loads(line)
        if "text" not in rec:
            continue
        n += 1
        for fm in text_string_to_metric_families(rec["text"]):
            if fm.type not in ("counter", "histogram"):
                continue
            for s in fm.samples:
                if not (s.name.endswith(("_bucket", "_sum", "_count", "_total"))):
                    continue
                k = (s.name, tuple(sorted(s.labels.items())))
                if k in prev and s.value < prev[k] - 1e-9:
                    bad += 1
                    print("DECREASE", k, prev[k], s.value)
                prev[k] = s.value
    print(path, "scrapes", n, "decreases", bad)
