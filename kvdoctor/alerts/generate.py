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
    BY,
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
from kvdoctor.rules.runtime import Cause, Condition, Group, Playbook
from kvdoctor.signals.catalog import SIGNALS

# `for:` by severity: a critical condition (stalls, OOM) pages sooner than a slow drift.
DEFAULT_FOR: dict[str, str] = {"critical": "2m", "warning": "5m", "info": "15m"}

# Where the runbook pages are served: no default. The pages are docs/runbooks/<playbook>.md
# (the same text as `kvdoctor explain <playbook>`; tests/unit/test_alerts_runbooks.py keeps them
# in step); a site that publishes them passes --runbook-url-base and each alert gets a
# ``runbook_url``. Without it the ``runbook`` annotation names the command that prints the page:
# a default URL would point readers at a repository this project does not own.
RUNBOOK_URL_BASE: str | None = None

# Preemption alerts fire on a rate that means harm, not on one event: at least this many
# preemptions in the window, and at least this many per finished request (each preemption
# throws away a running sequence's KV and recomputes it; one in twenty requests paying that
# is a user-visible slowdown, a single preemption under a burst is not).
PREEMPTION_MIN_EVENTS = 3
PREEMPTION_PER_REQUEST = 0.05
# Signals whose playbook clause "> 0" (or ">= 1") means "a preemption happened".
PREEMPTION_EVENT_SIGNALS = ("preemptions_seen", "preemptions_window")

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
    # When ``or`` makes the value one of several clauses: those clauses, in order (PromQL's
    # ``or`` keeps the left operand's value where it holds).
    alternatives: list[Condition | None] = field(default_factory=list)


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
    if name in PREEMPTION_EVENT_SIGNALS and _is_any_event(cond):
        return preemption_harm_expr(ctx)
    if name in CONFIG_LABELS:
        return config_expr(name, cond.op, value, ctx)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    lhs = bounded_signal_expr(name, cond.op, ctx)
    if lhs is None:
        return None
    return f"({lhs}) {cond.op} {number(value)}"


def _is_any_event(cond: Condition) -> bool:
    v = cond.value
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    return (cond.op == ">" and v < 1) or (cond.op == ">=" and v <= 1)


def preemption_harm_expr(ctx: Ctx) -> str:
    """Preemptions in the window, kept where they are frequent enough to harm (see
    PREEMPTION_MIN_EVENTS, PREEMPTION_PER_REQUEST); the value is the preemption count.

    A replica without the finished-requests counter is judged on the count alone
    (``or`` supplies a zero denominator, and at least one request is assumed)."""
    preempted = f"sum {BY} (increase({ctx.names.m('num_preemptions_total')}[{ctx.window}]))"
    finished = f"sum {BY} (increase({ctx.names.m('request_success_total')}[{ctx.window}]))"
    return (
        f"({preempted} >= {PREEMPTION_MIN_EVENTS}) and (({preempted}) / "
        f"clamp_min(({finished}) or (({preempted}) * 0), 1) >= {number(PREEMPTION_PER_REQUEST)})"
    )


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
    alternatives: list[Condition | None] = []

    def translate(clauses: list[Any]) -> list[Translation]:
        kept = []
        for c in clauses:
            t = _clause(c, ctx)
            skipped.extend(t.skipped)
            if t.expr is not None:
                kept.append(t)
        return kept

    all_kept = False
    if group.all:
        kept = translate(group.all)
        all_kept = bool(kept)
        if kept:
            positives.append(_join([t.expr for t in kept if t.expr], "and"))
            leads.append(kept[0].lead)
            alternatives = list(kept[0].alternatives)
    if group.any:
        kept = translate(group.any)
        if kept:
            positives.append(_join([t.expr for t in kept if t.expr], "or"))
            leads.append(kept[0].lead if len(kept) == 1 else None)
            if not all_kept:
                if len(kept) > 1:
                    alternatives = [t.lead for t in kept]
                else:
                    alternatives = list(kept[0].alternatives)
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
    return Translation(expr, skipped, leads[0], alternatives if leads[0] is None else [])


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


# How a value of each catalog unit is printed: the template (Go's printf, as Prometheus runs
# annotation templates) and the unit after it; thresholds in the same unit.
_UNIT_WORDS: dict[str, str] = {
    "s": "s",
    "s/token": "s per token",
    "1/s": "per second",
    "bytes": "bytes",
    "bytes/s": "bytes/s",
    "tokens": "tokens",
    "tokens/s": "tokens/s",
    "requests": "requests",
    "blocks": "blocks",
    "count": "",
    "ratio": "×",
    "r2": "",
}


