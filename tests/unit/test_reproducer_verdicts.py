"""Verdict logic of the reproducer experiments, the registry, the plan and the CLI dry run."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kvdoctor.cli import cli
from kvdoctor.errors import KvdoctorError
from kvdoctor.report.model import Finding
from kvdoctor.reproducers.experiments import (
    DEFAULT_SET,
    EXPERIMENTS,
    CanaryRun,
    ReproContext,
    canary_verdict,
    check_allowed,
    compare_runs,
    expected_hit,
    get_experiment,
    itl_verdicts,
    plan_for,
    predicted_knee,
    prefix_verdicts,
    ramp_levels,
    ramp_verdict,
    spike_fraction,
    ttft_split_verdicts,
)

BASE = {
    "block": 128,
    "length": 448,
    "hits_first_changed": 0.0,
    "hits_late": 384.0,
    "shared": None,
    "hits_shared": None,
    "prefix_caching": True,
    "window_hit_rate": 0.6,
}


def test_expected_hit_counts_whole_blocks_never_the_last_token() -> None:
    assert expected_hit(448, 128) == 384
    assert expected_hit(384, 128) == 256  # the last token is never served from cache
    assert expected_hit(385, 128) == 384
    assert expected_hit(100, 128) == 0


def test_prefix_probe_healthy_refutes_caching_and_eviction() -> None:
    causes, _ = prefix_verdicts(**BASE, hits_repeat=384.0)  # type: ignore[arg-type]
    assert causes["caching-disabled"] == "refuted"
    assert causes["eviction-churn"] == "refuted"
    assert causes["prefix-drift"] == "refuted"  # the window's hit rate is high


def test_prefix_probe_caching_off() -> None:
    causes, summary = prefix_verdicts(**{**BASE, "prefix_caching": False}, hits_repeat=0.0)  # type: ignore[arg-type]
    assert causes == {
        "caching-disabled": "confirmed",
        "block-larger-than-prefix": "refuted",
        "prefix-drift": "refuted",
        "eviction-churn": "inconclusive",
    }
    assert "not working" in summary


def test_prefix_probe_immediate_miss_with_caching_on_is_eviction() -> None:
    causes, _ = prefix_verdicts(**BASE, hits_repeat=0.0)  # type: ignore[arg-type]
    assert causes["eviction-churn"] == "confirmed" and causes["caching-disabled"] == "refuted"


def test_prefix_probe_short_shared_prefix() -> None:
    causes, _ = prefix_verdicts(
        **{**BASE, "shared": 100, "hits_shared": 0.0, "window_hit_rate": 0.0},
        hits_repeat=384.0,  # type: ignore[arg-type]
    )
    assert causes["block-larger-than-prefix"] == "confirmed"
    assert causes["prefix-drift"] == "refuted"  # the short prefix explains the misses
    causes, _ = prefix_verdicts(**{**BASE, "shared": 300, "hits_shared": 256.0}, hits_repeat=384.0)  # type: ignore[arg-type]
    assert causes["block-larger-than-prefix"] == "refuted"


def test_prefix_probe_drift_and_late_eviction() -> None:
    causes, _ = prefix_verdicts(**{**BASE, "window_hit_rate": 0.01}, hits_repeat=384.0)  # type: ignore[arg-type]
    assert causes["prefix-drift"] == "confirmed"
    causes, _ = prefix_verdicts(
        **{**BASE, "window_hit_rate": 0.01, "hits_late": 0.0},
        hits_repeat=384.0,  # type: ignore[arg-type]
    )
    assert causes["eviction-churn"] == "confirmed" and causes["prefix-drift"] == "refuted"


def test_prefix_probe_without_numbers_is_inconclusive() -> None:
    causes, _ = prefix_verdicts(**BASE, hits_repeat=None)  # type: ignore[arg-type]
    assert set(causes.values()) == {"inconclusive"}


def test_ttft_split() -> None:
    causes, verdict, _ = ttft_split_verdicts(
        client_ttft_p50=0.05, queue_mean=0.0, prefill_mean=0.04, slo_s=1.0
    )
    assert verdict == "refuted" and set(causes.values()) == {"refuted"}
    causes, verdict, summary = ttft_split_verdicts(
        client_ttft_p50=4.0, queue_mean=3.5, prefill_mean=0.3, slo_s=1.0
    )
    assert verdict == "confirmed"
    assert causes["queueing"] == "confirmed" and causes["prefill-bound"] == "refuted"
    assert "92% queueing" in summary
    causes, _, _ = ttft_split_verdicts(
        client_ttft_p50=2.0, queue_mean=0.1, prefill_mean=1.8, slo_s=1.0
    )
    assert causes["prefill-bound"] == "confirmed" and causes["queueing"] == "refuted"
    _, verdict, _ = ttft_split_verdicts(
        client_ttft_p50=None, queue_mean=None, prefill_mean=None, slo_s=1.0
    )
    assert verdict == "inconclusive"


def test_itl_verdicts() -> None:
    causes, _ = itl_verdicts(itl_short=0.010, itl_long=0.0105, spike_fraction=0.0)
    assert causes == {"kv-read-bound": "refuted", "prefill-interference": "refuted"}
    causes, _ = itl_verdicts(itl_short=0.010, itl_long=0.020, spike_fraction=0.10)
    assert causes == {"kv-read-bound": "confirmed", "prefill-interference": "confirmed"}
    # With the window's numbers the KV-read model decides: 0.2 ms per 1k tokens × 40k live
    # tokens = 8 ms of a 10 ms ITL.
    causes, summary = itl_verdicts(
        itl_short=0.010,
        itl_long=0.0102,
        spike_fraction=None,
        slope_s_per_1k=0.0002,
        live_kv_tokens=40_000,
        window_itl_s=0.010,
    )
    assert causes["kv-read-bound"] == "confirmed" and "80%" in summary


def test_spike_fraction() -> None:
    assert spike_fraction([]) is None
    assert spike_fraction([1.0] * 19 + [10.0]) == pytest.approx(0.05)


def test_capacity_ramp_prediction_and_levels() -> None:
    ctx = ReproContext(endpoint="x", block_size=128, num_gpu_blocks=16)
    # 256 + 512 tokens = 6 blocks per sequence: 16 blocks hold 2.67 sequences.
    assert predicted_knee(ctx, 768) == pytest.approx(16 / 6)
    # The ramp goes up to 3x the predicted knee (rounds never start all at once).
    assert ramp_levels(ctx, 768) == [1, 2, 4, 8]
    assert ramp_levels(ReproContext(endpoint="x"), 768, cap=32) == [1, 2, 4, 8, 16, 32]
    assert ramp_verdict(4, 16 / 6, 6)[0] == "confirmed"
    assert ramp_verdict(8, 16 / 6, 8)[0] == "confirmed"
    assert ramp_verdict(12, 16 / 6, 12)[0] == "inconclusive"
    assert ramp_verdict(None, 1000.0, 32)[0] == "refuted"
    assert ramp_verdict(None, 4.0, 8)[0] == "inconclusive"
    assert ramp_verdict(32, 2.0, 32)[0] == "inconclusive"


def test_canary_compare_and_verdict() -> None:
    a = CanaryRun(["x", "y", "z", "w"], [-0.1, -0.2, -0.3, -0.4])
    b = CanaryRun(["x", "y", "q", "w"], [-0.1, -0.4, -1.0, -0.4])
    cmp = compare_runs(a, b)
    assert cmp == {
        "agreement": 0.75,
        "first_divergence": 2,
        "mean_abs_dlogprob": pytest.approx(0.1),
    }
    same = compare_runs(a, a)
    assert same["agreement"] == 1.0 and same["first_divergence"] is None
    verdict, nums, _ = canary_verdict([same, same], [cmp, cmp])
    assert verdict == "confirmed" and nums["reference_agreement"] == 0.75
    assert canary_verdict([same], [same])[0] == "refuted"


def test_registry_and_refusals() -> None:
    assert set(EXPERIMENTS) == {
        "prefix-probe",
        "ttft-split",
        "itl-context",
        "capacity-ramp",
        "memory-headroom",
        "quant-canary",
    }
    with pytest.raises(KvdoctorError, match="--allow-load"):
        check_allowed(get_experiment("capacity-ramp"), ReproContext(endpoint="x"))
    with pytest.raises(KvdoctorError, match="--reference-endpoint"):
        check_allowed(get_experiment("quant-canary"), ReproContext(endpoint="x"))
    with pytest.raises(KvdoctorError, match="unknown reproducer"):
        get_experiment("nope")


def _finding(pb: str, cause: str, status: str = "suspected") -> Finding:
    return Finding(
        id=pb,
        symptom=pb,
        cause=cause,
        status=status,
        severity="warning",  # type: ignore[arg-type]
        confidence=0.5,
        title="t",
    )


def test_plan_for() -> None:
    assert plan_for([], allow_load=False, has_reference=False) == list(DEFAULT_SET)
    assert plan_for([], allow_load=False, has_reference=True) == [*DEFAULT_SET, "quant-canary"]
    found = [
        _finding("prefix-miss", "prefix-drift"),
        _finding("prefix-miss", "caching-disabled"),
        _finding("preemption", "kv-capacity"),
    ]
    assert plan_for(found, allow_load=False, has_reference=False) == ["prefix-probe"]
    assert plan_for(found, allow_load=True, has_reference=False) == [
        "prefix-probe",
        "capacity-ramp",
    ]
    # Refuted findings need no experiment (and do not trigger the default set either).
    assert plan_for([_finding("slow-itl", "kv-read-bound", "refuted")], False, False) == list(
        DEFAULT_SET
    )


def test_cli_dry_run_sends_nothing() -> None:
    runner = CliRunner()
    # Port 9 (discard) on loopback: a dry run must not even try to connect.
    res = runner.invoke(
        cli,
        [
            "reproduce",
            "capacity-ramp",
            "--endpoint",
            "http://127.0.0.1:9",
            "--dry-run",
            "--format",
            "json",
        ],
        standalone_mode=False,
    )
    assert res.exit_code == 0 and res.return_value == 0
    plan = json.loads(res.output)
    assert plan["would_run"] is False and "--allow-load" in plan["refused"]
    assert plan["requests"] == sum(plan["levels"])
