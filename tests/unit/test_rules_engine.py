"""The rule engine's logic: three-valued conditions, ranking, reproducers, verdicts, formatting."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from kvdoctor.report.model import Finding
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.rules.conditions import Context, eval_clause
from kvdoctor.rules.evaluate import evaluate
from kvdoctor.rules.formatting import (
    MissingValue,
    human,
    placeholders_as_names,
    render,
    render_or,
    template_fields,
)
from kvdoctor.rules.load import load_playbooks, runtime_of
from kvdoctor.rules.predicates import SignalView
from kvdoctor.rules.runtime import Clause
from kvdoctor.rules.schema import Condition, Group
from kvdoctor.rules.verdict import healthy_evidence, overall_verdict
from kvdoctor.signals.model import SignalSet

PLAYBOOKS = load_playbooks()


def sigs(**values: Any) -> SignalSet:
    s = SignalSet()
    for k, v in values.items():
        s.set(k, v, provenance="unit test")
    return s


def clause(data: dict[str, Any]) -> Clause:
    """``data`` validated by the playbook schema, as the engine reads it."""
    valid = Group.model_validate(data) if {"all", "any", "none"} & set(data) else Condition(**data)
    return runtime_of(valid)


def ev(data: dict[str, Any], **values: Any) -> bool | None:
    return eval_clause(clause(data), Context(SignalView(sigs(**values))))


# ------------------------------------------------------------------------ three-valued logic


def test_missing_signal_is_unknown_not_false() -> None:
    c = {"signal": "kv_usage_max", "op": ">=", "value": 0.9}
    assert ev(c) is None
    assert ev(c, kv_usage_max=0.95) is True
    assert ev(c, kv_usage_max=0.5) is False


def test_all_any_none_with_unknowns() -> None:
    a = {"signal": "kv_usage_max", "op": ">=", "value": 0.9}
    b = {"signal": "waiting_max", "op": ">=", "value": 1}
    assert ev({"all": [a, b]}, kv_usage_max=0.95) is None
    assert ev({"all": [a, b]}, kv_usage_max=0.5) is False
    assert ev({"any": [a, b]}, kv_usage_max=0.5) is None
    assert ev({"any": [a, b]}, waiting_max=3) is True
    # none: an exclusion; only what is known to hold excludes.
    assert ev({"none": [a]}) is True
    assert ev({"none": [a]}, kv_usage_max=0.95) is False
    assert ev({"all": [b], "none": [a]}, waiting_max=2, kv_usage_max=0.5) is True


def test_value_from_with_scale_and_type_mismatches() -> None:
    c = {"signal": "itl_p95", "op": "<=", "value_from": "itl_p50", "scale": 1.5}
    assert ev(c, itl_p95=0.15, itl_p50=0.1) is True
    assert ev(c, itl_p95=0.16, itl_p50=0.1) is False
    assert ev(c, itl_p95=0.16) is None
    # A string compared with a number, or ordered string comparisons, are unknown.
    assert ev({"signal": "cache_dtype", "op": ">", "value": 1}, cache_dtype="fp8") is None
    assert ev({"signal": "cache_dtype", "op": "==", "value": "auto"}, cache_dtype="auto") is True
    assert ev({"signal": "prefix_caching", "op": "==", "value": False}, prefix_caching=0) is None


def test_series_for_fraction() -> None:
    s = sigs()
    s.series["waiting"] = [(0, 0), (1, 1), (2, 2), (3, 3)]
    ctx = Context(SignalView(s))
    half = clause({"series": "waiting", "op": ">=", "value": 2, "for_fraction": 0.5})
    most = clause({"series": "waiting", "op": ">=", "value": 2, "for_fraction": 0.75})
    assert eval_clause(half, ctx) is True
    assert eval_clause(most, ctx) is False
    assert eval_clause(half, Context(SignalView(sigs()))) is None


def test_negative_counter_deltas_and_non_finite_values_are_unknown() -> None:
    view = SignalView(sigs(preemptions_window=-12, kv_usage_max=float("nan"), running_max=-1))
    assert view.value("preemptions_window") is None
    assert view.value("kv_usage_max") is None
    # Gauges are not counters: a negative gauge is passed through (and is someone else's bug).
    assert view.value("running_max") == -1


def test_derived_values() -> None:
    view = SignalView(
        sigs(
            kv_capacity_tokens=134400,
            mean_prompt_len=1000,
            mean_generation_len=400,
            gpu_memory_utilization=0.95,
            gpu_memory_used_fraction=0.5,
            prefix_queries_window=1000,
            prefix_hits_window=600,
            prompt_tokens_recomputed_window=500,
        )
    )
    assert view.value("seq_tokens") == 1400
    assert view.value("seqs_that_fit") == 96
    # Already at the cap: no higher utilization to suggest.
    assert view.value("suggested_gpu_memory_utilization_up") is None
    assert view.value("suggested_gpu_memory_utilization_down") == 0.9
    assert view.value("prefix_hit_rate_effective") == pytest.approx(0.2)
    assert SignalView(sigs(log_kv_cache_tokens=5000)).value("capacity_tokens") == 5000


# ---------------------------------------------------------------------------- formatting


def test_human_formatting() -> None:
    assert human(1400) == "1,400"
    assert human(1400.0) == "1,400"
    assert human(0.95) == "0.95"
    assert human(0.123456) == "0.123"
    assert human(True) == "on"
    assert human(8192, separators=False) == "8192"


def test_render_specs_and_missing_values() -> None:
    values: dict[str, Any] = {"a": 8192, "b": 0.3, "c": None, "s": "fp8"}
    assert render("{a} / {a:plain} / {b:.0%} / {s:>5}", values.get) == "8,192 / 8192 / 30% / fp8"
    with pytest.raises(MissingValue):
        render("x {c}", values.get)
    assert render_or("x {c}", ["fallback {a:plain}"], values.get) == "fallback 8192"
    assert render_or("x {c}", ["y {c}", "z {b}"], values.get) == "z 0.3"
    assert render_or("x {c}", [], values.get) == "x unknown"
    assert render("{{literal}}", values.get) == "{literal}"
    assert placeholders_as_names("from {a:plain} to {b}") == "from <a> to <b>"
    assert placeholders_as_names("{a:plain}", markdown=True) == "`<a>`"


@pytest.mark.parametrize(
    "bad", ["{a.b}", "{a[0]}", "{0}", "{}", "{a!r}", "{a:{b}}", "{A}", "unclosed {"]
)
def test_template_fields_reject_anything_but_names(bad: str) -> None:
    with pytest.raises(ValueError):
        template_fields(bad)


# ------------------------------------------------------------------------ ranking, records


def _recs(*raw: dict[str, Any]) -> list[ReproducerRecord]:
    return [ReproducerRecord.model_validate({"started_at": 0.0, "ended_at": 0.0, **r}) for r in raw]


def _ids(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.symptom, f.cause, f.status) for f in findings]


def test_ranking_severity_then_status_then_confidence() -> None:
    """docs/report.md: severity first, then status, then confidence; a confirmed warning never
    outranks a suspected critical finding (it once made the report lead with the lesser harm)."""
    signals = sigs(
        kv_usage_max=0.97,
        preemptions_window=20,
        preemptions_per_s=2.0,  # critical
        cache_dtype="fp8",  # warning, low confidence
        prefix_caching=False,  # warning
        log_no_cache_memory=True,  # critical, high confidence
    )
    records = _recs(
        {"name": "quant-canary", "verdict": "confirmed", "measured": {"token_agreement": 0.5}}
    )
    got = _ids(evaluate(signals, records, PLAYBOOKS))
    assert got[0] == ("gpu-oom", "kv-pool-too-small", "suspected")
    assert got[1] == ("preemption", "kv-capacity", "suspected")
    assert got[2] == ("quant-quality", "fp8-kv-cache", "confirmed")
    assert got[3:] == [("prefix-miss", "caching-disabled", "suspected")]


def test_info_never_outranks_a_live_warning() -> None:
    """A confirmed info note (block larger than the prefix) ranks below a suspected warning."""
    signals = sigs(
        prefix_caching=True,
        prefix_queries_window=1000,
        prefix_hits_window=0,
        prefix_hit_rate_window=0.0,
        mean_prompt_len=100.0,
        block_size=128,
        preemptions_window=3,
        kv_usage_max=0.95,
    )
    records = _recs({"name": "prefix-probe", "verdict": "confirmed", "measured": {}})
    found = evaluate(signals, records, PLAYBOOKS)
    assert (found[0].severity, found[0].cause) == ("warning", "kv-capacity")
    info = [f for f in found if f.cause == "block-larger-than-prefix"]
    assert info and info[0].severity == "info" and info[0].status == "confirmed"


def test_evaluate_is_deterministic() -> None:
    signals = sigs(kv_usage_max=0.97, preemptions_window=20, prefix_caching=False, ttft_p95=3.0)
    first = [f.model_dump() for f in evaluate(signals, None, PLAYBOOKS)]
    second = [f.model_dump() for f in evaluate(signals, None, PLAYBOOKS)]
    assert first == second


def test_shared_reproducer_overall_verdict_does_not_refute_unfired_siblings() -> None:
    # prefix-probe tests four causes: its overall verdict speaks only for causes that fired.
    signals = sigs(prefix_caching=False)
    records = _recs({"name": "prefix-probe", "verdict": "refuted"})
    got = _ids(evaluate(signals, records, PLAYBOOKS))
    assert got == [("prefix-miss", "caching-disabled", "refuted")]


def test_cause_verdict_key_with_playbook_prefix() -> None:
    signals = sigs(prefix_caching=False)
    records = _recs(
        {
            "name": "prefix-probe",
            "verdict": "inconclusive",
            "cause_verdicts": {"prefix-miss/caching-disabled": "confirmed"},
        }
    )
    [f] = evaluate(signals, records, PLAYBOOKS)
    assert (f.cause, f.status) == ("caching-disabled", "confirmed")
    assert f.reproducer is not None and f.reproducer.verdict == "confirmed"


def test_newest_record_by_end_time_not_file_order() -> None:
    signals = sigs(cache_dtype="fp8")
    records = _recs(
        {"name": "quant-canary", "verdict": "refuted", "ended_at": 50.0},
        {"name": "quant-canary", "verdict": "confirmed", "ended_at": 10.0},
    )
    [f] = evaluate(signals, records, PLAYBOOKS)
    assert f.status == "refuted"


def test_unknown_reproducer_names_are_ignored() -> None:
    [f] = evaluate(sigs(cache_dtype="fp8"), _recs({"name": "future-probe", "verdict": "confirmed"}))
    assert f.status == "suspected" and f.reproducer is None


@pytest.mark.parametrize(
    ("record", "needle"),
    [
        ({"verdict": "confirmed"}, "name"),
        ({"name": "quant-canary", "verdict": "maybe"}, "verdict"),
        ({"name": "quant-canary", "verdict": "confirmed", "cause_verdicts": {"x": "yes"}}, "x"),
        ({"name": "quant-canary", "verdict": "confirmed", "measured": [1]}, "measured"),
    ],
)
def test_bad_reproducer_records(record: dict[str, Any], needle: str) -> None:
    # The engine takes typed records: a bad line is refused where the bundle is read (and the
    # pipeline reports it as not checked), before it can reach a rule.
    with pytest.raises(ValidationError) as info:
        ReproducerRecord.model_validate({"started_at": 0.0, "ended_at": 0.0, **record})
    assert needle in str(info.value.errors()[0]["loc"])


# --------------------------------------------------------------------------------- verdicts


def test_verdict_unknown_without_metrics() -> None:
    assert overall_verdict([], sigs()) == "unknown"
    assert overall_verdict([], sigs(scrapes_ok=0, kv_usage_max=0.2)) == "unknown"
    # Metrics but not the numbers that would show health: still unknown.
    assert overall_verdict([], sigs(scrapes_ok=5, kv_usage_max=0.2)) == "unknown"


def test_a_release_without_the_preemption_counter_is_judged_by_its_pool() -> None:
    # vLLM 0.4.2 (external case zn-l4-multiturn): no preemption counter. A pool under half full
    # at every scrape had a block for every sequence, so none can have been preempted.
    quiet = dict(
        scrapes_ok=52,
        waiting_max=0,
        ttft_p95=0.2,
        requests_finished_window=28,
        generation_tokens_per_s=14.0,
    )
    assert overall_verdict([], sigs(kv_usage_max=0.134, **quiet)) == "healthy"
    # A capture holding only the gauges (a partial series in Prometheus) is no such release.
    gauges = sigs(scrapes_ok=52, waiting_max=0, kv_usage_max=0.134)
    assert overall_verdict([], gauges) == "unknown"
    # A pool that came near half full could have preempted between scrapes: unknown.
    assert overall_verdict([], sigs(kv_usage_max=0.5, **quiet)) == "unknown"
    # Waiting unknown is never excused.
    assert overall_verdict([], sigs(scrapes_ok=52, kv_usage_max=0.134)) == "unknown"


def test_verdict_healthy_with_evidence() -> None:
    signals = sigs(
        scrapes_ok=30, kv_usage_max=0.42, preemptions_window=0, waiting_max=0, ttft_p95=0.2
    )
    findings = evaluate(signals, None, PLAYBOOKS)
    assert findings == []
    assert overall_verdict(findings, signals) == "healthy"
    rows = {e.signal: e.value for e in healthy_evidence(signals)}
    assert rows == {
        "kv_usage_max": 0.42,
        "preemptions_window": 0,
        "waiting_max": 0,
        "ttft_p95": 0.2,
    }


def test_verdict_ignores_refuted_and_info_findings() -> None:
    signals = sigs(
        scrapes_ok=30, kv_usage_max=0.42, preemptions_window=0, waiting_max=0, cache_dtype="fp8"
    )
    records = _recs({"name": "quant-canary", "verdict": "refuted"})
    findings = evaluate(signals, records, PLAYBOOKS)
    assert [f.status for f in findings] == ["refuted"]
    assert overall_verdict(findings, signals) == "healthy"
    assert overall_verdict(evaluate(signals, None, PLAYBOOKS), signals) == "degraded"


def test_verdict_critical_from_logs_without_metrics() -> None:
    signals = sigs(log_no_cache_memory=True)
    assert overall_verdict(evaluate(signals, None, PLAYBOOKS), signals) == "critical"


def test_an_idle_window_is_not_called_healthy() -> None:
    quiet = {
        "scrapes_ok": 30,
        "kv_usage_max": 0.0,
        "preemptions_window": 0,
        "waiting_max": 0,
        "running_max": 0,
        "requests_finished_window": 0,
        "prompt_tokens_per_s": 0.0,
        "generation_tokens_per_s": 0.0,
    }
    # Nothing ran, waited, finished or moved a token: nothing about the cache can be judged.
    assert overall_verdict([], sigs(**quiet)) == "unknown"
    # One finished request is traffic: the same numbers then read healthy.
    assert overall_verdict([], sigs(**{**quiet, "requests_finished_window": 1})) == "healthy"
