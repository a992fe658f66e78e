"""Observations: the scrapes of a bundle parsed into canonical, per-series columns.

This is where vLLM's naming differences end (docs/bundle.md):

* the one table of renames (``kvdoctor.vllm_metrics.RENAMED``) maps older names to the
  canonical (vLLM V1) ones, and a ``ray_vllm:`` prefix (Ray Serve) to ``vllm:``; counters are
  stored without their ``_total`` wire suffix;
* when a payload carries both an old and a new name for one metric, the new one wins;
* every label set (``engine``, ``model_name``, ``le``, ...) keeps its own column, so callers can
  aggregate across engines or look at one engine;
* counter resets (a restart inside the window) are found once here, and window increases treat
  a drop as a restart from zero, so traffic is never negative.

Columns are aligned with :attr:`Observations.times` (good scrapes only); a value that a scrape did
not carry (or carried as NaN/±Inf) is ``nan``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from kvdoctor.bundle.model import Bundle, Scrape
from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import Labels, parse_values
from kvdoctor.logstats import LOG_WIRE, SilentTail, parse_stats_lines, silent_tail, stats_series
from kvdoctor.vllm_metrics import (
    GENERATION_TOKENS,
    KV_USAGE,
    PREFIXES,
    PROMPT_TOKENS,
    RENAMED,
    RUNNING,
    WAITING,
)

NAN = math.nan
# Distinct vLLM series (name + label set) a bundle may hold. A real server has a few hundred per
# engine; 20k are diagnosed in about 1.5 s (benchmarks/bench_series_scale.py). Beyond the cap
# the input is refused with a one-line message rather than diagnosed for minutes.
MAX_SERIES = 50_000

_HIST_SUFFIXES = ("_bucket", "_sum", "_count")
GROUP_LABELS = ("model_name", "engine")
# Gauges every vLLM engine exports once per (model_name, engine): they define the engines.
CORE_GAUGES = (KV_USAGE, RUNNING, WAITING)

Group = tuple[str, str]  # (model_name, engine); "" where the label is absent


class _Canon(NamedTuple):
    name: str  # canonical sample name, e.g. "vllm:num_preemptions", "vllm:x_seconds_bucket"
    preferred: bool  # the wire name was already canonical (wins over an alias)
    cumulative: bool  # counter or histogram part: resets are looked for
    wire: str  # the name as seen (for provenance)


_CANON_CACHE: dict[str, _Canon | None] = {}
# What a lookup in _CANON_CACHE returns for a wire name not seen yet (None is a cached answer).
_NOT_CACHED = _Canon("", False, False, "")


def canonical(wire: str) -> _Canon | None:
    """Map a wire sample name to its canonical form (``None`` for ``_created`` samples)."""
    hit = _CANON_CACHE.get(wire, False)
    if hit is not False:
        return hit  # type: ignore[return-value]
    result = _canonical(wire)
    _CANON_CACHE[wire] = result
    return result


def _canonical(wire: str) -> _Canon | None:
    name = wire
    preferred = True
    if name.startswith("ray_vllm:"):
        name = name[len("ray_") :]
        preferred = False
    if name.endswith("_created"):
        return None  # creation timestamps of counters/histograms, not data
    cumulative = False
    if name.endswith("_total"):
        name = name[: -len("_total")]
        cumulative = True
    suffix = ""
    for s in _HIST_SUFFIXES:
        if name.endswith(s):
            suffix = s
            break
    base = name[: -len(suffix)] if suffix else name
    if base in RENAMED:
        base = RENAMED[base]
        preferred = False
    elif suffix and name in RENAMED:
        # A gauge or counter whose own name ends like a histogram part.
        base, suffix = RENAMED[name], ""
        preferred = False
    if suffix:
        cumulative = True
    return _Canon(base + suffix, preferred, cumulative, wire)


def _whole_and_rising(values: list[float]) -> bool:
    """Floats holding whole numbers below 2**53 (no NaN, no inf) that never decrease."""
    try:
        return (
            len(values) > 1
            and all(map(float.is_integer, values))
            and all(map(operator.le, values, values[1:]))
            and abs(values[0]) < 2**53
            and values[-1] < 2**53
        )
    except TypeError:  # not all floats (ints from a caller): the loop handles them
        return False


def increase(values: Iterable[float]) -> tuple[float, list[int]]:
    """Window increase of a counter column and the indices where it reset.

    A drop means the process restarted and counted again from zero, so the new value is all
    traffic since the restart; increases are therefore never negative.
    """
    if not isinstance(values, list):
        values = list(values)
    if _whole_and_rising(values):
        # Whole counts that never drop: every step and partial sum below is an exact integer,
        # so the loop's total is exactly last - first (found in C for the usual column).
        return values[-1] - values[0], []
    total = 0.0
    prev: float | None = None
    resets: list[int] = []
    for i, v in enumerate(values):
        if v != v:  # nan: absent from this scrape
            continue
        if prev is not None:
            if v >= prev:
                total += v - prev
            else:
                total += v
                resets.append(i)
        prev = v
    return total, resets


def counter_resets(values: list[float]) -> list[int]:
    """The indices where a counter column reset (as :func:`increase` finds them)."""
    if all(map(operator.le, values, values[1:])):
        return []  # never drops (and no NaN, which compares false): the common case, in C
    return increase(values)[1]


def process_restarts(columns: list[list[float]]) -> tuple[list[int], dict[int, list[int]]]:
    """Where the process restarted, and the drops of single series that were no restart.

    A restart zeroes every counter at once, so at a restart most series that had counted
    anything drop together. A drop that most series do not share is a glitch of that series (a
    malformed exposition, a histogram bucket that is not cumulative): read as a restart it would
    add the series' whole value to the window once more per drop (external case bundles: one
    bucket flipping between 4,000 and 0 made a window's prompts look 8 tokens long, and a
    decreasing ``_sum`` reported 44 restarts). Returns the restart indices and, per column
    position in ``columns``, its drop indices that are not restarts.
    """
    drops = {j: counter_resets(col) for j, col in enumerate(columns)}
    drops = {j: d for j, d in drops.items() if d}
    if not drops:
        return [], {}
    dropped_at: dict[int, int] = {}
    for d in drops.values():
        for i in d:
            dropped_at[i] = dropped_at.get(i, 0) + 1
    restarts: list[int] = []
    for i in sorted(dropped_at):
        # Series that had counted something just before (a counter at 0 cannot drop).
        counting = sum(
            1 for col in columns if col[i] == col[i] and col[i - 1] == col[i - 1] and col[i - 1] > 0
        )
        if 2 * dropped_at[i] >= max(counting, 1):
            restarts.append(i)
    at_restart = set(restarts)
    glitches = {j: [i for i in d if i not in at_restart] for j, d in drops.items()}
    return restarts, {j: d for j, d in glitches.items() if d}


def _without_glitches(col: list[float], restarts: set[int]) -> int:
    """Blank (NaN) the samples of a counter column that dropped below the last kept value
    where the process did not restart; returns how many. The series resumes at the first
    sample back at or above that value, so its increase never counts a glitch twice."""
    prev: float | None = None
    blanked = 0
    for i, v in enumerate(col):
        if v != v:
            continue
        if prev is not None and v < prev and i not in restarts:
            col[i] = NAN
            blanked += 1
            continue
        prev = v
    return blanked


def histogram_quantile_finite(q: float, cumulative: list[tuple[float, float]]) -> float | None:
    """``histogram_quantile``, but None when the quantile lies in the ``+Inf`` bucket: there
    only a lower bound is known, and a length or a cost computed from it would be a guess
    posing as a measurement (a layout whose top finite bucket is 2,000 tokens, prompts of
    24,000)."""
    value = histogram_quantile(q, cumulative)
    if value is None:
        return None
    buckets = sorted(cumulative)
    total = max((c for _, c in buckets), default=0.0)
    finite = [(le, c) for le, c in buckets if not math.isinf(le)]
    if not finite or max(c for _, c in finite) < q * total:
        return None
    return value


def histogram_quantile(q: float, cumulative: list[tuple[float, float]]) -> float | None:
    """Quantile ``q`` (0..1) of a histogram given as cumulative (upper bound, count) pairs.

    Linear interpolation inside the bucket, as Prometheus' ``histogram_quantile`` does: the
    answer always lies inside the bounds of the bucket holding rank ``q × total``. When that
    bucket is ``+Inf`` the largest finite bound is returned (nothing better is known).
    """
    if not cumulative or not 0.0 <= q <= 1.0:
        return None
    buckets = sorted(cumulative)
    # Enforce monotone counts (partial resets or float noise could break it).
    mono: list[tuple[float, float]] = []
    running = 0.0
    for le, c in buckets:
        running = max(running, c)
        mono.append((le, running))
    total = mono[-1][1]
    if total <= 0:
        return None
    rank = q * total
    prev_le = 0.0
    prev_count = 0.0
    for i, (le, c) in enumerate(mono):
        # The first bucket reaching the rank; it is never empty (c > prev_count holds).
        if c >= rank and c > 0:
            if math.isinf(le):
                finite = [b for b, _ in mono[:i] if not math.isinf(b)]
                return finite[-1] if finite else None
            lower = prev_le if i > 0 else min(0.0, le)
            return lower + (le - lower) * (rank - prev_count) / (c - prev_count)
        prev_le, prev_count = le, c
    return None


@dataclass
class Observations:
    """Parsed, canonical scrape data of one bundle (see the module docstring)."""

    times: list[float] = field(default_factory=list)
    failed: list[tuple[float, str]] = field(default_factory=list)
    # canonical sample name -> label set -> values aligned with ``times``
    columns: dict[str, dict[Labels, list[float]]] = field(default_factory=dict)
    # canonical sample name -> wire names seen (provenance: which alias was in use)
    wire_names: dict[str, list[str]] = field(default_factory=dict)
    cumulative: set[str] = field(default_factory=set)
    # Indices into ``times`` where the process restarted: most counters dropped together
    # (process_restarts).
    reset_indices: list[int] = field(default_factory=list)
    # canonical name -> samples left out because that one series dropped while the process
    # did not restart (a counter or cumulative bucket cannot decrease otherwise).
    decreased: dict[str, int] = field(default_factory=dict)
    # Stats lines of the engine's log the columns were built from, where no scrape held vLLM
    # metrics (kvdoctor.logstats); 0 when the columns are the scrapes'.
    log_stats_lines: int = 0
    log_stats_interval_s: float = 0.0
    # The engine's stats lines stopped while requests kept arriving (logstats.SilentTail).
    log_silent: SilentTail | None = None
    nonfinite_values: int = 0
    # canonical name -> samples dropped as impossible (NaN or infinite, negative, usage above
    # 100 %, absurd size)
    impossible: dict[str, int] = field(default_factory=dict)
    # canonical name -> scrapes in which one series of it appeared more than once (a malformed
    # exposition: no vLLM writes one; Prometheus refuses such a scrape). The first value is kept.
    repeated: dict[str, int] = field(default_factory=dict)
    # name -> group (None: all) -> sorted (labels, column); built by _select, after observe().
    _index: dict[str, dict[Group | None, list[tuple[Labels, list[float]]]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    # ---- shape
    @property
    def window_s(self) -> float:
        return self.times[-1] - self.times[0] if len(self.times) >= 2 else 0.0

    def has(self, name: str) -> bool:
        return name in self.columns

    def wire(self, name: str) -> str:
        names = self.wire_names.get(name)
        return "/".join(names) if names else name

    def groups(self) -> list[Group]:
        """Distinct (model_name, engine) pairs of the per-engine scheduler gauges, sorted.

        Info-style series (``cache_config_info`` has ``engine`` but no ``model_name``) would
        otherwise count as engines of their own.
        """
        seen: set[Group] = set()
        core = [self.columns[n] for n in CORE_GAUGES if n in self.columns]
        for cols in core or list(self.columns.values()):
            for labels in cols:
                g = group_of(labels)
                if g != ("", ""):
                    seen.add(g)
        return sorted(seen)

    def _select(
        self, name: str, group: Group | None, where: Callable[[Labels], bool] | None = None
    ) -> list[tuple[Labels, list[float]]]:
        # The label sets of ``name`` are sorted and grouped once, on first use: per-engine
        # signals ask once per engine, and scanning every series each time made a scrape with
        # thousands of engines quadratic (20k series took minutes).
        index = self._index.get(name)
        if index is None:
            index = {}
            everything = sorted(self.columns.get(name, {}).items())
            index[None] = everything
            for labels, col in everything:
                index.setdefault(group_of(labels), []).append((labels, col))
            self._index[name] = index
        sel = index.get(group, [])
        return sel if where is None else [(lab, col) for lab, col in sel if where(lab)]

    # ---- gauges
    def gauge_series(
        self, name: str, agg: str = "sum", group: Group | None = None
    ) -> list[tuple[float, float]]:
        """Per scrape, the label sets of ``name`` combined by ``agg`` ("sum", "max" or "mean")."""
        cols = [col for _, col in self._select(name, group)]
        out: list[tuple[float, float]] = []
        for i, t in enumerate(self.times):
            vals = [c[i] for c in cols if c[i] == c[i]]
            if not vals:
                continue
            if agg == "sum":
                v = math.fsum(vals)
            elif agg == "max":
                v = max(vals)
            else:
                v = math.fsum(vals) / len(vals)
            out.append((t, v))
        return out

    # ---- counters
    def counter_increase(
        self,
        name: str,
        group: Group | None = None,
        where: Callable[[Labels], bool] | None = None,
        *,
        between: tuple[float, float] | None = None,
    ) -> float | None:
        """Increase over the window summed over label sets; ``None`` when absent or <2 scrapes.

        ``between``: only the scrapes at times ``start <= t <= end`` (a part of the window).
        """
        sel = self._select(name, group, where)
        if not sel or len(self.times) < 2:
            return None
        if between is None:
            return math.fsum(increase(col)[0] for _, col in sel)
        idx = [i for i, t in enumerate(self.times) if between[0] <= t <= between[1]]
        if len(idx) < 2:
            return None
        lo, hi = idx[0], idx[-1] + 1
        return math.fsum(increase([v for v in col[lo:hi] if v == v])[0] for _, col in sel)

    def counter_series(self, name: str, group: Group | None = None) -> list[tuple[float, float]]:
        """Cumulative increase since the window start, per scrape (reset-safe)."""
        sel = self._select(name, group)
        if not sel:
            return []
        out: list[tuple[float, float]] = []
        acc = [0.0] * len(sel)
        prev: list[float | None] = [None] * len(sel)
        for i, t in enumerate(self.times):
            seen = False
            for j, (_, col) in enumerate(sel):
                v = col[i]
                if v != v:
                    continue
                seen = True
                p = prev[j]
                if p is not None:
                    acc[j] += v - p if v >= p else v
                prev[j] = v
            if seen:
                out.append((t, math.fsum(acc)))
        return out

    def counter_last(self, name: str, group: Group | None = None) -> float | None:
        """Sum over label sets of each series' last value (lifetime, since the last restart)."""
        return self._counter_end(name, group, last=True)

    def counter_first(self, name: str, group: Group | None = None) -> float | None:
        """Sum over label sets of each series' first value: counted before the window."""
        return self._counter_end(name, group, last=False)

    def _counter_end(self, name: str, group: Group | None, *, last: bool) -> float | None:
        vals = []
        for _, col in self._select(name, group):
            v = next((x for x in (reversed(col) if last else col) if x == x), None)
            if v is not None:
                vals.append(v)
        return math.fsum(vals) if vals else None

    # ---- histograms
    def histogram_window(
        self, base: str, group: Group | None = None
    ) -> tuple[list[tuple[float, float]], float, float] | None:
        """Window deltas of histogram ``base``: (cumulative buckets, sum, count) over label sets.

        Label sets may use different bucket layouts; each contributes, at every bound of the
        union, its own cumulative count at the largest bound not above it (a lower bound).
        """
        bucket_sel = self._select(base + "_bucket", group)
        if not bucket_sel or len(self.times) < 2:
            return None
        per_set: dict[Labels, list[tuple[float, float]]] = {}
        for labels, col in bucket_sel:
            le_raw = ""
            rest: list[tuple[str, str]] = []
            for k, v in labels:
                if k == "le":
                    le_raw = v
                else:
                    rest.append((k, v))
            try:
                le = float(le_raw)
            except ValueError:
                continue
            per_set.setdefault(tuple(rest), []).append((le, increase(col)[0]))
        bounds = sorted({le for pairs in per_set.values() for le, _ in pairs})
        totals = dict.fromkeys(bounds, 0.0)
        for pairs in per_set.values():
            pairs.sort()
            pos = 0
            running = 0.0
            for b in bounds:
                while pos < len(pairs) and pairs[pos][0] <= b:
                    running = max(running, pairs[pos][1])
                    pos += 1
                totals[b] += running
        s = self.counter_increase(base + "_sum", group) or 0.0
        c = self.counter_increase(base + "_count", group)
        if c is None:
            c = totals[bounds[-1]] if bounds else 0.0
        return [(b, totals[b]) for b in bounds], s, c


