"""The Markdown and JSON renderers, on Report objects built by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import jsonschema
import pytest
from _report_factory import context, finding, report
from markdown_it import MarkdownIt

from kvdoctor.bundle.model import NotChecked
from kvdoctor.errors import KvdoctorError
from kvdoctor.report.checker import check_report, exit_code_for
from kvdoctor.report.model import Evidence, Report, ReproducerOutcome
from kvdoctor.report.render import render_json, render_markdown

FOLD_HTML = r"(<details><summary>[^<>]*</summary>|</details>)"

ROOT = Path(__file__).resolve().parents[2]
MD = MarkdownIt("commonmark").enable("table")


def _tables(markdown: str) -> list[list[int]]:
    """Cells per row of every table (header row included)."""
    tables: list[list[int]] = []
    cells = 0
    for tok in MD.parse(markdown):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            cells = 0
        elif tok.type in ("td_open", "th_open"):
            cells += 1
        elif tok.type == "tr_close":
            tables[-1].append(cells)
    return tables


def test_primary_finding_status_and_first_change_are_in_the_first_15_lines() -> None:
    top = "\n".join(render_markdown(report(), context()).splitlines()[:15])
    assert "Live KV demand exceeds the pool" in top
    assert "**confirmed** by reproducer `capacity-ramp`" in top
    assert "**Change first:** Lower `--max-num-seqs` from 64 to 16" in top


def test_suspected_primary_says_it_is_not_confirmed() -> None:
    r = report(findings=[finding(status="suspected", reproducer=None)])
    top = "\n".join(render_markdown(r, context(reproducers=[])).splitlines()[:15])
    assert "**suspected** (not confirmed by a reproducer)" in top


def test_locker_full_not_the_card_when_kv_is_full_without_oom() -> None:
    text = render_markdown(report(), context())
    assert "The KV cache is full, not GPU memory: KV cache usage reached 100 %" in text
    r = report(signals={**report().signals, "gpu_memory_used_fraction": 0.72})
    assert "while GPU memory stayed at 72 %" in render_markdown(r, context())


def test_no_locker_sentence_when_the_card_is_full_or_kv_is_low() -> None:
    oom = report(signals={**report().signals, "log_oom": True})
    text = render_markdown(oom, context())
    assert "not the card" not in text
    assert "the server log shows an out-of-memory error" in text
    queueing = report(
        verdict="degraded",
        findings=[
            finding(
                id="high-ttft",
                symptom="high-ttft",
                cause="queueing",
                severity="warning",
                title="Requests queue ahead of admission",
            )
        ],
        signals={**report().signals, "kv_usage_max": 0.12},
    )
    text = render_markdown(queueing, context())
    assert "but the KV cache is not full: its usage peaked at 12 %" in text


def test_a_lead_that_is_not_the_full_pool_speaks_first() -> None:
    # External case zzg-engine-death: the engine died in its KV connector with the pool full;
    # "The KV cache is full, not GPU memory" first would send the reader to the cache.
    died = report(
        verdict="critical",
        findings=[
            finding(
                id="high-ttft",
                symptom="high-ttft",
                cause="engine-died",
                severity="critical",
                title="The engine died while serving",
            )
        ],
        signals={**report().signals, "kv_usage_max": 0.98, "preemptions_window": 3},
    )
    text = render_markdown(died, context())
    assert (
        "**Verdict: critical.** The engine died while serving. The KV cache had filled too: "
        "its usage reached 98 % with 3 preemptions in the window."
    ) in text
    assert "The KV cache is full, not" not in text
    # A lead whose story is the pool keeps the full-pool sentence.
    queued = died.model_copy(
        update={"findings": [died.findings[0].model_copy(update={"cause": "kv-admission"})]}
    )
    assert "The KV cache is full, not GPU memory" in render_markdown(queued, context())


def test_healthy_report_states_the_numbers() -> None:
    healthy = report(
        verdict="healthy",
        findings=[],
        signals={
            **report().signals,
            "kv_usage_max": 0.41,
            "preemptions_window": 0,
            "waiting_max": 0,
        },
    )
    ctx = context(
        healthy_evidence=[Evidence(signal="kv_usage_max", value=0.41, expected="below 0.90")]
    )
    text = render_markdown(healthy, ctx)
    assert "The KV cache is fine: its usage peaked at 41 %, 0 preemptions" in text
    assert "| peak KV cache usage | 41 % | below 90 % |" in text
    assert "**Change first:** nothing to change" in text


def test_unknown_verdict_points_at_not_checked() -> None:
    text = render_markdown(report(verdict="unknown", findings=[]), context())
    assert "kvdoctor could not judge the KV cache" in text


def test_six_signals_have_percentiles_and_sparklines() -> None:
    text = render_markdown(report(), context())
    kv_row = next(line for line in text.splitlines() if "| KV cache usage |" in line)
    assert "█" in kv_row and "▁" in kv_row
    assert "0 of 512 blocks free at the peak" in kv_row
    preempt_row = next(line for line in text.splitlines() if "preemptions per second" in line)
    assert "42 in the window, 100 since start" in preempt_row
    assert "| time to first token | 123 ms | 1.5 s | 2.5 s |" in text


def test_findings_ruled_out_not_checked_and_reproducer_comparison() -> None:
    text = render_markdown(report(), context())
    # A fraction's expectation reads in the unit of its value (percent), not "below 0.90".
    assert "| peak KV cache usage | 100 % | below 90 % |" in text
    assert "| `knee_concurrency` | 8 | 9 |" in text
    assert "(40 requests sent)" in text
    ruled = text.split("<summary>Ruled out (1)</summary>", 1)[1].split("</details>", 1)[0]
    assert "Prefix caching is off" in ruled and "`prefix-probe` refuted" in ruled
    assert "| GPU memory | no NVIDIA driver |" in text


def test_appendix_uses_bundle_times_and_the_path_as_given() -> None:
    text = render_markdown(report(), context())
    assert "2023-11-14 22:13:20 UTC to 2023-11-14 22:14:20 UTC (60 s)" in text
    assert "| bundle | `fixtures/preemption-storm/bundle` |" in text
    assert "| `--max-num-seqs` | `64` |" in text


def test_rendering_is_deterministic_bytes() -> None:
    a = render_markdown(report(), context())
    b = render_markdown(Report.model_validate(report().to_json_dict()), context())
    assert a == b
    assert a.endswith("\n") and not a.endswith("\n\n")


def test_hostile_server_text_cannot_break_tables_or_inject_html() -> None:
    evil = "m|x\n# owned <img src=x onerror=alert(1)> `tick` [l](javascript:x) **b**"
    r = report(
        signals={**report().signals, "served_model": evil, "cache_dtype": evil},
        findings=[finding(evidence=[Evidence(signal="cache_dtype", value=evil, expected="auto")])],
        not_checked=[NotChecked(what=evil, why=evil)],
    )
    ctx = context(endpoint=evil, source=evil, notes=evil, engine_args={"model": evil, evil: 1})
    text = render_markdown(r, ctx)
    tokens = MD.parse(text)
    # The only HTML is kvdoctor's own folding (<details>/<summary>), never text from the server.
    html = [t for t in tokens if t.type in ("html_block", "html_inline")]
    assert all(re.fullmatch(FOLD_HTML, t.content.strip()) for t in html), html
    assert not [t for t in html if "owned" in t.content or "img" in t.content]
    for t in tokens:
        assert not [c for c in t.children or [] if c.type in ("html_inline", "link_open")]
    headings = [t for t in tokens if t.type == "heading_open"]
    assert all("owned" not in tokens[tokens.index(h) + 1].content for h in headings)
    for table in _tables(text):
        assert len(set(table)) == 1, f"a row has a different number of cells: {table}"


def test_strict_undefined_catches_template_mistakes(tmp_path: Path) -> None:
    (tmp_path / "report.md.j2").write_text("{{ no_such_value }}\n")
    with pytest.raises(jinja2.UndefinedError):
        render_markdown(report(), context(), template_dir=str(tmp_path))


def test_json_follows_the_contract_and_the_published_schema() -> None:
    text = render_json(report())
    data = json.loads(text)
    assert next(iter(data)) == "schema" and data["schema"] == "kvdoctor.report/1"
    assert [f["status"] for f in data["findings"]] == ["confirmed", "refuted"]
    schema = json.loads((ROOT / "schema" / "report.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert text == render_json(Report.model_validate(data))


def test_json_refuses_non_finite_numbers() -> None:
    with pytest.raises(KvdoctorError, match="non-finite"):
        render_json(report(signals={"kv_usage_max": float("nan")}))


def test_basis_and_look_alikes_are_on_the_first_screen() -> None:
    f = finding(
        basis="baseline: TTFT p95 of this server's quiet minutes, 120 ms",
        why_not=["not eviction churn: an exact repeat hits every block", "not caching off"],
    )
    text = render_markdown(report(findings=[f]), context())
    top = text.split("## The six signals", 1)[0]
    assert "Judged against: baseline: TTFT p95 of this server's quiet minutes, 120 ms." in top
    assert "- not eviction churn: an exact repeat hits every block" in top
    assert "- not caching off" in top


def test_only_six_evidence_rows_above_the_fold() -> None:
    rows = [Evidence(signal="running_max", value=i, expected=f"row {i}") for i in range(9)]
    text = render_markdown(report(findings=[finding(evidence=rows)]), context())
    top = text.split("## The six signals", 1)[0]
    assert "| row 5 |" in top and "| row 6 |" not in top
    assert "| row 6 |" in text and "| row 8 |" in text


def test_a_cause_ruled_out_twice_is_one_row() -> None:
    refuted = finding(
        status="refuted",
        cause="caching-disabled",
        symptom="prefix-miss",
        id="prefix-miss",
        title="Prefix caching is off",
        reproducer=ReproducerOutcome(name="prefix-probe", verdict="refuted"),
    )
    r = report(findings=[finding(), refuted, refuted.model_copy(update={"id": "other"})])
    text = render_markdown(r, context())
    assert text.count("| Prefix caching is off (`prefix-miss/caching-disabled`) |") == 1
    assert check_report(text, r, exit_code=exit_code_for(r)) == []


@pytest.mark.parametrize(
    ("extra", "sentence"),
    [
        (
            {"log_no_cache_memory": True, "log_oom": True},
            "the server found no memory left for KV cache blocks",
        ),
        ({"log_oom": True}, "the server log shows an out-of-memory error"),
        ({"gpu_memory_used_fraction": 0.99}, "GPU memory reached 99 %"),
    ],
)
def test_the_card_full_sentence_names_its_strongest_proof(
    extra: dict[str, object], sentence: str
) -> None:
    r = report(signals={**report().signals, **extra})
    text = render_markdown(r, context())
    assert "GPU memory is full, not just the KV cache:" + " " + sentence in text


def test_the_verdict_sentence_words_the_facts_the_rules_decided() -> None:
    # The renderer decides nothing: the same signals with facts that say otherwise read as
    # the facts say (report/1.6), and a report without facts (older minor) claims no full card.
    from kvdoctor.report.model import VerdictFacts

    oom = {**report().signals, "log_oom": True}
    decided = report(signals=oom)
    assert decided.facts.card_full and decided.facts.card_full_reason == "oom-log"
    assert "GPU memory is full, not just the KV cache" in render_markdown(decided, context())
    unsaid = report(signals=oom, facts=VerdictFacts())
    assert "GPU memory is full" not in render_markdown(unsaid, context())


def test_an_idle_window_says_so_and_exits_non_zero() -> None:
    from kvdoctor.report.checker import check_report, exit_code_for

    idle = {
        "scrapes_ok": 30,
        "window_s": 120.0,
        "kv_usage_max": 0.0,
        "running_max": 0,
        "waiting_max": 0,
        "requests_finished_window": 0,
        "prompt_tokens_per_s": 0.0,
        "generation_tokens_per_s": 0.0,
    }
    r = report(verdict="unknown", findings=[], signals=idle)
    text = render_markdown(r, context())
    assert "**Verdict: unknown.** The window saw no traffic" in text
    assert exit_code_for(r) == 1
    assert check_report(text, r, exit_code=exit_code_for(r)) == []


def test_an_unidentified_primary_states_its_open_question_on_the_first_screen() -> None:
    from kvdoctor.report.model import DifferentialEntry, OpenQuestion

    question = OpenQuestion(
        symptom="prefix-miss",
        title="No prefix-cache hits over prompts of several blocks",
        seen="0% of 51,206 looked-up prompt tokens hit",
        differential=[
            DifferentialEntry(cause="prefix-drift", confirm="an early difference"),
            DifferentialEntry(cause="unshared-traffic", confirm="the prompts share nothing"),
        ],
        decide_with="kvdoctor diagnose again with --prompts sample.jsonl",
    )
    lead = finding(
        id="prefix-miss",
        symptom="prefix-miss",
        cause="unidentified",
        status="suspected",
        severity="warning",
        confidence=0.5,
        title="Prefix-cache hits are missing (or the prompts share nothing): cause not identified",
        why_not=["not caching-disabled: prefix caching is on"],
        remediation=["Compare the token IDs of two requests meant to share a prefix"],
    )
    rep = report(verdict="degraded", findings=[lead], undecided=[question])
    md = render_markdown(rep, context())
    first_screen = md[: md.index("**Change first:**")]
    assert "**Undecided (prefix-miss):**" in first_screen
    assert "- `unshared-traffic`: the prompts share nothing" in first_screen
    assert "Why this and not a look-alike" not in first_screen
    # Stated once: not folded again below.
    assert md.count("No prefix-cache hits over prompts of several blocks") == 1
    assert check_report(md, rep) == []
