"""Replica names for repeated --endpoint flags."""

from __future__ import annotations

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet.endpoints import (
    endpoint_names,
)


def test_endpoint_names() -> None:
    assert endpoint_names(["http://10.0.0.1:8000", "http://10.0.0.2:8000/v"], False) == [
        "10.0.0.1:8000",
        "10.0.0.2:8000/v",
    ]
    assert endpoint_names(["http://a:1", "http://b:1"], True) == ["replica-1", "replica-2"]
    with pytest.raises(KvdoctorError, match="given twice"):
        endpoint_names(["http://a:1", "http://a:1"], False)
