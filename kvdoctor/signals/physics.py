"""Physics defaults: the decode-step floor of the GPU that NVML names.

A decode step reads every weight once and every live KV byte once, so no step can be faster
than (weight bytes + KV bytes read per step) / memory bandwidth. That floor is the documented
default a slow inter-token latency is judged against when the user gave no SLO and the window
holds no quieter interval to compare with (docs/troubleshooting.md). Well-run decoding reaches
50–80 % of peak bandwidth, so an ITL within about 2× the floor is normal.

Bandwidths are the vendors' published peak figures (datasheets linked per row). Names are
matched against NVML's device name, longest pattern first, case-insensitively. Weights
offloaded to CPU memory are judged against the host link instead (``HOST_LINK_BYTES_PER_S``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kvdoctor.kvmath import KvModel

# (pattern in the NVML name, bytes/s, source)
GPU_BANDWIDTH: tuple[tuple[str, float, str], ...] = (
    ("GB200", 8.0e12, "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"),
    ("B200", 8.0e12, "https://www.nvidia.com/en-us/data-center/dgx-b200/"),
    ("H200", 4.8e12, "https://www.nvidia.com/en-us/data-center/h200/"),
    ("H100 NVL", 3.9e12, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("H100 PCIe", 2.0e12, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("H100", 3.35e12, "https://www.nvidia.com/en-us/data-center/h100/ (SXM)"),
    ("GH200", 4.0e12, "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"),
    ("A100-SXM4-80GB", 2.039e12, "https://www.nvidia.com/en-us/data-center/a100/"),
    ("A100 80GB PCIe", 1.935e12, "https://www.nvidia.com/en-us/data-center/a100/"),
    ("A100", 1.555e12, "https://www.nvidia.com/en-us/data-center/a100/ (40GB)"),
    ("A800", 1.935e12, "https://www.nvidia.cn/data-center/products/a800/"),
    ("L40S", 8.64e11, "https://www.nvidia.com/en-us/data-center/l40s/"),
    ("L40", 8.64e11, "https://www.nvidia.com/en-us/data-center/l40/"),
    ("L20", 8.64e11, "https://www.nvidia.cn/data-center/l20/"),
    ("H20", 4.0e12, "https://www.nvidia.cn/data-center/h20/"),
    ("H800", 3.35e12, "https://www.nvidia.cn/data-center/h800/"),
    (
        "RTX 5090",
        1.792e12,
        "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
    ),
    (
        "RTX PRO 6000",
        1.792e12,
        "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000/",
    ),
    (
        "RTX 3090",
        9.36e11,
        "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/",
    ),
    ("RTX A6000", 7.68e11, "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"),
    ("MI325X", 6.0e12, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"),
    ("L4", 3.0e11, "https://www.nvidia.com/en-us/data-center/l4/"),
    ("A10G", 6.0e11, "https://aws.amazon.com/ec2/instance-types/g5/"),
    ("A10", 6.0e11, "https://www.nvidia.com/en-us/data-center/products/a10-gpu/"),
    ("T4", 3.2e11, "https://www.nvidia.com/en-us/data-center/tesla-t4/"),
    ("V100", 9.0e11, "https://www.nvidia.com/en-us/data-center/v100/"),
    ("RTX 6000 Ada", 9.6e11, "https://www.nvidia.com/en-us/design-visualization/rtx-6000/"),
    ("RTX 4090", 1.008e12, "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/"),
    ("MI300X", 5.3e12, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"),
    ("MI250X", 3.2e12, "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"),
    ("GB10", 2.73e11, "https://www.nvidia.com/en-us/products/workstations/dgx-spark/"),
    ("A30", 9.33e11, "https://www.nvidia.com/en-us/data-center/products/a30-gpu/"),
)

# (pattern in the NVML name, dense 16-bit tensor FLOP/s, FP8 tensor cores, source). Dense, not
# the "with sparsity" figure datasheets lead with; GeForce cards at their FP32-accumulate rate,
# the one bf16 GEMMs use. A prefill is a run of large matrix products, so its floor is its
# FLOPs over this peak; well-run prefills reach 30-60 % of it.
GPU_PEAK_FLOPS: tuple[tuple[str, float, bool, str], ...] = (
    ("GB200", 2.5e15, True, "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"),
    ("B300", 2.25e15, True, "https://www.nvidia.com/en-us/data-center/hgx/"),
    ("B200", 2.25e15, True, "https://www.nvidia.com/en-us/data-center/dgx-b200/"),
    ("H200", 9.89e14, True, "https://www.nvidia.com/en-us/data-center/h200/"),
    ("H100 NVL", 8.35e14, True, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("H100 PCIe", 7.56e14, True, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("H100", 9.89e14, True, "https://www.nvidia.com/en-us/data-center/h100/ (SXM)"),
    ("GH200", 9.89e14, True, "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"),
    ("H800", 9.89e14, True, "https://www.nvidia.cn/data-center/h800/"),
    ("H20", 1.48e14, True, "https://www.nvidia.cn/data-center/h20/"),
    ("A100", 3.12e14, False, "https://www.nvidia.com/en-us/data-center/a100/"),
    ("A800", 3.12e14, False, "https://www.nvidia.cn/data-center/products/a800/"),
    ("A30", 1.65e14, False, "https://www.nvidia.com/en-us/data-center/products/a30-gpu/"),
    ("L40S", 3.62e14, True, "https://www.nvidia.com/en-us/data-center/l40s/"),
    ("L40", 1.81e14, True, "https://www.nvidia.com/en-us/data-center/l40/"),
    ("L20", 1.195e14, True, "https://www.nvidia.cn/data-center/l20/"),
    ("L4", 1.21e14, True, "https://www.nvidia.com/en-us/data-center/l4/"),
    ("A10G", 7.0e13, False, "https://aws.amazon.com/ec2/instance-types/g5/"),
    ("A10", 1.25e14, False, "https://www.nvidia.com/en-us/data-center/products/a10-gpu/"),
    ("T4", 6.5e13, False, "https://www.nvidia.com/en-us/data-center/tesla-t4/"),
    ("V100", 1.12e14, False, "https://www.nvidia.com/en-us/data-center/v100/ (PCIe)"),
    ("GB10", 1.25e14, True, "https://www.nvidia.com/en-us/products/workstations/dgx-spark/"),
    (
        "RTX PRO 6000",
        5.0e14,
        True,
        "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000/",
    ),
    (
        "RTX 5090",
        2.095e14,
        True,
        "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
    ),
    ("RTX 6000 Ada", 3.64e14, True, "https://www.nvidia.com/en-us/design-visualization/rtx-6000/"),
    ("RTX 4090", 1.652e14, True, "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/"),
    (
        "RTX 3090",
        7.1e13,
        False,
        "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/",
    ),
    ("RTX A6000", 1.548e14, False, "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"),
    (
        "MI325X",
        1.307e15,
        True,
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
    ),
    (
        "MI300X",
        1.307e15,
        True,
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
    ),
    (
        "MI250X",
        3.83e14,
        False,
        "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html",
    ),
)

# The fastest host link a GPU has (PCIe 5.0 x16, one direction, 64 GB/s): weights offloaded to
# CPU memory (--cpu-offload-gb) cross it in every forward pass, so no step is faster than their
# bytes over it.
HOST_LINK_BYTES_PER_S = 64e9

# Superchips whose GPU reaches CPU memory over NVLink-C2C instead (900 GB/s both ways, 450 GB/s
# one way): offloaded weights cross it seven times faster than PCIe, so judging their copy at
# PCIe speed would put the floor above the step it is part of.
HOST_LINKS: tuple[tuple[str, float, str], ...] = (
    ("GB200", 450e9, "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"),
    ("GH200", 450e9, "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"),
)

_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1}


def _longest_match(name: str, rows: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...] | None:
    low = name.lower()
    for row in sorted(rows, key=lambda r: -len(r[0])):
        if row[0].lower() in low:
            return row
    return None


def host_link_of(name: str | None) -> float:
    """Bytes/s one way between the named device and CPU memory (PCIe 5.0 x16 unless a
    superchip's C2C link is named)."""
    row = _longest_match(name, HOST_LINKS) if name else None
    return HOST_LINK_BYTES_PER_S if row is None else float(row[1])


def bandwidth_of(name: str) -> tuple[float, str] | None:
    """(bytes/s, source) of the longest table pattern found in ``name``, else None."""
    row = _longest_match(name, GPU_BANDWIDTH)
    return None if row is None else (row[1], row[2])


def peak_flops_of(name: str, fp8_weights: bool = False) -> tuple[float, str] | None:
    """(dense FLOP/s, source) of the device NVML names, else None.

    Weights stored in fp8 run their matrix products on FP8 tensor cores at twice the 16-bit
    rate where the device has them.
    """
    row = _longest_match(name, GPU_PEAK_FLOPS)
    if row is None:
        return None
    _, flops, has_fp8, source = row
    if fp8_weights and has_fp8:
        return 2 * flops, f"{source} (FP8, twice the 16-bit rate)"
    return flops, source


# Any: int() of raw config.json values of any JSON type, each guarded by the except below.
def dense_weight_bytes(
    cfg: Mapping[str, Any], quantization: str | None = None
) -> tuple[int | None, str]:
    """Weight bytes of a dense decoder from its HF config, or (None, why).

    Embeddings + (attention + gated MLP + norms) per layer + the LM head unless tied. A
    mixture-of-experts model reads only the routed experts per token, which the config does
    not say for a batch, so it gets no estimate. A quantized model's linear weights count at
    their packed width (``weight_bits``).
    """
    text = cfg.get("text_config")
    if isinstance(text, dict):
        cfg = {**cfg, **text}
    if any(k in cfg for k in ("num_local_experts", "n_routed_experts", "num_experts")):
        return None, "mixture-of-experts: the weights read per step depend on routing"
    try:
        h = int(cfg["hidden_size"])
        layers = int(cfg["num_hidden_layers"])
        vocab = int(cfg["vocab_size"])
        inter = int(cfg["intermediate_size"])
        heads = int(cfg["num_attention_heads"])
        kv = int(cfg.get("num_key_value_heads") or heads)
        hd = int(cfg.get("head_dim") or h // heads)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None, "model config lacks hidden/intermediate sizes, layers, heads or vocab"
    if min(h, layers, vocab, inter, heads, kv, hd) <= 0 or max(h, layers, vocab, inter) > 10**7:
        return None, "model config sizes out of range"
    attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h
    linear = layers * (attn + 3 * h * inter)
    tied = bool(cfg.get("tie_word_embeddings", False))
    rest = layers * 2 * h + vocab * h * (1 if tied else 2) + h
    params = linear + rest
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    width = _DTYPE_BYTES.get(dtype, 2)
    bits, scheme = weight_bits(cfg, quantization)
    if bits is None:
        return params * width, f"dense estimate, {params:,} params × {dtype}"
    # Quantized checkpoints pack the layers' linear weights; embeddings, the LM head and the
    # norms stay at the model's dtype (AWQ, GPTQ and FP8 checkpoints leave them unquantized).
    total = math.ceil(linear * bits / 8) + rest * width
    return total, (
        f"dense estimate, {linear:,} linear params × {bits} bits ({scheme}) + {rest:,} × {dtype}"
    )


def weight_bits(cfg: Mapping[str, Any], quantization: str | None = None) -> tuple[int | None, str]:
    """Bits per linear-layer weight of a quantized model, from its ``quantization_config`` (or
    the ``--quantization`` flag for online quantization), or (None, "") when unquantized or
    not understood (the estimate then stays at the model's dtype: an upper bound)."""
    quant = cfg.get("quantization_config")
    if isinstance(quant, dict):
        method = str(quant.get("quant_method") or "").lower()
        for key in ("bits", "w_bit", "weight_bits", "num_bits"):
            raw = quant.get(key)
            if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 16:
                return raw, method or "quantization_config"
        groups = quant.get("config_groups")
        if isinstance(groups, dict):
            for group in groups.values():
                weights = group.get("weights") if isinstance(group, dict) else None
                raw = weights.get("num_bits") if isinstance(weights, dict) else None
                if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 16:
                    return raw, method or "compressed-tensors"
        if quant.get("load_in_4bit") is True:
            return 4, "bitsandbytes 4-bit"
        if quant.get("load_in_8bit") is True:
            return 8, "bitsandbytes 8-bit"
        algo = str(quant.get("quant_algo") or "").lower()
        for name, bits in _QUANT_BITS:
            if name in (method, algo):
                return bits, method if name == method else f"{method} {algo}"
    if quantization:
        flag = quantization.lower()
        for name, bits in _QUANT_BITS:
            if name == flag:
                return bits, f"--quantization {quantization}"
    return None, ""


# Methods whose bit width the name says (configs of other methods state "bits").
_QUANT_BITS: tuple[tuple[str, int], ...] = (
    ("fp8", 8),
    ("fbgemm_fp8", 8),
    ("ptpc_fp8", 8),
    ("int8", 8),
    ("w8a8", 8),
    ("nvfp4", 4),
    ("mxfp4", 4),
    ("fp4", 4),
)


def prefill_flops_per_token(
    cfg: Mapping[str, Any], model: KvModel, context: float
) -> tuple[float | None, str]:
    """FLOPs one prompt token costs a prefill at ``context`` tokens of attention span, or
    (None, why).

    Two per multiply-add of every weight the token passes through: the attention (or linear
    attention) projections and the MLP of each layer, a mixture-of-experts layer counting only
    the routed experts and the shared one (embeddings are a lookup; the LM head runs for the
    last token only). Plus the attention itself: QK^T and AV over ``context`` keys on the
    layers that attend to every token, over at most the window on sliding-window layers.
    """
    text = cfg.get("text_config")
    if isinstance(text, dict):
        cfg = {**cfg, **text}
    h = model.hidden_size
    if not h:
        return None, "model config lacks hidden_size"
    heads, layers = model.attention_heads, model.layers
    try:
        experts = _first_int(cfg, ("n_routed_experts", "num_local_experts", "num_experts"))
        inter = _first_int(cfg, ("intermediate_size", "ffn_hidden_size"))
        if experts:
            k = _first_int(cfg, ("num_experts_per_tok", "moe_topk", "top_k")) or 0
            expert = _first_int(cfg, ("moe_intermediate_size",)) or inter
            shared = (_first_int(cfg, ("n_shared_experts",)) or 0) * (expert or 0) + (
                _first_int(cfg, ("shared_expert_intermediate_size",)) or 0
            )
            dense_layers = min(layers, _first_int(cfg, ("first_k_dense_replace",)) or 0)
            if not k or not expert or (dense_layers and not inter):
                return None, "model config lacks the expert sizes (moe_intermediate_size, top-k)"
            mlp = dense_layers * 3 * h * (inter or 0) + (layers - dense_layers) * 3 * h * (
                k * expert + shared
            )
            how = f"mixture of experts, {k} of {experts} experts per token"
        else:
            if not inter:
                return None, "model config lacks intermediate_size"
            mlp = layers * 3 * h * inter
            how = "dense"
    except (TypeError, ValueError, OverflowError):
        return None, "model config sizes are not integers"
    if model.layout == "mla":
        nope, rope = model.qk_nope_head_dim or 128, model.qk_rope_head_dim or 0
        v = model.v_head_dim or nope
        rank = model.kv_lora_rank or 0
        q_rank = _first_int(cfg, ("q_lora_rank",))
        q = h * q_rank + q_rank * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
        proj = q + h * (rank + rope) + rank * heads * (nope + v) + heads * v * h
        qk, av = nope + rope, v
    else:
        hd, kv = model.head_dim, model.kv_heads
        proj = 2 * h * heads * hd + 2 * h * kv * hd
        qk = av = hd
    # Linear-attention and Mamba layers: projections of about an attention layer's size.
    linear = 2 * (layers * proj + mlp)
    window = model.sliding_window or context
    full = model.attention_layers - model.window_layers
    span = full * context + model.window_layers * min(window, context)
    attention = 2 * heads * (qk + av) * span
    return float(linear + attention), f"{how}, attention over {context:,.0f} tokens"


def _first_int(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if value is not None and not isinstance(value, bool):
            n = int(value)
            if n < 0 or n > 10**7:
                raise ValueError(f"{key} out of range")
            return n
    return None