def unit_of(signal: str) -> str:

    sig = SIGNALS.get(signal)
    return sig.unit if sig is not None else ""


def threshold_text(value: float, unit: str) -> str:
    if unit == "fraction":
        return f"{number(value * 100)} %"
    word = _UNIT_WORDS.get(unit, unit)
    if word == "×":
        return f"{number(value)}×"
    return f"{number(value)} {word}".rstrip()


def _value_of(unit: str) -> str:
    """``$value`` with its unit. Fractions stay the raw number with "(fraction of 1)": the
    template functions that would print a percentage differ across Prometheus releases."""
    if unit == "fraction":
        return f"{VALUE_TEMPLATE} (fraction of 1)"
    word = _UNIT_WORDS.get(unit, unit)
    if word == "×":
        return VALUE_TEMPLATE + "×"
    return f"{VALUE_TEMPLATE} {word}".rstrip()


def _subject(lead: Condition) -> str:
    """A clause's value in words with its unit, for a list of alternatives."""
    if lead.series:
        return f"share of the window with {lead.series} {lead.op} {number(float(lead.value or 0))}"
    subject = lead.signal or ""
    if subject in PREEMPTION_EVENT_SIGNALS and _is_any_event(lead):
        return "preemptions in the window"
    unit = unit_of(subject)
    word = "fraction of 1" if unit == "fraction" else _UNIT_WORDS.get(unit, unit) or unit
    return f"{subject} ({word})" if word else subject


def value_sentence(
    lead: Condition | None,
    config_state: bool,
    symptom_leads: dict[str, Condition | None],
    alternatives: Sequence[Condition | None] = (),
) -> str:
    """What ``$value`` is, in words and units (empty only for configuration states)."""
    if config_state:
        return ""
    if lead is None and alternatives and all(a is not None for a in alternatives):
        subjects = [_subject(a) for a in alternatives if a is not None]
        return (
            f"Value: {VALUE_TEMPLATE}, the first of these that holds: " + "; ".join(subjects) + "."
        )
    seen: set[str] = set()
    while (
        lead is not None
        and lead.signal
        and lead.signal.startswith("symptom_")
        and lead.signal not in seen
    ):
        seen.add(lead.signal)
        lead = symptom_leads.get(lead.signal)
    if lead is None:
        return (
            f"Value: {VALUE_TEMPLATE} (the first condition of the expression that holds; "
            "its unit is that condition's)."
        )
    if lead.series:
        threshold = float(lead.value or 0)
        unit = "fraction" if lead.series == "kv_usage" else ""
        return (
            f"Share of the window with {lead.series} {lead.op} {threshold_text(threshold, unit)}: "
            f"{VALUE_TEMPLATE} (fraction of 1)."
        )
    subject = lead.signal or ""
    unit = unit_of(subject)
    if subject in PREEMPTION_EVENT_SIGNALS and _is_any_event(lead):
        return (
            f"Preemptions in the window: {VALUE_TEMPLATE} (alerting from "
            f"{PREEMPTION_MIN_EVENTS} and {number(PREEMPTION_PER_REQUEST)} per finished request)."
        )
    if lead.value_from:
        return (
            f"{subject}: {_value_of(unit)} (playbook: {lead.op} {lead.value_from}"
            + (f" × {number(lead.scale)}" if lead.scale != 1.0 else "")
            + ")."
        )
    if isinstance(lead.value, bool) or not isinstance(lead.value, int | float):
        # A setting read from a label: the expression's value is 1 while it holds.
        return f"{subject} {lead.op} {lead.value!s} on this replica (value {VALUE_TEMPLATE})."
    return (
        f"{subject}: {_value_of(unit)} (playbook: {lead.op} "
        f"{threshold_text(float(lead.value), unit)})."
    )


_METRIC = re.compile(r"\b(?:ray_)?vllm:[a-zA-Z0-9_]+")


def is_config_state(expr: str, ctx: Ctx) -> bool:
    """True when the expression reads only engine settings (``cache_config_info``)."""
    return set(_METRIC.findall(expr)) == {ctx.names.m("cache_config_info")}


