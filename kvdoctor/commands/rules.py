"""``kvdoctor rules`` (list the playbooks) and ``kvdoctor explain ID`` (print one runbook)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from kvdoctor.rules.schema import Playbook

_PLAYBOOKS_OPTION = click.option(
    "--playbooks",
    "playbooks_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Read playbooks from this directory instead of the shipped ones.",
)


@click.command("rules")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md", "json"]),
    default="text",
    show_default=True,
    help="md is the generated docs/rules.md.",
)
@_PLAYBOOKS_OPTION
def rules(fmt: str, playbooks_dir: Path | None) -> int:
    """List the playbooks and their causes."""
    from kvdoctor.rules.engine import load_playbooks

    click.echo(render_rules(fmt, load_playbooks(playbooks_dir)), nl=False)
    return 0


def render_rules(fmt: str, playbooks: list[Playbook]) -> str:
    """What ``kvdoctor rules --format FMT`` prints (``md`` is the whole of docs/rules.md)."""
    from kvdoctor.fleet import runbooks as fleet
    from kvdoctor.rules import docs

    # The fleet findings' runbooks always come from the shipped data: their conditions are
    # code, not playbooks that --playbooks could replace.
    fleet_runbooks = fleet.load_fleet_runbooks()
    if fmt == "text":
        return docs.rules_text(playbooks, extra=fleet.rules_text_lines(fleet_runbooks))
    if fmt == "md":
        return docs.rules_markdown(playbooks) + "\n" + fleet.rules_markdown(fleet_runbooks)
    data = json.loads(docs.rules_json(playbooks)) + fleet.rules_json_entries(fleet_runbooks)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@click.command("explain")
@click.argument("ident", metavar="ID")
@_PLAYBOOKS_OPTION
def explain(ident: str, playbooks_dir: Path | None) -> int:
    """Print the runbook of a playbook (ID) or of one cause (playbook/cause, or a cause id).

    Fleet findings have runbooks too: kvdoctor explain fleet-imbalance (fleet-config-drift,
    fleet-stale-targets).
    """
    from kvdoctor.errors import KvdoctorError
    from kvdoctor.fleet import runbooks as fleet
    from kvdoctor.rules import docs
    from kvdoctor.rules.engine import load_playbooks

    playbooks = load_playbooks(playbooks_dir)
    fleet_runbooks = fleet.load_fleet_runbooks()
    hit = fleet.find_fleet(fleet_runbooks, ident)
    if hit is not None:
        click.echo(fleet.runbook_md(hit), nl=False)
        return 0
    try:
        pb, cause = docs.find(playbooks, ident)
    except KvdoctorError as exc:
        if not str(exc).startswith("no playbook or cause"):
            raise
        known = ", ".join(pb.id for pb in playbooks)
        fleet_ids = ", ".join(rb.id for rb in fleet_runbooks)
        raise KvdoctorError(
            f"no playbook or cause {ident!r} (playbooks: {known}; fleet findings: {fleet_ids}; "
            "see `kvdoctor rules`)"
        ) from None
    click.echo(docs.runbook_md(pb, cause), nl=False)
    return 0
