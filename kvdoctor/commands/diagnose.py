"""``kvdoctor diagnose``: a live endpoint or a saved bundle → the incident report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

import click

from kvdoctor.commands._capture_opts import (
    capture_options,
    endpoints_of,
    parse_header,
    pop_capture_params,
    refuse_given,
    slo_of,
    to_capture_options,
)
from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet import (
    diagnose_fleet,
    diagnose_fleet_bundle,
    fleet_options,
    parse_until,
    render_fleet_markdown,
    scan_bundle,
)


def exit_code_for(report: Any, fail_on: str | None) -> int:
    """0 nothing firing, 1 a confirmed or suspected finding that sets the verdict (at or above
    ``fail_on``); ``info`` findings never do (one rule, shared with the report checker)."""
    from kvdoctor.report.exitcode import exit_code_for as rule

    return rule(report, fail_on)


def _with_offline_extras(bundle: Any, capture_params: dict[str, Any]) -> Any:
    """A bundle recorded without a model config or logs can be given them at replay time."""
    update: dict[str, Any] = {}
    # What the operator names at replay time (the symptom, the replicas behind the router and
    # its policy) replaces what the capture stored.
    keys = ("complaint", "replicas", "routing")
    said = {k: capture_params[k] for k in keys if capture_params.get(k)}
    if said:
        update["manifest"] = bundle.manifest.model_copy(update=said)
    slo = slo_of(capture_params)
    if slo:
        # Objectives given at replay time replace the ones the capture stored.
        update["slo"] = slo
    if capture_params.get("model_config"):
        from kvdoctor.kvmath import load_model_config

        update["model_config_raw"] = load_model_config(capture_params["model_config"])
    if capture_params.get("logs"):
        from kvdoctor.probes.logs import LogSource

        text, missing = LogSource(capture_params["logs"]).collect()
        if text is None:
            raise KvdoctorError(f"--logs: {missing.why if missing else 'nothing to read'}")
        update["logs"] = text
    return bundle.model_copy(update=update) if update else bundle


@click.command(
    epilog=(
        "Exit codes: 0 nothing firing, 1 a confirmed or suspected finding (with --fail-on: one "
        "of at least that severity), 2 usage error or nothing could be diagnosed."
    )
)
@click.option(
    "--bundle",
    "bundle_path",
    metavar="DIR|FILE.tar.gz",
    type=click.Path(path_type=Path),
    help="Diagnose a saved bundle offline instead of a live --endpoint (a bundle directory or "
    ".tar.gz, or a fixture directory holding bundle/ or bundle.tar.gz).",
)
@capture_options
@fleet_options
@click.option(
    "--reproduce/--no-reproduce",
    default=True,
    show_default=True,
    help="Run the light experiments that confirm or refute each finding (live only).",
)
@click.option(
    "--allow-load",
    is_flag=True,
    help="Also run experiments that add real load (capacity-ramp, one max-length request).",
)
@click.option(
    "--reference-endpoint",
    metavar="URL",
    help="A server with a BF16/FP16 KV cache for the quantization canary.",
)
@click.option(
    "--reference-header",
    "reference_headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="HTTP header for the reference endpoint only (repeatable); --header never goes there.",
)
@click.option(
    "--prompts",
    "prompts_path",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="A JSONL sample of the application's requests (prompt, messages or prompt_token_ids; "
    "optional lora and cache_salt) that decides a prefix miss: what the prompts share, where "
    "they first differ against the block boundary, and what differs. Tokenised through the "
    "server's /tokenize when live. Only lengths and counts are kept, never the text.",
)
@click.option(
    "--save-bundle",
    metavar="DIR|FILE.tar.gz",
    type=click.Path(path_type=Path),
    help="Keep the capture and reproducer results as a bundle (replay it with --bundle).",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Write the report to FILE atomically (default: stdout).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "text", "json"]),
    default="md",
    show_default=True,
    help="Markdown incident report (md; text is the same: it reads as plain text) or the "
    "kvdoctor.report/1 JSON object.",
)
@click.option(
    "--detail",
    type=click.Choice(["summary", "full"]),
    default="summary",
    show_default=True,
    help="Markdown only: fold everything below the first screen into <details> (summary), "
    "or print every section unfolded for trackers that do not fold (full).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["warning", "critical"]),
    help="Exit 1 only for a firing finding of at least this severity (CI gates).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on stderr during a live capture (default: when stderr is a terminal).",
)
def diagnose(
    bundle_path: Path | None,
    reproduce: bool,
    allow_load: bool,
    reference_endpoint: str | None,
    reference_headers: tuple[str, ...],
    prompts_path: Path | None,
    save_bundle: Path | None,
    output: Path | None,
    fmt: str,
    detail: str,
    fail_on: str | None,
    progress: bool | None,
    prometheus: str | None,
    selector: str,
    since: str,
    step: str,
    until: str | None,
    **params: Any,
) -> int:
    """Diagnose a live endpoint (--endpoint URL) or a saved bundle (--bundle PATH).

    Live: capture /metrics over --window, find what hurts, run the experiments that confirm
    or refute it, and print the report. Offline: the same report from a bundle, byte for byte
    the report of the live run that saved it.

    Fleets: repeat --endpoint to scrape several replicas at the same time, or give
    --prometheus URL to read them from an existing Prometheus; the report adds a per-replica
    table and findings that compare replicas (routing imbalance, config drift, stale targets).

    Last step of an incident: apply the report's "Change first", run the same workload, and
    `kvdoctor compare BEFORE.tar.gz AFTER` (a bundle or the server's URL) says whether the
    finding is gone ("Fix verified", exit 0) for the ticket.
    """
    from kvdoctor.pipeline import diagnose as diagnose_offline
    from kvdoctor.pipeline import run_live
    from kvdoctor.report.output import render_json

    capture_params = pop_capture_params(params)
    # Asked once: for an archive, the answer costs a pass over the whole compressed stream, and
    # that pass keeps the bundle's own files for read_bundle (one decompression, not two).
    fleet_bundle, scan = scan_bundle(bundle_path) if bundle_path is not None else (False, None)
    _refuse_what_does_not_apply(bundle_path, prometheus, capture_params, fleet_bundle)
    if output is not None:
        from kvdoctor.report.output import check_output

        # Before any capture: a bad -o found after the window would lose the window.
        check_output(
            output, inputs=[*_inputs(bundle_path, save_bundle, capture_params), prompts_path]
        )
    prompts = _read_prompts(prompts_path) if prompts_path is not None else None
    ref_headers = dict(parse_header(h, "--reference-header") for h in reference_headers)
    if reference_endpoint is not None:
        from kvdoctor.urlauth import server_url

        # One URL rule for every server a user names: user:password@ becomes a header (kept
        # out of every label, record and message), a query string is refused.
        reference_endpoint, ref_headers = server_url(
            reference_endpoint, ref_headers, "--reference-endpoint", "--reference-header"
        )
    endpoints = endpoints_of(capture_params.get("endpoint"))
    capture_params["endpoint"] = endpoints[0] if len(endpoints) == 1 else None
    sources = [s for s in (endpoints, bundle_path, prometheus) if s]
    if len(sources) > 1:
        raise KvdoctorError("give one of --endpoint (live), --prometheus (fleet) or --bundle")
    if until is not None and prometheus is None:
        raise KvdoctorError("--until applies to --prometheus only")
    if not sources:
        raise KvdoctorError(
            "nothing to diagnose: give --endpoint URL, --prometheus URL or --bundle DIR|FILE.tar.gz"
        )
    if prompts is not None and (len(endpoints) > 1 or prometheus is not None):
        raise KvdoctorError(
            "--prompts describes one server's traffic: give one --endpoint or --bundle"
        )
    if len(endpoints) > 1:
        return _diagnose_endpoints(
            endpoints,
            capture_params,
            reproduce=reproduce,
            allow_load=allow_load,
            reference_endpoint=reference_endpoint,
            reference_headers=ref_headers,
            save_bundle=save_bundle,
            output=output,
            fmt=fmt,
            fail_on=fail_on,
        )

    if prometheus is not None or fleet_bundle:
        return _diagnose_fleet(
            prometheus,
            selector,
            since,
            step,
            until,
            capture_params,
            bundle_path,
            save_bundle,
            output,
            fmt,
            fail_on,
            prompts,
        )

    if bundle_path is not None:
        if save_bundle is not None:
            raise KvdoctorError("--save-bundle applies to a live --endpoint run only")
        from kvdoctor.bundle.reader import read_bundle

        source = _bundle_in(bundle_path)
        bundle = read_bundle(source, scan if source == bundle_path else None)
        bundle = _with_offline_extras(bundle, capture_params)
        if capture_params.get("redact"):
            bundle = bundle.model_copy(update={"source": bundle_path.name})
        if prompts is not None:
            from kvdoctor.promptshare import analyse

            # Offline there is no server to tokenise with: token ids given in the file are
            # used as they are, text is approximated (the report says which).
            bundle = bundle.model_copy(update={"prompt_sample": analyse(prompts, "prompts-file")})
        diagnosis = diagnose_offline(bundle)
    else:
        opts = to_capture_options(capture_params)

        def echo(line: str) -> None:
            click.echo(line, err=True)

        diagnosis = run_live(
            opts,
            reproduce=reproduce,
            allow_load=allow_load,
            reference_endpoint=reference_endpoint,
            reference_headers=ref_headers,
            save_bundle=save_bundle,
            progress=sys.stderr.isatty() if progress is None else progress,
            echo=echo,
            prompts=prompts,
        )

    report = diagnosis.report
    if fmt == "json":
        text = render_json(report)
    else:
        # Markdown only: --format json needs none of the view (report/render.py's view classes
        # and prose, ~10 ms of start-up).
        from kvdoctor.report.render import render_markdown

        text = render_markdown(report, diagnosis.context, detail=_detail(detail))
    return _emit(report, text, output, fail_on, _unknown_why(report, diagnosis.signals))


def _read_prompts(path: Path) -> Any:
    """The --prompts sample, read before any capture (a bad file must not cost the window)."""
    from kvdoctor.promptshare import MAX_FILE_BYTES, read_prompts_file

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise KvdoctorError(f"--prompts: cannot read {path}: {exc.strerror or exc}") from None
    return read_prompts_file(data)


_LIVE_ONLY = {
    "window": "--window",
    "interval": "--interval",
    "engine_args": "--engine-arg",
    "allow_load": "--allow-load",
    "headers": "--header",
    "insecure": "--insecure",
    "timeout": "--timeout",
    "reference_endpoint": "--reference-endpoint",
    "reference_headers": "--reference-header",
    "reproduce": "--reproduce/--no-reproduce",
    "progress": "--progress/--no-progress",
}
_FLEET_ONLY = {
    "selector": "--selector",
    "since": "--since",
    "step": "--step",
}


def _refuse_what_does_not_apply(
    bundle_path: Path | None,
    prometheus: str | None,
    capture_params: dict[str, Any],
    fleet_bundle: bool,
) -> None:
    """Flags the chosen source never reads are refused in one line, not silently ignored."""
    ctx = click.get_current_context()
    if bundle_path is not None:
        refuse_given(ctx, _LIVE_ONLY, "to --bundle (a replay reads what the bundle holds)")
        refuse_given(ctx, _FLEET_ONLY, "to --bundle (the bundle holds its own window)")
        if fleet_bundle:
            refuse_given(
                ctx,
                {
                    "slo": "--slo",
                    "slo_file": "--slo-file",
                    "logs": "--logs",
                    "model_config": "--model-config",
                    "complaint": "--complaint",
                    "replicas": "--replicas",
                    "routing": "--routing",
                },
                "to a fleet bundle (each replica's own settings are read from it)",
            )
    elif prometheus is not None:
        refuse_given(
            ctx,
            {k: v for k, v in _LIVE_ONLY.items() if k not in ("headers", "timeout")},
            "to --prometheus (range queries, no capture window or experiments)",
        )
        refuse_given(
            ctx,
            {
                "slo": "--slo",
                "slo_file": "--slo-file",
                "logs": "--logs",
                "model_config": "--model-config",
                "redact": "--redact",
                "complaint": "--complaint",
                "replicas": "--replicas",
                "routing": "--routing",
            },
            "to --prometheus",
        )
    else:
        refuse_given(ctx, _FLEET_ONLY, "without --prometheus")


def _inputs(
    bundle_path: Path | None, save_bundle: Path | None, capture_params: dict[str, Any]
) -> list[Path | None]:
    """Every file or directory the run reads or writes besides the report: ``-o`` may name
    none of them, nor a file inside one."""
    out: list[Path | None] = [bundle_path, save_bundle]
    for key in ("logs", "slo_file", "model_config"):
        value = capture_params.get(key)
        if value and str(value) != "-" and Path(str(value)).exists():
            out.append(Path(str(value)))
    return out


def _detail(value: str) -> Literal["summary", "full"]:
    return "full" if value == "full" else "summary"


def _unknown_why(report: Any, signals: Any) -> str:
    """Why nothing could be diagnosed: the metrics' own failure first, not any not-checked line
    (the first of those is often an unrelated one, such as NVML being unavailable)."""
    ok = signals.values.get("scrapes_ok")
    if ok is not None and ok.value == 0:
        failed = signals.values.get("scrapes_failed")
        first = failed.provenance.partition("(first: ")[2][:-1] if failed is not None else ""
        if first.startswith("no vLLM metrics"):
            # /metrics answered, from the wrong process or a release that exports nothing of
            # the engine's; the engine's log stats lines would have been read instead.
            held = first.partition(", only ")[2]
            no_logs = any(entry.what == "server logs" for entry in report.not_checked)
            return (
                "/metrics answered without vLLM metrics (vllm:*)"
                + (f", only {held}" if held else "")
                + (
                    ", and no server log was given to read its stats lines instead"
                    if no_logs
                    else ", and the logs hold no engine stats line to read instead"
                )
                + ": check the port and the process, or give the server log with --logs"
            )
        started = signals.values.get("log_startup_failed")
        if started is not None and started.value is True:
            # The server never served: the reason is in its log, above the failure line.
            return (
                "the server never answered /metrics, and its log says the engine failed while "
                "starting without the error that made it fail: give the whole log of the start "
                "with --logs (the traceback above 'Engine core initialization failed')"
            )
        return "no scrape of /metrics succeeded" + (f" (first: {first})" if first else "")
    for wanted in ("impossible metric values", "KV cache usage"):
        for entry in report.not_checked:
            if entry.what == wanted:
                return f"{entry.what}: {entry.why}"
    return report.not_checked[0].why if report.not_checked else "no usable signal"


def _emit(
    report: Any, text: str, output: Path | None, fail_on: str | None, why: str | None = None
) -> int:
    """Write the rendered report (atomically with -o) and turn the report into an exit code."""
    from kvdoctor.report.output import write_atomic

    if output is not None:
        write_atomic(output, text)
        click.echo(f"kvdoctor: wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
    from kvdoctor.signals.window import idle_window

    code = exit_code_for(report, fail_on)
    # `unknown` has two faces: a window that saw no traffic is an observation (exit 1, the
    # report says so); no usable signal at all is nothing diagnosed (exit 2, one line why).
    if report.verdict == "unknown" and not idle_window(report.signals):
        if why is None:
            why = report.not_checked[0].why if report.not_checked else "no usable signal"
        click.echo(f"kvdoctor: nothing could be diagnosed: {why}", err=True)
        return 2
    return code


def _bundle_in(path: Path) -> Path:
    """``--bundle`` takes a bundle, or a fixture directory holding one (``bundle/`` or
    ``bundle.tar.gz``, as ``kvdoctor check`` reads it), so CI can gate on a fixture as it is."""
    from kvdoctor.bundle.model import MANIFEST

    if path.is_dir() and not (path / MANIFEST).is_file():
        # Imported only here: a bundle given as it is needs nothing of the fixture checker.
        from kvdoctor.replay import find_bundle

        return find_bundle(path)
    return path


def _diagnose_fleet(
    prometheus: str | None,
    selector: str,
    since: str,
    step: str,
    until: str | None,
    capture_params: dict[str, Any],
    bundle_path: Path | None,
    save_bundle: Path | None,
    output: Path | None,
    fmt: str,
    fail_on: str | None,
    prompts: Any = None,
) -> int:
    """Many replicas through an existing Prometheus (live) or a saved fleet bundle (offline).
    ``prompts`` (``--prompts``, a fleet bundle only): the application's traffic, spread over
    the replicas, read against their hits."""
    from kvdoctor.report.output import render_json

    if prometheus is not None:
        headers = dict(parse_header(h) for h in capture_params.get("headers") or ())
        fleet = diagnose_fleet(
            prometheus,
            selector,
            since,
            step,
            headers=headers,
            save_bundle=save_bundle,
            end=parse_until(until) if until else None,
        )
    else:
        assert bundle_path is not None
        if save_bundle is not None:
            raise KvdoctorError("--save-bundle applies to a live run only")
        sample = None
        if prompts is not None:
            from kvdoctor.promptshare import analyse

            sample = analyse(prompts, "prompts-file")
        fleet = diagnose_fleet_bundle(bundle_path, sample)
    text = render_json(fleet.report) if fmt == "json" else render_fleet_markdown(fleet)
    return _emit(fleet.report, text, output, fail_on)


def _diagnose_endpoints(
    endpoints: list[str],
    capture_params: dict[str, Any],
    *,
    reproduce: bool,
    allow_load: bool,
    reference_endpoint: str | None,
    reference_headers: dict[str, str],
    save_bundle: Path | None,
    output: Path | None,
    fmt: str,
    fail_on: str | None,
) -> int:
    """Several replicas scraped directly at the same time: the fleet report, no Prometheus."""
    from kvdoctor.fleet.endpoints import diagnose_endpoints, endpoint_names
    from kvdoctor.report.output import render_json

    # Both describe one server: a log stream or a flag list cannot be told apart per replica.
    if capture_params.get("logs"):
        raise KvdoctorError("--logs describes one server; with several --endpoint leave it out")
    if capture_params.get("engine_args"):
        raise KvdoctorError(
            "--engine-arg describes one server; with several --endpoint leave it out "
            "(kvdoctor compares the replicas' own settings)"
        )
    names = endpoint_names(endpoints, bool(capture_params.get("redact")))
    opts_list = [to_capture_options({**capture_params, "endpoint": url}) for url in endpoints]

    def echo(line: str) -> None:
        click.echo(line, err=True)

    fleet = diagnose_endpoints(
        opts_list,
        names,
        reproduce=reproduce,
        allow_load=allow_load,
        reference_endpoint=reference_endpoint,
        reference_headers=reference_headers,
        save_bundle=save_bundle,
        echo=echo,
    )
    text = render_json(fleet.report) if fmt == "json" else render_fleet_markdown(fleet)
    return _emit(fleet.report, text, output, fail_on)
