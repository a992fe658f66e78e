"""``kvdoctor demo``: the README's main job, end to end against a real vLLM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kvdoctor.lab.server import list_labs

pytestmark = pytest.mark.lab


def test_demo_writes_a_report_and_leaves_no_server(vllm_python: str, tmp_path: Path) -> None:
    report = tmp_path / "demo.md"
    # Servers other tests share for the session (healthy_lab) are already up: the demo must
    # leave none of its own beside them.
    before = {h.pid for h in list_labs()}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kvdoctor",
            "demo",
            "--vllm-python",
            vllm_python,
            "--window",
            "20",
            "-o",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # The demo exits 0 when it demonstrated what it set out to (a finding on its mis-tuned
    # server); 1 would mean the broken server looked healthy.
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"report written to {report}" in proc.stdout
    assert "primary finding: preemption / kv-capacity" in proc.stdout
    text = report.read_text()
    assert text.startswith("# kvdoctor incident report")
    assert "preemption/kv-capacity" in text
    # lab down happened: nothing of the demo's recorded (it runs in this session's lab dir).
    assert [h for h in list_labs() if h.pid not in before] == []
