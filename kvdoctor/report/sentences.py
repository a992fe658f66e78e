"""The report's verdict sentence, in Python: the Markdown report prints it and the JSON carries
it (report/1.1 ``summary``, with ``change_first``), so neither needs the other's machinery.

``--format json`` renders no template: this module imports no jinja2 (a test holds it so), nor
the Markdown view (``report.render``): :func:`summary_sentence` reads the few things the sentence
needs straight from the report, and ``report.md.j2`` prints the same sentence built here from
the view instead of wording it a second time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from markupsafe import Markup

from kvdoctor.report import fmt
from kvdoctor.report.context import RenderContext
from kvdoctor.report.escape import escape_md, escape_trusted
from kvdoctor.report.model import CardFullReason, Finding, OpenQuestion, Report, Scalar, Verdict
from kvdoctor.vocab import ACTIVE_STATUSES, KV_POOL_CAUSES


class _Titled(Protocol):
    @property
    def title(self) -> Markup: ...


class _Undecided(Protocol):
    @property
    def symptom(self) -> str: ...


class VerdictInputs(Protocol):
    """What the verdict sentence reads of the report's view (``render.ReportView``)."""

    @property
    def verdict_case(self) -> str: ...
    @property
    def sig(self) -> Mapping[str, object]: ...
    @property
    def window_s(self) -> float | None: ...
    @property
    def platform(self) -> str: ...
    @property
    def card_full_reason(self) -> str | None: ...
    @property
    def gpu_fraction(self) -> float | None: ...
    @property
    def primary(self) -> _Titled | None: ...
    @property
    def undecided(self) -> Sequence[_Undecided]: ...


def count_phrase(value: object, one: str, many: str | None = None) -> Markup:
    """A number with its noun in the right number: "1 preemption", "0 preemptions"."""
    text = fmt.num(value)
    if value is None:
        return Markup(text)
    plural = many if many is not None else one + "s"
    single = isinstance(value, int | float) and not isinstance(value, bool) and value == 1
    return Markup(f"{text} {one if single else plural}")


def finalize(value: object) -> Markup:
    """A value as the report prints it: Markup as it is, numbers formatted, text escaped.

    Every `{{ }}` of the template passes through here: untrusted by default, so a template
    author who forgets a filter still produces a safe report.
    """
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup(fmt.MISSING)
    if isinstance(value, bool):
        return Markup("yes" if value else "no")
    if isinstance(value, int | float):
        return Markup(fmt.num(value))
    return escape_md(value)


