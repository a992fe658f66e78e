"""Golden reports: whole Markdown reports compared byte for byte.

Each directory under fixtures/ is a bundle recorded from a real lab vLLM (bundle.tar.gz), its
expected.yaml and its golden report.md. After an intended change of the report, rewrite them
with:

    kvdoctor check --update-golden fixtures/*
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kvdoctor.replay import check_fixture

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
    assert any("The KV cache is full, not GPU memory" in t for t in texts)
    assert any("**Verdict: healthy.**" in t for t in texts)
    assert any("but the KV cache is not full" in t for t in texts)
