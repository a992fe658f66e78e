"""Format checks of the n-* bundles: reader parses, every scrape parses as Prometheus text, summary numbers."""
import glob, json, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # format check allowed by the brief
from prometheus_client.parser import text_string_to_metric_families

for d in sorted(glob.glob(str(ROOT / "cases/n-*/bundle"))):
    read_bundle(d)
    rows = [json.loads(l) for l in open(Path(d) / "metrics.jsonl")]
    for r in rows:
        list(text_string_to_metric_families(r["text"]))
    def val(text, name):
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                if s.name == name:
                    return s.value
    a, b = rows[0]["text"], rows[-1]["text"]
    q = val(b, "vllm:prefix_cache_queries_total") - val(a, "vllm:prefix_cache_queries_total")
    h = val(b, "vllm:prefix_cache_hits_total") - val(a, "vllm:prefix_cache_hits_total")
    n = val(b, "vllm:time_to_first_token_seconds_count") - val(a, "vllm:time_to_first_token_seconds_count")
    ts = val(b, "vllm:time_to_first_token_seconds_sum") - val(a, "vllm:time_to_first_token_seconds_sum")
    print(Path(d).parent.name, len(rows), "scrapes", "q", int(q), "hits", int(h), "rate %.3f" % (h / q if q else 0), "ttft_n", int(n), "ttft_mean %.3f" % (ts / n if n else 0))
