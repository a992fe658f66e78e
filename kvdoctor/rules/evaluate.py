"""The rule engine: playbooks + signals (+ reproducer records) -> ranked findings.

Pure functions of their inputs: the same signals and records always give the same findings in
the same order. Conditions use three-valued logic (:mod:`kvdoctor.rules.conditions`: a
missing signal makes a test unknown, and a cause fires only when its conditions are known to
hold).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kvdoctor.bundle.model import JsonObject, ReproducerRecord
from kvdoctor.bundle.records import newest_records
from kvdoctor.errors import KvdoctorError
from kvdoctor.report.model import (
    DifferentialEntry,
    Evidence,
    Finding,
    OpenQuestion,
    ReproducerOutcome,
    Severity,
    Symptom,
)
from kvdoctor.rules.conditions import Context, View, eval_clause
from kvdoctor.rules.explain import evidence_value, explain, signal_label
from kvdoctor.rules.formatting import TemplateValue, render_or
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.predicates import DERIVED, SignalView
from kvdoctor.rules.runtime import (
    Candidate,
    Cause,
    DetectBasis,
    Explains,
    Playbook,
    Remediation,
)
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.fleet import FleetSignals
from kvdoctor.signals.model import SignalSet
from kvdoctor.vocab import SEVERITY_RANK, STATUS_RANK, UNIDENTIFIED, ReproducerVerdict

# A reproducer's verdict outweighs what the window suggested.
CONFIRMED_FLOOR = 0.9
REFUTED_CEILING = 0.1


def _shown(view: View) -> Callable[[str], TemplateValue]:
    """What a placeholder prints: the value as the report states it where that differs from
    the number (an interpolated latency percentile reads as its bucket range), else the value."""
    return view.shown if isinstance(view, SignalView) else view.value


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
    # What this finding is upstream of (its ``explains``, when its condition held).
    explains: Explains | None = None
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


def _confidence(cause: Cause, ctx: Context) -> float:
    c = cause.confidence.base
    if cause.confidence.value_from is not None:
        start = ctx.view.num(cause.confidence.value_from)
        c = c if start is None else start
    for boost in cause.confidence.boosts:
        if eval_clause(boost.when, ctx) is True:
            c += boost.add
    return min(1.0, max(0.0, c))


_Line = tuple[str, tuple[str, str] | None]  # rendered text, (knob, direction)


def _remediation(items: list[Remediation], ctx: Context) -> list[_Line]:
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
    lines = _remediation([item], Context(view, measured))
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
    ctx = Context(view, rec.measured if rec is not None else {})
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
                    value=evidence_value(table),
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
                    value=evidence_value(value),
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
    explains = _held(cause.explains, ctx) if status != "refuted" else None
    rank = _rank(status, severity, confidence, pi, ci, upstream=explains is not None)
    return _Built(finding, [k for _, k in lines], rank, explains)


def _held(explains: Explains | None, ctx: Context) -> Explains | None:
    """``explains`` where its condition holds in this window, else None."""
    return explains if explains is not None and eval_clause(explains.when, ctx) is True else None


def _ruled_out_line(cause: str, why: str) -> str:
    """A look-alike line: "not <cause>: <why>", or "not <a>, <b>: <why>" for look-alikes ruled
    out for the same reason (``_ruled_out_causes`` reads it back)."""
    return f"not {cause}: {why}"


def _ruled_out_causes(line: str) -> tuple[list[str], str] | None:
    """The cause ids and the reason of a look-alike line; None for any other line."""
    if not line.startswith("not ") or ": " not in line:
        return None
    head, why = line[4:].split(": ", 1)
    return head.split(", "), why


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


class SymptomState(NamedTuple):
    """What a playbook's detector concluded about its symptom, before any cause."""

    present: bool | None
    basis: str | None  # "slo" | "baseline" | "default" | "evidence"
    says: str | None  # the rendered basis sentence
    severity: Severity = "warning"
    # What ``symptom_<name>`` reads: ``present``, unless only a harm-only basis found it
    # (``DetectBasis.sets_signal``).
    signal: bool | None = None


