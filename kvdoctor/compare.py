"""``kvdoctor compare``: is the finding gone after the change? (pure: two diagnoses in, one result)

The last step of an incident: BEFORE is the bundle the diagnosis came from, AFTER a bundle (or a
live capture) of the same server after the change, under the same workload. Each finding is
marked gone / better / same / worse / new; the fix is verified only when BEFORE's primary
finding is gone. The JSON form is ``kvdoctor.compare/1``; the Markdown is a section ready to
paste into the ticket (templates/compare.md.j2).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from kvdoctor.bundle.model import Bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.pipeline import Diagnosis
from kvdoctor.remediation import engine_config, plan
from kvdoctor.remediation.config import canonical_flag, normalize_args
from kvdoctor.remediation.constraints import SERVER_ONLY
from kvdoctor.report import fmt
from kvdoctor.report.bounds import range_text
from kvdoctor.report.escape import escape_md
from kvdoctor.report.model import Finding, LatencyBound, Scalar, Verdict
from kvdoctor.report.render import _environment
from kvdoctor.resources import data_dir
from kvdoctor.vocab import ACTIVE_STATUSES as FIRING
from kvdoctor.vocab import SEVERITY_RANK, STATUS_RANK, VERDICT_RANK

COMPARE_SCHEMA: Final = "kvdoctor.compare/1"
Result = Literal["gone", "better", "same", "worse", "new"]

# The numbers an on-call engineer reads first (the report's "six signals"), then the KV pool.
KEY_SIGNALS: tuple[str, ...] = (
    "kv_usage_max",
    "preemptions_window",
    "running_max",
    "waiting_max",
    "prefix_hit_rate_window",
    "ttft_p95",
    "itl_p95",
    "queue_time_p95",
    "kv_capacity_tokens",
    "num_gpu_blocks",
)
# Confidence moves this much or more before a finding counts as better or worse.
_CONFIDENCE_STEP = 0.05


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FindingState(_Strict):
    status: str
    severity: str
    confidence: float
    title: str


class FindingDelta(_Strict):
    id: str
    cause: str
    before: FindingState | None
    after: FindingState | None
    result: Result


class SignalDelta(_Strict):
    name: str
    before: Scalar
    after: Scalar
    # An interpolated latency percentile's bucket range on each side (the report's
    # ``latency``): the Markdown states these, never the point.
    before_range: LatencyBound | None = None
    after_range: LatencyBound | None = None


class FlagDelta(_Strict):
    flag: str
    before: Scalar
    after: Scalar


Applied = Literal["applied", "partly", "not applied", "unknown"]


class AdvisedEdit(_Strict):
    """One flag edit of BEFORE's "Change first" and what AFTER's flags show of it."""

    flag: str  # canonical, without dashes
    action: str  # remove | set | raise | lower
    advised: Scalar  # the value advised (None for remove)
    after: Scalar  # AFTER's value (None: not set)
    applied: Applied


class Comparison(_Strict):
    schema_: Literal["kvdoctor.compare/1"] = Field(default=COMPARE_SCHEMA, alias="schema")
    verified: bool
    primary: str | None  # "<id>/<cause>" of BEFORE's primary finding
    primary_result: Result | None
    change_first: str | None  # what BEFORE advised first
    verdict_before: Verdict
    verdict_after: Verdict
    findings: list[FindingDelta] = Field(default_factory=list)
    signals: list[SignalDelta] = Field(default_factory=list)
    flags: list[FlagDelta] = Field(default_factory=list)
    # What differs between the two servers (model, vLLM version) when --force compared them
    # anyway; empty for a like-for-like comparison.
    forced: list[str] = Field(default_factory=list)
    # Whether AFTER runs with BEFORE's "Change first": per flag edit and overall ("unknown"
    # when AFTER recorded no flags, or the change is not a flag edit).
    advised_edits: list[AdvisedEdit] = Field(default_factory=list)
    advised_applied: Applied = "unknown"
    # The primary finding got worse, or AFTER's verdict is worse than BEFORE's (exit code 3).
    regressed: bool = False

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# What makes BEFORE and AFTER the same server: the served model and the vLLM release.
IDENTITY: tuple[tuple[str, str], ...] = (("served_model", "model"), ("vllm_version", "vLLM"))


def mismatches(before: Diagnosis, after: Diagnosis) -> list[str]:
    """Why BEFORE and AFTER are not the same server (both sides known and different)."""
    out: list[str] = []
    for name, label in IDENTITY:
        b, a = before.report.signals.get(name), after.report.signals.get(name)
        if b is not None and a is not None and b != a:
            out.append(f"{label} {b} before, {a} after")
    return out


def _state(f: Finding) -> FindingState:
    return FindingState(
        status=f.status, severity=f.severity, confidence=f.confidence, title=f.title
    )


def _result(before: Finding | None, after: Finding | None) -> Result:
    b = before is not None and before.status != "refuted"
    a = after is not None and after.status != "refuted"
    if b and not a:
        return "gone"
    if a and not b:
        return "new"
    assert before is not None and after is not None
    # The ranking's orderings (kvdoctor.vocab): a larger rank is a milder finding.
    sb, sa = SEVERITY_RANK[before.severity], SEVERITY_RANK[after.severity]
    if sa != sb:
        return "better" if sa > sb else "worse"
    tb, ta = STATUS_RANK[before.status], STATUS_RANK[after.status]
    if ta != tb:
        return "better" if ta > tb else "worse"
    if after.confidence <= before.confidence - _CONFIDENCE_STEP:
        return "better"
    if after.confidence >= before.confidence + _CONFIDENCE_STEP:
        return "worse"
    return "same"


def _edit_applied(action: str, advised: Scalar, before: Scalar, after: Scalar) -> Applied:
    if action == "remove":
        return "applied" if after is None else "not applied"
    if after == advised:
        return "applied"
    nums = [v for v in (advised, before, after) if isinstance(v, int | float)]
    if len(nums) == 3 and not any(isinstance(v, bool) for v in nums):
        a, b, x = float(advised), float(before), float(after)  # type: ignore[arg-type]
        if (a > b and b < x < a) or (a < b and a < x < b):
            return "partly"  # moved the advised way, not as far
    return "not applied"


def advised_edits(
    edits: Sequence[tuple[str, str, Scalar, Scalar]], after: Diagnosis
) -> tuple[list[AdvisedEdit], Applied]:
    """Each (flag, action, value before, value advised) of BEFORE's first change against
    AFTER's recorded flags; the overall answer is "applied" only when every edit is."""
    recorded = after.context.engine_args
    if not edits or not recorded:
        return [], "unknown"
    args = normalize_args(dict(recorded))
    out = [
        AdvisedEdit(
            flag=flag,
            action=action,
            advised=value,
            after=args.get(flag),
            applied=_edit_applied(action, value, before, args.get(flag)),
        )
        for flag, action, before, value in edits
    ]
    states = {e.applied for e in out}
    overall: Applied = (
        "applied"
        if states == {"applied"}
        else "not applied"
        if states == {"not applied"}
        else "partly"
    )
    return out, overall


