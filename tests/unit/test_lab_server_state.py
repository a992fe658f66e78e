"""The lab's venv lookup, state directory and stale state, without starting a server."""

from __future__ import annotations

import os
import subprocess
import sys
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


def test_the_start_tick_since_boot_names_our_server_whatever_the_wall_clock_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Recorded with the start tick: a wall-clock start time far off (a clock stepped while the
    # server ran) and a command line that differs still name our process; a tick that differs
    # is PID reuse, and that process is never stopped.
    monkeypatch.setenv("KVDOCTOR_LAB_DIR", str(tmp_path))
    ticks = server.start_ticks_since_boot(os.getpid())
    assert ticks is not None and ticks > 0
    ours = server.LabHandle(
        url="http://127.0.0.1:18003",
        port=18003,
        pid=os.getpid(),
        model="m",
        log_path=tmp_path / "z.log",
        scenario="healthy",
        instance="healthy-18003",
        argv=["not", "this", "command"],
        create_time=1.0,
        start_ticks=ticks,
    )
    assert server.is_running(ours)
    assert server.LabHandle.from_json(ours.to_json()).start_ticks == ticks
    reused = server.LabHandle.from_json({**ours.to_json(), "start_ticks": ticks + 1})
    assert not server.is_running(reused)
    server._write_state(reused)
    server.stop_lab()
    assert server.list_labs() == []
    assert psutil.pid_exists(os.getpid())


def test_the_start_tick_is_read_past_a_command_name_with_spaces_and_parentheses() -> None:
    code = (
        "import sys, time\n"
        "open('/proc/self/comm', 'w').write('a) b (c')\n"
        "print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        ticks = server.start_ticks_since_boot(child.pid)
        expected = psutil.Process(child.pid).create_time() - psutil.boot_time()
        assert ticks is not None
        assert abs(ticks / os.sysconf("SC_CLK_TCK") - expected) < 0.5
    finally:
        child.kill()
        child.wait(timeout=10)
    assert server.start_ticks_since_boot(2**22 + 12345) is None
