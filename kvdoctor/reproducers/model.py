"""The record each reproducer run leaves in ``reproducers.jsonl`` (``kvdoctor.reproducer/1``).

A replay re-renders a report from these records without sending any traffic.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

REPRODUCER_SCHEMA: Final = "kvdoctor.reproducer/1"

ReproducerVerdict = Literal["confirmed", "refuted", "inconclusive"]


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
