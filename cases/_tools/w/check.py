"""Format check of the w-* bundles: reader + Prometheus exposition parse."""
import json, sys
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402
for c in sys.argv[1:]:
    read_bundle(str(ROOT / "cases" / c / "bundle"))
    n = 0
    for line in (ROOT / "cases" / c / "bundle" / "metrics.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "text" in r:
            list(text_string_to_metric_families(r["text"])); n += 1
    print(c, "ok", n, "scrapes")
