"""Signals from the /metrics series: the window, KV usage and requests, the prefix cache, tokens,
latency histograms, and the per-engine values under data parallelism.

Windowed values come from counter and histogram-bucket *deltas* between the first and last good
scrape (reset-safe, see ``observations``); lifetime values come from the last scrape. Several
engines (data parallelism) and model names are aggregated: requests, tokens and counts are
summed; KV usage is the fullest engine's (that is the pool that preempts).
"""

from __future__ import annotations

import itertools
import math

from kvdoctor.bundle.model import Bundle
from kvdoctor.observations import (
    Group,
    Observations,
    group_label,
    histogram_quantile,
    histogram_quantile_finite,
)
from kvdoctor.signals.baselines import prefill_s_per_token
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.common import Out, absent, as_count, too_few
from kvdoctor.signals.model import Scalar
from kvdoctor.vllm_metrics import (
    DECODE_TIME,
    E2E_LATENCY,
    GENERATION_TOKENS,
    ITL,
    KV_USAGE,
    PREEMPTIONS,
    PREFILL_TIME,
    PREFIX_HITS,
    PREFIX_QUERIES,
    PROMPT_BY_SOURCE,
    PROMPT_TOKENS,
    QUEUE_TIME,
    REQUEST_GENERATION_TOKENS,
    REQUEST_PROMPT_TOKENS,
    REQUEST_SUCCESS,
    RUNNING,
    TTFT,
    V0_GENERATION_TPS,
    V0_PREFIX_HIT_RATE,
    WAITING,
)

LATENCY_HISTOGRAMS: dict[str, str] = {
    "ttft": TTFT,
    "itl": ITL,
    "queue_time": QUEUE_TIME,
    "prefill_time": PREFILL_TIME,
    "decode_time": DECODE_TIME,
    "e2e_latency": E2E_LATENCY,
}
QUANTILES = (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))


# ------------------------------------------------------------------------------------ window


def window(out: Out, obs: Observations, bundle: Bundle) -> None:
    n = len(obs.times)
    if obs.log_stats_lines:
        # No scrape held vLLM metrics; the engine's log stats lines stand in for them.
        out.set(
            "scrapes_ok",
            # The samples of a silent tail are the log's silence, not lines it holds.
            obs.log_stats_lines if obs.log_silent is not None else n,
            f"logs.txt: {obs.log_stats_lines} engine stats lines (about every "
            f"{obs.log_stats_interval_s:.0f} s), where no scrape of /metrics held vLLM metrics",
        )
    else:
        out.set("scrapes_ok", n, "metrics.jsonl: scrapes with a parsable vLLM payload")
    out.set(
        "series_from_log",
        obs.log_stats_lines > 0,
        "logs.txt engine stats lines" if obs.log_stats_lines else "metrics.jsonl scrapes",
    )
    silent = obs.log_silent
    if silent is not None:
        out.set(
            "log_requests_while_engine_silent",
            len(silent.arrivals),
            "logs.txt: 'Received request' lines after the engine's last stats line",
        )
        out.set(
            "log_engine_silent_s",
            round(silent.end_t - silent.arrivals[0], 1),
            f"logs.txt: from the first request after the last stats line to the log's end, "
            f"with no stats line (the engine logs one about every {silent.interval_s:.0f} s "
            "while it has work); the series read it as nothing running and every arrival "
            "waiting",
        )
    elif obs.log_stats_lines:
        out.set(
            "log_requests_while_engine_silent",
            0,
            "logs.txt: no request after the last stats line went unanswered by one",
        )
        out.set(
            "log_engine_silent_s", 0.0, "logs.txt: the engine's stats lines run to the log's end"
        )
    else:
        for name in ("log_requests_while_engine_silent", "log_engine_silent_s"):
            out.set(name, None, reason="no engine stats lines read in place of /metrics")
    failed_prov = "metrics.jsonl: failed scrapes"
    if obs.failed:
        failed_prov += f" (first: {obs.failed[0][1]})"
    out.set("scrapes_failed", len(obs.failed), failed_prov)
    # The server stopped answering: every scrape after the last good one failed (two or more),
    # to the capture's end. Its last good numbers say nothing of the time it was down
    # (external case zzg-engine-death: two minutes of normal scrapes, then eight minutes of
    # "connection refused" after the engine died; the window alone read healthy).
    after = [(t, why) for t, why in obs.failed if obs.times and t > obs.times[-1]]
    if n and len(after) >= 2:
        out.set(
            "down_tail_s",
            round(after[-1][0] - obs.times[-1], 3),
            f"metrics.jsonl: {len(after)} scrapes after the last good one failed, to the "
            f"capture's end (first: {after[0][1]})",
        )
    elif n:
        out.set("down_tail_s", 0.0, "metrics.jsonl: the capture ends with a good scrape")
    else:
        out.set("down_tail_s", None, reason="no good scrape to be down after")
    if n >= 2:
        out.set("window_s", round(obs.window_s, 6), f"first to last of {n} good scrapes")
    else:
        out.set("window_s", None, reason=too_few(n))
    if n >= 2:
        at = ", ".join(f"+{obs.times[i] - obs.times[0]:.0f}s" for i in obs.reset_indices)
        prov = "scrapes where a counter dropped (process restart)"
        out.set("counter_resets", len(obs.reset_indices), f"{prov} at {at}" if at else prov)
    else:
        out.set("counter_resets", None, reason=too_few(n))
    groups = obs.groups()
    if n:
        out.set("engines", max(1, len(groups)), "distinct (model_name, engine) label sets")
    else:
        out.set("engines", None, reason=too_few(n))


# ------------------------------------------------------------------- KV usage and requests


