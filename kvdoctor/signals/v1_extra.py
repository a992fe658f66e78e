"""Signals from the metrics vLLM added from 0.12 to 0.33 (names and releases: ``vllm_metrics``).

Each metric is read where the server exports it; where it is absent the signal is ``None`` with
a reason that says which release adds it or which flag turns it on, so the report can tell
"not checked" apart from "checked and fine". Everything is a window quantity (counter and
histogram-bucket deltas between the first and last good scrape) unless the name says otherwise.

* admission: ``num_requests_waiting_by_reason{reason=capacity|deferred}`` (0.24+): deferred
  requests wait on a transient constraint (LoRA budget, KV transfer), not on capacity;
* prompt sources: ``prompt_tokens_by_source{source}``, ``prompt_tokens_cached``,
  ``prompt_tokens_cached_by_source{source}``, ``external_prefix_cache_queries/_hits``: the hit
  rate including connectors and offload tiers;
* KV residency (``--kv-cache-metrics``): block lifetime, idle time before eviction, reuse gap;
* per-request prefill KV, scheduler step sizes, per-request preemptions;
* speculative decoding, KV offloading and NIXL (P/D disaggregation) counters, and the requests
  a KV consumer holds in its fetch stages;
* ``cache_config_info`` labels of hybrid and offloading setups.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from kvdoctor.bundle.model import Bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import Labels
from kvdoctor.kvmath import KvModel
from kvdoctor.lazyre import LazyPattern
from kvdoctor.observations import Observations, histogram_quantile
from kvdoctor.signals.common import absent
from kvdoctor.signals.config import cache_config_labels
from kvdoctor.signals.model import SignalSet
from kvdoctor.vllm_metrics import (
    EXT_H,
    EXT_Q,
    ITERATION,
    KV_BLOCK_IDLE_BEFORE_EVICT,
    KV_BLOCK_LIFETIME,
    KV_BLOCK_REUSE_GAP,
    KV_FETCH,
    NIXL_EXPIRED,
    NIXL_FAILED,
    NIXL_FAILED_NOTIF,
    NIXL_POST_TIME,
    NIXL_XFER_TIME,
    OFFLOAD_LOAD,
    OFFLOAD_STORE,
    PREFILL_KV,
    PROMPT_BY_SOURCE,
    PROMPT_CACHED,
    PROMPT_CACHED_BY_SOURCE,
    READS,
    REQ_PREEMPTIONS,
    SPEC_ACCEPTED,
    SPEC_DRAFT_TOKENS,
    SPEC_DRAFTS,
    WAITING_BY_REASON,
)

if TYPE_CHECKING:
    from kvdoctor.signals.common import Out

RESIDENCY = {
    "kv_block_lifetime": KV_BLOCK_LIFETIME,
    "kv_block_idle_before_evict": KV_BLOCK_IDLE_BEFORE_EVICT,
    "kv_block_reuse_gap": KV_BLOCK_REUSE_GAP,
}

# Sources of prompt_tokens_by_source that did not need a local prefill.
_CACHED_SOURCES = ("local_cache_hit", "external_kv_transfer")
# Tiers of prompt_tokens_cached_by_source other than the device pool itself.
_OFFLOAD_TIERS = ("host", "disk", "p2p", "external_unspecified")


def _label(labels: Labels, key: str) -> str | None:
    for k, v in labels:
        if k == key:
            return v
    return None


def _where(key: str, *values: str) -> Callable[[Labels], bool]:
    return lambda labels: _label(labels, key) in values


def _absent(obs: Observations, name: str, hint: str = "", window: bool = True) -> str:
    if not obs.times:
        return "no good scrape in the bundle"
    if window and len(obs.times) < 2 and obs.has(name):
        return "only one good scrape; a window needs two"
    if obs.has(name):
        return "not available"
    if obs.impossible.get(name):
        return absent(obs, name)  # present, but every value invalid
    since = READS.get(name, (None, None))[0]
    notes = [f"vLLM {since}+ exports it" if since else "", hint]
    note = "; ".join(n for n in notes if n)
    return f"metric {name} absent from every scrape" + (f" ({note})" if note else "")


def _num(v: float) -> float | int:
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def _gauge_by_label(obs: Observations, name: str, key: str, values: tuple[str, ...]) -> list[float]:
    """Per good scrape, the sum over label sets whose ``key`` label is in ``values``."""
    cols = [
        col
        for labels, col in sorted(obs.columns.get(name, {}).items())
        if _label(labels, key) in values
    ]
    out: list[float] = []
    for i in range(len(obs.times)):
        vals = [c[i] for c in cols if c[i] == c[i]]
        if vals:
            out.append(math.fsum(vals))
    return out


def compute(out: Out, obs: Observations, bundle: Bundle) -> None:
    """Set every signal of this module (the catalog's "vLLM 0.12+ metrics" block)."""
    _admission(out, obs)
    _sources(out, obs)
    _residency(out, obs)
    _requests(out, obs)
    _spec_decode(out, obs, bundle)
    _offload_and_transfer(out, obs, bundle)

    labels = cache_config_labels(obs)
    _config_labels(out, labels)
    cudagraphs(out, bundle)
    hybrid(out, bundle, labels)


# ------------------------------------------------------------------------------- admission


def _admission(out: Out, obs: Observations) -> None:
    if not obs.has(WAITING_BY_REASON):
        why = _absent(obs, WAITING_BY_REASON, window=False)
        for name in ("waiting_deferred_max", "waiting_capacity_max", "waiting_deferred_share"):
            out.set(name, None, reason=why)
        return
    deferred = _gauge_by_label(obs, WAITING_BY_REASON, "reason", ("deferred",))
    capacity = _gauge_by_label(obs, WAITING_BY_REASON, "reason", ("capacity",))
    prov = f"metrics: {WAITING_BY_REASON}"
    out.set(
        "waiting_deferred_max", _num(max(deferred, default=0.0)), f"{prov}{{reason=deferred}}, max"
    )
    out.set(
        "waiting_capacity_max", _num(max(capacity, default=0.0)), f"{prov}{{reason=capacity}}, max"
    )
    total = math.fsum(deferred) + math.fsum(capacity)
    if total <= 0:
        out.set("waiting_deferred_share", None, reason="no request waited in the window")
    else:
        out.set(
            "waiting_deferred_share",
            round(math.fsum(deferred) / total, 4),
            f"{prov}: deferred / all waiting, summed over the window's scrapes",
        )


# ---------------------------------------------------------------------------- prompt sources


def _sources(out: Out, obs: Observations) -> None:
    if obs.has(PROMPT_BY_SOURCE) and len(obs.times) >= 2:
        by = {
            src: obs.counter_increase(PROMPT_BY_SOURCE, where=_where("source", src)) or 0.0
            for src in ("local_compute", "local_cache_hit", "external_kv_transfer")
        }
        total = math.fsum(by.values())
        prov = f"metrics: {PROMPT_BY_SOURCE}_total increase"
        out.set("prompt_tokens_external_window", _num(by["external_kv_transfer"]), prov)
        if total <= 0:
            for name in ("prompt_cached_share_window", "prompt_external_share_window"):
                out.set(name, None, reason="no prompt tokens in the window")
        else:
            out.set(
                "prompt_external_share_window",
                round(by["external_kv_transfer"] / total, 4),
                f"{prov}: external_kv_transfer / all sources",
            )
            served = math.fsum(by[s] for s in _CACHED_SOURCES)
            out.set(
                "prompt_cached_share_window",
                round(served / total, 4),
                f"{prov}: (local_cache_hit + external_kv_transfer) / all sources",
            )
    else:
        why = _absent(obs, PROMPT_BY_SOURCE)
        for name in (
            "prompt_tokens_external_window",
            "prompt_cached_share_window",
            "prompt_external_share_window",
        ):
            out.set(name, None, reason=why)
    cached = obs.counter_increase(PROMPT_CACHED)
    out.set(
        "prompt_tokens_cached_window",
        None if cached is None else _num(cached),
        f"metrics: {PROMPT_CACHED}_total increase",
        reason=_absent(obs, PROMPT_CACHED),
    )
    if obs.has(PROMPT_CACHED_BY_SOURCE) and len(obs.times) >= 2:
        off = obs.counter_increase(PROMPT_CACHED_BY_SOURCE, where=_where("source", *_OFFLOAD_TIERS))
        out.set(
            "prompt_tokens_cached_offloaded_window",
            _num(off or 0.0),
            f"metrics: {PROMPT_CACHED_BY_SOURCE}_total{{source!=device}} increase",
        )
    else:
        out.set(
            "prompt_tokens_cached_offloaded_window",
            None,
            reason=_absent(obs, PROMPT_CACHED_BY_SOURCE),
        )
    q, h = obs.counter_increase(EXT_Q), obs.counter_increase(EXT_H)
    prov = f"metrics: {EXT_Q}_total / {EXT_H}_total increase"
    out.set(
        "external_prefix_queries_window",
        None if q is None else _num(q),
        prov,
        reason=_absent(obs, EXT_Q),
    )
    out.set(
        "external_prefix_hits_window",
        None if h is None else _num(h),
        prov,
        reason=_absent(obs, EXT_H),
    )
    if q is None or h is None:
        out.set(
            "external_prefix_hit_rate_window",
            None,
            reason=_absent(obs, EXT_Q if q is None else EXT_H),
        )
    elif q <= 0:
        out.set(
            "external_prefix_hit_rate_window",
            None,
            reason="no external prefix-cache queries in the window (no KV connector, or idle)",
        )
    else:
        out.set("external_prefix_hit_rate_window", round(min(1.0, h / q), 4), prov)


# ------------------------------------------------------------------------------- residency


def _residency(out: Out, obs: Observations) -> None:
    hint = "start vLLM with --kv-cache-metrics"
    for short, base in RESIDENCY.items():
        name = f"{short}_p50"
        hist = obs.histogram_window(base)
        if hist is None:
            out.set(name, None, reason=_absent(obs, base, hint))
            continue
        buckets, _, count = hist
        if count <= 0:
            out.set(name, None, reason=f"{base}: no sampled block in the window")
            continue
        out.set(
            name,
            histogram_quantile(0.5, buckets),
            f"metrics: {base} median of bucket deltas (sampled blocks)",
        )
    hist = obs.histogram_window(RESIDENCY["kv_block_idle_before_evict"])
    if hist is None:
        out.set(
            "kv_block_evictions_sampled_window",
            None,
            reason=_absent(obs, RESIDENCY["kv_block_idle_before_evict"], hint),
        )
    else:
        out.set(
            "kv_block_evictions_sampled_window",
            _num(hist[2]),
            f"metrics: {RESIDENCY['kv_block_idle_before_evict']}_count increase (sampled blocks)",
        )


# -------------------------------------------------------------------------------- requests


def _hist_mean(
    out: Out, obs: Observations, signal: str, base: str, what: str
) -> tuple[list[tuple[float, float]], float] | None:
    hist = obs.histogram_window(base)
    if hist is None:
        out.set(signal, None, reason=_absent(obs, base))
        return None
    buckets, total, count = hist
    if count <= 0:
        out.set(signal, None, reason=f"no {what} in the window")
        return None
    out.set(signal, total / count, f"metrics: {base} _sum/_count deltas over the window")
    return buckets, count


def _requests(out: Out, obs: Observations) -> None:
    _hist_mean(out, obs, "prefill_kv_computed_tokens_mean", PREFILL_KV, "finished request")
    hist = obs.histogram_window(ITERATION)
    if hist is None or hist[2] <= 0:
        why = _absent(obs, ITERATION) if hist is None else "no engine step in the window"
        out.set("iteration_tokens_p99", None, reason=why)
        out.set("iteration_tokens_budget_share", None, reason=why)
    else:
        p99 = histogram_quantile(0.99, hist[0])
        out.set("iteration_tokens_p99", p99, f"metrics: {ITERATION} p99 of bucket deltas")
        budget = out.ss.get("max_num_batched_tokens")
        if (
            p99 is None
            or not isinstance(budget, int | float)
            or isinstance(budget, bool)
            or budget <= 0
        ):
            out.set(
                "iteration_tokens_budget_share", None, reason="--max-num-batched-tokens unknown"
            )
        else:
            out.set(
                "iteration_tokens_budget_share",
                round(p99 / budget, 4),
                f"iteration_tokens_p99 / max_num_batched_tokens ({budget})",
            )
    # The buckets start at le=1, so "never preempted" cannot be told from "once": the mean only.
    _hist_mean(out, obs, "request_preemptions_mean", REQ_PREEMPTIONS, "finished request")


# ------------------------------------------------------------------------------ spec decode


def _flag(bundle: Bundle, *flags: str) -> bool:
    args = bundle.engine_args
    if args is None:
        return False
    keys = set(args.args)
    argv = " ".join(args.argv or [])
    return any(f in keys or f.replace("-", "_") in keys or f"--{f}" in argv for f in flags)


def _arg(bundle: Bundle, flag: str) -> object:
    """An engine flag's recorded value, spelt with dashes or underscores (None if absent)."""
    args = bundle.engine_args
    if args is None:
        return None
    return args.args.get(flag, args.args.get(flag.replace("-", "_")))


def _json_arg(bundle: Bundle, flag: str) -> dict[str, object] | None:
    """A JSON-object flag (--kv-transfer-config, --speculative-config) as a dict, if recorded."""
    raw = _arg(bundle, flag)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    return raw if isinstance(raw, dict) else None


def _kv_transfer_field(bundle: Bundle, key: str) -> str | None:
    """A string field of --kv-transfer-config (a JSON object), if recorded: kv_connector (the
    connector class), kv_role."""
    config = _json_arg(bundle, "kv-transfer-config")
    value = config.get(key) if config is not None else None
    return value if isinstance(value, str) and value else None


_SPEC_FLAGS = ("speculative-config", "speculative-model", "num-speculative-tokens")


def _speculative_tokens(bundle: Bundle) -> int | None:
    """k, the tokens drafted per step: --num-speculative-tokens (V0) or num_speculative_tokens
    in --speculative-config (a JSON object)."""
    raw = _arg(bundle, "num-speculative-tokens")
    if raw is None:
        config = _json_arg(bundle, "speculative-config")
        raw = config.get("num_speculative_tokens") if config is not None else None
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return None
    try:
        k = int(raw)
    except ValueError:
        return None
    return k if k > 0 else None


def _spec_flag_words(bundle: Bundle) -> tuple[str, str]:
    """How to switch speculation off and where k is set, in this server's own flags.

    V0 servers (up to 0.7) take --speculative-model and --num-speculative-tokens; later ones one
    JSON object, --speculative-config. Advice names the flags the server was started with, and
    the current form when none was recorded."""
    if _flag(bundle, "speculative-model", "num-speculative-tokens") and not _flag(
        bundle, "speculative-config"
    ):
        return (
            "remove --speculative-model and --num-speculative-tokens",
            "--num-speculative-tokens",
        )
    return "remove --speculative-config", "num_speculative_tokens in --speculative-config"


def _spec_decode(out: Out, obs: Observations, bundle: Bundle) -> None:
    names = (
        "spec_decode_draft_tokens_window",
        "spec_decode_acceptance_rate",
        "spec_decode_accepted_per_draft",
        "spec_decode_tokens_per_draft",
    )
    drafts = obs.counter_increase(SPEC_DRAFTS)
    tokens = obs.counter_increase(SPEC_DRAFT_TOKENS)
    accepted = obs.counter_increase(SPEC_ACCEPTED)
    drafts_prov = f"metrics: {SPEC_DRAFTS}"
    k = _speculative_tokens(bundle)
    if drafts is None and tokens is not None and k:
        # V0 (0.5-0.7) counts drafted and accepted tokens but not the drafts: each draft
        # proposes k tokens, the k the server was started with.
        drafts = tokens / k
        drafts_prov = f"metrics: {SPEC_DRAFT_TOKENS} / k={k} (engine_args, V0 exports no drafts)"
    logged = spec_decode_from_log(bundle.logs)
    # Counters without drafts or k: the log's lines say how many tokens a draft holds.
    if (
        drafts is None
        and tokens is not None
        and accepted is not None
        and logged is not None
        and logged[0] > 0
        and logged[2] > 0
    ):
        k_logged = round(logged[0] / logged[2])
        drafts = tokens / k_logged
        drafts_prov = f"metrics: {SPEC_DRAFT_TOKENS} / k={k_logged} (from the log's lines)"
    if (drafts is None or tokens is None or accepted is None) and logged is not None:
        tokens, accepted, drafts, drafts_prov = logged
        out.set(names[0], _num(tokens), drafts_prov)
        if tokens > 0 and drafts > 0:
            out.set(names[1], round(accepted / tokens, 4), drafts_prov)
            out.set(names[2], round(accepted / drafts, 4), f"{drafts_prov}, accepted per draft")
            out.set(names[3], round(tokens / drafts, 4), f"{drafts_prov}, drafted per draft")
        else:
            for n in names[1:]:
                out.set(n, None, reason="no draft token proposed in the logged window")
        return
    if drafts is None or tokens is None or accepted is None:
        why = _absent(
            obs,
            SPEC_DRAFT_TOKENS,
            "yet speculation is configured"
            if _flag(bundle, *_SPEC_FLAGS)
            else "no --speculative-config recorded",
        )
        for n in names:
            out.set(n, None, reason=why)
        return
    prov = f"metrics: {SPEC_ACCEPTED}_total / {SPEC_DRAFT_TOKENS}_total increase"
    out.set(names[0], _num(tokens), f"metrics: {SPEC_DRAFT_TOKENS}_total increase")
    if tokens <= 0 or drafts <= 0:
        for n in names[1:]:
            out.set(n, None, reason="no draft token proposed in the window")
        return
    out.set(names[1], round(accepted / tokens, 4), prov)
    out.set(names[2], round(accepted / drafts, 4), f"{drafts_prov}, {SPEC_ACCEPTED} per draft")
    out.set(names[3], round(tokens / drafts, 4), f"{drafts_prov}, {SPEC_DRAFT_TOKENS} per draft")


# The engine's own speculation line, for servers whose /metrics carry no speculation counters
# (V0 0.5 printed them only to the log). V0: cumulative since start, "Speculative metrics:
# Draft acceptance rate: 0.130, ..., Number of speculative tokens: 8, Number of accepted
# tokens: 41749, Number of draft tokens: 322136, ..." (some releases wrote "draft tokens
# tokens"). V1: per logging interval, "SpecDecoding metrics: ... Accepted: 136 tokens, Drafted:
# 1485 tokens, Per-position acceptance rate: 0.262, 0.102, ..." with one rate per drafted
# position.
_SPEC_V0_LINE = LazyPattern(
    r"Speculative metrics:.*?Number of speculative tokens: (\d+), Number of accepted tokens: "
    r"(\d+), Number of draft tokens(?: tokens)?: (\d+)"
)
_SPEC_V1_LINE = LazyPattern(
    r"SpecDecoding metrics:.*?Accepted: (\d+) tokens, Drafted: (\d+) tokens"
    r"(?:, Per-position acceptance rate: ((?:[0-9.]+(?:, )?)+))?"
)


def spec_decode_from_log(logs: str | None) -> tuple[float, float, float, str] | None:
    """(draft tokens, accepted tokens, drafts, provenance) from the engine's speculation log
    lines, or None when the log has none (or none that says how many tokens a draft holds)."""
    if not logs or "metrics:" not in logs:
        return None
    v0 = [tuple(int(g) for g in m.groups()) for m in _SPEC_V0_LINE.finditer(logs)]
    if v0:
        k, acc, drafted = v0[-1]
        if len(v0) > 1 and acc >= v0[0][1] and drafted >= v0[0][2]:
            acc, drafted = acc - v0[0][1], drafted - v0[0][2]
            how = f"logs.txt: 'Speculative metrics' lines, last less first of {len(v0)}"
        else:
            how = "logs.txt: last 'Speculative metrics' line (since start)"
        if k <= 0:
            return None
        return float(drafted), float(acc), drafted / k, f"{how}, k={k}"
    acc_sum = drafted_sum = 0
    k = 0
    lines = 0
    for m in _SPEC_V1_LINE.finditer(logs):
        acc_sum += int(m.group(1))
        drafted_sum += int(m.group(2))
        if m.group(3):
            k = len([p for p in m.group(3).split(",") if p.strip()])
        lines += 1
    if not lines or k <= 0:
        return None
    how = f"logs.txt: {lines} 'SpecDecoding metrics' lines summed, k={k} (per-position rates)"
    return float(drafted_sum), float(acc_sum), drafted_sum / k, how


# ---------------------------------------------------------------------- offload and transfer


def _offload_and_transfer(out: Out, obs: Observations, bundle: Bundle) -> None:
    for signal, base in (
        ("kv_offload_store_bytes_window", OFFLOAD_STORE),
        ("kv_offload_load_bytes_window", OFFLOAD_LOAD),
    ):
        v = obs.counter_increase(base)
        out.set(
            signal,
            None if v is None else _num(v),
            f"metrics: {base}_total increase",
            reason=_absent(obs, base, "an offloading KV connector exports it"),
        )
    for signal, base in (
        ("nixl_failed_transfers_window", NIXL_FAILED),
        ("nixl_failed_notifications_window", NIXL_FAILED_NOTIF),
        ("nixl_expired_requests_window", NIXL_EXPIRED),
    ):
        v = obs.counter_increase(base)
        out.set(
            signal,
            None if v is None else _num(v),
            f"metrics: {base}_total increase",
            reason=_absent(obs, base, "the NIXL KV connector exports it"),
        )
    for signal, base in (
        ("nixl_xfer_time_mean", NIXL_XFER_TIME),
        ("nixl_post_time_mean", NIXL_POST_TIME),
    ):
        hist = obs.histogram_window(base)
        if hist is None:
            out.set(signal, None, reason=_absent(obs, base, "the NIXL KV connector exports it"))
        elif hist[2] <= 0:
            out.set(signal, None, reason="no NIXL transfer in the window")
        else:
            out.set(signal, hist[1] / hist[2], f"metrics: {base} _sum/_count deltas")
    if obs.has(KV_FETCH):
        series = obs.gauge_series(KV_FETCH, "sum")
        out.set(
            "kv_fetch_requests_max",
            _num(max(v for _, v in series)) if series else None,
            f"metrics: {KV_FETCH} summed over stages, max",
            reason="no value in the window",
        )
    else:
        out.set(
            "kv_fetch_requests_max",
            None,
            reason=_absent(
                obs, KV_FETCH, "only a KV consumer (--kv-transfer-config) exports it", window=False
            ),
        )
    connector = _kv_transfer_field(bundle, "kv_connector")
    if connector is None and obs.has(NIXL_FAILED):
        connector = "NixlConnector"
    out.set(
        "kv_connector",
        connector,
        "engine_args: kv_connector of --kv-transfer-config (else NIXL metrics)",
        reason="no --kv-transfer-config recorded",
    )
    out.set(
        "kv_role",
        _kv_transfer_field(bundle, "kv_role"),
        "engine_args: kv_role of --kv-transfer-config",
        reason="no kv_role in a recorded --kv-transfer-config",
    )
    configured = _flag(bundle, "kv-transfer-config") or obs.has(NIXL_FAILED) or obs.has(KV_FETCH)
    out.set("kv_transfer_configured", configured, "engine_args --kv-transfer-config, NIXL metrics")
    out.set(
        "spec_decode_configured",
        _flag(bundle, *_SPEC_FLAGS) or obs.has(SPEC_DRAFTS) or obs.has(SPEC_DRAFT_TOKENS),
        "engine_args --speculative-config (V0: --speculative-model), spec_decode metrics",
    )
    off, fewer = _spec_flag_words(bundle)
    out.set("spec_off_change", off, "engine_args: the flags speculation was started with")
    out.set("spec_k_setting", fewer, "engine_args: the flags speculation was started with")
    settings = _cache_lookup_settings(bundle)
    out.set(
        "cache_lookup_settings",
        ", ".join(settings) if settings else None,
        "engine_args: flags that change how KV blocks are stored or looked up",
        reason="no engine arguments recorded" if bundle.engine_args is None else "none set",
    )


# Flags under which a build stores or looks up prefix blocks differently from a plain engine:
# the first suspects when caching is on and blocks the engine holds are not reused.
_CACHE_LOOKUP_FLAGS = (
    "decode-context-parallel-size",
    "kv-transfer-config",
    "kv-offloading-size",
    "prefix-caching-hash-algo",
    "speculative-config",
)


def _cache_lookup_settings(bundle: Bundle) -> list[str]:
    args = bundle.engine_args
    if args is None:
        return []
    found = []
    for flag in _CACHE_LOOKUP_FLAGS:
        value = args.args.get(flag, args.args.get(flag.replace("-", "_")))
        if value is None or value is False:
            continue
        if flag == "decode-context-parallel-size" and str(value) in ("0", "1"):
            continue  # the plain engine
        short = value if isinstance(value, int | float) or flag.endswith("algo") else None
        found.append(f"--{flag} {short}" if short is not None else f"--{flag}")
    return found


# ---------------------------------------------------------------------------- config labels


def _config_labels(out: Out, labels: dict[str, str]) -> None:
    why = "vllm:cache_config_info absent" if not labels else "label not in vllm:cache_config_info"

    def text(key: str) -> str | None:
        v = labels.get(key)
        return None if v is None or v in ("None", "") else v

    def integer(key: str) -> int | None:
        v = text(key)
        try:
            return int(float(v)) if v is not None else None
        except ValueError:
            return None

    prov = "metrics: vllm:cache_config_info label "
    mode = text("mamba_cache_mode")
    out.set("mamba_cache_mode", mode, prov + "mamba_cache_mode", reason=why)
    out.set("sliding_window", integer("sliding_window"), prov + "sliding_window", reason=why)
    out.set("hash_block_size", integer("hash_block_size"), prov + "hash_block_size", reason=why)
    out.set("mamba_block_size", integer("mamba_block_size"), prov + "mamba_block_size", reason=why)
    backend = text("kv_offloading_backend")
    size = text("kv_offloading_size")
    # The backend label has a default ("native") even when nothing is offloaded: the size says.
    out.set(
        "kv_offloading",
        size is not None if labels else None,
        prov + f"kv_offloading_size={size} (backend {backend})",
        reason=why,
    )


# ----------------------------------------------------------------------------- not checked

# (what, the signal that carries it, the flag or signal that says the feature is on).
# Core families are exported by every release that has them: absent means an older server.
# Feature families exist only when the feature runs: listed when it is configured but silent,
# never for a server that simply does not use it (that would be noise in every report).
_CORE_FAMILIES: tuple[tuple[str, str], ...] = (
    ("deferred admission (waiting requests by reason)", "waiting_deferred_max"),
    ("prompt tokens by source (local compute, cache, external)", "prompt_cached_share_window"),
    ("external prefix cache (KV connector / offload hits)", "external_prefix_queries_window"),
    ("prefill KV computed per request", "prefill_kv_computed_tokens_mean"),
    ("preemptions per request", "request_preemptions_mean"),
)
_FEATURE_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("speculative decoding acceptance", "spec_decode_acceptance_rate", "spec_decode_configured"),
    ("KV transfer failures (NIXL)", "nixl_failed_transfers_window", "kv_connector"),
    ("KV offload traffic", "kv_offload_store_bytes_window", "kv_offloading"),
)


