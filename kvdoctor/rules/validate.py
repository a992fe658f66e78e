"""Playbook checks against the registries: every signal, predicate, placeholder, experiment
and cause id a playbook names must exist (the replica catalog for a replica playbook, the
fleet signals for a fleet one)."""

from __future__ import annotations

from collections.abc import Callable

from kvdoctor.experiment_catalog import EXPERIMENTS
from kvdoctor.rules.formatting import template_fields
from kvdoctor.rules.predicates import DERIVED, PREDICATES
from kvdoctor.rules.runtime import Cause, Clause, Group, Playbook, Scope
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.fleet import FLEET_SIGNALS
from kvdoctor.vocab import CAUSES, UNIDENTIFIED


def _known(name: str) -> bool:
    return name in SIGNALS or name in DERIVED


def _known_fleet(name: str) -> bool:
    return name in FLEET_SIGNALS


def _known_constant(name: str) -> bool:
    return name in FLEET_SIGNALS and FLEET_SIGNALS[name].const is not None


def known_names(scope: Scope) -> Callable[[str], bool]:
    """The names a playbook of ``scope`` may use: the replica catalog (and derived values), or
    the fleet signals."""
    return _known_fleet if scope == "fleet" else _known


def _clause_problems(
    clause: Clause, where: str, allow_measured: bool, known: Callable[[str], bool] = _known
) -> list[str]:
    problems: list[str] = []
    if isinstance(clause, Group):
        for key in ("all", "any", "none"):
            for i, sub in enumerate(getattr(clause, key) or []):
                problems += _clause_problems(sub, f"{where}.{key}.{i}", allow_measured, known)
        return problems
    if clause.signal and not known(clause.signal):
        problems.append(f"{where}.signal: unknown signal {clause.signal!r}")
    if clause.value_from and not known(clause.value_from):
        problems.append(f"{where}.value_from: unknown signal {clause.value_from!r}")
    if clause.predicate and (known is _known_fleet or clause.predicate not in PREDICATES):
        problems.append(f"{where}.predicate: unknown predicate {clause.predicate!r}")
    if clause.series and known is _known_fleet:
        problems.append(f"{where}.series: fleet signals have no series")
    if clause.measured and not allow_measured:
        problems.append(f"{where}.measured: reproducer numbers cannot make a cause fire")
    return problems


def _template_problems(text: str, where: str, known: Callable[[str], bool] = _known) -> list[str]:
    try:
        names = template_fields(text)
    except ValueError as exc:
        return [f"{where}: {exc}"]
    return [f"{where}: unknown placeholder {{{n}}}" for n in names if not known(n)]


def _measured_keys(clause: Clause | None, where: str) -> list[tuple[str, str]]:
    """(where, key) of every ``measured:`` condition in ``clause``."""
    if clause is None:
        return []
    if isinstance(clause, Group):
        out: list[tuple[str, str]] = []
        for key in ("all", "any", "none"):
            for i, sub in enumerate(getattr(clause, key) or []):
                out += _measured_keys(sub, f"{where}.{key}.{i}")
        return out
    return [(f"{where}.measured", clause.measured)] if clause.measured else []


def _experiment_problems(pb: Playbook, ci: int, cause: Cause) -> list[str]:
    """The cause's reproducer must exist, test this cause, and report every key it reads."""
    at = f"causes.{ci}"
    if cause.reproducer is None:
        return []  # no experiment tests it; nothing to cross-check
    exp = EXPERIMENTS.get(cause.reproducer)
    if exp is None:
        return [
            f"{at}.reproducer: unknown experiment {cause.reproducer!r} "
            f"(known: {', '.join(EXPERIMENTS)})"
        ]
    problems: list[str] = []
    if (pb.id, cause.id) not in exp.causes:
        tested = ", ".join(str(ref) for ref in exp.causes)
        problems.append(
            f"{at}.reproducer: {exp.name} does not test {pb.id}/{cause.id} (it tests {tested})"
        )
    clauses: list[tuple[Clause | None, str]] = [(cause.critical_when, f"{at}.critical_when")]
    clauses += [
        (b.when, f"{at}.confidence.boosts.{i}.when") for i, b in enumerate(cause.confidence.boosts)
    ]
    for ri, rem in enumerate(cause.remediation):
        clauses += [(rem.when, f"{at}.remediation.{ri}.when")]
        clauses += [(rem.unless, f"{at}.remediation.{ri}.unless")]
    measures = exp.measures
    for clause, where in clauses:
        for loc, key in _measured_keys(clause, where):
            if key not in measures:
                problems.append(f"{loc}: {exp.name} does not report {key!r}")
    return problems


def _fleet_problems(pb: Playbook) -> list[str]:
    """What only a fleet playbook is checked for: no detector, no reproducer, and prose whose
    placeholders are constants (its thresholds), filled when the runbook is printed."""
    problems: list[str] = []
    if pb.detect is not None:
        problems.append("detect: a fleet playbook has no detector (its causes are the symptom)")
    for key in ("meaning", "impact", "diagnosis", "mitigation"):
        problems += _template_problems(getattr(pb.runbook, key), f"runbook.{key}", _known_constant)
    for ci, cause in enumerate(pb.causes):
        at = f"causes.{ci}"
        if cause.reproducer is not None:
            problems.append(f"{at}.reproducer: a fleet finding has no reproducer")
        problems += _template_problems(cause.description, f"{at}.description", _known_constant)
    return problems


