"""Property tests of the locker math: linearity, and the MHA/GQA ratio."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kvdoctor.kvmath import KV_DTYPES, KvModel, kv_bytes

layers = st.integers(min_value=1, max_value=128)
kv_heads = st.integers(min_value=1, max_value=64)
group = st.integers(min_value=1, max_value=16)  # query heads per KV head
head_dim = st.sampled_from([32, 64, 80, 96, 128, 256])
tokens = st.integers(min_value=0, max_value=1 << 20)
counts = st.integers(min_value=0, max_value=1024)
dtypes = st.sampled_from([d for d in KV_DTYPES if d != "fp8_ds_mla"])


@st.composite
def models(draw: st.DrawFn) -> KvModel:
    kv = draw(kv_heads)
    return KvModel.from_shape(
        layers=draw(layers),
        kv_heads=kv,
        head_dim=draw(head_dim),
        attention_heads=kv * draw(group),
    )


@given(models(), tokens, tokens, dtypes)
def test_linear_in_context(model: KvModel, a: int, b: int, kv_dtype: str) -> None:
    assert kv_bytes(model, a + b, kv_dtype) == kv_bytes(model, a, kv_dtype) + kv_bytes(
        model, b, kv_dtype
    )
    assert kv_bytes(model, a, kv_dtype) == a * model.bytes_per_token(kv_dtype)


@given(models(), tokens, counts, counts, dtypes)
def test_linear_in_batch(model: KvModel, t: int, b1: int, b2: int, kv_dtype: str) -> None:
    total = kv_bytes(model, t, kv_dtype, sequences=b1 + b2)
    assert total == kv_bytes(model, t, kv_dtype, b1) + kv_bytes(model, t, kv_dtype, b2)
    assert total == (b1 + b2) * kv_bytes(model, t, kv_dtype)


@given(layers, kv_heads, group, head_dim, dtypes)
def test_mha_over_gqa_is_query_heads_over_kv_heads(
    n_layers: int, kv: int, g: int, dim: int, kv_dtype: str
) -> None:
    heads = kv * g
    gqa = KvModel.from_shape(layers=n_layers, kv_heads=kv, head_dim=dim, attention_heads=heads)
    mha = KvModel.from_shape(layers=n_layers, kv_heads=heads, head_dim=dim, attention_heads=heads)
    assert mha.bytes_per_token(kv_dtype) * kv == gqa.bytes_per_token(kv_dtype) * heads
    assert gqa.bytes_per_token_unshared(kv_dtype) == mha.bytes_per_token(kv_dtype)


@given(layers, kv_heads, group, head_dim)
def test_query_heads_never_enter_the_product(n_layers: int, kv: int, g: int, dim: int) -> None:
    a = KvModel.from_shape(layers=n_layers, kv_heads=kv, head_dim=dim, attention_heads=kv)
    b = KvModel.from_shape(layers=n_layers, kv_heads=kv, head_dim=dim, attention_heads=kv * g)
    assert a.bytes_per_token() == b.bytes_per_token() == 2 * n_layers * kv * dim * 2


@given(st.integers(min_value=1, max_value=1 << 16), tokens)
def test_windowed_sequence_never_exceeds_full(window: int, t: int) -> None:
    base = {
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "torch_dtype": "bfloat16",
    }
    full = KvModel.from_hf_config(base)
    windowed = KvModel.from_hf_config({**base, "sliding_window": window})
    assert windowed.sequence_bytes(t) == full.sequence_bytes(min(t, window))
    assert windowed.sequence_bytes(t) <= full.sequence_bytes(t)
