"""Finding the lab's vLLM for tests that start real servers.

Without the lab environment these tests skip, except where ``KVDOCTOR_LAB_REQUIRED=1`` (CI sets
it in .ci/run): there a missing environment fails the run instead of passing it silently.
"""

from __future__ import annotations

import os
import shutil

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.server import resolve_vllm_python


def tool_or_skip(name: str) -> str:
    """The path of ``name`` (prometheus, promtool), which scripts/install-prometheus.sh installs;
    missing, it skips, except in CI (``CI`` or ``KVDOCTOR_LAB_REQUIRED=1``) where it fails."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") or os.environ.get("KVDOCTOR_LAB_REQUIRED") == "1":
            pytest.fail(f"{name} missing in CI: run scripts/install-prometheus.sh")
        pytest.skip(f"{name} not installed (scripts/install-prometheus.sh installs it)")
    return path


def lab_python_or_skip() -> str:
    try:
        return resolve_vllm_python()
    except KvdoctorError as exc:
        if os.environ.get("KVDOCTOR_LAB_REQUIRED") == "1":
            pytest.fail(f"lab vLLM environment required but missing: {exc}")
        pytest.skip(f"lab vLLM environment missing: {exc}")


def fp8_kv_or_skip(python: str) -> None:
    """Skip where the host's CPU cannot run vLLM's fp8 KV cache (no AVX-512 or AMX).

    An instruction set is not a missing environment: CI hosts differ, and a host without it
    cannot run the test at all. Everything else about the fp8 path is covered by the recorded
    fp8-kv fixture, which replays anywhere.
    """
    from kvdoctor.lab.host import fp8_kv_unsupported

    why = fp8_kv_unsupported(python)
    if why is not None:
        pytest.skip(why)
