"""LMCache's own lookup and store lines stand in for vLLM's external prefix counters in releases
that have none (before 0.12): how much was looked up, how much hit, and whether the long
lookups are prompts sent again (external case t-lmcache)."""

from __future__ import annotations

from _bundle_factory import bundle

from kvdoctor.signals.compute import compute_signals


def _lookup(req: str, total: int, hit: int, load: int = 0) -> str:
    return (
        f"(EngineCore_DP0 pid=3111) [2025-10-14 06:03:05,809] LMCache INFO: Reqid: {req}, "
        f"Total tokens {total}, LMCache hit tokens: {hit}, need to load: {load} "
        "(vllm_v1_adapter.py:1191:lmcache.integration.vllm.vllm_v1_adapter)\n"
    )


def _stored(n: int) -> str:
    return (
        f"[2025-10-14 06:03:05,880] LMCache INFO: Stored {n} out of total {n} tokens. size: "
        "0.0034 gb, cost 4.4600 ms (cache_engine.py:288:lmcache.v1.cache_engine)\n"
    )


def test_lookups_hits_and_resent_prompts_come_from_the_lmcache_log() -> None:
    # Two documents sent three times each, one short probe; a negative "need to load" (seen in
    # LMCache 0.3) and hits reported above the total are read without breaking the sums.
    lines = [_lookup("p", 26, 0)]
    for i in range(3):
        lines += [_lookup(f"a{i}", 7058, 0, -16), _stored(7058)]
        lines += [_lookup(f"b{i}", 4351, 0), _stored(4351)]
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "".join(lines)}))
    assert ss.get("log_external_lookups") == 7
    assert ss.get("log_external_lookup_tokens") == 26 + 3 * (7058 + 4351)
    assert ss.get("log_external_hit_rate") == 0.0
    # Six long lookups, four of them a length seen before; six lengths drawn at random from
    # 4,351-7,058 would almost never repeat (chance 0.09 %), so nearly all four count.
    width = 7058 - 4351 + 1
    chance = 1 - width * (1 - (1 - 1 / width) ** 6) / 6
    assert ss.get("log_external_repeat_share") == round((4 / 6 - chance) / (1 - chance), 4)
    assert ss.get("log_external_repeat_share") > 0.66  # type: ignore[operator]
    assert ss.get("log_external_stored_tokens") == 3 * (7058 + 4351)


def test_prompts_of_one_fixed_length_repeat_lengths_without_being_resent() -> None:
    # External case za-pd-lmcache (round 8): a benchmark's random 1,000-token prompts, give or
    # take the template, 414 lookups of 998-1,003 tokens and none shared. The repeats are what
    # six possible lengths force, not prompts sent again.
    lines = [_lookup(f"r{i}", 998 + (i * 7) % 6, 0) for i in range(60)]
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "".join(lines)}))
    assert ss.get("log_external_repeat_share") == 0.0


def test_hits_count_at_most_the_lookup_and_few_long_lookups_say_nothing_of_repeats() -> None:
    lines = [_lookup("a", 14771, 14768), _lookup("b", 14771, 20000), _lookup("c", 300, 0)]
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "".join(lines)}))
    assert ss.get("log_external_hit_rate") == round((14768 + 14771) / (2 * 14771 + 300), 4)
    assert ss.get("log_external_repeat_share") is None
    assert "fewer than 4" in (ss.values["log_external_repeat_share"].reason or "")


def test_a_log_without_lmcache_looked_nothing_up_and_one_without_lookup_lines_is_unknown() -> None:
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "INFO nothing here\n"}))
    assert ss.get("log_external_lookup_tokens") == 0
    assert ss.get("log_external_hit_rate") is None
    config = "[2025-10-14 05:59:03,500] LMCache INFO: Creating LMCacheEngine with config: {}\n"
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": config}))
    for name in ("log_external_lookups", "log_external_hit_rate", "log_external_repeat_share"):
        assert ss.get(name) is None
        assert "no LMCache lookup lines" in (ss.values[name].reason or "")


def _store_at(process: str, second: float, cost_ms: float, unit: str = "GB") -> str:
    whole, ms = int(second), round((second - int(second)) * 1000)
    return (
        f"({process}) [2025-09-18 15:{whole // 60:02d}:{whole % 60:02d},{ms:03d}] LMCache INFO: "
        f"Stored 2048 out of total 2048 tokens. size: 0.3750 {unit}, cost {cost_ms:.4f} ms, "
        "throughput: 0.5049 GB/s (cache_engine.py:247:lmcache.v1.cache_engine)\n"
    )


def test_the_busiest_process_share_of_time_spent_storing() -> None:
    # One store every 0.8 s costing 0.74 s on the engine, and a second process storing 5 ms
    # each: the busy one counts (external case zyf-lmcache: 92 %).
    lines = [_store_at("EngineCore_DP0 pid=1", 0.8 * i, 740.0) for i in range(20)]
    lines += [_store_at("Worker_TP1 pid=2", 0.8 * i, 5.0, unit="gb") for i in range(20)]
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "".join(lines)}))
    assert ss.get("log_external_store_busy_share") == round(19 * 0.74 / (19 * 0.8), 3)
    # Four store lines say nothing of a share; a log without LMCache has none.
    few = "".join(_store_at("EngineCore_DP0 pid=1", 0.8 * i, 740.0) for i in range(4))
    assert (
        compute_signals(bundle("healthy").model_copy(update={"logs": few})).get(
            "log_external_store_busy_share"
        )
        is None
    )
    assert compute_signals(bundle("healthy")).get("log_external_store_busy_share") is None
