"""Runbooks of the fleet findings: ``kvdoctor explain fleet-imbalance`` and the rules listing.

The fleet findings compare replicas (kvdoctor/fleet/diagnose.py), so unlike the playbooks their
conditions are Python; their prose lives in ``playbooks/fleet/runbooks.yaml`` (shipped in the
wheel with the playbooks) under the small schema below. Thresholds in the prose are
placeholders filled from the code's own constants, so the text says what the code does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kvdoctor.errors import KvdoctorError
from kvdoctor.report.model import SYMPTOMS
from kvdoctor.rules.schema import RUNBOOK_SECTIONS

FLEET_RUNBOOKS_SCHEMA = "kvdoctor.fleet-runbooks/1"
RUNBOOKS_FILE = ("fleet", "runbooks.yaml")  # under the playbooks data directory
# The column the rules listings show for these rows ("symptom" of the playbooks).
FLEET_GROUP = "fleet"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def parameters() -> dict[str, str]:
    """The values the prose's ``{placeholders}`` stand for, from the fleet code itself."""
    from kvdoctor.fleet import diagnose as d

    return {
        "hot_waiting_mean": f"{d.HOT_WAITING_MEAN:g}",
        "cool_kv_usage_max": f"{d.COOL_KV_USAGE_MAX:.0%}",
        "load_skew": f"{d.LOAD_SKEW:g}",
        "load_signals": ", ".join(d.LOAD_SIGNALS),
        "drift_settings": ", ".join([name for name, _ in d.DRIFT_SETTINGS] + ["metric names"]),
        "stale_steps": "2",
    }


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunbookText(_Strict):
    meaning: str
    impact: str
    diagnosis: str
    mitigation: str


