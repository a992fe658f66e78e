"""The load generator's HTTP/1.1 stream client against scripted servers on loopback sockets.

Each server below answers with exact bytes, so framing (chunked, Content-Length, read to
close), keep-alive reuse and every way a peer can misbehave are checked on the wire.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from _asyncio_http import serve_connections

from kvdoctor.reproducers.stream import (
    BadResponse,
    ConnectFailed,
    ServerClosed,
    StreamClient,
)

# Given the raw request bytes (head + body) and the connection's request number, the bytes to
# answer and whether to close the connection afterwards.
Script = Callable[[bytes, int], tuple[bytes, bool]]


@asynccontextmanager
async def scripted(script: Script) -> AsyncIterator[tuple[str, list[bytes], list[int]]]:
    """Yield (base URL, raw requests seen, one entry per connection accepted)."""
    seen: list[bytes] = []
    conns: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conns.append(1)
        n = 0
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            raw = head + await reader.readexactly(length)
            seen.append(raw)
            answer, close = script(raw, n)
            n += 1
            for i in range(0, len(answer), 7):  # odd pieces: framing must not care
                writer.write(answer[i : i + 7])
                await writer.drain()
            if close:
                return

    async with serve_connections(handle) as url:
        yield url, seen, conns


async def fetch(client: StreamClient, path: str = "/v1/x") -> tuple[int, bytes]:
    async with client.post(path, b'{"a": 1}') as resp:
        body = b"".join([piece async for piece in resp.aiter_bytes()])
        return resp.status, body


CHUNKED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    b"6;ext=1\r\ndata: \r\n"
    b'10\r\n{"t": "hello"}\n\n\r\n'
    b"0\r\nx-trailer: yes\r\n\r\n"
)


def test_chunked_body_is_decoded_and_connection_reused() -> None:
    async def go() -> None:
        async with scripted(lambda raw, n: (CHUNKED, False)) as (url, seen, conns):
            client = StreamClient(url + "/gw", {"X-Probe": "p"})
            for _ in range(3):
                assert await fetch(client) == (200, b'data: {"t": "hello"}\n\n')
            await client.aclose()
            assert len(conns) == 1
            head = seen[0].split(b"\r\n\r\n", 1)[0].decode() + "\r\n"
            assert head.startswith("POST /gw/v1/x HTTP/1.1\r\n")
            port = url.rsplit(":", 1)[1]
            assert f"\r\nHost: 127.0.0.1:{port}\r\n" in head
            assert "\r\nX-Probe: p\r\n" in head and "\r\nContent-Length: 8\r\n" in head
            assert seen[0].endswith(b'\r\n\r\n{"a": 1}')

    asyncio.run(go())


def test_content_length_and_read_to_close_bodies() -> None:
    def script(raw: bytes, n: int) -> tuple[bytes, bool]:
        if b"/len" in raw:
            return b"HTTP/1.1 503 Busy\r\nContent-Length: 5\r\n\r\nbusy!", False
        if b"/old" in raw:  # HTTP/1.0 closes after a response unless it says keep-alive
            return b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold", True
        return b"HTTP/1.0 200 OK\r\n\r\nuntil close", True

    async def go() -> None:
        async with scripted(script) as (url, _seen, conns):
            client = StreamClient(url)
            assert await fetch(client, "/len") == (503, b"busy!")
            assert await fetch(client, "/close") == (200, b"until close")
            # The read-to-close response cannot be reused: the next request opens a connection.
            assert await fetch(client, "/len") == (503, b"busy!")
            assert client.idle_connections == 1
            assert await fetch(client, "/old") == (200, b"old")
            assert client.idle_connections == 0
            assert await fetch(client, "/len") == (503, b"busy!")
            await client.aclose()
            assert len(conns) == 3

    asyncio.run(go())


def test_idle_connection_closed_by_server_is_retried_once() -> None:
    # The server closes after each answer without saying so: the client's idle connection is
    # dead when reused, and the request is sent again on a fresh one.
    async def go() -> None:
        async with scripted(lambda raw, n: (CHUNKED, True)) as (url, seen, conns):
            client = StreamClient(url)
            assert (await fetch(client))[0] == 200
            await asyncio.sleep(0.05)
            assert (await fetch(client))[0] == 200
            await client.aclose()
            assert len(conns) == 2 and len(seen) == 2

    asyncio.run(go())


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (b"SSH-2.0-OpenSSH_9\r\n\r\n", BadResponse, "not an HTTP/1.x response"),
        (b"HTTP/1.1 200 OK\r\nbroken header\r\n\r\n", BadResponse, "bad header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", BadResponse, "bad Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", BadResponse, "chunk size"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort",
            ServerClosed,
            "inside a chunk",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", ServerClosed, "5 bytes short"),
        (b"HTTP/1.1 200", ServerClosed, "before a response"),
    ],
)
def test_misbehaving_servers_give_one_clear_error(
    answer: bytes, error: type[Exception], message: str
) -> None:
    async def go() -> None:
        async with scripted(lambda raw, n: (answer, True)) as (url, _seen, _conns):
            client = StreamClient(url)
            with pytest.raises(error, match=message):
                await fetch(client)
            await client.aclose()

    asyncio.run(go())


def test_warm_opens_connections_the_requests_then_use() -> None:
    async def go() -> None:
        async with scripted(lambda raw, n: (CHUNKED, False)) as (url, seen, conns):
            client = StreamClient(url)
            assert await client.warm(3) == 3
            await asyncio.sleep(0.05)
            assert len(conns) == 3 and seen == []
            results = await asyncio.gather(*(fetch(client) for _ in range(3)))
            assert [status for status, _ in results] == [200, 200, 200]
            await client.aclose()
            assert len(conns) == 3

    asyncio.run(go())


def test_warm_against_a_closed_port_opens_nothing_and_does_not_raise() -> None:
    async def go() -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))  # bound, not listening: refused
            client = StreamClient(f"http://127.0.0.1:{s.getsockname()[1]}")
            assert await client.warm(2) == 0
            with pytest.raises(ConnectFailed, match=r"127\.0\.0\.1"):
                await fetch(client)
            await client.aclose()

    asyncio.run(go())
