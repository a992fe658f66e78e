"""The recorded lab fixtures: one per scenario, and each replays to its expected diagnosis."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kvdoctor.lab.scenarios import SCENARIOS
from kvdoctor.replay import check_fixture

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_every_scenario_has_a_fixture() -> None:
    assert {p.name for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file()} >= set(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fixture_replays_to_the_scenario_diagnosis(name: str) -> None:
    fixture = FIXTURES / name
    expected = yaml.safe_load((fixture / "expected.yaml").read_text())
    sc = SCENARIOS[name]
    if sc.expected.symptom is None:
        assert expected["verdict"] == (sc.expected.verdict or "healthy")
    else:
        assert expected["primary"]["symptom"] == sc.expected.symptom
        assert expected["primary"]["cause"] == sc.expected.cause
    result = check_fixture(fixture)
    assert result.ok, result.problems
