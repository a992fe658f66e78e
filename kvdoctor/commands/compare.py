"""``kvdoctor compare BEFORE AFTER``: the last step of an incident, is the finding gone?"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from kvdoctor.commands._capture_opts import (
    capture_options_for,
    pop_capture_params,
    to_capture_options,
)
from kvdoctor.errors import KvdoctorError


def _label(path: str) -> str:
    """A bundle's name for the ticket: never this machine's absolute path."""
    p = Path(path)
    return f"{p.parent.name}/{p.name}" if p.name.startswith("bundle") and p.parent.name else p.name


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _diagnosis_of_bundle(path: str) -> Any:
    return _bundle_and_diagnosis(path)[1]


def _bundle_and_diagnosis(path: str) -> tuple[Any, Any]:
    from kvdoctor.bundle.reader import read_bundle
    from kvdoctor.pipeline import diagnose

    if _is_url(path):
        # Not echoed: a URL can hold user:password@.
        raise KvdoctorError("BEFORE must be a bundle (DIR or FILE.tar.gz), got a URL")
    bundle = read_bundle(Path(path))
    return bundle, diagnose(bundle)


@click.command(
    epilog=(
        "Exit codes: 0 the primary finding of BEFORE is gone in AFTER (fix verified), 1 it is "
        "still there (better or same), 2 usage error (different servers without --force, a "
        "bad argument) or BEFORE has no finding to verify, 3 regressed (the primary finding "
        "got worse, or AFTER's verdict is worse than BEFORE's)."
    )
)
@click.argument("before", metavar="BEFORE")
@click.argument("after", metavar="AFTER")
@capture_options_for("compare")
@click.option(
    "--reproduce/--no-reproduce",
    default=True,
    show_default=True,
    help="AFTER as a live endpoint: run the experiments that confirm or refute each finding.",
)
@click.option("--allow-load", is_flag=True, help="AFTER live: also run experiments that add load.")
@click.option(
    "--save-bundle",
    metavar="DIR|FILE.tar.gz",
    type=click.Path(path_type=Path),
    help="AFTER live: keep its capture as a bundle for the ticket.",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Write the result to FILE atomically (default: stdout).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Compare bundles of different models or vLLM releases anyway (stated in the result, "
    "never verified).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "text", "json"]),
    default="md",
    show_default=True,
    help="A Markdown section for the ticket (md; text is the same), or the kvdoctor.compare/1 "
    "JSON object.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="AFTER live: progress bar on stderr during the capture (default: when stderr is a "
    "terminal).",
)
def compare(
    before: str,
    after: str,
    progress: bool | None,
    reproduce: bool,
    allow_load: bool,
    save_bundle: Path | None,
    output: Path | None,
    force: bool,
    fmt: str,
    **params: Any,
) -> int:
    """Compare BEFORE (a bundle) with AFTER (a bundle, or a live endpoint URL captured now).

    The last step of an incident: diagnose and save a bundle, apply its "Change first", run the
    same workload, then `kvdoctor compare before.tar.gz after.tar.gz` (or AFTER = the server's
    URL with the usual capture flags). Each finding is marked gone / better / same / worse /
    new, the key signals are shown side by side, and the Markdown ("Fix verified") goes into
    the ticket as it is.
    """
    from kvdoctor.compare import compare as compare_diagnoses
    from kvdoctor.compare import render_json, render_markdown
    from kvdoctor.report.output import write_atomic

    capture = pop_capture_params(params)
    if not _is_url(after):
        from kvdoctor.commands._capture_opts import refuse_given

        refuse_given(
            click.get_current_context(),
            {
                "window": "--window",
                "interval": "--interval",
                "engine_args": "--engine-arg",
                "allow_load": "--allow-load",
                "headers": "--header",
                "insecure": "--insecure",
                "timeout": "--timeout",
                "reproduce": "--reproduce/--no-reproduce",
                "progress": "--progress/--no-progress",
                "logs": "--logs",
                "model_config": "--model-config",
                "slo": "--slo",
                "slo_file": "--slo-file",
            },
            "when AFTER is a bundle (they describe a live capture)",
        )
    if capture.get("endpoint"):
        raise KvdoctorError("give AFTER as the second argument (a bundle or a URL), not --endpoint")
    if output is not None:
        from kvdoctor.report.output import check_output

        # Before any capture, and never over an input: BEFORE, AFTER or the saved bundle.
        check_output(
            output,
            inputs=[Path(before), None if _is_url(after) else Path(after), save_bundle],
        )
    b_before, d_before = _bundle_and_diagnosis(before)
    after_label = after if not _is_url(after) else ""
    if _is_url(after):
        from kvdoctor.bundle.redact import Redactor
        from kvdoctor.pipeline import run_live
        from kvdoctor.probes.engine import endpoint_host_port

        opts = to_capture_options({**capture, "endpoint": after})
        # The label the ticket shows: the URL without user:password@ (it became a header), and
        # with --redact without the host either.
        host, _ = endpoint_host_port(opts.endpoint)
        after_label = Redactor(secrets=opts.headers.values(), redact=opts.redact, hosts=[host]).url(
            opts.endpoint
        )
        d_after = run_live(
            opts,
            reproduce=reproduce,
            allow_load=allow_load,
            save_bundle=save_bundle,
            progress=sys.stderr.isatty() if progress is None else progress,
            echo=lambda line: click.echo(line, err=True),
        )
    else:
        if save_bundle is not None:
            raise KvdoctorError("--save-bundle applies to a live AFTER only")
        d_after = _diagnosis_of_bundle(after)
    from kvdoctor.compare import advised_change

    result = compare_diagnoses(
        d_before, d_after, force=force, advised=advised_change(b_before, d_before)
    )
    if fmt == "json":
        text = render_json(result)
    else:
        after_label = after_label if _is_url(after) else _label(after)
        text = render_markdown(result, _label(before), after_label)
    if output is not None:
        write_atomic(output, text)
        click.echo(f"kvdoctor: wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
    if result.primary is None:
        click.echo("kvdoctor: BEFORE has no finding to verify", err=True)
        return 2
    if result.verified:
        return 0
    return 3 if result.regressed else 1
