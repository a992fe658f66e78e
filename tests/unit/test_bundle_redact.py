"""Secrets never reach a bundle; --redact gives stable placeholders that keep data usable."""

from __future__ import annotations

from pathlib import Path

from kvdoctor.bundle.redact import Redactor
from kvdoctor.expfmt import parse

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def test_header_secrets_are_always_replaced() -> None:
    r = Redactor(secrets=["Bearer tok-123456", "X"])
    assert r.text("auth tok-123456 and Bearer tok-123456") == "auth <secret> and <secret>"
    # Too short to be a credential: left alone rather than shredding ordinary text.
    assert r.text("X marks") == "X marks"


def test_api_key_arguments_in_logs_are_replaced_without_redact() -> None:
    r = Redactor()
    line = "non-default args: {'api_key': ['sk-abc'], 'port': 8000, \"hf_token\": \"hf_x\"}"
    out = r.text(line)
    assert "sk-abc" not in out and "hf_x" not in out
    assert "'port': 8000" in out


def test_redact_is_off_by_default() -> None:
    text = "model /models/llama at 10.0.0.5 via http://gpu-node-7.corp:8000"
    assert Redactor().text(text) == text


def test_stable_placeholders_for_paths_ips_and_hosts() -> None:
    r = Redactor(redact=True, hosts=["gpu-node-7.corp"])
    a = r.text("load /models/llama-3-8b from 10.0.0.5 on gpu-node-7.corp")
    b = r.text("again /models/llama-3-8b, 10.0.0.5, other 10.0.0.6, http://gpu-node-7.corp:8000/v1")
    assert a == "load <path-1> from ip-1 on host-1"
    assert b == "again <path-1>, ip-1, other ip-2, http://host-1:8000/v1"


def test_url_paths_and_loopback_stay() -> None:
    r = Redactor(redact=True)
    assert r.text("GET /v1/models from 127.0.0.1") == "GET /v1/models from 127.0.0.1"


def test_url_keeps_no_credentials() -> None:
    assert Redactor().url("http://user:pw@10.1.1.1:8000/") == "http://10.1.1.1:8000/"
    assert Redactor(redact=True).url("http://user:pw@10.1.1.1:8000") == "http://ip-1:8000"


def test_redacted_exposition_still_parses_identically_apart_from_labels() -> None:
    text = (DATA / "metrics-prefix-hits.txt").read_text(encoding="utf-8")
    text = text.replace('model_name="kvdoctor-tiny-llama"', 'model_name="/models/tiny"')
    out = Redactor(redact=True).text(text)
    assert "/models/tiny" not in out
    a, b = parse(text), parse(out)
    assert [(s.name, s.value) for s in a] == [(s.name, s.value) for s in b]
    assert {s.label("model_name") for s in b if s.label("model_name")} == {"<path-1>"}


def test_data_walks_json() -> None:
    r = Redactor(redact=True)
    got = r.data({"root": "/root/.cache/m", "list": ["/data/x", 3], "n": None})
    assert got == {"root": "<path-1>", "list": ["<path-2>", 3], "n": None}
