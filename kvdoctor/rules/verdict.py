"""The overall verdict: critical / degraded from the findings, inconclusive, unknown, or
healthy only when the numbers that show a healthy KV cache are known."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from kvdoctor.report.model import (
    CardFullReason,
    Evidence,
    Finding,
    OpenQuestion,
    Verdict,
    VerdictFacts,
)
from kvdoctor.rules.conditions import Context, eval_clause
from kvdoctor.rules.explain import evidence_value, signal_label
from kvdoctor.rules.predicates import SignalView
from kvdoctor.rules.runtime import Condition, Group
from kvdoctor.signals.model import SignalSet
from kvdoctor.signals.window import idle_window
from kvdoctor.thresholds import CARD_FULL, POOL_FULL
from kvdoctor.vocab import ACTIVE_STATUSES


# The rows below are written here, not read from a playbook: built as runtime clauses
# (kvdoctor.rules.runtime), without validation, so that importing this module (every replay
# does) does not import the pydantic playbook schema. tests/rules/test_verdict_rows.py validates
# every row's clauses against the schema, so a malformed one still fails CI.
def _condition(**fields: Any) -> Condition:
    return Condition(**fields)


def _group(**parts: Any) -> Group:
    return Group(**parts)


class _HealthRow(NamedTuple):
    """One number behind a healthy verdict: what healthy looks like, as a condition and in
    words, and the words for a value that does not meet it (the row never says "never filled"
    beside a pool that filled: a healthy verdict only means no symptom showed harm)."""

    signal: str
    required: bool  # must be known to call the server healthy
    holds: Condition | None
    healthy: str
    otherwise: str = ""
    # A required number may stand unknown where this condition holds and makes its harm
    # impossible (a release without the counter, a pool that never came near full).
    unknown_ok: Condition | Group | None = None


# The numbers that must be known to call the locker healthy, and what healthy looks like.
_HEALTH: tuple[_HealthRow, ...] = (
    _HealthRow(
        "kv_usage_max",
        True,
        _condition(signal="kv_usage_max", op="<", value=POOL_FULL),
        f"below {POOL_FULL:.2f}: the KV pool never filled",
        f"≥ {POOL_FULL:.2f}: the KV pool filled at its peak, and no symptom shows harm from it",
    ),
    _HealthRow(
        "preemptions_window",
        True,
        _condition(signal="preemptions_window", op="==", value=0),
        "0: no sequence lost its KV blocks",
        "> 0: some sequences lost their KV blocks, fewer than the preemption check counts as harm",
        # A release without the preemption counter (external case zn-l4-multiturn: vLLM 0.4.2
        # counts tokens and requests, not preemptions): vLLM preempts only a sequence it cannot
        # give a block, and a pool under half full at every scrape had blocks to give. A
        # capture that lacks the server's other counters too (a partial series) stays unknown.
        # A server read from its log alone (no vLLM metrics) whose log would show a preemption
        # and shows none (external case zu-ngram: vLLM 0.6.6's demo API server, no /metrics).
        unknown_ok=_group(
            any=[
                _group(
                    all=[
                        _condition(signal="kv_usage_max", op="<", value=0.5),
                        _group(
                            any=[
                                _group(
                                    all=[
                                        _condition(
                                            signal="requests_finished_window", op=">=", value=0
                                        ),
                                        _condition(
                                            signal="generation_tokens_per_s", op=">=", value=0
                                        ),
                                    ]
                                ),
                                # A release of gauges only, which counts neither preemptions
                                # nor tokens (external case zzq-litellm-proxy, holdout-15:
                                # vLLM 0.2.6, the pool at 6 % at most).
                                _condition(signal="release_counts_no_tokens", op="==", value=True),
                            ]
                        ),
                    ]
                ),
                _group(
                    all=[
                        _condition(signal="series_from_log", op="==", value=True),
                        _condition(signal="log_reports_preemptions", op="==", value=True),
                        _condition(signal="log_preemption_warnings", op="==", value=0),
                    ]
                ),
            ]
        ),
    ),
    _HealthRow(
        "waiting_max",
        True,
        _condition(signal="waiting_max", op="==", value=0),
        "0: requests are admitted at once",
        "≥ 1: requests waited, and the first-token check did not count the wait as harm",
    ),
    _HealthRow(
        "prefix_hit_rate_window", False, None, "what the workload shares (window, not lifetime)"
    ),
    _HealthRow("ttft_p95", False, None, "seconds, not tens of seconds"),
    _HealthRow("itl_p95", False, None, "steady decode speed"),
    _HealthRow(
        "gpu_memory_used_fraction",
        False,
        _condition(signal="gpu_memory_used_fraction", op="<", value=CARD_FULL),
        f"below {CARD_FULL:.2f}: the card has room",
        f"≥ {CARD_FULL:.2f}: the card is at its limit, and no symptom shows harm from it",
    ),
)


def healthy_evidence(signals: SignalSet) -> list[Evidence]:
    """The numbers that show the locker is fine (those the window has), for the report: each
    row's words are those its own number meets (``met`` as the engine evaluated it)."""
    view = SignalView(signals)
    ctx = Context(view)
    out: list[Evidence] = []
    for row in _HEALTH:
        v = view.value(row.signal)
        if v is None:
            continue
        met = eval_clause(row.holds, ctx) if row.holds is not None else None
        expected = row.otherwise if met is False else row.healthy
        # The words chosen are the condition the number meets: the row is met as worded.
        met = None if met is None else True
        out.append(
            Evidence(
                signal=row.signal,
                label=signal_label(row.signal),
                value=evidence_value(v),
                expected=expected,
                met=met,
            )
        )
    return out


