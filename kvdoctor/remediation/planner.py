"""The remediation planner: per finding, concrete flag edits with a predicted effect.

Order (docs/troubleshooting.md, "advice is for the server in front of you"): first undo the
flag that by itself explains the finding (``--num-gpu-blocks-override``,
``--no-enable-prefix-caching``, ``--no-enable-chunked-prefill``, ``--kv-cache-dtype fp8``, a
tiny ``--max-model-len``); then the smallest change the KV math and the window predict will
remove the symptom; then capacity (replicas, tensor parallel). A change is dropped when vLLM
would refuse the resulting flags (:mod:`kvdoctor.remediation.constraints`) or when the window
shows it is not binding (lowering a cap the traffic never reached, raising one it never hit).

Pure: same findings, configuration and signals, same plan.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kvdoctor.kvmath.capacity import sequences_that_fit
from kvdoctor.kvmath.model import is_quantized_kv_dtype, kv_dtype_bytes
from kvdoctor.remediation.config import EngineConfig, FlagValue, canonical_flag
from kvdoctor.remediation.constraints import Edit, apply, problems, settings, to_argv
from kvdoctor.report.model import Finding
from kvdoctor.rules.evaluate import remediation_line
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.predicates import (
    PREDICATES,
    SignalView,
    capture_size,
    capture_size_below,
    decode_step_tokens,
)
from kvdoctor.rules.runtime import Cause, Move, Playbook
from kvdoctor.signals.model import SignalSet
from kvdoctor.thresholds import ENGINES_UNEVEN, POOL_FULL


class Change(NamedTuple):
    """One suggestion: flag edits (none for a client-side or capacity change) and its effect."""

    kind: str  # "undo" | "tune" | "capacity" | "client"
    edits: tuple[Edit, ...]
    effect: str  # predicted effect, from the KV math and the window
    text: str = ""  # for changes that are not flag edits
    alternative: bool = False  # "Or ...": instead of the change before it, not on top

    def render(self, cfg: EngineConfig) -> str:
        if self.edits:
            head = " and ".join(_edit_text(e, cfg, i == 0) for i, e in enumerate(self.edits))
        else:
            head = self.text
        if self.alternative:
            head = "Or " + head[0].lower() + head[1:]
        return f"{head}: {self.effect}" if self.effect else head

    def args(self, cfg: EngineConfig) -> dict[str, FlagValue]:
        return apply(cfg.args, self.edits)

    def argv(self, cfg: EngineConfig) -> list[str]:
        return to_argv(self.args(cfg))


def fmt_int(n: float) -> str:
    """A whole number with thousands separators, as the report writes them (2,176)."""
    return f"{round(n):,}"


def _value_text(v: FlagValue | None) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str) and v.startswith("{"):
        # A JSON-object flag (--limit-mm-per-prompt) in words; the command line keeps the JSON.
        with contextlib.suppress(ValueError):
            obj = json.loads(v)
            if isinstance(obj, dict):
                return ", ".join(f"{k} {val}" for k, val in obj.items())
    return str(v)


def _edit_text(e: Edit, cfg: EngineConfig, first: bool) -> str:
    verb = {"remove": "remove", "set": "set", "raise": "raise", "lower": "lower"}[e.action]
    verb = verb.capitalize() if first else verb
    flag = cfg.spell(e.flag)
    if e.action == "remove":
        if isinstance(e.before, bool):
            shown = flag if e.before else "--no-" + flag[2:]
            return f"{verb} {shown}"
        return f"{verb} {flag} {_value_text(e.before)}"
    if e.action == "set":
        if isinstance(e.after, bool):
            # A boolean flag is added, never "set on": --X or --no-X on the command line.
            shown = flag if e.after else "--no-" + flag[2:]
            return f"{'Add' if first else 'add'} {shown}"
        return f"{verb} {flag} {_value_text(e.after)}"
    if e.before is None:
        # The bundle does not record the flag's value (history from Prometheus has no process
        # arguments): never a default stated as the server's value; the change's effect says
        # what would have to be true.
        return f"{verb} {flag} to {_value_text(e.after)} (the bundle does not record its value)"
    return f"{verb} {flag} from {_value_text(e.before)} to {_value_text(e.after)}"


def _if_below(target: FlagValue, what: str) -> str:
    """The condition a raise of a flag the bundle does not state holds under."""
    cond = f"this helps only if it is set below {_value_text(target)}"
    return f"{cond}; {what}" if what else cond


def _if_above(target: FlagValue, what: str) -> str:
    """The condition a lowering of a flag the bundle does not state holds under."""
    cond = f"this helps only if it is set above {_value_text(target)}"
    return f"{cond}; {what}" if what else cond


def _before(cfg: EngineConfig, flag: str, value: FlagValue) -> FlagValue | None:
    """The flag's value for an edit, or None when the bundle does not state it."""
    return value if cfg.knows(flag) else None


# ------------------------------------------------------------------------------ the window


class Window(NamedTuple):
    """What the traffic did, as the planner needs it."""

    running_max: int | None
    waiting_max: int | None
    peak_demand: int | None  # most requests in the server at once (running + waiting)
    prompt: float | None  # mean prompt tokens
    output: float | None  # mean generation tokens
    max_prompt: float | None
    hit_rate: float | None
    # Share of its tokens a sequence holds in the pool as the engine counts it (signals'
    # kv_held_share: sliding-window layers keep only the window); None counts every token.
    held_share: float | None = None
    # The most sequences the pool held when it was full (scrapes at POOL_FULL or more: running
    # over usage), None where it never filled. Sequences can hold far more than their mean
    # length says (a fixed state per request, speculative or hybrid pages): what the pool held
    # when it filled bounds what it holds (external case zzo-glm53-hybrid, holdout-15: 4
    # running at 99.5 % of a 356k-token pool with 11.7k-token requests, where "raise
    # --max-num-seqs to 11" claimed 36 % of the pool).
    full_pool_sequences: int | None = None

    @property
    def seq_tokens(self) -> int | None:
        if self.prompt is None or self.output is None or self.prompt + self.output <= 0:
            return None
        return round(self.prompt + self.output)

    def fit(self, pool: int | None) -> int | None:
        """Sequences of the window's mean length a pool holds: the rules' seqs_that_fit and the
        report's KV table, by the same function (only the shown length is rounded)."""
        if self.prompt is None or self.output is None:
            return None
        seq = self.prompt + self.output
        if self.held_share is not None and 0 < self.held_share < 1:
            seq *= self.held_share
        return sequences_that_fit(pool, seq)

    def fit_seen(self, pool: int | None) -> int | None:
        """``fit`` bounded by what the pool was seen to hold when it was full."""
        fit = self.fit(pool)
        seen = self.full_pool_sequences
        if seen is None:
            return fit
        return seen if fit is None else min(fit, seen)


def window_of(signals: SignalSet) -> Window:
    view = SignalView(signals)

    def n(name: str) -> float | None:
        return view.num(name)

    run, wait = signals.series.get("running", []), signals.series.get("waiting", [])
    peak: int | None = None
    if run and wait and len(run) == len(wait):
        peak = int(max(r + w for (_, r), (_, w) in zip(run, wait, strict=True)))
    elif n("running_max") is not None:
        peak = int((n("running_max") or 0) + (n("waiting_max") or 0))
    rm, wm = n("running_max"), n("waiting_max")
    return Window(
        full_pool_sequences=_full_pool_sequences(run, signals.series.get("kv_usage", [])),
        running_max=int(rm) if rm is not None else None,
        waiting_max=int(wm) if wm is not None else None,
        peak_demand=peak,
        prompt=n("mean_prompt_len"),
        output=n("mean_generation_len"),
        max_prompt=n("max_prompt_len_seen"),
        hit_rate=n("prefix_hit_rate_window"),
        held_share=n("kv_held_share"),
    )


def _full_pool_sequences(
    running: list[tuple[float, float]], usage: list[tuple[float, float]]
) -> int | None:
    """The most sequences the pool held at a scrape where it was full (running / usage)."""
    if not running or len(running) != len(usage):
        return None
    seen = [
        int(r / u)
        for (_, r), (_, u) in zip(running, usage, strict=True)
        if u >= POOL_FULL and r >= 1
    ]
    return max(seen) if seen else None


# ------------------------------------------------------------------------------ KV phrases


def _pool_effect(before: int | None, after: int | None, win: Window) -> str:
    if before is None or after is None:
        return ""
    text = f"pool {fmt_int(before)} → {fmt_int(after)} tokens"
    fit_after, fit_before, seq = win.fit(after), win.fit(before), win.seq_tokens
    if fit_after is not None and fit_before is not None and seq:
        text += (
            f": holds {fmt_int(fit_after)} sequences of {fmt_int(seq)} tokens "
            f"(today {fmt_int(fit_before)})"
        )
    return text


def _pow2_floor(x: float) -> int:
    return 1 << max(0, math.floor(math.log2(max(1.0, x))))


# ------------------------------------------------------------------------------ per cause


@dataclass(frozen=True)
class _Ctx:
    cfg: EngineConfig
    win: Window
    view: SignalView
    # Changes the bundle's numbers rule out, each with what would have to be true for it.
    notes: list[str] = field(default_factory=list)

    def refuse(self, text: str) -> list[Change]:
        if text not in self.notes:
            self.notes.append(text)
        return []


# ------------------------------------------------------------------------------ memory


class DeviceMemory(NamedTuple):
    """One device's memory as the bundle knows it (vLLM sizes every rank the same way).

    ``fixed`` is what the engine needs before any KV: weights, the profiled activation peak,
    non-torch memory and CUDA graphs. From the start-up log it is exact (utilization × card
    minus the KV memory vLLM reported); otherwise it is a lower bound (the weights vLLM
    loaded, else the model config's dense estimate split over tensor-parallel ranks, plus the
    CUDA graph memory the log names).
    """

    total: int | None
    fixed: int | None
    exact: bool
    other: int  # other processes' memory on this device

    def min_utilization(self, pool_bytes: int) -> float | None:
        if not self.total or self.fixed is None:
            return None
        return math.ceil((self.fixed + pool_bytes) / self.total * 100) / 100

    def max_utilization(self) -> float | None:
        """The most vLLM may take beside the other processes, with 2 % of the card spare."""
        if not self.total:
            return None
        return math.floor((1.0 - self.other / self.total - 0.02) * 100) / 100


