"""quant-canary's reference endpoint gets its own headers, never the target's (issue 14 item 5).

The two servers are an in-process mock transport (no sockets): every request either experiment
stage sends is recorded with the headers it carried.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _bundle_factory import T0, bundle

from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main
from kvdoctor.reproducers.experiments import ReproContext, run_experiment_async
from kvdoctor.reproducers.model import ReproducerRecord

TARGET_SECRET = "Bearer target-secret-123"
REFERENCE_TOKEN = "Bearer reference-token-456"


def _servers(seen: list[tuple[str, str, str | None]]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.url.path, request.headers.get("authorization")))
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m", "max_model_len": 4096}]})
        if request.url.path == "/metrics":
            return httpx.Response(200, text="")
        if request.url.path == "/v1/completions":
            body = json.loads(request.content)
            assert body["temperature"] == 0.0
            tokens = ["a", "b", "c", "d"]
            return httpx.Response(
                200,
                json={"choices": [{"logprobs": {"tokens": tokens, "token_logprobs": [-0.1] * 4}}]},
            )
        return httpx.Response(404)

    return httpx.MockTransport(handle)


def test_reference_gets_only_its_own_headers() -> None:
    seen: list[tuple[str, str, str | None]] = []
    ctx = ReproContext(
        endpoint="http://target.test:8000",
        headers={"Authorization": TARGET_SECRET},
        reference_endpoint="http://reference.test:8001/v1",
        reference_headers={"Authorization": REFERENCE_TOKEN},
        transport=_servers(seen),
    )
    rec = asyncio.run(run_experiment_async("quant-canary", ctx))
    to_ref = [(path, auth) for host, path, auth in seen if host == "reference.test"]
    to_target = [(path, auth) for host, path, auth in seen if host == "target.test"]
    # Discovery and the canary prompts reached both, each with its own credentials only.
    assert ("/v1/models", REFERENCE_TOKEN) in to_ref
    assert [p for p, _ in to_ref].count("/v1/completions") == 4
    assert all(auth == REFERENCE_TOKEN for _, auth in to_ref)
    assert [p for p, _ in to_target].count("/v1/completions") == 8
    assert all(auth == TARGET_SECRET for _, auth in to_target)
    assert rec.verdict == "refuted" and rec.requests_sent == 12
    dumped = rec.model_dump_json()
    assert "target-secret" not in dumped and "reference-token" not in dumped


def test_without_reference_headers_the_reference_gets_no_auth() -> None:
    seen: list[tuple[str, str, str | None]] = []
    ctx = ReproContext(
        endpoint="http://target.test:8000",
        headers={"Authorization": TARGET_SECRET},
        reference_endpoint="http://reference.test:8001",
        transport=_servers(seen),
    )
    asyncio.run(run_experiment_async("quant-canary", ctx))
    assert {auth for host, _, auth in seen if host == "reference.test"} == {None}


@pytest.mark.parametrize("command", ["reproduce", "diagnose"])
def test_a_malformed_reference_header_is_a_usage_error_without_its_value(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = (
        ["reproduce", "quant-canary", "--dry-run"]
        if command == "reproduce"
        else ["diagnose", "--endpoint", "http://127.0.0.1:9"]
    )
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--reference-header", "Authorization Bearer s3cret"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert "--reference-header must look like 'Name: value'" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "s3cret" not in out + err


def test_diagnose_passes_each_server_its_own_headers_and_keeps_none_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live wiring, with the capture and the experiments replaced by recorded results."""
    import kvdoctor.capture
    import kvdoctor.reproducers.experiments as experiments

    captured = bundle("preemption")
    contexts: list[ReproContext] = []

    def fake_capture(opts: Any, progress: bool = True, sink: Path | None = None) -> Any:
        assert sink is not None
        write_bundle(captured, sink)
        return captured

    def fake_run(name: str, ctx: ReproContext) -> ReproducerRecord:
        contexts.append(ctx)
        return ReproducerRecord(
            name=name, verdict="inconclusive", started_at=T0 + 50, ended_at=T0 + 60
        )

    monkeypatch.setattr(kvdoctor.capture, "capture", fake_capture)
    monkeypatch.setattr(experiments, "run_experiment", fake_run)
    saved = tmp_path / "incident"
    with pytest.raises(SystemExit):
        main(
            [
                "diagnose",
                "--endpoint",
                "http://127.0.0.1:18999",
                "--header",
                f"Authorization: {TARGET_SECRET}",
                "--reference-endpoint",
                "http://127.0.0.1:18998",
                "--reference-header",
                f"Authorization: {REFERENCE_TOKEN}",
                "--reference-header",
                "X-Team: kv",
                "--allow-load",
                "--save-bundle",
                str(saved),
                "--no-progress",
            ]
        )
    capsys.readouterr()
    assert contexts, "no experiment ran"
    for ctx in contexts:
        assert ctx.headers == {"Authorization": TARGET_SECRET}
        assert ctx.reference_headers == {"Authorization": REFERENCE_TOKEN, "X-Team": "kv"}
    on_disk = "".join(p.read_text("utf-8") for p in saved.iterdir() if p.is_file())
    assert "target-secret" not in on_disk and "reference-token" not in on_disk
