"""The locker math proper (docs/kvmath.md): sequences, capacity, decode traffic, logits, plans."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath.model import SCALED_KV_DTYPES, KvModel, check_count


def _fraction(x: float | int | str | Fraction) -> Fraction:
    # str() first: Fraction(0.9) is 0.90000000000000002220..., Fraction("0.9") is 9/10.
    return x if isinstance(x, Fraction) else Fraction(str(x))


def _check_gmu(gmu: float | Fraction) -> Fraction:
    g = _fraction(gmu)
    if not 0 < g <= 1:
        raise KvdoctorError(f"gpu_memory_utilization must be in (0, 1], got {gmu}")
    return g


# ---------------------------------------------------------------------- the locker math


def kv_bytes(model: KvModel, tokens: int, kv_dtype: str = "auto", sequences: int = 1) -> int:
    """KV bytes of ``sequences`` unshared sequences of ``tokens`` tokens each."""
    check_count("sequences", sequences)
    return sequences * model.sequence_bytes(tokens, kv_dtype)


def usable_bytes(gpu_bytes: int, gpu_memory_utilization: float | Fraction = 1) -> int:
    """The share of the device vLLM may use: ``floor(gpu × gpu_memory_utilization)``."""
    check_count("GPU memory", gpu_bytes)
    return math.floor(gpu_bytes * _check_gmu(gpu_memory_utilization))


def kv_pool_bytes(
    gpu_bytes: int,
    weights_bytes: int,
    overhead_bytes: int = 0,
    gpu_memory_utilization: float | Fraction = 1,
) -> int:
    """What is left for the KV pool (never negative): usable − weights − overhead."""
    check_count("weights", weights_bytes)
    check_count("overhead", overhead_bytes)
    return max(0, usable_bytes(gpu_bytes, gpu_memory_utilization) - weights_bytes - overhead_bytes)


def capacity_sequences(
    model: KvModel,
    context: int,
    gpu_bytes: int,
    weights_bytes: int,
    overhead_bytes: int = 0,
    gpu_memory_utilization: float | Fraction = 1,
    kv_dtype: str = "auto",
) -> int:
    """Whole sequences of ``context`` tokens that fit in the pool at once."""
    per_seq = model.sequence_bytes(context, kv_dtype)
    if per_seq == 0:
        raise KvdoctorError("context must be at least one token")
    pool = kv_pool_bytes(gpu_bytes, weights_bytes, overhead_bytes, gpu_memory_utilization)
    return pool // per_seq


def capacity_tokens(model: KvModel, pool_bytes: int, kv_dtype: str = "auto") -> int:
    """Tokens a pool of ``pool_bytes`` holds at the full per-token rate."""
    return pool_bytes // model.bytes_per_token(kv_dtype)


def logits_bytes(tokens: int, vocab_size: int, dtype_bytes: int = 2) -> int:
    """Logits of a prefill chunk when every position is materialised: tokens × vocab × bytes.

    vLLM computes logits only for the positions it samples unless prompt logprobs are asked
    for; this is the size when all of them are (or in a plain HF forward pass).
    """
    check_count("tokens", tokens)
    check_count("vocab size", vocab_size)
    return tokens * vocab_size * dtype_bytes


class _Out(BaseModel):
    """What the ``kv`` command writes (``kvdoctor.kv/1``): field order is the JSON key order,
    every key is always written (null when unknown).

    defer_build: a replay imports this module (through the package) but never builds a ``kv``
    answer; the validators are built when the ``kv`` command first makes one."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class DecodeStep(_Out):
    """A :class:`DecodeRead` as the ``kv`` command writes it (``contexts[].decode_step``)."""

    kv_bytes: int
    weights_bytes: int | None
    kv_to_weights_ratio: float | None
    crossover_batch_x_context: int | None


@dataclass(frozen=True)
class DecodeRead:
    """KV bytes one decode step reads for a batch, against the weight bytes it reads too."""

    kv_bytes: int
    weights_bytes: int | None
    ratio: float | None  # kv / weights
    crossover_tokens: int | None  # batch × context at which KV reads equal weight reads

    def to_model(self) -> DecodeStep:
        return DecodeStep(
            kv_bytes=self.kv_bytes,
            weights_bytes=self.weights_bytes,
            kv_to_weights_ratio=self.ratio,
            crossover_batch_x_context=self.crossover_tokens,
        )


def decode_read(
    model: KvModel,
    context: int,
    batch: int,
    weights_bytes: int | None,
    kv_dtype: str = "auto",
) -> DecodeRead:
    """Each decode step reads every live KV byte once and every weight once (dense models).

    The crossover uses the full per-token rate; for windowed layers it is a lower bound.
    """
    kv = kv_bytes(model, context, kv_dtype, batch)
    if not weights_bytes:
        return DecodeRead(kv, weights_bytes, None, None)
    ratio = round(kv / weights_bytes, 6)
    crossover = math.ceil(Fraction(weights_bytes, model.bytes_per_token(kv_dtype)))
    return DecodeRead(kv, weights_bytes, ratio, crossover)


class QuantizedKvOption(_Out):
    """A :class:`QuantOption` as written (``plan.quantized_kv[]``)."""

    kv_dtype: str
    bytes_per_token: int
    need_bytes: int
    fits: bool
    max_users: int
    scale_overhead_excluded: bool


class FewerUsers(_Out):
    """Way out 1: the most users that fit at the plan's context."""

    context: int
    max_users: int


class ShorterContext(_Out):
    """Way out 2: the longest context that fits for the plan's users (null: not KV-bound)."""

    users: int
    max_context: int | None


