"""One KV capacity: the report's KV table and the rules read the pool from the same function."""

from __future__ import annotations

from pathlib import Path

import pytest
from _bundle_factory import bundle as make_bundle
from hypothesis import given
from hypothesis import strategies as st

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.kvmath.capacity import (
    BLOCKS,
    LOG,
    MEMORY,
    REPORTED,
    pool_capacity,
    sequences_that_fit,
)
from kvdoctor.pipeline import kv_for
from kvdoctor.remediation.planner import window_of
from kvdoctor.rules.predicates import SignalView
from kvdoctor.signals.compute import compute_signals
from kvdoctor.signals.model import SignalSet

FIXTURES = sorted(p for p in (Path(__file__).parents[2] / "fixtures").iterdir() if p.is_dir())


def test_the_engines_figure_wins_and_names_the_blocks_when_they_agree() -> None:
    assert pool_capacity(reported=2048, block_size=16, num_gpu_blocks=128).source == BLOCKS
    # A hybrid layout: the engine's figure is not blocks × block size, and it is the one kept.
    hybrid = pool_capacity(reported=3000, block_size=16, num_gpu_blocks=128)
    assert (hybrid.tokens, hybrid.source) == (3000, REPORTED)


def test_fallbacks_in_order() -> None:
    assert pool_capacity(block_size=16, num_gpu_blocks=10, log_tokens=200).tokens == 160
    # The engine's stated tokens below blocks × block size: a hybrid pool whose blocks serve
    # several KV cache groups (external case zyz-flashnext: 2,851 blocks of 1,056 tokens,
    # 301,056 tokens stated). The stated figure is the pool.
    hybrid = pool_capacity(block_size=16, num_gpu_blocks=10, log_tokens=99)
    assert (hybrid.tokens, hybrid.source) == (99, LOG)
    assert pool_capacity(reported=160, block_size=16, num_gpu_blocks=10, log_tokens=99).tokens == 99
    by_log = pool_capacity(log_tokens=99, kv_cache_memory_bytes=1000, bytes_per_token=10)
    assert (by_log.tokens, by_log.source) == (99, LOG)
    by_memory = pool_capacity(kv_cache_memory_bytes=1005, bytes_per_token=10)
    assert (by_memory.tokens, by_memory.source) == (100, MEMORY)
    assert pool_capacity(block_size=16).tokens is None


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf")])
def test_nonsense_figures_are_unknown_not_capacity(bad: float) -> None:
    assert pool_capacity(reported=bad, block_size=16, num_gpu_blocks=4).tokens == 64
    assert pool_capacity(reported=bad).tokens is None


def test_sequences_that_fit() -> None:
    assert sequences_that_fit(3072, 1232.0) == 2
    # Never zero: vLLM does not start with a pool smaller than one max_model_len sequence.
    assert sequences_that_fit(100, 400.0) == 1
    assert sequences_that_fit(None, 10.0) is None
    assert sequences_that_fit(100, 0.0) is None
    assert sequences_that_fit(100, float("nan")) is None
    assert sequences_that_fit(100, float("inf")) is None
    # Found by the property below: a denormal mean overflows the quotient (report crashed).
    assert sequences_that_fit(1, 5e-324) is None


_maybe_whole = st.one_of(st.none(), st.integers(min_value=-2, max_value=5_000_000))
_maybe_len = st.one_of(st.none(), st.floats(min_value=0.0, max_value=1e5, allow_nan=False))


@given(
    reported=_maybe_whole,
    block_size=st.one_of(st.none(), st.sampled_from([1, 16, 128])),
    blocks=_maybe_whole,
    log_tokens=_maybe_whole,
    memory=_maybe_whole,
    prompt=_maybe_len,
    generation=_maybe_len,
)
def test_report_table_and_rules_agree(
    reported: int | None,
    block_size: int | None,
    blocks: int | None,
    log_tokens: int | None,
    memory: int | None,
    prompt: float | None,
    generation: float | None,
) -> None:
    signals = SignalSet()
    for name, value in (
        ("kv_capacity_tokens", reported),
        ("block_size", block_size),
        ("num_gpu_blocks", blocks),
        ("log_kv_cache_tokens", log_tokens),
        ("kv_cache_memory_bytes", memory),
        ("mean_prompt_len", prompt),
        ("mean_generation_len", generation),
    ):
        signals.set(name, value)
    # No model config: bytes per token unknown to both (the signal comes from the same config).
    bundle = make_bundle("healthy", n=2).model_copy(update={"model_config_raw": None})
    kv = kv_for(bundle, signals)
    view = SignalView(signals)
    assert kv.capacity_tokens == view.value("capacity_tokens")
    assert kv.capacity_sequences == view.value("seqs_that_fit")
    # The remediation planner's "holds N sequences" too.
    assert window_of(signals).fit(kv.capacity_tokens) == kv.capacity_sequences


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_report_and_rules_agree(fixture: Path) -> None:
    bundle = read_bundle(fixture / "bundle.tar.gz")
    signals = compute_signals(bundle)
    kv = kv_for(bundle, signals)
    view = SignalView(signals)
    assert kv.capacity_tokens == view.value("capacity_tokens")
    assert kv.capacity_sequences == view.value("seqs_that_fit")
    # The remediation planner's "holds N sequences" too.
    assert window_of(signals).fit(kv.capacity_tokens) == kv.capacity_sequences


def test_the_planner_bounds_what_fits_by_what_the_full_pool_held() -> None:
    # Four sequences running with the pool at 99.5 %: whatever their mean length says (30 of
    # 11,651 tokens fit 356,656), the pool holds four (external case zzo-glm53-hybrid).
    signals = SignalSet()
    signals.set("mean_prompt_len", 10752.0)
    signals.set("mean_generation_len", 899.0)
    signals.series["running"] = [(0.0, 3.0), (10.0, 4.0), (20.0, 4.0), (30.0, 2.0)]
    signals.series["kv_usage"] = [(0.0, 0.83), (10.0, 0.995), (20.0, 0.93), (30.0, 0.6)]
    win = window_of(signals)
    assert win.full_pool_sequences == 4
    assert win.fit(356_656) == 30
    assert win.fit_seen(356_656) == 4


def test_a_pool_that_never_filled_leaves_the_length_estimate_alone() -> None:
    signals = SignalSet()
    signals.set("mean_prompt_len", 1000.0)
    signals.set("mean_generation_len", 24.0)
    signals.series["running"] = [(0.0, 3.0), (10.0, 4.0)]
    signals.series["kv_usage"] = [(0.0, 0.2), (10.0, 0.89)]
    win = window_of(signals)
    assert win.full_pool_sequences is None
    assert win.fit_seen(102_400) == win.fit(102_400) == 100
