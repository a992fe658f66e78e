"""The metrics probe: one ``GET /metrics``, kept as raw text when it is usable exposition."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from kvdoctor.bundle.model import Scrape
from kvdoctor.expfmt import ExpositionError, parse
from kvdoctor.probes.http import DEFAULT_MAX_BYTES, fetch, join

VLLM_PREFIXES = ("vllm:", "ray_vllm:")


def check_payload(text: str) -> str | None:
    """Why ``text`` is not a usable vLLM metrics payload, or ``None`` when it is."""
    try:
        samples = parse(text)
    except ExpositionError as exc:
        return f"not Prometheus exposition text: {exc}"
    if not any(s.name.startswith(VLLM_PREFIXES) for s in samples):
        return "no vLLM metrics (vllm:*) in the answer; is this a vLLM server?"
    return None


def scrape_metrics(
    client: httpx.Client,
    endpoint: str,
    timeout: float = 5.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    clock: Callable[[], float] = time.time,
    deadline: float | None = None,
) -> Scrape:
    """Scrape ``endpoint``/metrics once; a failure becomes a scrape with ``error`` set."""
    t = clock()
    got = fetch(
        client, join(endpoint, "/metrics"), timeout=timeout, max_bytes=max_bytes, deadline=deadline
    )
    if got.error is not None or got.text is None:
        return Scrape(t=t, status=got.status, error=got.error or "empty answer")
    why = check_payload(got.text)
    if why is not None:
        return Scrape(t=t, status=got.status, error=f"/metrics: {why}")
    return Scrape(t=t, status=got.status, text=got.text)
