"""The receiver's logic without sockets: payloads, state, resolution, sinks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.alerting.config import ServeConfig, SinkConfig, load_config, parse_sink
from kvdoctor.alerting.investigate import episode_of, summary_of
from kvdoctor.alerting.payload import PayloadError, parse_payload
from kvdoctor.alerting.resolve import from_targets, load_mapping, resolve, selector_for
from kvdoctor.alerting.sinks import Summary, markdown, payload
from kvdoctor.alerting.state import State
from kvdoctor.errors import KvdoctorError
from tests.alerting._payloads import alert, body
from tests.alerting._payloads import payload as webhook


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "body is not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (body({**webhook(alert("a:1")), "version": "3"}), "version '3' is not supported"),
        (body({**webhook(alert("a:1")), "alerts": []}), "alerts: a non-empty list"),
        (body({**webhook(alert("a:1")), "groupKey": ""}), "groupKey: must not be empty"),
        (body({**webhook(alert("a:1")), "status": "odd"}), "status"),
        (body(webhook({**alert("a:1"), "startsAt": "yesterday"})), "alerts.0.startsAt"),
        (body(webhook({**alert("a:1"), "startsAt": "2026-12-01T03:00:00"})), "UTC offset"),
        (body(webhook({**alert("a:1"), "labels": {"x": 1}})), "labels must map strings"),
        (body(webhook({**alert("a:1"), "labels": "x"})), "labels must be an object"),
    ],
)
def test_malformed_payload_names_the_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(PayloadError, match=None) as exc:
        parse_payload(raw)
    assert reason in str(exc.value)
    assert "\n" not in str(exc.value)


def test_payload_fields_and_group_fingerprint() -> None:
    p = parse_payload(body(webhook(alert("a:1"), alert("b:2", starts="2026-12-01T02:59:30Z"))))
    assert p.alertnames() == ["KvdoctorPreemptionKvCapacity"]
    assert len(p.firing()) == 2
    assert p.alerts[0].ends is None  # Alertmanager's zero time
    # The fingerprint hashes groupKey only: a repeat with other alerts is the same group.
    again = parse_payload(body(webhook(alert("c:3"))))
    assert again.fingerprint() == p.fingerprint()
    assert parse_payload(body(webhook(alert("a:1"), group="g2"))).fingerprint() != p.fingerprint()
    # The episode is the earliest start, in unix seconds.
    assert episode_of(p.firing()) == "1796093970"


def test_state_dedupes_bounds_the_queue_and_survives_a_restart(tmp_path: Path) -> None:
    state = State(tmp_path)
    first = state.enqueue("fp1", "100", "firing", "{}", max_queued=2)
    assert first.outcome == "queued"
    assert state.enqueue("fp1", "100", "firing", "{}", max_queued=2).outcome == "duplicate"
    assert state.enqueue("fp2", "100", "firing", "{}", max_queued=2).outcome == "queued"
    full = state.enqueue("fp3", "100", "firing", "{}", max_queued=2)
    assert full.outcome == "full" and "holds 2" in full.why
    # A compare waits for its own group's investigation.
    assert state.enqueue("fp1", "100", "resolved", "{}", max_queued=5).outcome == "queued"
    job = state.claim()
    assert job is not None and (job.fingerprint, job.kind, job.attempts) == ("fp1", "firing", 1)
    job2 = state.claim()
    assert job2 is not None and job2.fingerprint == "fp2"
    assert state.claim() is None  # fp1's compare waits for fp1's running investigation
    state.close()

    # A stop in the middle: both running jobs come back, none is lost or doubled.
    state = State(tmp_path)
    assert state.requeue_interrupted() == 2
    again = state.claim()
    assert again is not None and again.id == job.id and again.attempts == 2
    state.finish(again.id, "done")
    assert state.episode_for_resolved("fp1", 150.0) == "100"
    assert state.episode_for_resolved("fp1", 50.0) is None
    nxt = state.claim()
    assert nxt is not None and nxt.id == job2.id
    state.finish(nxt.id, "done")
    compare_job = state.claim()
    assert compare_job is not None and compare_job.kind == "resolved"
    assert state.counts() == {"done": 2, "running": 1}


def test_rate_limit_per_replica_counts_a_rerun_once(tmp_path: Path) -> None:
    now = [1000.0]
    state = State(tmp_path, clock=lambda: now[0])
    assert state.replica_allowed("r1", job=1, limit=2, window_s=60)
    assert state.replica_allowed("r1", job=1, limit=2, window_s=60)  # same job after a restart
    assert state.replica_allowed("r1", job=2, limit=2, window_s=60)
    assert not state.replica_allowed("r1", job=3, limit=2, window_s=60)
    assert state.replica_allowed("r2", job=3, limit=2, window_s=60)  # per replica
    now[0] += 61
    assert state.replica_allowed("r1", job=4, limit=2, window_s=60)


def test_deliveries_are_remembered(tmp_path: Path) -> None:
    state = State(tmp_path)
    assert not state.delivered(1, "slack-1")
    state.mark_delivered(1, "slack-1")
    state.close()
    assert State(tmp_path).delivered(1, "slack-1")


def test_resolution_mapping_then_targets_then_labels(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "replicas:\n"
        "  - match: {namespace: llm, pod: vllm-0}\n"
        "    endpoint: http://vllm-0.llm:8000\n"
        "  - match: {model_name: tiny}\n"
        "    selector: '{instance=\"10.0.0.9:8000\"}'\n"
    )
    entries = load_mapping(mapping)
    r = resolve({"namespace": "llm", "pod": "vllm-0", "instance": "x"}, entries)
    assert r is not None and r.source == "mapping" and r.endpoint == "http://vllm-0.llm:8000"
    assert r.matchers == (("namespace", "llm"), ("pod", "vllm-0"))
    by_model = resolve({"model_name": "tiny"}, entries)
    assert by_model is not None and by_model.matchers == (("instance", "10.0.0.9:8000"),)
    targets = {
        "status": "success",
        "data": {
            "activeTargets": [
                {"labels": {"instance": "h:1", "job": "other"}, "scrapeUrl": "http://h:1/metrics"},
                {"labels": {"instance": "h:1", "job": "vllm"}, "scrapeUrl": "http://h:1/metrics"},
            ]
        },
    }
    t = resolve({"instance": "h:1", "job": "vllm"}, entries, targets)
    assert t is not None and t.source == "targets" and t.endpoint == "http://h:1"
    assert t.matchers == (("instance", "h:1"), ("job", "vllm"))
    assert from_targets({"instance": "h:2"}, targets) is None
    plain = resolve({"instance": "h:2", "job": "vllm"}, entries, targets)
    assert plain is not None and plain.source == "alert labels" and plain.endpoint is None
    assert resolve({"alertname": "X"}, entries, targets) is None


def test_selector_covers_every_replica_and_escapes() -> None:
    from kvdoctor.alerting.resolve import Replica

    one = Replica("a", (("instance", "10.0.0.1:8000"), ("job", "vllm")), None, "x")
    two = Replica("b", (("instance", "10.0.0.2:8000"), ("job", "vllm")), None, "x")
    assert selector_for([one]) == '{instance="10.0.0.1:8000", job="vllm"}'
    assert selector_for([one, two]) == (
        '{instance=~"10\\\\.0\\\\.0\\\\.1:8000|10\\\\.0\\\\.0\\\\.2:8000", job="vllm"}'
    )
    bad = Replica("c", (("bad-label", "v"),), None, "x")
    with pytest.raises(KvdoctorError, match="not a Prometheus label name"):
        selector_for([bad])


def _summary() -> Summary:
    from tests.unit._report_factory import finding, report

    rep = report(findings=[finding(remediation=["Raise --gpu-memory-utilization to 0.95"])])
    return summary_of(
        rep,
        group="0123456789abcdef",
        episode="1796093970",
        alertnames=["KvdoctorPreemptionKvCapacity"],
        replicas=["10.0.0.1:8000"],
        primary_replica="10.0.0.1:8000",
        report_url="https://kvdoctor.internal/reports/0123456789abcdef/1764557970/report.md",
    )


def test_sink_payloads_carry_verdict_primary_change_and_link() -> None:
    s = _summary()
    assert s.primary is not None and (s.primary.id, s.primary.cause) == (
        "preemption",
        "kv-capacity",
    )
    hook = payload("webhook", s)
    assert hook["schema"] == "kvdoctor.alert-summary/1" and hook["verdict"] == s.verdict
    for kind in ("github", "gitlab"):
        text = payload(kind, s)["body"]
        assert "`preemption/kv-capacity`" in text and s.report_url in text
        assert f"**Change first**: {s.change_first}" in text
    slack = payload("slack", s)
    assert slack["text"].startswith("kvdoctor: KvdoctorPreemptionKvCapacity")
    section = slack["blocks"][0]["text"]["text"]
    assert f"<{s.report_url}|Full report>" in section and "**" not in section
    # Pure: the same summary gives the same bytes.
    assert json.dumps(payload("slack", s)) == json.dumps(payload("slack", _summary()))
    assert markdown(s) == markdown(_summary())


def test_config_file_and_sink_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "serve.yaml"
    cfg.write_text(
        "listen: 127.0.0.1:19095\nsinks:\n  - {kind: slack, url: https://hooks.test/x}\n"
    )
    loaded = load_config(cfg)
    assert loaded.sink_names() == ["slack-1"]
    cfg.write_text("listen: h:1\nunknown: 2\n")
    with pytest.raises(KvdoctorError, match="unknown: Extra inputs"):
        load_config(cfg)
    sink = parse_sink("github=https://api.github.com/repos/o/r/issues/1/comments,token_env=GH")
    assert sink == SinkConfig(
        kind="github", url="https://api.github.com/repos/o/r/issues/1/comments", token_env="GH"
    )
    with pytest.raises(KvdoctorError, match="expected KIND=URL"):
        parse_sink("slack")
    with pytest.raises(KvdoctorError, match="kind"):
        parse_sink("teams=https://x.test")
    monkeypatch.setenv("KVDOCTOR_SERVE_TOKEN", "s3cret")
    assert ServeConfig().bearer_token() == "s3cret"
    monkeypatch.delenv("KVDOCTOR_SERVE_TOKEN")
    with pytest.raises(KvdoctorError, match="no bearer token"):
        ServeConfig().bearer_token()
    assert ServeConfig(no_auth=True).bearer_token() is None
