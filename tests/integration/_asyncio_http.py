"""Serve an ``async (httpx.Request) -> httpx.Response`` handler on a real loopback socket.

The load generator streams over its own asyncio HTTP client, so its tests need real bytes on a
real socket: this server speaks HTTP/1.1 with keep-alive, sends streamed bodies (responses whose
content is an async iterator) chunked and the others with Content-Length, and lets a stream
drop the connection on purpose by raising :class:`DropConnection`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


class DropConnection(Exception):
    """Raised inside a streamed body: the server aborts the TCP connection right there."""


@dataclass
class ServerStats:
    connections: int = 0


async def _write_response(writer: asyncio.StreamWriter, response: httpx.Response) -> None:
    reason = response.reason_phrase or "OK"
    headers = [
        (k, v)
        for k, v in response.headers.items()
        if k.lower() not in ("content-length", "transfer-encoding")
    ]
    try:
        body: bytes | None = response.content
    except httpx.ResponseNotRead:
        body = None
    head = [f"HTTP/1.1 {response.status_code} {reason}", *(f"{k}: {v}" for k, v in headers)]
    if body is not None:
        head.append(f"content-length: {len(body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        return
    head.append("transfer-encoding: chunked")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()
    stream = response.stream
    assert isinstance(stream, httpx.AsyncByteStream)
    async for chunk in stream:
        if chunk:
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()


ConnectionHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def serve_connections(
    handle: ConnectionHandler, tls: ssl.SSLContext | None = None
) -> AsyncIterator[str]:
    """Run ``handle`` for each connection to 127.0.0.1 at a free port; yield the base URL
    (``https`` with ``tls``).

    Connections still open at exit are cancelled; a peer that resets or a cancelled connection
    is not an error. The connection is closed when ``handle`` returns.
    """
    tasks: set[asyncio.Task[None]] = set()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await handle(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            writer.close()
            tasks.discard(task)

    server = await asyncio.start_server(connection, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# A self-signed certificate for 127.0.0.1 valid until 2126, made once with the openssl CLI
# (``req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=127.0.0.1 -addext
# subjectAltName=IP:127.0.0.1``). Test-only: the key protects nothing.
TLS_DIR = Path(__file__).resolve().parents[1] / "data" / "tls"


def self_signed_tls() -> ssl.SSLContext:
    """A server TLS context with the tests' self-signed certificate for 127.0.0.1."""
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(TLS_DIR / "cert.pem", TLS_DIR / "key.pem")
    return tls


@contextlib.asynccontextmanager
async def serve(
    handler: Handler, tls: ssl.SSLContext | None = None
) -> AsyncIterator[tuple[str, ServerStats]]:
    """Yield (base URL, stats) of an HTTP/1.1 server that answers with ``handler``."""
    stats = ServerStats()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stats.connections += 1
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            line, *lines = head.decode("latin-1").split("\r\n")
            method, target, _version = line.split(" ", 2)
            pairs = [(k.strip(), v.strip()) for k, _, v in (h.partition(":") for h in lines if h)]
            length = int({k.lower(): v for k, v in pairs}.get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            request = httpx.Request(method, "http://fake" + target, headers=pairs, content=body)
            response = await handler(request)
            try:
                await _write_response(writer, response)
            except DropConnection:
                writer.transport.abort()
                return

    async with serve_connections(connection, tls) as url:
        yield url, stats
