"""``kvdoctor lab up|down|status`` and ``kvdoctor demo``: a real vLLM on this machine.

``lab up`` leaves the server running in its own process group (state in the lab directory,
``$KVDOCTOR_LAB_DIR`` or ``./.lab``) so that ``lab down`` and ``lab status`` work from another
shell. ``demo`` does the whole round trip and always stops what it started.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from kvdoctor.commands._capture_opts import DURATION
from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.scenarios import SCENARIOS

_SCENARIO = click.Choice(sorted(SCENARIOS))


def _show_start_failure(exc: Exception) -> None:
    from kvdoctor.lab.server import LabStartError

    if isinstance(exc, LabStartError) and exc.log_tail:
        click.echo(f"--- last lines of {exc.log_path} ---", err=True)
        click.echo(exc.log_tail, err=True)
        click.echo("---", err=True)


@click.group("lab")
def lab() -> None:
    """Start and stop a real vLLM lab server (tiny generated model, scenario presets)."""


@lab.command("up")
@click.option("--scenario", required=True, type=_SCENARIO, help="Which mis-tuning to start.")
@click.option("--port", type=click.IntRange(1024, 65535), help="Port (default: a free one >18000).")
@click.option("--vllm-python", metavar="PATH", help="Python of the lab's vLLM venv.")
@click.option(
    "--timeout",
    "timeout_s",
    type=DURATION,
    default="300s",
    show_default=True,
    help="How long to wait for /health (1s to 1h).",
)
def up(scenario: str, port: int | None, vllm_python: str | None, timeout_s: float) -> int:
    """Start vLLM for SCENARIO and wait until it is ready; print its URL."""
    from kvdoctor.lab.server import LabStartError, start_lab

    if not 1 <= timeout_s <= 3600:
        raise KvdoctorError(f"--timeout must be between 1s and 1h, got {timeout_s:g}s")

    sc = SCENARIOS[scenario]
    try:
        handle = start_lab(scenario, port, vllm_python, start_timeout_s=timeout_s)
    except LabStartError as exc:
        if sc.fails_at_startup:
            # The refusal is what this scenario demonstrates: its log is the evidence.
            click.echo(f"kvdoctor: vLLM refused to start, as scenario {scenario} intends.")
            click.echo(f"log: {exc.log_path}")
            return 0
        _show_start_failure(exc)
        raise
    if sc.fails_at_startup:
        click.echo(f"kvdoctor: warning: {scenario} was expected to fail at start-up", err=True)
    click.echo(f"url: {handle.url}")
    click.echo(f"model: {handle.model}")
    click.echo(f"scenario: {handle.scenario}")
    click.echo(f"pid: {handle.pid}")
    click.echo(f"log: {handle.log_path}")
    if handle.reference is not None:
        click.echo(f"reference url: {handle.reference.url}")
        click.echo(f"reference log: {handle.reference.log_path}")
    return 0


@lab.command("down")
def down() -> int:
    """Stop every lab server recorded in the lab directory."""
    from kvdoctor.lab.server import lab_dir, list_labs, stop_lab

    handles = list_labs()
    if not handles:
        click.echo(f"kvdoctor: no lab server recorded in {lab_dir()}")
        return 0
    for h in handles:
        stop_lab(h)
        click.echo(f"stopped {h.instance} (pid {h.pid}, {h.url})")
    return 0


@lab.command("status")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def status(as_json: bool) -> int:
    """List the lab servers and whether each is running and healthy."""
    import httpx

    from kvdoctor.lab.server import is_running, lab_dir, list_labs

    handles = list_labs()
    if not handles:
        click.echo(f"kvdoctor: no lab server recorded in {lab_dir()}")
        return 0
    for h in handles:
        running = is_running(h)
        health: int | None = None
        if running:
            try:
                health = httpx.get(h.url + "/health", timeout=2.0).status_code
            except httpx.HTTPError:
                health = None
        state = "healthy" if health == 200 else ("starting" if running else "stopped (stale)")
        if as_json:
            row = {
                "instance": h.instance,
                "scenario": h.scenario,
                "url": h.url,
                "pid": h.pid,
                "state": state,
                "log": str(h.log_path),
            }
            click.echo(json.dumps(row, sort_keys=True))
        else:
            click.echo(f"{h.instance}: {state} {h.url} pid {h.pid} log {h.log_path}")
    return 0


@lab.command("scenarios")
@click.option("--verbose", "-v", is_flag=True, help="Also print what each one demonstrates.")
def scenarios(verbose: bool) -> int:
    """List the scenarios: engine flags, expected diagnosis, CPU-build limits."""
    for name in sorted(SCENARIOS):
        sc = SCENARIOS[name]
        want = f"{sc.expected.symptom}/{sc.expected.cause}" if sc.expected.symptom else "nothing"
        click.echo(f"{name}: {sc.title}")
        click.echo(f"  expected: {want}")
        click.echo(
            f"  flags: {' '.join(sc.engine_args)} (VLLM_CPU_KVCACHE_SPACE={sc.kv_cache_space_gib})"
        )
        if sc.reference_args is not None:
            click.echo(f"  reference server: {' '.join(sc.reference_args)}")
        if verbose:
            click.echo(f"  demonstrates: {sc.demonstrates}")
            if sc.cpu_limits:
                click.echo(f"  CPU build: {sc.cpu_limits}")
    return 0


@click.command("demo")
@click.option(
    "--scenario",
    type=_SCENARIO,
    default="preemption-storm",
    show_default=True,
    help="The mis-tuned scenario to diagnose.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("kvdoctor-demo-report.md"),
    show_default=True,
    help="Where to write the Markdown report.",
)
@click.option("--vllm-python", metavar="PATH", help="Python of the lab's vLLM venv.")
@click.option(
    "--window",
    "window_s",
    type=DURATION,
    default="20s",
    show_default=True,
    help="How long to capture /metrics while the workload runs (2s to 10m).",
)
def demo(scenario: str, output: Path, vllm_python: str | None, window_s: float) -> int:
    """Lab up, drive the scenario's workload, diagnose with reproducers, report, lab down."""
    from kvdoctor.lab.demo import run_demo

    if not 2 <= window_s <= 600:
        raise KvdoctorError(f"--window must be between 2s and 10m, got {window_s:g}s")

    sc = SCENARIOS[scenario]
    if sc.fails_at_startup:
        raise KvdoctorError(f"scenario {scenario} never starts a server; pick another for demo")

    def echo(line: str) -> None:
        click.echo(line, err=True)

    try:
        result = run_demo(scenario, output, vllm_python=vllm_python, window_s=window_s, echo=echo)
    except KvdoctorError as exc:
        _show_start_failure(exc)
        raise
    click.echo(f"kvdoctor: report written to {result.report_path}")
    click.echo(f"verdict: {result.verdict}; primary finding: {result.headline}")
    return demo_exit_code(result.verdict)


def demo_exit_code(verdict: str) -> int:
    """The demo's exit code: 0 when it demonstrated what it set out to (the mis-tuned server
    diagnosed with a finding), 1 when the server it broke on purpose looked healthy, 2 when
    nothing could be diagnosed. Not ``diagnose``'s code, for which a finding is exit 1: the
    demo succeeding is finding one."""
    if verdict == "unknown":
        return 2
    return 1 if verdict == "healthy" else 0
