"""The names kvdoctor reads against the per-release table generated from vLLM's own source."""

from __future__ import annotations

import re
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


def _package_literals() -> dict[str, list[str]]:
    """Every ``vllm:`` metric name written as a string anywhere in kvdoctor/ -> where."""
    import ast

    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "kvdoctor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"(ray_)?vllm:[a-z0-9_]+", node.value)
            ):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                found.setdefault(node.value.removeprefix("ray_"), []).append(where)
    return found


def test_every_metric_name_written_anywhere_is_claimed_against_the_table() -> None:
    # Not only the readers: the reproducers, the fleet, the alerts and the lab too. A name
    # typed wrong anywhere would silently read nothing; here it fails against READS, which the
    # tests above hold against each release's own source.
    unclaimed = {}
    for name, where in _package_literals().items():
        base = name
        for suffix in ("_bucket", "_sum", "_count", "_total", "_created"):
            if base.endswith(suffix) and base[: -len(suffix)] in READS:
                base = base[: -len(suffix)]
                break
        if base not in READS:
            unclaimed[name] = where
    assert unclaimed == {}


def test_renames_and_their_wire_names() -> None:
    from kvdoctor.fleet.signals import renamed_wire_names
    from kvdoctor.vllm_metrics import RENAMED, wire_name

    for old, new in RENAMED.items():
        # Each rename is one READS entry ending where the other begins.
        assert READS[old][1] is not None and READS[new][0] is not None
    assert wire_name("vllm:num_preemptions") == "vllm:num_preemptions_total"
    assert wire_name("vllm:kv_cache_usage_perc") == "vllm:kv_cache_usage_perc"
    assert renamed_wire_names() == (
        {
            "vllm:gpu_cache_usage_perc",
            "vllm:gpu_prefix_cache_queries_total",
            "vllm:gpu_prefix_cache_hits_total",
        },
        {
            "vllm:kv_cache_usage_perc",
            "vllm:prefix_cache_queries_total",
            "vllm:prefix_cache_hits_total",
        },
    )
