"""Recorded vLLM 0.32 ``/metrics`` payloads (tests/data/vllm-0.32), for any test tier.

Plain file reads: the unit tests use them without the loopback fake server of
tests/integration/_vllm_fake.py, which serves the same payloads.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "vllm-0.32"


def payload(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")
