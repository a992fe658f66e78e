"""GPU signals from the NVML samples (gpu.jsonl): the busiest device's memory, other processes'
memory, and the device's published bandwidth."""

from __future__ import annotations

from kvdoctor.bundle.model import Bundle
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.physics import bandwidth_of


def _is_server_process(name: str) -> bool:
    # The GPU probe names processes of the detected vLLM server "vllm (...)"; vLLM's own
    # workers set titles like "VLLM::EngineCore" / "VLLM::Worker".
    low = name.lower()
    return "vllm" in low or "enginecore" in low


def gpu(out: Out, bundle: Bundle) -> None:
    names = (
        "gpu_memory_used_bytes",
        "gpu_memory_total_bytes",
        "gpu_memory_used_fraction",
        "gpu_other_process_bytes",
    )
    samples = bundle.gpu
    if not samples or not any(s.devices for s in samples):
        why = not_checked_reason(bundle, "gpu", "no GPU samples in the bundle")
        for n in (*names, "gpu_name", "gpu_bandwidth"):
            out.set(n, None, reason=why)
        return
    # The busiest device: highest used memory at any sample (ties: lowest index).
    peak: dict[int, tuple[int, int]] = {}
    other_peak: int | None = None
    for s in samples:
        other = 0
        known = False
        for d in s.devices:
            used, total = peak.get(d.index, (0, d.memory_total))
            peak[d.index] = (max(used, d.memory_used), d.memory_total)
            for p in d.processes:
                if p.used_memory is None:
                    continue
                known = True
                if not _is_server_process(p.name):
                    other += p.used_memory
        if known:
            other_peak = other if other_peak is None else max(other_peak, other)
    index = min(peak, key=lambda i: (-peak[i][0], i))
    used, total = peak[index]
    prov = f"gpu.jsonl: device {index}, peak over {len(samples)} NVML samples"
    out.set("gpu_memory_used_bytes", used, prov)
    out.set("gpu_memory_total_bytes", total, prov)
    out.set(
        "gpu_memory_used_fraction",
        used / total if total > 0 else None,
        prov,
        reason="device reports zero total memory",
    )
    out.set(
        "gpu_other_process_bytes",
        other_peak,
        "gpu.jsonl: peak memory of processes not belonging to the vLLM server",
        reason="NVML gave no per-process memory",
    )
    name = next((d.name for s in samples for d in s.devices if d.index == index), None)
    out.set("gpu_name", name or None, prov, reason="NVML gave no device name")

    bw = bandwidth_of(name) if name else None
    out.set(
        "gpu_bandwidth",
        bw[0] if bw else None,
        f"published peak bandwidth of {name}: {bw[1]}" if bw else "",
        reason=f"{name!r} is not in the bandwidth table (signals/physics.py)",
    )
