"""Record ``fixtures/<scenario>/`` from the lab: a real bundle plus ``expected.yaml``.

Each fixture's ``bundle.tar.gz`` is what ``kvdoctor diagnose --endpoint URL --reproduce
--allow-load --save-bundle`` saved while the scenario's workload ran (so the bundle holds the
reproducer records too); ``expected.yaml`` is the diagnosis the scenario is built to produce.
A recording whose primary finding is not the scenario's symptom and cause is not written: the
fixture would only encode a flaky run.

Usage: ``python -m kvdoctor.lab.fixtures [--root fixtures] [SCENARIO ...]``
(scripts/record-fixtures.sh wraps it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import yaml

from kvdoctor.lab.scenarios import SCENARIOS, Scenario
from kvdoctor.lab.session import ScenarioRun, diagnose_scenario

WINDOW_S = 20.0
INTERVAL_S = 1.0


def expected_yaml(sc: Scenario, status: str | None = None) -> str:
    """The fixture's expectations: symptom and cause from the scenario registry; the status is
    the recorded one when given (a replay reproduces the recording, reproducer records
    included), else the scenario's."""
    data: dict[str, object] = {"description": f"lab scenario {sc.name}: {sc.title}"}
    if sc.expected.symptom is None:
        data["verdict"] = sc.expected.verdict or "healthy"
        data["absent"] = [{"status": "confirmed"}, {"status": "suspected"}]
    else:
        primary: dict[str, str] = {"symptom": sc.expected.symptom}
        if sc.expected.cause:
            primary["cause"] = sc.expected.cause
        wanted = status or (None if sc.fails_at_startup else sc.expected.status)
        if wanted:
            primary["status"] = wanted
        data["primary"] = primary
        if sc.expected.note:
            data["verdict"] = sc.expected.verdict or "healthy"
            data["notes"] = [dict(primary, severity="info")]
            data["absent"] = [{"status": "confirmed"}, {"status": "suspected"}]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def mismatch(sc: Scenario, run: ScenarioRun, *, strict_status: bool = True) -> str | None:
    """Why the live run does not show what the scenario promises, or None.

    With ``strict_status=False`` a primary finding of the right symptom and cause is enough
    (its status may be "suspected" when a reproducer was inconclusive)."""
    if run.report is None:
        return f"no report (exit {run.exit_code}): {run.stderr.strip()[-300:]}"
    firing = [f for f in run.report.get("findings", []) if f.get("status") != "refuted"]
    if sc.expected.verdict is not None and run.report.get("verdict") != sc.expected.verdict:
        return f"verdict {run.report.get('verdict')}, expected {sc.expected.verdict}"
    if sc.expected.symptom is None:
        return None if not firing else f"expected nothing firing, got {len(firing)} finding(s)"
    p = run.primary
    if p is None:
        return "no finding"
    if sc.expected.note and firing:
        return f"expected only a note, got {len(firing)} finding(s)"
    got = (p.get("symptom"), p.get("cause"))
    if got != (sc.expected.symptom, sc.expected.cause):
        return f"primary is {got[0]}/{got[1]} ({p.get('status')})"
    if strict_status and not sc.fails_at_startup and p.get("status") != sc.expected.status:
        return f"primary status is {p.get('status')}, expected {sc.expected.status}"
    return None


def record(name: str, root: Path, vllm_python: str | None = None) -> str | None:
    """Record one fixture; return None on success or the reason it was not written."""
    sc = SCENARIOS[name]
    target = root / name
    staging = root / f".{name}.recording"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        run = diagnose_scenario(
            name,
            window_s=WINDOW_S,
            interval_s=INTERVAL_S,
            # Packed: the raw /metrics text compresses ~10x, and fixtures live in git.
            save_bundle=staging / "bundle.tar.gz",
            vllm_python=vllm_python,
        )
        problem = mismatch(sc, run, strict_status=False)
        if problem is not None:
            return problem
        status = run.primary.get("status") if run.primary else None
        (staging / "expected.yaml").write_text(expected_yaml(sc, status))
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        return None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kvdoctor.lab.fixtures")
    parser.add_argument("scenarios", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--root", type=Path, default=Path("fixtures"))
    parser.add_argument("--vllm-python")
    args = parser.parse_args(argv)
    failed = 0
    for name in args.scenarios:
        if name not in SCENARIOS:
            print(f"unknown scenario {name}", file=sys.stderr)
            return 2
        print(f"recording {name} ...", file=sys.stderr, flush=True)
        problem = record(name, args.root, args.vllm_python)
        if problem is None:
            print(f"  wrote {args.root / name}", file=sys.stderr)
        else:
            failed += 1
            print(f"  NOT written: {problem}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
