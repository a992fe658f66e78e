"""``kvdoctor rules`` (list the playbooks) and ``kvdoctor explain ID`` (print one runbook)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kvdoctor.errors import KvdoctorError

if TYPE_CHECKING:
    from kvdoctor.rules.runtime import Playbook

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
    from kvdoctor.rules.load import load_playbooks

    click.echo(render_rules(fmt, load_playbooks(playbooks_dir)), nl=False)
    return 0


def render_rules(fmt: str, playbooks: list[Playbook]) -> str:
    """What ``kvdoctor rules --format FMT`` prints (``md`` is the whole of docs/rules.md)."""
    from kvdoctor.rules import docs
    from kvdoctor.rules.load import load_fleet_playbooks

    # The fleet playbooks always come from the shipped data (playbooks/fleet/): --playbooks
    # replaces the replica playbooks only.
    fleet = load_fleet_playbooks()
    if fmt == "text":
        return docs.rules_text(playbooks + fleet)
    if fmt == "md":
        return docs.rules_markdown(playbooks) + "\n" + docs.fleet_rules_markdown(fleet)
    return docs.rules_json(playbooks + fleet)


@click.command("explain")
@click.argument("ident", metavar="ID")
@_PLAYBOOKS_OPTION
def explain(ident: str, playbooks_dir: Path | None) -> int:
    """Print the runbook of a playbook (ID) or of one cause (playbook/cause, or a cause id).

    Fleet findings have runbooks too: kvdoctor explain fleet-imbalance (fleet-config-drift,
    fleet-stale-targets).
    """
    from kvdoctor.rules import docs
    from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks

    playbooks = load_playbooks(playbooks_dir)
    fleet = load_fleet_playbooks()
    try:
        pb, cause = docs.find(fleet, ident)
    except KvdoctorError:
        pass
    else:
        click.echo(docs.runbook_md(pb, cause), nl=False)
        return 0
    try:
        pb, cause = docs.find(playbooks, ident)
    except KvdoctorError as exc:
        if not str(exc).startswith("no playbook or cause"):
            raise
        known = ", ".join(pb.id for pb in playbooks)
        fleet_ids = ", ".join(pb.id for pb in fleet)
        raise KvdoctorError(
            f"no playbook or cause {ident!r} (playbooks: {known}; fleet findings: {fleet_ids}; "
            "see `kvdoctor rules`)"
        ) from None
    click.echo(docs.runbook_md(pb, cause), nl=False)
    return 0
