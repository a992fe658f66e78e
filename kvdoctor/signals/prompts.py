"""Signals from the evidence that decides a prefix miss: the prompts and the pool's memory.

* The operator's prompt sample (``prompt_sample.json``, from ``--prompts``) or, without one,
  vLLM's request log lines in ``logs.txt`` (``--enable-log-requests``): what the prompts share,
  where they first differ relative to the block boundary, what differs (a timestamp, an id, an
  adapter, a salt), analysed by :mod:`kvdoctor.promptshare`.
* The retention horizon: how long a freed block survives before it is reused for something
  else. Measured from vLLM's residency histograms (``--kv-cache-metrics``) when exposed, else
  estimated from the window: the pool's free tokens over the rate new tokens claim blocks. A
  prefix that recurs less often than that misses whatever the prompts share.
"""

from __future__ import annotations

from kvdoctor.bundle.model import Bundle, PromptSample
from kvdoctor.kvmath.capacity import GPU_DEFAULT_BLOCK_SIZE
from kvdoctor.requestlog import adapters_in_log, requests_from_log
from kvdoctor.signals.common import Out

_PROMPT_SIGNALS = (
    "prompt_sample_prompts",
    "prompt_sample_source",
    "prompt_sample_tokenizer",
    "prompt_share_pattern",
    "prompt_shared_prefix_tokens",
    "prompt_shared_prefix_blocks",
    "prompt_shared_after_difference_tokens",
    "prompt_first_difference_in_block",
    "prompt_difference_kind",
    "prompt_shareable_fraction",
    "prompt_identity_split_fraction",
    "prompt_sample_length_ratio",
    "prompt_identities",
)
# Drift in part of the sample, whatever most of it shows (set with the share pattern).
_DRIFT_SIGNALS = (
    "prompt_exact_repeats",
    "prompt_drift_fraction",
    "prompt_drift_prompts",
    "prompt_drift_at_tokens",
    "prompt_drift_shared_after_tokens",
)


def _default_block_applies(out: Out, bundle: Bundle) -> bool:
    """Whether vLLM's GPU default block size is the server's: a GPU server, a model that is
    neither hybrid nor MLA (whose backends choose larger blocks)."""
    if out.ss.get("platform") != "gpu" or out.ss.get("hybrid_model") is not False:
        return False
    raw = bundle.model_config_raw or {}
    text = raw.get("text_config")
    configs = [raw, text] if isinstance(text, dict) else [raw]
    return not any(c.get("kv_lora_rank") for c in configs)


def _sample(bundle: Bundle) -> tuple[PromptSample | None, str]:
    """The operator's sample first; else the request log's prompts; else why there is none."""
    if bundle.prompt_sample is not None:
        return bundle.prompt_sample, ""
    if not bundle.logs:
        return None, "no prompt sample (--prompts FILE) and no server log with request lines"
    raw, logged = requests_from_log(bundle.logs)
    if len(raw) >= 2:
        # Only with prompts to analyse: a replay without them skips the analysis's start-up.
        from kvdoctor.promptshare import analyse

        return analyse(raw, "request-log"), ""
    if logged:
        return None, (
            f"the log has {logged} request line(s) but no prompt text or token ids: start vLLM "
            "with --enable-log-requests --log-level DEBUG, or pass --prompts FILE"
        )
    return None, (
        "no prompt sample: pass --prompts FILE (a JSONL sample of the application's requests) "
        "or a server log written with --enable-log-requests --log-level DEBUG"
    )


