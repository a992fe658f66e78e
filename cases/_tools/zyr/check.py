"""Format check for zyr bundles: read_bundle, Prometheus parse, cumulative series never decrease."""
import json
import sys

from kvdoctor.bundle.reader import read_bundle
from prometheus_client.parser import text_string_to_metric_families

for case in sys.argv[1:]:
    path = "cases/%s/bundle" % case
    read_bundle(path)
    prev = {}
    n = 0
    with open(path + "/metrics.jsonl") as f:
        for line in f:
            rec = json.loads(line)
            if "text" not in rec:
                continue
            n += 1
            for fam in text_string_to_metric_families(rec["text"]):
                for s in fam.samples:
                    cum = fam.type in ("counter", "histogram") and not s.name.endswith("_created")
                    if not cum:
                        continue
                    key = (s.name, tuple(sorted(s.labels.items())))
                    if key in prev and s.value < prev[key] - 1e-9:
                        raise SystemExit("%s: %s decreased at t=%s" % (case, key, rec["t"]))
                    prev[key] = s.value
    print(case, "ok", n, "scrapes", len(prev), "cumulative series")
