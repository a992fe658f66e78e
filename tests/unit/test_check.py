"""`kvdoctor check`: fixture replay against expected.yaml and golden reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from _bundle_factory import bundle

from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main


def _fixture(root: Path, name: str, scenario: str, expected: str, *, archive: bool = False) -> Path:
    fixture = root / name
    fixture.mkdir()
    write_bundle(bundle(scenario), fixture / ("bundle.tar.gz" if archive else "bundle"))
    (fixture / "expected.yaml").write_text(expected)
    return fixture


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_matching_fixtures_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _fixture(
        tmp_path,
        "storm",
        "preemption",
        "verdict: critical\nsymptom: preemption\ncause: kv-capacity\nstatus: suspected\n"
        "absent:\n  - {symptom: gpu-oom}\n",
    )
    b = _fixture(tmp_path, "healthy", "healthy", "verdict: healthy\n", archive=True)
    rc, out, _ = _run(["check", str(a), str(b)], capsys)
    assert rc == 0, out
    assert "ok   " in out and "2 fixture(s): 2 ok, 0 failed" in out


def test_mismatch_prints_a_readable_diff_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _fixture(
        tmp_path,
        "q",
        "queueing",
        "primary: {symptom: preemption, cause: kv-capacity, status: confirmed}\n"
        "findings:\n  - {cause: caching-disabled}\n",
    )
    rc, out, _ = _run(["check", str(f)], capsys)
    assert rc == 1
    assert "FAIL " in out
    assert (
        "primary: expected symptom=preemption, cause=kv-capacity, status=confirmed, got "
        "high-ttft/queueing (suspected" in out
    )
    assert "missing finding: cause=caching-disabled" in out


def test_golden_report_is_written_then_compared_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _fixture(tmp_path, "storm", "preemption", "symptom: preemption\n")
    rc, out, _ = _run(["check", "--update-golden", str(f)], capsys)
    assert rc == 0 and "golden written" in out
    golden = (f / "report.md").read_text()
    assert "| bundle | `bundle` |" in golden  # relative to the fixture, not to this machine
    rc, out, _ = _run(["check", str(f) + "/"], capsys)
    assert rc == 0 and "golden same" in out, out
    (f / "report.md").write_text(golden.replace("<summary>KV math<", "<summary>KV maths<"))
    rc, out, _ = _run(["check", str(f)], capsys)
    assert rc == 1
    assert "-<details><summary>KV maths" in out and "+<details><summary>KV math" in out


def test_unreadable_fixtures_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _fixture(tmp_path, "bad", "healthy", "verdict: fine\n")
    rc, out, _ = _run(["check", str(f), str(tmp_path / "missing")], capsys)
    assert rc == 2
    assert "ERROR" in out and "verdict" in out and "not a directory" in out
    typo = _fixture(tmp_path, "typo", "healthy", "symptm: preemption\n")
    rc, out, _ = _run(["check", str(typo)], capsys)
    assert rc == 2 and "symptm" in out
