"""Fleet diagnosis: per-replica diagnoses through the local pipeline, plus fleet findings.

Per replica, the reconstructed bundle goes through :func:`kvdoctor.pipeline.diagnose`
unchanged. On top of those, three fleet findings only a comparison of replicas can make, each a
fleet playbook (``playbooks/fleet/*.yaml``) that the rule engine evaluates over the fleet
signals (:mod:`kvdoctor.fleet.signals`):

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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kvdoctor.bundle.model import Bundle, NotChecked
from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet.build import FleetData, ReplicaData, TargetHealth, is_stale
from kvdoctor.fleet.capture import FAMILIES, FleetCapture

# ReplicaResult's home is kvdoctor.fleet.replica; re-exported for the callers that know it here.
from kvdoctor.fleet.replica import ReplicaResult as ReplicaResult
from kvdoctor.fleet.signals import drift_signals, imbalance_signals, stale_signals
from kvdoctor.pipeline import diagnose
from kvdoctor.report.model import Evidence, Finding, Report, Scalar, Verdict
from kvdoctor.rules.evaluate import evaluate_fleet
from kvdoctor.rules.load import load_fleet_playbooks
from kvdoctor.rules.verdict import verdict_facts
from kvdoctor.vocab import SEVERITY_RANK, STATUS_RANK, VERDICT_RANK

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


def _names(keys: Sequence[str]) -> str:
    return ", ".join(keys)


def _replicas_evidence(keys: Sequence[str], expected: str) -> Evidence:
    return Evidence(signal="replicas", value=_names(keys), expected=expected)


# --------------------------------------------------------------------------- fleet findings


def fleet_findings(
    replicas: Sequence[ReplicaResult],
    silent: Sequence[TargetHealth] = (),
    via_prometheus: bool = True,
) -> list[Finding]:
    """The fleet playbooks (``playbooks/fleet/*.yaml``) over the fleet signals: routing
    imbalance, then config drift (one set per replica that differs), then stale targets."""
    views = [
        imbalance_signals(replicas),
        *drift_signals(replicas),
        stale_signals(replicas, silent, via_prometheus),
    ]
    return evaluate_fleet(views, load_fleet_playbooks())


# --------------------------------------------------------------------------- merging


def merge_replica_findings(
    replicas: Sequence[ReplicaResult], *, notes: bool = False
) -> list[Finding]:
    """One finding per (playbook, cause), naming every replica it fired on.

    With ``notes`` the replicas' notes (report/1.2) are merged the same way instead.
    """
    groups: dict[tuple[str, str], list[tuple[str, Finding]]] = {}
    for r in replicas:
        picked = (r.report.notes if notes else r.report.findings) if r.report else []
        for f in picked:
            groups.setdefault((f.id, f.cause), []).append((r.key, f))
    merged: list[Finding] = []
    for items in groups.values():
        # The strongest instance speaks for the group; the others are named.
        items.sort(key=lambda kf: (STATUS_RANK[kf[1].status], -kf[1].confidence, kf[0]))
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
        key=lambda f: (STATUS_RANK[f.status], SEVERITY_RANK[f.severity], -f.confidence, f.id),
    )


def _verdict(findings: Sequence[Finding], replicas: Sequence[ReplicaResult]) -> Verdict:
    live = [r.report.verdict for r in replicas if r.report is not None]
    if not live:
        return "unknown"
    worst = min(live, key=lambda v: VERDICT_RANK[v])
    # Info never sets the verdict (docs/report.md), in a fleet as on one replica.
    if worst == "healthy" and any(f.status != "refuted" and f.severity != "info" for f in findings):
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


# Findings of the fleet view itself (one bundle of every replica) that no replica's own
# diagnosis can reach.
VIEW_ONLY_CAUSES: frozenset[str] = frozenset({"engine-scatter"})


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

    fleet = fleet_findings(results, silent, via_prometheus=origin.source == "prometheus")
    fleet_diag = diagnose(fleet_view)
    # Causes only the view of every replica together can see: requests that share a prefix
    # spread over replicas that each cache alone (each replica alone is one engine with a
    # fair hit rate; external case zyq-gym-cookie, holdout-21: 8 replicas at 50 % while the
    # prompts share 89 %, read with the operator's prompt sample).
    fleet += [f for f in fleet_diag.report.findings if f.cause in VIEW_ONLY_CAUSES]
    findings = rank(fleet + merge_replica_findings(results))
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
        notes=rank(merge_replica_findings(results, notes=True)),
        signals=fleet_diag.report.signals,
        kv=fleet_diag.report.kv,
        not_checked=not_checked,
        facts=verdict_facts(fleet_diag.report.signals, findings),
    )
    return FleetDiagnosis(origin, results, fleet, report, fleet_diag.context)
