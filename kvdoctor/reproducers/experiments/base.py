"""The experiment interface (docs/reproducers.md) and what every experiment shares.

An :class:`Experiment` is class data (its name, the causes it tests, the model of what it
measures, whether it adds load or needs a reference server) plus three methods:

* ``plan(ctx)``: what it would send (``--dry-run`` prints it; the record keeps it as the budget);
* ``run(ctx, session)``: send the probes and return the measured numbers (a pydantic model);
* ``verdict(measured)``: a pure function of those numbers, one verdict per cause it tests.

The runner (:func:`execute`) bounds ``run`` by the plan's deadline and turns the result into the
``kvdoctor.reproducer/1`` record the bundle keeps. Everything an experiment sends goes through a
:class:`Session`, which counts requests and cuts every request to the time left.
"""

from __future__ import annotations

import asyncio
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, JsonValue

from kvdoctor.experiment_catalog import CauseRef, ExperimentSpec
from kvdoctor.reproducers.guard import Guard, GuardLimits, run_kv_share
from kvdoctor.reproducers.loadgen import PROBE_HEADER, LoadResult, LoadSpec, run_load
from kvdoctor.reproducers.metrics import Snapshot, scrape
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.signals.model import SignalSet
from kvdoctor.vocab import CONFIRMED, INCONCLUSIVE, REFUTED, ReproducerVerdict

__all__ = ["CauseRef", "Experiment", "ExperimentSpec", "Judgement", "Measured", "Plan"]


class Plan(BaseModel):
    """What an experiment would send: the dry-run plan and the record's budget."""

    model_config = ConfigDict(extra="forbid")

    requests: int
    concurrency: int
    sends: str
    # Every request of the run ends by this many seconds after it starts.
    deadline_s: float
    # capacity-ramp: the concurrency of each round.
    levels: list[int] | None = None


class Measured(BaseModel):
    """Base of every experiment's measurements (each experiment subclasses it).

    The field names are what a playbook's ``measured:`` conditions may read: the rule engine
    rejects a playbook naming a key the experiment does not report.
    """

    model_config = ConfigDict(extra="forbid")


