"""HTTP access for the probes: bounded in time and size, errors as one-line messages.

Nothing here raises for network trouble: every request ends as a :class:`Fetched` with either a
body or an ``error`` string a person can act on. Bodies are streamed and cut off at a byte cap,
so a runaway payload (or a decompression bomb) is never held whole in memory.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

# A vLLM /metrics payload is tens to hundreds of KB; many LoRA adapters or engines can make it a
# few MB. Far beyond that is not a metrics endpoint we can use.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024

_STATUS_HINTS = {
    401: "the endpoint needs credentials (--header 'Authorization: Bearer …')",
    403: "the credentials were refused",
    404: "not found (is the URL the server's root, and is it vLLM?)",
}


@dataclass(frozen=True)
class Fetched:
    url: str
    status: int | None = None
    text: str | None = None
    error: str | None = None
    content_type: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None and self.status == 200 and self.text is not None


def make_client(
    headers: Mapping[str, str] | None = None, insecure: bool = False, timeout: float = 5.0
) -> httpx.Client:
    return httpx.Client(
        headers=dict(headers or {}),
        verify=not insecure,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
    )


def join(endpoint: str, path: str) -> str:
    return endpoint.rstrip("/") + path


def describe_error(exc: BaseException, timeout: float) -> str:
    """A one-line, actionable description of a transport error."""
    text = " ".join(str(exc).split())
    low = text.lower()
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connection timed out after {timeout:.3g}s"
    if isinstance(exc, (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout)):
        return f"no answer within {timeout:.3g}s (the server accepted the connection but is silent)"
    if isinstance(exc, httpx.ConnectError):
        if "refused" in low:
            return "connection refused (nothing listens there)"
        if "certificate" in low or "ssl" in low or "tls" in low:
            return f"TLS handshake failed ({_clip(text)}); --insecure skips verification"
        if "name or service not known" in low or "nodename nor servname" in low or "resolve" in low:
            return "cannot resolve the host name"
        return f"cannot connect: {_clip(text) or type(exc).__name__}"
    if isinstance(exc, httpx.ReadError | httpx.WriteError) and (
        "reset" in low or "broken pipe" in low
    ):
        return "the server reset the connection"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the server closed the connection without a valid HTTP answer"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return "unsupported URL scheme (use http:// or https://)"
    if isinstance(exc, httpx.InvalidURL):
        return f"invalid URL: {_clip(text)}"
    if isinstance(exc, httpx.DecodingError):
        return "the answer could not be decoded (bad content encoding)"
    return f"{type(exc).__name__}: {_clip(text)}" if text else type(exc).__name__


def _too_big(path: str, max_bytes: int) -> str:
    return f"answer from {path} is larger than {max_bytes // (1024 * 1024)} MiB; not loaded"


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def status_error(status: int, reason: str, path: str) -> str:
    hint = _STATUS_HINTS.get(status)
    base = f"HTTP {status} {reason}".strip() + f" from {path}"
    return f"{base}: {hint}" if hint else base


class _Answer:
    """One GET's answer as it arrives: the status check, the byte cap and the drip cut-off, the
    same for :func:`fetch` and :func:`fetch_async` (only the reading loop differs)."""

    def __init__(
        self,
        url: str,
        path: str,
        resp: httpx.Response,
        max_bytes: int,
        started: float,
        cut_off: float,
    ) -> None:
        self.url, self.path, self.max_bytes = url, path, max_bytes
        self.started, self.cut_off = started, cut_off
        self.status = resp.status_code
        self.ctype = resp.headers.get("content-type", "")
        self.refused: Fetched | None = None
        if resp.status_code != 200:
            self.refused = self._error(status_error(resp.status_code, resp.reason_phrase, path))
        self._chunks: list[bytes] = []
        self._size = 0

    def _error(self, text: str) -> Fetched:
        return Fetched(self.url, status=self.status, error=text, content_type=self.ctype)

    def add(self, chunk: bytes) -> Fetched | None:
        """Keep one chunk; the answer to return instead when the body broke a bound."""
        self._size += len(chunk)
        if self._size > self.max_bytes:
            return self._error(_too_big(self.path, self.max_bytes))
        if time.monotonic() > self.cut_off:
            return self._error(
                f"answer from {self.path} still arriving after "
                f"{self.cut_off - self.started:.3g}s; cut off"
            )
        self._chunks.append(chunk)
        return None

    def done(self) -> Fetched:
        body = b"".join(self._chunks).decode("utf-8", errors="replace")
        return Fetched(self.url, status=self.status, text=body, content_type=self.ctype)


def _bounds(path: str, timeout: float, deadline: float | None) -> tuple[float, float, float] | str:
    """(start, per-request timeout, cut-off for the whole body), or why no time is left."""
    now = time.monotonic()
    cut_off = now + timeout * 2
    if deadline is not None:
        left = deadline - now
        if left <= 0:
            return f"no time left in the capture window for {path}"
        timeout = min(timeout, left)
        cut_off = min(cut_off, deadline)
    return now, timeout, cut_off


def fetch(
    client: httpx.Client,
    url: str,
    timeout: float = 5.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float | None = None,
) -> Fetched:
    """GET ``url``; never raises for network or server trouble.

    ``deadline`` (``time.monotonic()`` time) bounds the whole request, dripping bodies
    included: a capture passes the end of its window, so a hanging server cannot stretch it.
    """
    path = urlsplit(url).path or "/"
    bounds = _bounds(path, timeout, deadline)
    if isinstance(bounds, str):
        return Fetched(url, error=bounds)
    started, timeout, cut_off = bounds
    try:
        with client.stream("GET", url, timeout=httpx.Timeout(timeout)) as resp:
            answer = _Answer(url, path, resp, max_bytes, started, cut_off)
            if answer.refused is not None:
                return answer.refused
            for chunk in resp.iter_bytes():
                if (broke := answer.add(chunk)) is not None:
                    return broke
            return answer.done()
    except (httpx.HTTPError, OSError, ValueError) as exc:
        return Fetched(url, error=describe_error(exc, timeout))


async def fetch_async(
    client: httpx.AsyncClient,
    url: str,
    headers: Mapping[str, str] | None = None,
    timeout: float = 5.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float | None = None,
) -> Fetched:
    """:func:`fetch` for the reproducers' event loop: the same bounds and one-line errors.

    ``headers`` go with this request only: the reproducers share one client between the
    target and nothing else, and the caller decides which endpoint's headers apply.
    """
    path = urlsplit(url).path or "/"
    bounds = _bounds(path, timeout, deadline)
    if isinstance(bounds, str):
        return Fetched(url, error=bounds)
    started, timeout, cut_off = bounds
    try:
        async with client.stream(
            "GET", url, headers=dict(headers or {}), timeout=httpx.Timeout(timeout)
        ) as resp:
            answer = _Answer(url, path, resp, max_bytes, started, cut_off)
            if answer.refused is not None:
                return answer.refused
            async for chunk in resp.aiter_bytes():
                if (broke := answer.add(chunk)) is not None:
                    return broke
            return answer.done()
    except (httpx.HTTPError, OSError, ValueError) as exc:
        return Fetched(url, error=describe_error(exc, timeout))
