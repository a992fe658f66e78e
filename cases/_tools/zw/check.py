"""Format checks of the zw-* bundles (no diagnosis): read_bundle, exposition parse, counters
monotonic, and the window numbers the case.yaml rationales quote.

    /work/main/.venv/bin/python cases/_tools/zw/check.py
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
            out[s.name + json.dumps(sorted(s.labels.items()))] = (s.name, s.labels, s.value)
    return out


def g(smp, name):
    v = [x[2] for x in smp.values() if x[0] == name]
    return v[0] if v else None


def main():
    for d in sorted((ROOT / "cases").glob("zw-*/bundle")):
        read_bundle(str(d))
        recs = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
        prev = None
        S = []
        for r in recs:
            cur = samples(r["text"])
            if prev:
                for k, (name, labels, v) in cur.items():
                    if name.endswith(("_total", "_count", "_bucket")) and k in prev:
                        assert v + 1e-9 >= prev[k][2], (d, k, prev[k][2], v)
            prev = cur
            S.append((r["t"], cur))
        print("==", d.parent.name, "scrapes", len(recs))
        for t, cur in S[:: max(1, len(S) // 12)] + [S[-1]]:
            run = g(cur, "vllm:num_requests_running")
            wait = g(cur, "vllm:num_requests_waiting")
            kv = g(cur, "vllm:gpu_cache_usage_perc")
            pt = g(cur, "vllm:prompt_tokens_total")
            gt = g(cur, "vllm:generation_tokens_total")
            tc = g(cur, "vllm:time_to_first_token_seconds_count")
            ts = g(cur, "vllm:time_to_first_token_seconds_sum")
            pc = g(cur, "vllm:time_per_output_token_seconds_count")
            ps = g(cur, "vllm:time_per_output_token_seconds_sum")
            print(f"  t={t:.0f} run={run} wait={wait} kv={kv if kv is None else round(kv, 5)} prompt={pt} gen={gt} "
                  f"ttft_n={tc} ttft_mean={ts / tc if tc else None} tpot_n={pc} tpot_mean={ps / pc if pc else None}")
    print("ok")


if __name__ == "__main__":
    main()
