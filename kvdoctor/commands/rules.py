"""``kvdoctor rules`` (list the playbooks) and ``kvdoctor explain ID`` (print one runbook)."""

from __future__ import annotations

from pathlib import Path

import click

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
    from kvdoctor.rules import docs
    from kvdoctor.rules.engine import load_playbooks

    playbooks = load_playbooks(playbooks_dir)
    render = {"text": docs.rules_text, "md": docs.rules_markdown, "json": docs.rules_json}[fmt]
    click.echo(render(playbooks), nl=False)
    return 0


@click.command("explain")
@click.argument("ident", metavar="ID")
@_PLAYBOOKS_OPTION
def explain(ident: str, playbooks_dir: Path | None) -> int:
    """Print the runbook of a playbook (ID) or of one cause (playbook/cause, or a cause id)."""
    from kvdoctor.rules import docs
    from kvdoctor.rules.engine import load_playbooks

    playbooks = load_playbooks(playbooks_dir)
    pb, cause = docs.find(playbooks, ident)
    click.echo(docs.runbook_md(pb, cause), nl=False)
    return 0
