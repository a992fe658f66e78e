"""Signals as PromQL: the subset of the signal catalog a Prometheus alert can compute.

Every expression is aggregated ``by`` the same replica labels (job, namespace, pod, instance,
engine) so that clauses of one playbook condition can be joined with ``and``/``or``/``unless``
without label-matching surprises. Counter-derived signals use ``increase()``/``rate()`` over
the alert window; histogram percentiles use ``histogram_quantile`` over bucket rates, the
PromQL counterpart of the local path's bucket-delta quantiles.

Metric names depend on the vLLM version (DESIGN.md §2): counters carry ``_total`` on the
wire, and a few gauges and histograms were renamed. :func:`metric_names` picks the names for a
version; a signal is only expressible when its metric exists in that version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Replica identity: the same labels the fleet path groups by (pod, else instance) plus engine
# for data parallelism. Labels a target lacks are simply empty in PromQL, which is harmless.
GROUP_LABELS: tuple[str, ...] = ("job", "namespace", "pod", "instance", "engine")
BY = "by (" + ", ".join(GROUP_LABELS) + ")"

# First vLLM release that exposes the new names (kv_cache_usage_perc, prefix_cache_*,
# inter_token_latency_seconds). The old names stayed during the deprecation window, so for
# releases before this one the old names are the ones that exist.
NEW_NAMES_SINCE: tuple[int, int] = (0, 11)


@dataclass(frozen=True)
class MetricNames:
    """Wire names (counters with ``_total``) of the metrics alerts read."""

    prefix: str
    kv_usage: str
    prefix_queries: str
    prefix_hits: str
    itl: str
    generation: str  # "old" or "new": which naming the set follows

    def m(self, base: str) -> str:
        return f"{self.prefix}{base}"


def parse_version(text: str) -> tuple[int, int] | None:
    """``"0.10.1.1"``, ``"v0.11.0rc1"``, ``"0.32.0+cpu"`` → (major, minor); junk → None."""
    m = re.match(r"^\s*v?(\d+)\.(\d+)", text)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2))


def metric_names(version: tuple[int, int] | None, prefix: str = "vllm:") -> MetricNames:
    """Names for a vLLM (major, minor); ``None`` means "current" (the new names)."""
    if version is not None and version < NEW_NAMES_SINCE:
        return MetricNames(
            prefix=prefix,
            kv_usage=f"{prefix}gpu_cache_usage_perc",
            prefix_queries=f"{prefix}gpu_prefix_cache_queries_total",
            prefix_hits=f"{prefix}gpu_prefix_cache_hits_total",
            itl=f"{prefix}time_per_output_token_seconds",
            generation="old",
        )
    return MetricNames(
        prefix=prefix,
        kv_usage=f"{prefix}kv_cache_usage_perc",
        prefix_queries=f"{prefix}prefix_cache_queries_total",
        prefix_hits=f"{prefix}prefix_cache_hits_total",
        itl=f"{prefix}inter_token_latency_seconds",
        generation="new",
    )


@dataclass(frozen=True)
class Ctx:
    names: MetricNames
    window: str  # PromQL range, e.g. "5m"
    resolution: str  # subquery resolution for "share of the window" conditions, e.g. "30s"
    # ``symptom_*`` signal -> the PromQL of its detector's documented-default bases (an alert
    # has no quiet baseline in the same window, so the default floor of harm stands in).
    symptoms: dict[str, str] = field(default_factory=dict)


def _gauge(metric: str, how: str, ctx: Ctx) -> str:
    if how == "last":
        return f"max {BY} ({metric})"
    fn = {"max": "max_over_time", "mean": "avg_over_time"}[how]
    return f"max {BY} ({fn}({metric}[{ctx.window}]))"


def _increase(counter: str, ctx: Ctx) -> str:
    return f"sum {BY} (increase({counter}[{ctx.window}]))"


def _rate(counter: str, ctx: Ctx) -> str:
    return f"sum {BY} (rate({counter}[{ctx.window}]))"


def _ratio(num: str, den: str) -> str:
    # Division by zero gives NaN/Inf in PromQL; "> 0" on the denominator drops those replicas,
    # the counterpart of the local path's "unknown" when there was no traffic.
    return f"({num}) / ({den} > 0)"


def _quantile(hist: str, q: float, ctx: Ctx) -> str:
    return (
        f"histogram_quantile({q}, sum by (le, {', '.join(GROUP_LABELS)}) "
        f"(rate({hist}_bucket[{ctx.window}])))"
    )


def _hist_mean(hist: str, ctx: Ctx) -> str:
    return _ratio(_rate(f"{hist}_sum", ctx), _rate(f"{hist}_count", ctx))


_HISTOGRAMS: dict[str, str] = {
    "ttft": "time_to_first_token_seconds",
    "queue_time": "request_queue_time_seconds",
    "prefill_time": "request_prefill_time_seconds",
    "decode_time": "request_decode_time_seconds",
    "e2e_latency": "e2e_request_latency_seconds",
}

_GAUGES: dict[str, str] = {"running": "num_requests_running", "waiting": "num_requests_waiting"}


def _hist_metric(key: str, ctx: Ctx) -> str:
    if key == "itl":
        return ctx.names.itl
    return ctx.names.m(_HISTOGRAMS[key])


def signal_expr(name: str, ctx: Ctx) -> str | None:
    """PromQL for a numeric signal (catalog or derived), or ``None`` when PromQL cannot say it."""
    n = ctx.names
    m = re.fullmatch(r"kv_usage_(last|max|mean)", name)
    if m:
        return _gauge(n.kv_usage, m.group(1), ctx)
    m = re.fullmatch(r"(running|waiting)_(last|max|mean)", name)
    if m:
        return _gauge(n.m(_GAUGES[m.group(1)]), m.group(2), ctx)
    m = re.fullmatch(
        r"(ttft|itl|queue_time|prefill_time|decode_time|e2e_latency)_p(50|95|99)", name
    )
    if m:
        return _quantile(_hist_metric(m.group(1), ctx), int(m.group(2)) / 100, ctx)
    m = re.fullmatch(r"(ttft|itl|queue_time|prefill_time)_mean", name)
    if m:
        return _hist_mean(_hist_metric(m.group(1), ctx), ctx)
    preempt = n.m("num_preemptions_total")
    simple: dict[str, str] = {
        "preemptions_window": _increase(preempt, ctx),
        "preemptions_seen": _increase(preempt, ctx),
        "preemptions_per_s": _rate(preempt, ctx),
        "preemptions_lifetime": f"max {BY} ({preempt})",
        "requests_finished_window": _increase(n.m("request_success_total"), ctx),
        "prefix_queries_window": _increase(n.prefix_queries, ctx),
        "prefix_hits_window": _increase(n.prefix_hits, ctx),
        "prefix_hit_rate_window": _ratio(
            _increase(n.prefix_hits, ctx), _increase(n.prefix_queries, ctx)
        ),
        "prefix_hit_rate_lifetime": _ratio(
            f"sum {BY} ({n.prefix_hits})", f"sum {BY} ({n.prefix_queries})"
        ),
        "prompt_tokens_per_s": _rate(n.m("prompt_tokens_total"), ctx),
        "generation_tokens_per_s": _rate(n.m("generation_tokens_total"), ctx),
        "mean_prompt_len": _hist_mean(n.m("request_prompt_tokens"), ctx),
        "mean_generation_len": _hist_mean(n.m("request_generation_tokens"), ctx),
        "ttft_queue_share": _ratio(
            _hist_mean(n.m("request_queue_time_seconds"), ctx),
            _hist_mean(n.m("time_to_first_token_seconds"), ctx),
        ),
        "ttft_prefill_share": _ratio(
            _hist_mean(n.m("request_prefill_time_seconds"), ctx),
            _hist_mean(n.m("time_to_first_token_seconds"), ctx),
        ),
        "itl_spread": _ratio(_quantile(n.itl, 0.99, ctx), _quantile(n.itl, 0.5, ctx)),
        "ttft_spread": _ratio(
            _quantile(n.m("time_to_first_token_seconds"), 0.99, ctx),
            _quantile(n.m("time_to_first_token_seconds"), 0.5, ctx),
        ),
    }
    if name in simple:
        return simple[name]
    return None


# Derived signals that are never larger than a PromQL-expressible one: "derived < t" is implied
# by "substitute < t", so the substitute keeps an alert at most as broad as the playbook.
UPPER_BOUND_SUBSTITUTES: dict[str, str] = {
    # Recomputed prompt tokens only add hits: the effective rate <= the window rate.
    "prefix_hit_rate_effective": "prefix_hit_rate_window",
}


def bounded_signal_expr(name: str, op: str, ctx: Ctx) -> str | None:
    """``signal_expr``, or for ``<``/``<=`` an upper-bound substitute of a derived signal."""
    expr = signal_expr(name, ctx)
    if expr is None and op in ("<", "<=") and name in UPPER_BOUND_SUBSTITUTES:
        return signal_expr(UPPER_BOUND_SUBSTITUTES[name], ctx)
    return expr


# Config signals live in the labels of vllm:cache_config_info (values are Python str()s).
CONFIG_LABELS: dict[str, str] = {
    "block_size": "block_size",
    "num_gpu_blocks": "num_gpu_blocks",
    "cache_dtype": "cache_dtype",
    "prefix_caching": "enable_prefix_caching",
    "gpu_memory_utilization": "gpu_memory_utilization",
}


def label_value(value: object) -> str:
    """A signal value as vLLM writes it into a cache_config_info label (Python ``str()``)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float) and value.is_integer() and not isinstance(value, bool):
        return str(value)
    return str(value)


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Settings whose label holds a plain integer: numeric tests become label regexes.
INTEGER_LABELS = frozenset({"block_size", "num_gpu_blocks"})


