"""A synthetic vLLM fleet in a real Prometheus TSDB, built from real recorded lab scrapes.

Used by ``benchmarks/bench_fleet.py`` and ``tests/fleet/test_fleet_scale.py``.

Each replica replays one fixture bundle's scrapes (a real vLLM 0.32 lab run: ``healthy``,
``preemption-storm``, ``prefix-off``), advanced in time: counters and histogram buckets keep
growing by the recorded per-scrape increases (cycled over the window, scaled by the replica's
traffic factor), gauges cycle through the recorded values with the same factor. Planted
problems are whole replicas: one replays the preemption storm, one the prefix-caching-off run,
one stops reporting half-way (stale), one reports another KV block size. The samples are
written as OpenMetrics and turned into TSDB blocks by ``promtool tsdb create-blocks-from
openmetrics`` (backfill); Prometheus then serves them like any scraped data.

Only the metric families kvdoctor queries (``kvdoctor.fleet.capture.FAMILIES``) are written:
the others would cost backfill time and disk, and no fleet query reads them.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.expfmt import parse
from kvdoctor.fleet.capture import FAMILIES

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
JOB = "vllm"
_NAMES = "|".join(n for f in FAMILIES for n in f)
_FAMILY_RE = re.compile(f"^(?:ray_)?vllm:({_NAMES})(_total|_bucket|_sum|_count)?$")
_CUMULATIVE_SUFFIXES = ("_total", "_bucket", "_sum", "_count")


@dataclass
class TemplateSeries:
    name: str
    labels: dict[str, str]
    values: list[float]  # one per recorded scrape
    cumulative: bool
    integer: bool


@dataclass
class Template:
    """One fixture's recorded scrapes, as series (only the families kvdoctor reads)."""

    name: str
    series: list[TemplateSeries]


def load_template(fixture: str) -> Template:
    bundle = read_bundle(FIXTURES / fixture / "bundle.tar.gz")
    scrapes = [s for s in bundle.scrapes if s.ok and s.text]
    columns: dict[tuple[str, tuple[tuple[str, str], ...]], list[float]] = {}
    for i, scrape in enumerate(scrapes):
        for sample in parse(scrape.text or ""):
            if not _FAMILY_RE.match(sample.name):
                continue
            key = (sample.name, tuple(sample.labels))
            col = columns.setdefault(key, [math.nan] * len(scrapes))
            col[i] = sample.value
    series: list[TemplateSeries] = []
    for (name, labels), values in sorted(columns.items()):
        filled = _fill(values)
        if filled is None:
            continue
        series.append(
            TemplateSeries(
                name=name,
                labels=dict(labels),
                values=filled,
                cumulative=name.endswith(_CUMULATIVE_SUFFIXES),
                integer=all(float(v).is_integer() for v in filled),
            )
        )
    return Template(fixture, series)


def _fill(values: list[float]) -> list[float] | None:
    """Carry the last value over scrapes that lacked the series (none: drop the series)."""
    out: list[float] = []
    last: float | None = None
    for v in values:
        if v == v:
            last = v
        if last is not None:
            out.append(last)
    if not out:
        return None
    return [out[0]] * (len(values) - len(out)) + out


@dataclass
class ReplicaSpec:
    instance: str
    template: Template
    factor: float = 1.0  # traffic relative to the recording
    stop_before_end_s: float | None = None  # stale: stops reporting this long before the end
    start_after_s: float | None = None  # partial: appears only this long after the start
    config_labels: dict[str, str] = field(default_factory=dict)  # cache_config_info overrides
    families: tuple[str, ...] | None = None  # partial: only these families' series
    problem: str = ""  # what was planted ("" for a healthy replica)


@dataclass
class FleetSpec:
    replicas: list[ReplicaSpec]
    start: float
    end: float
    interval_s: float


def replica_name(i: int) -> str:
    return f"replica-{i:03d}:8000"


# The four planted problems: replica index → (what, the finding that must name it).
PLANTED: dict[int, tuple[str, str]] = {
    1: ("preempting (the preemption-storm recording)", "preemption"),
    3: ("prefix caching off (the prefix-off recording)", "prefix-miss/caching-disabled"),
    5: ("stale: stops reporting 20 minutes before the end", "fleet-stale-targets"),
    7: ("block size 256 where its peers use 128", "fleet-config-drift"),
}
STALE_BEFORE_END_S = 1200.0