def not_checked(signals: SignalSet, bundle: Bundle) -> list[tuple[str, str]]:
    """(what, why) for the families above that could not be read, in a fixed order."""
    out: list[tuple[str, str]] = []

    def absent(name: str) -> str | None:
        sv = signals.values.get(name)
        if sv is None or sv.value is not None or not sv.reason:
            return None
        return sv.reason if sv.reason.startswith("metric ") else None

    for what, name in _CORE_FAMILIES:
        why = absent(name)
        if why is not None:
            out.append((what, why))
    for what, name, switch in _FEATURE_FAMILIES:
        why = absent(name)
        on = signals.get(switch)
        if why is not None and (on is True or (isinstance(on, str) and "Nixl" in on)):
            out.append((what, why))
    why = absent("kv_block_lifetime_p50")
    if why is not None and _flag(bundle, "kv-cache-metrics"):
        out.append(("KV block residency (lifetime, idle before eviction, reuse gap)", why))
    return out


# ------------------------------------------------------------------- CUDA graphs (start-up log)

# Lines of vLLM 0.32's start-up log (vllm/config/vllm.py, v1/worker/gpu_model_runner.py,
# v1/worker/gpu_worker.py); the engine config line prints the final compilation_config.
_CG = {
    "max_size": re.compile(r"'max_cudagraph_capture_size': (\d+)"),
    "sizes": re.compile(r"'cudagraph_capture_sizes': \[([\d, ]*)\]"),
    "truncated": re.compile(
        r"Truncating max_cudagraph_capture_size to (\d+)"
        r"|cudagraph_capture_sizes specified in compilation_config .* is overridden by config"
    ),
    # "Profiling CUDA graph memory: PIECEWISE=28 (largest=200), FULL=15 (largest=96)"
    "full": re.compile(r"FULL=\d+ \(largest=(\d+)\)"),
    "memory": re.compile(
        r"Estimated CUDA graph memory: (\d+(?:\.\d+)?) GiB total"
        r"|Graph capturing finished in \d+ secs, took (\d+(?:\.\d+)?) GiB"
    ),
    "profiling": re.compile(
        r"CUDA graph memory profiling is enabled.*?--gpu-memory-utilization=(\d+(?:\.\d+)?) is "
        r"equivalent to --gpu-memory-utilization=(\d+(?:\.\d+)?) without.*?increase "
        r"--gpu-memory-utilization to (\d+(?:\.\d+)?)"
    ),
}
_CG_NAMES = (
    "log_cudagraph_max_capture_size",
    "log_cudagraph_full_largest",
    "cudagraph_decode_ceiling",
    "log_cudagraph_truncated",
    "log_cudagraph_memory_gib",
    "log_cudagraph_estimate_gib",
    "log_cudagraph_taken_gib",
    "log_cudagraph_kv_util_taken",
    "log_cudagraph_suggested_utilization",
)


