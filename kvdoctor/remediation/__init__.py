"""Remediation: concrete, vLLM-valid flag edits with predicted effects, per finding.

Called by the pipeline (``remediate`` right after the rules), never calling it: a whole
diagnosis with its plans is :func:`kvdoctor.pipeline.plan_bundle`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath.section import KvSection
from kvdoctor.remediation.config import EngineConfig, engine_config
from kvdoctor.remediation.planner import Change, FindingPlan, apply_plans, plan
from kvdoctor.report.model import Finding
from kvdoctor.signals.model import SignalSet

if TYPE_CHECKING:
    from kvdoctor.rules.runtime import Playbook

__all__ = [
    "Change",
    "EngineConfig",
    "FindingPlan",
    "engine_config",
    "plan",
    "remediate",
]


def remediate(
    findings: Sequence[Finding],
    bundle: Bundle,
    signals: SignalSet,
    kv: KvSection,
    playbooks: Sequence[Playbook] | None = None,
) -> list[Finding]:
    """``findings`` with each remediation list replaced by the planned changes (pure).

    ``playbooks``: the ones the findings came from (default: loaded again)."""
    cfg = engine_config(bundle, signals, kv)
    return apply_plans(findings, cfg, plan(findings, cfg, signals, playbooks))
