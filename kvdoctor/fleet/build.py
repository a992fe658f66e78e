"""From a :class:`FleetCapture` to bundles: one per replica, and one fleet-wide view.

Pure functions of the recorded Prometheus answers, so a fleet bundle replays offline to the
same report. Each replica bundle holds the reconstructed per-step expositions (see
:mod:`kvdoctor.fleet.series`); the fleet view holds every replica side by side, the engine
label of each series prefixed with its replica, so the local path aggregates across replicas
exactly as it aggregates across the engines of one data-parallel server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kvdoctor import __version__
from kvdoctor.bundle.model import BUNDLE_SCHEMA, Bundle, Manifest, Scrape
from kvdoctor.fleet.capture import FleetCapture
from kvdoctor.fleet.series import (
    Columns,
    ReplicaSeries,
    SeriesData,
    by_replica_index,
    group_replicas,
    parse_matrix,
    reconstruct_columns,
    replica_key,
)
from kvdoctor.signals.fleet import STALE_STEPS

NO_POINT = "no sample in Prometheus at this step (target down, stale, or not yet scraped)"
# What a capture through Prometheus cannot see: only metrics travel through it.
FLEET_NOT_CHECKED: tuple[tuple[str, str], ...] = (
    ("server info", "fleet capture through Prometheus: /version and /v1/models are not queried"),
    ("engine arguments", "fleet capture through Prometheus: process argv is not visible"),
    ("GPU memory", "fleet capture through Prometheus: NVML is not sampled"),
    ("server logs", "fleet capture through Prometheus: logs are not collected"),
)


@dataclass
class TargetHealth:
    """The ``up`` series of one replica's scrape target over the window."""

    key: str
    job: str
    last_up: float | None  # value at the last step it has a point
    last_t: float | None  # time of that point
    down_steps: int  # steps with up == 0
    steps: int


@dataclass
class ReplicaData:
    key: str
    job: str
    bundle: Bundle
    series: ReplicaSeries | None  # None for a replica scraped directly (no Prometheus)
    health: TargetHealth | None
    last_metric_t: float | None
    metric_names: frozenset[str] = field(default_factory=frozenset)


@dataclass
class FleetData:
    capture: FleetCapture
    grid: list[float]
    replicas: dict[str, ReplicaData]
    fleet: Bundle
    # up targets of the same jobs that exposed no vLLM series at all
    silent_targets: list[TargetHealth]


def _grid(capture: FleetCapture) -> list[float]:
    n = round((capture.end - capture.start) / capture.step_s)
    return [round(capture.start + i * capture.step_s, 3) for i in range(n + 1)]


def _manifest(capture: FleetCapture, endpoint: str, scrapes: list[Scrape], notes: str) -> Manifest:
    good = [s.t for s in scrapes if s.ok]
    return Manifest.model_validate(
        {
            "schema": BUNDLE_SCHEMA,
            "created_by": f"kvdoctor {__version__}",
            "endpoint": endpoint,
            "started_at": good[0] if good else capture.start,
            "ended_at": good[-1] if good else capture.end,
            "interval_s": capture.step_s,
            "notes": notes,
            "not_checked": [{"what": w, "why": y} for w, y in FLEET_NOT_CHECKED],
        }
    )


def _scrapes(texts: list[tuple[float, str | None]], trim_leading: bool) -> list[Scrape]:
    out: list[Scrape] = []
    for t, text in texts:
        if text is None:
            if trim_leading and not out:
                # A replica that appeared during the window: steps before it existed are not
                # failed scrapes of it.
                continue
            out.append(Scrape(t=t, error=NO_POINT))
        else:
            out.append(Scrape(t=t, status=200, text=text))
    return out


def _with_columns(bundle: Bundle, columns: Columns, grid_len: int) -> Bundle:
    """Attach the parsed columns, cut to the scrapes kept (leading empty steps are trimmed)."""
    skip = grid_len - len(bundle.scrapes)
    times = [s.t for s in bundle.scrapes]
    if skip:
        columns = {k: v[skip:] for k, v in columns.items()}
    return bundle.with_columns(times, columns)


