"""Score kvdoctor against the external incident corpus (``cases/<id>/``).

Each case holds a bundle, an optional ``prompts.jsonl`` and a ``case.yaml`` whose ``expected``
answer was committed before kvdoctor ran on it (see ``cases/README.md``). This script replays
every case of a split through the ``kvdoctor diagnose`` command line, exactly as a user would,
and prints, per case, what was expected and what the report said, then the totals and the
symptom matrix.

    python cases/score.py --split dev            # development half (read the misses)
    python cases/score.py --split holdout        # run once, at the end; quote as run

Each round of blind cases has its own splits: round 1 wrote ``dev`` and ``holdout`` (its holdout
was run once and is development material since), round 2 ``dev-2`` and ``holdout-2``, round 3
``dev-3`` and ``holdout-3``, round 4 ``dev-4`` and ``holdout-4``, round 5 ``dev-5`` and
``holdout-5``, round 6 ``dev-6`` and ``holdout-6``, round 7 ``dev-7`` and ``holdout-7``,
round 8 ``dev-8`` and ``holdout-8``,
round 9 ``dev-9`` and ``holdout-9``,
round 10 ``dev-10`` and ``holdout-10``,
round 11 ``dev-11`` and ``holdout-11``,
round 12 ``dev-12`` and ``holdout-12``,
round 13 ``dev-13`` and ``holdout-13``,
round 14 ``dev-14`` and ``holdout-14``,
round 15 ``dev-15`` and ``holdout-15``,
round 16 ``dev-16`` and ``holdout-16``,
round 17 ``dev-17`` and ``holdout-17``,
round 18 ``dev-18`` and ``holdout-18``,
round 19 ``dev-19`` and ``holdout-19``,
round 20 ``dev-20`` and ``holdout-20``,
round 21 ``dev-21`` and ``holdout-21``,
round 22 ``dev-22`` and ``holdout-22``,
round 23 ``dev-23`` and ``holdout-23``,
round 24 ``dev-24`` and ``holdout-24``.
``development`` is every split but the current round's holdout (``CURRENT_HOLDOUT``), so a
look at all the development material never runs the holdout by accident.

Scoring rules (decided before any case was run):
* right symptom: the report's lead symptom is the expected one. The lead is the first live
  finding, else the first undecided question (verdict ``inconclusive``). A case expecting no
  symptom (healthy) is right when no warning or critical finding fires and the verdict is
  ``healthy`` (or ``inconclusive`` when the case itself expects ``inconclusive``).
* right cause: the lead finding's cause is among ``expected.causes``; for an ``undecided``
  case also right when the report is undecided about that symptom and its differential holds
  every candidate the case lists that kvdoctor has a cause for (the report may list more).
* "healthy" on a broken server: the case expects a symptom or a non-healthy verdict, and the
  report's verdict is ``healthy``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent
FIRING = ("confirmed", "suspected")


@dataclass(frozen=True)
class Outcome:
    case: str
    split: str
    expected_symptom: str | None
    expected_causes: tuple[str, ...]
    undecided: bool
    verdict: str
    lead_symptom: str | None
    lead_cause: str | None
    right_symptom: bool
    right_cause: bool
    healthy_on_broken: bool
    exit_code: int
    error: str = ""


def load_case(path: Path) -> dict[str, Any]:
    data = yaml.safe_load((path / "case.yaml").read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("expected"), dict):
        raise SystemExit(f"{path}: case.yaml has no expected answer")
    return data


def cases(split: str | None) -> list[Path]:
    out = []
    for p in sorted(ROOT.iterdir()):
        is_case = p.is_dir() and (p / "case.yaml").is_file()
        if is_case and (split is None or load_case(p).get("split") == split):
            out.append(p)
    return out


def diagnose(path: Path, case: dict[str, Any]) -> tuple[dict[str, Any] | None, int, str]:
    """The report of ``kvdoctor diagnose`` on the case, as a user runs it."""
    cmd = [sys.executable, "-m", "kvdoctor", "diagnose", "--bundle", str(path / "bundle")]
    inputs = case.get("inputs") or {}
    if inputs.get("prompts"):
        cmd += ["--prompts", str(path / inputs["prompts"])]
    for slo in inputs.get("slo") or []:
        cmd += ["--slo", str(slo)]
    cmd += ["--format", "json"]
    # From the checkout this file belongs to: ``-m`` puts the current directory first on the
    # import path, so a score started elsewhere (another checkout, with PYTHONPATH pointing
    # here) would run that directory's kvdoctor instead of this one's.
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT.parent)
    if proc.returncode not in (0, 1):
        return None, proc.returncode, (proc.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(proc.stdout), proc.returncode, ""


def judge(path: Path, save: Path | None = None) -> Outcome:
    case = load_case(path)
    exp = case["expected"]
    e_symptom = exp.get("symptom")
    e_causes = tuple(exp.get("causes") or ())
    undecided = bool(exp.get("undecided"))
    e_verdict = exp.get("verdict")
    report, code, error = diagnose(path, case)
    if save is not None and report is not None:
        (save / f"{path.name}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    broken = e_symptom is not None or e_verdict in ("critical", "degraded")
    if report is None:
        return Outcome(
            path.name,
            case.get("split", "?"),
            e_symptom,
            e_causes,
            undecided,
            "error",
            None,
            None,
            False,
            False,
            False,
            code,
            error,
        )
    live = [f for f in report["findings"] if f["status"] in FIRING]
    harmful = [f for f in live if f["severity"] != "info"]
    open_qs = report.get("undecided") or []
    lead = live[0] if live else None
    lead_symptom = lead["symptom"] if lead else (open_qs[0]["symptom"] if open_qs else None)
    lead_cause = lead["cause"] if lead else None
    verdict = report["verdict"]
    if e_symptom is None:
        right_symptom = not harmful and (
            verdict == "healthy" or (verdict == "inconclusive" and e_verdict == "inconclusive")
        )
        right_cause = right_symptom and (
            not e_causes
            or any(n["cause"] in e_causes for n in report.get("notes", []))
            or lead_cause in e_causes
            or verdict == "inconclusive"
        )
    else:
        right_symptom = lead_symptom == e_symptom
        right_cause = right_symptom and lead_cause in e_causes
        if undecided and not right_cause:
            wanted = set(exp.get("differential") or ())
            for q in open_qs:
                if q["symptom"] != e_symptom:
                    continue
                listed = {d["cause"] for d in q["differential"]}
                known = wanted & _known_causes()
                if known <= listed:
                    right_cause = right_symptom or lead is None
    return Outcome(
        path.name,
        case.get("split", "?"),
        e_symptom,
        e_causes,
        undecided,
        verdict,
        lead_symptom,
        lead_cause,
        right_symptom,
        right_cause,
        broken and verdict == "healthy",
        code,
    )


def _known_causes() -> set[str]:
    from kvdoctor.rules.load import load_playbooks

    out = {"no-fault", "unidentified"}
    for pb in load_playbooks():
        out |= {c.id for c in pb.causes}
    return out


SPLITS = (
    "dev",
    "holdout",
    "dev-2",
    "holdout-2",
    "dev-3",
    "holdout-3",
    "dev-4",
    "holdout-4",
    "dev-5",
    "holdout-5",
    "dev-6",
    "holdout-6",
    "dev-7",
    "holdout-7",
    "dev-8",
    "holdout-8",
    "dev-9",
    "holdout-9",
    "dev-10",
    "holdout-10",
    "dev-11",
    "holdout-11",
    "dev-12",
    "holdout-12",
    "dev-13",
    "holdout-13",
    "dev-14",
    "holdout-14",
    "dev-15",
    "holdout-15",
    "dev-16",
    "holdout-16",
    "dev-17",
    "holdout-17",
    "dev-18",
    "holdout-18",
    "dev-19",
    "holdout-19",
    "dev-20",
    "holdout-20",
    "dev-21",
    "holdout-21",
    "dev-22",
    "holdout-22",
    "dev-23",
    "holdout-23",
    "dev-24",
    "holdout-24",
)
# The round whose holdout has not been run yet (run it once, at the end, and quote it as
# run); None while every holdout is spent. Round 5's ran at e7bb498, round 6's at d543762,
# round 7's at e6df0e1, round 8's at 28bf99b, round 9's at 73c9794, round 10's at 69d178c,
# round 11's at 3153292, round 12's at f96e3d8, round 13's at bceea5c, round 14's at 15a3e5f,
# round 15's at 261b2fc, round 16's at 213b3dd, round 17's at 777bd7d, round 18's at 64c57ed,
# round 19's at 1e504ed, round 20's at c76bd2d, round 21's at dacb23e, round 22's at 3c7fda1,
# round 23's at 75aa541, round 24's at 3fc33fb.
CURRENT_HOLDOUT: str | None = None


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f} %)" if d else "0/0"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--split",
        choices=(*SPLITS, "development", "all"),
        default="dev",
    )
    ap.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="also write each case's JSON report to DIR/<case>.json (for reading the misses)",
    )
    args = ap.parse_args(argv)
    if args.split == "all" and CURRENT_HOLDOUT is not None:
        # "all" would run the unrun holdout with the development cases (round 23's holdout was
        # first run that way): the holdout runs once, by its own name, at the round's end.
        ap.error(
            f"--split all includes the unrun {CURRENT_HOLDOUT}: use --split development, or "
            f"--split {CURRENT_HOLDOUT} to run the holdout (once, at the end of the round)"
        )
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    if args.split == "development":
        paths = [p for split in SPLITS if split != CURRENT_HOLDOUT for p in cases(split)]
    else:
        paths = cases(None if args.split == "all" else args.split)
    outcomes = [judge(p, args.save) for p in paths]
    print(f"{'case':44} {'expected':40} {'verdict':12} {'lead':40} sym cause")
    for o in outcomes:
        exp = f"{o.expected_symptom}/{'|'.join(o.expected_causes) or '-'}" + (
            " (undecided)" if o.undecided else ""
        )
        got = f"{o.lead_symptom}/{o.lead_cause}" if o.lead_symptom else "-"
        print(
            f"{o.case:44} {exp[:40]:40} {o.verdict:12} {got[:40]:40} "
            f"{'ok ' if o.right_symptom else 'NO '} {'ok' if o.right_cause else 'NO'}"
            + (f"  error: {o.error}" if o.error else "")
        )
    n = len(outcomes)
    print()
    print(f"split {args.split}: {n} cases")
    print(f"right symptom: {_pct(sum(o.right_symptom for o in outcomes), n)}")
    print(
        f"right cause (or undecided with the right differential): "
        f"{_pct(sum(o.right_cause for o in outcomes), n)}"
    )
    broken = [o for o in outcomes if o.expected_symptom is not None]
    print(
        f"'healthy' on a broken server: {sum(o.healthy_on_broken for o in outcomes)}/{len(broken)}"
    )
    symptoms = sorted(
        {o.expected_symptom or "none" for o in outcomes}
        | {o.lead_symptom or "none" for o in outcomes}
    )
    print()
    print("symptom matrix (rows: expected, columns: report's lead)")
    print(f"{'':16}" + "".join(f"{s[:12]:>13}" for s in symptoms))
    for s in symptoms:
        row = [o for o in outcomes if (o.expected_symptom or "none") == s]
        print(
            f"{s[:16]:16}"
            + "".join(f"{sum((o.lead_symptom or 'none') == t for o in row):>13}" for t in symptoms)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
