"""Pools of hybrid layer mixes: the KV cache groups vLLM's allocator forms, what a sequence holds
of a pool counted in groups, and the capacity and advice read from it (external cases w-int8 and
g-mrv2: Gemma 4, 10 global and 50 sliding-window layers, a pool stated as 103,812 tokens over
38,928 blocks of 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.kvmath import KvModel
from kvdoctor.kvmath.capacity import held_tokens, pool_grouping
from kvdoctor.pipeline import kv_for
from kvdoctor.remediation.config import engine_config
from kvdoctor.signals.compute import compute_signals

CASES = Path(__file__).resolve().parents[2] / "cases"
GEMMA = CASES / "w-int8-kv-prefix-pinned-pool-gemma4" / "bundle"


def _gemma() -> KvModel:
    return KvModel.from_hf_config(json.loads((GEMMA / "model_config.json").read_text()))


def test_groups_are_the_smallest_kind_size_and_a_window_group_holds_the_window() -> None:
    model = _gemma()
    assert (model.attention_layers, model.window_layers, model.sliding_window) == (60, 50, 1024)
    # 10 global layers make one group of 10; 50 local layers five more.
    assert model.kv_cache_groups() == 6
    # 3,430 tokens: 215 blocks in the global group, 64 + 1 in each of the five local ones.
    assert model.blocks_per_sequence(3430, 16) == 215 + 5 * 65
    # A short sequence holds its own blocks in every group.
    assert model.blocks_per_sequence(100, 16) == 6 * 7


def test_one_kind_of_layer_is_one_group_counted_full() -> None:
    llama = KvModel.from_shape(layers=32, kv_heads=8, head_dim=128, attention_heads=32)
    assert llama.kv_cache_groups() == 1
    grouping = pool_grouping(llama, 5000, 16, stated_tokens=100_000, num_gpu_blocks=6250)
    assert (grouping.groups, grouping.held_share) == (1, 1.0)
    assert held_tokens(llama, 5000, 16, 1) == 5000


def test_a_pool_stated_per_group_counts_what_the_window_keeps() -> None:
    model = _gemma()
    grouping = pool_grouping(model, 3430, 16, stated_tokens=103_812, num_gpu_blocks=38_928)
    assert grouping.groups == 6
    assert grouping.held_share == pytest.approx(540 * 16 / 6 / 3430)
    # A server that pages every layer together states blocks × block size: no grouping shows.
    flat = pool_grouping(model, 3430, 16, stated_tokens=622_848, num_gpu_blocks=38_928)
    assert (flat.groups, flat.held_share) == (1, 1.0)
    # Nothing stated: every layer counts full, as before.
    unknown = pool_grouping(model, 3430, 16, stated_tokens=None, num_gpu_blocks=38_928)
    assert (unknown.groups, unknown.held_share) == (1, 1.0)


def test_the_window_mix_sets_sequences_that_fit_and_demand() -> None:
    bundle = read_bundle(GEMMA)
    ss = compute_signals(bundle)
    assert ss.get("kv_pool_groups") == 6
    share = ss.get("kv_held_share")
    assert isinstance(share, float) and 0.41 < share < 0.43
    kv = kv_for(bundle, ss)
    # 103,812 / (3,430 × 0.42) sequences, where counting every token full said 30.
    assert kv.capacity_sequences == 72
    assert any("holds 1,440 of the pool's tokens" in n for n in kv.notes)


def test_a_max_model_len_request_of_a_window_mix_fits_a_pool_shorter_than_its_length() -> None:
    # g-mrv2: 262,144 tokens admitted, 103,812 stated: the request holds 16,709 blocks of 38,928,
    # 44,557 tokens as the pool counts them.
    bundle = read_bundle(CASES / "g-mrv2-gemma4-runtime-oom-3090-tp2" / "bundle")
    ss = compute_signals(bundle)
    assert ss.get("max_model_len_held_share") == pytest.approx(44_557.333 / 262_144, abs=1e-5)
    over = ss.get("max_model_len_over_capacity")
    assert isinstance(over, float) and over < 0.5
    cfg = engine_config(bundle, ss, kv_for(bundle, ss))
    assert cfg.pool_tokens == 38_928 // 6 * 16
    assert cfg.held_tokens(262_144) == pytest.approx(16_709 * 16 / 6)
