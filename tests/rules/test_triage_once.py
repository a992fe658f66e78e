"""Triage judges each playbook's symptom once (issue 27): the open questions read the symptoms
the findings were ranked on, instead of running every detector a second time."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.rules import evaluate
from kvdoctor.rules.load import load_playbooks
from kvdoctor.signals.compute import compute_signals

CASE = (
    Path(__file__).resolve().parents[2] / "cases" / "n-qwen36-35b-align-conc1-zero-hits" / "bundle"
)


def test_each_symptom_is_detected_once_per_triage(monkeypatch: pytest.MonkeyPatch) -> None:
    signals = compute_signals(read_bundle(CASE))
    playbooks = load_playbooks()
    calls: list[str] = []
    detect = evaluate.detect_symptom

    def counting(pb, view):  # type: ignore[no-untyped-def]
        calls.append(pb.id)
        return detect(pb, view)

    monkeypatch.setattr(evaluate, "detect_symptom", counting)
    result = evaluate.triage(signals, None, playbooks)
    # The bundle raises an open question, so the open-question path did run.
    assert result.undecided
    assert sorted(calls) == sorted(pb.id for pb in playbooks)
