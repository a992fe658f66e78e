"""The locker math over the other signals and the model config: demand against capacity, KV
bytes per token, weights, and the cross-check of the engine's own KV figures."""

from __future__ import annotations

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath import KvModel
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
    if isinstance(per_request, int) and per_request > 0 and isinstance(mml, int):
        out.set(
            "max_model_len_over_capacity",
            mml / per_request,
            "max_model_len / request_capacity_tokens",
        )
    else:
        out.set("max_model_len_over_capacity", None, reason="max_model_len or KV capacity unknown")
    running = ss.get("running_max")
    p_len, g_len = ss.get("mean_prompt_len"), ss.get("mean_generation_len")
    if isinstance(running, (int, float)) and isinstance(p_len, float) and isinstance(g_len, float):
        demand = running * (p_len + g_len)
        out.set(
            "kv_demand_tokens",
            round(demand, 3),
            "running_max × (mean_prompt_len + mean_generation_len)",
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

    weights, how = dense_weight_bytes(cfg)
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
