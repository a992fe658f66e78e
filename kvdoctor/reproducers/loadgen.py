"""A safe streaming load generator for OpenAI-compatible servers (vLLM first).

Every request streams, and every streamed chunk gets a timestamp, so a run yields TTFT and each
inter-token gap per request. Runs are bounded three ways (request budget, concurrency cap,
deadline) and optionally watched by a :class:`~kvdoctor.reproducers.guard.Guard` that stops the
run when the server's KV usage, preemptions or the error rate cross a limit. Requests are tagged
(OpenAI ``user`` field and the ``X-Kvdoctor-Probe`` header) so an operator can tell them apart in
server logs. Prompts are synthesised (:mod:`kvdoctor.reproducers.prompts`) and never stored: the
result keeps only lengths and timings, as offsets from the run's start (no wall-clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, model_validator

from kvdoctor.bundle.model import JsonObject
from kvdoctor.errors import KvdoctorError
from kvdoctor.reproducers.guard import Guard
from kvdoctor.reproducers.prompts import (
    ASSUMED,
    UNIT_SETS,
    Calibration,
    PrefixMode,
    calibration_from_counts,
    fit_words,
    index_width,
    request_words,
    words_for_tokens,
)
from kvdoctor.reproducers.stream import (
    BadResponse,
    ConnectFailed,
    ServerClosed,
    StreamClient,
)

PROBE_HEADER = "X-Kvdoctor-Probe"
Api = Literal["completions", "chat"]


class LoadSpec(BaseModel):
    """What to send: shape, sizes and hard budgets of one run."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = Field(ge=1, le=1_000_000)
    max_tokens: int = Field(ge=1, le=1_000_000)
    # Closed loop: this many requests in flight at all times. Open loop: the cap on in-flight.
    concurrency: int = Field(default=1, ge=1, le=1024)
    # Request budget: never more than this many requests are sent.
    requests: int = Field(ge=1, le=100_000)
    # Deadline: in-flight requests are cancelled when it passes.
    duration_s: float = Field(default=120.0, gt=0, le=3600)
    # None: closed loop. Otherwise Poisson arrivals at this mean rate (open loop).
    rate_per_s: float | None = Field(default=None, gt=0)
    prefix: PrefixMode = "unique"
    shared_prefix_tokens: int = Field(default=0, ge=0)
    api: Api = "completions"
    # True so that outputs have exactly max_tokens tokens (vLLM's extension of the API).
    ignore_eos: bool = True
    # None: a fresh seed per run, so "unique" prompts never hit a previous run's cache.
    seed: int | None = None
    tag: str = Field(default="kvdoctor-probe", min_length=1, max_length=64)
    # A stream that sends nothing for this long counts as hung and fails.
    stall_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    temperature: float = Field(default=0.0, ge=0.0)
    # Replace the prompt unit at this position (after the tokenizer's overhead) by another one:
    # the prefix-probe's "same prompt with its first token changed".
    perturb_at: int | None = Field(default=None, ge=0)
    # Tenants keyed apart in the prefix cache: request i carries cache_salt "tenant-<i mod n>"
    # (0: no salt). A salt per tenant splits the cache between identical prompts (issue 28).
    cache_salts: int = Field(default=0, ge=0, le=1_000_000)

    @model_validator(mode="after")
    def _check(self) -> LoadSpec:
        if self.prefix != "unique" and self.shared_prefix_tokens > self.prompt_tokens:
            raise ValueError("shared_prefix_tokens must not exceed prompt_tokens")
        return self


