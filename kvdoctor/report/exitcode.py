"""The one exit-code rule of a report (``kvdoctor diagnose`` and the report checker share it).

Its own small module: ``diagnose --bundle`` needs the rule, not the report checker's patterns.
"""

from __future__ import annotations

from kvdoctor.report.model import Report
from kvdoctor.vocab import ACTIVE_STATUSES, SEVERITY_RANK

_FIRING = ACTIVE_STATUSES


def exit_code_for(report: Report, fail_on: str | None = None) -> int:
    """0 nothing firing, 1 a confirmed or suspected finding that sets the verdict.

    ``info`` findings never set the verdict or the exit code (docs/report.md): a healthy report
    with an informational note exits 0. With ``fail_on`` only findings of at least that severity
    count (a CI gate).
    """
    # SEVERITY_RANK: critical 0, warning 1, info 2; info never counts.
    ceiling = min(1, SEVERITY_RANK[fail_on]) if fail_on is not None else 1
    firing = [
        f for f in report.findings if f.status in _FIRING and SEVERITY_RANK[f.severity] <= ceiling
    ]
    # An undecided symptom is not "nothing firing": someone has to collect what decides it; nor
    # is a capture that could not be judged (docs/cli.md: 0 only for a healthy verdict).
    if report.verdict in ("inconclusive", "unknown") and fail_on is None:
        return 1
    return 1 if firing else 0
