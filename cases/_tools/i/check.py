#!/usr/bin/env python3
"""Sanity checks for the i- bundles (copied from writer c): counters and histogram samples never decrease across
scrapes, buckets are cumulative in le, _count equals the +Inf bucket, no negative values."""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def parse(text: str) -> dict[str, float]:
    out = {}
    for ln in text.splitlines():
        if ln.startswith("#") or not ln.strip():
            continue
        m = LINE.match(ln)
        if not m:
            raise ValueError(f"bad line: {ln[:120]}")
        out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


def check(case: Path) -> list[str]:
    errs = []
    prev: dict[str, float] = {}
    for n, raw in enumerate((case / "bundle" / "metrics.jsonl").read_text().splitlines()):
        rec = json.loads(raw)
        if "text" not in rec:
            continue
        cur = parse(rec["text"])
        for k, v in cur.items():
            if v < 0 and "hit_rate" not in k:
                errs.append(f"{case.name} scrape {n}: negative {k} {v}")
            mono = k.split("{")[0].endswith(("_total", "_bucket", "_count", "_sum"))
            if mono and k in prev and v + 1e-9 < prev[k]:
                errs.append(f"{case.name} scrape {n}: {k} decreased {prev[k]} -> {v}")
        groups: dict[str, list[tuple[float, float]]] = {}
        for k, v in cur.items():
            if "_bucket{" in k:
                le = re.search(r'le="([^"]+)"', k).group(1)
                base = re.sub(r',?le="[^"]+"', "", k).replace("_bucket", "")
                groups.setdefault(base, []).append((float(le.replace("+Inf", "inf")), v))
        for base, bs in groups.items():
            bs.sort()
            for (a, x), (b, y) in zip(bs, bs[1:]):
                if y + 1e-9 < x:
                    errs.append(f"{case.name} scrape {n}: {base} bucket {b} < {a}")
            name, lab = base.split("{", 1)
            cnt = cur.get(f"{name}_count{{{lab}")
            if cnt is not None and abs(cnt - bs[-1][1]) > 1e-6:
                errs.append(f"{case.name} scrape {n}: {base} count {cnt} != +Inf {bs[-1][1]}")
        prev = cur
    return errs


if __name__ == "__main__":
    cases = [ROOT / "cases" / a for a in sys.argv[1:]] or sorted(
        p for p in (ROOT / "cases").glob("i-*") if p.is_dir())
    bad = 0
    for c in cases:
        e = check(c)
        bad += len(e)
        print(c.name, "ok" if not e else f"{len(e)} problems")
        for x in e[:8]:
            print("   ", x)
    sys.exit(1 if bad else 0)
