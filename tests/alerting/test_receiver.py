"""``kvdoctor serve`` over loopback: refusals, deduplication, the whole path against a real
Prometheus, and a restart in the middle of an investigation (a real ``kvdoctor serve``
process killed with SIGKILL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from kvdoctor.alerting.config import ServeConfig, SinkConfig
from kvdoctor.alerting.server import make_server, serve_in_thread
from kvdoctor.alerting.service import Service
from kvdoctor.alerting.state import State
from tests.alerting._payloads import alert, body, payload
from tests.alerting.conftest import HotReplica, Sink
from tests.fleet.conftest import RunningPrometheus, free_port

TOKEN = "t0ken-for-tests"
ROOT = Path(__file__).resolve().parents[2]


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Running:
    def __init__(self, cfg: ServeConfig, start_workers: bool = True) -> None:
        self.log: list[str] = []
        self.state = State(cfg.state_dir)
        self.service = Service(cfg, self.state, log=self.log.append)
        self.server = make_server(self.service, "127.0.0.1:0", TOKEN, self.log.append)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        if start_workers:
            self.service.start()
        serve_in_thread(self.server)

    def post(self, data: bytes, token: str | None = TOKEN, **kw: object) -> httpx.Response:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return httpx.post(f"{self.url}/alerts", content=data, headers=headers, timeout=10)

    def metric(self, name: str) -> float:
        text = httpx.get(f"{self.url}/metrics", timeout=5).text
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
        raise AssertionError(f"{name} not in /metrics")

    def close(self) -> None:
        self.service.stop()
        self.server.shutdown()
        self.server.server_close()
        self.state.close()


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def start(start_workers: bool = True, **settings: object) -> Running:
        cfg = ServeConfig.model_validate({"state_dir": tmp_path / "state", **settings})
        r = Running(cfg, start_workers)
        started.append(r)
        return r

    yield start
    for r in started:
        r.close()


def test_refusals_each_with_a_status_a_reason_and_a_counter(
    receiver: Callable[..., Running],
) -> None:
    r = receiver(start_workers=False, max_body_bytes=4096, max_queue=2)
    good = body(payload(alert("10.0.0.1:8000")))
    # Unauthenticated: no token, a wrong one, another scheme.
    assert r.post(good, token=None).status_code == 401
    assert r.post(good, token="wrong").status_code == 401
    basic = httpx.post(f"{r.url}/alerts", content=good, headers={"Authorization": f"Basic {TOKEN}"})
    assert basic.status_code == 401 and basic.headers["WWW-Authenticate"].startswith("Bearer")
    # Oversized: refused from Content-Length, before the body is read.
    big = body(payload(alert("10.0.0.1:8000", note="x" * 5000)))
    too_big = r.post(big)
    assert too_big.status_code == 413 and "4096" in too_big.json()["error"]
    # Malformed: 400 with the reason, logged; the receiver keeps serving.
    for raw, reason in (
        (b"{", "body is not JSON"),
        (body({**payload(alert("a:1")), "version": "2"}), "version '2' is not supported"),
        (body(payload({**alert("a:1"), "startsAt": "soon"})), "alerts.0.startsAt"),
    ):
        resp = r.post(raw)
        assert resp.status_code == 400 and reason in resp.json()["error"], resp.text
        assert any(reason in line for line in r.log)
    # Duplicate (a retry) and replay (the same notification again later): one job.
    first = r.post(good)
    assert first.status_code == 202 and first.json()["status"] == "queued"
    assert r.post(good).json()["status"] == "duplicate"
    # A repeat notification of the same episode (another alert joined, order changed).
    repeat = body(payload(alert("10.0.0.2:8000"), alert("10.0.0.1:8000")))
    assert r.post(repeat).json()["status"] == "duplicate"
    # A later alert of the same open episode (a critical replacing its inhibited warning).
    later = body(payload(alert("10.0.0.1:8000", alertname="X", starts="2026-12-01T03:05:00Z")))
    assert r.post(later).json()["status"] == "duplicate"
    # A resolve of a group never investigated is acknowledged and ignored.
    resolved = body(payload(alert("9.9.9.9:1", status="resolved"), status="resolved", group="gx"))
    assert r.post(resolved).json()["status"] == "ignored"
    # The queue has a bound; beyond it 503, which Alertmanager retries.
    assert r.post(body(payload(alert("b:1"), group="g2"))).status_code == 202
    busy = r.post(body(payload(alert("c:1"), group="g3")))
    assert busy.status_code == 503 and "queue holds 2" in busy.json()["error"]
    # Health and counters.
    assert httpx.get(f"{r.url}/healthz").json() == {"status": "ok", "jobs": {"queued": 2}}
    assert r.metric("kvdoctor_receiver_unauthorized_total") == 3
    assert r.metric("kvdoctor_receiver_oversized_total") == 1
    assert r.metric("kvdoctor_receiver_malformed_total") == 3
    assert r.metric("kvdoctor_receiver_duplicates_total") == 3
    assert r.metric("kvdoctor_receiver_queue_full_total") == 1
    assert r.metric("kvdoctor_receiver_accepted_total") == 2
    # The token never reaches the log or the state.
    assert not any(TOKEN in line for line in r.log)
    assert TOKEN.encode() not in (r.service.config.state_dir / "state.sqlite3").read_bytes()


def test_tls_receiver(tmp_path: Path) -> None:
    cfg = ServeConfig(state_dir=tmp_path / "s")
    state = State(cfg.state_dir)
    service = Service(cfg, state)
    tls = (ROOT / "tests/data/tls/cert.pem", ROOT / "tests/data/tls/key.pem")
    server = make_server(service, "127.0.0.1:0", TOKEN, lambda _l: None, tls)
    serve_in_thread(server)
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}/healthz"
        assert httpx.get(url, verify=False, timeout=5).json()["status"] == "ok"
        with pytest.raises(httpx.HTTPError):
            httpx.get(url.replace("https", "http"), timeout=5)
    finally:
        server.shutdown()
        server.server_close()
        state.close()


def _firing_when_ready(prom: RunningPrometheus, replica: HotReplica, seconds: float) -> float:
    prom.wait_for_series("vllm:num_preemptions_total", 1)
    time.sleep(seconds)  # a few scrapes of growing counters before the alert "starts"
    return time.time()


def test_whole_path_real_prometheus_to_sink_then_compare(
    receiver: Callable[..., Running],
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    hot_replica: HotReplica,
    sink: Sink,
) -> None:
    prom = prometheus_server([hot_replica.address])
    starts = _firing_when_ready(prom, hot_replica, 8)
    r = receiver(
        prometheus=prom.url,
        lookback="8s",
        step="1s",
        after_window="4s",
        sinks=[SinkConfig(kind="webhook", url=sink.url), SinkConfig(kind="slack", url=sink.url)],
        public_url="https://kvdoctor.internal",
    )
    firing = payload(alert(hot_replica.address, starts=_iso(starts)))
    assert r.post(body(firing)).status_code == 202
    got = sink.wait(2)
    summary = next(g["body"] for g in got if "schema" in g["body"])
    assert summary["kind"] == "diagnosis"
    assert summary["replicas"] == [hot_replica.address]
    assert summary["primary"]["symptom"] == "preemption", summary
    assert summary["verdict"] in ("critical", "degraded")
    fp, episode = summary["group"], summary["episode"]
    assert summary["report_url"] == f"https://kvdoctor.internal/reports/{fp}/{episode}/report.md"
    slack = next(g["body"] for g in got if "blocks" in g["body"])
    assert "preemption/" in slack["blocks"][0]["text"]["text"]
    # The report is served (with the token) and replays from its bundle.
    rep = httpx.get(f"{r.url}/reports/{fp}/{episode}/report.md", timeout=5)
    assert rep.status_code == 401
    rep = httpx.get(
        f"{r.url}/reports/{fp}/{episode}/report.md",
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=5,
    )
    assert rep.status_code == 200 and hot_replica.address in rep.text
    folder = r.service.config.state_dir / "groups" / fp / episode
    replay = subprocess.run(
        [sys.executable, "-m", "kvdoctor", "diagnose", "--bundle", str(folder / "before.bundle")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert replay.stdout == (folder / "report.md").read_text(), replay.stderr
    # What kvdoctor concluded is on /metrics.
    metrics = httpx.get(f"{r.url}/metrics", timeout=5).text
    assert f'kvdoctor_finding{{replica="{hot_replica.address}",symptom="preemption"' in metrics
    # Resolved: the compare of before and after goes to the same sinks.
    ended = time.time() - 4.5
    resolved = payload(
        alert(hot_replica.address, status="resolved", starts=_iso(starts), ends=_iso(ended)),
        status="resolved",
    )
    assert r.post(body(resolved)).status_code == 202
    got = sink.wait(4)
    compared = [g["body"] for g in got if g["body"].get("kind") == "compare"]
    assert len(compared) == 1, got
    assert compared[0]["compare"]["primary"].startswith("preemption/")
    assert compared[0]["report_url"].endswith(f"/{fp}/{episode}/compare.md")
    assert (folder / "compare.md").read_text().strip()
    # Retries of both notifications add nothing.
    assert r.post(body(firing)).json()["status"] == "duplicate"
    assert r.post(body(resolved)).json()["status"] == "duplicate"
    time.sleep(1)
    assert len(sink.received) == 4


def test_compare_waits_for_the_fixed_server(
    receiver: Callable[..., Running],
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    hot_replica: HotReplica,
    sink: Sink,
) -> None:
    """The alert resolves while the server restarts with its fix: the compare waits for a
    window holding the fixed server's data instead of failing or comparing with nothing."""
    prom = prometheus_server([hot_replica.address])
    starts = _firing_when_ready(prom, hot_replica, 6)
    r = receiver(
        prometheus=prom.url,
        lookback="6s",
        step="1s",
        after_window="4s",
        sinks=[SinkConfig(kind="webhook", url=sink.url)],
    )
    assert r.post(body(payload(alert(hot_replica.address, starts=_iso(starts))))).status_code == 202
    first = sink.wait(1)[0]["body"]
    assert first["primary"]["symptom"] == "preemption"
    hot_replica.close()  # the server goes down for its fix
    resolved = payload(
        alert(hot_replica.address, status="resolved", starts=_iso(starts), ends=_iso(time.time())),
        status="resolved",
    )
    assert r.post(body(resolved)).status_code == 202
    time.sleep(12)  # Prometheus sees the target down; the compare waits
    assert len(sink.received) == 1
    assert any("compare waits" in line for line in r.log), r.log
    fixed = HotReplica(port=hot_replica.port, calm=True)
    try:
        got = sink.wait(2, timeout_s=90)
    finally:
        fixed.close()
    after = got[1]["body"]
    assert after["kind"] == "compare" and after["group"] == first["group"]
    assert after["compare"]["primary"].startswith("preemption/"), after
    assert after["compare"]["primary_result"] == "gone", after
    assert after["compare"]["verified"] is True


