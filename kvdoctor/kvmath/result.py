"""The ``kvdoctor kv`` command's result (``kvdoctor.kv/1``) as one typed model.

:class:`KvResult` is what ``kvdoctor kv --format json`` writes and what its table and Markdown
renderers read. Field order is the JSON key order and every key is always written (null when
unknown or not asked for). The parts the math computes itself come from
:mod:`kvdoctor.kvmath.memory` (:class:`DecodeStep`, :class:`PlanAnswer`, :class:`BudgetRow`);
the model summary is the report's :class:`KvModelSummary`. The command builds it in
:func:`kvdoctor.kvmath.query.kv_report`.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from kvdoctor.kvmath.memory import BudgetRow, DecodeStep, PlanAnswer
from kvdoctor.kvmath.model import KvModelSummary

KV_SCHEMA: Final = "kvdoctor.kv/1"


class _Out(BaseModel):
    # defer_build: a replay imports this module (through the package) but never builds a ``kv``
    # answer; the validators are built when the ``kv`` command first makes one.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ContextRow(_Out):
    """One ``--context``: a sequence, the batch of them, how many fit, one decode step."""

    context: int
    above_max_position_embeddings: bool
    sequence_bytes: int
    batch: int
    batch_bytes: int
    # Whole sequences the KV pool holds; null without --gpu-mem.
    capacity_sequences: int | None
    decode_step: DecodeStep


class GpuCapacity(_Out):
    """The KV pool on one GPU (``--gpu-mem``): usable memory less weights and overheads."""

    gpu_bytes: int
    gpu_memory_utilization: float
    usable_bytes: int
    weights_bytes: int
    # "given", "given ÷ tensor parallel N" or the catalog estimate.
    weights_source: str
    overhead_bytes: int
    # Naive prefill logits, counted only with --prefill-chunk.
    activation_bytes: int
    kv_pool_bytes: int
    capacity_tokens: int


class LogitsSizes(_Out):
    """Logits of a prefill chunk: the naive full prefill and vLLM's sampled positions."""

    tokens: int
    vocab_size: int
    dtype_bytes: int
    bytes: int
    kv_bytes_same_tokens: int
    counted_in_budget: bool
    vllm_positions: int
    vllm_dtype_bytes: int
    vllm_bytes: int


class KvResult(_Out):
    """The ``kv`` command's result; ``bytes_per_token`` stays at the top level."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    schema_: Literal["kvdoctor.kv/1"] = Field(default=KV_SCHEMA, alias="schema")
    bytes_per_token: int
    kv_dtype: str
    tensor_parallel: int
    bytes_per_token_unshared: int | None
    # Only for models with windowed layers.
    bytes_per_token_beyond_window: int | None
    scale_overhead_excluded: bool
    model: KvModelSummary
    max_position_embeddings: int | None
    contexts: list[ContextRow]
    gpu: GpuCapacity | None
    # Null when the model's vocabulary is unknown.
    logits: LogitsSizes | None
    budget: list[BudgetRow] | None
    plan: PlanAnswer | None
    notes: list[str]

    def to_json_dict(self) -> dict[str, JsonValue]:
        """The JSON object, keys in field order, ``schema`` by its name."""
        return self.model_dump(mode="json", by_alias=True)
