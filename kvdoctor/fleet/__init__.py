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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kvdoctor.errors import KvdoctorError

# Everything but the click options is imported on first use: ``diagnose --bundle`` of a
# single-replica bundle imports this package for its options and must not pay for httpx and
# the fleet models (about a third of a replay's start-up).
if TYPE_CHECKING:
    from kvdoctor.bundle.model import PromptSample
    from kvdoctor.bundle.reader import ArchiveScan
    from kvdoctor.fleet.capture import FleetOptions
    from kvdoctor.fleet.diagnose import FleetDiagnosis
    from kvdoctor.fleet.promapi import PromClient

__all__ = [
    "FleetDiagnosis",
    "FleetOptions",
    "diagnose_fleet",
    "diagnose_fleet_bundle",
    "fleet_options",
    "is_fleet_bundle",
    "parse_until",
    "render_fleet_markdown",
    "scan_bundle",
]


def __getattr__(name: str) -> Any:
    """Lazy re-exports of the fleet types (PEP 562)."""
    if name == "FleetDiagnosis":
        from kvdoctor.fleet.diagnose import FleetDiagnosis

        return FleetDiagnosis
    if name == "FleetOptions":
        from kvdoctor.fleet.capture import FleetOptions

        return FleetOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_fleet_bundle(path: str | Path) -> bool:
    """True for a fleet bundle (either layout), False for a single-replica one."""
    from kvdoctor.fleet.bundle import is_fleet_bundle as _is_fleet_bundle

    return _is_fleet_bundle(path)


def scan_bundle(path: str | Path) -> tuple[bool, ArchiveScan | None]:
    """Whether the bundle at ``path`` is a fleet bundle, and for an archive the one pass that
    answered it (``read_bundle`` reads a single-server archive from it: one decompression)."""
    from kvdoctor.fleet.bundle import scan_bundle as _scan_bundle

    kind, scan = _scan_bundle(path)
    return kind is not None, scan


def render_fleet_markdown(fleet: FleetDiagnosis) -> str:
    """The fleet incident report (Markdown) with the per-replica table."""
    from kvdoctor.fleet.render import render_fleet_markdown as _render

    return _render(fleet)


F = TypeVar("F", bound=Callable[..., Any])


def fleet_options(fn: F) -> F:
    """Add the fleet flags to a click command (keyword args: prometheus, selector, since, step,
    until)."""
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
            default="auto",
            show_default=True,
            metavar="DURATION",
            help="Range-query resolution (auto: about 120 steps over --since, at least 15s).",
        ),
        click.option(
            "--until",
            default=None,
            metavar="TIME",
            help="End of the --prometheus window: unix seconds or ISO 8601 (UTC unless it says "
            "otherwise); default now. For a look back at an incident.",
        ),
    ]
    for deco in reversed(decorators):
        fn = deco(fn)
    return fn


def parse_until(text: str) -> float:
    """``--until``: unix seconds, or an ISO 8601 time (UTC when it names no offset)."""
    import math
    from datetime import UTC, datetime

    value = text.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # nan, inf and times outside what a clock can name would fail deep in the queries.
        if not math.isfinite(seconds) or not 0 < seconds < 1e11:
            raise KvdoctorError(f"--until: {text!r} is not a time (unix seconds after 1970)")
        return seconds
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise KvdoctorError(
            f"--until: {text!r} is not unix seconds or an ISO 8601 time "
            "(example: 2026-12-01T03:10:00Z)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        seconds = when.timestamp()
    except (OverflowError, OSError, ValueError):
        raise KvdoctorError(f"--until: {text!r} is out of range") from None
    if not 0 < seconds < 1e11:
        raise KvdoctorError(f"--until: {text!r} is not a time after 1970")
    return seconds


def diagnose_fleet(
    prometheus: str,
    selector: str = "",
    since: str = "30m",
    step: str = "auto",
    *,
    headers: dict[str, str] | None = None,
    save_bundle: str | Path | None = None,
    end: float | None = None,
    client: PromClient | None = None,
) -> FleetDiagnosis:
    """Query Prometheus, save the raw answers when asked, and diagnose every replica."""
    from kvdoctor.fleet.build import build_fleet
    from kvdoctor.fleet.capture import FleetOptions, auto_step, capture_fleet
    from kvdoctor.fleet.diagnose import diagnose_data
    from kvdoctor.fleet.promapi import parse_duration
    from kvdoctor.fleet.store import write_fleet_bundle

    since_s = parse_duration(since, "--since")
    opts = FleetOptions(
        prometheus_url=prometheus,
        selector=selector,
        since_s=since_s,
        step_s=auto_step(since_s) if step.strip() == "auto" else parse_duration(step, "--step"),
        end=end,
        headers=dict(headers or {}),
    )
    with malformed_answers("the Prometheus answers"):
        capture = capture_fleet(opts, client)
        data = build_fleet(capture)
    if save_bundle is not None:
        write_fleet_bundle(data, save_bundle)
    with malformed_answers("the Prometheus answers"):
        return diagnose_data(data)


def diagnose_fleet_bundle(
    path: str | Path, prompt_sample: PromptSample | None = None
) -> FleetDiagnosis:
    """Replay a fleet bundle offline (pure: same answers, same diagnosis), either layout.
    ``prompt_sample`` (``--prompts``) is read against an endpoints bundle's replicas; a
    Prometheus-recorded fleet has no per-replica view to read it against, and refuses it."""
    from kvdoctor.fleet.build import build_fleet
    from kvdoctor.fleet.bundle import fleet_bundle_kind
    from kvdoctor.fleet.diagnose import diagnose_data
    from kvdoctor.fleet.store import read_fleet_capture

    if fleet_bundle_kind(path) == "endpoints":
        from kvdoctor.fleet.endpoints import diagnose_endpoints_bundle

        return diagnose_endpoints_bundle(path, prompt_sample)
    if prompt_sample is not None:
        raise KvdoctorError(
            "--prompts applies to a fleet bundle of endpoints (diagnose --endpoint A --endpoint "
            "B --save-bundle), not to one recorded from Prometheus"
        )
    with malformed_answers(f"{Path(path).name}: the recorded Prometheus answers"):
        return diagnose_data(build_fleet(read_fleet_capture(path)))


@contextmanager
def malformed_answers(what: str) -> Iterator[None]:
    """Prometheus answers (live, or recorded in a fleet bundle) are untrusted input: a value of
    the wrong JSON type, a number past float range or nesting thousands deep becomes one line
    (exit 2), never a traceback. The shapes kvdoctor checks are refused earlier, with their own
    words; this catches the ones a hostile answer finds beyond them."""

    try:
        yield
    except KvdoctorError:
        raise
    except RecursionError:
        raise KvdoctorError(f"{what} are nested too deeply to read") from None
    except (TypeError, ValueError, OverflowError, KeyError, IndexError, AttributeError) as exc:
        raise KvdoctorError(
            f"{what} are malformed ({type(exc).__name__}): not what Prometheus sends"
        ) from None
