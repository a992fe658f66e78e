"""Turn Prometheus range-query answers back into the per-scrape expositions the local path reads.

This is the heart of the fleet design: instead of re-implementing signals in PromQL, each
replica's range-query result becomes a list of :class:`~kvdoctor.bundle.model.Scrape` records
(one exposition text per query step) so that observations, signals, rules and the histogram
quantile math are the *same code* for an endpoint and for a fleet. Counters keep their raw
cumulative values (the local path takes window increases and handles resets), histograms keep
their raw cumulative buckets (the local path takes bucket increases), gauges their values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import parse

# Labels that Prometheus (or its service discovery) adds to every series of a target. They say
# *which* replica a series came from, not *what* it measures, so they are dropped from the
# reconstructed exposition (the replica key carries that information).
TARGET_LABELS: frozenset[str] = frozenset(
    {
        "job",
        "instance",
        "pod",
        "pod_name",
        "namespace",
        "container",
        "service",
        "endpoint",
        "node",
        "prometheus",
        "prometheus_replica",
    }
)
# The replica is named by the first of these labels a series has (pods move between nodes and
# their instance address changes on restart; the pod name is what on-call recognises).
REPLICA_LABELS: tuple[str, ...] = ("pod", "pod_name", "instance")

# Caps on one series' labels (vLLM's longest, cache_config_info, is a few hundred characters).
MAX_LABELS = 256
MAX_LABEL_CHARS = 4096

_HIST_SUFFIXES = ("_bucket", "_count", "_sum")


@dataclass
class SeriesData:
    """One series of a matrix answer: its full label set and (t, raw value string) points."""

    name: str
    labels: dict[str, str]
    points: list[tuple[float, str]]
    # The points laid on a step grid, by id() of the grid list: a series is rebuilt twice
    # (its replica, and the fleet view) on the same grid, and converted once.
    on_grid: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    # ``points`` split in two (times, raw values), when parse_matrix had them that way.
    columns: tuple[list[float], tuple[str, ...]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass
class ReplicaSeries:
    """All vLLM series of one replica (``key``), plus the target labels seen on them."""

    key: str
    job: str
    series: list[SeriesData] = field(default_factory=list)

    def timestamps(self) -> list[float]:
        return sorted({t for s in self.series for t, _ in s.points})


def parse_matrix(body: Mapping[str, Any], where: str) -> list[SeriesData]:
    """The ``result`` of a matrix answer as :class:`SeriesData`. Malformed → KvdoctorError."""
    data = body.get("data")
    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(result, list):
        raise KvdoctorError(f"{where}: Prometheus answer has no result list")
    out: list[SeriesData] = []
    steps: dict[Any, float] = {}
    for item in result:
        if not isinstance(item, dict):
            raise KvdoctorError(f"{where}: malformed series in Prometheus answer")
        metric = item.get("metric")
        values = item.get("values")
        if not isinstance(metric, dict) or not isinstance(values, list):
            raise KvdoctorError(f"{where}: malformed series in Prometheus answer")
        labels = {str(k): str(v) for k, v in metric.items()}
        _check_labels(labels, where)
        name = labels.pop("__name__", "")
        try:
            # Millisecond grid: the step timestamps are compared with a computed grid. Every
            # series of an answer shares the steps: each distinct one is rounded once. (The
            # transpositions run in C: an answer for a large fleet holds millions of points.)
            ts, vs = zip(*values, strict=True) if values else ((), ())
            for t_raw in set(ts).difference(steps):
                steps[t_raw] = round(float(t_raw), 3)
            times = list(map(steps.__getitem__, ts))
        except (TypeError, ValueError):
            raise KvdoctorError(f"{where}: malformed point in Prometheus answer") from None
        if vs and not isinstance(vs[0], str):
            vs = tuple(str(v) for v in vs)
        # Values are checked where they are converted (kvdoctor reads every one of them).
        points = list(zip(times, vs, strict=True))
        out.append(SeriesData(name, labels, points, columns=(times, vs)))
    return out


def _check_labels(labels: Mapping[str, str], where: str) -> None:
    """Refuse label sets no vLLM target has: each label's name and value are rebuilt into
    every step's exposition text, so one megabyte label costs gigabytes over a window."""
    if len(labels) > MAX_LABELS:
        raise KvdoctorError(
            f"{where}: a series with {len(labels)} labels (cap {MAX_LABELS}); not a vLLM target"
        )
    for k, v in labels.items():
        if len(k) + len(v) > MAX_LABEL_CHARS:
            raise KvdoctorError(
                f"{where}: a label of {len(k) + len(v)} characters (cap {MAX_LABEL_CHARS}) in "
                "the Prometheus answer; narrow --selector to the vLLM targets"
            )


