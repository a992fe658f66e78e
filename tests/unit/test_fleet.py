"""Fleet diagnosis through Prometheus, against an in-process fake of the HTTP API.

The fake answers ``query_range`` from per-replica scrapes exactly as Prometheus stores them
(every sample at its scrape time, target labels added), so these tests prove that the fleet
path rebuilds the same observations and signals as the local path.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import parse
from kvdoctor.fleet import diagnose_fleet, diagnose_fleet_bundle, is_fleet_bundle, promapi
from kvdoctor.fleet.capture import series_query, up_query
from kvdoctor.fleet.promapi import PromClient
from kvdoctor.fleet.render import render_fleet_markdown
from kvdoctor.report.render import render_json
from kvdoctor.signals.compute import compute_signals
from tests.unit._bundle_factory import exposition

STEP = 15.0
N = 9  # scrapes per replica: a 2-minute window
T0 = 1_700_000_010.0  # a multiple of STEP: range-query steps fall on the scrape times


def _scrapes(kind: str) -> list[tuple[float, str]]:
    """Scripted replicas: healthy, a preempting one with more traffic, a mis-sized one."""
    out = []
    for i in range(N):
        t = T0 + i * STEP
        if kind == "healthy":
            text = exposition(
                kv=0.2,
                running=2,
                waiting=0,
                preemptions=0,
                finished=2 * i,
                prefix_queries=100 * i,
                prefix_hits=60 * i,
                ttft=0.05,
            )
        elif kind == "hot":
            text = exposition(
                kv=0.97,
                running=8,
                waiting=3,
                preemptions=4 * i,
                finished=8 * i,
                prefix_queries=400 * i,
                prefix_hits=100 * i,
                ttft=2.0,
                queue=1.5,
            )
        elif kind == "slow":
            # Same traffic as "healthy" (finished requests, prompt tokens), but it holds more
            # requests at once (slower) and preempts: the replica's problem, not routing.
            text = exposition(
                kv=0.97,
                running=8,
                waiting=3,
                preemptions=4 * i,
                finished=2 * i,
                prefix_queries=100 * i,
                prefix_hits=60 * i,
                ttft=2.0,
                queue=1.5,
            )
        elif kind == "small-pool":
            text = exposition(
                kv=0.98,
                running=2,
                waiting=2,
                preemptions=3 * i,
                finished=2 * i,
                prefix_queries=100 * i,
                prefix_hits=60 * i,
                ttft=1.5,
                queue=1.0,
                num_gpu_blocks=64,
            )
        else:
            raise AssertionError(kind)
        out.append((t, text))
    return out


def _local_bundle(scrapes: list[tuple[float, str]]) -> Bundle:
    return Bundle(
        manifest=Manifest(
            created_by="test",
            endpoint="x",
            started_at=scrapes[0][0],
            ended_at=scrapes[-1][0],
            interval_s=STEP,
        ),
        scrapes=[Scrape(t=t, status=200, text=text) for t, text in scrapes],
    )


class FakePrometheus:
    """Stores replicas' scrapes as Prometheus would, answers the three API calls."""

    def __init__(self, replicas: dict[str, list[tuple[float, str]]], job: str = "vllm") -> None:
        self.series: dict[tuple[tuple[str, str], ...], list[list[Any]]] = {}
        self.up: dict[str, list[list[Any]]] = {}
        self.calls: list[str] = []
        self.job = job
        for instance, scrapes in replicas.items():
            for t, text in scrapes:
                for s in parse(text):
                    key = (("__name__", s.name), *s.labels, ("instance", instance), ("job", job))
                    self.series.setdefault(tuple(sorted(key)), []).append([t, repr(s.value)])
                self.up.setdefault(instance, []).append([t, "1"])

    @staticmethod
    def _at_steps(points: list[list[Any]], start: float, end: float, step: float) -> list[Any]:
        """Prometheus' range evaluation: at each step, the latest sample at or before it.

        A target that stopped gets staleness markers, so its series ends one step later.
        """
        out: list[Any] = []
        t = start
        while t <= end + 1e-9:
            before = [p for p in points if p[0] <= t + 1e-9]
            if before and t - before[-1][0] < step * 1.5:
                out.append([t, before[-1][1]])
            t += step
        return out

    def _matrix(self, query: str, start: float, end: float, step: float) -> dict[str, Any]:
        result = []
        if query.startswith("up"):
            if f'job="{self.job}"' not in query and "{" in query:
                return _ok([])
            for inst, pts in self.up.items():
                vals = self._at_steps(pts, start, end, step)
                if vals:
                    result.append(
                        {
                            "metric": {"__name__": "up", "instance": inst, "job": self.job},
                            "values": vals,
                        }
                    )
            return _ok(result)
        if "{" in query and "job=" in query and f'job="{self.job}"' not in query:
            return _ok([])
        m = re.search(r'__name__=~"((?:[^"\\]|\\.)*)"', query)
        names = re.compile(m.group(1)) if m else None
        for key, pts in self.series.items():
            if names is not None and not names.fullmatch(dict(key)["__name__"]):
                continue
            vals = self._at_steps(pts, start, end, step)
            if vals:
                result.append({"metric": dict(key), "values": vals})
        return _ok(result)

    def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.calls.append(path)
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        if path.endswith("/api/v1/query_range"):
            step = float(form["step"].rstrip("s"))
            body = self._matrix(form["query"], float(form["start"]), float(form["end"]), step)
            return httpx.Response(200, json=body)
        if path.endswith("/api/v1/metadata"):
            return httpx.Response(200, json={"status": "success", "data": {}})
        return httpx.Response(404, text="not found")

    def client(self) -> PromClient:
        return PromClient("http://prom.test:9090", transport=httpx.MockTransport(self.handler))