class RequestResult(BaseModel):
    """One request: lengths and timings only (seconds; ``start_s`` from the run's start)."""

    model_config = ConfigDict(extra="forbid")

    index: int
    start_s: float
    prompt_tokens: int | None = None
    output_tokens: int = 0
    ttft_s: float | None = None
    itl_s: list[float] = Field(default_factory=list)
    e2e_s: float | None = None
    error: str | None = None
    status: int | None = None
    # Prompt tokens served from the prefix cache, when the server reports them in ``usage``.
    cached_tokens: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class LoadResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spec: LoadSpec
    requests: list[RequestResult] = Field(default_factory=list)
    sent: int = 0
    ok: int = 0
    failed: int = 0
    output_tokens: int = 0
    output_tok_per_s: float = 0.0
    duration_s: float = 0.0
    # Why the run stopped before its budget was spent (guard, deadline), or None.
    aborted: str | None = None
    # time.perf_counter() when the run began sending (this process's clock; requests'
    # ``start_s`` count from it): orders the requests of runs that overlap.
    started_at_s: float | None = None
    # How prompt lengths were obtained: "tokenize", "usage" or "assumed"; and whether exact.
    calibration: str = ""
    prompt_lengths_exact: bool = False
    guard: JsonObject | None = None

    def ok_requests(self) -> list[RequestResult]:
        return [r for r in self.requests if r.ok]

    def first_error(self) -> str | None:
        return next((r.error for r in self.requests if r.error), None)

    def ttfts(self) -> list[float]:
        return [r.ttft_s for r in self.requests if r.ok and r.ttft_s is not None]

    def itls(self) -> list[float]:
        return [g for r in self.requests if r.ok for g in r.itl_s]


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..1) of ``values``, None when empty."""
    if not values:
        return None
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


MAX_EVENT_BYTES = 1 << 20


class EventTooLarge(ValueError):
    """A server-sent event past :data:`MAX_EVENT_BYTES`."""


class SSEParser:
    """Splits a server-sent-events byte stream into the payloads of its ``data:`` lines."""

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        """The ``data:`` payloads completed by ``chunk``. A line past :data:`MAX_EVENT_BYTES`
        raises :class:`EventTooLarge`, whether its end arrived in the same read or not yet
        (one event of 32 tokens is a few KB: a line that long is not a token stream)."""
        self._buf += chunk
        out: list[bytes] = []
        while True:
            nl = self._buf.find(b"\n")
            if nl == -1:
                break
            if nl > MAX_EVENT_BYTES:
                raise EventTooLarge(self._too_large())
            line, self._buf = self._buf[:nl].rstrip(b"\r"), self._buf[nl + 1 :]
            if line.startswith(b"data:"):
                out.append(line[5:].strip())
        if len(self._buf) > MAX_EVENT_BYTES:
            raise EventTooLarge(self._too_large())
        return out

    @staticmethod
    def _too_large() -> str:
        return f"a stream event larger than {MAX_EVENT_BYTES // 1024} KiB"


def _error_message(body: bytes) -> str:
    """A one-line message from an error body (OpenAI/vLLM error JSON or raw text)."""
    msg = ""
    try:
        data = json.loads(body)
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                msg = str(err.get("message") or err.get("detail") or "")
            else:
                msg = str(err)
            if not msg and "detail" in data:
                msg = str(data["detail"])
    except ValueError:
        msg = body.decode("utf-8", "replace")
    return " ".join(msg.split())[:200]


def _error_text(body: bytes, status: int) -> str:
    msg = _error_message(body)
    return f"HTTP {status}: {msg}" if msg else f"HTTP {status}"


class _Client:
    """The run's HTTP clients, the endpoint's paths and the probe tagging.

    ``http`` (httpx) carries the light requests: ``/tokenize``, calibration, the guard's
    scrapes. ``streams`` carries the measured load (see :mod:`kvdoctor.reproducers.stream`
    for why it is not httpx).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        spec: LoadSpec,
        headers: dict[str, str] | None,
        insecure: bool = False,
    ) -> None:
        self.base = base_url.rstrip("/")
        if self.base.endswith("/v1"):
            self.base = self.base[:-3]
        self.model = model
        self.spec = spec
        self.user_headers = dict(headers or {})
        self.headers = {**self.user_headers, PROBE_HEADER: spec.tag}
        timeout = httpx.Timeout(connect=10.0, read=spec.stall_timeout_s, write=10.0, pool=None)
        limits = httpx.Limits(
            max_connections=spec.concurrency + 4, max_keepalive_connections=spec.concurrency + 4
        )
        try:
            self.streams = StreamClient(
                self.base, self.headers, verify=not insecure, max_idle=spec.concurrency + 4
            )
        except ValueError as exc:
            raise KvdoctorError(str(exc)) from exc
        self.http = httpx.AsyncClient(timeout=timeout, limits=limits, verify=not insecure)

    def payload(
        self, text: str, max_tokens: int, stream: bool, index: int | None = None
    ) -> JsonObject:
        body: JsonObject = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": self.spec.temperature,
            "stream": stream,
            "user": self.spec.tag,
        }
        if self.spec.ignore_eos:
            body["ignore_eos"] = True
        if stream:
            body["stream_options"] = {"include_usage": True}
        if self.spec.api == "chat":
            body["messages"] = [{"role": "user", "content": text}]
        else:
            body["prompt"] = text
        salt = cache_salt(self.spec, index)
        if salt is not None:
            body["cache_salt"] = salt
        return body

    @property
    def path(self) -> str:
        return "/v1/chat/completions" if self.spec.api == "chat" else "/v1/completions"

    @property
    def url(self) -> str:
        return self.base + self.path

    async def aclose(self) -> None:
        await self.streams.aclose()
        await self.http.aclose()


