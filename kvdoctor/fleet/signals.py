"""Fleet signals from the per-replica diagnoses: plain values the fleet playbooks read.

Three sets, one per kind of comparison (the names are declared in kvdoctor.signals.fleet):

* :func:`imbalance_signals`: busy and idle replicas and the traffic skew between them;
* :func:`drift_signals`: one set per replica whose engine settings differ from its peers';
* :func:`stale_signals`: targets that are down, stopped reporting, or expose no vLLM metrics.

Each set holds only its own names, so a playbook evaluated over another set finds its signals
unknown and does not fire. Whether a finding fires, and everything it says, is in
``playbooks/fleet/*.yaml``; here are only the numbers and names it reads.
"""

from __future__ import annotations

import functools
import statistics
from collections import Counter
from collections.abc import Callable, Sequence

from kvdoctor.fleet.build import TargetHealth
from kvdoctor.fleet.replica import ReplicaResult
from kvdoctor.signals.fleet import (
    ARRIVALS,
    COOL_KV_USAGE_MAX,
    DRIFT_SETTINGS,
    HOT_WAITING_MEAN,
    LOAD_SIGNALS,
    FleetSignals,
)
from kvdoctor.signals.model import Scalar
from kvdoctor.vllm_metrics import RENAMED, kind, wire_name


def _num(value: Scalar) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# --------------------------------------------------------------------------- imbalance


def arrivals_per_s(r: ReplicaResult) -> float | None:
    """Requests that arrived per second: (finished + Δ(running + waiting)) / window span."""
    finished = _num(r.signals.get("requests_finished_window"))
    running, waiting = r.series.get("running") or [], r.series.get("waiting") or []
    if finished is None or len(running) < 2 or len(waiting) < 2:
        return None
    if (running[0][0], running[-1][0]) != (waiting[0][0], waiting[-1][0]):
        return None
    span = running[-1][0] - running[0][0]
    if span <= 0:
        return None
    grown = (running[-1][1] + waiting[-1][1]) - (running[0][1] + waiting[0][1])
    return max(0.0, finished + grown) / span


def _load(r: ReplicaResult, name: str) -> float | None:
    return arrivals_per_s(r) if name == ARRIVALS else _num(r.signals.get(name))


def imbalance_signals(replicas: Sequence[ReplicaResult]) -> FleetSignals:
    """Busy ("hot") and idle ("cool") replicas among the diagnosed ones, and the skew."""
    out = FleetSignals()
    live = [r for r in replicas if r.report is not None]
    hot: list[ReplicaResult] = []
    cool: list[ReplicaResult] = []
    for r in live:
        pre = _num(r.signals.get("preemptions_window")) or 0.0
        wait = _num(r.signals.get("waiting_mean")) or 0.0
        wait_max = _num(r.signals.get("waiting_max")) or 0.0
        kv = _num(r.signals.get("kv_usage_max"))
        if pre > 0 or wait >= HOT_WAITING_MEAN:
            hot.append(r)
        elif wait_max == 0 and kv is not None and kv <= COOL_KV_USAGE_MAX:
            cool.append(r)
    out.set("busy_replicas", [r.key for r in hot])
    out.set("idle_replicas", [r.key for r in cool])
    out.set("busy_count", len(hot))
    out.set("idle_count", len(cool))
    preempting = any((_num(r.signals.get("preemptions_window")) or 0) > 0 for r in hot)
    out.set("busy_preempting", preempting)
    out.set("imbalance_symptom", "preemption" if preempting else "high-ttft")
    if not hot or not cool:
        return out
    for name in LOAD_SIGNALS:
        hot_load = [_load(r, name) for r in hot]
        cool_load = [_load(r, name) for r in cool]
        if any(v is None for v in hot_load + cool_load):
            continue
        cool_med = statistics.median([v for v in cool_load if v is not None])
        hot_min = min(v for v in hot_load if v is not None)
        ratio = hot_min / cool_med if cool_med > 0 else (float("inf") if hot_min > 0 else 0.0)
        # The first measure known everywhere decides: trying the next ones until one shows a
        # skew would find one by chance (or by slowness) under equal traffic.
        unbounded = ratio == float("inf")
        out.set("load_measure", name)
        out.set("load_skew", None if unbounded else ratio)
        out.set("load_skew_unbounded", unbounded)
        out.set("load_skew_text", "∞" if unbounded else f"{ratio:.1f}×")
        out.set("load_skew_by_measure", {name: "inf" if unbounded else round(ratio, 2)})
        out.set("imbalance_confidence", min(0.9, 0.6 + 0.1 * min(3.0, ratio)))
        break
    return out


# --------------------------------------------------------------------------- config drift


