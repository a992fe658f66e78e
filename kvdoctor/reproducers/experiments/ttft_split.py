"""ttft-split: is the wait for the first token queueing, or prefill compute?

No absolute bar: the server's own histograms split its time to first token, over the probe's
interval, into queue time and prefill time (deltas of ``vllm:request_queue_time_seconds`` and
``vllm:request_prefill_time_seconds``, which count the workload's requests as well as the
probes). A queue share of one half or more confirms queueing whatever the absolute TTFT is; a
queue share of a fifth or less refutes it.

When the queue is ruled out, short and workload-length probes, interleaved, tell prefill compute
apart: the baseline is a one-block prompt, the treatment the workload's prompt length. TTFT that
grows with the prompt (a rank-sum test on the two sets, more rounds while the noise leaves it
open) is prefill compute.

Head-of-line blocking is tested on its mechanism, with ``--allow-load`` only (it sends the
workload's long prompt): a short probe sent while the probe's own long prompt (the workload's
90th-percentile length) is being prefilled. Baseline: the quickest first token any probe got
(a short prompt costs no more than that when nothing blocks it; the short probes' own TTFT is
no baseline on such a server, they too land behind the workload's long prefills: dev draw
1000-6, 32-token probes 0.75 s, 2,048-token probes 0.15 s); treatment: the short probe's TTFT
behind the long prefill. A server that prefills a long prompt in one step makes the short one
wait for most of it (confirmed: at least 30 % of the long prompt's own wait beyond the
baseline, which must be 0.1 s or more); one that bounds a prompt's share of each step
(``--long-prefill-token-threshold``) lets the short one in at the next step (refuted: under a
tenth). Chunking alone does not: in vLLM
v1 a partial prefill takes each step's whole remaining budget and newcomers queue (the lab, at a
512-token budget: 98 % of an 8,000-token prefill).
vLLM's queue-time histogram does not see this wait (the short request reaches the scheduler
after the step), so the queue share cannot.
Without the trial, TTFT that follows the prompt's own length refutes head-of-line blocking.
"""

from __future__ import annotations

import asyncio
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
from kvdoctor.reproducers.loadgen import LoadResult, LoadSpec
from kvdoctor.reproducers.metrics import Snapshot
from kvdoctor.reproducers.stats import median, rank_sum_p, ratio
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

QUEUEING = CauseRef("high-ttft", "queueing")
PREFILL_BOUND = CauseRef("high-ttft", "prefill-bound")
LONG_PREFILL_HOL = CauseRef("high-ttft", "long-prefill-hol")

# Queue share of the server's TTFT (queue / (queue + prefill)) that decides queueing.
QUEUE_CONFIRM = 0.5
QUEUE_REFUTE = 0.2
# Requests the server's histograms must have counted over the probe before their split counts.
MIN_SERVER_REQUESTS = 4
# Workload-length TTFT at least this multiple of the one-block TTFT, significant at P_DECIDE.
LENGTH_EFFECT = 1.5
P_DECIDE = 0.05
# Probes per round (each of short and long) and the most rounds the noise may ask for.
PER_ROUND = 4
MAX_ROUNDS = 3
# Head-of-line trial: the short probe must wait for a good part of the long prefill (30 %;
# sent at a random point of it) to confirm, under a tenth refutes; the long prefill must last
# 0.1 s beyond the quickest probe to block anything noticeable. Trials, attempts, and the least
# the long prompt must exceed the workload-length probe by for the trial to test a tail.
HOL_MIN_BLOCK_S = 0.1
HOL_WAITED_CONFIRM = 0.3
HOL_WAITED_REFUTE = 0.1
HOL_TRIALS = 3
HOL_ATTEMPTS = 2 * HOL_TRIALS
HOL_MIN_TAIL = 2.0


class TtftMeasured(Measured):
    prompt_tokens: int
    short_prompt_tokens: int
    probes_ok: int
    rounds: int
    client_ttft_p50_s: float | None
    client_ttft_short_p50_s: float | None
    client_ttft_max_s: float | None
    server_requests: float | None
    server_ttft_mean_s: float | None
    server_queue_time_mean_s: float | None
    server_prefill_time_mean_s: float | None
    queue_share: float | None
    # Baseline: the server's prefill time per request; treatment: its queue time per request.
    queue_effect: Effect
    # Baseline: TTFT of one-block probes; treatment: TTFT at the workload's prompt length.
    length_effect: Effect
    # Head-of-line trial (with --allow-load): the long prompt's length and own TTFT, and the
    # short probes' TTFT alone (baseline) vs sent during that long prefill (treatment).
    hol_long_prompt_tokens: int | None = None
    hol_long_ttft_p50_s: float | None = None
    hol_effect: Effect | None = None
    # (short behind − baseline) / (long's own TTFT − baseline): how much of the long prefill
    # the short probe waited for.
    hol_waited_fraction: float | None = None


