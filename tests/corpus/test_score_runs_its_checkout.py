"""cases/score.py replays each case with the kvdoctor of its own checkout, wherever it starts.

``python -m kvdoctor`` puts the current directory first on the import path: a score started
from another checkout (PYTHONPATH pointing at a detached worktree) ran that directory's
kvdoctor, so a comparison of two commits compared one commit with itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[2] / "cases"


def test_a_score_started_elsewhere_runs_this_checkouts_kvdoctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("corpus_score_cwd", CASES / "score.py")
    assert spec is not None and spec.loader is not None
    score = importlib.util.module_from_spec(spec)
    sys.modules["corpus_score_cwd"] = score
    spec.loader.exec_module(score)
    # Another directory that holds a kvdoctor of its own, one that fails every command.
    impostor = tmp_path / "kvdoctor"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("")
    (impostor / "__main__.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    outcome = score.judge(CASES / "r-rollout-round-robin-router-63pct")
    assert outcome.verdict == "degraded"
    assert (outcome.lead_symptom, outcome.lead_cause) == ("prefix-miss", "engine-scatter")
