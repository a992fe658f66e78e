"""``kvdoctor check FIXTURE_DIR...``: replay fixtures in CI and compare with expected.yaml."""

from __future__ import annotations

from pathlib import Path

import click


@click.command(
    "check",
    epilog="Exit codes: 0 every fixture matches, 1 a mismatch, 2 a fixture could not be read.",
)
@click.argument("fixtures", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--update-golden",
    is_flag=True,
    help="Rewrite each fixture's report.md from this run instead of comparing with it.",
)
def check(fixtures: tuple[Path, ...], update_golden: bool) -> int:
    """Replay each fixture's bundle and compare the diagnosis with its expected.yaml.

    A fixture directory holds a bundle (the directory itself, bundle/, or bundle.tar.gz), an
    expected.yaml (verdict, primary finding, findings that must or must not appear) and
    optionally report.md, the golden Markdown report compared byte for byte.
    """
    from kvdoctor.replay import check_fixture, exit_code, format_results

    results = [check_fixture(f, update_golden=update_golden) for f in fixtures]
    for line in format_results(results):
        click.echo(line)
    return exit_code(results)