def _stats(
    out: Out,
    prefix: str,
    series: list[tuple[float, float]],
    wire: str,
    how: str,
    absent: str,
) -> None:
    if not series:
        for s in ("last", "max", "mean"):
            out.set(f"{prefix}_{s}", None, reason=absent)
        return
    vals = [v for _, v in series]
    n = len(vals)
    out.set(f"{prefix}_last", vals[-1], f"metrics: {wire} ({how}) at the last scrape")
    out.set(f"{prefix}_max", max(vals), f"metrics: {wire} ({how}), max over {n} scrapes")
    out.set(f"{prefix}_mean", math.fsum(vals) / n, f"metrics: {wire} ({how}), mean of {n} scrapes")


def _in_flight(
    out: Out, running: list[tuple[float, float]], waiting: list[tuple[float, float]]
) -> None:
    """The most requests in the engine at one scrape, running and waiting together.

    Whether requests ever shared the engine: a short request can only wait behind a long one
    that is in the engine with it. Requests sent one at a time never do, however their first
    tokens compare (external case zyx-qwen38next: a 62-token warm-up sent alone, then 15.6k-token
    prompts 20 s apart, read as head-of-line blocking). The peaks of the two series may fall on
    different scrapes, so their sum would overstate it."""
    queued = dict(waiting)
    both = [r + queued[t] for t, r in running if t in queued]
    if not both:
        out.set(
            "in_flight_max", None, reason="no scrape holds both the running and the waiting gauge"
        )
        return
    out.set(
        "in_flight_max",
        as_count(max(both)),
        f"metrics: running plus waiting requests at the same scrape, max over {len(both)} scrapes",
    )


def _stalled(out: Out, obs: Observations, waiting: list[tuple[float, float]]) -> None:
    """Share of scrape intervals that ended with requests waiting and no token processed.

    A stall is judged from progress, not from the running gauge: vLLM publishes the gauges of
    the last finished engine step, so "running" reads 0 all through a long prefill step that
    follows a step in which every running request finished (fresh draw 9200-12: running 0 in
    13 of 21 scrapes at --max-num-seqs 2, 14 requests waiting, tokens flowing throughout).
    """
    share = stalled_share(obs, waiting)
    if isinstance(share, str):
        out.set("stalled_share", None, reason=share)
        return
    out.set(
        "stalled_share",
        share,
        f"metrics: intervals with {obs.wire(WAITING)} >= 1 and no increase of "
        f"{obs.wire(PROMPT_TOKENS)} or {obs.wire(GENERATION_TOKENS)} "
        "(runs that end with a prefill counted are one long prefill step, not a stall)",
    )


def _stalled_tail(out: Out, obs: Observations, running: list[tuple[float, float]]) -> None:
    """Seconds at the window's end in which requests stayed running and nothing moved.

    An engine that wedges mid-window shows it only at the end: its earlier traffic fills the
    window's rates (external cases: a V0 scheduler with 9 requests running and 0 tokens a
    second for the last minutes while 800 wait; a last request that never finishes on a
    speculative MoE build). From the last scrape back, every scrape has a request running and
    no interval counts a prompt token, an output token or a finished request.
    """
    prompt = dict(obs.counter_series(PROMPT_TOKENS))
    gen = dict(obs.counter_series(GENERATION_TOKENS))
    done = dict(obs.counter_series(REQUEST_SUCCESS))
    if running and (not prompt or not gen) and _frozen_tail(out, obs, running):
        return
    if not running or not prompt or not gen:
        for name in ("stalled_tail_s", "stalled_span_s", "stalled_span_running"):
            out.set(name, None, reason="needs the running gauge and the token counters")
        return
    times = [t for t, _ in running if t in prompt and t in gen]
    runs = dict(running)
    if len(times) < 2:
        for name in ("stalled_tail_s", "stalled_span_s", "stalled_span_running"):
            out.set(name, None, reason="fewer than two scrapes with all three series")
        return
    start = times[-1]
    if runs[start] < 1:
        out.set("stalled_tail_s", 0.0, "metrics: nothing running at the last scrape")
        _stalled_span(out, obs, times, runs, prompt, gen, done)
        return
    for a, b in itertools.pairwise(reversed(times)):
        # a is the later scrape, b the earlier one.
        if _moved(b, a, prompt, gen, done) or runs[b] < 1:
            break
        start = b
    out.set(
        "stalled_tail_s",
        times[-1] - start,
        f"metrics: seconds before the last scrape with {obs.wire(RUNNING)} >= 1 and no increase "
        f"of {obs.wire(PROMPT_TOKENS)}, {obs.wire(GENERATION_TOKENS)} or "
        f"{obs.wire(REQUEST_SUCCESS)}",
    )
    _stalled_span(out, obs, times, runs, prompt, gen, done)


def _frozen_tail(out: Out, obs: Observations, running: list[tuple[float, float]]) -> bool:
    """A release without token counters (V0 before 0.4) whose gauges froze: from the last
    scrape back, requests running and the running, waiting, KV usage and averaged throughput
    gauges unchanged, while that throughput claims tokens flowing. V0 sets those gauges with
    each stats line, and an engine that generates changes its KV usage with every block it
    fills, so numbers identical across minutes mean the engine stopped stepping (external case
    zzg-v0-4090, vLLM 0.2.4: one request's two sequences filled the pool to 97.5 %, then
    every gauge stayed put for five minutes). False where the gauges cannot tell."""
    gen = dict(obs.gauge_series(V0_GENERATION_TPS))
    usage = dict(out.ss.series.get("kv_usage") or [])
    waiting = dict(out.ss.series.get("waiting") or [])
    runs = dict(running)
    times = [t for t, _ in running if t in gen and t in usage]
    if len(times) < 3:
        return False
    last = times[-1]

    def state(t: float) -> tuple[float, float, float, float]:
        return (runs[t], waiting.get(t, 0.0), usage[t], gen[t])

    if runs[last] < 1 or gen[last] <= 0:
        return False
    start = last
    for t in reversed(times[:-1]):
        if state(t) != state(last):
            break
        start = t
    if start == last:
        return False
    out.set(
        "stalled_tail_s",
        last - start,
        f"metrics: seconds before the last scrape with {obs.wire(RUNNING)} >= 1 and the "
        f"running, waiting, {obs.wire(KV_USAGE)} and {obs.wire(V0_GENERATION_TPS)} gauges "
        "unchanged (this release counts no tokens; its gauges move with every stats line)",
    )
    for name in ("stalled_span_s", "stalled_span_running"):
        out.set(name, None, reason="needs the token counters (this release exports none)")
    return True


