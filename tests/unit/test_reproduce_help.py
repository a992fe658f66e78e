"""`kvdoctor reproduce --help` names every experiment the registry holds."""

from __future__ import annotations

from click.testing import CliRunner

from kvdoctor.cli import cli
from kvdoctor.reproducers.experiments.registry import EXPERIMENTS


def test_reproduce_help_names_every_registered_experiment() -> None:
    out = CliRunner().invoke(cli, ["reproduce", "--help"], terminal_width=200).output
    text = " ".join(out.split())
    missing = [name for name in EXPERIMENTS if name not in text]
    assert not missing, f"add to the reproduce docstring: {missing}"
