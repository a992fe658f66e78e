"""Small-sample statistics for experiments that compare a baseline with a treatment.

An experiment decides on an effect size only when its samples say the effect is larger than the
noise it saw. The test is Mann-Whitney's rank-sum test (no assumption about the shape of latency
distributions, which are skewed): exact by enumeration for the few probes a light experiment
sends, the normal approximation with tie correction for the hundreds of inter-token gaps.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

# Up to this many pooled samples the p-value is exact (C(16, 8) = 12,870 rank splits).
_EXACT_MAX = 16


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _ranks(pooled: Sequence[float]) -> list[float]:
    order = sorted(range(len(pooled)), key=lambda i: pooled[i])
    ranks = [0.0] * len(pooled)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1  # ties share their mean rank
        i = j + 1
    return ranks


def rank_sum_p(baseline: Sequence[float], treatment: Sequence[float]) -> float | None:
    """Two-sided p-value that ``treatment`` and ``baseline`` come from one distribution."""
    na, nb = len(baseline), len(treatment)
    if na == 0 or nb == 0:
        return None
    pooled = [*baseline, *treatment]
    ranks = _ranks(pooled)
    observed = sum(ranks[na:])
    mean = nb * (na + nb + 1) / 2
    if na + nb <= _EXACT_MAX:
        extreme = total = 0
        dist = abs(observed - mean)
        for combo in itertools.combinations(range(na + nb), nb):
            total += 1
            if abs(sum(ranks[i] for i in combo) - mean) >= dist - 1e-9:
                extreme += 1
        return extreme / total
    n = na + nb
    tie_sum = 0.0
    counts: dict[float, int] = {}
    for v in pooled:
        counts[v] = counts.get(v, 0) + 1
    for t in counts.values():
        tie_sum += t**3 - t
    var = na * nb / 12 * ((n + 1) - tie_sum / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(observed - mean) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0.0) / math.sqrt(2))


def ratio(treatment: float | None, baseline: float | None) -> float | None:
    if treatment is None or baseline is None or baseline <= 0:
        return None
    return treatment / baseline
