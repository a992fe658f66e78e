"""The client-side CPU-share check, against real processes in this and another session."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kvdoctor.reproducers.host import cpu_share_warning

ENDPOINT = "http://127.0.0.1:18999"


@contextmanager
def sleeper(**popen: Any) -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **popen)
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def check(pid: int | None, autogroup: Path) -> str | None:
    found = None if pid is None else (pid, ["vllm", "serve", "m", "--port", "18999"])
    return cpu_share_warning(ENDPOINT, autogroup=autogroup, find_server=lambda _url: found)


def flag(tmp_path: Path, value: str) -> Path:
    path = tmp_path / f"sched_autogroup_enabled.{value}"
    path.write_text(value + "\n")
    return path


def test_warns_when_the_server_is_in_another_session(tmp_path: Path) -> None:
    with sleeper(start_new_session=True) as pid:
        line = check(pid, flag(tmp_path, "1"))
    assert line is not None and f"pid {pid}" in line and "\n" not in line


def test_quiet_when_same_session_autogroup_off_or_nothing_local(tmp_path: Path) -> None:
    on, off = flag(tmp_path, "1"), flag(tmp_path, "0")
    with sleeper(process_group=0) as pid:
        assert check(pid, on) is None
    with sleeper(start_new_session=True) as pid:
        assert check(pid, off) is None
        assert check(pid, tmp_path / "no-such-file") is None  # not Linux
    assert check(None, on) is None  # no local vLLM
    assert check(2**22 + 12345, on) is None  # gone by the time we look: no error either
