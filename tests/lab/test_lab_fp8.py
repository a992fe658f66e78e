"""The fp8-kv scenario: an fp8 KV cache server beside an ``auto`` reference (one pair of
servers for the module). The lab model must make fp8 measurably change greedy outputs while
two ``auto`` runs agree exactly, and kvdoctor must diagnose the fp8 cache and confirm it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from labenv import fp8_kv_or_skip

from kvdoctor.lab.scenarios import SCENARIOS
from kvdoctor.lab.server import LabHandle, lab_server
from kvdoctor.lab.session import diagnose_scenario

pytestmark = pytest.mark.lab

PROMPTS = [
    f"Question {i}: " + "the quick brown fox jumps over the lazy dog " * (i + 2) for i in range(6)
]


@pytest.fixture(scope="module")
def fp8_lab(vllm_python: str) -> Iterator[LabHandle]:
    fp8_kv_or_skip(vllm_python)
    with lab_server("fp8-kv", vllm_python=vllm_python) as lab:
        yield lab


def _greedy(url: str, model: str) -> list[str]:
    out = []
    with httpx.Client(timeout=120) as client:
        for prompt in PROMPTS:
            body = {
                "model": model,
                "prompt": prompt,
                "max_tokens": 128,
                "temperature": 0,
                "ignore_eos": True,
            }
            resp = client.post(url + "/v1/completions", json=body)
            resp.raise_for_status()
            out.append(resp.json()["choices"][0]["text"])
    return out


def test_auto_runs_agree_exactly_and_fp8_differs(fp8_lab: LabHandle) -> None:
    ref = fp8_lab.reference
    assert ref is not None
    first = _greedy(ref.url, ref.model)
    second = _greedy(ref.url, ref.model)
    assert first == second
    assert all(len(text) == 128 for text in first)  # byte-level, printable: 1 char per token
    fp8 = _greedy(fp8_lab.url, fp8_lab.model)
    differing = sum(a != b for a, b in zip(first, fp8, strict=True))
    assert differing >= len(PROMPTS) // 2, f"only {differing} of {len(PROMPTS)} outputs differ"


def test_fp8_cache_is_diagnosed_and_confirmed_by_the_canary(fp8_lab: LabHandle) -> None:
    run = diagnose_scenario("fp8-kv", window_s=10, interval_s=1, lab=fp8_lab)
    expected = SCENARIOS["fp8-kv"].expected
    assert run.report is not None, run.stderr[-1500:]
    primary = run.primary
    assert primary is not None, run.stderr[-1500:]
    assert (primary["symptom"], primary["cause"]) == (expected.symptom, expected.cause)
    assert primary["status"] == "confirmed", primary
    assert primary["reproducer"]["verdict"] == "confirmed", primary
