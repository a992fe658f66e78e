"""Options shared by ``kvdoctor serve`` and ``kvdoctor investigate`` (a config file, flags on
top), and the one function that merges them into a :class:`ServeConfig`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from kvdoctor.errors import KvdoctorError

F = TypeVar("F", bound=Callable[..., Any])

# flag → (config field, help)
_FLAGS: tuple[tuple[str, str, Any, str], ...] = (
    (
        "--state-dir",
        "state_dir",
        click.Path(file_okay=False, path_type=Path),
        "Where state, bundles and reports live (default from --config, else ./kvdoctor-state).",
    ),
    (
        "--prometheus",
        "prometheus",
        str,
        "Prometheus holding the replicas' history (and target metadata for label resolution).",
    ),
    (
        "--mapping",
        "mapping",
        click.Path(dir_okay=False, path_type=Path),
        "YAML mapping alert labels to replicas, for setups without target metadata.",
    ),
    ("--lookback", "lookback", str, "History captured before the alert's startsAt (15m)."),
    ("--step", "step", str, "Range-query step of that history (auto)."),
    ("--after-window", "after_window", str, "History after a resolve, for the compare (5m)."),
    (
        "--live-window",
        "live_window",
        str,
        "Also capture this long live from the replica, with its no-load experiments (0s: off).",
    ),
    ("--rate-limit", "rate_limit", int, "Investigations of one replica per --rate-window (3)."),
    ("--rate-window", "rate_window", str, "Window of --rate-limit (1h)."),
    (
        "--public-url",
        "public_url",
        str,
        "This receiver's URL as responders reach it: summaries link <URL>/reports/...",
    ),
)


_METAVARS = {
    "--state-dir": "DIR",
    "--prometheus": "URL",
    "--mapping": "FILE",
    "--lookback": "DURATION",
    "--step": "DURATION",
    "--after-window": "DURATION",
    "--live-window": "DURATION",
    "--rate-limit": "N",
    "--rate-window": "DURATION",
    "--public-url": "URL",
}


def alerting_options(fn: F) -> F:
    decorators = [
        click.option(
            "--config",
            "config_path",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="YAML settings (README: 'Diagnosis triggered by Alertmanager'); flags override.",
        ),
        *[
            click.option(
                flag,
                field,
                type=kind,
                default=None,
                help=text,
                metavar=_METAVARS.get(flag),
            )
            for flag, field, kind, text in _FLAGS
        ],
        click.option(
            "--sink",
            "sinks",
            multiple=True,
            metavar="KIND=URL[,token_env=NAME]",
            help="Post summaries here (repeatable): webhook, github, gitlab or slack; the "
            "credential is read from the environment variable token_env names.",
        ),
    ]
    for deco in reversed(decorators):
        fn = deco(fn)
    return fn


def build_config(params: dict[str, Any], **extra: Any) -> Any:
    """The config file's settings with every flag given on top (a ServeConfig)."""
    from kvdoctor.alerting.config import ServeConfig, load_config, parse_sink

    cfg = load_config(params.pop("config_path", None))
    update: dict[str, Any] = {}
    for _flag, field, _kind, _text in _FLAGS:
        value = params.pop(field, None)
        if value is not None:
            update[field] = value
    sinks = params.pop("sinks", ())
    if sinks:
        update["sinks"] = [*cfg.sinks, *(parse_sink(s) for s in sinks)]
    update.update({k: v for k, v in extra.items() if v is not None})
    try:
        return ServeConfig.model_validate({**cfg.model_dump(), **update})
    except ValueError as exc:
        raise KvdoctorError(f"settings: {' '.join(str(exc).split())[:300]}") from None
