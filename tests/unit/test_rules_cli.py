"""`kvdoctor rules` and `kvdoctor explain` through the real console entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kvdoctor.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_rules_text_lists_every_cause(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("preemption  ")
    for cause in ("kv-capacity", "queueing", "kv-read-bound", "prefix-drift", "fp8-kv-cache"):
        assert f"  {cause} " in out


def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert [p["symptom"] for p in data] == [
        "preemption",
        "high-ttft",
        "slow-itl",
        "prefix-miss",
        "gpu-oom",
        "quant-quality",
        "fleet",
        "fleet",
        "fleet",
    ]
    assert {c["id"] for c in data[4]["causes"]} >= {"kv-pool-too-small", "activation-peak"}
    assert [p["id"] for p in data[6:]] == [
        "fleet-imbalance",
        "fleet-config-drift",
        "fleet-stale-targets",
    ]
    assert data[6]["causes"] == [
        {
            "id": "routing-imbalance",
            # Values filled in at diagnosis shown by name, as the text listing prints them.
            "title": "Routing imbalance: <busy_replicas> queue requests while <idle_replicas> "
            "sit idle with free KV cache (<load_measure> <load_skew_text> higher): routing, "
            "not capacity",
            # The finding's own title template (playbooks/fleet/fleet-imbalance.yaml).
            "title_template": "Routing imbalance: {busy_replicas} queue requests while "
            "{idle_replicas} sit idle with free KV cache ({load_measure} {load_skew_text} "
            "higher): routing, not capacity",
            "severity": "warning",
            "reproducer": None,
        }
    ]


def test_rules_md_matches_committed_docs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "--format", "md"], capsys)
    assert code == 0
    assert out == (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text("utf-8")


def test_explain_playbook_has_the_four_sections(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["explain", "gpu-oom"], capsys)
    assert code == 0
    for heading in ("What it means", "Why it matters", "Evidence", "Mitigation"):
        assert f"## {heading}" in out
    assert "`kv-pool-too-small`" in out and "`activation-peak`" in out


@pytest.mark.parametrize("ident", ["preemption/kv-capacity", "kv-capacity"])
def test_explain_one_cause(ident: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["explain", ident], capsys)
    assert code == 0
    assert "`kv-capacity`" in out
    assert "`request-exceeds-kv-capacity`" not in out
    assert "Reproducer:** `capacity-ramp`" in out


def test_explain_unknown_id_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["explain", "flux-capacitor"], capsys)
    assert code == 2
    assert out == ""
    assert err.strip().count("\n") == 0
    assert "no playbook or cause 'flux-capacitor'" in err
    assert "fleet findings: fleet-imbalance, fleet-config-drift, fleet-stale-targets" in err


def test_broken_playbook_dir_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "preemption.yaml").write_text("id: preemption\nsymptom: nope\n", "utf-8")
    code, _, err = run(["rules", "--playbooks", str(tmp_path)], capsys)
    assert code == 2
    assert "preemption.yaml: " in err and "Traceback" not in err


PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_]*(:[^}]*)?\}")


@pytest.mark.parametrize("fmt", ["text", "md", "json"])
def test_rules_never_print_a_raw_placeholder(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "--format", fmt], capsys)
    assert code == 0
    if fmt == "json":
        data = json.loads(out)
        shown = "\n".join(c["title"] for p in data for c in p["causes"])
    else:
        shown = out
    assert PLACEHOLDER.search(shown) is None, PLACEHOLDER.search(shown)
    block = {"text": "<block_size>-token block", "json": "<block_size>-token block"}
    assert block.get(fmt, "`<block_size>`-token block") in shown


@pytest.mark.parametrize(
    "ident", ["prefix-miss", "block-larger-than-prefix", "high-ttft", "fleet-imbalance"]
)
def test_explain_never_prints_a_raw_placeholder(
    ident: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["explain", ident], capsys)
    assert code == 0
    assert PLACEHOLDER.search(out) is None, PLACEHOLDER.search(out)
