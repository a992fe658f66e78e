"""Validated playbooks as the engine reads them: plain named tuples, no pydantic.

:mod:`kvdoctor.rules.schema` is the format's contract: it validates ``playbooks/*.yaml`` when
they are read. What it validated is turned into these classes (:func:`kvdoctor.rules.load`),
one per schema class, with the same name, fields, order and defaults (tests/unit/test_cache.py
holds them equal), and these are what kvdoctor's cache pickles. A replay with a warm cache so
never imports the schema: building its validators and unpickling pydantic instances was a
tenth of a replay.

Fields that are lists in the schema are lists here too; nothing mutates them. Only
:class:`Condition` and :class:`Group` have defaults (the engine writes a few clauses of its
own); every other class is built from a validated schema instance, every field given.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple would turn every string
# annotation into a ForwardRef and compile it, which doubled this module's import time. The one
# forward reference (a group's clauses) is quoted.
from collections.abc import Callable
from typing import Literal, NamedTuple, TypeAlias

from kvdoctor.vocab import Severity, Symptom

Op = Literal[">", ">=", "<", "<=", "==", "!="]
Direction = Literal["raise", "lower", "set", "enable", "disable"]
MoveAction = Literal["remove", "set", "raise", "lower", "client", "capacity"]
Basis = Literal["slo", "baseline", "default", "evidence"]
Scope = Literal["replica", "fleet"]
# An experiment name (kvdoctor.experiment_catalog), checked when the playbook is loaded.
ReproducerName = str


class Condition(NamedTuple):
    """One test (see :class:`kvdoctor.rules.schema.Condition`)."""

    signal: str | None = None
    series: str | None = None
    predicate: str | None = None
    measured: str | None = None
    op: Op | None = None
    value: float | int | str | bool | None = None
    value_from: str | None = None
    scale: float = 1.0
    for_fraction: float | None = None


class Group(NamedTuple):
    """``all`` / ``any`` / ``none`` (see :class:`kvdoctor.rules.schema.Group`)."""

    all: list["Clause"] | None = None
    any: list["Clause"] | None = None
    none: list["Clause"] | None = None


Clause: TypeAlias = Condition | Group


class Boost(NamedTuple):
    when: Clause
    add: float
    why: str


class Confidence(NamedTuple):
    base: float
    boosts: list[Boost]
    value_from: str | None


class EvidenceSpec(NamedTuple):
    signal: str
    expected: str
    label: str | None
    expand: Literal["key", "indexed"] | None
    fallback: str | None
    holds: Clause | None


class Move(NamedTuple):
    action: MoveAction
    flag: str | None
    target: str | None
    effect: str


class Remediation(NamedTuple):
    text: str | None
    planner: str | None
    moves: list[Move]
    knob: str | None
    direction: Direction | None
    when: Clause | None
    unless: Clause | None
    fallback: str | list[str] | None

    @property
    def fallbacks(self) -> list[str]:
        if self.fallback is None:
            return []
        return [self.fallback] if isinstance(self.fallback, str) else list(self.fallback)


class Explains(NamedTuple):
    symptoms: list[Symptom]
    when: Clause
    why: str
    causes: list[str]


class TitleVariant(NamedTuple):
    when: Clause
    text: str


class Cause(NamedTuple):
    id: str
    title: str
    title_when: list[TitleVariant]
    symptom_from: str | None
    description: str
    severity: Severity
    critical_when: Clause | None
    warning_when: Clause | None
    when: Group
    confidence: Confidence
    evidence: list[EvidenceSpec]
    remediation: list[Remediation]
    reproducer: ReproducerName | None
    references: list[str]
    explains: Explains | None
    applies: Clause | None
    no_alert: str | None


class DetectBasis(NamedTuple):
    basis: Basis
    available: Clause
    when: Clause
    says: str
    sets_signal: bool


class CollectStep(NamedTuple):
    text: str
    when: Clause


class Unidentified(NamedTuple):
    title: str
    collect_next: list[str | CollectStep]
    explains: Explains | None


class Candidate(NamedTuple):
    cause: str
    confirm: str
    when: Clause | None


class Undecided(NamedTuple):
    when: Clause
    title: str
    seen: str
    differential: list[Candidate]
    decide_with: str


class Detector(NamedTuple):
    bases: list[DetectBasis]
    severity: Severity
    critical_when: Clause | None
    unidentified: Unidentified
    undecided: list[Undecided]


class Runbook(NamedTuple):
    meaning: str
    impact: str
    diagnosis: str
    mitigation: str


class Playbook(NamedTuple):
    """One row of the troubleshooting table (see :class:`kvdoctor.rules.schema.Playbook`)."""

    id: str
    scope: Scope
    symptom: Symptom
    other_symptoms: list[Symptom]
    title: str
    inspect_first: list[str]
    causes: list[Cause]
    runbook: Runbook
    references: list[str]
    detect: Detector | None
    reproducer: ReproducerName | None

    def cause(self, cause_id: str) -> Cause | None:
        return next((c for c in self.causes if c.id == cause_id), None)


# Every class above, by the name of the schema class it stands for.
RUNTIME_CLASSES: dict[str, Callable[..., tuple[object, ...]]] = {
    cls.__name__: cls
    for cls in (
        Condition,
        Group,
        Boost,
        Confidence,
        EvidenceSpec,
        Move,
        Remediation,
        Explains,
        TitleVariant,
        Cause,
        DetectBasis,
        CollectStep,
        Unidentified,
        Candidate,
        Undecided,
        Detector,
        Runbook,
        Playbook,
    )
}