def _moved(
    earlier: float,
    later: float,
    prompt: dict[float, float],
    gen: dict[float, float],
    done: dict[float, float],
) -> bool:
    """Whether the engine computed a prompt or output token, or finished a request, between two
    scrapes (the finished counter only where both scrapes carry it)."""
    if prompt[later] > prompt[earlier] or gen[later] > gen[earlier]:
        return True
    return earlier in done and later in done and done[later] > done[earlier]


def _stalled_span(
    out: Out,
    obs: Observations,
    times: list[float],
    runs: dict[float, float],
    prompt: dict[float, float],
    gen: dict[float, float],
    done: dict[float, float],
) -> None:
    """The longest stretch anywhere in the window with requests running and nothing computed,
    and the fewest requests running through it.

    A stall the client ends by aborting its requests shows mid-window, not at its end
    (external case zq-axk2: 51 requests running at 100 % KV, no token for 7.5 minutes, then
    64 aborts). A stretch the next interval ends with prompt tokens counted may have been one
    long prefill step, not a stall: not counted, unless those tokens are too few for a prefill
    that long at the window's own prefill rate.
    """
    best, best_running = 0.0, 0.0
    # The window's own prefill rate: a stretch ended by fewer prompt tokens than a tenth of
    # its length at that rate (a margin for rates that vary from prompt to prompt) was no
    # prefill step (external case zyy-mi300x: 70 s with nothing computed, ended by one
    # 1,024-token prompt). Interval deltas cannot give the rate: a long prefill's tokens are
    # all counted in the one interval where it completes (e-openclaw: 178k tokens counted in
    # 15 s after 240 s of prefill). Without the prefill histogram, as before.
    s_per_token = prefill_s_per_token(obs)
    prefill_rate = 1 / s_per_token if s_per_token else 0.0
    i = 0
    while i < len(times) - 1:
        if runs[times[i]] < 1:
            i += 1
            continue
        j = i
        while j + 1 < len(times):
            a, b = times[j], times[j + 1]
            if _moved(a, b, prompt, gen, done) or runs[b] < 1:
                break
            j += 1
        # Prompt tokens are counted when a prefill completes, and its first tokens follow in
        # the same interval: a stretch ended that way may have been one long prefill step
        # (external case e-openclaw: a 178k-token prompt prefilled for 240 s).
        span = times[j] - times[i]
        ended_by_prefill = j + 1 < len(times) and prompt[times[j + 1]] > prompt[times[j]]
        if ended_by_prefill and prefill_rate > 0:
            counted = prompt[times[j + 1]] - prompt[times[j]]
            ended_by_prefill = counted >= 0.1 * prefill_rate * span
        if span > best and not ended_by_prefill:
            best = span
            best_running = min(runs[t] for t in times[i : j + 1])
        i = j + 1
    out.set(
        "stalled_span_s",
        best,
        f"metrics: the longest stretch with {obs.wire(RUNNING)} >= 1 and no increase of "
        f"{obs.wire(PROMPT_TOKENS)}, {obs.wire(GENERATION_TOKENS)} or {obs.wire(REQUEST_SUCCESS)}",
    )
    out.set(
        "stalled_span_running",
        best_running if best > 0 else None,
        "metrics: the fewest requests running through that stretch",
        reason="no stretch with requests running and nothing computed",
    )


def stalled_share(
    obs: Observations, waiting: list[tuple[float, float]], group: Group | None = None
) -> float | str:
    """The stalled share of the window's intervals (see :func:`_stalled`), for the endpoint
    or one engine; a string says why it cannot be judged."""
    prompt = obs.counter_series(PROMPT_TOKENS, group)
    gen = obs.counter_series(GENERATION_TOKENS, group)
    if len(prompt) < 2 or len(gen) < 2 or not waiting:
        return "needs the token counters and the waiting gauge"
    waits, prompts, gens = dict(waiting), dict(prompt), dict(gen)
    times = [t for t, _ in prompt if t in gens and t in waits]
    intervals = list(itertools.pairwise(times))
    if not intervals:
        return "no scrape interval with all three series"
    flags = [
        waits[b] >= 1 and prompts[b] <= prompts[a] and gens[b] <= gens[a] for a, b in intervals
    ]
    # A run of still intervals that ends with prompt tokens counted is one long prefill step
    # (vLLM counts a prompt's tokens when its prefill step ends): head-of-line blocking, not a
    # stalled engine (a 20,000-token prompt among short ones read as a critical preemption
    # finding). Only runs that end with no prompt progress, or never end, are stalls.
    stalled = 0
    i = 0
    while i < len(flags):
        if not flags[i]:
            i += 1
            continue
        j = i
        while j < len(flags) and flags[j]:
            j += 1
        after = intervals[j] if j < len(intervals) else None
        prefill_ended = after is not None and prompts[after[1]] > prompts[after[0]]
        if not prefill_ended:
            stalled += j - i
        i = j
    return stalled / len(intervals)


