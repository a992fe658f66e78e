"""Renderers: pure functions from a :class:`Report` (plus its :class:`RenderContext`) to bytes.

All prose and layout live in ``templates/*.j2``; this module only prepares the typed view the
template reads (:class:`ReportView`, built by :func:`build_view`: window percentiles,
sparklines, evidence formatting, and which sentence each case takes) so the templates stay
readable and make no decision from raw signals. Jinja runs with
``StrictUndefined`` and a ``finalize`` hook that escapes every value not explicitly marked safe,
so text from the server can never break a table or inject HTML into a ticket.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from markupsafe import Markup
from pydantic import JsonValue

from kvdoctor.bundle.model import JsonObject, ReproducerRecord
from kvdoctor.bundle.records import newest_records
from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath.section import KvSection
from kvdoctor.report import fmt
from kvdoctor.report.bounds import (
    RATIOS_OF_PERCENTILES,
    Bound,
    contradicts_ttft,
    percentile_bounds,
    ratio_range,
)
from kvdoctor.report.context import RenderContext
from kvdoctor.report.escape import code_span, escape_md, escape_trusted
from kvdoctor.report.model import (
    CardFullReason,
    Evidence,
    Finding,
    OpenQuestion,
    Report,
    ReproducerVerdict,
    Scalar,
    Verdict,
)
from kvdoctor.report.output import render_json as render_json
from kvdoctor.report.sentences import (
    VerdictCase,
    normalize_durations,
    platform_of,
    plural_agreement,
    primary_question_of,
    verdict_case,
    verdict_sentence,
    window_of,
)
from kvdoctor.report.sentences import change_first as change_first
from kvdoctor.report.sentences import count_phrase as _count
from kvdoctor.report.sentences import finalize as _finalize
from kvdoctor.report.sentences import num_or_none as _num_or_none
from kvdoctor.report.sentences import prose as _prose
from kvdoctor.report.sentences import summary_sentence as summary_sentence
from kvdoctor.report.sparkline import percentile, sparkline
from kvdoctor.resources import data_dir
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.catalog import label as label_of
from kvdoctor.vocab import ACTIVE_STATUSES

if TYPE_CHECKING:
    import jinja2

MARKDOWN_TEMPLATE = "report.md.j2"

Detail = Literal["summary", "full"]
DETAILS: tuple[str, ...] = ("summary", "full")
# The evidence rows shown above the fold; the rest of the table sits in the folded details.
EVIDENCE_ROWS_SHOWN = 6

FIRING = ACTIVE_STATUSES

KV_KEYS_IN_TEMPLATE = frozenset(
    {
        "bytes_per_token",
        "capacity_tokens",
        "capacity_sequences",
        "capacity_source",
        "mean_sequence_tokens",
        "kv_dtype",
        "block_size",
        "num_gpu_blocks",
        "block_bytes",
        "capacity_bytes",
        "demand_tokens",
        "demand_ratio",
        "cross_check",
        "model",
        "notes",
        "kv_cache_memory_bytes",
    }
)


# --------------------------------------------------------------------------- JSON


# --------------------------------------------------------------------------- Markdown


def _safe(fn: Callable[..., str]) -> Callable[..., Markup]:
    """Wrap a formatter whose output is safe by construction (digits, units) as Markup."""

    def wrapped(*args: object) -> Markup:
        return Markup(fn(*args))

    return wrapped


def _scalar_text(value: object) -> str:
    if value is None:
        return fmt.MISSING
    if isinstance(value, bool | int | float):
        return fmt.num(value)
    return str(value)


def _any_value(value: object) -> Markup:
    """A value of unknown kind (reproducer measurements, kv extras) formatted safely.

    Never raw JSON in a cell (an on-call reader cannot scan ``[{"concurrency": 1, ...``): a
    mapping reads "key value, key value", a list of scalars is comma-separated, and a list of
    records only says how many there are; :func:`_record_tables` lays those out as tables.
    """
    if value is None or isinstance(value, bool | int | float):
        return Markup(fmt.num(value)) if value is not None else Markup(fmt.MISSING)
    if isinstance(value, str):
        return escape_md(value)
    if isinstance(value, Mapping):
        parts = [
            f"{k} {_scalar_text(v)}" for k, v in sorted(value.items(), key=lambda i: str(i[0]))
        ]
        return escape_md("; ".join(parts) or "none", max_len=200)
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, Mapping) for v in value):
            return Markup(f"{len(value):,} rows, table below")
        return escape_md(", ".join(_scalar_text(v) for v in value) or "none", max_len=200)
    return escape_md(str(value), max_len=120)


def _measure(key: str, value: object) -> Markup:
    """An experiment's number in the report's units, chosen by its name: usage and hit rates as
    percent, ``*_s`` as a duration, ``*_bytes`` in IEC units."""
    number = _num_or_none(value)
    if number is not None and not isinstance(value, bool):
        lowered = key.lower()
        share = "usage" in lowered or "rate" in lowered or "fraction" in lowered
        if share and 0 <= number <= 1 and not lowered.endswith("per_s"):
            return Markup(fmt.pct(number))
        if lowered.endswith("_s") or lowered.endswith("_seconds"):
            return Markup(fmt.secs(number))
        if lowered.endswith("_bytes"):
            return Markup(fmt.nbytes(number))
    return _any_value(value)


def _records(value: JsonValue) -> list[JsonObject] | None:
    """``value`` as a list of records (JSON objects), or None when it is anything else."""
    if not isinstance(value, list) or not value:
        return None
    rows = [v for v in value if isinstance(v, dict)]
    return rows if len(rows) == len(value) else None


def _record_tables(values: Mapping[str, JsonValue]) -> tuple[RecordTable, ...]:
    """Lists of records among measured/expected values, as tables (columns: union of keys)."""
    tables: list[RecordTable] = []
    for name, value in values.items():
        records = _records(value)
        if records is None:
            continue
        columns: list[str] = []
        for row in records:
            columns.extend(str(k) for k in row if str(k) not in columns)
        tables.append(
            RecordTable(
                name=name,
                columns=tuple(escape_md(c) for c in columns),
                rows=tuple(tuple(_measure(c, row.get(c)) for c in columns) for row in records),
            )
        )
    return tuple(tables)


def _signal_value(name: str, value: object, unit: str | None = None) -> Markup:
    formatted = fmt.signal_value(name, value, unit)
    if formatted is None:
        return escape_md(value)
    return Markup(formatted)


@lru_cache(maxsize=4)
def _environment(template_dir: str) -> jinja2.Environment:
    # jinja2 only here: a JSON report (summary sentence included) renders no template.
    import jinja2

    from kvdoctor.report.bccache import bytecode_cache

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir),
        bytecode_cache=bytecode_cache(Path(__file__)),
        undefined=jinja2.StrictUndefined,
        # Autoescape only so macro results come back as Markup; finalize does the escaping.
        autoescape=True,
        finalize=_finalize,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        md=escape_md,
        code=code_span,
        trusted=escape_trusted,
        num=_safe(fmt.num),
        pct=_safe(fmt.pct),
        secs=_safe(fmt.secs),
        nbytes=_safe(fmt.nbytes),
        ratio=_safe(fmt.ratio),
        rate=_safe(fmt.rate),
        utc=_safe(fmt.utc),
        count=_count,
        anyval=_any_value,
        sval=_signal_value,
    )
    return env


def _template(template_dir: str | None) -> jinja2.Template:
    import jinja2

    env = _environment(template_dir or str(data_dir("templates")))
    try:
        return env.get_template(MARKDOWN_TEMPLATE)
    except jinja2.TemplateNotFound as exc:
        raise KvdoctorError(f"report template {exc.name!r} not found") from exc


def render_markdown(
    report: Report,
    context: RenderContext | None = None,
    *,
    template_dir: str | None = None,
    detail: Detail = "summary",
) -> str:
    """The incident report as GitHub-flavoured Markdown (deterministic bytes).

    ``detail="summary"`` (the default) keeps the first screen to what a ticket needs and folds
    everything else into ``<details>`` blocks; ``"full"`` prints every section unfolded, for
    trackers that do not fold.
    """
    if detail not in DETAILS:
        raise KvdoctorError(f"unknown detail level {detail!r} (use one of {', '.join(DETAILS)})")
    ctx = context or RenderContext()
    view = build_view(report, ctx, detail)
    text = _template(template_dir).render(
        {**view.as_template_vars(), "verdict_text": verdict_sentence(view)}
    )
    # Collapse runs of blank lines left by optional blocks, and end with exactly one newline.
    lines: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if line == "" and (not lines or lines[-1] == ""):
            continue
        lines.append(line)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- view model
#
# The template's inputs, typed: prepared values (Markup where a cell is formatted or escaped
# here, numbers and plain text where a filter or ``finalize`` formats them) and the cases the
# template words, never raw signals to judge. Built once per report and only read.
# NamedTuples, not frozen dataclasses: the same immutable records for ~1/4 of the class-creation
# cost (12 frozen slotted dataclasses were ~8 ms of every Markdown replay's start-up).


class EvidenceRow(NamedTuple):
    signal: str
    label: str
    value: Markup
    # Already says "not met: " where the value does not meet the stated condition.
    expected: Markup
    met: bool


class MeasureRow(NamedTuple):
    """One expected-vs-observed line of a reproducer."""

    name: str
    expected: Markup
    observed: Markup


class RecordTable(NamedTuple):
    """A list of records among a reproducer's numbers, laid out as a table."""

    name: str
    columns: tuple[Markup, ...]
    rows: tuple[tuple[Markup, ...], ...]


class ReproducerView(NamedTuple):
    name: str
    verdict: ReproducerVerdict
    # The record's summary without its final period (the template ends the sentence itself).
    summary: str
    rows: tuple[MeasureRow, ...]
    tables: tuple[RecordTable, ...]
    requests_sent: int | None
    aborted: str | None


# How a finding's status reads: what the status and its reproducer say together.
StatusCase = Literal[
    "confirmed-by-reproducer",
    "confirmed",
    "inconclusive-reproducer",
    "refuted-by-reproducer",
    "refuted",
    "suspected",
]


class FindingView(NamedTuple):
    rank: int
    f: Finding
    title: Markup
    remediation: tuple[Markup, ...]
    # Changes the bundle's own numbers rule out, each with what would have to be true.
    not_advised: tuple[Markup, ...]
    why_not: tuple[Markup, ...]
    basis: Markup | None
    ref: str
    # The rows that decided the finding first, then the conditions the window did not meet.
    evidence: tuple[EvidenceRow, ...]
    evidence_shown: tuple[EvidenceRow, ...]
    evidence_more: tuple[EvidenceRow, ...]
    reproducer: ReproducerView | None
    status_case: StatusCase


class SeriesStats(NamedTuple):
    """Percentiles of one series over the window's scrapes, and its sparkline."""

    p50: float | None
    p95: float | None
    p99: float | None
    chart: Markup | None
    n: int


class SeriesView(NamedTuple):
    kv_usage: SeriesStats
    running: SeriesStats
    waiting: SeriesStats
    preemptions: SeriesStats


class LatencyRow(NamedTuple):
    """A latency histogram's percentiles as the report states them (bucket bounds)."""

    p50: Markup
    p95: Markup
    p99: Markup


class LatencyView(NamedTuple):
    queue_time: LatencyRow
    ttft: LatencyRow
    prefill_time: LatencyRow
    itl: LatencyRow
    # The prefill p50's bucket lies wholly above the TTFT p50's: the histograms disagree.
    prefill_p50_disagrees: bool = False


class KvRow(NamedTuple):
    key: str
    label: str
    value: Markup


class EngineArgRow(NamedTuple):
    flag: Markup
    value: Markup


class ReportView(NamedTuple):
    """Everything ``report.md.j2`` reads, computed once by :func:`build_view`."""

    report: Report
    full: bool
    longest_prompt: Markup
    latency: LatencyView
    sig: Mapping[str, Scalar]
    ctx: RenderContext
    verdict: Verdict
    primary: FindingView | None
    primary_label: str
    change_label: str
    lead_is_note: bool
    findings: tuple[FindingView, ...]
    notes: tuple[FindingView, ...]
    ruled_out: tuple[FindingView, ...]
    verdict_case: VerdictCase
    card_full_reason: CardFullReason | None
    gpu_fraction: float | None
    # "cpu" / "gpu" / "unknown": the sentences name a GPU only where one may be.
    platform: Literal["cpu", "gpu", "unknown"]
    free_blocks_at_peak: int | None
    series: SeriesView
    kv_extra: tuple[KvRow, ...]
    kv: KvSection
    # The bytes per token also as an exact count, where the IEC figure rounds (≥ 1 KiB).
    kv_exact_bytes_per_token: bool
    # "on" / "off" / "unknown": whether the server caches prefixes.
    prefix_caching: Literal["on", "off", "unknown"]
    # Counters dropped during the window (the report says the server restarted).
    server_restarted: bool
    engine_args: tuple[EngineArgRow, ...]
    window_s: float | None
    healthy_evidence: tuple[EvidenceRow, ...]
    # Symptoms the evidence cannot decide (report/1.3), as the report states them, but the
    # one the first screen already states beside its unidentified primary finding.
    undecided: tuple[OpenQuestion, ...]
    # The open question of the primary finding's own symptom when no cause of it was
    # identified: the first screen states its differential, not the look-alikes' lines.
    primary_question: OpenQuestion | None = None

    def as_template_vars(self) -> dict[str, object]:
        """The fields as the template's globals, shallow (nested views stay views)."""
        return self._asdict()


def _series_values(ctx: RenderContext, name: str) -> list[float]:
    return [v for _, v in ctx.series.get(name, [])]


def _increments_per_s(samples: Sequence[tuple[float, float]]) -> list[float]:
    """Per-interval rate of a cumulative series; negative steps (a reset) count as zero."""
    rates: list[float] = []
    for (t0, v0), (t1, v1) in itertools.pairwise(samples):
        dt = t1 - t0
        if dt > 0:
            rates.append(max(0.0, v1 - v0) / dt)
    return rates


def _increments(samples: Sequence[tuple[float, float]]) -> list[float]:
    return [max(0.0, b[1] - a[1]) for a, b in itertools.pairwise(samples)]


def _stats(
    values: Sequence[float], chart: Sequence[float] | None = None, *, hi: float | None = None
) -> SeriesStats:
    drawn = list(values if chart is None else chart)
    return SeriesStats(
        p50=percentile(values, 0.50),
        p95=percentile(values, 0.95),
        p99=percentile(values, 0.99),
        chart=code_span(sparkline(drawn, hi=hi)) if drawn else None,
        n=len(values),
    )


def _record_for(finding: Finding, records: Sequence[ReproducerRecord]) -> ReproducerRecord | None:
    if finding.reproducer is None:
        return None
    # The same record the rule engine read to decide the finding's status (one rule for both).
    return newest_records(records).get(finding.reproducer.name)


def _comparison_rows(
    expected: Mapping[str, JsonValue], measured: Mapping[str, JsonValue]
) -> tuple[MeasureRow, ...]:
    # A measure with neither an expected nor an observed value says nothing: no row of dashes.
    keys = [k for k in expected if expected[k] is not None or measured.get(k) is not None]
    keys += [k for k in measured if k not in expected and measured[k] is not None]
    return tuple(
        MeasureRow(
            name=key,
            expected=_measure(key, expected[key]) if key in expected else Markup(fmt.MISSING),
            observed=_measure(key, measured[key]) if key in measured else Markup(fmt.MISSING),
        )
        for key in keys
    )


_LATENCY_PERCENTILE = re.compile(r"^(?P<h>[a-z_]+)_(?P<q>p50|p95|p99)$")
# A number compared in an `expected` text ("≥ 0.90: the pool fills up").
_FRACTION_IN_TEXT = re.compile(
    r"(?P<op>≥|≤|>|<|=|above|below|under|over)\s*(?P<x>0?\.\d+|[01](?:\.0+)?)(?![\d.%])"
)


def _expected_text(signal: str, text: str, unit: str | None = None) -> Markup:
    """An evidence row's expectation in the unit its value is shown in (percent for fractions)."""
    definition = SIGNALS.get(signal)
    if (definition.unit if definition is not None else unit) == "fraction":
        text = _FRACTION_IN_TEXT.sub(
            lambda m: f"{m.group('op')} {fmt.pct(float(m.group('x')))}", text
        )
    return _prose(text)


class _Numbers:
    """Signal values as the report states them: latency percentiles as bucket bounds."""

    def __init__(
        self,
        bounds: Mapping[str, Mapping[str, Bound]],
        units: Mapping[str, str] | None = None,
        signals: Mapping[str, Scalar] | None = None,
    ) -> None:
        self.bounds = bounds
        # Units of the rules' derived values (the catalog holds the signals' own).
        self.units = units or {}
        self.signals = signals or {}

    def ratio(self, name: str, value: object) -> str | None:
        """A ratio over an interpolated percentile as the range the buckets support."""
        sides = RATIOS_OF_PERCENTILES.get(name)
        ratio = _num_or_none(value)
        if sides is None or ratio is None or ratio <= 0:
            return None
        top_bound, bottom_bound = self.bound(sides[0]), self.bound(sides[1])
        if top_bound is None and bottom_bound is None:
            return None
        top = _num_or_none(self.signals.get(sides[0]))
        bottom = _num_or_none(self.signals.get(sides[1]))
        # A side the report does not hold (a derived reference) follows from the other and the
        # ratio itself.
        if bottom is None and top is not None:
            bottom = top / ratio
        if top is None and bottom is not None:
            top = bottom * ratio
        return ratio_range(top_bound or top, bottom_bound or bottom)

    def bound(self, name: str) -> Bound | None:
        m = _LATENCY_PERCENTILE.match(name)
        if m is None:
            return None
        return self.bounds.get(m.group("h"), {}).get(m.group("q"))

    def value(self, name: str, value: object) -> Markup:
        bound = self.bound(name)
        if bound is not None and _num_or_none(value) is not None:
            return Markup(bound.text())
        ranged = self.ratio(name, value)
        if ranged is not None:
            return Markup(ranged)  # digits, "between", "and", "at least", "×": safe as is
        return _signal_value(name, value, self.units.get(name))


def _evidence_row(ev: Evidence, numbers: _Numbers) -> EvidenceRow:
    value = numbers.value(ev.signal, ev.value)
    expected = _expected_text(ev.signal, ev.expected, numbers.units.get(ev.signal))
    # Whether the row's condition holds is the engine's answer, stored in the report
    # (``Evidence.met``), never read back out of the prose.
    met = ev.met is not False
    if not met:
        # A row that states a condition the value does not meet would read as a false sentence
        # ("2 | above the 2 sequences the pool holds"): say that it was not met.
        expected = Markup("not met: ") + expected
    # Reports before report/1.5 carry no label: the catalog's words, never the bare id.
    label = ev.label or (
        label_of(ev.signal) if ev.signal in SIGNALS else ev.signal.replace("_", " ")
    )
    return EvidenceRow(signal=ev.signal, label=label, value=value, expected=expected, met=met)


def _finding_view(
    finding: Finding, rank: int, records: Sequence[ReproducerRecord], numbers: _Numbers
) -> FindingView:
    record = _record_for(finding, records)
    reproducer: ReproducerView | None = None
    if finding.reproducer is not None:
        outcome = finding.reproducer
        expected: JsonObject = record.expected if record else {}
        measured = record.measured if record and record.measured else outcome.measured
        reproducer = ReproducerView(
            name=outcome.name,
            verdict=outcome.verdict,
            summary=plural_agreement(normalize_durations(record.summary)).rstrip(" .")
            if record
            else "",
            rows=_comparison_rows(expected, measured),
            tables=_record_tables({**expected, **measured}),
            requests_sent=record.requests_sent if record else None,
            aborted=record.aborted if record else None,
        )
    evidence = [_evidence_row(ev, numbers) for ev in finding.evidence]
    # The rows that decided the finding come first (the first screen shows six); a condition
    # the window did not meet is still listed, below them, and says so.
    decided = tuple([row for row in evidence if row.met] + [r for r in evidence if not r.met])
    # A row the capture could not fill ("—") never takes first-screen space: it stays in the
    # folded table, and the not-checked list says why it is missing.
    known = tuple(row for row in decided if row.value != fmt.MISSING)
    shown = known[:EVIDENCE_ROWS_SHOWN]
    return FindingView(
        rank=rank,
        status_case=_status_case(finding, reproducer),
        f=finding,
        title=_prose(finding.title),
        remediation=tuple(_prose(step) for step in finding.remediation),
        not_advised=tuple(_prose(line) for line in finding.not_advised),
        why_not=tuple(_prose(line) for line in finding.why_not),
        basis=_prose(finding.basis) if finding.basis else None,
        ref=f"{finding.symptom}/{finding.cause}",
        evidence=decided,
        evidence_shown=shown,
        evidence_more=tuple(row for row in decided if row not in shown),
        reproducer=reproducer,
    )


def _status_case(finding: Finding, reproducer: ReproducerView | None) -> StatusCase:
    if finding.status == "confirmed":
        return "confirmed-by-reproducer" if reproducer else "confirmed"
    if reproducer and reproducer.verdict == "inconclusive":
        return "inconclusive-reproducer"
    if finding.status == "refuted":
        return "refuted-by-reproducer" if reproducer else "refuted"
    return "suspected"


def _kv_label(key: str) -> str:
    return key.replace("_", " ")


def _kv_value(key: str, value: object) -> Markup:
    number = _num_or_none(value)
    if number is not None and not isinstance(value, bool):
        lowered = key.lower()
        if "bytes" in lowered:
            # The exact count only where the IEC figure rounds ("1.5 KiB (1,536 B)").
            exact = f" ({fmt.num(value)} B)" if number >= 1024 else ""
            return Markup(fmt.nbytes(value) + exact)
        if "fraction" in lowered or "utilization" in lowered:
            return Markup(fmt.pct(value))
        if "ratio" in lowered:
            return Markup(fmt.ratio(value))
    return _any_value(value)


def _kv_rows(kv: Mapping[str, object], prefix: str = "") -> list[KvRow]:
    rows: list[KvRow] = []
    for key, value in kv.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and not prefix:
            # One level of nesting reads fine as "section.key"; deeper stays a JSON cell.
            rows.extend(_kv_rows({str(k): v for k, v in value.items()}, prefix=f"{name}."))
        else:
            rows.append(KvRow(key=name, label=_kv_label(name), value=_kv_value(key, value)))
    return rows


def _engine_arg_rows(args: Mapping[str, JsonValue]) -> tuple[EngineArgRow, ...]:
    rows = []
    for key in sorted(args):
        value = args[key]
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        rows.append(EngineArgRow(flag=code_span(f"--{key}"), value=code_span(text, max_len=200)))
    return tuple(rows)


def _longest_prompt(sig: Mapping[str, Scalar], ctx: RenderContext) -> Markup:
    """The prompt histogram bounds the longest prompt from above, unless it fell into the +Inf
    bucket: then the largest finite bound is only a lower bound ("> 80")."""
    value = sig.get("max_prompt_len_seen")
    if _num_or_none(value) is None:
        return Markup(fmt.MISSING)
    info = ctx.signal_info.get("max_prompt_len_seen")
    lower = info is not None and "lower bound" in info.provenance
    return Markup(f"{'>' if lower else '≤'} {fmt.num(value)}")


def _latency_row(name: str, sig: Mapping[str, Scalar], numbers: _Numbers) -> LatencyRow:
    def at(q: str) -> Markup:
        return numbers.value(f"{name}_{q}", sig.get(f"{name}_{q}"))

    return LatencyRow(p50=at("p50"), p95=at("p95"), p99=at("p99"))


def _latency_view(sig: Mapping[str, Scalar], numbers: _Numbers) -> LatencyView:
    prefill = numbers.bounds.get("prefill_time", {}).get("p50")
    ttft = numbers.bounds.get("ttft", {}).get("p50")
    return LatencyView(
        queue_time=_latency_row("queue_time", sig, numbers),
        ttft=_latency_row("ttft", sig, numbers),
        prefill_time=_latency_row("prefill_time", sig, numbers),
        itl=_latency_row("itl", sig, numbers),
        prefill_p50_disagrees=(
            prefill is not None and ttft is not None and contradicts_ttft(prefill, ttft)
        ),
    )


def build_view(report: Report, ctx: RenderContext, detail: Detail = "summary") -> ReportView:
    """Everything the template needs, computed once (numbers stay numbers until a filter)."""
    sig = dict(report.signals)
    means = {name: _num_or_none(sig.get(f"{name}_mean")) for name in ctx.latency_buckets}
    numbers = _Numbers(percentile_bounds(ctx.latency_buckets, means), ctx.derived_units, sig)
    firing = [f for f in report.findings if f.status in FIRING]
    ruled_out = [f for f in report.findings if f.status == "refuted"]
    notes = [f for f in report.notes if f.status in FIRING]
    records = ctx.reproducers

    kv_max = _num_or_none(sig.get("kv_usage_max"))
    gpu_fraction = _num_or_none(sig.get("gpu_memory_used_fraction"))
    # The rules decided what the verdict sentence rests on (report/1.6); this only words it.
    facts = report.facts

    kv_series = ctx.series.get("kv_usage", [])
    preempt_series = ctx.series.get("preemptions", [])
    blocks = _num_or_none(sig.get("num_gpu_blocks"))
    free_blocks_at_peak = (
        round(blocks * (1.0 - kv_max)) if blocks is not None and kv_max is not None else None
    )
    series_stats = SeriesView(
        kv_usage=_stats([v for _, v in kv_series], hi=1.0),
        running=_stats(_series_values(ctx, "running")),
        waiting=_stats(_series_values(ctx, "waiting")),
        preemptions=_stats(_increments_per_s(preempt_series), chart=_increments(preempt_series)),
    )

    kv = report.kv.model_dump()
    # Keys of `kv` the template lays out by name; any other key still shows, as a generic row.
    extra_kv = {k: v for k, v in kv.items() if k not in KV_KEYS_IN_TEMPLATE and v is not None}
    findings_view = [_finding_view(f, i + 1, records, numbers) for i, f in enumerate(firing)]
    notes_view = [_finding_view(f, i + 1, records, numbers) for i, f in enumerate(notes)]
    # With no finding, the first note leads the report, labelled as a note (report/1.2): on a
    # healthy server it is what a reader asks about next (e.g. why 0 % prefix hits).
    lead = findings_view[0] if findings_view else (notes_view[0] if notes_view else None)
    lead_is_note = lead is not None and lead.f.severity == "info"
    # One row per ruled-out cause: two playbooks refuting the same cause read as one line.
    ruled_out_view: list[FindingView] = []
    for f in ruled_out:
        if all(v.ref != f"{f.symptom}/{f.cause}" for v in ruled_out_view):
            ruled_out_view.append(_finding_view(f, 0, records, numbers))
    primary_question = primary_question_of(report, None if lead is None else lead.f)
    return ReportView(
        report=report,
        full=detail == "full",
        longest_prompt=_longest_prompt(sig, ctx),
        latency=_latency_view(sig, numbers),
        sig=sig,
        ctx=ctx,
        verdict=report.verdict,
        primary=lead,
        # Info never sets the verdict (docs/report.md): at the top of a report it is a note on
        # expected behaviour, and "Primary finding" / "Change first" would read as a fault.
        primary_label=(
            "Note (expected behaviour, not a fault)" if lead_is_note else "Primary finding"
        ),
        change_label="If it matters" if lead_is_note else "Change first",
        lead_is_note=lead_is_note,
        findings=tuple(findings_view),
        # The notes not already leading the report.
        notes=tuple(notes_view if findings_view else notes_view[1:]),
        ruled_out=tuple(ruled_out_view),
        verdict_case=verdict_case(
            report.verdict,
            facts.card_full,
            facts.kv_full,
            None if lead is None else lead.f,
            sig.get("kv_usage_max"),
            facts.refused_start,
            idle=facts.idle_window,
        ),
        card_full_reason=facts.card_full_reason,
        gpu_fraction=gpu_fraction,
        platform=platform_of(sig),
        free_blocks_at_peak=free_blocks_at_peak,
        series=series_stats,
        kv_extra=tuple(r for r in _kv_rows(extra_kv) if r.value != fmt.MISSING),
        kv=report.kv,
        kv_exact_bytes_per_token=(
            report.kv.bytes_per_token is not None and report.kv.bytes_per_token >= 1024
        ),
        prefix_caching=(
            "on"
            if sig.get("prefix_caching") is True
            else "off"
            if sig.get("prefix_caching") is False
            else "unknown"
        ),
        server_restarted=facts.server_restarted,
        engine_args=_engine_arg_rows(ctx.engine_args),
        window_s=window_of(ctx),
        healthy_evidence=tuple(_evidence_row(ev, numbers) for ev in ctx.healthy_evidence),
        undecided=tuple(q for q in report.undecided if q is not primary_question),
        primary_question=primary_question,
    )
