"""The log patterns searched without their leading ``\\b`` (signals/logs.py, for speed) find
exactly what the ``\\b`` pattern finds, a substring guard never hides a match, and a pattern
compiled on first use (kvdoctor.lazyre) is the pattern."""

from __future__ import annotations

import re

import pytest

from kvdoctor.lazyre import LazyPattern
from kvdoctor.signals import logs
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


# One line per branch of each guarded pattern, and lines that hold a needle but no match.
GUARDED_TEXTS = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    "torch.cuda.OutOfMemoryError: x\nOutOfMemoryError: y\nHIP out of memory\n"
    "NPU out of memory\nXPU out of memory\nout of memory occurred when warming up\n"
    "RuntimeError: CUDA error: out of memory\nCUDA Error: out of memory at x.cpp:1\n"
    "Killed\nKilled  \n not Killed\n",
    "Sequence group 3 is preempted by PreemptionMode.RECOMPUTE mode because there is not "
    "enough KV cache space.\nWARNING preempted by scheduler: not enough KV cache space\n"
    "not enough KV cache space alone\n",
    "Using fp8_e4m3 data type to store kv cache.\nkv_cache_dtype=fp8, x\nkv_cache_dtype=auto\n",
    "Available KV cache memory: 5.16 GiB\nkv_cache_size=0.39GiB\nxkv_cache_size=1GiB\n"
    "Available KV cache memory: -1.5 GiB\n",
    "Please try increasing `gpu_memory_utilization` when initializing the engine.\n"
    "Try lowering `max_num_seqs`.\ntry decreasing `max_model_len` or\n"
    "Decrease GPU memory utilization or reduce GPU memory used by other processes.\n"
    "a `backtick` and Try raising `x`\n",
    "",
    "INFO nothing to see\n",
)
GUARDS = {
    "oom": logs._OOM_NEEDLES,
    "preemption": ("not enough KV cache space",),
    "fp8": ("data type to store kv cache", "kv_cache_dtype="),
    "available_kv": ("Available KV cache memory: ", "kv_cache_size="),
    "hint": logs._HINT_NEEDLES,
}


@pytest.mark.parametrize("name", sorted(GUARDS))
@pytest.mark.parametrize("text", GUARDED_TEXTS)
def test_needles_never_hide_a_match(name: str, text: str) -> None:
    rx = _LOG_PATTERNS[name]
    plain = re.compile(rx.pattern, rx.flags)
    found = [m.span() for m in _found(rx, text, GUARDS[name])]
    assert found == [m.span() for m in plain.finditer(text)]
    assert logs._seen(rx, text, GUARDS[name]) == (plain.search(text) is not None)
    # Every match holds a needle, so the guard is exact, not just lucky on these texts.
    assert all(any(n in m.group(0) for n in GUARDS[name]) for m in plain.finditer(text))


def test_oom_phase_without_needles_is_what_the_pattern_gives() -> None:
    assert logs.oom_phase("INFO all fine\nWARNING nothing\n") == (None, None, False)
    phase, tried, _ = logs.oom_phase(
        'Traceback (most recent call last):\n  File "x.py", line 1, in capture_model\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    assert phase == "cuda-graph-capture"
    assert tried == 2 << 30


def test_lazy_pattern_is_the_compiled_pattern() -> None:
    lazy = LazyPattern(r"(a+)(b)?", re.IGNORECASE)
    plain = re.compile(r"(a+)(b)?", re.IGNORECASE)
    text = "xAAb a ab"
    assert lazy.search(text).span() == plain.search(text).span()  # type: ignore[union-attr]
    assert lazy.match(text) is None and plain.match(text) is None
    assert lazy.fullmatch("aab") is not None
    assert lazy.findall(text) == plain.findall(text)
    assert [m.span() for m in lazy.finditer(text, 2)] == [m.span() for m in plain.finditer(text, 2)]
    assert lazy.sub("-", text) == plain.sub("-", text)
    assert lazy.compiled is lazy.compiled
