"""A small HTTP/1.1 client for the load generator's streamed POSTs, on plain asyncio streams.

Why not httpx for this one path: on the lab (two cores shared with vLLM), alternating runs of
the same workload (64 streams, 128/128, concurrency 16) gave 2,660–3,750 output tok/s through a
minimal httpx 0.28 / httpcore 1.0 client and 3,290–4,930 through plain asyncio streams; while
the lab's server still ran in another session (see kvdoctor.lab.server on autogroup) the httpx
client fell to 520–2,070, with the waits inside httpcore's request-write path rather than in
CPU. The load generator measures the server, so its client must not be the bottleneck; every
other request (``/tokenize``, ``/metrics``, the calibration) stays on httpx.

Scope, on purpose: ``POST`` with a byte body, responses with chunked, Content-Length or
read-to-close bodies, keep-alive reuse, ``http`` and ``https``. No proxies, redirects,
compression or HTTP/2: a load probe talks to the server it diagnoses, directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from kvdoctor import __version__

# Bounds on what a server may send before the body, so a broken peer cannot grow memory.
_MAX_HEAD_BYTES = 64 * 1024
_READ_BYTES = 64 * 1024


class StreamError(Exception):
    """Base of every failure of a streamed request (message is one line)."""


class ConnectFailed(StreamError):
    pass


class ServerClosed(StreamError):
    """The server closed the connection before the response was complete."""


class BadResponse(StreamError):
    """The server's bytes are not HTTP/1.x."""


def check_headers(headers: dict[str, str]) -> None:
    """Raise ValueError for a header that could not be sent as given."""
    for name, value in headers.items():
        # A CR or LF would let a header value start a new header or a new request.
        if not name or any(ch in name for ch in ":\r\n \t") or any(ch in value for ch in "\r\n"):
            raise ValueError(f"invalid HTTP header {name!r}")
        try:
            f"{name}{value}".encode("latin-1")
        except UnicodeEncodeError as exc:
            raise ValueError(f"HTTP header {name!r} is not latin-1 text") from exc


