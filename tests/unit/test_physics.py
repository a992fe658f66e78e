"""The physics default of the slow-itl symptom: GPU bandwidths and the weight-bytes estimate."""

from __future__ import annotations

from kvdoctor.rules.evaluate import evaluate
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.predicates import SignalView
from kvdoctor.signals.model import SignalSet
from kvdoctor.signals.physics import GPU_BANDWIDTH, bandwidth_of, dense_weight_bytes, weight_bits

LLAMA3_8B = {
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "torch_dtype": "bfloat16",
}


def test_nvml_names_match_the_most_specific_row() -> None:
    assert bandwidth_of("NVIDIA H100 PCIe") == (2.0e12, GPU_BANDWIDTH[4][2])
    assert bandwidth_of("NVIDIA H100 80GB HBM3")[0] == 3.35e12  # type: ignore[index]
    assert bandwidth_of("NVIDIA A100-SXM4-80GB")[0] == 2.039e12  # type: ignore[index]
    assert bandwidth_of("NVIDIA L40S")[0] == 8.64e11  # type: ignore[index]
    assert bandwidth_of("NVIDIA L4")[0] == 3.0e11  # type: ignore[index]
    assert bandwidth_of("Some Future Accelerator") is None
    assert all(src.startswith("https://") for _, _, src in GPU_BANDWIDTH)


def test_llama3_8b_weighs_about_16_gb_in_bf16() -> None:
    weights, how = dense_weight_bytes(LLAMA3_8B)
    assert weights is not None and 8.0e9 * 2 < weights < 8.1e9 * 2, how
    tied, _ = dense_weight_bytes({**LLAMA3_8B, "tie_word_embeddings": True})
    assert tied == weights - 128256 * 4096 * 2  # type: ignore[operator]
    assert dense_weight_bytes({**LLAMA3_8B, "num_local_experts": 8})[0] is None
    assert dense_weight_bytes({"hidden_size": 4096})[0] is None
    assert dense_weight_bytes({**LLAMA3_8B, "hidden_size": -1})[0] is None


def _signals(**values: object) -> SignalSet:
    ss = SignalSet()
    for k, v in values.items():
        ss.set(k, v)  # type: ignore[arg-type]
    return ss


def test_itl_four_times_the_decode_floor_is_the_symptom_without_an_slo() -> None:
    # 67 GB of weights at 3.35 TB/s: a 20 ms floor (no KV known); 80 ms is exactly 4x.
    base = dict(
        gpu_bandwidth=3.35e12, gpu_name="NVIDIA H100 80GB HBM3", weights_bytes=67_000_000_000
    )
    slow = evaluate(_signals(itl_p50=0.080, itl_p95=0.09, **base), None, load_playbooks())
    found = [f for f in slow if f.symptom == "slow-itl"]
    assert found and found[0].cause == "unidentified"
    assert found[0].basis is not None and "decode-step floor" in found[0].basis
    fine = evaluate(_signals(itl_p50=0.079, itl_p95=0.09, **base), None, load_playbooks())
    assert not [f for f in fine if f.symptom == "slow-itl"]
    # A small model: 16 GB, a 4.8 ms floor; 19.2 ms is 4x the floor but 52 tokens a second,
    # faster than anyone reads: no symptom (external cases on healthy servers).
    small = dict(base, weights_bytes=16_000_000_000)
    quick = evaluate(_signals(itl_p50=0.0192, itl_p95=0.03, **small), None, load_playbooks())
    assert not [f for f in quick if f.symptom == "slow-itl"]


