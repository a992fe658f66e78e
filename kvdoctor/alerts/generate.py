"""Prometheus alerting rules generated from the playbooks (``kvdoctor alerts``).

One alert per playbook cause whose condition PromQL can state. Clauses PromQL cannot state
(named predicates, reproducer measurements, log/GPU/model-config signals, numeric tests on
engine settings that only exist as labels) are left out and *named in a comment above the
alert*: dropping a clause of an ``all`` group makes the alert broader than the playbook, so
the reader must know. A cause left with no expressible positive clause gets no alert, and the
file's header lists it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from kvdoctor.alerts.promql import (
    CONFIG_LABELS,
    Ctx,
    MetricNames,
    bounded_signal_expr,
    config_expr,
    number,
    predicate_expr,
    series_expr,
    signal_expr,
)
from kvdoctor.rules.schema import Cause, Condition, Group, Playbook

# `for:` by severity: a critical condition (stalls, OOM) pages sooner than a slow drift.
DEFAULT_FOR: dict[str, str] = {"critical": "2m", "warning": "5m", "info": "15m"}


@dataclass
class Translation:
    expr: str | None
    skipped: list[str] = field(default_factory=list)


@dataclass
class AlertRule:
    name: str
    expr: str
    for_: str
    labels: dict[str, str]
    annotations: dict[str, str]
    skipped: list[str]
    playbook: str
    cause: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "alert": self.name,
            "expr": self.expr,
            "for": self.for_,
            "labels": self.labels,
            "annotations": self.annotations,
        }


@dataclass
class RuleSet:
    alerts: list[AlertRule]
    not_expressible: list[tuple[str, str, list[str]]]  # (playbook, cause, clauses skipped)
    names: MetricNames
    window: str


def describe(cond: Condition) -> str:
    """A clause as one line of text, for the "skipped" comments."""
    if cond.predicate:
        return f"predicate {cond.predicate}"
    subject = cond.signal or cond.measured or f"series {cond.series}"
    kind = "measured " if cond.measured else ""
    rhs = (
        f"{cond.value_from}" + (f" × {number(cond.scale)}" if cond.scale != 1.0 else "")
        if cond.value_from
        else repr(cond.value)
    )
    tail = f" for {number(cond.for_fraction)} of the window" if cond.for_fraction else ""
    return f"{kind}{subject} {cond.op} {rhs}{tail}"


def condition_expr(cond: Condition, ctx: Ctx) -> str | None:
    if cond.measured:
        return None  # a reproducer's measurement: exists only in a bundle
    if cond.predicate:
        return predicate_expr(cond.predicate, ctx)
    assert cond.op is not None  # the schema requires an op for every non-predicate clause
    if cond.series:
        if cond.for_fraction is None or not isinstance(cond.value, int | float):
            return None
        return series_expr(cond.series, cond.op, float(cond.value), cond.for_fraction, ctx)
    name = cond.signal or ""
    if name.startswith("symptom_"):
        # Only "the symptom is present" translates; absence has no alert of its own.
        if cond.op == "==" and cond.value is True:
            return ctx.symptoms.get(name)
        return None
    if cond.value_from is not None:
        lhs, rhs = signal_expr(name, ctx), signal_expr(cond.value_from, ctx)
        if lhs is None or rhs is None:
            return None
        scaled = f"({rhs})" if cond.scale == 1.0 else f"({rhs}) * {number(cond.scale)}"
        return f"({lhs}) {cond.op} {scaled}"
    value = cond.value
    if name in CONFIG_LABELS:
        return config_expr(name, cond.op, value, ctx)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    lhs = bounded_signal_expr(name, cond.op, ctx)
    if lhs is None:
        return None
    return f"({lhs}) {cond.op} {number(value)}"


def _clause(clause: Condition | Group, ctx: Ctx) -> Translation:
    if isinstance(clause, Group):
        return group_expr(clause, ctx)
    expr = condition_expr(clause, ctx)
    return Translation(expr, [] if expr is not None else [describe(clause)])


def _join(parts: Sequence[str], op: str) -> str:
    if len(parts) == 1:
        return parts[0]
    return f" {op} ".join(f"({p})" for p in parts)


def group_expr(group: Group, ctx: Ctx) -> Translation:
    """``all`` → ``and``, ``any`` → ``or``, ``none`` → ``unless``; see the module doc."""
    skipped: list[str] = []
    positives: list[str] = []

    def translate(clauses: list[Any]) -> list[str]:
        kept = []
        for c in clauses:
            t = _clause(c, ctx)
            skipped.extend(t.skipped)
            if t.expr is not None:
                kept.append(t.expr)
        return kept

    if group.all:
        kept = translate(group.all)
        if kept:
            positives.append(_join(kept, "and"))
    if group.any:
        kept = translate(group.any)
        if kept:
            positives.append(_join(kept, "or"))
        elif not group.all:
            return Translation(None, skipped)
    if not positives:
        return Translation(None, skipped)
    expr = _join(positives, "and")
    if group.none:
        negatives = []
        for c in group.none:
            t = _clause(c, ctx)
            skipped += t.skipped
            if t.expr is not None:
                negatives.append(t.expr)
        if negatives:
            expr = f"({expr}) unless ({_join(negatives, 'or')})"
    return Translation(expr, skipped)


def alert_name(playbook: Playbook, cause: Cause, suffix: str = "") -> str:
    words = f"{playbook.id}-{cause.id}".split("-")
    return "Kvdoctor" + "".join(w[:1].upper() + w[1:] for w in words if w) + suffix


def _one_line(text: str) -> str:
    return " ".join(text.split())


_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(?::[^{}]*)?\}")


def _annotation(text: str) -> str:
    """Playbook prose with its ``{signal}`` placeholders (filled per bundle) as ``<signal>``:
    an alert has no bundle, and Prometheus would read the braces as template syntax."""
    return _PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", _one_line(text))


def generate(
    playbooks: Iterable[Playbook],
    names: MetricNames,
    window: str = "5m",
    resolution: str = "30s",
    for_override: str | None = None,
) -> RuleSet:
    playbooks = list(playbooks)
    ctx = Ctx(names=names, window=window, resolution=resolution)
    for pb in playbooks:
        if pb.detect is None:
            continue
        defaults = [b.when for b in pb.detect.bases if b.basis == "default"]
        if defaults:
            t = group_expr(Group(any=defaults), ctx)
            if t.expr is not None:
                ctx.symptoms[f"symptom_{pb.symptom.replace('-', '_')}"] = t.expr
    alerts: list[AlertRule] = []
    missing: list[tuple[str, str, list[str]]] = []
    for pb in sorted(playbooks, key=lambda p: p.id):
        for cause in pb.causes:
            t = group_expr(cause.when, ctx)
            if t.expr is None:
                missing.append((pb.id, cause.id, t.skipped))
                continue
            labels = {
                "severity": cause.severity,
                "symptom": pb.symptom,
                "kvdoctor_playbook": pb.id,
                "kvdoctor_cause": cause.id,
            }
            annotations = {
                "summary": _annotation(cause.title),
                "description": _annotation(cause.description),
                "runbook": f"kvdoctor explain {pb.id}",
            }
            base = AlertRule(
                name=alert_name(pb, cause),
                expr=t.expr,
                for_=for_override or DEFAULT_FOR[cause.severity],
                labels=labels,
                annotations=annotations,
                skipped=t.skipped,
                playbook=pb.id,
                cause=cause.id,
            )
            alerts.append(base)
            if cause.critical_when is not None and cause.severity != "critical":
                crit = _clause(cause.critical_when, ctx)
                if crit.expr is not None:
                    alerts.append(
                        AlertRule(
                            name=alert_name(pb, cause, "Critical"),
                            expr=f"({t.expr}) and ({crit.expr})",
                            for_=for_override or DEFAULT_FOR["critical"],
                            labels={**labels, "severity": "critical"},
                            annotations=annotations,
                            skipped=t.skipped + crit.skipped,
                            playbook=pb.id,
                            cause=cause.id,
                        )
                    )
    return RuleSet(alerts, missing, names, window)


def render_yaml(rules: RuleSet, header: str) -> str:
    """The rule file: a Prometheus ``groups:`` document, one group per playbook, with comments."""
    out: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
    if rules.not_expressible:
        out.append("# Causes without an alert (no condition PromQL can state):")
        for pb, cause, skipped in rules.not_expressible:
            why = "; ".join(skipped) if skipped else "no positive condition"
            out.append(f"#   {pb}/{cause}: {_one_line(why)}")
    out.append("groups:")
    if not rules.alerts:
        out[-1] = "groups: []"
        return "\n".join(out) + "\n"
    by_group: dict[str, list[AlertRule]] = {}
    for a in rules.alerts:
        by_group.setdefault(a.playbook, []).append(a)
    for group, alerts in by_group.items():
        out.append(f"  - name: kvdoctor-{group}")
        out.append("    rules:")
        for a in alerts:
            if a.skipped:
                out.append(
                    "      # Left out of this alert (PromQL cannot state them; "
                    "the playbook checks them):"
                )
                for s in a.skipped:
                    out.append(f"      #   - {_one_line(s)}")
            text = yaml.safe_dump(
                [a.to_dict()], sort_keys=False, width=1_000_000, allow_unicode=True
            )
            out.extend("      " + line for line in text.rstrip("\n").splitlines())
    return "\n".join(out) + "\n"
