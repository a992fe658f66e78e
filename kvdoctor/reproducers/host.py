"""Is this host a fair place to measure from? Checks on the client side of a reproducer run.

Linux's autogroup scheduling (``kernel.sched_autogroup_enabled``, on by default on desktop and
many server kernels) makes each session one scheduling group. A load generator in one session
sharing CPUs with a busy vLLM started from another session was starved for seconds at a time
on the lab (client TTFT 2–4 s while vLLM's own histogram said 50 ms): the client's timings then
measure the client, not the server. Detecting it is cheap, so reproducers warn about it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from kvdoctor.probes.engine import find_server_process

AUTOGROUP = Path("/proc/sys/kernel/sched_autogroup_enabled")


def cpu_share_warning(
    endpoint: str,
    *,
    autogroup: Path = AUTOGROUP,
    find_server: Callable[[str], tuple[int, list[str]] | None] = find_server_process,
) -> str | None:
    """One line when the local vLLM serving ``endpoint`` runs in another session than this
    process under autogroup scheduling; None when not local, not Linux, or not a concern."""
    try:
        if autogroup.read_text(encoding="ascii").strip() != "1":
            return None
    except OSError:
        return None
    found = find_server(endpoint)
    if found is None:
        return None
    pid = found[0]
    try:
        if os.getsid(pid) == os.getsid(0):
            return None
    except OSError:
        return None
    return (
        f"vLLM (pid {pid}) runs on this host in another login session and the kernel schedules "
        "sessions as groups (sched_autogroup_enabled=1): while the engine is busy this client "
        "can be starved of CPU, which inflates the TTFT and inter-token gaps it measures. Run "
        "kvdoctor from vLLM's session or from another host."
    )
