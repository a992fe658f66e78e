"""Reports, `explain`, the runbooks and the rule cases say the same advice for every cause.

Every change a report prints (over every rule case and every fixture) is an instance of a move
its playbook cause declares, and `explain` (the same text as the runbooks) states that move;
the planner registry and the names the playbook loader accepts are the same set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _rulecases import load_case_files
from test_rule_cases import PLAYBOOKS, build_inputs, case_bundle

from kvdoctor.remediation.config import config_from_signals, engine_config
from kvdoctor.remediation.planner import PLANNERS, plan
from kvdoctor.rules.docs import move_text, runbook_md
from kvdoctor.rules.evaluate import triage
from kvdoctor.rules.schema import PLANNER_NAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_loader_accepts_exactly_the_planners_that_exist() -> None:
    assert set(PLANNERS) == set(PLANNER_NAMES)
    used = {r.planner for pb in PLAYBOOKS for c in pb.causes for r in c.remediation if r.planner}
    assert used == set(PLANNER_NAMES), "a planner no playbook names, or the reverse"


def test_every_cause_with_a_knob_plans_it_from_the_bundle() -> None:
    # A flag the bundle can size is never free text: it is a planner's move.
    for pb in PLAYBOOKS:
        for cause in pb.causes:
            for r in cause.remediation:
                assert r.knob is None, f"{pb.id}/{cause.id}: text item with knob {r.knob}"


def test_explain_and_the_runbooks_state_every_declared_move() -> None:
    for pb in PLAYBOOKS:
        page = runbook_md(pb)
        for cause in pb.causes:
            for r in cause.remediation:
                for m in r.moves:
                    assert move_text(m) in page, (pb.id, cause.id, m)


def _cases() -> list[Any]:
    out = []
    for stem, data in load_case_files().items():
        for case in data["cases"]:
            out.append(pytest.param(case, id=f"{stem}: {case['name']}"))
    return out


@pytest.mark.parametrize("case", _cases())
def test_every_printed_change_is_a_declared_move(case: dict[str, Any]) -> None:
    signals, records = build_inputs(case)
    t = triage(signals, records, PLAYBOOKS)
    findings = [*t.findings, *t.notes]
    bundle = case_bundle(case)
    if bundle is not None:
        from kvdoctor.pipeline import kv_for

        cfg = engine_config(bundle, signals, kv_for(bundle, signals))
    else:
        cfg = config_from_signals(signals)
    for p in plan(findings, cfg, signals, PLAYBOOKS):
        for item in p.items:
            if item.change is not None:
                f = findings[p.index]
                assert item.move is not None, (f.cause, item.change.render(cfg))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_every_change_a_fixture_report_prints_is_a_declared_move(name: str) -> None:
    from kvdoctor.bundle.reader import read_bundle
    from kvdoctor.pipeline import plan_bundle

    cfg, findings, plans = plan_bundle(read_bundle(FIXTURES / name / "bundle.tar.gz"))
    for p in plans:
        printed = findings[p.index].remediation
        assert [it.render(cfg) for it in p.items] == printed
        for item in p.items:
            if item.change is not None:
                assert item.move is not None, (findings[p.index].cause, printed)
