"""Engines that stop mid-window: requests running with nothing computed at the window's end
(stalled_tail_s), and requests the API server accepts that never reach the engine
(log_requests_after_engine_idle)."""

from __future__ import annotations

from pathlib import Path

from _bundle_factory import bundle

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.signals.compute import compute_signals

CASES = Path(__file__).resolve().parents[2] / "cases"


def _stats(prompt: float, gen: float, running: int, waiting: int) -> str:
    return (
        "(APIServer pid=1) INFO 07-06 02:02:10 [loggers.py:259] Engine 000: Avg prompt "
        f"throughput: {prompt} tokens/s, Avg generation throughput: {gen} tokens/s, Running: "
        f"{running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: 1.3%, Prefix cache hit "
        "rate: 0.0%\n"
    )


def _post(port: int) -> str:
    return (
        f'(APIServer pid=1) INFO:     10.8.0.2:{port} - "POST /v1/chat/completions HTTP/1.1" '
        "200 OK\n"
    )


def _signal(logs: str) -> object:
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": logs}))
    return ss.get("log_requests_after_engine_idle")


def test_requests_accepted_after_the_engine_reads_idle_for_good_are_counted() -> None:
    logs = _stats(900.0, 80.0, 4, 0) + _post(1) + _stats(0.0, 0.0, 0, 0)
    logs += _post(2) + _post(3) + _stats(0.0, 0.0, 0, 0) + _post(4)
    assert _signal(logs) == 3


def test_an_engine_busy_again_took_the_requests() -> None:
    logs = _stats(0.0, 0.0, 0, 0) + _post(1) + _post(2) + _post(3) + _stats(300.0, 20.0, 3, 0)
    assert _signal(logs) == 0


def test_no_stats_line_says_nothing() -> None:
    assert _signal(_post(1) + _post(2)) is None
    # V0's line has Swapped and Pending.
    v0 = (
        "INFO 04-01 10:00:00 metrics.py:455] Avg prompt throughput: 0.0 tokens/s, Avg "
        "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 "
        "reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.\n"
    )
    assert _signal(v0 + _post(1)) == 1


def test_an_input_path_hang_in_a_recorded_bundle() -> None:
    ss = compute_signals(read_bundle(CASES / "zf-mm-cache-evict-input-thread-hang" / "bundle"))
    assert ss.get("log_requests_after_engine_idle") == 89
    assert ss.get("running_last") == 0 and ss.get("waiting_last") == 0


def test_the_window_end_with_requests_running_and_nothing_counted() -> None:
    # One last request running for the last 390 s of a 600 s window of busy traffic.
    tail = compute_signals(
        read_bundle(CASES / "zf-nvfp4-mtp-b300-last-request-stall-undecided" / "bundle")
    )
    assert tail.get("stalled_tail_s") == 390.0
    assert tail.get("running_last") == 1
    # A busy, healthy window ends with tokens moving.
    busy = compute_signals(read_bundle(CASES / "zb-qwen2-72b-gptq-one-h100-rate12" / "bundle"))
    assert busy.get("stalled_tail_s") == 0.0


def test_a_stall_mid_window_is_its_longest_stretch() -> None:
    # zq-axk2: 51 requests running at 100 % KV, no token for 430 s, then the client aborts.
    ss = compute_signals(read_bundle(CASES / "zq-axk2-2p2d-decode-kv-full-stall" / "bundle"))
    assert ss.get("stalled_span_s") == 430.0
    assert ss.get("stalled_span_running") == 51
    assert ss.get("stalled_tail_s") == 0.0
    # A 178k-token prompt prefilling for 240 s ends with its prompt tokens counted: one long
    # prefill step, not a stall (e-openclaw).
    long = compute_signals(read_bundle(CASES / "e-openclaw-daily-date-line" / "bundle"))
    stretch = long.get("stalled_span_s")
    assert isinstance(stretch, float) and stretch < 60
    # A stall at the window's end is the longest stretch too.
    tail = compute_signals(
        read_bundle(CASES / "zf-nvfp4-mtp-b300-last-request-stall-undecided" / "bundle")
    )
    assert tail.get("stalled_span_s") == 390.0
