"""Where the summary goes: a generic webhook, a GitHub or GitLab issue comment, Slack.

The summary (``kvdoctor.alert-summary/1``) is what a responder reads first: the verdict, the
primary finding, the change to make first, and the link to the full report; after the alert
resolves, the ``compare`` of before and after. Each sink gets it in its own shape:

* ``webhook``: the summary object as JSON;
* ``github`` / ``gitlab``: ``{"body": "<Markdown>"}`` — the issue-comment (GitHub) and
  issue-note (GitLab) APIs take exactly that;
* ``slack``: an incoming-webhook message (``text`` fallback plus one mrkdwn section).

Payloads are pure functions of the summary (same summary, same bytes). Delivery is one POST
with the sink's credential from its environment variable; a failure is reported, never raised
past the job, and a sink that received a summary is not sent it again after a restart.
"""

from __future__ import annotations

import json
import os
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from kvdoctor.alerting.config import SinkConfig, SinkKind
from kvdoctor.bundle.redact import Redactor

SUMMARY_SCHEMA: Final = "kvdoctor.alert-summary/1"
DELIVERY_TIMEOUT_S = 15.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PrimaryFinding(_Strict):
    id: str
    cause: str
    symptom: str
    status: str
    severity: str
    title: str
    replica: str | None = None


class CompareResult(_Strict):
    verified: bool
    primary: str | None
    primary_result: str | None
    verdict_before: str
    verdict_after: str


class Summary(_Strict):
    schema_: Literal["kvdoctor.alert-summary/1"] = Field(default=SUMMARY_SCHEMA, alias="schema")
    kind: Literal["diagnosis", "compare"]
    group: str  # the group's fingerprint
    episode: str
    alertnames: list[str]
    replicas: list[str]
    verdict: str
    sentence: str | None = None
    primary: PrimaryFinding | None = None
    change_first: str | None = None
    compare: CompareResult | None = None
    report_url: str
    # Replicas left out (rate limit, not resolvable) and why, one line each.
    skipped: list[str] = Field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), indent=2) + "\n"


def _headline(s: Summary) -> str:
    names = ", ".join(s.alertnames) or "alert"
    if s.kind == "compare" and s.compare is not None:
        state = "fix verified" if s.compare.verified else "fix not verified"
        return f"kvdoctor: {names} resolved: {state}"
    return f"kvdoctor: {names}: {s.verdict}"


def markdown(s: Summary) -> str:
    """The comment text for an issue tracker (GitHub and GitLab Markdown alike)."""
    lines = [f"### {_headline(s)}", ""]
    if s.replicas:
        lines.append(f"Replicas: {', '.join(f'`{r}`' for r in s.replicas)}")
        lines.append("")
    if s.kind == "compare" and s.compare is not None:
        c = s.compare
        lines.append(f"Verdict before: **{c.verdict_before}**; after: **{c.verdict_after}**.")
        if c.primary:
            lines.append(f"Primary finding `{c.primary}`: **{c.primary_result or 'not seen'}**.")
    else:
        if s.sentence:
            lines.append(s.sentence)
            lines.append("")
        if s.primary is not None:
            p = s.primary
            where = f" on `{p.replica}`" if p.replica else ""
            lines.append(
                f"**Primary finding**{where}: {p.title} (`{p.id}/{p.cause}`, {p.status}, "
                f"{p.severity})"
            )
        if s.change_first:
            lines.append(f"**Change first**: {s.change_first}")
    for why in s.skipped:
        lines.append(f"- not investigated: {why}")
    lines += ["", f"Full report: {s.report_url}"]
    return "\n".join(lines) + "\n"


def slack_text(s: Summary) -> str:
    """Slack's mrkdwn (single asterisks for bold, <url|text> links)."""
    text = markdown(s).replace("**", "*").replace("### ", "*", 1)
    first, _, rest = text.partition("\n")
    return f"{first}*\n{rest}".replace(
        f"Full report: {s.report_url}", f"<{s.report_url}|Full report>"
    )


def payload(kind: SinkKind, s: Summary) -> dict[str, Any]:
    """The JSON body a sink of ``kind`` receives."""
    if kind == "webhook":
        body: dict[str, Any] = s.model_dump(mode="json", by_alias=True)
        return body
    if kind in ("github", "gitlab"):
        return {"body": markdown(s)}
    text = slack_text(s)
    return {
        "text": _headline(s),
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text[:2900]}}],
    }


def headers(sink: SinkConfig) -> dict[str, str]:
    out = {"Content-Type": "application/json", "User-Agent": "kvdoctor"}
    token = os.environ.get(sink.token_env, "") if sink.token_env else ""
    if not token:
        return out
    if sink.kind == "gitlab":
        out["PRIVATE-TOKEN"] = token
    else:
        out["Authorization"] = f"Bearer {token}"
    if sink.kind == "github":
        out["Accept"] = "application/vnd.github+json"
    return out


def deliver(sink: SinkConfig, s: Summary) -> str | None:
    """POST the summary; None when the sink took it (2xx), else why not (one line)."""
    import httpx

    sent = headers(sink)
    scrub = Redactor(
        secrets=[v for k, v in sent.items() if k in ("Authorization", "PRIVATE-TOKEN")]
    )
    body = json.dumps(payload(sink.kind, s), sort_keys=True).encode("utf-8")
    try:
        resp = httpx.post(sink.url, content=body, headers=sent, timeout=DELIVERY_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return scrub.text(f"{type(exc).__name__}: {exc}")[:300]
    if 200 <= resp.status_code < 300:
        return None
    return scrub.text(f"HTTP {resp.status_code}: {' '.join(resp.text.split())}")[:300]