def kv_and_requests(out: Out, obs: Observations) -> None:
    kv = obs.gauge_series(KV_USAGE, "max")
    _stats(out, "kv_usage", kv, obs.wire(KV_USAGE), "fullest engine", absent(obs, KV_USAGE))
    if obs.log_silent is not None:
        # The last line's usage is not the usage at the log's end: blocks may have been freed
        # (a preempted sequence) or held since, and no line says which.
        out.set(
            "kv_usage_last",
            None,
            reason="the engine logged no stats line over the log's last "
            f"{obs.log_silent.end_t - obs.log_silent.arrivals[0]:.0f} s",
        )
    out.ss.series["kv_usage"] = kv
    for prefix, name in (("running", RUNNING), ("waiting", WAITING)):
        series = obs.gauge_series(name, "sum")
        _stats(out, prefix, series, obs.wire(name), "summed over engines", absent(obs, name))
        out.ss.series[prefix] = series
    _in_flight(out, out.ss.series.get("running") or [], out.ss.series.get("waiting") or [])
    _stalled(out, obs, out.ss.series.get("waiting") or [])
    _stalled_tail(out, obs, out.ss.series.get("running") or [])
    _kv_while_waiting(out, kv, out.ss.series.get("waiting") or [], obs.wire(KV_USAGE))

    pre = obs.counter_increase(PREEMPTIONS)
    if pre is None:
        out.set("preemptions_window", None, reason=absent(obs, PREEMPTIONS, window=True))
        out.set("preemptions_per_s", None, reason=absent(obs, PREEMPTIONS, window=True))
    else:
        prov = f"metrics: {obs.wire(PREEMPTIONS)} increase over the window"
        out.set("preemptions_window", as_count(pre), prov)
        out.set(
            "preemptions_per_s",
            pre / obs.window_s if obs.window_s > 0 else None,
            prov,
            reason="window has zero length",
        )
    last = obs.counter_last(PREEMPTIONS)
    out.set(
        "preemptions_lifetime",
        as_count(last),
        f"metrics: {obs.wire(PREEMPTIONS)} last value",
        reason=absent(obs, PREEMPTIONS),
    )
    out.ss.series["preemptions"] = obs.counter_series(PREEMPTIONS)

    done = obs.counter_increase(REQUEST_SUCCESS)
    finished_prov = f"metrics: {obs.wire(REQUEST_SUCCESS)} increase (all finish reasons)"
    if done is None:
        # Releases before the success counter (vLLM 0.3) observe one end-to-end latency per
        # finished request: its count is the same number (external case zyk-rayserve: 0.3.2,
        # three requests running, none waiting, read as "unknown" for want of a count).
        e2e = obs.histogram_window(E2E_LATENCY)
        if e2e is not None:
            done = e2e[2]
            finished_prov = (
                f"metrics: {obs.wire(E2E_LATENCY)}_count increase (one per finished request; "
                f"no {REQUEST_SUCCESS} in this release)"
            )
    out.set(
        "requests_finished_window",
        as_count(done),
        finished_prov,
        reason=absent(obs, REQUEST_SUCCESS, window=True),
    )
    # Requests that ran to their max_tokens: outputs that never end are what a broken quantized
    # cache produces (garbage until the limit); benchmarks with ignore_eos look the same.
    length = obs.counter_increase(
        REQUEST_SUCCESS, where=lambda labels: dict(labels).get("finished_reason") == "length"
    )
    share = length / done if done and length is not None else None
    out.set(
        "finished_length_share_window",
        share,
        f'metrics: {obs.wire(REQUEST_SUCCESS)}{{finished_reason="length"}} over all finished',
        reason="no request finished in the window, or no finished_reason label",
    )
    _length_shift(out, obs)
    _runaway_answers(out, obs)


def _kv_while_waiting(
    out: Out, kv: list[tuple[float, float]], waiting: list[tuple[float, float]], wire: str
) -> None:
    """The pool's peak usage at the scrapes with requests waiting, and the scrapes either side.

    A pool that filled after the queue had drained did not hold that queue back (external case
    zy-h20, dev-12: 81 requests waited at the start of a burst with the pool under a third
    full; the pool reached 91 % a minute later with nothing waiting). The neighbouring scrapes
    count too: the gauges are sampled between scheduler steps, not at the admission refused.
    """
    if not kv or not waiting:
        out.set("kv_usage_max_waiting", None, reason="KV usage or waiting requests unknown")
        return
    usage = dict(kv)
    times = [t for t, _ in waiting]
    near: set[float] = set()
    for i, (_, w) in enumerate(waiting):
        if w >= 1:
            near.update(times[max(0, i - 1) : i + 2])
    values = [usage[t] for t in sorted(near) if t in usage]
    if not near:
        out.set("kv_usage_max_waiting", None, reason="no request waited in the window")
    elif not values:
        out.set("kv_usage_max_waiting", None, reason="no KV usage at the scrapes with a queue")
    else:
        out.set(
            "kv_usage_max_waiting",
            max(values),
            f"metrics: {wire} (fullest engine), max over the scrapes with requests waiting and "
            "the scrapes either side",
        )


def _runaway_answers(out: Out, obs: Observations) -> None:
    """The share of finished answers eight times the median answer's length or longer.

    Answers that never end (a repetition loop, garbage until the limit) pile up at the client's
    max_tokens far beyond what the others need (external case zr-gptoss: a sixth of answers
    at the 8,192-token cap, the rest a few hundred tokens). A benchmark that ignores EOS runs
    every answer to the same limit: its median is the limit, and nothing lies beyond it.
    """
    hist = obs.histogram_window(REQUEST_GENERATION_TOKENS)
    if hist is None or hist[2] <= 0:
        out.set("runaway_answer_share", None, reason="no request finished in the window")
        return
    buckets = sorted(hist[0])
    total = hist[2]
    # Finite only: a median beyond the last bound (every answer at a long limit, as a benchmark
    # or a reasoning model's cap) is no typical length to measure runaways from.
    median = histogram_quantile_finite(0.5, buckets)
    if median is None or median <= 0:
        out.set("runaway_answer_share", None, reason="median answer length beyond the buckets")
        return
    # The count at the first bound of 8x the median or more: everything above it is at least
    # that long (a lower bound on the share; bucket layouts are coarse).
    edge = next(((le, c) for le, c in buckets if le >= 8 * median and not math.isinf(le)), None)
    if edge is not None:
        out.set(
            "runaway_answer_share",
            round(max(0.0, total - edge[1]) / total, 4),
            f"metrics: {REQUEST_GENERATION_TOKENS} over the window, answers above "
            f"{edge[0]:,.0f} tokens (8x the median {median:,.0f})",
        )
        return
    # The layout stops below 8x the median (vLLM sizes it from max_model_len): the answers
    # beyond the last finite bound are runaways when their mean, the window's token sum less
    # the finite buckets' (each at its midpoint), is 8x the median or more.
    finite = [(le, c) for le, c in buckets if not math.isinf(le)]
    if not finite:
        out.set("runaway_answer_share", None, reason="no finite bucket in the answer lengths")
        return
    tail = total - finite[-1][1]
    below, lower, prev = 0.0, 0.0, 0.0
    for le, c in finite:
        below += (c - prev) * (lower + le) / 2
        lower, prev = le, c
    tail_mean = (hist[1] - below) / tail if tail > 0 else 0.0
    share = round(tail / total, 4) if tail > 0 and tail_mean >= 8 * median else 0.0
    out.set(
        "runaway_answer_share",
        share,
        f"metrics: {REQUEST_GENERATION_TOKENS} over the window, answers above the last bound "
        f"{finite[-1][0]:,.0f} (mean about {tail_mean:,.0f} tokens; 8x the median "
        f"{median:,.0f} counts)",
    )


