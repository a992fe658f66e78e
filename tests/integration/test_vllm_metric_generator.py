"""scripts/vllm-metric-names.py, run as a child process over a minimal vLLM source tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generator_reads_a_source_tree(tmp_path: Path) -> None:
    # A minimal release tree in the shapes vLLM uses: a constructor call, a hidden branch, a
    # spec table and CacheConfig fields.
    pkg = tmp_path / "vllm-9.9.9" / "vllm"
    (pkg / "v1" / "metrics").mkdir(parents=True)
    (pkg / "config").mkdir()
    (pkg / "v1" / "metrics" / "loggers.py").write_text(
        "class L:\n"
        "    def __init__(self, hidden):\n"
        "        self.a = self._gauge_cls(name='vllm:new_gauge', labelnames=['engine', 'reason'])\n"
        "        if self.show_hidden_metrics:\n"
        "            self.b = self._counter_cls(name='vllm:old_counter')\n"
        "        counter_specs = [('vllm:spec_counter', 'doc')]\n"
    )
    (pkg / "config" / "cache.py").write_text(
        "class CacheConfig:\n    block_size: int = 16\n    sliding_window: int | None = None\n"
    )
    out = tmp_path / "table.yaml"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "vllm-metric-names.py"),
            "--out",
            str(out),
            str(tmp_path / "vllm-9.9.9"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    import yaml

    metrics = yaml.safe_load(out.read_text())["versions"]["9.9.9"]["metrics"]
    assert metrics["vllm:new_gauge"] == {
        "kind": "gauge",
        "labels": ["reason"],
        "files": ["vllm/v1/metrics/loggers.py"],
    }
    assert metrics["vllm:old_counter"]["hidden"] is True
    assert metrics["vllm:spec_counter"]["kind"] == "counter"
    assert metrics["vllm:cache_config_info"]["labels"] == ["block_size", "engine", "sliding_window"]
