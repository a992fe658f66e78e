"""The record each reproducer run leaves in ``reproducers.jsonl`` (``kvdoctor.reproducer/1``).

A replay re-renders a report from these records without sending any traffic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from kvdoctor.vocab import ReproducerVerdict

REPRODUCER_SCHEMA: Final = "kvdoctor.reproducer/1"


class ReproducerRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kvdoctor.reproducer/1"] = Field(default=REPRODUCER_SCHEMA, alias="schema")
    name: str
    # Overall verdict on the hypothesis the experiment was run for.
    verdict: ReproducerVerdict
    # An experiment can tell several causes apart (prefix-probe: caching off vs block larger
    # than prefix vs drift vs eviction): verdict per cause id, overriding ``verdict`` for it.
    cause_verdicts: dict[str, ReproducerVerdict] = Field(default_factory=dict)
    summary: str = ""
    expected: dict[str, Any] = Field(default_factory=dict)
    measured: dict[str, Any] = Field(default_factory=dict)
    started_at: float
    ended_at: float
    requests_sent: int = 0
    budget: dict[str, Any] = Field(default_factory=dict)
    # Why the guard stopped the run early, or None when it ran to completion.
    aborted: str | None = None


def newest_records(records: Sequence[ReproducerRecord]) -> dict[str, ReproducerRecord]:
    """The newest record of each experiment: latest ``ended_at``, then the later line in
    ``reproducers.jsonl`` (a re-run appended after an earlier one wins a tie).

    The one rule for "which run counts": the rule engine decides a finding's status from it and
    the report shows the same record's numbers.
    """
    newest: dict[str, tuple[float, int, ReproducerRecord]] = {}
    for i, rec in enumerate(records):
        seen = newest.get(rec.name)
        if seen is None or (rec.ended_at, i) >= (seen[0], seen[1]):
            newest[rec.name] = (rec.ended_at, i, rec)
    return {name: rec for name, (_, _, rec) in newest.items()}
