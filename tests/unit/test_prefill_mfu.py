"""The prefill's model FLOPs utilization: peak FLOPs per GPU, FLOPs per prompt token, and the
signal on recorded external cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.kvmath import KvModel
from kvdoctor.signals.compute import compute_signals
from kvdoctor.signals.physics import GPU_PEAK_FLOPS, peak_flops_of, prefill_flops_per_token

CASES = Path(__file__).resolve().parents[2] / "cases"

LLAMA3_70B = {
    "model_type": "llama",
    "hidden_size": 8192,
    "num_hidden_layers": 80,
    "vocab_size": 128256,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "torch_dtype": "bfloat16",
}

MIXTRAL_8X7B = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 32000,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "torch_dtype": "bfloat16",
}


def test_peak_flops_match_the_most_specific_row_and_double_for_fp8_weights() -> None:
    assert peak_flops_of("NVIDIA H100 PCIe")[0] == 7.56e14  # type: ignore[index]
    assert peak_flops_of("NVIDIA H100 80GB HBM3")[0] == 9.89e14  # type: ignore[index]
    assert peak_flops_of("NVIDIA GH200 480GB")[0] == 9.89e14  # type: ignore[index]
    assert peak_flops_of("NVIDIA L40S")[0] == 3.62e14  # type: ignore[index]
    assert peak_flops_of("NVIDIA L40")[0] == 1.81e14  # type: ignore[index]
    assert peak_flops_of("NVIDIA H100 80GB HBM3", fp8_weights=True)[0] == 2 * 9.89e14  # type: ignore[index]
    # No FP8 tensor cores on an A100: fp8 weights run at the 16-bit rate.
    assert peak_flops_of("NVIDIA A100-SXM4-80GB", fp8_weights=True)[0] == 3.12e14  # type: ignore[index]
    assert peak_flops_of("Some Future Accelerator") is None
    assert all(src.startswith("https://") for *_, src in GPU_PEAK_FLOPS)


def test_a_dense_token_costs_two_flops_per_weight_plus_its_attention() -> None:
    model = KvModel.from_hf_config(LLAMA3_70B)
    short, _ = prefill_flops_per_token(LLAMA3_70B, model, 1.0)
    # Llama-3-70B has about 69.5 billion weights outside the embeddings and LM head.
    assert short is not None and 2 * 68e9 < short < 2 * 70e9
    long, how = prefill_flops_per_token(LLAMA3_70B, model, 8000.0)
    # QK^T and AV over 8,000 keys: 2 × 64 heads × (128 + 128) × 80 layers × 8,000 more.
    assert long is not None and long - short == pytest.approx(2 * 64 * 256 * 80 * 7999)
    assert "dense" in how


def test_a_mixture_of_experts_token_counts_only_its_routed_experts() -> None:
    model = KvModel.from_hf_config(MIXTRAL_8X7B)
    flops, how = prefill_flops_per_token(MIXTRAL_8X7B, model, 1.0)
    # Mixtral 8x7B: about 12.9 billion active weights per token (2 of 8 experts) less the
    # embeddings and LM head.
    assert flops is not None and 2 * 12.5e9 < flops < 2 * 13e9
    assert "2 of 8 experts" in how


def test_configs_without_the_sizes_get_no_estimate() -> None:
    cfg = {k: v for k, v in LLAMA3_70B.items() if k != "intermediate_size"}
    flops, why = prefill_flops_per_token(cfg, KvModel.from_hf_config(cfg), 1000.0)
    assert flops is None and "intermediate_size" in why
    moe = {**cfg, "num_experts": 512, "num_experts_per_tok": 10}
    flops, why = prefill_flops_per_token(moe, KvModel.from_hf_config(moe), 1000.0)
    assert flops is None and "expert sizes" in why


def _signals(case: str) -> dict[str, object]:
    return compute_signals(read_bundle(CASES / case / "bundle")).flat()


def test_a_batched_benchmark_prefill_on_eight_h200s_runs_at_about_30_percent() -> None:
    # 960 prompts of 3,100 tokens in 180 s, 32 in flight: the engine prefilled all the while
    # (Σ prefill time over 30× the window), so the rate is the window's own.
    s = _signals("o-llama70b-osl1-prefill-only-ttft-healthy")
    assert s["prefill_tokens_per_busy_s"] == pytest.approx(16536, rel=0.01)
    assert s["gpu_peak_flops"] == 9.89e14
    assert s["prefill_mfu"] == pytest.approx(0.30, abs=0.02)


def test_an_idle_clock_prefill_on_an_a10_runs_far_below_its_peak() -> None:
    s = _signals("q-qwen3-4b-awq-idle-gap-ttft")
    assert s["prefill_mfu"] is not None and s["prefill_mfu"] < 0.1  # type: ignore[operator]


def test_an_unknown_expert_size_leaves_the_utilization_unknown_with_its_reason() -> None:
    ss = compute_signals(read_bundle(CASES / "t-qwen38-next-gb10-block1600-healthy" / "bundle"))
    assert ss.get("prefill_mfu") is None
    assert "expert sizes" in (ss.values["prefill_mfu"].reason or "")
