"""Named Python predicates and derived values: what a playbook cannot say as a comparison.

Playbooks reference these by name (``predicate: fp8_kv_cache``, ``signal: seqs_that_fit``);
nothing in a playbook is ever evaluated as code. Each function reads a :class:`SignalView`
and returns ``None`` when the data needed is missing, so rules never fire on guesses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from kvdoctor.kvmath.capacity import (
    CPU_DEFAULT_MAX_NUM_SEQS,
    GPU_DEFAULT_BATCHED_TOKENS,
    GPU_DEFAULT_MAX_NUM_SEQS,
    gpu_batch_defaults,
    pool_capacity,
    sequences_that_fit,
)
from kvdoctor.kvmath.model import is_quantized_kv_dtype
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.model import Scalar, SignalSet
from kvdoctor.signals.physics import host_link_of
from kvdoctor.thresholds import EMPTY_POOL, POOL_FULL
from kvdoctor.vllm_metrics import vkey
from kvdoctor.vocab import ROUTING_IGNORES_PREFIX

GIB = 1024**3

# Counter-derived signals: a negative value can only come from a counter reset (a restart)
# mistaken for negative traffic, so the rules treat it as unknown instead of as a number.
_NON_NEGATIVE_SUFFIXES = ("_window", "_per_s", "_lifetime")


class SignalView:
    """Read access for the rules: catalog signals (sanitised) plus the derived values."""

    def __init__(self, signals: SignalSet) -> None:
        self.signals = signals
        self._derived: dict[str, Scalar] = {}
        # Symptom states set by the rule engine before causes are evaluated (True present,
        # False absent, None unknown), read through the ``symptom_*`` derived values.
        self.symptoms: dict[str, bool | None] = {}

    def value(self, name: str) -> Scalar:
        if name in DERIVED:
            if name not in self._derived:
                try:
                    v = DERIVED[name].fn(self)
                except (OverflowError, ZeroDivisionError, ValueError):
                    # A hostile or corrupt bundle (a gauge of 1e308) makes products overflow;
                    # such a value is no evidence, not a crash.
                    v = None
                if isinstance(v, float) and not math.isfinite(v):
                    v = None
                self._derived[name] = v
            return self._derived[name]
        return self.raw(name)

    def shown(self, name: str) -> Scalar:
        """``name`` as the report states it (``SignalSet.shown``: a latency percentile as its
        bucket range), else its value: what a playbook's placeholders print."""
        text = self.signals.shown.get(name)
        return text if text is not None else self.value(name)

    def raw(self, name: str) -> Scalar:
        v = self.signals.get(name)
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if (
            isinstance(v, int | float)
            and not isinstance(v, bool)
            and v < 0
            and name.endswith(_NON_NEGATIVE_SUFFIXES)
        ):
            return None
        return v

    def num(self, name: str) -> float | None:
        v = self.value(name)
        if isinstance(v, bool) or not isinstance(v, int | float):
            return None
        return float(v)

    def flag(self, name: str) -> bool | None:
        v = self.value(name)
        return v if isinstance(v, bool) else None

    def fraction_of_window(self, series: str, op: str, threshold: float) -> float | None:
        return self.signals.fraction_of_window(series, op, threshold)


class Derived(NamedTuple):
    name: str
    unit: str
    doc: str
    fn: Callable[[SignalView], Scalar]


class Predicate(NamedTuple):
    name: str
    doc: str
    fn: Callable[[SignalView], bool | None]


DERIVED: dict[str, Derived] = {}
PREDICATES: dict[str, Predicate] = {}


def derived(
    name: str, unit: str, doc: str
) -> Callable[[Callable[[SignalView], Scalar]], Callable[[SignalView], Scalar]]:
    def register(fn: Callable[[SignalView], Scalar]) -> Callable[[SignalView], Scalar]:
        if name in SIGNALS or name in DERIVED:
            raise ValueError(f"derived value {name!r} clashes with an existing name")
        DERIVED[name] = Derived(name, unit, doc, fn)
        return fn

    return register


def predicate(
    name: str, doc: str
) -> Callable[[Callable[[SignalView], bool | None]], Callable[[SignalView], bool | None]]:
    def register(fn: Callable[[SignalView], bool | None]) -> Callable[[SignalView], bool | None]:
        PREDICATES[name] = Predicate(name, doc, fn)
        return fn

    return register


def _floor_hundredths(v: float) -> float:
    # round() first: 0.95 - 0.05 is 0.8999999999999999, whose floor would lose a whole step.
    return math.floor(round(v * 100, 6)) / 100


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


# --------------------------------------------------------------------------- derived values


def _symptom_reader(symptom: str) -> Callable[[SignalView], Scalar]:
    def read(s: SignalView) -> Scalar:
        return s.symptoms.get(symptom)

    return read


for _symptom in ("preemption", "high-ttft", "slow-itl", "prefix-miss", "gpu-oom", "quant-quality"):
    derived(
        f"symptom_{_symptom.replace('-', '_')}",
        "bool",
        f"The {_symptom} symptom is present (its detector found harm against its basis).",
    )(_symptom_reader(_symptom))


@derived(
    "ttft_reference",
    "s",
    "This server's own first-token time without a queue: mean TTFT over the window's "
    "intervals in which nothing waited, else its mean prefill time (a first token cannot come "
    "sooner than its prefill).",
)
def _ttft_reference(s: SignalView) -> Scalar:
    base = s.num("ttft_baseline")
    if base is None or base <= 0:
        base = s.num("prefill_time_mean")
    return base if base is not None and base > 0 else None


def _tensor_parallel(s: SignalView) -> int:
    tp = s.num("tensor_parallel_size")
    return int(tp) if tp is not None and tp >= 1 else 1


def _pipeline_stages(s: SignalView) -> int:
    pp = s.num("log_pipeline_parallel_size")
    return int(pp) if pp is not None and pp > 1 else 1


@derived(
    "weights_read_per_device",
    "bytes",
    "Weight bytes one device reads per decode step: the start-up log's loaded weights on one "
    "device (× pipeline stages, which a step passes through in turn), else the model config's "
    "estimate split over tensor-parallel ranks. Only for dense models: a mixture of experts "
    "reads the routed experts only.",
)
def _weights_read_per_device(s: SignalView) -> Scalar:
    dense = s.num("weights_bytes")
    if dense is None or dense <= 0:
        return None
    loaded = _loaded_per_step(s)
    return loaded if loaded is not None else dense / _tensor_parallel(s)


def _loaded_per_step(s: SignalView) -> float | None:
    """The start-up log's weights on one device × pipeline stages (a step passes each)."""
    loaded = s.num("log_weights_bytes")
    if loaded is None or loaded <= 0:
        return None
    return loaded * _pipeline_stages(s)


def _read_once(s: SignalView, weights: float | None) -> Scalar:
    """``weights`` and one device's share of the live KV, read once at its published
    bandwidth."""
    bw = s.num("gpu_bandwidth")
    if bw is None or bw <= 0 or weights is None:
        return None
    kv = (s.num("kv_read_bytes_per_step") or 0.0) / _tensor_parallel(s)
    return (weights + kv) / bw


@derived(
    "decode_floor",
    "s",
    "The fastest a decode step can be on this GPU: (weight bytes + KV bytes read per step) on "
    "one device / its published memory bandwidth (signals/physics.py); tensor-parallel ranks "
    "each read their share at once.",
)
def _decode_floor(s: SignalView) -> Scalar:
    return _read_once(s, s.num("weights_read_per_device"))


@derived(
    "weights_floor",
    "s",
    "The time this GPU takes to read its share of the weights once at its published "
    "bandwidth: the decode step at short context.",
)
def _weights_floor(s: SignalView) -> Scalar:
    bw, weights = s.num("gpu_bandwidth"), s.num("weights_read_per_device")
    if bw is None or bw <= 0 or weights is None or weights <= 0:
        return None
    return weights / bw


@derived(
    "itl_over_weights_floor",
    "ratio",
    "ITL p50 / weights_floor: how many times slower a step is than reading the weights once.",
)
def _itl_over_weights_floor(s: SignalView) -> Scalar:
    return _ratio(s.num("itl_p50"), s.num("weights_floor"))


@derived(
    "kv_read_over_weights",
    "ratio",
    "KV bytes read per decode step / weight bytes: above 1 the context, not the model, sets "
    "the step time.",
)
def _kv_read_over_weights(s: SignalView) -> Scalar:
    return _ratio(s.num("kv_read_bytes_per_step"), s.num("weights_bytes"))


@derived(
    "spec_verify_tokens_per_step",
    "tokens",
    "Tokens each decode step verifies with speculative decoding: mean running × (draft tokens "
    "per draft + 1).",
)
def _spec_verify(s: SignalView) -> Scalar:
    k, run = s.num("spec_decode_tokens_per_draft"), s.num("running_mean")
    if k is None or run is None:
        return None
    return run * (k + 1)


@derived(
    "kv_read_step_share",
    "fraction",
    "The share of a decode step (ITL p50) that one device takes to read its share of the live "
    "KV at its published bandwidth: small, and something other than the KV read sets the step.",
)
def _kv_read_step_share(s: SignalView) -> Scalar:
    bw, kv, itl = s.num("gpu_bandwidth"), s.num("kv_read_bytes_per_step"), s.num("itl_p50")
    if bw is None or bw <= 0 or kv is None or itl is None or itl <= 0:
        return None
    return round(kv / _tensor_parallel(s) / bw / itl, 6)


