"""Capture a fleet through Prometheus: a few range queries, recorded raw, replayable offline.

Three answers make a fleet capture: the ``vllm:`` series kvdoctor reads, of every selected
target over the window; the ``up`` series of the same targets (health of each scrape target,
for stale and missing replicas); and the metric metadata (TYPE/HELP, so counters and
histograms are rebuilt exactly). All three are kept in the bundle's ``prometheus/`` folder;
everything after this module is a pure function of them.

Scale: the series are fetched with one range query per metric family (:data:`FAMILIES`),
each covering every replica at once, run a few at a time. The number of queries does not grow
with the number of replicas, no single answer holds every series of a large fleet, and the
families kvdoctor never reads (``_created`` timestamps, request-parameter histograms, ...) are
not fetched at all. Their answers are recorded as one matrix (``prometheus/series.json``), in
family order, with the queries that produced it.
"""

from __future__ import annotations

import json
import math
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kvdoctor.errors import KvdoctorError
from kvdoctor.fleet.bundle import PROM_DIR, QUERY_FILE
from kvdoctor.fleet.promapi import (
    PromClient,
    PrometheusError,
    RawAnswer,
    check_result,
    format_duration,
)

FLEET_SCHEMA = "kvdoctor.fleet/1"
# Both metric prefixes vLLM is known to use (plain, and under Ray Serve).
VLLM_NAME_MATCHER = '__name__=~"(ray_)?vllm:.+"'
# Prometheus refuses range queries above 11,000 points per series; stay under it with room.
MAX_STEPS = 10_000
# --step auto: the window is cut into about this many steps (never finer than AUTO_MIN_STEP_S,
# a common scrape interval). Counter and histogram increases are exact at any step (first and
# last point, resets seen between); gauges are sampled at the step, as any range query does.
# A fixed count keeps a 6-hour capture as cheap as a 1-hour one; 120 (30 s over an hour) kept
# a 50-replica hour within 10 s on a busy 2-core host, where 240 took 13 s.
AUTO_STEPS = 120
AUTO_MIN_STEP_S = 15.0
# Caps on the merged per-family answers of one capture (each answer also has promapi's own
# caps): about 900 vLLM 0.32 replicas at --step auto (some 180 series and 120 steps each), a
# few GiB of memory; a larger fleet is diagnosed in parts (--selector).
FLEET_MAX_SERIES = 200_000
FLEET_MAX_POINTS = 20_000_000
# Range queries in flight at once: enough to overlap Prometheus' work with the transfers,
# few enough not to crowd a Prometheus that also serves dashboards and rule evaluation.
PARALLEL_QUERIES = 4

# The metric families the local pipeline reads (kvdoctor.observations / kvdoctor.signals), each
# with the older names vLLM used for it. One range query per family covers every replica; the
# regex takes the counter (_total) and histogram (_bucket/_sum/_count) parts of the family.
FAMILIES: tuple[tuple[str, ...], ...] = (
    ("cache_config_info",),
    ("kv_cache_usage_perc", "gpu_cache_usage_perc"),
    ("num_requests_running",),
    ("num_requests_waiting",),
    ("num_requests_swapped",),
    ("cpu_cache_usage_perc",),
    ("num_preemptions",),
    ("request_success",),
    ("prefix_cache_queries", "gpu_prefix_cache_queries"),
    ("prefix_cache_hits", "gpu_prefix_cache_hits"),
    ("gpu_prefix_cache_hit_rate",),
    ("prompt_tokens",),
    ("generation_tokens",),
    ("time_to_first_token_seconds",),
    ("inter_token_latency_seconds", "time_per_output_token_seconds"),
    ("request_queue_time_seconds",),
    ("request_prefill_time_seconds",),
    ("request_decode_time_seconds",),
    ("e2e_request_latency_seconds",),
    ("request_prompt_tokens",),
    ("request_generation_tokens",),
)

_SELECTOR_RE = re.compile(r"^\s*\{(.*)\}\s*$", re.DOTALL)


@dataclass
class FleetOptions:
    prometheus_url: str
    selector: str = ""
    since_s: float = 1800.0
    step_s: float = 15.0
    # End of the window (unix s); None = now. Tests and replays pin it.
    end: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = 30.0


