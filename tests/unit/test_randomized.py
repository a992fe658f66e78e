"""The randomized scenario generator: pure, deterministic, and every draw reaches its mechanism.

The mechanism checks restate the KV math each class relies on (pool tokens against concurrency x
sequence length, slots against offered concurrency, ...) over many seeds, so a change to a
range that stops a class from producing its symptom fails here, not after an hour of lab time.
"""

from __future__ import annotations

import math

import pytest

from kvaccuracy.randomized import (
    CLASSES,
    MAX_POSITIONS,
    NOT_DRAWN,
    TRUTH,
    Control,
    Draw,
    check_control,
    draw,
    window_metrics,
)
from kvdoctor.lab.scenarios import BLOCK_SIZE

SEEDS = range(0, 40)


def _all_draws() -> list[Draw]:
    return [draw(seed, i) for seed in SEEDS for i in range(len(CLASSES))]


ALL = _all_draws()


def _flag(d: Draw, name: str) -> str | None:
    args = list(d.engine_args)
    return args[args.index(name) + 1] if name in args else None


def test_same_seed_and_index_give_the_same_draw() -> None:
    for seed, index in ((1000, 0), (1000, 7), (5003, 2)):
        a, b = draw(seed, index), draw(seed, index)
        assert a == b
        assert a.to_json() == b.to_json()


def test_other_seeds_give_other_draws() -> None:
    assert draw(1000, 0).to_json() != draw(1001, 0).to_json()
    assert draw(1000, 0).to_json() != draw(1000, 1).to_json()


def test_consecutive_indices_cover_every_class() -> None:
    for seed in (1000, 5000, 7):
        assert {draw(seed, i).klass for i in range(len(CLASSES))} == set(CLASSES)


def test_truth_uses_playbook_cause_ids_and_the_six_symptoms() -> None:
    from kvdoctor.rules.load import load_playbooks

    causes = {c.id for pb in load_playbooks() for c in pb.causes}
    symptoms = {"preemption", "high-ttft", "slow-itl", "prefix-miss", "gpu-oom", "quant-quality"}
    for symptom, cause in TRUTH.values():
        assert (symptom is None) == (cause is None)
        if cause is not None:
            assert cause in causes and symptom in symptoms
    assert set(NOT_DRAWN) <= causes
    assert not set(NOT_DRAWN) & {c for _, c in TRUTH.values()}


def test_geometries_vary_over_mqa_gqa_mha() -> None:
    kinds = {d.geometry.attention for d in ALL}
    assert kinds == {"MQA", "GQA", "MHA"}
    assert len({d.geometry.layers for d in ALL}) >= 3
    assert len({d.geometry.head_dim for d in ALL}) >= 2


def test_engine_flags_are_ones_vllm_accepts() -> None:
    for d in ALL:
        assert d.max_model_len <= MAX_POSITIONS
        if not d.chunked_prefill:
            # vLLM refuses a budget below max_model_len when prompts cannot be chunked.
            assert d.max_num_batched_tokens >= d.max_model_len, d.name
        if d.pool_tokens is not None:
            # Above the pool, vLLM 0.32 refuses to start (the kv-too-small scenario).
            assert d.max_model_len <= d.pool_tokens, d.name
            blocks = int(_flag(d, "--num-gpu-blocks-override") or 0)
            assert d.pool_tokens == BLOCK_SIZE * (blocks - 1)
            assert blocks * BLOCK_SIZE * d.geometry.bytes_per_token <= d.kv_cache_space_gib << 30
        for p in d.phases:
            assert p.spec.prompt_tokens + p.spec.max_tokens <= d.max_model_len, d.name


def test_every_class_draws_varied_sharing_and_arrivals() -> None:
    assert {d.arrival for d in ALL} == {"closed", "poisson", "bursts"}
    assert {"none", "shared", "drifting", "many-documents"} <= {d.sharing for d in ALL}
    assert {d.chunked_prefill for d in ALL} == {True, False}