def _late_hit_rate(out: Out, obs: Observations) -> None:
    """The prefix-cache hit rate over the window's last third.

    A cache that stops serving mid-window keeps a good rate over the whole window from its
    earlier hits (external case zg-glm53: the hits counter frozen after an hour of agent
    traffic while queries kept rising, the pool under half full).
    """
    times = obs.times
    if len(times) < 7:
        out.set("prefix_hit_rate_late", None, reason="fewer than 7 scrapes in the window")
        return
    late = (times[-1] - (times[-1] - times[0]) / 3, times[-1])
    q = obs.counter_increase(PREFIX_QUERIES, between=late)
    h = obs.counter_increase(PREFIX_HITS, between=late)
    if q is None or h is None or q <= 0:
        out.set(
            "prefix_hit_rate_late",
            None,
            reason="no prefix-cache queries in the window's last third",
        )
        return
    out.set(
        "prefix_hit_rate_late",
        min(1.0, h / q),
        f"metrics: {obs.wire(PREFIX_HITS)} / {obs.wire(PREFIX_QUERIES)}, increases over the "
        "window's last third",
    )


def _length_shift(out: Out, obs: Observations) -> None:
    """How much more of the window's last third than of its first third ran to max_tokens.

    Answers that ended at a stop token early in the window and run to the limit late in it
    changed while the server ran: outputs that stopped ending, as a cache that corrupts its
    keys and values over time produces (external case zj-arc: an fp8 cache on two Arc cards,
    every answer "!!!!" to max_tokens after a while). A benchmark that ignores EOS runs every
    request to the limit from the first one: no shift.
    """
    times = obs.times
    if len(times) < 7:
        out.set("finished_length_shift", None, reason="fewer than 7 scrapes in the window")
        return
    third = (times[-1] - times[0]) / 3

    def length_share(start: float, end: float) -> float | None:
        done = obs.counter_increase(REQUEST_SUCCESS, between=(start, end))
        length = obs.counter_increase(
            REQUEST_SUCCESS,
            where=lambda labels: dict(labels).get("finished_reason") == "length",
            between=(start, end),
        )
        if not done or length is None or done < 3:
            return None
        return length / done

    early = length_share(times[0], times[0] + third)
    late = length_share(times[-1] - third, times[-1])
    out.set(
        "finished_length_shift",
        None if early is None or late is None else round(late - early, 4),
        f'metrics: {obs.wire(REQUEST_SUCCESS)}{{finished_reason="length"}} share over the '
        "window's last third less its first third (each third at least 3 finished)",
        reason="fewer than 3 requests finished in the window's first or last third, or no "
        "finished_reason label",
    )


# ---------------------------------------------------------------------------- prefix cache


# The hits counter reads nothing while the engine's own count of prompt tokens served from its
# cache (prompt_tokens_by_source{source="local_cache_hit"}) holds at least this share of the
# queried tokens: the counter is not wired on this path, and the served tokens are the hits.
_SILENT_HITS_SHARE = 0.05


def _local_cache_hits(obs: Observations) -> float | None:
    """Prompt tokens the engine served from its own prefix cache in the window (vLLM 0.18+)."""
    if not obs.has(PROMPT_BY_SOURCE):
        return None
    return obs.counter_increase(
        PROMPT_BY_SOURCE, where=lambda labels: dict(labels).get("source") == "local_cache_hit"
    )


