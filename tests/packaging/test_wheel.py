"""A plain wheel install (not only an editable one) must diagnose: playbooks and templates ship.

Builds the wheel, installs it without dependencies into a private target directory (the
dependencies come from the test venv), and replays a recorded fixture from outside the checkout,
so nothing can be found through the source tree by accident.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _a_recorded_fixture() -> Path:
    for candidate in sorted((REPO / "fixtures").glob("*/expected.yaml")):
        return candidate.parent
    pytest.fail("no recorded fixture under fixtures/ to replay from the wheel")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("kvdoctor-*.whl")
    return built


def test_wheel_carries_playbooks_templates_and_catalog(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("kvdoctor/_data/playbooks/") and n.endswith(".yaml") for n in names)
    assert any(n.startswith("kvdoctor/_data/templates/") and n.endswith(".j2") for n in names)
    assert "kvdoctor/data/models.yaml" in names
    # The accuracy harness (the lab generator and its scoring) is measurement equipment: it
    # stays beside the package, out of the wheel.
    assert not [n for n in names if n.startswith("kvaccuracy/") or "randomized" in n]


def test_installed_wheel_diagnoses_a_recorded_bundle(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    fixture_dir = shutil.copytree(_a_recorded_fixture(), tmp_path / "fixture")
    packed = fixture_dir / "bundle.tar.gz"
    fixture = packed if packed.is_file() else fixture_dir / "bundle"
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import kvdoctor, kvdoctor.resources as r; "
            "print(kvdoctor.__file__); print(r.data_dir('playbooks'))",
        ],
        cwd=workdir,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    module_file, playbooks = probe.stdout.splitlines()
    assert module_file.startswith(str(site)), module_file
    assert playbooks.startswith(str(site)), playbooks

    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "kvdoctor",
            "diagnose",
            "--bundle",
            str(fixture),
            "--format",
            "json",
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode in (0, 1), run.stderr
    report = json.loads(run.stdout)
    assert report["schema"] == "kvdoctor.report/1"
    assert report["verdict"] in ("healthy", "degraded", "critical")