def _alt(parts: list[str]) -> str:
    return "|".join(p for p in parts if p)


def int_ge_regex(n: int) -> str:
    """A regex matching exactly the decimal integers (no leading zeros) that are >= ``n``."""
    if n <= 0:
        return r"0|[1-9][0-9]*"
    s = str(n)
    parts = [f"[1-9][0-9]{{{len(s)},}}", s]
    for i, ch in enumerate(s):
        d = int(ch)
        if d < 9:
            rest = len(s) - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            parts.append(f"{s[:i]}[{d + 1}-9]{tail}")
    return _alt(parts)


def int_le_regex(n: int) -> str:
    """A regex matching exactly the decimal integers (no leading zeros) that are <= ``n``."""
    if n < 0:
        return ""
    s = str(n)
    parts = ["0"] if n > 0 else []
    if len(s) > 1:
        parts.append(f"[1-9][0-9]{{0,{len(s) - 2}}}")
    parts.append(s)
    for i, ch in enumerate(s):
        d = int(ch)
        low = 1 if i == 0 else 0
        if d > low:
            rest = len(s) - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            parts.append(f"{s[:i]}[{low}-{d - 1}]{tail}")
    return _alt(parts)


def config_expr(name: str, op: str, value: object, ctx: Ctx) -> str | None:
    """A test on an engine setting, as a cache_config_info label selector (else None).

    Equality works for every setting; ordering comparisons only for integer settings with an
    integer threshold, through a regex that matches exactly the integers on that side.
    """
    label = CONFIG_LABELS.get(name)
    if label is None:
        return None
    metric = ctx.names.m("cache_config_info")
    if op in ("==", "!="):
        matcher = "=" if op == "==" else "!="
        sel = f"{metric}{{{label}{matcher}{quote(label_value(value))}}}"
        return f"max {BY} ({sel})"
    if name not in INTEGER_LABELS or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not float(value).is_integer():
        return None
    n = int(value)
    regex = {
        ">=": int_ge_regex(n),
        ">": int_ge_regex(n + 1),
        "<=": int_le_regex(n),
        "<": int_le_regex(n - 1),
    }[op]
    if not regex:
        return None
    return f"max {BY} ({metric}{{{label}=~{quote(regex)}}})"


# Named predicates that have an exact PromQL form.
def predicate_expr(name: str, ctx: Ctx) -> str | None:
    if name == "fp8_kv_cache":
        return f'max {BY} ({ctx.names.m("cache_config_info")}{{cache_dtype=~"fp8.*"}})'
    return None


SERIES_GAUGES: dict[str, str] = _GAUGES


def series_expr(series: str, op: str, value: float, fraction: float, ctx: Ctx) -> str | None:
    """"``series op value`` for at least ``fraction`` of the window" as a subquery average."""
    if series == "kv_usage":
        metric = ctx.names.kv_usage
    elif series in SERIES_GAUGES:
        metric = ctx.names.m(SERIES_GAUGES[series])
    else:
        return None
    inner = f"max {BY} ({metric}) {op} bool {number(value)}"
    return (
        f"avg_over_time(({inner})[{ctx.window}:{ctx.resolution}]) >= {number(fraction)}"
    )


def number(value: float | int) -> str:
    """A PromQL number literal (no exponent surprises, no trailing ``.0`` noise)."""
    f = float(value)
    if f.is_integer():
        return str(int(f))
    return repr(f)
