"""``kvdoctor alerts``: Prometheus alerting rules generated from the playbooks."""

from __future__ import annotations

from pathlib import Path

import click

from kvdoctor import __version__
from kvdoctor.alerts.promql import metric_names, parse_version
from kvdoctor.errors import KvdoctorError


def _detect_version(endpoint: str, timeout_s: float = 5.0) -> str:
    """``GET /version`` of a vLLM server → its version string (KvdoctorError when it fails)."""
    import httpx

    from kvdoctor.urlauth import server_url

    # The URL rule of every command: user:password@ becomes a header, a query is refused, and
    # no redirect is followed (the header stays with the server the user named).
    clean, headers = server_url(endpoint, {}, "--endpoint")
    url = clean.rstrip("/") + "/version"
    try:
        with httpx.Client(
            headers=headers, timeout=timeout_s, follow_redirects=False, trust_env=False
        ) as client:
            raw = b""
            with client.stream("GET", url) as resp:
                if resp.status_code == 200:
                    for chunk in resp.iter_bytes():
                        raw += chunk
                        if len(raw) > 1 << 20:  # a /version answer is a few bytes
                            raw = b""
                            break
        import json

        body = json.loads(raw) if raw else None
    except (httpx.HTTPError, ValueError, RecursionError) as exc:
        raise KvdoctorError(
            f"cannot read the vLLM version from {url}: {type(exc).__name__}"
        ) from None
    version = body.get("version") if isinstance(body, dict) else None
    if not isinstance(version, str) or not version:
        raise KvdoctorError(f"{url} did not return a vLLM version")
    return version


def _write_runbooks(directory: Path) -> int:
    from kvdoctor.alerts.generate import runbook_pages
    from kvdoctor.report.output import write_atomic
    from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks

    pages = runbook_pages(load_playbooks() + load_fleet_playbooks())
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in pages.items():
            # Atomic, and never through a link planted in the directory.
            write_atomic(directory / name, text)
    except OSError as exc:
        why = exc.strerror or exc
        raise KvdoctorError(f"cannot write runbooks to {directory}: {why}") from None
    click.echo(f"wrote {len(pages)} runbook pages to {directory}", err=True)
    return 0


@click.command("alerts")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["prometheus"]),
    default="prometheus",
    show_default=True,
    help="Rule file format.",
)
@click.option(
    "--vllm-version",
    default=None,
    metavar="X.Y[.Z]",
    help="vLLM version the rules target (metric names changed across releases).",
)
@click.option(
    "--endpoint",
    default=None,
    metavar="URL",
    help="Detect the vLLM version from this server's /version instead.",
)
@click.option(
    "--metric-prefix",
    type=click.Choice(["vllm:", "ray_vllm:"]),
    default="vllm:",
    show_default=True,
    help="Metric prefix (ray_vllm: under Ray Serve).",
)
@click.option(
    "--range",
    "window",
    default="5m",
    show_default=True,
    metavar="DURATION",
    help="PromQL range for rate()/increase() and quantiles.",
)
@click.option(
    "--window",
    "window_deprecated",
    default=None,
    metavar="DURATION",
    hidden=True,
    help="Deprecated name of --range (--window is the capture window in diagnose/record).",
)
@click.option(
    "--for",
    "for_",
    default=None,
    metavar="DURATION",
    help="`for:` of every alert (default by severity: critical 2m, warning 5m, info 15m).",
)
@click.option(
    "--runbook-url-base",
    default=None,
    metavar="URL",
    help="Where your site serves the runbook pages (<playbook>.md, docs/runbooks/ in the "
    "repository): each alert then gets a runbook_url. No default: without it the runbook "
    "annotation names `kvdoctor explain PLAYBOOK`.",
)
@click.option(
    "--inhibit-rules",
    "inhibit_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the Alertmanager inhibit_rules that go with these alerts (critical hides "
    "the warning of one condition; a firing alert hides its replica's info alerts).",
)
@click.option(
    "--write-runbooks",
    "runbooks_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write the runbook pages (<playbook>.md) the runbook_url annotations point to into "
    "this directory, and nothing else.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write here.")
