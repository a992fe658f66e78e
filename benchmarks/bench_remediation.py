"""Does the "change first" work? Every lab scenario: apply it, re-run the workload, compare.

    .venv/bin/python benchmarks/bench_remediation.py                 # offline: plans only
    .venv/bin/python benchmarks/bench_remediation.py --lab [-s NAME] [--fresh-before]

Offline it prints, per scenario, the change first (planned from the recorded fixture bundle) and
whether kvdoctor's vLLM constraints accept it. With ``--lab`` it starts each scenario's server
with that change applied to its flags, drives the same workload, diagnoses it, and runs
``kvdoctor compare BEFORE AFTER``: BEFORE is the recorded fixture (a real run of the same server
and workload) or, with ``--fresh-before``, a run of the unchanged server measured in this same
run (the reference). It prints the compare result and the key signals after/before as ratios.

Each scenario takes the lab lock (/tmp/kvdoctor-lab.lock) for its own runs only, so other users
of the machine get in between scenarios. Exit 0 when every primary finding is gone.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
LOCK = Path("/tmp/kvdoctor-lab.lock")
SIGNALS = ("preemptions_window", "kv_usage_max", "prefix_hit_rate_window", "itl_p95", "ttft_p95")


def _ratio(before: object, after: object) -> str:
    if not isinstance(before, int | float) or not isinstance(after, int | float):
        return "n/a"
    if before == 0:
        return "=" if after == 0 else "new"
    return f"{after / before:.2f}x"


def _plan(name: str) -> tuple[str, list[str] | None, bool]:
    from kvdoctor.bundle.reader import read_bundle
    from kvdoctor.lab.scenarios import get_scenario
    from kvdoctor.pipeline import plan_bundle
    from kvdoctor.remediation.constraints import edit_flags, problems

    cfg, findings, plans = plan_bundle(read_bundle(FIXTURES / name / "bundle.tar.gz"))
    first = next((p for p in plans if p.index == 0), None)
    if not findings or findings[0].status == "refuted" or first is None or not first.changes:
        return "(no change planned)", None, True
    ch = first.changes[0]
    if not ch.edits:
        return ch.render(cfg), None, True
    valid = problems(cfg, ch.args(cfg)) == []
    return ch.render(cfg), edit_flags(get_scenario(name).engine_args, ch.edits), valid


def _diagnose(name: str, flags: list[str] | None, out: Path, python: str | None) -> float:
    from kvdoctor.lab.session import diagnose_scenario

    t = time.perf_counter()
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            diagnose_scenario(
                name,
                window_s=20.0,
                interval_s=1.0,
                save_bundle=out,
                vllm_python=python,
                engine_args=flags,
            )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return time.perf_counter() - t


def main() -> int:
    from kvdoctor.lab.scenarios import SCENARIOS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", action="store_true", help="run the after-servers (real vLLM)")
    ap.add_argument("-s", "--scenario", action="append", help="only these scenarios")
    ap.add_argument("--fresh-before", action="store_true", help="re-record BEFORE in this run")
    ap.add_argument("--vllm-python", default=None)
    args = ap.parse_args()
    names = args.scenario or [n for n, sc in sorted(SCENARIOS.items()) if sc.expected.symptom]
    failures = 0
    for name in names:
        text, flags, valid = _plan(name)
        print(f"== {name}\n   change first: {text}\n   valid for vLLM 0.32: {valid}")
        if flags is not None:
            print(f"   after flags: {' '.join(flags)}")
        if not args.lab:
            continue
        if flags is None:
            print("   result: skipped (the change first is not a server flag)")
            continue
        with tempfile.TemporaryDirectory(prefix="kvdoctor-bench-rem-") as tmp:
            before = FIXTURES / name / "bundle.tar.gz"
            if args.fresh_before:
                before = Path(tmp) / "before"
                secs = _diagnose(name, None, before, args.vllm_python)
                print(f"   before run: {secs:.0f} s")
            after = Path(tmp) / "after"
            secs = _diagnose(name, flags, after, args.vllm_python)
            print(f"   after run: {secs:.0f} s")
            cmd = [sys.executable, "-m", "kvdoctor", "compare", str(before), str(after)]
            proc = subprocess.run(
                [*cmd, "--format", "json"],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode == 2 or not proc.stdout.strip():
                print(f"   result: compare failed: {proc.stderr.strip()[:300]}")
                failures += 1
                continue
            c = json.loads(proc.stdout)
            print(f"   result: {c['primary']} {c['primary_result']} (exit {proc.returncode})")
            sig = {s["name"]: s for s in c["signals"]}
            for n in SIGNALS:
                if n in sig:
                    b, a = sig[n]["before"], sig[n]["after"]
                    print(f"   {n}: {b} → {a} ({_ratio(b, a)})")
            failures += 0 if c["verified"] else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
