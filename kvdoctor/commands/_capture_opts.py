"""The capture flags shared by ``record`` and ``diagnose``, and their conversion to options.

Kept free of heavy imports: pydantic loads only when the options are built, so
``kvdoctor record --help`` stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kvdoctor.errors import KvdoctorError
from kvdoctor.slo import load_slo_file, parse_slo_options
from kvdoctor.urlauth import url_credentials
from kvdoctor.vocab import ROUTINGS, SYMPTOMS

if TYPE_CHECKING:
    from kvdoctor.capture import CaptureOptions

F = TypeVar("F", bound=Callable[..., Any])

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$", re.IGNORECASE)
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration(text: str | float | int) -> float:
    """ "60s", "2m", "500ms", "1h" or plain seconds ("30", "2.5") to seconds (> 0)."""
    if isinstance(text, (int, float)):
        seconds = float(text)
    else:
        m = _DURATION.match(text)
        if m is None:
            raise KvdoctorError(f"invalid duration {text!r}: use e.g. 60s, 2m, 500ms or seconds")
        unit = m.group(2).lower() if m.group(2) else None
        seconds = float(m.group(1)) * _UNITS[unit]
    if not seconds > 0:
        raise KvdoctorError(f"duration must be positive, got {text!r}")
    return seconds


# Recent click makes ParamType generic; subscripting it would break older releases that
# pyproject still allows (click>=8.1), so the type argument is left to the ignore.
class Duration(click.ParamType):  # type: ignore[type-arg]
    name = "duration"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        try:
            return parse_duration(value)
        except KvdoctorError as exc:
            self.fail(str(exc), param, ctx)


DURATION = Duration()


def parse_header(text: str, flag: str = "--header") -> tuple[str, str]:
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep:
        # Without a colon the name cannot be told from the value (usually a credential): echo
        # nothing of it.
        raise KvdoctorError(f"{flag} must look like 'Name: value' (no ':' in it)")
    if not name or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
        # Never echo the value: it is usually a credential.
        raise KvdoctorError(f"{flag} must look like 'Name: value' (got a header named {name!r})")
    return name, value.strip()


_ENDPOINT_HELP = {
    "diagnose": "vLLM server root, e.g. http://host:8000; repeat it to diagnose several "
    "replicas as a fleet.",
    "record": "vLLM server root, e.g. http://host:8000.",
    "compare": "Not used: give AFTER (a bundle or the server's URL) as the second argument.",
}
_LIVE_PREFIX = {"compare": "AFTER live: "}


def capture_options(f: F) -> F:
    """Add the shared capture flags to ``diagnose`` (see :func:`capture_options_for`)."""
    return _add_capture_options(f, "diagnose")


def capture_options_for(command: str) -> Callable[[F], F]:
    """The shared capture flags with their help worded for ``command`` (record, compare)."""

    def add(f: F) -> F:
        return _add_capture_options(f, command)

    return add


def _add_capture_options(f: F, command: str) -> F:
    live = _LIVE_PREFIX.get(command, "")
    options = [
        click.option(
            "--endpoint",
            "endpoint",
            multiple=True,
            metavar="URL",
            hidden=command == "compare",
            help=_ENDPOINT_HELP.get(command, _ENDPOINT_HELP["record"]),
        ),
        click.option(
            "--window",
            type=DURATION,
            default="60s",
            show_default=True,
            help=f"{live}How long to watch /metrics (60s, 2m, 500ms or seconds).",
        ),
        click.option(
            "--interval",
            type=DURATION,
            default="2s",
            show_default=True,
            help="Time between scrapes.",
        ),
        click.option(
            "--header",
            "headers",
            multiple=True,
            metavar="'NAME: VALUE'",
            help="HTTP header for every request (repeatable); never stored.",
        ),
        click.option("--insecure", is_flag=True, help="Skip TLS certificate verification."),
        click.option(
            "--model-config",
            metavar="PATH|ID",
            help="HF config.json, a directory with one, or a model id in the local HF cache.",
        ),
        click.option("--logs", metavar="FILE|-", help="Server log file, or - for stdin."),
        click.option(
            "--engine-arg",
            "engine_args",
            multiple=True,
            metavar="KEY=VALUE",
            help="An engine flag the server runs with (repeatable), e.g. max-num-seqs=64.",
        ),
        click.option(
            "--redact",
            is_flag=True,
            help="Replace host names, IP addresses and local paths with placeholders.",
        ),
        click.option(
            "--timeout",
            type=DURATION,
            default="5s",
            show_default=True,
            help="Per-request timeout.",
        ),
        click.option(
            "--slo",
            "slo",
            multiple=True,
            metavar="NAME=DURATION",
            help=(
                "A service-level objective symptoms are judged against (repeatable): "
                "ttft-p95=800ms, itl-p95=60ms (ttft|itl × p50|p95|p99). Kept in the bundle."
            ),
        ),
        click.option(
            "--slo-file",
            metavar="FILE",
            type=click.Path(path_type=Path),
            help="A YAML/JSON mapping of the same objectives (--slo entries win).",
        ),
        click.option(
            "--complaint",
            type=click.Choice(SYMPTOMS),
            help=(
                "The symptom you were called for (what users report): its findings lead among "
                "those of the same severity, and a capture that does not show it is "
                "inconclusive with what would decide it, never healthy. Kept in the bundle."
            ),
        ),
        click.option(
            "--replicas",
            type=click.IntRange(1, 100_000),
            metavar="N",
            help=(
                "How many identical servers share this endpoint's traffic behind a router or "
                "load balancer (this one included): each keeps its own prefix cache. Kept in "
                "the bundle."
            ),
        ),
        click.option(
            "--routing",
            type=click.Choice(ROUTINGS),
            help=(
                "How that router picks a server: round-robin, random (a Kubernetes Service), "
                "least-loaded, consistent-hash, or prefix-aware. Kept in the bundle."
            ),
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


CAPTURE_KEYS = (
    "endpoint",
    "window",
    "interval",
    "headers",
    "insecure",
    "model_config",
    "logs",
    "engine_args",
    "redact",
    "timeout",
    "slo",
    "slo_file",
    "complaint",
    "replicas",
    "routing",
)


def slo_of(params: Mapping[str, Any]) -> dict[str, float]:
    """The objectives of ``--slo-file`` then ``--slo`` (one-line errors)."""
    slo: dict[str, float] = {}
    if params.get("slo_file"):
        slo.update(load_slo_file(Path(params["slo_file"])))
    slo.update(parse_slo_options(params.get("slo") or ()))
    return dict(sorted(slo.items()))


def endpoints_of(value: str | Sequence[str] | None) -> list[str]:
    """The ``--endpoint`` values (repeatable) as a list; a plain string is one endpoint."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if v]


