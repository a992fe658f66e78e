"""The locker math: every number of issue 3's "Must reproduce exactly" section, plus layouts.

Pure arithmetic, so no fakes are needed: models come from explicit shapes, the built-in
catalog (public config values) or small config dicts written here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath import (
    GiB,
    KiB,
    KvModel,
    MiB,
    capacity_sequences,
    catalog_entry,
    catalog_names,
    decode_read,
    kv_bytes,
    kv_pool_bytes,
    load_model_config,
    logits_bytes,
    max_context,
    parse_count,
    parse_size,
    plan,
    resolve_model,
)

LLAMA3_8B = KvModel.from_catalog("llama-3-8b")

# The lab's tiny model (kvdoctor/lab): 2 layers, 2 KV heads, head_dim 64, bf16.
TINY_CONFIG = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "hidden_size": 256,
    "vocab_size": 512,
    "torch_dtype": "bfloat16",
}


# ---------------------------------------------------------------- issue 3, Llama-3-8B


def test_llama3_8b_bytes_per_token_is_128_kib() -> None:
    assert LLAMA3_8B.bytes_per_token() == 131_072 == 128 * KiB
    assert LLAMA3_8B.layout == "gqa"


def test_llama3_8b_one_sequence_of_8192_is_1_gib() -> None:
    assert kv_bytes(LLAMA3_8B, 8192) == GiB


def test_llama3_8b_32_unshared_sequences_of_8192_is_32_gib() -> None:
    assert kv_bytes(LLAMA3_8B, 8192, sequences=32) == 32 * GiB


def test_llama3_8b_decode_reads_twice_the_weights() -> None:
    read = decode_read(LLAMA3_8B, context=8192, batch=32, weights_bytes=16 * 10**9)
    assert read.kv_bytes == 32 * GiB
    # 32 GiB against 16 GB of weights: "twice" (2.15×, the GiB/GB gap).
    assert read.ratio is not None and round(read.ratio) == 2
    assert read.ratio == pytest.approx(32 * GiB / 16e9, rel=1e-6)
    # With 16 GiB of weights the ratio is exactly 2 and the crossover is 128 Ki tokens.
    exact = decode_read(LLAMA3_8B, context=8192, batch=32, weights_bytes=16 * GiB)
    assert exact.ratio == 2.0
    assert exact.crossover_tokens == 16 * GiB // 131_072 == 131_072


def test_llama3_8b_catalog_weights_are_about_16_gb() -> None:
    weights = LLAMA3_8B.weight_bytes()
    assert weights == 16_060_000_000


@pytest.mark.parametrize(("context", "sequences"), [(4096, 122), (32768, 15)])
def test_llama3_8b_capacity_on_80_gib(context: int, sequences: int) -> None:
    got = capacity_sequences(
        LLAMA3_8B, context, gpu_bytes=80 * GiB, weights_bytes=16 * GiB, overhead_bytes=3 * GiB
    )
    assert got == sequences


def test_capacity_respects_gpu_memory_utilization_exactly() -> None:
    # 0.9 × 80 GiB = 72 GiB exactly (no float rounding): 72 − 16 − 3 = 53 GiB → 106 × 512 MiB.
    pool = kv_pool_bytes(80 * GiB, 16 * GiB, 3 * GiB, 0.9)
    assert pool == 53 * GiB
    assert capacity_sequences(LLAMA3_8B, 4096, 80 * GiB, 16 * GiB, 3 * GiB, 0.9) == 106


def test_capacity_is_zero_when_weights_do_not_fit() -> None:
    assert kv_pool_bytes(16 * GiB, 20 * GiB) == 0
    assert capacity_sequences(LLAMA3_8B, 4096, 16 * GiB, 20 * GiB) == 0


# ---------------------------------------------------------------- issue 3, Qwen2.5


@pytest.mark.parametrize(
    ("name", "bpt", "unshared"),
    [
        ("qwen2.5-0.5b", 12 * KiB, 84 * KiB),
        ("qwen2.5-1.5b", 28_672, 168 * KiB),
        ("qwen2.5-7b", 56 * KiB, 392 * KiB),
    ],
)
def test_qwen25_bytes_per_token(name: str, bpt: int, unshared: int) -> None:
    model = KvModel.from_catalog(name)
    assert model.bytes_per_token() == bpt
    assert model.bytes_per_token_unshared() == unshared


def test_qwen25_sliding_window_disabled_is_ignored() -> None:
    # Qwen2.5 configs carry sliding_window with use_sliding_window: false.
    model = KvModel.from_catalog("qwen2.5-7b")
    assert model.window_layers == 0 and model.sliding_window is None
    assert model.layer_mix == "uniform"


def test_qwen25_15b_logits_at_8192_tokens() -> None:
    model = KvModel.from_catalog("qwen2.5-1.5b")
    assert model.vocab_size == 151_936
    assert logits_bytes(8192, model.vocab_size, 2) == 2_489_319_424


# ---------------------------------------------------------------- issue 3, the lesson's model


def test_24_layer_8_kv_head_model() -> None:
    model = KvModel.from_shape(layers=24, kv_heads=8, head_dim=128, dtype="float16")
    assert model.bytes_per_token() == 96 * KiB
    assert kv_bytes(model, 8000) == 750 * MiB
    assert kv_bytes(model, 8000, sequences=50) == 37_500 * MiB
    # "37.5 GB" in the lesson is the MiB figure read as thousands.
    assert kv_bytes(model, 8000, sequences=50) / MiB / 1000 == 37.5


# ---------------------------------------------------------------- issue 3, the lab's tiny model


def test_tiny_lab_model_bytes_per_token() -> None:
    tiny = KvModel.from_hf_config(TINY_CONFIG)
    assert tiny.bytes_per_token() == 1024
    assert tiny.bytes_per_token("fp8") == 512
    # The real server reports 1 GiB of KV as 1,048,576 tokens.
    assert GiB // tiny.bytes_per_token() == 1_048_576


@pytest.mark.parametrize("kv_dtype", ["fp8", "fp8_e4m3", "fp8_e5m2", "FP8"])
def test_fp8_variants_are_one_byte(kv_dtype: str) -> None:
    assert KvModel.from_hf_config(TINY_CONFIG).bytes_per_token(kv_dtype) == 512


@pytest.mark.parametrize("kv_dtype", ["nvfp4", "int4_per_token_head"])
def test_four_bit_kv_is_half_a_byte(kv_dtype: str) -> None:
    assert LLAMA3_8B.bytes_per_token(kv_dtype) == 131_072 // 4


def test_four_bit_odd_sizes_round_up_to_whole_bytes() -> None:
    # 2 × 1 layer × 1 head × head_dim 3 × ½ byte = 3 bytes; 1 head × 1 dim ... = 1 byte (ceil).
    odd = KvModel.from_shape(layers=1, kv_heads=1, head_dim=1)
    assert odd.bytes_per_token("nvfp4") == 1
    assert isinstance(odd.bytes_per_token("nvfp4"), int)
    assert kv_bytes(odd, 3, "nvfp4") == 3


def test_auto_follows_model_dtype_and_float32_serves_as_bf16() -> None:
    f16 = KvModel.from_hf_config({**TINY_CONFIG, "torch_dtype": "float16"})
    assert f16.kv_dtype_name("auto") == "float16"
    f32 = KvModel.from_hf_config({**TINY_CONFIG, "torch_dtype": "float32"})
    # vLLM downcasts float32 checkpoints to 16-bit under --dtype auto.
    assert f32.kv_dtype_name("auto") == "bfloat16"
    assert f32.bytes_per_token() == 1024
    assert f32.bytes_per_token("float32") == 2048


# ---------------------------------------------------------------- layouts


def test_mqa_multi_query_config() -> None:
    cfg = {"n_layer": 4, "n_head": 8, "n_embd": 512, "multi_query": True, "vocab_size": 100}
    model = KvModel.from_hf_config(cfg)
    assert model.layout == "mqa" and model.kv_heads == 1
    # head_dim absent → hidden / heads = 64; query heads never enter the product.
    assert model.head_dim == 64
    assert model.bytes_per_token("float16") == 2 * 4 * 1 * 64 * 2


def test_mha_when_kv_heads_absent() -> None:
    cfg = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256}
    model = KvModel.from_hf_config(cfg)
    assert model.layout == "mha" and model.kv_heads == 4 and model.head_dim == 64


def test_deepseek_v2_lite_mla() -> None:
    model = KvModel.from_catalog("deepseek-v2-lite")
    assert model.layout == "mla"
    # One latent (512) plus the RoPE key (64) per layer, not 2 × 16 heads × 192.
    assert model.bytes_per_token() == 27 * (512 + 64) * 2 == 31_104
    assert model.bytes_per_token("fp8") == 27 * 576
    # Uncompressed MHA would cache K (128 + 64) and V (128) for each of 16 heads.
    assert model.bytes_per_token_unshared() == 27 * 16 * (192 + 128) * 2


def test_deepseek_v3_mla() -> None:
    model = KvModel.from_catalog("deepseek-v3")
    assert model.bytes_per_token() == 61 * 576 * 2 == 70_272
    # vLLM's fp8_ds_mla row: 512 fp8 + 4 float32 scales + 64 bf16 RoPE = 656 bytes per layer.
    assert model.bytes_per_token("fp8_ds_mla") == 61 * 656


def test_fp8_ds_mla_refused_for_non_mla() -> None:
    with pytest.raises(KvdoctorError, match="MLA models only"):
        LLAMA3_8B.bytes_per_token("fp8_ds_mla")


def test_gemma2_alternates_local_and_global() -> None:
    model = KvModel.from_catalog("gemma-2-9b")
    assert model.layer_mix == "local-global"
    assert model.attention_layers == 42 and model.window_layers == 21
    per_layer = 2 * 8 * 256 * 2
    assert model.bytes_per_token() == 42 * per_layer
    assert model.bytes_per_token_beyond_window() == 21 * per_layer
    # Within the window every layer grows; past it only the 21 global layers do.
    assert model.sequence_bytes(4096) == 4096 * 42 * per_layer
    assert model.sequence_bytes(8192) == per_layer * (21 * 8192 + 21 * 4096)


def test_gemma2_27b_shape() -> None:
    model = KvModel.from_catalog("gemma-2-27b")
    assert model.window_layers == 23 and model.attention_layers == 46
    assert model.bytes_per_token() == 46 * 2 * 16 * 128 * 2


def test_mistral_v01_sliding_window_caps_the_live_state() -> None:
    model = KvModel.from_catalog("mistral-7b-v0.1")
    assert model.layer_mix == "sliding" and model.sliding_window == 4096
    assert model.bytes_per_token() == 131_072
    assert model.sequence_bytes(32_768) == model.sequence_bytes(4096) == 512 * MiB
    assert model.bytes_per_token_beyond_window() == 0
    # Not bound by KV: any context fits once the window is paid for.
    assert max_context(model, users=10, pool_bytes=10 * 512 * MiB) is None


def test_mistral_v03_has_no_window() -> None:
    assert KvModel.from_catalog("mistral-7b-v0.3").layer_mix == "uniform"


def test_layer_types_exclude_attention_free_layers() -> None:
    cfg = {
        **TINY_CONFIG,
        "num_hidden_layers": 4,
        "layer_types": [
            "linear_attention",
            "linear_attention",
            "linear_attention",
            "full_attention",
        ],
    }
    model = KvModel.from_hf_config(cfg)
    assert model.attention_layers == 1 and model.attention_free_layers == 3
    assert model.layer_mix == "hybrid"
    assert model.bytes_per_token() == 512
    assert any("attention-free" in note for note in model.notes)


def test_jamba_attention_period() -> None:
    cfg = {**TINY_CONFIG, "num_hidden_layers": 16, "attn_layer_period": 8, "attn_layer_offset": 4}
    model = KvModel.from_hf_config(cfg)
    assert model.attention_layers == 2 and model.attention_free_layers == 14


def test_nemotron_h_pattern() -> None:
    cfg = {**TINY_CONFIG, "num_hidden_layers": 6, "hybrid_override_pattern": "M-M*-*"}
    assert KvModel.from_hf_config(cfg).attention_layers == 2


def test_text_config_of_a_multimodal_wrapper() -> None:
    cfg = {"model_type": "llava", "text_config": TINY_CONFIG, "torch_dtype": "bfloat16"}
    assert KvModel.from_hf_config(cfg).bytes_per_token() == 1024


# ---------------------------------------------------------------- planning


def test_plan_that_fits() -> None:
    p = plan(LLAMA3_8B, users=50, context=4096, pool_bytes=61 * GiB)
    assert p.fits and p.need_bytes == 25 * GiB and p.max_users == 122


def test_plan_that_does_not_fit_offers_three_ways_out() -> None:
    p = plan(LLAMA3_8B, users=200, context=4096, pool_bytes=61 * GiB)
    assert not p.fits
    assert p.need_bytes == 100 * GiB
    assert p.max_users == 122  # fewer users
    assert p.max_context == 61 * GiB // (200 * 131_072)  # shorter context: 2,498 tokens
    assert kv_bytes(LLAMA3_8B, p.max_context, sequences=200) <= 61 * GiB
    assert kv_bytes(LLAMA3_8B, p.max_context + 1, sequences=200) > 61 * GiB
    fp8 = {q.kv_dtype: q for q in p.quantized}["fp8"]
    assert fp8.fits and fp8.need_bytes == 50 * GiB and fp8.max_users == 244


def test_plan_offers_nothing_smaller_than_current_dtype() -> None:
    p = plan(LLAMA3_8B, users=1, context=10, pool_bytes=GiB, kv_dtype="nvfp4")
    assert p.quantized == ()


# ---------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("80GiB", 80 * GiB),
        ("16GB", 16 * 10**9),
        ("3 GiB", 3 * GiB),
        ("1.5GiB", 3 * GiB // 2),
        ("512 MiB", 512 * MiB),
        ("40Gi", 40 * GiB),
        ("1024", 1024),
        ("2 TB", 2 * 10**12),
        ("1_000 B", 1000),
    ],
)
def test_parse_size(text: str, value: int) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize(
    "text", ["", "GiB", "-3GiB", "80G", "12 parsecs", "0.5B", "1.2.3GB", "nan"]
)
def test_parse_size_refuses_nonsense(text: str) -> None:
    with pytest.raises(KvdoctorError) as info:
        parse_size(text)
    assert "\n" not in str(info.value)


def test_parse_count() -> None:
    assert parse_count("8,192") == 8192
    with pytest.raises(KvdoctorError):
        parse_count("32k")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        ({"num_attention_heads": 4, "hidden_size": 256}, "number of layers"),
        ({"num_hidden_layers": 2, "hidden_size": 256}, "attention heads"),
        ({"num_hidden_layers": 2, "num_attention_heads": 4}, "neither head_dim nor hidden_size"),
        ({"num_hidden_layers": 2, "num_attention_heads": 3, "hidden_size": 256}, "not divisible"),
        ({**TINY_CONFIG, "num_key_value_heads": 3}, "not a multiple"),
        ({**TINY_CONFIG, "num_hidden_layers": "two"}, "positive integer"),
        ({**TINY_CONFIG, "torch_dtype": "float8"}, "unknown model dtype"),
        ({**TINY_CONFIG, "kv_lora_rank": 512}, "qk_rope_head_dim"),
        ({"model_type": "mamba", "num_hidden_layers": 2}, "attention-free"),
        ({**TINY_CONFIG, "layer_types": ["full_attention"]}, "layer_types"),
        ({**TINY_CONFIG, "layer_types": ["mamba", "mamba"]}, "no attention layers"),
    ],
)
def test_bad_configs_raise_one_line(cfg: dict[str, object], message: str) -> None:
    with pytest.raises(KvdoctorError, match=message) as info:
        KvModel.from_hf_config(cfg)
    assert "\n" not in str(info.value)


def test_unknown_kv_dtype() -> None:
    with pytest.raises(KvdoctorError, match="unknown KV cache dtype"):
        LLAMA3_8B.bytes_per_token("fp3")


def test_negative_tokens_refused() -> None:
    with pytest.raises(KvdoctorError):
        kv_bytes(LLAMA3_8B, -1)


def test_gpu_memory_utilization_out_of_range() -> None:
    with pytest.raises(KvdoctorError, match="gpu_memory_utilization"):
        kv_pool_bytes(80 * GiB, 0, 0, 1.5)


# ---------------------------------------------------------------- catalog and config lookup


def test_catalog_has_the_issue_models_each_with_a_source() -> None:
    names = set(catalog_names())
    required = {
        "llama-3-8b",
        "llama-3-70b",
        "llama-3.1-405b",
        "qwen2.5-0.5b",
        "qwen2.5-1.5b",
        "qwen2.5-7b",
        "qwen2.5-72b",
        "mistral-7b-v0.1",
        "mixtral-8x7b",
        "gemma-2-9b",
        "gemma-2-27b",
        "deepseek-v2-lite",
        "deepseek-v3",
        "qwen3-8b",
        "qwen3-30b-a3b",
    }
    assert required <= names
    for name in names:
        entry = catalog_entry(name)
        assert entry["source"].startswith("https://huggingface.co/")
        assert entry["hf_id"] in entry["source"]
        assert KvModel.from_catalog(name).bytes_per_token() > 0


def test_catalog_lookup_by_hf_id_case_insensitive() -> None:
    assert KvModel.from_catalog("Qwen/Qwen2.5-7B").bytes_per_token() == 56 * KiB
    assert KvModel.from_catalog("QWEN2.5-7B").name == "qwen2.5-7b"
    with pytest.raises(KvdoctorError, match="unknown model"):
        KvModel.from_catalog("gpt-5")


def test_load_model_config_file_and_dir(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    assert load_model_config(str(tmp_path)) == TINY_CONFIG
    assert load_model_config(str(tmp_path / "config.json")) == TINY_CONFIG
    assert resolve_model(str(tmp_path)).bytes_per_token() == 1024


def test_load_model_config_from_hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "hub" / "models--acme--tiny"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(TINY_CONFIG))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123\n")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert load_model_config("acme/tiny") == TINY_CONFIG
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    assert resolve_model("acme/tiny").bytes_per_token() == 1024


def test_load_model_config_catalog_fallback_and_errors(tmp_path: Path) -> None:
    assert load_model_config("llama-3-8b")["num_key_value_heads"] == 8
    with pytest.raises(KvdoctorError, match="cannot find model config"):
        load_model_config(str(tmp_path / "nope"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(KvdoctorError, match="not valid JSON"):
        load_model_config(str(tmp_path / "bad.json"))
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(KvdoctorError, match="not a JSON object"):
        load_model_config(str(tmp_path / "list.json"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(KvdoctorError, match=r"no config\.json"):
        load_model_config(str(tmp_path / "empty"))


# ---------------------------------------------------------------- tensor parallelism


def test_per_gpu_divides_kv_heads_and_replicates_when_fewer() -> None:
    seventy = KvModel.from_catalog("llama-3-70b")
    assert seventy.bytes_per_token() == 320 * KiB
    assert seventy.per_gpu(4).bytes_per_token() == 80 * KiB
    # 8 KV heads on 16 ranks: each rank still holds one head (replicated).
    assert seventy.per_gpu(16).bytes_per_token() == 40 * KiB
    whole = seventy.weight_bytes()
    assert whole is not None and seventy.per_gpu(4).weight_bytes() == -(-whole // 4)
    assert seventy.per_gpu(1) is seventy


def test_per_gpu_replicates_the_mla_latent() -> None:
    v3 = KvModel.from_catalog("deepseek-v3")
    assert v3.per_gpu(8).bytes_per_token() == v3.bytes_per_token()


def test_per_gpu_refuses_zero() -> None:
    with pytest.raises(KvdoctorError, match="at least 1"):
        LLAMA3_8B.per_gpu(0)


def test_catalog_file_lives_inside_the_package_so_it_ships_in_the_wheel() -> None:
    import kvdoctor
    from kvdoctor.kvmath import entries as catalog

    package_dir = Path(kvdoctor.__file__).resolve().parent
    assert catalog._CATALOG_PATH.is_file()
    assert catalog._CATALOG_PATH.is_relative_to(package_dir)
