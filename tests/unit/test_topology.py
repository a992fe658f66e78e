"""`--replicas N --routing POLICY`: the servers behind one router this one is one of.

One server's metrics cannot show its siblings, so a router that scatters prefixes over replicas
looked healthy: four rollout engines behind round_robin at 63 % hits, where the same traffic
hit 82.6 % with consistent hashing (external case r-rollout, its notes naming the router). The
operator's words decide it: given on the command line, kept in a saved bundle, or read from the
bundle's notes with the words quoted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import manifest_json, write_bundle
from kvdoctor.cli import main
from kvdoctor.errors import KvdoctorError
from kvdoctor.signals.topology import replicas_in_notes, routing_in_notes

ROOT = Path(__file__).resolve().parents[2]
ROLLOUT = ROOT / "cases" / "r-rollout-round-robin-router-63pct" / "bundle"
HEALTHY = ROOT / "fixtures" / "healthy"


@pytest.mark.parametrize(
    ("notes", "replicas"),
    [
        ("Rollout engine rollout-0 of 4 (one H100 each)", 4),
        ("RL rollout engine, DP rank 3 of 8 (replica 1 of 2) behind vllm-router", 8),
        ("pod vllm-0, one of 8 identical vLLM replicas behind a ClusterIP Service", 8),
        ("this server is one of four engines", 4),
        ("prefill worker 2 of 4 (4P/6D)", 4),
        # Not replicas: slots, GPUs, a single server.
        ("chats wait although only 2 of 4 slots are busy", None),
        ("TP 8 on GPUs 0-7 of 24 visible", None),
        ("engine 0 of 1", None),
        ("", None),
    ],
)
def test_the_notes_name_the_replicas(notes: str, replicas: int | None) -> None:
    said = replicas_in_notes(notes)
    assert (said[0] if said else None) == replicas
    if said is not None:
        assert said[1] in notes  # the words quoted are the notes' own


@pytest.mark.parametrize(
    ("notes", "policy"),
    [
        ("behind the vime router, router policy round_robin", "round-robin"),
        ("client round-robins requests over the four", "round-robin"),
        ("a plain Kubernetes ClusterIP Service (kube-proxy spreads requests)", "random"),
        ("vllm-router cache_aware, ROUTER_BALANCE_ABS_THRESHOLD=4", "prefix-aware"),
        ("behind vllm-router consistent_hash; clients send no header", "consistent-hash"),
        ("an nginx upstream with least_conn... least-loaded routing", "least-loaded"),
        ("a single server, no router", None),
    ],
)
def test_the_notes_name_the_routing_policy(notes: str, policy: str | None) -> None:
    said = routing_in_notes(notes)
    assert (said[0] if said else None) == policy


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--format", "json"])
    out, _ = capsys.readouterr()
    return int(exit_info.value.code or 0), json.loads(out)


def _without_notes(tmp_path: Path) -> Path:
    bundle = read_bundle(ROLLOUT)
    bare = bundle.model_copy(update={"manifest": bundle.manifest.model_copy(update={"notes": ""})})
    return write_bundle(bare, tmp_path / "bare")


def _leads(report: dict[str, object]) -> tuple[str, str] | None:
    findings = [f for f in report["findings"] if f["status"] != "refuted"]  # type: ignore[union-attr]
    if not findings:
        return None
    return findings[0]["symptom"], findings[0]["cause"]  # type: ignore[index]


def test_replicas_behind_round_robin_given_at_replay_decide_the_scatter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = str(_without_notes(tmp_path))
    rc, plain = _json(["diagnose", "--bundle", bare], capsys)
    assert (rc, plain["verdict"], _leads(plain)) == (0, "healthy", None)
    args = ["diagnose", "--bundle", bare, "--replicas", "4", "--routing", "round-robin"]
    rc, report = _json(args, capsys)
    assert (rc, report["verdict"]) == (1, "degraded")
    assert _leads(report) == ("prefix-miss", "engine-scatter")
    signals = report["signals"]
    assert signals["replicas"] == 4 and signals["routing_policy"] == "round-robin"  # type: ignore[index]
    # A router that routes by prefix does not scatter: the same window is healthy.
    args[-1] = "prefix-aware"
    rc, routed = _json(args, capsys)
    assert (rc, routed["verdict"], _leads(routed)) == (0, "healthy", None)


def test_the_notes_decide_it_when_no_option_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    rc, report = _json(["diagnose", "--bundle", str(ROLLOUT)], capsys)
    assert rc == 1
    assert _leads(report) == ("prefix-miss", "engine-scatter")
    # The options given at replay replace what the notes say.
    args = ["diagnose", "--bundle", str(ROLLOUT), "--routing", "consistent-hash"]
    _, routed = _json(args, capsys)
    assert _leads(routed) is None


def test_replicas_and_routing_are_kept_in_a_saved_bundle_and_left_out_when_none(
    tmp_path: Path,
) -> None:
    original = read_bundle(HEALTHY / "bundle.tar.gz")
    body = manifest_json(original.manifest)
    assert '"replicas"' not in body and '"routing"' not in body
    said = original.model_copy(
        update={
            "manifest": original.manifest.model_copy(
                update={"replicas": 3, "routing": "least-loaded"}
            )
        }
    )
    back = read_bundle(write_bundle(said, tmp_path / "b"))
    assert (back.manifest.replicas, back.manifest.routing) == (3, "least-loaded")


@pytest.mark.parametrize(("key", "value"), [("routing", "sticky-ish"), ("replicas", 0)])
def test_a_bundle_with_an_unknown_routing_is_refused_in_one_line(
    tmp_path: Path, key: str, value: object
) -> None:
    target = write_bundle(read_bundle(HEALTHY / "bundle.tar.gz"), tmp_path / "b")
    manifest = target / "manifest.json"
    body = json.loads(manifest.read_text())
    body[key] = value
    manifest.write_text(json.dumps(body))
    with pytest.raises(KvdoctorError) as err:
        read_bundle(target)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("flag", [["--replicas", "4"], ["--routing", "random"]])
def test_a_fleet_source_refuses_replicas_and_routing(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["diagnose", "--prometheus", "http://127.0.0.1:9", *flag])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert f"{flag[0]} does not apply to --prometheus" in err


def test_an_unknown_routing_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["diagnose", "--bundle", str(ROLLOUT), "--routing", "sticky-ish"])
    assert exit_info.value.code == 2
