"""`kvdoctor diagnose`: offline replay, output, exit codes, and the live flow's wiring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from _bundle_factory import T0, bundle

from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main
from kvdoctor.reproducers.model import ReproducerRecord

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schema" / "report.schema.json").read_text()
)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture()
def storm(tmp_path: Path) -> Path:
    return write_bundle(bundle("preemption"), tmp_path / "storm")


def test_markdown_to_stdout_and_exit_1_for_a_finding(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = _run(["diagnose", "--bundle", str(storm)], capsys)
    assert rc == 1
    assert out.startswith("# kvdoctor incident report: critical\n")
    assert f"| bundle | `{storm}` |" in out


def test_json_output_validates_against_the_published_schema(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = _run(["diagnose", "--bundle", str(storm), "--format", "json"], capsys)
    assert rc == 1
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["findings"][0]["cause"] == "kv-capacity"


def test_output_file_is_written_whole_and_nothing_else_is_left(
    storm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "report.md"
    target.write_text("old report")
    rc, out, err = _run(["diagnose", "--bundle", str(storm), "-o", str(target)], capsys)
    assert rc == 1 and out == "" and "wrote" in err
    assert target.read_text().startswith("# kvdoctor incident report")
    assert [p.name for p in out_dir.iterdir()] == ["report.md"]


def test_fail_on_gates_by_severity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queueing = write_bundle(bundle("queueing"), tmp_path / "q")  # a warning, not critical
    assert _run(["diagnose", "--bundle", str(queueing)], capsys)[0] == 1
    assert _run(["diagnose", "--bundle", str(queueing), "--fail-on", "warning"], capsys)[0] == 1
    assert _run(["diagnose", "--bundle", str(queueing), "--fail-on", "critical"], capsys)[0] == 0
    healthy = write_bundle(bundle("healthy"), tmp_path / "h.tar.gz")
    assert _run(["diagnose", "--bundle", str(healthy)], capsys)[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --endpoint URL, --prometheus URL or --bundle"),
        (
            ["--bundle", "B", "--endpoint", "http://127.0.0.1:1"],
            "give one of --endpoint (live), --prometheus (fleet) or --bundle",
        ),
        (["--bundle", "B", "--save-bundle", "x"], "--save-bundle applies to a live"),
        (["--bundle", "/no/such/bundle"], "bundle not found"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    storm: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [str(storm) if a == "B" else a for a in args]
    rc, out, err = _run(["diagnose", *args], capsys)
    assert rc == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_live_run_and_replay_of_its_saved_bundle_are_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live wiring, with the capture and the experiment replaced by recorded results."""
    import kvdoctor.capture
    import kvdoctor.reproducers.experiments as experiments

    captured = bundle("preemption")
    ran: list[str] = []

    def fake_capture(opts: Any, progress: bool = True, sink: Path | None = None) -> Any:
        assert sink is not None
        write_bundle(captured, sink)
        return captured

    def fake_run(name: str, ctx: Any) -> ReproducerRecord:
        ran.append(name)
        assert ctx.allow_load is True
        return ReproducerRecord(
            name=name,
            verdict="confirmed",
            summary="knee at 13",
            expected={"knee": 12},
            measured={"knee": 13},
            started_at=T0 + 50,
            ended_at=T0 + 80,
            requests_sent=24,
        )

    monkeypatch.setattr(kvdoctor.capture, "capture", fake_capture)
    monkeypatch.setattr(experiments, "run_experiment", fake_run)
    saved = tmp_path / "incident"
    rc, live, err = _run(
        [
            "diagnose",
            "--endpoint",
            "http://127.0.0.1:18999",
            "--allow-load",
            "--save-bundle",
            str(saved),
            "--no-progress",
        ],
        capsys,
    )
    assert rc == 1, err
    # The preemption finding's experiment, then the one for the high TTFT the same window
    # shows (its symptom is detected on its own, before any cause).
    assert ran == ["capacity-ramp", "ttft-split"]
    assert "**confirmed** by reproducer `capacity-ramp`" in live
    assert (saved / "reproducers.jsonl").is_file()
    rc, replay, _ = _run(["diagnose", "--bundle", str(saved)], capsys)
    assert replay == live


def test_bundle_takes_a_fixture_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fixture holds bundle/ (or bundle.tar.gz) beside expected.yaml: the README's CI gate.
    fixture = tmp_path / "storm-fixture"
    write_bundle(bundle("preemption"), fixture / "bundle")
    rc, out, _ = _run(["diagnose", "--bundle", str(fixture), "--fail-on", "critical"], capsys)
    assert rc == 1 and out.startswith("# kvdoctor incident report: critical\n")
    rc, _, err = _run(["diagnose", "--bundle", str(tmp_path)], capsys)
    assert rc == 2 and "no bundle" in err and "Traceback" not in err


def test_json_carries_the_verdict_sentence_and_the_change_first(
    storm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, md, _ = _run(["diagnose", "--bundle", str(storm)], capsys)
    _, out, _ = _run(["diagnose", "--bundle", str(storm), "--format", "json"], capsys)
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    assert report["schema_minor"] >= 1
    verdict_line = next(ln for ln in md.splitlines() if ln.startswith("**Verdict:"))
    assert report["summary"] and report["summary"] in verdict_line.replace("**", "")
    primary = report["findings"][0]
    assert report["change_first"] == primary["remediation"][0]
    assert f"**Change first:** {report['change_first']}" in md


def test_detail_full_unfolds_the_report(storm: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, folded, _ = _run(["diagnose", "--bundle", str(storm)], capsys)
    _, full, _ = _run(["diagnose", "--bundle", str(storm), "--detail", "full"], capsys)
    assert "<details>" in folded and "<details>" not in full
    assert "## KV math" in full and "## Appendix" in full


def test_a_healthy_verdict_exits_0_with_a_note_and_no_finding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # docs/report.md: info never sets the verdict or the exit code; report/1.2 lists an info
    # cause whose symptom the window does not show as a note, not a finding.
    # prefix-short: a confirmed note (block larger than the shared prefix), nothing else.
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "prefix-short"
    rc, out, _ = _run(["diagnose", "--bundle", str(fixture), "--format", "json"], capsys)
    report = json.loads(out)
    live = [f for f in report["findings"] if f["status"] != "refuted"]
    assert report["verdict"] == "healthy" and live == []
    assert report["schema_minor"] == 6  # 1.6: the facts the verdict sentence rests on
    assert report["facts"]["kv_full"] is False and report["facts"]["card_full"] is False
    assert all(ev["label"] for n in report["notes"] for ev in n["evidence"])
    assert [(n["cause"], n["status"], n["severity"]) for n in report["notes"]] == [
        ("block-larger-than-prefix", "confirmed", "info")
    ]
    # Nothing to change on a healthy server: the note's advice is not "the change first".
    assert report["change_first"] is None
    assert rc == 0
    # The Markdown calls it a note, not a fault to fix, and never "Primary finding".
    _, md, _ = _run(["diagnose", "--bundle", str(fixture)], capsys)
    assert "**Note (expected behaviour, not a fault):**" in md
    assert "**Primary finding:**" not in md and "**Change first:**" not in md