class PlanAnswer(_Out):
    """A :class:`Plan` as the ``kv`` command writes it (``plan``)."""

    users: int
    context: int
    kv_dtype: str
    need_bytes: int
    pool_bytes: int
    fits: bool
    headroom_bytes: int
    fewer_users: FewerUsers
    shorter_context: ShorterContext
    quantized_kv: list[QuantizedKvOption]


@dataclass(frozen=True)
class QuantOption:
    kv_dtype: str
    bytes_per_token: int
    need_bytes: int
    fits: bool
    max_users: int

    def to_model(self) -> QuantizedKvOption:
        return QuantizedKvOption(
            kv_dtype=self.kv_dtype,
            bytes_per_token=self.bytes_per_token,
            need_bytes=self.need_bytes,
            fits=self.fits,
            max_users=self.max_users,
            scale_overhead_excluded=self.kv_dtype in SCALED_KV_DTYPES,
        )


@dataclass(frozen=True)
class Plan:
    """Answer to "N users at context T on this GPU?" and, if not, the three ways out."""

    users: int
    context: int
    kv_dtype: str
    need_bytes: int
    pool_bytes: int
    fits: bool
    max_users: int  # way out 1: fewer users at this context
    max_context: int | None  # way out 2: shorter context for these users (None: not KV-bound)
    quantized: tuple[QuantOption, ...]  # way out 3: a smaller KV dtype

    def to_model(self) -> PlanAnswer:
        return PlanAnswer(
            users=self.users,
            context=self.context,
            kv_dtype=self.kv_dtype,
            need_bytes=self.need_bytes,
            pool_bytes=self.pool_bytes,
            fits=self.fits,
            headroom_bytes=self.pool_bytes - self.need_bytes,
            fewer_users=FewerUsers(context=self.context, max_users=self.max_users),
            shorter_context=ShorterContext(users=self.users, max_context=self.max_context),
            quantized_kv=[q.to_model() for q in self.quantized],
        )


# Dtypes offered as the third way out, smallest last; only those smaller than the current one.
_PLAN_QUANT_DTYPES = ("fp8", "nvfp4")
_CONTEXT_SEARCH_LIMIT = 1 << 40


def max_context(model: KvModel, users: int, pool_bytes: int, kv_dtype: str = "auto") -> int | None:
    """Longest context at which ``users`` sequences fit; None when windowing bounds it anyway."""
    if users <= 0:
        return None
    if kv_bytes(model, _CONTEXT_SEARCH_LIMIT, kv_dtype, users) <= pool_bytes:
        return None
    lo, hi = 0, _CONTEXT_SEARCH_LIMIT  # fits at lo, not at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if kv_bytes(model, mid, kv_dtype, users) <= pool_bytes:
            lo = mid
        else:
            hi = mid
    return lo


def plan(
    model: KvModel,
    users: int,
    context: int,
    pool_bytes: int,
    kv_dtype: str = "auto",
) -> Plan:
    """Do ``users`` unshared sequences of ``context`` tokens fit in ``pool_bytes`` of KV pool?"""
    check_count("users", users)
    check_count("pool bytes", pool_bytes)
    kv = model.kv_dtype_name(kv_dtype)
    need = kv_bytes(model, context, kv, users)
    per_seq = model.sequence_bytes(context, kv)
    max_users = pool_bytes // per_seq if per_seq else 0
    current = model.layer_bytes_per_token(kv)
    options = []
    for q in _PLAN_QUANT_DTYPES:
        if model.layer_bytes_per_token(q) >= current:
            continue
        q_need = kv_bytes(model, context, q, users)
        q_seq = model.sequence_bytes(context, q)
        options.append(
            QuantOption(
                q,
                model.bytes_per_token(q),
                q_need,
                q_need <= pool_bytes,
                pool_bytes // q_seq if q_seq else 0,
            )
        )
    return Plan(
        users=users,
        context=context,
        kv_dtype=kv,
        need_bytes=need,
        pool_bytes=pool_bytes,
        fits=need <= pool_bytes,
        max_users=max_users,
        max_context=max_context(model, users, pool_bytes, kv),
        quantized=tuple(options),
    )


BudgetItem = Literal[
    "weights",
    "kv_cache",
    "activations_logits",
    "workspace_overhead",
    "total",
    "usable",
    "headroom",
]


class BudgetRow(_Out):
    """One row of the memory budget (``budget[]``), in the order :func:`budget_table` gives."""

    item: BudgetItem
    bytes: int
    note: str


def budget_table(
    model: KvModel,
    *,
    gpu_bytes: int,
    weights_bytes: int,
    overhead_bytes: int,
    context: int,
    batch: int,
    gpu_memory_utilization: float | Fraction = 1,
    kv_dtype: str = "auto",
    activation_bytes: int = 0,
) -> list[BudgetRow]:
    """Weights + KV for the batch + activations/logits + workspace, against the usable memory."""
    kv = kv_bytes(model, context, kv_dtype, batch)
    usable = usable_bytes(gpu_bytes, gpu_memory_utilization)
    total = weights_bytes + kv + activation_bytes + overhead_bytes
    rows: list[tuple[BudgetItem, int, str]] = [
        ("weights", weights_bytes, "model weights"),
        ("kv_cache", kv, f"{batch} × {context:,} tokens, unshared"),
        (
            "activations_logits",
            activation_bytes,
            "logits of one prefill chunk" if activation_bytes else "not counted",
        ),
        ("workspace_overhead", overhead_bytes, "runtime, CUDA graphs, workspace (given)"),
        ("total", total, "sum of the above"),
        ("usable", usable, f"GPU × gpu_memory_utilization {_fraction(gpu_memory_utilization)}"),
        ("headroom", usable - total, "usable − total (negative: does not fit)"),
    ]
    return [BudgetRow(item=item, bytes=value, note=note) for item, value, note in rows]
