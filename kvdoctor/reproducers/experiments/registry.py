"""The experiment registry: the code of every experiment, and how a run is started.

What each experiment is (name, causes, measured keys, needs) is plain data in
:mod:`kvdoctor.experiment_catalog`, which the rules and the report read; here each catalog entry
gets the class that runs it (a unit test holds the two equal). Adding an experiment is its
catalog entry, one module and one line in :data:`_ALL`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import httpx

from kvdoctor import expfmt
from kvdoctor.bundle.model import JsonObject
from kvdoctor.errors import KvdoctorError
from kvdoctor.experiment_catalog import DEFAULT_SET, NAMES
from kvdoctor.expfmt import ExpositionError
from kvdoctor.probes.metrics import MetricsClient
from kvdoctor.reproducers.experiments.base import AnyExperiment, ReproContext, base_url, execute
from kvdoctor.reproducers.experiments.capacity_ramp import CapacityRamp
from kvdoctor.reproducers.experiments.itl_context import ItlContext
from kvdoctor.reproducers.experiments.memory_headroom import MemoryHeadroom
from kvdoctor.reproducers.experiments.prefix_probe import PrefixProbe
from kvdoctor.reproducers.experiments.quant_canary import QuantCanary
from kvdoctor.reproducers.experiments.ttft_split import TtftSplit
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.vllm_metrics import CACHE_CONFIG_INFO

__all__ = [
    "DEFAULT_SET",
    "EXPERIMENTS",
    "NAMES",
    "check_allowed",
    "describe",
    "get_experiment",
    "run_experiment",
    "run_experiment_async",
]

_ALL: tuple[AnyExperiment, ...] = (
    PrefixProbe(),
    TtftSplit(),
    ItlContext(),
    CapacityRamp(),
    MemoryHeadroom(),
    QuantCanary(),
)
EXPERIMENTS: dict[str, AnyExperiment] = {e.name: e for e in _ALL}


def get_experiment(name: str) -> AnyExperiment:
    exp = EXPERIMENTS.get(name)
    if exp is None:
        raise KvdoctorError(f"unknown reproducer {name!r}; known: {', '.join(sorted(EXPERIMENTS))}")
    return exp


def check_allowed(exp: AnyExperiment, ctx: ReproContext) -> None:
    if exp.needs_load and not ctx.allow_load:
        raise KvdoctorError(f"{exp.name} adds real load to the server: pass --allow-load to run it")
    if exp.needs_reference and not ctx.reference_endpoint:
        raise KvdoctorError(f"{exp.name} compares two servers: pass --reference-endpoint URL")


def cache_config(text: str) -> dict[str, str]:
    """Labels of ``vllm:cache_config_info`` (block size, pool, prefix caching), or {}."""
    try:
        samples = expfmt.parse(text, prefixes=(CACHE_CONFIG_INFO,))
    except ExpositionError:
        return {}
    return dict(samples[0].labels) if samples else {}


async def discover_model(
    ctx: ReproContext, endpoint: str, headers: dict[str, str]
) -> tuple[str, int | None]:
    """The first served model name from ``/v1/models`` and its max_model_len when listed."""
    try:
        async with ctx.http_client(10.0) as client:
            resp = await client.get(base_url(endpoint) + "/v1/models", headers=headers)
    except httpx.HTTPError as exc:
        raise KvdoctorError(f"cannot reach {endpoint}: {type(exc).__name__}: {exc}") from None
    if resp.status_code != 200:
        raise KvdoctorError(f"{endpoint}/v1/models answered HTTP {resp.status_code}")
    try:
        first = resp.json()["data"][0]
        max_len = first.get("max_model_len")
        return str(first["id"]), int(max_len) if isinstance(max_len, int) else None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise KvdoctorError(f"{endpoint}/v1/models lists no model") from None


async def enrich(ctx: ReproContext) -> ReproContext:
    """Fill what the signals did not give from the server itself (model, cache config).

    ``kvdoctor reproduce`` runs without a capture, so the block size, pool size and prefix
    caching flag come from ``vllm:cache_config_info`` and max_model_len from ``/v1/models``.
    """
    updates: dict[str, Any] = {}  # field name -> value, for dataclasses.replace (mixed types)
    if ctx.model is None or ctx.max_model_len is None:
        model, max_len = await discover_model(ctx, ctx.endpoint, ctx.headers)
        if ctx.model is None:
            updates["model"] = model
        if ctx.max_model_len is None and max_len is not None:
            updates["max_model_len"] = max_len
    if ctx.block_size is None or ctx.num_gpu_blocks is None or ctx.prefix_caching is None:
        metrics = MetricsClient(ctx.endpoint, ctx.headers, ctx.insecure, timeout=10.0)
        async with ctx.http_client(10.0) as client:
            got = await metrics.read_async(client)
        labels = cache_config(got.text) if got.ok and got.text is not None else {}

        def whole(key: str) -> int | None:
            try:
                return int(labels[key])
            except (KeyError, ValueError):
                return None

        if ctx.block_size is None and whole("block_size"):
            updates["block_size"] = whole("block_size")
        if ctx.num_gpu_blocks is None and whole("num_gpu_blocks"):
            updates["num_gpu_blocks"] = whole("num_gpu_blocks")
        if ctx.prefix_caching is None and labels.get("enable_prefix_caching") in ("True", "False"):
            updates["prefix_caching"] = labels["enable_prefix_caching"] == "True"
        if ctx.kv_capacity_tokens is None and whole("kv_cache_size_tokens"):
            updates["kv_capacity_tokens"] = whole("kv_cache_size_tokens")
    if ctx.reference_endpoint and ctx.reference_model is None:
        ref_model, _ = await discover_model(ctx, ctx.reference_endpoint, ctx.reference_headers)
        updates["reference_model"] = ref_model
    return replace(ctx, **updates) if updates else ctx


async def run_experiment_async(name: str, ctx: ReproContext) -> ReproducerRecord:
    exp = get_experiment(name)
    check_allowed(exp, ctx)
    if not exp.needs_reference:
        ctx = replace(ctx, reference_endpoint=None)
    return await execute(exp, await enrich(ctx))


def run_experiment(name: str, ctx: ReproContext) -> ReproducerRecord:
    """Run experiment ``name`` against ``ctx.endpoint`` (blocking)."""
    return asyncio.run(run_experiment_async(name, ctx))


def describe(name: str, ctx: ReproContext) -> JsonObject:
    """What ``name`` would send (the --dry-run plan): nothing is sent."""
    exp = get_experiment(name)
    return {
        "name": exp.name,
        "description": exp.description,
        "needs_allow_load": exp.needs_load,
        "needs_reference": exp.needs_reference,
        "causes": [str(ref) for ref in exp.causes],
        **exp.plan(ctx).model_dump(exclude_none=True),
    }
