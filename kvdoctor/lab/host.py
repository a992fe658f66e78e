"""What this host's CPU lets the lab's vLLM do.

vLLM's CPU attention refuses an fp8 KV cache unless the CPU has AVX-512 or AMX
(``vllm/v1/attention/backends/cpu_attn.py``: "FP8 KV cache on CPU requires x86 with AVX-512 or
AMX"); CI hosts vary, and a lab server that exits at start-up for lack of an instruction set says
nothing about kvdoctor. The answer comes from the lab interpreter's own torch, the same check
vLLM makes, so it cannot disagree with what the server will do.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Sequence

from kvdoctor.errors import KvdoctorError

_FP8_CHECK = (
    "import torch; "
    "print(int(bool(torch.cpu._is_avx512_supported() or torch.cpu._is_amx_tile_supported())))"
)


class LabUnsupportedError(KvdoctorError):
    """The host cannot run what a lab server asks for (an instruction set vLLM needs)."""


def wants_fp8_kv(engine_args: Sequence[str]) -> bool:
    """Whether vLLM arguments ask for a quantized (fp8) KV cache."""
    args = list(engine_args)
    for i, arg in enumerate(args):
        if arg == "--kv-cache-dtype" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--kv-cache-dtype="):
            value = arg.split("=", 1)[1]
        else:
            continue
        if value.startswith("fp8"):
            return True
    return False


@functools.cache
def fp8_kv_unsupported(vllm_python: str) -> str | None:
    """Why vLLM's CPU build cannot run an fp8 KV cache here, or None when it can.

    An interpreter that cannot answer (torch missing, a timeout) gives None: vLLM itself then
    decides, and its start-up error says why.
    """
    try:
        proc = subprocess.run(
            [vllm_python, "-c", _FP8_CHECK],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or proc.stdout.strip() != "0":
        return None  # supported ("1"), or no clear answer
    return (
        "this host's CPU has neither AVX-512 nor AMX, which vLLM's CPU build needs for an fp8 KV "
        "cache"
    )


def check_engine_args(vllm_python: str, engine_args: Sequence[str]) -> None:
    """Raise :class:`LabUnsupportedError` when this host cannot serve ``engine_args``."""
    if wants_fp8_kv(engine_args):
        why = fp8_kv_unsupported(vllm_python)
        if why is not None:
            raise LabUnsupportedError(f"cannot start a lab server with --kv-cache-dtype fp8: {why}")