# ---------------------------------------------------------------- calibration


async def _tokenize(c: _Client, text: str) -> tuple[int, list[int]] | None:
    body: JsonObject = {"model": c.model}
    if c.spec.api == "chat":
        body["messages"] = [{"role": "user", "content": text}]
        body["add_generation_prompt"] = True
    else:
        body["prompt"] = text
    try:
        resp = await c.http.post(c.base + "/tokenize", json=body, headers=c.user_headers)
    except httpx.HTTPError:
        return None
    if resp.status_code != 200:
        return None
    try:
        data = resp.json()
        tokens = [int(t) for t in data.get("tokens", [])]
        return int(data.get("count", len(tokens))), tokens
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError):
        return None


async def _usage_count(c: _Client, text: str) -> int | None:
    """Prompt tokens the server counts for ``text`` (a one-token, non-streaming request)."""
    try:
        resp = await c.http.post(c.url, json=c.payload(text, 1, False), headers=c.headers)
        if resp.status_code != 200:
            return None
        return _count(resp.json()["usage"]["prompt_tokens"], None)
    except (httpx.HTTPError, ValueError, KeyError, TypeError, RecursionError):
        return None


async def calibrate(c: _Client) -> tuple[Calibration, int]:
    """How the server counts synthetic prompts; also returns the generation requests it cost.

    Tries ``/tokenize`` (free: no generation), then the ``usage`` of one-token completions of one
    unit and of all units (two tiny requests per unit set), else assumes one token per word.
    """
    empty = await _tokenize(c, "")
    if empty is not None:
        overhead = empty[0]
        first: Calibration | None = None
        for units, sep in UNIT_SETS:
            got = await _tokenize(c, sep.join(units))
            if got is None:
                break
            count, ids = got
            unit_ids = ids[len(empty[1]) :] if ids[: len(empty[1])] == empty[1] else None
            # With a chat template the prompt's own tokens sit before the template's tail.
            if c.spec.api == "chat":
                unit_ids = None
            cal = calibration_from_counts(overhead, units, sep, count, unit_ids, "tokenize")
            if cal.exact:
                return cal, 0
            first = first or cal
        if first is not None:
            return first, 0
    spent = 0
    fallback: Calibration | None = None
    for units, sep in UNIT_SETS:
        one = await _usage_count(c, units[0])
        full = await _usage_count(c, sep.join(units))
        spent += 2
        if one is None or full is None:
            break
        tpw = (full - one) / (len(units) - 1)
        overhead = max(one - round(tpw), 0)
        cal = calibration_from_counts(overhead, units, sep, full, None, "usage")
        if cal.exact:
            return cal, spent
        fallback = fallback or cal
    return (fallback or ASSUMED), spent


def _perturb(words: list[str], at: int | None, vocab: tuple[str, ...]) -> None:
    """Replace ``words[at]`` by the next unit of ``vocab`` (a different token, same length)."""
    if at is None or at >= len(words):
        return
    i = vocab.index(words[at]) if words[at] in vocab else -1
    words[at] = vocab[(i + 1) % len(vocab)]


