"""Unicode sparklines and window percentiles for the report's small charts.

Block characters read in any viewer (GitHub, GitLab, Jira, a terminal, a plain-text email), need
no image hosting, and are deterministic bytes, which the golden tests rely on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

BARS = "▁▂▃▄▅▆▇█"
DEFAULT_WIDTH = 40


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) with linear interpolation between closest ranks.

    Non-finite values are dropped; ``None`` for an empty series.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside 0..1")
    data = sorted(v for v in values if math.isfinite(v))
    if not data:
        return None
    pos = q * (len(data) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    frac = pos - lo
    return data[lo] + (data[hi] - data[lo]) * frac


def resample_max(values: Sequence[float], width: int) -> list[float]:
    """At most ``width`` points, each the maximum of its bucket of consecutive samples.

    Max rather than mean: a chart of a long window must still show a short spike of KV usage or
    a burst of preemptions, which is what the reader is looking for.
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    n = len(values)
    if n <= width:
        return list(values)
    out: list[float] = []
    for i in range(width):
        start = i * n // width
        end = (i + 1) * n // width
        finite = [v for v in values[start:end] if math.isfinite(v)]
        # NaN compares false both ways, so max() over it would depend on sample order.
        out.append(max(finite) if finite else math.nan)
    return out


def sparkline(
    values: Sequence[float],
    *,
    width: int = DEFAULT_WIDTH,
    lo: float | None = None,
    hi: float | None = None,
) -> str:
    """A one-line chart of ``values`` scaled to ``lo..hi`` (defaults: 0 and the series maximum).

    A fixed scale (``lo=0, hi=1`` for a fraction) keeps 5 % usage looking low instead of being
    stretched to full height. Non-finite samples are drawn as a space; an empty series gives "".
    """
    points = resample_max([v if math.isfinite(v) else math.nan for v in values], width)
    finite = [v for v in points if math.isfinite(v)]
    if not finite:
        return " " * len(points)
    bottom = 0.0 if lo is None else lo
    top = max(finite) if hi is None else hi
    span = top - bottom
    chars: list[str] = []
    for v in points:
        if not math.isfinite(v):
            chars.append(" ")
            continue
        if span <= 0:
            # A flat series: lowest bar when it sits at the bottom of the scale, else the top.
            chars.append(BARS[0] if v <= bottom else BARS[-1])
            continue
        level = (min(max(v, bottom), top) - bottom) / span
        chars.append(BARS[min(len(BARS) - 1, int(level * (len(BARS) - 1) + 0.5))])
    return "".join(chars)
