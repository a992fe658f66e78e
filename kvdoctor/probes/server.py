"""The server probe: ``/version``, ``/v1/models`` and ``/health``, kept raw."""

from __future__ import annotations

import json

import httpx
from pydantic import JsonValue

from kvdoctor.bundle.model import NotChecked, ServerInfo
from kvdoctor.bundle.reader import MAX_JSON_DEPTH, json_depth
from kvdoctor.probes.http import fetch, join

# These answers are small JSON documents; a large one is not what we asked for.
_MAX_BYTES = 4 * 1024 * 1024


def _json_body(
    client: httpx.Client, url: str, timeout: float, deadline: float | None
) -> tuple[JsonValue, str | None]:
    got = fetch(client, url, timeout=timeout, max_bytes=_MAX_BYTES, deadline=deadline)
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
    """Server facts, and what could not be read (never raises)."""
    missing: list[NotChecked] = []
    version, err = _json_body(client, join(endpoint, "/version"), timeout, deadline)
    if err:
        missing.append(NotChecked(what="server /version", why=err))
    models, err = _json_body(client, join(endpoint, "/v1/models"), timeout, deadline)
    if err:
        missing.append(NotChecked(what="server /v1/models", why=err))
    health_got = fetch(
        client,
        join(endpoint, "/health"),
        timeout=timeout,
        max_bytes=_MAX_BYTES,
        deadline=deadline,
    )
    health = health_got.status
    if health is None:
        missing.append(NotChecked(what="server /health", why=health_got.error or "no answer"))
    if version is None and models is None and health is None:
        return None, [NotChecked(what="server", why="; ".join(nc.why for nc in missing))]
    return ServerInfo(version=version, models=models, health=health), missing
