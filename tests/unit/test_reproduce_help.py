"""`kvdoctor reproduce --help` lists every experiment the registry holds, from the registry."""

from __future__ import annotations

from click.testing import CliRunner

from kvdoctor.cli import cli
from kvdoctor.reproducers.experiments.registry import EXPERIMENTS


def _help() -> str:
    out = CliRunner().invoke(cli, ["reproduce", "--help"], terminal_width=200).output
    return " ".join(out.split())


def test_reproduce_help_names_every_registered_experiment() -> None:
    text = _help()
    missing = [name for name in EXPERIMENTS if name not in text]
    assert not missing, f"reproduce --help misses {missing}"


def test_reproduce_help_says_what_each_experiment_needs() -> None:
    # Each entry is the experiment's own description plus its needs, from its class data.
    text = _help()
    for exp in EXPERIMENTS.values():
        described = " ".join(exp.description.split())
        needs = exp.needs_flags()
        entry = f"{exp.name} {described}" + (f" Needs {' and '.join(needs)}." if needs else "")
        assert entry in text, entry
    assert "capacity-ramp" in text and "Needs --allow-load." in text
    assert "quant-canary" in text and "Needs --reference-endpoint." in text
