"""Playbook conditions in three-valued logic: a missing signal makes a test unknown, and a
clause holds only when its conditions are known to hold."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from kvdoctor.bundle.model import JsonObject
from kvdoctor.rules.predicates import PREDICATES, SignalView
from kvdoctor.rules.runtime import Clause, Condition
from kvdoctor.signals.fleet import FleetSignals

# What the rules read: a replica's signals, or one set of fleet signals.
View = SignalView | FleetSignals


@dataclass
class Context:
    view: View
    # The newest record's numbers (``measured:`` conditions read them).
    measured: JsonObject = field(default_factory=dict)


def is_num(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _compare(left: object, op: str, right: object) -> bool | None:
    if left is None or right is None:
        return None
    if is_num(left) and is_num(right):
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


def _eval_condition(c: Condition, ctx: Context) -> bool | None:
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
            right = float(right) * c.scale if is_num(right) else None  # type: ignore[arg-type]
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


def eval_clause(clause: Clause, ctx: Context) -> bool | None:
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
