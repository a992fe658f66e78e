"""``kvdoctor record``: capture a bundle from a live endpoint (docs/bundle.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from kvdoctor.commands._capture_opts import (
    capture_options_for,
    pop_capture_params,
    single_endpoint,
    to_capture_options,
)


@click.command()
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(path_type=Path),
    help="Bundle directory, or FILE.tar.gz.",
)
@click.option("--notes", default="", help="Free text stored in the manifest.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on stderr (default: when stderr is a terminal).",
)
@capture_options_for("record")
def record(output: Path, notes: str, progress: bool | None, **params: Any) -> int:
    """Record a bundle from a live endpoint.

    Scrapes /metrics every --interval over --window, reads /version, /v1/models and /health,
    the engine flags, the model config, GPU memory (NVML) and logs. Ctrl-C ends the window
    early and still writes a valid bundle of what was captured.
    """
    from kvdoctor.capture import capture, was_interrupted

    capture_params = pop_capture_params(params)
    capture_params["endpoint"] = single_endpoint(capture_params.get("endpoint"), "record")
    opts = to_capture_options(capture_params, notes=notes)
    show = sys.stderr.isatty() if progress is None else progress
    bundle = capture(opts, progress=show, sink=output)
    ok = sum(1 for s in bundle.scrapes if s.ok)
    failed = len(bundle.scrapes) - ok
    line = f"kvdoctor: wrote {output} ({ok} scrapes"
    line += f", {failed} failed" if failed else ""
    line += f", {len(bundle.manifest.not_checked)} not checked)"
    click.echo(line, err=True)
    for nc in bundle.manifest.not_checked:
        click.echo(f"  not checked: {nc.what}: {nc.why}", err=True)
    if was_interrupted(bundle):
        click.echo("kvdoctor: interrupted; the bundle holds what was captured", err=True)
        return 130
    return 0
