"""Golden reports: whole Markdown reports compared byte for byte.

Each directory under tests/golden is a fixture (bundle/, expected.yaml, report.md). After an
intended change of the report, rewrite them with:

    kvdoctor check --update-golden tests/golden/*
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kvdoctor.replay import check_fixture

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())


@pytest.mark.parametrize("fixture", CASES, ids=[p.name for p in CASES])
def test_golden_report_is_unchanged(fixture: Path) -> None:
    result = check_fixture(fixture)
    assert result.error is None, result.error
    assert result.golden == "same" and result.ok, "\n".join(result.problems)


def test_golden_does_not_depend_on_where_the_fixture_lives(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / CASES[0].name
    shutil.copytree(CASES[0], copy)
    assert check_fixture(copy).golden == "same"


def test_there_are_golden_cases_for_each_verdict_kind() -> None:
    texts = [(p / "report.md").read_text(encoding="utf-8") for p in CASES]
    assert any("The locker is full, not the card" in t for t in texts)
    assert any("**Verdict: healthy.**" in t for t in texts)
    assert any("but the locker is not full" in t for t in texts)
