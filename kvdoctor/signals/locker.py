"""The locker math over the other signals and the model config: demand against capacity, KV
bytes per token, weights, and the cross-check of the engine's own KV figures."""

from __future__ import annotations

from collections.abc import Callable

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath import KvModel
from kvdoctor.kvmath.capacity import held_tokens, pool_grouping
from kvdoctor.kvmath.section import cross_check
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.physics import dense_weight_bytes


def locker_math(out: Out, bundle: Bundle) -> None:
    ss = out.ss
    cap = ss.get("kv_capacity_tokens")
    mml = ss.get("max_model_len")
    # What one request can use. V0 engines split the pool between pipeline stages' virtual
    # engines (one scheduler and block manager each, num_gpu_blocks // pipeline size), so with
    # pipeline parallelism a request sees a fraction of the pool the start-up line reports.
    pp = ss.get("log_pipeline_parallel_size")
    v0 = ss.get("log_v0_engine") is True
    split = isinstance(pp, int) and pp > 1 and v0
    per_request = cap // pp if split and isinstance(cap, int) and isinstance(pp, int) else cap
    how = f"kv_capacity_tokens / {pp} pipeline virtual engines (V0 engine)" if split else ""
    block = ss.get("block_size")
    # The V1 block pool keeps one block as its null block: a request can use every block but
    # that one (external case p-minimax: 13 blocks of 8,192 tokens, max_model_len 106,496, and
    # a 101k-token prompt that never got its 13th block).
    if (
        not v0
        and isinstance(per_request, int)
        and isinstance(block, int)
        and block > 0
        and per_request >= 2 * block
    ):
        per_request -= block
        how = "kv_capacity_tokens less one block (vLLM's block pool keeps a null block)"
    if isinstance(per_request, int) and per_request > 0:
        how = how or "kv_capacity_tokens"
        out.set("request_capacity_tokens", per_request, how)
    else:
        out.set("request_capacity_tokens", None, reason="KV capacity unknown")
    share, held = _pool_grouping(out, bundle)
    if isinstance(mml, int) and mml > 0:
        held_mml = held(mml)
        out.set(
            "max_model_len_held_share",
            round(held_mml / mml, 6),
            "kvmath held_tokens(max_model_len) / max_model_len"
            if held_mml != mml
            else "every layer counts full",
        )
    else:
        held_mml = None
        out.set("max_model_len_held_share", None, reason="max_model_len unknown")
    if isinstance(per_request, int) and per_request > 0 and held_mml is not None:
        out.set(
            "max_model_len_over_capacity",
            held_mml / per_request,
            "max_model_len_held_tokens / request_capacity_tokens",
        )
    else:
        out.set("max_model_len_over_capacity", None, reason="max_model_len or KV capacity unknown")
    running = ss.get("running_max")
    p_len, g_len = ss.get("mean_prompt_len"), ss.get("mean_generation_len")
    if isinstance(running, (int, float)) and isinstance(p_len, float) and isinstance(g_len, float):
        demand = running * (p_len + g_len) * share
        out.set(
            "kv_demand_tokens",
            round(demand, 3),
            "running_max × (mean_prompt_len + mean_generation_len) × kv_held_share",
        )
        if isinstance(cap, int) and cap > 0:
            out.set("kv_demand_ratio", demand / cap, "kv_demand_tokens / kv_capacity_tokens")
        else:
            out.set("kv_demand_ratio", None, reason="KV capacity unknown")
    else:
        out.set("kv_demand_tokens", None, reason="running requests or mean request lengths unknown")
        out.set("kv_demand_ratio", None, reason="running requests or mean request lengths unknown")

    cfg = bundle.model_config_raw
    if cfg is None:
        why = not_checked_reason(bundle, "model_config", "no model config in the bundle")
        out.set("kv_bytes_per_token", None, reason=why)
        out.set("kv_config_mismatch", None, reason=why)
        out.set("weights_bytes", None, reason=why)
        return

    quant = ss.get("quantization")
    weights, how = dense_weight_bytes(cfg, quant if isinstance(quant, str) else None)
    out.set("weights_bytes", weights, f"model_config.json: {how}", reason=how)
    try:
        model = KvModel.from_hf_config(cfg)
        dtype = ss.get("cache_dtype")
        bpt = model.bytes_per_token(dtype if isinstance(dtype, str) else "auto")
    except Exception as exc:  # the model config is untrusted input of any shape
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        out.set("kv_bytes_per_token", None, reason=f"model config not understood: {why}")
        out.set("kv_config_mismatch", None, reason=f"model config not understood: {why}")
        return
    dtype_note = dtype if isinstance(dtype, str) else "auto"
    out.set("kv_bytes_per_token", bpt, f"kvmath: model_config.json, cache dtype {dtype_note}")
    # The same cross-check as the report's KV math (kvdoctor.kvmath.section), so the signal
    # and the report never disagree (e.g. a --num-gpu-blocks-override pool is not comparable).

    reported = ss.get("kv_cache_memory_bytes")
    block_size, blocks = ss.get("block_size"), ss.get("num_gpu_blocks")
    check = cross_check(
        model,
        bpt,
        block_size if isinstance(block_size, int) else None,
        blocks if isinstance(blocks, int) else None,
        reported if isinstance(reported, int) else None,
        blocks_override(bundle),
    )
    if check.ratio is not None:
        out.set(
            "kv_config_mismatch",
            check.ratio,
            "kvmath cross-check: kv_cache_memory_bytes / (bytes per token × block_size × blocks)",
        )
    else:
        out.set("kv_config_mismatch", None, reason=f"{check.status}: {check.detail}")


