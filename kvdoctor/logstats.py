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

import bisect
import itertools
import re
from typing import NamedTuple

from kvdoctor.lazyre import LazyPattern
from kvdoctor.vllm_metrics import GENERATION_TOKENS, KV_USAGE, PROMPT_TOKENS, RUNNING, WAITING

# The month-day time vLLM's logger prefixes every line with, near the line's start ("INFO
# 09-15 09:01:00", "(APIServer pid=7) INFO 09-15 ..."), then the stats themselves. Each field
# after the request counts is optional: releases print different subsets. The two are matched
# apart, each from a known place, so a long line costs one pass.
_STAMP = LazyPattern(r"(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
_STAMP_WITHIN = 80  # characters from the line's start the time stamp may sit at
_STATS = LazyPattern(
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


class StatsLine(NamedTuple):
    """One engine stats line: seconds since the start of its (unknown) year, and its numbers."""

    t: float
    engine: str  # "" when the line names no engine (one engine, or a release that never did)
    running: int
    waiting: int
    prompt_tps: float | None
    generation_tps: float | None
    kv_usage: float | None  # 0..1


def _seconds(stamp: re.Match[str]) -> float | None:
    """Seconds since the start of the (unknown, non-leap) year of a month-day time stamp."""
    mon, day = int(stamp[1]), int(stamp[2])
    if not (1 <= mon <= 12 and 1 <= day <= 31):
        return None
    return (
        (_DAYS_BEFORE[mon - 1] + day - 1) * 86400.0
        + int(stamp[3]) * 3600.0
        + int(stamp[4]) * 60.0
        + int(stamp[5])
    )


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
        t = _seconds(stamp)
        if t is None:
            continue
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


# vLLM's request log line ("Received request <id>: ..."; "Added request" in some releases),
# logged by default before 0.11 and with --enable-log-requests since.
_ARRIVAL = LazyPattern(r"Received request |Added request ")
# A stats line follows every logging interval that had work, so one or two missing lines are a
# late flush; this many intervals of silence after a request arrived are an engine that did not
# step for it.
SILENT_INTERVALS = 3


class SilentTail(NamedTuple):
    """The log after the engine's last stats line: requests kept arriving, no stats line came.

    V0 logs its stats line from inside a step and V1 skips it while idle, so an engine that logs
    nothing while requests arrive is one that stopped stepping: nothing runs, the arrivals wait,
    no token is computed (external case zzy-v020-a10: vLLM 0.2.0 logged its last stats line at
    100 % KV usage, then 33 requests arrived over 7.7 minutes and no line came).
    """

    end_t: float  # the log's last time-stamped line
    arrivals: tuple[float, ...]  # request arrivals after the last stats line, in order
    interval_s: float  # the engine's logging interval the silence is counted in


def silent_tail(text: str, lines: list[StatsLine]) -> SilentTail | None:
    """The silence after ``lines``' last stats line, when requests arrived into it and it lasted
    :data:`SILENT_INTERVALS` logging intervals past the first of them; else None.

    Only a log of one engine is read: with several, one engine's silence is not the server's.
    """
    if len(lines) < 2 or len({ln.engine for ln in lines}) > 1:
        return None
    gaps = sorted(b.t - a.t for a, b in itertools.pairwise(lines) if b.t > a.t)
    if not gaps:
        return None
    interval = gaps[len(gaps) // 2]
    last_t = lines[-1].t
    end_t: float | None = None
    arrivals: list[float] = []
    # From the log's end back to the last stats line: only the tail is read.
    for line in reversed(text.splitlines()):
        if len(line) > _MAX_LINE * 10:
            continue
        stamp = _STAMP.search(line, 0, _STAMP_WITHIN)
        t = _seconds(stamp) if stamp is not None else None
        if t is None:
            continue
        if t < last_t - 180 * 86400.0:
            t += _YEAR_S  # the tail crossed into January
        if t <= last_t:
            break
        if end_t is None:
            end_t = t
        if _ARRIVAL.search(line) is not None:
            arrivals.append(t)
    if end_t is None or not arrivals:
        return None
    arrivals.reverse()
    if end_t - arrivals[0] < SILENT_INTERVALS * interval:
        return None
    return SilentTail(end_t=end_t, arrivals=tuple(arrivals), interval_s=interval)


class LogSeries(NamedTuple):
    """Samples built from the stats lines: aligned with ``times`` per (name, engine label)."""

    times: list[float]
    # canonical name -> engine label ("" for none) -> values aligned with ``times`` (nan: absent)
    columns: dict[str, dict[str, list[float]]]
    lines: int  # stats lines used
    interval_s: float  # the median spacing of one engine's lines
    silent: SilentTail | None = None  # the silent tail the series was extended over


def stats_series(
    lines: list[StatsLine],
    end_t: float | None,
    span_s: float | None,
    silent: SilentTail | None = None,
) -> LogSeries | None:
    """The stats lines of the capture's window as samples, or None with fewer than two.

    ``end_t`` places the log's end (the capture's last scrape): the last stats line, or the
    last line of a ``silent`` tail; ``span_s`` is the capture's own length: only the lines of
    the log's last ``span_s`` seconds (and the one before them, which opens the first interval)
    are the window. Token counters are summed from each line's average throughput times the
    seconds since that engine's previous line. A silent tail is read as what it is, one sample
    per logging interval: nothing running, the last line's requests and every arrival since
    waiting, no token computed, KV usage unknown.
    """
    if len(lines) < 2:
        return None
    log_end = silent.end_t if silent is not None else lines[-1].t
    if span_s is not None and span_s > 0:
        first_in = next(
            (i for i, ln in enumerate(lines) if ln.t >= log_end - span_s), len(lines) - 1
        )
        lines = lines[max(0, first_in - 1) :]
    quiet: list[float] = []
    if silent is not None:
        step = silent.interval_s
        k = 1
        while lines[-1].t + k * step < silent.end_t:
            quiet.append(lines[-1].t + k * step)
            k += 1
        quiet.append(silent.end_t)
    if len(lines) + len(quiet) < 2:
        return None
    shift = (end_t - log_end) if end_t is not None else 0.0
    times = sorted({ln.t + shift for ln in lines} | {t + shift for t in quiet})
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
    if silent is not None and quiet:
        last = lines[-1]
        held = last.running + last.waiting
        for t in quiet:
            i = at[t + shift]
            put(RUNNING, last.engine, i, 0.0)
            put(WAITING, last.engine, i, float(held + bisect.bisect_right(silent.arrivals, t)))
            for name in (PROMPT_TOKENS, GENERATION_TOKENS):
                if (name, last.engine) in totals:
                    put(name, last.engine, i, round(totals[(name, last.engine)], 3))
    if len(times) < 2:
        return None
    gaps.sort()
    return LogSeries(
        times=times,
        columns=columns,
        lines=len(lines),
        interval_s=gaps[len(gaps) // 2] if gaps else 0.0,
        silent=silent if quiet else None,
    )
