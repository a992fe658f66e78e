"""Scoring of randomized draws against kvdoctor's reports (pure; used by bench_accuracy).

A draw's truth is ``(symptom, cause)`` by construction, or nothing for the healthy classes.
kvdoctor's prediction is the primary finding of its report: the first finding that is not
refuted (findings are ranked by the report contract), or "none" when every finding is refuted
or there is none. Notes (report/1.2: info causes with no harm measured) are not findings: a
note class (an info cause by construction) is named by the report's first note when nothing
fires, and a true note on a healthy server is counted apart, never as a finding. Draws whose
control failed (the scenario did not produce its symptom) or whose server did not start are
counted apart and never scored against kvdoctor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NONE = "none"
# The predicted cause of an inconclusive report on an undecidable draw.
UNDECIDED = "undecided"


@dataclass(frozen=True)
class Outcome:
    """One draw, scored for one report (offline replay or live)."""

    name: str
    klass: str
    truth_symptom: str | None
    truth_cause: str | None
    # True: the control held; False: it failed; None: the draw never ran (start failure).
    control_ok: bool | None
    control_why: str
    predicted_symptom: str
    predicted_cause: str
    predicted_status: str | None
    verdict: str | None
    # Whether a reproducer exists for the true cause (then "confirmed" is expected live).
    has_experiment: bool
    # The true cause is an expected-behaviour note (an info cause: prompts inside one block):
    # named, it must be, but the right verdict is healthy, as the report contract says.
    note: bool = False
    # Other (symptom, cause) pairs that are right for this draw: the same mechanism's other
    # face, measured by the control (kvaccuracy.randomized.OTHER_FACE).
    also_right: tuple[tuple[str, str], ...] = ()
    # The report's first note as "symptom/cause", or None (report/1.2).
    first_note: str | None = None
    # An undecidable draw scored offline (kvaccuracy.randomized.UNDECIDABLE_OFFLINE) whose
    # report said "inconclusive": the undecided symptom and the causes its differential lists.
    undecided_symptom: str | None = None
    undecided_listed: tuple[str, ...] = ()

    @property
    def undecided_right(self) -> bool:
        """Undecided, about the true symptom, with the truth in the differential ("unshared-traffic"
        for a healthy draw)."""
        if self.undecided_symptom is None:
            return False
        if self.truth_symptom is None:
            return "unshared-traffic" in self.undecided_listed
        return (
            self.undecided_symptom == self.truth_symptom
            and self.truth_cause_label in self.undecided_listed
        )

    @property
    def broken(self) -> bool:
        return self.truth_symptom is not None

    @property
    def harmful(self) -> bool:
        """A broken server whose right verdict is not healthy (a cause above info)."""
        return self.broken and not self.note

    @property
    def scored(self) -> bool:
        return self.control_ok is True

    @property
    def truth_symptom_label(self) -> str:
        return self.truth_symptom or NONE

    @property
    def truth_cause_label(self) -> str:
        return self.truth_cause or NONE

    @property
    def other_face(self) -> bool:
        """The prediction is the measured other face of the true mechanism, not the truth."""
        return (self.predicted_symptom, self.predicted_cause) in self.also_right

    @property
    def right_symptom(self) -> bool:
        if self.undecided_symptom is not None:
            return self.undecided_right or self.undecided_symptom == self.truth_symptom
        return self.predicted_symptom == self.truth_symptom_label or self.other_face

    @property
    def right_cause(self) -> bool:
        if self.undecided_symptom is not None:
            return self.undecided_right
        if self.other_face:
            return True
        return self.predicted_symptom == self.truth_symptom_label and (
            self.predicted_cause == self.truth_cause_label
        )

    @property
    def confirmed(self) -> bool:
        return self.right_cause and self.predicted_status == "confirmed"


def primary(report: Mapping[str, Any] | None) -> tuple[str, str, str | None, str | None]:
    """(symptom, cause, status, verdict) of a report's primary finding; "none" when nothing fires.

    A missing report (the CLI failed) predicts nothing, with verdict None.
    """
    if report is None:
        return NONE, NONE, None, None
    verdict = report.get("verdict")
    for f in report.get("findings") or []:
        if f.get("status") != "refuted":
            return (
                str(f.get("symptom") or NONE),
                str(f.get("cause") or NONE),
                f.get("status"),
                verdict,
            )
    return NONE, NONE, None, verdict


def first_note(report: Mapping[str, Any] | None) -> tuple[str, str, str | None] | None:
    """(symptom, cause, status) of a report's first note (report/1.2), or None."""
    for n in (report or {}).get("notes") or []:
        return str(n.get("symptom") or NONE), str(n.get("cause") or NONE), n.get("status")
    return None


