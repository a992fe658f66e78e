"""Verdict logic of the reproducer experiments (pure functions of recorded measurements), the
registry, the plan, deadlines, and the CLI dry run."""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from kvdoctor.cli import cli
from kvdoctor.errors import KvdoctorError
from kvdoctor.experiment_catalog import ExperimentSpec
from kvdoctor.report.model import Finding
from kvdoctor.reproducers.experiments import (
    DEFAULT_SET,
    EXPERIMENTS,
    NAMES,
    CauseRef,
    Effect,
    Experiment,
    Judgement,
    Measured,
    Plan,
    ReproContext,
    Session,
    check_allowed,
    get_experiment,
)
from kvdoctor.reproducers.experiments import capacity_ramp as ramp
from kvdoctor.reproducers.experiments import itl_context as itl
from kvdoctor.reproducers.experiments import prefix_probe as pp
from kvdoctor.reproducers.experiments import quant_canary as qc
from kvdoctor.reproducers.experiments import ttft_split as ts
from kvdoctor.reproducers.experiments.base import execute
from kvdoctor.reproducers.stats import rank_sum_p

# ------------------------------------------------------------------------------ prefix-probe


def _prefix(**kw: Any) -> pp.PrefixMeasured:
    base: dict[str, Any] = {
        "prompt_tokens": 448,
        "block_size": 128,
        "repeat_hit_tokens": 384.0,
        "first_token_changed_hit_tokens": 0.0,
        "late_repeat_hit_tokens": 384.0,
        "late_repeat_after_s": 30.0,
        "shared_prefix_tokens": None,
        "shared_prefix_hit_tokens": None,
        "turnover_tokens": 5000.0,
        "pool_tokens": 1_000_000,
        "turnover_fraction": 0.005,
        "evictions": None,
        "idle_before_evict_p50_s": None,
        "reuse_gap_p90_s": None,
        "window_hit_rate": 0.6,
        "prefix_caching": True,
        "effect": Effect(
            metric="m",
            baseline=None,
            treatment=None,
            effect=None,
            samples_baseline=0,
            samples_treatment=0,
        ),
    }
    base.update(kw)
    return pp.PrefixMeasured.model_validate(base)


def _causes(j: Judgement) -> dict[str, str]:
    return {ref.cause: v for ref, v in j.causes.items()}


def test_expected_hit_counts_whole_blocks_never_the_last_token() -> None:
    assert pp.expected_hit(448, 128) == 384
    assert pp.expected_hit(384, 128) == 256  # the last token is never served from cache
    assert pp.expected_hit(385, 128) == 384
    assert pp.expected_hit(100, 128) == 0


def test_prefix_probe_healthy_refutes_caching_eviction_and_drift() -> None:
    # Recorded on the lab's healthy server: the prefix survived 30 s of a light workload.
    got = _causes(pp.judge(_prefix()))
    assert got["caching-disabled"] == "refuted"
    assert got["eviction-churn"] == "refuted"
    assert got["prefix-drift"] == "refuted"  # the window's hit rate is high


def test_prefix_probe_caching_off() -> None:
    j = pp.judge(_prefix(prefix_caching=False, repeat_hit_tokens=0.0, late_repeat_hit_tokens=0.0))
    assert _causes(j) == {
        "caching-disabled": "confirmed",
        "block-larger-than-prefix": "refuted",
        "prefix-drift": "refuted",
        "eviction-churn": "inconclusive",
        # A cache that serves no exact repeat is not split by adapters or salts either.
        "adapter-or-salt-split": "refuted",
        # Configured off: not an engine that holds blocks and fails to reuse them.
        "engine-not-caching": "refuted",
    }
    assert "not working" in j.summary


def test_a_working_cache_alone_confirms_neither_drift_nor_eviction() -> None:
    # The window hits nothing, but the probe only showed that the cache works: eviction is not
    # measured (no late repeat, no residency histograms), so drift is not confirmed either.
    j = pp.judge(
        _prefix(window_hit_rate=0.0, late_repeat_hit_tokens=None, late_repeat_after_s=None)
    )
    got = _causes(j)
    assert got["caching-disabled"] == "refuted"
    assert got["eviction-churn"] == "inconclusive"
    assert got["prefix-drift"] == "inconclusive"


