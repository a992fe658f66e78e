"""The engine's periodic stats lines, read as a time series where /metrics has none.

vLLM logs what it runs every few seconds (V0 and V1's ``LoggingStatLogger``):

    INFO 09-15 09:01:00 [loggers.py:257] Engine 000: Avg prompt throughput: 40960.0 tokens/s,
        Avg generation throughput: 824.4 tokens/s, Running: 47 reqs, Waiting: 0 reqs,
        GPU KV cache usage: 90.5%, Prefix cache hit rate: 0.0%
    INFO 02-03 09:10:05 loggers.py:34] Running: 21 reqs, Waiting: 1 reqs      (V1 in 0.7.0)
    INFO 05-01 10:00:00 metrics.py:341] Avg prompt throughput: ..., Running: 3 reqs,
        Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 4.1%, CPU KV cache usage: 0.0%.

A server whose /metrics answers nothing kvdoctor can read (an early V1 release that exported no
metrics, the demo API server, a scrape refused by a proxy) still logs these lines, and they hold
the gauges a diagnosis starts from: requests running and waiting, the pool's usage, and the
prompt and generation token rates over each logging interval. :func:`stats_series` turns them
into samples under the metrics' canonical names so the same signals are computed from them; the
histograms (TTFT, ITL, lengths) have no log counterpart and stay not checked.

Log lines carry month, day and time but no year and no time zone. The series keeps their
spacing and is placed so that its last line falls on the capture's last scrape: a capture takes
the log's tail when it ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvdoctor.vllm_metrics import GENERATION_TOKENS, KV_USAGE, PROMPT_TOKENS, RUNNING, WAITING

# The month-day time vLLM's logger prefixes every line with, near the line's start ("INFO
# 09-15 09:01:00", "(APIServer pid=7) INFO 09-15 ..."), then the stats themselves. Each field
# after the request counts is optional: releases print different subsets. The two are matched
# apart, each from a known place, so a long line costs one pass.
_STAMP = re.compile(r"(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
_STAMP_WITHIN = 80  # characters from the line's start the time stamp may sit at
_STATS = re.compile(
    r"(?:Engine (?P<engine>\d+): )?"
    r"(?:Avg prompt throughput: (?P<ptps>[\d.]+) tokens/s, "
    r"Avg generation throughput: (?P<gtps>[\d.]+) tokens/s, )?"
    r"Running: (?P<running>\d+) reqs, (?:Swapped: \d+ reqs, )?"
    r"(?:Pending|Waiting): (?P<waiting>\d+) reqs"
    r"(?:[^\n]{0,200}?GPU KV cache usage: (?P<kv>[\d.]+)%)?"
)
# A stats line is a few hundred characters; a longer one is not vLLM's.
_MAX_LINE = 2000
# Cumulative days before each month (a non-leap year: the lines carry no year, and only the
# spacing between lines is kept).
_DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_YEAR_S = 365 * 86400.0


# What each series is called where a provenance names its source ("metrics: <wire> ...").
LOG_WIRE = {
    RUNNING: "the log's stats lines 'Running: N reqs'",
    WAITING: "the log's stats lines 'Waiting: N reqs'",
    KV_USAGE: "the log's stats lines 'GPU KV cache usage'",
    PROMPT_TOKENS: "the log's stats lines 'Avg prompt throughput' × each interval",
    GENERATION_TOKENS: "the log's stats lines 'Avg generation throughput' × each interval",
}


@dataclass(frozen=True)
class StatsLine:
    """One engine stats line: seconds since the start of its (unknown) year, and its numbers."""

    t: float
    engine: str  # "" when the line names no engine (one engine, or a release that never did)
    running: int
    waiting: int
    prompt_tps: float | None
    generation_tps: float | None
    kv_usage: float | None  # 0..1


def parse_stats_lines(text: str) -> list[StatsLine]:
    """Every stats line of ``text`` in log order; a year boundary inside the log is stepped over."""
    out: list[StatsLine] = []
    year_offset = 0.0
    last = None
    for line in text.splitlines():
        at = line.find("Running: ")
        if at < 0 or len(line) > _MAX_LINE:
            continue
        stamp = _STAMP.search(line, 0, min(at, _STAMP_WITHIN))
        # The stats start at "Engine N: ", else at "Avg prompt throughput", else at "Running: ".
        m = None
        for start in (line.rfind("Engine ", 0, at), line.rfind("Avg prompt", 0, at), at):
            if start >= 0 and (m := _STATS.match(line, start)) is not None:
                break
        if stamp is None or m is None:
            continue
        mon, day = int(stamp[1]), int(stamp[2])
        if not (1 <= mon <= 12 and 1 <= day <= 31):
            continue
        t = (
            (_DAYS_BEFORE[mon - 1] + day - 1) * 86400.0
            + int(stamp[3]) * 3600.0
            + int(stamp[4]) * 60.0
            + int(stamp[5])
        )
        if last is not None and t + year_offset < last - 180 * 86400.0:
            year_offset += _YEAR_S  # December to January
        t += year_offset
        last = t
        out.append(
            StatsLine(
                t=t,
                engine=str(int(m["engine"])) if m["engine"] is not None else "",
                running=int(m["running"]),
                waiting=int(m["waiting"]),
                prompt_tps=float(m["ptps"]) if m["ptps"] is not None else None,
                generation_tps=float(m["gtps"]) if m["gtps"] is not None else None,
                kv_usage=round(float(m["kv"]) / 100.0, 6) if m["kv"] is not None else None,
            )
        )
    return out


@dataclass(frozen=True)
class LogSeries:
    """Samples built from the stats lines: aligned with ``times`` per (name, engine label)."""

    times: list[float]
    # canonical name -> engine label ("" for none) -> values aligned with ``times`` (nan: absent)
    columns: dict[str, dict[str, list[float]]]
    lines: int  # stats lines used
    interval_s: float  # the median spacing of one engine's lines


def stats_series(
    lines: list[StatsLine], end_t: float | None, span_s: float | None
) -> LogSeries | None:
    """The stats lines of the capture's window as samples, or None with fewer than two.

    ``end_t`` places the last line (the capture's last scrape); ``span_s`` is the capture's own
    length: only the lines of the log's last ``span_s`` seconds (and the one before them, which
    opens the first interval) are the window. Token counters are summed from each line's
    average throughput times the seconds since that engine's previous line.
    """
    if len(lines) < 2:
        return None
    last_t = lines[-1].t
    if span_s is not None and span_s > 0:
        first_in = next(i for i, ln in enumerate(lines) if ln.t >= last_t - span_s)
        lines = lines[max(0, first_in - 1) :]
    if len(lines) < 2:
        return None
    shift = (end_t - last_t) if end_t is not None else 0.0
    times = sorted({ln.t + shift for ln in lines})
    at = {t: i for i, t in enumerate(times)}
    nan = float("nan")
    columns: dict[str, dict[str, list[float]]] = {}

    def put(name: str, engine: str, i: int, value: float) -> None:
        col = columns.setdefault(name, {}).setdefault(engine, [nan] * len(times))
        col[i] = value

    previous: dict[str, StatsLine] = {}
    totals: dict[tuple[str, str], float] = {}
    gaps: list[float] = []
    for ln in lines:
        i = at[ln.t + shift]
        put(RUNNING, ln.engine, i, float(ln.running))
        put(WAITING, ln.engine, i, float(ln.waiting))
        if ln.kv_usage is not None:
            put(KV_USAGE, ln.engine, i, ln.kv_usage)
        before = previous.get(ln.engine)
        previous[ln.engine] = ln
        for name, tps in ((PROMPT_TOKENS, ln.prompt_tps), (GENERATION_TOKENS, ln.generation_tps)):
            if tps is None:
                continue
            key = (name, ln.engine)
            # The first line of an engine opens the count: its average covers the interval
            # before the window.
            if before is not None:
                totals[key] = totals.get(key, 0.0) + tps * (ln.t - before.t)
            put(name, ln.engine, i, round(totals.get(key, 0.0), 3))
        if before is not None:
            gaps.append(ln.t - before.t)
    if len(times) < 2:
        return None
    gaps.sort()
    return LogSeries(
        times=times,
        columns=columns,
        lines=len(lines),
        interval_s=gaps[len(gaps) // 2] if gaps else 0.0,
    )
