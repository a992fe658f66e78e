"""Issue 14, items 6 and 9: hostile input from a live run loses nothing and reads as it is."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _hostile import Echo, kvdoctor, serve

WINDOW = ["--window", "1s", "--interval", "0.5s", "--no-progress"]


def test_invalid_utf8_on_stdin_logs_keeps_the_capture(tmp_path: Path) -> None:
    log = b"INFO start\n\xff\xfe not utf-8 \x80\nWARNING Sequence group 7 is preempted\n"
    with serve() as (hp, _):
        run = kvdoctor(
            [
                "record",
                "--endpoint",
                f"http://{hp}",
                *WINDOW,
                "--logs",
                "-",
                "-o",
                str(tmp_path / "b"),
            ],
            cwd=tmp_path,
            stdin=log,
        )
    assert run.rc == 0, run.stderr
    assert "Traceback" not in run.stderr
    text = (tmp_path / "b" / "logs.txt").read_text(encoding="utf-8")
    # Each bad byte became one replacement character; the lines around them are intact.
    assert text == log.decode("utf-8", errors="replace")
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["schema"] == "kvdoctor.bundle/1"


@pytest.mark.parametrize("mode", ["hang", "drip"])
def test_a_hanging_or_dripping_server_is_bounded_by_the_window(mode: str, tmp_path: Path) -> None:
    # Window 2 s, interval 1 s, per-request timeout 5 s: unbounded, the three server probes and
    # three scrapes took 5-10 s each (about 40 s for a 6 s window). Bounded by the window, the
    # whole run ends a few seconds after it; the limit below leaves room for a slow start.
    with serve("vllm", Echo(mode=mode)) as (hp, _):
        started = time.monotonic()
        run = kvdoctor(
            [
                "diagnose",
                "--endpoint",
                f"http://{hp}",
                "--window",
                "2s",
                "--interval",
                "1s",
                "--timeout",
                "5s",
                "--no-progress",
                "--no-reproduce",
            ],
            cwd=tmp_path,
        )
        elapsed = time.monotonic() - started
    assert run.rc == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "nothing collected" in run.stderr
    assert elapsed < 15.0, f"{mode}: {elapsed:.1f} s for a 2 s window"


CTRL_C_DURING_IMPORT = """
import os, signal, sys

class CtrlC:
    # Presses Ctrl-C the moment kvdoctor's CLI starts loading click: start-up, deterministic.
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

# A terminal's disposition: a job started in the background by a non-interactive shell (CI
# runners, nohup) inherits SIGINT ignored, and then no Ctrl-C could reach the CLI at all.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.meta_path.insert(0, CtrlC())
from kvdoctor.cli import main
main(["--help"])
"""


def test_ctrl_c_during_start_up_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CTRL_C_DURING_IMPORT],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "kvdoctor: interrupted\n"