def prefix_cache(out: Out, obs: Observations) -> None:
    q = obs.counter_increase(PREFIX_QUERIES)
    h = obs.counter_increase(PREFIX_HITS)
    wq, wh = obs.wire(PREFIX_QUERIES), obs.wire(PREFIX_HITS)
    out.set(
        "prefix_queries_window",
        as_count(q),
        f"metrics: {wq} increase",
        reason=absent(obs, PREFIX_QUERIES, window=True),
    )
    served = _local_cache_hits(obs) if q is not None and q > 0 and h == 0 else None
    silent = served is not None and q is not None and served >= _SILENT_HITS_SHARE * q
    out.set(
        "prefix_hits_counter_silent",
        silent if q is not None and h is not None else None,
        f"metrics: {wh} increase against {PROMPT_BY_SOURCE}{{source=local_cache_hit}}",
        reason=absent(obs, PREFIX_HITS, window=True),
    )
    if silent:
        # External case zt-ascend (round 11): the hits counter at 0 on a hybrid model's path
        # while the engine served 47 % of the prompt tokens from its cache and repeats took
        # 0.8 s against 5.5 s cold. What the engine served is the hit rate.
        assert served is not None and q is not None
        h = min(served, q)
        wh = f"{PROMPT_BY_SOURCE}{{source=local_cache_hit}} (the hits counter stayed at 0)"
        out.set("prefix_hits_window", as_count(h), f"metrics: {wh} increase")
    else:
        out.set(
            "prefix_hits_window",
            as_count(h),
            f"metrics: {wh} increase",
            reason=absent(obs, PREFIX_HITS, window=True),
        )
    if q is None or h is None:
        out.set(
            "prefix_hit_rate_window",
            None,
            reason=absent(obs, PREFIX_QUERIES if q is None else PREFIX_HITS, window=True),
        )
    elif q <= 0:
        out.set("prefix_hit_rate_window", None, reason="no prefix-cache queries in the window")
    else:
        out.set(
            "prefix_hit_rate_window",
            min(1.0, h / q),
            f"metrics: {wh} / {wq}, increases over the window only",
        )
    if silent:
        # The counters' rates before the window and over its last third are the same silence.
        why = "the hits counter does not count on this server (it stayed at 0 while the engine "
        why += "served prompt tokens from its cache)"
        for name in ("prefix_hit_rate_late", "prefix_hit_rate_before", "prefix_hit_rate_lifetime"):
            out.set(name, None, reason=why)
        return
    _late_hit_rate(out, obs)
    # The server's own rate before the window: the counters at the first scrape. A baseline
    # that excludes the window itself, so a heavy window of new traffic cannot dilute it (the
    # lifetime rate at the last scrape includes the window). Unknown across a restart.
    fq, fh = obs.counter_first(PREFIX_QUERIES), obs.counter_first(PREFIX_HITS)
    if obs.reset_indices:
        out.set("prefix_hit_rate_before", None, reason="the server restarted within the window")
    elif fq is not None and fh is not None and fq > 0:
        out.set(
            "prefix_hit_rate_before",
            min(1.0, fh / fq),
            f"metrics: {wh} / {wq}, first values (since server start, before the window)",
        )
    elif fq is not None and fq <= 0:
        out.set("prefix_hit_rate_before", None, reason="no prefix-cache queries before the window")
    else:
        out.set("prefix_hit_rate_before", None, reason=absent(obs, PREFIX_QUERIES))
    lq, lh = obs.counter_last(PREFIX_QUERIES), obs.counter_last(PREFIX_HITS)
    if lq is not None and lh is not None and lq > 0:
        since = " since the last restart" if obs.reset_indices else " since server start"
        out.set(
            "prefix_hit_rate_lifetime",
            min(1.0, lh / lq),
            f"metrics: {wh} / {wq}, last values ({since.strip()})",
        )
    else:
        v0 = obs.gauge_series(V0_PREFIX_HIT_RATE, "mean")
        if v0:
            out.set(
                "prefix_hit_rate_lifetime",
                v0[-1][1],
                "metrics: vllm:gpu_prefix_cache_hit_rate (V0 gauge) at the last scrape",
            )
        elif lq is not None and lq <= 0:
            out.set("prefix_hit_rate_lifetime", None, reason="no prefix-cache queries since start")
        else:
            out.set("prefix_hit_rate_lifetime", None, reason=absent(obs, PREFIX_QUERIES))


# ---------------------------------------------------------------------------------- tokens


def tokens(out: Out, obs: Observations) -> None:
    gauge_only = bool(obs.gauge_series(V0_GENERATION_TPS)) and not obs.counter_series(
        GENERATION_TOKENS
    )
    out.set(
        "release_counts_no_tokens",
        gauge_only,
        f"metrics: {obs.wire(V0_GENERATION_TPS)} present, {obs.wire(GENERATION_TOKENS)} absent "
        "from every scrape",
    )
    for sig, name in (
        ("prompt_tokens_per_s", PROMPT_TOKENS),
        ("generation_tokens_per_s", GENERATION_TOKENS),
    ):
        inc = obs.counter_increase(name)
        if inc is None:
            out.set(sig, None, reason=absent(obs, name, window=True))
        elif obs.window_s <= 0:
            out.set(sig, None, reason="window has zero length")
        else:
            out.set(sig, inc / obs.window_s, f"metrics: {obs.wire(name)} increase / window_s")
    for sig, base in (
        ("mean_prompt_len", REQUEST_PROMPT_TOKENS),
        ("mean_generation_len", REQUEST_GENERATION_TOKENS),
    ):
        hist = obs.histogram_window(base)
        if hist is None:
            out.set(sig, None, reason=absent(obs, base + "_bucket", window=True))
            continue
        _, total, count = hist
        if count <= 0:
            out.set(sig, None, reason="no request finished in the window")
        else:
            out.set(sig, total / count, f"metrics: {base} _sum/_count deltas over the window")
    hist = obs.histogram_window(REQUEST_PROMPT_TOKENS)
    if hist is None:
        out.set(
            "max_prompt_len_seen",
            None,
            reason=absent(obs, f"{REQUEST_PROMPT_TOKENS}_bucket", window=True),
        )
    else:
        buckets, _, _ = hist
        total = buckets[-1][1] if buckets else 0.0
        if total <= 0:
            out.set("max_prompt_len_seen", None, reason="no request finished in the window")
        else:
            top = next(le for le, c in buckets if c >= total)
            finite = [le for le, _ in buckets if math.isfinite(le)]
            if math.isfinite(top):
                out.set(
                    "max_prompt_len_seen",
                    as_count(top),
                    "metrics: vllm:request_prompt_tokens, bound of the highest non-empty bucket",
                )
            elif finite:
                # Above the largest finite bound: the longest prompt is at least that bound and
                # at least the window's exact mean.
                mean = out.ss.get("mean_prompt_len")
                floor = max(finite[-1], mean if isinstance(mean, float) else 0.0)
                out.set(
                    "max_prompt_len_seen",
                    as_count(float(math.ceil(floor))),
                    "metrics: vllm:request_prompt_tokens, longest prompt above the largest"
                    " finite bucket bound (a lower bound: that bound or the mean, the larger)",
                )
            else:
                out.set("max_prompt_len_seen", None, reason="histogram has no finite bucket")
    out.set(
        "prompt_tokens_recomputed_window",
        None,
        reason="vLLM exposes no counter of prompt tokens recomputed after preemption",
    )


# --------------------------------------------------------------------------------- latency


