"""The KV-relevant shape of a model (:class:`KvModel`) and how to read it from a config.

Per-layer sizes are :class:`fractions.Fraction` (a 4-bit cache stores half a byte per element)
and are rounded up once, at the end, so every byte count is an exact integer.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath.entries import catalog_entry
from kvdoctor.vocab import QUANTIZED_KV_DTYPE_PATTERN

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40

Layout = Literal["mha", "gqa", "mqa", "mla"]

# Bytes per element of a model dtype (HF ``torch_dtype`` / ``dtype`` spellings and vLLM's).
_MODEL_DTYPE_BYTES: dict[str, int] = {
    "float32": 4,
    "float": 4,
    "fp32": 4,
    "float16": 2,
    "half": 2,
    "fp16": 2,
    "bfloat16": 2,
    "bf16": 2,
}

# KV-cache dtypes vLLM accepts (``--kv-cache-dtype``) whose element size is a plain number.
# Quantized formats that keep per-token/per-head/per-block scales store them beside the data;
# that overhead is not counted here (it is small: a few bytes per head per token), which is said
# in every output that uses one of them (see ``SCALED_KV_DTYPES``).
_KV_DTYPE_BYTES: dict[str, Fraction] = {
    "float32": Fraction(4),
    "float16": Fraction(2),
    "half": Fraction(2),
    "bfloat16": Fraction(2),
    "fp8": Fraction(1),
    "fp8_e4m3": Fraction(1),
    "fp8_e5m2": Fraction(1),
    "fp8_inc": Fraction(1),
    "fp8_per_token_head": Fraction(1),
    "int8": Fraction(1),
    "int8_per_token_head": Fraction(1),
    "int4_per_token_head": Fraction(1, 2),
    "nvfp4": Fraction(1, 2),
    "nvfp4_4over6": Fraction(1, 2),
}
SCALED_KV_DTYPES = frozenset(
    {"fp8_per_token_head", "int8_per_token_head", "int4_per_token_head", "nvfp4", "nvfp4_4over6"}
)


def is_quantized_kv_dtype(name: str) -> bool:
    """True for a --kv-cache-dtype that stores KV in fewer bits than 16 (fp8, int8, nvfp4...)."""
    return re.fullmatch(QUANTIZED_KV_DTYPE_PATTERN, name.strip().lower()) is not None


# DeepSeek's packed MLA cache (vLLM's FlashMLA sparse backend): per token and layer, the latent
# in fp8, one float32 scale per 128 latent values, and the RoPE part kept in bf16; for
# DeepSeek-V3.2 that is 512 + 16 + 128 = 656 bytes. Only meaningful for MLA models.
MLA_ONLY_KV_DTYPES = frozenset({"fp8_ds_mla"})
KV_DTYPES: tuple[str, ...] = ("auto", *sorted(_KV_DTYPE_BYTES), "fp8_ds_mla")

# Layer types (HF ``layer_types``) that hold a full-length KV cache, and those capped by a window.
_FULL_LAYER_TYPES = frozenset({"full_attention", "attention", "global", "global_attention"})
_WINDOW_LAYER_TYPES = frozenset({"sliding_attention", "local_attention", "local", "sliding"})
_CHUNKED_LAYER_TYPES = frozenset({"chunked_attention"})


class KvModelSummary(BaseModel):
    """A model's KV-relevant shape as the outputs show it: the report's ``kv.model`` and the
    ``kv`` command's ``model`` (one type, so the two never drift apart). Field order is the
    JSON key order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None
    model_type: str | None
    layout: Layout
    layer_mix: str
    layers: int
    attention_layers: int
    window_layers: int
    sliding_window: int | None
    attention_free_layers: int
    kv_heads: int
    head_dim: int
    attention_heads: int
    hidden_size: int | None
    vocab_size: int | None
    dtype: str
    kv_lora_rank: int | None
    qk_rope_head_dim: int | None
    params: int | None
    source: str | None


def _fmt_int(n: int) -> str:
    return f"{n:,}"