def prompt_evidence(out: Out, bundle: Bundle) -> None:
    sample, why = _sample(bundle)
    if bundle.logs:
        seen, adapters = adapters_in_log(bundle.logs)
        if seen:
            out.set(
                "request_log_adapters",
                adapters,
                f"logs: distinct lora_request values over {seen} 'Received request' lines",
            )
        else:
            out.set("request_log_adapters", None, reason="no 'Received request' line in the log")
    else:
        out.set("request_log_adapters", None, reason="no server log")
    granularity = out.ss.get("prefix_hit_granularity_tokens")
    block = out.ss.get("block_size")
    unit = granularity if isinstance(granularity, int) and granularity > 0 else block
    if sample is None:
        for name in (*_PROMPT_SIGNALS, *_DRIFT_SIGNALS, "prompt_adapters", "prompt_cache_salts"):
            out.set(name, None, reason=why)
        return
    where = "prompt sample (--prompts)" if sample.source == "prompts-file" else "request log"
    out.set("prompt_sample_prompts", len(sample.prompts), f"{where}: prompts analysed")
    out.set("prompt_sample_source", sample.source, where)
    out.set("prompt_sample_tokenizer", sample.tokenizer, f"{where}: how prompts were tokenised")
    out.set(
        "prompt_identities",
        len({p.identity for p in sample.prompts}),
        f"{where}: distinct (LoRA adapter, cache salt) pairs",
    )
    out.set("prompt_adapters", sample.adapters, f"{where}: distinct LoRA adapters (base is one)")
    if sample.source == "prompts-file":
        out.set("prompt_cache_salts", sample.salts, f"{where}: distinct cache_salt values")
    else:
        out.set("prompt_cache_salts", None, reason="vLLM's request log prints no cache salt")
    if not (isinstance(unit, int) and unit > 0) and _default_block_applies(out, bundle):
        # No cache_config_info and no flag (V1 before it exported its cache config): vLLM's
        # GPU default, 16 tokens, is the block (external case zzd-k8s, vLLM 0.7.3: 80 prompts
        # of multi-turn conversations left unread for want of a block size). MLA models
        # (64-token blocks) and hybrid ones (larger, aligned) are not defaulted.
        unit = GPU_DEFAULT_BLOCK_SIZE
        out.set("block_size", unit, "vLLM's default block size on a GPU (no flag, no metric)")
    if not isinstance(unit, int) or unit <= 0:
        reason = "block size unknown: the sample cannot be placed against block boundaries"
        for name in (*_PROMPT_SIGNALS[3:12], *_DRIFT_SIGNALS):
            out.set(name, None, reason=reason)
        return
    # Only with a sample: a replay without one skips the analysis's start-up.
    from kvdoctor.promptshare import sharing

    share = sharing(sample, unit)
    if share is None:
        reason = "a prompt sample needs at least two prompts"
        for name in (*_PROMPT_SIGNALS[3:12], *_DRIFT_SIGNALS):
            out.set(name, None, reason=reason)
        return
    prov = (
        f"{where}: {share.prompts} prompts at {unit}-token blocks ({share.showing} show "
        f"{share.pattern}; medians over those)"
    )
    out.set("prompt_share_pattern", share.pattern, prov)
    out.set("prompt_shared_prefix_tokens", share.shared_prefix_tokens, prov)
    out.set("prompt_shared_prefix_blocks", share.blocks_shared, prov)
    out.set("prompt_shared_after_difference_tokens", share.shared_after_difference_tokens, prov)
    if share.first_difference_in_block is None:
        out.set(
            "prompt_first_difference_in_block",
            None,
            reason="the prompts share whole blocks or nothing: no boundary to place",
        )
    else:
        out.set("prompt_first_difference_in_block", share.first_difference_in_block, prov)
    ratio = _length_ratio(share.mean_tokens, out.ss.get("mean_prompt_len"))
    if ratio is None:
        out.set("prompt_sample_length_ratio", None, reason="the server's mean prompt is unknown")
    else:
        out.set(
            "prompt_sample_length_ratio",
            round(ratio, 4),
            f"{where}: mean {share.mean_tokens:,.0f} tokens over the window's mean prompt",
        )
    if ratio is not None and not 1 / SAMPLE_LENGTH_FACTOR <= ratio <= SAMPLE_LENGTH_FACTOR:
        out.set(
            "prompt_shareable_fraction",
            None,
            reason=(
                f"the sample's prompts average {share.mean_tokens:,.0f} tokens against the "
                f"{out.ss.get('mean_prompt_len'):,.0f} the server prefilled (images, attachments "
                "or a truncated request log): its shares are not shares of the server's tokens"
            ),
        )
    else:
        out.set("prompt_shareable_fraction", share.shareable_fraction, prov)
    out.set(
        "prompt_identity_split_fraction",
        share.identity_split_fraction,
        f"{where}: {share.prompts} prompts at {unit}-token blocks (tokens whose text repeats "
        "under another adapter or salt only)",
    )
    drift_prov = (
        f"{where}: {share.prompts} prompts at {unit}-token blocks ({share.drift_prompts} differ "
        "early from an earlier prompt and share at least a block after the difference)"
    )
    out.set(
        "prompt_exact_repeats",
        share.exact_repeats,
        f"{where}: later prompts that repeat an earlier one of their adapter and salt whole "
        f"(two {unit}-token blocks or more)",
    )
    out.set("prompt_drift_fraction", share.drift_fraction, drift_prov)
    out.set("prompt_drift_prompts", share.drift_prompts, drift_prov)
    for name, value in (
        ("prompt_drift_at_tokens", share.drift_at_tokens),
        ("prompt_drift_shared_after_tokens", share.drift_shared_after_tokens),
    ):
        if value is None:
            out.set(name, None, reason="no prompt of the sample drifts")
        else:
            out.set(name, value, drift_prov)
    if share.difference is None:
        out.set("prompt_difference_kind", None, reason="no prompt text to say what differs")
    else:
        out.set("prompt_difference_kind", share.difference, prov)


