"""Markdown for a fleet diagnosis: the per-replica table, then the usual incident report.

Values from Prometheus (replica names, label values) are untrusted and go through the
report's Markdown escaping; numbers through its deterministic formatters.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kvdoctor.fleet.diagnose import TABLE_COLUMNS
from kvdoctor.report import fmt
from kvdoctor.report.escape import escape_md
from kvdoctor.report.render import render_markdown

if TYPE_CHECKING:
    from kvdoctor.fleet.diagnose import FleetDiagnosis
    from kvdoctor.report.model import Report

_FORMAT = {
    "kv_usage_max": fmt.pct,
    "preemptions_window": fmt.num,
    "waiting_mean": fmt.num,
    "running_mean": fmt.num,
    "prompt_tokens_per_s": fmt.num,
    "ttft_p95": fmt.num,
    "num_gpu_blocks": fmt.num,
    "block_size": fmt.num,
}


def fleet_table_markdown(fd: FleetDiagnosis) -> str:
    o = fd.origin
    window = f"window {fmt.utc(o.start)} to {fmt.utc(o.end)}"
    if o.source == "prometheus":
        where = (
            f"Prometheus {escape_md(o.where)}, selector `{o.selector or '-'}`, "
            f"{window}, step {fmt.num(o.step_s)} s"
        )
    else:
        where = f"Endpoints scraped directly, {window}, every {fmt.num(o.step_s)} s"
    lines = [
        "## Fleet",
        "",
        f"{where}, {len(fd.replicas)} replica(s).",
        "",
        "| " + " | ".join(title for _, title in TABLE_COLUMNS) + " |",
        "|" + "|".join("---" for _ in TABLE_COLUMNS) + "|",
    ]
    for row in fd.table():
        cells = []
        for key, _ in TABLE_COLUMNS:
            value = row.get(key)
            formatter = _FORMAT.get(key)
            if formatter is not None:
                cells.append(formatter(value))
            else:
                cells.append(str(escape_md(fmt.MISSING if value is None else value)))
        lines.append("| " + " | ".join(cells) + " |")
    if fd.fleet_findings:
        lines += ["", "Fleet findings (comparing replicas):", ""]
        lines += [f"- {escape_md(f.title, max_len=500)}" for f in fd.fleet_findings]
    return "\n".join(lines) + "\n"


def render_fleet_markdown(fd: FleetDiagnosis) -> str:
    """The fleet section followed by the standard report of the fleet (deterministic)."""
    body = render_markdown(_escaped_for_markdown(fd), fd.fleet_context)
    return fleet_table_markdown(fd) + "\n" + body


_MD_ACTIVE = re.compile(r"[\\`*_\[\]|~<>&()!#]")


def _untrusted(fd: FleetDiagnosis) -> list[str]:
    """Strings Prometheus (or a replica) chose that fleet findings quote: replica names (pod
    labels) and the replicas' text settings (``cache_config_info`` label values)."""
    found: set[str] = set()
    for r in fd.replicas:
        found.add(r.key)
        found.update(v for v in r.signals.values() if isinstance(v, str))
    # Only those that could open Markdown; longest first, so a name inside another is not cut.
    return sorted((t for t in found if t and _MD_ACTIVE.search(t)), key=len, reverse=True)


def _escaped_for_markdown(fd: FleetDiagnosis) -> Report:
    """The fleet report with every untrusted string inside kvdoctor's own sentences escaped.

    Finding titles and evidence are kvdoctor's prose (rendered keeping their Markdown) with
    Prometheus-controlled values filled in: a pod named ``[Click to fix](https://evil/x)`` made
    a live link in the report's heading. Only the Markdown is changed; the JSON report keeps the
    values as they were.
    """
    texts = _untrusted(fd)
    if not texts:
        return fd.report
    pattern = re.compile("|".join(re.escape(t) for t in texts))

    def esc(text: str) -> str:
        return pattern.sub(lambda m: str(escape_md(m.group(0), max_len=None)), text)

    findings = [
        f.model_copy(
            update={
                "title": esc(f.title),
                "remediation": [esc(r) for r in f.remediation],
                "why_not": [esc(w) for w in f.why_not],
                "basis": None if f.basis is None else esc(f.basis),
                "evidence": [
                    # Values are escaped by the template already; expectations are prose.
                    e.model_copy(update={"expected": esc(e.expected)})
                    for e in f.evidence
                ],
            }
        )
        for f in fd.report.findings
    ]
    update: dict[str, object] = {"findings": findings}
    for key in ("summary", "change_first"):
        value = getattr(fd.report, key)
        if isinstance(value, str):
            update[key] = esc(value)
    return fd.report.model_copy(update=update)