def alerts(
    fmt: str,
    vllm_version: str | None,
    endpoint: str | None,
    metric_prefix: str,
    window: str,
    for_: str | None,
    runbook_url_base: str | None,
    runbooks_dir: Path | None,
    inhibit_file: Path | None,
    output: str | None,
    window_deprecated: str | None = None,
) -> int:
    """Generate Prometheus alerting rules from the playbooks.

    Only conditions PromQL can state become alerts; the clauses left out are listed in
    comments. Each alert carries a severity label, a summary and description filled from the
    firing series, and a runbook_url annotation.
    """
    from kvdoctor.alerts.generate import (
        RUNBOOK_URL_BASE,
        generate,
        render_inhibit_rules,
        render_yaml,
    )
    from kvdoctor.commands._capture_opts import given, refuse_given
    from kvdoctor.fleet.promapi import format_duration, parse_duration
    from kvdoctor.rules.load import load_playbooks

    ctx = click.get_current_context()
    if window_deprecated is not None:
        if given(ctx, "window"):
            raise KvdoctorError("give --range only (--window is its deprecated name)")
        click.echo("kvdoctor: warning: alerts --window is deprecated; use --range", err=True)
        window = window_deprecated
    if runbooks_dir is not None:
        refuse_given(
            ctx,
            {
                "vllm_version": "--vllm-version",
                "endpoint": "--endpoint",
                "metric_prefix": "--metric-prefix",
                "window": "--range",
                "for_": "--for",
                "runbook_url_base": "--runbook-url-base",
                "output": "-o",
            },
            "with --write-runbooks (it writes the runbook pages and nothing else)",
        )
        if window_deprecated is not None:
            raise KvdoctorError("--window does not apply with --write-runbooks")
        return _write_runbooks(runbooks_dir)
    if vllm_version and endpoint:
        raise KvdoctorError("give --vllm-version or --endpoint, not both")
    version_text = vllm_version or (_detect_version(endpoint) if endpoint else None)
    version = None
    if version_text is not None:
        version = parse_version(version_text)
        if version is None:
            raise KvdoctorError(f"--vllm-version: {version_text!r} is not a version like 0.11.0")
    win = format_duration(parse_duration(window, "--window"))
    res = format_duration(max(15.0, parse_duration(window, "--window") / 10))
    for_text = format_duration(parse_duration(for_, "--for")) if for_ else None
    names = metric_names(version, metric_prefix)
    base = runbook_url_base or RUNBOOK_URL_BASE
    if base is not None and not base.startswith(("https://", "http://")):
        raise KvdoctorError(f"--runbook-url-base: {base!r} is not an http(s) URL")
    rules = generate(
        load_playbooks(),
        names,
        window=win,
        resolution=res,
        for_override=for_text,
        runbook_url_base=base,
    )
    header = "\n".join(
        [
            f"Generated by kvdoctor {__version__} from its playbooks: `kvdoctor alerts "
            f"--format {fmt}`.",
            f"vLLM metric names: {names.generation} ("
            + (f"vLLM {version_text}" if version_text else "current vLLM releases")
            + f"); window {win}.",
            (
                f"Runbooks: {base.rstrip('/')}/PLAYBOOK.md (also `kvdoctor explain PLAYBOOK`); "
                if base
                else "Runbooks: `kvdoctor explain PLAYBOOK` (--runbook-url-base adds links); "
            )
            + "diagnose with `kvdoctor diagnose --endpoint URL`; on an alert, "
            "`kvdoctor serve` does it.",
        ]
    )
    text = render_yaml(rules, header)
    if inhibit_file is not None:
        inhibit_header = (
            f"Generated by kvdoctor {__version__}: Alertmanager inhibit_rules for the alerts "
            "of `kvdoctor alerts`;\nmerge under alertmanager.yml's inhibit_rules."
        )
        try:
            inhibit_file.write_text(render_inhibit_rules(inhibit_header), encoding="utf-8")
        except OSError as exc:
            raise KvdoctorError(f"cannot write {inhibit_file}: {exc.strerror or exc}") from None
        click.echo(f"wrote the inhibition rules to {inhibit_file}", err=True)
    if output:
        from kvdoctor.report.output import write_atomic

        # Atomic: a full disk leaves the old rule file, never half a YAML document.
        write_atomic(output, text)
        click.echo(f"wrote {len(rules.alerts)} alerts to {output}", err=True)
    else:
        click.echo(text, nl=False)
    return 0
