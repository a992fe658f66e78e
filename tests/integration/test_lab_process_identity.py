"""The lab's identity of its own server processes: the start tick since boot, read from a real
process (this tier may start processes; the unit tier may not)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from kvdoctor.lab import server


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