def single_endpoint(value: str | Sequence[str] | None, command: str = "this command") -> str | None:
    """The one ``--endpoint`` of a single-server command; repeating it is a usage error."""
    urls = endpoints_of(value)
    if len(urls) > 1:
        raise KvdoctorError(
            f"{command} takes one --endpoint, got {len(urls)} "
            "(kvdoctor diagnose accepts several and compares them as a fleet)"
        )
    return urls[0] if urls else None


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user typed the option ``name`` (not its default or an environment value)."""
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.PROMPT)


def refuse_given(ctx: click.Context, names: dict[str, str], why: str) -> None:
    """One-line usage error for the first option in ``names`` (param name -> flag) that the
    user gave although it does not apply: silently ignoring it hides a mistake."""
    for name, flag in names.items():
        if given(ctx, name):
            raise KvdoctorError(f"{flag} does not apply {why}")


def pop_capture_params(params: dict[str, Any]) -> dict[str, Any]:
    """Remove the capture flags from a command's keyword arguments and return them."""
    return {k: params.pop(k) for k in CAPTURE_KEYS if k in params}


def to_capture_options(params: Mapping[str, Any], notes: str = "") -> CaptureOptions:
    """Build :class:`~kvdoctor.capture.CaptureOptions` from the parsed flags (one-line errors)."""
    from pydantic import ValidationError

    from kvdoctor.capture import CaptureOptions
    from kvdoctor.probes.engine import parse_user_flags

    endpoint = single_endpoint(params.get("endpoint"))
    if not endpoint:
        raise KvdoctorError("--endpoint URL is required")
    headers: dict[str, str] = {}
    for h in params.get("headers") or ():
        name, value = parse_header(h)
        headers[name] = value
    endpoint, headers = url_credentials(endpoint, headers, "--endpoint")
    window = parse_duration(params.get("window", 60.0))
    interval = parse_duration(params.get("interval", 2.0))
    if interval > window:
        raise KvdoctorError(f"--interval ({interval:g}s) is longer than --window ({window:g}s)")
    try:
        return CaptureOptions(
            endpoint=endpoint,
            window_s=window,
            interval_s=interval,
            headers=headers,
            insecure=bool(params.get("insecure")),
            model_config_path=params.get("model_config"),
            logs=params.get("logs"),
            engine_args=parse_user_flags(params.get("engine_args") or ()),
            redact=bool(params.get("redact")),
            timeout=parse_duration(params.get("timeout", 5.0)),
            notes=notes,
            complaint=params.get("complaint"),
            replicas=params.get("replicas"),
            routing=params.get("routing"),
            slo=slo_of(params),
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "options"
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise KvdoctorError(f"{where}: {msg}") from None