def outcome(
    name: str,
    klass: str,
    truth: tuple[str | None, str | None],
    control_ok: bool | None,
    control_why: str,
    report: Mapping[str, Any] | None,
    has_experiment: bool,
    note: bool = False,
    also_right: tuple[tuple[str, str], ...] = (),
    undecidable: bool = False,
) -> Outcome:
    """One draw scored for one report. ``undecidable``: the draw's mechanism is one the
    captured evidence cannot decide (scored offline): an inconclusive report that names the
    truth in its differential is right, a decided one must be right."""
    symptom, cause, status, verdict = primary(report)
    lead_note = first_note(report)
    undecided_symptom: str | None = None
    listed: tuple[str, ...] = ()
    questions = (report or {}).get("undecided") or []
    if undecidable and symptom == NONE and verdict == "inconclusive" and questions:
        q = questions[0]
        undecided_symptom = str(q.get("symptom") or NONE)
        listed = tuple(str(d.get("cause")) for d in q.get("differential") or [])
        symptom, cause = undecided_symptom, UNDECIDED
    if note and symptom == NONE and lead_note is not None:
        # A note class is named by a note when nothing fires: the right answer is the note
        # with a healthy verdict, which is what the report leads with.
        symptom, cause, status = lead_note
    return Outcome(
        name=name,
        klass=klass,
        truth_symptom=truth[0],
        truth_cause=truth[1],
        control_ok=control_ok,
        control_why=control_why,
        predicted_symptom=symptom,
        predicted_cause=cause,
        predicted_status=status,
        verdict=verdict,
        has_experiment=has_experiment,
        note=note,
        also_right=also_right,
        first_note=None if lead_note is None else f"{lead_note[0]}/{lead_note[1]}",
        undecided_symptom=undecided_symptom,
        undecided_listed=listed,
    )


Matrix = dict[str, dict[str, int]]


def confusion(pairs: Iterable[tuple[str, str]]) -> Matrix:
    """truth -> predicted -> count."""
    m: Matrix = {}
    for truth, pred in pairs:
        row = m.setdefault(truth, {})
        row[pred] = row.get(pred, 0) + 1
    return m


def symptom_matrix(outcomes: Sequence[Outcome]) -> Matrix:
    return confusion((o.truth_symptom_label, o.predicted_symptom) for o in outcomes if o.scored)


def cause_matrix(outcomes: Sequence[Outcome]) -> Matrix:
    return confusion((o.truth_cause_label, o.predicted_cause) for o in outcomes if o.scored)


def render_matrix(title: str, m: Matrix) -> str:
    """A plain-text table: rows are the truth, columns the prediction, sorted, "none" last."""

    def order(labels: Iterable[str]) -> list[str]:
        return sorted(set(labels), key=lambda s: (s == NONE, s))

    rows = order(m)
    cols = order(c for row in m.values() for c in row)
    if not rows:
        return f"{title}\n  (no scored draws)"
    head = "truth \\ predicted"
    w0 = max(len(head), *(len(r) for r in rows))
    widths = [max(len(c), 3) for c in cols]
    lines = [
        title,
        "  "
        + head.ljust(w0)
        + " | "
        + " | ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)),
    ]
    lines.append("  " + "-" * w0 + "-+-" + "-+-".join("-" * w for w in widths))
    for r in rows:
        cells = [str(m[r].get(c, 0) or ".").rjust(w) for c, w in zip(cols, widths, strict=True)]
        lines.append("  " + r.ljust(w0) + " | " + " | ".join(cells))
    return "\n".join(lines)


@dataclass(frozen=True)
class Rates:
    draws: int
    scored: int
    control_failed: int
    not_run: int
    right_symptom: tuple[int, int]
    right_cause: tuple[int, int]
    confirmed: tuple[int, int]
    healthy_on_broken: tuple[int, int]
    verdict_healthy_on_broken: tuple[int, int]
    finding_on_healthy: tuple[int, int]
    alarm_on_healthy: tuple[int, int]
    note_verdict_healthy: tuple[int, int] = (0, 0)
    # Healthy draws whose report carries a note (true there: no harm is claimed).
    note_on_healthy: tuple[int, int] = (0, 0)
    # Right answers that were the true mechanism's other face (counted in right symptom/cause).
    other_face: int = 0


