"""capacity-ramp: does the KV pool preempt where the KV math says it fills?

Baseline: closed-loop requests at a concurrency whose KV demand is at most half the pool; no
preemption expected. Treatment: closed-loop requests at a concurrency whose demand is about three
times the pool, held for three request lifetimes (every finished request is replaced at once);
preemption expected. Confirmed when the baseline runs clean and the treatment preempts.

Why held, and why three times: the ramp used to send exactly ``c`` requests per round. On a busy
host vLLM's front end hands them to the engine staggered, the first ones finish while the last
ones start, and the live demand never reaches the pool even at twice the predicted knee ("no
preemption up to 6 concurrent requests although the KV math predicts 2.8"). Replacing each
finished request keeps ``c`` in flight, so the demand stays near ``c`` × the mean sequence
(half-grown outputs) whatever the stagger; at three times the knee that is still well above the
pool. The server must be quiet first (running and waiting at zero), or the workload's own
preemptions would be counted; a baseline that preempts makes the run inconclusive, not confirmed.
"""

from __future__ import annotations

import asyncio
import math
from typing import ClassVar

from kvdoctor.experiment_catalog import EXPERIMENTS as CATALOG
from kvdoctor.experiment_catalog import ExperimentSpec
from kvdoctor.reproducers.experiments.base import (
    CauseRef,
    Effect,
    Experiment,
    Judgement,
    Measured,
    Plan,
    ReproContext,
    Session,
    rnd,
)
from kvdoctor.reproducers.guard import Guard, GuardLimits
from kvdoctor.reproducers.loadgen import LoadSpec
from kvdoctor.thresholds import POOL_FULL
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

KV_CAPACITY = CauseRef("preemption", "kv-capacity")
KV_ADMISSION = CauseRef("high-ttft", "kv-admission")

# Treatment demand as a multiple of the pool; baseline demand as a fraction of it.
OVERSUBSCRIBE = 3.0
UNDERSUBSCRIBE = 0.5
# Each round sends this many request lifetimes' worth of requests at its concurrency.
LIFETIMES = 3
# Without max_num_seqs, the most concurrent requests the treatment offers.
DEFAULT_CAP = 32
# Below this KV usage at the treatment's peak, the pool never filled: the run proves nothing.
FILLED = POOL_FULL
QUIET_WAIT_S = 20.0


class Round(Measured):
    concurrency: int
    requests: int
    ok: int
    failed: int
    preemptions: float
    max_kv_usage: float | None
    max_running: float | None


class RampMeasured(Measured):
    prompt_tokens: int
    output_tokens: int
    tokens_per_seq: int
    pool_blocks: float | None
    blocks_per_seq: int
    knee_predicted: float | None
    # Whether running and waiting were at zero before the baseline (the workload had drained).
    quiet_before: bool | None
    # Why no load was sent (the KV math rules the pool out), or None.
    skipped: str | None
    baseline: Round | None
    treatment: Round | None
    # The first round with preemptions (kept for readers of the older record).
    knee_concurrency: int | None
    effect: Effect


