"""Renderers: pure functions from a :class:`Report` (plus its :class:`RenderContext`) to bytes.

All prose and layout live in ``templates/*.j2``; this module only prepares numbers (window
percentiles, sparklines, evidence formatting) so the templates stay readable. Jinja runs with
``StrictUndefined`` and a ``finalize`` hook that escapes every value not explicitly marked safe,
so text from the server can never break a table or inject HTML into a ticket.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup

from kvdoctor.errors import KvdoctorError
from kvdoctor.report import fmt
from kvdoctor.report.context import RenderContext
from kvdoctor.report.escape import code_span, escape_md, escape_trusted
from kvdoctor.report.model import Finding, Report
from kvdoctor.report.sparkline import percentile, sparkline
from kvdoctor.reproducers.model import ReproducerRecord, newest_records
from kvdoctor.resources import data_dir

MARKDOWN_TEMPLATE = "report.md.j2"

# Thresholds of the verdict sentence only (the rules decide findings; this decides wording).
KV_FULL_FRACTION = 0.9
CARD_FULL_FRACTION = 0.98

FIRING = ("confirmed", "suspected")

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


def render_json(report: Report) -> str:
    """The ``kvdoctor.report/1`` object as indented JSON with a trailing newline.

    Key order is the model's field order (``schema`` first) and the rule engine's ranking;
    ``signals`` arrive sorted by name. NaN/Infinity are not JSON: the pipeline turns them into
    ``null`` with a reason, and a report that still carries one is a bug, reported as such.
    """
    try:
        text = json.dumps(report.to_json_dict(), indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise KvdoctorError(f"report holds a non-finite number and cannot be JSON: {exc}") from exc
    return text + "\n"


# --------------------------------------------------------------------------- Markdown


def _safe(fn: Callable[..., str]) -> Callable[..., Markup]:
    """Wrap a formatter whose output is safe by construction (digits, units) as Markup."""

    def wrapped(*args: Any) -> Markup:
        return Markup(fn(*args))

    return wrapped


def _finalize(value: Any) -> Any:
    # Every `{{ }}` passes through here: untrusted by default, so a template author who forgets
    # a filter still produces a safe report.
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup(fmt.MISSING)
    if isinstance(value, bool):
        return Markup("yes" if value else "no")
    if isinstance(value, int | float):
        return Markup(fmt.num(value))
    return escape_md(value)


def _any_value(value: Any) -> Markup:
    """A value of unknown kind (reproducer measurements, kv extras) formatted safely."""
    if value is None or isinstance(value, bool | int | float):
        return Markup(fmt.num(value)) if value is not None else Markup(fmt.MISSING)
    if isinstance(value, str):
        return escape_md(value)
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return code_span(text, max_len=120)


def _signal_value(name: str, value: Any) -> Markup:
    formatted = fmt.signal_value(name, value)
    if formatted is None:
        return escape_md(value)
    return Markup(formatted)


@lru_cache(maxsize=4)
def _environment(template_dir: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir),
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
        anyval=_any_value,
        sval=_signal_value,
    )
    return env


def render_markdown(
    report: Report, context: RenderContext | None = None, *, template_dir: str | None = None
) -> str:
    """The incident report as GitHub-flavoured Markdown (deterministic bytes)."""
    ctx = context or RenderContext()
    env = _environment(template_dir or str(data_dir("templates")))
    try:
        template = env.get_template(MARKDOWN_TEMPLATE)
    except jinja2.TemplateNotFound as exc:
        raise KvdoctorError(f"report template {exc.name!r} not found") from exc
    text = template.render(**build_view(report, ctx))
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


def _num_or_none(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


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
) -> dict[str, Any]:
    drawn = list(values if chart is None else chart)
    return {
        "p50": percentile(values, 0.50),
        "p95": percentile(values, 0.95),
        "p99": percentile(values, 0.99),
        "chart": code_span(sparkline(drawn, hi=hi)) if drawn else None,
        "n": len(values),
    }


def _record_for(finding: Finding, records: Sequence[ReproducerRecord]) -> ReproducerRecord | None:
    if finding.reproducer is None:
        return None
    # The same record the rule engine read to decide the finding's status (one rule for both).
    return newest_records(records).get(finding.reproducer.name)


def _comparison_rows(expected: Mapping[str, Any], measured: Mapping[str, Any]) -> list[Any]:
    keys = list(expected) + [k for k in measured if k not in expected]
    return [
        {
            "name": key,
            "expected": _any_value(expected[key]) if key in expected else Markup(fmt.MISSING),
            "observed": _any_value(measured[key]) if key in measured else Markup(fmt.MISSING),
        }
        for key in keys
    ]


def _finding_view(finding: Finding, rank: int, records: Sequence[ReproducerRecord]) -> Any:
    record = _record_for(finding, records)
    reproducer: dict[str, Any] | None = None
    if finding.reproducer is not None:
        outcome = finding.reproducer
        expected = record.expected if record else {}
        measured = record.measured if record and record.measured else outcome.measured
        reproducer = {
            "name": outcome.name,
            "verdict": outcome.verdict,
            "summary": record.summary if record else "",
            "rows": _comparison_rows(expected, measured),
            "requests_sent": record.requests_sent if record else None,
            "aborted": record.aborted if record else None,
        }
    return {
        "rank": rank,
        "f": finding,
        "ref": f"{finding.symptom}/{finding.cause}",
        "evidence": [
            {
                "signal": ev.signal,
                "value": _signal_value(ev.signal, ev.value),
                "expected": ev.expected,
            }
            for ev in finding.evidence
        ],
        "reproducer": reproducer,
    }


def _kv_label(key: str) -> str:
    return key.replace("_", " ")


def _kv_value(key: str, value: Any) -> Markup:
    number = _num_or_none(value)
    if number is not None and not isinstance(value, bool):
        lowered = key.lower()
        if "bytes" in lowered:
            exact = f" ({fmt.num(value)} B)" if number >= 1024 else ""
            return Markup(fmt.nbytes(value) + exact)
        if "fraction" in lowered or "utilization" in lowered:
            return Markup(fmt.pct(value))
        if "ratio" in lowered:
            return Markup(fmt.ratio(value))
    return _any_value(value)


def _kv_rows(kv: Mapping[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for key, value in kv.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and not prefix:
            # One level of nesting reads fine as "section.key"; deeper stays a JSON cell.
            rows.extend(_kv_rows(value, prefix=f"{name}."))
        else:
            rows.append({"key": name, "label": _kv_label(name), "value": _kv_value(key, value)})
    return rows


def _engine_arg_rows(args: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for key in sorted(args):
        value = args[key]
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        rows.append({"flag": code_span(f"--{key}"), "value": code_span(text, max_len=200)})
    return rows


def build_view(report: Report, ctx: RenderContext) -> dict[str, Any]:
    """Everything the template needs, computed once (numbers stay numbers until a filter)."""
    sig = dict(report.signals)
    firing = [f for f in report.findings if f.status in FIRING]
    ruled_out = [f for f in report.findings if f.status == "refuted"]
    primary = firing[0] if firing else None
    records = ctx.reproducers

    kv_max = _num_or_none(sig.get("kv_usage_max"))
    gpu_fraction = _num_or_none(sig.get("gpu_memory_used_fraction"))
    card_full = (
        sig.get("log_oom") is True
        or sig.get("log_no_cache_memory") is True
        or (gpu_fraction is not None and gpu_fraction >= CARD_FULL_FRACTION)
        or (primary is not None and primary.symptom == "gpu-oom")
    )
    kv_full = kv_max is not None and kv_max >= KV_FULL_FRACTION

    kv_series = ctx.series.get("kv_usage", [])
    preempt_series = ctx.series.get("preemptions", [])
    blocks = _num_or_none(sig.get("num_gpu_blocks"))
    free_blocks_at_peak = (
        round(blocks * (1.0 - kv_max)) if blocks is not None and kv_max is not None else None
    )
    series_stats = {
        "kv_usage": _stats([v for _, v in kv_series], hi=1.0),
        "running": _stats(_series_values(ctx, "running")),
        "waiting": _stats(_series_values(ctx, "waiting")),
        "preemptions": _stats(_increments_per_s(preempt_series), chart=_increments(preempt_series)),
    }

    # Keys of `kv` the template lays out by name; any other key still shows, as a generic row.
    extra_kv = {
        k: v for k, v in report.kv.items() if k not in KV_KEYS_IN_TEMPLATE and v is not None
    }
    findings_view = [_finding_view(f, i + 1, records) for i, f in enumerate(firing)]
    ruled_out_view = [_finding_view(f, 0, records) for f in ruled_out]
    window_s = (
        ctx.ended_at - ctx.started_at
        if ctx.started_at is not None and ctx.ended_at is not None
        else None
    )
    return {
        "report": report,
        "sig": sig,
        "ctx": ctx,
        "verdict": report.verdict,
        "primary": findings_view[0] if findings_view else None,
        "primary_finding": primary,
        "findings": findings_view,
        "ruled_out": ruled_out_view,
        "kv_full": kv_full,
        "card_full": card_full,
        "gpu_fraction": gpu_fraction,
        "free_blocks_at_peak": free_blocks_at_peak,
        "series": series_stats,
        "kv_extra": [r for r in _kv_rows(extra_kv) if r["value"] != fmt.MISSING],
        "kv": report.kv,
        "engine_args": _engine_arg_rows(ctx.engine_args),
        "window_s": window_s,
        "healthy_evidence": [
            {
                "signal": ev.signal,
                "value": _signal_value(ev.signal, ev.value),
                "expected": ev.expected,
            }
            for ev in ctx.healthy_evidence
        ],
    }