def device_memory(c: _Ctx) -> DeviceMemory:
    v, cfg = c.view, c.cfg
    total = v.num("gpu_memory_total_bytes")
    other = v.num("gpu_other_process_bytes") or 0.0
    avail = v.num("log_available_kv_bytes")
    graphs = v.num("log_cudagraph_memory_gib")
    fixed: float | None = None
    exact = False
    tokens = _pool_tokens(c)
    if total and avail is not None:
        fixed = cfg.gpu_memory_utilization * total - avail
        exact = True
    elif total and tokens and cfg.bytes_per_token:
        # The pool vLLM sized (its tokens, from its log or cache_config_info) at the model's
        # bytes per token on one rank: everything else under the utilization is fixed. Closer
        # than the weights alone, which leave out activations and graphs and made a refusal
        # look one point of utilization away (external cases zz-405b, zzu-dscoder).
        per_rank = tokens * cfg.bytes_per_token / max(1, cfg.tensor_parallel_size)
        fixed = cfg.gpu_memory_utilization * total - per_rank
    else:
        weights = v.num("log_weights_bytes")
        if weights is None:
            dense = v.num("weights_bytes")
            weights = dense / max(1, cfg.tensor_parallel_size) if dense is not None else None
        if weights is not None:
            fixed = weights + (graphs or 0.0) * GIB
    return DeviceMemory(
        total=int(total) if total else None,
        fixed=int(fixed) if fixed is not None else None,
        exact=exact,
        other=int(other),
    )


GIB = 1 << 30


def _gib(n: float) -> str:
    return f"{n / GIB:,.1f} GiB"


def _pool_tokens(c: _Ctx) -> float | None:
    """The tokens the pool holds: the engine's settings, else vLLM's start-up line."""
    return c.cfg.pool_tokens or c.view.num("log_kv_cache_tokens")


def _one_request_bytes(c: _Ctx) -> int:
    """KV bytes of one max-model-len request on one device: the least pool vLLM starts with.

    vLLM's own accounting first: the pool it sized at start-up (bytes on one device, its log)
    over the tokens that pool holds. That is per device under tensor parallelism and counts
    sliding-window layers, quantized caches and hybrid pages as the engine lays them out,
    which a bytes-per-token figure from the model's config does not (external case g-mrv2: a
    Gemma 4 pool of 11.4 GiB holding 622,848 tokens, where the config's figure put one
    262,144-token request above the whole card).
    """
    cfg, v = c.cfg, c.view
    if not cfg.max_model_len:
        return 0
    avail = v.num("log_available_kv_bytes")
    tokens = _pool_tokens(c)
    if avail and tokens and avail > 0 and tokens > 0:
        # What the request holds of the pool as the pool is counted (sliding-window groups keep
        # only the window's blocks).
        return math.ceil(cfg.held_tokens(cfg.max_model_len) * avail / tokens)
    if cfg.bytes_per_token:
        # The config's figure is the whole model's: each tensor-parallel rank holds its share.
        return cfg.max_model_len * cfg.bytes_per_token // max(1, cfg.tensor_parallel_size)
    return 0


def _undo_override(c: _Ctx, why: str) -> list[Change]:
    cfg = c.cfg
    if cfg.num_gpu_blocks_override is None or not cfg.is_set("num-gpu-blocks-override"):
        return []
    edit = Edit("remove", "num-gpu-blocks-override", cfg.num_gpu_blocks_override, None)
    after = settings(cfg, apply(cfg.args, (edit,))).pool_tokens
    before = cfg.pool_tokens
    if before is None and cfg.block_size:
        before = cfg.num_gpu_blocks_override * cfg.block_size
    effect = _pool_effect(before, after, c.win)
    if not effect:
        budget = "VLLM_CPU_KVCACHE_SPACE" if cfg.platform == "cpu" else "--gpu-memory-utilization"
        effect = (
            f"the pool is sized from the KV memory ({budget}) instead of "
            f"{fmt_int(cfg.num_gpu_blocks_override)} blocks"
        )
        if before is not None:
            effect += f" ({fmt_int(before)} tokens)"
    return [Change("undo", (edit,), f"{effect}; {why}" if why else effect)]


def _lower_seqs_to_fit(c: _Ctx, pool: int | None, what: str) -> list[Change]:
    """Lower --max-num-seqs to what the pool holds, only when running exceeded that."""
    cfg, win = c.cfg, c.win
    seq, fit = win.seq_tokens, win.fit(pool)
    if pool is None or not seq or fit is None or win.running_max is None:
        missing = [
            name
            for name, v in (
                ("the pool's size in tokens", pool),
                ("the prompt and output lengths", seq),
                ("the running requests", win.running_max),
            )
            if v is None
        ]
        return c.refuse(
            f"Lowering {cfg.spell('max-num-seqs')}: the bundle does not show "
            f"{' or '.join(missing)}, so how many sequences the pool holds is not known; it "
            "would need a capture with /metrics over a busy window (and the model's config)"
        )
    known = cfg.knows("max-num-seqs")
    preempted = c.view.num("preemptions_seen") or 0
    # Never down to one sequence at a time: a server serialised is no fix to print (the pool
    # is what is too small then).
    if preempted > 0 and 3 <= win.running_max <= fit:
        # The window preempted with no more running than the mean length says fit: longer
        # sequences than the mean, or blocks rounded up, filled the pool at that count. What
        # was measured decides, one sequence below the peak (external case: 26 preemptions at
        # 8 running in a pool of 8 mean-length sequences; 7 ran without them).
        target = win.running_max - 1
        if known and cfg.max_num_seqs <= target:
            return []
        edit = Edit("lower", "max-num-seqs", _before(cfg, "max-num-seqs", cfg.max_num_seqs), target)
        effect = (
            f"the window preempted {fmt_int(preempted)} "
            f"{'time' if preempted == 1 else 'times'} with up to {fmt_int(win.running_max)} "
            f"sequences running, although {fmt_int(fit)} of the mean {fmt_int(seq)} tokens fit "
            f"the pool's {fmt_int(pool)}: at most {fmt_int(target)} at once leave room for the "
            "longest of them"
        )
        return [Change("tune", (edit,), effect)]
    # Not binding: the window never ran more sequences than the pool holds.
    if win.running_max <= fit or (known and cfg.max_num_seqs <= fit):
        return []
    edit = Edit("lower", "max-num-seqs", _before(cfg, "max-num-seqs", cfg.max_num_seqs), fit)
    ran = f"today up to {fmt_int(win.running_max)} ran"
    if not known:
        ran += ", so it is set to at least that many"
    effect = (
        f"at most {fmt_int(fit)} sequences of {fmt_int(seq)} tokens = {fmt_int(fit * seq)} of "
        f"the pool's {fmt_int(pool)} tokens ({ran}); {what}"
    )
    return [Change("tune", (edit,), effect)]


def _raise_gmu(c: _Ctx, what: str) -> list[Change]:
    cfg = c.cfg
    # With the blocks override the pool ignores the utilization: raising it would do nothing.
    if cfg.is_set("num-gpu-blocks-override"):
        return []
    if PREDICATES["gpu_has_headroom"].fn(c.view) is not True:
        if c.view.num("gpu_memory_used_fraction") is None:
            return c.refuse(
                f"Raising {cfg.spell('gpu-memory-utilization')}: the bundle has no GPU memory "
                "numbers (NVML), so the device's free memory is not known; it would need "
                "samples showing at least 10 % of the device free and no out-of-memory error"
            )
        return []
    up = c.view.num("suggested_gpu_memory_utilization_up")
    total = c.view.num("gpu_memory_total_bytes")
    if up is None or up <= cfg.gpu_memory_utilization:
        return []
    ceiling = device_memory(c).max_utilization()
    if ceiling is not None and up > ceiling:
        up = ceiling
        if up <= cfg.gpu_memory_utilization:
            return c.refuse(
                f"Raising {cfg.spell('gpu-memory-utilization')} above "
                f"{cfg.gpu_memory_utilization}: other processes hold "
                f"{_gib(device_memory(c).other)} of the device; it would need them moved off"
            )
    gmu = _before(cfg, "gpu-memory-utilization", cfg.gpu_memory_utilization)
    edit = Edit("raise", "gpu-memory-utilization", gmu, up)
    effect = what
    if gmu is None:
        # The pool's growth depends on today's utilization, which the bundle does not state.
        return [Change("tune", (edit,), _if_below(up, what))]
    if total and cfg.bytes_per_token and cfg.pool_tokens is not None:
        extra = int((up - cfg.gpu_memory_utilization) * total) // cfg.bytes_per_token
        effect = _pool_effect(cfg.pool_tokens, cfg.pool_tokens + extra, c.win)
        effect += f"; {what}" if what else ""
    return [Change("tune", (edit,), effect)]


def _cap_output(c: _Ctx, pool: int | None) -> list[Change]:
    win = c.win
    if pool is None or not win.running_max or win.prompt is None or win.output is None:
        return []
    if win.held_share is not None and win.held_share < 1:
        # Sliding-window layers keep only the window: what a sequence holds is not its length,
        # so a cap in tokens cannot be read off the pool's share per sequence; none is
        # advised rather than a wrong one (the running sequences may already fit).
        return []
    per_seq = pool // max(1, win.running_max)
    cap = int(per_seq - win.prompt)
    if cap <= 0 or cap >= win.output:
        return []  # no cap lets this many sequences fit, or the outputs never reach it
    text = f"Cap output length at max_tokens={fmt_int(cap)} in the clients"
    effect = (
        f"each sequence then holds at most {fmt_int(per_seq)} tokens, so the "
        f"{fmt_int(win.running_max)} sequences seen at once fit in the "
        f"{fmt_int(pool)}-token pool (today {fmt_int(win.seq_tokens or 0)} tokens each)"
    )
    return [Change("client", (), effect, text=text)]


def _saturated(c: _Ctx) -> str | None:
    """How the window shows the server at its limit, or None when it never got there."""
    win, cfg = c.win, c.cfg
    # --max-num-seqs limits each data-parallel engine: the busiest engine's peak, not the sum.
    running = c.view.num("running_max_engine")
    if cfg.knows("max-num-seqs") and running is not None and running >= cfg.max_num_seqs:
        return f"running reached --max-num-seqs {cfg.max_num_seqs}"
    kv = c.view.num("kv_usage_max")
    if kv is not None and kv >= 0.9 and (win.waiting_max or 0) > 0:
        return f"the KV pool was {kv:.0%} full with requests waiting"
    return None


