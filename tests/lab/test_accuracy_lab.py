"""The accuracy harness end to end on the lab: two fixed-seed draws of different classes.

Asserts that the harness works (each draw's server starts with its own geometry and flags, the
control holds, the bundle and truth are saved, the matrices are printed and ``--replay``
re-scores the saved draws offline), not how accurate kvdoctor is: that is the benchmark's job,
on fresh seeds. Seed 1 (a test seed, outside the development range 1000-1999) draws
block-larger-than-prefix then kv-capacity.

The benchmark takes the lab lock per draw; here it runs with ``--no-lock`` because the lab tier
is itself run under ``flock /tmp/kvdoctor-lab.lock``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from labenv import lab_python_or_skip

from kvaccuracy.randomized import draw

pytestmark = pytest.mark.lab

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_accuracy.py"
# A seed whose first two draws are the two cheapest classes to record (the class order depends
# on the class list: seed 1 drew them until the world-drawing classes were added).
SEED = 225


def test_two_draws_record_and_replay(tmp_path: Path) -> None:
    python = lab_python_or_skip()
    draws = [draw(SEED, 0), draw(SEED, 1)]
    assert {d.klass for d in draws} == {"block-larger-than-prefix", "kv-capacity"}
    out = tmp_path / "acc"
    cmd = [sys.executable, str(BENCH), "--seed", str(SEED), "--count", "2", "--out", str(out)]
    proc = subprocess.run(
        [*cmd, "--no-lock", "--vllm-python", python],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    for d in draws:
        ddir = out / d.name
        truth = json.loads((ddir / "truth.json").read_text())
        assert truth["status"] == "ran", truth.get("error")
        assert truth["draw"] == d.to_json()
        assert truth["baseline"]["itl_s"] > 0 and truth["baseline"]["ttft_s"] > 0
        assert (ddir / "bundle" / "manifest.json").is_file()
        report = json.loads((ddir / "report.json").read_text())
        assert report["schema"].startswith("kvdoctor.report/")
        # The server ran the draw's geometry: its model config is in the bundle.
        cfg = json.loads((ddir / "bundle" / "model_config.json").read_text())
        assert cfg["num_key_value_heads"] == d.geometry.kv_heads
        assert cfg["num_hidden_layers"] == d.geometry.layers
    text = proc.stdout
    assert "control ok" in text and "CONTROL FAILED" not in text, text
    assert "symptom (truth x predicted):" in text and "cause (truth x predicted):" in text
    assert "offline replay" in text and "live:" in text
    assert "block-larger-than-prefix" in text and "kv-capacity" in text

    replay = subprocess.run(
        [sys.executable, str(BENCH), "--replay", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert replay.returncode == 0, replay.stderr[-3000:]
    assert "current rules over the recorded reproducer results" in replay.stdout
    assert replay.stdout.count("control ok") == 2