def group_of(labels: Labels) -> Group:
    model = engine = ""
    for k, v in labels:
        if k == "model_name":
            model = v
        elif k == "engine":
            engine = v
    return model, engine


def group_label(group: Group) -> str:
    model, engine = group
    parts = []
    if model:
        parts.append(f"model_name={model}")
    if engine:
        parts.append(f"engine={engine}")
    return ",".join(parts) or "all"


def _scrape_failure(status: int | None, error: str | None, text: str | None) -> str | None:
    if error is not None:
        return error
    if status != 200:
        return f"HTTP {status}" if status is not None else "no HTTP status recorded"
    if text is None:
        return "no payload recorded"
    return None


# No vLLM metric is negative, none of the ``*_perc`` gauges leaves 0..1, and no count or byte
# total of a real server reaches 1e15 (a value that large only makes products overflow).
MAX_ABS_VALUE = 1e15
_PERC_SLACK = 1e-6
_PERC_MAX = 1.0 + _PERC_SLACK


def impossible(name: str, value: float) -> bool:
    """A value no vLLM server reports: treated as invalid data, not as evidence."""
    if value < 0 or value > MAX_ABS_VALUE:
        return True
    return name.endswith("_perc") and value > 1.0 + _PERC_SLACK


def _columns_from(
    pre: dict[tuple[str, Labels], list[float | None]],
    good_at: list[int],
    raw_cols: dict[tuple[str, bool, Labels], list[float]],
    wire_seen: dict[tuple[str, bool], set[str]],
    cumulative: set[str],
    impossible_counts: dict[str, int],
) -> int:
    """The sample loop of :func:`observe`, column by column (same columns, same counts)."""
    nonfinite = 0
    n = len(good_at)
    every = n == len(next(iter(pre.values()), []))  # no failed scrape: columns as they are
    for (name, labels), values in pre.items():
        if not name.startswith(PREFIXES):
            continue
        c = canonical(name)
        if c is None:
            continue
        key = (c.name, c.preferred, labels)
        col = raw_cols.get(key)
        if (
            col is None
            and every
            and values
            and None not in values
            and all(map(math.isfinite, values))  # type: ignore[arg-type]
            and not any(impossible(c.name, v) for v in values)  # type: ignore[arg-type]
        ):
            raw_cols[key] = list(values)  # type: ignore[arg-type]
            wire_seen.setdefault((c.name, c.preferred), set()).add(c.wire)
            if c.cumulative:
                cumulative.add(c.name)
            continue
        for i, k in enumerate(good_at):
            value = values[k]
            if value is None:
                continue
            if value != value or value in (math.inf, -math.inf):
                # No vLLM gauge or counter is NaN or infinite: present, but invalid data.
                nonfinite += 1
                impossible_counts[c.name] = impossible_counts.get(c.name, 0) + 1
                continue
            if impossible(c.name, value):
                impossible_counts[c.name] = impossible_counts.get(c.name, 0) + 1
                continue
            if col is None:
                if len(raw_cols) >= MAX_SERIES:
                    raise KvdoctorError(
                        f"the scrapes hold more than {MAX_SERIES} distinct vLLM series "
                        "(kvdoctor's cap): use --prometheus with a narrower --selector"
                    )
                col = [NAN] * n
                raw_cols[key] = col
                wire_seen.setdefault((c.name, c.preferred), set()).add(c.wire)
                if c.cumulative:
                    cumulative.add(c.name)
            col[i] = value
    return nonfinite


