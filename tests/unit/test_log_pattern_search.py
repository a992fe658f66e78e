"""The log patterns searched without their leading ``\\b`` (signals/logs.py, for speed) find
exactly what the ``\\b`` pattern finds, and a substring guard never hides a match."""

from __future__ import annotations

import re

import pytest

from kvdoctor.signals.logs import _LOG_PATTERNS, _at_word_start, _found

TEXTS = (
    "x max_seq_len=5 amax_seq_len=6 _max_seq_len=7 émax_seq_len=8 max_seq_len=9\nmax_seq_len=1",
    "'max_num_seqs': 64, xmax_num_seqs=3, max_num_seqs=4, 9max_num_seqs=2",
    "quantization=fp8 aquantization=x (quantization=None) ,quantization=awq",
    "",
)


@pytest.mark.parametrize("name", ["max_seq_len", "max_num_seqs", "quantization"])
@pytest.mark.parametrize("text", TEXTS)
def test_word_start_search_is_the_word_boundary_pattern(name: str, text: str) -> None:
    rx = _LOG_PATTERNS[name]
    full = re.compile(r"\b" + rx.pattern)
    assert [m.span() for m in _at_word_start(rx, text)] == [m.span() for m in full.finditer(text)]


def test_guard_finds_what_the_pattern_finds() -> None:
    text = "INFO x\nERROR 05-01 [nixl_connector.py:12] pulling kv_caches failed\n"
    rx = _LOG_PATTERNS["kv_transfer_error"]
    assert [m.group(0) for m in _found(rx, text, ("ERROR",))] == [
        m.group(0) for m in rx.finditer(text)
    ]
    assert list(_found(rx, "INFO only\n", ("ERROR",))) == []
