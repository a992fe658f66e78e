"""vLLM 0.12+ metrics from a real vLLM 0.32 (CPU) lab server with --kv-cache-metrics on.

eviction-churn's 24-block pool: shared-prefix requests, then distinct prompts that evict the
prefix, then the prefix again, all inside one capture window. The KV residency histograms,
prompt tokens by source and waiting-by-reason must be read (not "not checked").
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
from labenv import lab_python_or_skip

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.capture import CaptureOptions, capture
from kvdoctor.lab.server import lab_server
from kvdoctor.pipeline import diagnose

pytestmark = pytest.mark.lab

SHARED = ("The system prompt. " * 40)[:512]


def _load(url: str, model: str) -> None:
    prompts = [SHARED + f"[{i}]" + "abc" * 60 for i in range(3)]
    prompts += [f"<{i}>" + "xyz" * 330 for i in range(6)]  # ~1,000 tokens each: evicts
    prompts += [SHARED + f"[{i}]" + "abc" * 60 for i in range(3, 5)]
    with httpx.Client(timeout=120) as c:
        for p in prompts:
            body = {"model": model, "prompt": p, "max_tokens": 8, "temperature": 0,
                    "ignore_eos": True}  # fmt: skip
            c.post(f"{url}/v1/completions", json=body)


def test_kv_residency_and_sources_are_read(tmp_path: Path) -> None:
    python = lab_python_or_skip()
    extra = ["--kv-cache-metrics", "--kv-cache-metrics-sample", "1.0"]
    with lab_server("eviction-churn", vllm_python=python, extra_args=extra) as lab:
        load = threading.Thread(target=_load, args=(lab.url, lab.model))
        opts = CaptureOptions(endpoint=lab.url, window_s=25.0, interval_s=1.0, timeout=10.0)
        timer = threading.Timer(0.5, load.start)
        timer.start()
        capture(opts, progress=False, sink=tmp_path / "b.tar.gz")
        timer.join()
        load.join(timeout=120)
    d = diagnose(read_bundle(tmp_path / "b.tar.gz"))
    s = d.signals
    evictions = s.get("kv_block_evictions_sampled_window")
    assert isinstance(evictions, int) and evictions > 0
    for name in ("kv_block_lifetime_p50", "kv_block_idle_before_evict_p50"):
        value = s.get(name)
        assert isinstance(value, float) and value > 0, (name, s.values[name])
    # The retention horizon is the measured one (residency histograms), not the estimate.
    horizon = s.get("kv_retention_horizon_s")
    assert isinstance(horizon, float) and horizon > 0
    assert "idle_before_evict" in s.values["kv_retention_horizon_s"].provenance
    share = s.get("prompt_cached_share_window")
    assert isinstance(share, float) and 0 < share < 1
    assert s.get("waiting_deferred_max") == 0
    assert s.get("external_prefix_queries_window") == 0
    assert s.get("hybrid_model") is False
    assert not any("residency" in e.what for e in d.report.not_checked)