def _ok(result: list[Any]) -> dict[str, Any]:
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}


END = T0 + (N - 1) * STEP
SINCE = f"{int((N - 1) * STEP)}s"


def _diagnose(prom: FakePrometheus, **kw: Any) -> Any:
    return diagnose_fleet(
        "http://prom.test:9090",
        selector='{job="vllm"}',
        since=SINCE,
        step="15s",
        end=END,
        client=prom.client(),
        **kw,
    )


def test_prometheus_path_gives_the_local_signals_exactly() -> None:
    """Counters, gauges and histogram quantiles: the same numbers through Prometheus."""
    scrapes = _scrapes("hot")
    local = compute_signals(_local_bundle(scrapes)).flat()
    fd = _diagnose(FakePrometheus({"hot:8000": scrapes}))
    (replica,) = fd.replicas
    assert replica.key == "hot:8000"
    remote = compute_signals(replica.data.bundle).flat()
    assert remote == local
    # The quantiles are real numbers, not both-None.
    assert isinstance(local["ttft_p95"], float) and local["preemptions_window"] == 4 * (N - 1)


def test_fleet_names_the_busy_replica_and_routing() -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "b:8000": _scrapes("hot")})
    fd = _diagnose(prom)
    ids = [f.id for f in fd.report.findings]
    assert "fleet-imbalance" in ids
    imb = next(f for f in fd.report.findings if f.id == "fleet-imbalance")
    assert imb.cause == "routing-imbalance"
    assert imb.evidence[0].value == "b:8000"
    assert "b:8000" in imb.title and "a:8000" in imb.title
    # Per-replica findings name their replica; the healthy one has none of them.
    per_replica = [f for f in fd.report.findings if not f.id.startswith("fleet-")]
    assert per_replica and all(f.evidence[0].value == "b:8000" for f in per_replica)
    rows = {r["replica"]: r for r in fd.table()}
    assert rows["a:8000"]["verdict"] == "healthy" and rows["b:8000"]["verdict"] != "healthy"
    assert not any(f.id == "fleet-config-drift" for f in fd.report.findings)


def test_fleet_blames_config_drift_not_routing_under_equal_traffic() -> None:
    prom = FakePrometheus(
        {
            "a:8000": _scrapes("healthy"),
            "b:8000": _scrapes("healthy"),
            "c:8000": _scrapes("small-pool"),
        }
    )
    fd = _diagnose(prom)
    ids = [f.id for f in fd.report.findings]
    assert "fleet-imbalance" not in ids
    drift = next(f for f in fd.report.findings if f.id == "fleet-config-drift")
    assert drift.evidence[0].value == "c:8000"
    assert any(e.signal == "num_gpu_blocks" and e.value == 64 for e in drift.evidence)
    assert "it is the one in trouble" in drift.title


