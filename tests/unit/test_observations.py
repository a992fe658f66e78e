"""Normalisation across vLLM versions and deployments, on real vLLM 0.32 payloads.

Older metric names, the ``ray_vllm:`` prefix, extra engines and model names are *derived* from
the real captures in tests/data/vllm-0.32 by renaming and relabelling (no invented layout), so
the shapes under test stay those of a real server.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.observations import canonical, observe
from kvdoctor.pipeline import diagnose
from kvdoctor.signals.compute import compute_signals

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"
IDLE = (DATA / "metrics-idle.txt").read_text(encoding="utf-8")
HITS = (DATA / "metrics-prefix-hits.txt").read_text(encoding="utf-8")


def bundle_of(*texts: str | None, step: float = 10.0) -> Bundle:
    scrapes = [
        Scrape(t=1000.0 + i * step, status=200, text=t)
        if t is not None
        else Scrape(t=1000.0 + i * step, error="connection refused (nothing listens there)")
        for i, t in enumerate(texts)
    ]
    manifest = Manifest(
        created_by="test", endpoint="e", started_at=1000.0, ended_at=scrapes[-1].t, interval_s=step
    )
    return Bundle(manifest=manifest, scrapes=scrapes)


def set_value(text: str, series: str, value: float) -> str:
    """Replace the value of the sample line starting with ``series`` (name{labels})."""
    pattern = re.compile(rf"^({re.escape(series)}) \S+$", re.MULTILINE)
    new, n = pattern.subn(lambda m: f"{m.group(1)} {value}", text)
    assert n == 1, f"{series} not found exactly once"
    return new


def to_old_names(text: str) -> str:
    """The payload as vLLM releases before the V1 renames exposed it."""
    for new, old in (
        ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
        ("vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"),
        ("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"),
        ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"),
    ):
        text = re.sub(rf"{re.escape(new)}(?=[_{{ ])", old, text)
    return text


def to_ray(text: str) -> str:
    """Under Ray Serve every vLLM metric carries a ``ray_`` prefix."""
    return re.sub(r"^(# (?:HELP|TYPE) )?vllm:", r"\1ray_vllm:", text, flags=re.MULTILINE)


def relabel_engine(text: str, engine: str, model: str | None = None) -> str:
    out = text.replace('engine="0"', f'engine="{engine}"')
    if model is not None:
        out = out.replace('model_name="kvdoctor-tiny-llama"', f'model_name="{model}"')
    return out


KEY = 'engine="0",model_name="kvdoctor-tiny-llama"'
BUSY = set_value(
    set_value(
        set_value(HITS, f"vllm:kv_cache_usage_perc{{{KEY}}}", 0.75),
        f"vllm:num_requests_running{{{KEY}}}",
        3.0,
    ),
    f"vllm:num_preemptions_total{{{KEY}}}",
    5.0,
)


def _core(b: Bundle) -> dict[str, object]:
    s = compute_signals(b)
    names = [
        "kv_usage_max",
        "running_max",
        "prefix_hit_rate_window",
        "prefix_hit_rate_lifetime",
        "itl_p50",
        "itl_p95",
        "itl_mean",
        "ttft_p95",
        "preemptions_window",
        "requests_finished_window",
        "prompt_tokens_per_s",
        "mean_prompt_len",
    ]
    return {n: s.get(n) for n in names}


def test_canonical_names() -> None:
    assert canonical("vllm:num_preemptions_total").name == "vllm:num_preemptions"  # type: ignore[union-attr]
    assert canonical("ray_vllm:gpu_cache_usage_perc").name == "vllm:kv_cache_usage_perc"  # type: ignore[union-attr]
    c = canonical("vllm:time_per_output_token_seconds_bucket")
    assert c is not None and c.name == "vllm:inter_token_latency_seconds_bucket"
    assert not c.preferred and c.cumulative
    assert canonical("vllm:prompt_tokens_created") is None
    # A histogram whose own name ends in _total keeps it.
    c = canonical("vllm:iteration_tokens_total_bucket")
    assert c is not None and c.name == "vllm:iteration_tokens_total_bucket"


def test_real_pair_gives_the_expected_window_values() -> None:
    s = compute_signals(bundle_of(IDLE, HITS))
    # From the capture README: 12 requests, 8,400 query tokens, 5,632 hits.
    assert s.get("requests_finished_window") == 12
    assert s.get("prefix_queries_window") == 8400
    assert s.get("prefix_hits_window") == 5632
    assert s.get("mean_prompt_len") == 700.0
    assert s.get("mean_generation_len") == 32.0
    assert s.get("engines") == 1
    assert s.per_engine == {}


@pytest.mark.parametrize("transform", [to_old_names, to_ray, lambda t: to_ray(to_old_names(t))])
def test_old_names_and_ray_prefix_normalise_to_the_same_signals(transform: object) -> None:
    assert callable(transform)
    base = _core(bundle_of(IDLE, BUSY))
    other = _core(bundle_of(transform(IDLE), transform(BUSY)))
    assert other == base
    assert base["kv_usage_max"] == 0.75
    assert base["itl_p50"] is not None


def test_provenance_names_the_wire_metric() -> None:
    s = compute_signals(bundle_of(to_old_names(IDLE), to_old_names(BUSY)))
    assert "vllm:gpu_cache_usage_perc" in s.values["kv_usage_max"].provenance
    s = compute_signals(bundle_of(to_ray(IDLE), to_ray(BUSY)))
    assert "ray_vllm:kv_cache_usage_perc" in s.values["kv_usage_max"].provenance


def test_new_name_wins_when_both_are_exposed() -> None:
    old_line = f"vllm:gpu_cache_usage_perc{{{KEY}}} 0.99\n"
    s = compute_signals(bundle_of(IDLE + old_line, BUSY + old_line))
    assert s.get("kv_usage_max") == 0.75


def test_a_series_repeated_in_one_scrape_keeps_its_first_value_and_is_listed() -> None:
    # External case u-qwen3-14b (round 7): a bundle writer appended each counter family a
    # second time with zeros ("# TYPE vllm:prompt_tokens_total unknown"); the later zero hid
    # the prompt throughput. Prometheus refuses such a scrape; kvdoctor keeps the first value
    # (the one its family's TYPE line introduced) and says so under "not checked".
    repeat = f"# TYPE vllm:kv_cache_usage_perc unknown\nvllm:kv_cache_usage_perc{{{KEY}}} 0\n"
    obs = observe(bundle_of(BUSY + repeat, BUSY + repeat))
    assert obs.repeated == {"vllm:kv_cache_usage_perc": 2}
    s = compute_signals(bundle_of(BUSY + repeat, BUSY + repeat))
    assert s.get("kv_usage_max") == 0.75
    assert s.repeated == {"vllm:kv_cache_usage_perc": 2}
    report = diagnose(bundle_of(BUSY + repeat, BUSY + repeat)).report
    listed = [nc for nc in report.not_checked if nc.what == "repeated metric series"]
    assert len(listed) == 1 and "vllm:kv_cache_usage_perc (2×)" in listed[0].why


def test_old_name_fills_scrapes_the_new_one_lacks() -> None:
    # A server upgraded (and restarted) inside the window: first scrape old names, then new.
    s = compute_signals(bundle_of(to_old_names(BUSY), BUSY))
    assert s.get("kv_usage_max") == 0.75
    assert s.series["kv_usage"] == [(1000.0, 0.75), (1010.0, 0.75)]


def test_several_engines_are_aggregated_and_kept_per_engine() -> None:
    # Engine 1 of a data-parallel server: the idle payload relabelled.
    s = compute_signals(
        bundle_of(IDLE + relabel_engine(IDLE, "1"), BUSY + relabel_engine(IDLE, "1"))
    )
    assert s.get("engines") == 2
    assert s.get("kv_usage_max") == 0.75  # the fullest engine
    assert s.get("running_max") == 3.0  # summed
    assert s.get("requests_finished_window") == 12
    assert s.get("preemptions_window") == 5
    assert set(s.per_engine) == {
        "model_name=kvdoctor-tiny-llama,engine=0",
        "model_name=kvdoctor-tiny-llama,engine=1",
    }
    assert s.per_engine["model_name=kvdoctor-tiny-llama,engine=1"]["kv_usage_max"] == 0.0
    assert s.per_engine["model_name=kvdoctor-tiny-llama,engine=0"]["preemptions_window"] == 5


def test_several_model_names_are_summed() -> None:
    second = relabel_engine(HITS, "0", model="other-model")
    s = compute_signals(bundle_of(IDLE + relabel_engine(IDLE, "0", "other-model"), HITS + second))
    assert s.get("engines") == 2
    assert s.get("requests_finished_window") == 24
    assert s.get("prefix_queries_window") == 16800
    assert s.get("mean_prompt_len") == 700.0


def test_counter_reset_is_detected_and_never_negative() -> None:
    # idle -> hits -> restart (idle again: counters back to zero) -> hits again.
    b = bundle_of(IDLE, HITS, IDLE, HITS)
    s = compute_signals(b)
    assert s.get("counter_resets") == 1
    assert "+20s" in s.values["counter_resets"].provenance
    assert s.get("requests_finished_window") == 24
    assert s.get("prefix_queries_window") == 16800
    pre = s.series["preemptions"]
    assert all(v >= 0 for _, v in pre)
    assert s.get("prefix_hit_rate_lifetime") == pytest.approx(5632 / 8400)
    assert "since the last restart" in s.values["prefix_hit_rate_lifetime"].provenance


def test_failed_and_unusable_scrapes_are_counted_not_fatal() -> None:
    b = bundle_of(IDLE, None, "vllm:x{broken\n", "# only comments\n", HITS)
    obs = observe(b)
    assert len(obs.times) == 2
    reasons = [why for _, why in obs.failed]
    assert reasons[0].startswith("connection refused")
    assert reasons[1].startswith("unparsable payload")
    assert reasons[2].startswith("no vLLM metrics")
    s = compute_signals(b)
    assert s.get("scrapes_failed") == 3
    assert s.get("scrapes_ok") == 2


def test_nan_and_inf_values_are_treated_as_missing() -> None:
    nan = set_value(BUSY, f"vllm:kv_cache_usage_perc{{{KEY}}}", math.nan)
    inf = set_value(BUSY, f"vllm:num_requests_running{{{KEY}}}", math.inf)
    obs = observe(bundle_of(IDLE, nan, inf))
    assert obs.nonfinite_values == 2
    s = compute_signals(bundle_of(IDLE, nan, inf))
    assert s.get("kv_usage_max") == 0.75  # the NaN scrape contributes nothing
    assert s.get("running_max") == 3.0
    for v in s.values.values():
        assert not (isinstance(v.value, float) and not math.isfinite(v.value))


def test_one_scrape_gives_gauges_but_no_window() -> None:
    s = compute_signals(bundle_of(BUSY))
    assert s.get("kv_usage_last") == 0.75
    assert s.get("window_s") is None
    assert s.get("preemptions_window") is None
    assert "a window needs two" in (s.values["preemptions_window"].reason or "")
    assert s.get("preemptions_lifetime") == 5


def test_one_series_dropping_is_no_restart_and_is_left_out() -> None:
    # One counter of the busy payload falls back while every other one keeps counting: a
    # malformed series, not a restart (a restart zeroes them all, as the test above shows).
    glitch = re.sub(
        r'^(vllm:request_success_total\{[^}]*finished_reason="length"[^}]*\}) \S+$',
        r"\1 1.0",
        HITS,
        count=1,
        flags=re.M,
    )
    assert glitch != HITS
    s = compute_signals(bundle_of(IDLE, HITS, glitch, HITS))
    assert s.get("counter_resets") == 0
    # The dropped sample is left out; its series resumes at the next good one, so the window
    # counts the traffic once (as HITS -> HITS adds nothing).
    assert s.get("requests_finished_window") == 12
    assert s.decreased == {"vllm:request_success": 1}
    report = diagnose(bundle_of(IDLE, HITS, glitch, HITS))
    checks = report.report.not_checked
    row = next(n for n in checks if n.what.startswith("counters that decreased"))
    assert "vllm:request_success (1×)" in row.why


def test_process_restarts_need_most_counting_series_to_drop() -> None:
    from kvdoctor.observations import process_restarts

    nan = math.nan
    a = [1.0, 5.0, 0.5, 2.0]  # drops at 2
    b = [2.0, 6.0, 1.0, 3.0]  # drops at 2
    c = [0.0, 0.0, 0.0, 0.0]  # never counted: cannot drop, not counted
    d = [4.0, 8.0, 9.0, 3.0]  # drops at 3 alone
    restarts, glitches = process_restarts([a, b, c, d])
    assert restarts == [2]  # 2 of the 3 counting series dropped together
    assert glitches == {3: [3]}
    # A series absent around the drop does not vote.
    assert process_restarts([[1.0, 0.0], [nan, 3.0]]) == ([1], {})
    assert process_restarts([[1.0, 2.0], [3.0, 4.0]]) == ([], {})
