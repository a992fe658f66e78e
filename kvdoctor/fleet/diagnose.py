"""Fleet diagnosis: per-replica diagnoses through the local pipeline, plus fleet findings.

Per replica, the reconstructed bundle goes through :func:`kvdoctor.pipeline.diagnose`
unchanged. On top of those, three fleet findings only a comparison of replicas can make:

* ``fleet-imbalance``: some replicas preempt or queue while others sit idle *and* the busy ones
  get clearly more traffic: a routing problem, not a capacity one (more GPUs would not help).
* ``fleet-config-drift``: a replica runs different engine settings (KV pool, block size, cache
  dtype, prefix caching) or a different vLLM metric generation (old vs new names: another
  vLLM version) than the majority of its peers.
* ``fleet-stale-targets``: a replica whose target is down, or whose series stopped before the
  window's end, or a target of the same job that exposes no vLLM metrics at all.

The result is a ``kvdoctor.report/1`` :class:`Report` (the JSON contract) whose findings name
the replicas they apply to (in the title and as a ``replicas`` evidence entry), plus the
per-replica table the Markdown report shows.

Two sources feed the same code: replicas rebuilt from Prometheus range queries
(:func:`diagnose_data`) and bundles captured directly from several endpoints
(:mod:`kvdoctor.fleet.endpoints`); both end in :func:`diagnose_replicas`.
"""

from __future__ import annotations

import functools
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kvdoctor.bundle.model import Bundle, NotChecked
from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet.build import FleetData, ReplicaData, TargetHealth, build_fleet, is_stale
from kvdoctor.fleet.capture import FleetCapture
from kvdoctor.report.model import Evidence, Finding, Report, Scalar, Symptom, Verdict

# Engine settings compared across replicas, with the symptom a difference would produce.
DRIFT_SETTINGS: tuple[tuple[str, Symptom], ...] = (
    ("num_gpu_blocks", "preemption"),
    ("kv_capacity_tokens", "preemption"),
    ("gpu_memory_utilization", "preemption"),
    ("block_size", "prefix-miss"),
    ("prefix_caching", "prefix-miss"),
    ("cache_dtype", "quant-quality"),
    ("max_model_len", "preemption"),
    ("max_num_seqs", "high-ttft"),
    ("max_num_batched_tokens", "high-ttft"),
    ("vllm_version", "high-ttft"),
)


@functools.cache
def renamed_wire_names() -> tuple[frozenset[str], frozenset[str]]:
    """(old, new) wire names of the renamed gauges and counters (kvdoctor.vllm_metrics.RENAMED):
    a replica exposing the old ones runs an older release than one exposing the new ones.
    Histograms are left out: their samples are the renamed name plus _bucket/_sum/_count."""
    from kvdoctor.vllm_metrics import RENAMED, kind, wire_name

    pairs = [(old, new) for old, new in RENAMED.items() if kind(new) != "histogram"]
    return (
        frozenset(wire_name(old) for old, _ in pairs),
        frozenset(wire_name(new) for _, new in pairs),
    )


# Imbalance thresholds. "Hot": preempting, or a real queue; "cool": no queue, no preemption and
# at least half of its KV pool free. Routing is blamed only when the hot replicas get clearly
# more work than the cool ones; with equal traffic, the difference is in the replicas.
HOT_WAITING_MEAN = 1.0
COOL_KV_USAGE_MAX = 0.5
LOAD_SKEW = 1.5
# Traffic measures, best first; the first one known on every replica decides alone.
# ARRIVALS: requests that reached the replica in the window, by conservation: finished in the
# window plus the growth of running + waiting. Unlike the others it does not depend on how fast
# the replica works through them. Prompt tokens are counted at a request's first prefill, so
# a slow replica that admits late shows more of them in a window opened mid-load; finished
# requests undercount a slow replica. Running requests are left out altogether: by Little's law
# a slower replica holds more of them under the *same* traffic, which is the mis-tuned-replica
# case, not a routing one.
ARRIVALS = "requests_arrived_per_s"
LOAD_SIGNALS: tuple[str, ...] = (ARRIVALS, "prompt_tokens_per_s", "requests_finished_window")

TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("replica", "replica"),
    ("status", "target"),
    ("verdict", "verdict"),
    ("kv_usage_max", "KV usage max"),
    ("preemptions_window", "preemptions"),
    ("waiting_mean", "waiting (mean)"),
    ("running_mean", "running (mean)"),
    ("prompt_tokens_per_s", "prompt tok/s"),
    ("ttft_p95", "TTFT p95 (s)"),
    ("num_gpu_blocks", "KV blocks"),
    ("block_size", "block size"),
    ("top_finding", "top finding"),
)


@dataclass
class ReplicaResult:
    key: str
    job: str
    data: ReplicaData
    report: Report | None
    signals: dict[str, Scalar]
    error: str | None  # why this replica could not be diagnosed
    status: str  # "up", "down", "stale"
    # The replica's gauge series over the window (running, waiting, ...), as in SignalSet.
    series: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


@dataclass(frozen=True)
class FleetOrigin:
    """Where the replicas' data came from (the Markdown report's fleet header)."""

    source: Literal["prometheus", "endpoints"]
    where: str  # the Prometheus URL (no credentials); "" for direct endpoints
    selector: str
    start: float
    end: float
    step_s: float  # range-query step, or the scrape interval of direct endpoints


@dataclass
class FleetDiagnosis:
    origin: FleetOrigin
    replicas: list[ReplicaResult]
    fleet_findings: list[Finding]
    report: Report  # kvdoctor.report/1 for the whole fleet
    fleet_context: Any  # the fleet view's RenderContext (series, provenance) for Markdown

    def table(self) -> list[dict[str, Scalar]]:
        """One row per replica (keys: TABLE_COLUMNS), in replica order."""
        rows: list[dict[str, Scalar]] = []
        for r in self.replicas:
            row: dict[str, Scalar] = {"replica": r.key, "status": r.status}
            row["verdict"] = r.report.verdict if r.report else "unknown"
            for name, _ in TABLE_COLUMNS[3:-1]:
                row[name] = r.signals.get(name)
            findings = r.report.findings if r.report else []
            top = next((f for f in findings if f.status != "refuted"), None)
            row["top_finding"] = f"{top.id}/{top.cause}" if top else (r.error or "-")
            rows.append(row)
        return rows


def _num(value: Scalar) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _names(keys: Sequence[str]) -> str:
    return ", ".join(keys)


def _replicas_evidence(keys: Sequence[str], expected: str) -> Evidence:
    return Evidence(signal="replicas", value=_names(keys), expected=expected)


# --------------------------------------------------------------------------- fleet findings


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


def imbalance_finding(replicas: Sequence[ReplicaResult]) -> Finding | None:
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
    if not hot or not cool:
        return None
    skew_signal, skew = None, 0.0
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
        skew_signal, skew = name, ratio
        break
    if skew_signal is None or skew < LOAD_SKEW:
        return None
    preempting = any((_num(r.signals.get("preemptions_window")) or 0) > 0 for r in hot)
    hot_keys = [r.key for r in hot]
    cool_keys = [r.key for r in cool]
    what = "preempt" if preempting else "queue requests"
    skew_text = "∞" if skew == float("inf") else f"{skew:.1f}×"
    return Finding(
        id="fleet-imbalance",
        symptom="preemption" if preempting else "high-ttft",
        cause="routing-imbalance",
        status="suspected",
        severity="warning",
        confidence=min(0.9, 0.6 + 0.1 * min(3.0, skew if skew != float("inf") else 3.0)),
        title=(
            f"Routing imbalance: {_names(hot_keys)} {what} while {_names(cool_keys)} "
            f"sit idle with free KV cache ({skew_signal} {skew_text} higher): routing, not capacity"
        ),
        evidence=[
            _replicas_evidence(hot_keys, "busy replicas (preempting or queueing)"),
            Evidence(
                signal="idle_replicas",
                value=_names(cool_keys),
                expected=f"no queue and KV usage ≤ {COOL_KV_USAGE_MAX:.0%}",
            ),
            Evidence(
                signal=skew_signal,
                value=round(skew, 2) if skew != float("inf") else "inf",
                expected=f"busy/idle ratio below {LOAD_SKEW} when the router balances load",
            ),
        ],
        remediation=[
            "Fix the router before adding capacity: balance on outstanding requests or KV "
            "usage (least-loaded / KV-aware routing) instead of round-robin or sticky sessions",
            f"Check session affinity or prefix-hash routing that pins heavy traffic to "
            f"{_names(hot_keys)}",
            f"Do not raise replica count or KV budget for this: {_names(cool_keys)} have free KV",
        ],
    )


