"""The server's own baselines, measured in the same window, and the per-interval evidence that
tells look-alike causes apart.

Absolute latency bars mean nothing across models and hardware (an 8B model on an H100 decodes
in 10–20 ms per token, the lab's tiny model in ~3 ms). So a symptom is judged against this
server's quiet intervals in the same window, and causes are told apart by how latency moves
with load *between* scrape intervals:

* per interval (two consecutive good scrapes), the mean inter-token latency and TTFT come from
  histogram ``_sum``/``_count`` deltas; the resident KV tokens from the KV usage gauge × pool
  size; prompt tokens from the prompt-token counter delta;
* ``itl_baseline`` is the mean ITL of the least-loaded quarter of intervals (by context per
  running sequence, or by prompt tokens arriving, whichever explains more); ``itl_loaded`` is
  the mean ITL of the most-loaded quarter;
* ``itl_kv_fit_r2`` (ITL against resident KV tokens) and ``itl_prefill_r2`` (ITL against prompt
  tokens arriving in the interval) separate KV-read-bound decoding from prefill interference;
* ``prompt_turnover`` is the window's computed prompt tokens over the pool's capacity: a pool
  that turns over within the window cannot keep cached prefixes until their reuse.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import NamedTuple

from kvdoctor.observations import Observations, histogram_quantile, histogram_quantile_finite
from kvdoctor.signals.model import Scalar
from kvdoctor.vllm_metrics import (
    GENERATION_TOKENS,
    ITL,
    KV_USAGE,
    PREFILL_TIME,
    PREFIX_HITS,
    PROMPT_TOKENS,
    REQUEST_PROMPT_TOKENS,
    RUNNING,
    TTFT,
    WAITING,
)

# Fewer intervals than this and no within-window comparison is meaningful.
MIN_INTERVALS = 4
# An interval's mean ITL needs this many token gaps behind it to be a measurement, not noise.
MIN_ITL_OBS = 5


class Interval(NamedTuple):
    t: float  # end of the interval
    itl_mean: float | None
    itl_n: float
    ttft_mean: float | None
    ttft_n: float
    resident_tokens: float | None  # mean of the KV gauge at both ends × pool tokens
    running: float | None
    waiting_max: float | None
    prompt_tokens: float | None
    gen_tokens: float | None = None  # generation tokens produced in the interval
    seconds: float = 0.0


def _deltas(obs: Observations, name: str) -> dict[float, float]:
    """Per-interval increase of a counter, keyed by the interval's end time."""
    series = obs.counter_series(name)
    return {t1: v1 - v0 for (_, v0), (t1, v1) in itertools.pairwise(series)}


def _gauge_at(obs: Observations, name: str, agg: str) -> dict[float, float]:
    return dict(obs.gauge_series(name, agg))


def intervals(obs: Observations, capacity_tokens: int | None) -> list[Interval]:
    itl_s = _deltas(obs, f"{ITL}_sum")
    itl_c = _deltas(obs, f"{ITL}_count")
    ttft_s = _deltas(obs, f"{TTFT}_sum")
    ttft_c = _deltas(obs, f"{TTFT}_count")
    prompt = _deltas(obs, PROMPT_TOKENS)
    gen = _deltas(obs, GENERATION_TOKENS)
    kv = _gauge_at(obs, KV_USAGE, "max")
    running = _gauge_at(obs, RUNNING, "sum")
    waiting = _gauge_at(obs, WAITING, "sum")
    out: list[Interval] = []
    for t0, t1 in itertools.pairwise(obs.times):
        n_itl = itl_c.get(t1, 0.0)
        n_ttft = ttft_c.get(t1, 0.0)
        itl = itl_s[t1] / n_itl if n_itl > 0 and t1 in itl_s else None
        ttft = ttft_s[t1] / n_ttft if n_ttft > 0 and t1 in ttft_s else None
        resident = None
        if capacity_tokens and t0 in kv and t1 in kv:
            resident = (kv[t0] + kv[t1]) / 2 * capacity_tokens
        run = (running[t0] + running[t1]) / 2 if t0 in running and t1 in running else None
        wait = max(waiting[t0], waiting[t1]) if t0 in waiting and t1 in waiting else None
        out.append(
            Interval(
                t1,
                itl,
                n_itl,
                ttft,
                n_ttft,
                resident,
                run,
                wait,
                prompt.get(t1),
                gen.get(t1),
                t1 - t0,
            )
        )
    return out


