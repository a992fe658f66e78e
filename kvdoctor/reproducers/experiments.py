"""The reproducer experiments (DESIGN.md §8): one small, bounded test per suspected cause.

Each experiment is registered by name with what it needs (``allow_load``, a reference endpoint)
and returns a :class:`~kvdoctor.reproducers.model.ReproducerRecord` with what was expected,
what was measured and a verdict, per cause where it tells causes apart. The verdict logic of
every experiment is a pure function of the measured numbers (unit-tested without a server);
the async part only sends the probes and reads ``/metrics`` before and after.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from kvdoctor import expfmt
from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import ExpositionError
from kvdoctor.report.model import Finding
from kvdoctor.reproducers.guard import Guard, GuardLimits
from kvdoctor.reproducers.loadgen import PROBE_HEADER, LoadResult, LoadSpec, percentile, run_load
from kvdoctor.reproducers.metrics import Snapshot, scrape
from kvdoctor.reproducers.model import ReproducerRecord, ReproducerVerdict
from kvdoctor.signals.model import SignalSet

CONFIRMED: ReproducerVerdict = "confirmed"
REFUTED: ReproducerVerdict = "refuted"
INCONCLUSIVE: ReproducerVerdict = "inconclusive"


@dataclass(frozen=True)
class ReproContext:
    """What the experiments know about the server (from the signals) and may do to it."""

    endpoint: str
    model: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    allow_load: bool = False
    reference_endpoint: str | None = None
    reference_model: str | None = None
    block_size: int | None = None
    max_model_len: int | None = None
    kv_capacity_tokens: int | None = None
    num_gpu_blocks: int | None = None
    kv_bytes_per_token: int | None = None
    prefix_caching: bool | None = None
    prefix_hit_rate: float | None = None
    mean_prompt_len: float | None = None
    mean_generation_len: float | None = None
    running_mean: float | None = None
    itl_window_s: float | None = None
    max_num_seqs: int | None = None
    gpu_memory_total_bytes: float | None = None
    gpu_memory_used_bytes: float | None = None
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: float | None = None
    weight_bytes: float | None = None
    # The workload's shared prompt prefix, when the operator knows it (block-larger-than-prefix).
    shared_prefix_tokens: int | None = None
    # Above this client TTFT (s) a probe counts as slow.
    ttft_slo_s: float = 1.0
    # Seconds the prefix-probe waits before repeating its prompt, to see eviction.
    evict_wait_s: float = 3.0
    # Probe tag (``user`` field and X-Kvdoctor-Probe header).
    tag: str = "kvdoctor-probe"
    # Skip TLS certificate verification (``--insecure``), as the capture does.
    insecure: bool = False

    def http_client(self, timeout_s: float) -> httpx.AsyncClient:
        """An httpx client for the experiment's light requests (scrapes, discovery, canary)."""
        return httpx.AsyncClient(timeout=timeout_s, verify=not self.insecure)

    @classmethod
    def from_signals(cls, signals: SignalSet, endpoint: str, **kw: Any) -> ReproContext:
        """A context with every number the signals know (keyword arguments win)."""

        def num(name: str) -> float | None:
            v = signals.get(name)
            return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

        def whole(name: str) -> int | None:
            v = num(name)
            return int(v) if v is not None else None

        pc = signals.get("prefix_caching")
        served = signals.get("served_model")
        base: dict[str, Any] = {
            "model": served if isinstance(served, str) else None,
            "block_size": whole("block_size"),
            "max_model_len": whole("max_model_len"),
            "kv_capacity_tokens": whole("kv_capacity_tokens"),
            "num_gpu_blocks": whole("num_gpu_blocks"),
            "kv_bytes_per_token": whole("kv_bytes_per_token"),
            "prefix_caching": pc if isinstance(pc, bool) else None,
            "prefix_hit_rate": num("prefix_hit_rate_window"),
            "mean_prompt_len": num("mean_prompt_len"),
            "mean_generation_len": num("mean_generation_len"),
            "running_mean": num("running_mean"),
            "itl_window_s": num("itl_p50"),
            "max_num_seqs": whole("max_num_seqs"),
            "gpu_memory_total_bytes": num("gpu_memory_total_bytes"),
            "gpu_memory_used_bytes": num("gpu_memory_used_bytes"),
            "gpu_memory_utilization": num("gpu_memory_utilization"),
            "kv_cache_memory_bytes": num("kv_cache_memory_bytes"),
        }
        base.update(kw)
        return cls(endpoint=endpoint, **base)


ExperimentFn = Callable[[ReproContext], Awaitable[ReproducerRecord]]


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    # Symptoms (report/1) whose findings this experiment tests.
    symptoms: tuple[str, ...]
    # Adds real load: refuses to run without allow_load.
    needs_load: bool
    needs_reference: bool
    fn: ExperimentFn
    # The plan --dry-run prints: requests, concurrency, deadline, what is sent.
    plan: Callable[[ReproContext], dict[str, Any]]


EXPERIMENTS: dict[str, Experiment] = {}


def experiment(
    name: str,
    description: str,
    symptoms: tuple[str, ...],
    plan: Callable[[ReproContext], dict[str, Any]],
    needs_load: bool = False,
    needs_reference: bool = False,
) -> Callable[[ExperimentFn], ExperimentFn]:
    def register(fn: ExperimentFn) -> ExperimentFn:
        EXPERIMENTS[name] = Experiment(
            name, description, symptoms, needs_load, needs_reference, fn, plan
        )
        return fn

    return register