def inhibition_example() -> list[str]:
    """Header lines: the Alertmanager inhibition that keeps info alerts out of the way."""
    return [
        "Configuration-state alerts (severity: info) name a setting that risks harm (fp8 KV",
        "cache, prefix caching off); they hold as long as the setting does. Route severity=info",
        "to a non-paging receiver. The inhibition rules that go with these alerts (critical",
        "hides the warning of the same condition; a firing alert of a replica hides its info",
        "alerts) are written by `kvdoctor alerts --inhibit-rules FILE`, for alertmanager.yml.",
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
    runbook_url_base: str | None = RUNBOOK_URL_BASE,
) -> RuleSet:
    playbooks = list(playbooks)
    ctx = Ctx(names=names, window=window, resolution=resolution)
    symptom_leads: dict[str, Condition | None] = {}
    for pb in playbooks:
        if pb.detect is None:
            continue
        defaults = [b.when for b in pb.detect.bases if b.basis == "default"]
        if defaults:
            t = group_expr(Group(any=defaults), ctx)
            if t.expr is not None:
                ctx.symptoms[f"symptom_{pb.symptom.replace('-', '_')}"] = t.expr
                symptom_leads[f"symptom_{pb.symptom.replace('-', '_')}"] = t.lead
    base_url = runbook_url_base.rstrip("/") if runbook_url_base else None
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
            annotations = _annotations(pb, cause, t, config_state, ctx, base_url, symptom_leads)
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


def change_first_text(cause: Cause, lead: Condition | None, ctx: Ctx) -> str | None:
    """The change to make first, as an annotation. A report words it with the replica's own
    numbers; an alert has none of them, so it takes the first remediation (in the playbook's
    order) with a wording that needs no number only a bundle has (its text or a fallback),
    else the first one with its placeholders filled or dropped as in the description."""
    for rem in cause.remediation:
        # Advice given only where a condition holds (a pattern in the bundle) is no change to
        # make first on an alert, which cannot check it.
        if rem.when is not None:
            continue
        texts = [c for c in (rem.text, *rem.fallbacks) if c]
        plain = next((c for c in texts if not _PLACEHOLDER.search(c)), None)
        if plain is not None:
            return _one_line(plain)
        # A planner's change is computed from the bundle; the alert states the declared move.
        for move in rem.moves:
            if move.flag is not None and move.action in ("raise", "lower", "set", "remove"):
                target = f" ({move.target})" if move.target else ""
                return _one_line(f"{move.action.capitalize()} {move.flag}{target}: {move.effect}")
    worded = [c for rem in cause.remediation for c in (*rem.fallbacks, rem.text) if c is not None]
    if not worded:
        return None
    return _one_line(fill_placeholders(worded[-1], lead, ctx))


def _annotations(
    pb: Playbook,
    cause: Cause,
    t: Translation,
    config_state: bool,
    ctx: Ctx,
    base_url: str | None,
    symptom_leads: dict[str, Condition | None],
) -> dict[str, str]:
    # Engines of one data-parallel server share an instance; older vLLMs have no engine label.
    where = "{{ $labels.instance }}{{ with $labels.engine }} (engine {{ . }}){{ end }}"
    lead = t.lead
    description = fill_placeholders(cause.description, lead, ctx)
    value = value_sentence(lead, config_state, symptom_leads, t.alternatives)
    if config_state:
        value = "A configuration state: it holds until the setting changes."
    out = {
        "summary": f"{{{{ $labels.instance }}}}: {fill_placeholders(cause.title, lead, ctx)}",
        "description": " ".join(p for p in (f"{where}: {description}", value) if p),
    }
    change = change_first_text(cause, lead, ctx)
    if change:
        out["change_first"] = change
    out["runbook"] = f"kvdoctor explain {pb.id}"
    if base_url is not None:
        out["runbook_url"] = f"{base_url}/{pb.id}.md"
    return out


def inhibit_rules() -> list[dict[str, Any]]:
    """Alertmanager ``inhibit_rules`` shipped beside the rules (``kvdoctor alerts
    --inhibit-rules FILE``): the critical alert of a condition hides its warning (one page,
    not two), and a firing warning or critical of a replica hides its configuration-state
    (info) alerts."""
    replica = ["job", "namespace", "pod", "instance", "engine"]
    return [
        {
            "source_matchers": ['severity="critical"', 'kvdoctor_playbook=~".+"'],
            "target_matchers": ['severity="warning"', 'kvdoctor_playbook=~".+"'],
            "equal": ["kvdoctor_playbook", "kvdoctor_cause", *replica],
        },
        {
            "source_matchers": ['severity=~"warning|critical"', 'kvdoctor_playbook=~".+"'],
            "target_matchers": ['severity="info"', 'kvdoctor_playbook=~".+"'],
            "equal": replica,
        },
    ]


def render_inhibit_rules(header: str) -> str:
    """An Alertmanager configuration fragment: paste under (or merge into) alertmanager.yml."""
    out = [f"# {line}" if line else "#" for line in header.splitlines()]
    body = yaml.safe_dump({"inhibit_rules": inhibit_rules()}, sort_keys=False, width=1_000_000)
    return "\n".join(out) + "\n" + body


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
