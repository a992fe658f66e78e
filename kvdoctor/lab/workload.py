"""Drive a scenario's workload against a lab server through the reproducers' load generator.

A workload is groups of phases (:class:`kvdoctor.lab.scenarios.Phase`): the phases of a group run
at the same time, groups run one after the other. :class:`WorkloadRunner` runs it in a
background thread (optionally over and over) so that a capture can watch the server meanwhile,
and stops it promptly on request: in-flight streams are cancelled, nothing keeps running.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

from kvdoctor.lab.scenarios import LAB_TAG, Phase, Scenario
from kvdoctor.reproducers.loadgen import LoadResult, LoadSpec, run_load, run_load_sync

# The prompt that times this host's prefill: long enough that the prefill, not the request's
# overhead, is what is timed; short enough to take about a second on a slow host.
PREFILL_PROBE_TOKENS = 2048
PREFILL_PROBE_REQUESTS = 3
# Sized lengths are whole blocks of the lab's 128-token cache.
_SIZE_STEP = 128


def sized_prompt_tokens(
    probe_ttfts: Sequence[float], prefill_s: float, least: int, most: int
) -> int:
    """The prompt length whose prefill takes ``prefill_s`` at the speed the probes measured.

    The first probe pays the server's warm-up and is left out when there are others; the
    quickest of the rest is the prefill with nothing else running. CPU prefill of the lab's
    model grows about linearly with length at these sizes. No timing: the most the scenario
    allows, as it was designed.
    """
    timed = [t for t in probe_ttfts[1:] or probe_ttfts if t > 0]
    if not timed:
        return most
    tokens = PREFILL_PROBE_TOKENS * prefill_s / min(timed)
    tokens = round(tokens / _SIZE_STEP) * _SIZE_STEP
    return max(least, min(most, tokens))


def fit_to_host(scenario: Scenario, url: str, model: str) -> Scenario:
    """``scenario`` with its host-sized phase's prompt set by this host's measured prefill.

    Scenarios without a host-sized phase come back unchanged, and no request is sent.
    """
    sizing = scenario.host_sized
    if sizing is None:
        return scenario
    probe = LoadSpec(
        prompt_tokens=PREFILL_PROBE_TOKENS,
        max_tokens=1,
        concurrency=1,
        requests=PREFILL_PROBE_REQUESTS,
        duration_s=120.0,
        tag=LAB_TAG,
    )
    ttfts = run_load_sync(url, model, probe).ttfts()
    tokens = sized_prompt_tokens(ttfts, sizing.prefill_s, sizing.least, sizing.most)
    phases = list(scenario.workload)
    sized = phases[sizing.phase]
    phases[sizing.phase] = dataclasses.replace(
        sized, spec=sized.spec.model_copy(update={"prompt_tokens": tokens})
    )
    return dataclasses.replace(scenario, workload=tuple(phases))


async def run_groups(url: str, model: str, groups: Sequence[Sequence[Phase]]) -> list[LoadResult]:
    """Run each group's phases concurrently, the groups in order; return every phase's result."""
    results: list[LoadResult] = []
    for group in groups:
        got = await asyncio.gather(*(run_load(url, model, p.spec) for p in group))
        results.extend(got)
    return results


class WorkloadRunner:
    """The scenario's workload in a background thread, repeated until :meth:`stop`."""

    def __init__(self, url: str, model: str, scenario: Scenario, *, repeat: bool = True) -> None:
        self.url = url
        self.model = model
        self.scenario = scenario
        self.repeat = repeat
        self.results: list[LoadResult] = []
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stopping = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(
            target=self._main, name="kvdoctor-lab-workload", daemon=True
        )

    def start(self) -> WorkloadRunner:
        """Size the workload to the host (:func:`fit_to_host`), then start it.

        ``scenario`` is the workload as sent from here on: a test reads its sized lengths.
        """
        self.scenario = fit_to_host(self.scenario, self.url, self.model)
        self._thread.start()
        self._started.wait(timeout=10.0)
        return self

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # reported to the caller through ``error``
            self.error = exc
        finally:
            self._started.set()

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._started.set()
        groups = self.scenario.phases_by_group()
        if not groups:
            return
        try:
            while not self._stopping.is_set():
                self.results.extend(await run_groups(self.url, self.model, groups))
                if not self.repeat:
                    return
        except asyncio.CancelledError:
            # Stopped on request: the load generator has cancelled its streams already.
            return

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout_s: float = 30.0) -> list[LoadResult]:
        """Cancel the workload (in-flight requests included) and wait for the thread to end."""
        self._stopping.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            # RuntimeError: the loop finished between the check and the call.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        self._thread.join(timeout=timeout_s)
        return self.results

    def join(self, timeout_s: float | None = None) -> list[LoadResult]:
        """Wait for a non-repeating workload to finish."""
        self._thread.join(timeout=timeout_s)
        return self.results
