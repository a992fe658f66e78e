"""One convention per kind of option across every command (issue 16): the same metavar for
every duration, the same --header form, and the same --format names."""

from __future__ import annotations

from collections.abc import Iterator

import click

from kvdoctor.cli import COMMANDS, cli

DURATION_FLAGS = {"--window", "--interval", "--since", "--step", "--for", "--timeout"}
FORMAT_NAMES = {"text", "md", "json", "prometheus"}


def _commands() -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    for name in sorted(COMMANDS):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            for sub in sorted(command.commands):
                yield f"{name} {sub}", command.commands[sub]
        else:
            yield name, command


def _metavar(p: click.Option) -> str:
    # What --help shows: the explicit metavar, else the type's name (click 8.1 and 8.2 alike).
    return p.metavar or p.type.name.upper()


def _options(flag: str) -> Iterator[tuple[str, click.Option]]:
    for name, command in _commands():
        for p in command.params:
            if isinstance(p, click.Option) and flag in p.opts:
                yield name, p


def test_every_duration_has_the_same_metavar_and_takes_units() -> None:
    seen = 0
    for name, command in _commands():
        for p in command.params:
            if isinstance(p, click.Option) and DURATION_FLAGS & set(p.opts):
                seen += 1
                assert _metavar(p) == "DURATION", f"{name} {p.opts[0]}"
    assert seen >= 8


def test_every_header_option_reads_name_colon_value() -> None:
    found = list(_options("--header"))
    assert len(found) >= 3  # diagnose, record, reproduce
    for name, p in found:
        assert _metavar(p) == "'NAME: VALUE'", name


def test_format_names_are_shared_across_commands() -> None:
    found = list(_options("--format"))
    assert len(found) >= 5
    for name, p in found:
        assert isinstance(p.type, click.Choice), name
        assert set(p.type.choices) <= FORMAT_NAMES, (name, p.type.choices)
