"""Capture flags: durations, headers and CaptureOptions from parsed flags."""

from __future__ import annotations

import pytest

from kvdoctor.commands._capture_opts import parse_duration, parse_header, to_capture_options
from kvdoctor.errors import KvdoctorError


def test_durations_and_headers() -> None:
    assert parse_duration("60s") == 60.0
    assert parse_duration("2m") == 120.0
    assert parse_duration("500ms") == 0.5
    assert parse_duration("1h") == 3600.0
    assert parse_duration("2.5") == 2.5
    for bad in ("0s", "-1", "5 minutes", ""):
        with pytest.raises(KvdoctorError):
            parse_duration(bad)
    assert parse_header("Authorization: Bearer abc") == ("Authorization", "Bearer abc")
    with pytest.raises(KvdoctorError) as err:
        parse_header("Bad Name: secret-value")
    assert "secret-value" not in str(err.value)


def test_to_capture_options() -> None:
    opts = to_capture_options(
        {
            "endpoint": "https://vllm.example:8443/",
            "window": 30.0,
            "interval": 1.0,
            "headers": ("X-Api-Key: k1",),
            "insecure": True,
            "model_config": "m",
            "logs": "-",
            "engine_args": ("max-num-seqs=4",),
            "redact": True,
            "timeout": 3.0,
            "complaint": "slow-itl",
        },
        notes="n",
    )
    assert opts.complaint == "slow-itl"  # kept in the manifest the capture writes
    assert opts.endpoint == "https://vllm.example:8443"
    assert opts.headers == {"X-Api-Key": "k1"}
    assert opts.engine_args == {"max-num-seqs": 4}
    assert (opts.insecure, opts.redact, opts.logs, opts.model_config_path) == (True, True, "-", "m")
    with pytest.raises(KvdoctorError, match="--endpoint URL is required"):
        to_capture_options({})
    with pytest.raises(KvdoctorError, match="http:// or https://"):
        to_capture_options({"endpoint": "vllm:8000"})
