"""The names kvdoctor reads against the per-release table generated from vLLM's own source."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kvdoctor.vllm_metrics import READS, claimed_in, exported_names, table_versions

ROOT = Path(__file__).resolve().parents[2]


def test_table_covers_the_releases_the_issue_names() -> None:
    versions = table_versions()
    for needed in ("0.10.0", "0.11.0", "0.12.0", "0.32.0", "0.33.0"):
        assert needed in versions
    # And at least one release between 0.12 and 0.32.
    assert any((0, 12) < tuple(map(int, v.split(".")[:2])) < (0, 32) for v in versions)


@pytest.mark.parametrize("name", sorted(READS))
def test_every_read_name_exists_exactly_where_claimed(name: str) -> None:
    for version in table_versions():
        exported = name in exported_names(version)
        assert exported == claimed_in(name, version), (
            f"{name} in vLLM {version}: table says exported={exported}"
        )


def _literal_names(path: Path) -> set[str]:
    names = set(re.findall(r'"(vllm:[a-z0-9_]+)"', path.read_text(encoding="utf-8")))
    # Wire forms of the names above: _total for counters, histogram parts.
    return {re.sub(r"(_total|_bucket|_sum|_count)$", "", n) for n in names}


def test_every_metric_name_in_the_readers_is_registered() -> None:
    readers = [
        ROOT / "kvdoctor" / "observations.py",
        *sorted((ROOT / "kvdoctor" / "signals").glob("*.py")),
    ]
    seen: set[str] = set()
    for path in readers:
        seen |= _literal_names(path)
    # iteration_tokens_total is a histogram whose own name ends in _total.
    seen = {"vllm:iteration_tokens_total" if n == "vllm:iteration_tokens" else n for n in seen}
    # "vllm:x_seconds_bucket" is the example in a comment of observations.py, not a read.
    assert seen - set(READS) - {"vllm:x_seconds"} == set()


def test_renames_follow_the_hidden_then_removed_policy() -> None:
    from kvdoctor.vllm_metrics import metric_entry

    # Old KV name: exported in 0.10, hidden in 0.11, gone in 0.12.
    assert metric_entry("0.10.0", "vllm:gpu_cache_usage_perc") is not None
    entry = metric_entry("0.11.0", "vllm:gpu_cache_usage_perc")
    assert entry is not None and entry.get("hidden") is True
    assert metric_entry("0.12.0", "vllm:gpu_cache_usage_perc") is None
    # Old ITL name: exported in 0.11, hidden in 0.12.
    assert "vllm:time_per_output_token_seconds" in exported_names("0.11.0")
    entry = metric_entry("0.12.0", "vllm:time_per_output_token_seconds")
    assert entry is not None and entry.get("hidden") is True


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
