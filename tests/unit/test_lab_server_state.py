"""The lab's venv lookup, state directory and stale state, without starting a server."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab import server


def test_resolve_vllm_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVDOCTOR_VLLM_VENV", str(tmp_path / "nope"))
    with pytest.raises(KvdoctorError, match=r"scripts/setup-lab\.sh"):
        server.resolve_vllm_python()
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text("#!/bin/sh\n")
    py.chmod(0o755)
    monkeypatch.setenv("KVDOCTOR_VLLM_VENV", str(venv))
    assert server.resolve_vllm_python() == str(py)
    # An explicit path wins over the environment.
    assert server.resolve_vllm_python(str(py)) == str(py)


def test_lab_dir_defaults_to_dot_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KVDOCTOR_LAB_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert server.lab_dir() == tmp_path / ".lab"


def test_stale_state_is_not_running_and_down_clears_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDOCTOR_LAB_DIR", str(tmp_path))
    # A PID that exists (ours) but with another start time: PID reuse must not be killed.
    stale = server.LabHandle(
        url="http://127.0.0.1:18001",
        port=18001,
        pid=os.getpid(),
        model="m",
        log_path=tmp_path / "x.log",
        scenario="healthy",
        instance="healthy-18001",
        create_time=1.0,
    )
    server._write_state(stale)
    (handle,) = server.list_labs()
    assert not server.is_running(handle)
    server.stop_lab()
    assert server.list_labs() == []
    assert psutil.pid_exists(os.getpid())


def test_a_server_whose_start_time_moved_with_the_clock_is_still_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # psutil's start time follows the wall clock; a stepped clock must not make the lab lose
    # its own server (it would outlive the run). The command line it started still names it.
    monkeypatch.setenv("KVDOCTOR_LAB_DIR", str(tmp_path))
    moved = server.LabHandle(
        url="http://127.0.0.1:18002",
        port=18002,
        pid=os.getpid(),
        model="m",
        log_path=tmp_path / "y.log",
        scenario="healthy",
        instance="healthy-18002",
        argv=psutil.Process().cmdline(),
        create_time=1.0,
    )
    assert server.is_running(moved)
