"""The engine's log stats lines as the series where /metrics held no vLLM metrics
(kvdoctor.logstats, observations._from_log_stats)."""

from __future__ import annotations

import math

from _bundle_factory import bundle

from kvdoctor.bundle.model import Scrape
from kvdoctor.logstats import parse_stats_lines, silent_tail, stats_series
from kvdoctor.observations import observe
from kvdoctor.signals.compute import compute_signals
from kvdoctor.vllm_metrics import GENERATION_TOKENS, KV_USAGE, PROMPT_TOKENS, RUNNING, WAITING

V1 = (
    "(APIServer pid=7) INFO 09-15 09:00:50 [loggers.py:257] Engine 000: Avg prompt throughput: "
    "100.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs, "
    "GPU KV cache usage: 42.0%, Prefix cache hit rate: 0.0%"
)
V0 = (
    "INFO 05-01 10:00:00 metrics.py:341] Avg prompt throughput: 0.0 tokens/s, Avg generation "
    "throughput: 31.5 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache "
    "usage: 4.1%, CPU KV cache usage: 0.0%."
)
PROCESS_ONLY = "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1\n"
V1_070 = "INFO 02-03 09:10:05 loggers.py:34] Running: 21 reqs, Waiting: 1 reqs "


def test_every_release_format_is_read() -> None:
    v1, v0, early = (parse_stats_lines(x)[0] for x in (V1, V0, V1_070))
    assert (v1.engine, v1.running, v1.waiting, v1.kv_usage) == ("0", 4, 0, 0.42)
    assert (v1.prompt_tps, v1.generation_tps) == (100.0, 20.0)
    assert (v0.engine, v0.running, v0.waiting, v0.kv_usage) == ("", 3, 2, 0.041)
    assert v0.generation_tps == 31.5
    assert (early.running, early.waiting, early.kv_usage, early.prompt_tps) == (21, 1, None, None)
    # Seconds since the start of the year: 3 February 09:10:05.
    assert early.t == (31 + 2) * 86400 + 9 * 3600 + 10 * 60 + 5
    assert parse_stats_lines("INFO 02-03 09:10:05 server.py:1] Running the server\n") == []


def test_a_year_boundary_keeps_the_lines_in_order() -> None:
    text = "\n".join(
        [V1_070.replace("02-03 09:10:05", "12-31 23:59:55"), V1_070.replace("02-03 ", "01-01 ")]
    )
    first, second = parse_stats_lines(text)
    assert second.t > first.t


def _lines(n: int, step: int = 10) -> str:
    out = []
    for i in range(n):
        s = 50 + i * step
        stamp = f"09-15 09:{s // 60:02d}:{s % 60:02d}"
        out.append(V1.replace("09-15 09:00:50", stamp).replace("Waiting: 0", f"Waiting: {i}"))
    return "\n".join(out)


def test_tokens_are_summed_from_each_interval_and_the_last_line_falls_on_the_last_scrape() -> None:
    series = stats_series(parse_stats_lines(_lines(4)), end_t=1000.0, span_s=None)
    assert series is not None
    assert series.times == [970.0, 980.0, 990.0, 1000.0]
    assert series.lines == 4 and series.interval_s == 10.0
    # The first line's average covers the interval before the window: the count opens at 0.
    assert series.columns[PROMPT_TOKENS]["0"] == [0.0, 1000.0, 2000.0, 3000.0]
    assert series.columns[GENERATION_TOKENS]["0"] == [0.0, 200.0, 400.0, 600.0]
    assert series.columns[WAITING]["0"] == [0.0, 1.0, 2.0, 3.0]
    assert series.columns[KV_USAGE]["0"] == [0.42] * 4


def test_only_the_captures_own_span_of_the_log_is_the_window() -> None:
    # 10 lines 10 s apart; a capture of 30 s takes the last 30 s and the line that opens them.
    series = stats_series(parse_stats_lines(_lines(10)), end_t=500.0, span_s=30.0)
    assert series is not None
    assert series.times == [460.0, 470.0, 480.0, 490.0, 500.0]
    assert series.columns[WAITING]["0"] == [5.0, 6.0, 7.0, 8.0, 9.0]
    assert stats_series(parse_stats_lines(V1), end_t=None, span_s=None) is None