def replica_key(labels: Mapping[str, str]) -> str:
    for name in REPLICA_LABELS:
        value = labels.get(name)
        if value:
            return value
    return "unknown"


def group_replicas(series: Iterable[SeriesData]) -> dict[str, ReplicaSeries]:
    """Group series by replica (pod, else instance); keys sorted for deterministic output."""
    groups: dict[str, ReplicaSeries] = {}
    for s in series:
        if not s.name:
            continue
        key = replica_key(s.labels)
        group = groups.get(key)
        if group is None:
            group = groups[key] = ReplicaSeries(key, s.labels.get("job", ""))
        group.series.append(s)
    return {k: groups[k] for k in sorted(groups)}


def metric_types(metadata_body: Mapping[str, Any] | None) -> dict[str, str]:
    """Metric name → type from a ``/api/v1/metadata`` answer (empty when absent)."""
    if not metadata_body:
        return {}
    data = metadata_body.get("data")
    if not isinstance(data, dict):
        return {}
    types: dict[str, str] = {}
    for name, entries in data.items():
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            kind = entries[0].get("type")
            if isinstance(kind, str):
                types[str(name)] = kind
    return types


def _family(name: str, names: set[str], types: Mapping[str, str]) -> tuple[str, str]:
    """(family name, type) of a sample name, from metadata or, failing that, from suffixes."""
    for suffix in _HIST_SUFFIXES:
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            if types.get(base) == "histogram" or f"{base}_bucket" in names:
                return base, "histogram"
    if name in types:
        return name, types[name]
    if name.endswith("_total"):
        return name, "counter"
    return name, "gauge"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _label_text(labels: Mapping[str, str]) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
    return "{" + inner + "}"


def _le_order(labels: Mapping[str, str]) -> float:
    try:
        return float(labels.get("le", "inf"))
    except ValueError:
        return math.inf


@dataclass(frozen=True)
class _Line:
    family: str
    kind: str
    order: tuple[str, int, float, str]
    text_head: str
    series_index: int


