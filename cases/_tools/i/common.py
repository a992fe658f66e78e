"""Helpers for the i- cases (copied from cases/_tools/c/cases.py of writer c, trimmed)."""

from __future__ import annotations

import datetime as _dt
import random

from bundlegen import spread


def ts(s: str) -> float:
    return _dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=_dt.timezone.utc).timestamp()


def stamp(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def jit(rng: random.Random, base: float, rel: float) -> float:
    return base * (1.0 + rng.uniform(-rel, rel))


def hseries(n: int, base_total: float, base_shape, per: list[float], shape) -> list:
    """Histogram increments: index 0 holds what accumulated before the capture; later
    intervals share out their observations over ``shape`` (remainders carried)."""
    out = [spread(base_total, base_shape)] if base_total else [[]]
    wsum = sum(w for _, w in shape)
    acc = [0.0] * len(shape)
    emitted = [0] * len(shape)
    for i in range(1, n):
        step = []
        for j, (v, w) in enumerate(shape):
            acc[j] += max(0.0, per[i]) * w / wsum
            k = int(acc[j] + 1e-9) - emitted[j]
            if k > 0:
                emitted[j] += k
                step.append((v, float(k)))
        out.append(step)
    return out


def hsteps(n: int, base: list, per_steps: list[list]) -> list:
    """Histogram increments given explicitly per interval (index 0 = before the capture)."""
    return [base] + [per_steps[i] for i in range(1, n)]


def gpu_samples(t0: float, dt: float, n: int, name: str, total: int, used: int,
                procs: list[tuple[int, str, int]], ngpu: int = 1, every: int = 2) -> list[dict]:
    out = []
    for i in range(0, n, every):
        devs = []
        for g in range(ngpu):
            devs.append({"index": g, "name": name, "memory_total": total, "memory_used": used,
                         "processes": [{"pid": p + g, "name": nm, "used_memory": u}
                                       for p, nm, u in procs]})
        out.append({"t": round(t0 + dt * i + 0.4, 3), "devices": devs})
    return out


def v1_stats_line(t: float, prefix: str, loc: str, pt: float, gt: float, run: int, wait: int,
                  kv: float, hit: float, engine: str | None = "000") -> str:
    eng = f"Engine {engine}: " if engine is not None else ""
    return (f"{prefix}INFO {stamp(t)} [{loc}] {eng}Avg prompt throughput: {pt:.1f} tokens/s, "
            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: "
            f"{wait} reqs, GPU KV cache usage: {kv * 100:.1f}%, Prefix cache hit rate: "
            f"{hit * 100:.1f}%")