def _during_prefill(long: LoadResult, short: LoadResult) -> int:
    """0: the short request started during the long one's prefill; -1: before it; 1: after."""
    lo = long.ok_requests()
    so = short.ok_requests()
    if not lo or not so or long.started_at_s is None or short.started_at_s is None:
        return 1
    lr, sr = lo[0], so[0]
    if lr.ttft_s is None:
        return 1
    l_start = long.started_at_s + lr.start_s
    s_start = short.started_at_s + sr.start_s
    if s_start <= l_start:
        return -1
    return 0 if s_start < l_start + lr.ttft_s else 1


def lengths(ctx: ReproContext) -> tuple[int, int]:
    """(short, workload-length) probe prompts in tokens."""
    short = max(8, min(ctx.block_size or 16, 32))
    n = int(ctx.mean_prompt_len) if ctx.mean_prompt_len else 512
    n = max(8 * short, min(n, 2048))
    if ctx.max_model_len:
        n = min(n, ctx.max_model_len - 16)
    return short, max(n, short + 1)


def hol_length(ctx: ReproContext) -> int | None:
    """The long prompt of the head-of-line trial, or None when there is no tail to test."""
    if not ctx.allow_load or ctx.prompt_len_p90 is None:
        return None
    _, long = lengths(ctx)
    n = int(ctx.prompt_len_p90)
    if ctx.max_model_len:
        n = min(n, ctx.max_model_len - 16)
    return n if n >= HOL_MIN_TAIL * long else None


def _hol_verdict(m: TtftMeasured) -> ReproducerVerdict:
    e, waited = m.hol_effect, m.hol_waited_fraction
    if e is None or e.effect is None or e.samples_treatment < 2 or e.baseline is None:
        return INCONCLUSIVE
    # The long prompt must take long enough to block anything a person notices: its own TTFT
    # at least 0.1 s over the baseline (the perception floor of the TTFT detector). Not a
    # multiple of the baseline: where the workload's own long prefills hold the engine, every
    # probe lands behind one and the quickest is slow too (CI: quickest probe 0.4 s, the short
    # probe waited 98 % of the long prefill, ×2.4).
    if m.hol_long_ttft_p50_s is None or m.hol_long_ttft_p50_s - e.baseline < HOL_MIN_BLOCK_S:
        return INCONCLUSIVE
    if waited is None:
        return INCONCLUSIVE
    if waited >= HOL_WAITED_CONFIRM:
        return CONFIRMED
    if waited < HOL_WAITED_REFUTE:
        return REFUTED
    return INCONCLUSIVE


def _queue_verdict(m: TtftMeasured) -> ReproducerVerdict:
    share, n = m.queue_share, m.server_requests
    if share is None or n is None or n < MIN_SERVER_REQUESTS:
        return INCONCLUSIVE
    if share >= QUEUE_CONFIRM:
        return CONFIRMED
    if share <= QUEUE_REFUTE:
        return REFUTED
    return INCONCLUSIVE


def _length_decided(m: TtftMeasured) -> bool:
    e = m.length_effect
    return e.p_value is not None and e.p_value < P_DECIDE