def test_stale_replica_is_reported() -> None:
    stale = _scrapes("healthy")[:4]  # stopped after a minute
    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "gone:8000": stale})
    fd = _diagnose(prom)
    f = next(f for f in fd.report.findings if f.id == "fleet-stale-targets")
    assert f.evidence[0].value == "gone:8000"
    assert {r.key: r.status for r in fd.replicas} == {"a:8000": "up", "gone:8000": "stale"}


def test_fleet_bundle_replays_to_the_same_report(tmp_path: Path) -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "b:8000": _scrapes("hot")})
    for dest in (tmp_path / "fleet", tmp_path / "fleet.tar.gz"):
        live = _diagnose(prom, save_bundle=dest)
        assert is_fleet_bundle(dest)
        replay = diagnose_fleet_bundle(dest)
        assert render_json(replay.report) == render_json(live.report)
        assert render_fleet_markdown(replay) == render_fleet_markdown(live)
        raw = json.loads((tmp_path / "fleet" / "prometheus" / "series.json").read_text())
        assert raw["endpoint"] == "query_range" and raw["body"]["status"] == "success"
    assert not is_fleet_bundle(tmp_path / "missing")


def test_markdown_has_the_per_replica_table() -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "b:8000": _scrapes("hot")})
    md = render_fleet_markdown(_diagnose(prom))
    assert "## Fleet" in md
    assert "| a:8000 | up | healthy |" in md.replace("\\", "")


# --------------------------------------------------------------------------- bad input


def test_selector_matching_nothing_is_one_line_error() -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy")})
    with pytest.raises(KvdoctorError, match="matches no targets"):
        diagnose_fleet(
            "http://prom.test:9090",
            selector='{job="nope"}',
            since=SINCE,
            end=END,
            client=prom.client(),
        )


def test_targets_without_vllm_metrics() -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy")})
    prom.series.clear()
    with pytest.raises(KvdoctorError, match="none exposed vllm: metrics"):
        _diagnose(prom)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            httpx.Response(
                400,
                json={"status": "error", "errorType": "bad_data", "error": "parse error at char 5"},
            ),
            r"failed \(bad_data\)",
        ),
        (httpx.Response(200, text="<html>login</html>"), "no Prometheus API JSON"),
        (
            httpx.Response(
                200, json={"status": "success", "data": {"resultType": "vector", "result": []}}
            ),
            "expected matrix",
        ),
    ],
)
def test_query_errors(response: httpx.Response, message: str) -> None:
    client = PromClient("http://p:9090", transport=httpx.MockTransport(lambda r: response))
    with pytest.raises(KvdoctorError, match=message):
        diagnose_fleet("http://p:9090", since="5m", client=client)


def test_huge_result_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(promapi, "MAX_SERIES", 5)
    prom = FakePrometheus({"a:8000": _scrapes("healthy")})
    with pytest.raises(KvdoctorError, match=r"series \(cap 5\)"):
        _diagnose(prom)


@pytest.mark.parametrize(
    ("selector", "since", "step", "message"),
    [
        ('job="vllm"', "30m", "15s", "label matchers in braces"),
        ('{__name__="x"}', "30m", "15s", "__name__"),
        ("", "soon", "15s", "not a duration"),
        ("", "30m", "0s", "positive"),
        ("", "30d", "1s", "points per series"),
    ],
)
def test_bad_options(selector: str, since: str, step: str, message: str) -> None:
    unreachable = httpx.MockTransport(lambda r: httpx.Response(500))
    with pytest.raises(KvdoctorError, match=message):
        diagnose_fleet(
            "http://p:9090",
            selector=selector,
            since=since,
            step=step,
            client=PromClient("http://p:9090", transport=unreachable),
        )


def test_queries_combine_selector_and_vllm_names() -> None:
    assert series_query('{job="vllm", namespace="prod"}') == (
        '{__name__=~"(ray_)?vllm:.+", job="vllm", namespace="prod"}'
    )
    assert up_query("") == "up"
    assert up_query('{job="vllm"}') == 'up{job="vllm"}'