def verdict_sentence(view: VerdictInputs) -> Markup:
    """The sentence after "**Verdict: …**", as Markdown (escaped; bold where it is bold)."""
    case = view.verdict_case
    sig = view.sig
    gpu = "the server's memory" if view.platform == "cpu" else "GPU memory"
    if case == "idle":
        return Markup(
            "The window saw no traffic: no request ran, waited or finished and no token was "
            f"counted in the {fmt.secs(view.window_s)} window, so nothing about the KV cache "
            "could be judged; capture again while the problem shows."
        )
    if case == "unknown":
        return Markup(
            "kvdoctor could not judge the KV cache from this capture: see *Not checked* below "
            "for what was missing."
        )
    if case == "inconclusive":
        return Markup(
            f"This capture cannot decide whether the {finalize(view.undecided[0].symptom)} below "
            "is a fault or what causes it, so the server is not called healthy."
        )
    if case == "healthy":
        preempted = sig.get("preemptions_window")
        preemptions: str
        if preempted is not None:
            preemptions = count_phrase(preempted, "preemption")
        elif sig.get("series_from_log") and sig.get("log_reports_preemptions"):
            # Read from the log alone: its scheduler warns at the first preemption.
            preemptions = "no preemption warning in the log (its scheduler warns at the first)"
        else:
            # A release without the preemption counter: the pool's peak is what rules it out.
            preemptions = (
                "no preemption possible (this release counts none; the pool never came near full)"
            )
        return Markup(
            f"The KV cache is fine: its usage peaked at {fmt.pct(sig.get('kv_usage_max'))}, "
            f"{preemptions} and at most "
            f"{count_phrase(sig.get('waiting_max'), 'waiting request')} in the window."
        )
    if case == "refused-start":
        fits = sig.get("log_estimated_max_model_len")
        holds = "" if fits is None else f", which holds {count_phrase(fits, 'token')}"
        full = "full memory" if view.platform == "cpu" else "a full card"
        return Markup(
            "The server refused to start: one request of max_model_len does not fit its KV "
            f"cache{holds} (vLLM's start-up check, not {full})."
        )
    if case == "card-full":
        memory = "The server's memory" if view.platform == "cpu" else "GPU memory"
        if view.card_full_reason == "no-cache-memory":
            reason = "the server found no memory left for KV cache blocks"
        elif view.card_full_reason == "oom-log":
            reason = "the server log shows an out-of-memory error"
        else:
            reason = f"GPU memory reached {fmt.pct(view.gpu_fraction)}"
        return Markup(f"{memory} is full, not just the KV cache: {reason}.")
    if case == "kv-full":
        stayed = (
            f"GPU memory stayed at {fmt.pct(view.gpu_fraction)}"
            if view.gpu_fraction is not None
            else "the server reported no out-of-memory error"
        )
        preempted = sig.get("preemptions_window")
        # A release without the preemption counter: say so rather than print a dash.
        preemptions = (
            f"{count_phrase(preempted, 'preemption')} in the window"
            if preempted is not None
            else "preemptions this release does not count"
        )
        return Markup(
            f"The KV cache is full, not {gpu}: KV cache usage reached "
            f"{fmt.pct(sig.get('kv_usage_max'))} with {preemptions}, while {stayed}."
        )
    if case == "lead-kv-full" and view.primary is not None:
        preempted = sig.get("preemptions_window")
        also = (
            f" with {count_phrase(preempted, 'preemption')} in the window"
            if preempted is not None
            else ""
        )
        return Markup(
            f"{finalize(view.primary.title)}. The KV cache had filled too: its usage reached "
            f"{fmt.pct(sig.get('kv_usage_max'))}{also}."
        )
    if case == "lead-kv-not-full" and view.primary is not None:
        return Markup(
            f"{finalize(view.primary.title)}, but the KV cache is not full: its usage peaked "
            f"at {fmt.pct(sig.get('kv_usage_max'))}."
        )
    if case == "lead" and view.primary is not None:
        return Markup(f"{finalize(view.primary.title)}.")
    return Markup("Nothing fires, but the evidence is too thin to call the server healthy.")


# --------------------------------------------------------------------------- kvdoctor's prose

# "fp8 (fp8)", "512 B (512 B)": a parenthesis that only repeats what stands before it.
_REPEATED_PAREN = re.compile(r"(?<!\S)(?P<w>[^\s()][^()]{0,40}?) \((?P=w)\)")


# Durations written by playbooks and experiments ("0.061 s", "1,500 ms"): restated the way the
# report states every duration (ms below one second, s above), so one unit per size.
_SECONDS_BELOW_ONE = re.compile(r"(?<![\d.,/])(?P<n>0\.\d+) s\b")
_MS_ABOVE_ONE_S = re.compile(r"(?<![\d.,/])(?P<n>\d[\d,]*(?:\.\d+)?) ms\b")


# "1 concurrent requests" in text recorded by an experiment or written by a playbook: one
# thing takes the singular noun (the template's own counts use the ``count`` filter).
_ONE_THINGS = re.compile(
    r"(?<![\d.,])1 ((?:[a-z-]+ )?)(request|token|sequence|preemption|block|scrape|prompt|step)s\b"
)


def plural_agreement(text: str) -> str:
    return _ONE_THINGS.sub(lambda m: f"1 {m.group(1)}{m.group(2)}", text)


def dedupe_parens(text: str) -> str:
    return _REPEATED_PAREN.sub(lambda m: m.group("w"), text)


def normalize_durations(text: str) -> str:
    def big_ms(m: re.Match[str]) -> str:
        ms = float(m.group("n").replace(",", ""))
        return fmt.secs(ms / 1000) if ms >= 1000 else m.group(0)

    text = _SECONDS_BELOW_ONE.sub(lambda m: fmt.secs(float(m.group("n"))), text)
    return _MS_ABOVE_ONE_S.sub(big_ms, text)


def prose(value: object) -> Markup:
    """kvdoctor's own prose (playbook titles, remediation) without repeated parentheses."""
    if isinstance(value, Markup):
        return value
    return escape_trusted(plural_agreement(normalize_durations(dedupe_parens(str(value)))))


# --------------------------------------------------------------------------- the verdict case

# Which verdict sentence the report opens with (the template holds one sentence per case).
VerdictCase = Literal[
    "idle",
    "unknown",
    "healthy",
    "inconclusive",
    "refused-start",
    "card-full",
    "kv-full",
    "lead-kv-full",
    "lead-kv-not-full",
    "lead",
    "too-thin",
]


