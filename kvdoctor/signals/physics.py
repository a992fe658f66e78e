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

from collections.abc import Mapping
from typing import Any

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
)

# The fastest host link a GPU has (PCIe 5.0 x16, one direction, 64 GB/s): weights offloaded to
# CPU memory (--cpu-offload-gb) cross it in every forward pass, so no step is faster than their
# bytes over it.
HOST_LINK_BYTES_PER_S = 64e9

_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1}


def bandwidth_of(name: str) -> tuple[float, str] | None:
    """(bytes/s, source) of the first table row whose pattern is in ``name``, else None."""
    low = name.lower()
    for pattern, bw, source in sorted(GPU_BANDWIDTH, key=lambda r: -len(r[0])):
        if pattern.lower() in low:
            return bw, source
    return None


# Any: int() of raw config.json values of any JSON type, each guarded by the except below.
def dense_weight_bytes(cfg: Mapping[str, Any]) -> tuple[int | None, str]:
    """Weight bytes of a dense decoder from its HF config, or (None, why).

    Embeddings + (attention + gated MLP + norms) per layer + the LM head unless tied. A
    mixture-of-experts model reads only the routed experts per token, which the config does
    not say for a batch, so it gets no estimate.
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
    per_layer = attn + 3 * h * inter + 2 * h
    tied = bool(cfg.get("tie_word_embeddings", False))
    params = layers * per_layer + vocab * h * (1 if tied else 2) + h
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    return params * _DTYPE_BYTES.get(dtype, 2), f"dense estimate, {params:,} params × {dtype}"
