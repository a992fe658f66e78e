"""Prometheus alerting rules generated from the playbooks (``kvdoctor alerts``).

The rules are written for an Alertmanager setup: each alert has a ``runbook_url`` (the
playbook's page under docs/runbooks/, or under ``--runbook-url-base``), a summary and a
description filled from the firing series' labels and value (``{{ $labels.instance }}``,
``{{ $value }}``), and PromQL laid out on several lines. Alerts on a configuration state alone
(fp8 KV cache, prefix caching off: only ``cache_config_info`` in the expression) say what a
setting risks, not that harm happens, so they are ``severity: info`` and the file's header
shows the Alertmanager inhibition rule that hides them behind a real alert of the replica.

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

# Where the runbook pages live: docs/runbooks/<playbook>.md in kvdoctor's repository (the
# pages are `kvdoctor explain <playbook>`; tests/unit/test_alerts_runbooks.py keeps them in
# step). A site that mirrors them elsewhere passes --runbook-url-base.
RUNBOOK_URL_BASE = "https://github.com/kvdoctor/kvdoctor/blob/main/docs/runbooks"

# How a value is printed in an annotation (Go's printf, as Prometheus templates run it).
VALUE_TEMPLATE = '{{ printf "%.3g" $value }}'

# PromQL longer than this is laid out on several lines, one operand of and/or/unless a line.
EXPR_WIDTH = 120


@dataclass
class Translation:
    expr: str | None
    skipped: list[str] = field(default_factory=list)
    # The clause whose value the expression returns (``$value`` in annotations): the leftmost
    # operand of an ``and`` chain; None when an ``or`` makes it one of several.
    lead: Condition | None = None


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
    if expr is None:
        return Translation(None, [describe(clause)])
    return Translation(expr, [], clause)


def _join(parts: Sequence[str], op: str) -> str:
    if len(parts) == 1:
        return parts[0]
    return f" {op} ".join(f"({p})" for p in parts)


def group_expr(group: Group, ctx: Ctx) -> Translation:
    """``all`` → ``and``, ``any`` → ``or``, ``none`` → ``unless``; see the module doc."""
    skipped: list[str] = []
    positives: list[str] = []
    leads: list[Condition | None] = []

    def translate(clauses: list[Any]) -> list[Translation]:
        kept = []
        for c in clauses:
            t = _clause(c, ctx)
            skipped.extend(t.skipped)
            if t.expr is not None:
                kept.append(t)
        return kept

    if group.all:
        kept = translate(group.all)
        if kept:
            positives.append(_join([t.expr for t in kept if t.expr], "and"))
            leads.append(kept[0].lead)
    if group.any:
        kept = translate(group.any)
        if kept:
            positives.append(_join([t.expr for t in kept if t.expr], "or"))
            leads.append(kept[0].lead if len(kept) == 1 else None)
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
    return Translation(expr, skipped, leads[0])


def alert_name(playbook: Playbook, cause: Cause, suffix: str = "") -> str:
    words = f"{playbook.id}-{cause.id}".split("-")
    return "Kvdoctor" + "".join(w[:1].upper() + w[1:] for w in words if w) + suffix


def _one_line(text: str) -> str:
    return " ".join(text.split())


_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(?::[^{}]*)?\}")
_PARENTHESISED = re.compile(r"\s*\([^(){}]*\{([a-z_][a-z0-9_]*)(?::[^{}]*)?\}[^(){}]*\)")


def config_label_template(label: str, ctx: Ctx) -> str:
    """A Prometheus template printing an engine setting of the alerting replica.

    The alert's own labels lose ``cache_config_info``'s setting labels (the expression groups
    by replica), so the template looks the setting up when the alert fires.
    """
    metric = ctx.names.m("cache_config_info")
    query = f'printf "{metric}{{instance=%q}}" $labels.instance'
    return f'{{{{ with {query} | query }}}}{{{{ . | first | label "{label}" }}}}{{{{ end }}}}'


def fill_placeholders(text: str, lead: Condition | None, ctx: Ctx) -> str:
    """Playbook prose (its ``{signal}`` placeholders are filled per bundle) made an annotation.

    A placeholder becomes the alert's ``$value`` when it names the signal the expression
    returns, a lookup of the setting when it names an engine setting kept as a label, and is
    dropped (with its parenthesis) otherwise: an alert never shows an unfilled placeholder.
    """
    text = _one_line(text)
    lead_signal = lead.signal if lead is not None and lead.value_from is None else None

    def fill(name: str) -> str | None:
        if name == lead_signal:
            return VALUE_TEMPLATE
        if name in CONFIG_LABELS:
            return config_label_template(CONFIG_LABELS[name], ctx)
        return None

    def paren(m: re.Match[str]) -> str:
        if fill(m.group(1)) is not None:
            return m.group(0)
        return ""

    text = _PARENTHESISED.sub(paren, text)
    return _PLACEHOLDER.sub(lambda m: fill(m.group(1)) or m.group(1).replace("_", " "), text)


def value_sentence(lead: Condition | None, config_state: bool) -> str:
    """What ``$value`` is, in words (empty when the expression's value means nothing)."""
    if lead is None or config_state:
        return ""
    if lead.series:
        return (
            f"Share of the window with {lead.series} {lead.op} {number(float(lead.value or 0))}: "
            f"{VALUE_TEMPLATE}."
        )
    subject = lead.signal or ""
    if lead.value_from:
        return f"{subject}: {VALUE_TEMPLATE} (playbook: {lead.op} {lead.value_from})."
    if isinstance(lead.value, bool) or not isinstance(lead.value, int | float):
        return ""
    return f"{subject}: {VALUE_TEMPLATE} (playbook: {lead.op} {number(lead.value)})."


_METRIC = re.compile(r"\b(?:ray_)?vllm:[a-zA-Z0-9_]+")


def is_config_state(expr: str, ctx: Ctx) -> bool:
    """True when the expression reads only engine settings (``cache_config_info``)."""
    return set(_METRIC.findall(expr)) == {ctx.names.m("cache_config_info")}


def inhibition_example() -> list[str]:
    """Header lines: the Alertmanager inhibition that keeps info alerts out of the way."""
    return [
        "Configuration-state alerts (severity: info) name a setting that risks harm (fp8 KV",
        "cache, prefix caching off); they hold as long as the setting does. Route severity=info",
        "to a non-paging receiver, and let a firing alert of the same replica hide them, e.g. in",
        "alertmanager.yml:",
        "  inhibit_rules:",
        "    - source_matchers: ['severity=~\"warning|critical\"']",
        "      target_matchers: ['severity=\"info\"']",
        "      equal: [job, instance, engine]",
    ]


# Binary operators the layout breaks at, loosest binding first (PromQL precedence).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("or",),
    ("and", "unless"),
    ("==", "!=", ">=", "<=", ">", "<"),
    ("+", "-"),
    ("*", "/"),
)
_SET_OPS = ("and", "or", "unless")