class Effect(BaseModel):
    """A baseline against a treatment: both sides, the effect, and how many samples each had."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    baseline: float | None
    treatment: float | None
    # treatment / baseline (a ratio) unless ``metric`` says otherwise.
    effect: float | None
    samples_baseline: int
    samples_treatment: int
    # Two-sided rank-sum p-value (None when one side has no samples or no test applies).
    p_value: float | None = None


@dataclass(frozen=True)
class Judgement:
    """What ``verdict`` concludes: per cause, a one-line summary, and the expected numbers."""

    causes: dict[CauseRef, ReproducerVerdict]
    summary: str
    # A Mapping (covariant): each experiment builds it with its own narrower value types.
    expected: Mapping[str, JsonValue] = field(default_factory=dict)
    # The experiment's headline verdict; None: confirmed if any cause is, refuted if all are.
    overall: ReproducerVerdict | None = None


def overall(causes: dict[CauseRef, ReproducerVerdict]) -> ReproducerVerdict:
    """Confirmed if any cause is, refuted if all are, inconclusive otherwise."""
    vals = list(causes.values())
    if CONFIRMED in vals:
        return CONFIRMED
    if vals and all(v == REFUTED for v in vals):
        return REFUTED
    return INCONCLUSIVE


def rnd(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def base_url(url: str) -> str:
    url = url.rstrip("/")
    return url[:-3] if url.endswith("/v1") else url


@dataclass(frozen=True)
class ReproContext:
    """What the experiments know about the server (from the signals) and may do to it."""

    endpoint: str
    model: str | None = None
    # Sent to the target only: auth for the server under diagnosis.
    headers: dict[str, str] = field(default_factory=dict)
    allow_load: bool = False
    reference_endpoint: str | None = None
    reference_model: str | None = None
    # Sent to the reference only (``--reference-header``): the target's headers never are.
    reference_headers: dict[str, str] = field(default_factory=dict)
    block_size: int | None = None
    max_model_len: int | None = None
    kv_capacity_tokens: int | None = None
    num_gpu_blocks: int | None = None
    kv_bytes_per_token: int | None = None
    prefix_caching: bool | None = None
    prefix_hit_rate: float | None = None
    mean_prompt_len: float | None = None
    # The long tail of the workload's prompts (90th percentile): what a short request may
    # wait behind (ttft-split's head-of-line trial).
    prompt_len_p90: float | None = None
    mean_generation_len: float | None = None
    running_mean: float | None = None
    itl_window_s: float | None = None
    max_num_seqs: int | None = None
    gpu_memory_total_bytes: float | None = None
    gpu_memory_used_bytes: float | None = None
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: float | None = None
    weight_bytes: float | None = None
    # The server's own preemption rate in the capture window (per second): the guard does not
    # count that background against a probe (None: the guard estimates it from the server).
    background_preemptions_per_s: float | None = None
    # The highest KV usage the server's own traffic reached in the capture window (0..1): the
    # guard does not stop a probe for a level that traffic reaches by itself.
    background_kv_usage_max: float | None = None
    # The workload's shared prompt prefix, when the operator knows it (block-larger-than-prefix).
    shared_prefix_tokens: int | None = None
    # The operator's own prompts (``--prompts``) as (text, cache_salt), in memory only: the
    # prefix probe replays two of them; only hit counts reach the record.
    sample_prompts: tuple[tuple[str, str | None], ...] = ()
    # What the prompt sample showed (kvdoctor.promptshare.sharing): drift, sub-block, ...
    sample_pattern: str | None = None
    # prefix-probe: the longest it waits for the workload to turn the KV pool over once.
    turnover_wait_s: float = 30.0
    # Probe tag (``user`` field and X-Kvdoctor-Probe header).
    tag: str = "kvdoctor-probe"
    # Skip TLS certificate verification (``--insecure``), as the capture does.
    insecure: bool = False
    # The HTTP transport of the light requests; None is the network (tests pass a mock).
    transport: httpx.AsyncBaseTransport | None = field(default=None, compare=False, repr=False)

    def http_client(self, timeout_s: float) -> httpx.AsyncClient:
        """An httpx client for the experiment's light requests (scrapes, discovery, canary)."""
        return httpx.AsyncClient(
            timeout=timeout_s, verify=not self.insecure, transport=self.transport
        )

    @classmethod
    def from_signals(
        cls,
        signals: SignalSet,
        endpoint: str,
        *,
        headers: dict[str, str] | None = None,
        allow_load: bool = False,
        reference_endpoint: str | None = None,
        reference_headers: dict[str, str] | None = None,
        insecure: bool = False,
        sample_prompts: Sequence[tuple[str, str | None]] = (),
    ) -> ReproContext:
        """A context with every number the signals know, plus what the operator asked for
        (other fields: ``dataclasses.replace`` on the result). ``sample_prompts``: two or
        more of the operator's prompts (text, cache_salt) for the prefix probe to replay."""

        def num(name: str) -> float | None:
            v = signals.get(name)
            return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

        def whole(name: str) -> int | None:
            v = num(name)
            return int(v) if v is not None else None

        pc = signals.get("prefix_caching")
        served = signals.get("served_model")
        # Only a sample showing a shared prefix shorter than a block names the length to test;
        # for drift the prefix before the difference is not what the clients mean to share.
        sample_shared = num("prompt_shared_prefix_tokens")
        sub_block = signals.get("prompt_share_pattern") == "sub-block"
        shared_prefix = int(sample_shared) if sub_block and sample_shared else None
        pattern = signals.get("prompt_share_pattern")
        return cls(
            endpoint=endpoint,
            headers=dict(headers or {}),
            allow_load=allow_load,
            reference_endpoint=reference_endpoint,
            reference_headers=dict(reference_headers or {}),
            insecure=insecure,
            model=served if isinstance(served, str) else None,
            block_size=whole("block_size"),
            max_model_len=whole("max_model_len"),
            kv_capacity_tokens=whole("kv_capacity_tokens"),
            num_gpu_blocks=whole("num_gpu_blocks"),
            kv_bytes_per_token=whole("kv_bytes_per_token"),
            prefix_caching=pc if isinstance(pc, bool) else None,
            prefix_hit_rate=num("prefix_hit_rate_window"),
            mean_prompt_len=num("mean_prompt_len"),
            # From the operator's prompt sample (--prompts), in the server's tokens: the probe
            # then tests the workload's own shared prefix length.
            shared_prefix_tokens=shared_prefix,
            sample_pattern=pattern if isinstance(pattern, str) else None,
            sample_prompts=tuple(sample_prompts),
            prompt_len_p90=num("prompt_len_p90"),
            mean_generation_len=num("mean_generation_len"),
            running_mean=num("running_mean"),
            itl_window_s=num("itl_p50"),
            max_num_seqs=whole("max_num_seqs"),
            gpu_memory_total_bytes=num("gpu_memory_total_bytes"),
            gpu_memory_used_bytes=num("gpu_memory_used_bytes"),
            gpu_memory_utilization=num("gpu_memory_utilization"),
            kv_cache_memory_bytes=num("kv_cache_memory_bytes"),
            background_preemptions_per_s=num("preemptions_per_s"),
            background_kv_usage_max=num("kv_usage_max"),
        )


