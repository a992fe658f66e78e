"""Remediation: concrete, vLLM-valid flag edits with predicted effects, per finding."""

from __future__ import annotations

from collections.abc import Sequence

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath.section import KvSection
from kvdoctor.remediation.config import EngineConfig, engine_config
from kvdoctor.remediation.planner import Change, FindingPlan, apply_plans, plan
from kvdoctor.report.model import Finding
from kvdoctor.signals.model import SignalSet

__all__ = [
    "Change",
    "EngineConfig",
    "FindingPlan",
    "engine_config",
    "plan",
    "plan_bundle",
    "remediate",
]


def remediate(
    findings: Sequence[Finding], bundle: Bundle, signals: SignalSet, kv: KvSection
) -> list[Finding]:
    """``findings`` with each remediation list replaced by the planned changes (pure)."""
    cfg = engine_config(bundle, signals, kv)
    return apply_plans(findings, cfg, plan(findings, cfg, signals))


def plan_bundle(bundle: Bundle) -> tuple[EngineConfig, list[Finding], list[FindingPlan]]:
    """Diagnose ``bundle`` and return its configuration, findings and notes, and their plans.

    The plans are the same objects the report's remediation lines were rendered from (the
    planner only rewrites remediation, so planning the final findings again is identical); tests,
    the lab proof and the benchmark read the flag sets from here.
    """
    from kvdoctor.pipeline import diagnose

    d = diagnose(bundle)
    cfg = engine_config(bundle, d.signals, d.report.kv)
    # Findings then notes (report/1.2), planned together as the pipeline plans them.
    advised = [*d.report.findings, *d.report.notes]
    return cfg, advised, plan(advised, cfg, d.signals)