def _split_top(expr: str, ops: tuple[str, ...]) -> list[str]:
    """``a and (b) or c`` → ["a", "and", "(b)", "or", "c"] for ``ops``: operators outside
    parentheses, brackets and quoted strings, written with a space on each side."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    while i < len(expr):
        ch = expr[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == " ":
            for op in ops:
                if expr.startswith(f" {op} ", i):
                    parts += [expr[start:i].strip(), op]
                    i += len(op) + 2
                    start = i
                    break
            else:
                i += 1
            continue
        i += 1
    parts.append(expr[start:].strip())
    return parts


def _wrapped(expr: str) -> bool:
    """True when the whole expression is one parenthesised group."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth = 0
    quote: str | None = None
    for i, ch in enumerate(expr):
        if quote:
            if ch == quote and expr[i - 1] != "\\":
                quote = None
            continue
        if ch in "\"'`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(expr) - 1:
                return False
    return True


def layout_promql(expr: str, indent: int = 0, width: int = EXPR_WIDTH) -> list[str]:
    """PromQL over several lines: each operand of and/or/unless on its own lines, long operands
    broken at their comparison or arithmetic operator, nested groups indented. Only whitespace
    changes (PromQL ignores it), so the meaning is the same."""
    pad = " " * indent
    if indent + len(expr) <= width:
        return [pad + expr]
    for ops in _LEVELS:
        parts = _split_top(expr, ops)
        if len(parts) > 1:
            break
    else:
        if _wrapped(expr):
            return [pad + "(", *layout_promql(expr[1:-1], indent + 2, width), pad + ")"]
        return [pad + expr]
    lines: list[str] = []
    pending: str | None = None
    for part in parts:
        if part in ops:
            if part in _SET_OPS:
                lines.append(pad + part)
            else:
                pending = part
            continue
        sub = layout_promql(part, indent, width)
        if pending is not None:
            # "… >= 1": a short right-hand side stays on the operator's line.
            if len(sub) == 1 and indent + len(pending) + 1 + len(part) <= width:
                sub = [f"{pad}{pending} {part}"]
            else:
                lines.append(pad + pending)
            pending = None
        lines.extend(sub)
    return lines