def judge(m: TtftMeasured) -> Judgement:
    """Queueing, prefill compute or head-of-line? (pure)"""
    causes: dict[CauseRef, ReproducerVerdict] = {
        QUEUEING: INCONCLUSIVE,
        PREFILL_BOUND: INCONCLUSIVE,
        LONG_PREFILL_HOL: INCONCLUSIVE,
    }
    expected = {
        "queue_share_confirms_at_least": QUEUE_CONFIRM,
        "queue_share_refutes_at_most": QUEUE_REFUTE,
        "length_effect_at_least": LENGTH_EFFECT,
    }
    if m.client_ttft_p50_s is None:
        return Judgement(causes, "no probe got a first token", expected, INCONCLUSIVE)
    queue = _queue_verdict(m)
    causes[QUEUEING] = queue
    parts = [f"probe TTFT p50 {m.client_ttft_p50_s:.3f} s at {m.prompt_tokens} tokens"]
    if m.queue_share is None:
        parts.append("the server's queue/prefill histograms are missing: the wait cannot be split")
    else:
        parts.append(
            f"server queue {m.server_queue_time_mean_s or 0:.3f} s vs prefill "
            f"{m.server_prefill_time_mean_s or 0:.3f} s per request over "
            f"{m.server_requests or 0:.0f} requests ({m.queue_share:.1%} queueing)"
        )
    hol = _hol_verdict(m)
    if m.hol_effect is not None and m.hol_effect.effect is not None:
        waited = m.hol_waited_fraction
        parts.append(
            f"a {m.short_prompt_tokens}-token probe sent during a {m.hol_long_prompt_tokens}-token "
            f"prefill waited ×{m.hol_effect.effect:.1f} the quickest probe's TTFT"
            + (f", {waited:.0%} of that prefill" if waited is not None else "")
            + f" ({m.hol_effect.samples_treatment} trials)"
        )
    if queue == CONFIRMED:
        causes[PREFILL_BOUND] = REFUTED
    elif queue == REFUTED:
        grows = m.length_effect.effect
        if _length_decided(m) and grows is not None and grows >= LENGTH_EFFECT:
            # TTFT follows the prompt's own length: prefill compute, and short requests are not
            # held behind other requests' prefills.
            causes[PREFILL_BOUND] = CONFIRMED
            if m.hol_effect is None:
                causes[LONG_PREFILL_HOL] = REFUTED
        if grows is not None:
            p = m.length_effect.p_value
            parts.append(
                f"TTFT ×{grows:.2f} from {m.short_prompt_tokens} to {m.prompt_tokens} prompt "
                f"tokens (p={p:.3f})"
                if p is not None
                else f"TTFT ×{grows:.2f} from {m.short_prompt_tokens} to {m.prompt_tokens} tokens"
            )
    if hol != INCONCLUSIVE:
        # Measured on its mechanism, the trial decides head-of-line blocking alone.
        causes[LONG_PREFILL_HOL] = hol
    # The experiment's hypothesis is "the first token waits" (queueing or head-of-line): the
    # headline follows those two, not prefill-bound, which a healthy server also shows.
    headline: ReproducerVerdict = INCONCLUSIVE
    if CONFIRMED in (causes[QUEUEING], causes[LONG_PREFILL_HOL]):
        headline = CONFIRMED
    elif causes[QUEUEING] == REFUTED:
        headline = REFUTED
    return Judgement(causes, "; ".join(parts), expected, headline)


def _server_split(
    first: Snapshot | None, last: Snapshot | None
) -> tuple[float | None, float | None, float | None, float | None]:
    """(requests counted, mean queue, mean prefill, mean TTFT) over the probe's interval."""
    if first is None or last is None:
        return None, None, None, None
    qh, ph, th = (last.hist_delta(first, n) for n in ("queue_time", "prefill_time", "ttft"))
    n = qh.count if qh is not None else None
    return (
        n,
        qh.mean if qh else None,
        ph.mean if ph else None,
        th.mean if th else None,
    )


