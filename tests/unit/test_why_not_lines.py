"""Look-alike lines ("not <cause>: <why>"): shared reasons grouped, open candidates dropped."""

from __future__ import annotations

from _report_factory import finding

from kvdoctor.report.model import DifferentialEntry, OpenQuestion
from kvdoctor.rules.evaluate import _open_candidates_not_ruled_out, _ruled_out_causes


def test_a_grouped_line_reads_back_as_its_causes_and_reason() -> None:
    line = "not prefill-bound, long-prefill-hol: ruled out because the KV arrives late"
    assert _ruled_out_causes(line) == (
        ["prefill-bound", "long-prefill-hol"],
        "ruled out because the KV arrives late",
    )
    assert _ruled_out_causes("ranked before slow-itl/unidentified, which follows") is None


def test_a_candidate_an_open_question_keeps_open_leaves_a_grouped_line() -> None:
    f = finding(
        why_not=[
            "not eviction-churn, prefix-drift, engine-not-caching: prefix caching is off",
            "not caching-disabled: caching is on",
            "ranked before high-ttft/prefill-bound, which follows from it: prefills are slow",
        ]
    )
    question = OpenQuestion(
        symptom=f.symptom,
        title="t",
        seen="s",
        differential=[
            DifferentialEntry(cause="prefix-drift", confirm="c"),
            DifferentialEntry(cause="caching-disabled", confirm="c"),
        ],
        decide_with="d",
    )
    (kept,) = _open_candidates_not_ruled_out([f], [question])
    assert kept.why_not == [
        "not eviction-churn, engine-not-caching: prefix caching is off",
        "ranked before high-ttft/prefill-bound, which follows from it: prefills are slow",
    ]
