"""Format checks and window numbers for the r-* bundles (no diagnosis)."""
import json, sys
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families

CASES = Path(__file__).resolve().parents[2]


def val(fams, name, **lbl):
    tot = 0.0
    for f in fams:
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in lbl.items()):
                tot += s.value
    return tot


for d in sorted(CASES.glob("r-*/bundle")):
    rows = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
    fams = [list(text_string_to_metric_families(r["text"])) for r in rows]
    # monotonic counters
    for name in ("vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:generation_tokens_total",
                 "vllm:time_to_first_token_seconds_count"):
        vs = [val(f, name) for f in fams]
        assert all(b >= a for a, b in zip(vs, vs[1:])), (d, name)
    q = val(fams[-1], "vllm:prefix_cache_queries_total") - val(fams[0], "vllm:prefix_cache_queries_total")
    h = val(fams[-1], "vllm:prefix_cache_hits_total") - val(fams[0], "vllm:prefix_cache_hits_total")
    per = []
    for a, b in zip(fams, fams[1:]):
        dq = val(b, "vllm:prefix_cache_queries_total") - val(a, "vllm:prefix_cache_queries_total")
        dh = val(b, "vllm:prefix_cache_hits_total") - val(a, "vllm:prefix_cache_hits_total")
        if dq:
            per.append(round(100 * dh / dq))
    reasons = {r: val(fams[-1], "vllm:request_success_total", finished_reason=r) - val(fams[0], "vllm:request_success_total", finished_reason=r) for r in ("stop", "length")}
    gcnt = val(fams[-1], "vllm:request_generation_tokens_count") - val(fams[0], "vllm:request_generation_tokens_count")
    g5 = val(fams[-1], "vllm:request_generation_tokens_bucket", le="5.0") - val(fams[0], "vllm:request_generation_tokens_bucket", le="5.0")
    tc = val(fams[-1], "vllm:time_to_first_token_seconds_count") - val(fams[0], "vllm:time_to_first_token_seconds_count")
    tsum = val(fams[-1], "vllm:time_to_first_token_seconds_sum") - val(fams[0], "vllm:time_to_first_token_seconds_sum")
    run = [val(f, "vllm:num_requests_running") for f in fams]
    kv = [val(f, "vllm:kv_cache_usage_perc") for f in fams]
    print(d.parent.name, f"scrapes={len(rows)} hit={100*h/q:.1f}% per-interval={min(per)}..{max(per)} reasons={reasons} "
          f"gen<=5={g5/gcnt:.0%} ttft_mean={tsum/tc:.2f}s running={min(run):.0f}..{max(run):.0f} kv={max(kv):.3f}")
