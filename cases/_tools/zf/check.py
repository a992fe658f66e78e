"""Format check for the zf-* bundles: read_bundle and Prometheus parse of every scrape."""
import json, sys
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

for cid in sys.argv[1:]:
    b = Path("cases") / cid / "bundle"
    read_bundle(str(b))
    n = 0
    for ln in (b / "metrics.jsonl").read_text().splitlines():
        r = json.loads(ln)
        if "text" in r:
            list(text_string_to_metric_families(r["text"])); n += 1
    print("ok", cid, n, "scrapes")
