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

# What an experiment concluded about one cause (or overall).
ReproducerVerdict = Literal["confirmed", "refuted", "inconclusive"]
CONFIRMED: Final = "confirmed"
REFUTED: Final = "refuted"
INCONCLUSIVE: Final = "inconclusive"
REPRODUCER_VERDICTS: tuple[ReproducerVerdict, ...] = (CONFIRMED, REFUTED, INCONCLUSIVE)