async def build_prompts(c: _Client, cal: Calibration, seed: int) -> list[tuple[str, int | None]]:
    """(text, planned token count or None when unknown) for every request of the budget."""
    spec = c.spec
    n_words = words_for_tokens(spec.prompt_tokens, cal)
    shared = 0
    if spec.prefix != "unique":
        shared = max(spec.shared_prefix_tokens - cal.overhead, 0)
        if not cal.exact:
            shared = round(shared / cal.tokens_per_word)
    width = index_width(spec.requests, len(cal.vocab))
    out: list[tuple[str, int | None]] = []
    for i in range(spec.requests):
        if cal.exact:
            words = request_words(
                i,
                n_words,
                mode=spec.prefix,
                shared_words=shared,
                seed=seed,
                vocab=cal.vocab,
                width=width,
            )
            _perturb(words, spec.perturb_at, cal.vocab)
            out.append((cal.text(words), cal.overhead + n_words))
            continue
        # Not one token per unit: draw generously, then keep the prefix that fits.
        words = request_words(
            i,
            2 * n_words + 8,
            mode=spec.prefix,
            shared_words=shared,
            seed=seed,
            vocab=cal.vocab,
            width=width,
        )
        _perturb(words, spec.perturb_at, cal.vocab)
        if cal.source == "tokenize":

            async def count(text: str) -> int:
                got = await _tokenize(c, text)
                return -1 if got is None else got[0]

            k = await fit_words(words, spec.prompt_tokens, count, sep=cal.sep)
            got = await _tokenize(c, cal.text(words[:k]))
            out.append((cal.text(words[:k]), None if got is None else got[0]))
        else:
            out.append((cal.text(words[:n_words]), None))
    return out


# ---------------------------------------------------------------- the run


class _Req:
    """Mutable progress of one request, so that a cancelled one still reports what it got."""

    __slots__ = (
        "cached",
        "e2e",
        "error",
        "events",
        "index",
        "output_tokens",
        "prompt_tokens",
        "start",
        "status",
        "t_start",
        "times",
    )

    def __init__(self, index: int, start: float, t_start: float) -> None:
        self.index = index
        self.start = start
        self.t_start = t_start
        self.times: list[float] = []
        self.prompt_tokens: int | None = None
        self.output_tokens: int | None = None
        self.e2e: float | None = None
        self.error: str | None = None
        self.status: int | None = None
        self.cached: int | None = None

    def result(self) -> RequestResult:
        ttft = self.times[0] - self.t_start if self.times else None
        itl = [b - a for a, b in zip(self.times, self.times[1:], strict=False)]
        out = self.output_tokens if self.output_tokens is not None else len(self.times)
        return RequestResult(
            index=self.index,
            start_s=self.start,
            prompt_tokens=self.prompt_tokens,
            output_tokens=out,
            ttft_s=ttft,
            itl_s=itl,
            e2e_s=self.e2e,
            error=self.error,
            status=self.status,
            cached_tokens=self.cached,
        )


# Any: a streamed chunk as the server sent it, read defensively before any validation.
def _is_token_event(data: dict[str, Any], api: Api) -> bool:
    choices = data.get("choices")
    if not choices:
        return False
    ch = choices[0]
    if api == "completions":
        return True
    delta = ch.get("delta") or {}
    # vLLM's first chat chunk may carry only the role; it is not a token.
    content = delta.get("content")
    if content is None:
        content = delta.get("reasoning_content") or delta.get("reasoning")
    return content is not None and not (content == "" and "role" in delta)


def cache_salt(spec: LoadSpec, index: int | None) -> str | None:
    """The cache_salt of request ``index`` (None: the spec sends none)."""
    if not spec.cache_salts or index is None:
        return None
    return f"tenant-{index % spec.cache_salts}"


