"""Scoring of randomized draws: primary finding, confusion matrices, rates, unscored draws."""

from __future__ import annotations

from typing import Any

from kvaccuracy import scoring as accuracy
from kvaccuracy.scoring import NONE, outcome, primary, rates, render_matrix, render_section


def _f(symptom: str, cause: str, status: str, severity: str = "warning") -> dict[str, Any]:
    return {"symptom": symptom, "cause": cause, "status": status, "severity": severity}


def _report(verdict: str, *findings: dict[str, Any]) -> dict[str, Any]:
    return {"schema": "kvdoctor.report/1", "verdict": verdict, "findings": list(findings)}


def test_primary_skips_refuted_findings() -> None:
    r = _report(
        "degraded",
        _f("prefix-miss", "caching-disabled", "refuted"),
        _f("preemption", "kv-capacity", "suspected"),
    )
    assert primary(r) == ("preemption", "kv-capacity", "suspected", "degraded")
    assert primary(_report("healthy", _f("high-ttft", "queueing", "refuted"))) == (
        NONE,
        NONE,
        None,
        "healthy",
    )
    assert primary(None) == (NONE, NONE, None, None)


def _o(
    name: str,
    truth: tuple[str | None, str | None],
    report: dict[str, Any] | None,
    control: bool | None = True,
    exp: bool = True,
) -> accuracy.Outcome:
    return outcome(name, truth[1] or "healthy", truth, control, "why", report, exp)


PRE = ("preemption", "kv-capacity")
QUE = ("high-ttft", "queueing")
DRIFT = ("prefix-miss", "prefix-drift")
OK: tuple[str | None, str | None] = (None, None)
OUTCOMES = [
    _o("a", PRE, _report("degraded", _f(*PRE, "confirmed"))),
    _o("b", PRE, _report("degraded", _f(*QUE, "suspected"))),
    _o("c", QUE, _report("degraded", _f("high-ttft", "kv-admission", "confirmed"))),
    _o("d", DRIFT, _report("healthy", _f(*DRIFT, "suspected", "info"))),
    _o("e", ("slow-itl", "kv-read-bound"), _report("healthy")),
    _o("f", OK, _report("healthy")),
    _o("g", OK, _report("degraded", _f("slow-itl", "unidentified", "suspected"))),
    _o("h", PRE, _report("healthy"), control=False),
    _o("i", QUE, None, control=None),
]


def test_right_symptom_cause_and_confirmed() -> None:
    a, b, c, d = OUTCOMES[:4]
    assert a.right_symptom and a.right_cause and a.confirmed
    assert not b.right_symptom and not b.right_cause
    assert c.right_symptom and not c.right_cause and not c.confirmed
    assert d.right_cause and not d.confirmed


def test_matrices_count_only_scored_draws() -> None:
    sm = accuracy.symptom_matrix(OUTCOMES)
    assert sm["preemption"] == {"preemption": 1, "high-ttft": 1}
    assert sm[NONE] == {NONE: 1, "slow-itl": 1}
    assert sm["slow-itl"] == {NONE: 1}
    assert sum(sum(r.values()) for r in sm.values()) == 7  # h (control failed), i (not run) out
    cm = accuracy.cause_matrix(OUTCOMES)
    assert cm["queueing"] == {"kv-admission": 1}


def test_rates() -> None:
    r = rates(OUTCOMES)
    assert (r.draws, r.scored, r.control_failed, r.not_run) == (9, 7, 1, 1)
    assert r.right_symptom == (4, 7)  # a, c, d, f (b, e and g are wrong)
    assert r.right_cause == (3, 7)  # a, d, f
    assert r.confirmed == (1, 5)  # a of the broken draws with an experiment
    assert r.healthy_on_broken == (1, 5)  # e names nothing
    assert r.verdict_healthy_on_broken == (2, 5)  # d (info only) and e
    assert r.finding_on_healthy == (1, 2)  # g
    assert r.alarm_on_healthy == (1, 2)  # g


def test_an_info_note_on_a_healthy_server_is_a_finding_but_not_an_alarm() -> None:
    note = _f("prefix-miss", "block-larger-than-prefix", "confirmed", "info")
    r = rates([_o("j", OK, _report("healthy", note)), _o("k", OK, _report("healthy"))])
    assert r.finding_on_healthy == (1, 2)
    assert r.alarm_on_healthy == (0, 2)