def _pool_grouping(out: Out, bundle: Bundle) -> tuple[float, Callable[[int], float]]:
    """Set kv_pool_groups and kv_held_share; return the share (1 where unknown) and what a
    sequence of a given length holds of the pool as the engine counts it."""
    ss = out.ss
    cfg = bundle.model_config_raw
    p_len, g_len = ss.get("mean_prompt_len"), ss.get("mean_generation_len")
    block, blocks = ss.get("block_size"), ss.get("num_gpu_blocks")
    stated = ss.get("kv_capacity_tokens")
    if not isinstance(stated, int):
        stated = ss.get("log_kv_cache_tokens")
    why = ""
    if cfg is None:
        why = not_checked_reason(bundle, "model_config", "no model config in the bundle")
    elif not isinstance(p_len, (int, float)) or not isinstance(g_len, (int, float)):
        why = "mean request lengths unknown"
    elif p_len + g_len <= 0:
        why = "no tokens in the window's requests"
    if why:
        out.set("kv_pool_groups", None, reason=why)
        out.set("kv_held_share", None, reason=why)
        return 1.0, _itself
    try:
        model = KvModel.from_hf_config(cfg)  # type: ignore[arg-type]
        grouping = pool_grouping(
            model,
            float(p_len) + float(g_len),  # type: ignore[arg-type]
            block if isinstance(block, int) else None,
            stated_tokens=stated if isinstance(stated, int) else None,
            num_gpu_blocks=blocks if isinstance(blocks, int) else None,
        )
    except Exception as exc:  # the model config is untrusted input of any shape
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        out.set("kv_pool_groups", None, reason=f"model config not understood: {why}")
        out.set("kv_held_share", None, reason=f"model config not understood: {why}")
        return 1.0, _itself
    out.set("kv_pool_groups", grouping.groups, f"kvmath: {grouping.how}")
    out.set("kv_held_share", round(grouping.held_share, 6), f"kvmath: {grouping.how}")
    size = block if isinstance(block, int) and block > 0 else None
    if size is None or grouping.held_share >= 1:
        return grouping.held_share, _itself
    return grouping.held_share, lambda n: held_tokens(model, n, size, grouping.groups)


def _itself(tokens: int) -> float:
    return float(tokens)


def blocks_override(bundle: Bundle) -> int | None:
    """--num-gpu-blocks-override from the engine args (as parsed: int, float or string), or None.

    The report's KV math and the ``kv_config_mismatch`` signal both read it here.
    """
    args = bundle.engine_args.args if bundle.engine_args else {}
    raw = args.get("num-gpu-blocks-override", args.get("num_gpu_blocks_override"))
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, float):
        return int(raw) if raw.is_integer() else None
    try:
        return int(str(raw))
    except ValueError:
        return None
