"""Meta-tests: every playbook is covered by cases, documented, and shipped consistently."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from _rulecases import load_case_files

from kvdoctor.report.model import SYMPTOMS
from kvdoctor.rules import docs
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.schema import RUNBOOK_SECTIONS

REPO = Path(__file__).resolve().parents[2]
PLAYBOOKS = load_playbooks()

# Traps from real vLLM incidents (issue 4); each must be the subject of at least one case.
TRAPS = {
    "waiting-grows-kv-low",
    "kv-thrash-nothing-waiting",
    "zero-hits-block-larger-than-prefix",
    "hit-rate-inflated-by-recompute",
    "lifetime-vs-window-hit-rate",
    "ttft-up-itl-flat",
    "no-cache-memory-raise-utilization",
    "fp8-near-zero-is-bug",
    "counter-reset-is-restart",
    # 0 % hits over prompts of several blocks with caching on and no prompt evidence: never
    # "healthy", the verdict is inconclusive (issue 28).
    "zero-hits-undecidable",
}
KINDS = {"firing", "not-firing", "boundary"}

# Causes the issue requires, at least.
REQUIRED_CAUSES = {
    "preemption": {"kv-capacity", "request-exceeds-kv-capacity"},
    "high-ttft": {"queueing", "prefill-bound", "long-prefill-hol", "kv-admission"},
    "slow-itl": {"kv-read-bound", "prefill-interference"},
    "prefix-miss": {
        "caching-disabled",
        "block-larger-than-prefix",
        "eviction-churn",
        "prefix-drift",
    },
    "gpu-oom": {"kv-pool-too-small", "other-process", "utilization-too-high", "activation-peak"},
    "quant-quality": {"fp8-kv-cache"},
}


def test_one_playbook_per_symptom_with_the_required_causes() -> None:
    assert sorted(pb.symptom for pb in PLAYBOOKS) == sorted(SYMPTOMS)
    for pb in PLAYBOOKS:
        missing = REQUIRED_CAUSES[pb.symptom] - {c.id for c in pb.causes}
        assert not missing, f"{pb.id} lacks causes {sorted(missing)}"


@pytest.mark.parametrize("pb", PLAYBOOKS, ids=lambda pb: pb.id)
def test_runbook_sections_present(pb: object) -> None:
    from kvdoctor.rules.runtime import Playbook

    assert isinstance(pb, Playbook)
    for key, heading in RUNBOOK_SECTIONS:
        text = getattr(pb.runbook, key)
        assert len(text.split()) >= 15, f"{pb.id}: runbook section {heading!r} is too thin"
    for cause in pb.causes:
        assert cause.description.strip(), f"{pb.id}/{cause.id}: no description"


def test_every_cause_has_firing_not_firing_and_boundary_cases() -> None:
    files = load_case_files()
    problems: list[str] = []
    for pb in PLAYBOOKS:
        if pb.id not in files:
            problems.append(f"no tests/rules/cases/{pb.id}.yaml")
            continue
        data = files[pb.id]
        assert data.get("playbook") == pb.id
        kinds: dict[str, set[str]] = defaultdict(set)
        for case in data["cases"]:
            if "cause" not in case:
                continue
            assert case["cause"] in {c.id for c in pb.causes}, case["name"]
            assert case["kind"] in KINDS, case["name"]
            kinds[case["cause"]].add(case["kind"])
        for cause in pb.causes:
            lacking = KINDS - kinds[cause.id]
            if lacking:
                problems.append(f"{pb.id}/{cause.id}: no {', '.join(sorted(lacking))} case")
    assert not problems, "\n".join(problems)


def test_case_kinds_assert_what_they_claim() -> None:
    """A firing case expects its cause; a not-firing case rules it out or expects it absent."""
    for stem, data in load_case_files().items():
        symptom = next(pb.symptom for pb in PLAYBOOKS if pb.id == stem)
        for case in data["cases"]:
            if "cause" not in case:
                continue
            key = (symptom, case["cause"])
            expected = {(e["symptom"], e["cause"]): e["status"] for e in case.get("expect") or []}
            absent = {(a["symptom"], a["cause"]) for a in case.get("absent") or []}
            if case["kind"] == "firing":
                assert key in expected, f"{stem}: {case['name']}: firing but not expected"
            elif case["kind"] == "not-firing":
                assert key in absent or expected.get(key) == "refuted", (
                    f"{stem}: {case['name']}: not-firing but neither absent nor refuted"
                )
            else:
                assert key in absent or key in expected, f"{stem}: {case['name']}: asserts nothing"


def test_every_trap_has_a_case() -> None:
    cases = [c for data in load_case_files().values() for c in data["cases"]]
    seen = {t for c in cases for t in c.get("traps", [])}
    assert TRAPS - seen == set(), f"traps without a case: {sorted(TRAPS - seen)}"
    assert seen - TRAPS == set(), f"unknown trap ids: {sorted(seen - TRAPS)}"


def test_kv_pool_too_small_never_lowers_utilization() -> None:
    pb = next(p for p in PLAYBOOKS if p.id == "gpu-oom")
    cause = pb.cause("kv-pool-too-small")
    assert cause is not None
    directions = {r.direction for r in cause.remediation if r.knob == "gpu_memory_utilization"}
    directions |= {
        m.action for r in cause.remediation for m in r.moves if m.flag == "--gpu-memory-utilization"
    }
    assert directions == {"raise"}


def test_docs_rules_md_is_current() -> None:
    from kvdoctor.commands.rules import render_rules

    path = REPO / "docs" / "rules.md"
    text = path.read_text(encoding="utf-8")
    # The replica playbooks' part, then the fleet playbooks' (playbooks/fleet/).
    assert text.startswith(docs.rules_markdown(PLAYBOOKS))
    assert text == render_rules("md", PLAYBOOKS), (
        "docs/rules.md is stale: run `kvdoctor rules --format md > docs/rules.md`"
    )
