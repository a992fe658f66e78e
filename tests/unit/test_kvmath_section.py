"""The report's ``kv`` object (docs/report.md) and its cross-check against the server."""

from __future__ import annotations

import json

from kvdoctor.kvmath import GiB, kv_section

TINY = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "hidden_size": 256,
    "vocab_size": 512,
    "torch_dtype": "bfloat16",
}


def test_lab_server_numbers_agree() -> None:
    # The CPU lab: VLLM_CPU_KVCACHE_SPACE=1 (GiB), 128-token blocks, 8,192 blocks.
    kv = kv_section(TINY, "auto", 128, 8192, GiB, 4096.0, mean_sequence_tokens=1000.0)
    assert kv.bytes_per_token == 1024
    assert kv.capacity_tokens == 1_048_576
    assert kv.capacity_sequences == 1048
    assert kv.block_bytes == 128 * 1024
    assert kv.demand_ratio == round(4096 / 1_048_576, 6)
    assert kv.cross_check.status == "agree"
    assert kv.cross_check.ratio == 1.0


def test_fp8_halves_bytes_per_token() -> None:
    kv = kv_section(TINY, "fp8", 128, 16384, GiB, None)
    assert kv.bytes_per_token == 512 and kv.kv_dtype == "fp8"
    assert kv.cross_check.status == "agree"


def test_wrong_config_is_reported_as_mismatch() -> None:
    # The server holds 8,192 blocks in 1 GiB (1,024 B/token) but the config says 2,048 B/token.
    four_layers = {**TINY, "num_hidden_layers": 4}
    kv = kv_section(four_layers, "auto", 128, 8192, GiB, None)
    check = kv.cross_check
    assert check.status == "mismatch"
    assert check.ratio == 0.5
    assert "not the served model" in check.detail
    assert check.expected_bytes == 2 * GiB and check.reported_bytes == GiB


def test_pool_rounded_down_to_whole_blocks_still_agrees() -> None:
    # vLLM floors the pool to whole blocks: 1 GiB + a bit less than one block is fine.
    kv = kv_section(TINY, None, 128, 8192, GiB + 100_000, None)
    assert kv.cross_check.status == "agree"


def test_block_override_is_not_comparable() -> None:
    kv = kv_section(TINY, "auto", 128, 64, GiB, None, num_gpu_blocks_override=64)
    assert kv.cross_check.status == "not_comparable"
    assert kv.capacity_tokens == 64 * 128


def test_without_model_config_keys_are_present_and_null() -> None:
    kv = kv_section(None, None, 16, 1000, None, None)
    assert kv.bytes_per_token is None
    assert kv.capacity_tokens == 16_000
    assert kv.cross_check.status == "not_checked"
    assert kv.model is None


def test_capacity_from_memory_when_blocks_unknown() -> None:
    kv = kv_section(TINY, None, None, None, GiB, None)
    assert kv.capacity_tokens == 1_048_576
    assert kv.capacity_source == "kv_cache_memory_bytes ÷ bytes_per_token"


def test_bad_config_or_dtype_becomes_a_note_not_an_exception() -> None:
    kv = kv_section({"model_type": "x"}, None, 16, 10, None, None)
    assert kv.bytes_per_token is None and kv.capacity_tokens == 160
    assert any("not usable" in n for n in kv.notes)
    kv = kv_section(TINY, "turboquant_k8v4", 16, 10, None, None)
    assert kv.bytes_per_token is None and kv.model is not None
    assert any("unknown KV cache dtype" in n for n in kv.notes)


def test_section_is_deterministic_and_json_ready() -> None:
    a = kv_section(TINY, "auto", 128, 8192, GiB, 10.0, mean_sequence_tokens=3.0)
    b = kv_section(
        dict(reversed(list(TINY.items()))), "auto", 128, 8192, GiB, 10.0, mean_sequence_tokens=3.0
    )
    assert a.model_dump_json() == b.model_dump_json()
    assert json.loads(a.model_dump_json()) == a.model_dump()
    assert list(a.model_dump())[:2] == ["bytes_per_token", "capacity_tokens"]


def test_tensor_parallel_pool_is_per_gpu() -> None:
    # 4 KV heads: 2,048 B/token in all, 1,024 per GPU over TP 2; 1 GiB per GPU = 8,192 blocks.
    four_heads = {**TINY, "num_key_value_heads": 4}
    kv = kv_section(four_heads, None, 128, 8192, GiB, None, tensor_parallel_size=2)
    assert kv.bytes_per_token == 1024
    assert kv.cross_check.status == "agree"
    whole = kv_section(four_heads, None, 128, 8192, GiB, None)
    assert whole.cross_check.status == "mismatch"
    assert "tensor parallel 2" in whole.cross_check.detail