def _health(up_series: list[SeriesData], grid_len: int) -> dict[str, TargetHealth]:
    out: dict[str, TargetHealth] = {}
    for s in up_series:
        key = replica_key(s.labels)
        if not s.points:
            continue
        t, v = s.points[-1]
        down = sum(1 for _, val in s.points if float(val) == 0.0)
        prev = out.get(key)
        if prev is not None and prev.last_t is not None and prev.last_t >= t:
            continue
        out[key] = TargetHealth(key, s.labels.get("job", ""), float(v), t, down, len(s.points))
    return out


def build_fleet(capture: FleetCapture, with_text: bool = False) -> FleetData:
    """Replica bundles and the fleet view, rebuilt from the recorded answers (pure).

    The bundles carry their samples as columns (what the diagnosis reads); the exposition
    texts are written only ``with_text`` (:func:`fleet_view_with_text` makes them for a
    saved bundle), so the diagnosis is the same either way.
    """
    series = parse_matrix(capture.series.body, "prometheus/series.json")
    up = parse_matrix(capture.up.body, "prometheus/up.json")
    meta = capture.metadata.body if capture.metadata is not None else None
    grid = _grid(capture)
    groups = group_replicas(series)
    health = _health(up, len(grid))
    label = capture.prometheus
    replicas: dict[str, ReplicaData] = {}
    for key, group in groups.items():
        texts, columns = reconstruct_columns(group.series, meta, grid, with_text=with_text)
        scrapes = _scrapes(texts, trim_leading=True)
        endpoint = f"{label} replica {key}"
        notes = f"reconstructed from Prometheus range queries (selector {capture.selector or '-'})"
        bundle = Bundle(
            manifest=_manifest(capture, endpoint, scrapes, notes),
            scrapes=scrapes,
            source=f"prometheus:{key}",
        )
        bundle = _with_columns(bundle, columns, len(grid))
        last_t = max((p[0] for s in group.series for p in s.points[-1:]), default=None)
        replicas[key] = ReplicaData(
            key=key,
            job=group.job,
            bundle=bundle,
            series=group,
            health=health.get(key),
            last_metric_t=last_t,
            metric_names=frozenset(s.name for s in group.series),
        )
    flat, key_of = by_replica_index(groups)
    fleet_texts, fleet_columns = reconstruct_columns(
        flat, meta, grid, key_of=key_of, with_text=with_text
    )
    fleet_scrapes = _scrapes(fleet_texts, trim_leading=True)
    fleet = Bundle(
        manifest=_manifest(
            capture,
            f"{label} fleet ({len(replicas)} replicas)",
            fleet_scrapes,
            "fleet view: every replica's series side by side, engine label = replica/engine",
        ),
        scrapes=fleet_scrapes,
        source="prometheus:fleet",
    )
    fleet = _with_columns(fleet, fleet_columns, len(grid))
    jobs = {r.job for r in replicas.values()}
    silent = [
        h for k, h in sorted(health.items()) if k not in replicas and (h.job in jobs or not jobs)
    ]
    return FleetData(capture, grid, replicas, fleet, silent)


def fleet_view_with_text(data: FleetData) -> Bundle:
    """The fleet view with its exposition texts written (for a saved fleet bundle)."""
    if all(s.text for s in data.fleet.scrapes if s.ok):
        return data.fleet
    return build_fleet(data.capture, with_text=True).fleet


def is_stale(replica: ReplicaData, capture: FleetCapture) -> bool:
    """The replica's series stopped before the window's end (more than STALE_STEPS steps early)."""
    if replica.last_metric_t is None:
        return True
    return capture.end - replica.last_metric_t > STALE_STEPS * capture.step_s + 1e-9


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
