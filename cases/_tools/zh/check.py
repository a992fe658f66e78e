"""Format checks for the zh-* bundles (read_bundle + exposition parse) and the window numbers
used to write the case texts. Not a diagnosis."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

ROOT = Path(__file__).resolve().parents[3]


def fam(text):
    out = {}
    for f in text_string_to_metric_families(text):
        for s in f.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def hq(first, last, name, q):
    def b(m):
        return sorted((float(l["le"]), v) for l, v in m.get(name + "_bucket", []))
    b0, b1 = dict(b(first)), b(last)
    d = [(le, v - b0.get(le, 0)) for le, v in b1]
    tot = d[-1][1]
    if not tot:
        return None
    for le, v in d:
        if v >= q * tot:
            return le


def delta(first, last, name):
    s = lambda m: sum(v for _, v in m.get(name, []))
    return s(last) - s(first)


for cid in sys.argv[1:] or sorted(p.parent.name for p in ROOT.glob("cases/zh-*/case.yaml")):
    b = ROOT / "cases" / cid / "bundle"
    read_bundle(str(b))
    rows = [json.loads(l) for l in (b / "metrics.jsonl").read_text().splitlines()]
    fams = [fam(r["text"]) for r in rows]
    f0, f1 = fams[0], fams[-1]
    g = lambda m, n: sum(v for _, v in m.get(n, []))
    run = [g(m, "vllm:num_requests_running") for m in fams]
    wai = [g(m, "vllm:num_requests_waiting") for m in fams]
    kv = [g(m, "vllm:kv_cache_usage_perc") for m in fams]
    print(f"== {cid}: {len(rows)} scrapes, read_bundle ok, exposition ok")
    print(f"  running {min(run):.0f}-{max(run):.0f} (mean {sum(run)/len(run):.1f}), waiting {min(wai):.0f}-{max(wai):.0f} (mean {sum(wai)/len(wai):.1f}), kv {min(kv):.2f}-{max(kv):.2f}")
    n = delta(f0, f1, "vllm:request_success_total")
    print(f"  finished {n:.0f}; prompt tok {delta(f0, f1, 'vllm:prompt_tokens_total'):.0f}; gen tok {delta(f0, f1, 'vllm:generation_tokens_total'):.0f}; preempt {delta(f0, f1, 'vllm:num_preemptions_total'):.0f}")
    for h in ("vllm:time_to_first_token_seconds", "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
              "vllm:inter_token_latency_seconds", "vllm:iteration_tokens_total", "vllm:request_prompt_tokens",
              "vllm:nixl_xfer_time_seconds", "vllm:nixl_num_descriptors"):
        c = delta(f0, f1, h + "_count")
        if c:
            s = delta(f0, f1, h + "_sum")
            print(f"  {h}: n={c:.0f} mean={s/c:.4g} p50<={hq(f0,f1,h,0.5)} p90<={hq(f0,f1,h,0.9)} p99<={hq(f0,f1,h,0.99)}")