def test_only_prefix_classes_send_drifting_or_sub_block_prefixes() -> None:
    # Drifting text or a shared prefix under one block is a prefix-miss cause of its own: in a
    # draw of another class it would be a second truth.
    for d in ALL:
        if d.klass in (
            "prefix-drift",
            "prefix-drift-fresh",
            "block-larger-than-prefix",
            "sub-block-long",
            "eviction-churn",
            "eviction-fresh",
        ):
            continue
        for p in d.phases:
            assert p.spec.prefix != "timestamp-first", d.name
            if p.spec.prefix == "shared":
                assert p.spec.shared_prefix_tokens >= BLOCK_SIZE, d.name


def test_kv_capacity_draws_overfill_the_pool_with_sequences_that_fit_alone() -> None:
    for d in (d for d in ALL if d.klass == "kv-capacity"):
        assert d.pool_tokens is not None
        main = d.phases[0].spec
        seq = main.prompt_tokens + main.max_tokens
        assert seq <= 0.6 * d.pool_tokens + BLOCK_SIZE
        assert main.concurrency * seq >= 1.3 * d.pool_tokens, d.derivation
        assert d.max_num_seqs >= main.concurrency


def test_queueing_draws_offer_several_times_the_slots_on_a_roomy_pool() -> None:
    for d in (d for d in ALL if d.klass == "queueing"):
        offered = sum(p.spec.concurrency for p in d.phases if p.group == 0)
        assert offered >= 3 * d.max_num_seqs
        assert d.pool_tokens is None and d.control.kind == "queueing"
        # Slots held for a decode long enough that the queue behind them is a wait a user sees.
        assert all(p.spec.max_tokens >= 48 for p in d.phases)


def test_long_prefill_draws_prefill_the_long_prompt_in_one_step_below_the_slot_limit() -> None:
    for d in (d for d in ALL if d.klass == "long-prefill-hol"):
        long_prompt = max(p.spec.prompt_tokens for p in d.phases)
        short_prompt = min(p.spec.prompt_tokens for p in d.phases)
        assert long_prompt >= 16 * short_prompt
        assert d.max_num_batched_tokens >= long_prompt
        assert d.max_num_seqs > 2 * sum(p.spec.concurrency for p in d.phases)


def test_prefix_draws_share_text_the_cache_cannot_use() -> None:
    for d in ALL:
        c = d.control
        if d.klass == "block-larger-than-prefix":
            assert 0 < c.shared_tokens < BLOCK_SIZE and c.cacheable_shared_tokens == 0
        elif d.klass == "prefix-drift":
            assert c.shared_tokens >= 2 * BLOCK_SIZE
            assert all(p.spec.prefix == "timestamp-first" for p in d.phases)
        elif d.klass == "caching-disabled":
            assert "--no-enable-prefix-caching" in d.engine_args
            assert c.cacheable_shared_tokens >= 2 * BLOCK_SIZE
        elif d.klass == "healthy-unshared":
            assert all(p.spec.prefix == "unique" for p in d.phases)


def test_eviction_draws_hold_every_sequence_and_turn_the_pool_over() -> None:
    for d in (d for d in ALL if d.klass == "eviction-churn"):
        assert d.pool_tokens is not None
        pressure = [p.spec for p in d.phases if p.spec.prefix == "unique"]
        shared = [p.spec for p in d.phases if p.spec.prefix == "shared"]
        assert len(pressure) == 1 and shared
        demand = pressure[0].concurrency * (pressure[0].prompt_tokens + pressure[0].max_tokens)
        demand += sum(s.prompt_tokens + s.max_tokens for s in shared[:1])
        # Every running sequence fits at once (nothing waits for KV: that is kv-admission)...
        assert demand <= d.pool_tokens
        # ...while the shared stream comes back only after seconds (Poisson), long after the
        # pressure has reallocated the free blocks.
        assert all(s.rate_per_s is not None and s.rate_per_s <= 1.0 for s in shared)
        lo, boundary = d.control.shared_prompt_range
        assert shared[0].prompt_tokens == lo <= boundary < pressure[0].prompt_tokens
        # The past in which the cache worked: the shared stream alone, run before the window.
        assert d.history and all(h.spec.prefix == "shared" for h in d.history)
        assert d.control.prior_hits


