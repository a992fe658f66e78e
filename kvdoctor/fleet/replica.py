"""One replica's diagnosis inside a fleet run: what the fleet signals and the table read."""

from __future__ import annotations

from dataclasses import dataclass, field

from kvdoctor.fleet.build import ReplicaData
from kvdoctor.report.model import Report, Scalar


@dataclass
class ReplicaResult:
    key: str
    job: str
    data: ReplicaData
    report: Report | None
    signals: dict[str, Scalar]
    error: str | None  # why this replica could not be diagnosed
    status: str  # "up", "down", "stale"
    # The replica's gauge series over the window (running, waiting, ...), as in SignalSet.
    series: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
