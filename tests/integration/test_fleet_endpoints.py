"""Fleets without Prometheus: `diagnose --endpoint A --endpoint B` against local fake vLLMs.

The fakes serve real vLLM 0.32 payloads (tests/data/vllm-0.32). The capture runs for real over
HTTP, on a fake clock per replica (so a 16-second window takes no time), through the same
code as the CLI.
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from _vllm_fake import FakeClock, FakeVllm, PatientServerProbe, free_port, serve
from vllm_payloads import payload

import kvdoctor.capture
import kvdoctor.probes.server
from kvdoctor.bundle.model import Bundle
from kvdoctor.cli import main
from kvdoctor.errors import BundleError
from kvdoctor.fleet import diagnose_fleet_bundle, is_fleet_bundle
from kvdoctor.fleet.bundle import fleet_bundle_kind
from kvdoctor.fleet.endpoints import (
    diagnose_named,
    fleet_view,
    read_endpoints_bundle,
    write_endpoints_bundle,
)
from kvdoctor.fleet.render import render_fleet_markdown
from kvdoctor.report.render import render_json
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.signals.compute import compute_signals

IDLE = payload("metrics-idle.txt")
LOAD = payload("metrics-preemption-load.txt")
AFTER = payload("metrics-preemption-after.txt")
REAL_CAPTURE = kvdoctor.capture.capture


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture(autouse=True)
def fake_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every capture gets its own fake clock starting at the same instant: a 16 s window of
    real HTTP scrapes takes milliseconds, and the replicas' scrapes line up exactly."""
    real = kvdoctor.capture.capture

    def fast(opts: Any, progress: bool = False, sink: Path | None = None, **_: Any) -> Bundle:
        clock = FakeClock()
        return real(opts, progress=False, sink=sink, clock=clock.time, sleep=clock.sleep)

    monkeypatch.setattr(kvdoctor.capture, "capture", fast)

    monkeypatch.setattr(kvdoctor.probes.server, "ServerProbe", PatientServerProbe)


@pytest.fixture()
def fleet() -> Iterator[tuple[str, str]]:
    """Two replicas: ``idle`` (healthy, no traffic) and ``busy`` (preempting under load)."""
    with ExitStack() as stack:
        idle = stack.enter_context(serve(FakeVllm(metrics=[IDLE])))
        busy = stack.enter_context(serve(FakeVllm(metrics=[LOAD, LOAD, AFTER])))
        yield idle, busy


def _flags(*urls: str) -> list[str]:
    out: list[str] = []
    for u in urls:
        out += ["--endpoint", u]
    return [*out, "--window", "16s", "--interval", "4s", "--no-reproduce", "--no-progress"]


def _name(url: str) -> str:
    return url.split("//", 1)[1]


