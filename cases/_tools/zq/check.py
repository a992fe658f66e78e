"""Format checks for the zq-* bundles (no diagnosis):
    cd <worktree> && /work/main/.venv/bin/python cases/_tools/zq/check.py [case-id ...] [-v]
read_bundle + Prometheus exposition parse of every scrape, then a per-scrape table of the raw series."""
import json
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from kvdoctor.bundle.reader import read_bundle

ROOT = Path(__file__).resolve().parents[3]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ids = args or sorted(p.name for p in (ROOT / "cases").glob("zq-*") if (p / "bundle").is_dir())
    for cid in ids:
        b = ROOT / "cases" / cid / "bundle"
        read_bundle(str(b))
        rows = []
        for line in (b / "metrics.jsonl").read_text().splitlines():
            rec = json.loads(line)
            fam = {f.name: f for f in text_string_to_metric_families(rec["text"])}
            per = {}
            for f in fam.values():
                for s in f.samples:
                    e = s.labels.get("engine")
                    d = per.setdefault(e, {})
                    if s.name in ("vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                                  "vllm:generation_tokens_total", "vllm:prompt_tokens_total",
                                  "vllm:time_to_first_token_seconds_count", "vllm:num_preemptions_total"):
                        d[s.name.split(":")[1]] = s.value
                    if s.name == "vllm:request_success_total":
                        d["succ"] = d.get("succ", 0) + s.value
                    if s.name == "vllm:num_requests_waiting_by_reason":
                        d["w_" + s.labels["reason"]] = s.value
            rows.append((rec["t"], per))
        print(f"== {cid}: {len(rows)} scrapes parse, read_bundle ok")
        if verbose:
            for t, per in rows:
                print(int(t), " | ".join(
                    f"e{e}: run {d.get('num_requests_running', 0):.0f} wait {d.get('num_requests_waiting', 0):.0f}"
                    f"{' (cap %.0f def %.0f)' % (d['w_capacity'], d['w_deferred']) if 'w_capacity' in d else ''}"
                    f" kv {100 * d.get('kv_cache_usage_perc', 0):.1f}% gen {d.get('generation_tokens_total', 0):.0f}"
                    f" succ {d.get('succ', 0):.0f} ttft_n {d.get('time_to_first_token_seconds_count', 0):.0f}"
                    for e, d in sorted(per.items(), key=lambda x: str(x[0])) if e is not None))


if __name__ == "__main__":
    main()
