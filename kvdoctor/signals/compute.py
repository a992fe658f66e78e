"""Compute the signal catalog (``signals/catalog.py``) from a bundle: a pure function.

Every catalog name is set: a number with its provenance, or ``None`` with the reason. Windowed
values come from counter and histogram-bucket *deltas* between the first and last good scrape
(reset-safe, see ``observations``); lifetime values come from the last scrape. Several engines
(data parallelism) and model names are aggregated: requests, tokens and counts are summed; KV
usage is the fullest engine's (that is the pool that preempts). Per-engine values are kept in
``SignalSet.per_engine`` when there is more than one engine.

The signals are computed by topic: ``metrics`` (the /metrics series), ``config`` (engine
configuration and server info), ``gpu`` (NVML samples), ``logs`` (the server log), ``locker``
(the locker math over the others), ``baselines`` and ``v1_extra`` (metrics vLLM added from 0.12
on); ``common`` holds the collector they all write to.
"""

from __future__ import annotations

from kvdoctor.bundle.model import Bundle
from kvdoctor.observations import Observations, observe
from kvdoctor.signals import (
    baselines,
    config,
    gpu,
    locker,
    logs,
    metrics,
    prefill,
    prompts,
    topology,
    v1_extra,
)
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.common import Out
from kvdoctor.signals.model import SignalSet


def compute_signals(bundle: Bundle, obs: Observations | None = None) -> SignalSet:
    """All catalog signals for ``bundle`` (unavailable ones are ``None`` with a reason).

    ``obs``: ``observe(bundle)`` when the caller has it already (parsing every scrape is the
    larger part of a replay's own work; the pipeline needs the observations twice)."""
    if obs is None:
        obs = observe(bundle)
    out = Out()
    out.ss.impossible = dict(sorted(obs.impossible.items()))
    out.ss.repeated = dict(sorted(obs.repeated.items()))
    out.ss.decreased = dict(sorted(obs.decreased.items()))
    metrics.window(out, obs, bundle)
    metrics.kv_and_requests(out, obs)
    metrics.prefix_cache(out, obs)
    metrics.tokens(out, obs)
    metrics.latency(out, obs)
    config_src = config.engine_config(out, obs, bundle)
    _baselines(out, obs)
    _slo(out, bundle)
    _complaint(out, bundle)
    config.server_info(out, bundle, config_src)
    logs.logs(out, bundle)
    gpu.gpu(out, bundle)  # after the logs: the weights they name tell the engine's own process
    config.platform(out, bundle)  # after the GPU and log signals
    locker.locker_math(out, bundle)
    v1_extra.compute(out, obs, bundle)  # metrics vLLM added from 0.12 on (after engine config)
    prefill.prefill_compute(out, obs, bundle)  # after the cached share and the GPU name
    metrics.per_engine(out, obs)
    metrics.engine_balance(out)
    topology.topology(out, bundle)
    prompts.prompt_evidence(out, bundle)  # after the block size and the hit granularity
    prompts.retention_horizon(out)  # after the residency histograms and the turnover
    # Anything still unset is reported, never silently missing.
    for name in SIGNALS:
        if name not in out.ss.values:
            out.set(name, None, reason="not computed from this bundle")
    out.ss.values = {k: out.ss.values[k] for k in sorted(out.ss.values)}
    return out.ss


# ----------------------------------------------------------------- baselines and SLOs


def _baselines(out: Out, obs: Observations) -> None:
    cap = out.ss.get("kv_capacity_tokens")
    baselines.compute(
        lambda name, value, prov, reason: out.set(name, value, prov, reason),
        obs,
        cap if isinstance(cap, int) and cap > 0 else None,
    )


def _complaint(out: Out, bundle: Bundle) -> None:
    said = bundle.manifest.complaint
    if said is None:
        out.set("complaint", None, reason="no --complaint given")
    else:
        out.set("complaint", said, "--complaint (kept in the bundle's manifest)")


def _slo(out: Out, bundle: Bundle) -> None:
    slos = bundle.slo or {}
    for h in ("ttft", "itl"):
        for q in ("p50", "p95", "p99"):
            key = f"{h}-{q}"
            if key in slos:
                out.set(f"slo_{h}_{q}", slos[key], f"SLO {key} (--slo or slo.json)")
            else:
                out.set(f"slo_{h}_{q}", None, reason=f"no --slo {key} given")
