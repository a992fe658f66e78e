"""The alert generator's PromQL names metrics only through kvdoctor.vllm_metrics (the one table
read from each release's source): a metric name written out in kvdoctor/alerts/promql.py would
drift from the table on the next rename, as the hand-kept rename versions once could."""

from __future__ import annotations

import ast
from pathlib import Path

from kvdoctor import vllm_metrics as vm
from kvdoctor.alerts.promql import metric_names

PROMQL = Path(__file__).parents[2] / "kvdoctor" / "alerts" / "promql.py"


def _every_metric_base() -> set[str]:
    """Every metric name any release in the table defines, and every name kvdoctor reads,
    without the ``vllm:`` prefix (as a bare name in code would be written)."""
    names = set(vm.READS)
    for version in vm.table_versions():
        names |= set(vm.exported_names(version))
        names |= {n for n in vm._table()[version]["metrics"]}
    return {n.removeprefix("vllm:") for n in names}


def bare_metric_names(source: str, bases: set[str]) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    # Docstrings are prose: they may name a metric as the reader knows it.
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            text = node.value
            if "vllm:" in text or text in bases or text.removesuffix("_total") in bases:
                found.append((node.lineno, text))
    return sorted(found)


def test_promql_names_no_metric_outside_the_table() -> None:
    bases = _every_metric_base()
    assert len(bases) > 40
    assert bare_metric_names(PROMQL.read_text(encoding="utf-8"), bases) == []


def test_the_check_sees_a_bare_name() -> None:
    bases = _every_metric_base()
    code = 'a = n.m("num_requests_running")\nb = "vllm:kv_cache_usage_perc"\nc = n.m(vm.RUNNING)\n'
    assert bare_metric_names(code, bases) == [
        (1, "num_requests_running"),
        (2, "vllm:kv_cache_usage_perc"),
    ]


def test_rename_versions_come_from_the_table() -> None:
    # The table's READS decide which side of each rename a release exports.
    assert metric_names((0, 9, 1)).generation == "old"
    assert metric_names((0, 9, 1)).kv_usage == "vllm:gpu_cache_usage_perc"
    assert metric_names((0, 10, 0)).generation == "transitional"
    assert metric_names((0, 10, 0)).prefix_hits == "vllm:prefix_cache_hits_total"
    assert metric_names((0, 10, 0)).itl == "vllm:time_per_output_token_seconds"
    assert metric_names((0, 11, 0)).itl == "vllm:inter_token_latency_seconds"
    assert metric_names(None, "ray_vllm:").kv_usage == "ray_vllm:kv_cache_usage_perc"
