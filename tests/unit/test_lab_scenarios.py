"""The scenario registry is data; these checks keep its numbers consistent with vLLM 0.32."""

from __future__ import annotations

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.scenarios import BLOCK_SIZE, SCENARIOS, get_scenario
from kvdoctor.report.model import SYMPTOMS
from kvdoctor.rules.load import load_playbooks

REQUIRED = {
    "healthy",
    "preemption-storm",
    "prefix-off",
    "prefix-short",
    "prefix-drift",
    "eviction-churn",
    "queueing",
    "long-prefill-hol",
    "fp8-kv",
    "kv-too-small",
}


def _flag(args: tuple[str, ...], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def test_every_required_scenario_is_registered() -> None:
    assert set(SCENARIOS) == REQUIRED


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_scenario_pool_fits_max_model_len_unless_meant_to_fail(name: str) -> None:
    sc = SCENARIOS[name]
    blocks = _flag(sc.engine_args, "--num-gpu-blocks-override")
    max_len = int(_flag(sc.engine_args, "--max-model-len") or 0)
    assert max_len > 0, "every scenario pins --max-model-len (the default is 16,384)"
    if blocks is None:
        assert not sc.fails_at_startup
        return
    # vLLM 0.32 keeps one block as the null block (16 blocks -> estimated max length 1,920).
    usable = BLOCK_SIZE * (int(blocks) - 1)
    assert (max_len > usable) == sc.fails_at_startup


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_workload_requests_fit_the_server(name: str) -> None:
    sc = SCENARIOS[name]
    max_len = int(_flag(sc.engine_args, "--max-model-len") or 0)
    if sc.fails_at_startup:
        assert sc.workload == ()
        return
    assert sc.workload, "a scenario that starts must drive a workload"
    for phase in sc.workload:
        assert phase.spec.prompt_tokens + phase.spec.max_tokens <= max_len
        assert phase.spec.tag == "kvdoctor-lab"


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_expected_diagnosis_names_a_real_playbook_cause(name: str) -> None:
    sc = SCENARIOS[name]
    if name == "healthy" or sc.expected.symptom is None:
        # Nothing to find (healthy, or traffic the server cannot tell from healthy).
        assert sc.expected.symptom is None and sc.expected.cause is None
        return
    assert sc.expected.symptom in SYMPTOMS
    causes = {(pb.symptom, c.id) for pb in load_playbooks() for c in pb.causes}
    assert (sc.expected.symptom, sc.expected.cause) in causes
    assert sc.demonstrates and sc.title


def test_only_fp8_needs_a_reference_server_and_it_uses_auto() -> None:
    with_ref = [s for s in SCENARIOS.values() if s.reference_args is not None]
    assert [s.name for s in with_ref] == ["fp8-kv"]
    (fp8,) = with_ref
    assert _flag(fp8.engine_args, "--kv-cache-dtype") == "fp8"
    assert fp8.reference_args is not None
    assert "--kv-cache-dtype" not in fp8.reference_args


def test_phases_group_in_order() -> None:
    groups = SCENARIOS["eviction-churn"].phases_by_group()
    assert len(groups) == 1 and len(groups[0]) == 2


def test_unknown_scenario_is_a_one_line_error() -> None:
    with pytest.raises(KvdoctorError, match="unknown lab scenario 'nope'; known: "):
        get_scenario("nope")


def test_cli_lists_every_scenario_with_its_expected_diagnosis() -> None:
    from click.testing import CliRunner

    from kvdoctor.commands.lab import lab

    result = CliRunner().invoke(lab, ["scenarios", "-v"], standalone_mode=False)
    assert result.exception is None
    for name, sc in SCENARIOS.items():
        assert f"{name}: {sc.title}" in result.output
        if sc.expected.cause:
            assert f"expected: {sc.expected.symptom}/{sc.expected.cause}" in result.output
    assert "CPU build: " in result.output


def test_host_sized_prompt_takes_the_prefill_time_the_scenario_needs() -> None:
    from kvdoctor.lab.workload import PREFILL_PROBE_TOKENS, sized_prompt_tokens

    assert PREFILL_PROBE_TOKENS == 2048
    # The first probe (warm-up) is left out; the quickest other one times the prefill.
    # A host that prefills 2,048 tokens in 0.3 s needs 8,192 for 1.2 s: capped at 8,000.
    assert sized_prompt_tokens([3.0, 0.31, 0.3], 1.2, 2048, 8000) == 8000
    # 2,048 in 0.6 s: 4,096 tokens take 1.2 s (whole 128-token blocks).
    assert sized_prompt_tokens([2.0, 0.6, 0.7], 1.2, 2048, 8000) == 4096
    assert sized_prompt_tokens([2.0, 0.55], 1.2, 2048, 8000) == 4480
    # A slow host (1.25 s for 2,048) gets the least the scenario allows, not less.
    assert sized_prompt_tokens([5.0, 1.25, 1.3], 1.2, 2048, 8000) == 2048
    # One timing only: it is used. None: the scenario as designed.
    assert sized_prompt_tokens([0.6], 1.2, 2048, 8000) == 4096
    assert sized_prompt_tokens([], 1.2, 2048, 8000) == 8000


def test_only_long_prefill_hol_is_sized_to_the_host() -> None:
    sized = {n: s.host_sized for n, s in SCENARIOS.items() if s.host_sized is not None}
    assert list(sized) == ["long-prefill-hol"]
    hol = SCENARIOS["long-prefill-hol"]
    sizing = sized["long-prefill-hol"]
    assert sizing is not None
    # The most is the length the scenario was designed with; it fits the server's max-model-len.
    assert hol.workload[sizing.phase].spec.prompt_tokens == sizing.most == 8000
    assert sizing.most < int(_flag(hol.engine_args, "--max-model-len"))
