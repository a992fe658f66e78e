"""Answers that stop ending while the server runs: the share of finished requests that ran to
max_tokens in the window's last third against its first (finished_length_shift)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.signals.compute import compute_signals

CASES = Path(__file__).resolve().parents[2] / "cases"


def _shift(case: str) -> object:
    return compute_signals(read_bundle(CASES / case / "bundle")).get("finished_length_shift")


def test_answers_that_stopped_ending_late_in_the_window_shift_fully() -> None:
    # zj-arc: an fp8 cache on Arc cards, answers ending at a stop token at first and every one
    # running to max_tokens ("!!!!") in the window's last third.
    assert _shift("zj-arc-b50-fp8-kv-exclamations") == 1.0


def test_a_steady_mix_of_finish_reasons_does_not_shift() -> None:
    shift = _shift("f-ngram-spec-600-running-qwen3-32b-fp8")
    assert isinstance(shift, float) and shift == pytest.approx(0.0, abs=0.05)


def test_too_few_finished_requests_leave_it_unknown() -> None:
    # q-v100: no request finished in the window.
    ss = compute_signals(read_bundle(CASES / "q-v100-tp2-221k-batch2-decode-collapse" / "bundle"))
    assert ss.get("finished_length_shift") is None
    assert ss.values["finished_length_shift"].reason
