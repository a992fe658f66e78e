"""memory-headroom: weights + KV pool + activations against the card's memory.

Reads the numbers the capture has (NVML, the KV pool); with ``--allow-load`` it also sends one
request at ``max_model_len``, which a pool smaller than one full sequence cannot serve. The GPU
causes are judged by the overall verdict (headroom below 5 % confirms, 10 % or more refutes);
the long request decides ``request-exceeds-kv-capacity`` on its own.
"""

from __future__ import annotations

from typing import ClassVar

from kvdoctor.experiment_catalog import EXPERIMENTS as CATALOG
from kvdoctor.experiment_catalog import ExperimentSpec
from kvdoctor.reproducers.experiments.base import (
    CauseRef,
    Experiment,
    Judgement,
    Measured,
    Plan,
    ReproContext,
    Session,
)
from kvdoctor.reproducers.loadgen import LoadSpec
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

REQUEST_EXCEEDS = CauseRef("preemption", "request-exceeds-kv-capacity")
GPU_CAUSES = (
    CauseRef("gpu-oom", "kv-pool-too-small"),
    CauseRef("gpu-oom", "other-process"),
    CauseRef("gpu-oom", "utilization-too-high"),
    CauseRef("gpu-oom", "activation-peak"),
)


class HeadroomMeasured(Measured):
    gpu_memory_total_bytes: float | None
    gpu_memory_used_bytes: float | None
    kv_cache_memory_bytes: float | None
    weight_bytes: float | None
    max_model_len: int | None
    kv_capacity_tokens: int | None
    max_len_request_ok: bool | None
    max_len_request_error: str | None
    server_budget_bytes: int | None


def judge(m: HeadroomMeasured) -> Judgement:
    causes: dict[CauseRef, ReproducerVerdict] = {REQUEST_EXCEEDS: INCONCLUSIVE}
    parts = []
    verdict: ReproducerVerdict = INCONCLUSIVE
    total, used = m.gpu_memory_total_bytes, m.gpu_memory_used_bytes
    if total and used is not None:
        free = 1.0 - used / total
        parts.append(
            f"GPU memory {used / 2**30:.1f} of {total / 2**30:.1f} GiB used ({free:.0%} headroom)"
        )
        verdict = CONFIRMED if free < 0.05 else REFUTED if free >= 0.10 else INCONCLUSIVE
    else:
        parts.append("no GPU memory numbers (no NVML on this host)")
    if m.max_len_request_ok is True:
        causes[REQUEST_EXCEEDS] = REFUTED
        parts.append("a max_model_len request completed")
    elif m.max_len_request_ok is False:
        causes[REQUEST_EXCEEDS] = CONFIRMED
        parts.append(f"a max_model_len request failed: {m.max_len_request_error}")
        verdict = CONFIRMED
    expected = (
        {} if m.server_budget_bytes is None else {"server_budget_bytes": m.server_budget_bytes}
    )
    return Judgement(causes, "; ".join(parts), expected, verdict)


class MemoryHeadroom(Experiment[HeadroomMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["memory-headroom"]
    measured_model: ClassVar[type[Measured]] = HeadroomMeasured

    def verdict(self, measured: HeadroomMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        if ctx.allow_load and ctx.max_model_len:
            return Plan(
                requests=1,
                concurrency=1,
                sends=f"1 request of {ctx.max_model_len - 8} prompt tokens, 4 output",
                deadline_s=90.0,
            )
        return Plan(
            requests=0, concurrency=0, sends="nothing (reads the numbers only)", deadline_s=10.0
        )

    async def run(self, ctx: ReproContext, session: Session) -> HeadroomMeasured:
        ok: bool | None = None
        err: str | None = None
        if ctx.allow_load and ctx.max_model_len:
            session.step(f"waiting for a {ctx.max_model_len - 8}-token request")
            # A request at max_model_len waits for ever when the pool cannot hold it: bound it.
            spec = LoadSpec(
                prompt_tokens=ctx.max_model_len - 8,
                max_tokens=4,
                requests=1,
                duration_s=60,
                stall_timeout_s=45,
            )
            res = await session.load(spec)
            ok = res.ok == 1
            err = res.first_error() or res.aborted
            session.aborted = None
        budget = None
        if ctx.gpu_memory_total_bytes and ctx.gpu_memory_utilization:
            budget = int(ctx.gpu_memory_total_bytes * ctx.gpu_memory_utilization)
        return HeadroomMeasured(
            gpu_memory_total_bytes=ctx.gpu_memory_total_bytes,
            gpu_memory_used_bytes=ctx.gpu_memory_used_bytes,
            kv_cache_memory_bytes=ctx.kv_cache_memory_bytes,
            weight_bytes=ctx.weight_bytes,
            max_model_len=ctx.max_model_len,
            kv_capacity_tokens=ctx.kv_capacity_tokens,
            max_len_request_ok=ok,
            max_len_request_error=err,
            server_budget_bytes=budget,
        )