class TtftSplit(Experiment[TtftMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["ttft-split"]
    measured_model: ClassVar[type[Measured]] = TtftMeasured

    def verdict(self, measured: TtftMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        short, long = lengths(ctx)
        most = 2 * PER_ROUND * MAX_ROUNDS
        tail = hol_length(ctx)
        sends = (
            f"rounds of {PER_ROUND} requests of {short} and {PER_ROUND} of {long} prompt "
            f"tokens, sequential, 2 output tokens; {MAX_ROUNDS} rounds at most (more only "
            "while the noise leaves the answer open)"
        )
        if tail is not None:
            most += 2 * HOL_ATTEMPTS
            sends += (
                f"; then {HOL_TRIALS} trials of a {tail}-token prompt with a {short}-token "
                "probe sent during its prefill"
            )
        return Plan(
            requests=most,
            concurrency=2 if tail is not None else 1,
            sends=sends,
            deadline_s=180.0 + (60.0 if tail is not None else 0.0),
        )

    async def run(self, ctx: ReproContext, session: Session) -> TtftMeasured:
        short, long = lengths(ctx)
        first = await session.scrape()
        shorts: list[float] = []
        longs: list[float] = []
        rounds = 0
        m: TtftMeasured | None = None
        while rounds < MAX_ROUNDS:
            rounds += 1
            for _ in range(PER_ROUND):
                for n, out in ((short, shorts), (long, longs)):
                    session.step(f"round {rounds}: waiting for a {n}-token probe's first token")
                    res = await session.load(
                        LoadSpec(prompt_tokens=n, max_tokens=2, requests=1, duration_s=60)
                    )
                    out.extend(res.ttfts())
            session.step(f"round {rounds}: reading /metrics")
            m = self._measure(short, long, shorts, longs, rounds, first, await session.scrape())
            if not self._needs_more(m):
                break
        assert m is not None
        tail = hol_length(ctx)
        if tail is not None:
            m = await self._hol_trials(session, short, tail, shorts + longs, m)
        return m

    @staticmethod
    async def _hol_trials(
        session: Session, short: int, tail: int, probes: list[float], m: TtftMeasured
    ) -> TtftMeasured:
        """Short probes sent while the probe's own long prompt is in prefill."""
        behind: list[float] = []
        long_ttfts: list[float] = []
        # The short probe must start while the long prompt is in prefill: after the long
        # request was sent and before its first token. Each run calibrates and connects before
        # it sends, which takes longer on a busy host, so the order is checked on the requests'
        # own start times, and the delay adapts (a CI run once sent the short probe first).
        delay = 0.05
        for attempt in range(1, HOL_ATTEMPTS + 1):
            if len(behind) >= HOL_TRIALS:
                break
            session.step(f"head-of-line attempt {attempt}: a {tail}-token prompt, then a short one")
            long_task = asyncio.create_task(
                session.load(LoadSpec(prompt_tokens=tail, max_tokens=1, requests=1, duration_s=60))
            )
            await asyncio.sleep(delay)
            res = await session.load(
                LoadSpec(prompt_tokens=short, max_tokens=2, requests=1, duration_s=60)
            )
            long_res = await long_task
            where = _during_prefill(long_res, res)
            if where == 0:
                behind.extend(res.ttfts())
                long_ttfts.extend(long_res.ttfts())
            elif where < 0:
                delay *= 3  # the short one went first
            else:
                delay /= 2  # the long prefill had ended
        base = min(probes) if probes else None
        treat, long = median(behind), median(long_ttfts)
        waited = (
            (treat - base) / (long - base)
            if base is not None and treat is not None and long is not None and long > base
            else None
        )
        return m.model_copy(
            update={
                "hol_long_prompt_tokens": tail,
                "hol_long_ttft_p50_s": rnd(long),
                "hol_waited_fraction": rnd(waited, 3),
                "hol_effect": _ttft_effect(
                    "short probe TTFT during a long prefill / quickest probe TTFT",
                    probes,
                    behind,
                    base,
                    treat,
                ),
            }
        )

    @staticmethod
    def _needs_more(m: TtftMeasured) -> bool:
        """Another round only when the split is borderline or the length test is open."""
        queue = _queue_verdict(m)
        if queue == CONFIRMED:
            return False
        if queue == INCONCLUSIVE and m.queue_share is not None:
            return True
        p = m.length_effect.p_value
        return queue == REFUTED and (p is None or P_DECIDE <= p < 0.3)

    @staticmethod
    def _measure(
        short: int,
        long: int,
        shorts: list[float],
        longs: list[float],
        rounds: int,
        first: Snapshot | None,
        last: Snapshot | None,
    ) -> TtftMeasured:
        n, q, p, t = _server_split(first, last)
        share = q / (q + p) if q is not None and p is not None and (q + p) > 0 else None
        s50, l50 = median(shorts), median(longs)
        return TtftMeasured(
            prompt_tokens=long,
            short_prompt_tokens=short,
            probes_ok=len(shorts) + len(longs),
            rounds=rounds,
            client_ttft_p50_s=rnd(l50),
            client_ttft_short_p50_s=rnd(s50),
            client_ttft_max_s=rnd(max(longs + shorts) if longs or shorts else None),
            server_requests=n,
            server_ttft_mean_s=rnd(t),
            server_queue_time_mean_s=rnd(q),
            server_prefill_time_mean_s=rnd(p),
            queue_share=rnd(share),
            queue_effect=Effect(
                metric="server queue time vs prefill time per request; effect = queue share",
                baseline=rnd(p),
                treatment=rnd(q),
                effect=rnd(share),
                samples_baseline=int(n or 0),
                samples_treatment=int(n or 0),
            ),
            length_effect=_ttft_effect(
                "probe TTFT at the workload's prompt length / at one block",
                shorts,
                longs,
                s50,
                l50,
            ),
        )


def _ttft_effect(
    metric: str,
    baseline_samples: list[float],
    treatment_samples: list[float],
    baseline: float | None,
    treatment: float | None,
) -> Effect:
    """Two sets of probe TTFTs: their summary values, ratio and rank-sum p-value."""
    return Effect(
        metric=metric,
        baseline=rnd(baseline),
        treatment=rnd(treatment),
        effect=rnd(ratio(treatment, baseline)),
        samples_baseline=len(baseline_samples),
        samples_treatment=len(treatment_samples),
        p_value=rnd(rank_sum_p(baseline_samples, treatment_samples)),
    )