def tokens_per_seq(ctx: ReproContext) -> tuple[int, int]:
    """(prompt, output) tokens of each request: six blocks, or the workload's mean when longer."""
    block = ctx.block_size or 16
    prompt, out = 2 * block, 4 * block
    if ctx.mean_prompt_len and ctx.mean_generation_len:
        prompt = max(prompt, int(ctx.mean_prompt_len))
        out = max(out, int(ctx.mean_generation_len))
    if ctx.max_model_len:
        prompt = min(prompt, max(ctx.max_model_len // 4, 1))
        out = min(out, max(ctx.max_model_len - prompt - 8, 16))
    return prompt, out


def pool_blocks(ctx: ReproContext) -> float | None:
    if ctx.num_gpu_blocks:
        return float(ctx.num_gpu_blocks)
    if ctx.kv_capacity_tokens and ctx.block_size:
        return ctx.kv_capacity_tokens / ctx.block_size
    return None


def levels(ctx: ReproContext) -> tuple[int, int, float | None]:
    """(baseline concurrency, treatment concurrency, predicted knee)."""
    block = ctx.block_size or 16
    prompt, out = tokens_per_seq(ctx)
    per_seq = math.ceil((prompt + out) / block)
    pool = pool_blocks(ctx)
    cap = ctx.max_num_seqs or DEFAULT_CAP
    if pool is None:
        return 1, cap, None
    knee = pool / per_seq
    base = max(1, math.floor(UNDERSUBSCRIBE * knee))
    treat = max(base + 1, min(cap, math.ceil(OVERSUBSCRIBE * knee)))
    return base, treat, knee


def judge(m: RampMeasured) -> Judgement:
    """Preemption where the KV math says the pool fills, none where it says it does not (pure)."""
    expected = {
        "knee_concurrency": rnd(m.knee_predicted, 2),
        "tokens_per_seq": m.tokens_per_seq,
        "baseline_preemptions": 0,
        "treatment_preemptions": "> 0",
    }
    b, t = m.baseline, m.treatment

    def both(v: ReproducerVerdict, why: str) -> Judgement:
        return Judgement({KV_CAPACITY: v, KV_ADMISSION: v}, why, expected)

    if m.skipped:
        return both(REFUTED, m.skipped)
    knee = (
        f"; the KV math predicts the pool fills at {m.knee_predicted:.1f}"
        if m.knee_predicted
        else ""
    )
    if b is not None and b.preemptions > 0:
        if m.quiet_before is not True:
            # During the incident the server's own traffic preempts too: the ramp cannot tell
            # its effect from the traffic's, and says so with what would decide it.
            return both(
                INCONCLUSIVE,
                f"the server is not quiet: {b.preemptions:.0f} preemptions came during the "
                f"baseline's {b.concurrency} concurrent requests while its own traffic ran (it "
                f"never went idle before the ramp){knee}, so the ramp cannot separate its "
                "effect from the traffic's; confirm on a drained replica: kvdoctor reproduce "
                "capacity-ramp --endpoint <drained replica URL> --allow-load",
            )
        return both(
            INCONCLUSIVE,
            f"{b.preemptions:.0f} preemptions already at the baseline's {b.concurrency} "
            f"concurrent requests on a quiet server{knee}: the pool holds less than the KV math "
            "says, so the ramp's two levels do not bracket the knee; check the pool size in "
            "the start-up log (KV cache size) against the model's bytes per token",
        )
    if t is None:
        return both(INCONCLUSIVE, "the treatment round did not run")
    if t.preemptions > 0:
        base = f"none at {b.concurrency}, " if b is not None else ""
        return both(
            CONFIRMED,
            f"preemptions: {base}{t.preemptions:.0f} at {t.concurrency} concurrent requests "
            f"of {m.tokens_per_seq} tokens{knee}",
        )
    usage = t.max_kv_usage
    if usage is None or usage < FILLED:
        return both(
            INCONCLUSIVE,
            f"the pool never filled at {t.concurrency} concurrent requests (KV usage peaked at "
            f"{'n/a' if usage is None else f'{usage:.0%}'}, at most {t.max_running or 0:.0f} "
            f"running){knee}",
        )
    return both(
        REFUTED,
        f"the pool filled ({usage:.0%}) at {t.concurrency} concurrent requests without a "
        f"preemption{knee}",
    )


class CapacityRamp(Experiment[RampMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["capacity-ramp"]
    measured_model: ClassVar[type[Measured]] = RampMeasured

    def verdict(self, measured: RampMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        prompt, out = tokens_per_seq(ctx)
        base, treat, _ = levels(ctx)
        skipped = self._skip(ctx)
        if skipped:
            return Plan(requests=0, concurrency=0, sends=f"nothing: {skipped}", deadline_s=30.0)
        return Plan(
            requests=LIFETIMES * (base + treat),
            concurrency=treat,
            levels=[base, treat],
            sends=(
                f"{LIFETIMES * base} requests held at {base} concurrent, then "
                f"{LIFETIMES * treat} held at {treat}, {prompt} in / {out} out tokens; stops "
                "at the first preemption"
            ),
            deadline_s=240.0,
        )

    @staticmethod
    def _skip(ctx: ReproContext) -> str | None:
        _, _, knee = levels(ctx)
        if knee is not None and ctx.max_num_seqs and ctx.max_num_seqs <= UNDERSUBSCRIBE * knee:
            return (
                f"max_num_seqs {ctx.max_num_seqs} admits at most "
                f"{ctx.max_num_seqs / knee:.0%} of what the KV pool holds: it cannot fill"
            )
        return None

    async def run(self, ctx: ReproContext, session: Session) -> RampMeasured:
        prompt, out = tokens_per_seq(ctx)
        block = ctx.block_size or 16
        base, treat, knee = levels(ctx)
        per_seq = math.ceil((prompt + out) / block)
        skipped = self._skip(ctx)
        baseline = treatment = None
        quiet = None
        if skipped is None:
            session.step("waiting for the server to drain (running and waiting at zero)")
            quiet = await self._wait_quiet(session)
            session.step(f"baseline round at {base} concurrent requests")
            baseline = await self._round(session, base, prompt, out)
            if baseline.preemptions == 0:
                session.step(f"treatment round at {treat} concurrent requests")
                treatment = await self._round(session, treat, prompt, out)
        first = next((r.concurrency for r in (baseline, treatment) if r and r.preemptions), None)
        return RampMeasured(
            prompt_tokens=prompt,
            output_tokens=out,
            tokens_per_seq=prompt + out,
            pool_blocks=pool_blocks(ctx),
            blocks_per_seq=per_seq,
            knee_predicted=rnd(knee, 2),
            quiet_before=quiet,
            skipped=skipped,
            baseline=baseline,
            treatment=treatment,
            knee_concurrency=first,
            effect=Effect(
                metric="preemptions per request sent",
                baseline=rnd(baseline.preemptions / baseline.requests) if baseline else None,
                treatment=rnd(treatment.preemptions / treatment.requests) if treatment else None,
                effect=(
                    rnd(treatment.preemptions - baseline.preemptions)
                    if baseline and treatment
                    else None
                ),
                samples_baseline=baseline.requests if baseline else 0,
                samples_treatment=treatment.requests if treatment else 0,
            ),
        )

    @staticmethod
    async def _wait_quiet(session: Session) -> bool | None:
        waited = 0.0
        while True:
            snap = await session.scrape()
            if snap is None:
                return None
            busy = (snap.get("running") or 0.0) + (snap.get("waiting") or 0.0)
            if busy == 0:
                return True
            if waited >= min(QUIET_WAIT_S, session.remaining() / 4):
                return False
            await asyncio.sleep(0.5)
            waited += 0.5

    @staticmethod
    async def _round(session: Session, c: int, prompt: int, out: int) -> Round:
        # Stop at the first preemption: that answers the round, and spares the server the rest.
        # No background allowance: the ramp waits for a quiet server first, and a preemption
        # during the round is the very thing it measures.
        guard = Guard(
            GuardLimits(
                max_kv_usage=1.01,
                max_new_preemptions=0,
                interval_s=0.25,
                background_preemptions_per_s=0.0,
            )
        )
        spec = LoadSpec(
            prompt_tokens=prompt,
            max_tokens=out,
            requests=LIFETIMES * c,
            concurrency=c,
            duration_s=90,
        )
        res = await session.load(spec, guard)
        pre = guard.new_preemptions or 0.0
        if pre > 0:
            session.aborted = None  # stopping at a preemption is the experiment, not an abort
        return Round(
            concurrency=c,
            requests=res.sent,
            ok=res.ok,
            failed=res.failed,
            preemptions=pre,
            max_kv_usage=rnd(guard.max_kv_usage),
            max_running=guard.max_running,
        )
