"""The server's own baselines (signals/baselines.py) and the SLO basis, on scripted windows.

Each window is a list of scrape intervals with a known mechanism: ITL that rises with the
resident KV tokens (KV-read-bound), ITL that rises with prompt arrivals (prefill interference),
a flat window, and TTFT with and without a queue. The expositions follow vLLM 0.32's names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.errors import KvdoctorError
from kvdoctor.rules.evaluate import evaluate
from kvdoctor.rules.load import load_playbooks
from kvdoctor.signals.baselines import linear_fit
from kvdoctor.signals.compute import compute_signals
from kvdoctor.slo import load_slo_file, parse_slo_options, slo_from_bundle_file

T0 = 1_700_000_000.0
L = 'engine="0",model_name="m"'
BLOCKS = 101  # 100 usable blocks of 16 tokens after the null block: 1,616 tokens as reported


ITL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


def _expo(
    kv: float,
    running: int,
    waiting: int,
    itl_sum: float,
    itl_n: int,
    ttft_sum: float,
    ttft_n: int,
    prompt: int,
    itl_buckets: dict[float, int] | None = None,
) -> str:
    cache = (
        f'block_size="16",cache_dtype="auto",enable_prefix_caching="True",num_gpu_blocks="{BLOCKS}"'
    )
    return (
        "\n".join(
            [
                f'vllm:cache_config_info{{{cache},engine="0"}} 1.0',
                f"vllm:kv_cache_usage_perc{{{L}}} {kv}",
                f"vllm:num_requests_running{{{L}}} {running}",
                f"vllm:num_requests_waiting{{{L}}} {waiting}",
                f"vllm:num_preemptions_total{{{L}}} 0",
                f"vllm:prompt_tokens_total{{{L}}} {prompt}",
                *[
                    f'vllm:inter_token_latency_seconds_bucket{{{L},le="{le}"}} {c}'
                    for le, c in (itl_buckets or {}).items()
                ],
                f'vllm:inter_token_latency_seconds_bucket{{{L},le="+Inf"}} {itl_n}',
                f"vllm:inter_token_latency_seconds_sum{{{L}}} {itl_sum}",
                f"vllm:inter_token_latency_seconds_count{{{L}}} {itl_n}",
                f'vllm:time_to_first_token_seconds_bucket{{{L},le="0.05"}} 0',
                f'vllm:time_to_first_token_seconds_bucket{{{L},le="+Inf"}} {ttft_n}',
                f"vllm:time_to_first_token_seconds_sum{{{L}}} {ttft_sum}",
                f"vllm:time_to_first_token_seconds_count{{{L}}} {ttft_n}",
            ]
        )
        + "\n"
    )


def _window(intervals: list[dict[str, float]], slo: dict[str, float] | None = None) -> Bundle:
    """Scrapes whose per-interval deltas are the given ones (itl, itl_n, kv, prompt, ...)."""
    itl_sum = ttft_sum = 0.0
    itl_n = ttft_n = prompt = 0
    buckets = dict.fromkeys(ITL_BUCKETS, 0)
    first = _expo(0.0, 0, 0, 0.0, 0, 0.0, 0, 0, dict(buckets))
    scrapes = [Scrape(t=T0, status=200, text=first)]
    for i, iv in enumerate(intervals, 1):
        n = int(iv.get("itl_n", 100))
        itl_sum += iv["itl"] * n
        itl_n += n
        for le in ITL_BUCKETS:
            buckets[le] += n if iv["itl"] <= le else 0
        tn = int(iv.get("ttft_n", 4))
        ttft_sum += iv.get("ttft", 0.05) * tn
        ttft_n += tn
        prompt += int(iv.get("prompt", 0))
        text = _expo(
            iv.get("kv", 0.1),
            int(iv.get("running", 4)),
            int(iv.get("waiting", 0)),
            itl_sum,
            itl_n,
            ttft_sum,
            ttft_n,
            prompt,
            dict(buckets),
        )
        scrapes.append(Scrape(t=T0 + 2 * i, status=200, text=text))
    manifest = Manifest(
        created_by="kvdoctor test",
        endpoint="http://127.0.0.1:18001",
        started_at=T0,
        ended_at=T0 + 2 * len(intervals),
        interval_s=2.0,
    )
    return Bundle(manifest=manifest, scrapes=scrapes, slo=slo)


def test_linear_fit_recovers_a_line_and_refuses_a_constant_x() -> None:
    a, b, r2 = linear_fit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])  # type: ignore[misc]
    assert (round(a, 9), round(b, 9), round(r2, 9)) == (1.0, 2.0, 1.0)
    assert linear_fit([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None


def test_kv_read_bound_window_measures_its_own_baseline_and_fit() -> None:
    # 3 ms per token on an empty pool, +20 ms per full pool: an 8x regression by the end.
    ivs = [{"kv": k / 10, "itl": 0.003 + 0.02 * k / 10, "prompt": 100} for k in range(11)]
    ss = compute_signals(_window(ivs))
    assert (ss.get("itl_kv_fit_r2") or 0.0) > 0.99
    baseline = ss.get("itl_baseline")
    assert isinstance(baseline, float) and 0.003 <= baseline < 0.0045  # the fastest intervals
    regression = ss.get("itl_regression")
    assert isinstance(regression, float) and regression > 5
    assert (ss.get("itl_prefill_r2") or 0.0) < 0.5
    found = evaluate(ss, None, load_playbooks())
    slow = [f for f in found if f.symptom == "slow-itl" and f.status != "refuted"]
    assert slow and slow[0].cause == "kv-read-bound"
    assert slow[0].basis is not None and "slower than this server" in slow[0].basis
    assert any(line.startswith("not prefill-interference") for line in slow[0].why_not)


def test_prefill_interference_window_is_told_from_kv_reads() -> None:
    # Flat KV; ITL jumps in the intervals where prompts arrive.
    ivs = [
        {
            "kv": 0.3,
            "itl": 0.004 + (0.03 if i % 3 == 0 else 0.0),
            "prompt": 6000 if i % 3 == 0 else 50,
        }
        for i in range(12)
    ]
    ss = compute_signals(_window(ivs))
    assert (ss.get("itl_prefill_r2") or 0.0) > 0.9
    found = evaluate(ss, None, load_playbooks())
    slow = [f for f in found if f.symptom == "slow-itl" and f.status != "refuted"]
    assert slow and slow[0].cause == "prefill-interference"
    assert not any(f.cause == "kv-read-bound" for f in slow)


def test_flat_window_has_no_regression_and_no_slow_itl() -> None:
    ivs = [{"kv": 0.2 + 0.01 * (i % 2), "itl": 0.004, "prompt": 100} for i in range(10)]
    ss = compute_signals(_window(ivs))
    assert ss.get("itl_regression") == pytest.approx(1.0, rel=0.01)
    assert not [f for f in evaluate(ss, None, load_playbooks()) if f.symptom == "slow-itl"]


def test_too_few_intervals_say_why_instead_of_guessing() -> None:
    ss = compute_signals(_window([{"itl": 0.004}, {"itl": 0.2}]))
    assert ss.get("itl_baseline") is None
    assert "intervals" in (ss.values["itl_baseline"].reason or "")


def test_ttft_baseline_comes_from_intervals_without_a_queue() -> None:
    ivs = [{"itl": 0.004, "ttft": 0.02, "waiting": 0} for _ in range(4)]
    ivs += [{"itl": 0.004, "ttft": 1.5, "waiting": 6} for _ in range(6)]
    ss = compute_signals(_window(ivs))
    assert ss.get("ttft_baseline") == pytest.approx(0.02, rel=0.01)


def test_slo_decides_the_symptom_met_or_missed() -> None:
    ivs = [{"kv": k / 10, "itl": 0.003 + 0.02 * k / 10, "prompt": 100} for k in range(11)]
    met = evaluate(compute_signals(_window(ivs, slo={"itl-p95": 0.5})), None, load_playbooks())
    assert not [f for f in met if f.symptom == "slow-itl" and f.severity != "info"]
    missed = compute_signals(_window(ivs, slo={"itl-p95": 0.001}))
    assert missed.get("slo_itl_p95") == 0.001
    found = [f for f in evaluate(missed, None, load_playbooks()) if f.symptom == "slow-itl"]
    assert found and found[0].basis is not None and "SLO" in found[0].basis


def test_slo_options_parse_durations_and_refuse_nonsense(tmp_path: Path) -> None:
    assert parse_slo_options(["ttft-p95=800ms", "itl-p99=0.06s", "ITL-P50=5"]) == {
        "itl-p50": 5.0,
        "itl-p99": 0.06,
        "ttft-p95": 0.8,
    }
    # Spelled as the signal is (an external case's user wrote ttft_p95=200ms).
    assert parse_slo_options(["ttft_p95=200ms"]) == {"ttft-p95": 0.2}
    for bad in ("ttft-p95", "ttft-p95=fast", "tpot-p95=1s", "ttft-p95=0ms", "ttft-p95=-1s"):
        with pytest.raises(KvdoctorError):
            parse_slo_options([bad])
    f = tmp_path / "slo.yaml"
    f.write_text("ttft-p95: 800ms\nitl-p95: 60ms\n", encoding="utf-8")
    assert load_slo_file(f) == {"itl-p95": 0.06, "ttft-p95": 0.8}
    f.write_text("- a list\n", encoding="utf-8")
    with pytest.raises(KvdoctorError):
        load_slo_file(f)
    assert slo_from_bundle_file(b'{"ttft-p95": 0.8}') == {"ttft-p95": 0.8}
    for raw in (b"[1]", b'{"ttft-p95": "x"}', b'{"bogus": 1}', b"\xff"):
        with pytest.raises(KvdoctorError):
            slo_from_bundle_file(raw)