# How far the sample's mean prompt may sit from the window's, either way, for its token shares
# to stand for the server's: a sample of 55-token texts against 2,219-token prompts (images
# the sample holds as a placeholder, documents it abbreviates, a request log cut at
# --max-log-len) shares a system prompt the server's tokens barely contain (external cases
# r-fp8, r-xpu: quality incidents read as prefix misses).
SAMPLE_LENGTH_FACTOR = 4.0


def _length_ratio(sample_mean: float, server_mean: object) -> float | None:
    if not isinstance(server_mean, int | float) or isinstance(server_mean, bool):
        return None
    if server_mean <= 0 or sample_mean <= 0:
        return None
    return sample_mean / float(server_mean)


def retention_horizon(out: Out) -> None:
    """How long a freed block survives before eviction, in seconds (measured, else estimated)."""
    measured = out.ss.get("kv_block_idle_before_evict_p50")
    if isinstance(measured, int | float) and not isinstance(measured, bool):
        out.set(
            "kv_retention_horizon_s",
            float(measured),
            "metrics: vllm:kv_block_idle_before_evict_seconds median (sampled blocks)",
        )
        return
    cap = out.ss.get("kv_capacity_tokens")
    usage = out.ss.get("kv_usage_mean")
    turnover = out.ss.get("prompt_turnover")
    window = out.ss.get("window_s")
    gen_rate = out.ss.get("generation_tokens_per_s")
    nums = (cap, usage, turnover, window)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in nums):
        out.set(
            "kv_retention_horizon_s",
            None,
            reason="pool size, usage or prompt-token rate unknown (and no --kv-cache-metrics)",
        )
        return
    assert isinstance(cap, int | float) and isinstance(usage, int | float)
    assert isinstance(turnover, int | float) and isinstance(window, int | float)
    rate = turnover * cap / window if window > 0 else 0.0
    if isinstance(gen_rate, int | float) and not isinstance(gen_rate, bool):
        rate += float(gen_rate)
    if rate <= 0:
        out.set(
            "kv_retention_horizon_s",
            None,
            reason="no new token claimed a block in the window: nothing was evicted",
        )
        return
    free = max(0.0, float(cap) * (1.0 - float(usage)))
    out.set(
        "kv_retention_horizon_s",
        free / rate,
        "estimated: free pool tokens (capacity × (1 − mean usage)) / tokens claimed per second "
        "(computed prompt + generated); --kv-cache-metrics measures it",
    )
