"""Which platform a bundle's log names: the CPU build, or a GPU server that offloads KV."""

from __future__ import annotations

from kvdoctor.signals.config import platform_of

CPU_BUILD = (
    "INFO 12-01 10:00:00 [cpu.py:120] Using Torch SDPA backend.\n"
    "INFO 12-01 10:00:05 [kv_cache_utils.py:1089] CPU KV cache size: 65,536 tokens\n"
)
# vLLM 0.19's KV offloading to host memory on a GPU server: its module is also called cpu.py.
GPU_OFFLOAD = (
    "(EngineCore pid=212) INFO 04-16 08:56:16 [factory.py:51] Creating offloading spec with "
    "name: CPUOffloadingSpec\n"
    "(EngineCore pid=212) INFO 04-16 08:56:16 [cpu.py:61] Allocating 2048 CPU KV blocks "
    "(8.00 GiB) for KV offloading\n"
    "(EngineCore pid=212) INFO 04-16 08:56:20 [kv_cache_utils.py:1089] GPU KV cache size: "
    "33,456 tokens\n"
)


def test_the_cpu_build_names_the_cpu() -> None:
    assert platform_of({}, CPU_BUILD, None) == "cpu"


def test_kv_offloading_to_host_memory_is_no_cpu_platform() -> None:
    assert platform_of({}, GPU_OFFLOAD, None) == "gpu"
    assert platform_of({}, GPU_OFFLOAD, 8) == "gpu"


def test_the_flag_decides_before_the_log() -> None:
    assert platform_of({"device": "cpu"}, GPU_OFFLOAD, None) == "cpu"
