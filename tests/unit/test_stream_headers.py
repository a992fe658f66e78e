"""The streaming client refuses headers that could inject, before any connection."""

from __future__ import annotations

import pytest

from kvdoctor.reproducers.stream import (
    StreamClient,
    check_headers,
)


def test_headers_that_could_inject_are_refused() -> None:
    check_headers({"Authorization": "Bearer x", "X-Kvdoctor-Probe": "t"})
    for bad in ({"X-A": "v\r\nX-B: w"}, {"X A": "v"}, {"": "v"}, {"X-A": "snow\u2603"}):
        with pytest.raises(ValueError):
            check_headers(bad)
    with pytest.raises(ValueError):
        StreamClient("http://host/", {"X-A": "v\r\nX-B: w"})
    with pytest.raises(ValueError):
        StreamClient("ftp://host/")