def advised_change(bundle: Bundle, d: Diagnosis) -> list[tuple[str, str, Scalar, Scalar]]:
    """The flag edits of ``d``'s "Change first" (its primary finding's first planned item),
    planned again from ``bundle`` as the report planned them: (flag, action, before, advised).
    Empty when the first item is not a flag edit (a client change, a text line)."""
    findings = [*d.report.findings, *d.report.notes]
    # The report's lead: the first live finding, else the first note (report/1.2).
    primary = next((i for i, f in enumerate(findings) if f.status in FIRING), None)
    if primary is None:
        return []
    cfg = engine_config(bundle, d.signals, d.report.kv)
    for p in plan(findings, cfg, d.signals):
        if p.index == primary and p.items:
            first = p.items[0].change
            if first is None:
                return []
            return [(canonical_flag(e.flag), e.action, e.before, e.after) for e in first.edits]
    return []


def _flags(before: Diagnosis, after: Diagnosis) -> list[FlagDelta]:
    b = normalize_args(dict(before.context.engine_args))
    a = normalize_args(dict(after.context.engine_args))
    out: list[FlagDelta] = []
    for flag in sorted(set(b) | set(a)):
        if canonical_flag(flag) in SERVER_ONLY or b.get(flag) == a.get(flag):
            continue
        out.append(FlagDelta(flag=flag, before=b.get(flag), after=a.get(flag)))
    return out


