"""The test session fails, and stops it, when a lab vLLM server outlives its test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import psutil

CONFTEST = Path(__file__).resolve().parent.parent / "conftest.py"

LEAKY_TEST = """
import os, subprocess, sys

def test_starts_a_server_and_forgets_it():
    # A stand-in for a lab server: the command line carries the API server's module name.
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)",
         "vllm.entrypoints.openai.api_server"],
        process_group=0,
    )
    open(os.environ["LEAKED_PID_FILE"], "w").write(str(proc.pid))
"""

TIDY_TEST = """
import subprocess, sys

def test_starts_a_server_and_stops_it():
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)",
         "vllm.entrypoints.openai.api_server"],
    )
    proc.kill()
    proc.wait()
"""


def run_session(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_inner.py").write_text(body)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "base" / "t"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "LEAKED_PID_FILE": str(tmp_path / "leaked.pid")},
    )


def test_a_server_left_running_fails_the_session_and_is_stopped(tmp_path: Path) -> None:
    result = run_session(tmp_path, LEAKY_TEST)
    pid = int((tmp_path / "leaked.pid").read_text())
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert "outlived the tests that started them" in result.stdout
    assert f"pid {pid}:" in result.stdout
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_session_that_stops_its_servers_passes(tmp_path: Path) -> None:
    result = run_session(tmp_path, TIDY_TEST)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "outlived" not in result.stdout
