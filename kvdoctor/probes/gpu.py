"""The GPU probe: per-device memory and per-process use through NVML, sampled with the metrics.

Where there is no NVIDIA driver (or no pynvml) the probe reports why once and samples nothing.
Processes belonging to the detected vLLM server are named ``vllm (<name>)`` so the signals can
tell the server's memory from other processes' (``gpu_other_process_bytes``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from kvdoctor.bundle.model import GpuDevice, GpuProcess, GpuSample, NotChecked


# Any: the pynvml module, which has no type information.
def _load_nvml() -> Any:
    import pynvml

    return pynvml


def _proc_name(pid: int) -> str:
    try:
        import psutil

        return str(psutil.Process(pid).name())
    except Exception:  # the process may be gone, or in another PID namespace
        return ""


class GpuSampler:
    """Samples NVML; ``why_not`` is set (and ``sample`` returns None) when NVML is unusable."""

    def __init__(
        self,
        server_pids: set[int] | None = None,
        nvml_loader: Callable[[], Any] = _load_nvml,
        name_of: Callable[[int], str] = _proc_name,
    ) -> None:
        self.server_pids = set(server_pids or ())
        self.name_of = name_of
        self.nvml: Any = None  # the pynvml module (untyped), once loaded
        self.why_not: str | None = None
        try:
            nvml = nvml_loader()
            nvml.nvmlInit()
            self.count = int(nvml.nvmlDeviceGetCount())
            self.nvml = nvml
        except ImportError:
            self.why_not = "pynvml (nvidia-ml-py) is not installed"
        except Exception as exc:  # NVMLError_* and friends: no driver, no permission, ...
            text = " ".join(str(exc).split()) or type(exc).__name__
            self.why_not = f"NVML unavailable (no NVIDIA driver?): {text}"
        if self.nvml is not None and self.count == 0:
            self.why_not = "NVML found no GPU"

    @property
    def not_checked(self) -> NotChecked | None:
        return None if self.why_not is None else NotChecked(what="gpu", why=self.why_not)

    def _name(self, pid: int) -> str:
        name = self.name_of(pid)
        return f"vllm ({name})" if pid in self.server_pids else name

    def sample(self, t: float) -> GpuSample | None:
        if self.nvml is None or self.why_not is not None:
            return None
        nvml = self.nvml
        devices: list[GpuDevice] = []
        try:
            for index in range(self.count):
                handle = nvml.nvmlDeviceGetHandleByIndex(index)
                mem = nvml.nvmlDeviceGetMemoryInfo(handle)
                name = nvml.nvmlDeviceGetName(handle)
                if isinstance(name, bytes):
                    name = name.decode("utf-8", errors="replace")
                procs: list[GpuProcess] = []
                try:
                    running = nvml.nvmlDeviceGetComputeRunningProcesses(handle)
                except Exception:  # not supported on some devices / drivers
                    running = []
                for p in running:
                    used = getattr(p, "usedGpuMemory", None)
                    procs.append(
                        GpuProcess(
                            pid=int(p.pid),
                            name=self._name(int(p.pid)),
                            used_memory=int(used) if isinstance(used, int) else None,
                        )
                    )
                procs.sort(key=lambda p: p.pid)
                devices.append(
                    GpuDevice(
                        index=index,
                        name=str(name),
                        memory_total=int(mem.total),
                        memory_used=int(mem.used),
                        processes=procs,
                    )
                )
        except Exception as exc:  # a device falling off the bus must not stop the capture
            self.why_not = f"NVML sampling failed: {' '.join(str(exc).split())}"
            return None
        return GpuSample(t=t, devices=devices)

    def close(self) -> None:
        if self.nvml is not None:
            # Shutting down a broken NVML is best effort.
            with contextlib.suppress(Exception):
                self.nvml.nvmlShutdown()