def compare(
    before: Diagnosis,
    after: Diagnosis,
    *,
    force: bool = False,
    advised: Sequence[tuple[str, str, Scalar, Scalar]] = (),
) -> Comparison:
    """BEFORE and AFTER side by side; verified only when the primary finding is gone.

    Two different servers (model or vLLM release) are refused (KvdoctorError, exit 2) unless
    ``force``; a forced comparison states what differs and is never verified.
    """

    differ = mismatches(before, after)
    if differ and not force:
        raise KvdoctorError(
            f"BEFORE and AFTER are different servers ({'; '.join(differ)}); compare the same "
            "server before and after the change, or pass --force"
        )
    rb, ra = before.report, after.report
    # Findings and notes alike: a report whose lead is a note (prefix caching off, no harm
    # measured) is verified when the note is gone after its change.
    listed_b, listed_a = [*rb.findings, *rb.notes], [*ra.findings, *ra.notes]
    by_key_b = {(f.id, f.cause): f for f in listed_b}
    by_key_a = {(f.id, f.cause): f for f in listed_a}
    keys = [(f.id, f.cause) for f in listed_b if f.status != "refuted"]
    keys += [(f.id, f.cause) for f in listed_a if f.status != "refuted" and f.id]
    seen: set[tuple[str, str]] = set()
    deltas: list[FindingDelta] = []
    for key in keys:
        if key in seen:
            continue
        seen.add(key)
        fb, fa = by_key_b.get(key), by_key_a.get(key)
        deltas.append(
            FindingDelta(
                id=key[0],
                cause=key[1],
                before=_state(fb) if fb is not None else None,
                after=_state(fa) if fa is not None else None,
                result=_result(fb, fa),
            )
        )
    leads = [f for f in rb.findings if f.status != "refuted"]
    leads = leads or [n for n in rb.notes if n.status != "refuted"]
    primary = leads[0] if leads else None
    primary_result = None
    if primary is not None:
        primary_result = next(
            d.result for d in deltas if (d.id, d.cause) == (primary.id, primary.cause)
        )
    names = list(KEY_SIGNALS)
    if primary is not None:
        names += [e.signal for e in primary.evidence if e.signal not in names]
    signals = [
        SignalDelta(
            name=n,
            before=rb.signals.get(n),
            after=ra.signals.get(n),
            before_range=rb.latency.get(n),
            after_range=ra.latency.get(n),
        )
        for n in names
        if rb.signals.get(n) is not None or ra.signals.get(n) is not None
    ]
    edits, applied = advised_edits(advised, after)
    regressed = primary_result in ("worse",) or (
        VERDICT_RANK[ra.verdict] < VERDICT_RANK[rb.verdict]  # a lower rank is worse
    )
    return Comparison(
        advised_edits=edits,
        advised_applied=applied,
        regressed=regressed,
        # A finding gone while AFTER's flags show the advised change was not made is not a
        # verified fix: something else changed (the traffic, another flag).
        verified=primary_result == "gone" and not differ and applied != "not applied",
        forced=differ,
        primary=f"{primary.id}/{primary.cause}" if primary is not None else None,
        primary_result=primary_result,
        change_first=primary.remediation[0]
        if primary is not None and primary.remediation
        else None,
        verdict_before=rb.verdict,
        verdict_after=ra.verdict,
        findings=deltas,
        signals=signals,
        flags=_flags(before, after),
    )


def render_json(c: Comparison) -> str:
    return json.dumps(c.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False) + "\n"


def render_markdown(c: Comparison, before_label: str, after_label: str) -> str:
    """The ticket section ("Fix verified" / "Fix not verified") from templates/compare.md.j2."""
    from markupsafe import Markup

    def sval(name: str, value: Scalar, bound: LatencyBound | None = None) -> Markup:
        if bound is not None and value is not None:
            # A bucket range, as `diagnose` states it, never the interpolated point.
            return Markup(range_text(bound.lo, bound.hi, bound.hi_from, bound.first_bucket))
        formatted = fmt.signal_value(name, value)
        return escape_md(value) if formatted is None else Markup(formatted)

    def flagval(value: Scalar) -> Markup:
        if value is None:
            return Markup("(not set)")
        if isinstance(value, bool):
            return Markup("on" if value else "off")
        return escape_md(str(value))

    env = _environment(str(data_dir("templates")))
    template = env.get_template("compare.md.j2")
    text = template.render(
        c=c, before_label=before_label, after_label=after_label, sval=sval, flagval=flagval
    )
    lines: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if line == "" and (not lines or lines[-1] == ""):
            continue
        lines.append(line)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"