def test_drift_draws_shared_a_prefix_before_the_prompts_changed() -> None:
    for d in (d for d in ALL if d.klass == "prefix-drift"):
        assert all(p.spec.prefix == "timestamp-first" for p in d.phases)
        assert d.history and all(h.spec.prefix == "shared" for h in d.history)
        # Long enough to outweigh the workload's seconds before the first scrape.
        assert all(15.0 <= h.spec.duration_s <= 30.0 for h in d.history)
        assert d.control.prior_hits


def test_block_larger_draws_keep_prompts_inside_one_block() -> None:
    for d in (d for d in ALL if d.klass == "block-larger-than-prefix"):
        assert all(
            p.spec.shared_prefix_tokens < p.spec.prompt_tokens <= BLOCK_SIZE for p in d.phases
        )


def test_slow_itl_classes_are_not_drawn_and_say_why() -> None:
    assert "kv-read-bound" not in CLASSES and "prefill-interference" not in CLASSES
    assert "per-sequence work" in NOT_DRAWN["kv-read-bound"]
    assert "long-prefill-hol fixture" in NOT_DRAWN["prefill-interference"]


# --------------------------------------------------------------------------- control


def _scrape(**values: float) -> str:
    """A minimal vLLM exposition with the given counters/gauges (engine 0)."""
    lab = '{engine="0",model_name="m"}'
    names = {
        "finished": "vllm:request_success_total"
        '{engine="0",finished_reason="length",model_name="m"}',
        "preempt": f"vllm:num_preemptions_total{lab}",
        "queries": f"vllm:prefix_cache_queries_total{lab}",
        "hits": f"vllm:prefix_cache_hits_total{lab}",
        "ttft_sum": f"vllm:time_to_first_token_seconds_sum{lab}",
        "ttft_count": f"vllm:time_to_first_token_seconds_count{lab}",
        "queue_sum": f"vllm:request_queue_time_seconds_sum{lab}",
        "queue_count": f"vllm:request_queue_time_seconds_count{lab}",
        "itl_sum": f"vllm:inter_token_latency_seconds_sum{lab}",
        "itl_count": f"vllm:inter_token_latency_seconds_count{lab}",
        "running": f"vllm:num_requests_running{lab}",
        "waiting": f"vllm:num_requests_waiting{lab}",
        "usage": f"vllm:kv_cache_usage_perc{lab}",
    }
    lines = [f"{names[k]} {v}" for k, v in values.items() if k in names]
    for le in ("100.0", "200.0", "500.0", "1000.0", "2000.0", "+Inf"):
        key = "b" + le.replace(".0", "").replace("+Inf", "inf")
        if key in values:
            lines.append(
                f'vllm:request_prompt_tokens_bucket{{engine="0",le="{le}",model_name="m"}} '
                f"{values[key]}"
            )
    return "\n".join(lines) + "\n"


BASE = {"ttft_s": 0.02, "itl_s": 0.004}


def test_window_metrics_are_deltas_and_maxima() -> None:
    m = window_metrics(
        [
            _scrape(finished=10, preempt=3, running=1, usage=0.2),
            _scrape(finished=15, preempt=3, running=7, usage=0.95),
            _scrape(finished=20, preempt=8, running=2, usage=0.5),
        ]
    )
    assert (m.finished, m.preemptions, m.running_max, m.kv_usage_max) == (10, 5, 7, 0.95)


def test_preemption_control_needs_preemptions_in_the_window() -> None:
    c = Control("preemption", 8)
    ok = check_control(c, [_scrape(finished=0, preempt=5), _scrape(finished=9, preempt=9)], BASE)
    assert ok.ok and "4 preemptions" in ok.why
    quiet = check_control(c, [_scrape(finished=0, preempt=5), _scrape(finished=9, preempt=5)], BASE)
    assert not quiet.ok


def test_a_window_without_finished_requests_fails_every_control() -> None:
    for kind in ("preemption", "queueing", "healthy", "no-hits"):
        r = check_control(Control(kind, 4), [_scrape(finished=1), _scrape(finished=2)], BASE)
        assert not r.ok and "did not run" in r.why


