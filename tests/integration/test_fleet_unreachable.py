"""The fleet against a Prometheus address where nothing listens (a real refused connection)."""

from __future__ import annotations

import pytest
from _vllm_fake import free_port

from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet import diagnose_fleet


def test_prometheus_down() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(KvdoctorError, match="cannot reach Prometheus") as info:
        diagnose_fleet(url, since="5m")
    assert "\n" not in str(info.value)
