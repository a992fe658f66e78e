"""The record each reproducer run leaves in ``reproducers.jsonl`` (``kvdoctor.reproducer/1``),
and which run of an experiment counts.

The record type itself is part of the bundle contract and is defined in
:mod:`kvdoctor.bundle.model` (the bundle reader yields typed records); it is re-exported here for
the experiments, the rules and the report, which know it by this module.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvdoctor.bundle.model import REPRODUCER_SCHEMA, ReproducerRecord

__all__ = ["REPRODUCER_SCHEMA", "ReproducerRecord", "newest_records"]


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
