"""The ``kv`` object of the JSON report (docs/report.md), with the server cross-check."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kvdoctor.errors import KvdoctorError
from kvdoctor.factories import new_list
from kvdoctor.kvmath.capacity import pool_capacity, sequences_that_fit
from kvdoctor.kvmath.model import SCALED_KV_DTYPES, KvModel, KvModelSummary

# Relative disagreement tolerated between the reported pool and bytes/token × capacity: vLLM
# rounds the pool down to whole blocks, so up to one block's worth (plus a little) is expected.
_CROSS_CHECK_TOLERANCE = 0.02

CrossCheckStatus = Literal["agree", "mismatch", "not_checked", "not_comparable"]


class CrossCheck(BaseModel):
    """Bytes per token × the pool vLLM reports in blocks, against the KV memory it reports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: CrossCheckStatus
    expected_bytes: int | None = None
    reported_bytes: int | None = None
    # reported / expected, rounded to 6 places; None unless both are known.
    ratio: float | None = None
    detail: str


class KvSection(BaseModel):
    """The report's ``kv`` object (docs/report.md). Field order is the JSON key order, and every
    key is always written (null when unknown): the golden reports hold them all.

    Every field has a default, so ``KvSection()`` is "nothing known" (a report built without
    the locker math, e.g. in tests).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    bytes_per_token: int | None = None
    capacity_tokens: int | None = None
    capacity_sequences: int | None = None
    capacity_source: str | None = None
    mean_sequence_tokens: float | None = None
    kv_dtype: str | None = None
    block_size: int | None = None
    num_gpu_blocks: int | None = None
    block_bytes: int | None = None
    capacity_bytes: int | None = None
    kv_cache_memory_bytes: int | None = None
    demand_tokens: float | None = None
    demand_ratio: float | None = None
    cross_check: CrossCheck | None = None
    model: KvModelSummary | None = None
    notes: list[str] = Field(default_factory=new_list)


def kv_section(
    model_config: Mapping[str, Any] | None,
    kv_dtype: str | None,
    block_size: int | None,
    num_gpu_blocks: int | None,
    kv_cache_memory_bytes: int | None,
    demand_tokens: float | None,
    *,
    mean_sequence_tokens: float | None = None,
    reported_capacity_tokens: int | None = None,
    log_capacity_tokens: int | None = None,
    num_gpu_blocks_override: int | None = None,
    tensor_parallel_size: int | None = None,
    held_share: float | None = None,
) -> KvSection:
    """The ``kv`` object of the JSON report (docs/report.md). Pure; stable key order.

    Never raises on a bad model config: the reason goes into ``notes`` and the numbers that need
    the model are null, so one unreadable config does not stop a diagnosis.
    With ``tensor_parallel_size`` > 1 the per-token numbers are per GPU, like the pool vLLM
    reports. ``held_share``: the share of its tokens a sequence of the mean length holds in
    the pool as the engine counts it (kvmath.capacity.pool_grouping; 1 when every layer
    counts full).
    """
    notes: list[str] = []
    model: KvModel | None = None
    bpt: int | None = None
    kv_name: str | None = None
    if model_config is not None:
        try:
            model = KvModel.from_hf_config(model_config)
            if tensor_parallel_size and tensor_parallel_size > 1:
                # The pool and blocks vLLM reports are per GPU; so must bytes per token be.
                model = model.per_gpu(tensor_parallel_size)
        except KvdoctorError as exc:
            notes.append(f"model config not usable: {exc}")
        if model is not None:
            notes.extend(model.notes)
            try:
                kv_name = model.kv_dtype_name(kv_dtype or "auto")
                bpt = model.bytes_per_token(kv_name)
            except KvdoctorError as exc:
                notes.append(f"bytes per token unknown: {exc}")
                kv_name = kv_dtype
            if kv_name in SCALED_KV_DTYPES:
                notes.append(f"{kv_name}: per-token/per-block scale bytes are not included")
    else:
        notes.append("no model config: bytes per token unknown")

    # The rules' capacity_tokens and seqs_that_fit come from the same two calls.
    pool = pool_capacity(
        reported=reported_capacity_tokens,
        block_size=block_size,
        num_gpu_blocks=num_gpu_blocks,
        log_tokens=log_capacity_tokens,
        kv_cache_memory_bytes=kv_cache_memory_bytes,
        bytes_per_token=bpt,
    )
    capacity, capacity_source = pool.tokens, pool.source
    held = mean_sequence_tokens
    if mean_sequence_tokens is not None and held_share is not None and 0 < held_share < 1:
        held = mean_sequence_tokens * held_share
        notes.append(
            f"a sequence of {mean_sequence_tokens:,.0f} tokens holds {held:,.0f} of the pool's "
            "tokens as the engine counts them (sliding-window layers keep only the window)"
        )
    capacity_sequences_ = sequences_that_fit(capacity, held)

    demand_ratio: float | None = None
    if capacity and demand_tokens is not None:
        demand_ratio = round(demand_tokens / capacity, 6)

    return KvSection(
        bytes_per_token=bpt,
        capacity_tokens=capacity,
        capacity_sequences=capacity_sequences_,
        capacity_source=capacity_source,
        mean_sequence_tokens=mean_sequence_tokens,
        kv_dtype=kv_name,
        block_size=block_size,
        num_gpu_blocks=num_gpu_blocks,
        block_bytes=bpt * block_size if bpt and block_size else None,
        capacity_bytes=bpt * capacity if bpt and capacity else None,
        kv_cache_memory_bytes=kv_cache_memory_bytes,
        demand_tokens=demand_tokens,
        demand_ratio=demand_ratio,
        cross_check=cross_check(
            model, bpt, block_size, num_gpu_blocks, kv_cache_memory_bytes, num_gpu_blocks_override
        ),
        model=model.summary() if model else None,
        notes=notes,
    )


def cross_check(
    model: KvModel | None,
    bpt: int | None,
    block_size: int | None,
    num_gpu_blocks: int | None,
    reported: int | None,
    override: int | None,
) -> CrossCheck:
    def result(
        status: CrossCheckStatus,
        detail: str,
        expected: int | None = None,
        ratio: float | None = None,
    ) -> CrossCheck:
        return CrossCheck(
            status=status,
            expected_bytes=expected,
            reported_bytes=reported,
            ratio=ratio,
            detail=detail,
        )

    if not reported:
        return result("not_checked", "the server does not report kv_cache_memory_bytes")
    if model is None or bpt is None:
        return result("not_checked", "no usable model config")
    if not (block_size and num_gpu_blocks):
        return result("not_checked", "block_size or num_gpu_blocks unknown")
    if override:
        return result(
            "not_comparable",
            f"num_gpu_blocks_override={override} sets the pool size regardless of memory",
        )
    if model.window_layers or model.attention_free_layers:
        return result(
            "not_comparable",
            f"{model.layer_mix} model: vLLM's hybrid allocator shares blocks across layer groups",
        )
    expected = bpt * block_size * num_gpu_blocks
    ratio = round(reported / expected, 6)
    # vLLM floors the pool to whole blocks: reported ≥ expected by less than one block.
    slack = Fraction(1, num_gpu_blocks) + Fraction(str(_CROSS_CHECK_TOLERANCE))
    if abs(Fraction(reported, expected) - 1) <= slack:
        return result(
            "agree", "bytes/token × capacity matches the reported KV memory", expected, ratio
        )
    hint = ""
    for factor in (2, 4, 8):
        if abs(ratio - 1 / factor) < 0.01:
            hint = (
                f"; the server holds 1/{factor} of these bytes per token per GPU "
                f"(tensor parallel {factor}, or a {factor}× smaller KV dtype)"
            )
        elif abs(ratio - factor) < 0.01:
            hint = f"; the server's tokens cost {factor}× more than this config says"
    return result(
        "mismatch",
        f"reported KV memory is {ratio:g}× bytes/token × capacity: the config given "
        f"is probably not the served model{hint}",
        expected,
        ratio,
    )