def test_queueing_control_separates_slot_waits_from_kv_admission() -> None:
    c = Control("queueing", 2)
    first = _scrape(finished=0, queue_sum=0, ttft_sum=0)
    slots = _scrape(finished=20, queue_sum=9, ttft_sum=10, waiting=6, running=2, usage=0.3)
    assert check_control(c, [first, slots], BASE).ok
    kv_full = _scrape(finished=20, queue_sum=9, ttft_sum=10, waiting=6, running=2, usage=0.97)
    assert not check_control(c, [first, kv_full], BASE).ok
    no_wait = _scrape(finished=20, queue_sum=1, ttft_sum=10, waiting=0, running=2, usage=0.3)
    assert not check_control(c, [first, no_wait], BASE).ok


def _ttft_buckets(**counts: float) -> str:
    """TTFT histogram lines: t0_05=N means N requests with TTFT <= 0.05 s (cumulative)."""
    out = []
    for key, n in counts.items():
        le = "+Inf" if key == "tinf" else key[1:].replace("_", ".")
        out.append(
            f'vllm:time_to_first_token_seconds_bucket{{engine="0",le="{le}",model_name="m"}} {n}'
        )
    return "\n".join(out) + "\n"


def test_hol_control_counts_short_requests_stalled_behind_long_prefills() -> None:
    # 20 short prompts (<= 200 tokens) and 4 long ones; baseline TTFT 20 ms -> slow above 60 ms.
    c = Control("hol", 32, short_prompt_range=(150, 200))
    zero = _scrape(finished=0, b100=0, b200=0, b500=0, binf=0)
    zero += _ttft_buckets(t0_04=0, t0_06=0, t0_08=0, tinf=0)
    prompts = {"finished": 24, "b100": 0, "b200": 20, "b500": 20, "binf": 24}
    stalled = _scrape(running=5, usage=0.1, **prompts)
    stalled += _ttft_buckets(t0_04=10, t0_06=10, t0_08=12, tinf=24)  # 14 slow: 4 long + 10
    r = check_control(c, [zero, stalled], BASE)
    assert r.ok and r.measured["short_delayed_share"] == 0.5
    fast = _scrape(running=5, usage=0.1, **prompts)
    fast += _ttft_buckets(t0_04=19, t0_06=20, t0_08=20, tinf=24)  # only the long ones slow
    assert not check_control(c, [zero, fast], BASE).ok
    # Only long requests finished while others waited: the short ones never got through.
    starved_prompts = {"finished": 4, "b100": 0, "b200": 0, "b500": 0, "binf": 4}
    starved = _scrape(running=2, waiting=6, usage=0.1, **starved_prompts)
    starved += _ttft_buckets(t0_04=0, t0_06=0, t0_08=0, tinf=4)
    assert check_control(c, [zero, starved], BASE).ok
    # Starved harder: only two long requests finished in the whole window.
    starved_prompts2 = {"finished": 2, "b100": 0, "b200": 0, "b500": 0, "binf": 2}
    worst = _scrape(running=2, waiting=6, usage=0.1, **starved_prompts2)
    worst += _ttft_buckets(t0_04=0, t0_06=0, t0_08=0, tinf=2)
    assert check_control(c, [zero, worst], BASE).ok
    idle = _scrape(running=2, waiting=0, usage=0.1, **starved_prompts)
    idle += _ttft_buckets(t0_04=0, t0_06=0, t0_08=0, tinf=4)
    assert not check_control(c, [zero, idle], BASE).ok
    slot_bound = _scrape(running=32, usage=0.1, **prompts)
    slot_bound += _ttft_buckets(t0_04=10, t0_06=10, t0_08=12, tinf=24)
    assert not check_control(c, [zero, slot_bound], BASE).ok