def detect_symptom(pb: Playbook, view: SignalView) -> SymptomState:
    """Judge ``pb``'s symptom from harm against its bases (see ``schema.Detector``)."""
    det = pb.detect
    if det is None:
        return SymptomState(None, None, None)
    ctx = Context(view)
    severity: Severity = "warning" if det.severity == "info" else det.severity
    if det.critical_when is not None and eval_clause(det.critical_when, ctx) is True:
        severity = "critical"
    # Every objective the user gave is checked: one missed is harm; all met is no harm.
    slos = [b for b in det.bases if b.basis == "slo" and eval_clause(b.available, ctx) is True]
    results = [(b, eval_clause(b.when, ctx)) for b in slos]
    for b, verdict in results:
        if verdict is True:
            says = render_or(b.says, [], _shown(view))
            return SymptomState(True, "slo", says, severity, signal=True)
    if results and all(v is False for _, v in results):
        says = "; ".join(render_or(b.says, [], _shown(view)) for b, _ in results)
        return SymptomState(False, "slo", says, severity, signal=False)
    any_available = signal_available = False
    harm_only: DetectBasis | None = None
    for b in det.bases:
        if b.basis == "slo" or eval_clause(b.available, ctx) is not True:
            continue
        any_available = True
        signal_available = signal_available or b.sets_signal
        if eval_clause(b.when, ctx) is True:
            if not b.sets_signal:
                harm_only = harm_only or b
                continue
            says = render_or(b.says, [], _shown(view))
            return SymptomState(True, b.basis, says, severity, signal=True)
    if harm_only is not None:
        says = render_or(harm_only.says, [], _shown(view))
        signal = False if signal_available else None
        return SymptomState(True, harm_only.basis, says, severity, signal=signal)
    absent = False if any_available else None
    return SymptomState(absent, None, None, severity, signal=absent)


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
            value=evidence_value(view.value(name)),
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
        remediation=[
            render_or(t if isinstance(t, str) else t.text, [], _shown(view))
            for t in pb.detect.unidentified.collect_next
            if isinstance(t, str) or eval_clause(t.when, Context(view)) is True
        ],
        basis=state.says,
        why_not=why_not,
    )
    explains = _held(pb.detect.unidentified.explains, Context(view))
    upstream = explains is not None
    rank = _rank("suspected", state.severity, 0.5, pi, len(pb.causes), upstream=upstream)
    return _Built(finding, [None] * len(finding.remediation), rank, explains)


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
    # One view for both: the symptoms its detectors judged are what the open questions read.
    view = SignalView(signals)
    built = _evaluate(signals, reproducers, pbs, view)
    findings = [b.finding for b in built if not b.note]
    undecided = open_questions(signals, pbs, findings, view)
    return Triage(
        findings=_open_candidates_not_ruled_out(findings, undecided),
        notes=_open_candidates_not_ruled_out([b.finding for b in built if b.note], undecided),
        undecided=undecided,
    )


def _open_candidates_not_ruled_out(
    findings: list[Finding], undecided: Sequence[OpenQuestion]
) -> list[Finding]:
    """A finding or note whose symptom has an open question does not say "not X" of a
    candidate the question keeps open: X is undecided, not ruled out (the differential says
    what would confirm it)."""
    out: list[Finding] = []
    for f in findings:
        q = next((q for q in undecided if q.symptom == f.symptom), None)
        if q is not None and f.why_not:
            open_ = {d.cause for d in q.differential}
            kept: list[str] = []
            for ln in f.why_not:
                parsed = _ruled_out_causes(ln)
                if parsed is None:
                    kept.append(ln)
                    continue
                closed = [c for c in parsed[0] if c not in open_]
                if closed:
                    kept.append(_ruled_out_line(", ".join(closed), parsed[1]))
            f = f.model_copy(update={"why_not": kept})
        out.append(f)
    return out