def _setting_getter(name: str) -> Callable[[ReplicaResult], Scalar]:
    def get(r: ReplicaResult) -> Scalar:
        return r.signals.get(name)

    return get


def _generation(r: ReplicaResult) -> str | None:
    names = r.data.metric_names
    old, new = renamed_wire_names()
    if names & new:
        return "new"
    if names & old:
        return "old"
    return None


def _in_trouble(r: ReplicaResult) -> bool:
    """A non-refuted warning or critical finding of the replica's own."""
    return r.report is not None and any(
        f.status != "refuted" and f.severity != "info" for f in r.report.findings
    )


def drift_findings(replicas: Sequence[ReplicaResult]) -> list[Finding]:
    live = [r for r in replicas if r.report is not None]
    if len(live) < 2:
        return []
    findings: list[Finding] = []
    getters: list[tuple[str, Symptom, Callable[[ReplicaResult], Scalar]]] = [
        (name, sym, _setting_getter(name)) for name, sym in DRIFT_SETTINGS
    ]
    getters.append(("metric_names", "high-ttft", _generation))
    # Outliers per replica: replica -> [(setting, its value, majority value, symptom)]
    outliers: dict[str, list[tuple[str, Scalar, Scalar, Symptom]]] = {}
    for name, symptom, get in getters:
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
    for key, diffs in sorted(outliers.items()):
        has_trouble = key in troubled
        no_majority = all(m is None for _, _, m, _ in diffs)
        if no_majority and not has_trouble and troubled & set(outliers):
            # No majority to compare with (e.g. two replicas): the replica in trouble is the
            # one to name; a calm replica only when none is in trouble.
            continue
        peers = [x.key for x in live if x.key != key]
        diff_text = ", ".join(
            f"{n}={v!s}" + (f" (peers: {m!s})" if m is not None else "") for n, v, m, _ in diffs
        )
        findings.append(
            Finding(
                id="fleet-config-drift",
                symptom=diffs[0][3],
                cause="replica-config-drift",
                status="suspected",
                severity="warning",
                confidence=0.8 if has_trouble else 0.5,
                title=(
                    f"Replica {key} runs different engine settings than its peers: {diff_text}"
                    + (" — and it is the one in trouble" if has_trouble else "")
                ),
                evidence=[_replicas_evidence([key], f"same settings as {_names(peers)}")]
                + [
                    Evidence(
                        signal=n,
                        value=v if isinstance(v, int | float | str | bool) else str(v),
                        expected=f"{m!s}, as on the other replicas"
                        if m is not None
                        else "the same value on every replica",
                    )
                    for n, v, m, _ in diffs
                ],
                remediation=[
                    f"Deploy {key} with the same vLLM version and engine flags as "
                    f"{_names(peers)} (compare --num-gpu-blocks-override, "
                    "--gpu-memory-utilization, --block-size, --kv-cache-dtype, "
                    "--enable-prefix-caching)",
                ],
            )
        )
    return findings


def stale_finding(
    replicas: Sequence[ReplicaResult],
    silent: Sequence[TargetHealth],
    via_prometheus: bool = True,
) -> Finding | None:
    bad = [r for r in replicas if r.status != "up"]
    if not bad and not silent:
        return None
    keys = [r.key for r in bad] + [h.key for h in silent]
    parts = [f"{r.key} {r.status}" for r in bad]
    parts += [f"{h.key} exposes no vllm: metrics" for h in silent]
    evidence = [_replicas_evidence(keys, "every target up and exposing vLLM metrics")]
    for r in bad:
        if via_prometheus:
            h = r.data.health
            evidence.append(
                Evidence(
                    signal=f"up[{r.key}]",
                    value=None if h is None or h.last_up is None else h.last_up,
                    expected="1 at the end of the window",
                )
            )
        else:
            scrapes = r.data.bundle.scrapes
            evidence.append(
                Evidence(
                    signal=f"scrapes_ok[{r.key}]",
                    value=f"{sum(1 for s in scrapes if s.ok)} of {len(scrapes)}",
                    expected="every scrape of the window answered, the last ones included",
                )
            )
    where = (
        "(Prometheus targets page, pod status)"
        if via_prometheus
        else "(process or pod status, the network path from here to its /metrics)"
    )
    return Finding(
        id="fleet-stale-targets",
        symptom="high-ttft",
        cause="stale-or-missing-targets",
        status="suspected",
        severity="warning",
        confidence=0.9,
        title=f"Stale or missing targets: {'; '.join(parts)} (their load lands on the others)",
        evidence=evidence,
        remediation=[
            f"Check that {_names(keys)} run and are scraped {where}; a replica out of "
            "rotation shifts its traffic onto its peers",
        ],
    )


