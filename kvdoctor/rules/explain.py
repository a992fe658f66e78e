"""The rules' words: values with their units, signals by their labels, and a clause that does
not hold explained in one plain line (the findings' "why not" lines)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from kvdoctor.rules.conditions import Context, eval_clause, is_num
from kvdoctor.rules.formatting import TemplateValue, duration
from kvdoctor.rules.predicates import (
    DERIVED,
    DERIVED_LABELS,
    DERIVED_NONE,
    DERIVED_STATES,
    PREDICATE_FALSE,
    PREDICATES,
    SignalView,
)
from kvdoctor.rules.runtime import Clause, Condition, Group
from kvdoctor.signals import catalog
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.model import Scalar

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
    if isinstance(v, int | float) and unit == "ratio":
        return f"{float(v):.3g}×"
    if isinstance(v, int | float):
        whole = float(v).is_integer()
        text = f"{int(v):,}" if whole else f"{float(v):.3g}"
        if not whole and unit in _NOUNS and abs(float(v)) >= 1000:
            # A count in the thousands reads whole ("1,048,576 tokens", not "1.05e+06").
            text = f"{round(float(v)):,}"
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


def _right(clause: Condition, ctx: Context) -> str:
    """The bound of a comparison in words: a value in the left side's unit, or a named signal
    with its value ("the KV pool's tokens, 3,072 tokens")."""
    if clause.value_from is None:
        return _fmt(clause.value, clause.signal)
    rv = ctx.view.value(clause.value_from)
    if clause.scale != 1.0 and is_num(rv):
        rv = float(rv) * clause.scale  # type: ignore[arg-type]
    named = signal_label(clause.value_from)
    named = named if clause.scale == 1.0 else f"{clause.scale:g} × {named}"
    return f"{named}, {_fmt(rv, clause.value_from)}"


def _comparison_words(clause: Condition, ctx: Context, holds: bool) -> str:
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
    words = catalog.VALUES.get(name) if clause.signal else None
    if words is not None and isinstance(left, str) and clause.value_from is None:
        # A fixed-vocabulary text signal: its value in words, against the one the cause needs.
        said = words.get(left, f"{signal_label(name)}: {left}")
        wanted = clause.value if isinstance(clause.value, str) else None
        if holds or op == "!=" or wanted is None:
            return said
        return f"{said}, not that {_lower(words.get(wanted, wanted))}"
    right = _right(clause, ctx)
    if clause.signal and _PERCENTILE.search(name) and _unit(name) == "s":
        # An interpolated percentile is not a measurement: say which side of the bound the
        # histogram puts it, never the point itself (the report states bucket ranges).
        side = _NEEDS[op] if holds else _FAILS[op]
        return f"{label} {side} {right} (by its histogram's buckets)".replace("  ", " ")
    zero = catalog.NONE.get(name) or DERIVED_NONE.get(name)
    if zero is not None and is_num(left) and float(left) == 0 and not holds:  # type: ignore[arg-type]
        return zero
    # A ratio over an interpolated percentile reads as the range its buckets support.
    shown = ctx.view.shown(name) if clause.signal and isinstance(ctx.view, SignalView) else None
    stated = shown if isinstance(shown, str) else _fmt(left, name)
    if holds:
        needs = _NEEDS[op] or "exactly"
        return f"{label} {stated} ({needs} {right})"
    needs = _NEEDS[op] or "exactly"
    if isinstance(left, str):
        return f"{label}: {left} (needs {needs} {right})"
    return f"{label} {stated} (needs {needs} {right})"


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def explain(clause: Clause, ctx: Context) -> str | None:
    """One line in plain words saying why ``clause`` does not hold (the first failing part),
    or None: labels for the signals, units on the numbers, no operators."""
    reasons = _reasons(clause, ctx)
    return " and ".join(reasons[:2]) if reasons else None


def _any_holds(clauses: list[Clause], ctx: Context) -> bool | None:
    """Whether at least one of ``clauses`` holds (three-valued, as a group's ``any``)."""
    # The list comes from a validated group (never empty).
    return eval_clause(Group(any=clauses), ctx)


def _reasons(clause: Clause, ctx: Context) -> list[str]:
    """Why ``clause`` does not hold, one phrase per failing part, none said twice (an exclusion
    that repeats a reason already given adds nothing: "... and ruled out because" the same)."""
    if isinstance(clause, Condition):
        why = _condition_reason(clause, ctx)
        return [why] if why is not None else []
    if eval_clause(clause, ctx) is True:
        return []
    for sub in clause.all or []:
        found = _reasons(sub, ctx)
        if found:
            return found
    if clause.any is not None and _any_holds(clause.any, ctx) is not True:
        kept: list[str] = []
        for sub in clause.any:
            for why in _reasons(sub, ctx):
                said = why.removeprefix("ruled out because ")
                if not any(said in earlier for earlier in kept):
                    kept.append(why)
        return kept
    for sub in clause.none or []:
        if eval_clause(sub, ctx) is True:
            return [f"ruled out because {_describe(sub, ctx)}"]
    return []


def _condition_reason(clause: Condition, ctx: Context) -> str | None:
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


def _describe(clause: Clause, ctx: Context) -> str:
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
    # A ``none`` part that holds says nothing in words (nothing it names happened): leave it
    # out rather than end the line on a dangling "and" (external case zzc-qwen25vl).
    said = [d for d in (_describe(c, ctx) for c in held) if d]
    return " and ".join(said[:2])


def evidence_value(v: TemplateValue) -> Scalar:
    """A value as an evidence row states it (floats rounded, tables and name lists joined)."""
    if isinstance(v, float):
        return round(v, 4) if math.isfinite(v) else None
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {x}" for k, x in v.items())
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v)  # names (fleet signals): "a:8000, b:8000"
    return v  # type: ignore[return-value]