def _metricless(logs: str) -> object:
    b = bundle("healthy")
    scrapes = [
        Scrape(
            t=sc.t,
            status=200,
            text="# HELP process_cpu_seconds_total x\nprocess_cpu_seconds_total 1\n",
        )
        for sc in b.scrapes
    ]
    return b.model_copy(update={"scrapes": scrapes, "logs": logs})


def test_a_server_without_vllm_metrics_is_read_from_its_log() -> None:
    b = _metricless(_lines(12))
    obs = observe(b)  # type: ignore[arg-type]
    # The capture's span of the log's tail, and the line that opens it.
    span = b.scrapes[-1].t - b.scrapes[0].t  # type: ignore[attr-defined]
    assert obs.log_stats_lines == len(obs.times) == int(span // 10) + 2
    assert len(obs.failed) == len(b.scrapes)  # type: ignore[attr-defined]
    assert obs.times[-1] == b.scrapes[-1].t  # type: ignore[attr-defined]
    assert obs.wire(RUNNING).startswith("the log's stats lines")
    ss = compute_signals(b)  # type: ignore[arg-type]
    assert ss.get("series_from_log") is True
    assert ss.get("waiting_max") == 11
    assert ss.get("running_max") == 4
    assert math.isclose(ss.get("kv_usage_max"), 0.42)  # type: ignore[arg-type]
    assert math.isclose(ss.get("prompt_tokens_per_s"), 100.0)  # type: ignore[arg-type]


def test_scrapes_with_vllm_metrics_win_over_the_log() -> None:
    b = bundle("healthy").model_copy(update={"logs": _lines(6)})
    obs = observe(b)
    assert obs.log_stats_lines == 0
    assert compute_signals(b).get("series_from_log") is False
    # Without a stats line there is nothing to read: the scrapes stay failed, no series.
    none = observe(_metricless("INFO 09-15 09:00:00 [api_server.py:1] started\n"))  # type: ignore[arg-type]
    assert none.times == [] and none.log_stats_lines == 0


V0_QUIET = (
    "INFO 01-16 09:{m:02d}:{s:02d} metrics.py:467] Avg prompt throughput: 300.0 tokens/s, Avg "
    "generation throughput: 52.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, "
    "GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%."
)


def _quiet_log(fmt: str) -> str:
    return "\n".join(fmt.format(m=i // 12, s=(i % 12) * 5) for i in range(24))


def test_a_v0_log_without_a_preemption_warning_can_be_healthy() -> None:
    from kvdoctor.pipeline import diagnose_bundle

    report = diagnose_bundle(_metricless(_quiet_log(V0_QUIET)))  # type: ignore[arg-type]
    assert report.verdict == "healthy"
    # A V1 log says nothing of preemptions: without the counter they stay unknown.
    v1 = V0_QUIET.replace("Swapped: 0 reqs, Pending: 0 reqs", "Waiting: 0 reqs")
    assert diagnose_bundle(_metricless(_quiet_log(v1))).verdict == "unknown"  # type: ignore[arg-type]
    # One warning in the V0 log: preemptions happened, never "healthy" on the pool's word.
    warned = _quiet_log(V0_QUIET) + (
        "\nWARNING 01-16 09:01:55 scheduler.py:1560] Sequence group 7 is preempted by "
        "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space.\n"
    )
    assert diagnose_bundle(_metricless(warned)).verdict != "healthy"  # type: ignore[arg-type]


def test_a_line_of_many_time_stamps_is_read_in_one_pass() -> None:
    # A hostile or corrupt line: thousands of stamps before "Running:" (a regex that searched
    # for a stamp anywhere before the stats would take quadratic time on it).
    line = "01-02 03:04:05 " * 50_000 + "x Running: 1 reqs, Waiting: 0 reqs"
    assert parse_stats_lines(line) == []  # longer than any stats line vLLM writes
    short = "INFO 01-02 03:04:05 " + "y" * 60 + " Running: 1 reqs, Waiting: 2 reqs"
    (only,) = parse_stats_lines(short)
    assert (only.running, only.waiting) == (1, 2)


V0_BUSY = (
    "INFO 09-29 15:{m:02d}:{s:02d} llm_engine.py:624] Avg prompt throughput: 0.0 tokens/s, Avg "
    "generation throughput: 17.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, "
    "GPU KV cache usage: 100.0%, CPU KV cache usage: 0.0%"
)
ARRIVAL = (
    "INFO 09-29 15:{m:02d}:{s:02d} async_llm_engine.py:371] Received request cmpl-{i}: prompt: "
    "'hello', sampling params: SamplingParams(n=1)"
)


def _stalled_log(arrivals: int, gap_s: int = 20) -> str:
    """12 stats lines 5 s apart (15:00:00-15:00:55), then only request arrivals every ``gap_s``."""
    out = [V0_BUSY.format(m=0, s=i * 5) for i in range(12)]
    for i in range(arrivals):
        t = 60 + (i + 1) * gap_s
        out.append(ARRIVAL.format(m=t // 60, s=t % 60, i=i))
    return "\n".join(out)


def test_requests_into_a_silent_engine_are_a_stall() -> None:
    text = _stalled_log(arrivals=6)
    lines = parse_stats_lines(text)
    silent = silent_tail(text, lines)
    assert silent is not None and len(silent.arrivals) == 6 and silent.interval_s == 5.0
    assert silent.end_t - lines[-1].t == 125.0
    series = stats_series(lines, end_t=1000.0, span_s=None, silent=silent)
    assert series is not None and series.silent is silent
    # The log's end, not its last stats line, falls on the last scrape.
    assert series.times[-1] == 1000.0 and series.times[11] == 1000.0 - 125.0
    running = series.columns[RUNNING][""]
    waiting = series.columns[WAITING][""]
    tokens = series.columns[GENERATION_TOKENS][""]
    assert running[11] == 1.0 and all(r == 0.0 for r in running[12:])
    # The last line's request and every arrival so far wait; nothing is computed.
    assert waiting[-1] == 1 + 6 and waiting[12] == 1
    assert all(t == tokens[11] for t in tokens[12:])
    assert all(math.isnan(k) for k in series.columns[KV_USAGE][""][12:])


def test_a_short_silence_or_one_without_arrivals_is_no_stall() -> None:
    # The last request came 10 s before the log's end: two logging intervals, a late flush.
    assert (
        silent_tail(_stalled_log(arrivals=1, gap_s=10), parse_stats_lines(_stalled_log(0))) is None
    )
    quiet = _stalled_log(0) + "\nINFO 09-29 15:09:00 api_server.py:1] shutting down"
    assert silent_tail(quiet, parse_stats_lines(quiet)) is None


def test_a_stalled_v0_log_reads_as_a_stalled_queue_not_a_healthy_pool() -> None:
    text = "INFO 09-29 14:59:00 llm_engine.py:207] # GPU blocks: 92, # CPU blocks: 327\n"
    text += _stalled_log(arrivals=8, gap_s=30)
    ss = compute_signals(_metricless(text))  # type: ignore[arg-type]
    assert ss.get("log_requests_while_engine_silent") == 8
    assert ss.get("log_engine_silent_s") == 210.0
    assert ss.get("running_last") == 0 and ss.get("waiting_last") == 9
    assert ss.get("stalled_share") is not None and ss.get("stalled_share") >= 0.5  # type: ignore[operator]
    # Its usage at the log's end is not the last line's.
    assert ss.get("kv_usage_last") is None and ss.get("kv_usage_max") == 1.0
    # V0 sizes its pool in blocks of 16 tokens unless a flag says otherwise.
    assert ss.get("log_kv_cache_tokens") == 92 * 16
    # A log whose stats lines run to its end has no silent tail.
    plain = compute_signals(_metricless(_stalled_log(0)))  # type: ignore[arg-type]
    assert plain.get("log_requests_while_engine_silent") == 0