def _serve_proc(cfg: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "kvdoctor", "serve", "--config", str(cfg)],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "KVDOCTOR_SERVE_TOKEN": TOKEN},
            start_new_session=False,
        )


def _wait_listening(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(log.read_text())
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(log.read_text())


def test_restart_mid_investigation_neither_loses_nor_repeats_it(
    tmp_path: Path,
    prometheus_server: Callable[[list[str]], RunningPrometheus],
    hot_replica: HotReplica,
    sink: Sink,
) -> None:
    prom = prometheus_server([hot_replica.address])
    starts = _firing_when_ready(prom, hot_replica, 6)
    port = free_port()
    state_dir = tmp_path / "state"
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        f"replicas:\n  - match: {{instance: '{hot_replica.address}'}}\n"
        f"    endpoint: http://{hot_replica.address}\n"
    )
    cfg = tmp_path / "serve.yaml"
    cfg.write_text(
        json.dumps(
            {
                "listen": f"127.0.0.1:{port}",
                "state_dir": str(state_dir),
                "prometheus": prom.url,
                "mapping": str(mapping),
                "lookback": "6s",
                "step": "1s",
                # A live capture long enough to stop the process in the middle of it.
                "live_window": "20s",
                "experiments": False,
                "sinks": [{"kind": "webhook", "url": sink.url}],
            }
        )
    )
    log = tmp_path / "serve.log"
    url = f"http://127.0.0.1:{port}"
    proc = _serve_proc(cfg, log)
    try:
        _wait_listening(url, proc, log)
        data = body(payload(alert(hot_replica.address, starts=_iso(starts))))
        headers = {"Authorization": f"Bearer {TOKEN}"}
        assert httpx.post(f"{url}/alerts", content=data, headers=headers).status_code == 202
        groups = state_dir / "groups"
        deadline = time.monotonic() + 60
        while not list(groups.glob("*/*/before.bundle")) and time.monotonic() < deadline:
            time.sleep(0.2)
        (bundle,) = list(groups.glob("*/*/before.bundle"))
        captured = bundle.stat().st_mtime_ns
        time.sleep(1)  # inside the 20 s live capture
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert sink.received == []
        proc = _serve_proc(cfg, log)
        _wait_listening(url, proc, log)
        got = sink.wait(1, timeout_s=90)
        assert got[0]["body"]["primary"]["symptom"] == "preemption"
        # Not repeated: a retry after the restart is a duplicate; one summary in all.
        assert httpx.post(f"{url}/alerts", content=data, headers=headers).json()["status"] == (
            "duplicate"
        )
        time.sleep(2)
        assert len(sink.received) == 1
        jobs = httpx.get(f"{url}/healthz").json()["jobs"]
        assert jobs == {"done": 1}
        # The history captured before the stop is the one reported (not captured again).
        assert bundle.stat().st_mtime_ns == captured
        assert "queued again" in log.read_text()
        assert list(bundle.parent.glob("live-*.bundle"))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