def _count(value: object, previous: int | None) -> int | None:
    """A token count from a server's ``usage``: a whole number in range, else ``previous``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1 << 40:
        return value
    return previous


async def _one(c: _Client, r: _Req, text: str) -> None:
    api = c.spec.api
    body = json.dumps(c.payload(text, c.spec.max_tokens, True, r.index)).encode()
    done = False
    stall = c.spec.stall_timeout_s
    loop = asyncio.get_running_loop()
    try:
        # Our own stall timer, re-armed on every chunk: bounded runs whatever the server does.
        async with (
            asyncio.timeout(stall) as timer,
            c.streams.post(c.path, body) as resp,
        ):
            r.status = resp.status
            if resp.status != 200:
                error_body = b""
                async for chunk in resp.aiter_bytes():
                    error_body += chunk
                    if len(error_body) > 8192:
                        break
                r.error = _error_text(error_body, resp.status)
                return
            parser = SSEParser()
            async for chunk in resp.aiter_bytes():
                now = time.perf_counter()
                timer.reschedule(loop.time() + stall)
                for data in parser.feed(chunk):
                    if data == b"[DONE]":
                        done = True
                        continue
                    try:
                        obj = json.loads(data)
                    except (ValueError, RecursionError):
                        r.error = "malformed stream event"
                        return
                    if not isinstance(obj, dict):
                        continue
                    if "error" in obj or obj.get("object") == "error":
                        r.error = "stream error: " + _error_message(data)
                        return
                    if _is_token_event(obj, api):
                        r.times.append(now)
                    usage = obj.get("usage")
                    if isinstance(usage, dict):
                        # Counts as the server wrote them: anything but a whole number
                        # ("many", 1e400, true) is ignored, not carried into the record.
                        r.prompt_tokens = _count(usage.get("prompt_tokens"), r.prompt_tokens)
                        r.output_tokens = _count(usage.get("completion_tokens"), r.output_tokens)
                        details = usage.get("prompt_tokens_details") or {}
                        if isinstance(details, dict):
                            r.cached = _count(details.get("cached_tokens"), r.cached)
        r.e2e = time.perf_counter() - r.t_start
        if not done:
            r.error = f"stream closed early after {len(r.times)} token event(s)"
        elif not r.times:
            r.error = "stream ended without any token"
    except TimeoutError:
        r.error = f"no data for {c.spec.stall_timeout_s:g} s (server hung)"
    except ConnectFailed as exc:
        r.error = f"cannot connect: {exc}"[:200]
    except ServerClosed as exc:
        r.error = f"connection closed by server: {exc}"[:200]
    except BadResponse as exc:
        r.error = f"bad response: {exc}"[:200]
    except EventTooLarge as exc:
        r.error = f"bad response: {exc}"[:200]
    except OSError as exc:
        r.error = f"{type(exc).__name__}: {exc}"[:200]


async def run_load(
    base_url: str,
    model: str,
    spec: LoadSpec,
    headers: dict[str, str] | None = None,
    guard: Guard | None = None,
    *,
    insecure: bool = False,
) -> LoadResult:
    """Run ``spec`` against ``base_url`` (with or without ``/v1``) and return lengths and timings.

    Never sends more than ``spec.requests`` requests nor more than ``spec.concurrency`` at once,
    and returns by ``spec.duration_s`` after the first request (plus the time to cancel).
    Request failures are recorded per request; the call itself raises only for bad arguments.
    """
    c = _Client(base_url, model, spec, headers, insecure)
    try:
        cal, _spent = await calibrate(c)
        seed = spec.seed if spec.seed is not None else random.SystemRandom().randrange(2**31)
        prompts = await build_prompts(c, cal, seed)
        if guard is not None:
            await guard.start(c.http, c.base, c.user_headers)
        await c.streams.warm(spec.concurrency)
        return await _drive(c, spec, prompts, guard, seed, cal)
    finally:
        await c.aclose()


async def sample_prompts(
    base_url: str,
    model: str,
    spec: LoadSpec,
    n: int,
    headers: dict[str, str] | None = None,
) -> list[JsonObject]:
    """``n`` requests of ``spec`` as an operator's ``--prompts`` sample (JSONL objects):
    the prompts the load generator would send, with their cache salts; nothing is sent but
    the calibration's tokenize calls."""
    small = spec.model_copy(update={"requests": max(1, n)})
    c = _Client(base_url, model, small, headers, False)
    try:
        cal, _spent = await calibrate(c)
        seed = spec.seed if spec.seed is not None else 0
        prompts = await build_prompts(c, cal, seed)
    finally:
        await c.aclose()
    out: list[JsonObject] = []
    for i, (text, _planned) in enumerate(prompts):
        obj: JsonObject = {"prompt": text}
        salt = cache_salt(spec, i)
        if salt is not None:
            obj["cache_salt"] = salt
        out.append(obj)
    return out


