"""Golden reports: whole Markdown reports compared byte for byte.

Each directory under fixtures/ is a bundle recorded from a real lab vLLM (bundle.tar.gz), its
expected.yaml and its golden report.md. After an intended change of the report, rewrite them
with:

    kvdoctor check --update-golden fixtures/*
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.replay import check_fixture, find_bundle
from kvdoctor.report.checker import check_report, exit_code_for, visible_lines
from kvdoctor.report.render import render_markdown

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "report.md").is_file())


@pytest.mark.parametrize("fixture", CASES, ids=[p.name for p in CASES])
def test_golden_report_is_unchanged(fixture: Path) -> None:
    result = check_fixture(fixture)
    assert result.error is None, result.error
    assert result.golden == "same" and result.ok, "\n".join(result.problems)


def test_golden_does_not_depend_on_where_the_fixture_lives(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / CASES[0].name
    shutil.copytree(CASES[0], copy)
    assert check_fixture(copy).golden == "same"


def test_every_fixture_has_a_golden_report() -> None:
    fixtures = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.yaml").is_file())
    assert fixtures and fixtures == [p.name for p in CASES]


def test_there_are_golden_cases_for_each_verdict_kind() -> None:
    texts = [(p / "report.md").read_text(encoding="utf-8") for p in CASES]
    # The fixtures are the lab's CPU servers: the kv-full sentence names no GPU there.
    assert any("The KV cache is full, not the server's memory" in t for t in texts)
    assert any("**Verdict: healthy.**" in t for t in texts)
    assert any("but the KV cache is not full" in t for t in texts)


# Errors the report checker finds in text written outside the renderer: playbook titles (rules)
# and experiment summaries recorded in the fixture bundles (reproducers), both named in issue 16
# and fixed by that work, not by the template. The test
# fails on any other problem, and also when one of these disappears: then delete its line, so
# this list only shrinks. Empty since long-prefill-hol was re-recorded (its old itl-context
# record said "KV reads explain 500 % of the window's ITL").
KNOWN_OUTSIDE_THE_RENDERER: set[tuple[str, str, str]] = set()


def _rendered(fixture: Path, detail: str = "summary") -> tuple[str, Any]:
    bundle = read_bundle(find_bundle(fixture)).model_copy(update={"source": "bundle.tar.gz"})
    diagnosis = diagnose(bundle)
    return render_markdown(diagnosis.report, diagnosis.context, detail=detail), diagnosis.report


def test_the_checker_passes_on_every_golden_report() -> None:
    found: set[tuple[str, str, str]] = set()
    for fixture in CASES:
        markdown, report = _rendered(fixture)
        assert markdown == (fixture / "report.md").read_text(encoding="utf-8")
        for problem in check_report(markdown, report, exit_code=exit_code_for(report)):
            found.add((fixture.name, problem.kind, problem.detail))
    assert found - KNOWN_OUTSIDE_THE_RENDERER == set(), "new problems in the golden reports"
    assert KNOWN_OUTSIDE_THE_RENDERER - found == set(), "fixed: delete from the known list"


def test_full_detail_unfolds_every_section_and_still_checks() -> None:
    for fixture in CASES:
        markdown, report = _rendered(fixture, "full")
        assert "<details>" not in markdown and "## KV math" in markdown
        kinds = {p.kind for p in check_report(markdown, report, max_visible=None)}
        assert kinds <= {k for f, k, _ in KNOWN_OUTSIDE_THE_RENDERER if f == fixture.name}


def test_median_visible_length_is_at_most_60_lines() -> None:
    lengths = sorted(visible_lines((p / "report.md").read_text(encoding="utf-8")) for p in CASES)
    assert statistics.median(lengths) <= 60
    assert lengths[-1] <= 60, lengths
