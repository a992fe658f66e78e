"""The rule engine: playbooks + signals (+ reproducer records) -> ranked findings.

Pure functions of their inputs: the same signals and records always give the same findings in
the same order. Conditions use three-valued logic (a missing signal makes a test unknown, and
a cause fires only when its conditions are known to hold).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from pydantic import ValidationError

from kvdoctor.bundle.model import JsonObject, ReproducerRecord
from kvdoctor.bundle.records import newest_records
from kvdoctor.cache import code_fingerprint, load_pickle, store_pickle
from kvdoctor.errors import KvdoctorError
from kvdoctor.experiment_catalog import EXPERIMENTS
from kvdoctor.report.model import (
    SYMPTOMS,
    DifferentialEntry,
    Evidence,
    Finding,
    OpenQuestion,
    ReproducerOutcome,
    Severity,
    Symptom,
    Verdict,
)
from kvdoctor.resources import data_dir

# experiment_of's home is kvdoctor.rules.experiments; re-exported for the callers that know it here.
from kvdoctor.rules.experiments import experiment_of as experiment_of
from kvdoctor.rules.formatting import TemplateValue, duration, render_or, template_fields
from kvdoctor.rules.predicates import (
    DERIVED,
    DERIVED_LABELS,
    DERIVED_NONE,
    DERIVED_STATES,
    PREDICATE_FALSE,
    PREDICATES,
    SignalView,
)
from kvdoctor.rules.schema import (
    Cause,
    Clause,
    Condition,
    Group,
    Playbook,
    Remediation,
    Scope,
)
from kvdoctor.signals import catalog
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.fleet import FLEET_SIGNALS, FleetSignals
from kvdoctor.signals.model import Scalar, SignalSet
from kvdoctor.signals.window import idle_window
from kvdoctor.thresholds import CARD_FULL, POOL_FULL
from kvdoctor.vocab import CAUSES, SEVERITY_RANK, STATUS_RANK, ReproducerVerdict

# A reproducer's verdict outweighs what the window suggested.
CONFIRMED_FLOOR = 0.9
REFUTED_CEILING = 0.1


# ------------------------------------------------------------------------------------ loading


def load_playbooks(directory: Path | None = None, scope: Scope = "replica") -> list[Playbook]:
    """Load and validate every ``*.yaml`` playbook, in troubleshooting-table order.

    ``scope`` is what the directory must hold: replica playbooks (the default directory,
    ``playbooks/``) or fleet playbooks (``playbooks/fleet/``, see :func:`load_fleet_playbooks`);
    each is checked against its own signal registry.
    """
    if directory is None:
        directory = data_dir("playbooks")
        if scope == "fleet":
            directory = directory / FLEET_DIR
    if not directory.is_dir():
        raise KvdoctorError(f"playbook directory not found: {directory}")
    paths = sorted(directory.glob("*.yaml"))
    texts: list[bytes] = []
    for path in paths:
        try:
            texts.append(path.read_bytes())
        except OSError as exc:
            raise KvdoctorError(f"{directory.name}/{path.name}: cannot read: {exc}") from None
    key = _cache_key(paths, texts, scope)
    cached = load_pickle("playbooks", key)
    if isinstance(cached, list) and all(isinstance(pb, Playbook) for pb in cached):
        return cached
    result = _load_all(directory, paths, texts, scope)
    store_pickle("playbooks", key, result)
    return result


# The fleet playbooks' folder under the playbooks data directory.
FLEET_DIR = "fleet"


def load_fleet_playbooks(directory: Path | None = None) -> list[Playbook]:
    """The fleet playbooks (``playbooks/fleet/*.yaml``): findings that compare replicas."""
    return load_playbooks(directory, scope="fleet")


# Every kvdoctor module this one imports, directly or not: their code decides what a valid
# playbook is and what it becomes (the experiment catalog's measured keys, the signal names,
# the vocabulary), so each is part of the cache key. tests/unit/test_playbook_cache.py holds
# this list equal to the import graph: a module added to it without a line here fails there.
VALIDATION_MODULES: tuple[str, ...] = (
    "kvdoctor",
    "kvdoctor.bundle",
    "kvdoctor.bundle.model",
    "kvdoctor.bundle.records",
    "kvdoctor.cache",
    "kvdoctor.errors",
    "kvdoctor.experiment_catalog",
    "kvdoctor.expfmt",
    "kvdoctor.inputs",
    "kvdoctor.kvmath",
    "kvdoctor.kvmath.capacity",
    "kvdoctor.kvmath.catalog",
    "kvdoctor.kvmath.entries",
    "kvdoctor.kvmath.memory",
    "kvdoctor.kvmath.model",
    "kvdoctor.kvmath.result",
    "kvdoctor.kvmath.section",
    "kvdoctor.kvmath.sizes",
    "kvdoctor.promptshare",
    "kvdoctor.report",
    "kvdoctor.report.model",
    "kvdoctor.resources",
    "kvdoctor.rules.engine",
    "kvdoctor.rules.experiments",
    "kvdoctor.rules.formatting",
    "kvdoctor.rules.predicates",
    "kvdoctor.rules.schema",
    "kvdoctor.signals",
    "kvdoctor.signals.catalog",
    "kvdoctor.signals.fleet",
    "kvdoctor.signals.model",
    "kvdoctor.signals.window",
    "kvdoctor.thresholds",
    "kvdoctor.vocab",
)


def validation_sources() -> tuple[Path, ...]:
    """The source files of :data:`VALIDATION_MODULES` (all imported by the time this runs)."""
    return tuple(
        Path(getattr(sys.modules.get(name) or import_module(name), "__file__", None) or "")
        for name in VALIDATION_MODULES
    )


def _cache_key(paths: Sequence[Path], texts: Sequence[bytes], scope: Scope) -> str:
    """Validated playbooks are cached (loading and checking them was a fifth of a replay).

    The key covers every file's name and bytes, the source of every module whose code decides
    what a valid playbook is and what it becomes, and the pydantic version that pickles it.
    """
    import hashlib

    import pydantic

    h = hashlib.sha256(pydantic.VERSION.encode() + b"\0" + scope.encode())
    h.update(code_fingerprint(*validation_sources()).encode())
    for path, text in zip(paths, texts, strict=True):
        h.update(b"\0" + path.name.encode() + b"\0" + text)
    return h.hexdigest()[:32]


def _load_all(
    directory: Path, paths: Sequence[Path], texts: Sequence[bytes], scope: Scope
) -> list[Playbook]:
    playbooks: list[tuple[Playbook, str]] = []
    for path, raw in zip(paths, texts, strict=True):
        label = f"{directory.name}/{path.name}"
        playbooks.append((_load_one(path, raw, label, scope), label))
    if not playbooks:
        raise KvdoctorError(f"no playbooks (*.yaml) in {directory}")
    seen: dict[str, str] = {}
    for pb, label in playbooks:
        if pb.id in seen:
            raise KvdoctorError(f"{label}: id: playbook id {pb.id!r} already used by {seen[pb.id]}")
        seen[pb.id] = label
    order = {s: i for i, s in enumerate(SYMPTOMS)}
    return [pb for pb, _ in sorted(playbooks, key=lambda x: (order[x[0].symptom], x[0].id))]


def _load_one(path: Path, raw: bytes, label: str, scope: Scope) -> Playbook:
    import yaml

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KvdoctorError(f"{label}: cannot read: {exc}") from None
    try:
        # libyaml's loader when PyYAML has it: the pure-Python one was a quarter of a replay.
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise KvdoctorError(f"{label}: invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise KvdoctorError(f"{label}: a playbook is a YAML mapping")
    try:
        pb = Playbook.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"] if p not in ("condition", "group")) or "(top)"
        msg = err["msg"].removeprefix("Value error, ")
        raise KvdoctorError(f"{label}: {loc}: {msg}") from None
    if pb.scope != scope:
        raise KvdoctorError(
            f"{label}: scope: a {pb.scope} playbook where {scope} playbooks are read "
            f"(fleet playbooks live in playbooks/{FLEET_DIR}/)"
        )
    problems = check_playbook(pb)
    if problems:
        raise KvdoctorError(f"{label}: {problems[0]}")
    stem = path.stem
    if pb.id != stem:
        raise KvdoctorError(f"{label}: id: {pb.id!r} must match the file name {stem!r}")
    return pb


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
                # A candidate is a cause of this playbook (unshared-traffic is "no fault").
                if cand.cause not in causes:
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


# ----------------------------------------------------------------------------- conditions


# What the rules read: a replica's signals, or one set of fleet signals.
View = SignalView | FleetSignals


@dataclass
class _Context:
    view: View
    # The newest record's numbers (``measured:`` conditions read them).
    measured: JsonObject = field(default_factory=dict)


def _shown(view: View) -> Callable[[str], TemplateValue]:
    """What a placeholder prints: the value as the report states it where that differs from
    the number (an interpolated latency percentile reads as its bucket range), else the value."""
    return view.shown if isinstance(view, SignalView) else view.value


def _is_num(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _compare(left: object, op: str, right: object) -> bool | None:
    if left is None or right is None:
        return None
    if _is_num(left) and _is_num(right):
        a, b = float(left), float(right)  # type: ignore[arg-type]
        if not (math.isfinite(a) and math.isfinite(b)):
            return None
        return {
            ">": a > b,
            ">=": a >= b,
            "<": a < b,
            "<=": a <= b,
            "==": a == b,
            "!=": a != b,
        }[op]
    same_kind = (isinstance(left, bool) and isinstance(right, bool)) or (
        isinstance(left, str) and isinstance(right, str)
    )
    if same_kind and op in ("==", "!="):
        return (left == right) == (op == "==")
    return None  # a comparison that makes no sense for these values is unknown, not false


def _eval_condition(c: Condition, ctx: _Context) -> bool | None:
    if c.predicate:
        if not isinstance(ctx.view, SignalView):
            return None  # the loader keeps predicates out of fleet playbooks
        return PREDICATES[c.predicate].fn(ctx.view)
    assert c.op is not None  # guaranteed by the schema
    if c.series:
        assert c.for_fraction is not None
        threshold = c.value
        assert isinstance(threshold, int | float)
        share = ctx.view.fraction_of_window(c.series, c.op, float(threshold))
        return None if share is None else share >= c.for_fraction
    left: object
    if c.measured:
        left = ctx.measured.get(c.measured)
    else:
        assert c.signal is not None
        left = ctx.view.value(c.signal)
    right: object
    if c.value_from is not None:
        right = ctx.view.value(c.value_from)
        if c.scale != 1.0:
            right = float(right) * c.scale if _is_num(right) else None  # type: ignore[arg-type]
    else:
        right = c.value
    return _compare(left, c.op, right)


def _and(values: Iterable[bool | None]) -> bool | None:
    result: bool | None = True
    for v in values:
        if v is False:
            return False
        if v is None:
            result = None
    return result


def _or(values: Iterable[bool | None]) -> bool | None:
    result: bool | None = False
    for v in values:
        if v is True:
            return True
        if v is None:
            result = None
    return result


def eval_clause(clause: Clause, ctx: _Context) -> bool | None:
    if isinstance(clause, Condition):
        return _eval_condition(clause, ctx)
    parts: list[bool | None] = []
    if clause.all is not None:
        parts.append(_and([eval_clause(c, ctx) for c in clause.all]))
    if clause.any is not None:
        parts.append(_or([eval_clause(c, ctx) for c in clause.any]))
    if clause.none is not None:
        # An exclusion: "unless one of these is known to hold". Unknown does not exclude, so a
        # missing NVML or histogram does not silence the cause that remains the explanation.
        parts.append(not any(eval_clause(c, ctx) is True for c in clause.none))
    return _and(parts)


# ------------------------------------------------------------------------------ reproducers


def _cause_verdict(
    rec: ReproducerRecord, pb: Playbook, cause: Cause, sole_cause: bool, explicit_only: bool
) -> ReproducerVerdict | None:
    for key in (f"{pb.id}/{cause.id}", cause.id):
        if key in rec.cause_verdicts:
            return rec.cause_verdicts[key]
    # The overall verdict speaks for this cause when the cause fired (the experiment was run
    # for it), or when this reproducer tests no other cause.
    if explicit_only and not sole_cause:
        return None
    return rec.verdict


# -------------------------------------------------------------------------------- findings


@dataclass
class _Built:
    finding: Finding
    knobs: list[tuple[str, str] | None]  # (knob, direction) per remediation line
    rank: tuple[int, int, int, float, int, int, int]
    # The symptoms this finding is upstream of, and why (its cause's ``explains`` held).
    explains: tuple[tuple[str, ...], str] | None = None
    # An info cause whose symptom the window does not show: a note on expected behaviour
    # (report/1.2 ``notes``), never a finding.
    note: bool = False


def _rank(
    status: str, severity: str, confidence: float, pi: int, ci: int, upstream: bool = False
) -> tuple[int, int, int, float, int, int, int]:
    """docs/report.md: refuted last; then severity, then status, then confidence; then a cause
    upstream of another symptom the window shows before the findings that follow from it; then
    the playbooks' order."""
    refuted = 1 if status == "refuted" else 0
    return (
        refuted,
        SEVERITY_RANK[severity],
        STATUS_RANK[status],
        -confidence,
        0 if upstream else 1,
        pi,
        ci,
    )


def _evidence_value(v: TemplateValue) -> Scalar:
    if isinstance(v, float):
        return round(v, 4) if math.isfinite(v) else None
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {x}" for k, x in v.items())
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v)  # names (fleet signals): "a:8000, b:8000"
    return v  # type: ignore[return-value]


def _confidence(cause: Cause, ctx: _Context) -> float:
    c = cause.confidence.base
    if cause.confidence.value_from is not None:
        start = ctx.view.num(cause.confidence.value_from)
        c = c if start is None else start
    for boost in cause.confidence.boosts:
        if eval_clause(boost.when, ctx) is True:
            c += boost.add
    return min(1.0, max(0.0, c))


_Line = tuple[str, tuple[str, str] | None]  # rendered text, (knob, direction)


def _remediation(items: list[Remediation], ctx: _Context) -> list[_Line]:
    out: list[_Line] = []
    for item in items:
        # A planner item is planned from the bundle (kvdoctor/remediation), not rendered here.
        if item.text is None:
            continue
        if item.when is not None and eval_clause(item.when, ctx) is not True:
            continue
        if item.unless is not None and eval_clause(item.unless, ctx) is True:
            continue
        text = render_or(item.text, item.fallbacks, _shown(ctx.view))
        knob = (item.knob, item.direction) if item.knob and item.direction else None
        out.append((text, knob))
    return out


def remediation_line(item: Remediation, view: View, measured: JsonObject) -> str | None:
    """A text item of a cause's advice as a finding prints it, or None when its ``when`` /
    ``unless`` keep it out (planner items are planned in kvdoctor/remediation)."""
    lines = _remediation([item], _Context(view, measured))
    return lines[0][0] if lines else None


def _row_lookup(view: View, key: str) -> Callable[[str], TemplateValue]:
    def lookup(name: str) -> TemplateValue:
        v = view.value(name)
        return v.get(key) if isinstance(v, Mapping) else v

    return lookup


def _symptom(pb: Playbook, cause: Cause, view: View) -> Symptom:
    """The playbook's symptom, or the one ``symptom_from`` names (one the playbook lists)."""
    if cause.symptom_from is not None:
        named = view.value(cause.symptom_from)
        for s in pb.other_symptoms:
            if named == s:
                return s
    return pb.symptom


def _build(
    pb: Playbook,
    pi: int,
    ci: int,
    cause: Cause,
    view: View,
    rec: ReproducerRecord | None,
    verdict: ReproducerVerdict | None,
) -> _Built:
    ctx = _Context(view, rec.measured if rec is not None else {})
    status = {"confirmed": "confirmed", "refuted": "refuted"}.get(verdict or "", "suspected")
    confidence = _confidence(cause, ctx)
    if status == "confirmed":
        confidence = max(confidence, CONFIRMED_FLOOR)
    elif status == "refuted":
        confidence = min(confidence, REFUTED_CEILING)
    confidence = round(confidence, 2)
    severity = cause.severity
    if (
        severity == "info"
        and cause.warning_when is not None
        and eval_clause(cause.warning_when, ctx) is True
    ):
        severity = "warning"
    if cause.critical_when is not None and eval_clause(cause.critical_when, ctx) is True:
        severity = "critical"
    evidence: list[Evidence] = []
    for ev in cause.evidence:
        fallbacks = [ev.fallback] if ev.fallback is not None else []
        table = view.value(ev.signal)
        if ev.expand is None:
            evidence.append(
                Evidence(
                    signal=ev.label or ev.signal,
                    label=signal_label(ev.signal),
                    value=_evidence_value(table),
                    expected=render_or(ev.expected, fallbacks, _shown(view)),
                    # The row's own condition as the engine evaluates it (None: it states
                    # none, or a value it reads is unknown).
                    met=eval_clause(ev.holds, ctx) if ev.holds is not None else None,
                )
            )
            continue
        # One row per entry of a table; a placeholder naming a table reads this row's entry.
        for key, value in table.items() if isinstance(table, Mapping) else ():
            name = key if ev.expand == "key" else f"{ev.label or ev.signal}[{key}]"
            row = _row_lookup(view, key)
            evidence.append(
                Evidence(
                    signal=name,
                    label=key if ev.expand == "key" else f"{signal_label(ev.signal)}, {key}",
                    value=_evidence_value(value),
                    expected=render_or(ev.expected, fallbacks, row),
                )
            )
    # A ruled-out cause gets no advice: changing a knob for it would be wrong.
    lines = [] if status == "refuted" else _remediation(cause.remediation, ctx)
    outcome = None
    if rec is not None and verdict is not None:
        outcome = ReproducerOutcome(name=rec.name, verdict=verdict, measured=rec.measured)
    title = next(
        (t.text for t in cause.title_when if eval_clause(t.when, ctx) is True), cause.title
    )
    finding = Finding(
        id=pb.id,
        symptom=_symptom(pb, cause, view),
        cause=cause.id,
        status=status,
        severity=severity,
        confidence=confidence,
        title=render_or(title, [], _shown(view)),
        evidence=evidence,
        remediation=[text for text, _ in lines],
        reproducer=outcome,
    )
    explains = None
    if (
        status != "refuted"
        and cause.explains is not None
        and eval_clause(cause.explains.when, ctx) is True
    ):
        explains = (tuple(cause.explains.symptoms), cause.explains.why)
    rank = _rank(status, severity, confidence, pi, ci, upstream=explains is not None)
    return _Built(finding, [k for _, k in lines], rank, explains)


def _drop_conflicting_advice(built: list[_Built]) -> None:
    """Across findings, keep the higher-ranked direction of a knob (never raise and lower)."""
    chosen: dict[str, str] = {}
    for b in built:
        if b.finding.status == "refuted":
            continue
        keep_text: list[str] = []
        keep_knobs: list[tuple[str, str] | None] = []
        for text, knob in zip(b.finding.remediation, b.knobs, strict=True):
            if knob is not None and knob[1] in ("raise", "lower"):
                first = chosen.setdefault(knob[0], knob[1])
                if first != knob[1]:
                    continue
            keep_text.append(text)
            keep_knobs.append(knob)
        b.finding = b.finding.model_copy(update={"remediation": keep_text})
        b.knobs = keep_knobs


@dataclass(frozen=True)
class SymptomState:
    """What a playbook's detector concluded about its symptom, before any cause."""

    present: bool | None
    basis: str | None  # "slo" | "baseline" | "default" | "evidence"
    says: str | None  # the rendered basis sentence
    severity: Severity = "warning"


def detect_symptom(pb: Playbook, view: SignalView) -> SymptomState:
    """Judge ``pb``'s symptom from harm against its bases (see ``schema.Detector``)."""
    det = pb.detect
    if det is None:
        return SymptomState(None, None, None)
    ctx = _Context(view)
    severity: Severity = "warning" if det.severity == "info" else det.severity
    if det.critical_when is not None and eval_clause(det.critical_when, ctx) is True:
        severity = "critical"
    # Every objective the user gave is checked: one missed is harm; all met is no harm.
    slos = [b for b in det.bases if b.basis == "slo" and eval_clause(b.available, ctx) is True]
    results = [(b, eval_clause(b.when, ctx)) for b in slos]
    for b, verdict in results:
        if verdict is True:
            return SymptomState(True, "slo", render_or(b.says, [], _shown(view)), severity)
    if results and all(v is False for _, v in results):
        says = "; ".join(render_or(b.says, [], _shown(view)) for b, _ in results)
        return SymptomState(False, "slo", says, severity)
    any_available = False
    for b in det.bases:
        if b.basis == "slo" or eval_clause(b.available, ctx) is not True:
            continue
        any_available = True
        if eval_clause(b.when, ctx) is True:
            return SymptomState(True, b.basis, render_or(b.says, [], _shown(view)), severity)
    return SymptomState(False if any_available else None, None, None, severity)


# The signal whose unit a series condition's threshold has, and what the series counts.
_SERIES_SIGNAL = {"kv_usage": "kv_usage_max", "running": "running_max", "waiting": "waiting_max"}
_SERIES_LABEL = {
    "kv_usage": "KV cache usage",
    "running": "running requests",
    "waiting": "waiting requests",
}
# A comparison in words: what the condition needs, and what the value is when it fails.
_NEEDS = {">=": "at least", ">": "above", "<=": "at most", "<": "below", "==": "", "!=": "not"}
_FAILS = {">=": "below", ">": "at most", "<=": "above", "<": "at least", "==": "not", "!=": ""}
# Units that count things, with the noun for one of them.
_NOUNS = {
    "tokens": ("token", "tokens"),
    "requests": ("request", "requests"),
    "blocks": ("block", "blocks"),
}
_PERCENTILE = re.compile(r"_p\d\d$")


def _unit(name: str | None) -> str | None:
    if name is None:
        return None
    if name in SIGNALS:
        return SIGNALS[name].unit
    return DERIVED[name].unit if name in DERIVED else None


def _fmt(v: object, name: str | None = None) -> str:
    """A value as the report states it: fractions in percent, durations by size, counts with
    their noun in the right number ("1 token", "2,048 tokens")."""
    if isinstance(v, bool):
        return "on" if v else "off"
    unit = _unit(name)
    if isinstance(v, int | float) and unit == "fraction":
        return f"{float(v) * 100:.3g} %"
    if isinstance(v, int | float) and unit == "s":
        return duration(float(v))
    if isinstance(v, int | float) and unit == "bytes":
        return f"{float(v) / (1 << 30):.3g} GiB"
    if isinstance(v, int | float) and unit == "GiB":
        return f"{float(v):.3g} GiB"
    if isinstance(v, int | float):
        whole = float(v).is_integer()
        text = f"{int(v):,}" if whole else f"{float(v):.3g}"
        if unit in _NOUNS:
            one, many = _NOUNS[unit]
            return f"{text} {one if whole and abs(float(v)) == 1 else many}"
        return text
    return "unknown" if v is None else str(v)


def signal_label(name: str) -> str:
    """A signal or derived value in plain words, as the "why not" lines name it."""
    if name in SIGNALS:
        return catalog.label(name)
    return DERIVED_LABELS.get(name, name.replace("_", " "))


def _state(name: str, value: bool) -> str:
    states = catalog.STATES.get(name) or DERIVED_STATES.get(name)
    if states is not None:
        return states[0] if value else states[1]
    return f"{signal_label(name)}: {'yes' if value else 'no'}"


def _predicate_words(name: str, state: bool | None) -> str:
    doc = PREDICATES[name].doc.split(": ")[0].rstrip(".")
    doc = doc[0].lower() + doc[1:]
    if state is None:
        return f"not known whether {doc}"
    return doc if state else PREDICATE_FALSE.get(name, f"not so: {doc}")


def _right(clause: Condition, ctx: _Context) -> str:
    """The bound of a comparison in words: a value in the left side's unit, or a named signal
    with its value ("the KV pool's tokens, 3,072 tokens")."""
    if clause.value_from is None:
        return _fmt(clause.value, clause.signal)
    rv = ctx.view.value(clause.value_from)
    if clause.scale != 1.0 and _is_num(rv):
        rv = float(rv) * clause.scale  # type: ignore[arg-type]
    named = signal_label(clause.value_from)
    named = named if clause.scale == 1.0 else f"{clause.scale:g} × {named}"
    return f"{named}, {_fmt(rv, clause.value_from)}"


def _comparison_words(clause: Condition, ctx: _Context, holds: bool) -> str:
    """A signal comparison as a sentence: what the value is against what the condition needs
    (``holds`` False: it failed) or what it is (True: an exclusion that held)."""
    name = clause.signal or clause.measured or "?"
    op = clause.op or "=="
    left = ctx.view.value(name) if clause.signal else ctx.measured.get(name)
    label = signal_label(name) if clause.signal else f"the experiment's {name.replace('_', ' ')}"
    if left is None:
        states = catalog.STATES.get(name) or DERIVED_STATES.get(name)
        if states is not None:
            return f"not known whether {states[0]}"
        return f"{label}: not known from this capture"
    if isinstance(left, bool) and clause.signal:
        return _state(name, left)
    right = _right(clause, ctx)
    if clause.signal and _PERCENTILE.search(name) and _unit(name) == "s":
        # An interpolated percentile is not a measurement: say which side of the bound the
        # histogram puts it, never the point itself (the report states bucket ranges).
        side = _NEEDS[op] if holds else _FAILS[op]
        return f"{label} {side} {right} (by its histogram's buckets)".replace("  ", " ")
    zero = catalog.NONE.get(name) or DERIVED_NONE.get(name)
    if zero is not None and _is_num(left) and float(left) == 0 and not holds:  # type: ignore[arg-type]
        return zero
    if holds:
        needs = _NEEDS[op] or "exactly"
        return f"{label} {_fmt(left, name)} ({needs} {right})"
    needs = _NEEDS[op] or "exactly"
    if isinstance(left, str):
        return f"{label}: {left} (needs {needs} {right})"
    return f"{label} {_fmt(left, name)} (needs {needs} {right})"


def _explain(clause: Clause, ctx: _Context) -> str | None:
    """One line in plain words saying why ``clause`` does not hold (the first failing part),
    or None: labels for the signals, units on the numbers, no operators."""
    if isinstance(clause, Condition):
        if eval_clause(clause, ctx) is True:
            return None
        if clause.predicate:
            view = ctx.view
            state = PREDICATES[clause.predicate].fn(view) if isinstance(view, SignalView) else None
            return _predicate_words(clause.predicate, state)
        if clause.series:
            share = ctx.view.fraction_of_window(clause.series, clause.op or "", float(clause.value))  # type: ignore[arg-type]
            what = _SERIES_LABEL.get(clause.series, clause.series.replace("_", " "))
            if share is None:
                return f"no {what} series in the window"
            bound = _fmt(clause.value, _SERIES_SIGNAL.get(clause.series))
            return (
                f"{what} {_NEEDS[clause.op or '==']} {bound} in {share * 100:.0f} % of the window"
                f" (needs {clause.for_fraction * 100:.0f} %)"  # type: ignore[operator]
            ).replace("  ", " ")
        return _comparison_words(clause, ctx, holds=False)
    if eval_clause(clause, ctx) is True:
        return None
    for sub in clause.all or []:
        why = _explain(sub, ctx)
        if why is not None:
            return why
    if clause.any is not None and eval_clause(Group(any=clause.any), ctx) is not True:
        reasons = [r for r in (_explain(sub, ctx) for sub in clause.any) if r]
        return " and ".join(reasons[:2]) if reasons else None
    for sub in clause.none or []:
        if eval_clause(sub, ctx) is True:
            return f"ruled out because {_describe(sub, ctx)}"
    return None


def _describe(clause: Clause, ctx: _Context) -> str:
    """What a clause that holds says, in words (an exclusion that ruled a cause out)."""
    if isinstance(clause, Condition):
        if clause.predicate:
            return _predicate_words(clause.predicate, True)
        if clause.series:
            what = _SERIES_LABEL.get(clause.series, clause.series.replace("_", " "))
            bound = _fmt(clause.value, _SERIES_SIGNAL.get(clause.series))
            return f"{what} {_NEEDS[clause.op or '==']} {bound} for much of the window".replace(
                "  ", " "
            )
        return _comparison_words(clause, ctx, holds=True)
    # Only the parts that hold say why the group held.
    held = [c for c in (clause.all or clause.any or []) if eval_clause(c, ctx) is True]
    return " and ".join(_describe(c, ctx) for c in held[:2])


def _unidentified(
    pb: Playbook, pi: int, state: SymptomState, view: SignalView, why_not: list[str]
) -> _Built:
    assert pb.detect is not None

    def doc(name: str) -> str:
        d = SIGNALS[name].doc if name in SIGNALS else DERIVED[name].doc
        return f"inspect first: {d[0].lower()}{d[1:]}" if d else "inspect first"

    evidence = [
        Evidence(
            signal=name,
            label=signal_label(name),
            value=_evidence_value(view.value(name)),
            expected=doc(name),
        )
        for name in pb.inspect_first[:6]
    ]
    finding = Finding(
        id=pb.id,
        symptom=pb.symptom,
        cause="unidentified",
        status="suspected",
        severity=state.severity,
        confidence=0.5,
        title=render_or(pb.detect.unidentified.title, [], _shown(view)),
        evidence=evidence,
        remediation=[render_or(t, [], _shown(view)) for t in pb.detect.unidentified.collect_next],
        basis=state.says,
        why_not=why_not,
    )
    rank = _rank("suspected", state.severity, 0.5, pi, len(pb.causes))
    return _Built(finding, [None] * len(finding.remediation), rank)


@dataclass(frozen=True)
class Triage:
    """The engine's answer for one server: its findings and its notes, each ranked.

    ``findings[0]`` is the primary diagnosis. A note is an info cause whose symptom the window
    does not show (e.g. 0 % prefix hits on prompts inside one block, where no block can be
    cached): true and worth a line, but no harm was measured, so it is not a finding.
    """

    findings: list[Finding]
    notes: list[Finding]
    # Symptoms the evidence cannot decide (report/1.3): the verdict is inconclusive unless a
    # finding fires.
    undecided: list[OpenQuestion] = field(default_factory=list)


def triage(
    signals: SignalSet,
    reproducers: Sequence[ReproducerRecord] | None = None,
    playbooks: list[Playbook] | None = None,
) -> Triage:
    """:func:`evaluate`'s ranked list, split into findings and notes (order kept)."""
    pbs = load_playbooks() if playbooks is None else playbooks
    built = _evaluate(signals, reproducers, pbs)
    findings = [b.finding for b in built if not b.note]
    return Triage(
        findings=findings,
        notes=[b.finding for b in built if b.note],
        undecided=open_questions(signals, pbs, findings),
    )


def open_questions(
    signals: SignalSet, playbooks: list[Playbook], findings: Sequence[Finding]
) -> list[OpenQuestion]:
    """The symptoms the evidence cannot decide, one per playbook (its first ``undecided`` that
    holds), for symptoms not detected and not explained by a live finding of their own."""
    view = SignalView(signals)
    for pb in playbooks:
        view.symptoms[pb.symptom] = detect_symptom(pb, view).present
    out: list[OpenQuestion] = []
    for pb in playbooks:
        if pb.detect is None or not pb.detect.undecided:
            continue
        if view.symptoms.get(pb.symptom) is True:
            continue
        if any(f.id == pb.id and f.status != "refuted" for f in findings):
            continue
        ctx = _Context(view)
        refuted = {(f.id, f.cause) for f in findings if f.status == "refuted"}
        for q in pb.detect.undecided:
            if eval_clause(q.when, ctx) is not True:
                continue
            out.append(
                OpenQuestion(
                    symptom=pb.symptom,
                    title=render_or(q.title, [], _shown(view)),
                    seen=render_or(q.seen, [], _shown(view)),
                    evidence=[
                        Evidence(
                            signal=name,
                            label=signal_label(name),
                            value=_evidence_value(view.value(name)),
                            expected="",
                        )
                        for name in pb.inspect_first
                        if view.value(name) is not None
                    ],
                    # A candidate an experiment ruled out is no longer in the running.
                    differential=[
                        DifferentialEntry(
                            cause=c.cause, confirm=render_or(c.confirm, [], _shown(view))
                        )
                        for c in q.differential
                        if (pb.id, c.cause) not in refuted
                    ],
                    decide_with=render_or(q.decide_with, [], _shown(view)),
                )
            )
            break
    return out


def evaluate(
    signals: SignalSet,
    reproducers: Sequence[ReproducerRecord] | None = None,
    playbooks: list[Playbook] | None = None,
) -> list[Finding]:
    """Ranked findings and notes together (see :func:`triage` for the two apart)."""
    return [b.finding for b in _evaluate(signals, reproducers, playbooks)]


def _evaluate(
    signals: SignalSet,
    reproducers: Sequence[ReproducerRecord] | None,
    playbooks: list[Playbook] | None,
) -> list[_Built]:
    """Ranked findings: findings[0] is the primary diagnosis, refuted findings come last.

    Symptoms first: each playbook's detector judges its symptom from harm (SLO, the server's
    own baseline, a documented default) before any cause. A cause that fired is "suspected"
    until its reproducer's newest record confirms or refutes it (``cause_verdicts[cause]``
    overriding the record's overall verdict). A cause that did not fire but that a reproducer
    explicitly refuted is kept as a refuted finding, so the report can say what was ruled out.
    A present symptom that no live cause explains becomes an ``unidentified`` finding; a
    symptom an SLO shows to be met cannot raise a cause above ``info``. Every live finding
    says why it beat the other causes of its symptom (``why_not``).
    """
    pbs = load_playbooks() if playbooks is None else playbooks
    view = SignalView(signals)
    states: dict[str, SymptomState] = {}
    for pb in pbs:
        states[pb.id] = detect_symptom(pb, view)
        view.symptoms[pb.symptom] = states[pb.id].present
    records = newest_records(reproducers or [])
    testers: dict[str, int] = {}
    for pb in pbs:
        for cause in pb.causes:
            if cause.reproducer is not None:
                testers[cause.reproducer] = testers.get(cause.reproducer, 0) + 1
    built: list[_Built] = []
    # (playbook id, cause id) -> why it is not the explanation, for the look-alike lines.
    ruled_out: dict[tuple[str, str], str] = {}
    for pi, pb in enumerate(pbs):
        state = states[pb.id]
        for ci, cause in enumerate(pb.causes):
            fired = eval_clause(cause.when, _Context(view)) is True
            rec = records.get(cause.reproducer) if cause.reproducer is not None else None
            sole = cause.reproducer is not None and testers[cause.reproducer] == 1
            verdict = None
            if rec is not None:
                verdict = _cause_verdict(rec, pb, cause, sole, explicit_only=not fired)
            if not fired and verdict != "refuted":
                why = _explain(cause.when, _Context(view)) or "its conditions do not hold"
                ruled_out[(pb.id, cause.id)] = why
                continue
            b = _build(pb, pi, ci, cause, view, rec, verdict)
            if b.finding.status == "refuted":
                ruled_out[(pb.id, cause.id)] = f"the {cause.reproducer} experiment refuted it"
            update: dict[str, object] = {}
            if state.present is True:
                update["basis"] = state.says
            elif state.basis == "slo" and state.present is False and b.finding.status != "refuted":
                # The user's objective is met: the mechanism is real but not what hurts.
                update["severity"] = "info"
                update["basis"] = state.says
            if update:
                b.finding = b.finding.model_copy(update=update)
                b.rank = _rank(
                    b.finding.status,
                    b.finding.severity,
                    b.finding.confidence,
                    pi,
                    ci,
                    upstream=b.explains is not None,
                )
            # Info with no harm measured for its symptom (absent, met SLO, or not judgeable):
            # a note. Info beside a present symptom stays a finding that explains it.
            b.note = (
                b.finding.severity == "info"
                and b.finding.status != "refuted"
                and state.present is not True
            )
            built.append(b)
    for pi, pb in enumerate(pbs):
        state = states[pb.id]
        if state.present is not True:
            continue
        live = [
            b
            for b in built
            if b.finding.id == pb.id
            and b.finding.status != "refuted"
            and b.finding.severity != "info"
        ]
        if not live:
            lines = [
                f"not {c.id}: {ruled_out[(pb.id, c.id)]}"
                for c in pb.causes
                if (pb.id, c.id) in ruled_out
            ]
            built.append(_unidentified(pb, pi, state, view, lines))
    _defer_to_upstream(built)
    built.sort(key=lambda b: b.rank)
    _drop_conflicting_advice(built)
    _add_why_not(built, pbs, ruled_out)
    return built


def _defer_to_upstream(built: list[_Built]) -> None:
    """A finding whose symptom an identified cause explains is less likely the explanation
    itself: its confidence is held just under that cause's, of the same severity and status
    (slow first tokens because every prompt is prefilled again come after the sub-block
    prefix, drift or eviction that makes them prefill again). Ranking stays severity, status,
    confidence (docs/report.md)."""
    for up in built:
        if up.explains is None or up.finding.status == "refuted" or up.note:
            continue
        symptoms = set(up.explains[0])
        for down in built:
            f = down.finding
            if (
                down is up
                or f.status == "refuted"
                or f.symptom not in symptoms
                or f.severity != up.finding.severity
                or f.status != up.finding.status
                or f.confidence < up.finding.confidence
            ):
                continue
            held = round(max(up.finding.confidence - 0.01, 0.0), 2)
            down.finding = f.model_copy(update={"confidence": held})
            down.rank = (*down.rank[:3], -held, *down.rank[4:])


def evaluate_fleet(views: Sequence[FleetSignals], playbooks: list[Playbook]) -> list[Finding]:
    """The findings of the fleet playbooks over sets of fleet signals, in the sets' order.

    Each set is computed for one comparison (the fleet's load, one replica's settings, the
    targets' health); a playbook whose signals a set lacks finds them unknown and does not
    fire there. Fleet findings have no detector and no reproducer: a cause that fires is a
    suspected finding, ranked with the replicas' findings by the caller.
    """
    findings: list[Finding] = []
    for view in views:
        for pi, pb in enumerate(playbooks):
            if pb.scope != "fleet":
                raise KvdoctorError(f"playbook {pb.id!r} is not a fleet playbook")
            for ci, cause in enumerate(pb.causes):
                if eval_clause(cause.when, _Context(view)) is True:
                    findings.append(_build(pb, pi, ci, cause, view, None, None).finding)
    return findings


def _add_why_not(
    built: list[_Built], pbs: list[Playbook], ruled_out: dict[tuple[str, str], str]
) -> None:
    """One line per look-alike (the other causes of the same symptom) a live finding beat."""
    by_id = {pb.id: pb for pb in pbs}
    live_rank: dict[tuple[str, str], int] = {}
    for i, b in enumerate(built):
        if b.finding.status != "refuted":
            live_rank.setdefault((b.finding.id, b.finding.cause), i)
    for i, b in enumerate(built):
        f = b.finding
        if f.status == "refuted" or f.cause == "unidentified":
            continue
        pb = by_id.get(f.id)
        if pb is None:
            continue
        lines: list[str] = []
        for other in pb.causes:
            if other.id == f.cause:
                continue
            key = (pb.id, other.id)
            if key in live_rank and live_rank[key] > i:
                o = built[live_rank[key]].finding
                lines.append(
                    f"{other.id} also fits but ranks lower ({o.severity}, {o.status}, "
                    f"confidence {o.confidence:.2f})"
                )
            elif key in ruled_out:
                lines.append(f"not {other.id}: {ruled_out[key]}")
        if b.explains is not None:
            symptoms, why = b.explains
            follow = [
                f"{o.finding.symptom}/{o.finding.cause}"
                for o in built[i + 1 :]
                if o.finding.status != "refuted"
                and o.finding.severity != "info"
                and o.finding.symptom in symptoms
            ]
            if follow:
                verb = "follows" if len(follow) == 1 else "follow"
                lines.append(f"ranked before {' and '.join(follow)}, which {verb} from it: {why}")
        b.finding = b.finding.model_copy(update={"why_not": lines})


# ---------------------------------------------------------------------------------- verdict


@dataclass(frozen=True)
class _HealthRow:
    """One number behind a healthy verdict: what healthy looks like, as a condition and in
    words, and the words for a value that does not meet it (the row never says "never filled"
    beside a pool that filled: a healthy verdict only means no symptom showed harm)."""

    signal: str
    required: bool  # must be known to call the server healthy
    holds: Condition | None
    healthy: str
    otherwise: str = ""


# The numbers that must be known to call the locker healthy, and what healthy looks like.
_HEALTH: tuple[_HealthRow, ...] = (
    _HealthRow(
        "kv_usage_max",
        True,
        Condition(signal="kv_usage_max", op="<", value=POOL_FULL),
        f"below {POOL_FULL:.2f}: the KV pool never filled",
        f"≥ {POOL_FULL:.2f}: the KV pool filled at its peak, and no symptom shows harm from it",
    ),
    _HealthRow(
        "preemptions_window",
        True,
        Condition(signal="preemptions_window", op="==", value=0),
        "0: no sequence lost its KV blocks",
        "> 0: some sequences lost their KV blocks, fewer than the preemption check counts as harm",
    ),
    _HealthRow(
        "waiting_max",
        True,
        Condition(signal="waiting_max", op="==", value=0),
        "0: requests are admitted at once",
        "≥ 1: requests waited, and the first-token check did not count the wait as harm",
    ),
    _HealthRow(
        "prefix_hit_rate_window", False, None, "what the workload shares (window, not lifetime)"
    ),
    _HealthRow("ttft_p95", False, None, "seconds, not tens of seconds"),
    _HealthRow("itl_p95", False, None, "steady decode speed"),
    _HealthRow(
        "gpu_memory_used_fraction",
        False,
        Condition(signal="gpu_memory_used_fraction", op="<", value=CARD_FULL),
        f"below {CARD_FULL:.2f}: the card has room",
        f"≥ {CARD_FULL:.2f}: the card is at its limit, and no symptom shows harm from it",
    ),
)


def healthy_evidence(signals: SignalSet) -> list[Evidence]:
    """The numbers that show the locker is fine (those the window has), for the report: each
    row's words are those its own number meets (``met`` as the engine evaluated it)."""
    view = SignalView(signals)
    ctx = _Context(view)
    out: list[Evidence] = []
    for row in _HEALTH:
        v = view.value(row.signal)
        if v is None:
            continue
        met = eval_clause(row.holds, ctx) if row.holds is not None else None
        expected = row.otherwise if met is False else row.healthy
        # The words chosen are the condition the number meets: the row is met as worded.
        met = None if met is None else True
        out.append(
            Evidence(
                signal=row.signal,
                label=signal_label(row.signal),
                value=_evidence_value(v),
                expected=expected,
                met=met,
            )
        )
    return out


def overall_verdict(
    findings: list[Finding], signals: SignalSet, undecided: Sequence[OpenQuestion] = ()
) -> Verdict:
    """critical / degraded from active findings; inconclusive when a symptom the operator would
    care about cannot be decided; healthy only when the health numbers are known."""
    active = [f for f in findings if f.status != "refuted"]
    if any(f.severity == "critical" for f in active):
        return "critical"
    if any(f.severity == "warning" for f in active):
        return "degraded"
    if undecided:
        return "inconclusive"
    view = SignalView(signals)
    scrapes = view.num("scrapes_ok")
    if scrapes is None or scrapes <= 0:
        return "unknown"
    if any(view.value(row.signal) is None for row in _HEALTH if row.required):
        return "unknown"
    if idle_window({name: signals.get(name) for name in signals.values}):
        # Nothing ran, waited, finished or moved a token: the window holds no evidence about
        # the KV cache either way, and "healthy" would be a claim it cannot back (external
        # case: a capture taken after the test had ended, on a server whose cache missed).
        return "unknown"
    return "healthy"