def overall_verdict(
    findings: list[Finding], signals: SignalSet, undecided: Sequence[OpenQuestion] = ()
) -> Verdict:
    """critical / degraded from active findings; inconclusive when a symptom the operator would
    care about cannot be decided; healthy only when the health numbers are known."""
    active = [f for f in findings if f.status != "refuted"]
    if any(f.severity == "critical" for f in active):
        return "critical"
    if any(f.severity == "warning" for f in active):
        return "degraded"
    if undecided:
        return "inconclusive"
    view = SignalView(signals)
    scrapes = view.num("scrapes_ok")
    if scrapes is None or scrapes <= 0:
        return "unknown"
    ctx = Context(view)
    for row in _HEALTH:
        if not row.required or view.value(row.signal) is not None:
            continue
        if row.unknown_ok is None or eval_clause(row.unknown_ok, ctx) is not True:
            return "unknown"
    if idle_window({name: signals.get(name) for name in signals.values}):
        # Nothing ran, waited, finished or moved a token: the window holds no evidence about
        # the KV cache either way, and "healthy" would be a claim it cannot back (external
        # case: a capture taken after the test had ended, on a server whose cache missed).
        return "unknown"
    return "healthy"


def verdict_facts(signals: Mapping[str, object], findings: Sequence[Finding]) -> VerdictFacts:
    """The facts the verdict sentence states, from the bundle's numbers alone (report/1.6).

    ``signals`` is the report's flat signal map, so a fleet's report gets its facts the same
    way as one server's.
    """

    def num(name: str) -> float | None:
        v = signals.get(name)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    gpu_fraction = num("gpu_memory_used_fraction")
    # Only what the bundle shows: an out-of-memory line, vLLM finding no memory for the pool,
    # or NVML at the top of the card. A gpu-oom finding alone is not evidence the card is full
    # (a start-up refusal of max_model_len happens on a card with room).
    reason: CardFullReason | None = None
    if signals.get("log_no_cache_memory") is True:
        reason = "no-cache-memory"
    elif signals.get("log_oom") is True:
        reason = "oom-log"
    elif gpu_fraction is not None and gpu_fraction >= CARD_FULL:
        reason = "gpu-fraction"
    card_full = reason is not None
    lead = next((f for f in findings if f.status in ACTIVE_STATUSES), None)
    kv_max = num("kv_usage_max")
    return VerdictFacts(
        card_full=card_full,
        card_full_reason=reason,
        refused_start=(
            lead is not None
            and lead.symptom == "gpu-oom"
            and signals.get("log_max_model_len_exceeds_kv") is True
            and not card_full
        ),
        kv_full=kv_max is not None and kv_max >= POOL_FULL,
        idle_window=idle_window(signals),
        server_restarted=bool(signals.get("counter_resets")),
    )
