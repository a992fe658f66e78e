"""Playbook loading: a broken playbook is one KvdoctorError naming the file and the field."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from kvdoctor.errors import KvdoctorError
from kvdoctor.resources import data_dir
from kvdoctor.rules.load import load_playbooks


def minimal() -> dict[str, Any]:
    return {
        "id": "preemption",
        "symptom": "preemption",
        "title": "Preemptions",
        "inspect_first": ["kv_usage_max"],
        "runbook": {
            "meaning": "m",
            "impact": "i",
            "diagnosis": "d",
            "mitigation": "x",
        },
        "causes": [
            {
                "id": "kv-capacity",
                "title": "Pool full",
                "description": "The pool is full.",
                "severity": "warning",
                "when": {"all": [{"signal": "kv_usage_max", "op": ">=", "value": 0.9}]},
                "confidence": {"base": 0.5},
                "evidence": [{"signal": "kv_usage_max", "expected": ">= 0.9"}],
                "remediation": [
                    {
                        "text": "Lower --max-num-seqs from {max_num_seqs:plain}",
                        "knob": "max_num_seqs",
                        "direction": "lower",
                    }
                ],
                "reproducer": "capacity-ramp",
            }
        ],
    }


def write(tmp_path: Path, data: Any, name: str = "preemption.yaml") -> Path:
    d = tmp_path / "playbooks"
    d.mkdir(exist_ok=True)
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    (d / name).write_text(text, encoding="utf-8")
    return d


def error_of(tmp_path: Path, data: Any, name: str = "preemption.yaml") -> str:
    with pytest.raises(KvdoctorError) as info:
        load_playbooks(write(tmp_path, data, name))
    return str(info.value)


def test_minimal_playbook_loads(tmp_path: Path) -> None:
    [pb] = load_playbooks(write(tmp_path, minimal()))
    assert pb.id == "preemption"
    assert pb.causes[0].reproducer == "capacity-ramp"


def test_shipped_playbooks_load_from_the_data_dir() -> None:
    pbs = load_playbooks()
    assert [pb.id for pb in pbs] == [pb.id for pb in load_playbooks(data_dir("playbooks"))]
    assert len(pbs) == 6


def _mutate(path: list[Any], value: Any) -> dict[str, Any]:
    data = minimal()
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        (["colour"], "red", "colour: Extra inputs are not permitted"),
        (["symptom"], "slowness", "symptom: Input should be"),
        (["causes", 0, "severity"], "urgent", "causes.0.severity"),
        (["causes", 0, "id"], "KV_Capacity", "causes.0.id: cause id must be kebab-case"),
        (["causes", 0, "reproducer"], "load-test", "causes.0.reproducer"),
        (["causes", 0, "confidence", "base"], 1.5, "causes.0.confidence.base"),
        (
            ["causes", 0, "when", "all", 0, "op"],
            "=~",
            "causes.0.when.all.0.op",
        ),
        (
            ["causes", 0, "when", "all", 0, "signal"],
            "__import__('os').system('true')",
            "causes.0.when.all.0.signal: unknown signal",
        ),
        (
            ["causes", 0, "when", "all", 0],
            {"signal": "kv_usage_max", "op": ">", "value": 0.9, "value_from": "kv_usage_last"},
            "give exactly one of value and value_from",
        ),
        (
            ["causes", 0, "when", "all", 0],
            {"series": "kv_usage", "op": ">", "value": 0.9},
            "a series condition needs for_fraction",
        ),
        (
            ["causes", 0, "when", "all", 0],
            {"series": "temperature", "op": ">", "value": 0.9, "for_fraction": 0.5},
            "unknown series 'temperature'",
        ),
        (
            ["causes", 0, "when", "all", 0],
            {"predicate": "no_such_predicate"},
            "causes.0.when.all.0.predicate: unknown predicate",
        ),
        (
            ["causes", 0, "when", "all", 0],
            {"measured": "token_agreement", "op": "<", "value": 0.5},
            "reproducer numbers cannot make a cause fire",
        ),
        (["causes", 0, "when"], {"all": []}, "a group needs a non-empty"),
        (["runbook", "impact"], "", "runbook.impact"),
        (["causes", 0, "evidence", 0, "signal"], "vibes", "causes.0.evidence.0.signal"),
        (
            ["causes", 0, "remediation", 0, "text"],
            "Lower the number of sequences",
            "text must name the flag --max-num-seqs",
        ),
        (
            ["causes", 0, "remediation", 0, "text"],
            "Change --max-num-seqs",
            "text must state the direction",
        ),
        (
            ["causes", 0, "remediation", 0, "text"],
            "Lower --max-num-seqs from {max_num_seqs.__class__}",
            "must be a plain lower-case name",
        ),
        (
            ["causes", 0, "remediation", 0, "text"],
            "Lower --max-num-seqs from {nonexistent_value}",
            "unknown placeholder {nonexistent_value}",
        ),
        (["causes", 0, "title"], "Pool {0} full", "must be a plain lower-case name"),
        (["causes", 0, "title"], "Pool {kv_usage_max!r}", "conversions are not allowed"),
    ],
)
def test_broken_playbook_names_file_and_field(
    tmp_path: Path, path: list[Any], value: Any, needle: str
) -> None:
    msg = error_of(tmp_path, _mutate(path, value))
    assert msg.startswith("playbooks/preemption.yaml: "), msg
    assert needle in msg, msg
    assert "\n" not in msg


def test_missing_runbook_section(tmp_path: Path) -> None:
    data = minimal()
    del data["runbook"]["mitigation"]
    assert "runbook.mitigation: Field required" in error_of(tmp_path, data)


def test_raise_and_lower_the_same_knob_is_refused(tmp_path: Path) -> None:
    data = minimal()
    data["causes"][0]["remediation"] = [
        {
            "text": "Raise --gpu-memory-utilization",
            "knob": "gpu_memory_utilization",
            "direction": "raise",
        },
        {
            "text": "Lower --gpu-memory-utilization",
            "knob": "gpu_memory_utilization",
            "direction": "lower",
        },
    ]
    assert "both raises and lowers gpu_memory_utilization" in error_of(tmp_path, data)


def test_invalid_yaml_and_non_mapping(tmp_path: Path) -> None:
    assert "invalid YAML at line 2" in error_of(tmp_path, "id: x\n  bad: [\n")
    assert "a playbook is a YAML mapping" in error_of(tmp_path, "- just\n- a list\n")


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    # YAML keeps the last of two equal keys; a playbook would silently lose the first
    # (a cause's second ``explains:`` once replaced its first).
    msg = error_of(tmp_path, "id: x\nsymptom: slow-itl\nid: y\n")
    assert "invalid YAML at line 3: duplicate key 'id'" in msg
    nested = "id: x\ncauses:\n  - id: a\n    when: {}\n    when: {}\n"
    assert "duplicate key 'when'" in error_of(tmp_path, nested)


def test_yaml_is_loaded_safely(tmp_path: Path) -> None:
    msg = error_of(tmp_path, "!!python/object/apply:os.system ['true']\n")
    assert "invalid YAML" in msg


def test_id_must_match_file_name(tmp_path: Path) -> None:
    assert "must match the file name 'other'" in error_of(tmp_path, minimal(), "other.yaml")


def test_duplicate_cause_ids(tmp_path: Path) -> None:
    data = minimal()
    data["causes"].append(copy.deepcopy(data["causes"][0]))
    assert "duplicate cause ids: kv-capacity" in error_of(tmp_path, data)


def test_empty_or_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(KvdoctorError, match="playbook directory not found"):
        load_playbooks(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(KvdoctorError, match="no playbooks"):
        load_playbooks(tmp_path / "empty")


def test_playbooks_come_back_in_table_order(tmp_path: Path) -> None:
    d = tmp_path / "pbs"
    shutil.copytree(data_dir("playbooks"), d)
    assert [pb.symptom for pb in load_playbooks(d)] == [
        "preemption",
        "high-ttft",
        "slow-itl",
        "prefix-miss",
        "gpu-oom",
        "quant-quality",
    ]


# ------------------------------------------------------------ experiments, checked at load time


def test_unknown_experiment_is_refused_with_the_known_names(tmp_path: Path) -> None:
    msg = error_of(tmp_path, _mutate(["causes", 0, "reproducer"], "load-test"))
    assert "causes.0.reproducer: unknown experiment 'load-test'" in msg
    assert "capacity-ramp" in msg and "quant-canary" in msg


def test_the_symptoms_own_experiment_is_checked_at_load(tmp_path: Path) -> None:
    data = minimal()
    data["reproducer"] = "capacity-ramp"
    [pb] = load_playbooks(write(tmp_path, data))
    assert pb.reproducer == "capacity-ramp"
    data["reproducer"] = "load-test"
    assert "reproducer: unknown experiment 'load-test'" in error_of(tmp_path, data)
    # One that tests no cause of this symptom cannot stand in for it.
    data["reproducer"] = "prefix-probe"
    assert "reproducer: prefix-probe tests no cause of preemption" in error_of(tmp_path, data)


def test_experiment_that_does_not_test_the_cause_is_refused(tmp_path: Path) -> None:
    msg = error_of(tmp_path, _mutate(["causes", 0, "reproducer"], "prefix-probe"))
    assert "causes.0.reproducer: prefix-probe does not test preemption/kv-capacity" in msg
    assert "prefix-miss/caching-disabled" in msg  # what it does test


def test_measured_key_the_experiment_does_not_report_is_refused(tmp_path: Path) -> None:
    data = minimal()
    data["causes"][0]["critical_when"] = {"measured": "token_agreement", "op": "<", "value": 0.1}
    msg = error_of(tmp_path, data)
    assert "causes.0.critical_when.measured: capacity-ramp does not report 'token_agreement'" in msg
    # A key the experiment reports loads, in a boost or a remediation condition alike.
    data["causes"][0]["critical_when"] = {"measured": "knee_concurrency", "op": "<=", "value": 2}
    data["causes"][0]["confidence"]["boosts"] = [
        {
            "when": {"all": [{"measured": "tokens_per_seq", "op": ">", "value": 0}]},
            "add": 0.1,
            "why": "w",
        }
    ]
    [pb] = load_playbooks(write(tmp_path, data))
    assert pb.causes[0].critical_when is not None
    data["causes"][0]["remediation"][0]["unless"] = {"measured": "nope", "op": "==", "value": 1}
    assert "remediation.0.unless.measured: capacity-ramp does not report 'nope'" in error_of(
        tmp_path, data
    )
