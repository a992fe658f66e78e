"""The record each reproducer run leaves in ``reproducers.jsonl`` (``kvdoctor.reproducer/1``),
and which run of an experiment counts.

The record type is part of the bundle contract (:mod:`kvdoctor.bundle.model`, the bundle reader
yields typed records) and the "which run counts" rule sits beside it
(:mod:`kvdoctor.bundle.records`); both are re-exported here for the experiments.
"""

from __future__ import annotations

from kvdoctor.bundle.model import REPRODUCER_SCHEMA, ReproducerRecord
from kvdoctor.bundle.records import newest_records

__all__ = ["REPRODUCER_SCHEMA", "ReproducerRecord", "newest_records"]