def test_a_note_class_is_right_with_a_healthy_verdict_and_counted_apart() -> None:
    block = ("prefix-miss", "block-larger-than-prefix")
    note = _f(*block, "confirmed", "info")
    named = accuracy.outcome("n", "block", block, True, "", _report("healthy", note), True, True)
    silent = accuracy.outcome("o", "block", block, True, "", _report("healthy"), True, True)
    alarm = accuracy.outcome("p", "q", QUE, True, "", _report("healthy"), True)
    r = rates([named, silent, alarm])
    assert named.right_cause and not named.harmful and alarm.harmful
    # Only the harmful class counts against "verdict healthy on a broken server"...
    assert r.verdict_healthy_on_broken == (1, 1)
    # ...the note classes' healthy verdict is their right one, reported apart.
    assert r.note_verdict_healthy == (2, 2)
    # Naming nothing on a note class is still a miss of the cause and of "nothing named".
    assert not silent.right_cause and r.healthy_on_broken == (2, 3)


def test_render_matrix_puts_truth_in_rows_and_none_last() -> None:
    text = render_matrix("t", {"b": {"x": 2}, NONE: {NONE: 1}, "a": {"x": 1, NONE: 3}})
    lines = text.splitlines()
    assert lines[0] == "t"
    header = lines[1]
    assert header.index("x") < header.index(NONE)
    rows = [ln.split("|")[0].strip() for ln in lines[3:]]
    assert rows == ["a", "b", NONE]
    assert lines[3].split("|")[1:] == ["   1 ", "    3"]
    assert render_matrix("t", {}).endswith("(no scored draws)")


def test_render_section_lists_misses_and_unscored_draws() -> None:
    text = render_section("live", OUTCOMES, live=True)
    assert "== live ==" in text
    assert "h [kv-capacity] control failed" in text
    assert "i [queueing] did not run" in text
    assert "b [kv-capacity] truth preemption/kv-capacity, got high-ttft/queueing" in text
    assert "a [kv-capacity]" not in text
    assert "d [prefix-drift]" in text  # right cause, not confirmed by its experiment
    offline = render_section("offline", OUTCOMES, live=False)
    assert "n/a (no reproducers offline)" in offline
    assert "d [prefix-drift]" not in offline  # offline nothing can be confirmed


def test_the_measured_other_face_of_the_mechanism_is_right() -> None:
    from kvaccuracy.randomized import SLOW_FACTOR, also_right

    hol = ("high-ttft", "long-prefill-hol")
    face = ("slow-itl", "prefill-interference")
    # Streams measured stalled too: the other face is also right...
    assert also_right("long-prefill-hol", {"itl_ratio": SLOW_FACTOR}) == (face,)
    # ...not when the window does not show it, and never for a class without one.
    assert also_right("long-prefill-hol", {"itl_ratio": SLOW_FACTOR - 0.1}) == ()
    assert also_right("long-prefill-hol", {"itl_ratio": None}) == ()
    assert also_right("queueing", {"itl_ratio": 50.0}) == ()
    both = (face,)
    faced = accuracy.outcome(
        "x", "hol", hol, True, "", _report("degraded", _f(*face, "confirmed")), True, False, both
    )
    truth = accuracy.outcome(
        "y", "hol", hol, True, "", _report("degraded", _f(*hol, "confirmed")), True, False, both
    )
    other = _f("slow-itl", "kv-read-bound", "confirmed")
    wrong = accuracy.outcome(
        "z", "hol", hol, True, "", _report("degraded", other), True, False, both
    )
    assert faced.other_face and faced.right_symptom and faced.right_cause
    assert truth.right_cause and not truth.other_face
    assert not wrong.right_symptom and not wrong.right_cause
    r = rates([faced, truth, wrong])
    assert r.right_cause == (2, 3) and r.other_face == 1
    # The matrix shows what was predicted, not the truth it was accepted for.
    assert accuracy.cause_matrix([faced])["long-prefill-hol"] == {"prefill-interference": 1}
    assert "got its measured other face slow-itl/prefill-interference" in (
        accuracy.render_mismatches([faced])
    )


BLOCK = ("prefix-miss", "block-larger-than-prefix")


def _with_notes(report: dict[str, Any], *notes: dict[str, Any]) -> dict[str, Any]:
    return {**report, "notes": list(notes)}


