#!/usr/bin/env python3
"""Sanity checks of the k-* bundles (adapted from cases/_tools/a/check.py): counters monotonic, histogram buckets cumulative and equal to
_count at +Inf, case.yaml has the required keys. Usage: python cases/_tools/h/check.py"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

CASES = Path(__file__).resolve().parents[2]
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$')


def parse(text: str) -> tuple[dict[tuple[str, str], float], dict[str, str]]:
    vals, types = {}, {}
    for ln in text.splitlines():
        if ln.startswith("# TYPE "):
            _, _, name, kind = ln.split(" ", 3)
            types[name] = kind
        elif ln and not ln.startswith("#"):
            m = LINE.match(ln)
            assert m, ln
            vals[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return vals, types


def main() -> int:
    bad = 0
    total = 0
    for c in sorted(CASES.glob("k-*/")):
        total += bad
        bad = 0
        y = yaml.safe_load((c / "case.yaml").read_text())
        for k in ("id", "split", "sources", "quoted", "assumed", "expected"):
            if k not in y:
                print(c.name, "case.yaml lacks", k); bad += 1
        assert y["id"] == c.name, (y["id"], c.name)
        prev: dict[tuple[str, str], float] = {}
        last_t = -1.0
        for ln in (c / "bundle" / "metrics.jsonl").read_text().splitlines():
            r = json.loads(ln)
            assert r["t"] > last_t, c.name
            last_t = r["t"]
            if "text" not in r:
                continue
            vals, types = parse(r["text"])
            for (name, lab), v in vals.items():
                base = re.sub(r"_(total|bucket|count|sum)$", "", name)
                kind = types.get(name) or types.get(base)
                if (kind == "counter" or name.endswith(("_bucket", "_count"))) and (name, lab) in prev and v < prev[(name, lab)]:
                    print(c.name, "counter went down", name, lab, prev[(name, lab)], v); bad += 1
            # buckets cumulative
            groups: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for (name, lab), v in vals.items():
                if name.endswith("_bucket"):
                    le = re.search(r'le="([^"]+)"', lab).group(1)
                    key = (name[:-7], re.sub(r',?le="[^"]+"', "", lab))
                    groups.setdefault(key, []).append((float("inf") if le == "+Inf" else float(le), v))
            for (h, lab), bs in groups.items():
                bs.sort()
                if any(b[1] < a[1] for a, b in zip(bs, bs[1:])):
                    print(c.name, "non-cumulative", h, lab); bad += 1
                if vals.get((h + "_count", lab)) != bs[-1][1]:
                    print(c.name, "+Inf != count", h, lab); bad += 1
            prev.update(vals)
        for extra in ("manifest.json", "server.json", "engine_args.json"):
            f = c / "bundle" / extra
            if f.exists():
                json.loads(f.read_text())
        if (c / "prompts.jsonl").exists():
            for ln in (c / "prompts.jsonl").read_text().splitlines():
                json.loads(ln)
        for k in ("verdict", "symptom", "causes", "undecided", "differential", "decided_by", "fix", "wrong_advice", "rationale"):
            if k not in y["expected"]:
                print(c.name, "expected lacks", k); bad += 1
        print("ok" if not bad else "..", c.name, y["split"], y["expected"]["verdict"], y["expected"]["symptom"], y["expected"]["causes"])
    return 1 if (bad or total) else 0


if __name__ == "__main__":
    sys.exit(main())