def get_experiment(name: str) -> Experiment:
    exp = EXPERIMENTS.get(name)
    if exp is None:
        raise KvdoctorError(f"unknown reproducer {name!r}; known: {', '.join(sorted(EXPERIMENTS))}")
    return exp


def check_allowed(exp: Experiment, ctx: ReproContext) -> None:
    if exp.needs_load and not ctx.allow_load:
        raise KvdoctorError(f"{exp.name} adds real load to the server: pass --allow-load to run it")
    if exp.needs_reference and not ctx.reference_endpoint:
        raise KvdoctorError(f"{exp.name} compares two servers: pass --reference-endpoint URL")


async def run_experiment_async(name: str, ctx: ReproContext) -> ReproducerRecord:
    exp = get_experiment(name)
    check_allowed(exp, ctx)
    ctx = await enrich(ctx)
    if exp.needs_reference and ctx.reference_model is None and ctx.reference_endpoint:
        ref_model, _ = await discover_model(ctx, ctx.reference_endpoint)
        ctx = replace(ctx, reference_model=ref_model)
    return await exp.fn(ctx)


def cache_config(text: str) -> dict[str, str]:
    """Labels of ``vllm:cache_config_info`` (block size, pool, prefix caching), or {}."""
    try:
        samples = expfmt.parse(text, prefixes=("vllm:cache_config_info",))
    except ExpositionError:
        return {}
    return dict(samples[0].labels) if samples else {}


async def enrich(ctx: ReproContext) -> ReproContext:
    """Fill what the signals did not give from the server itself (model, cache config).

    ``kvdoctor reproduce`` runs without a capture, so the block size, pool size and prefix
    caching flag come from ``vllm:cache_config_info`` and max_model_len from ``/v1/models``.
    """
    updates: dict[str, Any] = {}
    if ctx.model is None or ctx.max_model_len is None:
        model, max_len = await discover_model(ctx, ctx.endpoint)
        if ctx.model is None:
            updates["model"] = model
        if ctx.max_model_len is None and max_len is not None:
            updates["max_model_len"] = max_len
    if ctx.block_size is None or ctx.num_gpu_blocks is None or ctx.prefix_caching is None:
        try:
            async with ctx.http_client(10.0) as client:
                resp = await client.get(_base(ctx.endpoint) + "/metrics", headers=ctx.headers)
            labels = cache_config(resp.text) if resp.status_code == 200 else {}
        except httpx.HTTPError:
            labels = {}

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
    return replace(ctx, **updates) if updates else ctx


def run_experiment(name: str, ctx: ReproContext) -> ReproducerRecord:
    """Run experiment ``name`` against ``ctx.endpoint`` (blocking)."""
    return asyncio.run(run_experiment_async(name, ctx))


def _base(url: str) -> str:
    url = url.rstrip("/")
    return url[:-3] if url.endswith("/v1") else url


async def discover_model(ctx: ReproContext, endpoint: str) -> tuple[str, int | None]:
    """The first served model name from ``/v1/models`` and its max_model_len when listed."""
    try:
        async with ctx.http_client(10.0) as client:
            resp = await client.get(_base(endpoint) + "/v1/models", headers=ctx.headers)
    except httpx.HTTPError as exc:
        raise KvdoctorError(f"cannot reach {endpoint}: {exc}") from None
    if resp.status_code != 200:
        raise KvdoctorError(f"{endpoint}/v1/models answered HTTP {resp.status_code}")
    try:
        first = resp.json()["data"][0]
        max_len = first.get("max_model_len")
        return str(first["id"]), int(max_len) if isinstance(max_len, int) else None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise KvdoctorError(f"{endpoint}/v1/models lists no model") from None


def plan_for(findings: Sequence[Finding], allow_load: bool, has_reference: bool) -> list[str]:
    """The experiments that test the suspected (or confirmed) findings, in a stable order.

    A finding names its reproducer through its playbook cause; experiments that cannot run
    here (load without ``allow_load``, no reference endpoint) are left out. With nothing
    suspected, a light default set that can show a healthy server healthy.
    """
    from kvdoctor.rules.engine import load_playbooks

    by_cause: dict[tuple[str, str], str] = {}
    for pb in load_playbooks():
        for cause in pb.causes:
            by_cause[(pb.id, cause.id)] = cause.reproducer
    wanted: list[str] = []
    active = [f for f in findings if f.status in ("suspected", "confirmed")]
    for f in active:
        name = by_cause.get((f.id, f.cause))
        if name is None:
            name = next((e.name for e in EXPERIMENTS.values() if f.symptom in e.symptoms), None)
        if name is None or name not in EXPERIMENTS or name in wanted:
            continue
        exp = EXPERIMENTS[name]
        if (exp.needs_load and not allow_load) or (exp.needs_reference and not has_reference):
            continue
        wanted.append(name)
    if not active:
        wanted = list(DEFAULT_SET)
        if has_reference:
            wanted.append("quant-canary")
    return wanted


DEFAULT_SET: tuple[str, ...] = ("ttft-split", "prefix-probe")


