"""Format check of writer zxl's bundles: kvdoctor's reader and the Prometheus text parser."""
import json
import sys
from pathlib import Path

from kvdoctor.bundle.reader import read_bundle
from prometheus_client.parser import text_string_to_metric_families

for cid in sys.argv[1:]:
    p = Path("cases") / cid / "bundle"
    read_bundle(str(p))
    n = 0
    for line in (p / "metrics.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if "text" in rec:
            list(text_string_to_metric_families(rec["text"]))
            n += 1
    print(cid, "ok", n, "texts parsed")