def latency(out: Out, obs: Observations) -> None:
    for short, base in LATENCY_HISTOGRAMS.items():
        hist = obs.histogram_window(base)
        mean_name = f"{short}_mean"
        has_mean = mean_name in SIGNALS
        if hist is None:
            reason = absent(obs, base + "_bucket", window=True)
            for q, _ in QUANTILES:
                out.set(f"{short}_{q}", None, reason=reason)
            if has_mean:
                out.set(mean_name, None, reason=reason)
            continue
        buckets, total, count = hist
        wire = obs.wire(base + "_bucket").removesuffix("_bucket")
        if count <= 0 or not buckets or buckets[-1][1] <= 0:
            for q, _ in QUANTILES:
                out.set(f"{short}_{q}", None, reason="no observation in the window")
            if has_mean:
                out.set(mean_name, None, reason="no observation in the window")
            continue
        n = as_count(buckets[-1][1])
        for q, qv in QUANTILES:
            out.set(
                f"{short}_{q}",
                histogram_quantile(qv, buckets),
                f"metrics: {wire} bucket deltas over the window ({n} observations)",
                reason="quantile falls outside finite buckets",
            )
        if has_mean:
            out.set(mean_name, total / count, f"metrics: {wire} _sum/_count deltas")
    _itl_stalls(out, obs)


# A gap of a second between two tokens of a stream is a freeze the reader sees, whatever the
# percentiles say: a few multi-second stalls among tens of thousands of tokens sit above p99.
STALL_S = 1.0
# A stream crawls when its tokens come slower than a reader reads (5 a second) and ten times
# slower than this server's median step: a long prefill sharing every step with the running
# decodes for seconds (external case zyy-glm53: 136 tokens at 0.2-0.3 s among 70,416 at
# under 10 ms, two 16-second crawls that no percentile reaches). Ten times the median keeps
# a slow server's ordinary stutter out (ze-thor: p50 72 ms, p99 390 ms).
CRAWL_S = 0.2
CRAWL_OVER_MEDIAN = 10.0


def _itl_stalls(out: Out, obs: Observations) -> None:
    base = LATENCY_HISTOGRAMS.get("itl")
    hist = obs.histogram_window(base) if base else None
    if hist is None or hist[2] <= 0:
        why = "no inter-token latency histogram in the window"
        out.set("itl_p10", None, reason=why)
        out.set("itl_stalls_window", None, reason=why)
        out.set("itl_stall_min_s", None, reason=why)
        for name in ("itl_crawl_tokens_window", "itl_crawl_seconds_window", "itl_crawl_min_s"):
            out.set(name, None, reason=why)
        return
    buckets = hist[0]
    _itl_crawl(out, obs, hist)
    # The fastest tenth of tokens: the decode floor when most steps carry something else (a
    # prefill chunk). Only above the first bucket: inside it the position is a guess.
    p10 = histogram_quantile(0.1, buckets)
    first = next((le for le, _ in buckets if math.isfinite(le)), None)
    if p10 is not None and first is not None and p10 > first:
        out.set("itl_p10", p10, "metrics: ITL histogram p10 of bucket deltas over the window")
    else:
        out.set("itl_p10", None, reason="the fastest tenth of tokens falls in the first bucket")
    # The largest finite bound at or below STALL_S: samples above it waited at least that long.
    bounds = [(le, c) for le, c in buckets if math.isfinite(le) and le >= STALL_S]
    if not bounds:
        out.set("itl_stalls_window", None, reason=f"no ITL bucket bound at or above {STALL_S} s")
        out.set("itl_stall_min_s", None, reason=f"no ITL bucket bound at or above {STALL_S} s")
        return
    le, below = bounds[0]
    total = buckets[-1][1]
    wire = obs.wire(base + "_bucket").removesuffix("_bucket") if base else "ITL"
    prov = f"metrics: {wire} observations above the {le:g} s bucket over the window"
    out.set("itl_stalls_window", as_count(max(0.0, total - below)), prov)
    out.set("itl_stall_min_s", float(le), prov)


def _itl_crawl(
    out: Out, obs: Observations, hist: tuple[list[tuple[float, float]], float, float]
) -> None:
    """Tokens that came at least CRAWL_S and CRAWL_OVER_MEDIAN × the median apart, and the
    seconds they took at least (each counted at its bucket's lower bound)."""
    buckets, total_s, _ = hist
    names = ("itl_crawl_tokens_window", "itl_crawl_seconds_window", "itl_crawl_min_s")
    median = histogram_quantile(0.5, buckets)
    if median is None:
        for name in names:
            out.set(name, None, reason="the median inter-token latency is outside the buckets")
        return
    bar = max(CRAWL_S, CRAWL_OVER_MEDIAN * median)
    # Lower bounds: a bucket counts when its lower bound (the bound below it) reaches the bar.
    finite = [(le, c) for le, c in buckets if math.isfinite(le)]
    start = next((i for i, (le, _) in enumerate(finite) if le >= bar), None)
    if start is None:
        for name in names:
            out.set(name, None, reason=f"no ITL bucket bound at or above {bar:g} s")
        return
    floor_le = finite[start][0]
    tokens, seconds = 0.0, 0.0
    edges = [*finite[start:], (math.inf, buckets[-1][1])]
    for (lower, below), (_, upto) in itertools.pairwise(edges):
        n = max(0.0, upto - below)
        tokens += n
        seconds += n * lower
    base = LATENCY_HISTOGRAMS.get("itl")
    wire = obs.wire(base + "_bucket").removesuffix("_bucket") if base else "ITL"
    prov = (
        f"metrics: {wire} observations above the {floor_le:g} s bucket over the window "
        f"(at least {CRAWL_S:g} s and {CRAWL_OVER_MEDIAN:g}x the median step), each counted "
        "at its bucket's lower bound"
    )
    out.set("itl_crawl_tokens_window", as_count(tokens), prov)
    out.set("itl_crawl_seconds_window", round(min(seconds, total_s), 6), prov)
    out.set("itl_crawl_min_s", float(floor_le), prov)


