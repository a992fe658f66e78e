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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.model import model_dir
from kvdoctor.lab.scenarios import get_scenario
from kvdoctor.lab.server import LabHandle, LabStartError, lab_server, start_lab
from kvdoctor.lab.workload import WorkloadRunner

WARMUP_S = 4.0
# The CLI needs about a second to import before its capture starts.
CLI_START_S = 1.5
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
        findings = (self.report or {}).get("findings") or []
        return findings[0] if findings else None


def diagnose_command(
    lab: LabHandle,
    *,
    window_s: float,
    interval_s: float,
    save_bundle: Path | None = None,
    reproduce: bool = True,
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
        str(model_dir()),
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


def _run_cli(argv: list[str]) -> tuple[int, dict[str, Any] | None, str]:
    proc = subprocess.run(
        argv, capture_output=True, text=True, timeout=DIAGNOSE_TIMEOUT_S, check=False
    )
    report: dict[str, Any] | None = None
    if proc.stdout.strip():
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = None
    return proc.returncode, report, proc.stderr


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
) -> ScenarioRun:
    """Diagnose scenario ``name`` end to end (or on an already running ``lab``).

    A scenario that refuses to start (``kv-too-small``) is diagnosed the way an operator would
    meet it: its endpoint is down, and the start-up log is all there is (``--logs``).
    """
    sc = get_scenario(name)
    if sc.fails_at_startup:
        return _diagnose_failed_start(name, window_s, interval_s, save_bundle, vllm_python)
    if lab is None:
        with lab_server(name, vllm_python=vllm_python) as started:
            return _diagnose_running(started, window_s, interval_s, save_bundle)
    return _diagnose_running(lab, window_s, interval_s, save_bundle)


def _diagnose_running(
    lab: LabHandle, window_s: float, interval_s: float, save_bundle: Path | None
) -> ScenarioRun:
    sc = get_scenario(lab.scenario)
    runner = WorkloadRunner(lab.url, lab.model, sc, repeat=True).start()
    timer: threading.Timer | None = None
    try:
        time.sleep(WARMUP_S)
        argv = diagnose_command(
            lab, window_s=window_s, interval_s=interval_s, save_bundle=save_bundle
        )
        if not sc.load_during_reproducers:
            timer = threading.Timer(window_s + CLI_START_S, runner.stop)
            timer.daemon = True
            timer.start()
        code, report, stderr = _run_cli(argv)
    finally:
        if timer is not None:
            timer.cancel()
        runner.stop()
    if runner.error is not None:
        raise KvdoctorError(f"the {lab.scenario} workload failed: {runner.error}")
    return ScenarioRun(lab.scenario, code, report, stderr, lab.log_path, _summaries(runner))


def _diagnose_failed_start(
    name: str,
    window_s: float,
    interval_s: float,
    save_bundle: Path | None,
    vllm_python: str | None,
) -> ScenarioRun:
    try:
        handle = start_lab(name, vllm_python=vllm_python)
    except LabStartError as exc:
        port = int(exc.log_path.stem.rsplit("-", 1)[1])
        dead = LabHandle(
            url=f"http://127.0.0.1:{port}",
            port=port,
            pid=0,
            model="",
            log_path=exc.log_path,
            scenario=name,
        )
        # Short window: nothing answers; the log carries the diagnosis.
        argv = diagnose_command(
            dead,
            window_s=min(window_s, 4.0),
            interval_s=min(interval_s, 1.0),
            save_bundle=save_bundle,
            reproduce=False,
        )
        code, report, stderr = _run_cli(argv)
        return ScenarioRun(name, code, report, stderr, exc.log_path)
    from kvdoctor.lab.server import stop_lab

    stop_lab(handle)
    raise KvdoctorError(f"scenario {name} was expected to fail at start-up but vLLM started")
