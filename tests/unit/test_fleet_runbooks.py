"""Fleet findings as playbooks (playbooks/fleet/*.yaml, scope: fleet): `kvdoctor explain
fleet-*`, their place in `rules`, and the loader's checks of fleet signal names."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from vllm_payloads import payload

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.cli import main
from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet.endpoints import diagnose_named
from kvdoctor.rules import docs
from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks
from kvdoctor.rules.schema import RUNBOOK_SECTIONS
from kvdoctor.signals import fleet as fleet_catalog

T0 = 1_800_000_000.0
PLAYBOOKS_DIR = Path(__file__).resolve().parents[2] / "playbooks"
FLEET_DIR = PLAYBOOKS_DIR / "fleet"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _bundle(texts: list[str | None]) -> Bundle:
    scrapes = [
        Scrape(t=T0 + 5 * i, status=200, text=t)
        if t is not None
        else Scrape(t=T0 + 5 * i, error="connection refused")
        for i, t in enumerate(texts)
    ]
    return Bundle(
        manifest=Manifest(
            created_by="test", endpoint="x", started_at=T0, ended_at=scrapes[-1].t, interval_s=5.0
        ),
        scrapes=scrapes,
    )


def test_every_fleet_finding_the_code_makes_has_a_playbook() -> None:
    idle, load, after = (
        payload(f"metrics-{n}.txt") for n in ("idle", "preemption-load", "preemption-after")
    )
    fd = diagnose_named(
        [
            ("idle:1", _bundle([idle, idle, idle])),
            ("busy:1", _bundle([load, load, after])),
            ("dead:1", _bundle([None])),
        ]
    )
    made = {(f.id, f.cause) for f in fd.fleet_findings}
    assert {i for i, _ in made} == {"fleet-imbalance", "fleet-config-drift", "fleet-stale-targets"}
    playbooks = {(pb.id, c.id) for pb in load_fleet_playbooks() for c in pb.causes}
    assert made == playbooks
    # The symptoms each finding is reported under are the ones its playbook lists.
    by_id = {pb.id: pb for pb in load_fleet_playbooks()}
    for f in fd.fleet_findings:
        pb = by_id[f.id]
        assert f.symptom in (pb.symptom, *pb.other_symptoms), (f.id, f.symptom)
        assert f.severity == pb.causes[0].severity


def test_the_default_directory_holds_the_replica_playbooks_only() -> None:
    replica = load_playbooks()
    assert [pb.id for pb in replica] == [
        "preemption",
        "high-ttft",
        "slow-itl",
        "prefix-miss",
        "gpu-oom",
        "quant-quality",
    ]
    assert {pb.scope for pb in replica} == {"replica"}
    fleet = load_fleet_playbooks()
    assert {pb.id for pb in fleet} == {
        "fleet-imbalance",
        "fleet-config-drift",
        "fleet-stale-targets",
    }
    assert {pb.scope for pb in fleet} == {"fleet"}


@pytest.mark.parametrize(
    "ident",
    [
        "fleet-imbalance",
        "fleet-imbalance/routing-imbalance",
        "routing-imbalance",
        "fleet-config-drift",
        "fleet-stale-targets",
    ],
)
def test_explain_prints_the_four_sections(ident: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["explain", ident], capsys)
    assert rc == 0
    for _, heading in RUNBOOK_SECTIONS:
        assert f"\n## {heading}\n\n" in out
    pb, _cause = docs.find(load_fleet_playbooks(), ident)
    assert out.startswith(f"# {pb.id}: {pb.title}\n")
    # The prose's placeholders (thresholds) are filled; only the templates show names.
    prose = out.split("\n## Cause")[0]
    assert "{" not in prose


def test_thresholds_in_the_prose_come_from_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    pb = next(p for p in load_fleet_playbooks() if p.id == "fleet-imbalance")
    text = docs.runbook_md(pb)
    assert "at least 1.5 times" in text and "at most 50%" in text
    assert "KV usage ≤ 50%" in text  # the evidence's expected text, threshold filled in
    skew = fleet_catalog.FLEET_SIGNALS["load_skew_min"]
    monkeypatch.setitem(
        fleet_catalog.FLEET_SIGNALS, "load_skew_min", dataclasses.replace(skew, const=2.5)
    )
    assert "at least 2.5 times" in docs.runbook_md(pb)


def test_rules_lists_the_fleet_findings(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["rules"], capsys)
    assert rc == 0
    for pb in load_fleet_playbooks():
        assert f"\n{pb.id}  {pb.title}\n  {pb.causes[0].id}  warning " in out
    assert out.rstrip().endswith("(ID: a playbook, or playbook/cause).")


def _copy(src: Path, tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("fleet"))
    return dst


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        (
            "fleet-stale-targets.yaml",
            "{signal: stale_count,",
            "{signal: no_such_signal,",
            "causes.0.when.all.0.signal: unknown signal 'no_such_signal'",
        ),
        # A replica signal is not a fleet signal: the registries are separate.
        (
            "fleet-stale-targets.yaml",
            "{signal: stale_count,",
            "{signal: kv_usage_max,",
            "unknown signal 'kv_usage_max'",
        ),
        (
            "fleet-imbalance.yaml",
            "  - load_skew\n",
            "  - no_such_signal\n",
            "inspect_first.3: unknown signal 'no_such_signal'",
        ),
        (
            "fleet-imbalance.yaml",
            "symptom_from: imbalance_symptom",
            "symptom_from: nope",
            "symptom_from: unknown signal 'nope'",
        ),
        (
            "fleet-imbalance.yaml",
            "{load_skew_min} times the traffic",
            "{nope} times the traffic",
            "runbook.diagnosis: unknown placeholder {nope}",
        ),
        # Prose placeholders are thresholds (constants), not values of one window.
        (
            "fleet-imbalance.yaml",
            "{load_skew_min} times the traffic",
            "{load_skew} times the traffic",
            "runbook.diagnosis: unknown placeholder {load_skew}",
        ),
        (
            "fleet-config-drift.yaml",
            "signal: drift_values\n        expand: key",
            "signal: drift_peers\n        expand: key",
            "'drift_peers' is not a table",
        ),
        (
            "fleet-stale-targets.yaml",
            "\nscope: fleet",
            "\nscope: replica",
            "scope: a replica playbook where fleet playbooks are read",
        ),
        ("fleet-stale-targets.yaml", "reproducer: null", "reproducer: prefix-probe", "reproducer"),
    ],
)
def test_a_broken_fleet_playbook_is_one_line(
    tmp_path: Path, file: str, old: str, new: str, message: str
) -> None:
    fleet_dir = _copy(FLEET_DIR, tmp_path, "fleet")
    text = (fleet_dir / file).read_text(encoding="utf-8")
    assert old in text
    (fleet_dir / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    pattern = message.replace("{", r"\{").replace("(", r"\(")
    with pytest.raises(KvdoctorError, match=pattern) as info:
        load_fleet_playbooks(fleet_dir)
    assert "\n" not in str(info.value)


def test_a_replica_playbook_naming_a_fleet_signal_is_rejected(tmp_path: Path) -> None:
    replica_dir = _copy(PLAYBOOKS_DIR, tmp_path, "playbooks")
    path = replica_dir / "preemption.yaml"
    text = path.read_text(encoding="utf-8")
    assert "  - kv_usage_max\n" in text
    path.write_text(text.replace("  - kv_usage_max\n", "  - busy_replicas\n", 1), "utf-8")
    with pytest.raises(KvdoctorError, match="unknown signal 'busy_replicas'"):
        load_playbooks(replica_dir)


def test_a_fleet_playbook_among_the_replica_ones_is_rejected(tmp_path: Path) -> None:
    replica_dir = _copy(PLAYBOOKS_DIR, tmp_path, "playbooks")
    shutil.copy(FLEET_DIR / "fleet-imbalance.yaml", replica_dir)
    with pytest.raises(KvdoctorError, match="scope: a fleet playbook where replica playbooks"):
        load_playbooks(replica_dir)


def test_one_definition_of_each_remediation_sentence() -> None:
    """A fleet finding's remediation lives in its playbook only (no copy in the code)."""
    root = PLAYBOOKS_DIR.parent
    needle = "pins heavy traffic to"
    hits = [
        p.relative_to(root).as_posix()
        for base in ("kvdoctor", "playbooks")
        for p in (root / base).rglob("*")
        if p.suffix in (".py", ".yaml") and needle in p.read_text(encoding="utf-8")
    ]
    assert hits == ["playbooks/fleet/fleet-imbalance.yaml"]
