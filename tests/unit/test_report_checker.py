"""The report checker catches each kind of error an on-call reader would (issue 16).

Each test plants one error of one kind into an otherwise clean rendered report and checks that
the checker names that kind; the clean report itself has no problem at all.
"""

from __future__ import annotations

import pytest
from _report_factory import context, finding, report

from kvdoctor.report.checker import check_report, exit_code_for, visible_lines
from kvdoctor.report.model import Finding, ReproducerOutcome
from kvdoctor.report.render import render_markdown


def _clean() -> str:
    return render_markdown(report(), context())


def _kinds(markdown: str, **kwargs: object) -> set[str]:
    r = kwargs.pop("report_", report())
    return {p.kind for p in check_report(markdown, r, **kwargs)}  # type: ignore[arg-type]


def _plant(markdown: str, after: str, line: str) -> str:
    """Insert ``line`` after the first line that contains ``after``."""
    lines = markdown.splitlines()
    at = next(i for i, ln in enumerate(lines) if after in ln)
    return "\n".join([*lines[: at + 1], line, *lines[at + 1 :]]) + "\n"


def test_a_clean_report_has_no_problem() -> None:
    r = report()
    assert check_report(_clean(), r, exit_code=exit_code_for(r)) == []


def test_verdict_against_exit_code_and_against_the_report() -> None:
    r = report()
    assert "verdict-exit" in _kinds(_clean(), exit_code=0)
    wrong = _clean().replace("**Verdict: critical.**", "**Verdict: healthy.**")
    assert "verdict-exit" in _kinds(wrong, exit_code=exit_code_for(r))


def test_info_findings_never_set_the_exit_code() -> None:
    info = report(verdict="healthy", findings=[finding(severity="info")])
    assert exit_code_for(info) == 0
    assert exit_code_for(report()) == 1
    assert exit_code_for(report(), "critical") == 1
    warning = report(verdict="degraded", findings=[finding(severity="warning")])
    assert exit_code_for(warning, "critical") == 0


def _note(**overrides: object) -> Finding:
    base = {
        "id": "prefix-miss",
        "symptom": "prefix-miss",
        "cause": "block-larger-than-prefix",
        "status": "suspected",
        "severity": "info",
        "title": "Prompts fit inside one 128-token block",
    }
    return finding(**{**base, **overrides})


def test_a_note_is_an_unrefuted_info_item_and_leads_a_healthy_report() -> None:
    healthy = report(verdict="healthy", findings=[], notes=[_note()])
    md = render_markdown(healthy, context())
    assert "**Note (expected behaviour, not a fault):** Prompts fit inside one" in md
    assert "**Primary finding:**" not in md
    assert exit_code_for(healthy) == 0
    assert "note-severity" not in _kinds(md, report_=healthy, exit_code=0)
    # A warning (or a refuted cause) listed as a note would hide a finding from the verdict.
    for bad in (_note(severity="warning"), _note(status="refuted")):
        wrong = report(verdict="healthy", findings=[], notes=[bad])
        assert "note-severity" in _kinds(render_markdown(wrong, context()), report_=wrong)


def test_notes_beside_findings_are_folded_under_notes() -> None:
    both = report(notes=[_note()])
    md = render_markdown(both, context())
    assert "**Primary finding:** Live KV demand exceeds the pool" in md
    assert "<details><summary>Notes (1)</summary>" in md
    assert check_report(md, both, exit_code=exit_code_for(both)) == []


@pytest.mark.parametrize(
    "row",
    [
        "| peak running requests | 2 | above the 2 sequences the pool holds |",
        "| live KV demand over the pool | 0.802× | ≥ 1: live demand above the pool |",
        "| peak KV cache usage | 40 % | ≥ 90 %: the pool fills up |",
    ],
)
def test_a_false_comparison_in_an_evidence_row(row: str) -> None:
    md = _plant(_clean(), "| peak KV cache usage |", row)
    assert "false-comparison" in _kinds(md, exit_code=1)


def test_a_true_comparison_and_a_broken_norm_are_not_flagged() -> None:
    md = _plant(
        _clean(), "| peak KV cache usage |", "| peak running requests | 7 | above the 3 sequences |"
    )
    md = _plant(md, "| peak KV cache usage |", "| the mean prompt | 120 | > 128 tokens for a hit |")
    assert _kinds(md, exit_code=1) == set()


def test_a_share_above_100_percent() -> None:
    md = _plant(_clean(), "**Proof:**", "KV reads explain 500% of the window's ITL.")
    assert "false-comparison" in _kinds(md, exit_code=1)


def test_suspect_until_a_canary_beside_a_canary_that_confirmed() -> None:
    title = "The KV cache is fp8: a suspect until a canary compares it with BF16"
    confirmed = finding(
        title=title,
        status="confirmed",
        reproducer=ReproducerOutcome(name="quant-canary", verdict="confirmed"),
    )
    r = report(findings=[confirmed])
    md = render_markdown(r, context())
    assert "suspect-confirmed" in _kinds(md, report_=r, exit_code=1)
    suspected = report(findings=[finding(title=title, status="suspected", reproducer=None)])
    md = render_markdown(suspected, context())
    assert "suspect-confirmed" not in _kinds(md, report_=suspected, exit_code=1)


