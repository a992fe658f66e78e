"""The server probe: ``/version``, ``/v1/models`` and ``/health``, kept raw.

A live capture runs them with :class:`ServerProbe`: on their own threads and clients, beside
the metrics window, under their own short deadline, so a slow answer costs the window none of
its scrapes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import httpx
from pydantic import JsonValue

from kvdoctor.bundle.model import NotChecked, ServerInfo
from kvdoctor.bundle.reader import MAX_JSON_DEPTH, json_depth
from kvdoctor.probes.http import Fetched, fetch, join

# These answers are small JSON documents; a large one is not what we asked for.
_MAX_BYTES = 4 * 1024 * 1024
# The server probes' own deadline in a live capture (all three at once, beside the window): a
# healthy server answers each in milliseconds.
SERVER_PROBE_S = 5.0
_PATHS = ("/version", "/v1/models", "/health")


def _json_body(
    client: httpx.Client, url: str, timeout: float, deadline: float | None
) -> tuple[JsonValue, str | None]:
    return _parse_json(fetch(client, url, timeout=timeout, max_bytes=_MAX_BYTES, deadline=deadline))


def _parse_json(got: Fetched) -> tuple[JsonValue, str | None]:
    if got.error is not None or got.text is None:
        return None, got.error or "empty answer"
    try:
        value: JsonValue = json.loads(got.text)
    except RecursionError:
        return None, "answer is JSON nested too deeply"
    except ValueError:  # not JSON, or a number of thousands of digits
        return None, "answer is not JSON"
    if json_depth(value) > MAX_JSON_DEPTH:
        # The bundle reader would refuse it: keeping it would make the saved bundle unreadable.
        return None, "answer is JSON nested too deeply"
    return value, None


def probe_server(
    client: httpx.Client, endpoint: str, timeout: float = 5.0, deadline: float | None = None
) -> tuple[ServerInfo | None, list[NotChecked]]:
    """Server facts, and what could not be read (never raises); one after the other."""
    version = _json_body(client, join(endpoint, "/version"), timeout, deadline)
    models = _json_body(client, join(endpoint, "/v1/models"), timeout, deadline)
    health_got = fetch(
        client,
        join(endpoint, "/health"),
        timeout=timeout,
        max_bytes=_MAX_BYTES,
        deadline=deadline,
    )
    return _assemble(version, models, health_got)


def _assemble(
    version: tuple[JsonValue, str | None],
    models: tuple[JsonValue, str | None],
    health_got: Fetched,
) -> tuple[ServerInfo | None, list[NotChecked]]:
    missing: list[NotChecked] = []
    if version[1]:
        missing.append(NotChecked(what="server /version", why=version[1]))
    if models[1]:
        missing.append(NotChecked(what="server /v1/models", why=models[1]))
    health = health_got.status
    if health is None:
        missing.append(NotChecked(what="server /health", why=health_got.error or "no answer"))
    if version[0] is None and models[0] is None and health is None:
        return None, [NotChecked(what="server", why="; ".join(nc.why for nc in missing))]
    return ServerInfo(version=version[0], models=models[0], health=health), missing


class ServerProbe:
    """``/version``, ``/v1/models`` and ``/health`` at once, each on its own thread and client,
    all under one deadline of their own (``min(timeout, budget_s)`` from the start), so the
    capture's scrapes go on while they wait. :meth:`result` never raises."""

    def __init__(
        self,
        open_client: Callable[[], httpx.Client],
        endpoint: str,
        timeout: float = 5.0,
        budget_s: float = SERVER_PROBE_S,
    ) -> None:
        self.budget_s = min(timeout, budget_s)
        self.deadline = time.monotonic() + self.budget_s
        self._got: dict[str, Fetched] = {}
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(
                target=self._run,
                args=(open_client, join(endpoint, path), path, timeout),
                name=f"kvdoctor-probe{path.replace('/', '-')}",
                daemon=True,
            )
            for path in _PATHS
        ]
        for t in self._threads:
            t.start()

    def _run(
        self, open_client: Callable[[], httpx.Client], url: str, path: str, timeout: float
    ) -> None:
        try:
            with open_client() as client:
                got = fetch(client, url, timeout, max_bytes=_MAX_BYTES, deadline=self.deadline)
        except Exception as exc:  # a probe never raises, even from its own thread
            got = Fetched(url, error=f"{type(exc).__name__}: {exc}"[:200])
        with self._lock:
            self._got[path] = got

    def result(self) -> tuple[ServerInfo | None, list[NotChecked]]:
        """Wait for the probes (at most until their deadline, plus a second for the threads to
        return) and assemble what they got."""
        for t in self._threads:
            t.join(max(0.0, self.deadline - time.monotonic()) + 1.0)
        with self._lock:
            got = dict(self._got)

        def of(path: str) -> Fetched:
            late = f"no answer within the server probes' {self.budget_s:g} s"
            return got.get(path) or Fetched(path, error=late)

        return _assemble(_parse_json(of("/version")), _parse_json(of("/v1/models")), of("/health"))
