"""The capture pipeline against a real vLLM 0.32 (CPU) from the lab.

One short recording of the healthy lab server while a few requests run: the engine process is
found through psutil, the model config is resolved from what /v1/models says, counters move
over the window, and the bundle written to disk gives the same signals as the live one.
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.capture import CaptureOptions, capture
from kvdoctor.lab.server import LabHandle
from kvdoctor.signals.compute import compute_signals

pytestmark = pytest.mark.lab


def _requests(url: str, model: str, n: int) -> None:
    with httpx.Client(timeout=120) as c:
        for i in range(n):
            c.post(
                f"{url}/v1/completions",
                json={"model": model, "prompt": f"[{i}] " + "abc" * 50, "max_tokens": 16,
                      "temperature": 0, "ignore_eos": True},
            )  # fmt: skip


def test_record_a_real_server(healthy_lab: LabHandle, tmp_path: Path) -> None:
    lab = healthy_lab
    load = threading.Thread(target=_requests, args=(lab.url, lab.model, 4))
    # The first scrape is taken before the load starts, so the window sees it all.
    opts = CaptureOptions(endpoint=lab.url, window_s=6.0, interval_s=1.0, timeout=10.0)
    timer = threading.Timer(0.5, load.start)
    timer.start()
    bundle = capture(opts, progress=False, sink=tmp_path / "b.tar.gz")
    timer.join()
    load.join(timeout=120)
    assert all(s.ok for s in bundle.scrapes)
    assert bundle.engine_args is not None and bundle.engine_args.argv is not None
    assert "vllm.entrypoints.openai.api_server" in bundle.engine_args.argv
    assert bundle.engine_args.args["port"] == lab.port
    assert bundle.model_config_raw is not None  # resolved from /v1/models "root"
    whats = {n.what for n in bundle.manifest.not_checked}
    assert "gpu" in whats and "engine process" not in whats

    live = compute_signals(bundle)
    replay = compute_signals(read_bundle(tmp_path / "b.tar.gz"))
    assert live.flat() == replay.flat()
    assert live.get("vllm_version") == "0.32.0"
    assert live.get("kv_bytes_per_token") == 1024
    assert live.get("kv_config_mismatch") == pytest.approx(1.0)
    assert live.get("block_size") == 128
    finished = live.get("requests_finished_window")
    assert isinstance(finished, int) and finished >= 1
    assert live.get("ttft_p50") is not None