def describe(name: str, ctx: ReproContext) -> dict[str, Any]:
    """What ``name`` would send (the --dry-run plan): nothing is sent."""
    exp = get_experiment(name)
    return {
        "name": exp.name,
        "description": exp.description,
        "needs_allow_load": exp.needs_load,
        "needs_reference": exp.needs_reference,
        **exp.plan(ctx),
    }


# ------------------------------------------------------------------------- shared plumbing


class _Probe:
    """Scrapes and light load runs against one endpoint, with request accounting."""

    def __init__(self, ctx: ReproContext) -> None:
        self.ctx = ctx
        self.base = _base(ctx.endpoint)
        self.model = ctx.model or ""
        self.sent = 0
        self.aborted: str | None = None
        self.http = ctx.http_client(10.0)

    async def close(self) -> None:
        await self.http.aclose()

    async def scrape(self) -> Snapshot | None:
        return await scrape(self.http, self.base, self.ctx.headers)

    async def load(self, spec: LoadSpec, guard: Guard | None = None) -> LoadResult:
        spec = spec.model_copy(update={"tag": self.ctx.tag})
        res = await run_load(
            self.base,
            self.model,
            spec,
            self.ctx.headers,
            guard or Guard(),
            insecure=self.ctx.insecure,
        )
        self.sent += res.sent
        if res.aborted and self.aborted is None:
            self.aborted = res.aborted
        return res


def _record(
    name: str,
    started: float,
    probe: _Probe,
    verdict: ReproducerVerdict,
    causes: dict[str, ReproducerVerdict],
    summary: str,
    expected: dict[str, Any],
    measured: dict[str, Any],
    budget: dict[str, Any],
) -> ReproducerRecord:
    return ReproducerRecord(
        name=name,
        verdict=verdict,
        cause_verdicts=causes,
        summary=summary,
        expected=expected,
        measured=measured,
        started_at=started,
        ended_at=time.time(),
        requests_sent=probe.sent,
        budget=budget,
        aborted=probe.aborted,
    )


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def overall(causes: dict[str, ReproducerVerdict]) -> ReproducerVerdict:
    """Confirmed if any cause is, refuted if all are, inconclusive otherwise."""
    vals = list(causes.values())
    if CONFIRMED in vals:
        return CONFIRMED
    if vals and all(v == REFUTED for v in vals):
        return REFUTED
    return INCONCLUSIVE


# ------------------------------------------------------------------------------ prefix-probe


def prefix_probe_lengths(ctx: ReproContext) -> tuple[int, int | None]:
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


def prefix_verdicts(
    *,
    block: int,
    length: int,
    hits_repeat: float | None,
    hits_first_changed: float | None,
    hits_late: float | None,
    shared: int | None,
    hits_shared: float | None,
    prefix_caching: bool | None,
    window_hit_rate: float | None,
) -> tuple[dict[str, ReproducerVerdict], str]:
    """Per-cause verdicts of the prefix-probe and a one-line summary."""
    want = expected_hit(length, block)
    causes: dict[str, ReproducerVerdict] = {
        "caching-disabled": INCONCLUSIVE,
        "block-larger-than-prefix": INCONCLUSIVE,
        "prefix-drift": INCONCLUSIVE,
        "eviction-churn": INCONCLUSIVE,
    }
    if hits_repeat is None:
        return causes, "no prefix-cache hit counter and no cached_tokens in usage: cannot tell"
    if hits_repeat < 0.5 * want or want == 0:
        # An exact repeat of a several-block prompt missed: the cache is off or lost it at once.
        causes["block-larger-than-prefix"] = REFUTED
        causes["prefix-drift"] = REFUTED
        if prefix_caching is True:
            causes["caching-disabled"] = REFUTED
            causes["eviction-churn"] = CONFIRMED
            return causes, (
                f"exact repeat of a {length}-token prompt hit {hits_repeat:.0f} of {want} "
                "tokens although caching is on: blocks were evicted at once"
            )
        causes["caching-disabled"] = CONFIRMED
        return causes, (
            f"exact repeat of a {length}-token prompt hit {hits_repeat:.0f} of {want} tokens: "
            "prefix caching is not working"
        )
    causes["caching-disabled"] = REFUTED
    evicted = hits_late is not None and hits_late < 0.5 * want
    if hits_late is not None:
        causes["eviction-churn"] = CONFIRMED if evicted else REFUTED
    if shared is not None and hits_shared is not None:
        shared_want = expected_hit(shared + 1, block)  # the shared tokens are all cacheable
        if hits_shared == 0 and shared_want == 0:
            causes["block-larger-than-prefix"] = CONFIRMED
        elif hits_shared > 0:
            causes["block-larger-than-prefix"] = REFUTED
    elif shared is not None and shared >= block:
        causes["block-larger-than-prefix"] = REFUTED
    if hits_first_changed is not None and hits_first_changed > 0:
        # The cache matched although the first token differed: not a prefix cache as modelled.
        causes["prefix-drift"] = INCONCLUSIVE
    elif window_hit_rate is not None and hits_first_changed is not None:
        short_prefix = causes["block-larger-than-prefix"] == CONFIRMED
        if window_hit_rate < 0.05 and not evicted and not short_prefix:
            causes["prefix-drift"] = CONFIRMED
        else:
            causes["prefix-drift"] = REFUTED
    summary = (
        f"repeat hit {hits_repeat:.0f}/{want} tokens; first token changed: "
        f"{_fmt(hits_first_changed)}; repeat after a pause: {_fmt(hits_late)}"
    )
    if shared is not None:
        summary += f"; a {shared}-token shared prefix hit {_fmt(hits_shared)}"
    return causes, summary


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


