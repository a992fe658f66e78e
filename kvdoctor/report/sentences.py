"""The report's verdict sentence, in Python: the Markdown report prints it and the JSON carries
it (report/1.1 ``summary``), so neither needs the other's machinery.

``--format json`` renders no template: this module imports no jinja2 (a test holds it so), and
``report.md.j2`` prints the sentence built here instead of wording it a second time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from markupsafe import Markup

from kvdoctor.report import fmt
from kvdoctor.report.escape import escape_md


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
        return Markup(
            f"The KV cache is full, not {gpu}: KV cache usage reached "
            f"{fmt.pct(sig.get('kv_usage_max'))} with "
            f"{count_phrase(sig.get('preemptions_window'), 'preemption')} in the window, "
            f"while {stayed}."
        )
    if case == "lead-kv-not-full" and view.primary is not None:
        return Markup(
            f"{finalize(view.primary.title)}, but the KV cache is not full: its usage peaked "
            f"at {fmt.pct(sig.get('kv_usage_max'))}."
        )
    if case == "lead" and view.primary is not None:
        return Markup(f"{finalize(view.primary.title)}.")
    return Markup("Nothing fires, but the evidence is too thin to call the server healthy.")
