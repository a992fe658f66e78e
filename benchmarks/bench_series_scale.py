"""Diagnosis time against the number of series in a scrape (issue 14, item 12).

    .venv/bin/python benchmarks/bench_series_scale.py [--sizes 1000,5000,10000,20000]

Bundles of 3 scrapes of a real vLLM 0.32 payload (tests/data/vllm-0.32/metrics-prefix-hits.txt):
its per-engine scheduler and cache series (``CORE``, 8 per engine) replicated under more and
more ``engine`` labels, the shape where engines are many (data parallelism gone wide, or a
hostile server); ``--full`` replicates the whole payload (374 series per engine) instead.
For each size it times the whole pure part of ``diagnose --bundle`` (observations, signals,
rules, report) and prints the time per series
against the smallest size measured in the same run: a ratio near 1 is linear scaling (the
per-engine scan used to make it grow with the size, 16 s at 5k series and 309 s at 20k).
Target: 20,000 series in ≤ 2 s.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.pipeline import diagnose

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = ROOT / "tests" / "data" / "vllm-0.32" / "metrics-prefix-hits.txt"
TARGET_S = 2.0
CORE = (
    "vllm:kv_cache_usage_perc{",
    "vllm:num_requests_running{",
    "vllm:num_requests_waiting{",
    "vllm:num_preemptions_total{",
    "vllm:request_success_total{",
    "vllm:prefix_cache_queries_total{",
    "vllm:prefix_cache_hits_total{",
    "vllm:prompt_tokens_total{",
)


def payload(series: int, step: int, full: bool) -> tuple[str, int]:
    """An exposition with about ``series`` vllm: series (whole engines) and the exact count."""
    lines = [ln for ln in PAYLOAD.read_text(encoding="utf-8").splitlines() if ln.strip()]
    meta = [ln for ln in lines if ln.startswith("#")]
    samples = [ln for ln in lines if ln.startswith("vllm:")]
    if not full:
        samples = [ln for ln in samples if ln.startswith(CORE)]
    engines = max(1, series // len(samples))
    out = list(meta)
    for e in range(engines):
        for ln in samples:
            name_labels, value = ln.rsplit(" ", 1)
            name_labels = re.sub(r'engine="\d+"', f'engine="{e}"', name_labels)
            v = float(value)
            if "_total" in name_labels or "_bucket" in name_labels or "_count" in name_labels:
                v += step * 5
            out.append(f"{name_labels} {v}")
    return "\n".join(out) + "\n", engines * len(samples)


def bundle(series: int, full: bool = False) -> tuple[Bundle, int]:
    t0 = 1_800_000_000.0
    scrapes = []
    count = 0
    for i in range(3):
        text, count = payload(series, i, full)
        scrapes.append(Scrape(t=t0 + 2.0 * i, status=200, text=text))
    manifest = Manifest(
        created_by="bench",
        endpoint="http://127.0.0.1:8000",
        started_at=t0,
        ended_at=scrapes[-1].t,
        interval_s=2.0,
    )
    return Bundle(manifest=manifest, scrapes=scrapes), count


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,10000,20000")
    ap.add_argument("--full", action="store_true", help="replicate the whole payload per engine")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    diagnose(bundle(1, args.full)[0])  # warm-up: imports, playbooks and templates load once
    ref_per_series: float | None = None
    worst = 0.0
    print(f"{'series':>8} {'engines':>8} {'seconds':>8} {'per series vs first':>20}")
    for size in sizes:
        b, count = bundle(size, args.full)
        t = time.perf_counter()
        diagnose(b)
        dt = time.perf_counter() - t
        per = dt / count
        ref_per_series = ref_per_series or per
        engines = len({m for m in re.findall(r'engine="(\d+)"', b.scrapes[0].text or "")})
        print(f"{count:>8} {engines:>8} {dt:>8.2f} {per / ref_per_series:>19.2f}x")
        if count >= 20_000:
            worst = max(worst, dt)
    if worst:
        verdict = "ok" if worst <= TARGET_S else "SLOW"
        print(f"20k+ series: {worst:.2f} s (target ≤ {TARGET_S:g} s): {verdict}")
        return 0 if worst <= TARGET_S else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
