"""Format checks for the zl-* bundles (read_bundle + Prometheus parse) and a numeric summary."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402

for cid in ("zl-kv-prealloc-62gib-pool-idle", "zl-bench-aiohttp-50k-minimax", "zl-pd-1p1d-ttft-metrics-disagree"):
    b = ROOT / "cases" / cid / "bundle"
    read_bundle(str(b))
    recs = [json.loads(l) for l in (b / "metrics.jsonl").read_text().splitlines()]
    mx = {}
    for r in recs:
        for f in text_string_to_metric_families(r["text"]):
            for s in f.samples:
                if s.name in ("vllm:kv_cache_usage_perc", "vllm:num_requests_running", "vllm:num_requests_waiting"):
                    mx[s.name] = max(mx.get(s.name, 0), s.value)
    last = {s.name: s.value for f in text_string_to_metric_families(recs[-1]["text"]) for s in f.samples if "le" not in s.labels}
    first = {s.name: s.value for f in text_string_to_metric_families(recs[0]["text"]) for s in f.samples if "le" not in s.labels}
    d = lambda n: last.get(n, 0) - first.get(n, 0)
    print(cid, len(recs), "scrapes", mx,
          "ttft mean %.3f" % (d("vllm:time_to_first_token_seconds_sum") / max(1, d("vllm:time_to_first_token_seconds_count"))),
          "gen tok/s %.1f" % (d("vllm:generation_tokens_total") / (recs[-1]["t"] - recs[0]["t"])),
          "preempt", d("vllm:num_preemptions_total"))
