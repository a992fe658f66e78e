"""Format checks and window numbers for the zd-* bundles (no diagnosis)."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

CASES = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(CASES.parent))
from kvdoctor.bundle.reader import read_bundle  # noqa: E402  (format check only, as the brief says)


def val(fams, name, **lbl):
    tot = 0.0
    for f in fams:
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in lbl.items()):
                tot += s.value
    return tot


for d in sorted(CASES.glob("zd-*/bundle")):
    read_bundle(str(d))
    rows = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
    fams = [list(text_string_to_metric_families(r["text"])) for r in rows]
    for name in ("vllm:generation_tokens_total", "vllm:time_to_first_token_seconds_count", "vllm:prompt_tokens_total"):
        vs = [val(f, name) for f in fams]
        assert all(b >= a for a, b in zip(vs, vs[1:])), (d, name)
    first, last = fams[0], fams[-1]
    d_ = lambda n, **k: val(last, n, **k) - val(first, n, **k)
    reasons = {r: d_("vllm:request_success_total", finished_reason=r) for r in ("stop", "length")}
    tc, ts_ = d_("vllm:time_to_first_token_seconds_count"), d_("vllm:time_to_first_token_seconds_sum")
    ic, is_ = d_("vllm:inter_token_latency_seconds_count"), d_("vllm:inter_token_latency_seconds_sum")
    if not ic:
        ic, is_ = d_("vllm:time_per_output_token_seconds_count"), d_("vllm:time_per_output_token_seconds_sum")
    run = [val(f, "vllm:num_requests_running") for f in fams]
    wait = [val(f, "vllm:num_requests_waiting") for f in fams]
    kvn = "vllm:kv_cache_usage_perc" if any(s.name == "vllm:kv_cache_usage_perc" for f in last for s in f.samples) else "vllm:gpu_cache_usage_perc"
    kv = [max([s.value for f in fs for s in f.samples if s.name == kvn] or [0]) for fs in fams]
    pids = sorted({s.labels.get("pid") for f in last for s in f.samples if s.name == kvn} - {None})
    q, h = d_("vllm:prefix_cache_queries_total") or d_("vllm:gpu_prefix_cache_queries_total"), d_("vllm:prefix_cache_hits_total") or d_("vllm:gpu_prefix_cache_hits_total")
    print(d.parent.name, f"scrapes={len(rows)} reasons={reasons} ttft_mean={ts_ / tc if tc else 0:.3f}s "
          f"itl_mean={is_ / ic if ic else 0:.4f}s running={min(run):.0f}..{max(run):.0f} waiting_max={max(wait):.0f} "
          f"kv_max={max(kv):.3f} kv_min={min(kv):.3f} pids={pids} hit={100 * h / q if q else 0:.1f}%")
