"""Issue 14, items 6 and 9: hostile input from a live run loses nothing and reads as it is."""

from __future__ import annotations

import json
from pathlib import Path

from _hostile import kvdoctor, serve

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
