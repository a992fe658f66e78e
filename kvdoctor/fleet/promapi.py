"""A small client for the Prometheus HTTP API (``/api/v1/query_range``, ``/query``, ``/metadata``).

Every answer is kept as the raw JSON Prometheus sent (a fleet bundle records it so a fleet
diagnosis replays offline); parsing into series happens in :mod:`kvdoctor.fleet.series`.
Anything that goes wrong becomes a one-line :class:`~kvdoctor.errors.KvdoctorError`: Prometheus
down, an HTTP or query error, a body that is not the API's JSON, or an answer above the caps.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kvdoctor.bundle.redact import Redactor
from kvdoctor.errors import KvdoctorError
from kvdoctor.urlauth import same_origin, url_credentials

# httpx is imported where a client is made: an offline fleet replay never opens one, and the
# import is a large share of a replay's start-up.
if TYPE_CHECKING:
    import httpx

# Caps on one answer. Prometheus itself refuses range queries above 11,000 points per series;
# these bound what kvdoctor holds in memory and writes into a bundle.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_SERIES = 20_000
MAX_POINTS = 3_000_000
MAX_REDIRECTS = 5

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


class PrometheusError(KvdoctorError):
    """Prometheus could not be queried, or answered something kvdoctor cannot use."""


def parse_duration(text: str, what: str) -> float:
    """``"30m"`` → 1800.0 seconds; a bare number is seconds. Bad text → :class:`KvdoctorError`."""
    m = _DURATION.match(text)
    if m is None:
        raise KvdoctorError(f"{what}: {text!r} is not a duration (examples: 90s, 30m, 2h)")
    seconds = float(m.group(1)) * _UNIT_S[m.group(2)]
    if not math.isfinite(seconds) or seconds <= 0:
        raise KvdoctorError(f"{what}: {text!r} must be a positive duration")
    return seconds


def format_duration(seconds: float) -> str:
    """Seconds → a PromQL duration literal (whole seconds or milliseconds)."""
    if seconds >= 1 and float(seconds).is_integer():
        whole = int(seconds)
        for unit, size in (("h", 3600), ("m", 60)):
            if whole % size == 0:
                return f"{whole // size}{unit}"
        return f"{whole}s"
    return f"{round(seconds * 1000)}ms"


@dataclass(frozen=True)
class RawAnswer:
    """One API call and its raw JSON body, as recorded in a fleet bundle."""

    endpoint: str  # "query_range", "query", "metadata"
    params: dict[str, str]
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "params": self.params, "body": self.body}

    @classmethod
    def from_json(cls, data: Any, where: str) -> RawAnswer:
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("endpoint"), str)
            or not isinstance(data.get("params"), dict)
            or not isinstance(data.get("body"), dict)
        ):
            raise KvdoctorError(f"{where}: not a recorded Prometheus answer")
        params = {str(k): str(v) for k, v in data["params"].items()}
        return cls(data["endpoint"], params, data["body"])


class PromClient:
    """Blocking client for one Prometheus server. ``transport`` lets tests inject a fake."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout_s: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url = base_url.strip().rstrip("/")
        if not re.match(r"^https?://[^/\s]+", url):
            # Not echoed: a mistyped URL can still hold a password.
            raise KvdoctorError("--prometheus: not an http(s) URL, e.g. http://prometheus:9090")
        # user:password@ becomes a Basic header (one rule with --endpoint), so base_url, which
        # every message below names, never holds a credential.
        url, sent = url_credentials(url, headers or {}, "--prometheus")
        self.base_url = url.rstrip("/")
        self._scrub = Redactor(secrets=sent.values())
        import httpx

        self.timeout_s = timeout_s
        # Redirects are followed by hand (:meth:`_send`): only within the origin the user named,
        # so no --header value (an API key, not only Authorization) reaches another server.
        self._client = httpx.Client(
            headers=sent,
            timeout=httpx.Timeout(min(timeout_s, 10.0), connect=min(timeout_s, 10.0)),
            transport=transport,
            follow_redirects=False,
            trust_env=False,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> PromClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- API calls -------------------------------------------------------------------------

    def query_range(self, query: str, start: float, end: float, step_s: float) -> RawAnswer:
        params = {
            "query": query,
            "start": _ts(start),
            "end": _ts(end),
            "step": format_duration(step_s),
        }
        answer = self._call("query_range", params)
        check_result(answer, expect="matrix")
        return answer

    def query(self, query: str, at: float) -> RawAnswer:
        answer = self._call("query", {"query": query, "time": _ts(at)})
        check_result(answer, expect="vector")
        return answer

    def metadata(self) -> RawAnswer:
        """All metric metadata (TYPE/HELP); absent on very old servers, which is not an error."""
        return self._call("metadata", {})

    def targets(self) -> RawAnswer:
        """The active scrape targets with their labels and scrape URLs (GET only in the API)."""
        return self._call("targets", {"state": "active"}, method="GET")

    def _call(self, endpoint: str, params: dict[str, str], method: str = "POST") -> RawAnswer:
        import httpx

        url = f"{self.base_url}/api/v1/{endpoint}"
        # One deadline for the whole call, a dripping answer included: a read timeout alone is
        # reset by every byte, and a byte every few seconds held a diagnosis for minutes.
        deadline = time.monotonic() + self.timeout_s
        try:
            # POST keeps long selectors out of URLs (and out of proxy logs); the API accepts both.
            # /targets takes GET only.
            request = (
                self._client.build_request("POST", url, data=params)
                if method == "POST"
                else self._client.build_request(method, url, params=params)
            )
            for _hop in range(MAX_REDIRECTS + 1):
                resp = self._client.send(request, stream=True)
                try:
                    if not resp.is_redirect:
                        chunks = self._read(resp, endpoint, deadline)
                        status = resp.status_code
                        break
                    nxt = resp.next_request
                finally:
                    resp.close()
                if nxt is None:
                    raise PrometheusError(
                        f"Prometheus at {self.base_url} answered {endpoint} with a redirect "
                        "without a target"
                    )
                if not same_origin(url, str(nxt.url)):
                    # Named by its origin only: a path or query can hold a token.
                    to = f"{nxt.url.scheme}://{nxt.url.host}" + (
                        f":{nxt.url.port}" if nxt.url.port else ""
                    )
                    raise PrometheusError(
                        f"Prometheus at {self.base_url} redirected {endpoint} to another server "
                        f"({self._scrub.text(to)}); not followed, so no header goes there: give "
                        "that server's URL with --prometheus if it is the one meant"
                    )
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("deadline")
                request = nxt
            else:
                raise PrometheusError(
                    f"Prometheus at {self.base_url} redirected {endpoint} more than "
                    f"{MAX_REDIRECTS} times"
                )
        except httpx.TimeoutException:
            raise PrometheusError(
                f"Prometheus at {self.base_url} did not answer {endpoint} within "
                f"{self.timeout_s:g}s"
            ) from None
        except httpx.HTTPError as exc:
            reason = _one_line(self._scrub.text(str(exc))) or type(exc).__name__
            raise PrometheusError(f"cannot reach Prometheus at {self.base_url}: {reason}") from None
        raw = b"".join(chunks)
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            # RecursionError: JSON nested thousands deep (json's C decoder recurses).
            body = None
        if not isinstance(body, dict) or "status" not in body:
            raise PrometheusError(
                f"{self.base_url} answered {endpoint} with HTTP {status} and no Prometheus API "
                "JSON: is this the Prometheus server URL?"
            )
        if body.get("status") != "success":
            # A proxy in front of Prometheus can echo the request, credential included.
            kind = _one_line(self._scrub.text(str(body.get("errorType", "error"))))
            msg = _one_line(self._scrub.text(str(body.get("error", "no message"))))
            raise PrometheusError(f"Prometheus {endpoint} failed ({kind}): {msg}")
        return RawAnswer(endpoint, params, body)

    def _read(self, resp: httpx.Response, endpoint: str, deadline: float) -> list[bytes]:
        import httpx

        chunks: list[bytes] = []
        size = 0
        for chunk in resp.iter_bytes():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise PrometheusError(
                    f"Prometheus answer to {endpoint} is larger than "
                    f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB: narrow --selector, "
                    "shorten --since or raise --step"
                )
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("deadline")
            chunks.append(chunk)
        return chunks


def check_result(
    answer: RawAnswer, expect: str, max_series: int | None = None, max_points: int | None = None
) -> None:
    """Validate the shape of a query answer and enforce the series/points caps (this module's,
    read at call time, unless others are given)."""
    max_series = MAX_SERIES if max_series is None else max_series
    max_points = MAX_POINTS if max_points is None else max_points
    data = answer.body.get("data")
    if not isinstance(data, dict) or data.get("resultType") != expect:
        got = data.get("resultType") if isinstance(data, dict) else None
        raise PrometheusError(f"Prometheus {answer.endpoint} returned {got!r}, expected {expect}")
    result = data.get("result")
    if not isinstance(result, list):
        raise PrometheusError(f"Prometheus {answer.endpoint} returned no result list")
    if len(result) > max_series:
        raise PrometheusError(
            f"Prometheus returned {len(result)} series (cap {max_series}): "
            "narrow --selector to the vLLM job"
        )
    if expect == "matrix":
        points = sum(len(s.get("values", [])) for s in result if isinstance(s, dict))
        if points > max_points:
            raise PrometheusError(
                f"Prometheus returned {points} points (cap {max_points}): "
                "narrow --selector, shorten --since or raise --step"
            )


def _ts(t: float) -> str:
    # Millisecond precision, fixed format: the recorded params are compared on replay.
    return f"{t:.3f}"


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
