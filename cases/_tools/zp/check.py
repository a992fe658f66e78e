"""Format checks of the zp-* bundles (no diagnosis): read_bundle, exposition parse, counters
monotonic, and a few window numbers.

    /work/main/.venv/bin/python cases/_tools/zp/check.py
"""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402  (format check only, as the brief asks)


def samples(text):
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            key = s.name + json.dumps(sorted(s.labels.items()))
            out[key] = (s.name, s.labels, s.value)
    return out


def main():
    for d in sorted((ROOT / "cases").glob("zp-*/bundle")):
        read_bundle(str(d))
        recs = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
        prev = None
        for r in recs:
            cur = samples(r["text"])
            if prev:
                for k, (name, labels, v) in cur.items():
                    if (name.endswith("_total") or name.endswith("_count") or name.endswith("_bucket")) and k in prev:
                        assert v + 1e-9 >= prev[k][2], (d, k, prev[k][2], v)
            prev = cur

        def g(rec, name):
            vals = [v for n, l, v in samples(rec["text"]).values() if n == name]
            return vals[0] if vals else None

        first, last = recs[0], recs[-1]
        def hmean(name):
            s1 = (g(last, name + "_sum") or 0) - (g(first, name + "_sum") or 0)
            c1 = (g(last, name + "_count") or 0) - (g(first, name + "_count") or 0)
            return round(s1 / c1, 3) if c1 else None
        run = [g(r, "vllm:num_requests_running") for r in recs]
        wait = [g(r, "vllm:num_requests_waiting") for r in recs]
        kv = [g(r, "vllm:gpu_cache_usage_perc") if g(r, "vllm:gpu_cache_usage_perc") is not None
              else g(r, "vllm:kv_cache_usage_perc") for r in recs]
        pre = [g(r, "vllm:num_preemptions_total") for r in recs]
        print(d.parent.name, "scrapes", len(recs), "running max", max(run), "waiting max", max(wait),
              "kv max", round(max(kv), 3), "preempt", pre[0], "->", pre[-1],
              "ttft mean", hmean("vllm:time_to_first_token_seconds"),
              "tpot mean", hmean("vllm:time_per_output_token_seconds") or hmean("vllm:inter_token_latency_seconds"))
    print("ok")


if __name__ == "__main__":
    main()
