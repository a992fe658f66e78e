"""prefix-probe: does the prefix cache serve repeats, and does the workload evict what it cached?

Baseline: a multi-block prompt repeated at once must hit all its whole blocks (the cache works).
Treatment: the same prompt repeated after the workload has turned the KV pool over once (new,
uncached prompt tokens equal to the pool's capacity), or after the wait budget when it would take
far longer. A prefix that the baseline hits and the treatment misses was evicted by the
workload's own traffic: eviction churn. When vLLM exposes its block-residency histograms
(0.32 with ``--kv-cache-metrics``), they decide churn directly: blocks evicted after idling for
less time than blocks are typically reused after would have been reused.

A probe that only shows the cache works refutes "caching disabled"; it confirms neither drift nor
eviction by itself. Drift (the workload's prompts differ early) is invisible to a probe: it is
confirmed only when the cache works, the window's hit rate is near zero, and eviction and a
too-short shared prefix have both been ruled out by measurements.
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from kvdoctor.errors import KvdoctorError
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
from kvdoctor.reproducers.loadgen import LoadResult, LoadSpec
from kvdoctor.reproducers.metrics import Histogram, Snapshot
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

CACHING_DISABLED = CauseRef("prefix-miss", "caching-disabled")
BLOCK_LARGER = CauseRef("prefix-miss", "block-larger-than-prefix")
DRIFT = CauseRef("prefix-miss", "prefix-drift")
EVICTION = CauseRef("prefix-miss", "eviction-churn")
SPLIT = CauseRef("prefix-miss", "adapter-or-salt-split")
NOT_CACHING = CauseRef("prefix-miss", "engine-not-caching")

# Stop waiting for a turnover once the workload's rate says it would take this many times the
# wait budget: the answer (the prefix survives that long) will not change.
_HOPELESS = 10.0
# Residency histograms need this many sampled evictions before they speak for the pool.
MIN_EVICTIONS = 8


class PrefixMeasured(Measured):
    prompt_tokens: int
    block_size: int
    repeat_hit_tokens: float | None
    first_token_changed_hit_tokens: float | None
    late_repeat_hit_tokens: float | None
    late_repeat_after_s: float | None
    shared_prefix_tokens: int | None
    shared_prefix_hit_tokens: float | None
    # Uncached prompt tokens the workload sent between the first probe and the late repeat.
    turnover_tokens: float | None
    pool_tokens: int | None
    turnover_fraction: float | None
    # Sampled evictions and residency times over the probe (None: histograms not exposed).
    evictions: float | None
    idle_before_evict_p50_s: float | None
    reuse_gap_p90_s: float | None
    window_hit_rate: float | None
    prefix_caching: bool | None
    effect: Effect
    # The operator's own prompts replayed (--prompts): the first one twice (does the cache
    # serve this exact text under its salt?), then the second (what does it reuse of the
    # first?). Lengths and hit counts only; what the sample showed (its pattern) beside them.
    sample_pattern: str | None = None
    user_repeat_hit_tokens: float | None = None
    user_next_hit_tokens: float | None = None
    # Why the immediate repeat got no answer (the guard stopped it, the server refused it):
    # its hit count is then unknown for that reason, not for want of a counter.
    repeat_error: str | None = None


def probe_lengths(ctx: ReproContext) -> tuple[int, int | None]:
    """(probe prompt length, workload prefix length to test or None)."""
    block = ctx.block_size or 16
    length = 3 * block + block // 2
    if ctx.max_model_len:
        length = min(length, ctx.max_model_len - 8)
    shared = ctx.shared_prefix_tokens
    if shared is None and ctx.mean_prompt_len is not None:
        shared = int(ctx.mean_prompt_len)
    if shared is not None:
        shared = max(1, min(shared, length))
    return length, shared


def expected_hit(length: int, block: int) -> int:
    """Tokens a repeat of a ``length``-token prompt hits: whole blocks, never the last token."""
    return ((length - 1) // block) * block


def _eviction(m: PrefixMeasured, want: int) -> tuple[ReproducerVerdict, str]:
    """Eviction churn from residency histograms when they have enough evictions, else turnover."""
    if m.evictions is not None and m.reuse_gap_p90_s is not None:
        if m.evictions == 0 and m.turnover_fraction is not None and m.turnover_fraction >= 1:
            return REFUTED, "the pool turned over without one sampled eviction"
        if m.evictions >= MIN_EVICTIONS and m.idle_before_evict_p50_s is not None:
            if m.idle_before_evict_p50_s <= m.reuse_gap_p90_s:
                return CONFIRMED, (
                    f"{m.evictions:.0f} sampled evictions after idling "
                    f"{m.idle_before_evict_p50_s:.2f} s (p50), within the "
                    f"{m.reuse_gap_p90_s:.2f} s (p90) after which blocks are reused"
                )
            return REFUTED, (
                f"evicted blocks had idled {m.idle_before_evict_p50_s:.2f} s (p50), longer than "
                f"blocks are reused after ({m.reuse_gap_p90_s:.2f} s p90)"
            )
    late = m.late_repeat_hit_tokens
    if late is None or m.late_repeat_after_s is None:
        return INCONCLUSIVE, "no late repeat"
    turned = (
        f"{m.turnover_fraction:.0%} of the pool turned over"
        if m.turnover_fraction is not None
        else "pool size unknown"
    )
    if m.evictions and m.idle_before_evict_p50_s is not None and m.reuse_gap_p90_s is None:
        # Residency histograms without a single reuse: they cannot say what reuse would have
        # needed, so the late repeat decides; their numbers still go into the summary.
        turned += (
            f"; {m.evictions:.0f} sampled evictions after {m.idle_before_evict_p50_s:.2f} s idle "
            "(p50), no block reused"
        )
    if late < 0.5 * want:
        return CONFIRMED, (
            f"the workload evicted the probe's prefix within {m.late_repeat_after_s:.1f} s "
            f"({turned}; late repeat hit {late:.0f} of {want})"
        )
    return REFUTED, (
        f"the probe's prefix survived {m.late_repeat_after_s:.1f} s of the workload ({turned})"
    )


def judge(m: PrefixMeasured) -> Judgement:
    """Per-cause verdicts of the prefix-probe (pure)."""
    want = expected_hit(m.prompt_tokens, m.block_size)
    causes: dict[CauseRef, ReproducerVerdict] = {
        CACHING_DISABLED: INCONCLUSIVE,
        BLOCK_LARGER: INCONCLUSIVE,
        DRIFT: INCONCLUSIVE,
        EVICTION: INCONCLUSIVE,
        SPLIT: INCONCLUSIVE,
        NOT_CACHING: INCONCLUSIVE,
    }
    expected = {
        "repeat_hit_tokens": want,
        "first_token_changed_hit_tokens": 0,
        "shared_prefix_hit_tokens": (
            None
            if m.shared_prefix_tokens is None
            else expected_hit(m.shared_prefix_tokens + 1, m.block_size)
        ),
        "block_size": m.block_size,
    }
    hits = m.repeat_hit_tokens
    if hits is None:
        why = (
            f"the immediate repeat did not complete ({m.repeat_error})"
            if m.repeat_error
            else "no prefix-cache hit counter and no cached_tokens in usage"
        )
        return Judgement(causes, f"{why}: cannot tell", expected)
    if want == 0 or hits < 0.5 * want:
        # An exact repeat of a several-block prompt missed: the cache does not serve repeats, so
        # neither a short shared prefix nor drift is the explanation.
        causes[BLOCK_LARGER] = REFUTED
        causes[DRIFT] = REFUTED
        causes[SPLIT] = REFUTED
        if m.prefix_caching is True:
            # Configured on yet not serving: lost at once. Eviction is still judged on evidence.
            verdict, why = _eviction(m, want)
            # Both repeats missing proves eviction only if something could evict: the pool
            # turned over, or the residency histograms saw the evictions. (A model whose cache
            # is on but unusable misses both repeats too.)
            churned = (m.turnover_fraction or 0.0) >= 1.0 or (m.evictions or 0.0) >= MIN_EVICTIONS
            if verdict == CONFIRMED and churned:
                causes[EVICTION] = CONFIRMED
                causes[CACHING_DISABLED] = REFUTED  # on, and measured evictions explain the miss
                causes[NOT_CACHING] = REFUTED
            elif want > 0 and m.turnover_fraction is not None and not churned:
                # Sent twice in a row, nothing could evict it between, and it still missed:
                # the engine holds the blocks and does not reuse them.
                causes[NOT_CACHING] = CONFIRMED
                causes[EVICTION] = REFUTED
                causes[CACHING_DISABLED] = REFUTED  # configured on
            return Judgement(
                causes,
                f"exact repeat of a {m.prompt_tokens}-token prompt hit {hits:.0f} of {want} "
                f"tokens although caching is on; {why}",
                expected,
            )
        causes[CACHING_DISABLED] = CONFIRMED
        if m.prefix_caching is False:
            causes[NOT_CACHING] = REFUTED  # configured off: nothing for the engine to reuse
        return Judgement(
            causes,
            f"exact repeat of a {m.prompt_tokens}-token prompt hit {hits:.0f} of {want} tokens: "
            "prefix caching is not working",
            expected,
        )
    causes[CACHING_DISABLED] = REFUTED
    causes[NOT_CACHING] = REFUTED  # an exact repeat hit: the engine reuses what it holds
    causes[EVICTION], evict_why = _eviction(m, want)
    shared, hits_shared = m.shared_prefix_tokens, m.shared_prefix_hit_tokens
    if shared is not None and hits_shared is not None:
        shared_want = expected_hit(shared + 1, m.block_size)
        if hits_shared == 0 and shared_want == 0:
            causes[BLOCK_LARGER] = CONFIRMED
        elif hits_shared > 0:
            causes[BLOCK_LARGER] = REFUTED
        elif causes[EVICTION] != CONFIRMED:
            # The workload-length probe is the probe's own text cut to that length (the same
            # seed): seconds after the repeat hit in full, its whole blocks missed. Nothing
            # but the workload ran in between, so the workload evicted them (dev draw 1001-7).
            causes[BLOCK_LARGER] = REFUTED
            causes[EVICTION] = CONFIRMED
            evict_why = (
                f"the probe's own first {shared} tokens, sent again seconds after a full hit, "
                f"hit 0 of {shared_want}: the workload evicted them in between"
            )
    elif shared is not None and shared >= m.block_size:
        causes[BLOCK_LARGER] = REFUTED
    changed = m.first_token_changed_hit_tokens
    rate = m.window_hit_rate
    if changed is not None and changed > 0:
        # The cache matched although the first token differed: not a prefix cache as modelled.
        causes[DRIFT] = INCONCLUSIVE
    elif CONFIRMED in (causes[EVICTION], causes[BLOCK_LARGER]):
        causes[DRIFT] = REFUTED  # a measured mechanism already explains the misses
    elif rate is not None and rate >= 0.05:
        causes[DRIFT] = REFUTED
    elif rate is not None and causes[EVICTION] == REFUTED and causes[BLOCK_LARGER] == REFUTED:
        # By elimination, and only then: the cache works, nothing evicts the workload's blocks,
        # its shared prefix spans whole blocks, and still the window hits nothing.
        causes[DRIFT] = CONFIRMED
    summary = (
        f"repeat hit {hits:.0f}/{want} tokens (the cache works); first token changed: "
        f"{_fmt(changed)}; {evict_why}"
    )
    if shared is not None:
        summary += f"; a {shared}-token shared prefix hit {_fmt(hits_shared)}"
    if causes[DRIFT] == CONFIRMED:
        summary += "; eviction and a short prefix ruled out, the window hits nothing: drift"
    summary += _user_prompts(m, causes)
    return Judgement(causes, summary, expected)


# The mechanism the operator's prompt sample showed, and the cause the replay then tests.
_SAMPLE_CAUSE = {"drift": DRIFT, "identity-split": SPLIT, "sub-block": BLOCK_LARGER}


def _user_prompts(m: PrefixMeasured, causes: dict[CauseRef, ReproducerVerdict]) -> str:
    """The replay of two of the operator's prompts decides the mechanism their sample showed:
    the first, repeated, must hit (the cache serves this text under its salt); the second then
    reuses nothing of it when they drift, differ in adapter or salt, or share less than a block.
    """
    rep, nxt = m.user_repeat_hit_tokens, m.user_next_hit_tokens
    if rep is None or nxt is None:
        return ""
    text = f"; two of the operator's prompts: a repeat hit {rep:.0f} tokens, the next {nxt:.0f}"
    cause = _SAMPLE_CAUSE.get(m.sample_pattern or "")
    if rep <= 0 or cause is None:
        return text
    if nxt <= 0:
        causes[cause] = CONFIRMED
        # The cache served the repeat at once: the miss is the prompts', not eviction's.
        if causes[EVICTION] != CONFIRMED:
            causes[EVICTION] = REFUTED
        for other in _SAMPLE_CAUSE.values():
            if other != cause and causes[other] != CONFIRMED:
                causes[other] = REFUTED
        return text + f" (the sample's {m.sample_pattern} confirmed on the server)"
    causes[cause] = REFUTED
    return text + f" (the next prompt reused the first: not {m.sample_pattern})"


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0f}"


def _hits(res: LoadResult, before: Snapshot | None, after: Snapshot | None) -> float | None:
    """Hit tokens of a one-request run: ``cached_tokens`` from usage, else the counter delta."""
    ok = res.ok_requests()
    if ok and ok[0].cached_tokens is not None:
        return float(ok[0].cached_tokens)
    if before is None or after is None or not ok:
        return None
    return after.delta(before, "prefix_hits")


def _new_tokens(first: Snapshot | None, now: Snapshot | None) -> float | None:
    """Prompt tokens that needed new KV blocks since ``first`` (prompt tokens minus hits)."""
    if first is None or now is None:
        return None
    prompt = now.delta(first, "prompt_tokens")
    if prompt is None:
        return None
    return max(prompt - (now.delta(first, "prefix_hits") or 0.0), 0.0)


def _residency(
    first: Snapshot | None, last: Snapshot | None
) -> tuple[float | None, float | None, float | None]:
    if first is None or last is None:
        return None, None, None
    idle = last.hist_delta(first, "block_idle_before_evict")
    gap = last.hist_delta(first, "block_reuse_gap")
    if idle is None or gap is None:
        return None, None, None

    def q(h: Histogram, p: float) -> float | None:
        return h.quantile(p) if h.count > 0 else None

    return idle.count, q(idle, 0.5), q(gap, 0.9)


class PrefixProbe(Experiment[PrefixMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["prefix-probe"]
    measured_model: ClassVar[type[Measured]] = PrefixMeasured

    def verdict(self, measured: PrefixMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        length, shared = probe_lengths(ctx)
        n = 4 + (1 if shared is not None else 0)
        return Plan(
            requests=n,
            concurrency=1,
            sends=(
                f"{n} sequential requests of ≤{length} prompt tokens, 1 output token each; the "
                "last after the workload turns the KV pool over "
                f"(at most {ctx.turnover_wait_s:g} s)"
            ),
            deadline_s=ctx.turnover_wait_s + 90.0,
        )

    async def run(self, ctx: ReproContext, session: Session) -> PrefixMeasured:
        block = ctx.block_size or 16
        length, shared = probe_lengths(ctx)
        base = LoadSpec(
            prompt_tokens=length,
            max_tokens=1,
            requests=1,
            prefix="shared",
            shared_prefix_tokens=length,
            seed=int(time.time() * 1000) % (2**31),
            duration_s=60,
        )

        async def one(spec: LoadSpec) -> tuple[LoadResult, float | None]:
            before = await session.scrape()
            res = await session.load(spec)
            after = await session.scrape()
            return res, _hits(res, before, after)

        session.step("sending the first probe")
        first = await session.scrape()
        r1, _ = await one(base)
        if not r1.ok_requests():
            raise KvdoctorError(f"prefix-probe: the first probe failed: {r1.first_error()}")
        session.step("repeating the probe at once")
        r2, hits_repeat = await one(base)
        session.step("sending the probe with its first token changed")
        _, hits_changed = await one(base.model_copy(update={"perturb_at": 0}))
        hits_shared = None
        if shared is not None:
            session.step("sending the workload-length shared prefix")
            spec = base.model_copy(update={"prompt_tokens": shared, "shared_prefix_tokens": shared})
            _, hits_shared = await one(spec)
        pool = ctx.kv_capacity_tokens or (
            ctx.num_gpu_blocks * block if ctx.num_gpu_blocks and ctx.block_size else None
        )
        turnover = None
        broken = hits_repeat is not None and hits_repeat < 0.5 * expected_hit(length, block)
        # The probe's blocks were last used by the request just sent (the workload-length
        # probe is the same text, so a hit re-caches them; vLLM frees a request's cached
        # blocks to the tail of its LRU free queue). Eviction exposure counts from here: a
        # turnover counted from the first probe (seconds earlier) included traffic that came
        # before that last use and ended the wait at once (dev draw 1001-7: "survived 0.7 s",
        # "144 % of the pool turned over").
        exposed_from = await session.scrape()
        exposed_at = time.monotonic()
        if not (broken and ctx.prefix_caching is not True):
            # A cache that does not serve an immediate repeat has nothing to evict: no wait.
            session.step("waiting for the workload to turn the KV pool over")
            turnover = await self._wait_turnover(ctx, session, exposed_from, pool, exposed_at)
        session.step("repeating the probe after the turnover")
        _, hits_late = await one(base)
        user_repeat = user_next = None
        if len(ctx.sample_prompts) >= 2:
            session.step("replaying two of the operator's prompts")
            (a, salt_a), (b, salt_b) = ctx.sample_prompts[0], ctx.sample_prompts[1]
            await session.complete_once(a, salt_a)
            user_repeat = await session.complete_once(a, salt_a)
            user_next = await session.complete_once(b, salt_b)
        late_after = time.monotonic() - exposed_at
        last = await session.scrape()
        if ctx.block_size is None and hits_repeat:
            # The block size in effect, from the repeat when the signals did not say.
            block = int(hits_repeat) // max((length - 1) // 16, 1) or block
        evictions, idle_p50, gap_p90 = _residency(first, last)
        fraction = turnover / pool if turnover is not None and pool else None
        return PrefixMeasured(
            prompt_tokens=length,
            block_size=block,
            repeat_hit_tokens=hits_repeat,
            first_token_changed_hit_tokens=hits_changed,
            late_repeat_hit_tokens=hits_late,
            late_repeat_after_s=rnd(late_after, 2),
            shared_prefix_tokens=shared,
            shared_prefix_hit_tokens=hits_shared,
            turnover_tokens=turnover,
            pool_tokens=pool,
            turnover_fraction=rnd(fraction, 3),
            evictions=evictions,
            idle_before_evict_p50_s=rnd(idle_p50),
            reuse_gap_p90_s=rnd(gap_p90),
            window_hit_rate=ctx.prefix_hit_rate,
            prefix_caching=ctx.prefix_caching,
            sample_pattern=ctx.sample_pattern,
            user_repeat_hit_tokens=user_repeat,
            user_next_hit_tokens=user_next,
            repeat_error=None if r2.ok_requests() else r2.first_error(),
            effect=Effect(
                metric="prefix hit tokens: repeat after the turnover / repeat at once",
                baseline=hits_repeat,
                treatment=hits_late,
                effect=rnd(hits_late / hits_repeat)
                if hits_late is not None and hits_repeat
                else None,
                samples_baseline=1 if hits_repeat is not None else 0,
                samples_treatment=1 if hits_late is not None else 0,
            ),
        )

    async def _wait_turnover(
        self,
        ctx: ReproContext,
        session: Session,
        first: Snapshot | None,
        pool: int | None,
        since: float,
    ) -> float | None:
        """Wait until the workload sent a pool's worth of new prompt tokens, or the budget ends.

        Sends nothing: the workload's own traffic is the treatment. Stops early when the rate
        seen says a turnover would take far longer than the budget.
        """
        budget = min(ctx.turnover_wait_s, max(session.remaining() - 30.0, 0.0))
        new: float | None = None
        while True:
            waited = time.monotonic() - since
            new = _new_tokens(first, await session.scrape())
            if pool is None or new is None:
                if waited >= min(budget, 5.0):
                    return new
            elif new >= pool:
                return new
            elif waited >= 5.0:
                rate = new / waited
                if rate <= 0 or pool / rate > _HOPELESS * budget:
                    return new
            if waited >= budget:
                return new
            await asyncio.sleep(1.0)