def plant_fleet(
    n: int, start: float, end: float, interval_s: float = 30.0, seed: int = 7
) -> FleetSpec:
    """``n`` replicas; replicas 1, 3, 5 and 7 carry the planted problems (:data:`PLANTED`)."""
    if n < 8:
        raise ValueError("a planted fleet needs at least 8 replicas")
    rng = random.Random(seed)
    healthy = load_template("healthy")
    storm = load_template("preemption-storm")
    prefix_off = load_template("prefix-off")
    replicas: list[ReplicaSpec] = []
    for i in range(n):
        spec = ReplicaSpec(replica_name(i), healthy, factor=round(rng.uniform(0.85, 1.15), 3))
        if i == 1:
            spec.template, spec.factor, spec.problem = storm, 1.0, "preemption"
        elif i == 3:
            spec.template, spec.problem = prefix_off, "prefix caching off"
        elif i == 5:
            spec.stop_before_end_s, spec.problem = STALE_BEFORE_END_S, "stale"
        elif i == 7:
            # Twice the block size, half the blocks: the same KV pool cut differently.
            spec.config_labels = {"block_size": "256", "effective_attention_block_size": "256"}
            spec.problem = "block size 256"
        replicas.append(spec)
    return FleetSpec(replicas, start, end, interval_s)


def _fmt(v: float) -> str:
    if v == math.inf:
        return "+Inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _label_text(labels: dict[str, str]) -> str:
    inner = ",".join(
        f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in sorted(labels.items())
    )
    return "{" + inner + "}"


def _values(ts: TemplateSeries, steps: int, factor: float) -> list[float]:
    """The series at ``steps`` consecutive scrapes, advanced past the recording."""
    n = len(ts.values)
    if ts.cumulative:
        deltas = [max(0.0, b - a) for a, b in zip(ts.values, ts.values[1:], strict=False)] or [0.0]
        out = []
        x = ts.values[0]
        for k in range(steps):
            if k:
                x += factor * deltas[(k - 1) % len(deltas)]
            out.append(math.floor(x) if ts.integer else x)
        return out
    out = []
    for k in range(steps):
        v = ts.values[k % n]
        if ts.name.endswith(("num_requests_running", "num_requests_waiting")):
            v = round(v * factor)
        elif ts.name.endswith("usage_perc"):
            v = min(1.0, v * factor)
        out.append(v)
    return out