# --------------------------------------------------------------------------- merging


_STATUS_RANK = {"confirmed": 0, "suspected": 1, "refuted": 2}
_SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
_VERDICT_RANK = {"critical": 0, "degraded": 1, "healthy": 2, "unknown": 3}


def merge_replica_findings(replicas: Sequence[ReplicaResult]) -> list[Finding]:
    """One finding per (playbook, cause), naming every replica it fired on."""
    groups: dict[tuple[str, str], list[tuple[str, Finding]]] = {}
    for r in replicas:
        for f in r.report.findings if r.report else []:
            groups.setdefault((f.id, f.cause), []).append((r.key, f))
    merged: list[Finding] = []
    for items in groups.values():
        # The strongest instance speaks for the group; the others are named.
        items.sort(key=lambda kf: (_STATUS_RANK[kf[1].status], -kf[1].confidence, kf[0]))
        best = items[0][1]
        keys = sorted({k for k, f in items if f.status == best.status})
        others = sorted({k for k, _ in items} - set(keys))
        title = f"[{_names(keys)}] {best.title}"
        evidence = [_replicas_evidence(keys, f"replicas where this is {best.status}")]
        if others:
            evidence.append(
                Evidence(signal="other_replicas", value=_names(others), expected="weaker status")
            )
        merged.append(
            best.model_copy(update={"title": title, "evidence": evidence + list(best.evidence)})
        )
    return merged


def rank(findings: list[Finding]) -> list[Finding]:
    return sorted(
        findings,
        key=lambda f: (_STATUS_RANK[f.status], _SEVERITY_RANK[f.severity], -f.confidence, f.id),
    )


def _verdict(findings: Sequence[Finding], replicas: Sequence[ReplicaResult]) -> Verdict:
    live = [r.report.verdict for r in replicas if r.report is not None]
    if not live:
        return "unknown"
    worst = min(live, key=lambda v: _VERDICT_RANK[v])
    if worst == "healthy" and any(f.status != "refuted" for f in findings):
        return "degraded"
    return worst


def replica_status(rep: ReplicaData, capture: FleetCapture) -> str:
    """ "down" (its target's last ``up`` is 0), "stale" (series stopped early) or "up"."""
    if rep.health is not None and rep.health.last_up == 0.0:
        return "down"
    if is_stale(rep, capture):
        return "stale"
    return "up"


def diagnose_data(data: FleetData) -> FleetDiagnosis:
    """Pure: the fleet diagnosis of already-built fleet data (the Prometheus path)."""
    cap = data.capture
    origin = FleetOrigin("prometheus", cap.prometheus, cap.selector, cap.start, cap.end, cap.step_s)
    return diagnose_replicas(
        [(rep, replica_status(rep, cap)) for rep in data.replicas.values()],
        data.fleet,
        origin,
        silent=data.silent_targets,
        partial=partial_replicas(data),
    )


def _family_of(name: str) -> str:
    """``ray_vllm:gpu_cache_usage_perc`` → ``kv_cache_usage_perc`` (the family's first name)."""
    from kvdoctor.fleet.capture import FAMILIES

    base = name.removeprefix("ray_").removeprefix("vllm:")
    for suffix in ("_total", "_bucket", "_sum", "_count"):
        base = base.removesuffix(suffix)
    for family in FAMILIES:
        if base in family:
            return family[0]
    return base


