"""Format checks for the zn-* bundles (read_bundle + Prometheus parse) and a numeric summary (not a diagnosis)."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402

IDS = ("zn-l4-agentic-95pct-reuse-6pct-gain", "zn-l4-multiturn-apc-decode-bound",
       "zn-ascend-qwen35-9b-1024n-last-block", "zn-librechat-gguf70b-turn2-reprefill")

for cid in IDS:
    b = ROOT / "cases" / cid / "bundle"
    read_bundle(str(b))
    recs = [json.loads(l) for l in (b / "metrics.jsonl").read_text().splitlines()]
    mx = {}
    for r in recs:
        for f in text_string_to_metric_families(r["text"]):
            for s in f.samples:
                if s.name in ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "vllm:num_requests_running",
                              "vllm:num_requests_waiting", "vllm:gpu_prefix_cache_hit_rate"):
                    mx[s.name] = round(max(mx.get(s.name, 0), s.value), 4)
    last = {s.name: s.value for f in text_string_to_metric_families(recs[-1]["text"]) for s in f.samples if "le" not in s.labels}
    first = {s.name: s.value for f in text_string_to_metric_families(recs[0]["text"]) for s in f.samples if "le" not in s.labels}
    d = lambda n: last.get(n, 0) - first.get(n, 0)
    q, h = d("vllm:prefix_cache_queries_total"), d("vllm:prefix_cache_hits_total")
    print(cid, len(recs), "scrapes", mx,
          "ttft mean %.3f" % (d("vllm:time_to_first_token_seconds_sum") / max(1, d("vllm:time_to_first_token_seconds_count"))),
          "e2e mean %.3f" % (d("vllm:e2e_request_latency_seconds_sum") / max(1, d("vllm:e2e_request_latency_seconds_count"))),
          "gen tok/s %.1f" % (d("vllm:generation_tokens_total") / (recs[-1]["t"] - recs[0]["t"])),
          "hit ratio %s" % (round(h / q, 4) if q else "n/a"))
