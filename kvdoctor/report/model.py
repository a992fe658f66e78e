"""The ``kvdoctor.report/1`` contract (docs/report.md): what ``diagnose --format json`` prints.

These models are shared by the rule engine (which produces findings), the reproducers (whose
outcomes attach to findings) and the renderers (pure functions of a :class:`Report`).
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from kvdoctor import vocab
from kvdoctor.bundle.model import JsonObject, NotChecked
from kvdoctor.factories import new_dict, new_list
from kvdoctor.kvmath.section import KvSection

REPORT_SCHEMA: Final = "kvdoctor.report/1"
# Minor revision of the report/1 contract: additive fields only (docs/report.md).
# 1.1: summary, change_first; per finding basis and why_not.
# 1.2: notes (info causes whose symptom the window does not show: expected behaviour, no harm
# measured), apart from findings so that a healthy server has no finding.
# 1.3: verdict "inconclusive" and ``undecided``: symptoms the evidence cannot decide (what was
# seen, the differential, the one command or input that decides it), never "healthy".
# 1.4: ``latency``: beside each interpolated latency percentile in ``signals`` (a point inside
# a histogram bucket), the range the window's buckets support: ``{"ttft_p95": {"lo": s,
# "hi": s | null, "hi_from": "bucket" | "mean" | "ttft" | "order", "first_bucket": bool}}``;
# an upper end derived from the mean (Markov) or from TTFT says so, and every sentence states
# the range, not the point.
# 1.5: ``label`` on each evidence row: the signal in plain words (the table's first column).
# 1.6: ``facts``: what the verdict sentence rests on (card full and what proves it, a start-up
# refusal, a full pool, a window without traffic, a restart), decided by the rules.
REPORT_MINOR: Final = 6

# The vocabularies are defined once, in kvdoctor.vocab; these names keep the report's readers'
# imports working.
Symptom = vocab.Symptom
SYMPTOMS = vocab.SYMPTOMS
Status = vocab.Status
Severity = vocab.Severity
Verdict = vocab.Verdict
ReproducerVerdict = vocab.ReproducerVerdict

Scalar = float | int | str | bool | None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Strict):
    signal: str
    # The signal in plain words, as the report's evidence table names it (1.5; "" in older
    # reports: the renderer then shows the id).
    label: str = ""
    value: float | int | str | bool | None
    expected: str
    # Whether the value meets the row's condition, as the engine evaluated it (None: the row
    # states no condition, or the value is unknown). Stored, never re-read from the prose.
    met: bool | None = None


class ReproducerOutcome(_Strict):
    name: str
    verdict: ReproducerVerdict
    measured: JsonObject = Field(default_factory=new_dict)


class Finding(_Strict):
    id: str
    symptom: Symptom
    cause: str
    status: Status
    severity: Severity
    confidence: float = Field(ge=0.0, le=1.0)
    title: str
    evidence: list[Evidence] = Field(default_factory=new_list)
    remediation: list[str] = Field(default_factory=new_list)
    reproducer: ReproducerOutcome | None = None
    # What the symptom was judged against: "slo", "baseline" (the server's own, same run) or
    # "default" (a documented default), with the numbers, e.g. "slo: ttft-p95 ≤ 800 ms".
    basis: str | None = None
    # One line per look-alike cause this finding beat, and why.
    why_not: list[str] = Field(default_factory=new_list)
    # Changes the playbook knows for this cause that the bundle's own numbers rule out, each
    # with what would have to be true for it (additive: never printed as advice).
    not_advised: list[str] = Field(default_factory=new_list)


class DifferentialEntry(_Strict):
    """One candidate explanation of an undecided symptom and what would confirm it."""

    # A cause id of the symptom's playbook (e.g. unshared-traffic: the traffic shares nothing,
    # no fault).
    cause: str
    confirm: str


class OpenQuestion(_Strict):
    """A symptom the operator would care about that the evidence cannot decide (report/1.3)."""

    symptom: Symptom
    title: str
    # What was seen, in one sentence with its numbers.
    seen: str
    evidence: list[Evidence] = Field(default_factory=new_list)
    differential: list[DifferentialEntry] = Field(default_factory=new_list)
    # The one command or input that decides it.
    decide_with: str


class LatencyBound(_Strict):
    """What a latency histogram supports for one percentile (report/1.4): ``lo < p ≤ hi``."""

    lo: float
    hi: float | None  # None: the +Inf bucket
    # What set ``hi``: the bucket's own bound, or a tightening (the exact mean by Markov's
    # inequality, TTFT for its parts, or the order p50 ≤ p95 ≤ p99): never a measurement.
    hi_from: Literal["bucket", "mean", "ttft", "order"] = "bucket"
    first_bucket: bool = False


CardFullReason = Literal["no-cache-memory", "oom-log", "gpu-fraction"]


class VerdictFacts(_Strict):
    """What the verdict sentence rests on (report/1.6), decided by the rules from the bundle's
    numbers; the renderers only word them. Older reports carry none (every fact false)."""

    # The device itself is full, not only the KV pool: vLLM found no memory for the pool, the
    # log shows an out-of-memory error, or NVML shows the card at its top.
    card_full: bool = False
    # The strongest of those proofs, when card_full.
    card_full_reason: CardFullReason | None = None
    # The lead finding is vLLM refusing max_model_len at start-up on a card with room.
    refused_start: bool = False
    # The KV pool reached its full mark in the window.
    kv_full: bool = False
    # The window saw no traffic at all (verdict unknown, said as such).
    idle_window: bool = False
    # Counters dropped during the window: the server restarted.
    server_restarted: bool = False


class Report(_Strict):
    schema_: Literal["kvdoctor.report/1"] = Field(default=REPORT_SCHEMA, alias="schema")
    schema_minor: int = REPORT_MINOR
    verdict: Verdict
    # The verdict sentence and the change to make first, as the Markdown report states them.
    summary: str | None = None
    change_first: str | None = None
    findings: list[Finding] = Field(default_factory=new_list)
    # Same shape as a finding, severity info, never refuted; they never set the verdict.
    notes: list[Finding] = Field(default_factory=new_list)
    # Symptoms the evidence cannot decide; when there is one and no finding fires, the verdict
    # is "inconclusive" (exit 1) and the report leads with it.
    undecided: list[OpenQuestion] = Field(default_factory=new_list)
    signals: dict[str, Scalar] = Field(default_factory=new_dict)
    kv: KvSection = Field(default_factory=KvSection)
    not_checked: list[NotChecked] = Field(default_factory=new_list)
    # Beside each interpolated latency percentile of ``signals``, its bucket range (1.4).
    latency: dict[str, LatencyBound] = Field(default_factory=new_dict)
    # What the verdict sentence rests on (1.6).
    facts: VerdictFacts = Field(default_factory=VerdictFacts)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def lead(self) -> Finding | None:
        """What the report leads with: the primary finding (the first one not refuted), else
        the first note, else the first ruled-out finding; None for an empty report."""
        live = [f for f in self.findings if f.status != "refuted"]
        if live:
            return live[0]
        if self.notes:
            return self.notes[0]
        return self.findings[0] if self.findings else None

    def to_json_dict(self) -> JsonObject:
        return self.model_dump(mode="json", by_alias=True)