def _sample_key(text_head: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(name, labels) exactly as the exposition parser reads ``text_head`` back."""
    [sample] = parse(f"{text_head} 0\n")
    return sample.name, sample.labels


def build_lines(
    series: list[SeriesData],
    types: Mapping[str, str],
    engine_prefix: str | None = None,
) -> list[_Line]:
    """Precompute, once per replica, the sorted exposition line heads of its series.

    ``engine_prefix`` rewrites the ``engine`` label to ``"<prefix>/<engine>"``: the fleet-wide
    view puts every replica's engines side by side in one exposition, as a data-parallel server
    would, so the local path's per-engine aggregation gives the fleet numbers.
    """
    names = {s.name for s in series}
    lines: list[_Line] = []
    for i, s in enumerate(series):
        family, kind = _family(s.name, names, types)
        labels = {k: v for k, v in s.labels.items() if k not in TARGET_LABELS}
        if engine_prefix is not None:
            labels["engine"] = f"{engine_prefix}/{labels.get('engine', '0')}"
        no_le = _label_text({k: v for k, v in labels.items() if k != "le"})
        suffix_rank = 0
        if kind == "histogram":
            suffix_rank = {"_bucket": 0, "_count": 1, "_sum": 2}.get(s.name[len(family) :], 3)
        order = (no_le, suffix_rank, _le_order(labels) if suffix_rank == 0 else 0.0, s.name)
        lines.append(_Line(family, kind, order, f"{s.name}{_label_text(labels)}", i))
    lines.sort(key=lambda ln: (ln.family, ln.order))
    return lines


def exposition_at(
    lines: list[_Line], values: list[dict[float, str]], t: float, help_text: Mapping[str, str]
) -> str | None:
    """The exposition text of one replica at step ``t`` (``None`` when no series has a point).

    Written the way ``prometheus_client`` writes it (HELP/TYPE per family, histogram buckets in
    ``le`` order then ``_count`` and ``_sum``), so the local parser sees what a scrape shows.
    """
    out: list[str] = []
    current: str | None = None
    any_point = False
    for ln in lines:
        value = values[ln.series_index].get(t)
        if value is None:
            continue
        any_point = True
        if ln.family != current:
            current = ln.family
            doc = help_text.get(ln.family)
            if doc:
                out.append(f"# HELP {ln.family} {doc.replace(chr(10), ' ')}")
            out.append(f"# TYPE {ln.family} {ln.kind}")
        out.append(f"{ln.text_head} {value}")
    if not any_point:
        return None
    return "\n".join(out) + "\n"


def _on_grid(s: SeriesData, grid: list[float]) -> tuple[list[str | None], list[float | None]]:
    """The series' raw value texts and values at each grid step (``None``: no point there)."""
    cached = s.on_grid.get(id(grid))
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    raws: list[str | None]
    times, raw_values = s.columns or ([t for t, _ in s.points], tuple(r for _, r in s.points))
    if times == grid:
        raws = list(raw_values)  # the usual case: a point at every step
    else:
        points = dict(s.points)
        raws = [points.get(t) for t in grid]
    try:
        values: list[float | None]
        if None in raws:
            values = [None if raw is None else float(raw) for raw in raws]
        else:
            values = list(map(float, raws))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise KvdoctorError(f"malformed value in Prometheus series {s.name}") from None
    s.on_grid[id(grid)] = (raws, values)
    return raws, values


def _parsed_columns(series: list[SeriesData], grid: list[float]) -> list[list[Any]]:
    """Per series, per grid step: ``(raw value text, float value)`` or ``None`` (no point)."""
    cols: list[list[Any]] = []
    for s in series:
        raws, values = _on_grid(s, grid)
        cols.append([None if r is None else (r, v) for r, v in zip(raws, values, strict=True)])
    return cols


def _step_text(
    lines: list[_Line], cols: list[list[Any]], i: int, help_text: Mapping[str, str]
) -> str | None:
    """The exposition of grid step ``i``, exactly as :func:`exposition_at` writes it."""
    out: list[str] = []
    current: str | None = None
    for ln in lines:
        point = cols[ln.series_index][i]
        if point is None:
            continue
        if ln.family != current:
            current = ln.family
            doc = help_text.get(ln.family)
            if doc:
                out.append(f"# HELP {ln.family} {doc.replace(chr(10), ' ')}")
            out.append(f"# TYPE {ln.family} {ln.kind}")
        out.append(f"{ln.text_head} {point[0]}")
    if not out:
        return None
    return "\n".join(out) + "\n"


def help_texts(metadata_body: Mapping[str, Any] | None) -> dict[str, str]:
    if not metadata_body:
        return {}
    data = metadata_body.get("data")
    if not isinstance(data, dict):
        return {}
    out: dict[str, str] = {}
    for name, entries in data.items():
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            doc = entries[0].get("help")
            if isinstance(doc, str):
                out[str(name)] = doc
    return out


def reconstruct(
    series: list[SeriesData],
    metadata_body: Mapping[str, Any] | None,
    grid: list[float],
    engine_prefix: str | None = None,
    key_of: Mapping[int, str] | None = None,
) -> list[tuple[float, str | None]]:
    """Exposition text per step of ``grid`` (``None`` where the series have no point)."""
    lines, docs = _lines(series, metadata_body, engine_prefix, key_of)
    values = [dict(s.points) for s in series]
    return [(t, exposition_at(lines, values, t, docs)) for t in grid]


Columns = dict[tuple[str, tuple[tuple[str, str], ...]], list[float | None]]


# The text of a step rebuilt as columns only (see reconstruct_columns): not an exposition.
UNWRITTEN = ""


def reconstruct_columns(
    series: list[SeriesData],
    metadata_body: Mapping[str, Any] | None,
    grid: list[float],
    key_of: Mapping[int, str] | None = None,
    with_text: bool = True,
) -> tuple[list[tuple[float, str | None]], Columns]:
    """:func:`reconstruct`, plus what parsing those texts gives, as columns: (sample name,
    labels) → value per grid step (``None``: no point). The local pipeline reads the columns
    (:meth:`~kvdoctor.bundle.model.Bundle.with_columns`) instead of parsing every text.

    Without ``with_text`` a step with points gets :data:`UNWRITTEN` instead of its text:
    writing the texts was the largest cost of a big fleet, and only a saved bundle needs them
    (a bundle whose columns got lost then fails loudly: an empty text has no vLLM metrics).
    """
    lines, docs = _lines(series, metadata_body, None, key_of)
    columns: Columns = {}
    for ln in lines:
        key = _sample_key(ln.text_head)
        values = _on_grid(series[ln.series_index], grid)[1]
        earlier = columns.get(key)
        if earlier is not None:
            # Two lines with the same name and labels: in a text the later one is read last.
            values = [e if v is None else v for e, v in zip(earlier, values, strict=True)]
        columns[key] = values
    if with_text:
        cols = _parsed_columns(series, grid)
        texts = [(t, _step_text(lines, cols, i, docs)) for i, t in enumerate(grid)]
    else:
        seen = [False] * len(grid)
        for s in series:
            values = _on_grid(s, grid)[1]
            if None not in values:
                seen = [True] * len(grid)  # a series with a point at every step
                break
            for i, v in enumerate(values):
                if v is not None:
                    seen[i] = True
        texts = [(t, UNWRITTEN if seen[i] else None) for i, t in enumerate(grid)]
    return texts, columns


def _lines(
    series: list[SeriesData],
    metadata_body: Mapping[str, Any] | None,
    engine_prefix: str | None,
    key_of: Mapping[int, str] | None,
) -> tuple[list[_Line], dict[str, str]]:
    types = metric_types(metadata_body)
    docs = help_texts(metadata_body)
    if key_of is None:
        lines = build_lines(series, types, engine_prefix)
    else:
        # Fleet view: each series gets its own replica's prefix on the engine label.
        lines = []
        names = {s.name for s in series}
        for i, s in enumerate(series):
            one = build_lines([s], _types_with_hist(types, s.name, names), key_of[i])[0]
            lines.append(_Line(one.family, one.kind, one.order, one.text_head, i))
        lines.sort(key=lambda ln: (ln.family, ln.order))
    return lines, docs


def _types_with_hist(types: Mapping[str, str], name: str, names: set[str]) -> dict[str, str]:
    # build_lines on a single series cannot see its histogram siblings; pass the family type.
    out = dict(types)
    for suffix in _HIST_SUFFIXES:
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            if f"{base}_bucket" in names:
                out[base] = "histogram"
    return out


def by_replica_index(
    groups: Mapping[str, ReplicaSeries],
) -> tuple[list[SeriesData], dict[int, str]]:
    """Flatten replica groups into one series list plus index → replica key."""
    flat: list[SeriesData] = []
    key_of: dict[int, str] = {}
    for key, group in groups.items():
        for s in group.series:
            key_of[len(flat)] = key
            flat.append(s)
    return flat, key_of