async def _drive(
    c: _Client,
    spec: LoadSpec,
    prompts: list[tuple[str, int | None]],
    guard: Guard | None,
    seed: int,
    cal: Calibration,
) -> LoadResult:
    stop = asyncio.Event()
    sem = asyncio.Semaphore(spec.concurrency)
    reqs: list[_Req] = []
    tasks: set[asyncio.Task[None]] = set()
    finished = [0, 0]  # finished, failed
    arrivals = random.Random(f"kvdoctor-arrivals:{seed}")
    t0 = time.perf_counter()

    def counts() -> tuple[int, int]:
        return finished[0], finished[1]

    async def run_one(r: _Req, text: str) -> None:
        try:
            await _one(c, r, text)
        finally:
            finished[0] += 1
            if r.error is not None:
                finished[1] += 1
            sem.release()

    async def dispatch() -> None:
        for i, (text, planned) in enumerate(prompts):
            if spec.rate_per_s is not None and i > 0:
                gap = arrivals.expovariate(spec.rate_per_s)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=gap)
            await sem.acquire()
            if stop.is_set():
                sem.release()
                return
            now = time.perf_counter()
            r = _Req(i, now - t0, now)
            r.prompt_tokens = planned
            reqs.append(r)
            task = asyncio.create_task(run_one(r, text))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        while tasks:
            await asyncio.wait(set(tasks))

    body = asyncio.create_task(dispatch())
    stopper: asyncio.Task[bool] = asyncio.create_task(stop.wait())
    watcher: asyncio.Task[None] | None = (
        asyncio.create_task(guard.watch(c.http, c.base, c.user_headers, counts, stop))
        if guard is not None
        else None
    )
    aborted: str | None = None
    try:
        await asyncio.wait(
            {body, stopper}, timeout=spec.duration_s, return_when=asyncio.FIRST_COMPLETED
        )
        if not body.done():
            if guard is not None and guard.reason is not None:
                aborted = f"guard: {guard.reason}"
            else:
                aborted = (
                    f"deadline of {spec.duration_s:g} s reached with {len(tasks)} request(s) "
                    f"in flight and {len(prompts) - len(reqs)} not sent"
                )
            stop.set()
            for t in [body, *tasks]:
                t.cancel()
            await asyncio.gather(body, *tasks, return_exceptions=True)
    finally:
        stop.set()
        pending = [t for t in (stopper, watcher) if t is not None]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    duration = time.perf_counter() - t0
    if guard is not None:
        await guard.close(c.http, c.base, c.user_headers)
    results = []
    for r in reqs:
        if r.error is None and r.e2e is None:
            r.error = f"stopped ({aborted})" if aborted else "stopped"
        results.append(r.result())
    ok = [r for r in results if r.ok]
    out_tokens = sum(r.output_tokens for r in ok)
    return LoadResult(
        spec=spec.model_copy(update={"seed": seed}),
        requests=results,
        sent=len(results),
        ok=len(ok),
        failed=len(results) - len(ok),
        output_tokens=out_tokens,
        output_tok_per_s=out_tokens / duration if duration > 0 else 0.0,
        duration_s=duration,
        aborted=aborted,
        started_at_s=t0,
        calibration=cal.source,
        prompt_lengths_exact=cal.exact,
        guard=guard.summary() if guard is not None else None,
    )


def run_load_sync(
    base_url: str,
    model: str,
    spec: LoadSpec,
    headers: dict[str, str] | None = None,
    guard: Guard | None = None,
) -> LoadResult:
    """Blocking :func:`run_load` (for scripts and the lab; not inside a running event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_load(base_url, model, spec, headers, guard))
    raise KvdoctorError("run_load_sync called inside an event loop; await run_load instead")
