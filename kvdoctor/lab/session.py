"""Run ``kvdoctor diagnose`` against a lab scenario, exactly as a user would.

Used by the integration tier (tests/lab) and by scripts/record-fixtures.sh: start the scenario's
server, drive its workload in the background, run the real CLI
(``kvdoctor diagnose --endpoint URL --reproduce --allow-load --format json``) in a subprocess,
stop the workload, stop the server. Where the scenario says so
(``load_during_reproducers``) the workload keeps running while the reproducers work, as
production traffic would; otherwise it stops when the capture window ends, so that experiments
that count their own requests' effects see a quiet server.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvdoctor import __version__
from kvdoctor.bundle.argv import parse_argv, scrub_argv
from kvdoctor.bundle.model import Bundle, EngineArgs, Manifest, Scrape
from kvdoctor.bundle.writer import write_bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.model import model_dir
from kvdoctor.lab.scenarios import get_scenario
from kvdoctor.lab.server import LabHandle, LabStartError, lab_server, start_lab, stop_lab
from kvdoctor.lab.workload import WorkloadRunner
from kvdoctor.pipeline import REPRODUCER_ANNOUNCE

WARMUP_S = 4.0
DIAGNOSE_TIMEOUT_S = 600.0


@dataclass
class ScenarioRun:
    scenario: str
    exit_code: int
    report: dict[str, Any] | None
    stderr: str
    log_path: Path | None
    load_summary: list[dict[str, Any]] = field(default_factory=list)

    @property
    def primary(self) -> dict[str, Any] | None:
        """The report's lead, as :meth:`kvdoctor.report.model.Report.lead` picks it, read from
        the JSON without validating it (a failed or partial run's report is still inspected)."""
        report = self.report or {}
        findings = report.get("findings") or []
        live = [f for f in findings if f.get("status") != "refuted"]
        notes = report.get("notes") or []
        lead = live or notes or findings
        return lead[0] if lead else None


def diagnose_command(
    lab: LabHandle,
    *,
    window_s: float,
    interval_s: float,
    save_bundle: Path | None = None,
    reproduce: bool = True,
    model_config: Path | None = None,
) -> list[str]:
    argv = [
        sys.executable,
        "-m",
        "kvdoctor",
        "diagnose",
        "--endpoint",
        lab.url,
        "--window",
        f"{window_s:g}s",
        "--interval",
        f"{interval_s:g}s",
        "--logs",
        str(lab.log_path),
        "--model-config",
        str(model_config or model_dir()),
        "--format",
        "json",
        "--no-progress",
    ]
    argv += ["--reproduce", "--allow-load"] if reproduce else ["--no-reproduce"]
    if lab.reference is not None:
        argv += ["--reference-endpoint", lab.reference.url]
    if save_bundle is not None:
        argv += ["--save-bundle", str(save_bundle)]
    return argv


def _run_cli(
    argv: list[str], on_reproducers: Callable[[], None] | None = None
) -> tuple[int, dict[str, Any] | None, str]:
    """Run the CLI; call ``on_reproducers`` once when it starts its first reproducer.

    The CLI announces each reproducer on stderr ("kvdoctor: reproducer NAME ..."), which marks
    the end of its capture: the moment to stop a workload that must not disturb experiments.
    """
    # Own process group (Ctrl-C is ours to relay), same session as the lab's servers: see
    # kvdoctor.lab.server._start on autogroup scheduling.
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, process_group=0
    )
    err_lines: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        fired = False
        for line in proc.stderr:
            err_lines.append(line)
            if not fired and on_reproducers and line.startswith(REPRODUCER_ANNOUNCE):
                fired = True
                on_reproducers()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    killer = threading.Timer(DIAGNOSE_TIMEOUT_S, proc.kill)
    killer.daemon = True
    killer.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        code = proc.wait()
    finally:
        killer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    report: dict[str, Any] | None = None
    if out.strip():
        try:
            report = json.loads(out)
        except ValueError:
            report = None
    return code, report, "".join(err_lines)


def _summaries(runner: WorkloadRunner) -> list[dict[str, Any]]:
    return [
        {
            "prompt_tokens": r.spec.prompt_tokens,
            "max_tokens": r.spec.max_tokens,
            "concurrency": r.spec.concurrency,
            "sent": r.sent,
            "ok": r.ok,
            "failed": r.failed,
            "aborted": r.aborted,
            "first_error": r.first_error(),
        }
        for r in runner.results
    ]