class StreamResponse:
    """Status, headers (names lower-cased) and the body as it arrives."""

    def __init__(
        self,
        status: int,
        headers: dict[str, str],
        reader: asyncio.StreamReader,
        http10: bool = False,
    ) -> None:
        self.status = status
        self.headers = headers
        self._reader = reader
        self.complete = False
        te = headers.get("transfer-encoding", "").lower()
        self._chunked = "chunked" in te
        length = headers.get("content-length")
        self._length: int | None = None
        if not self._chunked and length is not None:
            try:
                self._length = int(length)
            except ValueError as exc:
                raise BadResponse(f"bad Content-Length {length!r}") from exc
            if self._length < 0:
                raise BadResponse(f"bad Content-Length {length!r}")
        # HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when told to.
        connection = headers.get("connection", "").lower()
        persistent = connection == "keep-alive" if http10 else connection != "close"
        self.keep_alive = persistent and (self._chunked or self._length is not None)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The decoded body, piece by piece, as the server sends it."""
        if self._chunked:
            async for piece in self._chunks():
                yield piece
        elif self._length is not None:
            async for piece in self._exactly(self._length, "body ended {left} bytes short"):
                yield piece
        else:
            while piece := await self._reader.read(_READ_BYTES):
                yield piece
        self.complete = True

    async def _exactly(self, n: int, short: str) -> AsyncIterator[bytes]:
        """The next ``n`` bytes as they arrive; ServerClosed(``short``) if the peer stops."""
        left = n
        while left:
            piece = await self._reader.read(min(left, _READ_BYTES))
            if not piece:
                raise ServerClosed(short.format(left=left))
            left -= len(piece)
            yield piece

    async def _line(self) -> bytes:
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            raise ServerClosed("connection closed inside a chunked body") from exc
        except asyncio.LimitOverrunError as exc:
            raise BadResponse("chunk header too long") from exc
        return line.rstrip(b"\r\n")

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            size_line = await self._line()
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError as exc:
                raise BadResponse(f"bad chunk size {size_line[:40]!r}") from exc
            if size == 0:
                while await self._line():  # trailers, up to the empty line
                    pass
                return
            async for piece in self._exactly(size, "connection closed inside a chunk"):
                yield piece
            if await self._line():
                raise BadResponse("chunk not followed by CRLF")


class StreamClient:
    """POSTs to one server with one set of headers, reusing idle keep-alive connections.

    ``base_url`` may carry a path prefix (``https://gw.example/vllm``); paths given to
    :meth:`post` are appended to it. ``headers`` are checked and rendered once, here: a bad
    header is a ValueError from the constructor, never from a request.
    """

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str] | None = None,
        *,
        verify: bool = True,
        connect_timeout_s: float = 10.0,
        max_idle: int = 64,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        default_port = self._port == (443 if parts.scheme == "https" else 80)
        host = f"[{self._host}]" if ":" in self._host else self._host
        self._host_header = host if default_port else f"{host}:{self._port}"
        self._prefix = parts.path.rstrip("/")
        self._ssl: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._ssl = ssl.create_default_context()
            if not verify:  # --insecure: the operator's call, as for the capture
                self._ssl.check_hostname = False
                self._ssl.verify_mode = ssl.CERT_NONE
        self._connect_timeout_s = connect_timeout_s
        self._max_idle = max_idle
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._header_block = self._render_headers(headers or {})

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                return await asyncio.open_connection(
                    self._host, self._port, ssl=self._ssl, limit=_MAX_HEAD_BYTES
                )
        except TimeoutError as exc:
            raise ConnectFailed(
                f"no connection to {self._host_header} within {self._connect_timeout_s:g} s"
            ) from exc
        except (OSError, ssl.SSLError) as exc:
            raise ConnectFailed(f"{self._host_header}: {exc.strerror or exc}") from exc

    def _render_headers(self, headers: dict[str, str]) -> bytes:
        """The header lines every request sends (all but Content-Length), CRLF-terminated."""
        check_headers(headers)
        base = {
            "Host": self._host_header,
            "User-Agent": f"kvdoctor/{__version__}",
            "Accept": "*/*",
            "Content-Type": "application/json",
        }
        given = {k.lower() for k in headers}
        merged = {**{k: v for k, v in base.items() if k.lower() not in given}, **headers}
        return "".join(f"{name}: {value}\r\n" for name, value in merged.items()).encode("latin-1")

    def _request_bytes(self, path: str, body: bytes) -> bytes:
        request_line = f"POST {self._prefix}{path} HTTP/1.1\r\n".encode("latin-1")
        length = f"Content-Length: {len(body)}\r\n\r\n".encode("latin-1")
        return request_line + self._header_block + length + body

    async def _read_head(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bool]:
        """Status, headers (lower-cased names) and whether the server spoke HTTP/1.0."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            raise ServerClosed("connection closed before a response") from exc
        except asyncio.LimitOverrunError as exc:
            raise BadResponse("response headers too large") from exc
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise BadResponse(f"not an HTTP/1.x response: {status_line[:60]!r}")
        headers: dict[str, str] = {}
        for line in header_lines:
            if not line:
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise BadResponse(f"bad header line {line[:60]!r}")
            key = name.strip().lower()
            # Repeated headers are joined as RFC 9110 §5.3 allows.
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        return int(parts[1]), headers, parts[0] == "HTTP/1.0"

    @contextlib.asynccontextmanager
    async def post(self, path: str, body: bytes) -> AsyncIterator[StreamResponse]:
        """Send one POST and yield its response once the status and headers are in.

        The connection goes back to the idle pool only when the body was read to its end and
        the server keeps it alive; on any error or cancellation it is closed.
        """
        request = self._request_bytes(path, body)
        reused = bool(self._idle)
        reader, writer = self._idle.pop() if reused else await self._connect()
        reusable = False
        try:
            try:
                writer.write(request)
                await writer.drain()
                status, resp_headers, http10 = await self._read_head(reader)
            except (ServerClosed, ConnectionError) as exc:
                if not reused:
                    raise ServerClosed(str(exc) or "connection closed") from exc
                # An idle keep-alive connection the server had closed in the meantime (its
                # keep-alive timeout): nothing came back, so the request is sent once more on a
                # fresh connection, as HTTP clients do for idempotent retries of stale sockets.
                writer.close()
                reader, writer = await self._connect()
                writer.write(request)
                await writer.drain()
                status, resp_headers, http10 = await self._read_head(reader)
            response = StreamResponse(status, resp_headers, reader, http10)
            yield response
            reusable = response.complete and response.keep_alive
        except ConnectionError as exc:
            raise ServerClosed(str(exc) or type(exc).__name__) from exc
        finally:
            if reusable and len(self._idle) < self._max_idle:
                self._idle.append((reader, writer))
            else:
                writer.close()

    @property
    def idle_connections(self) -> int:
        return len(self._idle)

    async def warm(self, n: int) -> int:
        """Open up to ``n`` idle connections now; return how many are ready.

        The load generator calls this before its clock starts, so TTFT measures the server and
        not TCP (and TLS) handshakes. A failure here is not an error: the requests will meet it
        again and report it.
        """
        need = max(0, min(n, self._max_idle) - len(self._idle))
        opened = await asyncio.gather(
            *(self._connect() for _ in range(need)), return_exceptions=True
        )
        self._idle += [conn for conn in opened if isinstance(conn, tuple)]
        return len(self._idle)

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for _reader, writer in idle:
            writer.close()
