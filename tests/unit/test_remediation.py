"""The remediation planner on the recorded lab fixtures, and vLLM's constraints in one place.

Pure logic on bundles recorded from real vLLM runs; the lab tier
(tests/lab/test_remediation_lab.py) has the real vLLM accept each plan.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import plan_bundle
from kvdoctor.remediation import EngineConfig, FindingPlan
from kvdoctor.remediation.config import normalize_args
from kvdoctor.remediation.constraints import problems, to_argv
from kvdoctor.report.model import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "bundle.tar.gz").is_file())

# The flag that by itself explains the primary finding of each fixture that runs with one.
CAUSING_FLAG = {
    "preemption-storm": "Remove --num-gpu-blocks-override 17",
    "eviction-churn": "Remove --num-gpu-blocks-override 24",
    "kv-too-small": "Remove --num-gpu-blocks-override 16",
    "long-prefill-hol": "Remove --no-enable-chunked-prefill",
    "prefix-off": "Remove --no-enable-prefix-caching",
    "fp8-kv": "Remove --kv-cache-dtype fp8",
}


@cache
def _plan(name: str) -> tuple[EngineConfig, list[Finding], list[FindingPlan]]:
    return plan_bundle(read_bundle(FIXTURES / name / "bundle.tar.gz"))


@pytest.mark.parametrize("name", NAMES)
def test_every_planned_change_is_valid_and_has_a_predicted_effect(name: str) -> None:
    cfg, findings, plans = _plan(name)
    for p in plans:
        for ch in p.changes:
            assert ch.effect, (findings[p.index].cause, ch)
            assert problems(cfg, ch.args(cfg)) == [], (findings[p.index].cause, ch)
        rendered = [ch.render(cfg) for ch in p.changes]
        printed = findings[p.index].remediation
        # Every planned change is printed, in order (playbook text lines may sit between).
        assert [line for line in printed if line in rendered] == rendered


@pytest.mark.parametrize("name", sorted(CAUSING_FLAG))
def test_the_first_change_names_the_flag_that_caused_the_finding(name: str) -> None:
    _, findings, _ = _plan(name)
    # The report's lead: the first live finding, else the first note (prefix-off: caching off
    # is a confirmed note there, issue 28).
    lead = next(f for f in findings if f.status != "refuted")
    first = lead.remediation[0]
    assert first.startswith((CAUSING_FLAG[name] + ":", CAUSING_FLAG[name] + " and ")), first


def test_preemption_storm_predicts_the_pool_without_the_override() -> None:
    _, findings, _ = _plan("preemption-storm")
    assert findings[0].remediation[0] == (
        "Remove --num-gpu-blocks-override 17: pool 2,176 → 1,048,576 tokens: holds 1,638 "
        "sequences of 640 tokens (today 3); no sequence is preempted at the window's demand"
    )


def test_a_cap_the_window_never_reached_is_not_lowered() -> None:
    # eviction-churn: --max-num-seqs 8, running never above 2, the pool holds 2: not binding.
    _, findings, _ = _plan("eviction-churn")
    lines = [line for f in findings for line in f.remediation]
    assert not any("--max-num-seqs" in line for line in lines), lines


def test_max_num_seqs_is_raised_to_what_the_traffic_needs_not_the_kv_limit() -> None:
    _, findings, _ = _plan("queueing")
    assert findings[0].remediation[0].startswith("Raise --max-num-seqs from 2 to 16:")


def test_long_prefill_re_enables_chunked_prefill_and_never_a_refused_budget() -> None:
    cfg, findings, _ = _plan("long-prefill-hol")
    first = findings[0].remediation[0]
    assert first.startswith(
        "Remove --no-enable-chunked-prefill and lower --max-num-batched-tokens from 8192 to 128:"
    )
    # The old advice, refused by vLLM 0.32 at start-up, is what the constraints catch.
    bad = dict(cfg.args, **{"max-num-batched-tokens": 4096})
    assert any("without chunked prefill" in p for p in problems(cfg, bad))


def test_head_of_line_also_bounds_one_prompts_share_of_each_step() -> None:
    # The long-prefill-hol server (chunking off, 8,192-token budget) with a head-of-line
    # finding: turning chunking on alone leaves newcomers queued behind a partial prefill (the
    # lab measured 98 % of an 8,000-token prefill at a 512-token budget), so the same change
    # sets --long-prefill-token-threshold, and vLLM's rules accept the set.
    from kvdoctor.pipeline import diagnose
    from kvdoctor.remediation.planner import plan

    bundle = read_bundle(FIXTURES / "long-prefill-hol" / "bundle.tar.gz")
    d = diagnose(bundle)
    cfg, findings, _ = _plan("long-prefill-hol")
    hol = findings[0].model_copy(update={"symptom": "high-ttft", "cause": "long-prefill-hol"})
    (fp,) = plan([hol], cfg, d.signals)
    (undo, *_) = fp.changes
    flags = {e.flag: e.after for e in undo.edits}
    assert "long-prefill-token-threshold" in flags and "enable-chunked-prefill" in flags
    threshold, budget = flags["long-prefill-token-threshold"], flags["max-num-batched-tokens"]
    assert isinstance(threshold, int) and isinstance(budget, int) and threshold * 2 == budget
    assert problems(cfg, undo.args(cfg)) == []
    assert "partial prefill takes each step's whole remaining budget" in undo.render(cfg)
    # Prefill interference (decodes stalled) needs no bound: running decodes go first each step.
    (fp_itl,) = plan([findings[0]], cfg, d.signals)
    assert all(e.flag != "long-prefill-token-threshold" for e in fp_itl.changes[0].edits)


def test_block_size_change_is_dropped_when_the_override_pool_could_not_hold_max_model_len() -> None:
    # preemption-storm: 17 blocks × 32 tokens = 544 < --max-model-len 2048: vLLM would refuse.
    _, findings, _ = _plan("preemption-storm")
    prefix = next(f for f in findings if f.cause == "block-larger-than-prefix")
    assert not any("--block-size" in line for line in prefix.remediation)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ({"max-num-batched-tokens": 4096}, "below --max-model-len 8192 without chunked prefill"),
        ({"long-prefill-token-threshold": 512}, "acts only with chunked prefill"),
        ({"gpu-memory-utilization": 1.2}, "outside (0, 1]"),
        ({"block-size": 17}, "not a multiple of 32"),
        ({"max-model-len": 40000}, "above the model's 16384"),
        ({"max-num-seqs": 9000}, "below --max-num-seqs 9000"),
        ({"kv-cache-dtype": "int3"}, "not a KV cache dtype"),
    ],
)
def test_constraints_refuse_known_bad_flag_sets(edit: dict[str, object], expected: str) -> None:
    cfg, _, _ = _plan("long-prefill-hol")  # --max-model-len 8192 --no-enable-chunked-prefill
    args = dict(cfg.args)
    args.update(normalize_args(edit))
    found = problems(cfg, args)
    assert any(expected in p for p in found), found


def test_constraints_accept_the_server_as_it_runs_and_the_same_with_chunked_prefill() -> None:
    cfg, _, _ = _plan("long-prefill-hol")
    assert problems(cfg, cfg.args) == []
    args = dict(cfg.args)
    args.pop("enable-chunked-prefill")
    args.update({"max-num-batched-tokens": 2048, "long-prefill-token-threshold": 1024})
    assert problems(cfg, args) == []


def test_argv_spells_booleans_the_way_vllm_parses_them() -> None:
    args = normalize_args({"no-enable-prefix-caching": True, "max-num-seqs": 4, "port": 1})
    assert args == {"enable-prefix-caching": False, "max-num-seqs": 4, "port": 1}
    assert to_argv(args) == ["--no-enable-prefix-caching", "--max-num-seqs", "4"]


def test_a_cap_the_window_never_hit_is_not_raised() -> None:
    # The queueing recording with --max-num-seqs 64 instead of 2: running (at most 2) never hit
    # the cap, so raising it would change nothing; compute is the limit.
    b = read_bundle(FIXTURES / "queueing" / "bundle.tar.gz")
    assert b.engine_args is not None
    args = dict(b.engine_args.args, **{"max-num-seqs": 64})
    edited = b.model_copy(update={"engine_args": b.engine_args.model_copy(update={"args": args})})
    _, findings, _ = plan_bundle(edited)
    queueing = next(f for f in findings if f.cause == "queueing")
    assert not any("--max-num-seqs" in line.split(":")[0] for line in queueing.remediation)
    # Nor are replicas counted from a limit the window never reached (the peak over the
    # running maximum): throughput at capacity was never measured, and the report says so.
    assert not any("replicas" in line for line in queueing.remediation)
    assert any("never brought this server to its limit" in n for n in queueing.not_advised)


def test_kv_read_bound_without_the_gpus_adds_no_replica_the_window_did_not_measure() -> None:
    from kvdoctor.pipeline import diagnose
    from kvdoctor.remediation import engine_config, plan

    b = read_bundle(FIXTURES / "healthy" / "bundle.tar.gz")
    d = diagnose(b)
    cfg = engine_config(b, d.signals, d.report.kv)
    assert cfg.gpu_count is None  # the CPU lab: NVML saw no device
    finding = Finding(
        id="slow-itl",
        symptom="slow-itl",
        cause="kv-read-bound",
        status="suspected",
        severity="warning",
        confidence=0.6,
        title="t",
    )
    (p,) = plan([finding], cfg, d.signals)
    rendered = [ch.render(cfg) for ch in p.changes]
    assert rendered[0].startswith("Set --kv-cache-dtype fp8: ")
    assert "pool 1,048,576 → 2,097,152 tokens" in rendered[0]
    # The healthy window never reached its limit: no replica count, and the reason is stated.
    assert not any("replicas" in line for line in rendered)
    assert any(n.startswith("Adding replicas: ") for n in p.not_advised)
    assert not any("--tensor-parallel-size" in line for line in rendered)
    assert all(problems(cfg, ch.args(cfg)) == [] for ch in p.changes)


def test_a_flag_value_the_bundle_does_not_record_is_never_stated() -> None:
    # History from Prometheus has no process arguments: the same storm without engine_args.json
    # (and without the start-up log that names the override). vLLM's default (128 on the CPU
    # build) is not the server's --max-num-seqs 16, so no current value may be quoted.
    bundle = read_bundle(FIXTURES / "preemption-storm" / "bundle.tar.gz")
    history = bundle.model_copy(update={"engine_args": None, "logs": None})
    cfg, findings, _ = plan_bundle(history)
    assert not cfg.knows("max-num-seqs") and cfg.knows("block-size")
    lead = findings[0]
    assert (lead.symptom, lead.cause) == ("preemption", "kv-capacity")
    first = lead.remediation[0]
    assert first.startswith(
        "Lower --max-num-seqs to 3 (the bundle does not record its value): at most 3 sequences"
    ), first
    assert "so it is set to at least that many" in first, first
    lines = [line for f in findings for line in f.remediation]
    assert not any(f"max-num-seqs from {cfg.max_num_seqs}" in line for line in lines), lines
    # With the command line recorded, the same change states the server's own value.
    _, live, _ = _plan("preemption-storm")
    assert any(
        line.startswith("Or lower --max-num-seqs from 16 to 3:") for line in live[0].remediation
    )