def test_prefix_probe_drift_only_by_elimination() -> None:
    # The prefix survived the wait (no eviction) and the shared prefix spans whole blocks.
    j = pp.judge(
        _prefix(window_hit_rate=0.01, shared_prefix_tokens=300, shared_prefix_hit_tokens=256.0)
    )
    got = _causes(j)
    assert got["eviction-churn"] == "refuted" and got["block-larger-than-prefix"] == "refuted"
    assert got["prefix-drift"] == "confirmed" and "drift" in j.summary


def test_prefix_probe_late_miss_after_turnover_is_eviction() -> None:
    j = pp.judge(
        _prefix(
            window_hit_rate=0.01,
            late_repeat_hit_tokens=0.0,
            late_repeat_after_s=4.2,
            turnover_tokens=3100.0,
            pool_tokens=2944,
            turnover_fraction=1.05,
        )
    )
    got = _causes(j)
    assert got["eviction-churn"] == "confirmed" and got["prefix-drift"] == "refuted"
    assert "105% of the pool turned over" in j.summary


def test_prefix_probe_residency_histograms_decide_eviction() -> None:
    churn = _prefix(
        evictions=120.0,
        idle_before_evict_p50_s=0.4,
        reuse_gap_p90_s=2.0,
        late_repeat_hit_tokens=384.0,
    )
    assert _causes(pp.judge(churn))["eviction-churn"] == "confirmed"
    calm = _prefix(evictions=120.0, idle_before_evict_p50_s=60.0, reuse_gap_p90_s=2.0)
    assert _causes(pp.judge(calm))["eviction-churn"] == "refuted"
    # Too few sampled evictions: the late repeat decides instead.
    few = _prefix(evictions=2.0, idle_before_evict_p50_s=0.1, reuse_gap_p90_s=2.0)
    assert _causes(pp.judge(few))["eviction-churn"] == "refuted"


def test_prefix_probe_recorded_on_the_eviction_churn_lab() -> None:
    # Measured on the lab's eviction-churn scenario (vLLM 0.32, --kv-cache-metrics): the
    # workload turned the 3,072-token pool over 4.25 times while the probe ran; even the
    # immediate repeat missed; blocks were evicted 0.12 s after their last use and none was
    # ever reused, so the residency histograms alone cannot decide and the late repeat does.
    recorded = {
        "prompt_tokens": 448,
        "block_size": 128,
        "repeat_hit_tokens": 0.0,
        "first_token_changed_hit_tokens": 0.0,
        "late_repeat_hit_tokens": 0.0,
        "late_repeat_after_s": 1.01,
        "shared_prefix_tokens": None,
        "shared_prefix_hit_tokens": None,
        "turnover_tokens": 13064.0,
        "pool_tokens": 3072,
        "turnover_fraction": 4.253,
        "evictions": 161.0,
        "idle_before_evict_p50_s": 0.1193,
        "reuse_gap_p90_s": None,
        "window_hit_rate": None,
        "prefix_caching": True,
        "effect": {
            "metric": "m",
            "baseline": 0.0,
            "treatment": 0.0,
            "effect": None,
            "samples_baseline": 1,
            "samples_treatment": 1,
            "p_value": None,
        },
    }
    j = pp.judge(pp.PrefixMeasured.model_validate(recorded))
    got = _causes(j)
    assert got["eviction-churn"] == "confirmed" and got["caching-disabled"] == "refuted"
    assert got["prefix-drift"] == "refuted" and got["block-larger-than-prefix"] == "refuted"
    assert "425% of the pool turned over" in j.summary and "no block reused" in j.summary