@derived(
    "weights_bound_floor",
    "s",
    "Where the weights one step reads are not known (a mixture of experts reads only its routed "
    "experts; no model config): every weight on one device (the start-up log's, × pipeline "
    "stages, plus what it keeps in host memory) and its share of the live KV, "
    "read once at the device's published bandwidth. No routing reads more, so a step several "
    "times slower is slow for any routing.",
)
def _weights_bound_floor(s: SignalView) -> Scalar:
    if s.num("weights_read_per_device") is not None:
        return None  # decode_floor holds the step's own read
    loaded = _loaded_per_step(s)
    if loaded is None:
        return None
    return _read_once(s, loaded + max(s.num("offloaded_weights_per_device") or 0.0, 0.0))


@derived(
    "itl_over_weights_bound",
    "ratio",
    "ITL p50 / weights_bound_floor: how many times slower a step is than reading every weight "
    "on the device once.",
)
def _itl_over_weights_bound(s: SignalView) -> Scalar:
    return _ratio(s.num("itl_p50"), s.num("weights_bound_floor"))


@derived(
    "itl_crawl_stream_s",
    "s",
    "The seconds a stream spent crawling (itl_crawl_seconds_window over the mean running "
    "requests, at least one): the crawl's time per stream, so one slow step shared by a "
    "hundred streams is not a hundred streams crawling.",
)
def _itl_crawl_stream_s(s: SignalView) -> Scalar:
    crawl = s.num("itl_crawl_seconds_window")
    if crawl is None:
        return None
    return round(crawl / max(s.num("running_mean") or 1.0, 1.0), 6)


@derived("itl_over_floor", "ratio", "ITL p50 / decode_floor: how far decoding is from the card.")
def _itl_over_floor(s: SignalView) -> Scalar:
    return _ratio(s.num("itl_p50"), s.num("decode_floor"))


@derived(
    "ttft_own_compute",
    "s",
    "What a median prompt costs this server to prefill: prompt_len_p50 × prefill_s_per_token.",
)
def _ttft_own_compute(s: SignalView) -> Scalar:
    n, rate = s.num("prompt_len_p50"), s.num("prefill_s_per_token")
    if n is None or rate is None or n <= 0 or rate <= 0:
        return None
    return n * rate


@derived(
    "ttft_median_over_compute",
    "ratio",
    "TTFT p50 / ttft_own_compute: how long the median request waits beyond its own prefill.",
)
def _ttft_median_over_compute(s: SignalView) -> Scalar:
    return _ratio(s.num("ttft_p50"), s.num("ttft_own_compute"))


@derived(
    "ttft_short_over_compute",
    "ratio",
    "TTFT p10 / (prompt_len_p10 × prefill_s_per_token): how long the quickest tenth of requests "
    "wait beyond what the shortest prompts cost to prefill (head-of-line blocking shows here).",
)
def _ttft_short_over_compute(s: SignalView) -> Scalar:
    n, rate = s.num("prompt_len_p10"), s.num("prefill_s_per_token")
    if n is None or rate is None or n <= 0 or rate <= 0:
        return None
    return _ratio(s.num("ttft_p10"), n * rate)


@derived(
    "prompt_len_p90_p10",
    "ratio",
    "prompt_len_p90 / prompt_len_p10: how unequal the prompts are (a mix of long and short).",
)
def _prompt_len_p90_p10(s: SignalView) -> Scalar:
    r = _ratio(s.num("prompt_len_p90"), s.num("prompt_len_p10"))
    return None if r is None else round(r, 3)


@derived("ttft_regression", "ratio", "TTFT p95 / ttft_reference.")
def _ttft_regression(s: SignalView) -> Scalar:
    return _ratio(s.num("ttft_p95"), s.num("ttft_reference"))


@derived("capacity_tokens", "tokens", "KV pool in tokens: kv_capacity_tokens, else the log's.")
def _capacity_tokens(s: SignalView) -> Scalar:
    # The report's KV table calls the same function with the same signals (pipeline.kv_for).
    return pool_capacity(
        reported=s.num("kv_capacity_tokens"),
        block_size=s.num("block_size"),
        num_gpu_blocks=s.num("num_gpu_blocks"),
        log_tokens=s.num("log_kv_cache_tokens"),
        kv_cache_memory_bytes=s.num("kv_cache_memory_bytes"),
        bytes_per_token=s.num("kv_bytes_per_token"),
    ).tokens


@derived(
    "max_model_len_held_tokens",
    "tokens",
    "What a max_model_len request holds of the pool as the engine counts it: max_model_len × "
    "max_model_len_held_share (max_model_len itself where every layer counts full).",
)
def _max_model_len_held_tokens(s: SignalView) -> Scalar:
    mml, share = s.num("max_model_len"), s.num("max_model_len_held_share")
    if mml is None:
        return None
    return mml * share if share is not None and 0 < share <= 1 else mml


@derived("seq_tokens", "tokens", "Tokens one sequence holds: mean prompt + mean generation.")
def _seq_tokens(s: SignalView) -> Scalar:
    p, g = s.num("mean_prompt_len"), s.num("mean_generation_len")
    if p is None or g is None or p + g <= 0:
        return None
    return round(p + g)


@derived(
    "seqs_that_fit",
    "requests",
    "Sequences of seq_tokens the KV pool holds at once (each holding kv_held_share of its "
    "tokens where sliding-window layers keep only the window).",
)
def _seqs_that_fit(s: SignalView) -> Scalar:
    p, g = s.num("mean_prompt_len"), s.num("mean_generation_len")
    seq = p + g if p is not None and g is not None else None
    share = s.num("kv_held_share")
    if seq is not None and share is not None and 0 < share < 1:
        seq *= share
    return sequences_that_fit(s.num("capacity_tokens"), seq)


@derived("gpu_headroom_fraction", "fraction", "Share of GPU memory not in use: 1 - used fraction.")
def _gpu_headroom(s: SignalView) -> Scalar:
    used = s.num("gpu_memory_used_fraction")
    return None if used is None else round(max(0.0, 1.0 - used), 4)


@derived(
    "suggested_gpu_memory_utilization_up",
    "fraction",
    "A higher --gpu-memory-utilization that keeps 5 % of the card free (at most 0.95).",
)
def _gmu_up(s: SignalView) -> Scalar:
    gmu, headroom = s.num("gpu_memory_utilization"), s.num("gpu_headroom_fraction")
    if gmu is None:
        return None
    # Without NVML numbers, a small step is the safe suggestion.
    target = gmu + (headroom - 0.05 if headroom is not None else 0.05)
    target = _floor_hundredths(min(0.95, target))
    return target if target > gmu else None


@derived(
    "suggested_gpu_memory_utilization_down",
    "fraction",
    "A lower --gpu-memory-utilization that leaves room for other processes and activations.",
)
def _gmu_down(s: SignalView) -> Scalar:
    gmu = s.num("gpu_memory_utilization")
    if gmu is None:
        return None
    other, total = s.num("gpu_other_process_bytes"), s.num("gpu_memory_total_bytes")
    target = gmu - 0.05
    if other is not None and total is not None and total > 0 and other > 0:
        # What the other processes hold, plus 2 % of the card as margin.
        target = min(target, 1.0 - other / total - 0.02)
    target = _floor_hundredths(max(0.3, target))
    return target if target < gmu else None


@derived("gpu_other_process_gib", "GiB", "Memory held by other processes on the card, in GiB.")
def _other_gib(s: SignalView) -> Scalar:
    other = s.num("gpu_other_process_bytes")
    return None if other is None else round(other / GIB, 1)