def _symptom_experiment_problems(pb: Playbook) -> list[str]:
    """The playbook's own reproducer (for a symptom no cause explains) must exist and test it."""
    if pb.reproducer is None:
        return []
    if pb.scope == "fleet":
        return ["reproducer: a fleet playbook has no reproducer"]
    exp = EXPERIMENTS.get(pb.reproducer)
    if exp is None:
        known = ", ".join(EXPERIMENTS)
        return [f"reproducer: unknown experiment {pb.reproducer!r} (known: {known})"]
    if pb.id not in exp.symptoms():
        return [f"reproducer: {exp.name} tests no cause of {pb.id}"]
    return []


def _cause_id_problems(pb: Playbook) -> list[str]:
    """Every cause id must be one kvdoctor/vocab.py lists for this playbook (CAUSES)."""
    listed = CAUSES.get(pb.id)
    if listed is None:
        return [f"id: {pb.id!r} has no entry in kvdoctor/vocab.py CAUSES"]
    return [
        f"causes.{ci}.id: {c.id!r} is not a cause of {pb.id} in kvdoctor/vocab.py CAUSES"
        for ci, c in enumerate(pb.causes)
        if c.id not in listed
    ]


def check_playbook(pb: Playbook) -> list[str]:
    """Cross-checks against the registries: every name a playbook uses must exist (in the
    replica catalog for a replica playbook, among the fleet signals for a fleet one)."""
    known = known_names(pb.scope)
    problems: list[str] = _fleet_problems(pb) if pb.scope == "fleet" else []
    problems += _cause_id_problems(pb)
    problems += _symptom_experiment_problems(pb)
    for i, name in enumerate(pb.inspect_first):
        if not known(name):
            problems.append(f"inspect_first.{i}: unknown signal {name!r}")
    if pb.detect is not None:
        for bi, basis in enumerate(pb.detect.bases):
            at = f"detect.bases.{bi}"
            problems += _clause_problems(basis.available, f"{at}.available", allow_measured=False)
            problems += _clause_problems(basis.when, f"{at}.when", allow_measured=False)
            problems += _template_problems(basis.says, f"{at}.says")
        if pb.detect.critical_when is not None:
            problems += _clause_problems(
                pb.detect.critical_when, "detect.critical_when", allow_measured=False
            )
        causes = {c.id for c in pb.causes}
        for ui, open_q in enumerate(pb.detect.undecided):
            at = f"detect.undecided.{ui}"
            problems += _clause_problems(open_q.when, f"{at}.when", allow_measured=False)
            problems += _template_problems(open_q.seen, f"{at}.seen")
            problems += _template_problems(open_q.title, f"{at}.title")
            for di, cand in enumerate(open_q.differential):
                # A candidate is a cause of this playbook (unshared-traffic is "no fault"), or
                # "unidentified": none of them, where the likeliest answer is one kvdoctor
                # does not name.
                if cand.cause not in causes and cand.cause != UNIDENTIFIED:
                    problems.append(f"{at}.differential.{di}: unknown cause {cand.cause!r}")
    symptoms = {pb.symptom, *pb.other_symptoms}
    for ci, cause in enumerate(pb.causes):
        at = f"causes.{ci}"
        problems += _experiment_problems(pb, ci, cause)
        problems += _clause_problems(cause.when, f"{at}.when", False, known)
        if cause.critical_when is not None:
            problems += _clause_problems(cause.critical_when, f"{at}.critical_when", True, known)
        if cause.warning_when is not None:
            problems += _clause_problems(cause.warning_when, f"{at}.warning_when", True, known)
        for bi, boost in enumerate(cause.confidence.boosts):
            problems += _clause_problems(
                boost.when, f"{at}.confidence.boosts.{bi}.when", True, known
            )
        vf = cause.confidence.value_from
        if vf is not None and not known(vf):
            problems.append(f"{at}.confidence.value_from: unknown signal {vf!r}")
        if cause.symptom_from is not None and not known(cause.symptom_from):
            problems.append(f"{at}.symptom_from: unknown signal {cause.symptom_from!r}")
        if cause.symptom_from is not None and len(symptoms) < 2:
            problems.append(f"{at}.symptom_from: the playbook lists no other_symptoms")
        problems += _template_problems(cause.title, f"{at}.title", known)
        for ti, variant in enumerate(cause.title_when):
            problems += _clause_problems(variant.when, f"{at}.title_when.{ti}.when", False, known)
            problems += _template_problems(variant.text, f"{at}.title_when.{ti}.text", known)
        for ei, ev in enumerate(cause.evidence):
            if not known(ev.signal):
                problems.append(f"{at}.evidence.{ei}.signal: unknown signal {ev.signal!r}")
            elif ev.expand is not None and (
                pb.scope != "fleet" or FLEET_SIGNALS[ev.signal].kind != "table"
            ):
                problems.append(f"{at}.evidence.{ei}.expand: {ev.signal!r} is not a table")
            problems += _template_problems(ev.expected, f"{at}.evidence.{ei}.expected", known)
            if ev.holds is not None:
                if ev.expand is not None:
                    problems.append(
                        f"{at}.evidence.{ei}.holds: an expanded row states no condition"
                    )
                problems += _clause_problems(ev.holds, f"{at}.evidence.{ei}.holds", False, known)
            if ev.fallback is not None:
                problems += _template_problems(ev.fallback, f"{at}.evidence.{ei}.fallback", known)
        for ri, rem in enumerate(cause.remediation):
            if rem.text is not None:
                problems += _template_problems(rem.text, f"{at}.remediation.{ri}.text", known)
            for fi, fb in enumerate(rem.fallbacks):
                problems += _template_problems(fb, f"{at}.remediation.{ri}.fallback.{fi}", known)
            for key in ("when", "unless"):
                clause = getattr(rem, key)
                if clause is not None:
                    problems += _clause_problems(
                        clause, f"{at}.remediation.{ri}.{key}", True, known
                    )
    return problems