def test_a_note_class_is_named_by_its_note_and_a_healthy_note_is_not_a_finding() -> None:
    note = _f(*BLOCK, "confirmed", "info")
    # The note class (truth block-larger, an info cause): nothing fires, the note names it.
    named = outcome(
        "n", "block", BLOCK, True, "why", _with_notes(_report("healthy"), note), True, note=True
    )
    assert (named.predicted_symptom, named.predicted_cause) == BLOCK
    assert named.right_cause and named.confirmed and named.verdict == "healthy"
    # A healthy draw whose report carries the same (true) note: no finding, the note counted apart.
    quiet = outcome("q", "healthy", OK, True, "why", _with_notes(_report("healthy"), note), False)
    assert quiet.predicted_symptom == NONE and quiet.right_cause
    assert quiet.first_note == "prefix-miss/block-larger-than-prefix"
    r = rates([named, quiet])
    assert r.finding_on_healthy == (0, 1) and r.note_on_healthy == (1, 1)
    # A live finding outranks a note even for a note class: the finding is the prediction.
    loud = outcome(
        "l",
        "block",
        BLOCK,
        True,
        "why",
        _with_notes(_report("degraded", _f(*QUE, "suspected")), note),
        True,
        note=True,
    )
    assert (loud.predicted_symptom, loud.predicted_cause) == QUE and not loud.right_cause
    # Only a note class reads notes: a broken harmful class with only a note predicts nothing.
    missed = outcome("m", "drift", DRIFT, True, "why", _with_notes(_report("healthy"), note), True)
    assert missed.predicted_symptom == NONE and not missed.right_symptom


def _undecided(*causes: str) -> dict[str, Any]:
    r = _report("inconclusive", _f("prefix-miss", "caching-disabled", "refuted"))
    r["undecided"] = [{"symptom": "prefix-miss", "differential": [{"cause": c} for c in causes]}]
    return r


def test_an_undecidable_draw_is_right_offline_when_inconclusive_with_the_truth_listed() -> None:
    truth = ("prefix-miss", "prefix-drift")
    listed = _undecided("prefix-drift", "adapter-or-salt-split", "unshared-traffic")
    o = outcome("d", "prefix-drift-fresh", truth, True, "", listed, True, undecidable=True)
    assert o.right_symptom and o.right_cause and not o.confirmed
    assert (o.predicted_symptom, o.predicted_cause) == ("prefix-miss", accuracy.UNDECIDED)
    # Not listed: wrong, though the symptom is right.
    missing = _undecided("adapter-or-salt-split", "unshared-traffic")
    o = outcome("d", "prefix-drift-fresh", truth, True, "", missing, True, undecidable=True)
    assert o.right_symptom and not o.right_cause
    # Decided wrongly: wrong; decided rightly: right as any draw.
    wrong = _report("degraded", _f("prefix-miss", "eviction-churn", "suspected"))
    o = outcome("d", "prefix-drift-fresh", truth, True, "", wrong, True, undecidable=True)
    assert not o.right_cause
    right = _report("degraded", _f("prefix-miss", "prefix-drift", "suspected"))
    o = outcome("d", "prefix-drift-fresh", truth, True, "", right, True, undecidable=True)
    assert o.right_cause
    # Live draws are decided: the same inconclusive report scored as decidable names nothing.
    o = outcome("d", "prefix-drift-fresh", truth, True, "", listed, True)
    assert not o.right_cause and o.predicted_symptom == NONE


def test_an_undecidable_healthy_draw_is_right_with_unshared_traffic_listed_and_no_alarm() -> None:
    listed = _undecided("prefix-drift", "unshared-traffic")
    o = outcome(
        "h", "healthy-unshared-long", (None, None), True, "", listed, False, undecidable=True
    )
    assert o.right_symptom and o.right_cause
    r = rates([o])
    assert r.finding_on_healthy == (0, 1) and r.alarm_on_healthy == (0, 1)
    # Without "unshared-traffic" the inconclusive verdict is an alarm on a healthy server.
    o = outcome(
        "h",
        "healthy-unshared-long",
        (None, None),
        True,
        "",
        _undecided("prefix-drift"),
        False,
        undecidable=True,
    )
    assert not o.right_cause and rates([o]).alarm_on_healthy == (1, 1)