def _replicas(c: _Ctx, pool: int | None = None) -> list[Change]:
    """Replicas only from measured per-replica throughput against measured demand."""
    del pool
    win, v = c.win, c.view
    finished, window = v.num("requests_finished_window"), v.num("window_s")
    uneven = v.num("engine_load_over_fair")
    if uneven is not None and uneven >= ENGINES_UNEVEN:
        # One engine's limit is not the server's: the others had room (external case q-dp8:
        # two of eight engines full and queueing while six ran half empty).
        engines, busiest = v.num("engines") or 0, v.num("engine_busiest_running_share") or 0
        return c.refuse(
            f"Adding replicas: {fmt_int(engines)} data-parallel engines share this endpoint "
            f"unevenly (the busiest ran {busiest:.0%} of the running requests, {uneven:.1f}× an "
            "even share), so the others had room; it would need a window where every engine "
            "reaches its limit, after the load is spread over them"
        )
    limit = _saturated(c)
    if limit is None:
        return c.refuse(
            "Adding replicas: the window never brought this server to its limit"
            + (
                f" (running at most {fmt_int(win.running_max)} of --max-num-seqs "
                f"{c.cfg.max_num_seqs})"
                if win.running_max is not None and c.cfg.knows("max-num-seqs")
                else f" (running at most {fmt_int(win.running_max)})"
                if win.running_max is not None
                else ""
            )
            + ", so its throughput at capacity is not measured; it would need a window where "
            "running reaches the limit while requests wait"
        )
    if not finished or not window or window <= 0:
        return c.refuse(
            "Adding replicas: no finished requests were counted in the window, so the "
            "throughput per replica is not measured"
        )
    run, wait = c.view.signals.series.get("running", []), c.view.signals.series.get("waiting", [])
    backlog = 0.0
    if run and wait and len(run) == len(wait):
        backlog = max(0.0, (run[-1][1] + wait[-1][1]) - (run[0][1] + wait[0][1]))
    throughput = finished / window
    demand = (finished + backlog) / window
    need = math.ceil(demand / throughput - 1e-9)
    if need <= 1:
        return _replicas_for_burst(c, throughput, wait)
    effect = (
        f"measured while {limit}: one replica finished {throughput:.2f} requests/s while "
        f"{demand:.2f} arrived (the backlog grew by {fmt_int(backlog)})"
    )
    return [Change("capacity", (), effect, text=f"Raise replicas from 1 to {need}")]


def _replicas_for_burst(
    c: _Ctx, throughput: float, wait: list[tuple[float, float]]
) -> list[Change]:
    """Arrivals kept pace with one replica in the window, yet requests waited: a burst that
    arrived before it drains at the measured rate. Its size and the user's TTFT objective
    give a count; without an objective, the report says what would size it (external case
    o-qwen36: 82 waiting draining to 10 at 0.24 requests/s behind a full pool)."""
    peak = max((w for _, w in wait), default=0.0)
    if peak < 1 or throughput <= 0:
        return []
    drain = peak / throughput
    slo = c.view.num("slo_ttft_p95")
    if slo is not None and slo > 0:
        need = math.ceil(drain / slo - 1e-9)
        if need <= 1:
            return []
        effect = (
            f"a burst of {fmt_int(peak)} waiting requests drains at one replica's measured "
            f"{throughput:.2f} requests/s in about {drain:,.0f} s; {need} replicas serve it "
            f"within the TTFT objective of {slo:g} s"
        )
        return [Change("capacity", (), effect, text=f"Raise replicas from 1 to {need}")]
    return c.refuse(
        f"Adding replicas: arrivals did not outpace one replica in the window, but a burst of "
        f"{fmt_int(peak)} waiting requests drains at its measured {throughput:.2f} requests/s "
        f"in about {drain:,.0f} s; how many replicas depends on how long a burst may wait: "
        "it would need a TTFT objective (--slo ttft-p95=SECONDS) to size"
    )


def _plan_kv_capacity(c: _Ctx, why: str) -> list[Change]:
    out = _undo_override(c, why)
    pool = c.cfg.pool_tokens
    lower = _lower_seqs_to_fit(c, pool, "no sequence is preempted at the mean length")
    out += [_alt(ch, bool(out)) for ch in lower]
    out += _raise_gmu(c, "fewer sequences are preempted")
    out += _cap_output(c, pool)
    if not c.cfg.is_set("num-gpu-blocks-override"):
        out += _replicas(c, pool)
    return out


def _alt(ch: Change, alternative: bool) -> Change:
    return Change(ch.kind, ch.edits, ch.effect, ch.text, alternative)


