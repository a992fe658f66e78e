"""Shared test set-up: this file's presence puts tests/ on sys.path (helpers like labenv).

It also holds the run to the rule that every process a test starts is stopped: a lab vLLM
server still running when the session ends (a fixture that lost track of it) is stopped here,
by its PID, and fails the run, naming its command line.
"""

from __future__ import annotations

import contextlib
import os
import signal

import psutil
import pytest

# The lab's servers (kvdoctor/lab/server.py build_command) and the engine cores they fork.
LAB_SERVER_MARK = "vllm.entrypoints.openai.api_server"


def leftover_lab_servers() -> list[psutil.Process]:
    """This pytest's descendants that are lab vLLM API servers, still running."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE and LAB_SERVER_MARK in proc.cmdline():
                found.append(proc)
    return found


def stop_leftover(proc: psutil.Process) -> None:
    try:
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        family = [proc]
    for p in family:
        with contextlib.suppress(psutil.Error):
            p.send_signal(signal.SIGTERM)
    _, alive = psutil.wait_procs(family, timeout=20)
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(alive, timeout=5)
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(proc.pid, os.WNOHANG)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    leftovers = leftover_lab_servers()
    if not leftovers:
        return
    lines = []
    for proc in leftovers:
        with contextlib.suppress(psutil.Error):
            lines.append(f"pid {proc.pid}: {' '.join(proc.cmdline())}")
        stop_leftover(proc)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = (
        f"{len(leftovers)} lab vLLM server(s) outlived the tests that started them "
        "(stopped now, by PID):\n  " + "\n  ".join(lines)
    )
    if reporter is not None:
        reporter.write_sep("=", "lab servers left running", red=True)
        reporter.write_line(message)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
