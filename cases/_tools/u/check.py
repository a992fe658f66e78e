"""Format checks of the u-* bundles (reader + Prometheus exposition), no diagnosis."""
import json, sys
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle
for cid in sys.argv[1:]:
    b = Path("cases") / cid / "bundle"
    read_bundle(str(b))
    for ln in (b / "metrics.jsonl").read_text().splitlines():
        list(text_string_to_metric_families(json.loads(ln)["text"]))
    print("ok", cid)
