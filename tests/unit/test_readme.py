"""The README's commands must exist: every `kvdoctor ...` it shows is checked against the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from markdown_it import MarkdownIt

from kvdoctor.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_INVOCATION = re.compile(r"(?:^|[\s(`/])kvdoctor((?:[ \t]+[^\s|;&<>]+)+)")
_SCRIPT = re.compile(r"\bbash\s+(\S+\.sh)\b")


def _code_texts() -> list[str]:
    texts: list[str] = []
    for tok in MarkdownIt("commonmark").enable("table").parse(README):
        if tok.type == "fence":
            # Shell line continuations make one command of several lines.
            content = tok.content.replace("\\\n", " ")
            if tok.info.strip() == "yaml":
                # In a workflow only the `run:` steps are commands (`name: kvdoctor x` is not).
                content = "\n".join(ln for ln in content.splitlines() if "run:" in ln)
            texts.append(content)
        for child in tok.children or []:
            if child.type == "code_inline":
                texts.append(child.content)
    return texts


def _invocations() -> list[list[str]]:
    found: list[list[str]] = []
    for text in _code_texts():
        for line in text.splitlines():
            for m in _INVOCATION.finditer(line):
                found.append(shlex.split(m.group(1), comments=True))
    return found


def _params(command: click.Command) -> set[str]:
    names = {"-h", "--help"}
    for p in command.params:
        names.update(p.opts)
        names.update(p.secondary_opts)
    return names


INVOCATIONS = _invocations()


def test_the_readme_shows_the_main_commands() -> None:
    shown = {args[0] for args in INVOCATIONS}
    assert {"diagnose", "check", "record", "rules", "explain", "kv", "reproduce"} <= shown
    assert "bash scripts/demo.sh" in README and "bash scripts/test.sh" in README


@pytest.mark.parametrize("args", INVOCATIONS, ids=[" ".join(a) for a in INVOCATIONS])
def test_every_command_and_flag_in_the_readme_exists(args: list[str]) -> None:
    ctx = click.Context(cli)
    name, rest = args[0], args[1:]
    assert name in COMMANDS, f"`kvdoctor {name}` is not a command"
    command = cli.get_command(ctx, name)
    assert command is not None, f"`kvdoctor {name}` cannot be loaded"
    if isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        assert sub is not None, f"`kvdoctor {name} {rest[0]}` is not a command"
        command, rest = sub, rest[1:]
    known = _params(command)
    for token in rest:
        if token.startswith("-") and token != "-":  # a lone "-" is stdin, a value
            flag = token.split("=", 1)[0]
            assert flag in known, f"`kvdoctor {name}` has no {flag} (see its --help)"


def test_scripts_the_readme_runs_exist() -> None:
    scripts = set(_SCRIPT.findall(README))
    assert scripts
    for script in scripts:
        assert (ROOT / script).is_file(), script


def test_the_rules_table_lists_every_cause_of_the_playbooks() -> None:
    from kvdoctor.rules.docs import FLEET_GROUP
    from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks

    rows = set(re.findall(r"^\| ([a-z-]+) \| `([a-z0-9-]+)`", README, flags=re.MULTILINE))
    causes = {(pb.symptom, c.id) for pb in load_playbooks() for c in pb.causes}
    causes |= {(FLEET_GROUP, c.id) for pb in load_fleet_playbooks() for c in pb.causes}
    assert rows == causes, f"README rules table: missing {causes - rows}, stale {rows - causes}"
