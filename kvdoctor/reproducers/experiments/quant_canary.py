"""quant-canary: does the target's output drift from a reference server's (KV quantization)?

Baseline: the target against itself (the same greedy prompts twice: what nondeterminism alone
gives). Treatment: the target against the reference. Token agreement well below the baseline's
confirms; agreement at the baseline's level refutes.

The reference is another server, possibly another owner's: it gets only its own headers
(``--reference-header``), never the target's auth. Every request is cut to the time left, and a
request that times out names the server and the prompt it was waiting for.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from typing import ClassVar

import httpx

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
    base_url,
    rnd,
)
from kvdoctor.reproducers.loadgen import PROBE_HEADER
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

FP8_KV_CACHE = CauseRef("quant-quality", "fp8-kv-cache")
CANARY_OUTPUT = 32
# One canary request never waits longer than this, whatever the deadline leaves.
REQUEST_TIMEOUT_S = 120.0
# 32 tokens with their logprobs are a few KB of JSON; far beyond is not a completions answer.
MAX_ANSWER_BYTES = 4 * 1024 * 1024


class CanaryMeasured(Measured):
    # The quant-quality playbook reads ``token_agreement``: the target against the reference
    # (<= 0.1 means a kernel or dtype bug, not ordinary precision loss).
    token_agreement: float | None
    baseline_agreement: float | None
    reference_agreement: float | None
    baseline_mean_abs_dlogprob: float | None
    reference_mean_abs_dlogprob: float | None
    first_divergence: list[int | None]
    prompts: int
    effect: Effect


def canary_prompts() -> list[str]:
    """Fixed prompts (generated, never from users), the last a long-context needle."""
    rng = random.Random("kvdoctor-canary")
    letters = "abcdefghijklmnopqrstuvwxyz"
    short = ["".join(rng.choice(letters) for _ in range(n)) for n in (48, 96, 192)]
    needle = "the key is " + "".join(rng.choice(letters) for _ in range(12)) + ". "
    filler = "".join(rng.choice(letters) for _ in range(1500))
    return [*short, needle + filler + " what is the key? the key is"]


@dataclass
class CanaryRun:
    tokens: list[str]
    logprobs: list[float]


def compare_runs(a: CanaryRun, b: CanaryRun) -> dict[str, float | int | None]:
    """Token agreement, first divergence and mean |Δlogprob| up to the divergence."""
    n = min(len(a.tokens), len(b.tokens))
    first = next((i for i in range(n) if a.tokens[i] != b.tokens[i]), None)
    agree = sum(1 for i in range(n) if a.tokens[i] == b.tokens[i])
    upto = n if first is None else first
    deltas = [abs(a.logprobs[i] - b.logprobs[i]) for i in range(upto)]
    return {
        "agreement": agree / n if n else None,
        "first_divergence": first,
        "mean_abs_dlogprob": sum(deltas) / len(deltas) if deltas else None,
    }


def _mean(rows: list[dict[str, float | int | None]], key: str) -> float | None:
    vals = [float(v) for r in rows if isinstance(v := r.get(key), int | float)]
    return sum(vals) / len(vals) if vals else None


def measure(
    baseline: list[dict[str, float | int | None]], vs_ref: list[dict[str, float | int | None]]
) -> CanaryMeasured:
    b_agree, r_agree = _mean(baseline, "agreement"), _mean(vs_ref, "agreement")
    firsts = [r.get("first_divergence") for r in vs_ref]
    return CanaryMeasured(
        token_agreement=rnd(r_agree),
        baseline_agreement=rnd(b_agree),
        reference_agreement=rnd(r_agree),
        baseline_mean_abs_dlogprob=rnd(_mean(baseline, "mean_abs_dlogprob")),
        reference_mean_abs_dlogprob=rnd(_mean(vs_ref, "mean_abs_dlogprob")),
        first_divergence=[int(f) if isinstance(f, int) else None for f in firsts],
        prompts=len(vs_ref),
        effect=Effect(
            metric="token agreement: target vs reference (treatment) and vs itself (baseline)",
            baseline=rnd(b_agree),
            treatment=rnd(r_agree),
            effect=rnd(r_agree - b_agree) if r_agree is not None and b_agree is not None else None,
            samples_baseline=len(baseline),
            samples_treatment=len(vs_ref),
        ),
    )


def judge(m: CanaryMeasured) -> Judgement:
    expected = {"agreement_at_least": "the target's agreement with itself"}
    b_agree, r_agree = m.baseline_agreement, m.reference_agreement
    b_dlp, r_dlp = m.baseline_mean_abs_dlogprob, m.reference_mean_abs_dlogprob
    if b_agree is None or r_agree is None:
        return Judgement({FP8_KV_CACHE: INCONCLUSIVE}, "no comparable outputs", expected)
    verdict: ReproducerVerdict
    if r_agree < b_agree - 0.1 or (r_dlp is not None and r_dlp > 0.05 + 5 * (b_dlp or 0.0)):
        verdict = CONFIRMED
    elif r_agree >= b_agree - 0.02 and (r_dlp is None or r_dlp <= 0.02 + 2 * (b_dlp or 0.0)):
        verdict = REFUTED
    else:
        verdict = INCONCLUSIVE
    return Judgement(
        {FP8_KV_CACHE: verdict},
        f"token agreement with the reference {r_agree:.0%} (target vs itself {b_agree:.0%}, "
        f"{m.prompts} prompts)",
        expected,
    )


async def _canary(
    session: Session,
    http: httpx.AsyncClient,
    server: str,
    base: str,
    model: str,
    headers: dict[str, str],
) -> list[CanaryRun]:
    out = []
    prompts = canary_prompts()
    for i, prompt in enumerate(prompts, 1):
        what = f"the {server} ({base}) to answer canary prompt {i} of {len(prompts)}"
        session.step(f"waiting for {what}")
        body = {
            "model": model,
            "prompt": prompt,
            "max_tokens": CANARY_OUTPUT,
            "temperature": 0.0,
            "logprobs": 1,
            "ignore_eos": True,
            "user": session.ctx.tag,
        }
        limit = max(min(REQUEST_TIMEOUT_S, session.remaining()), 1.0)
        try:
            # One deadline for the whole answer (a dripping body included) and a byte cap: a
            # canary answer is a few KB, and an 800 MB one was held whole in memory.
            status, raw = await asyncio.wait_for(
                _post_capped(http, base + "/v1/completions", body, headers, session, limit),
                timeout=limit,
            )
        except (httpx.TimeoutException, TimeoutError):
            raise KvdoctorError(
                f"quant-canary: timed out after {limit:.0f} s waiting for {what}"
            ) from None
        except httpx.HTTPError as exc:
            raise KvdoctorError(
                f"quant-canary: {server} {base}: {type(exc).__name__}: {exc}"
            ) from None
        session.sent += 1
        if status != 200:
            raise KvdoctorError(f"quant-canary: the {server} {base} answered HTTP {status}")
        if raw is None:
            raise KvdoctorError(
                f"quant-canary: the {server} {base} sent an answer larger than "
                f"{MAX_ANSWER_BYTES // 1024} KiB; not read"
            )
        try:
            lp = json.loads(raw)["choices"][0]["logprobs"]
            tokens = [str(t) for t in lp["tokens"]]
            logprobs = [float(x) if x is not None else 0.0 for x in lp["token_logprobs"]]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError, OverflowError):
            raise KvdoctorError(f"quant-canary: the {server} {base} sent no logprobs") from None
        out.append(CanaryRun(tokens=tokens, logprobs=logprobs))
    return out


async def _post_capped(
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, object],
    headers: dict[str, str],
    session: Session,
    limit: float,
) -> tuple[int, bytes | None]:
    """POST ``body``; the status and the answer's bytes, or ``None`` past the cap."""
    async with http.stream(
        "POST",
        url,
        json=body,
        headers={**headers, PROBE_HEADER: session.ctx.tag},
        timeout=limit,
    ) as resp:
        if resp.status_code != 200:
            return resp.status_code, b""
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                return resp.status_code, None
            chunks.append(chunk)
        return resp.status_code, b"".join(chunks)