def open_questions(
    signals: SignalSet,
    playbooks: list[Playbook],
    findings: Sequence[Finding],
    view: SignalView | None = None,
) -> list[OpenQuestion]:
    """The symptoms the evidence cannot decide, one per playbook (its first ``undecided`` that
    holds), for symptoms not explained by a live finding of their own: not detected, or
    detected with no cause identified (the differential then says what the unidentified
    finding could be, and what decides it). ``view``: the one :func:`_evaluate` judged the
    symptoms on, so they are not judged twice; without it they are judged here."""
    if view is None:
        view = SignalView(signals)
        for pb in playbooks:
            view.symptoms[pb.symptom] = detect_symptom(pb, view).signal
    out: list[OpenQuestion] = []
    for pb in playbooks:
        if pb.detect is None or not pb.detect.undecided:
            continue
        own = [f for f in findings if f.id == pb.id and f.status != "refuted"]
        # An info cause beside the symptom (expected behaviour) does not explain it away.
        if any(f.cause != "unidentified" and f.severity != "info" for f in own):
            continue
        if view.symptoms.get(pb.symptom) is True and not own:
            continue
        ctx = Context(view)
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
                            value=evidence_value(view.value(name)),
                            expected="",
                        )
                        for name in pb.inspect_first
                        if view.value(name) is not None
                    ],
                    differential=_differential(pb, q.differential, ctx, view, refuted),
                    decide_with=render_or(q.decide_with, [], _shown(view)),
                )
            )
            break
    # The symptom the operator was called for (--complaint) leads: its question is the one
    # the report must answer first (external case zxd-dsv4-a2: called for prefix misses, the
    # report led with an undecided token speed because slow-itl's playbook comes first).
    complaint = view.value("complaint")
    return sorted(out, key=lambda q: q.symptom != complaint)


def _differential(
    pb: Playbook,
    candidates: Sequence[Candidate],
    ctx: Context,
    view: SignalView,
    refuted: set[tuple[str, str]],
) -> list[DifferentialEntry]:
    """The candidates still in the running, one line per cause: a cause an experiment ruled
    out is gone; of a cause's variants (one per shape of the evidence) the first whose
    condition holds speaks for it, else the first the evidence cannot judge (unknown
    signals would otherwise let every variant through, and list the cause three times)."""
    chosen: dict[str, tuple[bool, Candidate]] = {}
    for c in candidates:
        if (pb.id, c.cause) in refuted:
            continue
        held = True if c.when is None else eval_clause(c.when, ctx)
        if held is False:
            continue
        prev = chosen.get(c.cause)
        if prev is None or (held is True and not prev[0]):
            chosen[c.cause] = (held is True, c)
    return [
        DifferentialEntry(cause=c.cause, confirm=render_or(c.confirm, [], _shown(view)))
        for _, c in chosen.values()
    ]


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
    view: SignalView | None = None,
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
    view = SignalView(signals) if view is None else view
    states: dict[str, SymptomState] = {}
    for pb in pbs:
        states[pb.id] = detect_symptom(pb, view)
        view.symptoms[pb.symptom] = states[pb.id].signal
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
            fired = eval_clause(cause.when, Context(view)) is True
            rec = records.get(cause.reproducer) if cause.reproducer is not None else None
            sole = cause.reproducer is not None and testers[cause.reproducer] == 1
            verdict = None
            if rec is not None:
                verdict = _cause_verdict(rec, pb, cause, sole, explicit_only=not fired)
            if not fired and verdict != "refuted":
                if cause.applies is not None and eval_clause(cause.applies, Context(view)) is False:
                    continue  # the server cannot have this mechanism: no look-alike
                why = explain(cause.when, Context(view)) or "its conditions do not hold"
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
                _ruled_out_line(c.id, ruled_out[(pb.id, c.id)])
                for c in pb.causes
                if (pb.id, c.id) in ruled_out
            ]
            built.append(_unidentified(pb, pi, state, view, lines))
    _defer_to_upstream(built)
    complaint = view.value("complaint")
    built.sort(key=lambda b: _ranked_for(b, complaint))
    _drop_conflicting_advice(built)
    _add_why_not(built, pbs, ruled_out)
    return built


