"""The one definition of a running server's KV capacity: tokens its pool holds, sequences that fit.

The signals (``kv_capacity_tokens``), the rules (``capacity_tokens``, ``seqs_that_fit``) and the
report's KV table (``capacity_tokens``, ``capacity_sequences``) all call these two functions, so
the table and the findings cannot disagree about how big the pool is.

The hypothetical pools of ``kvdoctor kv`` (a GPU size minus weights) are bytes, not a server's
figures; they stay in :mod:`kvdoctor.kvmath.memory`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from kvdoctor.kvmath.model import KvModel

# vLLM's block size where the operator set none: CacheConfig.DEFAULT_BLOCK_SIZE on GPUs, and
# what CpuPlatform.check_and_update_config picks on the CPU backend. The planner sizes pools
# with them; the prompt sample is placed against the GPU one when nothing states the block.
GPU_DEFAULT_BLOCK_SIZE = 16
CPU_DEFAULT_BLOCK_SIZE = 128
# vLLM's smallest default --max-num-seqs per platform (0.32 get_batch_defaults: 128 sequences
# per unit of world size on CPU, 256 on GPUs under 70 GiB or the A100, 1,024 above).
CPU_DEFAULT_MAX_NUM_SEQS = 128
GPU_DEFAULT_MAX_NUM_SEQS = 256
# And --max-num-batched-tokens: 2,048 on CPU and on GPUs under 70 GiB or the A100.
CPU_DEFAULT_BATCHED_TOKENS = 2048
GPU_DEFAULT_BATCHED_TOKENS = 2048


def gpu_batch_defaults(total_bytes: float, name: str | None) -> tuple[int, int]:
    """vLLM 0.32's default (--max-num-batched-tokens, --max-num-seqs) for a GPU of
    ``total_bytes`` (get_batch_defaults): 16,384 and 1,024 from 160 GiB, 8,192 and 1,024 from
    70 GiB other than the A100, else 2,048 and 256."""
    gib = total_bytes / (1 << 30)
    if gib >= 160:
        return 16384, 1024
    if gib >= 70 and "a100" not in (name or "").lower():
        return 8192, 1024
    return GPU_DEFAULT_BATCHED_TOKENS, GPU_DEFAULT_MAX_NUM_SEQS


REPORTED = "metrics: vllm:cache_config_info label kv_cache_size_tokens"
BLOCKS = "block_size × num_gpu_blocks"
LOG = "logs: startup line 'KV cache size: N tokens'"
MEMORY = "kv_cache_memory_bytes ÷ bytes_per_token"


class PoolCapacity(NamedTuple):
    """The pool in tokens and how it was found (``None`` and ``None`` when nothing says)."""

    tokens: int | None
    source: str | None


def _positive(value: float | None) -> int | None:
    if value is None or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        return None
    return int(value)


def pool_capacity(
    *,
    reported: float | None = None,
    block_size: float | None = None,
    num_gpu_blocks: float | None = None,
    log_tokens: float | None = None,
    kv_cache_memory_bytes: float | None = None,
    bytes_per_token: float | None = None,
) -> PoolCapacity:
    """Tokens the KV pool holds, from the best figure given.

    In order: the engine's own figure (``kv_cache_size_tokens``; for hybrid layouts it can
    differ from blocks × block size), the startup log's figure where it is below blocks ×
    block size (a hybrid pool's blocks serve several groups), blocks × block size, the startup
    log's figure, and last
    the KV memory divided by bytes per token (the model config's arithmetic, not the
    server's). When the engine's figure equals blocks × block size the source names the
    blocks: the report's table prints the pool as "N blocks = T tokens".
    """
    rep = _positive(reported)
    bs, nb = _positive(block_size), _positive(num_gpu_blocks)
    blocks = bs * nb if bs is not None and nb is not None else None
    if rep is not None and rep != blocks:
        return PoolCapacity(rep, REPORTED)
    log = _positive(log_tokens)
    # A hybrid model's blocks serve several KV cache groups at once, so the tokens the engine
    # states at start-up ("GPU KV cache size: N tokens") are fewer than blocks × block size;
    # the engine's own figure is the pool (external case zyz-flashnext: 2,851 blocks of 1,056
    # tokens, 301,056 tokens stated).
    if blocks is not None and log is not None and log < blocks:
        return PoolCapacity(log, LOG)
    if blocks is not None:
        return PoolCapacity(blocks, BLOCKS)
    if log is not None:
        return PoolCapacity(log, LOG)
    mem, bpt = _positive(kv_cache_memory_bytes), _positive(bytes_per_token)
    if mem is not None and bpt is not None:
        return PoolCapacity(mem // bpt, MEMORY)
    return PoolCapacity(None, None)


def sequences_that_fit(capacity_tokens: float | None, sequence_tokens: float | None) -> int | None:
    """Whole sequences of ``sequence_tokens`` the pool holds at once; ``None`` when unknown.

    At least one: vLLM refuses to start when max_model_len exceeds the pool, so a sequence of
    the workload's mean length always fits; fewer only happens on inconsistent figures, and a
    recommendation of "--max-num-seqs 0" would be nonsense.
    """
    cap = _positive(capacity_tokens)
    if cap is None or sequence_tokens is None or not sequence_tokens > 0:
        return None
    if not math.isfinite(sequence_tokens):
        return None
    fit = cap / sequence_tokens
    # A hostile or corrupt bundle (a mean of 1e-320 tokens) makes the quotient infinite.
    if not math.isfinite(fit):
        return None
    return max(1, math.floor(fit))


class PoolGrouping(NamedTuple):
    """How the engine counts its pool for this model's layer mix, and what one sequence holds.

    ``groups``: the KV cache groups the engine's stated pool is divided by (1 when the engine
    counts blocks × block size, or the model has one kind of layer). ``held_share``: the share of
    its tokens a sequence of ``tokens`` holds in that count (below 1 where sliding-window layers
    keep only the window and attention-free layers one block of state).
    """

    groups: int
    held_share: float
    how: str


def pool_grouping(
    model: KvModel,
    tokens: float,
    block_size: int | None,
    *,
    stated_tokens: int | None,
    num_gpu_blocks: int | None,
) -> PoolGrouping:
    """The engine's pool unit and a sequence's share of it, from the engine's own figures.

    vLLM's hybrid allocator states its pool as blocks / groups × block size (every group counted
    full) and a sequence holds whole blocks in its full-attention groups but only the window's in
    sliding-window groups. Whether the server grouped its layers shows in its figures: a stated
    pool of blocks / groups × block size. Without that evidence (a release that pages every
    layer together, or no stated figure) every layer counts full, as before.
    """
    n = max(1, math.ceil(tokens))
    groups = model.kv_cache_groups()
    if not block_size or block_size <= 0:
        return PoolGrouping(1, 1.0, "block size unknown: every layer counted full")
    if groups == 1:
        if _all_windowed(model):
            share = min(1.0, held_tokens(model, n, block_size, 1) / n)
            return PoolGrouping(1, share, "every attention layer keeps only the window")
        return PoolGrouping(1, 1.0, "one kind of layer: every layer counted full")
    paged = num_gpu_blocks * block_size if num_gpu_blocks else None
    if stated_tokens and paged and abs(stated_tokens * groups - paged) <= groups * block_size:
        share = min(1.0, held_tokens(model, n, block_size, groups) / n)
        return PoolGrouping(
            groups,
            share,
            f"the engine states blocks / {groups} KV cache groups × block size: a sequence "
            "holds the window's blocks in its sliding-window groups",
        )
    return PoolGrouping(1, 1.0, "no stated pool showing grouped layers: every layer counted full")


def _all_windowed(model: KvModel) -> bool:
    return bool(model.window_layers) and model.window_layers == model.attention_layers


def held_tokens(model: KvModel, tokens: int, block_size: int, groups: int) -> float:
    """Tokens of the pool, as an engine that divides it by ``groups`` counts them, that one
    sequence of ``tokens`` tokens holds (``tokens`` itself where every layer counts full)."""
    if groups > 1:
        return model.blocks_per_sequence(tokens, block_size) * block_size / groups
    if _all_windowed(model):
        return float(min(tokens, model.blocks_per_sequence(tokens, block_size) * block_size))
    return float(tokens)