def test_two_endpoints_give_the_fleet_report(
    fleet: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    idle, busy = fleet
    rc, out, err = _run(["diagnose", *_flags(idle, busy), "--format", "json"], capsys)
    assert rc == 1, err
    report = json.loads(out)
    imbalance = next(f for f in report["findings"] if f["id"] == "fleet-imbalance")
    assert imbalance["cause"] == "routing-imbalance"
    assert imbalance["evidence"][0] == {
        "signal": "replicas",
        "label": "busy replicas",
        "value": _name(busy),
        "expected": "busy replicas (preempting or queueing)",
        "met": None,
    }
    assert imbalance["evidence"][1]["value"] == _name(idle)
    # Per-replica findings are grouped under the replica they fired on: only the busy one.
    per_replica = [f for f in report["findings"] if not f["id"].startswith("fleet-")]
    assert per_replica
    assert all(f["evidence"][0]["value"] == _name(busy) for f in per_replica)
    assert any(f["symptom"] == "preemption" and f["status"] != "refuted" for f in per_replica)


def test_markdown_has_one_row_per_replica_in_the_order_given(
    fleet: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    idle, busy = fleet
    rc, out, err = _run(["diagnose", *_flags(busy, idle)], capsys)
    assert rc == 1, err
    assert out.startswith("## Fleet\n\nEndpoints scraped directly, ")
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and ":" in ln.split("|")[1]]
    keys = [r.split("|")[1].strip().replace("\\", "") for r in rows[:2]]
    assert keys == [_name(busy), _name(idle)]
    # The idle replica saw no traffic in the window: nothing to judge it on, so its verdict is
    # `unknown`, never a "healthy" the data does not show.
    assert rows[1].split("|")[3].strip() == "unknown"


def test_saved_fleet_replays_byte_for_byte(
    fleet: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    idle, busy = fleet
    for fmt, name in (("md", "md-incident"), ("json", "json-incident.tar.gz")):
        target = tmp_path / name
        rc, live, err = _run(
            ["diagnose", *_flags(idle, busy), "--format", fmt, "--save-bundle", str(target)],
            capsys,
        )
        assert rc == 1, err
        assert fleet_bundle_kind(target) == "endpoints"
        rc2, replay, err2 = _run(["diagnose", "--bundle", str(target), "--format", fmt], capsys)
        assert (rc2, replay) == (rc, live), err2
    # The layout: fleet.json, each replica's own bundle, and a fleet view any reader can open.
    saved = tmp_path / "md-incident"
    index = json.loads((saved / "fleet.json").read_text())
    assert index["schema"] == "kvdoctor.fleet-endpoints/1"
    assert [r["name"] for r in index["replicas"]] == [_name(idle), _name(busy)]
    for r in index["replicas"]:
        assert (saved / r["path"] / "manifest.json").is_file()
        assert (saved / r["path"] / "server.json").is_file()
    from kvdoctor.bundle.reader import read_bundle

    view = read_bundle(saved)
    assert view.manifest.endpoint == "fleet of 2 endpoints"
    with tarfile.open(tmp_path / "json-incident.tar.gz") as tar:
        names = tar.getnames()
    assert "json-incident/replicas/1/metrics.jsonl" in names


def test_fleet_view_adds_the_replicas_up() -> None:
    """The fleet view aggregates replicas the way the local path aggregates engines."""
    t0 = 1_800_000_000.0
    named = [("a", _bundle([LOAD, AFTER], t0)), ("b", _bundle([LOAD, AFTER], t0))]
    one = compute_signals(named[0][1]).flat()
    both = compute_signals(fleet_view(named)).flat()
    assert isinstance(one["preemptions_window"], int | float) and one["preemptions_window"] > 0
    assert both["preemptions_window"] == 2 * one["preemptions_window"]
    assert both["kv_usage_max"] == one["kv_usage_max"]


def _bundle(texts: list[str], t0: float) -> Bundle:
    from kvdoctor.bundle.model import Manifest, Scrape

    return Bundle(
        manifest=Manifest(
            created_by="test",
            endpoint="x",
            started_at=t0,
            ended_at=t0 + 5 * (len(texts) - 1),
            interval_s=5.0,
        ),
        scrapes=[Scrape(t=t0 + 5 * i, status=200, text=t) for i, t in enumerate(texts)],
    )


def test_a_dead_endpoint_is_a_stale_target_not_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    with serve(FakeVllm(metrics=[IDLE])) as live:
        rc, out, err = _run(["diagnose", *_flags(live, dead), "--format", "json"], capsys)
    report = json.loads(out)
    stale = next(f for f in report["findings"] if f["id"] == "fleet-stale-targets")
    assert stale["evidence"][0]["value"] == _name(dead)
    assert f"{_name(dead)} down" in stale["title"]
    assert stale["evidence"][1] == {
        "signal": f"scrapes_ok[{_name(dead)}]",
        "label": f"target scrapes ok, {_name(dead)}",
        "value": "0 of 1",
        "expected": "every scrape of the window answered, the last ones included",
        "met": None,
    }
    assert any(nc["what"] == f"replica {_name(dead)}" for nc in report["not_checked"])
    assert rc == 1, err


def test_every_endpoint_dead_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    urls = [f"http://127.0.0.1:{free_port()}" for _ in range(2)]
    rc, out, err = _run(["diagnose", *_flags(*urls)], capsys)
    assert rc == 2 and out == ""
    assert "no replica could be diagnosed from the endpoints" in err
    assert len(err.strip().splitlines()) == 2  # the capture line, then the error


def test_reproducers_run_per_replica_and_land_in_its_bundle(
    fleet: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import kvdoctor.reproducers.experiments as experiments

    idle, busy = fleet
    targets: list[str] = []

    def fake_run(name: str, ctx: Any) -> ReproducerRecord:
        targets.append(ctx.endpoint)
        return ReproducerRecord(
            name=name,
            verdict="confirmed",
            summary="seen",
            started_at=1.0,
            ended_at=2.0,
            requests_sent=3,
        )

    monkeypatch.setattr(experiments, "run_experiment", fake_run)
    saved = tmp_path / "fleet"
    args = [a for a in _flags(idle, busy) if a != "--no-reproduce"]
    rc, _, err = _run(["diagnose", *args, "--save-bundle", str(saved)], capsys)
    assert rc == 1, err
    # Each replica's planned experiments ran against that replica, one replica at a time,
    # and their records are in that replica's own bundle.
    assert set(targets) == {idle, busy}
    assert targets == sorted(targets, key=[idle, busy].index)
    assert f"[{_name(busy)}] reproducer" in err and f"[{_name(idle)}] reproducer" in err
    named = dict(read_endpoints_bundle(saved))
    for url in (idle, busy):
        records = named[_name(url)].reproducers or []
        assert len(records) == targets.count(url) and records[0].verdict == "confirmed"


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--logs", "-"], "--logs describes one server"),
        (["--engine-arg", "max-num-seqs=4"], "--engine-arg describes one server"),
        (["--prometheus", "http://p:9090"], "give one of"),
    ],
)
def test_flags_that_need_one_server(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, err = _run(
        ["diagnose", "--endpoint", "http://a:1", "--endpoint", "http://b:2", *extra], capsys
    )
    assert rc == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_record_takes_one_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _run(
        [
            "record",
            "--endpoint",
            "http://a:1",
            "--endpoint",
            "http://b:2",
            "-o",
            str(tmp_path / "b"),
        ],
        capsys,
    )
    assert rc == 2
    assert "record takes one --endpoint, got 2" in err and len(err.strip().splitlines()) == 1


def _saved(tmp_path: Path) -> Path:
    t0 = 1_800_000_000.0
    named = [("a:1", _bundle([IDLE, IDLE], t0)), ("b:2", _bundle([LOAD, AFTER], t0))]
    return write_endpoints_bundle(named, tmp_path / "saved")


def test_replay_of_a_written_bundle(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    assert is_fleet_bundle(saved)
    named = read_endpoints_bundle(saved)
    assert [n for n, _ in named] == ["a:1", "b:2"]
    replay = diagnose_fleet_bundle(saved)
    direct = diagnose_named(named)
    assert render_fleet_markdown(replay) == render_fleet_markdown(direct)
    assert render_json(replay.report) == render_json(direct.report)


@pytest.mark.parametrize(
    ("index", "message"),
    [
        ({"schema": "other/1", "replicas": []}, "not a kvdoctor.fleet-endpoints/1"),
        ({"schema": "kvdoctor.fleet-endpoints/1", "replicas": []}, "1 to 64 replicas"),
        (
            {
                "schema": "kvdoctor.fleet-endpoints/1",
                "replicas": [{"name": "x", "path": "../../etc"}],
            },
            "path '../../etc' refused",
        ),
        (
            {
                "schema": "kvdoctor.fleet-endpoints/1",
                "replicas": [{"name": "x", "path": "replicas/7"}],
            },
            "no bundle at replicas/7/",
        ),
        (
            {
                "schema": "kvdoctor.fleet-endpoints/1",
                "replicas": [
                    {"name": "a", "path": "replicas/0"},
                    {"name": "a", "path": "replicas/1"},
                ],
            },
            "twice",
        ),
    ],
)
def test_bad_fleet_index_is_one_line(tmp_path: Path, index: dict[str, Any], message: str) -> None:
    saved = _saved(tmp_path)
    (saved / "fleet.json").write_text(json.dumps(index))
    with pytest.raises(BundleError, match=message) as info:
        diagnose_fleet_bundle(saved)
    assert "\n" not in str(info.value)


def test_corrupt_replica_bundle_names_the_replica(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    (saved / "replicas" / "1" / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match=r"replica 'b:2' \(replicas/1/\)"):
        diagnose_fleet_bundle(saved)


def test_replica_status_from_its_own_scrapes() -> None:
    from kvdoctor.bundle.model import Scrape
    from kvdoctor.fleet.endpoints import replica_status

    def status(pattern: str) -> str:
        b = _bundle([IDLE] * len(pattern), 1_800_000_000.0)
        scrapes = [
            s if ok == "+" else Scrape(t=s.t, error="timed out")
            for s, ok in zip(b.scrapes, pattern, strict=True)
        ]
        return replica_status(b.model_copy(update={"scrapes": scrapes}))

    # Interval 5 s: more than two intervals of failed scrapes at the end is stale.
    assert status("+++++") == "up"
    assert status("+++--") == "up"
    assert status("++---") == "stale"
    assert status("-----") == "down"
    assert status("--+++") == "up"


def test_ctrl_c_ends_every_window_early_and_keeps_what_was_captured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os
    import signal
    import threading
    import time

    from kvdoctor.commands._capture_opts import to_capture_options
    from kvdoctor.fleet.endpoints import capture_endpoints

    monkeypatch.setattr(kvdoctor.capture, "capture", REAL_CAPTURE)  # real time for this one
    with ExitStack() as stack:
        urls = [stack.enter_context(serve(FakeVllm(metrics=[IDLE]))) for _ in range(2)]
        opts = [to_capture_options({"endpoint": u, "window": 60, "interval": 0.2}) for u in urls]
        # A real SIGINT, as Ctrl-C sends: it reaches the main thread only. A test run started
        # in the background by a non-interactive shell inherits SIGINT ignored; give it a
        # terminal's handler for the duration.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        timer = threading.Timer(0.8, os.kill, args=(os.getpid(), signal.SIGINT))
        try:
            timer.start()
            started = time.monotonic()
            bundles = capture_endpoints(opts)
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 10  # not the 60 s window
    for b in bundles:
        assert 1 <= len(b.scrapes) < 50 and all(s.ok for s in b.scrapes)
        assert kvdoctor.capture.was_interrupted(b)


def test_prompts_read_against_a_fleet_of_endpoints_show_the_scatter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # External case zyq-gym-cookie (holdout-21, spent): eight replicas, each one engine at a
    # 50 % hit rate, whose prompts (each turn extending the last) share 89 %. No replica alone
    # can see it; the fleet view with the operator's sample can. Without the sample: healthy.
    case = Path(__file__).resolve().parents[2] / "cases" / "zyq-gym-cookie-drop-dp-scatter"
    args = ["diagnose", "--bundle", str(case / "bundle"), "--format", "json"]
    rc, out, _ = _run([*args, "--prompts", str(case / "prompts.jsonl")], capsys)
    report = json.loads(out)
    lead = report["findings"][0]
    assert (lead["symptom"], lead["cause"]) == ("prefix-miss", "engine-scatter")
    assert report["verdict"] == "degraded" and rc == 1
    rc, out, _ = _run(args, capsys)
    assert json.loads(out)["verdict"] == "healthy" and rc == 0
