"""Behaviour that changes within the window: answers that stop ending (finished_length_shift)
and a prefix cache that stops serving (prefix_hit_rate_late), from the last third of the window
against the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.signals.compute import compute_signals

CASES = Path(__file__).resolve().parents[2] / "cases"


def _shift(case: str) -> object:
    return compute_signals(read_bundle(CASES / case / "bundle")).get("finished_length_shift")


def test_answers_that_stopped_ending_late_in_the_window_shift_fully() -> None:
    # zj-arc: an fp8 cache on Arc cards, answers ending at a stop token at first and every one
    # running to max_tokens ("!!!!") in the window's last third.
    assert _shift("zj-arc-b50-fp8-kv-exclamations") == 1.0


def test_a_steady_mix_of_finish_reasons_does_not_shift() -> None:
    shift = _shift("f-ngram-spec-600-running-qwen3-32b-fp8")
    assert isinstance(shift, float) and shift == pytest.approx(0.0, abs=0.05)


def test_too_few_finished_requests_leave_it_unknown() -> None:
    # q-v100: no request finished in the window.
    ss = compute_signals(read_bundle(CASES / "q-v100-tp2-221k-batch2-decode-collapse" / "bundle"))
    assert ss.get("finished_length_shift") is None
    assert ss.values["finished_length_shift"].reason


def test_a_cache_that_stopped_serving_mid_window_has_no_late_hits() -> None:
    # zg-glm53: 57 % of the window's looked-up tokens hit, none in its last third.
    ss = compute_signals(read_bundle(CASES / "zg-glm53-hits-freeze-agentic" / "bundle"))
    assert ss.get("prefix_hit_rate_late") == 0.0
    window = ss.get("prefix_hit_rate_window")
    assert isinstance(window, float) and window > 0.5


def _two_scrapes_of_answers(buckets: dict[str, int], total_tokens: int) -> object:
    from kvdoctor.bundle.model import Bundle, Manifest, Scrape

    def text(scale: int) -> str:
        lines = [
            f'vllm:request_generation_tokens_bucket{{le="{le}"}} {n * scale}'
            for le, n in buckets.items()
        ]
        count = buckets["+Inf"] * scale
        lines += [
            f"vllm:request_generation_tokens_sum {total_tokens * scale}",
            f"vllm:request_generation_tokens_count {count}",
        ]
        return "\n".join(lines) + "\n"

    return compute_signals(
        Bundle(
            manifest=Manifest(
                created_by="test", endpoint="test", started_at=0.0, ended_at=10.0, interval_s=10.0
            ),
            scrapes=[
                Scrape(t=0.0, status=200, text=text(0)),
                Scrape(t=10.0, status=200, text=text(1)),
            ],
        )
    ).get("runaway_answer_share")


def test_answers_far_beyond_the_median_are_counted_as_runaways() -> None:
    # A layout with a bound at 8x the median: the answers above it.
    wide = {"200": 40, "500": 80, "1000": 90, "5000": 92, "10000": 100, "+Inf": 100}
    assert _two_scrapes_of_answers(wide, 100 * 900) == 0.08
    # zr-gptoss's layout stops at 2,000: 74 answers beyond it averaging about 8,000 tokens
    # against a median near 400 are runaways; the same tail averaging 2,500 is not.
    short = {"200": 38, "500": 271, "1000": 388, "2000": 419, "+Inf": 493}
    assert _two_scrapes_of_answers(short, 822_000) == round(74 / 493, 4)
    assert _two_scrapes_of_answers(short, 221_000 + 74 * 2_500) == 0.0
    # Every answer at one long limit (a benchmark, a reasoning cap): no typical length.
    capped = {"200": 0, "2000": 0, "+Inf": 50}
    assert _two_scrapes_of_answers(capped, 50 * 32768) is None
