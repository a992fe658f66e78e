"""``kvdoctor demo``: the README's main job, end to end on this machine.

Lab up a mis-tuned scenario, drive its workload in the background, capture while it runs, stop
the workload, run the reproducers with load allowed, write the Markdown report, lab down. The
server is stopped on every exit path (errors and Ctrl-C included) by :func:`lab_server`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kvdoctor.capture import CaptureOptions, capture
from kvdoctor.lab.model import model_dir
from kvdoctor.lab.scenarios import get_scenario
from kvdoctor.lab.server import lab_server
from kvdoctor.lab.workload import WorkloadRunner
from kvdoctor.pipeline import diagnose, run_reproducers
from kvdoctor.report.checker import exit_code_for
from kvdoctor.report.output import write_atomic
from kvdoctor.report.render import render_markdown

# Seconds of workload before the capture starts, so the window sees a loaded server.
WARMUP_S = 5.0


@dataclass(frozen=True)
class DemoResult:
    report_path: Path
    verdict: str
    headline: str
    exit_code: int


def run_demo(
    scenario: str,
    output: Path,
    *,
    vllm_python: str | None = None,
    window_s: float = 20.0,
    interval_s: float = 1.0,
    echo: Callable[[str], None] = lambda _line: None,
) -> DemoResult:
    # Below the CLI layer: the options are built here, not from parsed flags (the command that
    # calls this validated --window), and the exit code is the report checker's one rule.
    sc = get_scenario(scenario)
    echo(f"kvdoctor: starting the lab ({scenario}); vLLM start-up takes ~30 s")
    with lab_server(scenario, vllm_python=vllm_python) as lab:
        echo(f"kvdoctor: lab ready at {lab.url}; driving the {scenario} workload")
        runner = WorkloadRunner(lab.url, lab.model, sc, repeat=True).start()
        try:
            time.sleep(WARMUP_S)
            opts = CaptureOptions(
                endpoint=lab.url,
                window_s=window_s,
                interval_s=interval_s,
                logs=str(lab.log_path),
                model_config_path=str(model_dir()),
                notes=f"kvdoctor demo, lab scenario {scenario}",
            )
            echo(f"kvdoctor: capturing /metrics for {window_s:g} s")
            bundle = capture(opts)
        finally:
            # The reproducers measure the server on their own; the scenario's load would skew
            # them (and trip their guards), so it stops before they start.
            runner.stop()
        records = run_reproducers(
            bundle,
            lab.url,
            {},
            allow_load=True,
            reference_endpoint=lab.reference.url if lab.reference else None,
            echo=echo,
            clock=time.time,
        )
    bundle = bundle.with_reproducers(records)
    diagnosis = diagnose(bundle)
    report = diagnosis.report
    write_atomic(output, render_markdown(report, diagnosis.context))
    firing = [f for f in report.findings if f.status != "refuted"]
    headline = f"{firing[0].symptom} / {firing[0].cause} ({firing[0].status})" if firing else "none"
    return DemoResult(
        report_path=output,
        verdict=report.verdict,
        headline=headline,
        exit_code=exit_code_for(report, None),
    )
