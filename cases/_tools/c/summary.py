#!/usr/bin/env python3
"""Print, per c- bundle, window deltas and histogram quantiles (p50/p99 from bucket deltas)
so the scripted numbers can be compared with the quoted ones. Not a diagnosis."""

import json
import re
import sys
from pathlib import Path

from check import ROOT, parse

H = ["time_to_first_token_seconds", "inter_token_latency_seconds",
     "time_per_output_token_seconds", "request_queue_time_seconds",
     "e2e_request_latency_seconds"]
G = ["num_requests_running", "num_requests_waiting", "kv_cache_usage_perc",
     "gpu_cache_usage_perc"]
C = ["num_preemptions_total", "prompt_tokens_total", "generation_tokens_total",
     "prefix_cache_hits_total", "prefix_cache_queries_total",
     "spec_decode_num_accepted_tokens_total", "spec_decode_num_draft_tokens_total"]


def q(buckets, p):
    tot = buckets[-1][1]
    if tot <= 0:
        return None
    for le, c in buckets:
        if c >= p * tot:
            return le
    return None


def main(case: Path) -> None:
    recs = [json.loads(x) for x in (case / "bundle" / "metrics.jsonl").read_text().splitlines()]
    recs = [r for r in recs if "text" in r]
    a, b = parse(recs[0]["text"]), parse(recs[-1]["text"])
    span = recs[-1]["t"] - recs[0]["t"]
    print(f"== {case.name}  ({span:.0f}s)")
    for g in G:
        vals = [v for k, v in b.items() if k.startswith(f"vllm:{g}{{")]
        if vals:
            print(f"   {g}: last {sum(vals):.3f}")
    for c in C:
        d = sum(v - a.get(k, 0) for k, v in b.items() if k.startswith(f"vllm:{c}{{"))
        if any(k.startswith(f"vllm:{c}{{") for k in b):
            print(f"   {c}: +{d:.0f} ({d / span:.1f}/s)")
    for h in H:
        bk: dict[float, float] = {}
        for k, v in b.items():
            if k.startswith(f"vllm:{h}_bucket{{"):
                le = float(re.search(r'le="([^"]+)"', k).group(1).replace("+Inf", "inf"))
                bk[le] = bk.get(le, 0) + v - a.get(k, 0)
        if bk:
            bs = sorted(bk.items())
            print(f"   {h}: n={bs[-1][1]:.0f} p50<={q(bs, .5)} p90<={q(bs, .9)} "
                  f"p99<={q(bs, .99)}")


if __name__ == "__main__":
    for c in sys.argv[1:] or sorted(p.name for p in (ROOT / "cases").glob("c-*")):
        main(ROOT / "cases" / c)
