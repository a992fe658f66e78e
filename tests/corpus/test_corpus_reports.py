"""Every report kvdoctor writes on the external corpus passes the report checker (issue 24).

The corpus bundles were written outside the project (cases/README.md): JSON-valued flags,
operators' notes, logs of many releases. Each one's report, as ``diagnose`` renders it, must
hold no sentence the data does not support. A holdout that has not been run is left out until
its one run (cases/README.md): nothing is read from it before then.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_corpus_dev import DEVELOPMENT_SPLITS

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.report.checker import check_report, exit_code_for
from kvdoctor.report.render import render_markdown

CASES = Path(__file__).resolve().parents[2] / "cases"


def _readable(bundle: Path) -> bool:
    # Every split but the round's unrun holdout (cases/score.py's CURRENT_HOLDOUT).
    case = yaml.safe_load((bundle.parent / "case.yaml").read_text(encoding="utf-8"))
    return str(case.get("split", "")) in DEVELOPMENT_SPLITS


BUNDLES = sorted(p for p in CASES.glob("*/bundle") if p.is_dir() and _readable(p))


@pytest.mark.parametrize("bundle", BUNDLES, ids=[p.parent.name for p in BUNDLES])
def test_the_report_on_a_corpus_bundle_passes_the_checker(bundle: Path) -> None:
    diagnosis = diagnose(read_bundle(bundle))
    report = diagnosis.report
    markdown = render_markdown(report, diagnosis.context)
    problems = check_report(markdown, report, exit_code=exit_code_for(report))
    assert problems == [], "\n".join(f"{p.kind} line {p.line}: {p.detail}" for p in problems)
