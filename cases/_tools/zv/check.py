"""Format checks only (as the brief asks): read_bundle + every scrape parses as Prometheus exposition."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402

ids = sys.argv[1:] or sorted(p.name for p in (ROOT / "cases").glob("zv-*"))
for cid in ids:
    b = ROOT / "cases" / cid / "bundle"
    read_bundle(str(b))
    n = 0
    for line in (b / "metrics.jsonl").open():
        r = json.loads(line)
        list(text_string_to_metric_families(r["text"]))
        n += 1
    print(cid, "ok", n, "scrapes")