def generate(
    playbooks: Iterable[Playbook],
    names: MetricNames,
    window: str = "5m",
    resolution: str = "30s",
    for_override: str | None = None,
    runbook_url_base: str = RUNBOOK_URL_BASE,
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
    base_url = runbook_url_base.rstrip("/")
    alerts: list[AlertRule] = []
    missing: list[tuple[str, str, list[str]]] = []
    for pb in sorted(playbooks, key=lambda p: p.id):
        for cause in pb.causes:
            if cause.no_alert is not None:
                missing.append((pb.id, cause.id, [cause.no_alert]))
                continue
            t = group_expr(cause.when, ctx)
            if t.expr is None:
                missing.append((pb.id, cause.id, t.skipped))
                continue
            config_state = is_config_state(t.expr, ctx)
            severity = "info" if config_state else cause.severity
            labels = {
                "severity": severity,
                "symptom": pb.symptom,
                "kvdoctor_playbook": pb.id,
                "kvdoctor_cause": cause.id,
            }
            annotations = _annotations(pb, cause, t.lead, config_state, ctx, base_url)
            base = AlertRule(
                name=alert_name(pb, cause),
                expr=t.expr,
                for_=for_override or DEFAULT_FOR[severity],
                labels=labels,
                annotations=annotations,
                skipped=t.skipped,
                playbook=pb.id,
                cause=cause.id,
            )
            alerts.append(base)
            if cause.critical_when is not None and severity != "critical":
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


def _annotations(
    pb: Playbook,
    cause: Cause,
    lead: Condition | None,
    config_state: bool,
    ctx: Ctx,
    base_url: str,
) -> dict[str, str]:
    # Engines of one data-parallel server share an instance; older vLLMs have no engine label.
    where = "{{ $labels.instance }}{{ with $labels.engine }} (engine {{ . }}){{ end }}"
    description = fill_placeholders(cause.description, lead, ctx)
    value = value_sentence(lead, config_state)
    if config_state:
        value = "A configuration state: it holds until the setting changes."
    return {
        "summary": f"{{{{ $labels.instance }}}}: {fill_placeholders(cause.title, lead, ctx)}",
        "description": " ".join(p for p in (f"{where}: {description}", value) if p),
        "runbook_url": f"{base_url}/{pb.id}.md",
    }


def render_yaml(rules: RuleSet, header: str) -> str:
    """The rule file: a Prometheus ``groups:`` document, one group per playbook, with comments."""
    out: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
    if any(a.labels.get("severity") == "info" for a in rules.alerts):
        out.extend(f"# {line}" for line in inhibition_example())
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
            out.append(f"      - alert: {a.name}")
            out.append("        expr: |-")
            out.extend("          " + line for line in layout_promql(a.expr))
            rest = {k: v for k, v in a.to_dict().items() if k not in ("alert", "expr")}
            text = yaml.safe_dump(rest, sort_keys=False, width=1_000_000, allow_unicode=True)
            out.extend("        " + line for line in text.rstrip("\n").splitlines())
    return "\n".join(out) + "\n"


def runbook_pages(playbooks: Iterable[Playbook]) -> dict[str, str]:
    """``<playbook>.md`` → the page an alert's ``runbook_url`` points to (docs/runbooks/).

    The same text as ``kvdoctor explain <playbook>``, so the page on the web and the command
    on a terminal never disagree; tests/unit/test_alerts_runbooks.py keeps the files current.
    Fleet playbooks (``playbooks/fleet/``) get their pages too, for the fleet report's links.
    """
    from kvdoctor.rules.docs import runbook_md

    pages: dict[str, str] = {}
    for pb in sorted(playbooks, key=lambda p: p.id):
        folder = "playbooks/fleet" if pb.scope == "fleet" else "playbooks"
        source = f"{folder}/{pb.id}.yaml"
        header = (
            f"<!-- Generated by `kvdoctor alerts --write-runbooks docs/runbooks` from "
            f"{source}; do not edit by hand. -->\n\n"
        )
        pages[f"{pb.id}.md"] = header + runbook_md(pb)
    return pages
