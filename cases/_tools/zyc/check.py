"""Format checks for a zyc bundle: read_bundle, Prometheus parse, monotone cumulative series, summary."""
import json
import sys
from collections import defaultdict

from prometheus_client.parser import text_string_to_metric_families
from kvdoctor.bundle.reader import read_bundle

cid = sys.argv[1]
b = f"cases/{cid}/bundle"
read_bundle(b)
rows = [json.loads(l) for l in open(f"{b}/metrics.jsonl")]
prev = {}
bad = 0
first = last = None
for r in rows:
    if "text" not in r:
        continue
    vals = {}
    for fam in text_string_to_metric_families(r["text"]):
        for s in fam.samples:
            key = s.name + json.dumps(s.labels, sort_keys=True)
            vals[key] = s.value
            if fam.type in ("counter", "histogram") and not s.name.endswith("_created"):
                if key in prev and s.value < prev[key] - 1e-9:
                    bad += 1
    prev = vals
    first = first or vals
    last = vals
print("rows", len(rows), "decreases", bad)


def tot(vals, name, **lab):
    return sum(v for k, v in vals.items() if k.startswith(name + "{") and all(f'"{a}": "{b}"' in k for a, b in lab.items()))


names = ["vllm:generation_tokens_total", "vllm:prompt_tokens_total", "vllm:spec_decode_num_drafts_total",
         "vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_accepted_tokens_total",
         "vllm:time_per_output_token_seconds_sum", "vllm:time_per_output_token_seconds_count",
         "vllm:time_to_first_token_seconds_sum", "vllm:time_to_first_token_seconds_count",
         "vllm:request_success_total", "vllm:num_preemptions_total", "vllm:prefix_cache_queries_total",
         "vllm:prefix_cache_hits_total", "vllm:e2e_request_latency_seconds_count"]
for nm in names:
    d = tot(last, nm) - tot(first, nm)
    print(f"{nm:50s} window delta {d:.4f}  last {tot(last, nm):.2f}")
eng = sorted({json.loads(k[k.index('{'):])["engine"] for k in last if k.startswith("vllm:generation_tokens_total")})
for e in eng:
    dt_ = tot(last, "vllm:time_per_output_token_seconds_sum", engine=e) - tot(first, "vllm:time_per_output_token_seconds_sum", engine=e)
    dc = tot(last, "vllm:time_per_output_token_seconds_count", engine=e) - tot(first, "vllm:time_per_output_token_seconds_count", engine=e)
    gt = tot(last, "vllm:generation_tokens_total", engine=e) - tot(first, "vllm:generation_tokens_total", engine=e)
    tf = tot(last, "vllm:time_to_first_token_seconds_sum", engine=e) - tot(first, "vllm:time_to_first_token_seconds_sum", engine=e)
    tc = tot(last, "vllm:time_to_first_token_seconds_count", engine=e) - tot(first, "vllm:time_to_first_token_seconds_count", engine=e)
    print(f"engine {e}: mean TPOT {dt_/max(dc,1)*1000:.1f} ms over {dc:.0f} obs; gen tok/s {gt/((rows[-1]['t']-rows[0]['t'])):.1f}; mean TTFT {tf/max(tc,1):.2f}s over {tc:.0f}")
run = [v for k, v in last.items() if k.startswith("vllm:num_requests_running")]
print("running gauge last", run)
