"""Pure parts of the load generator: prompt synthesis, calibration decisions, guard decisions,
the /metrics reduction the guard and the experiments read, the spec, SSE parsing, percentiles."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from kvdoctor.reproducers.guard import (
    GuardLimits,
    allowed_preemptions,
    decide,
    lifetime_preemption_rate,
    run_kv_share,
)
from kvdoctor.reproducers.loadgen import LoadSpec, SSEParser, percentile
from kvdoctor.reproducers.metrics import Histogram, parse_snapshot
from kvdoctor.reproducers.prompts import (
    LETTERS,
    VOCAB,
    calibration_from_counts,
    fit_words,
    index_width,
    request_words,
    words_for_tokens,
)

METRICS = """# HELP vllm:kv_cache_usage_perc KV-cache usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.75
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{engine="0",model_name="m"} 2.0
vllm:num_preemptions_total{engine="1",model_name="m"} 3.0
vllm:num_preemptions_created{engine="0",model_name="m"} 1.7e9
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 128.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 1.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="1.0",model_name="m"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 4.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 4.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 2.5
# TYPE python_gc_objects_collected counter
python_gc_objects_collected_total{generation="0"} 12.0
"""


def test_snapshot_reduces_engines() -> None:
    s = parse_snapshot(METRICS)
    assert s.get("kv_usage") == 0.75  # fullest pool
    assert s.get("preemptions") == 5.0  # summed, *_created ignored
    assert s.get("prefix_hits") == 128.0
    h = s.histograms["ttft"]
    assert h.count == 4.0 and h.sum == 2.5
    assert h.buckets == ((0.1, 1.0), (1.0, 3.0), (float("inf"), 4.0))


def test_snapshot_accepts_old_names_and_ray_prefix() -> None:
    s = parse_snapshot(
        'ray_vllm:gpu_cache_usage_perc{model_name="m"} 0.5\n'
        'vllm:gpu_prefix_cache_queries_total{model_name="m"} 10\n'
    )
    assert s.get("kv_usage") == 0.5 and s.get("prefix_queries") == 10.0


def test_snapshot_of_garbage_is_empty() -> None:
    assert parse_snapshot('vllm:kv_cache_usage_perc{engine="0" 1\n').values == {}


def test_deltas_and_counter_reset() -> None:
    a = parse_snapshot("vllm:prefix_cache_hits_total 100\n")
    b = parse_snapshot("vllm:prefix_cache_hits_total 228\n")
    assert b.delta(a, "prefix_hits") == 128.0
    assert a.delta(b, "prefix_hits") is None  # reset: no negative deltas
    assert b.delta(a, "prefix_queries") is None


def test_histogram_delta_and_quantile() -> None:
    old = Histogram(2.0, 1.0, ((0.1, 1.0), (1.0, 2.0), (float("inf"), 2.0)))
    new = Histogram(6.0, 3.0, ((0.1, 1.0), (1.0, 6.0), (float("inf"), 6.0)))
    d = new.minus(old)
    assert d.count == 4.0 and d.mean == 0.5
    # All four new observations fall in (0.1, 1.0]: the median interpolates to the middle.
    assert d.quantile(0.5) == pytest.approx(0.55)
    assert Histogram().quantile(0.5) is None


def test_samples_binned_like_a_server_histogram_share_its_estimator() -> None:
    server = Histogram(4.0, 0.7, ((0.1, 0.0), (0.25, 4.0), (float("inf"), 4.0)))
    samples = [0.15, 0.16, 0.17, 0.22]
    binned = server.binned(samples)
    assert binned.buckets == ((0.1, 0.0), (0.25, 4.0), (float("inf"), 4.0))
    assert binned.count == 4.0 and binned.mean == pytest.approx(0.175)
    # Same buckets, same interpolation: the medians agree although the exact sample median
    # (0.165) is far from the interpolated one (0.175) inside the 150 ms wide bucket.
    assert binned.quantile(0.5) == server.quantile(0.5) == pytest.approx(0.175)
    assert server.binned([]).quantile(0.5) is None


def test_guard_decisions() -> None:
    lim = GuardLimits(
        max_kv_usage=0.9, max_new_preemptions=0, max_error_rate=0.5, min_finished_for_error_rate=4
    )
    base = parse_snapshot("vllm:kv_cache_usage_perc 0.1\nvllm:num_preemptions_total 7\n")
    calm = parse_snapshot("vllm:kv_cache_usage_perc 0.9\nvllm:num_preemptions_total 7\n")
    full = parse_snapshot("vllm:kv_cache_usage_perc 0.91\nvllm:num_preemptions_total 7\n")
    pre = parse_snapshot("vllm:kv_cache_usage_perc 0.2\nvllm:num_preemptions_total 8\n")
    assert decide(base, calm, lim, 0, 0) is None  # at the limit is still fine
    assert decide(base, full, lim, 0, 0) == "KV cache usage 91% above the guard's limit 90%"
    assert decide(base, pre, lim, 0, 0) == "1 preemption(s) during the run (guard allows 0)"
    # Preemptions before the run (the baseline's 7) do not count.
    assert decide(None, pre, lim, 0, 0) is None
    # Errors: a rate needs enough finished requests.
    assert decide(base, calm, lim, 3, 3) is None
    assert decide(base, calm, lim, 4, 2) is None
    assert decide(base, calm, lim, 4, 3) == (
        "3 of 4 requests failed (error rate above the guard's 50%)"
    )
    # No metrics at all: only the client-side error rate can stop the run.
    assert decide(None, None, lim, 10, 0) is None


def test_guard_counts_only_preemptions_beyond_the_servers_own() -> None:
    lim = GuardLimits(max_new_preemptions=0)
    base = parse_snapshot("vllm:kv_cache_usage_perc 0.5\nvllm:num_preemptions_total 100\n")
    two = parse_snapshot("vllm:kv_cache_usage_perc 0.5\nvllm:num_preemptions_total 102\n")
    # A quiet server: any preemption during the run is the run's.
    assert decide(base, two, lim, 0, 0, background_per_s=None, elapsed_s=5.0) is not None
    assert decide(base, two, lim, 0, 0, background_per_s=0.0, elapsed_s=5.0) is not None
    # A server preempting 0.2/s on its own: 5 s expect 1, allowance 1 + 3 = 4.
    assert allowed_preemptions(lim, 0.2, 5.0) == 4
    assert decide(base, two, lim, 0, 0, background_per_s=0.2, elapsed_s=5.0) is None
    many = parse_snapshot("vllm:kv_cache_usage_perc 0.5\nvllm:num_preemptions_total 105\n")
    assert decide(base, many, lim, 0, 0, background_per_s=0.2, elapsed_s=5.0) == (
        "5 preemption(s) during the run (guard allows 4)"
    )
    # The allowance grows with the run, never shrinks below the configured limit.
    assert allowed_preemptions(lim, 0.2, 0.0) == 0
    assert allowed_preemptions(GuardLimits(max_new_preemptions=2), 0.2, 5.0) == 6


def test_guard_usage_limit_starts_from_the_servers_own_level() -> None:
    lim = GuardLimits(max_kv_usage=0.95)
    full = parse_snapshot("vllm:kv_cache_usage_perc 0.97\n")
    same = parse_snapshot("vllm:kv_cache_usage_perc 0.98\n")
    more = parse_snapshot("vllm:kv_cache_usage_perc 1.0\n")
    # The workload already holds the pool at 97 %: the probe stops only if it rises further.
    assert decide(full, same, lim, 0, 0) is None
    assert decide(full, more, lim, 0, 0) == "KV cache usage 100% above the guard's limit 99%"
    low = parse_snapshot("vllm:kv_cache_usage_perc 0.5\n")
    assert decide(low, same, lim, 0, 0) == "KV cache usage 98% above the guard's limit 95%"


def test_lifetime_preemption_rate_from_process_start() -> None:
    snap = parse_snapshot(
        'process_start_time_seconds 1000.0\nvllm:num_preemptions_total{engine="0"} 30\n'
    )
    assert snap.get("process_start") == 1000.0
    assert lifetime_preemption_rate(snap, 1300.0) == pytest.approx(0.1)
    # Under a minute of uptime (or a clock behind the server's) is not a rate.
    assert lifetime_preemption_rate(snap, 1030.0) is None
    assert lifetime_preemption_rate(snap, 900.0) is None
    assert lifetime_preemption_rate(parse_snapshot("vllm:num_preemptions_total 3\n"), 1e9) is None


def test_calibration_exact_when_one_token_per_unit() -> None:
    cal = calibration_from_counts(1, VOCAB, " ", 1 + len(VOCAB), None, "usage")
    assert cal.exact and cal.overhead == 1 and cal.vocab == VOCAB
    assert words_for_tokens(100, cal) == 99


def test_calibration_drops_units_sharing_an_id() -> None:
    # A word-level tokenizer that maps the first 10 letters to <unk> (id 0).
    ids = [0] * 10 + list(range(100, 116))
    cal = calibration_from_counts(0, LETTERS, "", 26, ids, "tokenize")
    assert cal.exact and cal.vocab == LETTERS[10:]
    # Too few distinct units left: not exact.
    ids2 = [0] * 20 + list(range(100, 106))
    assert not calibration_from_counts(0, LETTERS, "", 26, ids2, "tokenize").exact


def test_calibration_estimates_tokens_per_word_when_not_exact() -> None:
    cal = calibration_from_counts(1, VOCAB, " ", 1 + 3 * len(VOCAB), None, "tokenize")
    assert not cal.exact and cal.tokens_per_word == pytest.approx(3.0)
    assert words_for_tokens(31, cal) == 10


def test_request_words_modes() -> None:
    kw = {"shared_words": 30, "seed": 7, "vocab": LETTERS, "width": 2}
    uniq = [request_words(i, 40, mode="unique", **kw) for i in range(100)]  # type: ignore[arg-type]
    assert len({tuple(w[:2]) for w in uniq}) == 100
    assert all(len(w) == 40 for w in uniq)
    shared = [request_words(i, 40, mode="shared", **kw) for i in range(5)]  # type: ignore[arg-type]
    assert len({tuple(w[:30]) for w in shared}) == 1 and len({tuple(w) for w in shared}) == 5
    drift = [request_words(i, 40, mode="timestamp-first", **kw) for i in range(5)]  # type: ignore[arg-type]
    assert len({tuple(w[:2]) for w in drift}) == 5 and len({tuple(w[2:32]) for w in drift}) == 1
    # Deterministic in the seed.
    assert request_words(3, 40, mode="unique", **kw) == uniq[3]  # type: ignore[arg-type]


def test_index_width() -> None:
    assert index_width(1, 26) == 1
    assert index_width(26, 26) == 1
    assert index_width(27, 26) == 2
    assert index_width(26**2 + 1, 26) == 3


def test_fit_words_finds_exact_prefix() -> None:
    # Words of 1 or 2 tokens: the search must find the prefix with exactly the target.
    words = ["a", "bb", "c", "dd", "e", "ff", "g", "hh"] * 10

    async def count(text: str) -> int:
        return sum(len(w) for w in text.split())

    k = asyncio.run(fit_words(words, 30, count))
    assert sum(len(w) for w in words[:k]) == 30


def test_spec_validation() -> None:
    with pytest.raises(ValidationError):
        LoadSpec(prompt_tokens=10, max_tokens=1, requests=1, bogus=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        LoadSpec(
            prompt_tokens=10, max_tokens=1, requests=1, prefix="shared", shared_prefix_tokens=11
        )
    with pytest.raises(ValidationError):
        LoadSpec(prompt_tokens=10, max_tokens=1, requests=0)


def test_sse_parser_handles_split_chunks() -> None:
    p = SSEParser()
    assert p.feed(b'data: {"a"') == []
    assert p.feed(b": 1}\n\ndata: [DO") == [b'{"a": 1}']
    assert p.feed(b"NE]\r\n\r\n: ping\n\n") == [b"[DONE]"]


def test_percentile() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([1.0, 2.0], 0.5) == 1.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.99) == pytest.approx(4.96)


def test_guard_leaves_the_pool_level_the_servers_own_traffic_reaches() -> None:
    # The capture saw the traffic itself fill the pool to 96 %: a probe that finds it at 96 %
    # again is not the cause; two points above that level is (the eviction-churn lab, whose
    # 24-block pool its own workload fills, stopped every probe at "96 % above 95 %").
    base = parse_snapshot("vllm:kv_cache_usage_perc 0.80\nvllm:num_preemptions_total 0\n")
    at = parse_snapshot("vllm:kv_cache_usage_perc 0.96\nvllm:num_preemptions_total 0\n")
    over = parse_snapshot("vllm:kv_cache_usage_perc 0.99\nvllm:num_preemptions_total 0\n")
    quiet = GuardLimits(max_kv_usage=0.95)
    busy = GuardLimits(max_kv_usage=0.95, background_max_kv_usage=0.96)
    assert decide(base, at, quiet, 0, 0) == "KV cache usage 96% above the guard's limit 95%"
    assert decide(base, at, busy, 0, 0) is None
    assert decide(base, over, busy, 0, 0) == "KV cache usage 99% above the guard's limit 98%"
    # A window that never came near the limit changes nothing.
    calm = GuardLimits(max_kv_usage=0.95, background_max_kv_usage=0.5)
    assert decide(base, at, calm, 0, 0) == "KV cache usage 96% above the guard's limit 95%"


def test_guard_leaves_a_pool_the_traffic_fills_without_the_runs_own_blocks() -> None:
    # On a busy host the eviction-churn workload filled its pool only after the capture had
    # measured its peak: the probe (one request, two blocks of a 24-block pool) was stopped at
    # "100 % above 95 %". Usage that stays above the limit without the run's own share is the
    # traffic's; preemptions still stop the run.
    base = parse_snapshot("vllm:kv_cache_usage_perc 0.50\nvllm:num_preemptions_total 0\n")
    full = parse_snapshot("vllm:kv_cache_usage_perc 1.0\nvllm:num_preemptions_total 0\n")
    preempted = parse_snapshot("vllm:kv_cache_usage_perc 1.0\nvllm:num_preemptions_total 2\n")
    share = run_kv_share(prompt_tokens=40, max_tokens=8, in_flight=1, block_size=16, pool_blocks=24)
    assert share == pytest.approx(3 / 24)
    small = GuardLimits(max_kv_usage=0.95, run_max_kv_share=0.02)
    assert decide(base, full, small, 0, 0) is None
    assert decide(base, preempted, small, 0, 0) == "2 preemption(s) during the run (guard allows 0)"
    # A run whose own blocks can carry the pool past the limit is stopped there.
    large = GuardLimits(max_kv_usage=0.95, run_max_kv_share=0.5)
    assert decide(base, full, large, 0, 0) == "KV cache usage 100% above the guard's limit 95%"
    # Unknown pool size: the limit applies as before.
    assert decide(base, full, GuardLimits(max_kv_usage=0.95), 0, 0) is not None
    assert run_kv_share(10, 10, 1, block_size=16, pool_blocks=0) is None
    assert run_kv_share(1000, 1000, 4, block_size=16, pool_blocks=24) == 1.0
