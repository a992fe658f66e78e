"""The playbook format: a pydantic schema for ``playbooks/*.yaml`` (validated, never eval'd).

A playbook is one row of the troubleshooting table (docs/troubleshooting.md): a symptom, the
signals to inspect first, and the causes that produce it. Each cause holds structured conditions
(``all``/``any``/``none`` over signal comparisons, window shares of a series, or named Python
predicates), a severity, how confidence is computed, the evidence to show, remediation
templates that state the direction of every knob, the reproducer that tests it, and references.

Cross-checks that need the registries (signal catalog, derived values, predicates) live in
:func:`kvdoctor.rules.validate.check_playbook`, so this module stays a pure data description.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from kvdoctor.experiment_catalog import NAMES
from kvdoctor.rules.runtime import Basis as Basis
from kvdoctor.rules.runtime import Direction as Direction
from kvdoctor.rules.runtime import MoveAction as MoveAction
from kvdoctor.rules.runtime import Op as Op
from kvdoctor.rules.runtime import ReproducerName as ReproducerName
from kvdoctor.rules.runtime import Scope as Scope
from kvdoctor.thresholds import PLAYBOOK_CONSTANTS
from kvdoctor.vocab import Severity, Symptom

# The literal types above have one home, kvdoctor.rules.runtime (what a validated playbook
# becomes), so the engine names them without importing this module. ReproducerName, an
# experiment name, is checked against the catalog (kvdoctor.experiment_catalog) at load time by
# kvdoctor.rules.validate.check_playbook, with the causes and measured keys it allows.


# Every experiment name, in the catalog's order.
REPRODUCERS: tuple[str, ...] = NAMES


# Series a ``for_fraction`` condition may name (SignalSet.series keys, see signals/model.py).
SERIES: tuple[str, ...] = ("kv_usage", "running", "waiting", "preemptions")

# Knob -> the vLLM flag a remediation must name, so the reader knows exactly what to change.
KNOBS: dict[str, str] = {
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "max_num_seqs": "--max-num-seqs",
    "max_num_batched_tokens": "--max-num-batched-tokens",
    "max_model_len": "--max-model-len",
    "block_size": "--block-size",
    "enable_prefix_caching": "--enable-prefix-caching",
    "kv_cache_dtype": "--kv-cache-dtype",
    "enable_chunked_prefill": "--enable-chunked-prefill",
    "long_prefill_token_threshold": "--long-prefill-token-threshold",
    "tensor_parallel_size": "--tensor-parallel-size",
    "replicas": "replicas",
}

# Words that state a direction; a remediation's text must contain one for its direction.
DIRECTION_WORDS: dict[str, tuple[str, ...]] = {
    "raise": ("raise", "increase"),
    "lower": ("lower", "decrease", "reduce", "shorten", "cap"),
    "set": ("set",),
    "enable": ("enable", "turn on"),
    "disable": ("disable", "turn off"),
}

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class _Strict(BaseModel):
    # defer_build: the validators are built only when a playbook file is really read (a replay
    # with a warm cache never imports this module: see kvdoctor.rules.runtime).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Condition(_Strict):
    """One test. Exactly one of ``signal``, ``series``, ``predicate`` or ``measured``.

    * ``signal`` / ``measured`` + ``op`` + (``value`` | ``value_from`` × ``scale``): compare a
      signal (catalog or derived value), or a number the attached reproducer measured.
    * ``series`` + ``op`` + ``value`` + ``for_fraction``: the comparison holds for at least
      that share of the window's samples ("for at least half of the window").
    * ``predicate``: a named Python predicate (kvdoctor/rules/predicates.py), for what a plain
      comparison cannot say.
    """

    signal: str | None = None
    series: str | None = None
    predicate: str | None = None
    measured: str | None = None
    op: Op | None = None
    value: float | int | str | bool | None = None
    value_from: str | None = None
    scale: float = 1.0
    for_fraction: float | None = Field(default=None, gt=0.0, le=1.0)

    @field_validator("value", mode="before")
    @classmethod
    def _named_constant(cls, v: object) -> object:
        # ``$pool_full``: a threshold named once in kvdoctor/thresholds.py.
        if isinstance(v, str) and v.startswith("$"):
            if v[1:] not in PLAYBOOK_CONSTANTS:
                known = ", ".join(f"${k}" for k in PLAYBOOK_CONSTANTS)
                raise ValueError(f"unknown constant {v!r} (known: {known})")
            return PLAYBOOK_CONSTANTS[v[1:]]
        return v

    @model_validator(mode="after")
    def _shape(self) -> Condition:
        kinds = [k for k in ("signal", "series", "predicate", "measured") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("a condition names exactly one of signal, series, predicate, measured")
        has_value = "value" in self.model_fields_set
        if self.predicate:
            if self.op or has_value or self.value_from or self.for_fraction is not None:
                raise ValueError("a predicate condition takes no op/value/value_from/for_fraction")
            return self
        if self.op is None:
            raise ValueError("op is required")
        if has_value == (self.value_from is not None):
            raise ValueError("give exactly one of value and value_from")
        if has_value and self.value is None:
            raise ValueError("value must not be null (a missing signal is already 'unknown')")
        if self.series:
            if self.series not in SERIES:
                raise ValueError(f"unknown series {self.series!r} (known: {', '.join(SERIES)})")
            if self.for_fraction is None:
                raise ValueError("a series condition needs for_fraction")
            if not isinstance(self.value, int | float) or isinstance(self.value, bool):
                raise ValueError("a series condition compares with a number")
        elif self.for_fraction is not None:
            raise ValueError("for_fraction applies to a series condition only")
        if self.scale != 1.0 and self.value_from is None:
            raise ValueError("scale applies to value_from only")
        return self


def _clause_kind(raw: object) -> str:
    if isinstance(raw, dict):
        return "group" if {"all", "any", "none"} & set(raw) else "condition"
    if isinstance(raw, Group):
        return "group"
    return "condition"


Clause = Annotated[
    Annotated[Condition, Tag("condition")] | Annotated["Group", Tag("group")],
    Discriminator(_clause_kind),
]


class Group(_Strict):
    """``all`` (every clause holds), ``any`` (at least one), ``none`` (an exclusion).

    Several keys in one group are combined with AND. Missing signals make a clause unknown,
    not false (three-valued logic): ``all``/``any`` never fire on data they do not have.
    ``none`` excludes only what is known to hold ("unless the other explanation is known"),
    like PromQL's ``unless``: an unknown clause does not exclude.
    """

    all: list[Clause] | None = None
    any: list[Clause] | None = None
    none: list[Clause] | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> Group:
        parts = [p for p in (self.all, self.any, self.none) if p is not None]
        if not parts or any(len(p) == 0 for p in parts):
            raise ValueError("a group needs a non-empty all, any or none list")
        return self


class Boost(_Strict):
    """A piece of supporting evidence that adds to (or, negative, takes from) confidence."""

    when: Clause
    add: float = Field(ge=-1.0, le=1.0)
    why: str = Field(min_length=1)


class Confidence(_Strict):
    """confidence = clamp(base + Σ add of the boosts whose condition holds, 0, 1).

    With ``value_from``, the named signal's value (when known) stands for ``base``: a
    confidence that grows with a measured quantity (the fleet's traffic skew).
    """

    base: float = Field(ge=0.0, le=1.0)
    boosts: list[Boost] = Field(default_factory=list)
    value_from: str | None = None


class EvidenceSpec(_Strict):
    """One evidence row (the signal's value and what to expect), or several with ``expand``.

    ``expand`` turns a table-valued signal (fleet signals: replica or setting → value) into one
    row per entry, named by the entry's key (``key``) or ``<label>[<key>]`` (``indexed``);
    in such a row, a placeholder naming a table reads that row's entry. ``label`` names the row
    instead of the signal; ``fallback`` is rendered when ``expected`` has an unknown value.

    ``holds`` is the condition the row's words state, as data: the engine evaluates it and
    stores the answer in the report (``Evidence.met``), so the renderer never reads a condition
    back out of the prose. An ``expected`` that states a comparison ("≥ 0.90: the pool fills
    up", "above the {seqs_that_fit} sequences the pool holds") must carry one that agrees with
    it (tests/rules/test_evidence_conditions.py).
    """

    signal: str
    # What a reader should expect to see for this cause; may hold {placeholders}.
    expected: str = Field(min_length=1)
    label: str | None = None
    expand: Literal["key", "indexed"] | None = None
    fallback: str | None = None
    holds: Clause | None = None


# The named planners in kvdoctor/remediation (orchestration, above the rules): a playbook
# names one, the loader refuses any other name, and a test holds this tuple equal to the
# planner registry (kvdoctor.remediation.advice.PLANNERS).
PLANNER_NAMES: tuple[str, ...] = (
    "activation-peak",
    "block-size",
    "caching-disabled",
    "cudagraph-capture",
    "cudagraph-pool",
    "eviction-churn",
    "fp8-kv-cache",
    "kv-admission",
    "kv-capacity",
    "kv-pool-too-small",
    "kv-read-bound",
    "long-prefill-hol",
    "other-process",
    "prefill-bound",
    "prefill-interference",
    "prefix-drift",
    "queueing",
    "request-too-long",
    "utilization-too-high",
)


class Move(_Strict):
    """One change a planner may print: the action, the vLLM flag (none for a client-side or
    capacity change), what its target is computed from, and the predicted effect.

    ``explain``, the runbooks and docs/rules.md print these; the report prints the planner's
    concrete edit (the same action on the same flag, the target computed from the bundle), and
    a test holds every printed change to a declared move of its cause.
    """

    action: MoveAction
    flag: str | None = None
    target: str | None = None
    effect: str = Field(min_length=1)

    @model_validator(mode="after")
    def _flag(self) -> Move:
        needs_flag = self.action in ("remove", "set", "raise", "lower")
        if needs_flag != (self.flag is not None):
            raise ValueError(f"a {self.action} move {'needs' if needs_flag else 'takes no'} flag")
        if self.flag is not None and not self.flag.startswith("--"):
            raise ValueError("flag is written as on vLLM's command line (--name)")
        return self


class Remediation(_Strict):
    """One item of a cause's advice: a line of text (advice that names no flag the bundle can
    size), or a named planner with the moves it may make (flag edits computed from the bundle
    and checked for feasibility before they are printed)."""

    text: str | None = Field(default=None, min_length=1)
    planner: str | None = None
    moves: list[Move] = Field(default_factory=list)
    knob: str | None = None
    direction: Direction | None = None
    # Only advised when this is known to hold (e.g. "raise utilization" only with GPU
    # headroom), and not advised when ``unless`` is known to hold (e.g. "lower max_num_seqs"
    # unless it is already below what the pool holds); unknown keeps the default.
    when: Clause | None = None
    unless: Clause | None = None
    # Rendered instead of ``text`` when one of its placeholders has no value: one text, or
    # several tried in order (from the most specific to one without numbers).
    fallback: str | list[str] | None = None

    @property
    def fallbacks(self) -> list[str]:
        if self.fallback is None:
            return []
        return [self.fallback] if isinstance(self.fallback, str) else list(self.fallback)

    @model_validator(mode="after")
    def _knob(self) -> Remediation:
        if self.planner is not None:
            if self.planner not in PLANNER_NAMES:
                raise ValueError(
                    f"unknown planner {self.planner!r} (known: {', '.join(PLANNER_NAMES)})"
                )
            if self.text is not None or self.knob is not None or self.fallback is not None:
                raise ValueError("a planner item takes moves, not text, knob or fallback")
            if not self.moves:
                raise ValueError("a planner item lists the moves it may make")
            return self
        if self.text is None:
            raise ValueError("a remediation item needs text or a planner")
        if self.moves:
            raise ValueError("moves belong to a planner item")
        if (self.knob is None) != (self.direction is None):
            raise ValueError("knob and direction go together")
        if self.knob is None or self.direction is None:
            return self
        if self.knob not in KNOBS:
            raise ValueError(f"unknown knob {self.knob!r} (known: {', '.join(sorted(KNOBS))})")
        texts = [("text", self.text)] + [(f"fallback.{i}", t) for i, t in enumerate(self.fallbacks)]
        for label, text in texts:
            flag = KNOBS[self.knob]
            if flag not in text:
                raise ValueError(f"{label} must name the flag {flag}")
            words = DIRECTION_WORDS[self.direction]
            if not any(w in text.lower() for w in words):
                raise ValueError(f"{label} must state the direction ({' or '.join(words)})")
        return self


class Explains(_Strict):
    """A cause upstream of other symptoms the window shows: their findings follow from it.

    Prompts that miss the prefix cache are prefilled whole, so first tokens are slow and long
    prefills stall decoding; the prefill finding is then a consequence, and its advice (chunking,
    more GPUs) leaves the miss in place. When ``when`` holds, the cause ranks first among
    findings tied with it on severity, status and confidence (docs/report.md leaves the order
    after those three open), and the report says which findings it explains and why.
    """

    symptoms: list[Symptom] = Field(min_length=1)
    when: Clause
    why: str = Field(min_length=1)
    # Only these causes of those symptoms follow from it (empty: every cause). A symptom with
    # no cause identified explains the prefill it leaves, not a transfer or a queue.
    causes: list[str] = Field(default_factory=list)


class TitleVariant(_Strict):
    """A title used instead of the cause's own when its condition is known to hold."""

    when: Clause
    text: str = Field(min_length=1)


class Cause(_Strict):
    id: str
    title: str = Field(min_length=1)
    # The first variant whose ``when`` holds replaces ``title`` in the finding.
    title_when: list[TitleVariant] = Field(default_factory=list)
    # A signal whose value names the finding's symptom (the playbook's own or one of its
    # ``other_symptoms``); otherwise, and when unknown, the playbook's symptom.
    symptom_from: str | None = None
    description: str = Field(min_length=1)
    severity: Severity
    # Escalates the severity to critical when it holds (e.g. a stall, not just slowness).
    critical_when: Clause | None = None
    # Escalates an info cause to warning when it holds (e.g. prompts that share a prefix the
    # block size keeps from being cached: a loss, not the expected behaviour of a short prompt).
    warning_when: Clause | None = None
    when: Group
    confidence: Confidence
    evidence: list[EvidenceSpec] = Field(min_length=1)
    remediation: list[Remediation] = Field(min_length=1)
    # The experiment that tests this cause on a live server, or null when none can (the
    # evidence lives in a GPU start-up log, a KV connector or a speculative decoder the lab
    # cannot run): such a finding stays suspected and says so.
    reproducer: ReproducerName | None = None
    references: list[str] = Field(default_factory=list)
    explains: Explains | None = None
    # The setting this mechanism needs (CPU offload configured, ...): where the bundle shows it
    # is not there, the cause is no look-alike of another and "why not" leaves it out instead
    # of spending a line on a mechanism the server cannot have.
    applies: Clause | None = None
    # Why no Prometheus alert can stand for this cause, when its deciding evidence is outside
    # the metrics (the prompts, request logs): ``kvdoctor alerts`` then lists it as not
    # expressible instead of alerting on the metric half of its condition.
    no_alert: str | None = None

    @field_validator("id")
    @classmethod
    def _kebab(cls, v: str) -> str:
        if not _KEBAB.match(v):
            raise ValueError("cause id must be kebab-case")
        return v

    @model_validator(mode="after")
    def _one_direction_per_knob(self) -> Cause:
        # docs/troubleshooting.md: a rule never advises both raising and lowering the same knob.
        seen: dict[str, str] = {}
        for item in self.remediation:
            if item.knob is None or item.direction not in ("raise", "lower"):
                continue
            other = seen.setdefault(item.knob, item.direction)
            if other != item.direction:
                raise ValueError(f"remediation both raises and lowers {item.knob}")
        return self


class DetectBasis(_Strict):
    """One way to judge a symptom: against the user's SLO, the server's own baseline in the
    same window, or a documented default (docs/troubleshooting.md: thresholds are a last resort).

    ``available`` says whether this basis can judge the window at all (e.g. an SLO was given);
    ``when`` says whether it finds harm; ``says`` is the sentence the report prints as the
    finding's basis (placeholders allowed).
    """

    basis: Basis
    available: Clause
    when: Clause
    says: str = Field(min_length=1)
    # False for a basis that measures harm only: the symptom is present for the report, but
    # the ``symptom_<name>`` signal, which causes read as evidence of their mechanism (prefix
    # misses against the server's own hit history), stays as the other bases leave it.
    sets_signal: bool = True


class CollectStep(_Strict):
    """A step of ``collect_next`` listed only where its condition holds."""

    text: str = Field(min_length=1)
    when: Clause


class Unidentified(_Strict):
    """What the report says when the symptom is there and no cause explains it."""

    title: str = Field(min_length=1)
    # Plain steps always; a step with ``when`` only where the window shows its condition.
    collect_next: list[str | CollectStep] = Field(min_length=1)
    # A symptom present with no cause identified can still be upstream of another symptom's
    # finding (prompts that hit nothing are prefilled whole, so first tokens are slow): the
    # finding that follows ranks after it, as behind an identified cause.
    explains: Explains | None = None


class Candidate(_Strict):
    """One cause of an undecided symptom, with what would confirm it."""

    cause: str
    confirm: str = Field(min_length=1)
    # Listed only where the window allows it (eviction needs a pool that filled or turned
    # over); unknown keeps the candidate listed.
    when: Clause | None = None


class Undecided(_Strict):
    """A symptom the operator would care about that the evidence cannot decide.

    When ``when`` holds and the symptom is not detected (no harm measured, yet not ruled out),
    the report's verdict is ``inconclusive`` (report/1.3) unless a finding fires: it leads with
    what was seen (``seen``), the differential (each candidate with what would confirm it) and
    the one command or input that decides it (``decide_with``). Never "healthy".
    """

    when: Clause
    title: str = Field(min_length=1)
    seen: str = Field(min_length=1)
    differential: list[Candidate] = Field(min_length=2)
    decide_with: str = Field(min_length=1)


class Detector(_Strict):
    """A symptom detected from user-visible harm, before and apart from any cause.

    Bases are tried in order. An available ``slo`` basis decides alone (the user said what
    harm is). Otherwise the symptom is present when an available basis finds harm (the
    baseline first; a documented default is the floor of harm that still holds when the
    window has no quiet baseline), absent when every available basis finds none, and unknown
    when no basis is available.
    """

    bases: list[DetectBasis] = Field(min_length=1)
    severity: Severity = "warning"
    critical_when: Clause | None = None
    unidentified: Unidentified
    # Checked in order when the symptom is not present: the first that holds is the open
    # question the report leads with.
    undecided: list[Undecided] = Field(default_factory=list)


class Runbook(_Strict):
    """Runbook prose in fixed sections (What it means / Why it matters / Evidence / Mitigation)."""

    meaning: str = Field(min_length=1)
    impact: str = Field(min_length=1)
    diagnosis: str = Field(min_length=1)
    mitigation: str = Field(min_length=1)


RUNBOOK_SECTIONS: tuple[tuple[str, str], ...] = (
    ("meaning", "What it means"),
    ("impact", "Why it matters"),
    ("diagnosis", "Evidence"),
    ("mitigation", "Mitigation"),
)


class Playbook(_Strict):
    """One row of the troubleshooting table.

    ``scope: fleet`` playbooks (``playbooks/fleet/``) compare replicas: their names are fleet
    signals (kvdoctor.signals.fleet), checked against that registry at load time, and they are
    evaluated over fleet signals only; replica playbooks over a replica's signals only.
    """

    id: str
    scope: Scope = "replica"
    symptom: Symptom
    # Other symptoms its findings may be reported under (a cause's ``symptom_from``).
    other_symptoms: list[Symptom] = Field(default_factory=list)
    title: str = Field(min_length=1)
    inspect_first: list[str] = Field(min_length=1)
    causes: list[Cause] = Field(min_length=1)
    runbook: Runbook
    references: list[str] = Field(default_factory=list)
    detect: Detector | None = None
    # The experiment that tests this symptom when no cause explains it (a finding reported as
    # "cause not identified"); causes name their own. Checked against the registry at load.
    reproducer: ReproducerName | None = None

    @field_validator("id")
    @classmethod
    def _kebab(cls, v: str) -> str:
        if not _KEBAB.match(v):
            raise ValueError("playbook id must be kebab-case")
        return v

    @model_validator(mode="after")
    def _unique_causes(self) -> Playbook:
        ids = [c.id for c in self.causes]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate cause ids: {', '.join(dupes)}")
        return self

    def cause(self, cause_id: str) -> Cause | None:
        return next((c for c in self.causes if c.id == cause_id), None)
