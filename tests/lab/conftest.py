"""The integration tier: real vLLM servers from the lab (pytest marker ``lab``).

Servers get their own lab directory for the session (never the developer's ``.lab``). When the
lab's vLLM environment is missing the tier is skipped, unless ``KVDOCTOR_LAB_REQUIRED=1`` (CI),
where a missing environment is a failure, not a silent skip.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from labenv import lab_python_or_skip

from kvdoctor.lab.server import LabHandle, lab_server
from kvdoctor.lab.session import ScenarioRun, diagnose_scenario

# Short windows keep the tier within ~15 minutes on 2 cores; long enough for several scrapes
# under load and for the histograms to fill.
WINDOW_S = 20.0
INTERVAL_S = 1.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.lab)


@pytest.fixture(scope="session")
def vllm_python() -> str:
    return lab_python_or_skip()


@pytest.fixture(scope="session", autouse=True)
def _lab_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("lab")
    old = os.environ.get("KVDOCTOR_LAB_DIR")
    os.environ["KVDOCTOR_LAB_DIR"] = str(path)
    try:
        yield path
    finally:
        from kvdoctor.lab.server import stop_lab

        # Whatever a failed test left running is stopped here (by the PIDs recorded).
        stop_lab()
        if old is None:
            os.environ.pop("KVDOCTOR_LAB_DIR", None)
        else:
            os.environ["KVDOCTOR_LAB_DIR"] = old


@pytest.fixture(scope="session")
def healthy_lab(vllm_python: str) -> Iterator[LabHandle]:
    """One plain ``healthy`` server for the tests that only need a server to talk to.

    A vLLM start costs 20-30 s on a 2-core host; these tests judge their own requests (over
    their own window, by counter deltas), so the traffic an earlier test sent changes nothing.
    """
    with lab_server("healthy", vllm_python=vllm_python) as handle:
        yield handle


@pytest.fixture(scope="session")
def diagnose_run(
    vllm_python: str, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], ScenarioRun]:
    """``diagnose_run(name)``: one server and one diagnose run per scenario, cached."""
    cache: dict[str, ScenarioRun] = {}

    def run(name: str) -> ScenarioRun:
        if name not in cache:
            bundle = tmp_path_factory.mktemp(f"bundle-{name}")
            cache[name] = diagnose_scenario(
                name,
                window_s=WINDOW_S,
                interval_s=INTERVAL_S,
                save_bundle=bundle / "bundle",
                vllm_python=vllm_python,
            )
        return cache[name]

    return run
