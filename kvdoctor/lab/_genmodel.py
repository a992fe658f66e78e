"""Write the lab's tiny Llama-shaped model into a directory (run by the lab venv's python).

This file is a standalone script: it imports numpy, safetensors and tokenizers, which live in the
lab's vLLM environment and not in kvdoctor's. ``kvdoctor.lab.model`` runs it as a subprocess and
hashes this file's bytes into the cache key, so any change here regenerates the model.

Usage: python _genmodel.py OUT_DIR [LAYERS KV_HEADS HEAD_DIM]

The model is random but built so that the experiments mean something:
* the default KV layout is 2 layers x 2 KV heads x head_dim 64, bf16 -> 1,024 bytes per token;
  the randomized accuracy harness (``kvaccuracy.randomized``) passes other geometries
  (MQA / GQA / MHA over 4 query heads, other layer counts and head dims) so that kvdoctor is
  measured on KV layouts it was not written against;
* next-token distributions are peaked (large lm_head scale), so greedy decoding is stable and
  two runs with the same cache dtype agree exactly;
* attention is sharp and carries a large share of the residual stream, so the small error an
  fp8 KV cache adds to keys and values changes some greedy choices over a long generation;
* the rows of the special tokens in lm_head are zeroed, so the model never emits EOS and every
  request runs to its max_tokens (the load scenarios rely on long outputs); so are the rows of
  non-printable bytes, so outputs are printable ASCII (valid UTF-8, readable in logs).

Weights are stored as bf16 (the config's dtype), written straight in the safetensors layout
because safetensors' numpy API has no bf16.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# numpy and tokenizers are imported inside the functions that need them: kvdoctor's own
# environment (and its unit tests) can read config() and the constants without them.

SEED = 20240607
NUM_LAYERS = 2
HIDDEN = 256
NUM_HEADS = 4
NUM_KV_HEADS = 2
HEAD_DIM = HIDDEN // NUM_HEADS  # 64
INTERMEDIATE = 512
MAX_POSITIONS = 16384
SPECIALS = ("<s>", "</s>")
# Byte-level vocabulary with no merges: one token per UTF-8 byte, so a prompt of N ASCII
# characters is exactly N tokens (scenarios size prompts and shared prefixes in tokens).
VOCAB = 256 + len(SPECIALS)
BOS_ID = 256
EOS_ID = 257

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    byte_chars = pre_tokenizers.ByteLevel.alphabet()
    # Order the 256 byte symbols by their byte value so token ids are stable across versions.
    table = _bytes_to_unicode()
    vocab = {table[b]: b for b in range(256)}
    assert set(vocab) == set(byte_chars)
    for i, tok in enumerate(SPECIALS):
        vocab[tok] = 256 + i
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(SPECIALS))
    return tok


def _bytes_to_unicode() -> dict[int, str]:
    # The GPT-2 byte -> printable character table that ByteLevel uses.
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs, strict=True)}


def build_weights(
    layers: int = NUM_LAYERS, kv_heads: int = NUM_KV_HEADS, head_dim: int = HEAD_DIM
) -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(SEED)

    def normal(shape: tuple[int, ...], std: float) -> Any:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    w: dict[str, Any] = {}
    w["model.embed_tokens.weight"] = normal((VOCAB, HIDDEN), 1.0)
    for i in range(layers):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = np.ones(HIDDEN, dtype=np.float32)
        w[p + "post_attention_layernorm.weight"] = np.ones(HIDDEN, dtype=np.float32)
        # q/k large enough that attention scores spread over several units (sharp attention):
        # fp8 rounding of the keys then moves the attention weights measurably.
        w[p + "self_attn.q_proj.weight"] = normal((NUM_HEADS * head_dim, HIDDEN), 0.25)
        w[p + "self_attn.k_proj.weight"] = normal((kv_heads * head_dim, HIDDEN), 0.25)
        w[p + "self_attn.v_proj.weight"] = normal((kv_heads * head_dim, HIDDEN), 0.5)
        w[p + "self_attn.o_proj.weight"] = normal((HIDDEN, NUM_HEADS * head_dim), 0.25)
        w[p + "mlp.gate_proj.weight"] = normal((INTERMEDIATE, HIDDEN), 0.0625)
        w[p + "mlp.up_proj.weight"] = normal((INTERMEDIATE, HIDDEN), 0.0625)
        w[p + "mlp.down_proj.weight"] = normal((HIDDEN, INTERMEDIATE), 0.0625)
    w["model.norm.weight"] = np.ones(HIDDEN, dtype=np.float32)
    # Normalised hidden states have norm ~16; std 0.25 gives logits of std ~4: peaked.
    lm_head = normal((VOCAB, HIDDEN), 0.25)
    # Specials and non-printable bytes get a zero row (logit 0, far below the typical top logit
    # of ~10): never EOS, never a control character or a broken UTF-8 sequence.
    printable = np.zeros(VOCAB, dtype=bool)
    printable[0x20:0x7F] = True
    lm_head[~printable] = 0.0
    w["lm_head.weight"] = lm_head
    return w


def to_bf16_bytes(x: Any) -> bytes:
    """float32 -> bf16 with round-to-nearest-even, as raw little-endian bytes."""
    import numpy as np

    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")
    return bytes(rounded.tobytes())


def save_bf16_safetensors(tensors: dict[str, Any], path: Path) -> None:
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    blobs: list[bytes] = []
    offset = 0
    for name in sorted(tensors):
        blob = to_bf16_bytes(tensors[name])
        header[name] = {
            "dtype": "BF16",
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    raw += b" " * (-len(raw) % 8)  # the data section starts 8-byte aligned
    with path.open("wb") as f:
        f.write(len(raw).to_bytes(8, "little"))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


def config(
    layers: int = NUM_LAYERS, kv_heads: int = NUM_KV_HEADS, head_dim: int = HEAD_DIM
) -> dict[str, Any]:
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": layers,
        "num_attention_heads": NUM_HEADS,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "hidden_act": "silu",
        "max_position_embeddings": MAX_POSITIONS,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "vocab_size": VOCAB,
        "bos_token_id": BOS_ID,
        "eos_token_id": EOS_ID,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.56.0",
    }


def tokenizer_config() -> dict[str, Any]:
    return {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "pad_token": "</s>",
        "add_bos_token": False,
        "add_eos_token": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": MAX_POSITIONS,
        "chat_template": CHAT_TEMPLATE,
    }


def main(
    out: Path, layers: int = NUM_LAYERS, kv_heads: int = NUM_KV_HEADS, head_dim: int = HEAD_DIM
) -> None:
    if NUM_HEADS % kv_heads:
        sys.exit(f"KV heads ({kv_heads}) must divide the {NUM_HEADS} query heads")
    out.mkdir(parents=True, exist_ok=True)
    cfg = config(layers, kv_heads, head_dim)
    (out / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    (out / "generation_config.json").write_text(
        json.dumps({"bos_token_id": BOS_ID, "eos_token_id": EOS_ID}, indent=2) + "\n"
    )
    build_tokenizer().save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(
        json.dumps(tokenizer_config(), indent=2, sort_keys=True) + "\n"
    )
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": "<s>", "eos_token": "</s>", "pad_token": "</s>"}, indent=2) + "\n"
    )
    save_bf16_safetensors(build_weights(layers, kv_heads, head_dim), out / "model.safetensors")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 5):
        sys.exit("usage: _genmodel.py OUT_DIR [LAYERS KV_HEADS HEAD_DIM]")
    main(Path(sys.argv[1]), *(int(a) for a in sys.argv[2:]))
