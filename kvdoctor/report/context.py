"""What the Markdown report shows besides the ``kvdoctor.report/1`` object itself.

The JSON contract is deliberately small; the incident report also needs the series behind the
sparklines, where each signal came from, the reproducers' expected-vs-observed numbers and the
appendix (versions, engine args, window, bundle path). The pipeline derives all of it from the
bundle, so the Markdown stays a pure function of the bundle too.

Plain dataclasses, not pydantic models: this is no contract (the report object is), the
pipeline builds it from values already checked, and a replay so builds no validator for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvdoctor.bundle.model import JsonObject, ReproducerRecord
from kvdoctor.report.model import Evidence


@dataclass(frozen=True)
class SignalInfo:
    provenance: str = ""
    reason: str | None = None


@dataclass
class RenderContext:
    # The bundle path exactly as the user gave it (or "live" when nothing was saved): never an
    # absolute path invented by kvdoctor, so a report renders the same on every machine.
    source: str = "live"
    endpoint: str = ""
    created_by: str = ""
    started_at: float | None = None
    ended_at: float | None = None
    interval_s: float | None = None
    notes: str = ""
    scrapes_total: int = 0
    engine_args: JsonObject = field(default_factory=dict)
    argv: list[str] | None = None
    # Series over the window as (t, value) in time order: "kv_usage", "running", "waiting",
    # "preemptions" (cumulative since the window start), as in SignalSet.series.
    series: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # Window deltas of the latency histograms as cumulative (upper bound, count) pairs, by the
    # short name of LATENCY_HISTOGRAMS ("ttft", "queue_time", ...): the report states what the
    # buckets can resolve instead of an interpolated point (report/bounds.py).
    latency_buckets: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    signal_info: dict[str, SignalInfo] = field(default_factory=dict)
    # The units of the rules' derived values ("fraction", "s"...), so an evidence row built on
    # one reads like a signal's ("0 %", not "0").
    derived_units: dict[str, str] = field(default_factory=dict)
    reproducers: list[ReproducerRecord] = field(default_factory=list)
    # The numbers that show the locker is fine (rules.healthy_evidence), shown when healthy.
    healthy_evidence: list[Evidence] = field(default_factory=list)
