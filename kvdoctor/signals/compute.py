"""Compute the signal catalog (``signals/catalog.py``) from a bundle: a pure function.

Every catalog name is set: a number with its provenance, or ``None`` with the reason. Windowed
values come from counter and histogram-bucket *deltas* between the first and last good scrape
(reset-safe, see ``observations``); lifetime values come from the last scrape. Several engines
(data parallelism) and model names are aggregated: requests, tokens and counts are summed; KV
usage is the fullest engine's (that is the pool that preempts). Per-engine values are kept in
``SignalSet.per_engine`` when there is more than one engine.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import Any

from kvdoctor.bundle.model import Bundle, EngineArgs
from kvdoctor.observations import Group, Observations, group_label, histogram_quantile, observe
from kvdoctor.signals import v1_extra
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.model import Scalar, SignalSet
from kvdoctor.vllm_metrics import (
    CACHE_CONFIG_INFO,
    DECODE_TIME,
    E2E_LATENCY,
    GENERATION_TOKENS,
    ITL,
    KV_USAGE,
    PREEMPTIONS,
    PREFILL_TIME,
    PREFIX_HITS,
    PREFIX_QUERIES,
    PROMPT_TOKENS,
    QUEUE_TIME,
    REQUEST_GENERATION_TOKENS,
    REQUEST_PROMPT_TOKENS,
    REQUEST_SUCCESS,
    RUNNING,
    TTFT,
    V0_PREFIX_HIT_RATE,
    WAITING,
)

LATENCY_HISTOGRAMS: dict[str, str] = {
    "ttft": TTFT,
    "itl": ITL,
    "queue_time": QUEUE_TIME,
    "prefill_time": PREFILL_TIME,
    "decode_time": DECODE_TIME,
    "e2e_latency": E2E_LATENCY,
}
QUANTILES = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))


class _Out:
    """Collects signals, refusing names outside the catalog (a typo must fail loudly)."""

    def __init__(self) -> None:
        self.ss = SignalSet()

    def set(
        self, name: str, value: Scalar, provenance: str = "", reason: str | None = None
    ) -> None:
        if name not in SIGNALS:
            raise KeyError(f"signal {name!r} is not in the catalog")
        if isinstance(value, float) and not math.isfinite(value):
            value, reason = None, reason or "not a finite number"
        self.ss.set(name, value, provenance if value is not None else "", reason)


def compute_signals(bundle: Bundle, obs: Observations | None = None) -> SignalSet:
    """All catalog signals for ``bundle`` (unavailable ones are ``None`` with a reason).

    ``obs``: ``observe(bundle)`` when the caller has it already (parsing every scrape is the
    larger part of a replay's own work; the pipeline needs the observations twice)."""
    if obs is None:
        obs = observe(bundle)
    out = _Out()
    out.ss.impossible = dict(sorted(obs.impossible.items()))
    _window(out, obs, bundle)
    _kv_and_requests(out, obs)
    _prefix(out, obs)
    _tokens(out, obs)
    _latency(out, obs)
    config_src = _engine_config(out, obs, bundle)
    _baselines(out, obs)
    _slo(out, bundle)
    _server(out, bundle, config_src)
    _gpu(out, bundle)
    _logs(out, bundle)
    _locker_math(out, bundle)
    v1_extra.compute(out, obs, bundle)  # metrics vLLM added from 0.12 on (after engine config)
    _per_engine(out, obs)
    # Anything still unset is reported, never silently missing.
    for name in SIGNALS:
        if name not in out.ss.values:
            out.set(name, None, reason="not computed from this bundle")
    out.ss.values = {k: out.ss.values[k] for k in sorted(out.ss.values)}
    return out.ss


# ------------------------------------------------------------------------------------ window


def _not_checked_reason(bundle: Bundle, what: str, default: str) -> str:
    for nc in bundle.manifest.not_checked:
        if nc.what == what:
            return f"{what} not checked: {nc.why}"
    return default


def _window(out: _Out, obs: Observations, bundle: Bundle) -> None:
    n = len(obs.times)
    out.set("scrapes_ok", n, "metrics.jsonl: scrapes with a parsable vLLM payload")
    failed_prov = "metrics.jsonl: failed scrapes"
    if obs.failed:
        failed_prov += f" (first: {obs.failed[0][1]})"
    out.set("scrapes_failed", len(obs.failed), failed_prov)
    if n >= 2:
        out.set("window_s", round(obs.window_s, 6), f"first to last of {n} good scrapes")
    else:
        out.set("window_s", None, reason=_too_few(n))
    if n >= 2:
        at = ", ".join(f"+{obs.times[i] - obs.times[0]:.0f}s" for i in obs.reset_indices)
        prov = "scrapes where a counter dropped (process restart)"
        out.set("counter_resets", len(obs.reset_indices), f"{prov} at {at}" if at else prov)
    else:
        out.set("counter_resets", None, reason=_too_few(n))
    groups = obs.groups()
    if n:
        out.set("engines", max(1, len(groups)), "distinct (model_name, engine) label sets")
    else:
        out.set("engines", None, reason=_too_few(n))


def _too_few(n: int) -> str:
    if n == 0:
        return "no good scrape in the bundle"
    return "only one good scrape; a window needs two"


# ------------------------------------------------------------------- KV usage and requests


def _stats(
    out: _Out,
    prefix: str,
    series: list[tuple[float, float]],
    wire: str,
    how: str,
    absent: str,
) -> None:
    if not series:
        for s in ("last", "max", "mean"):
            out.set(f"{prefix}_{s}", None, reason=absent)
        return
    vals = [v for _, v in series]
    n = len(vals)
    out.set(f"{prefix}_last", vals[-1], f"metrics: {wire} ({how}) at the last scrape")
    out.set(f"{prefix}_max", max(vals), f"metrics: {wire} ({how}), max over {n} scrapes")
    out.set(f"{prefix}_mean", math.fsum(vals) / n, f"metrics: {wire} ({how}), mean of {n} scrapes")


def _stalled(out: _Out, obs: Observations, waiting: list[tuple[float, float]]) -> None:
    """Share of scrape intervals that ended with requests waiting and no token processed.

    A stall is judged from progress, not from the running gauge: vLLM publishes the gauges of
    the last finished engine step, so "running" reads 0 all through a long prefill step that
    follows a step in which every running request finished (fresh draw 9200-12: running 0 in
    13 of 21 scrapes at --max-num-seqs 2, 14 requests waiting, tokens flowing throughout).
    """
    prompt, gen = obs.counter_series(PROMPT_TOKENS), obs.counter_series(GENERATION_TOKENS)
    if len(prompt) < 2 or len(gen) < 2 or not waiting:
        out.set("stalled_share", None, reason="needs the token counters and the waiting gauge")
        return
    waits, prompts, gens = dict(waiting), dict(prompt), dict(gen)
    times = [t for t, _ in prompt if t in gens and t in waits]
    intervals = list(itertools.pairwise(times))
    if not intervals:
        out.set("stalled_share", None, reason="no scrape interval with all three series")
        return
    stalled = sum(
        1
        for a, b in intervals
        if waits[b] >= 1 and prompts[b] <= prompts[a] and gens[b] <= gens[a]
    )
    out.set(
        "stalled_share",
        stalled / len(intervals),
        f"metrics: intervals with {obs.wire(WAITING)} >= 1 and no increase of "
        f"{obs.wire(PROMPT_TOKENS)} or {obs.wire(GENERATION_TOKENS)}, of {len(intervals)}",
    )


def _kv_and_requests(out: _Out, obs: Observations) -> None:
    kv = obs.gauge_series(KV_USAGE, "max")
    _stats(out, "kv_usage", kv, obs.wire(KV_USAGE), "fullest engine", _absent(obs, KV_USAGE))
    out.ss.series["kv_usage"] = kv
    for prefix, name in (("running", RUNNING), ("waiting", WAITING)):
        series = obs.gauge_series(name, "sum")
        _stats(out, prefix, series, obs.wire(name), "summed over engines", _absent(obs, name))
        out.ss.series[prefix] = series
    _stalled(out, obs, out.ss.series.get("waiting") or [])

    pre = obs.counter_increase(PREEMPTIONS)
    if pre is None:
        out.set("preemptions_window", None, reason=_absent(obs, PREEMPTIONS, window=True))
        out.set("preemptions_per_s", None, reason=_absent(obs, PREEMPTIONS, window=True))
    else:
        prov = f"metrics: {obs.wire(PREEMPTIONS)} increase over the window"
        out.set("preemptions_window", _num(pre), prov)
        out.set(
            "preemptions_per_s",
            pre / obs.window_s if obs.window_s > 0 else None,
            prov,
            reason="window has zero length",
        )
    last = obs.counter_last(PREEMPTIONS)
    out.set(
        "preemptions_lifetime",
        _num(last),
        f"metrics: {obs.wire(PREEMPTIONS)} last value",
        reason=_absent(obs, PREEMPTIONS),
    )
    out.ss.series["preemptions"] = obs.counter_series(PREEMPTIONS)

    done = obs.counter_increase(REQUEST_SUCCESS)
    out.set(
        "requests_finished_window",
        _num(done),
        f"metrics: {obs.wire(REQUEST_SUCCESS)} increase (all finish reasons)",
        reason=_absent(obs, REQUEST_SUCCESS, window=True),
    )


def _num(v: float | None) -> Scalar:
    """Counts stay integers in the report when they are whole numbers."""
    if v is None:
        return None
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


def _absent(obs: Observations, name: str, window: bool = False) -> str:
    if not obs.times:
        return "no good scrape in the bundle"
    if not obs.has(name):
        return f"metric {name} absent from every scrape"
    if window and len(obs.times) < 2:
        return "only one good scrape; a window needs two"
    return "not available"


# ---------------------------------------------------------------------------- prefix cache


def _prefix(out: _Out, obs: Observations) -> None:
    q = obs.counter_increase(PREFIX_QUERIES)
    h = obs.counter_increase(PREFIX_HITS)
    wq, wh = obs.wire(PREFIX_QUERIES), obs.wire(PREFIX_HITS)
    out.set(
        "prefix_queries_window",
        _num(q),
        f"metrics: {wq} increase",
        reason=_absent(obs, PREFIX_QUERIES, window=True),
    )
    out.set(
        "prefix_hits_window",
        _num(h),
        f"metrics: {wh} increase",
        reason=_absent(obs, PREFIX_HITS, window=True),
    )
    if q is None or h is None:
        out.set(
            "prefix_hit_rate_window",
            None,
            reason=_absent(obs, PREFIX_QUERIES if q is None else PREFIX_HITS, window=True),
        )
    elif q <= 0:
        out.set("prefix_hit_rate_window", None, reason="no prefix-cache queries in the window")
    else:
        out.set(
            "prefix_hit_rate_window",
            min(1.0, h / q),
            f"metrics: {wh} / {wq}, increases over the window only",
        )
    # The server's own rate before the window: the counters at the first scrape. A baseline
    # that excludes the window itself, so a heavy window of new traffic cannot dilute it (the
    # lifetime rate at the last scrape includes the window). Unknown across a restart.
    fq, fh = obs.counter_first(PREFIX_QUERIES), obs.counter_first(PREFIX_HITS)
    if obs.reset_indices:
        out.set("prefix_hit_rate_before", None, reason="the server restarted within the window")
    elif fq is not None and fh is not None and fq > 0:
        out.set(
            "prefix_hit_rate_before",
            min(1.0, fh / fq),
            f"metrics: {wh} / {wq}, first values (since server start, before the window)",
        )
    elif fq is not None and fq <= 0:
        out.set("prefix_hit_rate_before", None, reason="no prefix-cache queries before the window")
    else:
        out.set("prefix_hit_rate_before", None, reason=_absent(obs, PREFIX_QUERIES))
    lq, lh = obs.counter_last(PREFIX_QUERIES), obs.counter_last(PREFIX_HITS)
    if lq is not None and lh is not None and lq > 0:
        since = " since the last restart" if obs.reset_indices else " since server start"
        out.set(
            "prefix_hit_rate_lifetime",
            min(1.0, lh / lq),
            f"metrics: {wh} / {wq}, last values ({since.strip()})",
        )
    else:
        v0 = obs.gauge_series(V0_PREFIX_HIT_RATE, "mean")
        if v0:
            out.set(
                "prefix_hit_rate_lifetime",
                v0[-1][1],
                "metrics: vllm:gpu_prefix_cache_hit_rate (V0 gauge) at the last scrape",
            )
        elif lq is not None and lq <= 0:
            out.set("prefix_hit_rate_lifetime", None, reason="no prefix-cache queries since start")
        else:
            out.set("prefix_hit_rate_lifetime", None, reason=_absent(obs, PREFIX_QUERIES))


# ---------------------------------------------------------------------------------- tokens


def _tokens(out: _Out, obs: Observations) -> None:
    for sig, name in (
        ("prompt_tokens_per_s", PROMPT_TOKENS),
        ("generation_tokens_per_s", GENERATION_TOKENS),
    ):
        inc = obs.counter_increase(name)
        if inc is None:
            out.set(sig, None, reason=_absent(obs, name, window=True))
        elif obs.window_s <= 0:
            out.set(sig, None, reason="window has zero length")
        else:
            out.set(sig, inc / obs.window_s, f"metrics: {obs.wire(name)} increase / window_s")
    for sig, base in (
        ("mean_prompt_len", REQUEST_PROMPT_TOKENS),
        ("mean_generation_len", REQUEST_GENERATION_TOKENS),
    ):
        hist = obs.histogram_window(base)
        if hist is None:
            out.set(sig, None, reason=_absent(obs, base + "_bucket", window=True))
            continue
        _, total, count = hist
        if count <= 0:
            out.set(sig, None, reason="no request finished in the window")
        else:
            out.set(sig, total / count, f"metrics: {base} _sum/_count deltas over the window")
    hist = obs.histogram_window(REQUEST_PROMPT_TOKENS)
    if hist is None:
        out.set(
            "max_prompt_len_seen",
            None,
            reason=_absent(obs, f"{REQUEST_PROMPT_TOKENS}_bucket", window=True),
        )
    else:
        buckets, _, _ = hist
        total = buckets[-1][1] if buckets else 0.0
        if total <= 0:
            out.set("max_prompt_len_seen", None, reason="no request finished in the window")
        else:
            top = next(le for le, c in buckets if c >= total)
            finite = [le for le, _ in buckets if math.isfinite(le)]
            if math.isfinite(top):
                out.set(
                    "max_prompt_len_seen",
                    _num(top),
                    "metrics: vllm:request_prompt_tokens, bound of the highest non-empty bucket",
                )
            elif finite:
                out.set(
                    "max_prompt_len_seen",
                    _num(finite[-1]),
                    "metrics: vllm:request_prompt_tokens, longest prompt above the largest"
                    " finite bucket bound (a lower bound)",
                )
            else:
                out.set("max_prompt_len_seen", None, reason="histogram has no finite bucket")
    out.set(
        "prompt_tokens_recomputed_window",
        None,
        reason="vLLM exposes no counter of prompt tokens recomputed after preemption",
    )


# --------------------------------------------------------------------------------- latency


def _latency(out: _Out, obs: Observations) -> None:
    for short, base in LATENCY_HISTOGRAMS.items():
        hist = obs.histogram_window(base)
        mean_name = f"{short}_mean"
        has_mean = mean_name in SIGNALS
        if hist is None:
            reason = _absent(obs, base + "_bucket", window=True)
            for q, _ in QUANTILES:
                out.set(f"{short}_{q}", None, reason=reason)
            if has_mean:
                out.set(mean_name, None, reason=reason)
            continue
        buckets, total, count = hist
        wire = obs.wire(base + "_bucket").removesuffix("_bucket")
        if count <= 0 or not buckets or buckets[-1][1] <= 0:
            for q, _ in QUANTILES:
                out.set(f"{short}_{q}", None, reason="no observation in the window")
            if has_mean:
                out.set(mean_name, None, reason="no observation in the window")
            continue
        n = _num(buckets[-1][1])
        for q, qv in QUANTILES:
            out.set(
                f"{short}_{q}",
                histogram_quantile(qv, buckets),
                f"metrics: {wire} bucket deltas over the window ({n} observations)",
                reason="quantile falls outside finite buckets",
            )
        if has_mean:
            out.set(mean_name, total / count, f"metrics: {wire} _sum/_count deltas")


# ----------------------------------------------------------------- baselines and SLOs


def _baselines(out: _Out, obs: Observations) -> None:
    from kvdoctor.signals import baselines

    cap = out.ss.get("kv_capacity_tokens")
    baselines.compute(
        lambda name, value, prov, reason: out.set(name, value, prov, reason),
        obs,
        cap if isinstance(cap, int) and cap > 0 else None,
    )


def _slo(out: _Out, bundle: Bundle) -> None:
    slos = bundle.slo or {}
    for h in ("ttft", "itl"):
        for q in ("p50", "p95", "p99"):
            key = f"{h}-{q}"
            if key in slos:
                out.set(f"slo_{h}_{q}", slos[key], f"SLO {key} (--slo or slo.json)")
            else:
                out.set(f"slo_{h}_{q}", None, reason=f"no --slo {key} given")


# --------------------------------------------------------------------------- engine config

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    try:
        f = float(str(v).replace(",", ""))
    except ValueError:
        return None
    return int(f) if math.isfinite(f) and f.is_integer() else None


def _float(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(str(v))
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def _bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    return None


def _str(v: Any) -> str | None:
    s = str(v).strip() if v is not None else ""
    return s if s and s != "None" else None


def cache_config_labels(obs: Observations) -> dict[str, str]:
    """Labels of ``vllm:cache_config_info`` at the last scrape carrying it (engine 0 first)."""
    cols = obs.columns.get(CACHE_CONFIG_INFO)
    if not cols:
        return {}
    best: tuple[int, str, dict[str, str]] | None = None
    for labels, col in cols.items():
        last = max((i for i, v in enumerate(col) if v == v), default=-1)
        if last < 0:
            continue
        d = dict(labels)
        key = (last, "" if d.get("engine", "0") == "0" else d.get("engine", ""))
        # The latest scrape wins; among equals, engine "0" (sorted first) wins.
        if best is None or key[0] > best[0] or (key[0] == best[0] and key[1] < best[1]):
            best = (key[0], key[1], d)
    return best[2] if best else {}


# name -> (cache_config_info label, engine flag(s), converter)
_CONFIG: list[tuple[str, str | None, tuple[str, ...], Callable[[Any], Scalar]]] = [
    ("block_size", "block_size", ("block-size",), _int),
    ("num_gpu_blocks", "num_gpu_blocks", ("num-gpu-blocks-override",), _int),
    ("cache_dtype", "cache_dtype", ("kv-cache-dtype",), _str),
    ("prefix_caching", "enable_prefix_caching", ("enable-prefix-caching",), _bool),
    ("gpu_memory_utilization", "gpu_memory_utilization", ("gpu-memory-utilization",), _float),
    ("max_model_len", None, ("max-model-len",), _int),
    ("max_num_seqs", None, ("max-num-seqs",), _int),
    ("max_num_batched_tokens", None, ("max-num-batched-tokens",), _int),
    ("kv_cache_memory_bytes", "kv_cache_memory_bytes", ("kv-cache-memory-bytes",), _int),
]


def _engine_arg(args: EngineArgs | None, flags: tuple[str, ...]) -> tuple[Any, str] | None:
    """A flag's value from engine_args.json and whether it came from argv or the user."""
    if args is None:
        return None
    from kvdoctor.bundle.argv import parse_argv

    argv_args = parse_argv(args.argv) if args.argv else {}
    for flag in flags:
        for key in (flag, flag.replace("-", "_")):
            if key in args.args:
                value = args.args[key]
                src = "process argv" if argv_args.get(flag) == value else "user-supplied flag"
                return value, src
        if flag.startswith("enable-") and f"no-{flag}" in args.args:
            neg = _bool(args.args[f"no-{flag}"])
            src = "process argv" if f"no-{flag}" in argv_args else "user-supplied flag"
            return (None if neg is None else not neg), src
    return None


def _engine_config(out: _Out, obs: Observations, bundle: Bundle) -> dict[str, str]:
    labels = cache_config_labels(obs)
    sources: dict[str, str] = {}
    for name, label, flags, conv in _CONFIG:
        value: Scalar = None
        if label is not None and label in labels:
            value = conv(labels[label])
            if value is not None:
                out.set(name, value, f"metrics: vllm:cache_config_info label {label}")
                sources[name] = "metrics"
                continue
        got = _engine_arg(bundle.engine_args, flags)
        if got is not None:
            value = conv(got[0])
            if value is not None:
                out.set(name, value, f"engine_args: --{flags[0]} ({got[1]})")
                sources[name] = "engine_args"
                continue
        if label is None:
            why = "not exposed in /metrics"
        elif label in labels:
            why = f"vllm:cache_config_info reports {label}={labels[label]!r}"
        else:
            why = "not in vllm:cache_config_info"
        src = "no engine flags recorded" if bundle.engine_args is None else "no such flag given"
        out.set(name, None, reason=f"{why}; {src} (server default unknown)")
    # Capacity: the engine's own figure when it reports one, else blocks × block size.
    from kvdoctor.kvmath.capacity import pool_capacity

    # The server's own figures only: the rules and the report add the log's and the model
    # config's (kvdoctor.kvmath.capacity, the one definition) where these are missing.
    bs, nb = out.ss.get("block_size"), out.ss.get("num_gpu_blocks")
    cap = pool_capacity(
        reported=_int(labels.get("kv_cache_size_tokens")),
        block_size=bs if isinstance(bs, int) else None,
        num_gpu_blocks=nb if isinstance(nb, int) else None,
    )
    if cap.tokens is not None and cap.source is not None:
        out.set("kv_capacity_tokens", cap.tokens, cap.source)
    else:
        out.set("kv_capacity_tokens", None, reason="block_size or num_gpu_blocks unknown")
    return sources


def _server(out: _Out, bundle: Bundle, config_src: dict[str, str]) -> None:
    server = bundle.server
    if server is None:
        why = _not_checked_reason(bundle, "server", "no server.json in the bundle")
        out.set("served_model", None, reason=why)
        out.set("vllm_version", None, reason=why)
        return
    version = server.version.get("version") if isinstance(server.version, dict) else None
    out.set("vllm_version", _str(version), "server: /version", reason="/version gave no version")
    data = server.models.get("data") if isinstance(server.models, dict) else None
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None
    model_id = _str(first.get("id")) if first else None
    out.set(
        "served_model", model_id, "server: /v1/models (first)", reason="/v1/models listed no model"
    )
    mml = _int(first.get("max_model_len")) if first else None
    if mml is not None:
        # The served value is what the engine admits; it beats a flag that may have been capped.
        out.set("max_model_len", mml, "server: /v1/models max_model_len")


# ------------------------------------------------------------------------------------- GPU


def _is_server_process(name: str) -> bool:
    # The GPU probe names processes of the detected vLLM server "vllm (...)"; vLLM's own
    # workers set titles like "VLLM::EngineCore" / "VLLM::Worker".
    low = name.lower()
    return "vllm" in low or "enginecore" in low


def _gpu(out: _Out, bundle: Bundle) -> None:
    names = (
        "gpu_memory_used_bytes",
        "gpu_memory_total_bytes",
        "gpu_memory_used_fraction",
        "gpu_other_process_bytes",
    )
    samples = bundle.gpu
    if not samples or not any(s.devices for s in samples):
        why = _not_checked_reason(bundle, "gpu", "no GPU samples in the bundle")
        for n in (*names, "gpu_name", "gpu_bandwidth"):
            out.set(n, None, reason=why)
        return
    # The busiest device: highest used memory at any sample (ties: lowest index).
    peak: dict[int, tuple[int, int]] = {}
    other_peak: int | None = None
    for s in samples:
        other = 0
        known = False
        for d in s.devices:
            used, total = peak.get(d.index, (0, d.memory_total))
            peak[d.index] = (max(used, d.memory_used), d.memory_total)
            for p in d.processes:
                if p.used_memory is None:
                    continue
                known = True
                if not _is_server_process(p.name):
                    other += p.used_memory
        if known:
            other_peak = other if other_peak is None else max(other_peak, other)
    index = min(peak, key=lambda i: (-peak[i][0], i))
    used, total = peak[index]
    prov = f"gpu.jsonl: device {index}, peak over {len(samples)} NVML samples"
    out.set("gpu_memory_used_bytes", used, prov)
    out.set("gpu_memory_total_bytes", total, prov)
    out.set(
        "gpu_memory_used_fraction",
        used / total if total > 0 else None,
        prov,
        reason="device reports zero total memory",
    )
    out.set(
        "gpu_other_process_bytes",
        other_peak,
        "gpu.jsonl: peak memory of processes not belonging to the vLLM server",
        reason="NVML gave no per-process memory",
    )
    name = next((d.name for s in samples for d in s.devices if d.index == index), None)
    out.set("gpu_name", name or None, prov, reason="NVML gave no device name")
    from kvdoctor.signals.physics import bandwidth_of

    bw = bandwidth_of(name) if name else None
    out.set(
        "gpu_bandwidth",
        bw[0] if bw else None,
        f"published peak bandwidth of {name}: {bw[1]}" if bw else "",
        reason=f"{name!r} is not in the bandwidth table (signals/physics.py)",
    )


# ------------------------------------------------------------------------------------ logs

# Message texts from vLLM 0.32's source (v1/core/kv_cache_utils.py, config/cache.py) and
# older releases (V0 scheduler preemption warning).
_LOG_PATTERNS: dict[str, re.Pattern[str]] = {
    "no_cache_memory": re.compile(r"No available memory for the cache blocks"),
    "oom": re.compile(
        r"(CUDA out of memory|torch\.(?:cuda\.)?OutOfMemoryError|OutOfMemoryError: |"
        r"HIP out of memory|out of memory occurred)"
    ),
    "preemption": re.compile(
        r"(is preempted by PreemptionMode\.\w+ mode because there is not enough KV cache space"
        r"|preempted by .*not enough KV cache space)"
    ),
    "kv_tokens": re.compile(
        r"(?:GPU|CPU|XPU|TPU|HPU|NPU|[A-Z]+)(?: \+ host)? KV cache size: ([\d,]+) tokens"
    ),
    "concurrency": re.compile(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x"),
    "exceeds": re.compile(
        r"max seq len \((\d+)\), \(([\d.]+) GiB KV cache is needed, which is larger than the "
        r"available KV cache memory"
    ),
    # The config line at engine start ("kv_cache_dtype=fp8, ...") or the cache-config notice.
    "fp8": re.compile(r"Using (fp8\w*) data type to store kv cache|kv_cache_dtype=(fp8\w*)"),
    # vLLM V1 logs no per-request warning; its periodic stats line carries "Preemptions: N".
    "stats_preemptions": re.compile(r"Preemptions: (\d+)"),
    "estimated": re.compile(r"the estimated maximum model length is (\d+)"),
}


def _logs(out: _Out, bundle: Bundle) -> None:
    names = (
        "log_no_cache_memory",
        "log_oom",
        "log_preemption_warnings",
        "log_kv_cache_tokens",
        "log_max_concurrency",
        "log_max_model_len_exceeds_kv",
        "log_fp8_kv_cache",
        "log_estimated_max_model_len",
    )
    text = bundle.logs
    if text is None:
        why = _not_checked_reason(bundle, "logs", "no logs in the bundle (--logs FILE or -)")
        for n in names:
            out.set(n, None, reason=why)
        return
    p = _LOG_PATTERNS
    prov = "logs.txt"
    out.set("log_no_cache_memory", bool(p["no_cache_memory"].search(text)), prov)
    out.set("log_oom", bool(p["oom"].search(text)), prov)
    v0 = len(p["preemption"].findall(text))
    v1 = sum(int(m.group(1)) for m in p["stats_preemptions"].finditer(text))
    out.set(
        "log_preemption_warnings",
        v0 + v1,
        "logs.txt: V0 preemption warnings + 'Preemptions: N' of V1 periodic stats lines",
    )
    out.set("log_max_model_len_exceeds_kv", bool(p["exceeds"].search(text)), prov)
    out.set("log_fp8_kv_cache", bool(p["fp8"].search(text)), prov)
    est = [m.group(1) for m in p["estimated"].finditer(text)]
    out.set(
        "log_estimated_max_model_len",
        _int(est[-1]) if est else None,
        "logs.txt: start-up refusal 'the estimated maximum model length is N'",
        reason="no start-up refusal with an estimated maximum model length in the logs",
    )
    tokens = [m.group(1) for m in p["kv_tokens"].finditer(text)]
    out.set(
        "log_kv_cache_tokens",
        _int(tokens[-1]) if tokens else None,
        "logs.txt: last 'KV cache size: N tokens' line",
        reason="no KV cache size line in the logs",
    )
    conc = [m.group(2) for m in p["concurrency"].finditer(text)]
    out.set(
        "log_max_concurrency",
        _float(conc[-1]) if conc else None,
        "logs.txt: last 'Maximum concurrency' line",
        reason="no maximum concurrency line in the logs",
    )


# ----------------------------------------------------------------------------- locker math


def _locker_math(out: _Out, bundle: Bundle) -> None:
    ss = out.ss
    cap = ss.get("kv_capacity_tokens")
    mml = ss.get("max_model_len")
    if isinstance(cap, int) and cap > 0 and isinstance(mml, int):
        out.set("max_model_len_over_capacity", mml / cap, "max_model_len / kv_capacity_tokens")
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
        why = _not_checked_reason(bundle, "model_config", "no model config in the bundle")
        out.set("kv_bytes_per_token", None, reason=why)
        out.set("kv_config_mismatch", None, reason=why)
        out.set("weights_bytes", None, reason=why)
        return
    from kvdoctor.signals.physics import dense_weight_bytes

    weights, how = dense_weight_bytes(cfg)
    out.set("weights_bytes", weights, f"model_config.json: {how}", reason=how)
    try:
        from kvdoctor.kvmath import KvModel

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
    from kvdoctor.kvmath.section import cross_check

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
    if check["ratio"] is not None:
        out.set(
            "kv_config_mismatch",
            check["ratio"],
            "kvmath cross-check: kv_cache_memory_bytes / (bytes per token × block_size × blocks)",
        )
    else:
        out.set("kv_config_mismatch", None, reason=f"{check['status']}: {check['detail']}")


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


# ------------------------------------------------------------------------------ per engine


def _per_engine(out: _Out, obs: Observations) -> None:
    groups = obs.groups()
    if len(groups) < 2:
        return
    for g in groups:
        out.ss.per_engine[group_label(g)] = _engine_values(obs, g)


def _engine_values(obs: Observations, g: Group) -> dict[str, Scalar]:
    vals: dict[str, Scalar] = {}
    kv = [v for _, v in obs.gauge_series(KV_USAGE, "max", g)]
    vals["kv_usage_max"] = max(kv) if kv else None
    vals["kv_usage_mean"] = math.fsum(kv) / len(kv) if kv else None
    for prefix, name in (("running", RUNNING), ("waiting", WAITING)):
        s = [v for _, v in obs.gauge_series(name, "sum", g)]
        vals[f"{prefix}_max"] = _num(max(s)) if s else None
        vals[f"{prefix}_mean"] = math.fsum(s) / len(s) if s else None
    vals["preemptions_window"] = _num(obs.counter_increase(PREEMPTIONS, g))
    q, h = obs.counter_increase(PREFIX_QUERIES, g), obs.counter_increase(PREFIX_HITS, g)
    vals["prefix_hit_rate_window"] = h / q if q and h is not None and q > 0 else None
    vals["requests_finished_window"] = _num(obs.counter_increase(REQUEST_SUCCESS, g))
    return vals
