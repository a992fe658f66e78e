"""Mamba state of hybrid models (worked numbers by hand, different geometries)."""

from __future__ import annotations

from typing import Any

import pytest

from kvdoctor.kvmath import KvModel

# Jamba-shaped: 32 layers, one attention layer in 8 (4 attention, 28 Mamba1), hidden 4096.
JAMBA: dict[str, Any] = {
    "model_type": "jamba",
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
    "attn_layer_period": 8,
    "attn_layer_offset": 4,
    "mamba_d_state": 16,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "torch_dtype": "bfloat16",
}


def test_jamba_mamba1_state() -> None:
    m = KvModel.from_hf_config(JAMBA)
    assert (m.attention_layers, m.attention_free_layers) == (4, 28)
    # inner = 2 × 4096 = 8192; conv 8192 × 3 = 24,576; SSM 8192 × 16 = 131,072 elements.
    assert (m.mamba_conv_elems, m.mamba_ssm_elems) == (24_576, 131_072)
    assert m.mamba_state_bytes_per_seq() == 28 * (24_576 + 131_072) * 2 == 8_716_288
    # fp32 SSM state (--mamba-ssm-cache-dtype float32): conv stays bf16.
    assert m.mamba_state_bytes_per_seq("float32") == 28 * (24_576 * 2 + 131_072 * 4)
    # KV only on the 4 attention layers: 2 × 4 × 8 × 128 × 2 B.
    assert m.bytes_per_token() == 16_384


@pytest.mark.parametrize(
    ("heads", "head_dim", "groups", "d_state", "conv", "ssm"),
    [
        # Mamba2, 128 heads × 64: conv (8192 + 2·8·128) × 3, SSM 8192 × 128.
        (128, 64, 8, 128, 30_720, 1_048_576),
        # A small one: 8 heads × 32, one group, d_state 16: conv (256 + 32) × 3, SSM 256 × 16.
        (8, 32, 1, 16, 864, 4_096),
    ],
)
def test_mamba2_state(
    heads: int, head_dim: int, groups: int, d_state: int, conv: int, ssm: int
) -> None:
    cfg = {
        "model_type": "nemotron_h",
        "num_hidden_layers": 6,
        "hybrid_override_pattern": "M-M*-*",
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "hidden_size": 1024,
        "mamba_num_heads": heads,
        "mamba_head_dim": head_dim,
        "n_groups": groups,
        "ssm_state_size": d_state,
        "conv_kernel": 4,
        "torch_dtype": "bfloat16",
    }
    m = KvModel.from_hf_config(cfg)
    assert (m.attention_layers, m.attention_free_layers) == (2, 4)
    assert (m.mamba_conv_elems, m.mamba_ssm_elems) == (conv, ssm)
    assert m.mamba_state_bytes_per_seq() == 4 * (conv + ssm) * 2


def test_dense_model_has_no_mamba_state() -> None:
    m = KvModel.from_hf_config({**JAMBA, "attn_layer_period": 1, "attn_layer_offset": 0})
    assert m.attention_free_layers == 0
    assert m.mamba_state_bytes_per_seq() is None
