"""Advice that is possible on the server in front of you: each change checked against the
bundle's own numbers before it is printed (issue: every change possible).

Five shapes from the field: a start-up out-of-memory with vLLM's own hint, a CUDA-graph capture
gap, head-of-line blocking (no replicas from a count that never reached its limit), memory on a
multi-GPU server (vLLM's own workers are not "another process"; memory per device) and a
preemption storm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _bundle_factory import bundle

from kvdoctor.bundle.model import GpuDevice, GpuProcess, GpuSample
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import plan_bundle
from kvdoctor.remediation.config import config_from_signals
from kvdoctor.remediation.constraints import problems
from kvdoctor.remediation.planner import apply_plans, plan
from kvdoctor.report.model import Finding
from kvdoctor.rules.evaluate import triage
from kvdoctor.rules.load import load_playbooks
from kvdoctor.signals.compute import compute_signals
from kvdoctor.signals.model import SignalSet

GIB = 1 << 30
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = Path(__file__).resolve().parents[2] / "cases"
SAMPLER_HINT = (
    "Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine"
)


def _signals(**values: Any) -> SignalSet:
    s = SignalSet()
    for name, value in values.items():
        s.set(name, value, provenance="test")
    return s


def _finding(symptom: str, cause: str) -> Finding:
    return Finding(
        id=symptom,
        symptom=symptom,  # type: ignore[arg-type]
        cause=cause,
        status="suspected",
        severity="critical",
        confidence=0.7,
        title="t",
    )


def _advise(signals: SignalSet, findings: list[Finding] | None = None) -> list[Finding]:
    if findings is None:
        t = triage(signals, [], load_playbooks())
        findings = [*t.findings, *t.notes]
    cfg = config_from_signals(signals)
    plans = plan(findings, cfg, signals)
    for p in plans:
        for ch in p.changes:
            assert problems(cfg, ch.args(cfg)) == [], ch
    return apply_plans(findings, cfg, plans)


def test_start_up_oom_gets_the_change_vllm_hints_and_never_a_utilization_below_the_weights() -> (
    None
):
    # An 8 GiB card at --gpu-memory-utilization 0.78; the weights alone take 3 GiB (0.375 of
    # it), and the sampler's warm-up at 256 dummy requests ran out of memory.
    s = _signals(
        log_oom=True,
        log_vllm_hint=SAMPLER_HINT,
        log_weights_bytes=3 * GIB,
        gpu_memory_total_bytes=8 * GIB,
        gpu_memory_used_fraction=0.8,
        gpu_other_process_bytes=0,
        gpu_memory_utilization=0.78,
        max_num_seqs=256,
        max_model_len=4096,
        kv_bytes_per_token=131072,
    )
    (peak,) = [f for f in _advise(s) if f.cause == "activation-peak"]
    first = peak.remediation[0]
    assert first.startswith("Lower --max-num-seqs from 256 to 128: "), first
    assert SAMPLER_HINT in first  # vLLM's own line is the evidence
    # Lowering the utilization to a share the weights alone exceed is never printed; the
    # report says what would have to be true instead.
    crowded = {n: v.value for n, v in s.values.items()} | {"gpu_other_process_bytes": 6 * GIB}
    (other,) = _advise(_signals(**crowded), [_finding("gpu-oom", "other-process")])
    assert not any("--gpu-memory-utilization" in line for line in other.remediation)
    (why,) = other.not_advised
    assert "the weights alone take at least 3.0 GiB of the device's 8.0 GiB" in why
    assert "it would need" in why


def test_run_time_oom_on_tensor_parallel_lowers_by_vllms_own_pool_accounting() -> None:
    # External case g-mrv2 (two 24 GiB cards, tensor parallel 2, Gemma 4 with an
    # int8_per_token_head cache): vLLM sized an 11.43 GiB pool per device holding 622,848
    # tokens, so one 262,144-token request needs 4.8 GiB of it. The config's whole-model bytes
    # per token (all layers at full length, both ranks) would put that request above the card
    # and refuse every lower utilization; and a KV dtype kvdoctor's list does not know is this
    # server's own flag, never a reason to print nothing.
    s = _signals(
        log_oom=True,
        gpu_memory_total_bytes=24 * GIB,
        gpu_memory_used_fraction=0.986,
        gpu_other_process_bytes=0,
        gpu_memory_utilization=0.94,
        log_available_kv_bytes=int(11.43 * GIB),
        num_gpu_blocks=38_928,
        block_size=16,
        max_model_len=262_144,
        tensor_parallel_size=2,
        cache_dtype="int8_per_token_head",
        kv_bytes_per_token=245_760,
    )
    (oom,) = _advise(s, [_finding("gpu-oom", "utilization-too-high")])
    first = oom.remediation[0]
    assert first.startswith("Lower --gpu-memory-utilization from 0.94 to 0.89: "), first
    assert "the engine's own memory needs 0.67 of the device" in first
    assert oom.not_advised == []


def test_start_up_refusal_always_gets_a_concrete_change() -> None:
    # "No available memory for the cache blocks" at 0.97: raising is impossible, lowering makes
    # it worse, and no length was estimated: the profiling peak is what can move.
    s = _signals(log_no_cache_memory=True, gpu_memory_utilization=0.97, max_num_batched_tokens=8192)
    (f,) = [f for f in _advise(s) if f.cause == "kv-pool-too-small"]
    assert f.remediation, f
    assert f.remediation[0].startswith("Lower --max-num-batched-tokens from 8192 to 4096: ")


def test_capture_oom_without_a_stated_utilization_still_gets_a_concrete_change() -> None:
    # External case g-mrv2 (vLLM 0.25.1, 8 x L40S): the server ran out of memory while it
    # captured CUDA graphs at start-up; --gpu-memory-utilization was not given and defaults
    # differ between releases, so no "lower from X" can be stated; no capture can.
    s = _signals(log_oom=True, log_oom_phase="cuda-graph-capture", max_model_len=32768)
    (oom,) = _advise(s, [_finding("gpu-oom", "utilization-too-high")])
    assert oom.remediation, oom
    first = oom.remediation[0]
    assert first.startswith("Add --enforce-eager: "), first
    assert "capture that ran out of memory" in first
    # An OOM elsewhere with no utilization known gets no invented utilization change.
    s = _signals(log_oom=True, log_oom_phase="serving", max_model_len=32768)
    (oom,) = _advise(s, [_finding("gpu-oom", "utilization-too-high")])
    assert not any("--gpu-memory-utilization from" in line for line in oom.remediation)


def test_a_draining_burst_behind_a_full_pool_is_sized_by_the_ttft_objective_or_explained() -> None:
    # External case o-qwen36 (round 5): 82 requests waiting behind a full pool drain to 10 at
    # 0.24 requests/s; arrivals kept pace with the one replica in the window, so demand over
    # throughput says one replica, yet the burst waits minutes. Never "no remediation is
    # known": sized by the user's TTFT objective when given, else what would size it.
    case = CASES / "o-qwen36-35b-mtp-kv-full-admission" / "bundle"
    b = read_bundle(case)
    _, findings, plans = plan_bundle(b)
    (adm,) = [p for f, p in zip(findings, plans, strict=True) if f.cause == "kv-admission"]
    assert not adm.changes
    assert any("TTFT objective (--slo ttft-p95=SECONDS)" in n for n in adm.not_advised)
    _, findings, plans = plan_bundle(b.model_copy(update={"slo": {"ttft-p95": 60.0}}))
    (adm,) = [p for f, p in zip(findings, plans, strict=True) if f.cause == "kv-admission"]
    (change,) = adm.changes
    assert change.text == "Raise replicas from 1 to 6", change
    assert "within the TTFT objective of 60 s" in change.effect


def test_cuda_graph_gap_is_a_capture_size_not_two_more_sequences() -> None:
    s = _signals(
        running_max=100,
        max_num_seqs=128,
        log_cudagraph_max_capture_size=64,
        itl_p50=0.02,
        itl_p99=0.2,
    )
    (f,) = _advise(s, [_finding("slow-itl", "cudagraph-batch-above-capture")])
    assert f.remediation[0].startswith("Set --max-cudagraph-capture-size 104: ")  # 8 × 13
    assert not any("--max-num-seqs" in line for line in f.remediation)


def test_head_of_line_blocking_never_raises_replicas() -> None:
    # One long prompt blocks short ones: one request ran at a time while 16 waited, far below
    # --max-num-seqs 128. The window never measured what one replica does at its limit.
    s = _signals(
        ttft_p50=0.2,
        ttft_p95=6.0,
        ttft_p99=8.0,
        queue_time_p95=5.5,
        queue_time_mean=3.0,
        ttft_mean=3.5,
        running_max=1,
        waiting_max=16,
        max_num_seqs=128,
        kv_usage_max=0.2,
        mean_prompt_len=600,
        max_prompt_len_seen=16384,
        mean_generation_len=64,
        max_num_batched_tokens=8192,
        requests_finished_window=40,
        window_s=60,
    )
    advised = _advise(s)
    assert advised, "a finding is expected"
    for f in advised:
        assert not any("replicas" in line.lower() for line in f.remediation), f
    queue = [f for f in advised if f.cause == "queueing"]
    for f in queue:
        assert any("never brought this server to its limit" in n for n in f.not_advised)


def test_multi_gpu_vllm_workers_are_not_another_process_and_memory_is_per_device() -> None:
    # Two 24 GiB cards under tensor parallel 2: vLLM's two workers (named "python3" by NVML,
    # by PID in vLLM's own log) hold 22 GiB each; a foreign process holds 1.5 GiB of card 1.
    def device(i: int, pid: int) -> GpuDevice:
        procs = [GpuProcess(pid=pid, name="python3", used_memory=22 * GIB)]
        if i == 1:
            procs.append(GpuProcess(pid=999, name="jupyter", used_memory=3 * GIB // 2))
        return GpuDevice(
            index=i,
            name="NVIDIA GeForce RTX 4090",
            memory_total=24 * GIB,
            memory_used=sum(p.used_memory or 0 for p in procs),
            processes=procs,
        )

    samples = [
        GpuSample(t=1_700_000_000.0 + k, devices=[device(0, 101), device(1, 102)]) for k in range(3)
    ]
    logs = (
        "(VllmWorker TP0 pid=101) INFO Model loading took 7.5 GiB memory and 3.1 seconds\n"
        "(VllmWorker TP1 pid=102) INFO Model loading took 7.5 GiB memory and 3.1 seconds\n"
        "(VllmWorker TP1 pid=102) ERROR torch.OutOfMemoryError: CUDA out of memory.\n"
    )
    b = bundle("healthy").model_copy(update={"gpu": samples, "logs": logs})
    s = compute_signals(b)
    assert s.get("gpu_other_process_bytes") == 3 * GIB // 2  # not 45.5 GiB over two cards
    assert s.get("gpu_device_count") == 2
    assert s.get("gpu_memory_total_bytes") == 24 * GIB
    _, findings, _ = plan_bundle(b)
    titles = " ".join(f.title for f in findings)
    assert "45" not in titles and "44" not in titles


def test_preemption_storm_undoes_the_override_and_every_change_is_valid() -> None:
    cfg, findings, plans = plan_bundle(read_bundle(FIXTURES / "preemption-storm" / "bundle.tar.gz"))
    storm = findings[0]
    assert storm.cause == "kv-capacity"
    assert storm.remediation[0].startswith("Remove --num-gpu-blocks-override 17: ")
    # The window's 7 sequences at once never reached --max-num-seqs 16: no replica count.
    assert not any("replicas" in line for line in storm.remediation)
    for p in plans:
        for ch in p.changes:
            assert problems(cfg, ch.args(cfg)) == []


def test_preemption_at_a_running_count_the_mean_length_fits_caps_one_below_it() -> None:
    # External case j-glm47: 26 preemptions with 8 running in a 270,336-token pool that holds 8
    # sequences of the mean 33,331 tokens; no device memory known. The window measured that 8
    # do not fit, so the change is 7, never "none that this bundle supports".
    s = _signals(
        running_max=8,
        max_num_seqs=16,
        preemptions_window=26,
        kv_usage_max=0.975,
        block_size=128,
        num_gpu_blocks=2112,
        mean_prompt_len=32307,
        mean_generation_len=1024,
    )
    (f,) = _advise(s, [_finding("preemption", "kv-capacity")])
    assert f.remediation[0].startswith("Lower --max-num-seqs from 16 to 7: ")
    assert "preempted 26 times with up to 8 sequences running" in f.remediation[0]


def test_no_preemption_at_a_running_count_that_fits_changes_nothing_about_sequences() -> None:
    s = _signals(
        running_max=8,
        max_num_seqs=16,
        preemptions_window=0,
        kv_usage_max=0.975,
        block_size=128,
        num_gpu_blocks=2112,
        mean_prompt_len=32307,
        mean_generation_len=1024,
    )
    (f,) = _advise(s, [_finding("preemption", "kv-capacity")])
    assert not any("--max-num-seqs" in line for line in f.remediation)


def test_preemption_with_two_running_never_serialises_the_server() -> None:
    s = _signals(
        running_max=2,
        max_num_seqs=8,
        preemptions_window=121,
        kv_usage_max=1.0,
        block_size=128,
        num_gpu_blocks=24,
        mean_prompt_len=1000,
        mean_generation_len=232,
    )
    (f,) = _advise(s, [_finding("preemption", "kv-capacity")])
    assert not any("--max-num-seqs from 8 to 1" in line for line in f.remediation)


def test_a_4_bit_cache_stepped_back_to_fp8_halves_the_pool_it_states() -> None:
    # External case r-nvfp4 (round 6, dev): an nvfp4 cache of 6.1M tokens stepped back to fp8
    # printed "6,142,976 → 12,285,952 tokens": 8 bits a value is twice a 4-bit cache's bytes.
    b = read_bundle(CASES / "r-nvfp4-kv-trtllm-qwen35-397b-b200" / "bundle")
    _, advised, _ = plan_bundle(b)
    f = next(x for x in advised if x.cause == "fp8-kv-cache")
    first, second = f.remediation[0], f.remediation[1]
    assert first.startswith("Set --kv-cache-dtype fp8: ")
    assert "pool 6,142,976 → 3,071,488 tokens" in first
    assert "pool 6,142,976 → 1,535,744 tokens" in second  # 16 bits: a quarter


def test_a_token_budget_just_above_the_largest_graph_is_put_on_the_capture_ladder() -> None:
    # External case q-minimax (round 6, dev): budget 700, graphs up to 688 on each of two
    # data-parallel engines (~350 sequences each, which the graphs cover).
    b = read_bundle(CASES / "q-minimax-dp2-batched-700-eager" / "bundle")
    _, advised, _ = plan_bundle(b)
    f = next(x for x in advised if x.cause == "cudagraph-batch-above-capture")
    assert f.remediation[0].startswith("Raise --max-num-batched-tokens from 700 to 704: ")
    assert not any("--max-cudagraph-capture-size" in line for line in f.remediation)


def test_a_gpu_chunk_is_never_sized_below_what_shortens_a_step() -> None:
    # External case u-qwen3-14b (one A100, 16,000-token prompts, 1.17 ms per prompt token):
    # the linear estimate asked for 64-token chunks, 250 steps per prompt, on a card whose
    # step costs one weights' read below a few hundred tokens. The advice stops at 512 and
    # says that the rest is compute.
    b = read_bundle(CASES / "u-qwen3-14b-awq-16k-prompts-prefill-bound" / "bundle")
    _, findings, _ = plan_bundle(b)
    lines = [line for f in findings for line in f.remediation]
    lowered = [line for line in lines if line.startswith("Lower --max-num-batched-tokens")]
    assert lowered, lines
    assert lowered[0].startswith("Lower --max-num-batched-tokens from 2048 to 512: "), lowered
    assert "the rest is prefill compute" in lowered[0]


def test_a_cpu_server_keeps_the_measured_chunk() -> None:
    # The lab's long-prefill-hol (vLLM's CPU build): no roofline ridge at these sizes, so the
    # chunk the measured stall asks for stands.
    _, findings, _ = plan_bundle(read_bundle(FIXTURES / "long-prefill-hol" / "bundle.tar.gz"))
    first = findings[0].remediation[0]
    assert "lower --max-num-batched-tokens from 8192 to 128" in first, first
