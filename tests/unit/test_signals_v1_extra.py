"""Signals from the metrics vLLM added in 0.12-0.33, on real and generated expositions."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.signals.compute import compute_signals

DATA = Path(__file__).resolve().parents[1] / "data"
GENERATED = DATA / "vllm-generated"


def _two_scrapes(first: str, second: str) -> Bundle:
    return Bundle(
        manifest=Manifest(
            created_by="test", endpoint="test", started_at=0.0, ended_at=10.0, interval_s=10.0
        ),
        scrapes=[Scrape(t=0.0, status=200, text=first), Scrape(t=10.0, status=200, text=second)],
    )


def test_real_032_exposition_reads_sources_and_admission() -> None:
    idle = (DATA / "vllm-0.32" / "metrics-idle.txt").read_text()
    hits = (DATA / "vllm-0.32" / "metrics-prefix-hits.txt").read_text()
    ss = compute_signals(_two_scrapes(idle, hits))
    # 12 requests of 700 tokens: 5,632 of 8,400 prompt tokens came from the local cache.
    assert ss.get("prompt_cached_share_window") == round(5632 / 8400, 4)
    assert ss.get("prompt_tokens_external_window") == 0
    assert ss.get("prompt_tokens_cached_offloaded_window") == 0
    assert ss.get("waiting_deferred_max") == 0
    assert ss.get("external_prefix_queries_window") == 0
    # No connector: no external query, so no rate (with the reason saying so).
    assert ss.get("external_prefix_hit_rate_window") is None
    reason = ss.values["external_prefix_hit_rate_window"].reason or ""
    assert "no external prefix-cache queries" in reason
    assert ss.get("mamba_cache_mode") == "none"
    assert ss.get("kv_offloading") is False
    # Recorded without --kv-cache-metrics: residency is absent, and the reason says how to get it.
    assert ss.get("kv_block_lifetime_p50") is None
    assert "--kv-cache-metrics" in (ss.values["kv_block_lifetime_p50"].reason or "")


@pytest.mark.parametrize(
    ("version", "present", "absent"),
    [
        ("0.10.0", [], ["waiting_deferred_max", "external_prefix_queries_window"]),
        ("0.12.0", ["external_prefix_queries_window"], ["waiting_deferred_max"]),
        (
            "0.24.0",
            [
                "waiting_deferred_max",
                "prompt_cached_share_window",
                "prefill_kv_computed_tokens_mean",
            ],
            ["request_preemptions_mean", "prompt_tokens_cached_offloaded_window"],
        ),
        (
            "0.33.0",
            [
                "waiting_deferred_max",
                "request_preemptions_mean",
                "prompt_tokens_cached_offloaded_window",
            ],
            [],
        ),
    ],
)
def test_read_where_present_not_checked_where_absent(
    version: str, present: list[str], absent: list[str]
) -> None:
    bundle = read_bundle(GENERATED / f"baseline-{version}")
    d = diagnose(bundle)
    for name in present:
        assert d.signals.get(name) is not None, name
    not_checked = {e.what: e.why for e in d.report.not_checked}
    for name in absent:
        sv = d.signals.values[name]
        assert sv.value is None
        assert sv.reason is not None and "absent from every scrape" in sv.reason
        assert "+ exports it" in sv.reason, sv.reason  # names the release that adds it
    if "waiting_deferred_max" in absent:
        why = not_checked["deferred admission (waiting requests by reason)"]
        assert "vLLM 0.24.0+" in why
    # Every release reads its own ITL name into the same signal.
    assert d.signals.get("itl_p50") is not None


def test_feature_metrics_are_not_checked_only_when_the_feature_is_configured() -> None:
    plain = diagnose(read_bundle(GENERATED / "baseline-0.33.0"))
    assert not any("speculative" in e.what for e in plain.report.not_checked)
    assert plain.signals.get("spec_decode_configured") is False
    spec = diagnose(read_bundle(GENERATED / "spec-decode-low-acceptance"))
    assert spec.signals.get("spec_decode_acceptance_rate") == 0.05
    assert spec.signals.get("spec_decode_accepted_per_draft") == 0.2
    offload = diagnose(read_bundle(GENERATED / "external-cache-never-serves"))
    assert offload.signals.get("kv_offloading") is True
    assert offload.signals.get("kv_offload_load_bytes_window") == 0
    assert offload.signals.get("external_prefix_hit_rate_window") == 0.0


@pytest.mark.parametrize(
    ("bundle", "cause"),
    [
        ("deferred-admission", "deferred-admission"),
        ("external-cache-never-serves", "external-cache-never-serves"),
        ("spec-decode-low-acceptance", "spec-decode-low-acceptance"),
        ("kv-transfer-trouble", "kv-transfer-trouble"),
        ("cudagraph-batch-above-capture", "cudagraph-batch-above-capture"),
        ("cudagraph-profiling-shrinks-pool", "cudagraph-profiling-shrinks-pool"),
        ("hybrid-alignment-miss", "hybrid-alignment-miss"),
    ],
)
def test_each_new_cause_is_primary_on_its_bundle_and_replays_identically(
    bundle: str, cause: str
) -> None:
    from kvdoctor.report.render import render_json

    b = read_bundle(GENERATED / bundle)
    first = diagnose(b).report
    # The report's lead: hybrid-alignment-miss is an info cause with no harm measured, a note.
    lead = first.lead()
    assert lead is not None and lead.cause == cause
    assert render_json(first) == render_json(diagnose(read_bundle(GENERATED / bundle)).report)


def test_real_032_kv_residency_histograms() -> None:
    """Recorded with --kv-cache-metrics --kv-cache-metrics-sample 1.0 (tests/data/vllm-0.32)."""
    idle = (DATA / "vllm-0.32" / "metrics-kv-residency-idle.txt").read_text()
    after = (DATA / "vllm-0.32" / "metrics-kv-residency-after.txt").read_text()
    ss = compute_signals(_two_scrapes(idle, after))
    assert ss.get("kv_block_evictions_sampled_window") == 69
    for name in (
        "kv_block_lifetime_p50",
        "kv_block_idle_before_evict_p50",
        "kv_block_reuse_gap_p50",
    ):
        value = ss.get(name)
        assert isinstance(value, float) and 0 < value < 60, (name, value)
    # A block idles at most as long as it lives.
    idle_p50, life_p50 = ss.get("kv_block_idle_before_evict_p50"), ss.get("kv_block_lifetime_p50")
    assert isinstance(idle_p50, float) and isinstance(life_p50, float) and idle_p50 <= life_p50
    # 4,096 of 15,000 prompt tokens were prefix-cache hits in this run.
    assert ss.get("prompt_cached_share_window") == round(4096 / 15000, 4)


def test_cudagraph_lines_from_the_startup_log() -> None:
    # The real lab log (CPU build, --enforce-eager): no capture sizes, so nothing is claimed.
    log = (DATA / "vllm-0.32" / "log-startup-healthy.txt").read_text()
    b = _two_scrapes("", "")
    b = b.model_copy(update={"logs": log, "scrapes": []})
    ss = compute_signals(b)
    assert ss.get("log_cudagraph_max_capture_size") is None
    assert ss.get("log_cudagraph_truncated") is False
    # Generated GPU start-up log in vLLM 0.32's line formats.
    gen = compute_signals(read_bundle(GENERATED / "cudagraph-profiling-shrinks-pool"))
    assert gen.get("log_cudagraph_max_capture_size") == 512
    assert gen.get("log_cudagraph_kv_util_taken") == 0.04
    assert gen.get("log_cudagraph_suggested_utilization") == 0.94
    assert gen.get("log_cudagraph_memory_gib") == 0.41


def test_hybrid_model_from_config_and_from_labels() -> None:
    b = read_bundle(GENERATED / "hybrid-alignment-miss")
    ss = compute_signals(b)
    assert ss.get("hybrid_model") is True
    assert ss.get("prefix_hit_granularity_tokens") == 1024
    # 28 Mamba1 layers of (24,576 conv + 131,072 SSM) elements; the generated labels carry
    # mamba_ssm_cache_dtype only where vLLM 0.33 has it, else the SSM state is bf16.
    assert ss.get("mamba_state_bytes_per_seq") == 8_716_288
    # Without the model config the cache_config_info labels (mamba_cache_mode=align) still say so.
    labels_only = compute_signals(b.model_copy(update={"model_config_raw": None}))
    assert labels_only.get("hybrid_model") is True
    # The real 0.32 lab (dense tiny Llama, prefix caching on, mamba_cache_mode=none).
    dense = compute_signals(
        read_bundle(DATA.parent.parent / "fixtures" / "healthy" / "bundle.tar.gz")
    )
    assert dense.get("hybrid_model") is False
    assert dense.get("prefix_hit_granularity_tokens") == 128


def test_odd_labels_args_and_log_lines_never_raise() -> None:
    from kvdoctor.bundle.model import EngineArgs

    text = (
        'vllm:num_requests_running{engine="0",model_name="m"} 1\n'
        'vllm:cache_config_info{engine="0",mamba_block_size="abc",cache_hit_alignment_tokens="x",'
        'mamba_cache_mode="align",kv_offloading_size="None",sliding_window="?"} 1\n'
        'vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="deferred"} 2\n'
    )
    b = _two_scrapes(text, text).model_copy(
        update={
            "engine_args": EngineArgs(argv=None, args={"kv-transfer-config": "{not json"}),
            "model_config_raw": {"model_type": "jamba", "num_hidden_layers": "x"},
            "logs": "Truncating max_cudagraph_capture_size to 256\n"
            "'max_cudagraph_capture_size': 1e3\n"
            "CUDA graph memory profiling is enabled. --gpu-memory-utilization=0.9. is equivalent",
        }
    )
    ss = compute_signals(b)
    assert ss.get("hybrid_model") is True  # from mamba_cache_mode, the config being unreadable
    assert ss.get("prefix_hit_granularity_tokens") is None
    assert ss.get("kv_connector") is None
    assert ss.get("log_cudagraph_truncated") is True
    assert ss.get("log_cudagraph_kv_util_taken") is None
    assert ss.get("waiting_deferred_max") == 2


def test_v0_spec_decode_counters_read_with_k_from_the_command_line() -> None:
    # vLLM 0.5-0.7 (V0) counts drafted and accepted tokens but not the drafts: k comes from
    # --num-speculative-tokens (external case l-ngram: n-gram drafts of 5, 6 % accepted).
    from kvdoctor.bundle.model import EngineArgs

    first = (
        "vllm:spec_decode_num_draft_tokens_total 0\n"
        "vllm:spec_decode_num_accepted_tokens_total 0\n"
        "vllm:spec_decode_num_emitted_tokens_total 0\n"
    )
    second = (
        "vllm:spec_decode_num_draft_tokens_total 1000\n"
        "vllm:spec_decode_num_accepted_tokens_total 60\n"
        "vllm:spec_decode_num_emitted_tokens_total 260\n"
    )
    b = _two_scrapes(first, second).model_copy(
        update={
            "engine_args": EngineArgs(
                args={"speculative-model": "[ngram]", "num-speculative-tokens": 5}
            )
        }
    )
    ss = compute_signals(b)
    assert ss.get("spec_decode_configured") is True
    assert ss.get("spec_decode_acceptance_rate") == 0.06
    assert ss.get("spec_decode_tokens_per_draft") == 5.0
    assert ss.get("spec_decode_accepted_per_draft") == 0.3
    # Without k, no per-draft figure is invented.
    bare = compute_signals(_two_scrapes(first, second))
    assert bare.get("spec_decode_accepted_per_draft") is None
    # Advice names the flags this server was started with, not the later JSON form.
    assert ss.get("spec_k_setting") == "--num-speculative-tokens"
    assert ss.get("spec_off_change") == "remove --speculative-model and --num-speculative-tokens"
    assert bare.get("spec_k_setting") == "num_speculative_tokens in --speculative-config"


# A V0 server's only speculation figures are its log lines (external case zo-ngram, vLLM 0.5.0:
# n-gram drafts of 8, 13 % accepted, /metrics without speculation counters).
V0_SPEC = (
    "INFO 07-17 09:03:05 metrics.py:362] Speculative metrics: Draft acceptance rate: 0.121, "
    "System efficiency: 0.218, Number of speculative tokens: 8, Number of accepted tokens: 438, "
    "Number of draft tokens tokens: 3632, Number of emitted tokens tokens: 892.\n"
    "INFO 07-17 09:09:11 metrics.py:362] Speculative metrics: Draft acceptance rate: 0.130, "
    "System efficiency: 0.226, Number of speculative tokens: 8, Number of accepted tokens: "
    "41749, Number of draft tokens tokens: 322136, Number of emitted tokens tokens: 82016.\n"
)
V1_SPEC = (
    "INFO 04-08 14:20:08 [metrics.py:86] SpecDecoding metrics: Mean acceptance length: 1.46, "
    "Accepted throughput: 13.6 tokens/s, Drafted throughput: 148.5 tokens/s, Accepted: 136 "
    "tokens, Drafted: 1485 tokens, Per-position acceptance rate: 0.262, 0.102, 0.047, 0.019, "
    "0.008, Avg Draft acceptance rate: 9.2%\n"
    "INFO 04-08 14:20:18 [metrics.py:86] SpecDecoding metrics: Mean acceptance length: 1.48, "
    "Accepted throughput: 15.4 tokens/s, Drafted throughput: 160.5 tokens/s, Accepted: 154 "
    "tokens, Drafted: 1605 tokens, Per-position acceptance rate: 0.262, 0.102, 0.047, 0.019, "
    "0.008, Avg Draft acceptance rate: 9.6%\n"
)


def test_speculation_figures_come_from_the_log_when_metrics_lack_them() -> None:
    from kvdoctor.signals.v1_extra import spec_decode_from_log

    # V0 lines are cumulative since start: the window is the last less the first.
    tokens, accepted, drafts, how = spec_decode_from_log(V0_SPEC)  # type: ignore[misc]
    assert (tokens, accepted, drafts) == (322136 - 3632, 41749 - 438, (322136 - 3632) / 8)
    assert "k=8" in how
    # V1 lines are per interval: summed; k is the number of per-position rates.
    tokens, accepted, drafts, how = spec_decode_from_log(V1_SPEC)  # type: ignore[misc]
    assert (tokens, accepted, drafts) == (3090, 290, 3090 / 5)
    assert spec_decode_from_log("INFO nothing about speculation\n") is None
    assert spec_decode_from_log(None) is None
    empty = "vllm:num_requests_running 1\n"
    ss = compute_signals(_two_scrapes(empty, empty).model_copy(update={"logs": V0_SPEC}))
    assert ss.get("spec_decode_acceptance_rate") == round(41311 / 318504, 4)
    assert ss.get("spec_decode_tokens_per_draft") == 8.0
    assert ss.get("spec_decode_draft_tokens_window") == 318504
    # Counters in /metrics win over the log.
    first = (
        "vllm:spec_decode_num_draft_tokens_total 0\nvllm:spec_decode_num_accepted_tokens_total 0\n"
    )
    second = (
        "vllm:spec_decode_num_draft_tokens_total 1000\n"
        "vllm:spec_decode_num_accepted_tokens_total 600\n"
    )
    both = compute_signals(_two_scrapes(first, second).model_copy(update={"logs": V0_SPEC}))
    assert both.get("spec_decode_draft_tokens_window") == 1000
    # ...and the log's lines still say how many tokens a draft holds (V0 exports no drafts).
    assert both.get("spec_decode_tokens_per_draft") == 8.0
    assert both.get("spec_decode_accepted_per_draft") == 4.8


def test_a_silent_hits_counter_gives_way_to_the_tokens_the_engine_served_from_cache() -> None:
    idle = (DATA / "vllm-0.32" / "metrics-idle.txt").read_text()
    hits = (DATA / "vllm-0.32" / "metrics-prefix-hits.txt").read_text()
    real = compute_signals(_two_scrapes(idle, hits))
    assert real.get("prefix_hits_counter_silent") is False
    assert real.get("prefix_hits_window") == 5632
    # The same window with the hits counter never moving (a path where it is not wired): the
    # 5,632 prompt tokens served from the local cache are the hits.
    silent_text = hits.replace(
        'vllm:prefix_cache_hits_total{engine="0",model_name="kvdoctor-tiny-llama"} 5632.0',
        'vllm:prefix_cache_hits_total{engine="0",model_name="kvdoctor-tiny-llama"} 0.0',
    )
    assert silent_text != hits
    silent = compute_signals(_two_scrapes(idle, silent_text))
    assert silent.get("prefix_hits_counter_silent") is True
    assert silent.get("prefix_hits_window") == 5632
    assert silent.get("prefix_hit_rate_window") == pytest.approx(5632 / 8400)
    assert "hits counter stayed at 0" in silent.values["prefix_hits_window"].provenance
    assert silent.get("prefix_hit_rate_lifetime") is None
    # A counter at 0 with nothing served from the cache either is a real 0 % (no substitution).
    nothing = silent_text.replace(
        'source="local_cache_hit"} 5632.0', 'source="local_cache_hit"} 0.0'
    )
    assert nothing != silent_text
    cold = compute_signals(_two_scrapes(idle, nothing))
    assert cold.get("prefix_hits_counter_silent") is False
    assert cold.get("prefix_hit_rate_window") == 0


def test_the_pool_while_requests_wait_is_read_at_the_queue_and_either_side() -> None:
    from kvdoctor.signals.common import Out
    from kvdoctor.signals.metrics import _kv_while_waiting

    def run(kv: list[float], waiting: list[float]) -> object:
        out = Out()
        times = [10.0 * i for i in range(len(kv))]
        kv_series = list(zip(times, kv, strict=True))
        _kv_while_waiting(out, kv_series, list(zip(times, waiting, strict=True)), "kv")
        return out.ss.get("kv_usage_max_waiting")

    # The queue at scrapes 1-2; the pool filled at scrape 6 with nothing waiting.
    assert run([0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.95], [0, 30, 5, 0, 0, 0, 0]) == 0.6
    # A neighbour counts: the pool full one scrape after the last one with a queue.
    assert run([0.5, 0.6, 0.92, 0.4], [0, 3, 0, 0]) == 0.92
    assert run([0.5, 0.6], [0, 0]) is None