@functools.cache
def renamed_wire_names() -> tuple[frozenset[str], frozenset[str]]:
    """(old, new) wire names of the renamed gauges and counters (kvdoctor.vllm_metrics.RENAMED):
    a replica exposing the old ones runs an older release than one exposing the new ones.
    Histograms are left out: their samples are the renamed name plus _bucket/_sum/_count."""
    pairs = [(old, new) for old, new in RENAMED.items() if kind(new) != "histogram"]
    return (
        frozenset(wire_name(old) for old, _ in pairs),
        frozenset(wire_name(new) for _, new in pairs),
    )


def _generation(r: ReplicaResult) -> str | None:
    names = r.data.metric_names
    old, new = renamed_wire_names()
    if names & new:
        return "new"
    if names & old:
        return "old"
    return None


def _setting_getter(name: str) -> Callable[[ReplicaResult], Scalar]:
    if name == "metric_names":
        return _generation

    def get(r: ReplicaResult) -> Scalar:
        return r.signals.get(name)

    return get


def _in_trouble(r: ReplicaResult) -> bool:
    """A non-refuted warning or critical finding of the replica's own."""
    return r.report is not None and any(
        f.status != "refuted" and f.severity != "info" for f in r.report.findings
    )


def drift_signals(replicas: Sequence[ReplicaResult]) -> list[FleetSignals]:
    """One set per replica that differs from the majority (or, without one, from the other
    replicas) on at least one compared setting, in replica key order."""
    live = [r for r in replicas if r.report is not None]
    if len(live) < 2:
        return []
    # Outliers per replica: replica -> [(setting, its value, majority value, symptom)]
    outliers: dict[str, list[tuple[str, Scalar, Scalar, str]]] = {}
    for name, symptom in DRIFT_SETTINGS:
        get = _setting_getter(name)
        values = {r.key: get(r) for r in live}
        known = {k: v for k, v in values.items() if v is not None}
        if len(set(map(repr, known.values()))) < 2:
            continue
        counts = Counter(repr(v) for v in known.values())
        (top, top_n), *rest = counts.most_common()
        if rest and rest[0][1] == top_n:
            # No majority (e.g. two replicas, two values): every replica differs from the other.
            majority = None
        else:
            majority = next(v for v in known.values() if repr(v) == top)
        for key, v in known.items():
            if majority is None or repr(v) != top:
                outliers.setdefault(key, []).append((name, v, majority, symptom))
    troubled = {r.key for r in live if _in_trouble(r)}
    out: list[FleetSignals] = []
    for key, diffs in sorted(outliers.items()):
        s = FleetSignals()
        s.set("drift_replica", key)
        s.set("drift_peers", [x.key for x in live if x.key != key])
        s.set(
            "drift_diffs",
            [f"{n}={v!s}" + (f" (peers: {m!s})" if m is not None else "") for n, v, m, _ in diffs],
        )
        s.set("drift_values", {n: v for n, v, _, _ in diffs})
        s.set("drift_peer_values", {n: m for n, _, m, _ in diffs})
        s.set("drift_count", len(diffs))
        s.set("drift_symptom", diffs[0][3])
        s.set("drift_in_trouble", key in troubled)
        s.set("drift_no_majority", all(m is None for _, _, m, _ in diffs))
        s.set("drift_trouble_elsewhere", bool((troubled & set(outliers)) - {key}))
        out.append(s)
    return out


# --------------------------------------------------------------------------- stale targets


def stale_signals(
    replicas: Sequence[ReplicaResult],
    silent: Sequence[TargetHealth],
    via_prometheus: bool = True,
) -> FleetSignals:
    """Replicas not "up" (down or stale), and targets of the job without vLLM metrics."""
    out = FleetSignals()
    bad = [r for r in replicas if r.status != "up"]
    out.set("via_prometheus", via_prometheus)
    out.set("stale_targets", [r.key for r in bad] + [h.key for h in silent])
    out.set(
        "stale_states",
        [f"{r.key} {r.status}" for r in bad]
        + [f"{h.key} exposes no vllm: metrics" for h in silent],
    )
    out.set("stale_count", len(bad) + len(silent))
    if via_prometheus:
        up: dict[str, Scalar] = {}
        for r in bad:
            h = r.data.health
            up[r.key] = None if h is None or h.last_up is None else h.last_up
        out.set("target_up", up)
    else:
        scrapes_ok: dict[str, Scalar] = {}
        for r in bad:
            scrapes = r.data.bundle.scrapes
            scrapes_ok[r.key] = f"{sum(1 for s in scrapes if s.ok)} of {len(scrapes)}"
        out.set("target_scrapes_ok", scrapes_ok)
    return out