def test_prefix_probe_immediate_miss_with_caching_on() -> None:
    # Configured on, not serving: eviction needs its own evidence (here the late repeat after
    # the turnover also missed), and only then is caching-disabled ruled out.
    turned = {"turnover_fraction": 1.2, "late_repeat_hit_tokens": 0.0}
    got = _causes(pp.judge(_prefix(repeat_hit_tokens=0.0, **turned)))
    assert got["caching-disabled"] == "refuted" and got["eviction-churn"] == "confirmed"
    assert got["engine-not-caching"] == "refuted"
    # Both repeats missed but nothing turned the pool over: a cache that is on yet does not
    # reuse what it holds (external case h-glm53: decode context parallelism broke the lookup).
    for late in (0.0, None):
        got = _causes(pp.judge(_prefix(repeat_hit_tokens=0.0, late_repeat_hit_tokens=late)))
        assert got["engine-not-caching"] == "confirmed", late
        assert got["caching-disabled"] == "refuted" and got["eviction-churn"] == "refuted"
    # Unknown turnover decides nothing: eviction between the two sends stays possible.
    got = _causes(
        pp.judge(_prefix(repeat_hit_tokens=0.0, late_repeat_hit_tokens=0.0, turnover_fraction=None))
    )
    assert got["engine-not-caching"] == "inconclusive"
    assert got["caching-disabled"] == "inconclusive" and got["eviction-churn"] == "inconclusive"
    # A repeat that hits refutes it.
    assert _causes(pp.judge(_prefix()))["engine-not-caching"] == "refuted"


def test_prefix_probe_short_shared_prefix() -> None:
    got = _causes(
        pp.judge(
            _prefix(shared_prefix_tokens=100, shared_prefix_hit_tokens=0.0, window_hit_rate=0.0)
        )
    )
    assert got["block-larger-than-prefix"] == "confirmed"
    assert got["prefix-drift"] == "refuted"  # the short prefix explains the misses


def test_prefix_probe_own_text_missing_seconds_later_is_eviction() -> None:
    # Dev draw 1001-7 (eviction-churn, 63-block pool turning over ~2.5 times a second): the
    # repeat hit 384 of 384, then the workload-length probe (the same text) hit 0 of 384.
    got = _causes(
        pp.judge(
            _prefix(
                window_hit_rate=0.002,
                shared_prefix_tokens=448,
                shared_prefix_hit_tokens=0.0,
                late_repeat_hit_tokens=384.0,
            )
        )
    )
    assert got["eviction-churn"] == "confirmed"
    assert got["block-larger-than-prefix"] == "refuted" and got["prefix-drift"] == "refuted"
    assert got["caching-disabled"] == "refuted"


def test_prefix_probe_without_numbers_is_inconclusive() -> None:
    j = pp.judge(_prefix(repeat_hit_tokens=None))
    assert set(_causes(j).values()) == {"inconclusive"}
    assert "no prefix-cache hit counter" in j.summary


def test_prefix_probe_says_why_the_repeat_has_no_count() -> None:
    # A repeat the guard stopped has no hit count because it never ran, not for want of a
    # counter: the summary names the stop (a CI run read "no counter" on a server that had one).
    stop = "stopped (guard: 3 preemption(s) during the run (guard allows 1))"
    j = pp.judge(_prefix(repeat_hit_tokens=None, repeat_error=stop))
    assert set(_causes(j).values()) == {"inconclusive"}
    assert stop in j.summary and "no prefix-cache hit counter" not in j.summary


# -------------------------------------------------------------------------------- ttft-split


def _ttft(
    shorts: list[float], longs: list[float], q: float | None, p: float | None, n: float | None
) -> ts.TtftMeasured:
    return ts.TtftSplit._measure(16, 512, shorts, longs, 1, None, None).model_copy(
        update={
            "server_requests": n,
            "server_queue_time_mean_s": q,
            "server_prefill_time_mean_s": p,
            "queue_share": None if q is None or p is None else q / (q + p),
        }
    )


def test_ttft_split_confirms_queueing_from_the_servers_share_whatever_the_absolute_ttft() -> None:
    # Issue 12: the server's histograms put 99.7 % of TTFT in the queue while 4 sequential
    # probes saw 17 ms; a 1 s bar refuted queueing. The share decides, not the bar.
    m = _ttft([0.016, 0.017, 0.018, 0.017], [0.017, 0.016, 0.018, 0.017], q=0.997, p=0.003, n=240)
    j = ts.judge(m)
    assert _causes(j)["queueing"] == "confirmed" and _causes(j)["prefill-bound"] == "refuted"
    assert j.overall == "confirmed" and "99.7% queueing" in j.summary


