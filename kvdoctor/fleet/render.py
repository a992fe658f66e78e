"""Markdown for a fleet diagnosis: the per-replica table, then the usual incident report.

Values from Prometheus (replica names, label values) are untrusted and go through the
report's Markdown escaping; numbers through its deterministic formatters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvdoctor.fleet.diagnose import TABLE_COLUMNS
from kvdoctor.report import fmt
from kvdoctor.report.escape import escape_md
from kvdoctor.report.render import render_markdown

if TYPE_CHECKING:
    from kvdoctor.fleet.diagnose import FleetDiagnosis

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
    body = render_markdown(fd.report, fd.fleet_context)
    return fleet_table_markdown(fd) + "\n" + body