def cudagraphs(out: Out, bundle: Bundle) -> None:
    text = bundle.logs
    if text is None:
        for n in _CG_NAMES:
            out.set(n, None, reason="no logs in the bundle (--logs FILE or -)")
        return
    sizes = [int(m.group(1)) for m in _CG["max_size"].finditer(text)]
    if not sizes:
        for m in _CG["sizes"].finditer(text):
            listed = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
            if listed:
                sizes.append(max(listed))
    # vLLM truncates a requested size that no capture size reaches (42 asked, sizes end at 40)
    # after the "non-default args" line has echoed the request: the truncated value is the one
    # the engine runs with (external case o-spec6).
    cut = [int(m.group(1)) for m in _CG["truncated"].finditer(text) if m.group(1)]
    if cut:
        sizes.append(cut[-1])
    out.set(
        "log_cudagraph_max_capture_size",
        sizes[-1] if sizes else None,
        "logs.txt: compilation_config max_cudagraph_capture_size (engine config line)",
        reason="no CUDA graph capture size in the logs (eager mode, or a CPU build)",
    )
    full = [int(m.group(1)) for m in _CG["full"].finditer(text)]
    out.set(
        "log_cudagraph_full_largest",
        full[-1] if full else None,
        "logs.txt: 'Profiling CUDA graph memory ... FULL=n (largest=m)' line",
        reason="no FULL CUDA graph count in the logs",
    )
    # FULL graphs replay the whole step; above the largest one a decode batch runs PIECEWISE
    # graphs (attention outside the graph), above the capture size eagerly.
    ceiling = [x for x in (full[-1] if full else None, sizes[-1] if sizes else None) if x]
    out.set(
        "cudagraph_decode_ceiling",
        min(ceiling) if ceiling else None,
        "logs.txt: the smaller of the largest FULL graph and the largest capture size",
        reason="no CUDA graph capture size in the logs (eager mode, or a CPU build)",
    )
    out.set("log_cudagraph_truncated", bool(_CG["truncated"].search(text)), "logs.txt")
    estimated = [float(m.group(1)) for m in _CG["memory"].finditer(text) if m.group(1)]
    taken = [float(m.group(2)) for m in _CG["memory"].finditer(text) if m.group(2)]
    out.set(
        "log_cudagraph_estimate_gib",
        estimated[-1] if estimated else None,
        "logs.txt: 'Estimated CUDA graph memory: X GiB total' (charged before the pool is sized)",
        reason="no CUDA graph memory estimate in the logs (vLLM before 0.21, or the estimate off)",
    )
    out.set(
        "log_cudagraph_taken_gib",
        taken[-1] if taken else None,
        "logs.txt: 'Graph capturing finished in N secs, took X GiB' (what capture used)",
        reason="no 'Graph capturing finished ... took' line in the logs",
    )
    mem = [m.group(1) or m.group(2) for m in _CG["memory"].finditer(text)]
    out.set(
        "log_cudagraph_memory_gib",
        float(mem[-1]) if mem else None,
        "logs.txt: 'Estimated CUDA graph memory' / 'Graph capturing finished ... took' line",
        reason="no CUDA graph memory line in the logs",
    )
    prof = list(_CG["profiling"].finditer(text))
    why = "no 'CUDA graph memory profiling is enabled' line in the logs (vLLM before 0.21?)"
    if prof:
        # The regex admits only digits with one optional decimal point: float() cannot fail.
        current, equiv, suggested = (float(x) for x in prof[-1].groups())
        prov = "logs.txt: 'CUDA graph memory profiling is enabled' start-up line"
        out.set("log_cudagraph_kv_util_taken", round(current - equiv, 4), prov)
        out.set("log_cudagraph_suggested_utilization", suggested, prov)
    else:
        out.set("log_cudagraph_kv_util_taken", None, reason=why)
        out.set("log_cudagraph_suggested_utilization", None, reason=why)