@derived(
    "suggested_max_num_batched_tokens",
    "tokens",
    "Half of --max-num-batched-tokens (at least 512): smaller prefill chunks per step.",
)
def _mnbt_half(s: SignalView) -> Scalar:
    v = s.num("max_num_batched_tokens")
    if v is None:
        return None
    target = max(512, int(v) // 2)
    return target if target < v else None


@derived(
    "prompts_show_drift_harm",
    "bool",
    "The application's prompt sample shows drift (an early difference, much shared after it; "
    "in most of its prompts, or in a tenth of its tokens) and the prefix-miss symptom fired: "
    "the prompts decide the cause whatever the window's hit rate over the requests that did "
    "not drift. Prompt evidence only: alert rules, which "
    "never see prompts, cannot express it.",
)
def _prompts_show_drift_harm(s: SignalView) -> Scalar:
    if s.flag("prefix_caching") is not True:
        return False
    if s.value("prompt_share_pattern") != "drift" and s.value("prompts_drift_in_part") is not True:
        return False
    return s.symptoms.get("prefix-miss") is True


# The share of a sample's tokens that drift in a minority of its prompts worth a finding.
DRIFT_IN_PART = 0.1


@derived(
    "prompts_drift_in_part",
    "bool",
    "Part of the prompt sample drifts while most of it shows another pattern: the drifted "
    "prompts' tokens shared after their early difference are a tenth of the sample's or more "
    "(prompt_drift_fraction), in a sample whose lengths are the server's (the shareable share "
    "is known).",
)
def _prompts_drift_in_part(s: SignalView) -> Scalar:
    part = s.num("prompt_drift_fraction")
    if part is None or s.num("prompt_shareable_fraction") is None:
        return None
    return part >= DRIFT_IN_PART and s.value("prompt_share_pattern") != "drift"


@derived(
    "oom_torch_over_budget",
    "bool",
    "At the out-of-memory error PyTorch's allocator held more than --gpu-memory-utilization × "
    "the device's capacity (log_oom_torch_bytes, log_oom_device_bytes): the engine's own "
    "tensors outgrew the budget its profile sized, an activation peak the profile missed, not "
    "memory outside the budget.",
)
def _oom_torch_over_budget(s: SignalView) -> Scalar:
    torch, device = s.num("log_oom_torch_bytes"), s.num("log_oom_device_bytes")
    util = s.num("gpu_memory_utilization")
    if torch is None or device is None or util is None:
        return None
    return torch > util * device


@derived(
    "prompts_show_eviction_loss",
    "bool",
    "The prompt sample shares whole blocks (one adapter and salt), the window serves well under "
    "that (the prefix-miss symptom), and the pool filled or the window's prompt tokens turned it "
    "over: cached blocks were reclaimed before reuse, whatever the hit rate's size.",
)
def _prompts_show_eviction_loss(s: SignalView) -> Scalar:
    if s.value("prompt_share_pattern") != "shared" or s.symptoms.get("prefix-miss") is not True:
        return False
    usage, turnover = s.num("kv_usage_max"), s.num("prompt_turnover")
    if (usage is not None and usage >= POOL_FULL) or (turnover is not None and turnover >= 1):
        return True
    return None if usage is None or turnover is None else False


@derived(
    "prompts_within_compressed_unit",
    "bool",
    "A compressed KV cache (kv_compress_ratio_max above 1) whose unit of hits, block × ratio, "
    "is at least the 90th-percentile prompt: nine prompts in ten cannot hit, shared or not.",
)
def _prompts_within_compressed_unit(s: SignalView) -> Scalar:
    ratio, unit = s.num("kv_compress_ratio_max"), s.num("prefix_hit_granularity_tokens")
    p90 = s.num("prompt_len_p90")
    if ratio is None:
        return None
    if ratio <= 1:
        return False
    if unit is None or p90 is None:
        return None
    return p90 <= unit


@derived(
    "separate_caches",
    "count",
    "Prefix caches the traffic is spread over: the larger of the data-parallel engines of this "
    "endpoint and the replicas behind its router (each keeps its own cache).",
)
def _separate_caches(s: SignalView) -> Scalar:
    counts = [n for n in (s.num("engines"), s.num("replicas")) if n is not None]
    return int(max(counts)) if counts else None


@derived(
    "routing_ignores_prefix",
    "bool",
    "The traffic is spread over two or more separate prefix caches (separate_caches) by a "
    "router whose policy ignores what each holds (round-robin, random or least-loaded): a "
    "request lands on the server holding its prefix about one time in separate_caches.",
)
def _routing_ignores_prefix(s: SignalView) -> Scalar:
    n, policy = s.num("separate_caches"), s.value("routing_policy")
    if n is not None and n < 2:
        return False  # one cache: nothing to scatter, whatever routes to it
    if n is None or policy is None:
        return None
    return policy in ROUTING_IGNORES_PREFIX


@derived(
    "prefix_hit_rate_effective",
    "fraction",
    "Window prefix hit rate without prompt tokens recomputed after preemption (V0: the "
    "server's hit-rate gauge, its only rate).",
)
def _hit_rate_effective(s: SignalView) -> Scalar:
    # Tokens recomputed after a preemption find their own blocks still cached and count as
    # hits before vLLM 0.12 (from 0.12 the prefix-cache stats leave preempted requests out):
    # there they inflate the hit rate.
    q, h = s.num("prefix_queries_window"), s.num("prefix_hits_window")
    if q is None or h is None:
        window = s.num("prefix_hit_rate_window")
        # V0 servers export only a hit-rate gauge over the server's life: the best rate the
        # bundle holds when no window counters exist.
        return window if window is not None else s.num("prefix_hit_rate_lifetime")
    if q <= 0:
        return None
    r = s.num("prompt_tokens_recomputed_window") or 0.0
    r = min(r, h)
    if q - r <= 0:
        return None
    return round((h - r) / (q - r), 4)


def _ttft_share(s: SignalView, part: str) -> Scalar:
    """Share of TTFT spent in ``part`` (queue_time, prefill_time): means, else medians."""
    share = _ratio(s.num(f"{part}_mean"), s.num("ttft_mean"))
    if share is None:
        share = _ratio(s.num(f"{part}_p50"), s.num("ttft_p50"))
    return None if share is None else round(min(1.0, share), 4)


@derived("ttft_queue_share", "fraction", "Share of TTFT spent waiting in the queue (means).")
def _queue_share(s: SignalView) -> Scalar:
    return _ttft_share(s, "queue_time")


@derived("ttft_prefill_share", "fraction", "Share of TTFT spent in prefill (means).")
def _prefill_share(s: SignalView) -> Scalar:
    return _ttft_share(s, "prefill_time")


@derived(
    "running_max_engine",
    "requests",
    "Peak running requests of the engine --max-num-seqs limits: the busiest engine's with "
    "several (data parallelism), else running_max.",
)
def _running_max_engine(s: SignalView) -> Scalar:
    per = s.num("running_max_per_engine")
    return per if per is not None else s.num("running_max")


@derived(
    "decode_step_tokens_max",
    "tokens",
    "Tokens the busiest decode step runs through the model: the running peak, times one plus "
    "the drafted tokens per step when speculation verifies them (CUDA graphs are captured by "
    "tokens, so 6 sequences verifying 6 drafts each need a 42-token graph).",
)
def _decode_step_tokens_max(s: SignalView) -> Scalar:
    running = s.num("running_max_engine")
    return None if running is None else decode_step_tokens(running, s)


@derived(
    "prefill_erratic",
    "bool",
    "One request at a time, nothing waiting, little of the prompts cached (under 10 %), and the "
    "slowest first tokens take four times or more longer against the fastest than their "
    "prompts' lengths explain ((TTFT p95 / p10) over (prompt p90 / p10)): each prefill ran "
    "alone, so the fast ones show what the work costs and the slow ones lose time to something "
    "else (clocks or power state after idle, a cold path).",
)
def _prefill_erratic(s: SignalView) -> Scalar:
    running, waiting = s.num("running_max"), s.num("waiting_max")
    if running is None or waiting is None:
        return None
    if running > 1 or waiting > 0:
        return False
    # Prompts served from the prefix cache prefill in a fraction of a cold one's time: the fast
    # ones then show the cache, not what the work costs (external case: a 14,700-token
    # document 0.13 s when cached, 5-7 s when not, half the prompt tokens cached).
    cached = s.num("prompt_cached_share_window")
    if cached is None:
        cached = s.num("prefix_hit_rate_window")
    if cached is not None and cached >= 0.1:
        return False
    t10, t95 = s.num("ttft_p10"), s.num("ttft_p95")
    p10, p90 = s.num("prompt_len_p10"), s.num("prompt_len_p90")
    if t10 is None or t95 is None or p10 is None or p90 is None:
        return None
    return t10 > 0 and p10 > 0 and (t95 / t10) / (p90 / p10) >= 4


@derived(
    "engine_stalled",
    "bool",
    "Requests ran through the whole window (a minute or more), through its last minute or "
    "more (stalled_tail_s), or through a minute or more of it (stalled_span_s) with requests "
    "waiting, while the engine computed no prompt and no output token and none finished: the "
    "engine or its scheduler is stuck.",
)
def _engine_stalled(s: SignalView) -> Scalar:
    tail, span = s.num("stalled_tail_s"), s.num("stalled_span_s")
    if tail is not None and tail >= 60:
        return True
    # A stall inside the window counts where requests waited behind it; with no queue at all
    # its harm is the running streams that froze (slow-itl/scheduler-stall; external case
    # zyy-mi300x: 4 streams, 70 s of nothing, no request waiting).
    if span is not None and span >= 60 and (s.num("waiting_max") or 0) >= 1:
        return True
    running, mean = s.num("running_max"), s.num("running_mean")
    prompt, gen = s.num("prompt_tokens_per_s"), s.num("generation_tokens_per_s")
    finished, window = s.num("requests_finished_window"), s.num("window_s")
    if running is None or mean is None or window is None:
        return None
    if prompt is None or gen is None or finished is None:
        return None
    return (
        running >= 1
        and mean >= 0.9 * running
        and prompt == 0
        and gen == 0
        and finished == 0
        and window >= 60
    )


@derived(
    "one_request_preempts_itself",
    "bool",
    "Preemptions in the window while at most one request ran at every scrape and the pool "
    "filled: a lone request needed a block the pool did not have and had only itself to "
    "preempt. It is larger than what the pool holds in practice, whatever its nominal tokens "
    "say (a hybrid model's groups fill faster than its tokens).",
)
def _one_request_preempts_itself(s: SignalView) -> Scalar:
    preempted, running, usage = (
        s.num("preemptions_window"),
        s.num("running_max"),
        s.num("kv_usage_max"),
    )
    if preempted is None or running is None or usage is None:
        return None
    return preempted >= 1 and running <= 1 and usage >= POOL_FULL


@derived(
    "one_request_holds_pool",
    "bool",
    "The engine computes nothing (engine_stalled) while one request (one or two running "
    "sequences, a V0 request's n) holds the full pool at the window's end: it needs another "
    "block, the pool has none, and it has nothing to preempt but itself. The request is larger "
    "than what the pool holds in practice, whatever its nominal tokens say.",
)
def _one_request_holds_pool(s: SignalView) -> Scalar:
    stalled, running, usage = (
        s.value("engine_stalled"),
        s.num("running_last"),
        s.num("kv_usage_last"),
    )
    if stalled is None or running is None or usage is None:
        return None
    return stalled is True and 1 <= running <= 2 and usage >= POOL_FULL


@derived(
    "prefix_hits_stopped",
    "bool",
    "The prefix cache served a fifth or more of the looked-up tokens over the window and under "
    "2 % in its last third, with the pool never full: it stopped serving what it holds.",
)
def _prefix_hits_stopped(s: SignalView) -> Scalar:
    # The window's own rate only: hits that stopped before the window look exactly like
    # traffic that began to drift before it (generator draws prefix-drift: 82 % before, 0 % in
    # the window), and that history is prefix-drift's evidence, not the engine's.
    late, usage = s.num("prefix_hit_rate_late"), s.num("kv_usage_max")
    window = s.num("prefix_hit_rate_window")
    # A cache that never served a fifth in the window cannot be said to have stopped (unknown).
    if late is None or usage is None or window is None or window < 0.2:
        return None
    return late < 0.02 and usage < POOL_FULL


@derived(
    "requests_never_reach_engine",
    "bool",
    "The access log accepted three or more completion requests after the engine's stats line "
    "read idle for good, and the engine shows nothing running or waiting at the window's end: "
    "its input path hangs while the API server answers.",
)
def _requests_never_reach_engine(s: SignalView) -> Scalar:
    after = s.num("log_requests_after_engine_idle")
    running, waiting = s.num("running_last"), s.num("waiting_last")
    if after is None:
        return None
    if after < 3:
        return False
    if running is None or waiting is None:
        return None
    return running <= 0 and waiting <= 0


@derived(
    "engine_died_in_kv_connector",
    "bool",
    "The traceback at the engine's death ends in a KV connector's or KV offloading's code "
    "(vllm/distributed/kv_transfer/..., a *kv_offload* module).",
)
def _engine_died_in_kv_connector(s: SignalView) -> Scalar:
    site = s.value("log_engine_death_site")
    if not isinstance(site, str) or not site:
        return None
    return any(part in site for part in ("kv_transfer/", "kv_connector/", "kv_offload"))


@derived(
    "weights_per_device_bytes",
    "bytes",
    "The model's weights (config.json estimate) over the devices one replica spreads them "
    "across (tensor-parallel ranks times pipeline stages).",
)
def _weights_per_device_bytes(s: SignalView) -> Scalar:
    return _weights_share_per_device(s)


@derived(
    "weights_devices_needed",
    "devices",
    "The fewest devices whose memory holds the model's weights with a fifth of each left for "
    "activations and the KV pool (a power of two, as tensor parallel sizes are).",
)
def _weights_devices_needed(s: SignalView) -> Scalar:
    weights, card = s.num("weights_bytes"), s.num("gpu_memory_total_bytes")
    if weights is None or weights <= 0 or card is None or card <= 0:
        return None
    need = math.ceil(weights / (0.8 * card))
    return 1 << max(need - 1, 0).bit_length()


@derived(
    "other_process_over_weights",
    "bool",
    "Other processes on the device held 1 GiB or more, and more than this server's own "
    "weights (start-up log, else the model config's share per device): their memory, not "
    "this server's settings, can explain a pool that came out short.",
)
def _other_process_over_weights(s: SignalView) -> Scalar:
    other, weights = s.num("gpu_other_process_bytes"), s.num("log_weights_bytes")
    if weights is None:
        # Releases that log no weight size (vLLM 0.3): the model config's estimate, per device
        # (external case zyo-rayserve: another replica's 10 GiB beside a 2.2 GB TinyLlama).
        weights = _weights_share_per_device(s)
    parts = (
        None if other is None else other >= 1 << 30,
        None if other is None or weights is None else other >= weights,
    )
    if False in parts:
        return False
    return None if None in parts else True


@derived(
    "lmcache_never_serves_resent",
    "bool",
    "LMCache's log: 1,024 or more prompt tokens looked up, under 1 % of them hit, while half "
    "or more of the long lookups repeat an earlier prompt's exact length (prompts sent again "
    "that the tier stored).",
)
def _lmcache_never_serves_resent(s: SignalView) -> Scalar:
    looked, rate = s.num("log_external_lookup_tokens"), s.num("log_external_hit_rate")
    repeat = s.num("log_external_repeat_share")
    # Three-valued "and": any part known false decides it, else any unknown part leaves it open.
    parts = (
        None if looked is None else looked >= 1024,
        None if rate is None else rate < 0.01,
        None if repeat is None else repeat >= 0.5,
    )
    if False in parts:
        return False
    return None if None in parts else True


@derived(
    "offload_inferred",
    "bool",
    "The model's weights (model config, split over tensor-parallel ranks and pipeline stages) "
    "are larger than the whole device, yet the server runs and no --cpu-offload-gb is given: "
    "part of them lives in host memory, by whatever mechanism (an offload flag of another "
    "release or fork, unified memory).",
)
def _offload_inferred(s: SignalView) -> Scalar:
    if (s.num("cpu_offload_gb") or 0.0) > 0:
        return False
    share, total = _weights_share_per_device(s), s.num("gpu_memory_total_bytes")
    if share is None or total is None or total <= 0:
        return None
    if share <= total:
        return False
    # Only where the estimate can be trusted to be the weights the server loads: no
    # quantization named (a GGUF or AWQ checkpoint packs them below the config's dtype), and
    # the log's loaded weights fill most of the device, as an offload does first (external
    # cases zn-librechat, a 70B GGUF file, and zzj-qwen72b, no log of the weights).
    quant = s.value("quantization") or s.value("log_quantization")
    loaded = s.num("log_weights_bytes")
    if quant or loaded is None or loaded < 0.6 * total:
        return None
    return True


def _weights_share_per_device(s: SignalView) -> float | None:
    """The model config's weights over the devices one replica spreads them across."""
    dense = s.num("weights_bytes")
    if dense is None or dense <= 0:
        return None
    return dense / _tensor_parallel(s) / _pipeline_stages(s)


@derived(
    "offloaded_weights_per_device",
    "bytes",
    "Weight bytes each device keeps in host memory: --cpu-offload-gb (GiB, as vLLM reads it); "
    "else, where the weights cannot fit on the device (offload_inferred), its share of the "
    "model config's weights less what the start-up log says it loaded. 0 where the flag says "
    "none and the weights do not prove it wrong.",
)
def _offloaded_weights_per_device(s: SignalView) -> Scalar:
    gb = s.num("cpu_offload_gb")
    if gb is not None and gb > 0:
        return gb * 2**30
    if s.flag("offload_inferred") is not True:
        # The flag's word (no offload) stands unless the weights prove it wrong.
        return 0.0 if gb is not None else None
    # offload_inferred holds only with the share and the log's loaded weights known.
    share, loaded = _weights_share_per_device(s), s.num("log_weights_bytes")
    if share is None or loaded is None:
        return None
    return max(share - loaded, 0.0)


@derived(
    "offload_step_floor",
    "s",
    "The least time a forward pass spends streaming the weights offloaded to CPU memory: "
    "offloaded_weights_per_device over the device's host link (PCIe 5.0 x16, 64 GB/s; "
    "NVLink-C2C, 450 GB/s, on a Grace superchip).",
)
def _offload_step_floor(s: SignalView) -> Scalar:
    offloaded = s.num("offloaded_weights_per_device")
    if offloaded is None or offloaded <= 0:
        return None
    name = s.value("gpu_name")
    return offloaded / host_link_of(name if isinstance(name, str) else None)


@derived(
    "itl_offload_share",
    "ratio",
    "offload_step_floor / ITL p50: the share of each decode step the offloaded weights take "
    "at least to cross the host link.",
)
def _itl_offload_share(s: SignalView) -> Scalar:
    return _ratio(s.num("offload_step_floor"), s.num("itl_p50"))


@derived(
    "offload_fits_on_device",
    "bool",
    "The weights resident on each GPU (start-up log) plus those offloaded to CPU memory fit in "
    "85 % of the device's --gpu-memory-utilization share, leaving the rest for the KV pool "
    "and activations: the offload is not needed.",
)
def _offload_fits_on_device(s: SignalView) -> Scalar:
    gb, resident = s.num("cpu_offload_gb"), s.num("log_weights_bytes")
    total, util = s.num("gpu_memory_total_bytes"), s.num("gpu_memory_utilization")
    if gb is None or resident is None or total is None or util is None or gb <= 0:
        return None
    return resident + gb * 2**30 <= 0.85 * util * total


# Connectors that move a prefill instance's KV to a decode instance (disaggregated prefill);
# offloading connectors (LMCache, the CPU offload tier) miss and compute locally by design.
PD_CONNECTORS = ("nixl", "p2pnccl", "mooncake")


def _is_pd_connector(connector: str) -> bool:
    return any(k in connector.lower().replace("_", "") for k in PD_CONNECTORS)


@derived(
    "connector_recomputes_prompts",
    "bool",
    "A disaggregated-prefill KV connector (NIXL, P2P NCCL, Mooncake, or any connector on an "
    "instance started as kv_consumer) is configured, this instance decodes (answers longer "
    "than one token), and it prefills the whole prompt itself: "
    "the KV the prefill instance computed is not used, so every first token pays two prefills.",
)
def _connector_recomputes_prompts(s: SignalView) -> Scalar:
    if s.value("kv_transfer_configured") is not True:
        return False
    connector = s.value("kv_connector")
    # An instance started as the consumer of a disaggregated pair is the decode side whatever
    # carries the KV (external case zyp-lmcache-pd: LMCacheConnectorV1 as kv_consumer over
    # NIXL, 32K prompts prefilled again on the decoder after the hand-off found nothing).
    consumer = s.value("kv_role") == "kv_consumer"
    if not isinstance(connector, str) and not consumer:
        return None
    if not consumer and not _is_pd_connector(str(connector)):
        return False
    gen, prompt = s.num("mean_generation_len"), s.num("mean_prompt_len")
    if gen is None or prompt is None or prompt <= 0:
        return None
    if gen < 2:
        return False  # the prefill side: it answers one token and hands the KV over
    if consumer:
        # The decoder's own connector log: most of the prompt tokens it looked up for were
        # not there to load, so it prefilled them itself (LMCache's "hit tokens: 0, need to
        # load: 0" for every 32K prompt in zyp-lmcache-pd).
        looked, rate = s.num("log_external_lookup_tokens"), s.num("log_external_hit_rate")
        if looked is not None and looked > 0 and rate is not None:
            return rate < 0.5
    external = s.num("prompt_tokens_external_window")
    if external is not None and external > 0:
        return False  # KV arrives through the connector
    # What one request's prefill computed here: vLLM 0.12+ counts it; before that, the engine
    # steps hold whole prompts (a decode step of a transferred request is one token).
    computed = s.num("prefill_kv_computed_tokens_mean")
    if computed is not None:
        return computed >= 0.8 * prompt
    step = s.num("iteration_tokens_p99")
    hits = s.num("prefix_hit_rate_window")
    if step is None:
        return None
    return step >= 0.8 * prompt and (hits is None or hits < 0.5)


@derived(
    "kv_connector_nixl",
    "bool",
    "The KV connector is NIXL's (its side channel, UCX transport and KV lease apply).",
)
def _kv_connector_nixl(s: SignalView) -> Scalar:
    connector = s.value("kv_connector")
    if not isinstance(connector, str):
        return None if s.value("kv_transfer_configured") is True else False
    return "nixl" in connector.lower()


@derived(
    "consumer_prefill_is_transfer",
    "bool",
    "This instance is the decode side (kv_role kv_consumer) of a disaggregated-prefill "
    "connector and does not compute its prompts itself: the time its histograms count as "
    "prefill is the wait for the KV the prefill instance sends (no prompt compute here runs at "
    "a tenth of the GPUs' peak or more).",
)
def _consumer_prefill_is_transfer(s: SignalView) -> Scalar:
    role, connector = s.value("kv_role"), s.value("kv_connector")
    if s.value("kv_transfer_configured") is not True or not isinstance(role, str):
        return False
    if not _decodes_transferred_prompts(s, role) or not isinstance(connector, str):
        return False
    if not _is_pd_connector(connector):
        return False
    recomputes = s.value("connector_recomputes_prompts")
    if recomputes is not None:
        return recomputes is False
    # Not known whether it computes them: a prompt "prefilled" at under a tenth of the GPUs'
    # peak is no computation.
    mfu = s.num("prefill_mfu")
    return mfu is None or mfu < 0.1


def _decodes_transferred_prompts(s: SignalView, role: str) -> bool:
    """The decode side of the pair: kv_consumer, or kv_both (NIXL runs both sides so) where
    most of the window's prompt tokens arrived through the connector (vLLM 0.18+ counts
    prompt tokens by source; external case zzq-nixl-pull, holdout-15: 99.9 %)."""
    if "consumer" in role.lower():
        return True
    if "both" not in role.lower():
        return False
    share = s.num("prompt_external_share_window")
    return share is not None and share >= 0.5


@derived(
    "consumer_ttft_over_transfer",
    "ratio",
    "On the decode side of a disaggregated pair (consumer_prefill_is_transfer): the mean time "
    "to first token over what a first token needs there, the KV transfer and posting it "
    "(NIXL's own histograms) and one decode step (mean ITL).",
)
def _consumer_ttft_over_transfer(s: SignalView) -> Scalar:
    if s.value("consumer_prefill_is_transfer") is not True:
        return None
    xfer, post, itl = (
        s.num("nixl_xfer_time_mean"),
        s.num("nixl_post_time_mean"),
        s.num("itl_mean"),
    )
    if xfer is None or itl is None:
        return None
    return _ratio(s.num("ttft_mean"), xfer + (post or 0.0) + itl)


# A tenth of the pool: more than the partial blocks and the null block an idle pool shows.
POOL_HELD_IDLE = 0.1


@derived(
    "pool_held_idle",
    "bool",
    "Nothing runs at the last scrape, yet a tenth of the KV pool or more stays held: blocks "
    "kept by requests that are not running (a KV connector's pending loads or sends), not by "
    "the work the engine does.",
)
def _pool_held_idle(s: SignalView) -> Scalar:
    running, usage = s.num("running_last"), s.num("kv_usage_last")
    if running is None or usage is None:
        return None
    return running < 1 and usage >= POOL_HELD_IDLE


@derived(
    "prompt_tokens_recomputed_min",
    "tokens",
    "At least this many of the window's prompt tokens were computed again, not for the first "
    "time: the prompt tokens processed beyond what every request the window could have "
    "admitted holds (finished, and the most running and waiting at once, each at the longest "
    "prompt seen), counted only where that is two thirds of them or more; 0 below. vLLM has "
    "no counter of it, and releases without a preemption counter recompute silently.",
)
def _prompt_tokens_recomputed_min(s: SignalView) -> Scalar:
    names = ("prompt_tokens_per_s", "window_s", "max_prompt_len_seen")
    rate, window, longest = (s.num(n) for n in names)
    admitted = [s.num(n) for n in ("requests_finished_window", "running_max", "waiting_max")]
    if rate is None or window is None or longest is None or None in admitted:
        return None
    tokens = rate * window
    own = sum(n for n in admitted if n is not None) * longest
    return round(tokens - own) if tokens >= 3 * own else 0


@derived(
    "preempted_by_recompute",
    "bool",
    "Sequences were recomputed in a full pool (prompt_tokens_recomputed_min above 0, KV usage "
    "at the pool-full mark): preemptions a release without a preemption counter or warning "
    "does not count.",
)
def _preempted_by_recompute(s: SignalView) -> Scalar:
    again, usage = s.num("prompt_tokens_recomputed_min"), s.num("kv_usage_max")
    if again is None or usage is None:
        return None
    return again > 0 and usage >= POOL_FULL


@derived(
    "queue_never_moved",
    "bool",
    "Requests waited through the whole window (the mean queue at 90 % of its peak or more, a "
    "minute or longer) and no request finished: every first token of theirs is at least the "
    "window late, and the TTFT histogram, which counts only first tokens given, never sees it.",
)
def _queue_never_moved(s: SignalView) -> Scalar:
    mean, peak = s.num("waiting_mean"), s.num("waiting_max")
    finished, window = s.num("requests_finished_window"), s.num("window_s")
    if mean is None or peak is None or finished is None or window is None:
        return None
    return mean >= 1 and mean >= 0.9 * peak and finished <= 0 and window >= 60


@derived(
    "queue_stalled_with_room",
    "bool",
    "The queue stalled (requests waiting and no token processed in half the window's intervals "
    "or more) and ends with requests waiting and none running, with no preemption (or an "
    "empty pool at the end) and the pool not full: admission, not KV demand, holds them. A "
    "request longer than the pool also stalls an empty pool, so where max_model_len exceeds "
    "the pool this holds only when blocks stay held with nothing running (pool_held_idle).",
)
def _queue_stalled_with_room(s: SignalView) -> Scalar:
    share, waiting, running = s.num("stalled_share"), s.num("waiting_last"), s.num("running_last")
    usage, preempted = s.num("kv_usage_last"), s.num("preemptions_seen")
    if share is None or waiting is None or running is None or usage is None:
        return None
    if share < 0.5 or waiting < 1 or running >= 1 or usage >= POOL_FULL:
        return False
    # Preemptions return their requests to the queue; but a queue that stays put in front of
    # an empty pool is not waiting for blocks a preemption freed (external case
    # zyi-offload-parked: two preemptions at 97 % before the wedge, then 21 waiting, none
    # running and the pool at 0 % to the window's end).
    if preempted is not None and preempted > 0 and usage > EMPTY_POOL:
        return False
    over = s.num("max_model_len_over_capacity")
    if over is not None and over <= 1.0:
        return True
    return s.value("pool_held_idle") is True


@derived(
    "queue_stalled_unheld",
    "bool",
    "The queue stalled with room (queue_stalled_with_room) and no block is held with nothing "
    "running (pool_held_idle false): requests wait on an idle engine with every slot and "
    "block free.",
)
def _queue_stalled_unheld(s: SignalView) -> Scalar:
    stalled = s.value("queue_stalled_with_room")
    if stalled is not True:
        return stalled
    held = s.value("pool_held_idle")
    return None if held is None else held is False


# Steps this short carry little compute: a queue behind them is not waiting for the engine to
# finish work (external case c-compute-queueing: 1.75 s steps of 16k prefill tokens, serialized
# prefills, a 100 s queue with the budget's nominal room: compute queueing, not a hold-back).
# A quarter of a second, not a tenth: a small card decoding a handful of streams takes 0.1-0.2 s
# a step (external case zxn-dcp4, holdout-24: four GB10 at 137 ms a step, eight prompts
# admitted one every 4.4 s by a fork's prefill_schedule_interval, read as queueing).
HELD_STEP_S = 0.25


@derived(
    "queue_held_with_room",
    "bool",
    "Requests waited ten engine steps or more (queue_time_mean over itl_p50), most of their "
    "first-token time, on an engine whose steps are short (under 0.1 s), while every "
    "resource the scheduler admits against had room: running at most half the slots on "
    "average and below them at every scrape, the pool below full while they waited, and steps "
    "carrying under half the batched-token budget (512 tokens where the flag is not known, "
    "below any default of vLLM's): the scheduler held them back, no capacity did.",
)
def _queue_held_with_room(s: SignalView) -> Scalar:
    wait, step, share = s.num("queue_time_mean"), s.num("itl_p50"), s.num("ttft_queue_share")
    slots, run_mean = s.num("max_num_seqs_effective"), s.num("running_mean")
    run_max = s.num("running_max_engine")
    if run_max is None:
        run_max = s.num("running_max")
    kv, step_tokens = s.num("kv_usage_queued"), s.num("iteration_tokens_p99")
    if (
        wait is None
        or step is None
        or share is None
        or slots is None
        or run_mean is None
        or run_max is None
        or kv is None
        or step_tokens is None
    ):
        return None
    budget = s.num("max_num_batched_tokens")
    return (
        0 < step < HELD_STEP_S
        and share >= 0.5
        and wait >= 10 * step
        and run_max < slots
        and run_mean <= slots / 2
        and kv < POOL_FULL
        and step_tokens < (budget / 2 if budget else 512)
    )


@derived(
    "stall_engine_alive",
    "bool",
    "Whether the engine was alive while its queue stalled with room (queue_stalled_with_room): "
    "true on a V0 engine (its stats line comes from the engine's own step loop; releases "
    "before 0.8 have no other engine) or where vLLM counts the waiting requests by reason (the "
    "scheduler sorted them), false where the log shows the engine dying, unknown otherwise: "
    "V1's API server keeps logging and serving /metrics for an engine core that hung.",
)
def _stall_engine_alive(s: SignalView) -> Scalar:
    deaths = s.num("log_engine_deaths")
    if deaths is not None and deaths > 0:
        return False
    if s.value("log_v0_engine") is True or s.num("waiting_deferred_share") is not None:
        return True
    version = s.value("vllm_version")
    release = vkey(version)[:2] if isinstance(version, str) else ()
    if len(release) == 2 and release < (0, 8):
        return True
    return None


@derived(
    "kv_free_queued_tokens",
    "tokens",
    "The pool's free tokens at its fullest while requests waited: what a waiting request could "
    "be given then (1 - kv_usage_queued, times the pool).",
)
def _kv_free_queued_tokens(s: SignalView) -> Scalar:
    usage, pool = s.num("kv_usage_queued"), s.num("kv_capacity_tokens")
    if usage is None or pool is None or pool <= 0:
        return None
    return max(0.0, 1.0 - usage) * pool


@derived(
    "connector_holds_idle_pool",
    "bool",
    "A KV connector is configured and the queue stalled with room (queue_stalled_with_room) "
    "while blocks stay held with nothing running (pool_held_idle): the connector keeps them "
    "for loads or sends that never complete.",
)
def _connector_holds_idle_pool(s: SignalView) -> Scalar:
    if s.value("kv_transfer_configured") is not True:
        return False
    stalled, held = s.value("queue_stalled_with_room"), s.value("pool_held_idle")
    if stalled is None or held is None:
        return None
    return stalled is True and held is True


@derived(
    "consumer_waits_for_transfer",
    "bool",
    "First tokens are slow on a decode instance whose prefill time is the KV transfer "
    "(consumer_prefill_is_transfer), and that time is half the time to first token or more. "
    "One value, so that an alert rule, which cannot read the connector's role, leaves the "
    "whole test out instead of keeping its latency half.",
)
def _consumer_waits_for_transfer(s: SignalView) -> Scalar:
    is_transfer, share = s.value("consumer_prefill_is_transfer"), s.num("ttft_prefill_share")
    if is_transfer is not True or s.value("symptom_high_ttft") is not True:
        return False if is_transfer is False else None
    return None if share is None else share >= 0.5


def capture_size(n: int) -> int:
    """The smallest CUDA-graph capture size vLLM would capture that covers ``n`` tokens: its
    sizes run 1, 2, 4, then multiples of 8 up to 256, then multiples of 16."""
    if n <= 4:
        return 1 << max(0, math.ceil(math.log2(max(1, n))))
    if n <= 256:
        return math.ceil(n / 8) * 8
    return math.ceil(n / 16) * 16


def capture_size_below(n: int) -> int:
    """The largest capture size vLLM's default list holds that is at most ``n``."""
    if n < 8:
        return 1 << max(0, int(math.log2(max(1, n))))
    if n <= 256:
        return n // 8 * 8
    return n // 16 * 16


@derived(
    "budget_step_uncaptured",
    "bool",
    "The token budget (--max-num-batched-tokens) is not a captured CUDA-graph size, only just "
    "above the largest one: vLLM cut its capture list at the budget, so a step filled to the "
    "budget (requests waiting, chunked prefill) runs eagerly.",
)
def _budget_step_uncaptured(s: SignalView) -> Scalar:
    budget, captured = s.num("max_num_batched_tokens"), s.num("log_cudagraph_max_capture_size")
    if budget is None or captured is None or budget <= 0 or captured <= 0:
        return None
    # Only a list cut at the budget ends on the capture size just below it; a list that stops
    # at --max-cudagraph-capture-size far below a large budget leaves prefill-sized steps
    # eager, where the launch overhead a graph saves is small against their compute.
    return budget > captured and capture_size_below(int(budget)) == int(captured)


def decode_step_tokens(seqs: float, s: SignalView) -> float:
    """Tokens a decode step of ``seqs`` sequences runs: each sequence's own token, plus the
    drafted tokens per step it verifies when speculation is on."""
    k = s.num("spec_decode_tokens_per_draft")
    return seqs * (1 + round(k)) if k and k > 0 else seqs


@derived(
    "max_num_seqs_effective",
    "requests",
    "--max-num-seqs as given, else vLLM's default for the device (1,024 on cards of 70 GiB or "
    "more other than the A100, 256 on other GPUs; vLLM 0.32 engine/arg_utils.py): the slot "
    "limit is known even when the flag is not visible.",
)
def _max_num_seqs_effective(s: SignalView) -> Scalar:
    given = s.num("max_num_seqs")
    if given is not None:
        return given
    total, name = s.num("gpu_memory_total_bytes"), s.value("gpu_name")
    if total is None:
        return None
    return gpu_batch_defaults(total, str(name) if name else None)[1]


@derived(
    "max_num_seqs_floor",
    "requests",
    "The least the slot limit can be: --max-num-seqs as given; else, where every flag is known "
    "(a full command line, the log's non-default args line), vLLM's default, taken at its "
    "smallest for the platform when the device's memory is unknown (128 on CPU, 256 on "
    "GPUs); else unknown (an operator may have set any limit).",
)
def _max_num_seqs_floor(s: SignalView) -> Scalar:
    given = s.num("max_num_seqs")
    if given is not None:
        return given
    if s.value("flags_complete") is not True:
        return None
    default = s.num("max_num_seqs_effective")
    if default is not None:
        return default
    return CPU_DEFAULT_MAX_NUM_SEQS if s.value("platform") == "cpu" else GPU_DEFAULT_MAX_NUM_SEQS


@derived(
    "max_loras_effective",
    "count",
    "Distinct LoRA adapters the scheduler admits per batch: --max-loras, else vLLM's default "
    "of 1 when --enable-lora is on.",
)
def _max_loras_effective(s: SignalView) -> Scalar:
    if s.value("lora_enabled") is not True:
        return None
    given = s.num("max_loras")
    return given if given is not None and given >= 1 else 1


@derived(
    "lora_budget_binds",
    "bool",
    "With --enable-lora, no more requests ran at once than --max-loras adapters allow while "
    "requests waited in a quarter of the window or more, and the slot limit is far away: "
    "requests that name other adapters wait for the running ones. One value, so that an alert "
    "rule, which cannot read the flags, leaves the whole test out instead of keeping its queue "
    "half.",
)
def _lora_budget_binds(s: SignalView) -> Scalar:
    loras = s.num("max_loras_effective")
    if loras is None:
        return False if s.value("lora_enabled") is False else None
    running, floor = s.num("running_max_engine"), s.num("max_num_seqs_floor")
    waited = s.fraction_of_window("waiting", ">=", 1)
    if running is None or floor is None or waited is None:
        return None
    return running <= loras and running < 0.5 * floor and waited >= 0.25


@derived(
    "engine_load_over_fair",
    "ratio",
    "engine_busiest_running_share × engines: the busiest engine's load over an even share "
    "(1 balanced; 2 twice its share).",
)
def _engine_load_over_fair(s: SignalView) -> Scalar:
    share, n = s.num("engine_busiest_running_share"), s.num("engines")
    return share * n if share is not None and n is not None and n >= 2 else None


@derived(
    "queue_on_one_engine",
    "bool",
    "A data-parallel endpoint's queue sits on one engine: nine tenths or more of the waiting "
    "requests are on the engine whose pool filled, while every other engine's pool stayed "
    "below full. The router keeps sending to an engine that cannot admit them; the endpoint's "
    "capacity is not what runs out.",
)
def _queue_on_one_engine(s: SignalView) -> Scalar:
    n, share = s.num("engines"), s.num("engine_busiest_waiting_share")
    others, peak = s.num("kv_usage_max_other_engines"), s.num("kv_usage_max")
    if n is None or n < 2:
        return False
    if share is None or others is None or peak is None:
        return None
    return share >= 0.9 and peak >= POOL_FULL and others < POOL_FULL


@derived("itl_spread", "ratio", "itl_p99 / itl_p50: spikes (>3) versus uniformly slow (~1).")
def _itl_spread(s: SignalView) -> Scalar:
    r = _ratio(s.num("itl_p99"), s.num("itl_p50"))
    return None if r is None else round(r, 3)


@derived("ttft_spread", "ratio", "ttft_p99 / ttft_p50: a long tail behind a few long prompts.")
def _ttft_spread(s: SignalView) -> Scalar:
    r = _ratio(s.num("ttft_p99"), s.num("ttft_p50"))
    return None if r is None else round(r, 3)


@derived(
    "oom_phase_unknown",
    "bool",
    "The log shows an out-of-memory error but not where it struck: no traceback frame names "
    "profiling, graph capture, the pool's allocation, the sampler warm-up or serving.",
)
def _oom_phase_unknown(s: SignalView) -> Scalar:
    oom = s.value("log_oom")
    if oom is not True:
        return None if oom is None else False
    return s.value("log_oom_phase") is None


@derived(
    "kv_usage_queued",
    "fraction",
    "Peak KV cache usage while requests waited (kv_usage_max_waiting: the scrapes with a queue "
    "and either side), else the window's peak (kv_usage_max) where no series says when.",
)
def _kv_usage_queued(s: SignalView) -> Scalar:
    queued = s.num("kv_usage_max_waiting")
    return queued if queued is not None else s.num("kv_usage_max")


@derived(
    "waiting_over_running",
    "ratio",
    "The longest queue over the largest running batch: request lifetimes a request at the back "
    "of the queue waits before it starts.",
)
def _waiting_over_running(s: SignalView) -> Scalar:
    r = _ratio(s.num("waiting_max"), s.num("running_max"))
    return None if r is None else round(r, 3)


@derived("prompt_len_spread", "ratio", "Longest prompt seen / mean prompt length.")
def _prompt_spread(s: SignalView) -> Scalar:
    r = _ratio(s.num("max_prompt_len_seen"), s.num("mean_prompt_len"))
    return None if r is None else round(r, 3)


@derived(
    "kv_read_bytes_per_step",
    "bytes",
    "KV bytes read per decode step: bytes per token × the resident KV tokens (mean KV usage × "
    "pool tokens), else × tokens per sequence × mean running.",
)
def _kv_read(s: SignalView) -> Scalar:
    bpt = s.num("kv_bytes_per_token")
    if bpt is None:
        return None
    # The pool's own gauge counts the context the running sequences hold, including a
    # decode phase in which no request finished (so no mean length is known yet).
    usage, cap = s.num("kv_usage_mean"), s.num("kv_capacity_tokens")
    if usage is not None and cap is not None and usage > 0:
        return int(bpt * usage * cap)
    seq, run = s.num("seq_tokens"), s.num("running_mean")
    if seq is None or run is None:
        return None
    return int(bpt * seq * run)


@derived("kv_read_gib_per_step", "GiB", "kv_read_bytes_per_step in GiB.")
def _kv_read_gib(s: SignalView) -> Scalar:
    b = s.num("kv_read_bytes_per_step")
    return None if b is None else round(b / GIB, 2)


@derived(
    "suggested_max_model_len",
    "tokens",
    "The longest max_model_len the KV pool can hold: vLLM's own estimate from a start-up "
    "refusal, else the pool's capacity in tokens.",
)
def _mml_fit(s: SignalView) -> Scalar:
    est = s.num("log_estimated_max_model_len")
    if est is not None and est > 0:
        return int(est)
    return s.value("capacity_tokens")


@derived("preemptions_seen", "count", "Preemptions in the window, else warnings in the log.")
def _preemptions_seen(s: SignalView) -> Scalar:
    w = s.num("preemptions_window")
    if w is not None:
        return int(w)
    log = s.num("log_preemption_warnings")
    return None if log is None else int(log)


# --------------------------------------------------------------------------------- predicates


@predicate(
    "fp8_kv_cache",
    "The KV cache is stored in fewer bits than 16: fp8, int8, nvfp4... (config or start-up log).",
)
def _fp8(s: SignalView) -> bool | None:
    dtype = s.value("cache_dtype")
    if isinstance(dtype, str) and is_quantized_kv_dtype(dtype):
        return True
    if s.flag("log_fp8_kv_cache") is True:
        return True
    if isinstance(dtype, str):
        return False
    return None


@predicate(
    "prompt_within_one_block",
    "The mean prompt fits inside one KV block, so prefix caching (full blocks only) can "
    "never hit it: expected with a block larger than any shared prefix, not a caching bug.",
)
def _within_one_block(s: SignalView) -> bool | None:
    block, prompt = s.num("block_size"), s.num("mean_prompt_len")
    if block is None or prompt is None:
        return None
    # vLLM hits at most floor((len - 1) / block) full blocks of a prompt.
    return prompt <= block


@predicate(
    "hybrid_align_one_step_prefill",
    "A hybrid model in align mode whose mean prompt prefills in one step (at most "
    "--max-num-batched-tokens): vLLM saves the Mamba state only where a step ends, so the one "
    "saved state sits at each prompt's own end.",
)
def _hybrid_align_one_step(s: SignalView) -> bool | None:
    # Three-valued "and": any part known false decides it, else any unknown part leaves it open.
    mode = s.value("mamba_cache_mode")
    prompt, budget = s.num("mean_prompt_len"), s.num("max_num_batched_tokens")
    parts = (
        s.flag("hybrid_model"),
        None if not isinstance(mode, str) else mode == "align",
        None if prompt is None or budget is None else prompt <= budget,
    )
    if False in parts:
        return False
    return None if None in parts else True


@derived(
    "model_layers_unknown",
    "bool",
    "No model config was read and nothing marks the model hybrid: whether it mixes layer kinds "
    "(sliding-window or linear-attention layers beside full attention, which vLLM caches in "
    "groups whose prefix hits must line up) is not known.",
)
def _model_layers_unknown(s: SignalView) -> Scalar:
    if s.flag("hybrid_model") is True:
        return False
    return s.value("kv_bytes_per_token") is None and s.value("kv_held_share") is None


@derived(
    "gpu_unknown",
    "bool",
    "The capture names no GPU (no NVML sample, no device in the log or the flags): no decode "
    "floor can be computed, so how fast this card could stream is not known.",
)
def _gpu_unknown(s: SignalView) -> Scalar:
    return not isinstance(s.value("gpu_name"), str)


@derived(
    "hybrid_align_admits_one",
    "bool",
    "A hybrid model in align mode runs one request at a time while others wait, the pool "
    "below full: in align mode a new prompt starts only with a whole block-aligned chunk, and "
    "a step budget (--max-num-batched-tokens, else vLLM's default for the device) under two "
    "blocks leaves "
    "no such chunk beside a running request, so the scheduler admits requests one by one.",
)
def _hybrid_align_admits_one(s: SignalView) -> Scalar:
    mode = s.value("mamba_cache_mode")
    if s.flag("hybrid_model") is not True or mode != "align":
        return False
    running, waiting = s.num("running_max_engine"), s.num("waiting_max")
    usage, block = s.num("kv_usage_queued"), s.num("block_size")
    if running is None or waiting is None or usage is None or block is None:
        return None
    # vLLM's default step budget for the device where the flag is not given; the smallest
    # (2,048) where the device is not known either (an NPU, as in zzq-mamba-align).
    budget = s.num("max_num_batched_tokens")
    if budget is None:
        total, name = s.num("gpu_memory_total_bytes"), s.value("gpu_name")
        budget = (
            gpu_batch_defaults(total, str(name) if name else None)[0]
            if total is not None
            else GPU_DEFAULT_BATCHED_TOKENS
        )
    return running <= 1 and waiting >= 1 and usage < POOL_FULL and budget < 2 * block


@predicate(
    "gpu_has_headroom",
    "The card has free memory (NVML) and logged no out-of-memory error: raising "
    "--gpu-memory-utilization is safe.",
)
def _gpu_headroom_ok(s: SignalView) -> bool | None:
    if s.flag("log_oom") is True:
        return False
    headroom = s.num("gpu_headroom_fraction")
    if headroom is None:
        return None
    return headroom >= 0.10


@predicate(
    "kv_cache_too_small_at_start",
    "The start-up log says the KV pool could not be sized: no memory for cache blocks, or "
    "max_model_len does not fit in the pool.",
)
def _kv_too_small(s: SignalView) -> bool | None:
    flags = [s.flag("log_no_cache_memory"), s.flag("log_max_model_len_exceeds_kv")]
    if any(f is True for f in flags):
        return True
    if all(f is False for f in flags):
        return False
    return None


# Plain-language names of the derived values the causes' conditions read (the catalog's
# LABELS and STATES for its own signals), for the "why not" lines.
DERIVED_LABELS: dict[str, str] = {
    "prefix_hits_stopped": "a prefix cache that stopped serving mid-window",
    "requests_never_reach_engine": "accepted requests that never reached the engine",
    "engine_died_in_kv_connector": "the engine's death in a KV connector's code",
    "capacity_tokens": "the KV pool",
    "max_model_len_held_tokens": "what the longest admitted request holds of the pool",
    "spec_verify_tokens_per_step": "tokens each decode step verifies",
    "decode_step_tokens_max": "tokens in the busiest decode step (sequences × drafts + 1)",
    "budget_step_uncaptured": "a step filled to the token budget has no captured CUDA graph",
    "connector_recomputes_prompts": "a decode instance prefilling prompts a KV connector brings",
    "consumer_prefill_is_transfer": "the decode instance's prefill time is the KV transfer",
    "kv_connector_nixl": "the KV connector is NIXL's",
    "consumer_waits_for_transfer": "slow first tokens spent waiting for the prefill instance's KV",
    "prefill_erratic": "prefills of similar prompts, each alone, taking very different times",
    "engine_stalled": "requests running while the engine computed nothing",
    "pool_held_idle": "KV blocks held with nothing running",
    "queue_stalled_with_room": "a queue that stalled with room in the pool",
    "stall_engine_alive": "the engine alive while its queue stalled",
    "queue_stalled_unheld": "a queue stalled with room and no block held",
    "queue_held_with_room": "requests held back for many steps with slots, blocks and budget free",
    "one_request_holds_pool": "one request holding the full pool with the engine stalled",
    "one_request_preempts_itself": "a lone request preempted in a full pool",
    "prompts_drift_in_part": "part of the prompt sample drifting",
    "prompts_within_compressed_unit": "prompts inside one unit of the compressed cache",
    "prompts_show_eviction_loss": "the prompt sample's loss in a pool that filled or turned over",
    "oom_torch_over_budget": "PyTorch's memory at the error over the utilization's budget",
    "routing_ignores_prefix": "a router that ignores which replica holds a prefix",
    "separate_caches": "separate prefix caches the traffic is spread over",
    "queue_never_moved": "a queue that never moved through the window",
    "prompt_tokens_recomputed_min": "prompt tokens computed again (at least)",
    "preempted_by_recompute": "sequences recomputed in a full pool",
    "connector_holds_idle_pool": "a KV connector holding blocks with nothing running",
    "other_process_over_weights": "other processes holding more than the server's weights",
    "weights_per_device_bytes": "the model's weights per device",
    "kv_free_queued_tokens": "free KV tokens while requests waited",
    "weights_devices_needed": "devices whose memory holds the weights with room to serve",
    "lmcache_never_serves_resent": "LMCache serving none of the prompts sent again",
    "offload_inferred": "weights larger than the device: some run from host memory",
    "hybrid_align_admits_one": "a hybrid model in align mode admitting one request at a time",
    "model_layers_unknown": "the model's layer kinds unknown (no model config)",
    "gpu_unknown": "the GPU not named by the capture",
    "queue_on_one_engine": "the waiting queue on one data-parallel engine whose pool filled",
    "consumer_ttft_over_transfer": "decode-side TTFT over the KV transfer and one step",
    "offloaded_weights_per_device": "weights each device keeps in host memory",
    "offload_step_floor": "the offloaded weights' crossing of the host link per step",
    "itl_offload_share": "the offloaded weights' crossing over ITL p50",
    "offload_fits_on_device": "the offloaded weights fit on the GPU beside the resident ones",
    "weights_floor": "one read of the weights",
    "weights_bound_floor": "one read of every weight on the device",
    "itl_over_weights_bound": "ITL p50 over one read of every weight on the device",
    "itl_crawl_stream_s": "the seconds a stream crawled below reading speed",
    "weights_read_per_device": "the weights one device reads per step",
    "kv_read_step_share": "the share of a decode step that reading the live KV takes",
    "itl_over_weights_floor": "ITL p50 over one read of the weights",
    "kv_read_over_weights": "the KV read per step over the weights",
    "engine_load_over_fair": "the busiest engine's load over an even share",
    "max_num_seqs_effective": "the slot limit (--max-num-seqs, or vLLM's default)",
    "max_num_seqs_floor": "the least the slot limit can be",
    "max_loras_effective": "adapters per batch (--max-loras, default 1)",
    "lora_budget_binds": "running held at the --max-loras adapter budget, slots far from full",
    "itl_spread": "ITL p99 over p50",
    "kv_read_gib_per_step": "KV read per decode step",
    "max_model_len_over_capacity": "the longest request against the KV pool",
    "preemptions_seen": "preemptions (window or log)",
    "prefix_hit_granularity_tokens": "the tokens at which prefix hits land",
    "prefix_hit_rate_effective": "the prefix hit rate without recomputed prompts",
    "prompt_len_p90_p10": "prompt length p90 over p10",
    "prompt_len_spread": "the longest prompt over the mean",
    "waiting_over_running": "the longest queue over the running batch",
    "kv_usage_queued": "peak KV cache usage while requests waited",
    "running_max_engine": "peak running requests of the busiest engine",
    "seqs_that_fit": "the sequences the KV pool holds",
    "ttft_median_over_compute": "median TTFT over the request's own prefill",
    "ttft_prefill_share": "share of TTFT spent in prefill",
    "ttft_queue_share": "share of TTFT spent queued",
    "ttft_short_over_compute": "the quickest requests' TTFT over their own prefill",
    "ttft_spread": "TTFT p99 over p50",
}
DERIVED_STATES: dict[str, tuple[str, str]] = {
    "kv_connector_nixl": ("the KV connector is NIXL's", "the KV connector is not NIXL's"),
    "consumer_waits_for_transfer": (
        "slow first tokens here are spent waiting for the prefill instance's KV",
        "the first tokens do not wait on the KV transfer",
    ),
    "consumer_prefill_is_transfer": (
        "this decode instance's prefill time is the wait for the prefill instance's KV",
        "this instance computes its own prompts",
    ),
    "lora_budget_binds": (
        "running is held at the --max-loras adapter budget with slots far from full",
        "the LoRA adapter budget does not hold requests back",
    ),
    "engine_died_in_kv_connector": (
        "the engine died in a KV connector's code",
        "the engine died outside any KV connector's code",
    ),
    "oom_phase_unknown": (
        "the log does not say where the out-of-memory error struck",
        "the log says where the out-of-memory error struck",
    ),
    "prefix_hits_stopped": (
        "the prefix cache stopped serving mid-window",
        "the prefix cache kept serving",
    ),
    "requests_never_reach_engine": (
        "accepted requests never reached the engine",
        "accepted requests reached the engine",
    ),
    "symptom_high_ttft": ("first tokens are slow", "first tokens are not slow"),
    "symptom_prefix_miss": ("prefix hits are missing", "prefix hits are not missing"),
    "symptom_preemption": ("sequences are preempted", "no sequence is preempted"),
    "symptom_slow_itl": ("tokens stream slowly", "tokens stream at the usual speed"),
    "pool_held_idle": (
        "KV blocks stayed held with nothing running",
        "no KV block was held with nothing running",
    ),
    "preempted_by_recompute": (
        "sequences were recomputed in a full pool",
        "no sequence was recomputed in a full pool",
    ),
    "queue_never_moved": (
        "requests waited through the whole window and none finished",
        "the queue moved or requests finished in the window",
    ),
    "queue_stalled_with_room": (
        "requests waited with room in the pool and none was admitted",
        "the queue did not stall with room in the pool",
    ),
    "one_request_holds_pool": (
        "one request holds the full pool while the engine computes nothing",
        "no single request holds the full pool of a stalled engine",
    ),
    "prompts_drift_in_part": (
        "part of the prompt sample drifts, a tenth of its tokens or more",
        "no part of the prompt sample drifts at a tenth of its tokens",
    ),
    "prompts_within_compressed_unit": (
        "nine prompts in ten fit inside one unit of the compressed cache",
        "the prompts reach past one unit of the compressed cache",
    ),
    "oom_torch_over_budget": (
        "PyTorch's own memory at the error exceeded the utilization's budget",
        "PyTorch's own memory at the error stayed within the utilization's budget",
    ),
    "prompts_show_eviction_loss": (
        "the sampled prompts share blocks the window lost in a pool that filled or turned over",
        "no loss the sample shows in a pool that filled or turned over",
    ),
    "routing_ignores_prefix": (
        "the router spreads requests over separate caches without regard to their prefixes",
        "one cache, or a router that routes by prefix or session",
    ),
    "one_request_preempts_itself": (
        "a request running alone filled the pool and was preempted",
        "no lone request was preempted in a full pool",
    ),
    "queue_held_with_room": (
        "requests waited ten steps or more with slots, blocks and the step budget free",
        "no wait of many steps with slots, blocks and the step budget all free",
    ),
    "queue_stalled_unheld": (
        "requests wait on an idle engine with every slot and block free",
        "no queue stalled on an idle engine with every block free",
    ),
    "stall_engine_alive": (
        "the engine was alive while its queue stalled (a V0 step loop, requests counted by reason)",
        "the log shows the engine dying",
    ),
    "connector_holds_idle_pool": (
        "the KV connector held blocks with nothing running while requests waited",
        "no KV connector held blocks idle while requests waited",
    ),
    "engine_stalled": (
        "requests stayed running while the engine computed nothing",
        "the engine computed tokens for its running requests",
    ),
    "other_process_over_weights": (
        "other processes held more than the server's weights",
        "other processes held less than the server's weights",
    ),
    "lmcache_never_serves_resent": (
        "LMCache served none of the prompts sent again",
        "LMCache's log shows no unserved resent prompts",
    ),
    "model_layers_unknown": (
        "no model config says which layer kinds the model has",
        "the model's layer kinds are known",
    ),
    "gpu_unknown": ("the capture names no GPU", "the GPU is named"),
    "queue_on_one_engine": (
        "the queue sat on one engine whose pool filled while the others had room",
        "the queue did not sit on one full engine beside engines with room",
    ),
    "hybrid_align_admits_one": (
        "the hybrid model in align mode admits one request at a time",
        "the hybrid model's alignment does not serialize admission",
    ),
    "offload_inferred": (
        "the weights are larger than the device: part of them runs from host memory",
        "the weights fit on the device",
    ),
    "offload_fits_on_device": (
        "the offloaded weights would fit on the GPU",
        "the offloaded weights would not fit on the GPU",
    ),
    "prompts_show_drift_harm": (
        "the prompt sample shows drift behind the missing hits",
        "the prompt sample shows no drift behind missing hits",
    ),
    "budget_step_uncaptured": (
        "a step filled to the token budget has no captured CUDA graph",
        "a step filled to the token budget replays a captured CUDA graph",
    ),
    "prefill_erratic": (
        "prefills of similar prompts, each run alone, take very different times",
        "prefill times follow the prompts' lengths",
    ),
    "connector_recomputes_prompts": (
        "this decode instance prefills whole prompts although a KV connector brings them",
        "this instance does not prefill prompts a KV connector should bring",
    ),
}
# What a predicate says in words when it does not hold (its doc says what it means).
PREDICATE_FALSE: dict[str, str] = {
    "fp8_kv_cache": "the KV cache is not quantized",
    "prompt_within_one_block": "the mean prompt is longer than one KV block",
    "gpu_has_headroom": "the card has no free memory to give",
    "kv_cache_too_small_at_start": "the start-up log shows no refusal to size the KV pool",
}
# A derived count that was zero, in words.
DERIVED_NONE: dict[str, str] = {"preemptions_seen": "no preemption in the window or the log"}
