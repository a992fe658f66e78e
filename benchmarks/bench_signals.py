"""Signals from a one-hour bundle versus merely parsing its text with prometheus_client.

    .venv/bin/python benchmarks/bench_signals.py [--scrapes 720] [--repeat 3]

The bundle: 720 scrapes (one hour at a 5 s interval) of a real vLLM 0.32 payload
(tests/data/vllm-0.32/metrics-prefix-hits.txt), with counter and gauge values moving from scrape
to scrape as on a live server, written to disk as a ``kvdoctor.bundle/1`` directory.

Measured in the same run, best of --repeat:
- reference: ``prometheus_client.parser.text_string_to_metric_families`` over the 720 texts
  (every sample consumed; nothing else done);
- kvdoctor: ``read_bundle`` + ``compute_signals`` (reading, parsing, normalising and every
  signal of the catalog), with the parser's key cache cleared first.
Prints the ratio reference / kvdoctor; the target is ≥ 3.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from kvdoctor import expfmt
from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import write_bundle
from kvdoctor.signals.compute import compute_signals

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = ROOT / "tests" / "data" / "vllm-0.32" / "metrics-prefix-hits.txt"
_SAMPLE = re.compile(r"^(vllm:[^ ]+) ([0-9.eE+-]+)$", re.MULTILINE)


def moving(text: str, i: int) -> str:
    """Scrape ``i`` of an hour: cumulative values grow, gauges wander (layout unchanged)."""

    def bump(m: re.Match[str]) -> str:
        key, value = m.group(1), float(m.group(2))
        if "_total" in key or "_bucket" in key or "_count" in key or "_sum" in key:
            return f"{key} {value + 3.0 * i}"
        if "usage_perc" in key or "num_requests" in key:
            return f"{key} {(i % 17) / 17.0}"
        return m.group(0)

    return _SAMPLE.sub(bump, text)


def build(scrapes: int) -> Bundle:
    base = PAYLOAD.read_text(encoding="utf-8")
    t0 = 1_800_000_000.0
    items = [Scrape(t=t0 + 5.0 * i, status=200, text=moving(base, i)) for i in range(scrapes)]
    manifest = Manifest(
        created_by="bench",
        endpoint="http://127.0.0.1:8000",
        started_at=t0,
        ended_at=items[-1].t,
        interval_s=5.0,
    )
    return Bundle(manifest=manifest, scrapes=items)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scrapes", type=int, default=720)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bundle = build(args.scrapes)
    texts = [s.text or "" for s in bundle.scrapes]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_bundle(bundle, Path(tmp) / "hour")
        ref_times, our_times = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            n = 0
            for text in texts:
                for fam in text_string_to_metric_families(text):
                    n += len(fam.samples)
            ref_times.append(time.perf_counter() - t)

            expfmt._KEY_CACHE.clear()
            t = time.perf_counter()
            signals = compute_signals(read_bundle(path))
            our_times.append(time.perf_counter() - t)
    ref, ours = min(ref_times), min(our_times)
    assert signals.get("scrapes_ok") == args.scrapes
    ratio = ref / ours
    print(
        f"payload: {PAYLOAD.name}, {len(texts[0])} bytes, "
        f"{n // args.scrapes} samples/scrape, "
        f"{args.scrapes} scrapes"
    )
    print(f"prometheus_client parse only: {ref:.3f} s")
    print(f"kvdoctor read_bundle + compute_signals: {ours:.3f} s")
    print(
        f"ratio (reference / kvdoctor): {ratio:.2f}x  (target >= 3x) "
        f"{'PASS' if ratio >= 3 else 'FAIL'}"
    )
    return 0 if ratio >= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
