"""How hard the prefill works the GPUs: the window's prefill rate against the devices' peak.

A first token that is late because the prompt is long on this hardware is the workload, not a
fault; one that is late while the GPUs compute a small share of what they can is slowed by
something else. The rate is the prompt tokens the engine computed (not served from the prefix
cache) per second it spent prefilling; the cost of a token is its FLOPs through this model
(signals/physics.py); their product over the devices' published peak is the model FLOPs
utilization of the prefill.

The seconds spent prefilling are the window's Σ request prefill time, capped at the window:
requests prefilled together share their steps (32 prompts in one batch each count the batch's
time), so a sum over the window's length means the engine prefilled all the while. The cap
makes the rate a lower bound, so the utilization is never overstated.
"""

from __future__ import annotations

from typing import Any

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath import KvModel
from kvdoctor.observations import Observations
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.physics import peak_flops_of, prefill_flops_per_token
from kvdoctor.vllm_metrics import PREFILL_TIME, REQUEST_PROMPT_TOKENS


def prefill_compute(out: Out, obs: Observations, bundle: Bundle) -> None:
    """Set prefill_tokens_per_busy_s, prefill_flops_per_token, gpu_peak_flops, prefill_mfu."""
    rate, why_rate = _busy_rate(out, obs)
    out.set(
        "prefill_tokens_per_busy_s",
        rate,
        "computed prompt tokens of the requests finished in the window (less the cached share) "
        "/ min(window, Σ their prefill time)",
        reason=why_rate,
    )
    cfg = bundle.model_config_raw
    flops, why_flops = _flops(out, cfg, bundle)
    out.set("prefill_flops_per_token", flops, f"model_config.json: {why_flops}", reason=why_flops)
    peak, why_peak, devices = _peak(out, cfg, bundle)
    out.set("gpu_peak_flops", peak, why_peak, reason=why_peak)
    if rate is None or flops is None or peak is None:
        missing = [
            w
            for v, w in ((rate, why_rate), (flops, why_flops), (peak, why_peak))
            if v is None and w
        ]
        out.set("prefill_mfu", None, reason="; ".join(missing) or "not available")
        return
    mfu = rate * flops / (peak * devices)
    if mfu > 1:
        # More than the devices can compute: some of the prompt tokens were served from a cache
        # the metrics do not count, or the device figures are not this instance's.
        out.set(
            "prefill_mfu",
            None,
            reason=f"the window's prefill rate is {mfu:.1f}x the devices' peak: cached prompt "
            "tokens the metrics do not count, or not this instance's devices",
        )
        return
    out.set(
        "prefill_mfu",
        mfu,
        f"prefill_tokens_per_busy_s × prefill_flops_per_token / (gpu_peak_flops × {devices} "
        "devices)",
    )


def _busy_rate(out: Out, obs: Observations) -> tuple[float | None, str]:
    hist = obs.histogram_window(REQUEST_PROMPT_TOKENS)
    prefill = obs.counter_increase(f"{PREFILL_TIME}_sum")
    window = out.ss.get("window_s")
    if hist is None or hist[1] <= 0:
        return None, "no request finished in the window (prompt-length histogram)"
    if prefill is None or prefill <= 0:
        return None, "no prefill-time histogram in the window"
    if not isinstance(window, (int, float)) or window <= 0:
        return None, "window length unknown"
    cached = out.ss.get("prompt_cached_share_window")
    if not isinstance(cached, (int, float)):
        cached = out.ss.get("prefix_hit_rate_window")
    # Without a cache figure every prompt token counts as computed: the rate can only be high.
    share = min(max(float(cached), 0.0), 1.0) if isinstance(cached, (int, float)) else 0.0
    return hist[1] * (1.0 - share) / min(float(window), prefill), ""


def _flops(out: Out, cfg: dict[str, Any] | None, bundle: Bundle) -> tuple[float | None, str]:
    if cfg is None:
        return None, not_checked_reason(bundle, "model_config", "no model config in the bundle")
    context = out.ss.get("mean_prompt_len")
    if not isinstance(context, (int, float)) or context <= 0:
        return None, "mean prompt length unknown"
    try:
        model = KvModel.from_hf_config(cfg)
        return prefill_flops_per_token(cfg, model, float(context))
    except Exception as exc:  # the model config is untrusted input of any shape
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"model config not understood: {why}"


def _peak(out: Out, cfg: dict[str, Any] | None, bundle: Bundle) -> tuple[float | None, str, int]:
    name = out.ss.get("gpu_name")
    if not isinstance(name, str) or not name:
        return None, "GPU model unknown (no NVML samples)", 1
    found = peak_flops_of(name, fp8_weights=_fp8_weights(cfg))
    if found is None:
        return None, f"{name!r} is not in the peak-FLOPs table (signals/physics.py)", 1
    devices, how = _devices(out, bundle)
    return found[0], f"published dense peak of {name}: {found[1]}; {how}", devices


def _devices(out: Out, bundle: Bundle) -> tuple[int, str]:
    """Devices the instance computes on: tensor × pipeline × data parallel sizes from its flags,
    else every device NVML sampled (more devices than the instance uses only lower the
    utilization)."""
    args = bundle.engine_args.args if bundle.engine_args else {}
    sizes = []
    for flag in ("tensor-parallel-size", "pipeline-parallel-size", "data-parallel-size"):
        raw = args.get(flag, args.get(flag.replace("-", "_")))
        size = 1
        if isinstance(raw, (int, str)) and not isinstance(raw, bool):
            try:
                size = max(1, int(raw))
            except ValueError:
                size = 1
        sizes.append(size)
    flagged = sizes[0] * sizes[1] * sizes[2]
    if any(
        args.get(f) is not None
        for f in ("tensor-parallel-size", "tensor_parallel_size", "pipeline-parallel-size")
    ):
        return flagged, f"{flagged} devices (tensor × pipeline × data parallel flags)"
    sampled = out.ss.get("gpu_device_count")
    if isinstance(sampled, int) and sampled > 0:
        n = max(sampled, flagged)
        return n, f"{n} devices (NVML sampled; no parallelism flags seen)"
    return flagged, f"{flagged} device(s) (parallelism flags)"


def _fp8_weights(cfg: dict[str, Any] | None) -> bool:
    if not isinstance(cfg, dict):
        return False
    quant = cfg.get("quantization_config")
    text = cfg.get("text_config")
    if not isinstance(quant, dict) and isinstance(text, dict):
        quant = text.get("quantization_config")
    return isinstance(quant, dict) and str(quant.get("quant_method", "")).lower() == "fp8"
