"""Which run of an experiment counts, among the records a bundle's ``reproducers.jsonl`` holds.

The one rule: the rule engine decides a finding's status from the record it picks and the
report shows the same record's numbers. It sits with the bundle format (below the rules, the
reproducers and the report) so that all three read it from one place.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvdoctor.bundle.model import ReproducerRecord


def newest_records(records: Sequence[ReproducerRecord]) -> dict[str, ReproducerRecord]:
    """The newest record of each experiment: latest ``ended_at``, then the later line in
    ``reproducers.jsonl`` (a re-run appended after an earlier one wins a tie)."""
    newest: dict[str, tuple[float, int, ReproducerRecord]] = {}
    for i, rec in enumerate(records):
        seen = newest.get(rec.name)
        if seen is None or (rec.ended_at, i) >= (seen[0], seen[1]):
            newest[rec.name] = (rec.ended_at, i, rec)
    return {name: rec for name, (_, _, rec) in newest.items()}
