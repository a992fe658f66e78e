"""Format check only: read_bundle and the Prometheus parser; cumulative series never decrease."""
import json
import sys

from kvdoctor.bundle.reader import read_bundle
from prometheus_client.parser import text_string_to_metric_families as parse

for cid in sys.argv[1:]:
    read_bundle(f"cases/{cid}/bundle")
    prev = {}
    for line in open(f"cases/{cid}/bundle/metrics.jsonl"):
        s = json.loads(line)
        if "text" not in s:
            continue
        for f in parse(s["text"]):
            for x in f.samples:
                k = (x.name, tuple(sorted(x.labels.items())))
                if f.type in ("counter", "histogram") and k in prev and x.value < prev[k]:
                    print("DECREASE", cid, k)
                prev[k] = x.value
    print(cid, "ok")
