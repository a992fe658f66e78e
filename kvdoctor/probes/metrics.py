"""The one ``/metrics`` client: every reading of a server's metrics in kvdoctor goes through it.

The capture (``record``, ``diagnose``, the fleet's replicas), ``reproduce --save-bundle``'s
opening scrape, the experiments' discovery and the guard's polls all read ``/metrics`` through
:class:`MetricsClient`, so each applies the same ``--header``, ``--insecure``, byte cap and
redaction; a new caller cannot forget one of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import httpx

from kvdoctor.bundle.model import Scrape
from kvdoctor.bundle.redact import Redactor
from kvdoctor.expfmt import ExpositionError, parse
from kvdoctor.probes.http import (
    DEFAULT_MAX_BYTES,
    Fetched,
    fetch,
    fetch_async,
    join,
    make_client,
)
from kvdoctor.vllm_metrics import PREFIXES


def check_payload(text: str) -> str | None:
    """Why ``text`` is not a usable vLLM metrics payload, or ``None`` when it is."""
    try:
        samples = parse(text)
    except ExpositionError as exc:
        return f"not Prometheus exposition text: {exc}"
    if not any(s.name.startswith(PREFIXES) for s in samples):
        return "no vLLM metrics (vllm:*) in the answer; is this a vLLM server?"
    return None


def server_root(endpoint: str) -> str:
    """The server's root from what people pass: ``…/v1`` (an OpenAI base URL) and a pasted
    ``…/metrics`` both mean the server itself."""
    parts = urlsplit(endpoint.strip())
    path = parts.path.rstrip("/")
    for suffix in ("/metrics", "/v1"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def scrape_metrics(
    client: httpx.Client,
    endpoint: str,
    timeout: float = 5.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    clock: Callable[[], float] = time.time,
    deadline: float | None = None,
) -> Scrape:
    """Scrape ``endpoint``/metrics once, unredacted; a failure becomes a scrape with ``error``.

    The transport step under :meth:`MetricsClient.scrape`, which is what callers use.
    """
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


@dataclass(frozen=True)
class MetricsClient:
    """How to read one server's ``/metrics``: where, with which headers, how much, how scrubbed.

    ``redactor`` defaults to one that removes the header values (secrets never reach disk);
    the capture passes its own so ``--redact`` placeholders match the rest of the bundle.
    """

    endpoint: str
    headers: Mapping[str, str] = field(default_factory=dict)
    insecure: bool = False
    timeout: float = 5.0
    max_bytes: int = DEFAULT_MAX_BYTES
    redactor: Redactor | None = None

    @property
    def root(self) -> str:
        return server_root(self.endpoint)

    @property
    def url(self) -> str:
        return join(self.root, "/metrics")

    def _red(self) -> Redactor:
        return self.redactor or Redactor(secrets=self.headers.values())

    def open(self) -> httpx.Client:
        """A client with the headers, TLS setting and timeout (share it with other probes)."""
        return make_client(self.headers, self.insecure, self.timeout)

    def scrape(
        self,
        client: httpx.Client | None = None,
        *,
        clock: Callable[[], float] = time.time,
        deadline: float | None = None,
    ) -> Scrape:
        """One scrape, checked to be vLLM exposition and redacted, ready for a bundle."""
        if client is None:
            with self.open() as own:
                return self.scrape(own, clock=clock, deadline=deadline)
        got = scrape_metrics(
            client, self.root, self.timeout, self.max_bytes, clock=clock, deadline=deadline
        )
        red = self._red()
        if got.text is not None:
            return got.model_copy(update={"text": red.text(got.text)})
        if got.error is not None:
            return got.model_copy(update={"error": red.text(got.error)})
        return got

    async def read_async(self, client: httpx.AsyncClient) -> Fetched:
        """One ``GET /metrics`` on the event loop, byte-capped; the error text is redacted.

        The text itself is not: the reproducers reduce it to numbers and never store it.
        ``--insecure`` is the async client's (``ReproContext.http_client`` sets it): the
        reproducers share one client for all their light requests.
        """
        got = await fetch_async(client, self.url, self.headers, self.timeout, self.max_bytes)
        if got.error is None:
            return got
        return Fetched(
            got.url,
            status=got.status,
            error=self._red().text(got.error),
            content_type=got.content_type,
        )
