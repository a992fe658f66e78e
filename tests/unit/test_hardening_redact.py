"""Issue 14, items 3-4: redaction by shape and pattern, and no local file read on a server's word.

The corpus below is made of realistic vLLM / launcher / Kubernetes log lines; each carries a value
that must not survive (with ``--redact``: hosts, IPv6, paths outside the usual roots; always:
keys after key-ish flags in both forms) and text that must (routes, file names, numbers).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kvdoctor.bundle.model import ServerInfo
from kvdoctor.bundle.redact import Redactor
from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import parse
from kvdoctor.probes.model_config import probe_model_config
from kvdoctor.urlauth import url_credentials

# (line, values that must be gone with --redact, values that must stay)
REDACT_CORPUS = [
    (
        "INFO 12-01 04:00:00 [api_server.py:1598] Started server at "
        "http://gpu-node-17.corp.example.com:8000",
        ["gpu-node-17.corp.example.com"],
        ["api_server.py:1598", ":8000"],
    ),
    (
        "INFO [loader.py:12] Loading weights from /raid/models/llama-3-8b/model.safetensors",
        ["/raid/models", "llama-3-8b"],
        ["loader.py:12"],
    ),
    (
        "WARNING [shm_broadcast.py:1] shared memory at /dev/shm/vllm-1234 is small",
        ["/dev/shm"],
        ["shm_broadcast.py:1"],
    ),
    (
        "INFO Uvicorn running on http://[2001:db8:85a3::8a2e:370:7334]:8000 "
        "peer fe80::1ff:fe23:4567:890a",
        ["2001:db8:85a3::8a2e:370:7334", "fe80::1ff:fe23:4567:890a"],
        [":8000"],
    ),
    (
        "INFO pod vllm-0.vllm.default.svc.cluster.local ready, GET /v1/models 200 at 12:34:56",
        ["vllm-0.vllm.default.svc.cluster.local"],
        ["GET /v1/models 200", "12:34:56"],
    ),
    (
        "DEBUG vllm.engine.llm_engine: config.json read; loopback ::1 kept, 127.0.0.1 kept",
        [],
        ["vllm.engine.llm_engine", "config.json", "::1", "127.0.0.1"],
    ),
]

# (line, secrets that must be gone even without --redact)
SECRET_CORPUS = [
    (
        "argv: vllm serve m --api-key sk-proj-AbC123dEf456gHi789 --port 8000",
        ["sk-proj-AbC123dEf456gHi789"],
    ),
    ("argv: vllm serve m --api-key=plainKeyWithNoShape1 --port 8000", ["plainKeyWithNoShape1"]),
    ("argv: vllm serve m --hf-token hf_AbCdEfGhIjKlMnOpQrSt", ["hf_AbCdEfGhIjKlMnOpQrSt"]),
    ("argv: vllm serve m --hf-token=hf_ZyXwVuTsRqPoNmLkJiHg", ["hf_ZyXwVuTsRqPoNmLkJiHg"]),
    ("argv: vllm serve m --api-key spaceKeyNoShape22", ["spaceKeyNoShape22"]),
    (
        "env: HF_TOKEN=hf_EnvTokenValue12345678 OPENAI_API_KEY=sk-envKeyValue123456789",
        ["hf_EnvTokenValue12345678", "sk-envKeyValue123456789"],
    ),
    ("proxy: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", ["eyJhbGciOiJIUzI1NiJ9"]),
    ("non-default args: {'api_key': ['sk-abc'], 'port': 8000}", ["sk-abc"]),
]


@pytest.mark.parametrize(("line", "gone", "kept"), REDACT_CORPUS)
def test_redact_scrubs_unknown_hosts_ipv6_and_any_path(
    line: str, gone: list[str], kept: list[str]
) -> None:
    out = Redactor(redact=True).text(line)
    for value in gone:
        assert value not in out, out
    for value in kept:
        assert value in out, out


@pytest.mark.parametrize(("line", "secrets"), SECRET_CORPUS)
def test_keys_are_scrubbed_by_shape_without_redact(line: str, secrets: list[str]) -> None:
    out = Redactor().text(line)
    for value in secrets:
        assert value not in out, out
    assert out.split(":", 1)[0] == line.split(":", 1)[0]


def test_redacted_exposition_keeps_routes_and_still_parses() -> None:
    text = (
        'http_requests_total{handler="/v1/chat/completions",host="gpu-node-17.corp.example.com",'
        'path="/raid/models/m"} 3.0\n'
    )
    out = Redactor(redact=True).text(text)
    assert "/v1/chat/completions" in out
    assert "gpu-node-17" not in out and "/raid" not in out
    assert [s.value for s in parse(out)] == [3.0]


def test_basic_credential_is_scrubbed_decoded_too() -> None:
    token = base64.b64encode(b"alice:s3cret-pw").decode()
    r = Redactor(secrets=[f"Basic {token}"])
    assert r.text(f"echo {token} alice:s3cret-pw s3cret-pw") == "echo <secret> <secret> <secret>"


def test_url_userinfo_becomes_a_header_and_conflicts_are_refused() -> None:
    url, headers = url_credentials("http://al%40ice:p%3Aw@10.0.0.1:8000/x", {}, "--endpoint")
    assert url == "http://10.0.0.1:8000/x"
    assert base64.b64decode(headers["Authorization"].split()[1]) == b"al@ice:p:w"
    with pytest.raises(KvdoctorError, match="use one of them") as exc:
        url_credentials("http://u:secretpw@h:1", {"authorization": "Bearer t"}, "--endpoint")
    assert "secretpw" not in str(exc.value)
    with pytest.raises(KvdoctorError, match="query string") as exc:
        url_credentials("http://h:1/?api_key=qtoken123", {}, "--endpoint")
    assert "qtoken123" not in str(exc.value)
    assert url_credentials("https://h:1/v1", {"X": "y"}, "--endpoint") == (
        "https://h:1/v1",
        {"X": "y"},
    )


def _server_naming(root: str) -> ServerInfo:
    return ServerInfo.model_validate(
        {
            "version": {"version": "0.32.0"},
            "models": {"data": [{"id": "m", "root": root}]},
            "health": 200,
        }
    )


def test_server_named_directory_is_not_read_for_a_remote_server(tmp_path: Path) -> None:
    cfg = {
        "model_type": "llama",
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "hidden_size": 64,
        "vocab_size": 100,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    got, nc = probe_model_config(None, _server_naming(str(tmp_path)), None, server_local=False)
    assert got is None and nc is not None and "not read" in nc.why
    # The same directory for a server whose process runs here: read (it is a model config).
    source: list[str] = []
    got, nc = probe_model_config(
        None, _server_naming(str(tmp_path)), None, server_local=True, source=source
    )
    assert got == cfg and nc is None and source == [str(tmp_path)]


def test_server_named_json_that_is_no_model_config_is_never_kept(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"auths": {"r": {"auth": "c2VjcmV0"}}}', "utf-8")
    got, nc = probe_model_config(None, _server_naming(str(tmp_path)), None, server_local=True)
    assert got is None and nc is not None
