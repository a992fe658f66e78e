"""Format checks of the ze-* bundles: reader parses, every scrape parses as Prometheus text, counters monotonic.
Run from the worktree root with /work/main/.venv/bin/python."""
import json, sys
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

root = Path(__file__).resolve().parents[2]
for d in sorted(root.glob("ze-*/bundle")):
    read_bundle(str(d))
    prev = {}
    for line in (d / "metrics.jsonl").read_text().splitlines():
        r = json.loads(line)
        for fam in text_string_to_metric_families(r["text"]):
            for s in fam.samples:
                if s.name.endswith("_total") or s.name.endswith("_count") or s.name.endswith("_bucket"):
                    k = (s.name, tuple(sorted(s.labels.items())))
                    assert s.value >= prev.get(k, 0) - 1e-9, (d, k, s.value, prev.get(k))
                    prev[k] = s.value
    print("ok", d.parent.name)