def verdict_case(
    verdict: Verdict,
    card_full: bool,
    kv_full: bool,
    lead: Finding | None,
    kv_max: Scalar,
    refused_start: bool = False,
    idle: bool = False,
) -> VerdictCase:
    if verdict == "unknown":
        return "idle" if idle else "unknown"
    if verdict == "healthy":
        return "healthy"
    if verdict == "inconclusive":
        return "inconclusive"
    if refused_start:
        return "refused-start"
    if card_full:
        return "card-full"
    if kv_full:
        # The full pool is the headline only where it is the lead's story.
        if lead is None or lead.cause in KV_POOL_CAUSES:
            return "kv-full"
        return "lead-kv-full"
    if lead is not None:
        return "lead" if kv_max is None else "lead-kv-not-full"
    return "too-thin"


def num_or_none(value: object) -> float | None:
    """A finite number as a float, else ``None`` (booleans are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def platform_of(sig: Mapping[str, object]) -> Literal["cpu", "gpu", "unknown"]:
    """ "cpu" / "gpu" / "unknown": the sentences name a GPU only where one may be."""
    platform = sig.get("platform")
    return "cpu" if platform == "cpu" else "gpu" if platform == "gpu" else "unknown"


def window_of(ctx: RenderContext) -> float | None:
    """The capture window in seconds; ``None`` for none or an impossible one (the not-checked
    list says so)."""
    if ctx.started_at is None or ctx.ended_at is None:
        return None
    window_s = ctx.ended_at - ctx.started_at
    return window_s if math.isfinite(window_s) and window_s >= 0 else None


def lead_of(report: Report) -> Finding | None:
    """The finding the report leads with: the first firing one, else the first firing note
    (report/1.2: on a healthy server it is what a reader asks about next)."""
    for finding in (*report.findings, *report.notes):
        if finding.status in ACTIVE_STATUSES:
            return finding
    return None


def primary_question_of(report: Report, lead: Finding | None) -> OpenQuestion | None:
    """The open question of the lead's own symptom when no cause of it was identified: the
    first screen states its differential, not the look-alikes' lines."""
    if lead is None or lead.cause != "unidentified" or report.verdict == "inconclusive":
        return None
    return next((q for q in report.undecided if q.symptom == lead.symptom), None)


class _Lead:
    __slots__ = ("title",)

    def __init__(self, title: Markup) -> None:
        self.title = title


class _VerdictFacts:
    """:class:`VerdictInputs` read straight from a report, without the Markdown view."""

    __slots__ = (
        "card_full_reason",
        "gpu_fraction",
        "platform",
        "primary",
        "sig",
        "undecided",
        "verdict_case",
        "window_s",
    )

    def __init__(self, report: Report, ctx: RenderContext) -> None:
        sig = report.signals
        lead = lead_of(report)
        facts = report.facts
        primary_question = primary_question_of(report, lead)
        self.verdict_case: VerdictCase = verdict_case(
            report.verdict,
            facts.card_full,
            facts.kv_full,
            lead,
            sig.get("kv_usage_max"),
            facts.refused_start,
            idle=facts.idle_window,
        )
        self.sig: Mapping[str, object] = sig
        self.window_s = window_of(ctx)
        self.platform: str = platform_of(sig)
        self.card_full_reason: CardFullReason | None = facts.card_full_reason
        self.gpu_fraction = num_or_none(sig.get("gpu_memory_used_fraction"))
        self.primary = None if lead is None else _Lead(prose(lead.title))
        self.undecided: Sequence[OpenQuestion] = tuple(
            q for q in report.undecided if q is not primary_question
        )


_MD_ESCAPE = re.compile(r"\\([\\`*_\[\]|~<>&])")


def summary_sentence(report: Report, context: RenderContext | None = None) -> str:
    """The verdict sentence of the Markdown report as plain text (the JSON ``summary``)."""
    ctx = context or RenderContext()
    text = str(verdict_sentence(_VerdictFacts(report, ctx)))
    return _MD_ESCAPE.sub(r"\1", text.replace("**", "")).strip()


def change_first(report: Report) -> str | None:
    """The primary finding's first remediation line (the JSON ``change_first``)."""
    firing = [f for f in report.findings if f.status in ACTIVE_STATUSES]
    if not firing or not firing[0].remediation:
        return None
    return dedupe_parens(" ".join(firing[0].remediation[0].split()))