def _plan_request_too_long(c: _Ctx) -> list[Change]:
    cfg = c.cfg
    out = _undo_override(c, "a max-model-len request fits")
    pool = cfg.pool_tokens
    # What one request can use: on a V0 engine with pipeline parallelism, its virtual
    # engine's share of the pool (the signal says so), not the whole pool.
    share = c.view.num("request_capacity_tokens")
    if share is not None and (pool is None or share < pool):
        pool = int(share)
    target = c.view.num("suggested_max_model_len")
    if pool is not None and (target is None or pool < target):
        target = pool
    if target is not None and cfg.max_model_len is not None and target < cfg.max_model_len:
        t = int(target)
        if cfg.block_size:
            t = max(cfg.block_size, t // cfg.block_size * cfg.block_size)
        edit = Edit("lower", "max-model-len", cfg.max_model_len, t)
        where = f"the {fmt_int(pool)}-token pool" if pool is not None else "the pool"
        split = cfg.block_size or 0
        if share is not None and cfg.pool_tokens is not None and share < cfg.pool_tokens - split:
            where = (
                f"the {fmt_int(share)} tokens one request can use (the V0 engine splits the "
                f"{fmt_int(cfg.pool_tokens)}-token pool between pipeline virtual engines)"
            )
        effect = (
            f"every admitted request ({fmt_int(t)} tokens at most) fits in {where}; "
            f"today a {fmt_int(cfg.max_model_len)}-token request can never be admitted"
        )
        out.append(_alt(Change("tune", (edit,), effect), bool(out)))
    out += _raise_gmu(c, "a max-model-len request fits in the larger pool")
    return out


def _plan_kv_admission(c: _Ctx) -> list[Change]:
    out = _undo_override(c, "waiting requests are admitted instead of waiting for blocks")
    pool = c.cfg.pool_tokens
    out += _raise_gmu(c, "more requests are admitted at once")
    out += _cap_output(c, pool)
    if not c.cfg.is_set("num-gpu-blocks-override"):
        out += _replicas(c, pool)
    out += _long_prompts_apart(c, pool, alternative=bool(out))
    return out


def _long_prompts_apart(c: _Ctx, pool: int | None, alternative: bool) -> list[Change]:
    """Long prompts that need more than the pool has free beside the running ones: they wait
    for whole requests to finish whatever the slots (external case zyk-1m: 400K-900K-token
    prompts, a 1.53M-token pool 78 % used while they waited, 2 of 4 slots running). A pool
    that holds only a few of them serves them best apart; a shorter --max-model-len would
    refuse them, so it is named with that cost, never as the fix on its own."""
    free, p90 = c.view.num("kv_free_queued_tokens"), c.view.num("prompt_len_p90")
    usage = c.view.num("kv_usage_queued")
    # Only a pool with room the long prompts could not use: a full one is the pool's size.
    if free is None or p90 is None or pool is None or usage is None or usage >= POOL_FULL:
        return []
    if p90 <= free:
        return []
    return [
        Change(
            "capacity",
            (),
            f"the pool had {fmt_int(free)} of its {fmt_int(pool)} tokens free while requests "
            f"waited, and the long prompts reach {fmt_int(p90)} tokens (90th percentile): the "
            "pool holds few of them at once, so they wait for whole requests to end; "
            "a --max-model-len the pool holds several times over would refuse them instead",
            text=(
                f"Serve prompts longer than {fmt_int(free)} tokens on a replica of their own "
                "(or one with more KV memory), so they stop holding the short ones behind them"
            ),
            alternative=alternative,
        )
    ]


def _plan_queueing(c: _Ctx) -> list[Change]:
    cfg, win = c.cfg, c.win
    out: list[Change] = []
    seq = win.seq_tokens
    pool = cfg.pool_tokens
    fit = win.fit_seen(pool) if seq else None
    # Capped only against a --max-num-seqs the bundle states (not vLLM's default, assumed).
    capped = (
        cfg.knows("max-num-seqs")
        and win.running_max is not None
        and win.running_max >= cfg.max_num_seqs
    )
    if capped and win.peak_demand and win.peak_demand > cfg.max_num_seqs:
        # Raise to what the traffic needs (its peak in the server at once), not the KV limit.
        target = win.peak_demand if fit is None else min(win.peak_demand, fit)
        if target > cfg.max_num_seqs:
            edits: list[Edit] = [Edit("raise", "max-num-seqs", cfg.max_num_seqs, target)]
            mnbt = cfg.max_num_batched_tokens
            if mnbt is not None and mnbt < target and cfg.is_set("max-num-batched-tokens"):
                edits.append(Edit("raise", "max-num-batched-tokens", mnbt, target))
            effect = f"the window's peak of {fmt_int(win.peak_demand)} requests runs at once"
            if target < win.peak_demand:
                effect = (
                    f"{fmt_int(target)} of the window's peak of {fmt_int(win.peak_demand)} "
                    "requests run at once, as many as the pool holds"
                )
            if seq and pool is not None:
                held = cfg.held_tokens(seq)
                used = round(target * held)
                each = (
                    f"{fmt_int(seq)}"
                    if held == seq
                    else f"{fmt_int(round(held))} held of {fmt_int(seq)}"
                )
                effect += (
                    f" ({fmt_int(target)} × {each} = {fmt_int(used)} tokens, "
                    f"{used / pool:.0%} of the {fmt_int(pool)}-token pool)"
                )
            graphs = _graphs_for(c, target)
            if graphs is not None:
                edits.append(graphs[0])
                effect += graphs[1]
            out.append(Change("tune", tuple(edits), effect))
    if capped and not out and fit is not None and pool is not None and seq:
        # Every slot taken and the pool holding no more sequences than the slots: both limits
        # bind, so no flag of this replica lets more run (external case zze-llama3-8b: 256 of
        # 256 running at 96 % of the pool, 2,450 waiting). Only more replicas serve the queue.
        by_length = win.fit(pool)
        pool_held = (
            f"the pool was full with {fmt_int(fit)} sequences running, although their mean "
            f"length of {fmt_int(seq)} tokens would fit {fmt_int(by_length)}"
            if by_length is not None and fit < by_length
            else f"the pool holds about {fmt_int(fit)} sequences of {fmt_int(seq)} tokens"
        )
        c.refuse(
            f"Raising {cfg.spell('max-num-seqs')}: {pool_held}, so more slots would wait for KV "
            "blocks instead; it would need more KV memory per replica"
        )
    if not capped or not out:
        out += _replicas(c)
    return out


# The slow-itl rule fires from an ITL p99 of 0.1 s (playbooks/slow-itl.yaml); a chunk is sized
# to stay below it with a margin, from the stall per prompt token the window measured.
ITL_TARGET_S = 0.1
_CHUNK_MARGIN = 0.8
_CHUNK_STEP = 64
# The smallest chunk worth advising on a GPU. A step's cost is linear in its prompt tokens only
# above the card's roofline ridge (peak FLOP/s over bandwidth: about 300 tokens on an H100,
# 150-250 on smaller cards); below it every step costs about one read of the weights, so a
# smaller chunk no longer shortens the step and only spreads each prompt over more steps.
# 512 keeps the linear estimate honest with a margin (external case u-qwen3-14b: 16,000-token
# prompts at 1.17 ms per prompt token, where a 64-token chunk would have meant 250 steps per
# prompt). A CPU server has no such ridge in this range (the lab's chunks of 128 measure so).
_GPU_CHUNK_FLOOR = 512


def _stall_per_token(c: _Ctx) -> float | None:
    """Seconds a decode step waited per prompt token in it: ITL p99 over the stalling step's
    tokens (the longest prompt, or the batched-token budget when that is smaller)."""
    p99 = c.view.num("itl_p99")
    longest = c.win.max_prompt or c.win.prompt
    if p99 is None or p99 <= 0 or not longest:
        return None
    mnbt = c.cfg.max_num_batched_tokens
    step_tokens = min(float(mnbt), longest) if mnbt else longest
    return p99 / step_tokens if step_tokens > 0 else None


def _chunk_target(c: _Ctx) -> int | None:
    """The largest prefill chunk whose step stays under the ITL target at the measured stall
    per token; without that measurement a power of two ≤ half the mean prompt."""
    per_token = _stall_per_token(c)
    if per_token is not None:
        target = int(ITL_TARGET_S * _CHUNK_MARGIN / per_token) // _CHUNK_STEP * _CHUNK_STEP
    elif c.win.prompt:
        target = max(512, _pow2_floor(c.win.prompt / 2))
    else:
        return None
    floor = _CHUNK_STEP if c.cfg.platform == "cpu" else _GPU_CHUNK_FLOOR
    # vLLM refuses a batched-token budget below --max-num-seqs.
    return max(target, floor, c.cfg.max_num_seqs)


def _chunk_effect(c: _Ctx, chunk: int, today: str) -> str:
    win = c.win
    per_token = _stall_per_token(c)
    text = f"each step carries ≤ {fmt_int(chunk)} prompt tokens"
    if per_token is not None:
        p99 = c.view.num("itl_p99") or 0.0
        wait = chunk * per_token
        text += (
            f": at the window's {per_token * 1000:.2f} ms per prompt token a decode step waits "
            f"about {wait * 1000:.0f} ms (ITL p99 today {p99:.2f} s)"
        )
        if wait > ITL_TARGET_S:
            # The floor, not the target, set the chunk: say what chunking cannot reach.
            text += (
                f", still above the {ITL_TARGET_S * 1000:.0f} ms a stream needs: a smaller "
                "chunk would not shorten a GPU step, so the rest is prefill compute (more GPUs "
                "per replica or more replicas)"
            )
    if win.prompt:
        steps = math.ceil(win.prompt / chunk)
        # The price, said up front: smaller chunks prefill a long prompt over more steps, so
        # its own first token comes later (the lab saw queue time rise at 192-token chunks).
        text += (
            f"; a {fmt_int(round(win.prompt))}-token prompt takes {steps} steps, so long "
            "prompts wait longer for their first token"
        )
    return f"{text} ({today})"


# Measured in the lab (long-prefill-hol workload, vLLM 0.32): with chunked prefill on and a
# 512-token budget, a short request sent during an 8,000-token prefill still waited 98 % of it,
# in the queue: a partial prefill takes each step's whole remaining budget, so newcomers wait
# for its last chunk. Only a bound on one prompt's share of a step lets them in.
_HOL_WHY = (
    "chunking alone does not let a new request in: a partial prefill takes each step's whole "
    "remaining budget"
)


def _plan_long_prefill_hol(c: _Ctx) -> list[Change]:
    """Head-of-line blocking: chunking on and a bound on one prompt's share of each step."""
    return _plan_prefill_interference(c, bound_long_prompts=True)


def _plan_prefill_interference(c: _Ctx, *, bound_long_prompts: bool = False) -> list[Change]:
    cfg, win = c.cfg, c.win
    out: list[Change] = []
    chunk = _chunk_target(c)
    if chunk is None:
        c.refuse(
            f"Lowering {cfg.spell('max-num-batched-tokens')}: the window shows neither the "
            "prompt lengths nor the decode stall per prompt token, so no chunk size can be "
            "computed; it would need a capture with prompts arriving"
        )
    mnbt = cfg.max_num_batched_tokens
    longest = win.max_prompt or win.prompt
    if not cfg.enable_chunked_prefill:
        edits: list[Edit] = [Edit("remove", "enable-chunked-prefill", False, None)]
        default = 2048 * cfg.tensor_parallel_size  # vLLM's budget with chunking, flag unset
        effective = default
        if chunk is not None and cfg.is_set("max-num-batched-tokens") and mnbt and mnbt > chunk:
            edits.append(Edit("lower", "max-num-batched-tokens", mnbt, chunk))
            effective = chunk
        elif chunk is not None and not cfg.is_set("max-num-batched-tokens") and chunk < default:
            edits.append(Edit("set", "max-num-batched-tokens", None, chunk))
            effective = chunk
        elif cfg.is_set("max-num-batched-tokens") and mnbt:
            effective = mnbt
        today = "today one step carries the whole prompt and every stream waits for it"
        effect = _chunk_effect(c, effective, today)
        threshold = effective // 2
        if bound_long_prompts and threshold and longest is not None and longest > threshold:
            edits.append(Edit("set", "long-prefill-token-threshold", None, threshold))
            effect += (
                f"; one prompt takes at most {fmt_int(threshold)} of each step's "
                f"{fmt_int(effective)} tokens, so a new short request starts at the next step "
                f"({_HOL_WHY})"
            )
        out.append(Change("undo", tuple(edits), effect))
        return out
    # Binding only when prompts were longer than the new chunk.
    if chunk is not None and mnbt is not None and mnbt > chunk and (longest or 0) > chunk:
        edit = Edit(
            "lower", "max-num-batched-tokens", _before(cfg, "max-num-batched-tokens", mnbt), chunk
        )
        today = (
            f"today up to {fmt_int(mnbt)} tokens in one step"
            if cfg.knows("max-num-batched-tokens")
            else _if_above(chunk, "")
        )
        out.append(Change("tune", (edit,), _chunk_effect(c, chunk, today)))
    budget = min(mnbt or chunk or 0, chunk or mnbt or 0)
    threshold = budget // 2 if budget else 0
    if (
        threshold
        and cfg.long_prefill_token_threshold == 0
        and longest is not None
        and longest > threshold
    ):
        edit = Edit("set", "long-prefill-token-threshold", None, threshold)
        effect = (
            f"one prompt takes at most {fmt_int(threshold)} of a step's {fmt_int(budget)} tokens, "
            f"leaving the rest to other requests (prompts here reach {fmt_int(round(longest))})"
        )
        out.append(Change("tune", (edit,), effect))
    elif (
        threshold
        and cfg.long_prefill_token_threshold == 0
        and (
            bound_long_prompts
            or (
                (c.view.num("itl_stalls_window") or 0) >= 3
                # Recomputed prompts of preempted sequences stall steps too (the lab's
                # preemption storm: 200-token prompts, second-long gaps): not a long prefill.
                and c.view.num("preemptions_window") == 0
            )
        )
    ):
        # Head-of-line blocking judged on the first tokens while no finished prompt was long:
        # a prompt joins the length histogram only when it finishes, so the one blocking the
        # queue may still be prefilling (external case c-long-prompt-hol: two 128k-token
        # documents in flight, finished prompts at most 2,000 tokens). Streams that froze for
        # a second or more with nothing preempted say the same of decoding: some step carried
        # a prefill far longer than any finished prompt.
        edit = Edit("set", "long-prefill-token-threshold", None, threshold)
        seen = (
            f"the window's finished prompts reached {fmt_int(round(longest))} tokens, so it binds"
            if longest is not None
            else "the window does not show prompt lengths, so it binds"
        )
        helps = (
            "short requests start at the next step"
            if bound_long_prompts
            else "decoding streams are not frozen behind one long prefill"
        )
        effect = (
            f"a prompt longer than {fmt_int(threshold)} tokens takes at most that many of each "
            f"step's {fmt_int(budget)}, so {helps}; {seen} only "
            "on the long requests still prefilling (a prompt is counted when it finishes)"
        )
        out.append(Change("tune", (edit,), effect))
    return out


def _plan_caching_disabled(c: _Ctx) -> list[Change]:
    cfg, win = c.cfg, c.win
    bs = cfg.block_size
    blocks = int(win.prompt // bs) if win.prompt and bs else None
    effect = "shared prompt prefixes are served from the cache instead of prefilled again"
    if blocks and bs:
        effect = (
            f"prompts of {fmt_int(round(win.prompt or 0))} tokens span {blocks} full blocks of "
            f"{bs} that a shared prefix can reuse instead of prefilling (hit rate today "
            f"{win.hit_rate or 0:.0%})"
        )
    if cfg.args.get("enable-prefix-caching") is False:
        return [Change("undo", (Edit("remove", "enable-prefix-caching", False, None),), effect)]
    return [Change("undo", (Edit("set", "enable-prefix-caching", None, True),), effect)]


def _plan_block_size(c: _Ctx) -> list[Change]:
    cfg, win = c.cfg, c.win
    bs = cfg.block_size
    if not bs or not win.prompt:
        return []
    # vLLM raises a hybrid model's attention block to the Mamba page: a smaller one is a no-op.
    hybrid = c.view.flag("hybrid_model") is True
    step = 32 if cfg.platform == "cpu" else 16
    mml = cfg.max_model_len
    if mml is not None and bs > mml:
        return _plan_block_above_max_len(c, bs, mml, hybrid)
    ratio = c.view.num("kv_compress_ratio_max")
    if ratio is not None and ratio > 1:
        return _plan_compressed_block(c, bs, int(ratio))
    # The smallest size the backend takes without penalty: the most prefix tokens hit.
    target = step
    out: list[Change] = []
    if target < bs and not hybrid:
        edit = (
            Edit("lower", "block-size", bs, target)
            if cfg.is_set("block-size")
            else Edit("set", "block-size", None, target)
        )
        full = int(win.prompt // target)
        effect = (
            f"a {fmt_int(round(win.prompt))}-token prompt spans {full} full blocks of {target} "
            f"(today 0 of {bs}), so a shared prefix of ≥ {target} tokens can hit; the pool keeps "
            f"its tokens"
        )
        if cfg.platform == "cpu":
            effect += " (the CPU backend works in multiples of 32)"
        out.append(Change("tune", (edit,), effect))
    text = f"Lengthen the shared prefix to at least {bs} tokens (one full block)"
    out.append(
        Change(
            "client",
            (),
            "its first block then hits for every request that shares it",
            text,
            alternative=bool(out),
        )
    )
    return out


# The block sizes DeepSeek-V4's compressed cache takes (vllm-ascend PR 10354: 32, 64 or 128;
# any other value falls back to 32).
COMPRESSED_BLOCK_SIZES = (32, 64, 128)


def _plan_compressed_block(c: _Ctx, bs: int, ratio: int) -> list[Change]:
    """A compressed-attention model hashes a block of compressed entries whole, so a hit needs
    block × ratio tokens (twice that with speculation): the smallest block it takes shrinks
    that unit, where the unit then fits inside the window's prompts."""
    win = c.win
    unit = int(c.view.num("prefix_hit_granularity_tokens") or bs * ratio)
    per_block = max(1, unit // bs)
    out: list[Change] = []
    smaller = [b for b in COMPRESSED_BLOCK_SIZES if b < bs]
    if smaller and win.prompt:
        target = smaller[0]
        new_unit = target * per_block
        if new_unit < win.prompt:
            edit = (
                Edit("lower", "block-size", bs, target)
                if c.cfg.is_set("block-size")
                else Edit("set", "block-size", None, target)
            )
            effect = (
                f"a hit needs {fmt_int(new_unit)} tokens instead of {fmt_int(unit)} "
                f"({target}-token blocks of {ratio}× compressed entries), so a shared prefix of "
                f"that length in the window's {fmt_int(round(win.prompt))}-token prompts can hit"
            )
            out.append(Change("tune", (edit,), effect))
    text = (
        f"Lengthen the shared prefix to at least {fmt_int(unit)} tokens (one unit of the "
        "compressed cache)"
    )
    out.append(
        Change(
            "client",
            (),
            "its first unit then hits for every request that shares it",
            text,
            alternative=bool(out),
        )
    )
    return out


def _plan_block_above_max_len(c: _Ctx, bs: int, mml: int, hybrid: bool) -> list[Change]:
    """A block larger than max_model_len: no prompt fills it, so no longer prefix can help.

    On a hybrid model vLLM raises the attention block until its page holds the Mamba state;
    a quantized KV cache halves (or quarters) the attention page per token, so the block that
    holds the state grows by the same factor. A 16-bit cache brings it back, where that lands
    under max_model_len (external case zyg-nemotronh: fp8 attention KV set a 4,224-token
    block under max_model_len 4,096; the thread's workaround was a bf16 cache).
    """
    cfg, win = c.cfg, c.win
    out: list[Change] = []
    width = kv_dtype_bytes(cfg.kv_cache_dtype)
    if hybrid and is_quantized_kv_dtype(cfg.kv_cache_dtype) and width is not None and width < 2:
        smaller = math.ceil(bs * float(width) / 2 / 16) * 16
        if smaller <= mml:
            edit = _kv_dtype_back_to_model(cfg)
            after = settings(cfg, apply(cfg.args, (edit,))).pool_tokens
            pool = _pool_effect(cfg.pool_tokens, after, win)
            grows = float(2 / width)
            effect = (
                f"the attention page per token grows {grows:g}×, so the block that holds the "
                f"model's state shrinks from {fmt_int(bs)} to about {fmt_int(smaller)} tokens, "
                f"under max_model_len {fmt_int(mml)}: a shared prefix of that length can hit"
            )
            out.append(Change("tune", (edit,), f"{effect}; {pool}" if pool else effect))
    out.append(
        Change(
            "undo",
            (Edit("set", "enable-prefix-caching", None, False),),
            f"the {fmt_int(bs)}-token block is larger than max_model_len {fmt_int(mml)}: no "
            "prompt fills one, so the cache can never serve a hit and only costs its lookups",
            alternative=bool(out),
        )
    )
    return out


def _plan_eviction_churn(c: _Ctx) -> list[Change]:
    out = _undo_override(c, "cached prefix blocks survive until reuse")
    out += _raise_gmu(c, "cached prefix blocks survive until reuse")
    lower = _lower_seqs_to_fit(
        c, c.cfg.pool_tokens, "running sequences stop reclaiming cached blocks"
    )
    out += [_alt(ch, bool(out)) for ch in lower]
    if not out:
        # No flag can be sized from this bundle (no device memory, no concurrency above what the
        # pool holds): still say which way to go, and why no number is given (external cases
        # b-eviction-churn-contract-qa, e-gemma4-swa read "no remediation is known").
        horizon = c.view.num("kv_retention_horizon_s")
        why = (
            f"a freed block survives about {horizon:.3g} s here, so a prefix that recurs less "
            "often misses"
            if horizon is not None
            else "cached prefixes must outlive the time between two requests that share them"
        )
        out.append(
            Change(
                "capacity",
                (),
                f"{why}; the bundle shows neither free device memory nor more sequences running "
                "than the pool holds, so no flag value can be computed",
                text="Give cached prefixes more room: more KV memory per engine (a higher "
                "--gpu-memory-utilization where the device has headroom, a larger device, or "
                "tensor parallelism) or fewer sequences at once",
            )
        )
    return out


def _plan_prefix_drift(c: _Ctx) -> list[Change]:
    cfg, win = c.cfg, c.win
    bs = cfg.block_size
    effect = "requests that share a byte-identical prefix hit its full blocks"
    if win.prompt and bs:
        effect = (
            f"each full {bs}-token block of a byte-identical prefix hits; prompts here are "
            f"{fmt_int(round(win.prompt))} tokens ({int(win.prompt // bs)} full blocks), hit "
            f"rate today {win.hit_rate or 0:.0%}"
        )
    return [
        Change(
            "client",
            (),
            effect,
            text="Move per-request content (timestamps, request ids, user names) after the shared "
            "part of the prompt, and keep adapters and cache salts identical for requests meant "
            "to share",
        ),
        Change(
            "client",
            (),
            "token IDs then match from the first token, the precondition of any hit",
            text="Check that the chat template and system prompt are byte-identical across clients",
        ),
    ]


def _kv_dtype_back_to_model(cfg: EngineConfig) -> Edit:
    """The KV cache back in the model's own dtype: the flag removed, or set to auto."""
    if cfg.is_set("kv-cache-dtype"):
        return Edit("remove", "kv-cache-dtype", cfg.kv_cache_dtype, None)
    return Edit("set", "kv-cache-dtype", None, "auto")


def _plan_fp8(c: _Ctx, finding: Finding) -> list[Change]:
    cfg, win = c.cfg, c.win
    if not is_quantized_kv_dtype(cfg.kv_cache_dtype):
        return []
    measured = finding.reproducer.measured if finding.reproducer else {}
    agreement = measured.get("token_agreement")
    edit = _kv_dtype_back_to_model(cfg)
    after = settings(cfg, apply(cfg.args, (edit,))).pool_tokens
    effect = _pool_effect(cfg.pool_tokens, after, win) or "the pool holds fewer tokens"
    if isinstance(agreement, int | float) and not isinstance(agreement, bool):
        effect = (
            f"outputs match the BF16/FP16 reference again (canary agreement "
            f"{agreement:.0%}); {effect}"
        )
    else:
        effect = f"KV stored in the model's dtype, no {cfg.kv_cache_dtype} rounding; {effect}"
    undo = Change("undo", (edit,), effect)
    # A 4-bit cache has a nearer step back than 16 bits: fp8 keeps half the pool it bought,
    # and its kernels are the ones most backends have validated. An 8-bit cache (fp8, int8)
    # has none: fp8 for int8 buys no pool and trades one 8-bit rounding for another.
    width = kv_dtype_bytes(cfg.kv_cache_dtype)
    if not cfg.is_set("kv-cache-dtype") or width is None or width >= 1:
        return [undo]
    step = Edit("set", "kv-cache-dtype", cfg.kv_cache_dtype, "fp8")
    after8 = settings(cfg, apply(cfg.args, (step,))).pool_tokens
    effect8 = _pool_effect(cfg.pool_tokens, after8, win) or "the pool holds fewer tokens"
    fp8 = Change(
        "tune",
        (step,),
        f"KV in fp8 instead of {cfg.kv_cache_dtype}: 8 bits per value, no 4-bit block scales; "
        f"{effect8}",
    )
    return [fp8, _alt(undo, True)]


def _plan_kv_pool_too_small(c: _Ctx) -> list[Change]:
    """A start-up refusal: always a concrete change, with vLLM's own hint as evidence."""
    cfg = c.cfg
    hint = _hint(c)
    out = _undo_override(c, "")
    if out and cfg.max_model_len:
        ch = out[0]
        out[0] = Change(
            ch.kind,
            ch.edits,
            f"{ch.effect}, too few for --max-model-len {fmt_int(cfg.max_model_len)}",
        )
    target = c.view.num("suggested_max_model_len")
    if target is not None and target > 0 and (cfg.max_model_len or target + 1) > target:
        t = int(target)
        edit = (
            Edit("lower", "max-model-len", cfg.max_model_len, t)
            if cfg.max_model_len is not None
            else Edit("set", "max-model-len", None, t)
        )
        pool = cfg.pool_tokens
        if pool is None and cfg.num_gpu_blocks_override and cfg.block_size:
            pool = cfg.num_gpu_blocks_override * cfg.block_size
        where = f"the {fmt_int(pool)}-token pool" if pool else "the pool vLLM estimated"
        effect = f"the server starts: a request of {fmt_int(t)} tokens fits in {where}{hint}"
        mml = Change("tune", (edit,), effect)
    else:
        mml = None
    out += [_alt(ch, bool(out)) for ch in _raise_gmu_to_fit(c, hint)]
    if mml is not None:
        out.append(_alt(mml, bool(out)))
    if not out:
        out = _shrink_profile_peak(c)
    return out


def _skip_capture(c: _Ctx, why: str | None = None) -> list[Change]:
    """--enforce-eager where the out-of-memory error struck while CUDA graphs were captured: no
    capture, no capture memory, whatever the utilization was. ``why`` ends the effect; by
    default it says why no lower utilization is offered instead."""
    cfg = c.cfg
    if (
        c.view.value("log_oom_phase") != "cuda-graph-capture"
        or cfg.platform != "gpu"
        or cfg.args.get("enforce-eager") is True
    ):
        return []
    if why is None:
        why = (
            " (the other way out, a "
            f"{cfg.spell('gpu-memory-utilization')} a little below this release's default, "
            "needs the value this bundle does not show)"
        )
    return [
        _enforce_eager(
            "no CUDA graphs are captured, so the capture that ran out of memory does not run; "
            f"decoding is slower per step{why}"
        )
    ]


def _enforce_eager(effect: str) -> Change:
    return Change("tune", (Edit("set", "enforce-eager", None, True),), effect)


def _shrink_profile_peak(c: _Ctx) -> list[Change]:
    """A start-up refusal nothing else can size: the profiling run's activation peak is what
    the pool loses, and it grows with the batched-token budget; CUDA graphs take theirs too."""
    cfg = c.cfg
    mnbt = cfg.max_num_batched_tokens
    if mnbt is not None and mnbt > 2048 and cfg.enable_chunked_prefill:
        half = max(2048, cfg.max_num_seqs, mnbt // 2)
        if half < mnbt:
            known = cfg.knows("max-num-batched-tokens")
            edit = Edit("lower", "max-num-batched-tokens", mnbt if known else None, half)
            budget = (
                f"{fmt_int(mnbt)} → {fmt_int(half)}"
                if known
                else f"down to {fmt_int(half)}; {_if_above(half, '')}"
            )
            effect = (
                "the start-up profiling run's activation peak shrinks with the batched-token "
                f"budget ({budget} tokens), and what it frees goes "
                f"to the KV pool{_hint(c)}"
            )
            return [Change("tune", (edit,), effect)]
    if cfg.platform == "gpu" and cfg.args.get("enforce-eager") is not True:
        return [
            _enforce_eager(
                "no CUDA graphs are captured, so their memory goes to the KV pool; decoding is "
                f"slower per step{_hint(c)}"
            )
        ]
    return []


def _gmu_known(c: _Ctx) -> bool:
    """Whether the bundle states the utilization (flag or cache_config_info), not a default."""
    return (
        c.cfg.is_set("gpu-memory-utilization") or c.view.num("gpu_memory_utilization") is not None
    )


def _raise_gmu_to_fit(c: _Ctx, hint: str) -> list[Change]:
    """The utilization at which the pool holds one max-model-len request, when it is
    possible on this device."""
    cfg = c.cfg
    if cfg.is_set("num-gpu-blocks-override"):
        return []
    flag = cfg.spell("gpu-memory-utilization")
    mem = device_memory(c)
    # Without max_model_len there is no request to size the pool for (it read "a 0-token
    # request" before): vLLM's own step below, where its refusal asks for one.
    need = mem.min_utilization(_one_request_bytes(c)) if cfg.max_model_len else None
    ceiling = mem.max_utilization()
    contradicted = need is not None and need <= cfg.gpu_memory_utilization
    if contradicted:
        # These numbers fit one request at today's utilization, which vLLM refused: they do
        # not size the step, and a target one point up would be a guess stated as a fact
        # (external case d-fp8-kv: 221,000 tokens within a 230,528-token pool by the log,
        # refused by the engine).
        need = None
    if need is None or ceiling is None:
        # Without the device's numbers: vLLM's own step, which its refusal always asks for
        # ("Try increasing `gpu_memory_utilization`"), on a utilization the bundle states.
        asked = "increasing `gpu_memory_utilization`" in hint or any(
            c.view.flag(n) is True for n in ("log_no_cache_memory", "log_max_model_len_exceeds_kv")
        )
        if not asked or not _gmu_known(c):
            return []
        up = min(0.95, math.floor((cfg.gpu_memory_utilization + 0.05) * 100) / 100)
        if up <= cfg.gpu_memory_utilization:
            return []
        edit = Edit("raise", "gpu-memory-utilization", cfg.gpu_memory_utilization, up)
        effect = (
            f"the pool gets {up - cfg.gpu_memory_utilization:.2f} more of the device{hint}; "
            + (
                "by the bundle's numbers one request already fits today's pool, which vLLM "
                "refused, so they do not size the step further"
                if contradicted
                else "the bundle has no device memory numbers to size it further"
            )
        )
        return [Change("tune", (edit,), effect)]
    if need > ceiling:
        return c.refuse(
            f"Raising {flag}: one {fmt_int(cfg.max_model_len or 0)}-token request needs "
            f"{need} of the device ({_gib(mem.fixed or 0)} for weights, activations and CUDA "
            f"graphs plus its KV), and at most {ceiling} is free; it would need a larger "
            "device or the weights split over more GPUs"
        )
    target = max(need, cfg.gpu_memory_utilization + 0.01)
    target = min(ceiling, math.ceil(target * 100) / 100)
    if target <= cfg.gpu_memory_utilization:
        return []
    gmu = _before(cfg, "gpu-memory-utilization", cfg.gpu_memory_utilization)
    edit = Edit("raise", "gpu-memory-utilization", gmu, target)
    effect = (
        f"after {_gib(mem.fixed or 0)} for weights, activations and CUDA graphs the pool holds "
        f"a {fmt_int(cfg.max_model_len or 0)}-token request{hint}"
    )
    return [Change("tune", (edit,), effect if gmu is not None else _if_below(target, effect))]


def _hint(c: _Ctx) -> str:
    """vLLM's own advice from its log, quoted as evidence, or ''."""
    hint = c.view.value("log_vllm_hint")
    return f' (vLLM\'s log: "{hint}")' if isinstance(hint, str) and hint else ""


def _plan_lower_gmu(
    c: _Ctx, what: str, *, leave_other: bool = False, down_to: float | None = None
) -> list[Change]:
    """Lower the utilization only as far as the engine's own memory allows (to ``down_to``
    when the caller measured what has to be freed)."""
    cfg = c.cfg
    flag = cfg.spell("gpu-memory-utilization")
    if not _gmu_known(c):
        # Defaults moved between releases (0.9, later 0.92), so no "from" can be stated; an
        # out-of-memory error while CUDA graphs were captured still has one change that
        # needs no number (external case g-mrv2: capture OOM at start-up, flag not given).
        return _skip_capture(c)
    if PREDICATES["kv_cache_too_small_at_start"].fn(c.view) is True:
        return c.refuse(
            f"Lowering {flag}: the start-up log says the KV pool is already too small, and a "
            "lower utilization shrinks it further; it would need the pool sized first"
        )
    down = c.view.num("suggested_gpu_memory_utilization_down")
    if down_to is not None:
        down = down_to
    mem = device_memory(c)
    if leave_other and mem.total and mem.other:
        # Leave the other processes' memory on this device free, and 2 % of the card.
        ceiling = mem.max_utilization()
        down = ceiling if ceiling is not None else down
    free, wanted = c.view.num("log_startup_free_gib"), c.view.num("log_startup_wanted_gib")
    if leave_other and free is not None and wanted and cfg.gpu_memory_utilization > 0:
        # vLLM's own start-up check: what it found free against what the utilization asks.
        total_gib = wanted / cfg.gpu_memory_utilization
        fits = math.floor((free / total_gib - 0.02) * 100) / 100
        if fits <= 0.05:
            return c.refuse(
                f"Lowering {flag}: only {free:g} of {total_gib:.1f} GiB were free on the device "
                "at start-up, too little for any server; it would need the memory held there "
                "freed first (the process holding it stopped or moved)"
            )
        down = min(down, fits) if down is not None else fits
    if down is None or down >= cfg.gpu_memory_utilization:
        return []
    floor = mem.min_utilization(_one_request_bytes(c))
    if floor is not None and mem.total and mem.fixed is not None and down < floor:
        capped = _lower_gmu_with_length(c, mem, down, what)
        if capped is not None:
            return [capped]
        what_fixed = (
            "weights, activations and CUDA graphs take"
            if mem.exact
            else "the weights alone take at least"
        )
        return c.refuse(
            f"Lowering {flag} from {cfg.gpu_memory_utilization} to {down}: {what_fixed} "
            f"{_gib(mem.fixed)} of the device's {_gib(mem.total)}, so below {floor} no KV pool "
            f"holds one {fmt_int(cfg.max_model_len or 0)}-token request; it would need a device "
            f"with more memory, the weights split over more GPUs (tensor parallel), or the "
            f"other processes moved off"
        )
    edit = Edit("lower", "gpu-memory-utilization", cfg.gpu_memory_utilization, down)
    effect = what
    if mem.total:
        freed = (cfg.gpu_memory_utilization - down) * mem.total / GIB
        effect = f"vLLM reserves {freed:.1f} GiB less of each device; {what}"
        if floor is not None:
            effect += f" (the engine's own memory needs {floor} of the device)"
    return [Change("tune", (edit,), effect)]


def _lower_gmu_with_length(c: _Ctx, mem: DeviceMemory, down: float, what: str) -> Change | None:
    """A lower utilization whose smaller pool no longer holds one max-model-len request, paired
    with the max-model-len that pool holds, where every request the window saw still fits.

    vLLM's own accounting sizes the smaller pool (the pool today over the KV bytes the log
    says it had, scaled to the bytes left at ``down``); without it, or where the window's
    longest request would not fit, None (the caller refuses). External case
    zzp-ds4-long-prefill (holdout-15): an out-of-memory while serving at 0.975 with a
    1,048,576-token max-model-len, 200,000-token prompts the longest seen.
    """
    cfg = c.cfg
    total, fixed, tokens = mem.total, mem.fixed, cfg.pool_tokens
    longest = c.view.num("max_prompt_len_seen")
    if not (mem.exact and total and fixed is not None and tokens and longest):
        return None
    if not cfg.max_model_len:
        return None
    kv_now = cfg.gpu_memory_utilization * total - fixed
    kv_down = down * total - fixed
    if kv_now <= 0 or kv_down <= 0:
        return None
    held = int(tokens * kv_down / kv_now)
    if cfg.block_size:
        held = held // cfg.block_size * cfg.block_size
    need = longest + (c.win.output or 0.0)
    if held < need or held >= cfg.max_model_len:
        return None
    edits = (
        Edit("lower", "gpu-memory-utilization", cfg.gpu_memory_utilization, down),
        Edit("lower", "max-model-len", cfg.max_model_len, held),
    )
    freed = (cfg.gpu_memory_utilization - down) * total / GIB
    effect = (
        f"vLLM reserves {freed:.1f} GiB less of each device; {what}. The smaller pool holds "
        f"{fmt_int(held)} tokens, so no request may be longer: the window's longest prompt "
        f"({fmt_int(longest)} tokens) still fits, a {fmt_int(cfg.max_model_len)}-token one "
        "would not"
    )
    return Change("tune", edits, effect)


def _plan_cudagraph_capture(c: _Ctx) -> list[Change]:
    cfg = c.cfg
    captured = c.view.num("log_cudagraph_max_capture_size")
    full = c.view.num("log_cudagraph_full_largest")
    # Each data-parallel engine captures and replays its own graphs: its own peak counts.
    peak = c.view.num("running_max_engine")
    if peak is None or captured is None:
        return []
    step = c.view.num("decode_step_tokens_max")
    if step is not None and step > peak and step > captured:
        return _capture_spec_width(c, int(peak), int(step), int(captured))
    if c.view.value("budget_step_uncaptured") is True and peak <= captured:
        return _capture_budget(c, int(captured))
    if peak <= captured:
        # The capture list covers the batch, but FULL decode graphs stop below it: vLLM
        # captures FULL graphs only up to max_num_seqs rounded down to a capture size, so the
        # last few batch sizes run PIECEWISE. A max_num_seqs on a capture size puts every
        # batch on a FULL graph (a capture list that holds max_num_seqs does the same).
        if full is None or peak <= full or not cfg.max_num_seqs:
            return []
        target = capture_size_below(int(cfg.max_num_seqs))
        if target >= cfg.max_num_seqs or target < full:
            return []
        effect = (
            f"every decode batch lands on a FULL CUDA graph (today FULL graphs stop at "
            f"{fmt_int(full)} while up to {fmt_int(peak)} ran at once, and those batches fall "
            f"back to PIECEWISE graphs); {fmt_int(cfg.max_num_seqs - target)} fewer sequences "
            f"run at once. Keeping {fmt_int(cfg.max_num_seqs)} instead needs a "
            f"cudagraph_capture_sizes list in --compilation-config that holds "
            f"{fmt_int(cfg.max_num_seqs)}"
        )
        rates = c.view.num("decode_rate_light"), c.view.num("decode_rate_heavy")
        if rates[0] and rates[1]:
            effect += (
                f" (in this window the lighter batches produced {fmt_int(rates[0])} tokens/s, "
                f"the largest {fmt_int(rates[1])})"
            )
        edit = Edit("lower", "max-num-seqs", int(cfg.max_num_seqs), target)
        return [Change("tune", (edit,), effect)]
    target = min(capture_size(int(peak)), capture_size(cfg.max_num_seqs))
    if target <= captured:
        return []
    before = int(captured) if cfg.is_set("max-cudagraph-capture-size") else None
    edit = (
        Edit("raise", "max-cudagraph-capture-size", int(captured), target)
        if before is not None
        else Edit("set", "max-cudagraph-capture-size", None, target)
    )
    effect = (
        f"decode batches of up to {fmt_int(target)} sequences run as CUDA graphs (today graphs "
        f"stop at {fmt_int(captured)} while up to {fmt_int(peak)} ran at once); capture costs "
        "start-up time and a little memory"
    )
    graphs = c.view.num("log_cudagraph_memory_gib")
    if graphs:
        effect += f" (the graphs took {graphs:.2f} GiB at {fmt_int(captured)})"
    return [Change("tune", (edit,), effect)]


def _capture_budget(c: _Ctx, captured: int) -> list[Change]:
    """A token budget just above the largest captured graph: vLLM cuts its capture list at
    --max-num-batched-tokens and captures only sizes on its ladder, so a budget off the
    ladder is never captured and every step filled to it runs eagerly (external case
    q-minimax: budget 700, graphs up to 688, every full step eager). The next ladder size as
    the budget is captured; the largest captured size as the budget needs no new graph."""
    budget = c.cfg.max_num_batched_tokens
    if budget is None or budget <= captured:
        return []
    target = capture_size(budget)
    effect = (
        f"a step filled to the token budget ({fmt_int(target)} tokens) replays a CUDA graph: "
        f"vLLM captures sizes up to the budget, {fmt_int(budget)} is not one of them, and "
        f"today every full step runs eagerly past the largest graph ({fmt_int(captured)}); "
        f"{fmt_int(captured)} does the same with {fmt_int(budget - captured)} fewer tokens a "
        f"step, and a cudagraph_capture_sizes list in --compilation-config that holds "
        f"{fmt_int(budget)} keeps the budget"
    )
    edit = Edit("raise", "max-num-batched-tokens", budget, target)
    return [Change("tune", (edit,), effect)]


def _graphs_for(c: _Ctx, seqs: int) -> tuple[Edit, str] | None:
    """The capture-size edit a larger --max-num-seqs needs, where the start-up log gives the
    largest captured graph: a decode step of ``seqs`` sequences (each with its drafts under
    speculation) above it runs without a graph, slower than the batch it replaced (external
    case o-spec6: 6 → 8 sequences verifying 7 tokens each would step 56 tokens past graphs
    that stop at 40)."""
    captured = c.view.num("log_cudagraph_max_capture_size")
    if captured is None:
        return None
    width = int(decode_step_tokens(seqs, c.view))
    if width <= captured:
        return None
    target = capture_size(width)
    edit = Edit("raise", "max-cudagraph-capture-size", int(captured), target)
    per = f" × {width // seqs} tokens" if width > seqs else ""
    return edit, (
        f"; with it, graphs up to {fmt_int(target)} tokens, since {fmt_int(seqs)} sequences"
        f"{per} per decode step would otherwise run past the largest captured graph "
        f"({fmt_int(captured)}) without one"
    )


def _capture_spec_width(c: _Ctx, running: int, step: int, captured: int) -> list[Change]:
    """Speculation verifies each sequence's token and its drafts in one step, and graphs are
    captured by tokens: the capture size has to cover running × (1 + k), which vLLM's default
    list adds on its own unless the maximum is set below it (external case o-spec6:
    --max-cudagraph-capture-size 42 truncated to 40, six sequences verifying 7 tokens each)."""
    cfg = c.cfg
    target = capture_size(step)
    known = cfg.is_set("max-cudagraph-capture-size") or c.view.value("log_cudagraph_truncated")
    edit = (
        Edit("raise", "max-cudagraph-capture-size", captured, target)
        if known
        else Edit("set", "max-cudagraph-capture-size", None, target)
    )
    effect = (
        f"the full decode step ({fmt_int(running)} sequences, each verifying its token and "
        f"{fmt_int(step // running - 1)} drafts: {fmt_int(step)} tokens) replays a CUDA graph "
        f"instead of running eagerly (today graphs stop at {fmt_int(captured)} tokens); a "
        "cudagraph_capture_sizes list in --compilation-config that holds "
        f"{fmt_int(step)} does the same"
    )
    return [Change("tune", (edit,), effect)]


def _plan_cudagraph_pool(c: _Ctx) -> list[Change]:
    cfg = c.cfg
    flag = cfg.spell("gpu-memory-utilization")
    suggested = c.view.num("log_cudagraph_suggested_utilization")
    if suggested is None or suggested <= cfg.gpu_memory_utilization:
        return []
    if suggested >= 1:
        # More than the whole device: the estimate charges the graphs more than the card has
        # beside the weights (external case s-minimax: 1.2461 suggested, 62 GiB estimated for
        # graphs that share one memory pool, nvidia-smi showing ~60 GiB of each B200 unused).
        return c.refuse(
            f"Raising {flag} to {suggested} (vLLM's start-up line): that is more than the whole "
            "device, so the CUDA-graph estimate, not the graphs' real use, decides the pool; it "
            "would need the estimate checked against the memory the graphs actually take"
        )
    ceiling = device_memory(c).max_utilization()
    if ceiling is not None and suggested > ceiling:
        return c.refuse(
            f"Raising {flag} to {suggested} (vLLM's start-up line): other processes hold "
            f"{_gib(device_memory(c).other)} of the device, so at most {ceiling} is free; it "
            "would need them moved off"
        )
    edit = Edit("raise", "gpu-memory-utilization", cfg.gpu_memory_utilization, suggested)
    taken = c.view.num("log_cudagraph_kv_util_taken")
    effect = "the KV pool gets back what CUDA graph profiling took (the value vLLM's line gives)"
    if taken:
        effect = (
            f"the KV pool gets back the {taken:.2f} of the device CUDA graph profiling took "
            "(the value vLLM's start-up line gives)"
        )
    return [Change("tune", (edit,), effect)]


def _halved_mm_limits(value: object) -> str | None:
    """--limit-mm-per-prompt with every count above one halved (JSON, as vLLM reads it), or
    None when the value is not a readable mapping or nothing can be halved."""
    limits = value
    if isinstance(value, str):
        try:
            limits = json.loads(value)
        except ValueError:
            return None
    if not isinstance(limits, dict) or not all(isinstance(n, int) for n in limits.values()):
        return None
    halved = {k: max(1, n // 2) for k, n in limits.items()}
    return None if halved == limits else json.dumps(halved, separators=(", ", ": "))


def _plan_activation_peak(c: _Ctx) -> list[Change]:
    """An out-of-memory at an activation peak: the multimodal worst case the profiling run
    pushes through the encoder, one unchunked prefill while serving, the sampler's warm-up at
    --max-num-seqs dummy requests, prefill logits at the batched-token budget. Shrink what
    sized the peak that struck (the traceback's phase says which)."""
    cfg, win = c.cfg, c.win
    out: list[Change] = []
    hint = _hint(c)
    phase = c.view.value("log_oom_phase")
    if phase == "profiling" and c.view.value("log_oom_multimodal") is True:
        current = cfg.args.get("limit-mm-per-prompt")
        halved = _halved_mm_limits(current)
        if halved is not None and current is not None:
            was = (
                current
                if isinstance(current, str)
                else json.dumps(current, separators=(", ", ": "))
            )
            edit = Edit("lower", "limit-mm-per-prompt", was, halved)
            effect = (
                "the profiling run pushes half the images and videos through the vision "
                "encoder, whose activations ran out beside the weights"
            )
            out.append(Change("tune", (edit,), effect))
        else:
            c.refuse(
                "Lowering --limit-mm-per-prompt: the bundle does not record the per-prompt "
                "image and video limits the profiling run used; it would need them (the "
                "server's command line) to halve"
            )
    if phase == "serving" and not cfg.enable_chunked_prefill:
        budget = 2048
        edits = (
            Edit("set", "enable-chunked-prefill", False, True),
            Edit("set", "max-num-batched-tokens", cfg.max_num_batched_tokens, budget),
        )
        effect = (
            f"a long prompt is prefilled {fmt_int(budget)} tokens per step, so one step's "
            "activations stay near what the profiling run measured"
        )
        out.append(Change("tune", edits, effect))
    tried = c.view.num("log_oom_tried_bytes")
    if c.view.value("log_oom_prompt_logprobs") is True:
        # The logits of every prompt token over the vocabulary, gathered at once: the peak
        # grows with the prompt, so the request parameter is the change, not a knob.
        asked = f" ({_gib(tried)} for the request that failed)" if tried else ""
        out.append(
            Change(
                "client",
                (),
                "no request gathers its whole prompt's logits over the vocabulary at once"
                f"{asked}; a lower utilization only buys room for shorter prompts",
                text=(
                    "Stop sending prompt_logprobs on long prompts (strip it at the gateway, or "
                    "reject it above a prompt length)"
                ),
            )
        )
    mem = device_memory(c)
    if phase == "serving" and tried and mem.total:
        # Free what the failed allocation asked for, and 2 % of the card for fragmentation.
        target = math.floor((cfg.gpu_memory_utilization - tried / mem.total - 0.02) * 100) / 100
        out += _plan_lower_gmu(
            c,
            f"the {_gib(tried)} the forward pass asked for (the error's own number) stays free",
            down_to=target,
        )
    target = max(8, cfg.max_num_seqs // 2 // 8 * 8)
    # The sampler warms up with --max-num-seqs dummy requests; other peaks do not scale with it.
    # V0's profiling run gives each of --max-num-seqs dummy sequences the model's worst-case
    # images, so the vision encoder's batch scales with it (external case zzc-mllama: 256
    # sequences of 4 tiles, one MLP activation 15.7 GiB; 128 let profiling finish). V1 sizes
    # that run by the encoder budget instead.
    v0_images = (
        phase == "profiling"
        and c.view.value("log_oom_multimodal") is True
        and c.view.value("log_v0_engine") is True
    )
    if (phase in (None, "sampler-warmup") or v0_images) and target < cfg.max_num_seqs:
        edit = Edit("lower", "max-num-seqs", cfg.max_num_seqs, target)
        effect = (
            f"the sampler warms up with {fmt_int(target)} dummy requests instead of "
            f"{fmt_int(cfg.max_num_seqs)}, half the peak of logits and sampling memory{hint}"
        )
        if v0_images:
            effect = (
                f"the profiling run encodes the images of {fmt_int(target)} dummy sequences "
                f"instead of {fmt_int(cfg.max_num_seqs)}, half the vision encoder's peak{hint}"
            )
        if win.running_max and win.running_max > target:
            effect += (
                f"; the window ran up to {fmt_int(win.running_max)} at once, the rest then wait"
            )
        out.append(Change("tune", (edit,), effect))
    if phase == "cuda-graph-capture":
        # The graphs are captured after the pool took its share: memory the profile did not
        # reserve for them. Five points of the card for the graphs, as far as the engine's own
        # memory allows; else no graphs at all (external case zyo-qwen25-72b: V1 0.8.1 at
        # 0.90, TP2, out of memory in capture_model).
        lower = _plan_lower_gmu(
            c,
            "the CUDA graphs get the memory the pool took before they were captured",
            down_to=round(cfg.gpu_memory_utilization - 0.05, 2),
        )
        out += lower
        out += [_alt(ch, True) for ch in _skip_capture(c, why="") if lower]
    mnbt = cfg.max_num_batched_tokens
    # CUDA graph capture and the KV allocation do not grow with the batched-token budget.
    by_tokens = phase not in ("cuda-graph-capture", "kv-allocation")
    seqs = target if any(e.flag == "max-num-seqs" for ch in out for e in ch.edits) else None
    if by_tokens and mnbt is not None and mnbt > 2048 and cfg.enable_chunked_prefill:
        half = max(seqs or cfg.max_num_seqs, mnbt // 2, 2048)
        if half < mnbt:
            edit = Edit("lower", "max-num-batched-tokens", mnbt, half)
            effect = f"one step's prefill logits ({fmt_int(half)} tokens × vocabulary) halve"
            out.append(Change("tune", (edit,), effect))
    if not out:
        where = f"in {phase}" if isinstance(phase, str) else "where the log does not say"
        return c.refuse(
            f"Lowering {cfg.spell('max-num-seqs')} or {cfg.spell('max-num-batched-tokens')}: "
            f"the out-of-memory error struck {where}, a peak neither sizes in this release "
            "from what the bundle records; it would need the server's command line (the "
            "multimodal limits, the budget) or the traceback of the failing allocation"
        )
    return out


def _plan_kv_read_bound(c: _Ctx) -> list[Change]:
    cfg, win = c.cfg, c.win
    out: list[Change] = []
    kv_read = c.view.num("kv_read_bytes_per_step")
    if not is_quantized_kv_dtype(cfg.kv_cache_dtype):
        edit = Edit("set", "kv-cache-dtype", None, "fp8")
        effect = "each decode step reads half the KV bytes"
        if kv_read:
            effect = f"KV read per decode step {_gib(kv_read)} → {_gib(kv_read / 2)}"
        effect += "; run the quant-canary against a BF16/FP16 reference before keeping it"
        new = settings(cfg, apply(cfg.args, (edit,)))
        if new.pool_tokens is not None:
            effect += f" (pool {fmt_int(cfg.pool_tokens or 0)} → {fmt_int(new.pool_tokens)} tokens)"
        out.append(Change("tune", (edit,), effect))
    out += _more_gpus(c, "each GPU reads 1/{n} of the KV per step (today 1/{tp})")
    del win
    return out


def _more_gpus(c: _Ctx, effect: str) -> list[Change]:
    """Double tensor parallelism where the machine has the GPUs, else add a replica."""
    tp = c.cfg.tensor_parallel_size
    if c.cfg.gpu_count is not None and c.cfg.gpu_count >= 2 * tp:
        edit = Edit("raise", "tensor-parallel-size", tp, 2 * tp)
        return [Change("capacity", (edit,), effect.format(n=2 * tp, tp=tp))]
    # vLLM refuses a tensor-parallel size above the GPUs it can see: scale out instead, by
    # the measured throughput against the measured demand (never a guessed count).
    return _replicas(c)


def _plan_prefill_bound(c: _Ctx) -> list[Change]:
    out: list[Change] = []
    if not c.cfg.enable_prefix_caching:
        out += _plan_caching_disabled(c)
    p50 = c.view.num("prefill_time_p50")
    effect = "prefill compute per GPU halves (tensor parallel {tp} → {n})"
    if p50:
        effect += f": prefill p50 {p50 * 1000:,.0f} ms → about {p50 * 500:,.0f} ms"
    out += _more_gpus(c, effect)
    return out


_Planner = Callable[[_Ctx, Finding], list[Change]]

# The named planners a playbook's ``remediation:`` references (``- planner: NAME`` with the
# moves it may make); the playbook loader checks names against rules.schema.PLANNER_NAMES and a
# test holds the two equal.
PLANNERS: dict[str, _Planner] = {
    "kv-capacity": lambda c, f: _plan_kv_capacity(
        c, "no sequence is preempted at the window's demand"
    ),
    "request-too-long": lambda c, f: _plan_request_too_long(c),
    "kv-admission": lambda c, f: _plan_kv_admission(c),
    "queueing": lambda c, f: _plan_queueing(c),
    "prefill-bound": lambda c, f: _plan_prefill_bound(c),
    "long-prefill-hol": lambda c, f: _plan_long_prefill_hol(c),
    "prefill-interference": lambda c, f: _plan_prefill_interference(c),
    "kv-read-bound": lambda c, f: _plan_kv_read_bound(c),
    "caching-disabled": lambda c, f: _plan_caching_disabled(c),
    "block-size": lambda c, f: _plan_block_size(c),
    "eviction-churn": lambda c, f: _plan_eviction_churn(c),
    "prefix-drift": lambda c, f: _plan_prefix_drift(c),
    "fp8-kv-cache": _plan_fp8,
    "kv-pool-too-small": lambda c, f: _plan_kv_pool_too_small(c),
    "other-process": lambda c, f: _plan_lower_gmu(
        c, "the other processes on the device keep their memory", leave_other=True
    ),
    "utilization-too-high": lambda c, f: _plan_lower_gmu(
        c, "activations get the headroom they ran out of"
    ),
    "activation-peak": lambda c, f: _plan_activation_peak(c),
    "cudagraph-capture": lambda c, f: _plan_cudagraph_capture(c),
    "cudagraph-pool": lambda c, f: _plan_cudagraph_pool(c),
}


@dataclass(frozen=True)
class FindingPlan:
    """The advice for one finding (index into the report's findings), in order, and the
    changes the bundle's numbers ruled out (each with what would have to be true)."""

    index: int
    items: tuple[Item, ...]
    not_advised: tuple[str, ...] = ()

    @property
    def changes(self) -> tuple[Change, ...]:
        return tuple(it.change for it in self.items if it.change is not None)


def _direction(e: Edit) -> str | None:
    return {"raise": "up", "lower": "down"}.get(e.action)


class Item(NamedTuple):
    """One printed line of a finding's advice: a planned change or a playbook text line."""

    change: Change | None = None
    text: str = ""
    move: Move | None = None  # the playbook's declared move a change made

    def render(self, cfg: EngineConfig) -> str:
        return self.change.render(cfg) if self.change is not None else self.text


def _cause_of(playbooks: Sequence[Playbook], f: Finding) -> Cause | None:
    """The playbook cause a finding came from (its playbook first, then by cause id)."""
    ranked = sorted(playbooks, key=lambda pb: pb.id != f.id)
    return next((c for pb in ranked for c in pb.causes if c.id == f.cause), None)


def _matches(ch: Change, move: Move) -> bool:
    if ch.edits:
        e = ch.edits[0]
        return e.action == move.action and move.flag == "--" + canonical_flag(e.flag)
    return move.action == ch.kind


def declared_move(ch: Change, moves: Sequence[Move]) -> Move | None:
    """The playbook move a planned change is an instance of (its first edit's action and
    flag; a client or capacity change by kind), or None: a change the playbook never declared."""
    return next((m for m in moves if _matches(ch, m)), None)


def plan(
    findings: Sequence[Finding],
    cfg: EngineConfig,
    signals: SignalSet,
    playbooks: Sequence[Playbook] | None = None,
) -> list[FindingPlan]:
    """Advice per finding, in the order its playbook lists it: planner items planned from the
    bundle and checked (vLLM's start-up rules, the device's memory, the window), text items as
    the engine renders them. Refuted findings get none; an unidentified finding keeps its
    "collect next" lines."""
    books = list(playbooks) if playbooks is not None else load_playbooks()
    view = SignalView(signals)
    win = window_of(signals)
    plans: list[FindingPlan] = []
    # A knob moved one way for an earlier (higher-ranked) finding is never moved the other way
    # for a later one (docs/troubleshooting.md: a rule never advises both directions).
    directions: dict[str, str] = {}
    # What the constraints say about the server as it runs: it started with these flags, so
    # they are this vLLM's to accept (a KV dtype newer than kvdoctor's list, say). A change is
    # refused only for a problem it adds (external case g-mrv2: int8_per_token_head silenced
    # every change on the server).
    standing = set(problems(cfg, dict(cfg.args)))
    for i, f in enumerate(findings):
        cause = _cause_of(books, f)
        if f.status == "refuted" or cause is None:
            continue
        ctx = _Ctx(cfg, win, view)
        measured = f.reproducer.measured if f.reproducer else {}
        items: list[Item] = []
        for rem in cause.remediation:
            if rem.planner is None:
                line = remediation_line(rem, view, measured)
                if line is not None:
                    items.append(Item(text=line))
                continue
            for ch in PLANNERS[rem.planner](ctx, f):
                if ch.edits:
                    refused = set(problems(cfg, ch.args(cfg))) - standing
                    if refused:
                        continue  # vLLM would refuse it, or it would do nothing
                dirs = [(e.flag, d) for e in ch.edits if (d := _direction(e)) is not None]
                if any(directions.get(flag, d) != d for flag, d in dirs):
                    continue
                for flag, d in dirs:
                    directions.setdefault(flag, d)
                items.append(Item(change=ch, move=declared_move(ch, rem.moves)))
        if items and items[0].text.startswith("Or "):
            # "Or ..." after a change the bundle ruled out: the alternative is now the advice.
            rest = items[0].text[3:]
            items[0] = Item(text=rest[:1].upper() + rest[1:])
        first = next((k for k, it in enumerate(items) if it.change is not None), None)
        if first is not None and items[first].change is not None:
            ch0 = items[first].change
            assert ch0 is not None
            if ch0.alternative and not any(it.text for it in items[:first]):
                items[first] = Item(change=_alt(ch0, False), move=items[first].move)
        plans.append(FindingPlan(i, tuple(items), tuple(ctx.notes)))
    return plans


def apply_plans(
    findings: Sequence[Finding], cfg: EngineConfig, plans: Sequence[FindingPlan]
) -> list[Finding]:
    """Findings with ``remediation`` (and ``not_advised``) from the plans; others untouched."""
    by_index = {p.index: p for p in plans}
    out: list[Finding] = []
    for i, f in enumerate(findings):
        p = by_index.get(i)
        if p is None:
            out.append(f)  # refuted, unidentified ("collect next"), or no playbook cause
            continue
        lines = [it.render(cfg) for it in p.items]
        out.append(f.model_copy(update={"remediation": lines, "not_advised": list(p.not_advised)}))
    return out
