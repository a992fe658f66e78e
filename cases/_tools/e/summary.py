"""Print the window numbers of each e-* bundle (for writing case.yaml; not a diagnosis)."""

import json
import re
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]


def val(text, name, extra=""):
    tot = 0.0
    found = False
    for m in re.finditer(r"^" + re.escape(name) + r"\{([^}]*)\} (\S+)$", text, re.M):
        if extra and extra not in m.group(1):
            continue
        tot += float(m.group(2))
        found = True
    return tot if found else None


def hist_q(text, name, q):
    buckets = []
    for m in re.finditer(r"^" + re.escape(name) + r'_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)$', text, re.M):
        buckets.append((float("inf") if m.group(1) == "+Inf" else float(m.group(1)), float(m.group(2))))
    return buckets


for d in sorted(CASES.glob("e-*")):
    if len(sys.argv) > 1 and d.name not in sys.argv[1:]:
        continue
    recs = [json.loads(l) for l in (d / "bundle" / "metrics.jsonl").open()]
    ok = [r for r in recs if "text" in r]
    a, b = ok[0]["text"], ok[-1]["text"]
    dt = ok[-1]["t"] - ok[0]["t"]
    out = {}
    for n in ["vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:external_prefix_cache_queries_total",
              "vllm:external_prefix_cache_hits_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"]:
        va, vb = val(a, n), val(b, n)
        if va is not None:
            out[n.split(":")[1]] = round(vb - va)
    q, h = out.get("prefix_cache_queries_total"), out.get("prefix_cache_hits_total")
    v0 = val(b, "vllm:gpu_prefix_cache_hit_rate")
    run = [val(r["text"], "vllm:num_requests_running") for r in ok]
    wai = [val(r["text"], "vllm:num_requests_waiting") for r in ok]
    kv = [x if (x := val(r["text"], "vllm:kv_cache_usage_perc")) is not None else val(r["text"], "vllm:gpu_cache_usage_perc") for r in ok]
    ca, cb = val(a, "vllm:time_to_first_token_seconds_count"), val(b, "vllm:time_to_first_token_seconds_count")
    sa, sb = val(a, "vllm:time_to_first_token_seconds_sum"), val(b, "vllm:time_to_first_token_seconds_sum")
    # p50/p95 of TTFT from bucket deltas
    ba, bb = hist_q(a, "vllm:time_to_first_token_seconds", 0), hist_q(b, "vllm:time_to_first_token_seconds", 0)
    delta = [(le, cb_ - ca_) for (le, cb_), (_, ca_) in zip(bb, ba)]
    tot = delta[-1][1] if delta else 0
    p50 = next((le for le, c in delta if tot and c >= 0.5 * tot), None)
    p95 = next((le for le, c in delta if tot and c >= 0.95 * tot), None)
    print(f"{d.name}: window {dt:.0f}s {out}")
    if q:
        print(f"   hit rate window {h / q:.3%}  per s: queries {q / dt:.0f}")
    if v0 is not None:
        print(f"   V0 gpu_prefix_cache_hit_rate {v0}")
    print(f"   running {min(run):.0f}-{max(run):.0f} waiting {min(wai):.0f}-{max(wai):.0f} kv {min(kv):.3f}-{max(kv):.3f}")
    if cb is not None and cb - ca > 0:
        print(f"   TTFT mean {(sb - sa) / (cb - ca):.3f}s over {cb - ca:.0f} reqs; p50<= {p50} p95<= {p95}")