def rates(outcomes: Sequence[Outcome]) -> Rates:
    scored = [o for o in outcomes if o.scored]
    broken = [o for o in scored if o.broken]
    harmful = [o for o in broken if o.harmful]
    notes = [o for o in broken if o.note]
    healthy = [o for o in scored if not o.broken]
    with_exp = [o for o in broken if o.has_experiment]
    return Rates(
        draws=len(outcomes),
        scored=len(scored),
        control_failed=sum(1 for o in outcomes if o.control_ok is False),
        not_run=sum(1 for o in outcomes if o.control_ok is None),
        right_symptom=(sum(o.right_symptom for o in scored), len(scored)),
        right_cause=(sum(o.right_cause for o in scored), len(scored)),
        confirmed=(sum(o.confirmed for o in with_exp), len(with_exp)),
        # Nothing named at all on a server that has a symptom.
        healthy_on_broken=(sum(o.predicted_symptom == NONE for o in broken), len(broken)),
        # The report's own verdict says healthy where the true cause is harmful (above info):
        # a note class's right verdict is healthy, counted apart below.
        verdict_healthy_on_broken=(sum(o.verdict == "healthy" for o in harmful), len(harmful)),
        # Any finding that is not refuted (notes are not findings, counted below)...
        finding_on_healthy=(
            sum(o.predicted_symptom != NONE and o.predicted_cause != UNDECIDED for o in healthy),
            len(healthy),
        ),
        # ...and the alarms among them: a verdict other than healthy (info never sets it); an
        # undecidable healthy draw's right offline answer is "inconclusive" with "unshared-traffic".
        alarm_on_healthy=(
            sum(o.verdict not in ("healthy", None) and not o.undecided_right for o in healthy),
            len(healthy),
        ),
        note_verdict_healthy=(sum(o.verdict == "healthy" for o in notes), len(notes)),
        note_on_healthy=(sum(o.first_note is not None for o in healthy), len(healthy)),
        other_face=sum(o.other_face for o in scored),
    )


def _pct(pair: tuple[int, int]) -> str:
    n, d = pair
    return f"{n}/{d} = {100.0 * n / d:.0f} %" if d else f"{n}/0 (n/a)"


def render_rates(r: Rates, *, live: bool) -> str:
    lines = [
        f"  draws {r.draws}: scored {r.scored}, control failed {r.control_failed}, "
        f"did not run {r.not_run}",
        f"  right symptom                      {_pct(r.right_symptom)}",
        f"  right cause                        {_pct(r.right_cause)}",
        f"    of which the mechanism's other face (measured) {r.other_face}",
    ]
    if live:
        lines.append(f"  confirmed where an experiment exists {_pct(r.confirmed)}")
    else:
        lines.append("  confirmed where an experiment exists n/a (no reproducers offline)")
    lines += [
        f"  healthy on a broken server         {_pct(r.healthy_on_broken)} (nothing named)",
        f"  verdict 'healthy' on a broken one  {_pct(r.verdict_healthy_on_broken)} (notes apart)",
        f"  note classes with verdict healthy  {_pct(r.note_verdict_healthy)}",
        f"  finding on a healthy server        {_pct(r.finding_on_healthy)} (notes apart)",
        f"  note on a healthy server           {_pct(r.note_on_healthy)} (not a finding)",
        f"  verdict not 'healthy' on a healthy {_pct(r.alarm_on_healthy)}",
    ]
    return "\n".join(lines)


def render_mismatches(outcomes: Sequence[Outcome], *, live: bool = True) -> str:
    """Unscored draws and misses; live, a right cause that its experiment did not confirm too."""
    lines = []
    for o in outcomes:
        if not o.scored:
            state = "did not run" if o.control_ok is None else "control failed"
            lines.append(f"  {o.name} [{o.klass}] {state}: {o.control_why}")
        elif o.other_face:
            lines.append(
                f"  {o.name} [{o.klass}] truth {o.truth_symptom_label}/{o.truth_cause_label}, "
                f"got its measured other face {o.predicted_symptom}/{o.predicted_cause} "
                f"({o.predicted_status}, verdict {o.verdict}): right"
            )
        elif not o.right_cause or (live and o.has_experiment and o.broken and not o.confirmed):
            lines.append(
                f"  {o.name} [{o.klass}] truth {o.truth_symptom_label}/{o.truth_cause_label}, "
                f"got {o.predicted_symptom}/{o.predicted_cause} ({o.predicted_status}, "
                f"verdict {o.verdict})"
            )
    return "\n".join(lines) if lines else "  (none)"


def render_section(title: str, outcomes: Sequence[Outcome], *, live: bool) -> str:
    return "\n\n".join(
        [
            f"== {title} ==",
            render_matrix("symptom (truth x predicted):", symptom_matrix(outcomes)),
            render_matrix("cause (truth x predicted):", cause_matrix(outcomes)),
            "rates:\n" + render_rates(rates(outcomes), live=live),
            "misses and unscored draws:\n" + render_mismatches(outcomes, live=live),
        ]
    )