def test_two_replicas_without_majority_name_the_one_in_trouble() -> None:
    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "c:8000": _scrapes("small-pool")})
    fd = _diagnose(prom)
    drifted = [f.evidence[0].value for f in fd.report.findings if f.id == "fleet-config-drift"]
    assert drifted == ["c:8000"]


def test_equal_traffic_is_not_routing_even_when_one_replica_holds_more_requests() -> None:
    """Running requests grow with slowness (Little's law): equal prompt tokens decide."""
    fd = _diagnose(FakePrometheus({"a:8000": _scrapes("healthy"), "b:8000": _scrapes("slow")}))
    rows = {r["replica"]: r for r in fd.table()}
    assert rows["a:8000"]["prompt_tokens_per_s"] == rows["b:8000"]["prompt_tokens_per_s"]
    running_a, running_b = rows["a:8000"]["running_mean"], rows["b:8000"]["running_mean"]
    assert isinstance(running_a, float) and isinstance(running_b, float)
    assert running_b >= 4 * running_a
    assert not any(f.id == "fleet-imbalance" for f in fd.report.findings)


def _result(key: str, signals: dict[str, Any], running: list[float], waiting: list[float]) -> Any:
    """A replica result with only what the imbalance finding reads (pure logic)."""
    from kvdoctor.fleet.diagnose import ReplicaResult
    from kvdoctor.report.model import Report

    times = [T0 + 10.0 * i for i in range(len(running))]
    return ReplicaResult(
        key,
        "vllm",
        None,
        Report(verdict="healthy"),
        signals,
        None,
        "up",  # type: ignore[arg-type]
        {
            "running": list(zip(times, running, strict=True)),
            "waiting": list(zip(times, waiting, strict=True)),
        },
    )


def test_arrivals_not_admissions_measure_traffic() -> None:
    """A window opened mid-load: the slow replica admits its queue inside the window, so its
    prompt tokens double, but as many requests arrived at both replicas: no routing blame."""
    from kvdoctor.fleet.signals import arrivals_per_s, imbalance_signals
    from kvdoctor.rules.evaluate import evaluate_fleet
    from kvdoctor.rules.load import load_fleet_playbooks

    def imbalance_finding(replicas: list[Any]) -> Any:
        found = evaluate_fleet([imbalance_signals(replicas)], load_fleet_playbooks())
        return next((f for f in found if f.id == "fleet-imbalance"), None)

    idle = _result(
        "idle:1",
        {
            "requests_finished_window": 16,
            "prompt_tokens_per_s": 50.0,
            "kv_usage_max": 0.3,
            "waiting_max": 0,
            "waiting_mean": 0.0,
        },
        running=[8, 0, 0, 0],
        waiting=[0, 0, 0, 0],
    )
    slow = _result(
        "slow:1",
        {
            "requests_finished_window": 6,
            "prompt_tokens_per_s": 100.0,
            "kv_usage_max": 0.97,
            "waiting_max": 8,
            "waiting_mean": 4.0,
            "preemptions_window": 40,
        },
        running=[3, 4, 4, 3],
        waiting=[5, 4, 2, 3],
    )
    assert arrivals_per_s(idle) == pytest.approx(8 / 30)
    assert arrivals_per_s(slow) == pytest.approx(4 / 30)  # 6 finished, 2 fewer in flight
    assert imbalance_finding([idle, slow]) is None
    busy = _result(
        "busy:1",
        {**slow.signals, "requests_finished_window": 30},
        running=[3, 4, 4, 3],
        waiting=[5, 4, 2, 3],
    )
    found = imbalance_finding([idle, busy])
    assert found is not None and found.evidence[0].value == "busy:1"
    assert found.evidence[2].signal == "requests_arrived_per_s"
    assert found.evidence[2].value == pytest.approx(3.5)  # 28 arrived vs 8


def _same_observations(a: Any, b: Any) -> None:
    assert a.times == b.times and a.failed == b.failed
    assert a.wire_names == b.wire_names and a.cumulative == b.cumulative
    assert a.reset_indices == b.reset_indices and a.nonfinite_values == b.nonfinite_values
    assert a.columns.keys() == b.columns.keys()
    for name, cols in a.columns.items():
        assert cols.keys() == b.columns[name].keys(), name
        for labels, values in cols.items():
            other = b.columns[name][labels]
            assert [repr(v) for v in values] == [repr(v) for v in other], (name, labels)


