"""Rule behaviour as data: every case in tests/rules/cases/*.yaml becomes one test.

A case gives a signal set (``signals`` + optional ``series``), a recorded ``bundle``, or ``real``
payloads captured from a real vLLM 0.32 (tests/data/vllm-0.32: scrapes in time order and a
log), optional reproducer records, and what must (``expect``) and must not (``absent``) be
found. Every case also checks the engine's invariants: refuted findings last, and no knob both
raised and lowered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _rulecases import CASES_DIR, load_case_files

from kvdoctor.report.model import Finding
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.rules.evaluate import triage
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.schema import KNOBS
from kvdoctor.rules.verdict import overall_verdict
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.model import SignalSet

PLAYBOOKS = load_playbooks()


def _params() -> list[Any]:
    out = []
    for stem, data in load_case_files().items():
        for case in data["cases"]:
            out.append(pytest.param(stem, case, id=f"{stem}: {case['name']}"))
    return out


REAL_DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def real_bundle(spec: dict[str, Any]) -> Any:
    from kvdoctor.bundle.model import Bundle, Manifest, Scrape

    interval = float(spec.get("interval_s", 5.0))
    t0 = 1_700_000_000.0
    scrapes = [
        Scrape(t=t0 + i * interval, status=200, text=(REAL_DATA / name).read_text("utf-8"))
        for i, name in enumerate(spec.get("scrapes", []))
    ]
    logs = spec.get("logs")
    return Bundle(
        manifest=Manifest(
            created_by="tests/rules",
            endpoint="lab",
            started_at=t0,
            ended_at=t0 + interval * max(0, len(scrapes) - 1),
            interval_s=interval,
        ),
        scrapes=scrapes,
        logs=(REAL_DATA / logs).read_text("utf-8") if logs else None,
    )


def _records(raw: list[dict[str, Any]]) -> list[ReproducerRecord]:
    # The records as a bundle's reproducers.jsonl holds them: validated at the boundary.
    return [ReproducerRecord.model_validate(r) for r in raw]


def build_inputs(case: dict[str, Any]) -> tuple[SignalSet, list[ReproducerRecord]]:
    if "real" in case:
        from kvdoctor.signals.compute import compute_signals

        signals = compute_signals(real_bundle(case["real"]))
        return signals, _records(list(case.get("reproducers") or []))
    if "bundle" in case:
        from kvdoctor.bundle.reader import read_bundle
        from kvdoctor.signals.compute import compute_signals

        bundle = read_bundle(Path((CASES_DIR / case["bundle"]).resolve()))
        records = case.get("reproducers", bundle.reproducers or [])
        return compute_signals(bundle), _records(list(records))
    signals = SignalSet()
    for name, value in (case.get("signals") or {}).items():
        assert name in SIGNALS, f"case uses undeclared signal {name!r}"
        signals.set(name, value, provenance="test case")
    for name, values in (case.get("series") or {}).items():
        signals.series[name] = [(float(i), float(v)) for i, v in enumerate(values)]
    return signals, _records(list(case.get("reproducers") or []))


def case_bundle(case: dict[str, Any]) -> Any:
    """The bundle a case replays (its command line and logs plan the advice), or None."""
    if "real" in case:
        return real_bundle(case["real"])
    if "bundle" in case:
        from kvdoctor.bundle.reader import read_bundle

        return read_bundle(Path((CASES_DIR / case["bundle"]).resolve()))
    return None


def advised(
    findings: list[Finding], notes: list[Finding], signals: SignalSet, bundle: Any = None
) -> tuple[list[Finding], list[Finding]]:
    """Findings and notes with the remediation the report prints, planned as the pipeline
    plans a bundle (findings then notes together)."""
    from kvdoctor.remediation.config import config_from_signals, engine_config
    from kvdoctor.remediation.planner import apply_plans, plan

    if bundle is not None:
        from kvdoctor.pipeline import kv_for

        cfg = engine_config(bundle, signals, kv_for(bundle, signals))
    else:
        cfg = config_from_signals(signals)
    both = [*findings, *notes]
    done = apply_plans(both, cfg, plan(both, cfg, signals, PLAYBOOKS))
    return done[: len(findings)], done[len(findings) :]


def _find(findings: list[Finding], symptom: str, cause: str) -> Finding | None:
    return next((f for f in findings if f.symptom == symptom and f.cause == cause), None)


# Every key an expectation may carry: a misspelt one would otherwise check nothing.
EXPECTATION_KEYS = frozenset(
    {
        "symptom",
        "cause",
        "status",
        "note",
        "severity",
        "min_confidence",
        "max_confidence",
        "reproducer_verdict",
        "remediation_contains",
        "remediation_excludes",
        "not_advised_contains",
        "remediation_empty",
        "evidence",
        "title_contains",
        "basis_contains",
        "why_not_contains",
    }
)


def _check_expectation(findings: list[Finding], notes: list[Finding], exp: dict[str, Any]) -> None:
    unknown = set(exp) - EXPECTATION_KEYS
    assert not unknown, f"unknown expectation keys {sorted(unknown)}"
    # ``note: true``: the item must be a note (report/1.2), otherwise a finding.
    where, other = (notes, findings) if exp.get("note") else (findings, notes)
    f = _find(where, exp["symptom"], exp["cause"])
    listing = [(x.symptom, x.cause, x.status) for x in where]
    misplaced = _find(other, exp["symptom"], exp["cause"]) is not None
    kind = "note" if exp.get("note") else "finding"
    assert f is not None, f"expected {kind} {exp['symptom']}/{exp['cause']}, got {listing}" + (
        " (it is listed as the other kind)" if misplaced else ""
    )
    assert f.status == exp["status"], f"{f.cause}: status {f.status}, want {exp['status']}"
    if "severity" in exp:
        assert f.severity == exp["severity"], f"{f.cause}: severity {f.severity}"
    if "min_confidence" in exp:
        assert f.confidence >= exp["min_confidence"], f"{f.cause}: confidence {f.confidence}"
    if "max_confidence" in exp:
        assert f.confidence <= exp["max_confidence"], f"{f.cause}: confidence {f.confidence}"
    if "reproducer_verdict" in exp:
        assert f.reproducer is not None and f.reproducer.verdict == exp["reproducer_verdict"]
    text = "\n".join(f.remediation)
    for needle in exp.get("remediation_contains", []):
        assert needle in text, f"{f.cause}: {needle!r} not in remediation:\n{text}"
    for needle in exp.get("remediation_excludes", []):
        assert needle not in text, f"{f.cause}: {needle!r} in remediation:\n{text}"
    not_advised = "\n".join(f.not_advised)
    for needle in exp.get("not_advised_contains", []):
        assert needle in not_advised, f"{f.cause}: {needle!r} not in not_advised:\n{not_advised}"
    if exp.get("remediation_empty"):
        assert f.remediation == []
    for signal, value in (exp.get("evidence") or {}).items():
        got = {e.signal: e.value for e in f.evidence}
        assert signal in got, f"{f.cause}: no evidence row for {signal}"
        assert got[signal] == pytest.approx(value), f"{f.cause}: {signal}={got[signal]}"
    if "title_contains" in exp:
        assert exp["title_contains"] in f.title, f.title
    if "basis_contains" in exp:
        assert exp["basis_contains"] in (f.basis or ""), f.basis
    why_not = "\n".join(f.why_not or [])
    for needle in exp.get("why_not_contains", []):
        assert needle in why_not, f"{f.cause}: {needle!r} not in why_not:\n{why_not}"


def check_invariants(findings: list[Finding]) -> None:
    statuses = [f.status for f in findings]
    first_refuted = statuses.index("refuted") if "refuted" in statuses else len(statuses)
    assert all(s == "refuted" for s in statuses[first_refuted:]), f"refuted not last: {statuses}"
    advice = "\n".join(line for f in findings for line in f.remediation).lower()
    for flag in KNOBS.values():
        raised = f"raise {flag}" in advice
        lowered = f"lower {flag}" in advice
        assert not (raised and lowered), f"both raise and lower {flag}:\n{advice}"
    for f in findings:
        for line in f.remediation:
            assert "{" not in line and "}" not in line, f"unrendered placeholder: {line}"


@pytest.mark.parametrize(("playbook", "case"), _params())
def test_rule_case(playbook: str, case: dict[str, Any]) -> None:
    signals, records = build_inputs(case)
    result = triage(signals, records, PLAYBOOKS)
    # The advice a report prints: the same planner over the same findings (a rule case tests
    # the printed remediation, not a second copy of it).
    findings, notes = advised(result.findings, result.notes, signals, case_bundle(case))
    check_invariants(findings)
    check_invariants(notes)
    for note in notes:
        assert note.severity == "info" and note.status != "refuted", note
    for exp in case.get("expect") or []:
        _check_expectation(findings, notes, exp)
    for absent in case.get("absent") or []:
        f = _find(findings + notes, absent["symptom"], absent["cause"])
        assert f is None, f"{absent['symptom']}/{absent['cause']} should not be found: {f}"
    if "primary" in case:
        # The report's lead: the first live finding, else the first note (Report.lead).
        live = [f for f in findings if f.status != "refuted"]
        lead = (live or notes or findings)[:1]
        assert lead, "no findings"
        got = (lead[0].symptom, lead[0].cause)
        assert got == (case["primary"]["symptom"], case["primary"]["cause"])
    if "verdict" in case:
        assert overall_verdict(findings, signals, result.undecided) == case["verdict"]
    # One line per candidate: a cause's variants (one per shape of the evidence) must not all
    # print when the evidence cannot judge them (external case zyh-b300 listed one three times).
    for q in result.undecided:
        causes = [d.cause for d in q.differential]
        assert len(causes) == len(set(causes)), f"{q.symptom}: a cause listed twice: {causes}"
    wanted = case.get("undecided")
    if wanted is not None:
        got_q = [q for q in result.undecided if q.symptom == wanted["symptom"]]
        assert got_q, f"expected an undecided {wanted['symptom']}, got {result.undecided}"
        listed = {d.cause for d in got_q[0].differential}
        for cause in wanted.get("differential_contains", []):
            assert cause in listed, f"{cause} not in the differential {sorted(listed)}"
        for cause in wanted.get("differential_excludes", []):
            assert cause not in listed, f"{cause} in the differential {sorted(listed)}"
        for text in wanted.get("decide_with_contains", []):
            assert text in got_q[0].decide_with, got_q[0].decide_with
        if wanted.get("leads"):
            # The question the report opens with (the first of several undecided ones).
            assert result.undecided[0].symptom == wanted["symptom"], [
                q.symptom for q in result.undecided
            ]
    elif "verdict" in case and case["verdict"] != "inconclusive":
        assert not result.undecided, f"unexpected undecided: {result.undecided}"
    if case.get("only"):
        want = {(e["symptom"], e["cause"]) for e in case.get("expect") or []}
        assert {(f.symptom, f.cause) for f in findings + notes} == want
