"""Ask a real vLLM whether it accepts flag sets: the proof behind :mod:`constraints`.

Used by the lab tier and ``benchmarks/bench_remediation.py``; needs the lab's vLLM environment.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kvdoctor.errors import KvdoctorError

_SCRIPT = Path(__file__).with_name("_vllm_check.py")
# One vLLM import (~10 s on 2 cores) plus a fraction of a second per flag set.
TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error: str


def vllm_accepts(vllm_python: str, argvs: Sequence[Sequence[str]]) -> list[Verdict]:
    """vLLM's verdict on each argument list (``--model`` must be in each), in order."""
    try:
        proc = subprocess.run(
            [vllm_python, str(_SCRIPT)],
            input=json.dumps([list(a) for a in argvs]),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KvdoctorError(f"vLLM config check did not run: {exc}") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if len(lines) != len(argvs):
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise KvdoctorError(f"vLLM config check answered {len(lines)} of {len(argvs)}: {tail[0]}")
    out: list[Verdict] = []
    for line in lines:
        data = json.loads(line)
        out.append(Verdict(ok=bool(data.get("ok")), error=str(data.get("error", ""))))
    return out