def partial_replicas(data: FleetData) -> list[NotChecked]:
    """Replicas whose series are partial: metric families most of their peers have, or a first
    point well after the window's start. Reported, and each is still diagnosed on what it has
    (the per-replica checks then say what they could not judge)."""
    families = {k: {_family_of(n) for n in r.metric_names} for k, r in data.replicas.items()}
    counts = Counter(f for fams in families.values() for f in fams)
    majority = {f for f, c in counts.items() if c * 2 > len(families)}
    out: list[NotChecked] = []
    late_after = data.capture.start + 2 * data.capture.step_s + 1e-9
    for key, rep in data.replicas.items():
        why: list[str] = []
        missing = sorted(majority - families[key])
        if missing:
            shown = ", ".join(f"vllm:{m}" for m in missing[:6])
            more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
            why.append(f"no {shown}{more} in Prometheus, which most of its peers report")
        first = rep.bundle.scrapes[0].t if rep.bundle.scrapes else None
        if first is not None and first > late_after:
            minutes = (first - data.capture.start) / 60
            why.append(f"its series start {minutes:.0f} min into the window")
        if why:
            out.append(NotChecked(what=f"replica {key} (partial series)", why="; ".join(why)))
    return out


def merge_not_checked(results: Sequence[ReplicaResult]) -> list[NotChecked]:
    """Each replica's "not checked" entries once, naming the replicas they apply to."""
    where: dict[tuple[str, str], list[str]] = {}
    for r in results:
        for nc in r.report.not_checked if r.report else []:
            keys = where.setdefault((nc.what, nc.why), [])
            if r.key not in keys:
                keys.append(r.key)
    every = len([r for r in results if r.report is not None])
    out: list[NotChecked] = []
    for (what, why), keys in where.items():
        scope = "every replica" if len(keys) == every and every > 1 else _names(keys)
        out.append(NotChecked(what=f"{what} ({scope})", why=why))
    return out


def diagnose_replicas(
    replicas: Sequence[tuple[ReplicaData, str]],
    fleet_view: Bundle,
    origin: FleetOrigin,
    *,
    silent: Sequence[TargetHealth] = (),
    per_replica_not_checked: bool = False,
    partial: Sequence[NotChecked] = (),
) -> FleetDiagnosis:
    """Pure: per-replica diagnoses of (replica, target status) pairs, plus fleet findings.

    ``fleet_view`` is one bundle holding every replica side by side (engine label =
    replica/engine): the report's fleet-wide signals and series come from it. With
    ``per_replica_not_checked`` the report lists what each replica could not check (direct
    endpoints, whose own bundles carry server info, engine flags and logs) instead of what the
    fleet view lacks (Prometheus, where every replica lacks the same things).
    """
    from kvdoctor.pipeline import diagnose

    results: list[ReplicaResult] = []
    for rep, status in replicas:
        try:
            d = diagnose(rep.bundle)
            signals = d.report.signals
            results.append(
                ReplicaResult(
                    rep.key, rep.job, rep, d.report, signals, None, status, dict(d.context.series)
                )
            )
        except KvdoctorError as exc:
            results.append(ReplicaResult(rep.key, rep.job, rep, None, {}, str(exc), status))
    if not any(r.report is not None for r in results):
        reasons = "; ".join(f"{r.key}: {r.error}" for r in results)
        source = "Prometheus data" if origin.source == "prometheus" else "the endpoints"
        raise KvdoctorError(f"no replica could be diagnosed from {source} ({reasons})")

    fleet_findings: list[Finding] = []
    imbalance = imbalance_finding(results)
    if imbalance is not None:
        fleet_findings.append(imbalance)
    fleet_findings.extend(drift_findings(results))
    stale = stale_finding(results, silent, via_prometheus=origin.source == "prometheus")
    if stale is not None:
        fleet_findings.append(stale)

    findings = rank(fleet_findings + merge_replica_findings(results))
    fleet_diag = diagnose(fleet_view)
    if per_replica_not_checked:
        not_checked = merge_not_checked(results)
    else:
        not_checked = list(fleet_diag.report.not_checked)
    for r in results:
        if r.error is not None:
            not_checked.append(NotChecked(what=f"replica {r.key}", why=r.error))
    not_checked.extend(partial)
    report = Report(
        verdict=_verdict(findings, results),
        findings=findings,
        signals=fleet_diag.report.signals,
        kv=fleet_diag.report.kv,
        not_checked=not_checked,
    )
    return FleetDiagnosis(origin, results, fleet_findings, report, fleet_diag.context)


def diagnose_capture(capture: FleetCapture) -> FleetDiagnosis:
    return diagnose_data(build_fleet(capture))
