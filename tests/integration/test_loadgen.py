"""The load generator against an in-process fake OpenAI server on a real loopback socket.

The fake tokenizes byte-level (one character, one token, like the lab's model) so prompt
synthesis can be checked exactly; it can also error, hang, end streams early or drop the
connection mid-stream.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
import pytest
from _asyncio_http import DropConnection, ServerStats, self_signed_tls, serve

from kvdoctor.errors import KvdoctorError
from kvdoctor.reproducers.experiments import ReproContext, run_experiment_async
from kvdoctor.reproducers.guard import Guard, GuardLimits
from kvdoctor.reproducers.loadgen import (
    PROBE_HEADER,
    LoadResult,
    LoadSpec,
    run_load,
)
from kvdoctor.reproducers.model import ReproducerRecord


@dataclass
class FakeServer:
    mode: str = "ok"  # ok | error500 | early-close | drop | hang | stream-error
    tokenize: bool = True
    token_delay_s: float = 0.0
    kv_usage_per_request: float = 0.0
    prompts: list[str] = field(default_factory=list)
    payloads: list[dict[str, object]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    # Preemptions the fake "engine" counts when a stream finishes (late in a round).
    preemptions_per_finished_request: float = 0.0
    preemptions: float = 0.0

    def count(self, text: str) -> int:
        # Byte-level tokenizer with a BOS token, so there is an overhead to calibrate.
        return 1 + len(text.encode())

    async def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/tokenize":
            if not self.tokenize:
                return httpx.Response(404, json={"detail": "Not Found"})
            body = json.loads(request.content)
            text = body["prompt"]
            ids = [1, *list(text.encode())]
            return httpx.Response(200, json={"count": len(ids), "tokens": ids})
        if path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m", "max_model_len": 4096}]})
        if path == "/metrics":
            usage = min(self.in_flight * self.kv_usage_per_request, 1.0)
            text = (
                "# TYPE vllm:kv_cache_usage_perc gauge\n"
                f'vllm:kv_cache_usage_perc{{engine="0",model_name="m"}} {usage}\n'
                "# TYPE vllm:num_preemptions counter\n"
                f'vllm:num_preemptions_total{{engine="0",model_name="m"}} {self.preemptions}\n'
            )
            return httpx.Response(200, text=text)
        if path == "/v1/completions":
            body = json.loads(request.content)
            self.payloads.append(body)
            self.headers.append(dict(request.headers))
            prompt = body["prompt"]
            if not body.get("stream"):
                counts = {"prompt_tokens": self.count(prompt), "completion_tokens": 1}
                return httpx.Response(200, json={"choices": [{"text": "x"}], "usage": counts})
            self.prompts.append(prompt)
            if self.mode == "error500":
                return httpx.Response(500, json={"error": {"message": "engine dead"}})
            return httpx.Response(200, content=self.stream(prompt, int(body["max_tokens"])))
        return httpx.Response(404)

    async def stream(self, prompt: str, n: int) -> AsyncIterator[bytes]:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            for i in range(n):
                if self.mode == "hang" and i == 2:
                    await asyncio.sleep(3600)
                if self.mode == "early-close" and i == 3:
                    return
                if self.mode == "drop" and i == 3:
                    raise DropConnection
                if self.mode == "stream-error" and i == 1:
                    yield b'data: {"error": {"message": "boom"}}\n\n'
                    return
                await asyncio.sleep(self.token_delay_s)
                yield b'data: {"choices": [{"index": 0, "text": "a"}]}\n\n'
            usage = {"prompt_tokens": self.count(prompt), "completion_tokens": n}
            yield b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\n"
            yield b"data: [DONE]\n\n"
            self.preemptions += self.preemptions_per_finished_request
        finally:
            self.in_flight -= 1


def run_with_stats(
    fake: FakeServer, spec: LoadSpec, guard: Guard | None = None
) -> tuple[LoadResult, ServerStats]:
    async def go() -> tuple[LoadResult, ServerStats]:
        async with serve(fake.handler) as (url, stats):
            res = await run_load(url + "/v1", "m", spec, {"Authorization": "Bearer s"}, guard)
            return res, stats

    return asyncio.run(go())


def run(fake: FakeServer, spec: LoadSpec, guard: Guard | None = None) -> LoadResult:
    return run_with_stats(fake, spec, guard)[0]


def test_exact_prompt_lengths_and_streaming_timings() -> None:
    fake = FakeServer(token_delay_s=0.001)
    spec = LoadSpec(prompt_tokens=100, max_tokens=8, concurrency=3, requests=7, seed=1)
    res = run(fake, spec)
    assert res.sent == res.ok == 7 and res.failed == 0 and res.aborted is None
    assert res.calibration == "tokenize" and res.prompt_lengths_exact
    assert [fake.count(p) for p in fake.prompts] == [100] * 7
    assert len(set(fake.prompts)) == 7
    for r in res.requests:
        assert r.prompt_tokens == 100 and r.output_tokens == 8
        assert r.ttft_s is not None and r.ttft_s > 0
        assert len(r.itl_s) == 7 and all(g >= 0 for g in r.itl_s)
        assert r.e2e_s is not None and r.e2e_s >= r.ttft_s
    assert res.output_tokens == 56 and res.output_tok_per_s > 0
    assert fake.max_in_flight <= 3


def test_requests_are_tagged_and_carry_user_headers() -> None:
    fake = FakeServer()
    spec = LoadSpec(prompt_tokens=20, max_tokens=2, requests=2, tag="probe-x", seed=3)
    run(fake, spec)
    for payload, headers in zip(fake.payloads, fake.headers, strict=True):
        assert payload["user"] == "probe-x"
        assert payload["ignore_eos"] is True
        assert headers[PROBE_HEADER.lower()] == "probe-x"
        assert headers["authorization"] == "Bearer s"


def test_result_keeps_no_prompt_text() -> None:
    fake = FakeServer()
    spec = LoadSpec(prompt_tokens=60, max_tokens=2, requests=2, seed=5)
    res = run(fake, spec)
    dumped = res.model_dump_json()
    for prompt in fake.prompts:
        assert prompt not in dumped


def test_shared_prefix_is_shared_and_unique_is_not() -> None:
    fake = FakeServer()
    spec = LoadSpec(
        prompt_tokens=80,
        max_tokens=1,
        requests=4,
        prefix="shared",
        shared_prefix_tokens=50,
        seed=9,
    )
    run(fake, spec)
    heads = {p[:49] for p in fake.prompts}  # 49 characters + BOS = 50 tokens
    assert len(heads) == 1
    assert len(set(fake.prompts)) == 4

    fake2 = FakeServer()
    run(fake2, spec.model_copy(update={"prefix": "unique"}))
    assert len({p[:1] for p in fake2.prompts}) == 4  # differ from the very first token


def test_timestamp_first_shares_body_but_not_prefix() -> None:
    fake = FakeServer()
    spec = LoadSpec(
        prompt_tokens=80,
        max_tokens=1,
        requests=4,
        prefix="timestamp-first",
        shared_prefix_tokens=60,
        seed=2,
    )
    run(fake, spec)
    assert len({p[:1] for p in fake.prompts}) == 4
    assert len({p[2:50] for p in fake.prompts}) == 1


def test_fallback_calibration_from_usage_without_tokenize() -> None:
    fake = FakeServer(tokenize=False)
    spec = LoadSpec(prompt_tokens=64, max_tokens=2, requests=3, seed=4)
    res = run(fake, spec)
    assert res.calibration == "usage" and res.prompt_lengths_exact
    assert [fake.count(p) for p in fake.prompts] == [64] * 3


def test_request_budget_is_never_exceeded() -> None:
    fake = FakeServer()
    spec = LoadSpec(prompt_tokens=10, max_tokens=1, concurrency=8, requests=5, seed=1)
    res = run(fake, spec)
    assert res.sent == 5 and len(fake.prompts) == 5


def test_server_errors_are_reported_per_request() -> None:
    fake = FakeServer(mode="error500")
    res = run(fake, LoadSpec(prompt_tokens=10, max_tokens=4, requests=3, seed=1))
    assert res.ok == 0 and res.failed == 3
    assert res.first_error() == "HTTP 500: engine dead"
    assert all(r.status == 500 for r in res.requests)


def test_early_closed_stream_is_an_error() -> None:
    fake = FakeServer(mode="early-close")
    res = run(fake, LoadSpec(prompt_tokens=10, max_tokens=8, requests=2, seed=1))
    assert res.failed == 2
    assert res.first_error() == "stream closed early after 3 token event(s)"


def test_connection_dropped_mid_stream_is_an_error() -> None:
    fake = FakeServer(mode="drop")
    res = run(fake, LoadSpec(prompt_tokens=10, max_tokens=8, requests=2, seed=1))
    assert res.failed == 2
    err = res.first_error()
    assert err is not None and err.startswith("connection closed by server")
    # What arrived before the drop is kept.
    assert all(len(r.itl_s) == 2 for r in res.requests)


def test_unreachable_server_fails_each_request_with_a_clear_message() -> None:
    # Calibration falls back to assumptions when nothing answers; the streams then fail.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connection refused
        spec = LoadSpec(prompt_tokens=10, max_tokens=2, requests=2, seed=1)
        res = asyncio.run(run_load(f"http://127.0.0.1:{port}", "m", spec))
    assert res.failed == 2
    err = res.first_error()
    assert err is not None and err.startswith(f"cannot connect: 127.0.0.1:{port}")


def test_streams_reuse_keep_alive_connections() -> None:
    fake = FakeServer()
    spec = LoadSpec(prompt_tokens=10, max_tokens=3, requests=12, concurrency=2, seed=1)
    res, stats = run_with_stats(fake, spec)
    assert res.ok == 12
    # 12 streams over at most 2 stream connections, plus httpx's for /tokenize.
    assert stats.connections <= 4


def test_header_that_could_split_a_request_is_refused() -> None:
    spec = LoadSpec(prompt_tokens=10, max_tokens=2, requests=1, seed=1)
    with pytest.raises(KvdoctorError, match="invalid HTTP header"):
        asyncio.run(run_load("http://127.0.0.1:9", "m", spec, {"X-A": "v\r\nX-B: w"}))


def test_https_endpoint_with_a_self_signed_certificate_needs_insecure() -> None:
    tls = self_signed_tls()
    spec = LoadSpec(prompt_tokens=20, max_tokens=3, requests=2, seed=1)

    async def go(insecure: bool) -> LoadResult:
        async with serve(FakeServer().handler, tls) as (url, _stats):
            assert url.startswith("https://")
            return await run_load(url, "m", spec, insecure=insecure)

    verified = asyncio.run(go(insecure=False))
    assert verified.failed == 2
    err = verified.first_error()
    assert err is not None and err.startswith("cannot connect") and "CERTIFICATE" in err.upper()
    res = asyncio.run(go(insecure=True))
    assert res.ok == 2 and res.calibration == "tokenize" and res.prompt_lengths_exact


def test_insecure_reaches_every_request_of_an_experiment() -> None:
    # Discovery, scrapes and the measured streams all go to the self-signed server.
    tls = self_signed_tls()

    async def go(insecure: bool) -> ReproducerRecord:
        async with serve(FakeServer().handler, tls) as (url, _stats):
            ctx = ReproContext(endpoint=url, insecure=insecure)
            return await run_experiment_async("ttft-split", ctx)

    with pytest.raises(KvdoctorError, match="CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(go(insecure=False))
    rec = asyncio.run(go(insecure=True))
    # One round of 4 short and 4 workload-length probes (no histograms: no second round).
    assert rec.requests_sent == 8 and rec.measured["probes_ok"] == 8


def test_error_event_inside_stream() -> None:
    fake = FakeServer(mode="stream-error")
    res = run(fake, LoadSpec(prompt_tokens=10, max_tokens=8, requests=1, seed=1))
    assert res.first_error() == "stream error: boom"


def test_hung_stream_fails_after_stall_timeout() -> None:
    fake = FakeServer(mode="hang")
    spec = LoadSpec(
        prompt_tokens=10, max_tokens=8, requests=2, concurrency=2, seed=1, stall_timeout_s=0.2
    )
    t0 = time.perf_counter()
    res = run(fake, spec)
    assert time.perf_counter() - t0 < 5
    assert res.failed == 2
    assert res.first_error() == "no data for 0.2 s (server hung)"


def test_deadline_bounds_the_run() -> None:
    fake = FakeServer(mode="hang")
    spec = LoadSpec(
        prompt_tokens=10, max_tokens=8, requests=50, concurrency=2, seed=1, duration_s=0.3
    )
    t0 = time.perf_counter()
    res = run(fake, spec)
    assert time.perf_counter() - t0 < 5
    assert res.aborted is not None and res.aborted.startswith("deadline of 0.3 s reached")
    assert res.sent == 2 and res.failed == 2
    assert all(r.error and r.error.startswith("stopped") for r in res.requests)


def test_guard_stops_the_run_when_kv_usage_crosses_limit() -> None:
    # Each in-flight request "uses" 40 % of the pool: with 4 in flight usage reaches 100 %.
    fake = FakeServer(token_delay_s=0.05, kv_usage_per_request=0.4)
    guard = Guard(GuardLimits(max_kv_usage=0.9, interval_s=0.05))
    spec = LoadSpec(prompt_tokens=10, max_tokens=100, requests=40, concurrency=4, seed=1)
    res = run(fake, spec, guard)
    assert res.aborted is not None and res.aborted.startswith("guard: KV cache usage")
    assert res.sent < 40
    assert res.guard is not None and res.guard["max_kv_usage"] > 0.9


def test_guard_closing_scrape_sees_preemptions_after_its_last_poll() -> None:
    # The round ends before the guard's first poll (interval 60 s): only the closing scrape
    # can see the preemptions counted as the streams finished.
    fake = FakeServer(token_delay_s=0.0, preemptions_per_finished_request=1.0)
    guard = Guard(GuardLimits(max_kv_usage=1.01, max_new_preemptions=0, interval_s=60.0))
    spec = LoadSpec(prompt_tokens=10, max_tokens=5, requests=3, concurrency=3, seed=1)
    res = run(fake, spec, guard)
    assert res.aborted is None and res.ok == 3
    assert guard.new_preemptions == 3.0
    assert res.guard is not None and res.guard["new_preemptions"] == 3.0


def test_open_loop_respects_concurrency_cap() -> None:
    fake = FakeServer(token_delay_s=0.01)
    spec = LoadSpec(
        prompt_tokens=10, max_tokens=5, requests=12, concurrency=2, rate_per_s=500.0, seed=1
    )
    res = run(fake, spec)
    assert res.ok == 12 and fake.max_in_flight <= 2
    starts = [r.start_s for r in res.requests]
    assert starts == sorted(starts)
