"""`--complaint SYMPTOM`: the symptom the operator was called for, through the command line.

Replays of real bundles (a lab fixture, an external case): a capture that does not show the
reported symptom is inconclusive with what would show it, never healthy; a finding of that
symptom leads where the ranking contract leaves a tie; the complaint is kept in a saved bundle.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import manifest_json, write_bundle
from kvdoctor.cli import main
from kvdoctor.errors import KvdoctorError

ROOT = Path(__file__).resolve().parents[2]
HEALTHY = ROOT / "fixtures" / "healthy"
GLM_FP8 = ROOT / "cases" / "o-glm47-flash-fp8-kv-multiturn-garbage"
W_INT8 = ROOT / "cases" / "w-int8-kv-prefix-pinned-pool-gemma4"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--format", "json"])
    out, _ = capsys.readouterr()
    return int(exit_info.value.code or 0), json.loads(out)


@pytest.mark.parametrize(
    "symptom", ["high-ttft", "slow-itl", "preemption", "gpu-oom", "prefix-miss"]
)
def test_a_reported_symptom_the_capture_does_not_show_is_never_healthy(
    symptom: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, plain = _json(["diagnose", "--bundle", str(HEALTHY)], capsys)
    assert (rc, plain["verdict"]) == (0, "healthy")
    rc, report = _json(["diagnose", "--bundle", str(HEALTHY), "--complaint", symptom], capsys)
    assert (rc, report["verdict"]) == (1, "inconclusive")
    questions = report["undecided"]
    assert isinstance(questions, list) and questions[0]["symptom"] == symptom
    assert questions[0]["title"].startswith("Users report")
    assert questions[0]["decide_with"]
    assert report["signals"]["complaint"] == symptom  # type: ignore[index]


def test_reported_wrong_answers_make_a_quantized_cache_the_first_suspect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # External case o-glm47: garbled multi-turn answers on an fp8 MLA cache.
    args = ["diagnose", "--bundle", str(GLM_FP8 / "bundle"), "--prompts"]
    args.append(str(GLM_FP8 / "prompts.jsonl"))
    _, plain = _json(args, capsys)
    _, report = _json([*args, "--complaint", "quant-quality"], capsys)
    before, after = plain["findings"][0], report["findings"][0]  # type: ignore[index]
    assert (after["symptom"], after["cause"]) == ("quant-quality", "fp8-kv-cache")
    assert (before["symptom"], before["cause"]) == ("quant-quality", "fp8-kv-cache")
    assert after["confidence"] == pytest.approx(before["confidence"] + 0.5)
    # Wrong answers users see are harm, not a suspicion from the dtype: critical.
    assert (before["severity"], after["severity"]) == ("warning", "critical")


def test_reported_wrong_answers_lead_a_full_pool_that_is_also_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # External case w-int8 (round 7, dev): corrupted JSON on an int8 cache pinned at 100 %,
    # requests queued 48 s in a benchmark flood; the bundle carries the complaint. An 8-bit
    # cache is stepped back to 16 bits, never "to fp8" (no pool gained, another rounding).
    _, report = _json(["diagnose", "--bundle", str(W_INT8 / "bundle")], capsys)
    lead = report["findings"][0]  # type: ignore[index]
    assert (lead["symptom"], lead["cause"], lead["severity"]) == (
        "quant-quality",
        "fp8-kv-cache",
        "critical",
    )
    assert any(f["cause"] == "kv-admission" for f in report["findings"])  # type: ignore[union-attr]
    assert lead["remediation"][0].startswith("Remove --kv-cache-dtype int8_per_token_head")
    assert not any("--kv-cache-dtype fp8" in step for step in lead["remediation"])
    assert "calibrate the int8_per_token_head scales" in lead["remediation"][1]


def test_the_reported_symptom_breaks_a_tie_the_ranking_contract_leaves() -> None:
    # Pure ranking logic: two findings of the same severity, status and confidence.
    from kvdoctor.report.model import Finding
    from kvdoctor.rules.evaluate import _Built, _rank, _ranked_for

    def built(symptom: str, pi: int) -> _Built:
        f = Finding(
            id=symptom,
            symptom=symptom,  # type: ignore[arg-type]
            cause="c",
            status="suspected",
            severity="warning",
            confidence=0.5,
            title="t",
        )
        return _Built(f, [], _rank("suspected", "warning", 0.5, pi, 0))

    first, second = built("prefix-miss", 0), built("slow-itl", 1)
    ranked = sorted([first, second], key=lambda b: _ranked_for(b, None))
    assert [b.finding.symptom for b in ranked] == ["prefix-miss", "slow-itl"]
    ranked = sorted([first, second], key=lambda b: _ranked_for(b, "slow-itl"))
    assert [b.finding.symptom for b in ranked] == ["slow-itl", "prefix-miss"]
    # Severity still decides first.
    critical = _Built(
        first.finding.model_copy(update={"severity": "critical"}),
        [],
        _rank("suspected", "critical", 0.5, 0, 0),
    )
    ranked = sorted([critical, second], key=lambda b: _ranked_for(b, "slow-itl"))
    assert ranked[0] is critical


def test_the_complaint_is_kept_in_a_saved_bundle_and_left_out_when_none(tmp_path: Path) -> None:
    original = read_bundle(HEALTHY / "bundle.tar.gz")
    assert '"complaint"' not in manifest_json(original.manifest)
    said = original.model_copy(
        update={"manifest": original.manifest.model_copy(update={"complaint": "slow-itl"})}
    )
    back = read_bundle(write_bundle(said, tmp_path / "b"))
    assert back.manifest.complaint == "slow-itl"


def test_a_bundle_with_an_unknown_complaint_is_refused_in_one_line(tmp_path: Path) -> None:
    target = write_bundle(read_bundle(HEALTHY / "bundle.tar.gz"), tmp_path / "b")
    manifest = target / "manifest.json"
    body = json.loads(manifest.read_text())
    body["complaint"] = "everything is slow"
    manifest.write_text(json.dumps(body))
    with pytest.raises(KvdoctorError) as err:
        read_bundle(target)
    assert "\n" not in str(err.value)


def test_a_fleet_source_refuses_the_complaint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["diagnose", "--prometheus", "http://127.0.0.1:9", "--complaint", "slow-itl"])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert "--complaint does not apply to --prometheus" in err
