"""The healthy verdict's rows are built without validation (kvdoctor/rules/verdict.py, as plain
runtime clauses, so a replay does not import the pydantic playbook schema): validate them here
instead."""

from __future__ import annotations

from typing import Any

from kvdoctor.rules import schema, verdict
from kvdoctor.rules.load import runtime_of
from kvdoctor.rules.runtime import Clause, Condition, Group


def _raw(clause: Clause) -> dict[str, Any]:
    """The clause as a playbook would write it: the fields given (those not at their default)."""
    defaults = type(clause)._field_defaults
    out: dict[str, Any] = {}
    for name, value in clause._asdict().items():
        if value == defaults[name] and type(value) is type(defaults[name]):
            continue
        out[name] = [_raw(v) for v in value] if isinstance(value, list) else value
    return out


def test_every_health_row_clause_is_a_valid_clause() -> None:
    clauses = [c for row in verdict._HEALTH for c in (row.holds, row.unknown_ok) if c is not None]
    assert clauses
    for clause in clauses:
        raw = _raw(clause)
        model = schema.Group if isinstance(clause, Group) else schema.Condition
        again = runtime_of(model.model_validate(raw))
        assert again == clause, raw
        assert type(again) is type(clause), raw


def test_nested_groups_hold_validated_types() -> None:
    def walk(clause: Clause) -> None:
        if isinstance(clause, Group):
            for part in (clause.all, clause.any, clause.none):
                for sub in part or []:
                    assert isinstance(sub, Condition | Group)
                    walk(sub)

    for row in verdict._HEALTH:
        if row.unknown_ok is not None:
            walk(row.unknown_ok)
