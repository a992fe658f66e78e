#!/usr/bin/env python3
"""Window numbers of each f-* bundle (to write the case texts; not a diagnosis)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]


def val(text, name, lab=None):
    out = 0.0
    for m in re.finditer(rf"^{re.escape(name)}(\{{[^}}]*\}})? (\S+)$", text, re.M):
        if lab and lab not in (m.group(1) or ""):
            continue
        out += float(m.group(2))
    return out


def hq(text0, text1, name, q):
    b = {}
    for t, sign in ((text1, 1), (text0, -1)):
        for m in re.finditer(rf'^{re.escape(name)}_bucket\{{[^}}]*le="([^"]+)"[^}}]*\}} (\S+)$', t, re.M):
            le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
            b[le] = b.get(le, 0) + sign * float(m.group(2))
    items = sorted(b.items())
    tot = items[-1][1] if items else 0
    if tot <= 0:
        return None, 0
    for le, c in items:
        if c >= q * tot:
            return le, tot
    return None, tot


for c in sorted(CASES.glob(sys.argv[1] if len(sys.argv) > 1 else "f-*/")):
    rows = [json.loads(l) for l in (c / "bundle" / "metrics.jsonl").read_text().splitlines()]
    ok = [r for r in rows if "text" in r]
    a, b = ok[0]["text"], ok[-1]["text"]
    runs = [val(r["text"], "vllm:num_requests_running") for r in ok]
    wait = [val(r["text"], "vllm:num_requests_waiting") for r in ok]
    kv = [max(val(r["text"], "vllm:kv_cache_usage_perc"), val(r["text"], "vllm:gpu_cache_usage_perc")) for r in ok]
    for n in ("vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds", "vllm:request_queue_time_seconds"):
        p50, tot = hq(a, b, n, 0.5)
        p95, _ = hq(a, b, n, 0.95)
        s = val(b, n + "_sum") - val(a, n + "_sum")
        if tot:
            print(f"{c.name:45s} {n.split(':')[1]:34s} n={tot:8.0f} mean={s / tot:8.4f} p50<={p50} p95<={p95}")
    print(f"{c.name:45s} running {min(runs):.0f}-{max(runs):.0f} waiting {min(wait):.0f}-{max(wait):.0f} kv {min(kv):.3f}-{max(kv):.3f} scrapes {len(rows)}")