class QuantCanary(Experiment[CanaryMeasured]):
    spec: ClassVar[ExperimentSpec] = CATALOG["quant-canary"]
    measured_model: ClassVar[type[Measured]] = CanaryMeasured

    def verdict(self, measured: CanaryMeasured) -> Judgement:
        return judge(measured)

    def plan(self, ctx: ReproContext) -> Plan:
        n = len(canary_prompts())
        return Plan(
            requests=3 * n,
            concurrency=1,
            sends=f"{n} fixed greedy prompts twice to the target, once to the reference",
            deadline_s=300.0,
        )

    async def run(self, ctx: ReproContext, session: Session) -> CanaryMeasured:
        ref = base_url(ctx.reference_endpoint or "")
        async with ctx.http_client(REQUEST_TIMEOUT_S) as http:
            t1 = await _canary(session, http, "target", session.base, session.model, ctx.headers)
            t2 = await _canary(session, http, "target", session.base, session.model, ctx.headers)
            rr = await _canary(
                session,
                http,
                "reference",
                ref,
                ctx.reference_model or session.model,
                ctx.reference_headers,
            )
        baseline = [compare_runs(a, b) for a, b in zip(t1, t2, strict=True)]
        vs_ref = [compare_runs(a, b) for a, b in zip(t1, rr, strict=True)]
        return measure(baseline, vs_ref)