def _prefix_plan(ctx: ReproContext) -> dict[str, Any]:
    length, shared = prefix_probe_lengths(ctx)
    n = 4 + (1 if shared is not None else 0)
    return {
        "requests": n,
        "concurrency": 1,
        "sends": f"{n} sequential requests of ≤{length} prompt tokens, 1 output token each",
    }


@experiment(
    "prefix-probe",
    "A multi-block prompt sent twice must hit whole blocks; changing its first token must hit 0.",
    ("prefix-miss",),
    _prefix_plan,
)
async def prefix_probe(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        block = ctx.block_size or 16
        length, shared = prefix_probe_lengths(ctx)
        base = LoadSpec(
            prompt_tokens=length,
            max_tokens=1,
            requests=1,
            prefix="shared",
            shared_prefix_tokens=length,
            seed=int(started * 1000) % (2**31),
            duration_s=60,
        )

        async def one(spec: LoadSpec) -> tuple[LoadResult, float | None]:
            before = await probe.scrape()
            res = await probe.load(spec)
            after = await probe.scrape()
            return res, _hits(res, before, after)

        r1, _ = await one(base)
        if not r1.ok_requests():
            raise KvdoctorError(f"prefix-probe: the first probe failed: {r1.first_error()}")
        _, hits_repeat = await one(base)
        _, hits_changed = await one(base.model_copy(update={"perturb_at": 0}))
        hits_shared = None
        if shared is not None:
            spec = base.model_copy(update={"prompt_tokens": shared, "shared_prefix_tokens": shared})
            _, hits_shared = await one(spec)
        await asyncio.sleep(ctx.evict_wait_s)
        _, hits_late = await one(base)
        # The block size in effect, from the repeat when the signals did not say.
        if ctx.block_size is None and hits_repeat:
            block = int(hits_repeat) // max((length - 1) // 16, 1) or block
        causes, summary = prefix_verdicts(
            block=block,
            length=length,
            hits_repeat=hits_repeat,
            hits_first_changed=hits_changed,
            hits_late=hits_late,
            shared=shared,
            hits_shared=hits_shared,
            prefix_caching=ctx.prefix_caching,
            window_hit_rate=ctx.prefix_hit_rate,
        )
        return _record(
            "prefix-probe",
            started,
            probe,
            overall(causes),
            causes,
            summary,
            expected={
                "repeat_hit_tokens": expected_hit(length, block),
                "first_token_changed_hit_tokens": 0,
                "shared_prefix_hit_tokens": (
                    None if shared is None else expected_hit(shared + 1, block)
                ),
                "block_size": block,
            },
            measured={
                "prompt_tokens": length,
                "repeat_hit_tokens": hits_repeat,
                "first_token_changed_hit_tokens": hits_changed,
                "late_repeat_hit_tokens": hits_late,
                "late_repeat_after_s": ctx.evict_wait_s,
                "shared_prefix_tokens": shared,
                "shared_prefix_hit_tokens": hits_shared,
                "window_hit_rate": ctx.prefix_hit_rate,
            },
            budget=_prefix_plan(ctx),
        )
    finally:
        await probe.close()


# ------------------------------------------------------------------------------- ttft-split


def ttft_split_verdicts(
    *,
    client_ttft_p50: float | None,
    queue_mean: float | None,
    prefill_mean: float | None,
    slo_s: float,
) -> tuple[dict[str, ReproducerVerdict], ReproducerVerdict, str]:
    """Is the wait for the first token queueing or prefill? (causes, overall, summary)."""
    causes: dict[str, ReproducerVerdict] = {
        "queueing": INCONCLUSIVE,
        "prefill-bound": INCONCLUSIVE,
        "long-prefill-hol": INCONCLUSIVE,
    }
    if client_ttft_p50 is None:
        return causes, INCONCLUSIVE, "no probe got a first token"
    if client_ttft_p50 < slo_s:
        for k in causes:
            causes[k] = REFUTED
        return (
            causes,
            REFUTED,
            (f"probe TTFT p50 {client_ttft_p50:.3f} s is below {slo_s:g} s: not reproduced"),
        )
    if queue_mean is None or prefill_mean is None:
        return (
            causes,
            CONFIRMED,
            (
                f"probe TTFT p50 {client_ttft_p50:.3f} s; the server's queue/prefill histograms "
                "are missing, so the wait cannot be split"
            ),
        )
    total = queue_mean + prefill_mean
    qshare = queue_mean / total if total > 0 else 0.0
    if qshare >= 0.5:
        causes["queueing"] = CONFIRMED
        causes["prefill-bound"] = REFUTED
    elif qshare <= 0.2:
        causes["queueing"] = REFUTED
        causes["prefill-bound"] = CONFIRMED
        causes["long-prefill-hol"] = REFUTED
    return (
        causes,
        CONFIRMED,
        (
            f"probe TTFT p50 {client_ttft_p50:.3f} s; server queue {queue_mean:.3f} s vs "
            f"prefill {prefill_mean:.3f} s per request ({qshare:.0%} queueing)"
        ),
    )


def _ttft_prompt(ctx: ReproContext) -> int:
    n = int(ctx.mean_prompt_len) if ctx.mean_prompt_len else 256
    n = max(32, min(n, 2048))
    if ctx.max_model_len:
        n = min(n, ctx.max_model_len - 16)
    return n


def _ttft_plan(ctx: ReproContext) -> dict[str, Any]:
    return {
        "requests": 4,
        "concurrency": 1,
        "sends": f"4 sequential requests of {_ttft_prompt(ctx)} prompt tokens, 4 output tokens",
    }


@experiment(
    "ttft-split",
    "A few sequential probes: client TTFT against the server's queue and prefill time.",
    ("high-ttft",),
    _ttft_plan,
)
async def ttft_split(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        before = await probe.scrape()
        spec = LoadSpec(
            prompt_tokens=_ttft_prompt(ctx),
            max_tokens=4,
            requests=4,
            concurrency=1,
            duration_s=120,
        )
        res = await probe.load(spec)
        after = await probe.scrape()
        q = p = t = None
        if before is not None and after is not None:
            qh, ph, th = (
                after.hist_delta(before, n) for n in ("queue_time", "prefill_time", "ttft")
            )
            q = qh.mean if qh else None
            p = ph.mean if ph else None
            t = th.mean if th else None
        ttfts = res.ttfts()
        p50 = percentile(ttfts, 0.5)
        causes, verdict, summary = ttft_split_verdicts(
            client_ttft_p50=p50, queue_mean=q, prefill_mean=p, slo_s=ctx.ttft_slo_s
        )
        return _record(
            "ttft-split",
            started,
            probe,
            verdict,
            causes,
            summary,
            expected={"ttft_below_s": ctx.ttft_slo_s},
            measured={
                "client_ttft_p50_s": _r(p50),
                "client_ttft_max_s": _r(max(ttfts) if ttfts else None),
                "server_ttft_mean_s": _r(t),
                "server_queue_time_mean_s": _r(q),
                "server_prefill_time_mean_s": _r(p),
                "queue_share": _r(q / (q + p)) if q is not None and p and (q + p) > 0 else None,
                "probes_ok": res.ok,
                "prompt_tokens": spec.prompt_tokens,
            },
            budget=_ttft_plan(ctx),
        )
    finally:
        await probe.close()


# ------------------------------------------------------------------------------ itl-context


def itl_lengths(ctx: ReproContext) -> tuple[int, int]:
    short = 128
    long = 4096
    if ctx.max_model_len:
        long = min(long, ctx.max_model_len - 80)
    if ctx.kv_capacity_tokens:
        long = min(long, ctx.kv_capacity_tokens // 2)
    return short, max(long, short + 1)


def itl_verdicts(
    *,
    itl_short: float | None,
    itl_long: float | None,
    spike_fraction: float | None,
    slope_s_per_1k: float | None = None,
    live_kv_tokens: float | None = None,
    window_itl_s: float | None = None,
) -> tuple[dict[str, ReproducerVerdict], str]:
    """KV-read bound? Spikes from prefills? (causes, summary).

    With the window's ITL and live KV tokens (running × context) known, the KV-read model
    predicts the part of each step spent reading KV: ``slope × live tokens / 1000``; the cause
    is confirmed when that explains at least half of the observed ITL. Without them, the probe's
    own long/short ratio decides. Prefill interference shows as gaps far above the median.
    """
    causes: dict[str, ReproducerVerdict] = {
        "kv-read-bound": INCONCLUSIVE,
        "prefill-interference": INCONCLUSIVE,
    }
    if itl_short is None or itl_long is None or itl_short <= 0:
        return causes, "no inter-token gaps measured"
    ratio = itl_long / itl_short
    summary = (
        f"ITL {itl_short * 1000:.2f} ms at short context vs {itl_long * 1000:.2f} ms at long "
        f"context (×{ratio:.2f})"
    )
    if slope_s_per_1k is not None and live_kv_tokens and window_itl_s:
        share = max(slope_s_per_1k, 0.0) * live_kv_tokens / 1000 / window_itl_s
        causes["kv-read-bound"] = (
            CONFIRMED if share >= 0.5 else REFUTED if share < 0.2 else (INCONCLUSIVE)
        )
        summary += f"; KV reads explain {share:.0%} of the window's ITL"
    elif ratio >= 1.25:
        causes["kv-read-bound"] = CONFIRMED
    elif ratio < 1.1:
        causes["kv-read-bound"] = REFUTED
    if spike_fraction is not None:
        if spike_fraction >= 0.05:
            causes["prefill-interference"] = CONFIRMED
        elif spike_fraction < 0.02:
            causes["prefill-interference"] = REFUTED
        summary += f"; {spike_fraction:.0%} of gaps above 3× the median"
    return causes, summary


def spike_fraction(gaps: list[float]) -> float | None:
    """Share of inter-token gaps above three times the median gap."""
    med = percentile(gaps, 0.5)
    if not gaps or med is None or med <= 0:
        return None
    return sum(1 for g in gaps if g > 3 * med) / len(gaps)


def _itl_plan(ctx: ReproContext) -> dict[str, Any]:
    short, long = itl_lengths(ctx)
    return {
        "requests": 4,
        "concurrency": 1,
        "sends": f"2 requests at {short} and 2 at {long} prompt tokens, 64 output tokens each",
    }


@experiment(
    "itl-context",
    "Inter-token latency at short vs long context: the slope per 1k tokens vs the KV-read model.",
    ("slow-itl",),
    _itl_plan,
)
async def itl_context(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        short, long = itl_lengths(ctx)
        out = 64
        rs = await probe.load(
            LoadSpec(prompt_tokens=short, max_tokens=out, requests=2, duration_s=120)
        )
        rl = await probe.load(
            LoadSpec(prompt_tokens=long, max_tokens=out, requests=2, duration_s=120)
        )
        s50, l50 = percentile(rs.itls(), 0.5), percentile(rl.itls(), 0.5)
        l99 = percentile(rl.itls(), 0.99)
        slope = (l50 - s50) / ((long - short) / 1000) if s50 and l50 else None
        live = None
        if ctx.running_mean and ctx.mean_prompt_len:
            live = ctx.running_mean * (ctx.mean_prompt_len + (ctx.mean_generation_len or 0) / 2)
        spikes = spike_fraction(rs.itls() + rl.itls())
        causes, summary = itl_verdicts(
            itl_short=s50,
            itl_long=l50,
            spike_fraction=spikes,
            slope_s_per_1k=slope,
            live_kv_tokens=live,
            window_itl_s=ctx.itl_window_s,
        )
        predicted = None
        if ctx.kv_bytes_per_token and ctx.weight_bytes:
            # Memory-bound decode: each step reads the weights plus the sequence's KV.
            w, b = ctx.weight_bytes, ctx.kv_bytes_per_token
            predicted = (w + b * long) / (w + b * short)
        return _record(
            "itl-context",
            started,
            probe,
            overall(causes),
            causes,
            summary,
            expected={
                "itl_ratio_memory_bound_model": _r(predicted),
                "kv_read_bytes_per_step_short": (
                    ctx.kv_bytes_per_token * short if ctx.kv_bytes_per_token else None
                ),
                "kv_read_bytes_per_step_long": (
                    ctx.kv_bytes_per_token * long if ctx.kv_bytes_per_token else None
                ),
            },
            measured={
                "short_context_tokens": short,
                "long_context_tokens": long,
                "itl_p50_short_s": _r(s50, 6),
                "itl_p50_long_s": _r(l50, 6),
                "itl_p99_long_s": _r(l99, 6),
                "itl_ratio": _r(l50 / s50) if s50 and l50 else None,
                "slope_s_per_1k_tokens": _r(slope, 6),
                "spike_fraction": _r(spikes),
                "live_kv_tokens": _r(live, 1),
                "window_itl_p50_s": ctx.itl_window_s,
            },
            budget=_itl_plan(ctx),
        )
    finally:
        await probe.close()


# ---------------------------------------------------------------------------- capacity-ramp


def ramp_tokens_per_seq(ctx: ReproContext) -> tuple[int, int]:
    """(prompt, output) tokens of each ramp request."""
    block = ctx.block_size or 16
    prompt = 2 * block
    out = 4 * block
    if ctx.max_model_len:
        out = min(out, max(ctx.max_model_len - prompt - 8, 16))
    return prompt, out


def predicted_knee(ctx: ReproContext, tokens_per_seq: int) -> float | None:
    """Concurrent sequences the KV pool holds at ``tokens_per_seq`` (the KV math)."""
    if ctx.num_gpu_blocks and ctx.block_size:
        per_seq_blocks = math.ceil(tokens_per_seq / ctx.block_size)
        return ctx.num_gpu_blocks / per_seq_blocks
    if ctx.kv_capacity_tokens:
        return ctx.kv_capacity_tokens / tokens_per_seq
    return None


def ramp_levels(ctx: ReproContext, tokens_per_seq: int, cap: int = 32) -> list[int]:
    knee = predicted_knee(ctx, tokens_per_seq)
    # Up to 3x the predicted knee: requests of one round start and finish at slightly
    # different times (tokenisation, a busy host), so real preemption starts above the ideal
    # all-at-once prediction; stopping at 2x left the ramp inconclusive on a loaded lab.
    top = cap if knee is None else min(cap, max(2, math.ceil(3 * knee)))
    if ctx.max_num_seqs:
        top = min(top, max(ctx.max_num_seqs, 1) * 2)
    levels, c = [], 1
    while c < top:
        levels.append(c)
        c *= 2
    levels.append(top)
    return sorted(set(levels))


def ramp_verdict(
    knee_measured: int | None, knee_predicted: float | None, top_tested: int
) -> tuple[ReproducerVerdict, str]:
    """Preemptions at the predicted concurrency confirm a KV-capacity limit."""
    if knee_measured is None:
        if knee_predicted is not None and top_tested >= 1.5 * knee_predicted:
            return INCONCLUSIVE, (
                f"no preemption up to {top_tested} concurrent requests although the KV math "
                f"predicts the pool fills at {knee_predicted:.1f}"
            )
        return REFUTED, f"no preemption up to {top_tested} concurrent requests"
    if knee_predicted is None:
        return CONFIRMED, f"preemptions started at {knee_measured} concurrent requests"
    ok = 0.5 * knee_predicted <= knee_measured <= 3.0 * knee_predicted + 1
    return (CONFIRMED if ok else INCONCLUSIVE), (
        f"preemptions started at {knee_measured} concurrent requests; the KV math predicts "
        f"{knee_predicted:.1f}"
    )


def _ramp_plan(ctx: ReproContext) -> dict[str, Any]:
    prompt, out = ramp_tokens_per_seq(ctx)
    levels = ramp_levels(ctx, prompt + out)
    return {
        "requests": sum(levels),
        "concurrency": max(levels),
        "levels": levels,
        "sends": f"rounds of {levels} concurrent requests, {prompt} in / {out} out tokens; "
        "stops at the first preemption",
    }


@experiment(
    "capacity-ramp",
    "Raise concurrency of fixed-length requests until preemptions start; compare with KV math.",
    ("preemption", "high-ttft"),
    _ramp_plan,
    needs_load=True,
)
async def capacity_ramp(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        prompt, out = ramp_tokens_per_seq(ctx)
        levels = ramp_levels(ctx, prompt + out)
        knee = predicted_knee(ctx, prompt + out)
        first_preempt: int | None = None
        rounds: list[dict[str, Any]] = []
        for c in levels:
            # Each round stops at its first preemption: that concurrency is the knee.
            guard = Guard(GuardLimits(max_kv_usage=1.01, max_new_preemptions=0, interval_s=0.25))
            spec = LoadSpec(
                prompt_tokens=prompt, max_tokens=out, requests=c, concurrency=c, duration_s=120
            )
            res = await probe.load(spec, guard)
            pre = guard.new_preemptions or 0.0
            rounds.append(
                {
                    "concurrency": c,
                    "ok": res.ok,
                    "failed": res.failed,
                    "max_kv_usage": _r(guard.max_kv_usage),
                    "preemptions": pre,
                }
            )
            if pre > 0:
                first_preempt = c
                probe.aborted = None  # stopping at the knee is the experiment, not an abort
                break
            if res.failed:
                break
        verdict, summary = ramp_verdict(first_preempt, knee, levels[-1])
        return _record(
            "capacity-ramp",
            started,
            probe,
            verdict,
            {"kv-capacity": verdict, "kv-admission": verdict},
            summary,
            expected={"knee_concurrency": _r(knee, 2), "tokens_per_seq": prompt + out},
            measured={"knee_concurrency": first_preempt, "rounds": rounds},
            budget=_ramp_plan(ctx),
        )
    finally:
        await probe.close()


# ---------------------------------------------------------------------------- memory-headroom


def headroom_verdict(
    *,
    total: float | None,
    used: float | None,
    long_request_error: str | None,
    long_request_ok: bool | None,
) -> tuple[dict[str, ReproducerVerdict], ReproducerVerdict, str]:
    causes: dict[str, ReproducerVerdict] = {"request-exceeds-kv-capacity": INCONCLUSIVE}
    parts = []
    verdict: ReproducerVerdict = INCONCLUSIVE
    if total and used is not None:
        free = 1.0 - used / total
        parts.append(
            f"GPU memory {used / 2**30:.1f} of {total / 2**30:.1f} GiB used ({free:.0%} headroom)"
        )
        verdict = CONFIRMED if free < 0.05 else REFUTED if free >= 0.10 else INCONCLUSIVE
    else:
        parts.append("no GPU memory numbers (no NVML on this host)")
    if long_request_ok is True:
        causes["request-exceeds-kv-capacity"] = REFUTED
        parts.append("a max_model_len request completed")
    elif long_request_ok is False:
        causes["request-exceeds-kv-capacity"] = CONFIRMED
        parts.append(f"a max_model_len request failed: {long_request_error}")
        verdict = CONFIRMED
    return causes, verdict, "; ".join(parts)


def _headroom_plan(ctx: ReproContext) -> dict[str, Any]:
    if ctx.allow_load and ctx.max_model_len:
        return {
            "requests": 1,
            "concurrency": 1,
            "sends": f"1 request of {ctx.max_model_len - 8} prompt tokens, 4 output",
        }
    return {"requests": 0, "concurrency": 0, "sends": "nothing (reads the numbers only)"}


@experiment(
    "memory-headroom",
    "Weights + KV pool + activations vs total memory; with --allow-load, one max-length request.",
    ("gpu-oom",),
    _headroom_plan,
)
async def memory_headroom(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        ok: bool | None = None
        err: str | None = None
        if ctx.allow_load and ctx.max_model_len:
            # A request at max_model_len waits for ever when the pool cannot hold it: bound it.
            spec = LoadSpec(
                prompt_tokens=ctx.max_model_len - 8,
                max_tokens=4,
                requests=1,
                duration_s=60,
                stall_timeout_s=45,
            )
            res = await probe.load(spec)
            ok = res.ok == 1
            err = res.first_error() or res.aborted
            probe.aborted = None
        causes, verdict, summary = headroom_verdict(
            total=ctx.gpu_memory_total_bytes,
            used=ctx.gpu_memory_used_bytes,
            long_request_error=err,
            long_request_ok=ok,
        )
        expected: dict[str, Any] = {}
        if ctx.gpu_memory_total_bytes and ctx.gpu_memory_utilization:
            expected["server_budget_bytes"] = int(
                ctx.gpu_memory_total_bytes * ctx.gpu_memory_utilization
            )
        return _record(
            "memory-headroom",
            started,
            probe,
            verdict,
            causes,
            summary,
            expected=expected,
            measured={
                "gpu_memory_total_bytes": ctx.gpu_memory_total_bytes,
                "gpu_memory_used_bytes": ctx.gpu_memory_used_bytes,
                "kv_cache_memory_bytes": ctx.kv_cache_memory_bytes,
                "weight_bytes": ctx.weight_bytes,
                "max_model_len": ctx.max_model_len,
                "kv_capacity_tokens": ctx.kv_capacity_tokens,
                "max_len_request_ok": ok,
                "max_len_request_error": err,
            },
            budget=_headroom_plan(ctx),
        )
    finally:
        await probe.close()


# ------------------------------------------------------------------------------ quant-canary

CANARY_OUTPUT = 32


def canary_prompts() -> list[str]:
    """Fixed prompts (generated, never from users), the last a long-context needle."""
    import random

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


def canary_verdict(
    baseline: list[dict[str, float | int | None]], vs_ref: list[dict[str, float | int | None]]
) -> tuple[ReproducerVerdict, dict[str, Any], str]:
    def mean(rows: list[dict[str, float | int | None]], key: str) -> float | None:
        vals = [float(v) for r in rows if isinstance(v := r.get(key), int | float)]
        return sum(vals) / len(vals) if vals else None

    b_agree, r_agree = mean(baseline, "agreement"), mean(vs_ref, "agreement")
    b_dlp, r_dlp = mean(baseline, "mean_abs_dlogprob"), mean(vs_ref, "mean_abs_dlogprob")
    summary_nums = {
        # The quant-quality playbook reads ``token_agreement``: the target against the
        # reference (<= 0.1 means a kernel or dtype bug, not ordinary precision loss).
        "token_agreement": _r(r_agree),
        "baseline_agreement": _r(b_agree),
        "reference_agreement": _r(r_agree),
        "baseline_mean_abs_dlogprob": _r(b_dlp),
        "reference_mean_abs_dlogprob": _r(r_dlp),
        "first_divergence": [r.get("first_divergence") for r in vs_ref],
    }
    if b_agree is None or r_agree is None:
        return INCONCLUSIVE, summary_nums, "no comparable outputs"
    if r_agree < b_agree - 0.1 or (r_dlp is not None and r_dlp > 0.05 + 5 * (b_dlp or 0.0)):
        verdict: ReproducerVerdict = CONFIRMED
    elif r_agree >= b_agree - 0.02 and (r_dlp is None or r_dlp <= 0.02 + 2 * (b_dlp or 0.0)):
        verdict = REFUTED
    else:
        verdict = INCONCLUSIVE
    return (
        verdict,
        summary_nums,
        (f"token agreement with the reference {r_agree:.0%} (target vs itself {b_agree:.0%})"),
    )


async def _canary(
    http: httpx.AsyncClient, base: str, model: str, headers: dict[str, str], tag: str
) -> list[CanaryRun]:
    out = []
    for prompt in canary_prompts():
        body = {
            "model": model,
            "prompt": prompt,
            "max_tokens": CANARY_OUTPUT,
            "temperature": 0.0,
            "logprobs": 1,
            "ignore_eos": True,
            "user": tag,
        }
        try:
            resp = await http.post(
                base + "/v1/completions", json=body, headers={**headers, PROBE_HEADER: tag}
            )
        except httpx.HTTPError as exc:
            raise KvdoctorError(f"quant-canary: {base}: {exc}") from None
        if resp.status_code != 200:
            raise KvdoctorError(f"quant-canary: {base} answered HTTP {resp.status_code}")
        lp = resp.json()["choices"][0]["logprobs"]
        out.append(
            CanaryRun(
                tokens=[str(t) for t in lp["tokens"]],
                logprobs=[float(x) if x is not None else 0.0 for x in lp["token_logprobs"]],
            )
        )
    return out


def _canary_plan(ctx: ReproContext) -> dict[str, Any]:
    n = len(canary_prompts())
    return {
        "requests": 3 * n,
        "concurrency": 1,
        "sends": f"{n} fixed greedy prompts twice to the target, once to the reference",
    }


@experiment(
    "quant-canary",
    "Fixed greedy prompts with logprobs on the target (twice) and on a reference server.",
    ("quant-quality",),
    _canary_plan,
    needs_reference=True,
)
async def quant_canary(ctx: ReproContext) -> ReproducerRecord:
    started = time.time()
    probe = _Probe(ctx)
    try:
        ref = _base(ctx.reference_endpoint or "")
        http = ctx.http_client(120.0)
        try:
            t1 = await _canary(http, probe.base, probe.model, ctx.headers, ctx.tag)
            t2 = await _canary(http, probe.base, probe.model, ctx.headers, ctx.tag)
            rr = await _canary(http, ref, ctx.reference_model or probe.model, ctx.headers, ctx.tag)
        finally:
            await http.aclose()
        probe.sent = 3 * len(t1)
        baseline = [compare_runs(a, b) for a, b in zip(t1, t2, strict=True)]
        vs_ref = [compare_runs(a, b) for a, b in zip(t1, rr, strict=True)]
        verdict, nums, summary = canary_verdict(baseline, vs_ref)
        return _record(
            "quant-canary",
            started,
            probe,
            verdict,
            {"fp8-kv-cache": verdict},
            summary,
            expected={"agreement_at_least": "the target's agreement with itself"},
            measured=nums,
            budget=_canary_plan(ctx),
        )
    finally:
        await probe.close()
