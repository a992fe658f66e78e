"""Facts about the capture window itself that both the verdict and its sentence rest on."""

from __future__ import annotations

from collections.abc import Mapping

# What an idle window shows: nothing running, waiting or finished, no token counted.
_TRAFFIC = (
    "running_max",
    "waiting_max",
    "requests_finished_window",
    "prompt_tokens_per_s",
    "generation_tokens_per_s",
)


def idle_window(values: Mapping[str, object]) -> bool:
    """The window saw no traffic at all: no request running, waiting or finished, and no prompt
    or generated token counted (at least three of those known, all zero)."""
    known = [
        float(v)
        for name in _TRAFFIC
        if isinstance(v := values.get(name), int | float) and not isinstance(v, bool)
    ]
    return len(known) >= 3 and all(v <= 0 for v in known)
