"""`kvdoctor compare`: the finding-by-finding verdict and the exit code, on recorded bundles.

The recorded fixtures stand in for "before" and "after" here (pure logic); the lab tier
(tests/lab/test_remediation_lab.py) compares real before/after runs of the same scenario.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.cli import main
from kvdoctor.compare import compare
from kvdoctor.pipeline import diagnose

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _bundle(name: str) -> str:
    return str(FIXTURES / name / "bundle.tar.gz")


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_primary_gone_is_verified_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["compare", _bundle("preemption-storm"), _bundle("healthy")], capsys)
    assert rc == 0, out
    assert out.startswith("## Fix verified: `preemption/kv-capacity` is gone\n")
    assert "| preemption/kv-capacity | suspected, critical, 1 | — | **gone** |" in out
    assert "| `--num-gpu-blocks-override` | 17 | (not set) |" in out
    assert "preemption-storm/bundle.tar.gz" in out and str(FIXTURES) not in out


def test_same_bundle_twice_is_not_verified_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    b = _bundle("long-prefill-hol")
    rc, out, _ = _run(["compare", b, b, "--format", "json"], capsys)
    assert rc == 1
    data = json.loads(out)
    assert data["schema"] == "kvdoctor.compare/1"
    assert (data["verified"], data["primary"], data["primary_result"]) == (
        False,
        "slow-itl/prefill-interference",
        "same",
    )
    assert data["change_first"].startswith("Remove --no-enable-chunked-prefill")
    assert data["flags"] == []


def test_a_healthy_before_has_nothing_to_verify(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(["compare", _bundle("healthy"), _bundle("queueing")], capsys)
    assert rc == 2
    assert "Nothing to verify" in out and "BEFORE has no finding" in err


def test_findings_are_marked_new_and_better() -> None:
    before = diagnose(read_bundle(_bundle("long-prefill-hol")))
    after = diagnose(read_bundle(_bundle("queueing")))
    c = compare(before, after)
    results = {f"{d.id}/{d.cause}": d.result for d in c.findings}
    assert results["slow-itl/prefill-interference"] == "gone"
    assert results["high-ttft/queueing"] == "new"
    assert c.verified and c.verdict_before == "degraded"


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "http://127.0.0.1:1", "x"],
        ["compare", "/nonexistent/before.tar.gz", "/nonexistent/after.tar.gz"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, err = _run(args, capsys)
    assert rc == 2 and out == ""
    assert err.startswith("kvdoctor: error: ") and err.count("\n") == 1, err


def test_different_servers_are_refused_unless_forced_and_never_verified(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from kvdoctor.bundle.writer import write_bundle

    b = read_bundle(FIXTURES / "preemption-storm" / "bundle.tar.gz")
    assert b.server is not None
    # The same fixed server, on another vLLM release and another model: not "the same server
    # after the change".
    other = read_bundle(FIXTURES / "healthy" / "bundle.tar.gz")
    assert other.server is not None
    server = other.server.model_copy(
        update={
            "version": {"version": "0.11.0"},
            "models": {"object": "list", "data": [{"id": "another-model"}]},
        }
    )
    write_bundle(other.model_copy(update={"server": server}), tmp_path / "after")
    code, out, err = _run(["compare", _bundle("preemption-storm"), str(tmp_path / "after")], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "different servers" in err and "--force" in err
    code, out, _ = _run(
        ["compare", _bundle("preemption-storm"), str(tmp_path / "after"), "--force"], capsys
    )
    assert code == 1  # a forced comparison never verifies a fix
    assert "Compared with --force although these are different servers" in out
    assert "vLLM 0.32.0 before, 0.11.0 after" in out


def test_the_advised_change_applied_is_stated(capsys: pytest.CaptureFixture[str]) -> None:
    # The lab's queueing run and its fix: "Raise --max-num-seqs from 2 to 16", then 16 runs.
    rc, out, _ = _run(
        ["compare", _bundle("queueing"), _bundle("healthy"), "--format", "json"], capsys
    )
    result = json.loads(out)
    assert rc == 0 and result["verified"] is True
    assert result["advised_applied"] == "applied"
    assert result["advised_edits"] == [
        {
            "flag": "max-num-seqs",
            "action": "raise",
            "advised": 16,
            "after": 16,
            "applied": "applied",
        }
    ]
    assert {"flag": "max-num-seqs", "before": 2, "after": 16} in result["flags"]
    rc, md, _ = _run(["compare", _bundle("queueing"), _bundle("healthy")], capsys)
    assert "Applied in AFTER: yes, its flags show every edit of it." in md


def _with_args(d: Any, **args: object) -> Any:
    ctx = dataclasses.replace(d.context, engine_args={**d.context.engine_args, **args})
    return type(d)(d.report, ctx, d.signals)


def test_a_finding_gone_without_the_advised_change_is_not_verified() -> None:
    from kvdoctor.compare import advised_change, render_markdown

    bundle = read_bundle(Path(_bundle("queueing")))
    before = diagnose(bundle)
    advised = advised_change(bundle, before)
    assert advised == [("max-num-seqs", "raise", 2, 16)]
    after = diagnose(read_bundle(Path(_bundle("healthy"))))
    not_made = compare(before, _with_args(after, **{"max-num-seqs": 2}), advised=advised)
    assert not_made.primary_result == "gone" and not_made.advised_applied == "not applied"
    assert not not_made.verified
    assert render_markdown(not_made, "b", "a").startswith(
        "## Not verified: `high-ttft/queueing` is gone, but the advised change was not applied"
    )
    part = compare(before, _with_args(after, **{"max-num-seqs": 8}), advised=advised)
    assert part.advised_applied == "partly" and part.verified


def test_regressed_is_its_own_exit_code_and_documented(capsys: pytest.CaptureFixture[str]) -> None:
    before = diagnose(read_bundle(Path(_bundle("queueing"))))
    worse = before.report.findings[0].model_copy(update={"severity": "critical"})
    after_report = before.report.model_copy(
        update={"findings": [worse, *before.report.findings[1:]], "verdict": "critical"}
    )
    result = compare(before, type(before)(after_report, before.context, before.signals))
    assert result.primary_result == "worse" and result.regressed and not result.verified
    same = compare(before, before)
    assert not same.regressed
    rc, out, _ = _run(["compare", "--help"], capsys)
    assert rc == 0 and "3 regressed" in " ".join(out.split())


def test_a_report_led_by_a_note_is_verified_when_the_note_is_gone() -> None:
    # prefix-off: caching off is a confirmed note (no harm measured, report/1.3 inconclusive);
    # the change first is to enable caching, and AFTER (caching on) no longer carries it.
    before = diagnose(read_bundle(_bundle("prefix-off")))
    after = diagnose(read_bundle(_bundle("healthy")))
    c = compare(before, after)
    assert c.primary == "prefix-miss/caching-disabled"
    assert c.primary_result == "gone" and c.verified
    assert c.change_first is not None and "prefix-caching" in c.change_first
