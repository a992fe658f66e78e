"""Which experiments test which findings: the playbooks' one map, and the run plan from it.

Reads the experiment catalog (:mod:`kvdoctor.experiment_catalog`), never the experiments'
code: planning a live run and saying in a replayed report why an experiment has no result both
work without importing httpx or asyncio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kvdoctor.experiment_catalog import DEFAULT_SET, EXPERIMENTS
from kvdoctor.report.model import Finding
from kvdoctor.rules.runtime import Playbook
from kvdoctor.vocab import ACTIVE_STATUSES


def experiment_of(playbooks: Sequence[Playbook]) -> Callable[[Finding], str | None]:
    """The experiment that tests a finding, as the playbooks name it (the one map).

    A cause's own ``reproducer`` (None: no experiment can test that cause); a finding no cause
    produced (a symptom whose cause was not identified) gets its playbook's ``reproducer``.
    """
    by_cause = {(pb.id, c.id): c.reproducer for pb in playbooks for c in pb.causes}
    by_symptom = {pb.symptom: pb.reproducer for pb in playbooks if pb.scope == "replica"}

    def lookup(finding: Finding) -> str | None:
        key = (finding.id, finding.cause)
        if key in by_cause:
            return by_cause[key]
        return by_symptom.get(finding.symptom)

    return lookup


def plan_for(
    findings: Sequence[Finding],
    allow_load: bool,
    has_reference: bool,
    playbooks: Sequence[Playbook],
) -> list[str]:
    """The experiments that test the suspected (or confirmed) findings, in a stable order.

    Experiments that cannot run here (load without ``allow_load``, no reference endpoint) are
    left out. With nothing suspected, a light default set that can show a healthy server healthy.
    """
    lookup = experiment_of(playbooks)
    wanted: list[str] = []
    active = [f for f in findings if f.status in ACTIVE_STATUSES]
    for f in active:
        name = lookup(f)
        if name is None or name not in EXPERIMENTS or name in wanted:
            continue
        spec = EXPERIMENTS[name]
        if (spec.needs_load and not allow_load) or (spec.needs_reference and not has_reference):
            continue
        wanted.append(name)
    if not active:
        wanted = list(DEFAULT_SET)
        if has_reference:
            wanted.append("quant-canary")
    return wanted