def test_eviction_control_counts_shared_requests_from_the_prompt_histogram() -> None:
    # 10 shared requests (prompts 600-1000 tokens, 512 cacheable tokens each) and 4 long ones.
    c = Control("evicted", 8, cacheable_shared_tokens=512, shared_prompt_range=(640, 1000))
    first = _scrape(finished=0, b500=0, b1000=0, b2000=0, binf=0)
    common = {"finished": 14, "b500": 0, "b1000": 10, "b2000": 14, "binf": 14, "usage": 0.97}
    evicted = _scrape(hits=512, **common)
    r = check_control(c, [first, evicted], BASE)
    assert r.ok and r.measured["shared_requests"] == 10
    assert math.isclose(r.measured["retention"], 0.1)
    kept = _scrape(hits=9 * 512, **common)
    assert not check_control(c, [first, kept], BASE).ok
    # No shared request in the window: nothing to judge retention by.
    none_shared = _scrape(hits=0, **{**common, "b1000": 0})
    assert not check_control(c, [first, none_shared], BASE).ok


def test_no_hits_control_requires_shared_text_and_no_hits() -> None:
    c = Control("no-hits", 256, shared_tokens=64, shared_prompt_range=(300, 300))
    first = _scrape(finished=0, queries=0, hits=0)
    assert check_control(c, [first, _scrape(finished=9, queries=3000, hits=0)], BASE).ok
    assert not check_control(c, [first, _scrape(finished=9, queries=3000, hits=1280)], BASE).ok


def test_itl_control_uses_the_single_request_baseline() -> None:
    c = Control("itl-ratio", 32)
    first = _scrape(finished=0, itl_sum=0, itl_count=0)
    slow = _scrape(finished=9, itl_sum=16, itl_count=1000)  # 16 ms = 4x 4 ms
    assert check_control(c, [first, slow], BASE).ok
    assert not check_control(c, [first, slow], {"ttft_s": 0.02, "itl_s": 0.008}).ok


def test_healthy_control_fails_when_any_symptom_shows() -> None:
    c = Control("healthy", 16, cacheable_shared_tokens=256, shared_prompt_range=(300, 300))
    first = _scrape(finished=0, b200=0, b500=0, hits=0, itl_sum=0, itl_count=0)
    fine = _scrape(finished=10, b200=0, b500=10, hits=9 * 256, itl_sum=4.4, itl_count=1000)
    assert check_control(c, [first, fine], BASE).ok
    preempted = _scrape(
        finished=10, b200=0, b500=10, hits=9 * 256, preempt=2, itl_sum=4.4, itl_count=1000
    )
    r = check_control(c, [first, preempted], BASE)
    assert not r.ok and "preemptions" in r.why


@pytest.mark.parametrize("klass", CLASSES)
def test_each_class_turns_into_a_lab_scenario(klass: str) -> None:
    d = next(d for d in ALL if d.klass == klass)
    sc = d.scenario()
    assert sc.engine_args == d.engine_args and sc.workload == d.phases
    assert sc.engine_env()["VLLM_CPU_KVCACHE_SPACE"] == str(d.kv_cache_space_gib)
    assert (sc.expected.symptom, sc.expected.cause) == TRUTH[klass]


def test_the_new_shapes_have_no_history_and_the_undecidable_get_prompts() -> None:
    from kvaccuracy.randomized import UNDECIDABLE_OFFLINE

    seen = {d.klass for d in ALL}
    for klass in (
        "prefix-drift-fresh",
        "sub-block-long",
        "salt-per-user",
        "eviction-fresh",
        "healthy-unshared-long",
    ):
        assert klass in seen and klass in UNDECIDABLE_OFFLINE
    for d in ALL:
        if d.klass in ("prefix-drift-fresh", "sub-block-long", "salt-per-user", "eviction-fresh"):
            assert not d.history, d.name
            assert not d.control.prior_hits, d.name
        if d.klass == "sub-block-long":
            spec = d.phases[0].spec
            assert spec.shared_prefix_tokens < BLOCK_SIZE <= spec.prompt_tokens // 2
        if d.klass == "salt-per-user":
            assert all(p.spec.cache_salts > 1 for p in d.phases), d.name
        if d.klass == "healthy-unshared-long":
            assert all(
                p.spec.prefix == "unique" and p.spec.prompt_tokens > 2 * BLOCK_SIZE
                for p in d.phases
            ), d.name
