"""The healthy verdict's rows are built without validation (kvdoctor/rules/verdict.py, so a
replay does not build the Condition and Group validators): validate them here instead."""

from __future__ import annotations

from kvdoctor.rules import verdict
from kvdoctor.rules.schema import Condition, Group


def test_every_health_row_clause_is_a_valid_clause() -> None:
    clauses = [c for row in verdict._HEALTH for c in (row.holds, row.unknown_ok) if c is not None]
    assert clauses
    for clause in clauses:
        raw = clause.model_dump(exclude_unset=True)
        again = type(clause).model_validate(raw)
        assert again == clause, raw
        assert again.model_dump() == clause.model_dump(), raw


def test_nested_groups_hold_validated_types() -> None:
    def walk(clause: Condition | Group) -> None:
        if isinstance(clause, Group):
            for part in (clause.all, clause.any, clause.none):
                for sub in part or []:
                    assert isinstance(sub, Condition | Group)
                    walk(sub)

    for row in verdict._HEALTH:
        if row.unknown_ok is not None:
            walk(row.unknown_ok)