class FleetCause(_Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    severity: str = Field(pattern=r"^(critical|warning|info)$")
    remediation: list[str] = Field(min_length=1)


class FleetRunbook(_Strict):
    id: str = Field(pattern=r"^fleet-[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=1)
    symptoms: list[str] = Field(min_length=1)
    inspect_first: list[str] = Field(min_length=1)
    runbook: RunbookText
    cause: FleetCause

    @field_validator("symptoms")
    @classmethod
    def _symptoms(cls, value: list[str]) -> list[str]:
        unknown = [s for s in value if s not in SYMPTOMS]
        if unknown:
            raise ValueError(f"unknown symptom(s) {unknown} (known: {', '.join(SYMPTOMS)})")
        return value

    @field_validator("inspect_first")
    @classmethod
    def _signals(cls, value: list[str]) -> list[str]:
        from kvdoctor.signals.catalog import SIGNALS

        unknown = [s for s in value if s not in SIGNALS]
        if unknown:
            raise ValueError(f"unknown signal(s) {unknown}")
        return value


class FleetRunbooks(_Strict):
    schema_: str = Field(alias="schema")
    runbooks: list[FleetRunbook] = Field(min_length=1)

    @field_validator("schema_")
    @classmethod
    def _schema(cls, value: str) -> str:
        if value != FLEET_RUNBOOKS_SCHEMA:
            raise ValueError(f"expected {FLEET_RUNBOOKS_SCHEMA}, got {value!r}")
        return value


def _fill(text: str, params: dict[str, str], where: str) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in params:
            raise KvdoctorError(f"{where}: unknown placeholder {{{name}}}")
        return params[name]

    return " ".join(_PLACEHOLDER.sub(sub, text).split())


def _filled(data: Any, params: dict[str, str], where: str) -> Any:
    if isinstance(data, str):
        return _fill(data, params, where)
    if isinstance(data, list):
        return [_filled(v, params, where) for v in data]
    if isinstance(data, dict):
        return {k: _filled(v, params, where) for k, v in data.items()}
    return data


def load_fleet_runbooks(path: Path | None = None) -> list[FleetRunbook]:
    """Read, fill and validate the fleet runbooks. Bad content → one-line KvdoctorError."""
    import yaml

    if path is None:
        from kvdoctor.resources import data_dir

        path = data_dir("playbooks").joinpath(*RUNBOOKS_FILE)
    where = "/".join(path.parts[-3:])
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise KvdoctorError(f"{where}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()
        raise KvdoctorError(f"{where}: invalid YAML: {first[0] if first else exc}") from None
    try:
        doc = FleetRunbooks.model_validate(_filled(raw, parameters(), where))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err.get("loc", ())) or "document"
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise KvdoctorError(f"{where}: {loc}: {msg}") from None
    ids = [rb.id for rb in doc.runbooks]
    if len(set(ids)) != len(ids):
        raise KvdoctorError(f"{where}: a runbook id is used twice")
    return list(doc.runbooks)


def find_fleet(runbooks: list[FleetRunbook], ident: str) -> FleetRunbook | None:
    """``fleet-imbalance``, ``fleet-imbalance/routing-imbalance`` or ``routing-imbalance``."""
    for rb in runbooks:
        if ident in (rb.id, rb.cause.id, f"{rb.id}/{rb.cause.id}"):
            return rb
    return None


def runbook_md(rb: FleetRunbook, level: int = 1) -> str:
    """The runbook in the layout of the playbooks' (kvdoctor.rules.docs.runbook_md)."""
    h = "#" * level
    out = [f"{h} {rb.id}: {rb.title}", ""]
    out.append(
        "A fleet finding: it compares replicas (`diagnose --prometheus URL`, or `--endpoint` "
        "repeated). Reported under symptom "
        + " or ".join(f"`{s}`" for s in rb.symptoms)
        + ". Inspect first, on every replica: "
        + ", ".join(f"`{s}`" for s in rb.inspect_first)
    )
    out.append("")
    for key, heading in RUNBOOK_SECTIONS:
        out += [f"{h}# {heading}", "", getattr(rb.runbook, key), ""]
    c = rb.cause
    out += [f"{h}# Cause", "", f"{h}## `{c.id}` — {c.title}", "", c.description, ""]
    out.append(f"- **Severity:** {c.severity}")
    out.append("- **Reproducer:** none (a fleet finding is read from the replicas' numbers)")
    out.append("- **Remediation:**")
    out += [f"  - {r}" for r in c.remediation]
    return "\n".join(out).rstrip() + "\n"


def rules_text_lines(runbooks: list[FleetRunbook]) -> list[str]:
    """Lines for ``kvdoctor rules`` (the layout of the playbooks' rows)."""
    lines: list[str] = []
    for rb in runbooks:
        lines.append(f"{rb.id}  {rb.title}")
        lines.append(f"  {rb.cause.id}  {rb.cause.severity:<8}  {'-':<15}  {rb.cause.title}")
    return lines


def rules_json_entries(runbooks: list[FleetRunbook]) -> list[dict[str, Any]]:
    """Entries for ``kvdoctor rules --format json``, shaped like the playbooks' entries."""
    return [
        {
            "id": rb.id,
            "symptom": FLEET_GROUP,
            "title": rb.title,
            "inspect_first": list(rb.inspect_first),
            "causes": [
                {
                    "id": rb.cause.id,
                    "title": rb.cause.title,
                    "severity": rb.cause.severity,
                    "reproducer": None,
                }
            ],
        }
        for rb in runbooks
    ]


def rules_markdown(runbooks: list[FleetRunbook]) -> str:
    """The fleet section of docs/rules.md."""
    out = ["## Fleet findings", ""]
    out.append(
        "Findings that compare replicas (`kvdoctor diagnose --prometheus URL`, or `--endpoint` "
        "repeated), on top of each replica's own findings. Their conditions are code "
        "(`kvdoctor/fleet/diagnose.py`); their prose is `playbooks/fleet/runbooks.yaml`."
    )
    out += ["", "| finding | cause | severity | title |", "|---|---|---|---|"]
    for rb in runbooks:
        title = rb.cause.title.replace("|", "\\|")
        out.append(f"| `{rb.id}` | `{rb.cause.id}` | {rb.cause.severity} | {title} |")
    out.append("")
    for rb in runbooks:
        out.append(runbook_md(rb, level=2))
    return "\n".join(out).rstrip() + "\n"