# --------------------------------------------------------------------------- hybrid models


def _largest_compression(cfg: object) -> int | None:
    """The largest KV compression ratio of the model's layers (DeepSeek-V4's compress_ratios:
    0 or 1 for an uncompressed layer, 4 or 128 for one that keeps an entry per that many
    tokens); 1 for a model config that compresses no layer, None without a model config."""
    if not isinstance(cfg, dict):
        return None
    ratios = cfg.get("compress_ratios")
    if not isinstance(ratios, list):
        return 1
    found = [int(r) for r in ratios if isinstance(r, int | float) and not isinstance(r, bool)]
    return max(1, max(found, default=1))


def hybrid(out: Out, bundle: Bundle, labels: dict[str, str]) -> None:
    """Hybrid (Mamba + attention) models and the granularity at which prefix hits land.

    vLLM 0.32 caches a hybrid model's Mamba state only at block boundaries
    (mamba_cache_mode "align", the default with prefix caching), and sizes the attention block
    up to the Mamba state page: a prefix hit lands only at multiples of that block, and a
    smaller --block-size is raised again at start-up.
    """
    ss = out.ss
    verdict: bool | None = None
    prov = ""
    state: int | None = None
    state_why = "no model config in the bundle" if bundle.model_config_raw is None else ""
    cfg = bundle.model_config_raw
    if cfg is not None:
        try:
            model = KvModel.from_hf_config(cfg)
            verdict = model.layer_mix == "hybrid"
            prov = "kvmath: model_config.json layer layout"
            ssm_dtype = labels.get("mamba_ssm_cache_dtype")
            state = model.mamba_state_bytes_per_seq(
                None if ssm_dtype in (None, "None", "auto") else ssm_dtype
            )
            state_why = (
                "no attention-free layers" if not verdict else "Mamba shape not in the config"
            )
        except KvdoctorError as exc:
            # A pure Mamba/RWKV model has no attention at all: its whole cache is state.
            if "attention-free" in str(exc) or "no attention layers" in str(exc):
                verdict, prov = True, "model_config.json: attention-free model"
            state_why = f"model config not understood: {exc}"
        except Exception as exc:  # the model config is untrusted input of any shape
            verdict = None
            state_why = f"model config not understood: {type(exc).__name__}"
    out.set(
        "mamba_state_bytes_per_seq",
        state,
        "kvmath: conv + SSM state of every Mamba layer, one copy per sequence",
        reason=state_why or "not available",
    )
    mode, mamba_block = ss.get("mamba_cache_mode"), ss.get("mamba_block_size")
    if verdict is not True and (mode in ("align", "all") or isinstance(mamba_block, int)):
        # The engine's own cache config runs Mamba state beside attention, whatever a model
        # config without its layer layout says (external case zyx-qwen38next: a config.json
        # with no layer_types, mamba_cache_mode=align and 272-token Mamba blocks).
        verdict, prov = (
            True,
            "metrics: vllm:cache_config_info mamba_cache_mode/mamba_block_size",
        )
    elif verdict is None and mode == "none" and ss.get("prefix_caching") is True:
        # With prefix caching on, a hybrid model runs in "align" mode: "none" means no Mamba.
        verdict, prov = False, "metrics: vllm:cache_config_info mamba_cache_mode=none"
    out.set(
        "hybrid_model",
        verdict,
        prov,
        reason="no model config and no Mamba labels in vllm:cache_config_info",
    )
    align = labels.get("cache_hit_alignment_tokens")
    granularity: int | None = None
    gprov = ""
    try:
        granularity = int(float(align)) if align not in (None, "None", "") else None
        gprov = "metrics: vllm:cache_config_info cache_hit_alignment_tokens"
    except ValueError:
        granularity = None
    ratio = _largest_compression(cfg)
    out.set(
        "kv_compress_ratio_max",
        ratio,
        "model_config.json: the largest of compress_ratios",
        reason="no model config in the bundle",
    )
    if granularity is None:
        bs = ss.get("block_size")
        if isinstance(bs, int) and not isinstance(bs, bool):
            granularity, gprov = bs, "block_size (whole blocks are cached)"
            if ratio is not None and ratio > 1:
                # A compressed layer keeps one KV entry per `ratio` tokens, and its block of
                # block_size entries is hashed whole: a hit needs block_size × ratio tokens,
                # twice that with speculative decoding (vllm-ascend #10710: block 128 × ratio
                # 128 is a 16k-token minimum hit, 32k with MTP; block 32 brings it to 4k).
                spec = ss.get("spec_decode_configured") is True
                granularity = bs * ratio * (2 if spec else 1)
                gprov = (
                    f"block_size × the model's largest KV compression ratio ({ratio}, "
                    "compress_ratios in config.json)"
                    + (" × 2 with speculative decoding" if spec else "")
                    + ": a compressed layer's block is hashed whole"
                )
    out.set(
        "prefix_hit_granularity_tokens",
        granularity,
        gprov,
        reason="block size unknown",
    )
