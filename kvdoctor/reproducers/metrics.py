"""The few ``/metrics`` readings the reproducers need during a run: gauges, counters, histograms.

The capture path keeps raw text and normalises it later (``kvdoctor.observations``); a
reproducer instead needs a number *now* (the guard) or a delta between two scrapes (hit
counters, latency histograms), summed over engines and model names. Old and new vLLM metric
names are accepted (docs/bundle.md), as is the ``ray_vllm:`` prefix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import httpx

from kvdoctor import expfmt
from kvdoctor.expfmt import ExpositionError
from kvdoctor.observations import canonical, histogram_quantile
from kvdoctor.probes.metrics import MetricsClient
from kvdoctor.vllm_metrics import (
    DECODE_TIME,
    E2E_LATENCY,
    GENERATION_TOKENS,
    ITL,
    KV_BLOCK_IDLE_BEFORE_EVICT,
    KV_BLOCK_LIFETIME,
    KV_BLOCK_REUSE_GAP,
    KV_USAGE,
    PREEMPTIONS,
    PREFILL_TIME,
    PREFIX_HITS,
    PREFIX_QUERIES,
    PROMPT_TOKENS,
    QUEUE_TIME,
    RENAMED,
    REQUEST_SUCCESS,
    RUNNING,
    TTFT,
    WAITING,
)

# vLLM family (after kvdoctor.observations.canonical: old names through the one table of
# renames, ``ray_vllm:``, ``_total``) -> the short key reproducers use.
FAMILIES: dict[str, str] = {
    KV_USAGE: "kv_usage",
    RUNNING: "running",
    WAITING: "waiting",
    PREEMPTIONS: "preemptions",
    PREFIX_QUERIES: "prefix_queries",
    PREFIX_HITS: "prefix_hits",
    PROMPT_TOKENS: "prompt_tokens",
    GENERATION_TOKENS: "generation_tokens",
    TTFT: "ttft",
    QUEUE_TIME: "queue_time",
    PREFILL_TIME: "prefill_time",
    DECODE_TIME: "decode_time",
    ITL: "itl",
    E2E_LATENCY: "e2e",
    REQUEST_SUCCESS: "request_success",
    # KV block residency (vLLM >= 0.32 with --kv-cache-metrics): sampled per block.
    KV_BLOCK_LIFETIME: "block_lifetime",
    KV_BLOCK_IDLE_BEFORE_EVICT: "block_idle_before_evict",
    KV_BLOCK_REUSE_GAP: "block_reuse_gap",
}
_GAUGES_MAX = frozenset({"kv_usage"})
# The server process's start (epoch seconds, prometheus_client's process collector): with the
# preemption counter it gives the server's own lifetime preemption rate (the guard's background).
_PROCESS_START = "process_start_time_seconds"


@dataclass(frozen=True)
class Histogram:
    count: float = 0.0
    sum: float = 0.0
    # Cumulative counts per upper bound, ascending; +Inf last.
    buckets: tuple[tuple[float, float], ...] = ()

    def minus(self, older: Histogram) -> Histogram:
        old = dict(older.buckets)
        return Histogram(
            count=self.count - older.count,
            sum=self.sum - older.sum,
            buckets=tuple((le, c - old.get(le, 0.0)) for le, c in self.buckets),
        )

    @property
    def mean(self) -> float | None:
        return self.sum / self.count if self.count > 0 else None

    def binned(self, values: list[float]) -> Histogram:
        """``values`` as a histogram with this one's bucket bounds.

        A client's samples compared with a server histogram go through the same estimator:
        a quantile interpolated inside a wide bucket can be far from the exact sample quantile.
        """
        bounds = [le for le, _ in self.buckets]
        return Histogram(
            count=float(len(values)),
            sum=float(sum(values)),
            buckets=tuple((le, float(sum(1 for v in values if v <= le))) for le in bounds),
        )

    def quantile(self, q: float) -> float | None:
        """Prometheus-style ``histogram_quantile`` (the capture path's implementation)."""
        if self.count <= 0:
            return None
        return histogram_quantile(q, list(self.buckets))


@dataclass
class Snapshot:
    """One scrape reduced to what reproducers use: name -> value, name -> histogram."""

    values: dict[str, float] = field(default_factory=dict)
    histograms: dict[str, Histogram] = field(default_factory=dict)

    def get(self, name: str) -> float | None:
        return self.values.get(name)

    def delta(self, older: Snapshot, name: str) -> float | None:
        a, b = self.values.get(name), older.values.get(name)
        if a is None or b is None:
            return None
        # A counter reset (server restart) makes the delta meaningless rather than negative.
        return a - b if a >= b else None

    def hist_delta(self, older: Snapshot, name: str) -> Histogram | None:
        a, b = self.histograms.get(name), older.histograms.get(name)
        if a is None:
            return None
        return a if b is None else a.minus(b)


# Only these families are parsed (a vLLM payload is mostly Python/HTTP runtime metrics): the
# canonical names, their old aliases, each also under the ``ray_`` prefix.
_WIRE_NAMES = set(FAMILIES) | {old for old, new in RENAMED.items() if new in FAMILIES}
_PREFIXES = tuple(sorted(_WIRE_NAMES | {"ray_" + n for n in _WIRE_NAMES} | {_PROCESS_START}))
_HIST_PARTS = (("_bucket", "bucket"), ("_count", "count"), ("_sum", "sum"))


def parse_snapshot(text: str) -> Snapshot:
    """Reduce exposition text to a :class:`Snapshot` (values summed over label sets).

    Gauges of usage take the maximum over engines (the guard cares about the fullest pool);
    counters and histograms are summed. Only the names in :data:`FAMILIES` (and their old
    names) are parsed, so this stays cheap enough to run every half second during a load run.
    Unparsable text gives an empty snapshot (the guard then sees no numbers rather than
    crashing the run).
    """
    values: dict[str, float] = {}
    hist_count: dict[str, float] = {}
    hist_sum: dict[str, float] = {}
    hist_buckets: dict[str, dict[float, float]] = {}
    try:
        samples = expfmt.parse(text, prefixes=_PREFIXES)
    except ExpositionError:
        return Snapshot()
    for sample in samples:
        value = sample.value
        if sample.name == _PROCESS_START:
            # Several processes (API server, engine cores): the latest start is the shortest
            # uptime, which over-states the rate rather than hiding it.
            values["process_start"] = max(values.get("process_start", value), value)
            continue
        canon_name = canonical(sample.name)
        if canon_name is None or math.isnan(value):
            continue
        name, kind = canon_name.name, "value"
        for suffix, part in _HIST_PARTS:
            if name.endswith(suffix) and name[: -len(suffix)] in FAMILIES:
                name, kind = name[: -len(suffix)], part
                break
        canon = FAMILIES.get(name)
        if canon is None:
            continue
        if kind == "value":
            if canon in _GAUGES_MAX:
                values[canon] = max(values.get(canon, value), value)
            else:
                values[canon] = values.get(canon, 0.0) + value
        elif kind == "count":
            hist_count[canon] = hist_count.get(canon, 0.0) + value
        elif kind == "sum":
            hist_sum[canon] = hist_sum.get(canon, 0.0) + value
        else:
            try:
                le = float(sample.label("le"))
            except ValueError:
                continue
            b = hist_buckets.setdefault(canon, {})
            b[le] = b.get(le, 0.0) + value
    hists = {
        canon: Histogram(
            count=hist_count.get(canon, 0.0),
            sum=hist_sum.get(canon, 0.0),
            buckets=tuple(sorted(hist_buckets.get(canon, {}).items())),
        )
        for canon in set(hist_count) | set(hist_buckets)
    }
    return Snapshot(values=values, histograms=hists)


async def scrape(
    client: httpx.AsyncClient, base_url: str, headers: dict[str, str] | None = None
) -> Snapshot | None:
    """One scrape of ``base_url``/metrics, or None when it cannot be read (never raises)."""
    got = await MetricsClient(base_url, headers or {}, timeout=10.0).read_async(client)
    return parse_snapshot(got.text) if got.ok and got.text is not None else None
