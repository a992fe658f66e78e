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

_TABLE_PATH = Path(__file__).resolve().parent / "data" / "vllm_metrics.yaml"

# The metrics several modules read, one name each (as defined: counters without ``_total``,
# histograms without ``_bucket``/``_sum``/``_count``). Readers import these; the names only
# they read are defined beside them (e.g. kvdoctor.signals.v1_extra) and claimed in READS.
KV_USAGE = "vllm:kv_cache_usage_perc"
RUNNING = "vllm:num_requests_running"
WAITING = "vllm:num_requests_waiting"
PREEMPTIONS = "vllm:num_preemptions"
REQUEST_SUCCESS = "vllm:request_success"
PREFIX_QUERIES = "vllm:prefix_cache_queries"
PREFIX_HITS = "vllm:prefix_cache_hits"
PROMPT_TOKENS = "vllm:prompt_tokens"
GENERATION_TOKENS = "vllm:generation_tokens"
REQUEST_PROMPT_TOKENS = "vllm:request_prompt_tokens"
REQUEST_GENERATION_TOKENS = "vllm:request_generation_tokens"
CACHE_CONFIG_INFO = "vllm:cache_config_info"
TTFT = "vllm:time_to_first_token_seconds"
ITL = "vllm:inter_token_latency_seconds"
QUEUE_TIME = "vllm:request_queue_time_seconds"
PREFILL_TIME = "vllm:request_prefill_time_seconds"
DECODE_TIME = "vllm:request_decode_time_seconds"
E2E_LATENCY = "vllm:e2e_request_latency_seconds"
KV_BLOCK_LIFETIME = "vllm:kv_block_lifetime_seconds"
KV_BLOCK_IDLE_BEFORE_EVICT = "vllm:kv_block_idle_before_evict_seconds"
KV_BLOCK_REUSE_GAP = "vllm:kv_block_reuse_gap_seconds"

# V0's averaged throughput gauges (removed in 0.7): set with each stats line, so they stop
# moving when the engine stops stepping.
V0_GENERATION_TPS = "vllm:avg_generation_throughput_toks_per_s"

# Read by kvdoctor.signals.v1_extra only (metrics vLLM added from 0.12 on).
WAITING_BY_REASON = "vllm:num_requests_waiting_by_reason"
PROMPT_BY_SOURCE = "vllm:prompt_tokens_by_source"
PROMPT_CACHED = "vllm:prompt_tokens_cached"
PROMPT_CACHED_BY_SOURCE = "vllm:prompt_tokens_cached_by_source"
EXT_Q = "vllm:external_prefix_cache_queries"
EXT_H = "vllm:external_prefix_cache_hits"
PREFILL_KV = "vllm:request_prefill_kv_computed_tokens"
# A histogram whose own name ends in _total: its samples are iteration_tokens_total_bucket etc.
ITERATION = "vllm:iteration_tokens_total"
REQ_PREEMPTIONS = "vllm:request_num_preemptions"
SPEC_DRAFTS = "vllm:spec_decode_num_drafts"
SPEC_DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens"
SPEC_ACCEPTED = "vllm:spec_decode_num_accepted_tokens"
OFFLOAD_STORE = "vllm:kv_offload_store_bytes"
OFFLOAD_LOAD = "vllm:kv_offload_load_bytes"
NIXL_FAILED = "vllm:nixl_num_failed_transfers"
NIXL_FAILED_NOTIF = "vllm:nixl_num_failed_notifications"
NIXL_EXPIRED = "vllm:nixl_num_kv_expired_reqs"
NIXL_XFER_TIME = "vllm:nixl_xfer_time_seconds"
NIXL_POST_TIME = "vllm:nixl_post_time_seconds"
KV_FETCH = "vllm:num_requests_kv_fetch_by_stage"
# The V0 engine's own hit-rate gauge (no V1 equivalent with the same meaning).
V0_PREFIX_HIT_RATE = "vllm:gpu_prefix_cache_hit_rate"

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
    # Imported here: the diagnosis reads only READS, and yaml is a tenth of a replay's start-up.
    import yaml

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
    RUNNING: (None, None),
    WAITING: (None, None),
    PREEMPTIONS: (None, None),
    REQUEST_SUCCESS: (None, None),
    PROMPT_TOKENS: (None, None),
    GENERATION_TOKENS: (None, None),
    REQUEST_PROMPT_TOKENS: (None, None),
    REQUEST_GENERATION_TOKENS: (None, None),
    TTFT: (None, None),
    QUEUE_TIME: (None, None),
    PREFILL_TIME: (None, None),
    DECODE_TIME: (None, None),
    E2E_LATENCY: (None, None),
    CACHE_CONFIG_INFO: (None, None),
    ITERATION: (None, None),
    SPEC_DRAFTS: (None, None),
    SPEC_DRAFT_TOKENS: (None, None),
    SPEC_ACCEPTED: (None, None),
    # renamed in 0.9.2 (old: exported through 0.10, hidden in 0.11, removed in 0.12)
    KV_USAGE: ("0.9.2", None),
    PREFIX_QUERIES: ("0.9.2", None),
    PREFIX_HITS: ("0.9.2", None),
    "vllm:gpu_cache_usage_perc": (None, "0.11.0"),
    "vllm:gpu_prefix_cache_queries": (None, "0.11.0"),
    "vllm:gpu_prefix_cache_hits": (None, "0.11.0"),
    # renamed in 0.11 (old: hidden in 0.12, removed in 0.13)
    ITL: ("0.11.0", None),
    "vllm:time_per_output_token_seconds": (None, "0.12.0"),
    # V0 engine only: gone before the oldest release in the table
    "vllm:num_requests_swapped": (None, "0.9.2"),
    "vllm:cpu_cache_usage_perc": (None, "0.9.2"),
    V0_PREFIX_HIT_RATE: (None, "0.9.2"),
    V0_GENERATION_TPS: (None, "0.9.2"),
    # added from 0.12 on (kvdoctor/signals/v1_extra.py)
    EXT_Q: ("0.12.0", None),
    EXT_H: ("0.12.0", None),
    KV_BLOCK_LIFETIME: ("0.12.0", None),
    KV_BLOCK_IDLE_BEFORE_EVICT: ("0.12.0", None),
    KV_BLOCK_REUSE_GAP: ("0.12.0", None),
    NIXL_FAILED: ("0.12.0", None),
    NIXL_FAILED_NOTIF: ("0.12.0", None),
    NIXL_EXPIRED: ("0.18.0", None),
    NIXL_XFER_TIME: ("0.12.0", None),
    NIXL_POST_TIME: ("0.12.0", None),
    PROMPT_BY_SOURCE: ("0.18.0", None),
    PROMPT_CACHED: ("0.18.0", None),
    PREFILL_KV: ("0.18.0", None),
    WAITING_BY_REASON: ("0.24.0", None),
    OFFLOAD_STORE: ("0.24.0", None),
    OFFLOAD_LOAD: ("0.24.0", None),
    PROMPT_CACHED_BY_SOURCE: ("0.32.0", None),
    REQ_PREEMPTIONS: ("0.32.0", None),
    KV_FETCH: ("0.32.0", None),
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
