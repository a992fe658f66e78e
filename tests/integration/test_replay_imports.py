"""A replay of a bundle imports nothing it has no use for (network clients, live probes,
the reproducer experiments, YAML and the pydantic playbook schema once the validated playbooks
are cached).

Each of these was once on the replay path and cost start-up time on every
``kvdoctor diagnose --bundle``; this test fails when one creeps back in. It starts fresh
interpreters (a module imported by an earlier test would hide the import), so it lives outside
tests/unit. Speed itself is measured by benchmarks/bench_replay.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The list benchmarks/bench_replay.py checks, plus kvdoctor's own modules that bring them in.
NOT_FOR_REPLAY = (
    "httpx",
    "rich",
    "psutil",
    "pynvml",
    "prometheus_client",
    "yaml",
    "asyncio",
    "kvdoctor.reproducers.experiments",
    "kvdoctor.reproducers.loadgen",
    "kvdoctor.capture",
    "kvdoctor.probes.http",
    "kvdoctor.lab",
    "kvdoctor.fleet.diagnose",
    "kvdoctor.bundle.writer",
    # With a warm cache the validated playbooks are plain runtime data (kvdoctor.rules.runtime):
    # the pydantic schema is for reading playbook files only.
    "kvdoctor.rules.schema",
)

_SCRIPT = """
import json, sys
from kvdoctor.cli import main
sys.argv = ["kvdoctor", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _replay(args: list[str], cache: Path) -> tuple[int, set[str]]:
    env = {**os.environ, "KVDOCTOR_CACHE_DIR": str(cache)}
    env.pop("KVDOCTOR_NO_CACHE", None)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    last = out.stderr.strip().splitlines()[-1]
    result = json.loads(last)
    return int(result["code"]), set(result["modules"])


def _fixtures() -> list[Path]:
    found = sorted(p.parent for p in (REPO / "fixtures").glob("*/expected.yaml"))
    assert found, "no fixture under fixtures/ to replay"
    return found


@pytest.mark.parametrize("form", ["fixture-dir", "tar.gz", "json"])
def test_replay_imports_nothing_it_does_not_need(form: str, tmp_path: Path) -> None:
    fixture = next(f for f in _fixtures() if (f / "bundle.tar.gz").is_file())
    bundle = str(fixture) if form == "fixture-dir" else str(fixture / "bundle.tar.gz")
    args = ["diagnose", "--bundle", bundle]
    if form == "json":
        args += ["--format", "json"]
    cache = tmp_path / "cache"
    # The first run fills kvdoctor's cache (it validates the playbooks, which reads YAML and
    # checks every experiment); the second is the replay every later user run is.
    cold_code, _ = _replay(args, cache)
    code, modules = _replay(args, cache)
    assert code == cold_code
    assert code in (0, 1), f"diagnose --bundle {bundle} exited {code}"
    assert "kvdoctor.pipeline" in modules  # it did diagnose
    needless = sorted(
        m for m in modules if any(m == bad or m.startswith(bad + ".") for bad in NOT_FOR_REPLAY)
    )
    assert needless == []
    if form == "json":
        # JSON renders no template: its summary sentence is worded in Python
        # (kvdoctor/report/sentences.py), so jinja2 stays off the path.
        assert not any(m == "jinja2" or m.startswith("jinja2.") for m in modules)


def test_every_fixture_replays_without_needless_imports(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _replay(["check", str(_fixtures()[0])], cache)  # fills the playbook cache
    for fixture in _fixtures():
        code, modules = _replay(["diagnose", "--bundle", str(fixture)], cache)
        assert code in (0, 1), f"{fixture.name}: exit {code}"
        needless = sorted(m for m in NOT_FOR_REPLAY if m in modules)
        assert needless == [], fixture.name