def test_columns_read_as_parsing_the_rebuilt_texts_would() -> None:
    """Replica bundles and the fleet view carry their samples as columns (texts are written
    only for a saved bundle); observations from the columns equal those from the texts."""
    from kvdoctor.bundle.model import Bundle as BundleModel
    from kvdoctor.fleet.build import build_fleet, fleet_view_with_text
    from kvdoctor.fleet.capture import FleetOptions, capture_fleet
    from kvdoctor.observations import observe

    prom = FakePrometheus(
        {
            "a:8000": _scrapes("healthy"),
            "b:8000": _scrapes("hot")[3:],  # appears mid-window: leading steps trimmed
            "c:8000": _scrapes("small-pool")[:5],  # stops early: trailing steps are failures
        }
    )
    opts = FleetOptions(
        "http://prom.test:9090", '{job="vllm"}', since_s=(N - 1) * STEP, step_s=STEP, end=END
    )
    capture = capture_fleet(opts, prom.client())
    lean = build_fleet(capture)
    full = build_fleet(capture, with_text=True)
    assert all(s.text == "" for s in lean.fleet.scrapes if s.ok)
    assert fleet_view_with_text(lean).scrapes == full.fleet.scrapes
    pairs = [(lean.fleet, full.fleet)] + [
        (lean.replicas[k].bundle, full.replicas[k].bundle) for k in lean.replicas
    ]
    for with_columns, with_texts in pairs:
        texts_only = BundleModel.model_validate(with_texts.model_dump())  # columns dropped
        assert texts_only.columns_for([s.t for s in texts_only.scrapes]) is None
        _same_observations(observe(with_columns), observe(texts_only))
        assert compute_signals(with_columns).flat() == compute_signals(texts_only).flat()


def test_one_range_query_per_metric_family_whatever_the_fleet_size() -> None:
    from kvdoctor.fleet.capture import FAMILIES

    counts = []
    for n in (1, 4):
        prom = FakePrometheus({f"r{i}:8000": _scrapes("healthy") for i in range(n)})
        _diagnose(prom)
        counts.append(sum(1 for c in prom.calls if c.endswith("/query_range")))
    # the families, plus `up`
    assert counts == [len(FAMILIES) + 1] * 2


def test_replica_notes_merge_apart_and_never_set_the_fleet_verdict() -> None:
    """report/1.2: a replica's note is a fleet note naming its replicas, not a fleet finding."""
    from kvdoctor.fleet.diagnose import _verdict, merge_replica_findings
    from kvdoctor.report.model import Finding, Report

    note = Finding(
        id="prefix-miss",
        symptom="prefix-miss",
        cause="block-larger-than-prefix",
        status="suspected",
        severity="info",
        confidence=0.85,
        title="Prompts fit in one block",
    )
    a, b = (_result(k, {}, running=[1.0], waiting=[0.0]) for k in ("a:1", "b:1"))
    a.report = Report(verdict="healthy", notes=[note])
    b.report = Report(verdict="healthy", notes=[note])
    assert merge_replica_findings([a, b]) == []
    merged = merge_replica_findings([a, b], notes=True)
    assert [(n.cause, n.evidence[0].value) for n in merged] == [
        ("block-larger-than-prefix", "a:1, b:1")
    ]
    # Even an info finding beside a healthy replica leaves the fleet healthy (docs/report.md).
    assert _verdict(merged, [a, b]) == "healthy"


def test_prompts_on_a_prometheus_fleet_bundle_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdoctor.cli import main

    prom = FakePrometheus({"a:8000": _scrapes("healthy"), "b:8000": _scrapes("hot")})
    _diagnose(prom, save_bundle=tmp_path / "fleet")
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hello there"}\n{"prompt": "hello there"}\n')
    with pytest.raises(SystemExit) as exit_info:
        main(["diagnose", "--bundle", str(tmp_path / "fleet"), "--prompts", str(prompts)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert "--prompts applies to a fleet bundle of endpoints" in err
    assert len(err.strip().splitlines()) == 1