def test_ttft_split_healthy_refutes_waiting() -> None:
    # No queue; TTFT grows with the prompt (prefill compute, as on any server).
    m = _ttft([0.010, 0.011, 0.010, 0.012], [0.031, 0.030, 0.033, 0.032], q=0.0002, p=0.02, n=8)
    j = ts.judge(m)
    got = _causes(j)
    assert got["queueing"] == "refuted"
    assert got["prefill-bound"] == "confirmed" and got["long-prefill-hol"] == "refuted"
    assert j.overall == "refuted"
    assert m.length_effect.p_value is not None and m.length_effect.p_value < 0.05


def test_ttft_split_borderline_and_missing_data_stay_inconclusive() -> None:
    j = ts.judge(_ttft([0.01] * 4, [0.02] * 4, q=0.03, p=0.07, n=20))  # 30 % queueing
    assert _causes(j)["queueing"] == "inconclusive" and j.overall == "inconclusive"
    assert ts.TtftSplit._needs_more(_ttft([0.01] * 4, [0.02] * 4, q=0.03, p=0.07, n=20))
    j = ts.judge(_ttft([0.01] * 4, [0.02] * 4, q=None, p=None, n=None))
    assert _causes(j)["queueing"] == "inconclusive" and "cannot be split" in j.summary
    # Too few requests in the histograms' delta for the split to count.
    assert _causes(ts.judge(_ttft([0.01], [0.02], q=0.9, p=0.1, n=2)))["queueing"] == "inconclusive"
    assert ts.judge(_ttft([], [], q=None, p=None, n=None)).overall == "inconclusive"


def _hol(m: ts.TtftMeasured, behind: list[float], long_ttft: float) -> ts.TtftMeasured:
    from kvdoctor.reproducers.experiments.base import Effect
    from kvdoctor.reproducers.stats import median

    base = 0.010  # the quickest probe's first token
    treat = median(behind)
    assert treat is not None
    return m.model_copy(
        update={
            "hol_long_prompt_tokens": 8000,
            "hol_long_ttft_p50_s": long_ttft,
            "hol_waited_fraction": (treat - base) / (long_ttft - base),
            "hol_effect": Effect(
                metric="short behind long / quickest probe",
                baseline=base,
                treatment=treat,
                effect=treat / base,
                samples_baseline=8,
                samples_treatment=len(behind),
            ),
        }
    )


def test_ttft_split_head_of_line_trial_decides_on_its_mechanism() -> None:
    # No queue in the histograms and TTFT grows with the prompt (prefill compute); a short
    # probe sent during an 8,000-token prefill of 1.2 s waited ~0.9 s: head-of-line blocking.
    prefill = _ttft([0.010, 0.011, 0.010, 0.012], [0.031, 0.030, 0.033, 0.032], 0.0002, 0.02, 8)
    blocked = ts.judge(_hol(prefill, [0.91, 0.85, 0.95], long_ttft=1.2))
    got = _causes(blocked)
    assert got["long-prefill-hol"] == "confirmed" and got["prefill-bound"] == "confirmed"
    assert blocked.overall == "confirmed" and "8000-token prefill waited" in blocked.summary
    # Chunked prefill lets the short probe in after one chunk's step: 5x the quickest probe,
    # but 3 % of the long prefill: refuted.
    chunked = ts.judge(_hol(prefill, [0.05, 0.045, 0.055], long_ttft=1.2))
    assert _causes(chunked)["long-prefill-hol"] == "refuted"
    # A long prompt that prefills as fast as a short one cannot block anything: no verdict.
    quick = ts.judge(_hol(prefill, [0.012, 0.013, 0.011], long_ttft=0.02))
    assert _causes(quick)["long-prefill-hol"] == "inconclusive"
    # One trial is not enough.
    single = ts.judge(_hol(prefill, [0.9], long_ttft=1.2))
    assert _causes(single)["long-prefill-hol"] == "inconclusive"


