"""``kvdoctor reproduce NAME``: run one reproducer experiment against a live endpoint.

Light by default; experiments that add real load refuse without ``--allow-load``. ``--dry-run``
prints what would be sent and sends nothing. With ``--save-bundle`` the record is appended to an
existing bundle, or a new bundle (manifest, one scrape, the record) is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kvdoctor import __version__
from kvdoctor.commands._capture_opts import parse_header
from kvdoctor.errors import KvdoctorError
from kvdoctor.experiment_catalog import EXPERIMENTS

if TYPE_CHECKING:
    from kvdoctor.reproducers.model import ReproducerRecord


class _ReproduceCommand(click.Command):
    """``reproduce``: its --help lists the experiments of the catalog, each with what it needs
    (the catalog is plain data: no httpx or asyncio for a --help)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        rows = []
        for name, exp in EXPERIMENTS.items():
            needs = exp.needs_flags()
            suffix = f" Needs {' and '.join(needs)}." if needs else ""
            rows.append((name, " ".join(exp.description.split()) + suffix))
        with formatter.section("Experiments (NAME)"):
            formatter.write_dl(rows)


@click.command(cls=_ReproduceCommand)
@click.argument("name")
@click.option("--endpoint", metavar="URL", help="vLLM server root, e.g. http://host:8000.")
@click.option("--allow-load", is_flag=True, help="Allow experiments that add real load.")
@click.option("--reference-endpoint", metavar="URL", help="Reference server (quant-canary).")
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="HTTP header for every request (repeatable); never stored.",
)
@click.option(
    "--reference-header",
    "reference_headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="HTTP header for the reference endpoint only (repeatable); --header never goes there.",
)
@click.option("--insecure", is_flag=True, help="Skip TLS certificate verification.")
@click.option(
    "--shared-prefix-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="The workload's shared prompt prefix, in tokens (prefix-probe).",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; send nothing.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md", "json"]),
    default="text",
    show_default=True,
    help="Plain lines (text), the same as a Markdown list for a ticket (md), or the record as "
    "JSON.",
)
@click.option(
    "--save-bundle",
    type=click.Path(path_type=Path),
    default=None,
    help="Append the record to this bundle (created when missing).",
)
def reproduce(
    name: str,
    endpoint: str | None,
    allow_load: bool,
    reference_endpoint: str | None,
    headers: tuple[str, ...],
    reference_headers: tuple[str, ...],
    insecure: bool,
    shared_prefix_tokens: int | None,
    dry_run: bool,
    fmt: str,
    save_bundle: Path | None,
) -> int:
    """Run one reproducer experiment NAME (listed below). Exit 1 when it confirms its
    hypothesis, else 0."""
    from kvdoctor.bundle.redact import Redactor
    from kvdoctor.reproducers.experiments import (
        ReproContext,
        check_allowed,
        describe,
        get_experiment,
        run_experiment,
    )
    from kvdoctor.urlauth import server_url

    exp = get_experiment(name)
    sent = dict(parse_header(h) for h in headers)
    if endpoint:
        # The same rule as diagnose: user:password@ becomes a header, so the endpoint that goes
        # into records, messages and --save-bundle holds no credential.
        endpoint, sent = server_url(endpoint, sent, "--endpoint")
    ref_sent = dict(parse_header(h, "--reference-header") for h in reference_headers)
    if reference_endpoint:
        # The reference gets the same rule, with its own headers only.
        reference_endpoint, ref_sent = server_url(
            reference_endpoint, ref_sent, "--reference-endpoint", "--reference-header"
        )
    ctx = ReproContext(
        endpoint=endpoint or "",
        headers=sent,
        allow_load=allow_load,
        reference_endpoint=reference_endpoint,
        reference_headers=ref_sent,
        shared_prefix_tokens=shared_prefix_tokens,
        insecure=insecure,
    )
    if dry_run:
        plan = describe(name, ctx)
        refusal = None
        try:
            check_allowed(exp, ctx)
        except KvdoctorError as exc:
            refusal = str(exc)
        plan["would_run"] = refusal is None
        if refusal:
            plan["refused"] = refusal
        if fmt == "json":
            click.echo(json.dumps(plan, indent=2, sort_keys=True))
        else:  # text and md alike: a few plain lines
            click.echo(f"{plan['name']}: {plan['description']}")
            click.echo(f"  sends: {plan['sends']} (dry run: nothing sent)")
            click.echo(
                f"  budget: {plan['requests']} requests, concurrency {plan['concurrency']}, "
                f"deadline {plan['deadline_s']:g} s"
            )
            if refusal:
                click.echo(f"  refused: {refusal}")
        return 0
    if not endpoint:
        raise KvdoctorError("reproduce needs --endpoint URL (or --dry-run)")
    from kvdoctor.reproducers.host import cpu_share_warning

    warning = cpu_share_warning(endpoint)
    if warning:
        click.echo(f"kvdoctor: warning: {warning}", err=True)
    # Error texts quote server answers, which may echo the credential.
    scrub = Redactor(secrets=[*sent.values(), *ref_sent.values()])
    try:
        record = run_experiment(name, ctx)
    except KvdoctorError as exc:
        raise KvdoctorError(scrub.text(str(exc))) from None
    record = type(record).model_validate(scrub.data(record.model_dump()))
    if save_bundle is not None:
        _save(
            save_bundle,
            endpoint,
            ctx.headers,
            insecure,
            record,
        )
    data = record.model_dump(mode="json", by_alias=True)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2, sort_keys=True))
    else:
        from kvdoctor.report.escape import escape_md

        md = fmt == "md"

        def esc(value: object) -> str:
            return str(escape_md(value, max_len=None)) if md else str(value)

        item = "- " if md else "  "
        head = f"**{esc(record.name)}**" if md else record.name
        click.echo(f"{head}: {record.verdict} — {esc(record.summary)}")
        if md:
            click.echo("")
        for cause, verdict in sorted(record.cause_verdicts.items()):
            click.echo(f"{item}{esc(cause)}: {verdict}")
        click.echo(f"{item}requests sent: {record.requests_sent}")
        if record.aborted:
            click.echo(f"{item}stopped early: {esc(record.aborted)}")
    return 1 if record.verdict == "confirmed" else 0


def _save(
    dest: Path, endpoint: str, headers: dict[str, str], insecure: bool, record: ReproducerRecord
) -> None:
    from kvdoctor.bundle.writer import append_reproducers

    if dest.exists():
        append_reproducers(dest, [record])
        return
    from kvdoctor.bundle.model import Bundle, Manifest
    from kvdoctor.bundle.writer import write_bundle
    from kvdoctor.probes.metrics import MetricsClient

    # A bundle needs at least one scrape: take one now so a replay has the server's state.
    # Through the capture's client: the same headers, TLS setting, byte cap and redaction.
    scrape = MetricsClient(endpoint, headers, insecure, timeout=10.0).scrape()
    t = scrape.t
    bundle = Bundle(
        manifest=Manifest(
            created_by=f"kvdoctor {__version__}",
            endpoint=endpoint,
            started_at=t,
            ended_at=t,
            interval_s=0.0,
            notes=f"kvdoctor reproduce {record.name}",
        ),
        scrapes=[scrape],
        reproducers=[record],
    )
    write_bundle(bundle, dest)
