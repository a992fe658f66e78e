"""The three fleet playbooks over fleet signals: each fires at its boundary and not below it.

Replica results are built with only what the fleet signals read (kvdoctor/fleet/signals.py),
then the playbooks (playbooks/fleet/*.yaml) are evaluated by the rule engine, as
kvdoctor.fleet.diagnose does.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kvdoctor.fleet.diagnose import ReplicaResult, fleet_findings
from kvdoctor.fleet.signals import drift_signals, imbalance_signals, stale_signals
from kvdoctor.report.model import Finding, Report
from kvdoctor.rules.evaluate import evaluate_fleet
from kvdoctor.rules.load import load_fleet_playbooks
from kvdoctor.signals.fleet import COOL_KV_USAGE_MAX, HOT_WAITING_MEAN, LOAD_SKEW, FleetSignals

T0 = 1_700_000_000.0
PLAYBOOKS = load_fleet_playbooks()


def _replica(
    key: str,
    signals: dict[str, Any],
    *,
    trouble: bool = False,
    status: str = "up",
    last_up: float | None = 1.0,
) -> ReplicaResult:
    findings = []
    if trouble:
        findings = [
            Finding(
                id="preemption",
                symptom="preemption",
                cause="kv-capacity",
                status="suspected",
                severity="warning",
                confidence=0.8,
                title="t",
            )
        ]
    data = SimpleNamespace(
        metric_names=frozenset(),
        health=SimpleNamespace(last_up=last_up),
        bundle=SimpleNamespace(scrapes=[]),
    )
    report = Report(verdict="degraded" if trouble else "healthy", findings=findings)
    return ReplicaResult(key, "vllm", data, report, signals, None, status)  # type: ignore[arg-type]


def _eval(views: list[FleetSignals], pb_id: str) -> list[Finding]:
    return [f for f in evaluate_fleet(views, PLAYBOOKS) if f.id == pb_id]


def _traffic(prompt_tokens_per_s: float, **extra: Any) -> dict[str, Any]:
    # No series: arrivals are unknown, so prompt tokens (the next measure) decide.
    return {"prompt_tokens_per_s": prompt_tokens_per_s, **extra}


HOT = {
    "preemptions_window": 0,
    "waiting_mean": HOT_WAITING_MEAN,
    "waiting_max": 4,
    "kv_usage_max": 0.97,
}
COOL = {
    "preemptions_window": 0,
    "waiting_mean": 0.0,
    "waiting_max": 0,
    "kv_usage_max": COOL_KV_USAGE_MAX,
}


# --------------------------------------------------------------------------- imbalance


@pytest.mark.parametrize(
    ("busy_load", "fires"),
    [(100.0 * LOAD_SKEW, True), (100.0 * LOAD_SKEW - 0.01, False)],
)
def test_imbalance_fires_from_the_load_skew_threshold(busy_load: float, fires: bool) -> None:
    replicas = [
        _replica("a:1", _traffic(busy_load, **HOT)),
        _replica("b:1", _traffic(100.0, **COOL)),
    ]
    found = _eval([imbalance_signals(replicas)], "fleet-imbalance")
    assert bool(found) is fires
    if fires:
        f = found[0]
        assert (f.symptom, f.cause, f.status, f.severity) == (
            "high-ttft",
            "routing-imbalance",
            "suspected",
            "warning",
        )
        assert [(e.signal, e.value) for e in f.evidence] == [
            ("replicas", "a:1"),
            ("idle_replicas", "b:1"),
            ("prompt_tokens_per_s", LOAD_SKEW),
        ]
        assert f.title.startswith("Routing imbalance: a:1 queue requests while b:1 sit idle")
        assert "(prompt_tokens_per_s 1.5× higher)" in f.title
        assert f.confidence == pytest.approx(0.75)
        assert f.remediation[1].endswith("pins heavy traffic to a:1")


def test_busy_and_idle_are_judged_at_their_thresholds() -> None:
    below_hot = {**HOT, "waiting_mean": HOT_WAITING_MEAN - 0.01}
    above_cool = {**COOL, "kv_usage_max": COOL_KV_USAGE_MAX + 0.01}
    for busy, idle in ((below_hot, COOL), (HOT, above_cool)):
        replicas = [
            _replica("a:1", _traffic(1000.0, **busy)),
            _replica("b:1", _traffic(10.0, **idle)),
        ]
        assert _eval([imbalance_signals(replicas)], "fleet-imbalance") == []


def test_a_preempting_busy_replica_is_reported_under_preemption_and_idle_without_traffic() -> None:
    replicas = [
        _replica("a:1", _traffic(50.0, **{**HOT, "preemptions_window": 3})),
        _replica("b:1", _traffic(0.0, **COOL)),
    ]
    (f,) = _eval([imbalance_signals(replicas)], "fleet-imbalance")
    assert f.symptom == "preemption"
    assert "a:1 preempt while b:1" in f.title and "(prompt_tokens_per_s ∞ higher)" in f.title
    assert f.evidence[2].value == "inf" and f.confidence == pytest.approx(0.9)


def test_an_imbalance_set_does_not_make_the_other_fleet_findings() -> None:
    replicas = [_replica("a:1", _traffic(500.0, **HOT)), _replica("b:1", _traffic(100.0, **COOL))]
    found = evaluate_fleet([imbalance_signals(replicas)], PLAYBOOKS)
    assert [f.id for f in found] == ["fleet-imbalance"]


# --------------------------------------------------------------------------- config drift


def test_drift_names_the_replica_that_differs_from_the_majority() -> None:
    same = {"num_gpu_blocks": 1000, "prefix_caching": True}
    replicas = [
        _replica("a:1", same),
        _replica("b:1", same),
        _replica("c:1", {**same, "prefix_caching": False}, trouble=True),
    ]
    (f,) = _eval(drift_signals(replicas), "fleet-config-drift")
    assert (f.symptom, f.cause, f.severity, f.confidence) == (
        "prefix-miss",
        "replica-config-drift",
        "warning",
        0.8,
    )
    assert f.title == (
        "Replica c:1 runs different engine settings than its peers: "
        "prefix_caching=False (peers: True) — and it is the one in trouble"
    )
    assert [(e.signal, e.value, e.expected) for e in f.evidence] == [
        ("replicas", "c:1", "same settings as a:1, b:1"),
        ("prefix_caching", False, "on, as on the other replicas"),
    ]
    assert f.remediation[0].startswith("Deploy c:1 with the same vLLM version")


def test_identical_replicas_do_not_drift() -> None:
    same = {"num_gpu_blocks": 1000, "block_size": 16}
    assert drift_signals([_replica("a:1", same), _replica("b:1", same)]) == []
    assert _eval(drift_signals([_replica("a:1", same)]), "fleet-config-drift") == []


def test_without_a_majority_only_the_replica_in_trouble_is_named() -> None:
    replicas = [
        _replica("a:1", {"num_gpu_blocks": 1000}),
        _replica("b:1", {"num_gpu_blocks": 17}, trouble=True),
    ]
    (f,) = _eval(drift_signals(replicas), "fleet-config-drift")
    assert f.evidence[0].value == "b:1" and f.confidence == 0.8
    assert f.evidence[1].expected == "the same value on every replica"
    # Neither in trouble: both are named, with the lower confidence.
    calm = [_replica("a:1", {"num_gpu_blocks": 1000}), _replica("b:1", {"num_gpu_blocks": 17})]
    found = _eval(drift_signals(calm), "fleet-config-drift")
    assert [(f.evidence[0].value, f.confidence) for f in found] == [("a:1", 0.5), ("b:1", 0.5)]
    assert "one in trouble" not in found[0].title


# --------------------------------------------------------------------------- stale targets


def test_stale_fires_on_one_replica_not_up_and_not_when_all_are() -> None:
    up = [_replica("a:1", {}), _replica("b:1", {})]
    assert _eval([stale_signals(up, ())], "fleet-stale-targets") == []
    replicas = [_replica("a:1", {}), _replica("b:1", {}, status="down", last_up=0.0)]
    (f,) = _eval([stale_signals(replicas, ())], "fleet-stale-targets")
    assert (f.symptom, f.cause, f.severity, f.confidence) == (
        "high-ttft",
        "stale-or-missing-targets",
        "warning",
        0.9,
    )
    assert f.title == "Stale or missing targets: b:1 down (their load lands on the others)"
    assert [(e.signal, e.value) for e in f.evidence] == [("replicas", "b:1"), ("up[b:1]", 0.0)]
    assert "(Prometheus targets page, pod status)" in f.remediation[0]
    assert len(f.remediation) == 1


def test_stale_direct_endpoints_show_their_scrapes() -> None:
    replicas = [_replica("a:1", {}), _replica("b:1", {}, status="stale")]
    (f,) = _eval([stale_signals(replicas, (), via_prometheus=False)], "fleet-stale-targets")
    assert [e.signal for e in f.evidence] == ["replicas", "scrapes_ok[b:1]"]
    assert f.evidence[1].value == "0 of 0"
    assert "the network path from here to its /metrics" in f.remediation[0]


def test_fleet_findings_come_in_the_order_imbalance_drift_stale() -> None:
    replicas = [
        _replica("a:1", _traffic(500.0, **HOT, num_gpu_blocks=17), trouble=True),
        _replica("b:1", _traffic(100.0, **COOL, num_gpu_blocks=1000)),
        _replica("c:1", _traffic(100.0, **COOL, num_gpu_blocks=1000), status="stale"),
    ]
    found = fleet_findings(replicas)
    assert [f.id for f in found] == ["fleet-imbalance", "fleet-config-drift", "fleet-stale-targets"]