def observe(bundle: Bundle) -> Observations:
    """Parse every scrape of ``bundle`` into canonical columns (a pure function of the bundle)."""
    scrapes = sorted(bundle.scrapes, key=lambda s: s.t)
    n = len(scrapes)
    obs = Observations()
    # (wire-derived canonical name, preferred, labels) -> column, filled by index
    raw_cols: dict[tuple[str, bool, Labels], list[float]] = {}
    wire_seen: dict[tuple[str, bool], set[str]] = {}
    cumulative: set[str] = set()
    nonfinite = 0
    i = 0
    pre = bundle.columns_for([s.t for s in scrapes])
    canon_get = _CANON_CACHE.get
    good_at: list[int] = []  # with ``pre``: index of each good scrape among all scrapes
    for k, scrape in enumerate(scrapes):
        why = _scrape_failure(scrape.status, scrape.error, scrape.text)
        if why is not None:
            obs.failed.append((scrape.t, why))
            continue
        assert scrape.text is not None
        if pre is not None:
            good_at.append(k)
            obs.times.append(scrape.t)
            i += 1
            continue
        try:
            samples = parse_values(scrape.text, PREFIXES)
        except KvdoctorError as exc:
            obs.failed.append((scrape.t, f"unparsable payload: {exc}"))
            continue
        if not samples:
            obs.failed.append((scrape.t, _no_vllm_metrics(scrape.text)))
            continue
        for name, labels, value in samples:
            # canonical() and impossible() inlined: this loop runs once per sample of every
            # scrape, and the two calls were a tenth of a replay's own work (cProfile).
            c = canon_get(name, _NOT_CACHED)
            if c is _NOT_CACHED:
                c = canonical(name)
            if c is None:
                continue
            if value != value or value in (math.inf, -math.inf):
                # No vLLM gauge or counter is NaN or infinite: present, but invalid data.
                nonfinite += 1
                obs.impossible[c.name] = obs.impossible.get(c.name, 0) + 1
                continue
            if (
                value < 0
                or value > MAX_ABS_VALUE
                or (value > _PERC_MAX and c.name.endswith("_perc"))
            ):
                obs.impossible[c.name] = obs.impossible.get(c.name, 0) + 1
                continue
            key = (c.name, c.preferred, labels)
            col = raw_cols.get(key)
            if col is None:
                if len(raw_cols) >= MAX_SERIES:
                    raise KvdoctorError(
                        f"the scrapes hold more than {MAX_SERIES} distinct vLLM series "
                        "(kvdoctor's cap): point kvdoctor at one vLLM server, or use --prometheus "
                        "with a narrower --selector"
                    )
                col = [NAN] * n
                raw_cols[key] = col
                wire_seen.setdefault((c.name, c.preferred), set()).add(c.wire)
                if c.cumulative:
                    cumulative.add(c.name)
            elif col[i] == col[i]:
                # The same series again in this scrape (a family written twice): the first
                # value is the one the family's own TYPE line introduced.
                obs.repeated[c.name] = obs.repeated.get(c.name, 0) + 1
                continue
            col[i] = value
        obs.times.append(scrape.t)
        i += 1
    if pre is not None:
        nonfinite = _columns_from(pre, good_at, raw_cols, wire_seen, cumulative, obs.impossible)
    good = i
    # Merge: the canonical wire name wins; an alias fills only the scrapes it alone covers.
    for (cname, preferred, labels), col in sorted(
        raw_cols.items(), key=lambda kv: (kv[0][0], not kv[0][1], kv[0][2])
    ):
        del col[good:]
        cols = obs.columns.setdefault(cname, {})
        existing = cols.get(labels)
        if existing is None:
            cols[labels] = col
        else:
            for j, v in enumerate(col):
                if existing[j] != existing[j]:
                    existing[j] = v
        wires = obs.wire_names.setdefault(cname, [])
        for w in sorted(wire_seen.get((cname, preferred), ())):
            if w not in wires:
                wires.append(w)
    obs.cumulative = cumulative
    obs.nonfinite_values = nonfinite
    if not obs.times and bundle.logs:
        _from_log_stats(obs, bundle, scrapes)
    named = [
        (cname, col) for cname in sorted(cumulative) for col in obs.columns.get(cname, {}).values()
    ]
    restarts, glitches = process_restarts([col for _, col in named])
    obs.reset_indices = restarts
    at_restart = set(restarts)
    for j in glitches:
        cname, col = named[j]
        blanked = _without_glitches(col, at_restart)
        if blanked:
            obs.decreased[cname] = obs.decreased.get(cname, 0) + blanked
    return obs