class Session:
    """One run's requests to the target: counted, tagged, and cut to the deadline."""

    def __init__(self, ctx: ReproContext, deadline_s: float) -> None:
        self.ctx = ctx
        self.base = base_url(ctx.endpoint)
        self.model = ctx.model or ""
        self.sent = 0
        self.aborted: str | None = None
        self.deadline_s = deadline_s
        self._end = time.monotonic() + deadline_s
        # What the run is doing now: a timeout names it.
        self.stage = "starting"
        self.http = ctx.http_client(10.0)

    def remaining(self) -> float:
        return max(self._end - time.monotonic(), 0.0)

    def step(self, stage: str) -> None:
        self.stage = stage

    async def close(self) -> None:
        await self.http.aclose()

    async def scrape(self) -> Snapshot | None:
        return await scrape(self.http, self.base, self.ctx.headers)

    async def complete_once(self, prompt: str, salt: str | None) -> float | None:
        """Send one tagged, one-token completion of ``prompt`` (the operator's own text) and
        return its prefix-cache hit tokens (``cached_tokens`` in usage, else the hit counter's
        delta around it); None when the server did not answer or says nothing."""
        before = await self.scrape()
        body: dict[str, object] = {
            "model": self.model,
            "prompt": prompt,
            "max_tokens": 1,
            "temperature": 0.0,
            "user": self.ctx.tag,
        }
        if salt is not None:
            body["cache_salt"] = salt
        headers = {
            **self.ctx.headers,
            PROBE_HEADER: self.ctx.tag,
            "Content-Type": "application/json",
        }
        self.sent += 1
        try:
            resp = await self.http.post(
                self.base + "/v1/completions",
                content=json.dumps(body).encode(),
                headers=headers,
                timeout=max(min(self.remaining(), 60.0), 1.0),
            )
        except (httpx.HTTPError, OSError):
            return None
        if resp.status_code != 200 or len(resp.content) > 1 << 20:
            return None
        try:
            usage = json.loads(resp.content).get("usage") or {}
            details = usage.get("prompt_tokens_details") or {}
        except (ValueError, AttributeError, RecursionError):
            usage, details = {}, {}
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        if isinstance(cached, int) and not isinstance(cached, bool) and cached >= 0:
            return float(cached)
        after = await self.scrape()
        if before is None or after is None:
            return None
        return after.delta(before, "prefix_hits")

    def run_kv_share(self, spec: LoadSpec) -> float | None:
        """The most of the KV pool ``spec``'s requests can hold at once (None: pool unknown)."""
        block = self.ctx.block_size
        blocks = self.ctx.num_gpu_blocks
        if blocks is None and block and self.ctx.kv_capacity_tokens:
            blocks = self.ctx.kv_capacity_tokens // block
        if not block or not blocks:
            return None
        in_flight = min(spec.concurrency, spec.requests)
        return run_kv_share(spec.prompt_tokens, spec.max_tokens, in_flight, block, blocks)

    async def load(self, spec: LoadSpec, guard: Guard | None = None) -> LoadResult:
        # Each load run ends by the experiment's deadline, whatever the spec asked for.
        left = max(self.remaining(), 0.5)
        spec = spec.model_copy(
            update={
                "tag": self.ctx.tag,
                "duration_s": min(spec.duration_s, left),
                "stall_timeout_s": min(spec.stall_timeout_s, left),
            }
        )
        res = await run_load(
            self.base,
            self.model,
            spec,
            self.ctx.headers,
            guard
            or Guard(
                GuardLimits(
                    background_preemptions_per_s=self.ctx.background_preemptions_per_s,
                    background_max_kv_usage=self.ctx.background_kv_usage_max,
                    run_max_kv_share=self.run_kv_share(spec),
                )
            ),
            insecure=self.ctx.insecure,
        )
        self.sent += res.sent
        if res.aborted and self.aborted is None:
            self.aborted = res.aborted
        return res