def test_head_of_line_trial_needs_allow_load_and_a_tail() -> None:
    from kvdoctor.reproducers.experiments.base import ReproContext

    ctx = ReproContext(endpoint="http://x", mean_prompt_len=200, prompt_len_p90=8000)
    assert ts.hol_length(ctx) is None  # no --allow-load: the long prompt is real load
    loaded = ReproContext(
        endpoint="http://x",
        mean_prompt_len=200,
        prompt_len_p90=8000,
        allow_load=True,
        max_model_len=4096,
    )
    assert ts.hol_length(loaded) == 4096 - 16
    flat = ReproContext(
        endpoint="http://x", mean_prompt_len=600, prompt_len_p90=700, allow_load=True
    )
    assert ts.hol_length(flat) is None  # no tail beyond the workload-length probe
    plan = ts.TtftSplit().plan(loaded)
    assert plan.requests == 2 * ts.PER_ROUND * ts.MAX_ROUNDS + 2 * ts.HOL_ATTEMPTS


def test_rank_sum_p() -> None:
    assert rank_sum_p([1, 2, 3, 4], [5, 6, 7, 8]) == pytest.approx(2 / 70)  # exact, two-sided
    assert rank_sum_p([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)
    big = rank_sum_p([1.0] * 50 + [2.0] * 50, [2.0] * 50 + [3.0] * 50)
    assert big is not None and big < 1e-6
    assert rank_sum_p([], [1.0]) is None


# ------------------------------------------------------------------------------- itl-context


def _itl(short: list[float], long: list[float], **kw: Any) -> itl.ItlMeasured:
    from kvdoctor.reproducers.stats import median

    s, lg = median(short), median(long)
    base: dict[str, Any] = {
        "short_context_tokens": 128,
        "long_context_tokens": 4096,
        "itl_p50_short_s": s,
        "itl_p50_long_s": lg,
        "itl_p99_long_s": None,
        "itl_ratio": None,
        "slope_s_per_1k_tokens": None,
        "spike_fraction": itl.spike_fraction(short + long),
        "live_kv_tokens": None,
        "window_itl_p50_s": None,
        "itl_ratio_memory_bound_model": None,
        "effect": Effect(
            metric="m",
            baseline=s,
            treatment=lg,
            effect=None,
            samples_baseline=len(short),
            samples_treatment=len(long),
            p_value=rank_sum_p(short, long),
        ),
    }
    base.update(kw)
    return itl.ItlMeasured.model_validate(base)


def test_itl_verdicts() -> None:
    flat = [0.010 + 0.0001 * (i % 5) for i in range(128)]
    got = _causes(itl.judge(_itl(flat, [g * 1.02 for g in flat])))
    assert got == {"kv-read-bound": "refuted", "prefill-interference": "refuted"}
    slow = [g * 2 for g in flat]
    assert _causes(itl.judge(_itl(flat, slow)))["kv-read-bound"] == "confirmed"
    # Twice as slow on 2 gaps each is not enough samples to decide.
    assert _causes(itl.judge(_itl(flat[:2], slow[:2])))["kv-read-bound"] == "inconclusive"
    spiky = flat[:112] + [0.2] * 16  # 16 of 256 gaps (6 %) far above the median
    assert _causes(itl.judge(_itl(spiky, flat)))["prefill-interference"] == "confirmed"
    # With the window's numbers the KV-read model decides: 0.2 ms per 1k tokens × 40k live
    # tokens = 8 ms of a 10 ms ITL.
    j = itl.judge(
        _itl(
            flat, flat, slope_s_per_1k_tokens=0.0002, live_kv_tokens=40_000, window_itl_p50_s=0.010
        )
    )
    assert _causes(j)["kv-read-bound"] == "confirmed" and "80%" in j.summary


def test_spike_fraction() -> None:
    assert itl.spike_fraction([]) is None
    assert itl.spike_fraction([1.0] * 19 + [10.0]) == pytest.approx(0.05)


# ----------------------------------------------------------------------------- capacity-ramp


def _round(
    c: int, pre: float, usage: float | None = 1.0, running: float | None = None
) -> ramp.Round:
    return ramp.Round(
        concurrency=c,
        requests=3 * c,
        ok=3 * c,
        failed=0,
        preemptions=pre,
        max_kv_usage=usage,
        max_running=running,
    )


def _ramp(
    base: ramp.Round | None, treat: ramp.Round | None, skipped: str | None = None
) -> ramp.RampMeasured:
    return ramp.RampMeasured(
        prompt_tokens=256,
        output_tokens=512,
        tokens_per_seq=768,
        pool_blocks=17,
        blocks_per_seq=6,
        knee_predicted=2.83,
        quiet_before=True,
        skipped=skipped,
        baseline=base,
        treatment=treat,
        knee_concurrency=None,
        effect=Effect(
            metric="m",
            baseline=None,
            treatment=None,
            effect=None,
            samples_baseline=0,
            samples_treatment=0,
        ),
    )


def test_capacity_ramp_levels_oversubscribe_the_pool() -> None:
    # preemption-storm: 17 blocks of 128, 256 + 512 tokens = 6 blocks per sequence.
    ctx = ReproContext(endpoint="x", block_size=128, num_gpu_blocks=17, max_num_seqs=16)
    base, treat, knee = ramp.levels(ctx)
    assert knee == pytest.approx(17 / 6)
    assert base == 1 and treat == 9  # half the pool at most; three times it
    # max_num_seqs caps the treatment; without a pool size the cap is the treatment.
    assert ramp.levels(ReproContext(endpoint="x", max_num_seqs=4))[:2] == (1, 4)
    # A pool max_num_seqs cannot fill: refuted by the KV math, nothing sent.
    roomy = ReproContext(endpoint="x", block_size=128, num_gpu_blocks=8192, max_num_seqs=16)
    assert ramp.CapacityRamp().plan(roomy).requests == 0


def test_capacity_ramp_verdicts_from_recorded_rounds() -> None:
    # Recorded on the lab's preemption-storm: none at 1, preemptions at 9 concurrent.
    j = ramp.judge(_ramp(_round(1, 0, 0.375), _round(9, 2)))
    assert set(j.causes.values()) == {"confirmed"} and "none at 1" in j.summary
    # Preemptions already at the baseline: the KV math or the quiet server is wrong.
    assert set(ramp.judge(_ramp(_round(1, 3), None)).causes.values()) == {"inconclusive"}
    # Concurrency not held: the pool never filled, so no preemption proves nothing.
    j = ramp.judge(_ramp(_round(1, 0, 0.3), _round(9, 0, 0.6, running=3)))
    assert set(j.causes.values()) == {"inconclusive"} and "never filled" in j.summary
    # The pool filled and nobody was preempted.
    assert set(ramp.judge(_ramp(_round(1, 0, 0.3), _round(9, 0, 1.0))).causes.values()) == {
        "refuted"
    }
    assert set(ramp.judge(_ramp(None, None, skipped="cannot fill")).causes.values()) == {"refuted"}


def test_capacity_ramp_under_live_traffic_says_so_and_what_decides_it() -> None:
    # During an incident the server never goes quiet: its own traffic preempts during the
    # baseline. Not a bare "inconclusive": it says why, in words, and the command that decides.
    busy = _ramp(_round(1, 4), _round(9, 7)).model_copy(update={"quiet_before": False})
    j = ramp.judge(busy)
    assert set(j.causes.values()) == {"inconclusive"}
    assert "not quiet" in j.summary and "4 preemptions" in j.summary
    assert "kvdoctor reproduce capacity-ramp --endpoint" in j.summary
    assert "drained replica" in j.summary
    # A quiet server whose own baseline preempts: the pool is smaller than the KV math says.
    j = ramp.judge(_ramp(_round(1, 3), None))
    assert "quiet server" in j.summary and "KV cache size" in j.summary


# ------------------------------------------------------------------------------ quant-canary


def test_canary_compare_and_verdict() -> None:
    a = qc.CanaryRun(["x", "y", "z", "w"], [-0.1, -0.2, -0.3, -0.4])
    b = qc.CanaryRun(["x", "y", "q", "w"], [-0.1, -0.4, -1.0, -0.4])
    cmp = qc.compare_runs(a, b)
    assert cmp == {
        "agreement": 0.75,
        "first_divergence": 2,
        "mean_abs_dlogprob": pytest.approx(0.1),
    }
    same = qc.compare_runs(a, a)
    assert same["agreement"] == 1.0 and same["first_divergence"] is None
    m = qc.measure([same, same], [cmp, cmp])
    assert m.reference_agreement == 0.75 and m.effect.effect == pytest.approx(-0.25)
    assert _causes(qc.judge(m)) == {"fp8-kv-cache": "confirmed"}
    assert _causes(qc.judge(qc.measure([same], [same]))) == {"fp8-kv-cache": "refuted"}


# ------------------------------------------------------------------ registry, plan, deadline


def test_registry_names_are_the_schema_names() -> None:
    from kvdoctor.rules.schema import REPRODUCERS

    assert REPRODUCERS == NAMES == tuple(EXPERIMENTS)
    assert set(NAMES) == {
        "prefix-probe",
        "ttft-split",
        "itl-context",
        "capacity-ramp",
        "memory-headroom",
        "quant-canary",
    }
    for exp in EXPERIMENTS.values():
        assert exp.causes and exp.measures()
        plan = exp.plan(ReproContext(endpoint="x"))
        assert plan.deadline_s > 0


def test_every_experiment_is_its_catalog_entry() -> None:
    """The catalog (read by the rules, the report and a replay) and the code agree: same names
    in the same order, and each class's data and measured fields are its entry's."""
    from kvdoctor.experiment_catalog import EXPERIMENTS as CATALOG

    assert tuple(CATALOG) == tuple(EXPERIMENTS)
    for name, exp in EXPERIMENTS.items():
        spec = CATALOG[name]
        assert exp.spec is spec and exp.name == name
        assert (exp.description, exp.causes) == (spec.description, spec.causes)
        assert (exp.needs_load, exp.needs_reference) == (spec.needs_load, spec.needs_reference)
        assert tuple(exp.measured_model.model_fields) == spec.measures


def test_a_measured_model_that_differs_from_the_catalog_is_refused() -> None:
    class _Renamed(Measured):
        valeu: int

    with pytest.raises(TypeError, match="differ from the catalog"):

        class _Bad(Experiment[_Renamed]):
            spec: ClassVar[ExperimentSpec] = _Slow.spec
            measured_model: ClassVar[type[Measured]] = _Renamed


def test_refusals() -> None:
    with pytest.raises(KvdoctorError, match="--allow-load"):
        check_allowed(get_experiment("capacity-ramp"), ReproContext(endpoint="x"))
    with pytest.raises(KvdoctorError, match="--reference-endpoint"):
        check_allowed(get_experiment("quant-canary"), ReproContext(endpoint="x"))
    with pytest.raises(KvdoctorError, match="unknown reproducer"):
        get_experiment("nope")


class _SlowMeasured(Measured):
    value: int


class _Slow(Experiment[_SlowMeasured]):
    spec: ClassVar[ExperimentSpec] = ExperimentSpec(
        name="slow",
        description="waits on a server that never answers",
        causes=(CauseRef("high-ttft", "queueing"),),
        measures=("value",),
    )
    measured_model: ClassVar[type[Measured]] = _SlowMeasured

    def plan(self, ctx: ReproContext) -> Plan:
        return Plan(requests=1, concurrency=1, sends="one request", deadline_s=0.2)

    async def run(self, ctx: ReproContext, session: Session) -> _SlowMeasured:
        session.step("waiting for the reference's answer to canary prompt 2")
        await asyncio.sleep(30)
        return _SlowMeasured(value=1)

    def verdict(self, measured: _SlowMeasured) -> Judgement:
        return Judgement({}, "never reached")


def test_a_run_past_its_deadline_says_what_timed_out() -> None:
    rec = asyncio.run(execute(_Slow(), ReproContext(endpoint="http://127.0.0.1:9")))
    assert rec.verdict == "inconclusive"
    assert rec.aborted == (
        "slow timed out after 0.2 s while waiting for the reference's answer to canary prompt 2"
    )
    assert rec.summary == rec.aborted and rec.budget["deadline_s"] == 0.2


def test_a_verdict_on_a_cause_the_experiment_does_not_test_is_a_bug() -> None:
    class Wrong(_Slow):
        def verdict(self, measured: _SlowMeasured) -> Judgement:
            return Judgement({CauseRef("prefix-miss", "prefix-drift"): "confirmed"}, "x")

    with pytest.raises(AssertionError, match="does not test"):
        Wrong().checked_verdict(_SlowMeasured(value=1))


def _finding(pb: str, cause: str, status: str = "suspected") -> Finding:
    return Finding.model_validate(
        {
            "id": pb,
            "symptom": pb,
            "cause": cause,
            "status": status,
            "severity": "warning",
            "confidence": 0.5,
            "title": "t",
        }
    )


def test_plan_for() -> None:
    from kvdoctor.rules.experiments import plan_for as plan
    from kvdoctor.rules.load import load_playbooks

    pbs = load_playbooks()

    def plan_for(found: list[Finding], allow_load: bool, has_reference: bool) -> list[str]:
        return plan(found, allow_load, has_reference, pbs)

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
    # A symptom no cause explains gets the experiment for its symptom.
    assert plan_for([_finding("slow-itl", "unidentified")], False, False) == ["itl-context"]
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
    assert plan["requests"] == 3 * sum(plan["levels"]) and plan["deadline_s"] > 0
    assert "preemption/kv-capacity" in plan["causes"]


def test_head_of_line_trial_counts_only_short_probes_sent_during_the_long_prefill() -> None:
    from kvdoctor.reproducers.loadgen import LoadResult, LoadSpec, RequestResult

    def run(started: float, ttft: float) -> LoadResult:
        spec = LoadSpec(prompt_tokens=8, max_tokens=1, requests=1)
        req = RequestResult(index=0, start_s=0.01, ttft_s=ttft)
        return LoadResult(spec=spec, requests=[req], sent=1, ok=1, started_at_s=started)

    long = run(100.0, 1.0)  # sent at 100.01, first token at 101.01
    assert ts._during_prefill(long, run(100.2, 0.8)) == 0
    assert ts._during_prefill(long, run(99.9, 0.01)) == -1  # the short one went first
    assert ts._during_prefill(long, run(101.5, 0.01)) == 1  # the prefill had ended


def test_prefix_probe_replay_of_the_operators_prompts_decides_what_the_sample_showed() -> None:
    # The window hits nothing; the sample showed a per-user salt. Replayed: the first prompt
    # repeated hits under its salt, the second (another salt) reuses none of it: confirmed.
    quiet = {"window_hit_rate": 0.0}
    j = pp.judge(
        _prefix(
            **quiet,
            sample_pattern="identity-split",
            user_repeat_hit_tokens=640.0,
            user_next_hit_tokens=0.0,
        )
    )
    got = _causes(j)
    assert got["adapter-or-salt-split"] == "confirmed"
    assert got["prefix-drift"] == "refuted" and got["eviction-churn"] == "refuted"
    assert "two of the operator's prompts" in j.summary
    # Drift from the sample, confirmed the same way.
    got = _causes(
        pp.judge(
            _prefix(
                **quiet,
                sample_pattern="drift",
                user_repeat_hit_tokens=512.0,
                user_next_hit_tokens=0.0,
            )
        )
    )
    assert got["prefix-drift"] == "confirmed" and got["adapter-or-salt-split"] == "refuted"
    # The next prompt reused the first: the sample's mechanism is refuted.
    got = _causes(
        pp.judge(
            _prefix(
                **quiet,
                sample_pattern="sub-block",
                user_repeat_hit_tokens=512.0,
                user_next_hit_tokens=128.0,
            )
        )
    )
    assert got["block-larger-than-prefix"] == "refuted"
    # A repeat that did not hit proves nothing about the prompts (the cache or eviction).
    got = _causes(
        pp.judge(
            _prefix(
                **quiet,
                sample_pattern="drift",
                user_repeat_hit_tokens=0.0,
                user_next_hit_tokens=0.0,
            )
        )
    )
    assert got["adapter-or-salt-split"] == "inconclusive"