def _no_vllm_metrics(text: str) -> str:
    """Why a parsable payload gave nothing, with the families it did hold (the wrong process or
    port answers with other families; a release whose API server holds no engine metrics
    answers with the process and garbage-collector ones only)."""
    families: set[str] = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) >= 3:
                families.add(parts[2])
    if not families:
        return "no vLLM metrics (vllm:*) in the payload"
    shown = sorted(families)
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    return "no vLLM metrics (vllm:*) in the payload, only " + ", ".join(shown[:3]) + more


def _from_log_stats(obs: Observations, bundle: Bundle, scrapes: list[Scrape]) -> None:
    """No scrape held vLLM metrics: the engine's periodic stats lines are the series.

    Their gauges (running, waiting, KV usage) and token counters land under the canonical names,
    so every signal built on them is computed the same way; the wire name says where each came
    from. The scrapes stay recorded as failed: that is what /metrics answered.
    """
    assert bundle.logs is not None
    times = [sc.t for sc in scrapes]
    span = times[-1] - times[0] if len(times) >= 2 else None
    lines = parse_stats_lines(bundle.logs)
    silent = silent_tail(bundle.logs, lines)
    series = stats_series(lines, times[-1] if times else None, span, silent)
    if series is None:
        return
    obs.times = series.times
    obs.log_stats_lines = series.lines
    obs.log_stats_interval_s = series.interval_s
    obs.log_silent = series.silent
    for name, by_engine in series.columns.items():
        cols = obs.columns.setdefault(name, {})
        for engine, col in by_engine.items():
            cols[(("engine", engine),) if engine else ()] = col
        obs.wire_names[name] = [LOG_WIRE[name]]
        if name in (PROMPT_TOKENS, GENERATION_TOKENS):
            obs.cumulative.add(name)
