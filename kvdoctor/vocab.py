"""The words of the report/1 contract, defined once (DESIGN.md §4).

Symptoms, finding statuses, severities, overall verdicts and reproducer verdicts are used by the
rules, the experiments, the report models and the renderers; each vocabulary lives here so that
a grep finds one definition and the type checker holds every other use to it.
"""

from __future__ import annotations

from typing import Final, Literal

Symptom = Literal["preemption", "high-ttft", "slow-itl", "prefix-miss", "gpu-oom", "quant-quality"]
SYMPTOMS: tuple[Symptom, ...] = (
    "preemption",
    "high-ttft",
    "slow-itl",
    "prefix-miss",
    "gpu-oom",
    "quant-quality",
)
Status = Literal["confirmed", "suspected", "refuted"]
Severity = Literal["critical", "warning", "info"]
Verdict = Literal["healthy", "degraded", "critical", "inconclusive", "unknown"]

# The orderings of the ranking contract (DESIGN.md §4, docs/contracts.md): strongest first.
# Every module that sorts or compares findings reads these; a test fails on a module that
# spells an ordering out again.
STATUSES: tuple[Status, ...] = ("confirmed", "suspected", "refuted")
SEVERITIES: tuple[Severity, ...] = ("critical", "warning", "info")
STATUS_RANK: Final[dict[str, int]] = {s: i for i, s in enumerate(STATUSES)}
SEVERITY_RANK: Final[dict[str, int]] = {s: i for i, s in enumerate(SEVERITIES)}
# A fleet's overall verdict is its worst replica's: worst first.
VERDICT_ORDER: tuple[Verdict, ...] = ("critical", "degraded", "inconclusive", "healthy", "unknown")
VERDICT_RANK: Final[dict[str, int]] = {v: i for i, v in enumerate(VERDICT_ORDER)}
# A finding that fires: it sets the verdict and exit code (unless info), and gets an experiment.
ACTIVE_STATUSES: tuple[Status, ...] = ("confirmed", "suspected")

# What an experiment concluded about one cause (or overall).
ReproducerVerdict = Literal["confirmed", "refuted", "inconclusive"]
CONFIRMED: Final = "confirmed"
REFUTED: Final = "refuted"
INCONCLUSIVE: Final = "inconclusive"
REPRODUCER_VERDICTS: tuple[ReproducerVerdict, ...] = (CONFIRMED, REFUTED, INCONCLUSIVE)
