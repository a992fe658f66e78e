"""Issue 14, item 7: ``-o`` never destroys data and fails before a capture, not after it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from _bundle_factory import bundle

from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main
from kvdoctor.report.output import write_atomic


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    _, err = capsys.readouterr()
    return int(exit_info.value.code or 0), err


@pytest.mark.parametrize("name", ["in.tar.gz", "in.tgz"])
def test_report_over_the_input_bundle_is_refused(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_bundle(bundle("preemption"), tmp_path / name)
    before = sorted(p.name for p in tmp_path.iterdir())
    rc, err = _run(["diagnose", "--bundle", str(src), "-o", str(src)], capsys)
    assert rc == 2 and "is the bundle" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert main_reads(src)


def main_reads(path: Path) -> bool:
    from kvdoctor.bundle.reader import read_bundle

    return len(read_bundle(path).scrapes) > 0


def test_report_over_the_bundle_being_saved_is_refused_before_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Port 9 (discard) on a reserved test address: never contacted, the check comes first.
    target = tmp_path / "x.tar.gz"
    rc, err = _run(
        [
            "diagnose",
            "--endpoint",
            "http://192.0.2.1:9",
            "--save-bundle",
            str(target),
            "-o",
            str(target),
            "--window",
            "1s",
            "--interval",
            "1s",
        ],
        capsys,
    )
    assert rc == 2 and "is the bundle" in err


def test_missing_report_directory_is_refused_before_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nope" / "r.md"
    rc, err = _run(
        [
            "diagnose",
            "--endpoint",
            "http://192.0.2.1:9",
            "-o",
            str(target),
            "--window",
            "1s",
            "--interval",
            "1s",
            "--timeout",
            "1s",
        ],
        capsys,
    )
    assert rc == 2 and "no directory" in err, err


def test_a_symlink_to_a_device_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_bundle(bundle("preemption"), tmp_path / "b")
    link = tmp_path / "null.md"
    link.symlink_to(os.devnull)
    rc, err = _run(["diagnose", "--bundle", str(src), "-o", str(link)], capsys)
    assert rc == 2 and "not a regular file" in err
    assert link.is_symlink() and os.readlink(link) == os.devnull


def test_a_symlink_to_a_report_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_replacing_a_private_report_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "r.md"
    target.write_text("old")
    target.chmod(0o600)
    write_atomic(target, "new report")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() == "new report"