# ------------------------------------------------------------------------------ per engine


def per_engine(out: Out, obs: Observations) -> None:
    groups = obs.groups()
    if len(groups) < 2:
        return
    for g in groups:
        out.ss.per_engine[group_label(g)] = _engine_values(obs, g)


def _engine_values(obs: Observations, g: Group) -> dict[str, Scalar]:
    vals: dict[str, Scalar] = {}
    kv = [v for _, v in obs.gauge_series(KV_USAGE, "max", g)]
    vals["kv_usage_max"] = max(kv) if kv else None
    vals["kv_usage_mean"] = math.fsum(kv) / len(kv) if kv else None
    for prefix, name in (("running", RUNNING), ("waiting", WAITING)):
        s = [v for _, v in obs.gauge_series(name, "sum", g)]
        vals[f"{prefix}_max"] = as_count(max(s)) if s else None
        vals[f"{prefix}_mean"] = math.fsum(s) / len(s) if s else None
    vals["preemptions_window"] = as_count(obs.counter_increase(PREEMPTIONS, g))
    q, h = obs.counter_increase(PREFIX_QUERIES, g), obs.counter_increase(PREFIX_HITS, g)
    vals["prefix_hit_rate_window"] = h / q if q and h is not None and q > 0 else None
    vals["requests_finished_window"] = as_count(obs.counter_increase(REQUEST_SUCCESS, g))
    share = stalled_share(obs, obs.gauge_series(WAITING, "sum", g), g)
    vals["stalled_share"] = share if isinstance(share, float) else None
    itl = obs.histogram_window(LATENCY_HISTOGRAMS["itl"], g)
    vals["itl_mean"] = itl[1] / itl[2] if itl is not None and itl[2] > 0 else None
    return vals


def _engine_queues(out: Out, engines: dict[str, dict[str, Scalar]]) -> None:
    """Where a data-parallel endpoint's queue sits: the engine with the most requests waiting
    (mean over the window), its share of all waiting, and the fullest KV pool among the other
    engines (a queue on one engine whose pool filled, beside engines with room, is the router's
    doing, not the pool's)."""
    waiting = {
        name: float(v)
        for name, vals in engines.items()
        if isinstance((v := vals.get("waiting_mean")), int | float) and not isinstance(v, bool)
    }
    total = math.fsum(waiting.values())
    if not waiting or total <= 0:
        for n in ("engine_busiest_waiting_share", "kv_usage_max_other_engines"):
            out.set(n, None, reason="no engine had requests waiting")
        return
    busiest = max(sorted(waiting), key=lambda n: waiting[n])
    out.set(
        "engine_busiest_waiting_share",
        waiting[busiest] / total,
        f"metrics: engine {busiest}'s mean waiting over the sum of {len(engines)} engines'",
    )
    others = [
        float(v)
        for name, vals in engines.items()
        if name != busiest
        and isinstance((v := vals.get("kv_usage_max")), int | float)
        and not isinstance(v, bool)
    ]
    out.set(
        "kv_usage_max_other_engines",
        max(others) if others else None,
        f"metrics: the fullest KV pool among the engines other than {busiest}",
        reason="no other engine reported KV usage",
    )


def engine_balance(out: Out) -> None:
    """How evenly a data-parallel endpoint's engines share the work: the busiest engine's share
    of the running requests and its decode speed against the fastest engine's (one engine
    overloaded while others idle is invisible in the sums)."""
    engines = out.ss.per_engine
    names = (
        "engine_busiest_running_share",
        "itl_engine_spread",
        "engine_busiest_waiting_share",
        "kv_usage_max_other_engines",
    )
    if len(engines) < 2:
        for n in names:
            out.set(n, None, reason="one engine")
        out.set("running_max_per_engine", None, reason="one engine: running_max is its peak")
        return
    # --max-num-seqs is a limit per engine: a data-parallel server's sum over engines must not
    # be held against it (eight engines of ~137 running read as 1,112 against 1,024 slots).
    peaks = [
        float(v)
        for vals in engines.values()
        if isinstance((v := vals.get("running_max")), int | float) and not isinstance(v, bool)
    ]
    out.set(
        "running_max_per_engine",
        max(peaks) if peaks else None,
        f"metrics: the busiest of {len(engines)} engines' peak of running requests",
        reason="no engine reported running requests",
    )
    running = [
        float(v)
        for vals in engines.values()
        if isinstance((v := vals.get("running_mean")), int | float) and not isinstance(v, bool)
    ]
    total = math.fsum(running)
    out.set(
        "engine_busiest_running_share",
        max(running) / total if running and total > 0 else None,
        f"metrics: the busiest of {len(engines)} engines' mean running over the sum",
        reason="no engine ran a request",
    )
    _engine_queues(out, engines)
    # Each engine schedules its own queue: one engine stalled behind a request it can never
    # admit stalls every request routed to it while the others keep the endpoint's counters
    # moving (external case p-minimax: engine 2 of 4 frozen for eight minutes, the sums never
    # still). The stall is the worst engine's.
    stalls = {
        name: float(v)
        for name, vals in engines.items()
        if isinstance((v := vals.get("stalled_share")), float)
    }
    whole = out.ss.get("stalled_share")
    if stalls and max(stalls.values()) > (whole if isinstance(whole, float) else 0.0):
        worst = max(sorted(stalls), key=lambda n: stalls[n])
        out.set(
            "stalled_share",
            stalls[worst],
            f"metrics: engine {worst}, the most stalled of {len(engines)}: intervals with "
            "requests waiting and no token processed on that engine",
        )
    itls = [
        float(v)
        for vals in engines.values()
        if isinstance((v := vals.get("itl_mean")), int | float)
        and not isinstance(v, bool)
        and v > 0
    ]
    out.set(
        "itl_engine_spread",
        max(itls) / min(itls) if len(itls) >= 2 else None,
        f"metrics: slowest engine's mean ITL over the fastest's ({len(itls)} engines decoding)",
        reason="fewer than two engines decoded in the window",
    )
