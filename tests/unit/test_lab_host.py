"""Host capabilities for lab servers and the start-up failure line (pure parts)."""

from __future__ import annotations

import sys

import pytest

from kvdoctor.lab.host import LabUnsupportedError, check_engine_args, wants_fp8_kv
from kvdoctor.lab.server import last_error_line


def test_wants_fp8_kv_reads_both_spellings() -> None:
    assert wants_fp8_kv(["--max-model-len", "4096", "--kv-cache-dtype", "fp8"])
    assert wants_fp8_kv(["--kv-cache-dtype=fp8_e4m3"])
    assert not wants_fp8_kv(["--kv-cache-dtype", "auto"])
    assert not wants_fp8_kv(["--kv-cache-dtype"])
    assert not wants_fp8_kv([])


def test_an_interpreter_that_cannot_answer_leaves_the_decision_to_vllm() -> None:
    # This interpreter has no torch: the check cannot run, so nothing is refused up front.
    check_engine_args("/nonexistent/python", ["--kv-cache-dtype", "fp8"])
    check_engine_args(sys.executable, ["--kv-cache-dtype", "auto"])


def test_unsupported_is_a_one_line_kvdoctor_error() -> None:
    from kvdoctor.errors import KvdoctorError

    assert issubclass(LabUnsupportedError, KvdoctorError)


@pytest.mark.parametrize(
    ("log", "line"),
    [
        (
            'INFO 12-01 starting\nTraceback (most recent call last):\n  File "x", line 1\n'
            "NotImplementedError: FP8 KV cache on CPU requires x86 with AVX-512 or AMX.\n",
            "NotImplementedError: FP8 KV cache on CPU requires x86 with AVX-512 or AMX.",
        ),
        (
            "INFO loading\n(EngineCore pid=1) ERROR 12-01 10:00:00 [core.py:1] EngineCore failed\n"
            "INFO shutting down\n",
            "(EngineCore pid=1) ERROR 12-01 10:00:00 [core.py:1] EngineCore failed",
        ),
        ("INFO all fine\nINFO still fine\n", None),
    ],
)
def test_last_error_line(log: str, line: str | None) -> None:
    assert last_error_line(log) == line
