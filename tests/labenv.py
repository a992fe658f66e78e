"""Finding the lab's vLLM for tests that start real servers.

Without the lab environment these tests skip, except where ``KVDOCTOR_LAB_REQUIRED=1`` (CI sets
it in .ci/run): there a missing environment fails the run instead of passing it silently.
"""

from __future__ import annotations

import os

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.server import resolve_vllm_python


def lab_python_or_skip() -> str:
    try:
        return resolve_vllm_python()
    except KvdoctorError as exc:
        if os.environ.get("KVDOCTOR_LAB_REQUIRED") == "1":
            pytest.fail(f"lab vLLM environment required but missing: {exc}")
        pytest.skip(f"lab vLLM environment missing: {exc}")