@dataclass(frozen=True, kw_only=True)
class KvModel:
    """The KV-relevant shape of one model checkpoint.

    ``attention_layers`` counts the layers that keep a KV cache; of those, ``window_layers`` keep
    at most ``sliding_window`` tokens (sliding-window or chunked local attention), the rest keep
    every token. Attention-free layers (Mamba, linear attention) are excluded and counted in
    ``attention_free_layers``: their state is per sequence, not per token.

    A plain frozen dataclass, not a pydantic model: it is internal (the outputs show
    :class:`KvModelSummary`), its constructors pass checked values, and a replay builds it
    without paying for a validator.
    """

    name: str | None = None
    model_type: str | None = None
    layout: Layout
    layers: int
    attention_layers: int
    window_layers: int = 0
    sliding_window: int | None = None
    attention_free_layers: int = 0
    kv_heads: int
    head_dim: int
    attention_heads: int
    hidden_size: int | None = None
    vocab_size: int | None = None
    dtype: str = "bfloat16"
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    # Per attention-free (Mamba) layer: elements of its conv and SSM state, one copy per
    # sequence whatever its length (None when the config does not give the Mamba shape).
    mamba_conv_elems: int | None = None
    mamba_ssm_elems: int | None = None
    # Parameter count and bytes per weight when known (catalog or explicit), for weight bytes.
    params: int | None = None
    weight_bytes_per_param: Fraction | None = None
    source: str | None = None
    notes: tuple[str, ...] = ()

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_shape(
        cls,
        *,
        layers: int,
        kv_heads: int,
        head_dim: int,
        attention_heads: int | None = None,
        dtype: str = "bfloat16",
        hidden_size: int | None = None,
        vocab_size: int | None = None,
        params: int | None = None,
        name: str | None = None,
    ) -> KvModel:
        """A plain full-attention model from explicit numbers (the ``kv`` command's flags)."""
        for label, value in (("layers", layers), ("kv heads", kv_heads), ("head_dim", head_dim)):
            if value <= 0:
                raise KvdoctorError(f"{label} must be a positive integer, got {value}")
        heads = attention_heads if attention_heads is not None else kv_heads
        if heads <= 0 or heads % kv_heads:
            raise KvdoctorError(
                f"attention heads ({heads}) must be a positive multiple of KV heads ({kv_heads})"
            )
        dtype_name = _model_dtype_name(dtype)
        return cls(
            name=name,
            layout=_layout(heads, kv_heads),
            layers=layers,
            attention_layers=layers,
            kv_heads=kv_heads,
            head_dim=head_dim,
            attention_heads=heads,
            hidden_size=hidden_size,
            vocab_size=vocab_size,
            dtype=dtype_name,
            params=params,
            weight_bytes_per_param=Fraction(_MODEL_DTYPE_BYTES[dtype_name]) if params else None,
        )

    @classmethod
    def from_hf_config(cls, cfg: Mapping[str, Any], *, name: str | None = None) -> KvModel:
        """Read a Hugging Face ``config.json`` (as a dict). Raises :class:`KvdoctorError`."""
        if not isinstance(cfg, Mapping):
            raise KvdoctorError("model config must be a JSON object")
        # Multimodal wrappers (Llava, Gemma-3, Qwen2-VL, Llama-4, ...) keep the language model's
        # shape under text_config; the KV cache is the language model's.
        text = cfg.get("text_config")
        if isinstance(text, Mapping) and _first(cfg, _LAYER_KEYS) is None:
            merged = dict(text)
            for key in ("torch_dtype", "dtype", "vocab_size"):
                if merged.get(key) is None and cfg.get(key) is not None:
                    merged[key] = cfg[key]
            cfg = merged
        model_type = _str_or_none(cfg.get("model_type"))
        what = f"model config ({model_type or 'unknown model_type'})"
        if model_type in ("mamba", "mamba2", "rwkv", "rwkv5", "rwkv6", "rwkv7"):
            raise KvdoctorError(
                f"{what} is attention-free: no per-token KV cache (its state is per sequence)"
            )
        layers = _req_int(cfg, _LAYER_KEYS, what, "the number of layers")
        heads = _req_int(cfg, _HEAD_KEYS, what, "the number of attention heads")
        hidden = _opt_int(cfg, _HIDDEN_KEYS, what)
        vocab = _opt_int(cfg, ("vocab_size", "padded_vocab_size"), what)
        dtype = _model_dtype_name(cfg.get("torch_dtype") or cfg.get("dtype") or "float32")
        notes: list[str] = []

        kv_lora_rank = _opt_int(cfg, ("kv_lora_rank",), what)
        if kv_lora_rank is not None:
            # MLA (DeepSeek-V2/V3, Kimi-K2, ...): one compressed latent plus the decoupled RoPE
            # key per layer and token, shared by all heads: not 2 × heads × head_dim.
            rope = _opt_int(cfg, ("qk_rope_head_dim",), what)
            if rope is None:
                raise KvdoctorError(f"{what} has kv_lora_rank but no qk_rope_head_dim (MLA)")
            layout: Layout = "mla"
            nope = _opt_int(cfg, ("qk_nope_head_dim",), what)
            v_dim = _opt_int(cfg, ("v_head_dim",), what)
            kv_heads = 1
            head_dim = kv_lora_rank + rope
        else:
            rope = nope = v_dim = None
            kv_heads = _kv_heads(cfg, heads, what)
            explicit_head_dim = _opt_int(cfg, ("head_dim", "head_size"), what)
            if explicit_head_dim is not None:
                head_dim = explicit_head_dim
            else:
                if hidden is None:
                    raise KvdoctorError(f"{what} has neither head_dim nor hidden_size")
                if hidden % heads:
                    raise KvdoctorError(
                        f"{what}: hidden_size {hidden} is not divisible by {heads} heads "
                        "and there is no head_dim"
                    )
                head_dim = hidden // heads
            layout = _layout(heads, kv_heads)

        kinds = _layer_kinds(cfg, layers, model_type, what)
        window = _opt_int(cfg, ("sliding_window",), what)
        chunk = _opt_int(cfg, ("attention_chunk_size",), what)
        full = kinds.count("full")
        windowed = kinds.count("window")
        chunked = kinds.count("chunk")
        free = kinds.count("free")
        if chunked:
            if chunk is None:
                raise KvdoctorError(
                    f"{what} has chunked attention layers but no attention_chunk_size"
                )
            if windowed and window != chunk:
                raise KvdoctorError(f"{what} mixes sliding and chunked windows of different sizes")
            window = chunk
            windowed += chunked
        if windowed and window is None:
            raise KvdoctorError(f"{what} has sliding-window layers but no sliding_window size")
        attention = full + windowed
        if attention == 0:
            raise KvdoctorError(
                f"{what} has no attention layers: no per-token KV cache (state is per sequence)"
            )
        if free:
            notes.append(
                f"{free} of {layers} layers are attention-free (Mamba/linear attention); "
                "their per-sequence state is not counted in bytes per token"
            )
        if windowed:
            notes.append(
                f"{windowed} of {attention} attention layers keep only the last "
                f"{_fmt_int(window or 0)} tokens: per-sequence KV on them stops growing past it"
            )
        if not windowed:
            window = None
        mamba = _mamba_state_elems(cfg, hidden) if free else None
        return cls(
            name=name,
            model_type=model_type,
            layout=layout,
            layers=layers,
            attention_layers=attention,
            window_layers=windowed,
            sliding_window=window,
            attention_free_layers=free,
            kv_heads=kv_heads,
            head_dim=head_dim,
            attention_heads=heads,
            hidden_size=hidden,
            vocab_size=vocab,
            dtype=dtype,
            kv_lora_rank=kv_lora_rank,
            qk_rope_head_dim=rope,
            qk_nope_head_dim=nope,
            v_head_dim=v_dim,
            mamba_conv_elems=mamba[0] if mamba else None,
            mamba_ssm_elems=mamba[1] if mamba else None,
            notes=tuple(notes),
        )

    @classmethod
    def from_catalog(cls, name: str) -> KvModel:
        """A model of the built-in catalog by name or Hugging Face id (case-insensitive)."""
        entry = catalog_entry(name)
        model = cls.from_hf_config(entry["config"], name=entry["name"])
        params = entry.get("params")
        weight_dtype = entry.get("weights_dtype", model.dtype)
        return dataclasses.replace(
            model,
            params=int(params) if params is not None else None,
            weight_bytes_per_param=_weight_bytes(weight_dtype) if params else None,
            source=entry["source"],
        )

    # ------------------------------------------------------------------ per-token sizes

    @property
    def is_mla(self) -> bool:
        return self.layout == "mla"

    @property
    def layer_mix(self) -> str:
        """uniform | sliding | local-global | hybrid (attention-free layers present)."""
        if self.attention_free_layers:
            return "hybrid"
        if self.window_layers == self.attention_layers and self.window_layers:
            return "sliding"
        if self.window_layers:
            return "local-global"
        return "uniform"

    def kv_dtype_name(self, kv_dtype: str = "auto") -> str:
        """The cache dtype actually used: ``auto`` follows the model dtype, as vLLM does.

        vLLM serves float32 checkpoints in 16-bit unless told otherwise, so ``auto`` on a
        float32 config means bfloat16 (2 bytes), not 4.
        """
        kv = _norm_kv_dtype(kv_dtype)
        if kv == "auto":
            return "bfloat16" if self.dtype == "float32" else self.dtype
        if kv in MLA_ONLY_KV_DTYPES and not self.is_mla:
            raise KvdoctorError(
                f"KV cache dtype {kv} is for MLA models only; {self.label} is {self.layout}"
            )
        return kv

    def layer_bytes_per_token(self, kv_dtype: str = "auto") -> Fraction:
        """Exact bytes one attention layer stores per token (may be fractional for 4-bit)."""
        kv = self.kv_dtype_name(kv_dtype)
        if self.is_mla:
            rank = self.kv_lora_rank or 0
            rope = self.qk_rope_head_dim or 0
            if kv == "fp8_ds_mla":
                return Fraction(rank + (math.ceil(rank / 128) * 4) + rope * 2)
            return Fraction(rank + rope) * _KV_DTYPE_BYTES[kv]
        return 2 * self.kv_heads * self.head_dim * _KV_DTYPE_BYTES[kv]

    def bytes_per_token(self, kv_dtype: str = "auto") -> int:
        """Exact KV bytes per token over all attention layers (K and V; MLA: latent + RoPE).

        For sliding-window layers this is the rate while the context is within the window; see
        :meth:`bytes_per_token_beyond_window` for the rate past it. Scale overhead of quantized
        formats is not included (:data:`SCALED_KV_DTYPES`).
        """
        return _ceil(self.attention_layers * self.layer_bytes_per_token(kv_dtype))

    def bytes_per_token_beyond_window(self, kv_dtype: str = "auto") -> int:
        """Bytes each extra token adds once the context is past the sliding window."""
        full_layers = self.attention_layers - self.window_layers
        return _ceil(full_layers * self.layer_bytes_per_token(kv_dtype))

    def bytes_per_token_unshared(self, kv_dtype: str = "auto") -> int | None:
        """What a token would cost with one KV head per query head (MHA), for comparison.

        For MLA this is the uncompressed cache (K of qk_nope + qk_rope, V of v_head_dim, per
        head); None when the config does not give those head sizes.
        """
        elem = _KV_DTYPE_BYTES.get(self.kv_dtype_name(kv_dtype), Fraction(1))
        if self.is_mla:
            if self.qk_nope_head_dim is None or self.v_head_dim is None:
                return None
            k_dim = self.qk_nope_head_dim + (self.qk_rope_head_dim or 0)
            per_layer = self.attention_heads * (k_dim + self.v_head_dim) * elem
        else:
            per_layer = 2 * self.attention_heads * self.head_dim * elem
        return _ceil(self.attention_layers * per_layer)

    def sequence_bytes(self, tokens: int, kv_dtype: str = "auto") -> int:
        """Live KV bytes of one sequence of ``tokens`` tokens (windowed layers capped)."""
        check_count("tokens", tokens)
        per_layer = self.layer_bytes_per_token(kv_dtype)
        full_layers = self.attention_layers - self.window_layers
        capped = min(tokens, self.sliding_window) if self.sliding_window else tokens
        return _ceil(per_layer * (full_layers * tokens + self.window_layers * capped))

    def per_gpu(self, tensor_parallel: int) -> KvModel:
        """The share of one GPU under tensor parallelism, as vLLM splits it.

        KV heads are divided among the ranks (at least one each: with more ranks than KV heads
        the heads are replicated); an MLA latent is replicated on every rank. Weights are
        divided evenly (an estimate: embeddings and norms are not always split).
        """
        if isinstance(tensor_parallel, bool) or tensor_parallel < 1:
            raise KvdoctorError(f"tensor parallel size must be at least 1, got {tensor_parallel}")
        if tensor_parallel == 1:
            return self
        kv_heads = self.kv_heads if self.is_mla else max(1, self.kv_heads // tensor_parallel)
        params = None if self.params is None else -(-self.params // tensor_parallel)
        return dataclasses.replace(
            self,
            kv_heads=kv_heads,
            attention_heads=max(1, self.attention_heads // tensor_parallel),
            params=params,
            notes=(
                *self.notes,
                f"per GPU under tensor parallel {tensor_parallel}: {kv_heads} KV heads each",
            ),
        )

    def weight_bytes(self) -> int | None:
        """Bytes of the weights when the parameter count is known (catalog or explicit)."""
        if self.params is None or self.weight_bytes_per_param is None:
            return None
        return _ceil(self.params * self.weight_bytes_per_param)

    def mamba_state_bytes_per_seq(self, ssm_dtype: str | None = None) -> int | None:
        """Bytes of Mamba state one sequence holds across all attention-free layers.

        Unlike KV it does not grow with the context: conv state + SSM state per layer, the conv
        state in the model dtype and the SSM state in ``ssm_dtype`` (vLLM's
        --mamba-ssm-cache-dtype; ``None``/"auto" = the model dtype).
        """
        if not self.attention_free_layers or self.mamba_conv_elems is None:
            return None
        if self.mamba_ssm_elems is None:
            return None
        conv = model_dtype_bytes(self.dtype)
        ssm = conv if ssm_dtype in (None, "auto") else model_dtype_bytes(str(ssm_dtype))
        per_layer = self.mamba_conv_elems * conv + self.mamba_ssm_elems * ssm
        return self.attention_free_layers * per_layer

    def _groups_by_kind(self) -> dict[str, int]:
        """KV cache groups per kind of layer ("full", "window", "free") under vLLM's hybrid
        allocator: each kind split into groups of the smallest kind's size; one kind, one group.
        """
        counts = {
            "full": self.attention_layers - self.window_layers,
            "window": self.window_layers,
            "free": self.attention_free_layers,
        }
        present = {k: n for k, n in counts.items() if n > 0}
        if len(present) <= 1:
            return {k: 1 for k in present} or {"full": 1}
        size = min(present.values())
        return {k: -(-n // size) for k, n in present.items()}

    def kv_cache_groups(self) -> int:
        """KV cache groups vLLM's hybrid allocator forms for this layer mix (1 for one kind).

        Layers of each kind (full attention, sliding window, attention-free state) are split into
        groups of the smallest kind's size, and every block of the shared pool is one group's page:
        Gemma-3 style 10 global + 50 local layers make 1 + 5 groups. The engine states its pool as
        blocks / groups × block size tokens ("GPU KV cache size"), every group counted full.
        """
        return sum(self._groups_by_kind().values())

    def blocks_per_sequence(self, tokens: int, block_size: int) -> int:
        """Pool blocks one sequence of ``tokens`` tokens holds under the hybrid allocator.

        A full-attention group holds every block of the sequence; a sliding-window group only
        the blocks the window reaches (window / block size, plus the one it straddles); an
        attention-free group one block of state.
        """
        check_count("tokens", tokens)
        check_count("block_size", block_size)
        whole = -(-tokens // block_size)
        windowed = whole
        if self.sliding_window:
            windowed = min(whole, -(-self.sliding_window // block_size) + 1)
        per_group = {"full": whole, "window": windowed, "free": 1}
        return sum(n * per_group[k] for k, n in self._groups_by_kind().items())

    @property
    def label(self) -> str:
        return self.name or self.model_type or "model"

    def summary(self) -> KvModelSummary:
        """The shape as the outputs show it."""
        return KvModelSummary(
            name=self.name,
            model_type=self.model_type,
            layout=self.layout,
            layer_mix=self.layer_mix,
            layers=self.layers,
            attention_layers=self.attention_layers,
            window_layers=self.window_layers,
            sliding_window=self.sliding_window,
            attention_free_layers=self.attention_free_layers,
            kv_heads=self.kv_heads,
            head_dim=self.head_dim,
            attention_heads=self.attention_heads,
            hidden_size=self.hidden_size,
            vocab_size=self.vocab_size,
            dtype=self.dtype,
            kv_lora_rank=self.kv_lora_rank,
            qk_rope_head_dim=self.qk_rope_head_dim,
            params=self.params,
            source=self.source,
        )


# ---------------------------------------------------------------------- config parsing helpers

_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_HEAD_KEYS = ("num_attention_heads", "n_head", "num_heads", "n_heads")
_HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model", "dim")


def _first(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return None


def _opt_int(cfg: Mapping[str, Any], keys: tuple[str, ...], what: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise KvdoctorError(f"{what}: {key} must be a positive integer, got {value!r}")
        return value
    return None


def _req_int(cfg: Mapping[str, Any], keys: tuple[str, ...], what: str, meaning: str) -> int:
    value = _opt_int(cfg, keys, what)
    if value is None:
        raise KvdoctorError(f"{what} lacks {meaning} (one of: {', '.join(keys)})")
    return value


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _kv_heads(cfg: Mapping[str, Any], heads: int, what: str) -> int:
    kv = _opt_int(cfg, ("num_key_value_heads", "num_kv_heads", "n_head_kv"), what)
    if kv is None:
        # GPT-BigCode / Falcon-7B style: one shared KV head.
        kv = 1 if cfg.get("multi_query") is True else heads
    if heads % kv:
        raise KvdoctorError(f"{what}: {heads} attention heads is not a multiple of {kv} KV heads")
    return kv


def _layout(heads: int, kv_heads: int) -> Layout:
    if kv_heads == heads:
        return "mha"
    if kv_heads == 1:
        return "mqa"
    return "gqa"


def _layer_kinds(
    cfg: Mapping[str, Any], layers: int, model_type: str | None, what: str
) -> list[str]:
    """One of full | window | chunk | free per layer, from whatever the config says."""
    layer_types = cfg.get("layer_types")
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != layers:
            raise KvdoctorError(
                f"{what}: layer_types must list one type for each of {layers} layers"
            )
        kinds = []
        for t in layer_types:
            name = str(t).lower()
            if name in _FULL_LAYER_TYPES:
                kinds.append("full")
            elif name in _WINDOW_LAYER_TYPES:
                kinds.append("window")
            elif name in _CHUNKED_LAYER_TYPES:
                kinds.append("chunk")
            else:
                # mamba, linear_attention, conv, ...: no per-token KV.
                kinds.append("free")
        return kinds
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str):
        # Nemotron-H: "*" marks attention layers; "M" Mamba, "-" MLP, "E" MoE.
        if len(pattern) != layers:
            raise KvdoctorError(
                f"{what}: hybrid_override_pattern length differs from {layers} layers"
            )
        return ["full" if c == "*" else "free" for c in pattern]
    period = cfg.get("attn_layer_period")
    if isinstance(period, int) and period > 0:
        # Jamba: one attention layer every `period` layers, at `offset`; the rest are Mamba.
        offset = cfg.get("attn_layer_offset", 0)
        if not isinstance(offset, int):
            raise KvdoctorError(f"{what}: attn_layer_offset must be an integer")
        return ["full" if i % period == offset else "free" for i in range(layers)]
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        return ["full"] * layers
    if model_type == "gemma2":
        # Gemma-2 alternates: even layers are local (sliding), odd layers global.
        return ["window" if i % 2 == 0 else "full" for i in range(layers)]
    swp = cfg.get("sliding_window_pattern")
    if model_type in ("gemma3", "gemma3_text") or isinstance(swp, int):
        step = swp if isinstance(swp, int) and swp > 0 else 6
        # Gemma-3: every `step`-th layer is global, the others local.
        return ["full" if (i + 1) % step == 0 else "window" for i in range(layers)]
    if cfg.get("use_sliding_window") is True and isinstance(cfg.get("max_window_layers"), int):
        # Qwen2-style: layers from max_window_layers on use the window.
        first = cfg["max_window_layers"]
        return ["window" if i >= first else "full" for i in range(layers)]
    # Mistral-7B-v0.1 style: one window on every layer.
    return ["window"] * layers


def _mamba_state_elems(cfg: Mapping[str, Any], hidden: int | None) -> tuple[int, int] | None:
    """(conv, ssm) state elements of one Mamba layer, from the HF config, or None.

    Mamba2 (Nemotron-H, Bamba, Granite 4, Zamba2): heads × head_dim inner channels; the conv
    runs over the inner channels plus 2 × groups × d_state (B and C), over d_conv − 1 past
    steps; the SSM state is heads × head_dim × d_state. Mamba1 (Jamba, Falcon-Mamba): inner =
    expand × hidden; conv over inner × (d_conv − 1), SSM inner × d_state.
    """

    def num(*keys: str) -> int | None:
        for k in keys:
            v = cfg.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
        return None

    d_state = num("mamba_d_state", "ssm_state_size", "state_size", "mamba_ssm_state_size")
    d_conv = num("mamba_d_conv", "conv_kernel", "mamba_conv_kernel", "d_conv")
    if d_state is None or d_conv is None:
        return None
    heads = num("mamba_n_heads", "mamba_num_heads")
    head_dim = num("mamba_d_head", "mamba_head_dim")
    if heads is not None and head_dim is not None:
        inner = heads * head_dim
        groups = num("mamba_n_groups", "n_groups", "mamba_ngroups") or 1
        return (inner + 2 * groups * d_state) * (d_conv - 1), inner * d_state
    expand = num("mamba_expand", "expand")
    if expand is not None and hidden is not None:
        inner = expand * hidden
        return inner * (d_conv - 1), inner * d_state
    return None


def _model_dtype_name(value: Any) -> str:
    name = str(value).lower().removeprefix("torch.")
    if name not in _MODEL_DTYPE_BYTES:
        raise KvdoctorError(
            f"unknown model dtype {value!r} (expected one of: bfloat16, float16, float32)"
        )
    return {
        "float": "float32",
        "fp32": "float32",
        "half": "float16",
        "fp16": "float16",
        "bf16": "bfloat16",
    }.get(name, name)


def model_dtype_bytes(dtype: str) -> int:
    """Bytes per element of a model dtype name (bfloat16 → 2)."""
    return _MODEL_DTYPE_BYTES[_model_dtype_name(dtype)]


def kv_dtype_bytes(name: str) -> Fraction | None:
    """Bytes per KV element of a --kv-cache-dtype (nvfp4 → 1/2); None for ``auto`` (the
    model's dtype) or a name this table does not know."""
    return _KV_DTYPE_BYTES.get(name.strip().lower())


def _weight_bytes(value: Any) -> Fraction:
    name = str(value).lower()
    if name in _MODEL_DTYPE_BYTES:
        return Fraction(_MODEL_DTYPE_BYTES[name])
    if name in _KV_DTYPE_BYTES:
        return _KV_DTYPE_BYTES[name]
    raise KvdoctorError(f"unknown weights dtype {value!r}")


def _norm_kv_dtype(kv_dtype: str | None) -> str:
    kv = (kv_dtype or "auto").strip().lower()
    if kv == "auto" or kv in _KV_DTYPE_BYTES or kv in MLA_ONLY_KV_DTYPES:
        return kv
    raise KvdoctorError(
        f"unknown KV cache dtype {kv_dtype!r} (expected one of: {', '.join(KV_DTYPES)})"
    )


def _ceil(x: Fraction | int) -> int:
    return math.ceil(x)


def check_count(label: str, n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise KvdoctorError(f"{label} must be a non-negative integer, got {n!r}")
