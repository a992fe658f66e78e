"""The "why this and not a look-alike" lines are in plain words (issue 24, item 5).

Every signal a cause's condition reads has a plain label (and a yes/no signal its words for
both answers), so a why-not line never shows a rule-variable name or an operator; over every
rule case and every fixture, no line reads like "prefix_caching off is not == on".
"""

from __future__ import annotations

import re
from pathlib import Path

from _rulecases import load_case_files
from test_rule_cases import PLAYBOOKS, build_inputs

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.report.model import Finding
from kvdoctor.rules.evaluate import triage
from kvdoctor.rules.explain import _fmt
from kvdoctor.rules.predicates import DERIVED, DERIVED_LABELS, DERIVED_STATES, PREDICATE_FALSE
from kvdoctor.rules.runtime import Clause, Condition, Group
from kvdoctor.signals.catalog import LABELS, SIGNALS, STATES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# What a why-not line must not show: an operator, a snake_case name, "is unknown".
_RULE_TALK = re.compile(r"[<>=!]=|(?<![\w-])[<>](?![\w-])|\b[a-z]+_[a-z0-9_]+\b|\bis unknown\b")


def _names(clause: Clause) -> tuple[set[str], set[str]]:
    if isinstance(clause, Group):
        sigs: set[str] = set()
        preds: set[str] = set()
        for key in ("all", "any", "none"):
            for sub in getattr(clause, key) or []:
                s, p = _names(sub)
                sigs |= s
                preds |= p
        return sigs, preds
    assert isinstance(clause, Condition)
    sigs = {n for n in (clause.signal, clause.value_from) if n}
    return sigs, {clause.predicate} if clause.predicate else set()


def test_every_signal_a_cause_reads_has_plain_words() -> None:
    missing: list[str] = []
    for pb in PLAYBOOKS:
        for cause in pb.causes:
            sigs, preds = _names(cause.when)
            for name in sorted(sigs):
                unit = SIGNALS[name].unit if name in SIGNALS else DERIVED[name].unit
                if unit == "bool":
                    if name not in STATES and name not in DERIVED_STATES:
                        missing.append(f"{pb.id}/{cause.id}: {name} (yes/no words)")
                elif name not in LABELS and name not in DERIVED_LABELS:
                    missing.append(f"{pb.id}/{cause.id}: {name} (label)")
            missing += [
                f"{pb.id}/{cause.id}: {p} (predicate)" for p in preds if p not in PREDICATE_FALSE
            ]
    assert missing == []


def _lines(findings: list[Finding]) -> list[str]:
    return [line for f in findings for line in f.why_not]


def test_no_why_not_line_speaks_in_rule_variables() -> None:
    lines: list[str] = []
    for data in load_case_files().values():
        for case in data["cases"]:
            signals, records = build_inputs(case)
            t = triage(signals, records, PLAYBOOKS)
            lines += _lines([*t.findings, *t.notes])
    for fixture in sorted(p for p in FIXTURES.iterdir() if (p / "bundle.tar.gz").exists()):
        lines += _lines(diagnose(read_bundle(fixture / "bundle.tar.gz")).report.findings)
    assert len(lines) > 50
    # Cause ids ("not eviction-churn:") name the look-alike; everything after them is words.
    bad = [ln for ln in lines if _RULE_TALK.search(ln.split(": ", 1)[-1])]
    assert bad == []


def test_counts_agree_with_their_noun() -> None:
    assert _fmt(1, "max_model_len") == "1 token"
    assert _fmt(2048, "max_model_len") == "2,048 tokens"
    assert _fmt(1, "waiting_max") == "1 request"
    assert _fmt(0, "waiting_max") == "0 requests"


# A fixed-vocabulary text value read as a raw id ("shared (needs exactly drift)"), or the same
# reason given twice on one line ("... and ruled out because" what was already said).
_RAW_VALUE = re.compile(r": (shared|drift|sub-block|unshared|identity-split) \(needs")


def test_text_values_are_words_and_no_reason_is_given_twice() -> None:
    from kvdoctor.signals.catalog import VALUES

    lines: list[str] = []
    for data in load_case_files().values():
        for case in data["cases"]:
            signals, records = build_inputs(case)
            t = triage(signals, records, PLAYBOOKS)
            lines += _lines([*t.findings, *t.notes])
    shared = [ln for ln in lines if VALUES["prompt_share_pattern"]["shared"] in ln]
    assert shared, "no rule case explains a look-alike by what the prompts share"
    assert [ln for ln in lines if _RAW_VALUE.search(ln)] == []
    repeated = []
    for ln in lines:
        said, _, because = ln.partition(" and ruled out because ")
        if because and because in said:
            repeated.append(ln)
    assert repeated == []