M = TypeVar("M", bound=Measured)


class Experiment(ABC, Generic[M]):
    """One small, bounded test of the causes it names (subclass per experiment).

    A subclass sets ``spec`` (its entry in :mod:`kvdoctor.experiment_catalog`, the one home of
    its name, description, causes and needs) and ``measured_model``; the class data below are
    filled from the spec, and a measured model whose fields differ from the catalog's
    ``measures`` is refused when the class is defined.
    """

    spec: ClassVar[ExperimentSpec]
    name: ClassVar[str]
    description: ClassVar[str]
    # The playbook causes this experiment gives a verdict on.
    causes: ClassVar[tuple[CauseRef, ...]]
    # The model of what ``run`` measures; its field names are the keys playbooks may read.
    measured_model: ClassVar[type[Measured]]
    # Adds real load: refuses to run without --allow-load.
    needs_load: ClassVar[bool] = False
    needs_reference: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.spec
        cls.name, cls.description, cls.causes = spec.name, spec.description, spec.causes
        cls.needs_load, cls.needs_reference = spec.needs_load, spec.needs_reference
        fields = tuple(cls.measured_model.model_fields)
        if fields != spec.measures:
            raise TypeError(
                f"{cls.__name__}: measured fields {fields} differ from the catalog's "
                f"{spec.measures} (kvdoctor/experiment_catalog.py)"
            )

    @classmethod
    def needs_flags(cls) -> tuple[str, ...]:
        """The options a run needs beyond --endpoint, as the CLI spells them."""
        return cls.spec.needs_flags()

    @classmethod
    def symptoms(cls) -> tuple[str, ...]:
        return cls.spec.symptoms()

    @classmethod
    def measures(cls) -> tuple[str, ...]:
        return cls.spec.measures

    @abstractmethod
    def plan(self, ctx: ReproContext) -> Plan: ...

    @abstractmethod
    async def run(self, ctx: ReproContext, session: Session) -> M: ...

    @abstractmethod
    def verdict(self, measured: M) -> Judgement: ...

    def checked_verdict(self, measured: M) -> Judgement:
        """``verdict`` checked against the class data: only the causes this experiment tests."""
        j = self.verdict(measured)
        unknown = [str(ref) for ref in j.causes if ref not in self.causes]
        if unknown:
            raise AssertionError(f"{self.name} judged causes it does not test: {unknown}")
        return j


# Any experiment, whatever its measured model: the registry holds all six side by side, and an
# Experiment[Measured] would not accept them (``verdict`` takes its own model, so M is invariant).
AnyExperiment = Experiment[Any]


async def execute(exp: AnyExperiment, ctx: ReproContext) -> ReproducerRecord:
    """Run ``exp`` within its plan's deadline and make its record."""
    started = time.time()
    plan = exp.plan(ctx)
    session = Session(ctx, plan.deadline_s)
    budget = plan.model_dump(exclude_none=True)
    try:
        measured = await asyncio.wait_for(exp.run(ctx, session), timeout=plan.deadline_s)
    except TimeoutError:
        why = f"{exp.name} timed out after {plan.deadline_s:g} s while {session.stage}"
        return ReproducerRecord(
            name=exp.name,
            verdict=INCONCLUSIVE,
            summary=why,
            started_at=started,
            ended_at=time.time(),
            requests_sent=session.sent,
            budget=budget,
            aborted=why,
        )
    finally:
        await session.close()
    j = exp.checked_verdict(measured)
    return ReproducerRecord(
        name=exp.name,
        verdict=j.overall or overall(j.causes),
        cause_verdicts={ref.cause: v for ref, v in j.causes.items()},
        summary=j.summary,
        expected=dict(j.expected),
        measured=measured.model_dump(mode="json"),
        started_at=started,
        ended_at=time.time(),
        requests_sent=session.sent,
        budget=budget,
        aborted=session.aborted,
    )
