"""The guard: watches ``/metrics`` during a load run and stops it before it hurts the server.

docs/reproducers.md: every run has a guard that stops early when KV usage, preemptions or
errors cross a limit. The decision is a pure function (:func:`decide`) of the baseline scrape,
the latest scrape and the client's own request counts, so it is unit-tested without a server.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from kvdoctor.bundle.model import JsonObject
from kvdoctor.reproducers.metrics import Snapshot, scrape


@dataclass(frozen=True)
class GuardLimits:
    # Stop when the fullest KV pool is above this fraction (0..1).
    max_kv_usage: float = 0.95
    # Stop when more than this many preemptions happened since the run started.
    max_new_preemptions: int = 0
    # Stop when this share of finished requests failed ...
    max_error_rate: float = 0.5
    # ... once at least this many have finished (one early failure is not a rate).
    min_finished_for_error_rate: int = 4
    # Seconds between scrapes.
    interval_s: float = 0.5
    # The server's own preemption rate before the run (the capture window's, per second), or
    # None to estimate it from the baseline scrape (lifetime count over uptime). A server that
    # already preempts on its own traffic would otherwise stop every probe at once, even one
    # request that adds nothing: only preemptions beyond that background count against the run.
    background_preemptions_per_s: float | None = None
    # The highest KV usage the server's own traffic reached in the capture window (0..1), or
    # None: a pool the traffic itself fills past the limit is not the run's doing, so the limit
    # rises two points above that level (as for a baseline scrape already above it).
    background_max_kv_usage: float | None = None
    # The most of the pool (0..1) the run's own requests can hold at once (their blocks over
    # the pool's), or None when the pool's size is unknown. Usage above the limit stops the run
    # only when the run's own blocks are what carry it past: when usage less that share is
    # still above the limit, the server's traffic fills the pool by itself (it may rise after
    # the baseline was taken), and any harm the run adds there shows as preemptions, which
    # the preemption check counts.
    run_max_kv_share: float | None = None


def run_kv_share(
    prompt_tokens: int, max_tokens: int, in_flight: int, block_size: int, pool_blocks: int
) -> float | None:
    """The share of a ``pool_blocks`` pool that ``in_flight`` requests of this size can hold."""
    if block_size <= 0 or pool_blocks <= 0 or in_flight <= 0:
        return None
    per_request = -(-(prompt_tokens + max_tokens) // block_size)
    return min(1.0, per_request * in_flight / pool_blocks)


def allowed_preemptions(
    limits: GuardLimits, background_per_s: float | None, elapsed_s: float
) -> int:
    """Preemptions the run may see after ``elapsed_s``: the limit plus the background's share.

    The background is a Poisson process at ``background_per_s``: its expected count over the
    run plus three standard deviations is not attributed to the run.
    """
    if background_per_s is None or background_per_s <= 0 or elapsed_s <= 0:
        return limits.max_new_preemptions
    expected = background_per_s * elapsed_s
    return limits.max_new_preemptions + math.ceil(expected + 3.0 * math.sqrt(expected))


def decide(
    baseline: Snapshot | None,
    current: Snapshot | None,
    limits: GuardLimits,
    finished: int,
    failed: int,
    background_per_s: float | None = None,
    elapsed_s: float = 0.0,
) -> str | None:
    """Why the run must stop now, or None to let it continue.

    Usage and preemptions count against the run only beyond the server's own level: a pool
    the server's traffic already holds above the limit stops the run when it rises further
    (two points), a pool that stays above the limit without the run's own share
    (``run_max_kv_share``) is the traffic's, and ``background_per_s`` preemptions per second
    are the server's own.
    """
    if current is not None:
        usage = current.get("kv_usage")
        limit = limits.max_kv_usage
        before = baseline.get("kv_usage") if baseline is not None else None
        own = max(
            (v for v in (before, limits.background_max_kv_usage) if v is not None), default=None
        )
        if own is not None and own >= limit:
            limit = own + 0.02
        share = limits.run_max_kv_share
        traffic_alone_over = share is not None and usage is not None and usage - share > limit
        if usage is not None and usage > limit and not traffic_alone_over:
            return f"KV cache usage {usage:.0%} above the guard's limit {limit:.0%}"
        if baseline is not None:
            new_pre = current.delta(baseline, "preemptions")
            allowed = allowed_preemptions(limits, background_per_s, elapsed_s)
            if new_pre is not None and new_pre > allowed:
                return f"{new_pre:.0f} preemption(s) during the run (guard allows {allowed})"
    if finished >= limits.min_finished_for_error_rate and finished > 0:
        rate = failed / finished
        if rate > limits.max_error_rate:
            return (
                f"{failed} of {finished} requests failed "
                f"(error rate above the guard's {limits.max_error_rate:.0%})"
            )
    return None


def lifetime_preemption_rate(snap: Snapshot, now_epoch_s: float) -> float | None:
    """Preemptions per second since the server started (its counter over its uptime).

    The server's ``process_start_time_seconds`` against this host's clock: None when either is
    missing or the uptime is under a minute (too short to call a rate, or clocks disagree).
    """
    count = snap.get("preemptions")
    started = snap.get("process_start")
    if count is None or started is None:
        return None
    uptime = now_epoch_s - started
    if uptime < 60.0:
        return None
    return count / uptime


@dataclass
class Guard:
    """Polls ``/metrics`` while a run lasts; sets ``reason`` and the stop event on a breach."""

    limits: GuardLimits = field(default_factory=GuardLimits)
    reason: str | None = None
    scrapes_ok: int = 0
    scrapes_failed: int = 0
    max_kv_usage: float | None = None
    # Most requests running at once in any scrape: whether the offered concurrency was held.
    max_running: float | None = None
    new_preemptions: float | None = None
    baseline: Snapshot | None = None
    last: Snapshot | None = None
    # The server's own preemption rate the run is judged against (see GuardLimits).
    background_preemptions_per_s: float | None = None
    _started: float = 0.0

    async def start(
        self, client: httpx.AsyncClient, base_url: str, headers: dict[str, str] | None
    ) -> None:
        """Take the baseline scrape (before any request is sent)."""
        self.baseline = await scrape(client, base_url, headers)
        self._started = time.monotonic()
        self.background_preemptions_per_s = self.limits.background_preemptions_per_s
        if self.background_preemptions_per_s is None and self.baseline is not None:
            self.background_preemptions_per_s = lifetime_preemption_rate(self.baseline, time.time())
        self._count(self.baseline)

    def _count(self, snap: Snapshot | None) -> None:
        if snap is None:
            self.scrapes_failed += 1
            return
        self.scrapes_ok += 1
        usage = snap.get("kv_usage")
        if usage is not None:
            prev = self.max_kv_usage
            self.max_kv_usage = usage if prev is None else max(prev, usage)
        running = snap.get("running")
        if running is not None:
            self.max_running = (
                running if self.max_running is None else max(self.max_running, running)
            )
        if self.baseline is not None:
            pre = snap.delta(self.baseline, "preemptions")
            if pre is not None:
                self.new_preemptions = pre

    def check(self, snap: Snapshot | None, finished: int, failed: int) -> str | None:
        """Record one scrape and return the reason to stop, if any (first reason sticks)."""
        self._count(snap)
        if snap is not None:
            self.last = snap
        if self.reason is None:
            self.reason = decide(
                self.baseline,
                snap,
                self.limits,
                finished,
                failed,
                self.background_preemptions_per_s,
                time.monotonic() - self._started,
            )
        return self.reason

    async def close(
        self, client: httpx.AsyncClient, base_url: str, headers: dict[str, str] | None
    ) -> None:
        """Take the closing scrape after the last request ended.

        Preemptions late in a round happen between two polls; without this reading a short
        round ends before the guard ever sees them (capacity-ramp then misses its knee).
        It only records numbers: a run that already finished is not "stopped" by it.
        """
        snap = await scrape(client, base_url, headers)
        self._count(snap)
        if snap is not None:
            self.last = snap

    async def watch(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        headers: dict[str, str] | None,
        counts: Callable[[], tuple[int, int]],
        stop: asyncio.Event,
    ) -> None:
        """Scrape every ``interval_s`` until ``stop`` is set; set it on a breach."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=self.limits.interval_s)
                return
            except TimeoutError:
                pass
            snap = await scrape(client, base_url, headers)
            finished, failed = counts()
            if self.check(snap, finished, failed) is not None:
                stop.set()
                return

    def summary(self) -> JsonObject:
        return {
            "limits": {
                "max_kv_usage": self.limits.max_kv_usage,
                "max_new_preemptions": self.limits.max_new_preemptions,
                "max_error_rate": self.limits.max_error_rate,
            },
            "scrapes_ok": self.scrapes_ok,
            "scrapes_failed": self.scrapes_failed,
            "max_kv_usage": self.max_kv_usage,
            "new_preemptions": self.new_preemptions,
            "background_preemptions_per_s": self.background_preemptions_per_s,
            "reason": self.reason,
        }
