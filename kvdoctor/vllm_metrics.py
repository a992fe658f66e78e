"""Which vLLM releases export which metrics, and the names kvdoctor reads from them.

The per-release table (``kvdoctor/data/vllm_metrics.yaml``) is generated from each release's own
source by ``scripts/vllm-metric-names.py``; :data:`READS` is kvdoctor's claim of the releases in
which each metric it reads is exported. A unit test holds the claim against the table, so a name
typed wrong or a version guessed wrong fails there rather than silently reading nothing.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import yaml

_TABLE_PATH = Path(__file__).resolve().parent / "data" / "vllm_metrics.yaml"

# The prefixes vLLM metric names carry: plain, and under Ray Serve.
PREFIXES = ("vllm:", "ray_vllm:")
# Renamed metrics, old name -> new name (bases as defined; counters get _total on the wire):
# the 0.9.2 KV and prefix-cache renames and the 0.11 ITL rename. :data:`READS` holds when
# each side is exported; the observations read the old names as the new ones.
RENAMED: dict[str, str] = {
    "vllm:gpu_cache_usage_perc": "vllm:kv_cache_usage_perc",
    "vllm:gpu_prefix_cache_queries": "vllm:prefix_cache_queries",
    "vllm:gpu_prefix_cache_hits": "vllm:prefix_cache_hits",
    "vllm:time_per_output_token_seconds": "vllm:inter_token_latency_seconds",
}

Version = tuple[int, ...]


def vkey(text: str) -> Version:
    return tuple(int(p) for p in re.findall(r"\d+", text))


@functools.cache
def _table() -> dict[str, Any]:
    doc = yaml.safe_load(_TABLE_PATH.read_text(encoding="utf-8"))
    versions: dict[str, Any] = doc["versions"]
    return versions


def table_versions() -> list[str]:
    """Releases in the table, oldest first."""
    return sorted(_table(), key=vkey)


def metric_entry(version: str, name: str) -> dict[str, Any] | None:
    entry: dict[str, Any] | None = _table()[version]["metrics"].get(name)
    return entry


def exported_names(version: str) -> set[str]:
    """Metric names (as defined: counters without ``_total``) a release's V1 engine exports by
    default (neither hidden behind --show-hidden-metrics-for-version nor V0-engine only)."""
    metrics: dict[str, dict[str, Any]] = _table()[version]["metrics"]
    return {n for n, e in metrics.items() if not e.get("hidden") and not e.get("v0_engine_only")}


# name -> (first release that exports it, first release that no longer does; None = open).
# "None" as the first release means "before the oldest release in the table" (0.9.2).
READS: dict[str, tuple[str | None, str | None]] = {
    # core V1 scheduler, cache and request metrics
    "vllm:num_requests_running": (None, None),
    "vllm:num_requests_waiting": (None, None),
    "vllm:num_preemptions": (None, None),
    "vllm:request_success": (None, None),
    "vllm:prompt_tokens": (None, None),
    "vllm:generation_tokens": (None, None),
    "vllm:request_prompt_tokens": (None, None),
    "vllm:request_generation_tokens": (None, None),
    "vllm:time_to_first_token_seconds": (None, None),
    "vllm:request_queue_time_seconds": (None, None),
    "vllm:request_prefill_time_seconds": (None, None),
    "vllm:request_decode_time_seconds": (None, None),
    "vllm:e2e_request_latency_seconds": (None, None),
    "vllm:cache_config_info": (None, None),
    "vllm:iteration_tokens_total": (None, None),
    "vllm:spec_decode_num_drafts": (None, None),
    "vllm:spec_decode_num_draft_tokens": (None, None),
    "vllm:spec_decode_num_accepted_tokens": (None, None),
    # renamed in 0.9.2 (old: exported through 0.10, hidden in 0.11, removed in 0.12)
    "vllm:kv_cache_usage_perc": ("0.9.2", None),
    "vllm:prefix_cache_queries": ("0.9.2", None),
    "vllm:prefix_cache_hits": ("0.9.2", None),
    "vllm:gpu_cache_usage_perc": (None, "0.11.0"),
    "vllm:gpu_prefix_cache_queries": (None, "0.11.0"),
    "vllm:gpu_prefix_cache_hits": (None, "0.11.0"),
    # renamed in 0.11 (old: hidden in 0.12, removed in 0.13)
    "vllm:inter_token_latency_seconds": ("0.11.0", None),
    "vllm:time_per_output_token_seconds": (None, "0.12.0"),
    # V0 engine only: gone before the oldest release in the table
    "vllm:num_requests_swapped": (None, "0.9.2"),
    "vllm:cpu_cache_usage_perc": (None, "0.9.2"),
    "vllm:gpu_prefix_cache_hit_rate": (None, "0.9.2"),
    # added from 0.12 on (kvdoctor/signals/v1_extra.py)
    "vllm:external_prefix_cache_queries": ("0.12.0", None),
    "vllm:external_prefix_cache_hits": ("0.12.0", None),
    "vllm:kv_block_lifetime_seconds": ("0.12.0", None),
    "vllm:kv_block_idle_before_evict_seconds": ("0.12.0", None),
    "vllm:kv_block_reuse_gap_seconds": ("0.12.0", None),
    "vllm:nixl_num_failed_transfers": ("0.12.0", None),
    "vllm:nixl_num_failed_notifications": ("0.12.0", None),
    "vllm:nixl_num_kv_expired_reqs": ("0.18.0", None),
    "vllm:prompt_tokens_by_source": ("0.18.0", None),
    "vllm:prompt_tokens_cached": ("0.18.0", None),
    "vllm:request_prefill_kv_computed_tokens": ("0.18.0", None),
    "vllm:num_requests_waiting_by_reason": ("0.24.0", None),
    "vllm:kv_offload_store_bytes": ("0.24.0", None),
    "vllm:kv_offload_load_bytes": ("0.24.0", None),
    "vllm:prompt_tokens_cached_by_source": ("0.32.0", None),
    "vllm:request_num_preemptions": ("0.32.0", None),
    "vllm:num_requests_kv_fetch_by_stage": ("0.32.0", None),
}


def claimed_in(name: str, version: str) -> bool:
    """Whether :data:`READS` claims that ``version`` exports ``name``."""
    since, until = READS[name]
    v = vkey(version)
    return (since is None or v >= vkey(since)) and (until is None or v < vkey(until))


def first_release(name: str) -> str:
    """ "vLLM X+" text for a reason line ("absent: needs vLLM 0.24+")."""
    since = READS.get(name, (None, None))[0]
    return f"vLLM {since}+" if since else "vLLM"


def kind(name: str) -> str | None:
    """A metric's type (counter, gauge, histogram, ...) in the newest release that defines it."""
    for version in reversed(table_versions()):
        entry = metric_entry(version, name)
        if entry is not None:
            k: str | None = entry.get("kind")
            return k
    return None


def wire_name(name: str) -> str:
    """The sample name a scrape shows for a counter, gauge or info metric (``_total`` added to
    counters); histograms are read through their ``_bucket``/``_sum``/``_count`` samples."""
    return name + "_total" if kind(name) == "counter" else name
