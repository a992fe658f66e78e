"""Drive a scenario's workload against a lab server through the reproducers' load generator.

A workload is groups of phases (:class:`kvdoctor.lab.scenarios.Phase`): the phases of a group run
at the same time, groups run one after the other. :class:`WorkloadRunner` runs it in a
background thread (optionally over and over) so that a capture can watch the server meanwhile,
and stops it promptly on request: in-flight streams are cancelled, nothing keeps running.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import Any

from kvdoctor.lab.scenarios import Phase, Scenario
from kvdoctor.reproducers.loadgen import LoadResult, run_load


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