def _ranked_for(b: _Built, complaint: object) -> tuple[object, ...]:
    """The rank, with the symptom users report (``--complaint``) first among findings of the
    same severity, status and confidence (the ranking contract decides before it): a finding
    of that symptom, or one upstream of it, answers what the operator was called for."""
    if not isinstance(complaint, str):
        return b.rank
    f = b.finding
    answers = f.symptom == complaint or (
        b.explains is not None and complaint in b.explains.symptoms
    )
    return (*b.rank[:4], 0 if answers else 1, *b.rank[4:])


def _defer_to_upstream(built: list[_Built]) -> None:
    """A finding whose symptom an identified cause explains is less likely the explanation
    itself: its confidence is held just under that cause's, of the same severity and status
    (slow first tokens because every prompt is prefilled again come after the sub-block
    prefix, drift or eviction that makes them prefill again). Ranking stays severity, status,
    confidence (docs/report.md)."""
    for up in built:
        if up.explains is None or up.finding.status == "refuted" or up.note:
            continue
        symptoms = set(up.explains.symptoms)
        causes = set(up.explains.causes)
        for down in built:
            f = down.finding
            if (
                down is up
                or f.status == "refuted"
                or f.symptom not in symptoms
                or (causes and f.cause not in causes)
            ):
                continue
            # A harm with no cause of its own (``unidentified``) that a confirmed cause
            # explains is that cause's harm: the cause is as severe as what it does (streams
            # frozen two seconds at the 99th percentile because every drifted prompt is
            # prefilled whole read "slow tokens, cause not identified, critical" above the
            # drift the prefix probe confirmed; generator seed 9960). Only a confirmed one: a
            # suspected side note (a hybrid model's alignment beside requests that never
            # reached the engine, external case zf-mm) does not take a harm it may not cause.
            if (
                f.cause == UNIDENTIFIED
                and up.finding.status == "confirmed"
                and up.finding.severity != "info"
                and SEVERITY_RANK[f.severity] < SEVERITY_RANK[up.finding.severity]
            ):
                up.finding = up.finding.model_copy(update={"severity": f.severity})
                up.rank = (*up.rank[:1], SEVERITY_RANK[f.severity], *up.rank[2:])
            if (
                f.severity != up.finding.severity
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
                if eval_clause(cause.when, Context(view)) is True:
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
        # Look-alikes ruled out for the same reason share one line, at the first one's place.
        same_reason: dict[str, list[str]] = {}
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
                why = ruled_out[key]
                if why not in same_reason:
                    same_reason[why] = []
                    lines.append(why)  # a placeholder, replaced below
                same_reason[why].append(other.id)
        lines = [
            _ruled_out_line(", ".join(same_reason[ln]), ln) if ln in same_reason else ln
            for ln in lines
        ]
        if b.explains is not None:
            symptoms, why, causes = b.explains.symptoms, b.explains.why, b.explains.causes
            follow = [
                f"{o.finding.symptom}/{o.finding.cause}"
                for o in built[i + 1 :]
                if o.finding.status != "refuted"
                and o.finding.severity != "info"
                and o.finding.symptom in symptoms
                and (not causes or o.finding.cause in causes)
            ]
            if follow:
                verb = "follows" if len(follow) == 1 else "follow"
                lines.append(f"ranked before {' and '.join(follow)}, which {verb} from it: {why}")
        b.finding = b.finding.model_copy(update={"why_not": lines})
