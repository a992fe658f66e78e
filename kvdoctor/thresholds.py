"""Thresholds that more than one part of kvdoctor judges by, each named once.

A playbook condition names one as ``$<name>`` (``value: $pool_full``), resolved when the
playbook is validated, so the rules, the alert generator and ``kvdoctor rules`` all see the
number; the renderer, the experiments and the lab's generator import the constant itself.
"""

from __future__ import annotations

from typing import Final

# KV cache usage (0..1) at which the pool counts as full: the scheduler is about to preempt or
# hold requests back. Read as "filled" by the capacity ramp and "full" by the verdict sentence.
POOL_FULL: Final = 0.9

# KV cache usage (0..1) at or below which the pool counts as empty: nothing running holds
# blocks that a preemption could have freed for the queue.
EMPTY_POOL: Final = 0.05

# Share of a device's memory in use (NVML) at which the card counts as full: the verdict
# sentence calls GPU memory full only from this, an out-of-memory line or vLLM finding no memory
# for the pool, and the healthy table's words follow it.
CARD_FULL: Final = 0.98

# The busiest data-parallel engine's running share over an even share at which the engines'
# load counts as uneven: the others had room, so one engine's limit is not the server's (the
# planner refuses replicas, kv-admission advises spreading the load first).
ENGINES_UNEVEN: Final = 1.5

# Model FLOPs utilization of the prefill (0..1) at which a slow first token is the prompts' own
# compute on this hardware: well-run prefills reach 30-60 % of the devices' dense peak, and a
# prefill at half the low end is computing, not waiting on something else (external cases at
# 24 % and 30 % healthy; an idle-clock prefill at 7 % not).
PREFILL_BUSY_MFU: Final = 0.15

# The names a playbook may write as ``$name`` in a condition's ``value``.
PLAYBOOK_CONSTANTS: Final[dict[str, float]] = {
    "pool_full": POOL_FULL,
    "engines_uneven": ENGINES_UNEVEN,
    "prefill_busy_mfu": PREFILL_BUSY_MFU,
}
