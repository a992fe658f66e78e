"""The one /metrics client: headers, byte cap and redaction, on an in-memory transport."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from vllm_payloads import payload

from kvdoctor.probes.metrics import MetricsClient, server_root
from kvdoctor.reproducers.experiments.base import ReproContext
from kvdoctor.reproducers.experiments.registry import enrich
from kvdoctor.reproducers.metrics import scrape

TOKEN = "sk-test-0123456789abcdef"
IDLE = payload("metrics-idle.txt")


def _serving(text: str, seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path != "/metrics":
            return httpx.Response(404)
        return httpx.Response(200, text=text)

    return httpx.MockTransport(handle)


@pytest.mark.parametrize(
    ("given", "root"),
    [
        ("http://h:8000", "http://h:8000"),
        ("http://h:8000/", "http://h:8000"),
        ("http://h:8000/v1", "http://h:8000"),
        ("http://h:8000/metrics", "http://h:8000"),
        ("https://h/proxy/vllm/v1/", "https://h/proxy/vllm"),
    ],
)
def test_server_root_accepts_what_people_paste(given: str, root: str) -> None:
    assert server_root(given) == root
    assert MetricsClient(given).url == root + "/metrics"


def test_scrape_redacts_the_header_value_echoed_in_the_payload() -> None:
    seen: list[httpx.Request] = []
    # A server (or a proxy in front of it) that echoes the credential into a label.
    echoed = IDLE + f'vllm:echo{{auth="Bearer {TOKEN}"}} 1\n'
    metrics = MetricsClient("http://h:8000/v1", {"Authorization": f"Bearer {TOKEN}"})
    with httpx.Client(transport=_serving(echoed, seen)) as client:
        got = metrics.scrape(client)
    assert got.ok and got.text is not None
    assert TOKEN not in got.text and "<secret>" in got.text
    assert seen[0].url.path == "/metrics"


def test_scrape_refuses_a_payload_that_is_not_vllm() -> None:
    with httpx.Client(transport=_serving("up 1\n", [])) as client:
        got = MetricsClient("http://h:8000").scrape(client)
    assert not got.ok and got.error is not None and "no vLLM metrics" in got.error


def test_async_read_sends_the_headers_and_caps_the_size() -> None:
    seen: list[httpx.Request] = []
    metrics = MetricsClient("http://h:8000", {"Authorization": f"Bearer {TOKEN}"}, max_bytes=64)

    async def go() -> tuple[bool, str | None]:
        async with httpx.AsyncClient(transport=_serving(IDLE, seen)) as client:
            got = await metrics.read_async(client)
        return got.ok, got.error

    ok, error = asyncio.run(go())
    assert not ok and error is not None and "larger than" in error
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_reproducer_scrape_and_discovery_go_through_the_client() -> None:
    seen: list[httpx.Request] = []
    # The recorded payload's vllm:cache_config_info: block_size 128, 8192 blocks, caching on.
    transport = _serving(IDLE, seen)
    ctx = ReproContext(
        endpoint="http://h:8000/v1",
        model="m",
        max_model_len=2048,
        headers={"Authorization": f"Bearer {TOKEN}"},
        transport=transport,
    )

    async def go() -> tuple[ReproContext, bool]:
        done = await enrich(ctx)
        async with ctx.http_client(5.0) as client:
            snap = await scrape(client, ctx.endpoint, ctx.headers)
        return done, snap is not None

    done, snapped = asyncio.run(go())
    assert snapped
    assert (done.block_size, done.num_gpu_blocks, done.prefix_caching) == (128, 8192, True)
    assert [r.url.path for r in seen] == ["/metrics", "/metrics"]
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in seen)