def test_quantized_checkpoints_count_their_linear_weights_packed() -> None:
    full, _ = dense_weight_bytes(LLAMA3_8B)
    awq, how = dense_weight_bytes(
        {**LLAMA3_8B, "quantization_config": {"quant_method": "awq", "bits": 4}}
    )
    assert full is not None and awq is not None
    # Embeddings and the LM head (2 × 128256 × 4096 × 2 bytes) stay 16-bit; 6.98 B linear
    # weights pack to 4 bits: about 5.6 GB, what vLLM logs loading for this checkpoint.
    assert 5.4e9 < awq < 5.8e9, how
    assert "4 bits (awq)" in how
    fp8, _ = dense_weight_bytes({**LLAMA3_8B, "quantization_config": {"quant_method": "fp8"}})
    assert fp8 is not None and awq < fp8 < full
    groups = {"group_0": {"weights": {"num_bits": 8, "type": "int"}}}
    ct, _ = dense_weight_bytes(
        {
            **LLAMA3_8B,
            "quantization_config": {"quant_method": "compressed-tensors", "config_groups": groups},
        }
    )
    assert ct == fp8
    bnb, _ = dense_weight_bytes(
        {**LLAMA3_8B, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}
    )
    assert bnb == awq
    # Online quantization: an unquantized checkpoint served with --quantization fp8.
    assert dense_weight_bytes(LLAMA3_8B, "fp8")[0] == fp8
    # A config the estimate does not understand stays at the model's dtype (an upper bound).
    assert weight_bits({"quantization_config": {"quant_method": "mystery"}}) == (None, "")
    assert dense_weight_bytes(LLAMA3_8B, "mystery")[0] == full


def test_the_decode_floor_is_one_devices_share_of_the_read() -> None:
    def derived_value(ss: SignalSet, name: str) -> object:
        return SignalView(ss).value(name)

    base = dict(gpu_bandwidth=2.0e12, weights_bytes=16_000_000_000)
    one = derived_value(_signals(**base), "decode_floor")
    assert one == 0.008
    # Tensor parallelism: each of 4 ranks reads a quarter at once.
    assert derived_value(_signals(tensor_parallel_size=4, **base), "decode_floor") == 0.002
    # The start-up log's loaded weights on one device win over the config's estimate, and a
    # step passes every pipeline stage in turn.
    logged = _signals(log_weights_bytes=5_000_000_000, log_pipeline_parallel_size=2, **base)
    assert derived_value(logged, "decode_floor") == 0.005
    # A mixture of experts gets no weights estimate, so no floor (it reads routed experts).
    assert (
        derived_value(_signals(gpu_bandwidth=2.0e12, log_weights_bytes=5e9), "decode_floor") is None
    )


def test_a_mixture_of_experts_is_judged_on_every_weight_on_the_device_read_once() -> None:
    def derived_value(ss: SignalSet, name: str) -> object:
        return SignalView(ss).value(name)

    # No dense estimate (a mixture of experts): the bound reads the loaded weights, the
    # offloaded GiB and the device's share of the live KV once; no routing reads more.
    moe = dict(gpu_bandwidth=2.0e12, log_weights_bytes=4e9, tensor_parallel_size=2)
    assert derived_value(_signals(**moe), "weights_bound_floor") == 0.002
    # 1 MB per token × half of a 8,000-token pool live: 4 GB of KV, 2 GB on each rank.
    kv = dict(kv_bytes_per_token=1e6, kv_usage_mean=0.5, kv_capacity_tokens=8000)
    offload = _signals(cpu_offload_gb=2, **kv, **moe)
    assert derived_value(offload, "weights_bound_floor") == (4e9 + 2 * 2**30 + 2e9) / 2.0e12
    # Where the dense read is known, decode_floor judges and the bound stays out.
    dense = _signals(weights_bytes=16e9, **moe)
    assert derived_value(dense, "weights_bound_floor") is None

    def slow_itl(itl_p50: float) -> list[object]:
        ss = _signals(itl_p50=itl_p50, itl_p95=itl_p50 * 1.1, gpu_name="X", **moe)
        return [f for f in evaluate(ss, None, load_playbooks()) if f.symptom == "slow-itl"]

    # 4x the 2 ms bound would be 8 ms, but tokens under 50 ms are no harm a reader sees; at
    # 60 ms (30x) the stream is slow whatever the routing.
    assert not slow_itl(0.045)
    found = slow_itl(0.060)
    assert found and found[0].basis is not None and "every weight on the device" in found[0].basis