def test_duplicated_ruled_out_rows() -> None:
    md = _clean()
    row = next(ln for ln in md.splitlines() if ln.startswith("| Prefix caching is off"))
    assert "duplicate-row" in _kinds(_plant(md, row, row), exit_code=1)


def test_raw_json_in_a_table_cell() -> None:
    row = '| `rounds` | — | `[{"concurrency": 1, "failed": 0}]` |'
    md = _plant(_clean(), "| `knee_concurrency` |", row)
    assert "raw-json" in _kinds(md, exit_code=1)


@pytest.mark.parametrize("text", ["a KV cache of fp8 (fp8)", "a block of 512 B (512 B)", "the the"])
def test_repeated_words(text: str) -> None:
    md = _plant(_clean(), "**Proof:**", f"It holds {text}.")
    assert "repeated-words" in _kinds(md, exit_code=1)


def test_a_row_made_only_of_dashes() -> None:
    md = _plant(_clean(), "| `knee_concurrency` |", "| `tokens_per_seq` | — | — |")
    assert "empty-row" in _kinds(md, exit_code=1)


def test_undefined_jargon() -> None:
    md = _plant(_clean(), "**Proof:**", "The locker is full.")
    assert "jargon" in _kinds(md, exit_code=1)
    defined = _plant(_clean(), "**Proof:**", "The locker (the KV cache) is full. The locker...")
    assert "jargon" not in _kinds(defined, exit_code=1)


def _six_signals_row(p50: str, p95: str, p99: str, notes: str) -> str:
    return f"| | time to first token | {p50} | {p95} | {p99} | | {notes} |"


def _with_latency_row(row: str) -> str:
    md = _clean()
    lines = [ln for ln in md.splitlines() if "| time to first token |" not in ln]
    return _plant("\n".join(lines) + "\n", "| 5. Queue time and TTFT |", row)


def test_percentiles_out_of_order() -> None:
    row = _six_signals_row("between 2.5 and 5 s", "≤ 300 ms", "≤ 10 s", "mean 2 s")
    assert "percentile-order" in _kinds(_with_latency_row(row), exit_code=1)


def test_a_percentile_the_mean_rules_out() -> None:
    # The case: an interpolated 150 ms p50 beside a mean of 0.02 ms.
    row = _six_signals_row("150 ms", "285 ms", "297 ms", "mean 0.0197 ms")
    assert "percentile-mean" in _kinds(_with_latency_row(row), exit_code=1)
    honest = _six_signals_row("≤ 0.0394 ms", "≤ 0.394 ms", "≤ 1.97 ms", "mean 0.0197 ms")
    assert "percentile-mean" not in _kinds(_with_latency_row(honest), exit_code=1)


def test_prefill_above_ttft() -> None:
    row = _six_signals_row("10 ms", "20 ms", "40 ms", "mean 11 ms; prefill p50 150 ms")
    assert "part-above-ttft" in _kinds(_with_latency_row(row), exit_code=1)
    ok = _six_signals_row("10 ms", "20 ms", "40 ms", "mean 11 ms; prefill p50 ≤ 10 ms")
    assert "part-above-ttft" not in _kinds(_with_latency_row(ok), exit_code=1)


@pytest.mark.parametrize(
    "planted",
    [
        "| peak KV cache usage | 100 % | ≥ 0.90: the pool fills up |",
        "The probe took 0.025 s.",
        "The probe took 1,500 ms.",
    ],
)
def test_mixed_units(planted: str) -> None:
    md = _plant(
        _clean(), "| peak KV cache usage |" if planted.startswith("|") else "**Proof:**", planted
    )
    assert "mixed-units" in _kinds(md, exit_code=1)


def test_too_many_lines_above_the_fold() -> None:
    md = _clean()
    assert visible_lines(md) <= 60
    padded = _plant(md, "**Proof:**", "\n".join(f"line {i}" for i in range(60)))
    assert "too-long" in _kinds(padded, exit_code=1)
    assert "too-long" not in _kinds(padded, exit_code=1, max_visible=None)


def test_visible_lines_count_a_folded_block_as_its_summary() -> None:
    md = "a\n\n<details><summary>More</summary>\n\nx\ny\nz\n\n</details>\nb\n"
    assert visible_lines(md) == 4


def test_a_json_flag_in_the_engine_arguments_table_is_the_command_line_not_a_dump() -> None:
    value = '`{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`'
    lines = _clean().splitlines()
    at = lines.index("| flag | value |") + 1  # the table's separator row
    lines.insert(at + 1, f"| `--kv-transfer-config` | {value} |")
    assert "raw-json" not in _kinds("\n".join(lines) + "\n", exit_code=1)
    # The same JSON in any other table is still a dump.
    dumped = _plant(_clean(), "| peak KV cache usage |", f"| what | — | {value} |")
    assert "raw-json" in _kinds(dumped, exit_code=1)


def test_the_operators_notes_are_quoted_not_judged() -> None:
    notes = "| notes | TTFT went from ~0.2 s to minutes after the change |"
    md = _plant(_clean(), "| bundle |", notes)
    assert "mixed-units" not in _kinds(md, exit_code=1)
    # The same words in the report's own text are judged.
    assert "mixed-units" in _kinds(_plant(_clean(), "**Proof:**", "TTFT was 0.2 s."), exit_code=1)
