"""What the ``kv`` command answers (docs/kvmath.md): one model, one request, one result.

:func:`kv_report` is pure: the command parses its flags into a :class:`KvRequest`, calls it and
renders the :class:`~kvdoctor.kvmath.result.KvResult`; tests and other callers get the same
numbers without the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kvdoctor import kvmath
from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath import (
    BudgetRow,
    ContextRow,
    GpuCapacity,
    KvModel,
    KvResult,
    LogitsSizes,
    PlanAnswer,
)

DEFAULT_CONTEXT = 8192
# vLLM's default --gpu-memory-utilization (EngineArgs/CacheConfig), unchanged from the V0
# engine through the 0.1x releases and the lab's 0.32.
VLLM_DEFAULT_GMU = Fraction(9, 10)
# vLLM's sampler turns the logits of the positions it samples into float32.
SAMPLER_LOGITS_BYTES = 4


@dataclass(frozen=True)
class KvRequest:
    """Everything the ``kv`` command was asked, parsed and checked."""

    contexts: tuple[int, ...]
    batch: int
    kv_dtype: str = "auto"
    gpu_bytes: int | None = None
    weights_bytes: int | None = None
    overhead_bytes: int = 0
    gpu_memory_utilization: Fraction = VLLM_DEFAULT_GMU
    users: int | None = None
    prefill_chunk: int | None = None
    # Tensor parallel size: every number becomes per GPU (GPU memory is one device's).
    tensor_parallel: int = 1
    # The model's max_position_embeddings, when its config says: a longer context is flagged.
    max_positions: int | None = None


def kv_report(model: KvModel, req: KvRequest) -> KvResult:
    """The ``kv`` command's result (pure; its JSON has a stable key order)."""
    model = model.per_gpu(req.tensor_parallel)
    kv = model.kv_dtype_name(req.kv_dtype)
    bpt = model.bytes_per_token(kv)
    notes = list(model.notes)
    if kv in kvmath.SCALED_KV_DTYPES:
        notes.append(f"{kv}: the per-token/per-block scales it stores are not included")
    if req.kv_dtype.strip().lower() == "auto" and model.dtype == "float32":
        notes.append("float32 checkpoint: vLLM's auto dtype serves it (and its KV) in bfloat16")

    weights = req.weights_bytes
    weights_source = "given"
    if weights is not None and req.tensor_parallel > 1:
        # --weights is the whole model's; each rank holds its share.
        weights = -(-weights // req.tensor_parallel)
        weights_source = f"given ÷ tensor parallel {req.tensor_parallel}"
    if weights is None and model.weight_bytes() is not None:
        weights = model.weight_bytes()
        weights_source = "catalog parameter count × bytes per weight"

    logits: LogitsSizes | None = None
    activation = 0
    if model.vocab_size:
        chunk = req.prefill_chunk if req.prefill_chunk is not None else req.contexts[0]
        elem = kvmath.model_dtype_bytes(model.kv_dtype_name("auto"))
        # Two figures, labelled: vLLM computes logits only at the positions it samples (one
        # per sequence of the batch; every prompt position only when prompt_logprobs is asked
        # for), while a naive full prefill (Hugging Face generate) materialises all of them.
        logits = LogitsSizes(
            tokens=chunk,
            vocab_size=model.vocab_size,
            dtype_bytes=elem,
            bytes=kvmath.logits_bytes(chunk, model.vocab_size, elem),
            kv_bytes_same_tokens=model.sequence_bytes(chunk, kv),
            counted_in_budget=req.prefill_chunk is not None,
            vllm_positions=req.batch,
            vllm_dtype_bytes=SAMPLER_LOGITS_BYTES,
            vllm_bytes=kvmath.logits_bytes(req.batch, model.vocab_size, SAMPLER_LOGITS_BYTES),
        )
        if req.prefill_chunk is not None:
            activation = logits.bytes

    gpu: GpuCapacity | None = None
    pool: int | None = None
    if req.gpu_bytes is not None:
        if weights is None:
            raise KvdoctorError(
                "capacity on a GPU needs the weight size: pass --weights (e.g. --weights 16GiB)"
            )
        usable = kvmath.usable_bytes(req.gpu_bytes, req.gpu_memory_utilization)
        pool = kvmath.kv_pool_bytes(
            req.gpu_bytes,
            weights,
            req.overhead_bytes + activation,
            req.gpu_memory_utilization,
        )
        gpu = GpuCapacity(
            gpu_bytes=req.gpu_bytes,
            gpu_memory_utilization=float(req.gpu_memory_utilization),
            usable_bytes=usable,
            weights_bytes=weights,
            weights_source=weights_source,
            overhead_bytes=req.overhead_bytes,
            activation_bytes=activation,
            kv_pool_bytes=pool,
            capacity_tokens=kvmath.capacity_tokens(model, pool, kv),
        )

    contexts = []
    for context in req.contexts:
        too_long = req.max_positions is not None and context > req.max_positions
        if too_long:
            notes.append(
                f"context {context:,} is above the model's max_position_embeddings "
                f"({req.max_positions:,}): vLLM refuses such a --max-model-len unless RoPE "
                "scaling is configured or VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set"
            )
        per_seq = model.sequence_bytes(context, kv)
        decode = kvmath.decode_read(model, context, req.batch, weights, kv)
        contexts.append(
            ContextRow(
                context=context,
                above_max_position_embeddings=too_long,
                sequence_bytes=per_seq,
                batch=req.batch,
                batch_bytes=per_seq * req.batch,
                capacity_sequences=pool // per_seq if pool is not None and per_seq else None,
                decode_step=decode.to_model(),
            )
        )

    budget: list[BudgetRow] | None = None
    plan: PlanAnswer | None = None
    if gpu is not None and req.gpu_bytes is not None:
        budget = [
            _overhead_note(row, req.overhead_bytes)
            for row in kvmath.budget_table(
                model,
                gpu_bytes=req.gpu_bytes,
                weights_bytes=gpu.weights_bytes,
                overhead_bytes=req.overhead_bytes,
                context=req.contexts[0],
                batch=req.users if req.users is not None else req.batch,
                gpu_memory_utilization=req.gpu_memory_utilization,
                kv_dtype=kv,
                activation_bytes=activation,
            )
        ]
        if req.users is not None and pool is not None:
            plan = kvmath.plan(model, req.users, req.contexts[0], pool, kv).to_model()
    elif req.users is not None:
        raise KvdoctorError(
            "--users needs --gpu-mem (and --weights unless the model is in the catalog)"
        )

    return KvResult(
        bytes_per_token=bpt,
        kv_dtype=kv,
        tensor_parallel=req.tensor_parallel,
        bytes_per_token_unshared=model.bytes_per_token_unshared(kv),
        bytes_per_token_beyond_window=(
            model.bytes_per_token_beyond_window(kv) if model.window_layers else None
        ),
        scale_overhead_excluded=kv in kvmath.SCALED_KV_DTYPES,
        model=model.summary(),
        max_position_embeddings=req.max_positions,
        contexts=contexts,
        gpu=gpu,
        logits=logits,
        budget=budget,
        plan=plan,
        notes=notes,
    )


def _overhead_note(row: BudgetRow, overhead_bytes: int) -> BudgetRow:
    """Nobody knows the workspace before vLLM profiles the card: say the number is a guess."""
    if row.item != "workspace_overhead":
        return row
    note = (
        "estimate given with --overhead (CUDA graphs, runtime, workspace)"
        if overhead_bytes
        else "not counted: estimate it with --overhead (vLLM profiles it at start-up)"
    )
    return BudgetRow(item=row.item, bytes=row.bytes, note=note)
