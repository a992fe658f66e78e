"""Pure parts of the lab's diagnose runs and fixture recording (no vLLM needed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from kvdoctor.lab import _genmodel, model
from kvdoctor.lab.fixtures import expected_yaml, mismatch
from kvdoctor.lab.scenarios import SCENARIOS
from kvdoctor.lab.server import LabHandle
from kvdoctor.lab.session import ScenarioRun, diagnose_command, failed_start_bundle
from kvdoctor.pipeline import diagnose_bundle

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def _run(findings: list[dict[str, object]], code: int = 1) -> ScenarioRun:
    return ScenarioRun("x", code, {"findings": findings}, "", None)


def _handle(tmp_path: Path, **kw: object) -> LabHandle:
    base: dict[str, object] = {
        "url": "http://127.0.0.1:18123",
        "port": 18123,
        "pid": 1,
        "model": model.SERVED_MODEL_NAME,
        "log_path": tmp_path / "x.log",
        "scenario": "healthy",
    }
    base.update(kw)
    return LabHandle(**base)  # type: ignore[arg-type]


def test_expected_yaml_round_trips_the_registry() -> None:
    for sc in SCENARIOS.values():
        data = yaml.safe_load(expected_yaml(sc))
        if sc.expected.symptom is None:
            assert data["verdict"] == (sc.expected.verdict or "healthy")
        else:
            assert data["primary"]["symptom"] == sc.expected.symptom
            assert data["primary"]["cause"] == sc.expected.cause


def test_mismatch_names_what_differs() -> None:
    sc = SCENARIOS["preemption-storm"]
    ok = {"symptom": "preemption", "cause": "kv-capacity", "status": "confirmed"}
    assert mismatch(sc, _run([ok])) is None
    wrong = {**ok, "cause": "kv-admission"}
    assert mismatch(sc, _run([wrong])) == "primary is preemption/kv-admission (confirmed)"
    suspected = {**ok, "status": "suspected"}
    assert "status is suspected" in (mismatch(sc, _run([suspected])) or "")
    healthy = SCENARIOS["healthy"]
    assert mismatch(healthy, _run([{**ok, "status": "refuted"}], 0)) is None
    assert "nothing firing" in (mismatch(healthy, _run([ok])) or "")
    assert "no report" in (mismatch(sc, ScenarioRun("x", 2, None, "boom", None)) or "")


def test_diagnose_command_is_the_documented_cli(tmp_path: Path) -> None:
    ref = _handle(tmp_path, url="http://127.0.0.1:18124", port=18124)
    argv = diagnose_command(
        _handle(tmp_path, reference=ref), window_s=15, interval_s=1, save_bundle=tmp_path / "b"
    )
    joined = " ".join(argv)
    assert "-m kvdoctor diagnose --endpoint http://127.0.0.1:18123" in joined
    assert "--reproduce --allow-load" in joined
    assert "--reference-endpoint http://127.0.0.1:18124" in joined
    assert "--format json" in joined and "--window 15s" in joined


def test_failed_start_bundle_diagnoses_the_real_refusal_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    mdir = model.model_dir()
    mdir.mkdir(parents=True)
    (mdir / "config.json").write_text(json.dumps(_genmodel.config()))
    log = tmp_path / "kv-too-small-18123.log"
    log.write_bytes((DATA / "log-startup-kv-too-small.txt").read_bytes())
    os.utime(log, (1_700_000_000, 1_700_000_000))
    sc = SCENARIOS["kv-too-small"]
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", *sc.engine_args]
    handle = _handle(tmp_path, log_path=log, scenario=sc.name, argv=argv)
    bundle = failed_start_bundle(handle)
    assert bundle.manifest.started_at == 1_700_000_000
    assert bundle.scrapes[0].error and not bundle.scrapes[0].ok
    assert bundle.engine_args is not None
    assert bundle.engine_args.args.get("max-model-len") == 8192
    report = diagnose_bundle(bundle)
    primary = report.findings[0]
    assert (primary.symptom, primary.cause) == (sc.expected.symptom, sc.expected.cause)
    assert primary.status != "refuted"
