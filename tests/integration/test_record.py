"""``kvdoctor record`` end to end (a real subprocess) against a local fake vLLM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from _vllm_fake import FakeVllm, free_port, serve, wait_until
from vllm_payloads import payload

from kvdoctor.bundle.reader import read_bundle

IDLE = payload("metrics-idle.txt")
HITS = payload("metrics-prefix-hits.txt")


def kvdoctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kvdoctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_record_writes_a_bundle(tmp_path: Path) -> None:
    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        r = kvdoctor(
            "record",
            "--endpoint",
            url,
            "-o",
            str(tmp_path / "b.tar.gz"),
            "--window",
            "600ms",
            "--interval",
            "300ms",
            "--engine-arg",
            "max-num-seqs=16",
        )
    assert r.returncode == 0, r.stderr
    b = read_bundle(tmp_path / "b.tar.gz")
    assert len(b.scrapes) == 3 and all(s.ok for s in b.scrapes)
    assert b.engine_args is not None and b.engine_args.args["max-num-seqs"] == 16
    assert "wrote" in r.stderr and "Traceback" not in r.stderr


def test_nothing_collected_exits_2_with_one_line(tmp_path: Path) -> None:
    r = kvdoctor(
        "record",
        "--endpoint",
        f"http://127.0.0.1:{free_port()}",
        "-o",
        str(tmp_path / "b"),
        "--window",
        "1s",
        "--interval",
        "500ms",
    )
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert "connection refused" in r.stderr
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--window", "soon"], "invalid duration"),
        (["--header", "no-colon-here"], "--header must look like"),
        (["--interval", "2m", "--window", "1m"], "longer than --window"),
        (["--engine-arg", "=1"], "KEY=VALUE"),
    ],
)
def test_bad_flags_exit_2(tmp_path: Path, args: list[str], fragment: str) -> None:
    r = kvdoctor("record", "--endpoint", "http://127.0.0.1:1", "-o", str(tmp_path / "b"), *args)
    assert r.returncode == 2
    assert fragment in r.stderr and "Traceback" not in r.stderr


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_a_valid_bundle(tmp_path: Path) -> None:
    dest = tmp_path / "b"
    with serve(FakeVllm(metrics=[IDLE, HITS])) as url:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kvdoctor",
                "record",
                "--endpoint",
                url,
                "-o",
                str(dest),
                "--window",
                "60s",
                "--interval",
                "200ms",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
            # A terminal's SIGINT: a test run started in the background by a non-interactive
            # shell passes SIGINT on ignored, and the child would never see the Ctrl-C.
            preexec_fn=_sigint_default,
        )
        try:
            # Wait until a few scrapes are on disk in the staging directory, then press Ctrl-C.
            def scraped() -> bool:
                for staging in tmp_path.glob(".b.partial-*"):
                    m = staging / "metrics.jsonl"
                    if m.is_file() and m.read_text().count("\n") >= 3:
                        return True
                return False

            assert wait_until(scraped, timeout=30)
            os.kill(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130, err
    b = read_bundle(dest)
    assert len(b.scrapes) >= 3
    assert "interrupted" in b.manifest.notes
    assert not list(tmp_path.glob(".b.partial-*"))


HEAVY = ("pydantic", "httpx", "rich", "jinja2", "yaml", "psutil", "pynvml", "prometheus_client")


@pytest.mark.parametrize("argv", [["--help"], ["record", "--help"]])
def test_help_imports_no_heavy_module(argv: list[str]) -> None:
    # Cold-start time is measured in benchmarks/bench_cli_start.py; here only laziness.
    code = (
        "import sys\n"
        "from kvdoctor.cli import cli\n"
        "try:\n"
        f"    cli.main({argv!r}, standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('HEAVY:', *[m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("HEAVY:"))
    assert line == "HEAVY:", out.stdout
    assert "--endpoint" in out.stdout or argv == ["--help"]