def linear_fit(xs: list[float], ys: list[float]) -> tuple[float, float, float] | None:
    """Least squares y = a + b·x: (a, b, r²), or None when x does not vary."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx <= 0:
        return None
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    b = sxy / sxx
    a = my - b * mx
    r2 = 0.0 if syy <= 0 else (sxy * sxy) / (sxx * syy)
    return a, b, r2


def _weighted_mean(pairs: list[tuple[float, float]]) -> float | None:
    total = math.fsum(w for _, w in pairs)
    if total <= 0:
        return None
    return math.fsum(v * w for v, w in pairs) / total


Setter = Callable[[str, Scalar, str, str | None], None]


def compute(set_signal: Setter, obs: Observations, capacity_tokens: int | None) -> None:
    """Set the baseline and per-interval signals (see the catalog for their meaning)."""
    ivs = intervals(obs, capacity_tokens)
    _itl(set_signal, ivs)
    _decode_rate(set_signal, ivs)
    _ttft(set_signal, ivs)
    _prompt_compute(set_signal, obs)
    _turnover(set_signal, obs, capacity_tokens)


def _itl(set_signal: Setter, ivs: list[Interval]) -> None:
    usable = [iv for iv in ivs if iv.itl_mean is not None and iv.itl_n >= MIN_ITL_OBS]
    names = (
        "itl_baseline",
        "itl_loaded",
        "itl_regression",
        "itl_kv_fit_r2",
        "itl_kv_fit_slope",
        "itl_prefill_r2",
    )
    if len(usable) < MIN_INTERVALS:
        why = (
            f"only {len(usable)} scrape intervals with ≥ {MIN_ITL_OBS} token gaps "
            f"(need {MIN_INTERVALS})"
        )
        for name in names:
            set_signal(name, None, "", why)
        return
    # The server at its lightest and at its heaviest load in the same window: the quarter of
    # the intervals with the least work against the quarter with the most, where work is the
    # context each decode step reads per sequence (resident KV tokens / running requests) or
    # the prompt tokens prefilled beside the decodes. Ordering by load, never by ITL itself,
    # keeps a busy host's noise (uncorrelated with the server's load) from posing as a
    # regression. The batch size alone is not a load key on purpose: a step that serves more
    # sequences is throughput bought with latency by design (on compute-bound hardware the
    # step time grows with the batch), not harm; the larger regression of the two keys wins.
    best: tuple[float, float, float, int, str] | None = None  # ratio, quiet, busy, k, what
    for what, key in (
        ("context per running sequence", _context_per_sequence),
        ("prompt tokens arriving", lambda iv: iv.prompt_tokens),
    ):
        got = _by_load(usable, key)
        if got is None:
            continue
        quiet_v, busy_v, k = got
        if quiet_v > 0 and (best is None or busy_v / quiet_v > best[0]):
            best = (busy_v / quiet_v, quiet_v, busy_v, k, what)
    baseline: float | None = None
    busy: float | None = None
    how = ""
    if best is not None:
        _, baseline, busy, k, what = best
        how = f"mean ITL of the {k} of {len(usable)} scrape intervals with the least {what}"
        busy_how = f"mean ITL of the {k} of {len(usable)} scrape intervals with the most {what}"
    loaded = [iv for iv in usable if iv.resident_tokens is not None]

    fit = None
    if len(loaded) >= MIN_INTERVALS:
        xs = [float(iv.resident_tokens or 0.0) for iv in loaded]
        ys = [float(iv.itl_mean or 0.0) for iv in loaded]
        fit = linear_fit(xs, ys)
    if fit is not None:
        _, b, r2 = fit
        # Only a rising fit says KV reads cost time; a falling one explains nothing of a
        # slowdown, so it counts as no fit (r² 0), like the prompt-arrival fit below.
        set_signal(
            "itl_kv_fit_r2",
            round(r2, 6) if b > 0 else 0.0,
            f"ITL vs resident KV tokens over {len(loaded)} intervals (least squares)"
            + ("" if b > 0 else ": ITL does not rise with resident KV"),
            None,
        )
        set_signal(
            "itl_kv_fit_slope",
            b,
            "seconds of ITL per resident KV token (least-squares slope)",
            None,
        )
    else:
        why = "resident KV tokens unknown or constant over the window"
        set_signal("itl_kv_fit_r2", None, "", why)
        set_signal("itl_kv_fit_slope", None, "", why)

    pre = [iv for iv in usable if iv.prompt_tokens is not None]
    pfit = None
    if len(pre) >= MIN_INTERVALS:
        pfit = linear_fit(
            [float(iv.prompt_tokens or 0.0) for iv in pre],
            [float(iv.itl_mean or 0.0) for iv in pre],
        )
    if pfit is not None and pfit[1] > 0:
        set_signal(
            "itl_prefill_r2",
            round(pfit[2], 6),
            f"ITL vs prompt tokens arriving per interval over {len(pre)} intervals",
            None,
        )
    elif pfit is not None:
        set_signal(
            "itl_prefill_r2",
            0.0,
            f"ITL does not rise with prompt tokens arriving ({len(pre)} intervals)",
            None,
        )
    else:
        set_signal("itl_prefill_r2", None, "", "prompt-token counter absent or constant")

    no_load = "the window's load does not vary (or is unknown): nothing to compare against"
    set_signal("itl_baseline", baseline, how, None if baseline else no_load)
    if busy is not None and best is not None:
        set_signal("itl_loaded", busy, busy_how, None)
    else:
        set_signal("itl_loaded", None, "", no_load)
    if baseline and busy is not None and baseline > 0:
        set_signal("itl_regression", busy / baseline, "itl_loaded / itl_baseline", None)
    else:
        set_signal("itl_regression", None, "", "no ITL baseline")


# A heavier batch that yields this many times fewer tokens a second than a lighter batch of the
# same window is a throughput collapse: more sequences should never produce fewer tokens.
DECODE_RATE_DROP_MIN = 1.5


def _decode_rate(set_signal: Setter, ivs: list[Interval]) -> None:
    """Generation tokens per second at the window's heaviest batches against its lighter ones.

    Slower tokens under a larger batch are throughput bought with latency by design (see
    ``_itl``), but a larger batch that produces *fewer* tokens a second than a smaller one did
    in the same window has lost throughput as well: something changed how each step runs
    (a batch past the largest captured CUDA graph, recomputation, prefills in the steps).
    ``decode_rate_drop`` = median tokens/s of the intervals with fewer sequences running than
    any of the heaviest quarter, over the heaviest quarter's mean tokens/s.
    """
    names = ("decode_rate_drop", "decode_rate_light", "decode_rate_heavy", "running_light")
    usable = [
        iv
        for iv in ivs
        if iv.gen_tokens is not None
        and iv.running is not None
        and iv.seconds > 0
        and iv.running > 0
    ]
    if len(usable) < MIN_INTERVALS:
        for name in names:
            set_signal(name, None, "", "fewer than 4 intervals with a generation-token counter")
        return
    ranked = sorted(usable, key=lambda iv: (iv.running or 0.0, iv.t))
    k = max(1, len(ranked) // 4)
    heavy = ranked[-k:]
    floor = min(iv.running or 0.0 for iv in heavy)
    # Batches large enough that a rate is a property of the batch, not of one request's
    # prefill (a 168k-token prompt running alone produces no token for minutes): lighter
    # intervals at half the heavy batch or more, heavy batches of 4 or more.
    light = [iv for iv in ranked if floor / 2 <= (iv.running or 0.0) < floor]
    if floor < 4:
        light = []
    if not light:
        for name in names:
            set_signal(name, None, "", "the running batch did not vary over the window")
        return
    light_rates = sorted((iv.gen_tokens or 0.0) / iv.seconds for iv in light)
    light_rate = light_rates[len(light_rates) // 2]
    heavy_rate = math.fsum(iv.gen_tokens or 0.0 for iv in heavy) / math.fsum(
        iv.seconds for iv in heavy
    )
    light_run = sorted(iv.running or 0.0 for iv in light)[len(light) // 2]
    how = f"{len(light)} intervals with fewer than {floor:g} running against the {k} busiest"
    set_signal("decode_rate_light", light_rate, f"median tokens/s of {how}", None)
    set_signal("decode_rate_heavy", heavy_rate, f"tokens/s of the {k} busiest intervals", None)
    set_signal("running_light", light_run, f"median running of {how}", None)
    if heavy_rate > 0:
        set_signal("decode_rate_drop", light_rate / heavy_rate, "decode_rate_light / heavy", None)
    else:
        set_signal("decode_rate_drop", None, "", "no token produced in the busiest intervals")


def _context_per_sequence(iv: Interval) -> float | None:
    if iv.resident_tokens is None or iv.running is None or iv.running <= 0:
        return None
    return iv.resident_tokens / iv.running


def _by_load(
    usable: list[Interval], key: Callable[[Interval], float | None]
) -> tuple[float, float, int] | None:
    """(mean ITL of the least-loaded quarter, of the most-loaded quarter, quarter size)."""
    known = [(k, iv) for iv in usable if (k := key(iv)) is not None]
    if len(known) < MIN_INTERVALS or max(k for k, _ in known) <= min(k for k, _ in known):
        return None
    ranked = [iv for _, iv in sorted(known, key=lambda p: (p[0], p[1].t))]
    k = max(1, len(ranked) // 4)
    quiet = _weighted_mean([(iv.itl_mean or 0.0, iv.itl_n) for iv in ranked[:k]])
    busy = _weighted_mean([(iv.itl_mean or 0.0, iv.itl_n) for iv in ranked[-k:]])
    if quiet is None or busy is None:
        return None
    return quiet, busy, k


def _ttft(set_signal: Setter, ivs: list[Interval]) -> None:
    quiet = [
        (iv.ttft_mean or 0.0, iv.ttft_n)
        for iv in ivs
        if iv.ttft_mean is not None and iv.waiting_max is not None and iv.waiting_max <= 0
    ]
    if quiet:
        set_signal(
            "ttft_baseline",
            _weighted_mean(quiet),
            f"mean TTFT over the {len(quiet)} intervals in which nothing waited",
            None,
        )
    else:
        set_signal(
            "ttft_baseline", None, "", "no interval without waiting requests (or no TTFT histogram)"
        )


def _prompt_compute(set_signal: Setter, obs: Observations) -> None:
    """What a median prompt costs this server to prefill, from the window's own prefill rate.

    prefill seconds per prompt token = Σ request prefill time / Σ prompt tokens over the window;
    a median prompt's own compute = its length × that rate. A request that waits behind another
    request's long prefill (head-of-line blocking without chunked prefill) shows a TTFT far
    above this even when nothing is counted as waiting, because its step is someone else's.
    """
    names = (
        "prompt_len_p10",
        "prompt_len_p50",
        "prompt_len_p90",
        "prefill_s_per_token",
        "ttft_tail_unexplained",
    )
    ttft = obs.histogram_window(TTFT)
    if ttft is not None and ttft[2] > 0:
        set_signal(
            "ttft_p10",
            histogram_quantile(0.1, ttft[0]),
            "vllm:time_to_first_token_seconds bucket deltas over the window",
            "quantile outside the finite buckets",
        )
    else:
        set_signal("ttft_p10", None, "", "no first token in the window")
    hist = obs.histogram_window(REQUEST_PROMPT_TOKENS)
    if hist is None or hist[2] <= 0:
        for name in names:
            set_signal(
                name, None, "", "no request finished in the window (prompt-length histogram)"
            )
        return
    buckets = hist[0]
    for name, q in (("prompt_len_p10", 0.1), ("prompt_len_p50", 0.5), ("prompt_len_p90", 0.9)):
        set_signal(
            name,
            histogram_quantile_finite(q, buckets),
            "vllm:request_prompt_tokens bucket deltas over the window",
            "quantile outside the finite buckets",
        )
    rate = prefill_s_per_token(obs, hist)
    if rate is None:
        set_signal("prefill_s_per_token", None, "", "no prefill-time histogram in the window")
        set_signal("ttft_tail_unexplained", None, "", "no prefill-time histogram in the window")
        return
    set_signal(
        "prefill_s_per_token",
        rate,
        "Σ request prefill time / Σ prompt tokens of the requests finished in the window",
        None,
    )
    _ttft_tail_unexplained(set_signal, ttft, buckets, rate)


def prefill_s_per_token(
    obs: Observations,
    prompt_hist: tuple[list[tuple[float, float]], float, float] | None = None,
) -> float | None:
    """The window's own prefill rate: Σ request prefill time / Σ prompt tokens of the requests
    that finished in it (``prompt_hist``: the prompt-length histogram's window, when the caller
    has it). None without both histograms or without a prompt token."""
    hist = prompt_hist if prompt_hist is not None else obs.histogram_window(REQUEST_PROMPT_TOKENS)
    prefill = obs.counter_increase(f"{PREFILL_TIME}_sum")
    if hist is None or prefill is None or hist[1] <= 0:
        return None
    return prefill / hist[1]


# The tail of first-token times a long prompt's own prefill explains: TTFT p99 far above p50
# is head-of-line blocking only where some first token took longer than any prompt of the
# window costs on its own. A 65k-token prompt that takes 16 s to prefill at the server's own
# rate is slow by itself, not blocked (external case zyy-glm53: the two first tokens above
# 10 s were the two 65k-token prompts). Half again the longest prompt's own prefill leaves
# room for the rate's spread between requests.
OWN_PREFILL_MARGIN = 1.5


def _ttft_tail_unexplained(
    set_signal: Setter,
    ttft: tuple[list[tuple[float, float]], float, float] | None,
    prompt_buckets: list[tuple[float, float]],
    rate: float,
) -> None:
    """First tokens slower than the longest prompt's own prefill (its bucket's upper bound at
    the window's rate, times OWN_PREFILL_MARGIN) could make them: 0 when every slow first
    token can be a long prompt's own prefill; None where the longest prompt is above the
    last finite bucket or the bar above the last finite TTFT bound (not known)."""
    name = "ttft_tail_unexplained"
    if ttft is None or ttft[2] <= 0 or rate <= 0 or not prompt_buckets:
        set_signal(name, None, "", "no first token or prefill rate in the window")
        return
    total = prompt_buckets[-1][1]
    longest = next(le for le, c in prompt_buckets if c >= total)
    if not math.isfinite(longest):
        set_signal(name, None, "", "the longest prompt is above the last finite length bucket")
        return
    bar = OWN_PREFILL_MARGIN * longest * rate
    bound = next((le for le, _ in ttft[0] if math.isfinite(le) and le >= bar), None)
    if bound is None:
        set_signal(name, None, "", f"no TTFT bucket bound at or above {bar:.3g} s")
        return
    below = next(c for le, c in ttft[0] if le == bound)
    slow = max(0.0, ttft[0][-1][1] - below)
    set_signal(
        name,
        float(round(slow)),
        f"first tokens above {bound:g} s: {OWN_PREFILL_MARGIN:g}x what the longest prompt "
        f"(at most {longest:,.0f} tokens) costs to prefill alone at the window's "
        f"{rate * 1000:.3g} ms per 1,000 tokens",
        None,
    )


def _turnover(set_signal: Setter, obs: Observations, capacity_tokens: int | None) -> None:
    prompt = obs.counter_increase(PROMPT_TOKENS)
    hits = obs.counter_increase(PREFIX_HITS)
    if prompt is None or not capacity_tokens:
        set_signal("prompt_turnover", None, "", "prompt-token counter or pool size unknown")
        return
    computed = max(0.0, prompt - (hits or 0.0))
    set_signal(
        "prompt_turnover",
        computed / capacity_tokens,
        "(prompt tokens − prefix-cache hits) over the window / KV pool tokens",
        None,
    )
