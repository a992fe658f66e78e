"""itl-context: is decoding slowed by reading KV (long contexts), or by prefills in between?

Baseline: inter-token gaps of requests at a short context. Treatment: the same at a long
context. The effect is the ratio of the median gaps, decided by a rank-sum test over every gap
(hundreds of samples, so the noise the run saw sets what counts as a difference). With the
window's ITL and live KV tokens known, the slope per 1k tokens says how much of the window's ITL
KV reads explain. Prefill interference shows as gaps far above the median.
"""

from __future__ import annotations

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
from kvdoctor.reproducers.loadgen import LoadSpec, percentile
from kvdoctor.reproducers.stats import median, rank_sum_p, ratio
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

KV_READ_BOUND = CauseRef("slow-itl", "kv-read-bound")
PREFILL_INTERFERENCE = CauseRef("slow-itl", "prefill-interference")

OUTPUT = 64
# The long/short ratio that counts as KV-read bound, and below which it is refuted.
RATIO_CONFIRM = 1.25
RATIO_REFUTE = 1.1
P_DECIDE = 0.01


class ItlMeasured(Measured):
    short_context_tokens: int
    long_context_tokens: int
    itl_p50_short_s: float | None
    itl_p50_long_s: float | None
    itl_p99_long_s: float | None
    itl_ratio: float | None
    slope_s_per_1k_tokens: float | None
    spike_fraction: float | None
    live_kv_tokens: float | None
    window_itl_p50_s: float | None
    # Memory-bound decode model: (weights + KV at long) / (weights + KV at short) bytes per step.
    itl_ratio_memory_bound_model: float | None
    effect: Effect


def itl_lengths(ctx: ReproContext) -> tuple[int, int]:
    short = 128
    long = 4096
    if ctx.max_model_len:
        long = min(long, ctx.max_model_len - 80)
    if ctx.kv_capacity_tokens:
        long = min(long, ctx.kv_capacity_tokens // 2)
    return short, max(long, short + 1)


def spike_fraction(gaps: list[float]) -> float | None:
    """Share of inter-token gaps above three times the median gap."""
    med = percentile(gaps, 0.5)
    if not gaps or med is None or med <= 0:
        return None
    return sum(1 for g in gaps if g > 3 * med) / len(gaps)


def judge(m: ItlMeasured) -> Judgement:
    causes: dict[CauseRef, ReproducerVerdict] = {
        KV_READ_BOUND: INCONCLUSIVE,
        PREFILL_INTERFERENCE: INCONCLUSIVE,
    }
    expected = {
        "itl_ratio_memory_bound_model": m.itl_ratio_memory_bound_model,
        "itl_ratio_confirms_at_least": RATIO_CONFIRM,
    }
    s, lg = m.itl_p50_short_s, m.itl_p50_long_s
    if s is None or lg is None or s <= 0:
        return Judgement(causes, "no inter-token gaps measured", expected)
    r = lg / s
    p = m.effect.p_value
    summary = (
        f"ITL {s * 1000:.2f} ms at short context vs {lg * 1000:.2f} ms at long context (×{r:.2f}"
        + (f", p={p:.3g})" if p is not None else ")")
    )
    slope, live, window = m.slope_s_per_1k_tokens, m.live_kv_tokens, m.window_itl_p50_s
    if slope is not None and live and window:
        share = max(slope, 0.0) * live / 1000 / window
        causes[KV_READ_BOUND] = (
            CONFIRMED if share >= 0.5 else REFUTED if share < 0.2 else INCONCLUSIVE
        )
        # A share above 1 means the slope over-predicts the window (the probe's long context is
        # not the window's); say so rather than claim more than the whole ITL.
        summary += (
            "; KV reads alone predict more than the window's whole ITL"
            if share > 1
            else f"; KV reads explain {share:.0%} of the window's ITL"
        )
    elif r >= RATIO_CONFIRM and p is not None and p < P_DECIDE:
        causes[KV_READ_BOUND] = CONFIRMED
    elif r < RATIO_REFUTE:
        causes[KV_READ_BOUND] = REFUTED
    if m.spike_fraction is not None:
        if m.spike_fraction >= 0.05:
            causes[PREFILL_INTERFERENCE] = CONFIRMED
        elif m.spike_fraction < 0.02:
            causes[PREFILL_INTERFERENCE] = REFUTED
        summary += f"; {m.spike_fraction:.0%} of gaps above 3× the median"
    return Judgement(causes, summary, expected)


class ItlContext(Experiment[ItlMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["itl-context"]
    measured_model: ClassVar[type[Measured]] = ItlMeasured

    def verdict(self, measured: ItlMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        short, long = itl_lengths(ctx)
        return Plan(
            requests=4,
            concurrency=1,
            sends=f"2 requests at {short} and 2 at {long} prompt tokens, {OUTPUT} output each",
            deadline_s=180.0,
        )

    async def run(self, ctx: ReproContext, session: Session) -> ItlMeasured:
        short, long = itl_lengths(ctx)
        session.step(f"decoding at {short} tokens of context")
        rs = await session.load(
            LoadSpec(prompt_tokens=short, max_tokens=OUTPUT, requests=2, duration_s=120)
        )
        session.step(f"decoding at {long} tokens of context")
        rl = await session.load(
            LoadSpec(prompt_tokens=long, max_tokens=OUTPUT, requests=2, duration_s=120)
        )
        gs, gl = rs.itls(), rl.itls()
        s50, l50 = median(gs), median(gl)
        slope = (l50 - s50) / ((long - short) / 1000) if s50 and l50 else None
        live = None
        if ctx.running_mean and ctx.mean_prompt_len:
            live = ctx.running_mean * (ctx.mean_prompt_len + (ctx.mean_generation_len or 0) / 2)
        predicted = None
        if ctx.kv_bytes_per_token and ctx.weight_bytes:
            w, b = ctx.weight_bytes, ctx.kv_bytes_per_token
            predicted = (w + b * long) / (w + b * short)
        return ItlMeasured(
            short_context_tokens=short,
            long_context_tokens=long,
            itl_p50_short_s=rnd(s50, 6),
            itl_p50_long_s=rnd(l50, 6),
            itl_p99_long_s=rnd(percentile(gl, 0.99), 6),
            itl_ratio=rnd(ratio(l50, s50)),
            slope_s_per_1k_tokens=rnd(slope, 6),
            spike_fraction=rnd(spike_fraction(gs + gl)),
            live_kv_tokens=rnd(live, 1),
            window_itl_p50_s=ctx.itl_window_s,
            itl_ratio_memory_bound_model=rnd(predicted),
            effect=Effect(
                metric="median inter-token gap at long / at short context",
                baseline=rnd(s50, 6),
                treatment=rnd(l50, 6),
                effect=rnd(ratio(l50, s50)),
                samples_baseline=len(gs),
                samples_treatment=len(gl),
                p_value=rnd(rank_sum_p(gs, gl), 6),
            ),
        )
