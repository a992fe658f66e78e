"""Fleets through Prometheus: range queries → per-replica bundles → the local pipeline.

Public entry points (the ``diagnose`` command wires them in):

* :func:`fleet_options` — click decorator adding ``--prometheus``, ``--selector``, ``--since``,
  ``--step`` to a command;
* :func:`diagnose_fleet` — live: query Prometheus, optionally save a fleet bundle, diagnose;
* :func:`diagnose_endpoints` (in :mod:`kvdoctor.fleet.endpoints`) — several endpoints scraped
  directly (repeated ``--endpoint``), the same fleet report without a Prometheus;
* :func:`is_fleet_bundle` / :func:`diagnose_fleet_bundle` — offline replay of a saved one (either
  layout);
* :func:`render_fleet_markdown` — the incident report with the per-replica table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from kvdoctor.fleet.bundle import (
    fleet_bundle_kind,
    is_fleet_bundle,
    read_fleet_capture,
    write_fleet_bundle,
)
from kvdoctor.fleet.capture import FleetOptions, capture_fleet
from kvdoctor.fleet.diagnose import FleetDiagnosis, diagnose_data
from kvdoctor.fleet.promapi import PromClient, parse_duration
from kvdoctor.fleet.render import render_fleet_markdown

__all__ = [
    "FleetDiagnosis",
    "FleetOptions",
    "diagnose_fleet",
    "diagnose_fleet_bundle",
    "fleet_options",
    "is_fleet_bundle",
    "render_fleet_markdown",
]

F = TypeVar("F", bound=Callable[..., Any])


def fleet_options(fn: F) -> F:
    """Add the fleet flags to a click command (keyword args: prometheus, selector, since, step)."""
    decorators = [
        click.option(
            "--prometheus",
            "prometheus",
            metavar="URL",
            default=None,
            help="Diagnose a fleet through this Prometheus server (range queries).",
        ),
        click.option(
            "--selector",
            default="",
            metavar="'{job=\"vllm\"}'",
            help="Label matchers choosing the vLLM targets in Prometheus.",
        ),
        click.option(
            "--since",
            default="30m",
            show_default=True,
            metavar="DURATION",
            help="How far back the range queries go.",
        ),
        click.option(
            "--step",
            default="15s",
            show_default=True,
            metavar="DURATION",
            help="Range-query resolution.",
        ),
    ]
    for deco in reversed(decorators):
        fn = deco(fn)
    return fn


def diagnose_fleet(
    prometheus: str,
    selector: str = "",
    since: str = "30m",
    step: str = "15s",
    *,
    headers: dict[str, str] | None = None,
    save_bundle: str | Path | None = None,
    end: float | None = None,
    client: PromClient | None = None,
) -> FleetDiagnosis:
    """Query Prometheus, save the raw answers when asked, and diagnose every replica."""
    from kvdoctor.fleet.build import build_fleet

    opts = FleetOptions(
        prometheus_url=prometheus,
        selector=selector,
        since_s=parse_duration(since, "--since"),
        step_s=parse_duration(step, "--step"),
        end=end,
        headers=dict(headers or {}),
    )
    capture = capture_fleet(opts, client)
    data = build_fleet(capture)
    if save_bundle is not None:
        write_fleet_bundle(data, save_bundle)
    return diagnose_data(data)


def diagnose_fleet_bundle(path: str | Path) -> FleetDiagnosis:
    """Replay a fleet bundle offline (pure: same answers, same diagnosis), either layout."""
    from kvdoctor.fleet.build import build_fleet

    if fleet_bundle_kind(path) == "endpoints":
        from kvdoctor.fleet.endpoints import diagnose_endpoints_bundle

        return diagnose_endpoints_bundle(path)
    return diagnose_data(build_fleet(read_fleet_capture(path)))