@dataclass
class FleetCapture:
    """What Prometheus answered for one fleet capture, plus the query that produced it."""

    prometheus: str  # URL with any credentials removed
    selector: str
    start: float
    end: float
    step_s: float
    series: RawAnswer
    up: RawAnswer
    metadata: RawAnswer | None

    def query_json(self) -> dict[str, Any]:
        return {
            "schema": FLEET_SCHEMA,
            "prometheus": self.prometheus,
            "selector": self.selector,
            "start": self.start,
            "end": self.end,
            "step_s": self.step_s,
        }


def selector_matchers(selector: str) -> str:
    """The label matchers inside ``{...}`` (may be empty). A metric name is refused."""
    if not selector.strip():
        return ""
    m = _SELECTOR_RE.match(selector)
    if m is None:
        raise KvdoctorError(
            f"--selector: {selector!r} must be label matchers in braces, e.g. '{{job=\"vllm\"}}'"
        )
    inner = m.group(1).strip().rstrip(",").strip()
    if "__name__" in inner:
        raise KvdoctorError("--selector: must not match on __name__ (kvdoctor picks the metrics)")
    if "{" in inner or "}" in inner:
        raise KvdoctorError(f"--selector: {selector!r} has nested braces")
    return inner


def series_query(selector: str) -> str:
    """Every vLLM series of the selected targets (what a fleet bundle's view is about)."""
    inner = selector_matchers(selector)
    return "{" + VLLM_NAME_MATCHER + (f", {inner}" if inner else "") + "}"


def family_query(family: tuple[str, ...], selector: str) -> str:
    """One family's series (all its names and parts) on every selected target."""
    inner = selector_matchers(selector)
    names = "|".join(family)
    matcher = f'__name__=~"(ray_)?vllm:({names})(_total|_bucket|_sum|_count)?"'
    return "{" + matcher + (f", {inner}" if inner else "") + "}"


def auto_step(since_s: float) -> float:
    """The step of ``--step auto``: about AUTO_STEPS points over the window, in whole seconds."""
    return max(AUTO_MIN_STEP_S, float(math.ceil(since_s / AUTO_STEPS)))


def up_query(selector: str) -> str:
    inner = selector_matchers(selector)
    return "up" + ("{" + inner + "}" if inner else "")


