"""Runbooks of the fleet findings: `kvdoctor explain fleet-*` and their place in `rules`."""

from __future__ import annotations

from pathlib import Path

import pytest
from vllm_payloads import payload

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.cli import main
from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet import diagnose as fleet_diagnose
from kvdoctor.fleet.endpoints import diagnose_named
from kvdoctor.fleet.runbooks import find_fleet, load_fleet_runbooks, runbook_md
from kvdoctor.rules.schema import RUNBOOK_SECTIONS

T0 = 1_800_000_000.0
SHIPPED = Path(__file__).resolve().parents[2] / "playbooks" / "fleet" / "runbooks.yaml"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _bundle(texts: list[str | None]) -> Bundle:
    scrapes = [
        Scrape(t=T0 + 5 * i, status=200, text=t) if t is not None
        else Scrape(t=T0 + 5 * i, error="connection refused")
        for i, t in enumerate(texts)
    ]
    return Bundle(
        manifest=Manifest(created_by="test", endpoint="x", started_at=T0,
                          ended_at=scrapes[-1].t, interval_s=5.0),
        scrapes=scrapes,
    )


def test_every_fleet_finding_the_code_makes_has_a_runbook() -> None:
    idle, load, after = (payload(f"metrics-{n}.txt") for n in ("idle", "preemption-load",
                                                              "preemption-after"))
    fd = diagnose_named([
        ("idle:1", _bundle([idle, idle, idle])),
        ("busy:1", _bundle([load, load, after])),
        ("dead:1", _bundle([None])),
    ])
    made = {(f.id, f.cause) for f in fd.fleet_findings}
    assert {i for i, _ in made} == {"fleet-imbalance", "fleet-config-drift", "fleet-stale-targets"}
    runbooks = {(rb.id, rb.cause.id) for rb in load_fleet_runbooks()}
    assert made == runbooks
    # The symptoms each finding is reported under are the ones its runbook lists.
    by_id = {rb.id: rb for rb in load_fleet_runbooks()}
    for f in fd.fleet_findings:
        assert f.symptom in by_id[f.id].symptoms, (f.id, f.symptom)
        assert f.severity == by_id[f.id].cause.severity


@pytest.mark.parametrize(
    "ident",
    ["fleet-imbalance", "fleet-imbalance/routing-imbalance", "routing-imbalance",
     "fleet-config-drift", "fleet-stale-targets"],
)
def test_explain_prints_the_four_sections(ident: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["explain", ident], capsys)
    assert rc == 0
    for _, heading in RUNBOOK_SECTIONS:
        assert f"\n## {heading}\n\n" in out
    assert "{" not in out  # every placeholder was filled
    rb = find_fleet(load_fleet_runbooks(), ident)
    assert rb is not None and out.startswith(f"# {rb.id}: {rb.title}\n")


def test_thresholds_in_the_prose_come_from_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    text = runbook_md(load_fleet_runbooks()[0])
    assert "at least 1.5 times" in text and "at most 50%" in text
    monkeypatch.setattr(fleet_diagnose, "LOAD_SKEW", 2.5)
    assert "at least 2.5 times" in runbook_md(load_fleet_runbooks()[0])


def test_rules_lists_the_fleet_findings(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["rules"], capsys)
    assert rc == 0
    for rb in load_fleet_runbooks():
        assert f"\n{rb.id}  {rb.title}\n  {rb.cause.id}  warning " in out
    assert out.rstrip().endswith("(ID: a playbook, or playbook/cause).")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("schema: kvdoctor.fleet-runbooks/1", "schema: other/1",
         "expected kvdoctor.fleet-runbooks/1"),
        ("{load_skew} times the traffic", "{nope} times the traffic", "unknown placeholder {nope}"),
        ("symptoms: [high-ttft]", "symptoms: [sadness]", "unknown symptom"),
        ("  - requests_finished_window\n      - prompt_tokens_per_s\n    runbook",
         "  - no_such_signal\n    runbook", "unknown signal"),
    ],
)
def test_a_broken_runbook_file_is_one_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "runbooks.yaml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(KvdoctorError, match=message) as info:
        load_fleet_runbooks(bad)
    assert "\n" not in str(info.value)