def _replica_series(
    rep: ReplicaSpec, times: list[float], name: str
) -> list[tuple[str, list[tuple[float, float]]]]:
    """(label text, points) of one replica's series named ``name`` (``up`` included)."""
    first = times[0] + (rep.start_after_s or 0.0) if times else 0.0
    last = times[-1] - (rep.stop_before_end_s or 0.0) if times else 0.0
    ts_list = [t for t in times if first <= t <= last]
    target = {"job": JOB, "instance": rep.instance}
    if name == "up":
        return [(_label_text(target), [(t, 1.0) for t in ts_list])]
    out = []
    for ts in rep.template.series:
        if ts.name != name:
            continue
        m = _FAMILY_RE.match(ts.name)
        assert m is not None
        if rep.families is not None and m.group(1) not in rep.families:
            continue
        labels = {**ts.labels, **target}
        if ts.name.endswith("cache_config_info"):
            labels.update(rep.config_labels)
            if "block_size" in rep.config_labels:
                old = int(ts.labels.get("block_size", "0") or 0)
                new = int(rep.config_labels["block_size"])
                blocks = ts.labels.get("num_gpu_blocks")
                if blocks and blocks.isdigit() and old:
                    labels["num_gpu_blocks"] = str(int(blocks) * old // new)
        vals = _values(ts, len(ts_list), rep.factor)
        out.append((_label_text(labels), list(zip(ts_list, vals, strict=True))))
    return out


def write_openmetrics(fleet: FleetSpec, dest: Path) -> int:
    """Write the fleet as OpenMetrics (every series' samples in time order); returns samples.

    Every sample name is its own ``unknown`` family: backfilled blocks carry no metadata
    anyway (Prometheus serves metadata from live scrapes only), so kvdoctor types the series
    by their suffixes, as it does for any Prometheus without /api/v1/metadata. Written one
    family at a time, one replica at a time, so memory stays small for any fleet size.
    """
    times = []
    t = fleet.start
    while t <= fleet.end + 1e-9:
        times.append(t)
        t += fleet.interval_s
    names = sorted({"up"} | {ts.name for rep in fleet.replicas for ts in rep.template.series})
    count = 0
    with dest.open("w", encoding="utf-8") as fh:
        for name in names:
            fh.write(f"# TYPE {name} unknown\n")
            for rep in fleet.replicas:
                for label_text, points in _replica_series(rep, times, name):
                    head = f"{name}{label_text} "
                    fh.write("".join(f"{head}{_fmt(v)} {t:.3f}\n" for t, v in points))
                    count += len(points)
        fh.write("# EOF\n")
    return count


def backfill(openmetrics: Path, tsdb: Path) -> None:
    tsdb.mkdir(parents=True, exist_ok=True)
    cmd = ["promtool", "tsdb", "create-blocks-from", "openmetrics", "-q", str(openmetrics)]
    proc = subprocess.run(
        [*cmd, str(tsdb)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"promtool backfill failed: {(proc.stdout + proc.stderr)[-2000:]}")


def free_port() -> int:
    """A free loopback port above 18000 (the project's range for test servers)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port > 18000:
            return port
    raise RuntimeError("no free port above 18000")


@dataclass
class Prometheus:
    url: str
    proc: subprocess.Popen[bytes]

    def http_stats(self) -> tuple[int, float]:
        """(range queries answered, bytes of their answers) so far, from Prometheus' own
        /metrics: the same count whoever sent them."""
        queries, size, _ = self.stats()
        return queries, size

    def stats(self) -> tuple[int, float, float]:
        """:meth:`http_stats` plus the CPU seconds Prometheus itself has used."""
        text = httpx.get(f"{self.url}/metrics", timeout=10).text
        queries = 0
        size = 0.0
        cpu = 0.0
        for s in parse(text):
            if s.name == "process_cpu_seconds_total":
                cpu = s.value
                continue
            labels = dict(s.labels)
            if labels.get("handler") != "/api/v1/query_range":
                continue
            if s.name == "prometheus_http_requests_total":
                queries += int(s.value)
            elif s.name == "prometheus_http_response_size_bytes_sum":
                size += s.value
        return queries, size, cpu


@contextmanager
def running_prometheus(tsdb: Path, workdir: Path) -> Iterator[Prometheus]:
    """Prometheus on the backfilled TSDB: loopback, a free port, no scrape targets, stopped by
    PID (its own process group) when the block ends."""
    binary = shutil.which("prometheus")
    if binary is None:
        raise RuntimeError("prometheus not installed (bash scripts/install-prometheus.sh)")
    port = free_port()
    cfg = workdir / "prometheus.yml"
    cfg.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n")
    log = (workdir / "prometheus.log").open("wb")
    proc = subprocess.Popen(
        [
            binary,
            f"--config.file={cfg}",
            f"--web.listen-address=127.0.0.1:{port}",
            f"--storage.tsdb.path={tsdb}",
            # Backfilled blocks may be older than the default 15 days on a replayed clock.
            "--storage.tsdb.retention.time=3650d",
            "--query.max-samples=100000000",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                tail = (workdir / "prometheus.log").read_text()[-2000:]
                raise RuntimeError(f"prometheus exited: {tail}")
            try:
                if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("prometheus not ready after 120 s")
            time.sleep(0.3)
        yield Prometheus(url, proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        log.close()


@contextmanager
def fleet_prometheus(fleet: FleetSpec, workdir: Path | None = None) -> Iterator[Prometheus]:
    """Backfill ``fleet`` into a fresh TSDB and serve it (everything removed afterwards)."""
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="kvdoctor-fleet-")) if workdir is None else workdir
    try:
        om = work / "fleet.om"
        write_openmetrics(fleet, om)
        backfill(om, work / "tsdb")
        om.unlink()
        with running_prometheus(work / "tsdb", work) as prom:
            yield prom
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