def redact_url(url: str) -> str:
    """Drop user:password@ and the query string: bundles never hold credentials."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def window(opts: FleetOptions) -> tuple[float, float]:
    """(start, end) aligned to the step so repeated captures evaluate on the same grid."""
    if not math.isfinite(opts.step_s) or opts.step_s <= 0:
        raise KvdoctorError("--step must be a positive duration")
    if not math.isfinite(opts.since_s) or opts.since_s < 2 * opts.step_s:
        raise KvdoctorError("--since must cover at least two --step intervals")
    if opts.since_s / opts.step_s > MAX_STEPS:
        raise KvdoctorError(
            f"--since {format_duration(opts.since_s)} at --step {format_duration(opts.step_s)} "
            f"is more than {MAX_STEPS} points per series: raise --step"
        )
    end = time.time() if opts.end is None else opts.end
    end = math.floor(end / opts.step_s) * opts.step_s
    start = end - math.floor(opts.since_s / opts.step_s) * opts.step_s
    return start, end


def capture_fleet(opts: FleetOptions, client: PromClient | None = None) -> FleetCapture:
    """Run the range queries. Raises a one-line KvdoctorError when nothing usable comes back."""
    series_q = series_query(opts.selector)
    up_q = up_query(opts.selector)
    start, end = window(opts)
    own = client is None
    prom = client or PromClient(opts.prometheus_url, headers=opts.headers, timeout_s=opts.timeout_s)
    try:
        up = prom.query_range(up_q, start, end, opts.step_s)
        series = _family_answers(prom, opts.selector, start, end, opts.step_s, series_q)
        try:
            metadata: RawAnswer | None = prom.metadata()
        except PrometheusError:
            # Old servers lack /api/v1/metadata; types then come from the name suffixes.
            metadata = None
    finally:
        if own:
            prom.close()
    capture = FleetCapture(
        prometheus=redact_url(opts.prometheus_url),
        selector=opts.selector,
        start=start,
        end=end,
        step_s=opts.step_s,
        series=series,
        up=up,
        metadata=metadata,
    )
    check_not_empty(capture)
    return capture


def _family_answers(
    prom: PromClient, selector: str, start: float, end: float, step_s: float, view_query: str
) -> RawAnswer:
    """One range query per family, a few in flight, merged into one matrix answer."""
    queries = [family_query(f, selector) for f in FAMILIES]
    with ThreadPoolExecutor(max_workers=PARALLEL_QUERIES) as pool:
        answers = list(pool.map(lambda q: prom.query_range(q, start, end, step_s), queries))
    result: list[Any] = []
    for answer in answers:
        result.extend(answer.body["data"]["result"])
    params = {
        # What the merged answer stands for, then the queries that produced it, one a line.
        "query": view_query,
        "queries": "\n".join(queries),
        "start": answers[0].params["start"],
        "end": answers[0].params["end"],
        "step": answers[0].params["step"],
    }
    body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    merged = RawAnswer("query_range", params, body)
    check_result(merged, "matrix", FLEET_MAX_SERIES, FLEET_MAX_POINTS)
    return merged


def check_not_empty(capture: FleetCapture) -> None:
    """A selector that matches nothing, or targets without vLLM metrics, is a usage error."""
    n_series = len(capture.series.body["data"]["result"])
    if n_series:
        return
    n_up = len(capture.up.body["data"]["result"])
    sel = capture.selector or "(no selector)"
    span = format_duration(capture.end - capture.start)
    if n_up == 0:
        raise KvdoctorError(
            f"selector {sel} matches no targets in Prometheus {capture.prometheus} "
            f"over the last {span}"
        )
    raise KvdoctorError(
        f"selector {sel} matches {n_up} scrape target(s) but none exposed vllm: metrics "
        f"over the last {span} (wrong job, or not vLLM servers?)"
    )


# --- on-disk form (the bundle's prometheus/ folder) ----------------------------------------

SERIES_FILE = "series.json"
UP_FILE = "up.json"
METADATA_FILE = "metadata.json"


def capture_files(capture: FleetCapture) -> dict[str, bytes]:
    """Relative path → bytes of the ``prometheus/`` folder (sorted keys: stable bytes)."""

    def dump(obj: Any) -> bytes:
        return (json.dumps(obj, sort_keys=True, separators=(",", ":")) + "\n").encode()

    files = {
        f"{PROM_DIR}/{QUERY_FILE}": dump(capture.query_json()),
        f"{PROM_DIR}/{SERIES_FILE}": dump(capture.series.to_json()),
        f"{PROM_DIR}/{UP_FILE}": dump(capture.up.to_json()),
    }
    if capture.metadata is not None:
        files[f"{PROM_DIR}/{METADATA_FILE}"] = dump(capture.metadata.to_json())
    return files


def capture_from_files(files: dict[str, bytes], where: str) -> FleetCapture:
    """Inverse of :func:`capture_files`. Malformed content → one-line KvdoctorError."""

    def load(name: str, required: bool = True) -> Any:
        data = files.get(f"{PROM_DIR}/{name}")
        if data is None:
            if required:
                raise KvdoctorError(f"{where}: fleet bundle lacks {PROM_DIR}/{name}")
            return None
        try:
            return json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise KvdoctorError(f"{where}: {PROM_DIR}/{name} is not valid JSON") from None

    query = load(QUERY_FILE)
    if not isinstance(query, dict) or query.get("schema") != FLEET_SCHEMA:
        raise KvdoctorError(f"{where}: {PROM_DIR}/{QUERY_FILE} is not a {FLEET_SCHEMA} record")
    try:
        start = float(query["start"])
        end = float(query["end"])
        step = float(query["step_s"])
    except (KeyError, TypeError, ValueError):
        raise KvdoctorError(f"{where}: {PROM_DIR}/{QUERY_FILE} lacks start/end/step_s") from None
    series = RawAnswer.from_json(load(SERIES_FILE), f"{where}: {SERIES_FILE}")
    up = RawAnswer.from_json(load(UP_FILE), f"{where}: {UP_FILE}")
    meta_raw = load(METADATA_FILE, required=False)
    metadata = None if meta_raw is None else RawAnswer.from_json(meta_raw, METADATA_FILE)
    check_result(series, "matrix", FLEET_MAX_SERIES, FLEET_MAX_POINTS)
    check_result(up, expect="matrix")
    return FleetCapture(
        prometheus=str(query.get("prometheus", "")),
        selector=str(query.get("selector", "")),
        start=start,
        end=end,
        step_s=step,
        series=series,
        up=up,
        metadata=metadata,
    )