def diagnose_scenario(
    name: str,
    *,
    window_s: float = 20.0,
    interval_s: float = 1.0,
    save_bundle: Path | None = None,
    vllm_python: str | None = None,
    lab: LabHandle | None = None,
    engine_args: Sequence[str] | None = None,
) -> ScenarioRun:
    """Diagnose scenario ``name`` end to end (or on an already running ``lab``).

    A scenario that refuses to start (``kv-too-small``) is diagnosed the way an operator would
    meet it: the endpoint is down and the start-up log is all there is, so the CLI diagnoses a
    bundle of that log (:func:`failed_start_bundle`) with ``diagnose --bundle``.
    ``engine_args`` replaces the scenario's flags (its remediation applied): the same workload
    on the changed server, which is then expected to start.
    """
    sc = get_scenario(name)
    if sc.fails_at_startup and engine_args is None:
        return _diagnose_failed_start(name, save_bundle, vllm_python)
    if lab is None:
        with lab_server(name, vllm_python=vllm_python, engine_args=engine_args) as started:
            return _diagnose_running(started, window_s, interval_s, save_bundle)
    return _diagnose_running(lab, window_s, interval_s, save_bundle)


def _diagnose_running(
    lab: LabHandle, window_s: float, interval_s: float, save_bundle: Path | None
) -> ScenarioRun:
    sc = get_scenario(lab.scenario)
    runner = WorkloadRunner(lab.url, lab.model, sc, repeat=True).start()
    try:
        time.sleep(WARMUP_S)
        argv = diagnose_command(
            lab, window_s=window_s, interval_s=interval_s, save_bundle=save_bundle
        )

        def stop_load() -> None:
            # In its own thread: stopping waits for in-flight streams to be cancelled, and the
            # CLI's stderr must keep being read meanwhile.
            threading.Thread(target=runner.stop, daemon=True).start()

        code, report, stderr = _run_cli(argv, None if sc.load_during_reproducers else stop_load)
    finally:
        runner.stop()
    if runner.error is not None:
        raise KvdoctorError(f"the {lab.scenario} workload failed: {runner.error}")
    return ScenarioRun(lab.scenario, code, report, stderr, lab.log_path, _summaries(runner))


def failed_start_bundle(handle: LabHandle) -> Bundle:
    """The bundle of a server that refused to start: what an operator has is its log.

    The endpoint refuses connections (one failed scrape says so); the engine flags come from
    the command line the lab ran and the model config from the generated model. The times are
    the log file's, so a re-diagnosis of the bundle is stable.
    """
    log = handle.log_path.read_text(encoding="utf-8", errors="replace")
    at = handle.log_path.stat().st_mtime
    config = json.loads((model_dir() / "config.json").read_text())
    return Bundle(
        manifest=Manifest(
            created_by=f"kvdoctor {__version__} (lab)",
            endpoint=handle.url,
            started_at=at,
            ended_at=at,
            interval_s=1.0,
            notes=f"lab scenario {handle.scenario}: vLLM exited during start-up; "
            "the start-up log is the evidence",
        ),
        scrapes=[Scrape(t=at, error="connection refused: vLLM exited during start-up")],
        engine_args=EngineArgs(argv=scrub_argv(handle.argv), args=parse_argv(handle.argv)),
        model_config_raw=config,
        logs=log,
    )


def _diagnose_failed_start(
    name: str,
    save_bundle: Path | None,
    vllm_python: str | None,
) -> ScenarioRun:
    try:
        handle = start_lab(name, vllm_python=vllm_python)
    except LabStartError as exc:
        if exc.handle is None:
            raise
        bundle = failed_start_bundle(exc.handle)
        with tempfile.TemporaryDirectory(prefix="kvdoctor-lab-") as tmp:
            path = save_bundle or Path(tmp) / "bundle"
            write_bundle(bundle, path)
            argv = [sys.executable, "-m", "kvdoctor", "diagnose", "--bundle", str(path)]
            code, report, stderr = _run_cli([*argv, "--format", "json"])
        return ScenarioRun(name, code, report, stderr, exc.log_path)
    stop_lab(handle)
    raise KvdoctorError(f"scenario {name} was expected to fail at start-up but vLLM started")
