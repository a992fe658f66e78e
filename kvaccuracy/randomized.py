"""Randomized lab scenarios with the truth known by construction (issue 12's harness).

The fixed scenarios in :mod:`kvdoctor.lab.scenarios` are a training set: the rules were written
while looking at them. Accuracy is measured here instead, on draws that nobody tuned against:
``draw(seed, index)`` picks a failure class and draws every parameter of the server and of its
traffic (model geometry, KV pool, admission limits, chunked prefill, prompt/output lengths with
heavy tails, sharing pattern, concurrency, arrival pattern) from ranges derived from the KV
math of that draw, so that each draw reaches its mechanism whatever numbers it lands on.

Each draw carries a :class:`Control`: a check of the symptom against the server's own metrics
in the captured window (and a single-request baseline measured in the same draw), written
without kvdoctor's signals or rules. A draw whose control fails did not produce its symptom and
is reported as "control failed", not scored against kvdoctor.

Everything here is pure: the same ``(seed, index)`` gives the same draw on any machine
(``random.Random`` seeded with a string hashes it with SHA-512, independent of
``PYTHONHASHSEED``), and :func:`check_control` is a function of scrapes and the baseline.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kvdoctor.expfmt import parse
from kvdoctor.lab.scenarios import BLOCK_SIZE, LAB_TAG, Expected, Phase, Scenario
from kvdoctor.reproducers.loadgen import LoadSpec
from kvdoctor.vllm_metrics import (
    ITL,
    KV_USAGE,
    PREEMPTIONS,
    PREFIX_HITS,
    PREFIX_QUERIES,
    QUEUE_TIME,
    REQUEST_PROMPT_TOKENS,
    REQUEST_SUCCESS,
    RUNNING,
    TTFT,
    WAITING,
)

# The generator's position limit: no max_model_len above it.
MAX_POSITIONS = 16384
QUERY_HEADS = 4
GIB = 1 << 30
# Each phase's budget: large, so that the runner (not the budget) ends it; the runner repeats
# the workload if a phase ever finishes early.
PHASE_DURATION_S = 180.0
PHASE_REQUESTS = 5000

# class -> (symptom, cause) by construction; None, None: nothing should fire.
TRUTH: dict[str, tuple[str | None, str | None]] = {
    "kv-capacity": ("preemption", "kv-capacity"),
    "queueing": ("high-ttft", "queueing"),
    "long-prefill-hol": ("high-ttft", "long-prefill-hol"),
    "caching-disabled": ("prefix-miss", "caching-disabled"),
    "block-larger-than-prefix": ("prefix-miss", "block-larger-than-prefix"),
    "prefix-drift": ("prefix-miss", "prefix-drift"),
    "eviction-churn": ("prefix-miss", "eviction-churn"),
    "healthy": (None, None),
    "healthy-unshared": (None, None),
    # The shapes real servers show with no history (issue 28): the metrics alone cannot tell
    # them from each other or from traffic that shares nothing.
    "prefix-drift-fresh": ("prefix-miss", "prefix-drift"),
    "sub-block-long": ("prefix-miss", "block-larger-than-prefix"),
    "salt-per-user": ("prefix-miss", "adapter-or-salt-split"),
    "eviction-fresh": ("prefix-miss", "eviction-churn"),
    "healthy-unshared-long": (None, None),
}
CLASSES: tuple[str, ...] = tuple(TRUTH)

# Classes whose mechanism the captured metrics cannot decide: offline (no prompts, no
# experiment) the right answer is the report's "inconclusive" with the truth in its
# differential (unshared-traffic for a healthy class); live the operator hands over a prompt sample
# (``--prompts``, drawn from the same traffic) and the report must decide.
UNDECIDABLE_OFFLINE: frozenset[str] = frozenset(
    {
        "prefix-drift-fresh",
        "sub-block-long",
        "salt-per-user",
        "eviction-fresh",
        "healthy-unshared-long",
        # Caching off is a setting; what it costs depends on whether the traffic shares.
        "caching-disabled",
    }
)
# Prompts in the sample given to a live draw of these classes.
PROMPT_SAMPLE_SIZE = 24

# A class whose mechanism has a second face: long prompts prefilled in one step hold the engine,
# so newcomers wait (head-of-line, TTFT) *and* the streams decoding beside them stall (prefill
# interference, ITL). Both are the same cause (the prefill step is too long) with the same fix
# (chunked prefill, a bound on one prompt's share of a step). Where the draw's control measured
# the second face too (mean ITL at least SLOW_FACTOR times the single-request baseline), naming
# it is right: which harm is larger depends on the draw (fresh draw 9500-0: ITL p95 852 ms per
# token beside TTFT p95 2 s), not on the class. Without that measurement only the truth counts.
OTHER_FACE: dict[str, tuple[str, str]] = {
    "long-prefill-hol": ("slow-itl", "prefill-interference"),
}

# Classes of the issue that the lab cannot produce within its budget, and why (reported by the
# benchmark so that the matrix says what it does not cover).
NOT_DRAWN: dict[str, str] = {
    "kv-read-bound": (
        "the CPU backend's decode step is dominated by per-sequence work, not KV reads, at the "
        "contexts a draw can build in its budget: dev draw 1000-4 (39 sequences of ~1,000 "
        "tokens, 30 MiB of KV per step) decoded 7x slower than one request, but its ITL moved "
        "only 12.5 -> 16 ms as the context grew; a draw labelled kv-read-bound would be "
        "labelled by intent, not mechanism. Covered by rule cases and the itl-context experiment"
    ),
    "prefill-interference": (
        "no construction tried gave inter-token latency as the one symptom on the CPU backend: "
        "27 streams of 808-token prompts stalled decodes by 24 ms at most (p99; dev draw "
        "1000-4); 1-4k-token prompts in a closed loop made TTFT (p95 2-4 s, own prefill) the "
        "larger harm (fresh draws 5000-0, 5000-10); 4-12k-token prompts beside decoding "
        "streams froze them but left mean ITL at 2.7x a single request, while TTFT p95 passed "
        "1 s. Covered by the recorded long-prefill-hol fixture (slow-itl/prefill-interference, "
        "confirmed) and rule cases"
    ),
    "request-exceeds-kv-capacity": (
        "vLLM 0.32 refuses to start when --max-model-len exceeds the KV pool (the lab's "
        "kv-too-small scenario), so a running server in that state cannot be built here"
    ),
    "fp8-kv-cache": (
        "needs a reference server beside the target; two lab engines on a 2-core host starve "
        "each other (docs/lab.md), so one draw would not fit its lab-lock budget"
    ),
}


@dataclass(frozen=True)
class Geometry:
    """The generated model's KV layout (4 query heads; bf16 cache)."""

    layers: int
    kv_heads: int
    head_dim: int

    @property
    def bytes_per_token(self) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * 2

    @property
    def attention(self) -> str:
        if self.kv_heads == 1:
            return "MQA"
        return "MHA" if self.kv_heads == QUERY_HEADS else "GQA"

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.layers, self.kv_heads, self.head_dim)


@dataclass(frozen=True)
class Control:
    """What proves the draw's symptom from the server's own metrics (see :func:`check_control`).

    ``kind`` names the check; the other fields are the numbers it needs from the draw.
    """

    kind: str
    max_num_seqs: int
    # Shared tokens per request that the prefix cache can hold (whole blocks), and the prompt
    # length range of the requests that carry them (to count them from the server's
    # prompt-length histogram); 0 when the traffic shares nothing cacheable.
    cacheable_shared_tokens: int = 0
    shared_prompt_range: tuple[int, int] = (0, 0)
    # Tokens shared between requests in any position (drift and sub-block prefixes share text
    # the cache cannot use): what makes a miss a symptom rather than the traffic's nature.
    shared_tokens: int = 0
    # Head-of-line draws: the short requests' prompt length and the histogram bound above it
    # (the long prompts are all beyond it), to tell their TTFT from the long ones'.
    short_prompt_range: tuple[int, int] = (0, 0)
    # The draw's history shared a prefix (it ran before the window): the server must have hit
    # before the window, or the draw did not build the past its truth depends on.
    prior_hits: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "prior_hits": self.prior_hits,
            "max_num_seqs": self.max_num_seqs,
            "cacheable_shared_tokens": self.cacheable_shared_tokens,
            "shared_prompt_range": list(self.shared_prompt_range),
            "shared_tokens": self.shared_tokens,
            "short_prompt_range": list(self.short_prompt_range),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Control:
        lo, hi = data.get("shared_prompt_range") or (0, 0)
        short_lo, short_hi = data.get("short_prompt_range") or (0, 0)
        return cls(
            kind=str(data["kind"]),
            max_num_seqs=int(data["max_num_seqs"]),
            cacheable_shared_tokens=int(data.get("cacheable_shared_tokens", 0)),
            shared_prompt_range=(int(lo), int(hi)),
            shared_tokens=int(data.get("shared_tokens", 0)),
            short_prompt_range=(int(short_lo), int(short_hi)),
            prior_hits=bool(data.get("prior_hits", False)),
        )


@dataclass(frozen=True)
class Draw:
    seed: int
    index: int
    klass: str
    symptom: str | None
    cause: str | None
    geometry: Geometry
    engine_args: tuple[str, ...]
    kv_cache_space_gib: int
    phases: tuple[Phase, ...]
    arrival: str
    sharing: str
    chunked_prefill: bool
    max_num_seqs: int
    max_model_len: int
    max_num_batched_tokens: int
    # Usable pool tokens when a block override sizes the pool; None: sized by memory.
    pool_tokens: int | None
    load_during_reproducers: bool
    control: Control
    # One line per derived number: why the draw reaches its mechanism.
    derivation: tuple[str, ...] = field(default=())
    # Traffic run once, to the end, before the workload and the capture window: the server's
    # past (clients that shared a prefix until a deploy changed the prompts, a cache that
    # worked before pressure arrived). A symptom is harm against the server's own past; a
    # draw whose truth is "it stopped hitting" needs one.
    history: tuple[Phase, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"draw-{self.seed}-{self.index}"

    def scenario(self) -> Scenario:
        """The draw as a lab scenario (not registered; passed to the lab server directly)."""
        return Scenario(
            name=self.name,
            title=f"randomized {self.klass} (seed {self.seed}, index {self.index})",
            demonstrates="; ".join(self.derivation),
            engine_args=self.engine_args,
            workload=self.phases,
            expected=Expected(symptom=self.symptom, cause=self.cause),
            kv_cache_space_gib=self.kv_cache_space_gib,
            load_during_reproducers=self.load_during_reproducers,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "index": self.index,
            "class": self.klass,
            "truth": {"symptom": self.symptom, "cause": self.cause},
            "geometry": {
                "layers": self.geometry.layers,
                "kv_heads": self.geometry.kv_heads,
                "head_dim": self.geometry.head_dim,
                "attention": self.geometry.attention,
                "bytes_per_token": self.geometry.bytes_per_token,
            },
            "engine_args": list(self.engine_args),
            "kv_cache_space_gib": self.kv_cache_space_gib,
            "pool_tokens": self.pool_tokens,
            "arrival": self.arrival,
            "sharing": self.sharing,
            "chunked_prefill": self.chunked_prefill,
            "max_num_seqs": self.max_num_seqs,
            "max_model_len": self.max_model_len,
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "load_during_reproducers": self.load_during_reproducers,
            "phases": [
                {"group": p.group, **p.spec.model_dump(mode="json", exclude_defaults=True)}
                for p in self.phases
            ],
            "history": [
                {"group": p.group, **p.spec.model_dump(mode="json", exclude_defaults=True)}
                for p in self.history
            ],
            "control": self.control.to_json(),
            "derivation": list(self.derivation),
        }


# --------------------------------------------------------------------------- drawing helpers


def _logu(rng: random.Random, lo: int, hi: int) -> int:
    """An integer log-uniform in [lo, hi]: sizes spread over orders of magnitude."""
    if hi <= lo:
        return lo
    return min(hi, max(lo, round(math.exp(rng.uniform(math.log(lo), math.log(hi))))))


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def _whole_blocks(tokens: int) -> int:
    """``tokens`` rounded down to whole KV blocks (at least one): a prefix the cache can hold."""
    return max(BLOCK_SIZE, (tokens // BLOCK_SIZE) * BLOCK_SIZE)


def _spec(**kw: Any) -> LoadSpec:
    kw.setdefault("tag", LAB_TAG)
    kw.setdefault("requests", PHASE_REQUESTS)
    kw.setdefault("duration_s", PHASE_DURATION_S)
    return LoadSpec.model_validate(kw)


def _geometry(rng: random.Random) -> Geometry:
    return Geometry(
        layers=rng.randint(1, 4), kv_heads=rng.choice((1, 2, 4)), head_dim=rng.choice((64, 128))
    )


def _class_for(seed: int, index: int) -> str:
    """A seeded permutation of the classes, cycled: K consecutive draws cover min(K, 10) classes."""
    order = list(CLASSES)
    random.Random(f"kvdoctor-accuracy-classes:{seed}").shuffle(order)
    return order[index % len(order)]


class _Builder:
    """Collects the engine flags and the derivation lines of one draw."""

    def __init__(self, rng: random.Random, geometry: Geometry) -> None:
        self.rng = rng
        self.geometry = geometry
        self.why: list[str] = [
            f"geometry {geometry.layers} layers x {geometry.kv_heads} KV heads x head_dim "
            f"{geometry.head_dim} ({geometry.attention}) = {geometry.bytes_per_token} B/token"
        ]

    def blocks_for(self, pool_tokens: int) -> tuple[int, int]:
        """Blocks to override for at least ``pool_tokens`` usable tokens; (blocks, usable)."""
        blocks = -(-pool_tokens // BLOCK_SIZE) + 1  # vLLM keeps one as its null block
        return blocks, BLOCK_SIZE * (blocks - 1)

    def space_gib(self, tokens: int) -> int:
        """Whole GiB of VLLM_CPU_KVCACHE_SPACE for ``tokens`` tokens of KV (at least 1)."""
        return max(1, math.ceil(tokens * self.geometry.bytes_per_token / GIB))

    def roomy_pool(self, demand_tokens: int) -> tuple[int, int]:
        """A memory-sized pool of at least 4x the demand: (GiB, pool tokens)."""
        gib = self.space_gib(4 * demand_tokens) + self.rng.randint(0, 1)
        tokens = gib * GIB // self.geometry.bytes_per_token
        self.why.append(
            f"pool {gib} GiB = {tokens} tokens, >= 4x the live demand of {demand_tokens} tokens"
        )
        return gib, tokens

    def batching(
        self, max_model_len: int, *, chunked: bool | None = None, min_budget: int = 256
    ) -> tuple[bool, int, list[str]]:
        """Chunked prefill on/off and the batched-token budget vLLM accepts with it."""
        rng = self.rng
        chunked = rng.random() < 0.6 if chunked is None else chunked
        if chunked:
            budget = _round_up(_logu(rng, max(min_budget, 256), 8192), 64)
            args = ["--max-num-batched-tokens", str(budget)]
        else:
            # Without chunking a whole prompt is one step: vLLM wants the budget >= max_model_len.
            budget = max(max_model_len, _round_up(_logu(rng, max_model_len, 2 * max_model_len), 64))
            args = ["--no-enable-chunked-prefill", "--max-num-batched-tokens", str(budget)]
        return chunked, budget, args


def _arrival_spec(rng: random.Random, arrival: str, concurrency: int, **kw: Any) -> list[Phase]:
    """Phases for one traffic stream under an arrival pattern (closed / poisson / bursts)."""
    if arrival == "poisson":
        # Mean rate of about the concurrency per second; the concurrency stays the cap.
        rate = round(rng.uniform(0.5, 1.5) * concurrency, 2)
        return [Phase(_spec(concurrency=concurrency, rate_per_s=rate, **kw))]
    if arrival == "bursts":
        # A burst at full concurrency, then a lull of one request at a time, in turn.
        burst = Phase(_spec(concurrency=concurrency, **{**kw, "requests": 4 * concurrency}))
        lull = Phase(_spec(concurrency=1, **{**kw, "requests": 2}), group=1)
        return [burst, lull]
    return [Phase(_spec(concurrency=concurrency, **kw))]


# --------------------------------------------------------------------------- the classes


def _pool_args(
    blocks: int, max_model_len: int, max_num_seqs: int, batching: list[str]
) -> list[str]:
    """Flags of a draw whose pool is sized by a block override (kv-capacity, eviction)."""
    return [
        "--num-gpu-blocks-override",
        str(blocks),
        "--max-model-len",
        str(max_model_len),
        "--max-num-seqs",
        str(max_num_seqs),
        *batching,
    ]


def _draw_kv_capacity(b: _Builder) -> dict[str, Any]:
    rng = b.rng
    concurrency = rng.randint(4, 16)
    # Each sequence grows to L tokens; live demand C x L must exceed the pool by r.
    seq_len = _logu(rng, 384, 2048)
    ratio = rng.uniform(1.6, 4.0)
    pool_target = max(int(concurrency * seq_len / ratio), math.ceil(seq_len / 0.6))
    blocks, pool = b.blocks_for(pool_target)
    ratio = concurrency * seq_len / pool
    # Outputs carry the growth (preemption happens when running sequences need a new block).
    prompt = max(32, int(seq_len * rng.uniform(0.1, 0.5)))
    output = seq_len - prompt
    max_model_len = min(pool, _round_up(rng.randint(seq_len, max(seq_len, pool)), BLOCK_SIZE))
    max_model_len = max(max_model_len, seq_len)
    max_num_seqs = rng.randint(concurrency, 2 * concurrency)
    chunked, budget, bargs = b.batching(max_model_len)
    arrival = rng.choice(("closed", "closed", "bursts"))
    # Unique prompts only: a shared prefix would shrink the demand the ratio is computed on,
    # and drifting text is a prefix-miss problem of its own (a second truth).
    sharing = "none"
    phases = _arrival_spec(
        rng, arrival, concurrency, prompt_tokens=prompt, max_tokens=output, prefix="unique"
    )
    b.why.append(
        f"pool {blocks} blocks = {pool} tokens; {concurrency} sequences x {seq_len} tokens "
        f"= {ratio:.1f}x the pool (each fits alone: {seq_len} <= 0.6 x pool)"
    )
    return {
        "engine_args": _pool_args(blocks, max_model_len, max_num_seqs, bargs),
        "kv_cache_space_gib": b.space_gib(BLOCK_SIZE * blocks),
        "pool_tokens": pool,
        "phases": phases,
        "arrival": arrival,
        "sharing": sharing,
        "chunked": chunked,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": False,
        "control": Control("preemption", max_num_seqs),
    }


def _draw_queueing(b: _Builder) -> dict[str, Any]:
    rng = b.rng
    slots = rng.randint(1, 4)
    # Offered concurrency several times the slots: requests wait for a slot, not for KV.
    concurrency = slots * rng.randint(4, 8)
    prompt = _logu(rng, 512, 3072)
    # Each admitted request holds its slot for its whole decode, so the wait behind a slot is
    # the lifetimes ahead of it. The lab's tiny model decodes a token in about a millisecond,
    # so a few dozen tokens give a wait no user notices: a queue of five behind one slot at 8
    # to 64 tokens waited 0.47 s at p95 (fresh draw 9980-8), where a real GPU serving the same
    # queue waits seconds. A longer decode gives the queue the lifetimes a real one has.
    output = rng.randint(48, 160)
    tail = rng.random() < 0.4
    tail_prompt = min(MAX_POSITIONS // 2, prompt * rng.randint(2, 4)) if tail else prompt
    max_model_len = min(MAX_POSITIONS, _round_up(tail_prompt + output + 1, 1024))
    gib, pool = b.roomy_pool(slots * (tail_prompt + output))
    chunked, budget, bargs = b.batching(max_model_len)
    arrival = rng.choice(("closed", "closed", "bursts"))
    # A cacheable shared prefix (healthy caching) or none; never drifting text, which is a
    # prefix-miss problem of its own (a second truth in the same draw).
    sharing = rng.choice(("none", "shared"))
    kw: dict[str, Any] = {
        "prompt_tokens": prompt,
        "max_tokens": output,
        "prefix": "unique" if sharing == "none" else "shared",
        "shared_prefix_tokens": 0 if sharing == "none" else _whole_blocks(prompt // 2),
    }
    phases = _arrival_spec(rng, arrival, concurrency - (1 if tail else 0), **kw)
    if tail:
        phases.append(Phase(_spec(**{**kw, "prompt_tokens": tail_prompt, "concurrency": 1})))
    b.why.append(
        f"--max-num-seqs {slots} against {concurrency} offered requests "
        f"(prompts {prompt}{f' and a tail of {tail_prompt}' if tail else ''} tokens); "
        f"the pool holds {pool // max(1, slots * (tail_prompt + output))}x the running demand"
    )
    return {
        "engine_args": [
            "--max-model-len",
            str(max_model_len),
            "--max-num-seqs",
            str(slots),
            *bargs,
        ],
        "kv_cache_space_gib": gib,
        "pool_tokens": None,
        "phases": phases,
        "arrival": arrival,
        "sharing": sharing,
        "chunked": chunked,
        "max_num_seqs": slots,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": True,
        "control": Control("queueing", slots),
    }


def _draw_long_prefill_hol(b: _Builder) -> dict[str, Any]:
    rng = b.rng
    long_prompt = _logu(rng, 4096, 12288)
    long_output = rng.randint(4, 16)
    short_prompt = _logu(rng, 32, 256)
    short_output = rng.randint(16, 96)
    short_conc = rng.randint(2, 6)
    # Slots far above what runs (short_conc + 1): a wait is never for a slot.
    max_num_seqs = rng.randint(4 * (short_conc + 1), 64)
    max_model_len = min(MAX_POSITIONS, _round_up(long_prompt + long_output + 1, 1024))
    # A long prompt must be prefilled in one step: chunking off, or a budget above it.
    chunked = rng.random() < 0.3
    if chunked:
        budget = _round_up(rng.randint(long_prompt + 1, max_model_len), 64)
        bargs = ["--max-num-batched-tokens", str(budget)]
    else:
        chunked, budget, bargs = b.batching(max_model_len, chunked=False)
    gib, _pool = b.roomy_pool(
        long_prompt + long_output + short_conc * (short_prompt + short_output)
    )
    long_conc = rng.choice((1, 1, 2))
    phases = [
        Phase(_spec(prompt_tokens=long_prompt, max_tokens=long_output, concurrency=long_conc)),
        *_arrival_spec(
            rng,
            rng.choice(("closed", "poisson")),
            short_conc,
            prompt_tokens=short_prompt,
            max_tokens=short_output,
        ),
    ]
    arrival = "poisson" if any(p.spec.rate_per_s for p in phases) else "closed"
    b.why.append(
        f"{long_conc} stream(s) of {long_prompt}-token prompts prefilled in one step "
        f"(budget {budget}, chunked {'on' if chunked else 'off'}) beside {short_conc} short "
        f"requests ({short_prompt} tokens); --max-num-seqs {max_num_seqs} is never the limit"
    )
    return {
        "engine_args": [
            "--max-model-len",
            str(max_model_len),
            "--max-num-seqs",
            str(max_num_seqs),
            *bargs,
        ],
        "kv_cache_space_gib": gib,
        "pool_tokens": None,
        "phases": phases,
        "arrival": arrival,
        "sharing": "none",
        "chunked": chunked,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": True,
        "control": Control(
            "hol", max_num_seqs, short_prompt_range=(short_prompt, prompt_bound(short_prompt))
        ),
    }


def _draw_prefix(b: _Builder, klass: str) -> dict[str, Any]:
    """caching-disabled / block-larger-than-prefix / prefix-drift on a roomy pool."""
    rng = b.rng
    concurrency = rng.randint(1, 6)
    output = rng.randint(8, 64)
    salts = 0
    if klass == "sub-block-long":
        # A system prompt shorter than one block inside prompts of many blocks: the block size
        # throws the sharing away, and the server sees what unshared traffic looks like.
        shared = rng.randint(16, BLOCK_SIZE - 24)
        prompt = _logu(rng, 2 * BLOCK_SIZE + 32, 2048)
        mode, sharing = "shared", "shared-sub-block"
        cacheable = 0
    elif klass == "salt-per-user":
        # Identical long prefixes, a cache_salt per user: nothing can be shared.
        shared = _logu(rng, 2 * BLOCK_SIZE, 2048)
        prompt = shared + _logu(rng, 16, 512)
        mode, sharing = "shared", "salted"
        cacheable = 0
        salts = PHASE_REQUESTS
    elif klass == "block-larger-than-prefix":
        # Shared text shorter than one block, in prompts that fit in one block: no full block
        # is ever cached, shared or not. Only prompts inside one block make the block size the
        # observable cause: longer prompts that never hit look, from the server's side, like
        # traffic that shares nothing (dev draws 1000-7, 7001-8: 599-token prompts sharing 72
        # tokens; metrics cannot tell them from unrelated prompts, and no rule should guess).
        shared = rng.randint(16, BLOCK_SIZE - 24)
        prompt = rng.randint(shared + 8, BLOCK_SIZE)
        mode, sharing = "shared", "shared"
        cacheable = 0
    elif klass in ("prefix-drift", "prefix-drift-fresh"):
        # A per-request value first, then a long shared body: the same text, never a prefix.
        # The same clients shared the body as a prefix before (the history): drift is a change
        # of the prompts, visible as hits that stopped. Drifting text from the first request
        # on is, from the server's side, traffic that shares nothing (the lab's prefix-drift
        # scenario documents that this is no finding).
        shared = _logu(rng, 2 * BLOCK_SIZE, 2048)
        prompt = shared + _logu(rng, 16, 512)
        mode, sharing = "timestamp-first", "drifting"
        cacheable = 0
    else:
        shared = _logu(rng, 2 * BLOCK_SIZE, 2048)
        prompt = shared + _logu(rng, 16, 512)
        mode, sharing = "shared", "shared"
        cacheable = (shared // BLOCK_SIZE) * BLOCK_SIZE
    docs = 1
    if klass not in ("block-larger-than-prefix", "sub-block-long") and rng.random() < 0.35:
        # Many documents: several streams, each with its own shared prefix.
        docs = rng.randint(2, 4)
        sharing = "many-documents" if mode == "shared" else "drifting-documents"
    max_model_len = min(MAX_POSITIONS, _round_up(prompt + output + 1, 1024))
    gib, _pool = b.roomy_pool(docs * concurrency * (prompt + output))
    chunked, budget, bargs = b.batching(max_model_len)
    arrival = rng.choice(("closed", "closed", "poisson"))
    phases: list[Phase] = []
    for _ in range(docs):
        phases += _arrival_spec(
            rng,
            arrival,
            concurrency,
            prompt_tokens=prompt,
            max_tokens=output,
            prefix=mode,
            shared_prefix_tokens=shared,
            cache_salts=salts,
        )
    history: list[Phase] = []
    if klass == "prefix-drift":
        # 15-30 s of sharing against the workload's 4 s before the first scrape: the server's
        # past outweighs the drift's first seconds in its counters, as hours of shared traffic
        # outweigh a recent deploy on a real server (12 history requests were outweighed by the
        # drift's warm-up: 4.9 % hits before the window, dev draw 1001-3).
        history = [
            Phase(
                _spec(
                    prompt_tokens=prompt,
                    max_tokens=output,
                    concurrency=concurrency,
                    duration_s=round(rng.uniform(15.0, 30.0), 1),
                    prefix="shared",
                    shared_prefix_tokens=shared,
                )
            )
        ]
        b.why.append(
            f"history: {history[0].spec.duration_s:g} s of requests sharing the {shared}-token "
            "body as a prefix ran before the window (the prompts changed after it)"
        )
    engine_args = ["--max-model-len", str(max_model_len), *bargs]
    if klass == "caching-disabled":
        engine_args.append("--no-enable-prefix-caching")
    max_num_seqs = 256 if docs * concurrency < 128 else docs * concurrency
    b.why.append(
        f"{docs} stream(s) x {concurrency} of {prompt}-token prompts sharing {shared} tokens "
        f"({mode}); block {BLOCK_SIZE}: {cacheable} cacheable shared tokens"
        + (", prefix caching off" if klass == "caching-disabled" else "")
        + (f", a cache_salt per user ({salts} salts)" if salts else "")
        + (", no history: drifting from the first request" if klass == "prefix-drift-fresh" else "")
    )
    return {
        "engine_args": engine_args,
        "kv_cache_space_gib": gib,
        "pool_tokens": None,
        "phases": phases,
        "arrival": arrival,
        "sharing": sharing,
        "chunked": chunked,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": False,
        "history": history,
        "control": Control(
            "no-hits",
            max_num_seqs,
            cacheable_shared_tokens=cacheable,
            shared_prompt_range=(prompt, prompt),
            shared_tokens=shared,
            prior_hits=bool(history),
        ),
    }


# vLLM's prompt-length histogram buckets (1-2-5 series): a shared stream and a pressure stream
# must fall on either side of one boundary for the control to count the shared requests.
_PROMPT_BUCKETS = (100, 200, 500, 1000, 2000, 5000, 10000)


def prompt_bound(prompt_tokens: int) -> int:
    """The prompt-length histogram's upper bound that counts prompts of this length."""
    return min(x for x in _PROMPT_BUCKETS if x >= prompt_tokens)


def _draw_eviction(b: _Builder, history_first: bool = True) -> dict[str, Any]:
    rng = b.rng
    shared = _logu(rng, 2 * BLOCK_SIZE, 1024)
    shared_prompt = shared + rng.randint(16, 192)
    shared_output = rng.randint(4, 24)
    boundary = prompt_bound(shared_prompt)
    # Unique long prompts that fill the pool between two uses of the shared prefix.
    pressure_prompt = _logu(rng, boundary + 1, max(boundary + 2, 3 * boundary))
    pressure_output = rng.randint(8, 32)
    pressure_conc = rng.randint(2, 4)
    per_seq = pressure_prompt + pressure_output
    # Every running sequence fits at once (nothing waits for KV blocks: that would be KV
    # admission, another cause), but unique prompts keep allocating: vLLM reclaims free blocks
    # least recently used first, so a shared prefix whose next use is further away than the
    # pool's turnover is evicted before reuse. The shared stream arrives at random gaps of
    # seconds (Poisson), while the pressure allocates the pool's size many times a second.
    fill = rng.uniform(0.55, 0.9)
    demand = pressure_conc * per_seq + shared_prompt + shared_output
    pool_target = max(math.ceil(demand / fill), math.ceil(per_seq / 0.6))
    blocks, pool = b.blocks_for(pool_target)
    max_model_len = min(pool, _round_up(per_seq + 1, BLOCK_SIZE))
    max_model_len = max(max_model_len, per_seq)
    max_num_seqs = rng.randint(pressure_conc + 2, 16)
    chunked, budget, bargs = b.batching(max_model_len)
    docs = rng.choice((1, 1, 2))
    shared_rate = round(rng.uniform(0.2, 1.0), 2)
    phases = [
        Phase(
            _spec(
                prompt_tokens=shared_prompt,
                max_tokens=shared_output,
                concurrency=1,
                rate_per_s=shared_rate,
                prefix="shared",
                shared_prefix_tokens=shared,
            )
        )
        for _ in range(docs)
    ]
    # The past: the shared stream alone, hitting its cached prefix, before the pressure came.
    history = [
        Phase(
            _spec(
                prompt_tokens=shared_prompt,
                max_tokens=shared_output,
                concurrency=1,
                duration_s=round(rng.uniform(15.0, 30.0), 1),
                prefix="shared",
                shared_prefix_tokens=shared,
            )
        )
        for _ in range(docs)
    ]
    phases.append(
        Phase(
            _spec(
                prompt_tokens=pressure_prompt, max_tokens=pressure_output, concurrency=pressure_conc
            )
        )
    )
    b.why.append(
        f"pool {blocks} blocks = {pool} tokens; {pressure_conc} unique {pressure_prompt}-token "
        f"prompts fill {pressure_conc * per_seq / pool:.2f}x of it while {docs} stream(s) reuse "
        f"a {shared}-token prefix ({shared_prompt}-token prompts, under the {boundary} bucket) "
        f"at {shared_rate}/s; "
        + (
            f"before the window the shared stream ran alone ({history[0].spec.duration_s:g} s)"
            if history_first
            else "no history: the pressure is there from the first request"
        )
    )
    if not history_first:
        history = []
    return {
        "engine_args": _pool_args(blocks, max_model_len, max_num_seqs, bargs),
        "kv_cache_space_gib": b.space_gib(BLOCK_SIZE * blocks),
        "pool_tokens": pool,
        "phases": phases,
        "arrival": "closed",
        "sharing": "shared" if docs == 1 else "many-documents",
        "chunked": chunked,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": True,
        "history": history,
        "control": Control(
            "evicted",
            max_num_seqs,
            cacheable_shared_tokens=(shared // BLOCK_SIZE) * BLOCK_SIZE,
            shared_prompt_range=(shared_prompt, boundary),
            shared_tokens=shared,
            prior_hits=history_first,
        ),
    }


def _draw_healthy(b: _Builder, shared_traffic: bool, long_prompts: bool = False) -> dict[str, Any]:
    rng = b.rng
    concurrency = rng.randint(1, 3)
    # Long: prompts of two blocks or more that share nothing (0 % hits the metrics cannot
    # tell from drift).
    prompt = _logu(rng, 2 * BLOCK_SIZE + 32, 1024) if long_prompts else _logu(rng, 64, 1024)
    output = rng.randint(16, 128)
    docs = 1
    if shared_traffic:
        shared = _logu(rng, min(2 * BLOCK_SIZE, prompt), prompt) if prompt >= 2 * BLOCK_SIZE else 0
        if shared == 0:
            prompt = _logu(rng, 2 * BLOCK_SIZE + 32, 1024)
            shared = _logu(rng, 2 * BLOCK_SIZE, prompt - 16)
        shared = min(shared, prompt - 8)
        mode = "shared"
        docs = rng.choice((1, 1, 2, 3))
        sharing = "shared" if docs == 1 else "many-documents"
    else:
        shared, mode, sharing = 0, "unique", "none"
    max_model_len = rng.choice((2048, 4096, 8192))
    max_num_seqs = rng.randint(max(4, 2 * docs * concurrency), 64)
    gib, _pool = b.roomy_pool(docs * concurrency * (prompt + output))
    chunked, budget, bargs = b.batching(max_model_len, min_budget=prompt + 1)
    arrival = rng.choice(("closed", "poisson"))
    phases: list[Phase] = []
    for _ in range(docs):
        phases += _arrival_spec(
            rng,
            arrival,
            concurrency,
            prompt_tokens=prompt,
            max_tokens=output,
            prefix=mode,
            shared_prefix_tokens=shared,
        )
    b.why.append(
        f"{docs} stream(s) x {concurrency} of {prompt}-token prompts "
        f"({'sharing ' + str(shared) + ' tokens' if shared else 'nothing shared'}), "
        f"{output} output tokens, {max_num_seqs} slots"
    )
    return {
        "engine_args": [
            "--max-model-len",
            str(max_model_len),
            "--max-num-seqs",
            str(max_num_seqs),
            *bargs,
        ],
        "kv_cache_space_gib": gib,
        "pool_tokens": None,
        "phases": phases,
        "arrival": arrival,
        "sharing": sharing,
        "chunked": chunked,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "budget": budget,
        "load_during_reproducers": False,
        "control": Control(
            "healthy",
            max_num_seqs,
            cacheable_shared_tokens=(shared // BLOCK_SIZE) * BLOCK_SIZE,
            shared_prompt_range=(prompt, prompt),
            shared_tokens=shared,
        ),
    }


def draw(seed: int, index: int) -> Draw:
    """Draw ``index`` of ``seed``: a class and all of its parameters (pure, deterministic)."""
    klass = _class_for(seed, index)
    rng = random.Random(f"kvdoctor-accuracy:{seed}:{index}")
    b = _Builder(rng, _geometry(rng))
    if klass == "kv-capacity":
        d = _draw_kv_capacity(b)
    elif klass == "queueing":
        d = _draw_queueing(b)
    elif klass == "long-prefill-hol":
        d = _draw_long_prefill_hol(b)
    elif klass in ("eviction-churn", "eviction-fresh"):
        d = _draw_eviction(b, history_first=klass == "eviction-churn")
    elif klass in ("healthy", "healthy-unshared", "healthy-unshared-long"):
        d = _draw_healthy(
            b, shared_traffic=klass == "healthy", long_prompts=klass == "healthy-unshared-long"
        )
    else:
        d = _draw_prefix(b, klass)
    symptom, cause = TRUTH[klass]
    return Draw(
        seed=seed,
        index=index,
        klass=klass,
        symptom=symptom,
        cause=cause,
        geometry=b.geometry,
        engine_args=tuple(d["engine_args"]),
        kv_cache_space_gib=int(d["kv_cache_space_gib"]),
        phases=tuple(d["phases"]),
        arrival=str(d["arrival"]),
        sharing=str(d["sharing"]),
        chunked_prefill=bool(d["chunked"]),
        max_num_seqs=int(d["max_num_seqs"]),
        max_model_len=int(d["max_model_len"]),
        max_num_batched_tokens=int(d["budget"]),
        pool_tokens=d["pool_tokens"],
        load_during_reproducers=bool(d["load_during_reproducers"]),
        control=d["control"],
        derivation=tuple(b.why),
        history=tuple(d.get("history", ())),
    )


# --------------------------------------------------------------------------- the control


@dataclass(frozen=True)
class WindowMetrics:
    """The server's own numbers over a window: counter deltas, gauge maxima (all engines)."""

    scrapes: int
    finished: float
    preemptions: float
    prefix_queries: float
    prefix_hits: float
    ttft_sum: float
    ttft_count: float
    queue_sum: float
    queue_count: float
    itl_sum: float
    itl_count: float
    running_max: float
    waiting_max: float
    kv_usage_max: float
    # Cumulative histogram deltas, upper bound (le) -> requests: prompt length and TTFT.
    prompt_buckets: Mapping[float, float]
    ttft_buckets: Mapping[float, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "scrapes": self.scrapes,
            "finished": self.finished,
            "preemptions": self.preemptions,
            "prefix_queries": self.prefix_queries,
            "prefix_hits": self.prefix_hits,
            "ttft_mean_s": _ratio(self.ttft_sum, self.ttft_count),
            "queue_mean_s": _ratio(self.queue_sum, self.queue_count),
            "queue_share": _ratio(self.queue_sum, self.ttft_sum),
            "itl_mean_s": _ratio(self.itl_sum, self.itl_count),
            "running_max": self.running_max,
            "waiting_max": self.waiting_max,
            "kv_usage_max": self.kv_usage_max,
        }


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


# The lab's vLLM (0.32) exposes the current names: counters with ``_total``, histograms as
# ``_sum``/``_count``/``_bucket`` (names from the one table, kvdoctor.vllm_metrics).
_COUNTERS = {
    "finished": f"{REQUEST_SUCCESS}_total",
    "preemptions": f"{PREEMPTIONS}_total",
    "prefix_queries": f"{PREFIX_QUERIES}_total",
    "prefix_hits": f"{PREFIX_HITS}_total",
    "ttft_sum": f"{TTFT}_sum",
    "ttft_count": f"{TTFT}_count",
    "queue_sum": f"{QUEUE_TIME}_sum",
    "queue_count": f"{QUEUE_TIME}_count",
    "itl_sum": f"{ITL}_sum",
    "itl_count": f"{ITL}_count",
}
_GAUGES = {
    "running_max": RUNNING,
    "waiting_max": WAITING,
    "kv_usage_max": KV_USAGE,
}
_HISTOGRAMS = {
    f"{REQUEST_PROMPT_TOKENS}_bucket": "prompt",
    f"{TTFT}_bucket": "ttft",
}


Buckets = dict[str, dict[float, float]]


def _totals(text: str) -> tuple[dict[str, float], dict[str, float], Buckets]:
    counters: dict[str, float] = {}
    gauges: dict[str, float] = {}
    buckets: Buckets = {"prompt": {}, "ttft": {}}
    by_name = {v: k for k, v in _COUNTERS.items()}
    gauge_names = {v: k for k, v in _GAUGES.items()}
    for s in parse(text, prefixes=("vllm:",)):
        if s.name in by_name:
            key = by_name[s.name]
            counters[key] = counters.get(key, 0.0) + s.value
        elif s.name in gauge_names:
            key = gauge_names[s.name]
            gauges[key] = gauges.get(key, 0.0) + s.value
        elif s.name in _HISTOGRAMS:
            le = dict(s.labels).get("le", "")
            bound = math.inf if le == "+Inf" else float(le)
            h = buckets[_HISTOGRAMS[s.name]]
            h[bound] = h.get(bound, 0.0) + s.value
    return counters, gauges, buckets


def window_metrics(texts: Sequence[str]) -> WindowMetrics:
    """Counter deltas between the first and last scrape, gauge maxima over all of them.

    ``request_success_total`` has a ``finished_reason`` label per reason; the sum over labels
    and engines is what is compared. A counter that went down (a restart) counts from zero.
    """
    parsed = [_totals(t) for t in texts]
    empty: Buckets = {"prompt": {}, "ttft": {}}
    first_c, _, first_b = parsed[0] if parsed else ({}, {}, empty)
    last_c, _, last_b = parsed[-1] if parsed else ({}, {}, empty)

    def delta(key: str) -> float:
        a, b = first_c.get(key, 0.0), last_c.get(key, 0.0)
        return b - a if b >= a else b

    def gmax(key: str) -> float:
        return max((g.get(key, 0.0) for _, g, _ in parsed), default=0.0)

    def hdelta(name: str) -> dict[float, float]:
        a, b = first_b[name], last_b[name]
        return {
            le: b[le] - a.get(le, 0.0) if b[le] >= a.get(le, 0.0) else b[le] for le in sorted(b)
        }

    return WindowMetrics(
        scrapes=len(texts),
        prompt_buckets=hdelta("prompt"),
        ttft_buckets=hdelta("ttft"),
        **{k: delta(k) for k in _COUNTERS},
        **{k: gmax(k) for k in _GAUGES},
    )


@dataclass(frozen=True)
class ControlResult:
    ok: bool
    why: str
    measured: dict[str, Any]


def also_right(klass: str, measured: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The other face of ``klass``'s mechanism, when the window shows its harm (OTHER_FACE)."""
    face = OTHER_FACE.get(klass)
    ratio = measured.get("itl_ratio")
    if face is None or not isinstance(ratio, int | float) or ratio < SLOW_FACTOR:
        return ()
    return (face,)


def _requests_in(buckets: Mapping[float, float], lo: float, hi: float) -> float:
    """Requests in (largest bucket bound < lo, smallest bound >= hi] of a cumulative histogram."""
    bounds = sorted(buckets)
    upper = [b for b in bounds if b >= hi]
    lower = [b for b in bounds if b < lo]
    if not upper or hi <= 0:
        return 0.0
    below = buckets[lower[-1]] if lower else 0.0
    return buckets[upper[0]] - below


def _above(buckets: Mapping[float, float], value: float) -> float:
    """Requests above the smallest bucket bound >= ``value`` (a lower bound on those > value)."""
    bounds = sorted(buckets)
    upper = [b for b in bounds if b >= value]
    if not upper:
        return 0.0
    return buckets.get(math.inf, 0.0) - buckets[upper[0]]


def _shared_requests(m: WindowMetrics, lo: int, hi: int) -> float:
    return _requests_in(m.prompt_buckets, lo, hi)


# Thresholds of the controls, in units of the draw's own baseline or of physical limits; they
# define "the symptom happened", independently of kvdoctor's rule thresholds.
SLOW_FACTOR = 3.0  # a latency this many times the single-request baseline is user-visible harm
QUEUE_SHARE = 0.5  # half of TTFT spent waiting for admission
DELAYED_SHARE = 0.2  # a fifth of the short requests stalled is user-visible
FULL_POOL = 0.9
MIN_FINISHED = 3


def check_control(
    control: Control, texts: Sequence[str], baseline: Mapping[str, Any]
) -> ControlResult:
    """Did the draw produce its symptom (or, for healthy classes, none)? From metrics only.

    ``texts`` are the raw /metrics expositions of the capture window, in order; ``baseline``
    holds ``ttft_s`` and ``itl_s``: the server's own means for single short requests measured
    in the same draw before the workload started.
    """
    m = window_metrics(texts)
    c = control
    measured: dict[str, Any] = m.to_json()
    base_ttft = _num(baseline.get("ttft_s"))
    base_itl = _num(baseline.get("itl_s"))
    measured["baseline_ttft_s"] = base_ttft
    measured["baseline_itl_s"] = base_itl
    itl_mean = _ratio(m.itl_sum, m.itl_count)
    queue_share = _ratio(m.queue_sum, m.ttft_sum) or 0.0
    itl_ratio = itl_mean / base_itl if itl_mean is not None and base_itl else None
    measured["itl_ratio"] = itl_ratio
    hit_rate = _ratio(m.prefix_hits, m.prefix_queries) or 0.0
    measured["hit_rate"] = hit_rate
    shared_n = _shared_requests(m, *c.shared_prompt_range) if c.cacheable_shared_tokens else 0.0
    retention = (
        m.prefix_hits / (shared_n * c.cacheable_shared_tokens)
        if shared_n > 0 and c.cacheable_shared_tokens
        else None
    )
    measured["shared_requests"] = shared_n
    measured["retention"] = retention

    def result(ok: bool, why: str) -> ControlResult:
        return ControlResult(ok, why, measured)

    # Head-of-line draws whose short requests never got through (only the long ones finished,
    # the rest waiting all window) show their symptom at its worst, not a traffic failure
    # (dev draw 1001-1: 11k-token prefills, 2 requests finished, requests waiting throughout).
    starved = c.kind == "hol" and m.waiting_max >= 1 and m.finished >= 1
    if m.scrapes < 2 or (m.finished < MIN_FINISHED and not starved):
        return result(False, f"traffic did not run: {m.finished:g} requests finished in the window")
    if c.prior_hits:
        # The history must have hit before the window (the first scrape's lifetime counters).
        first, _, _ = _totals(texts[0])
        prior = _ratio(first.get("prefix_hits", 0.0), first.get("prefix_queries", 0.0)) or 0.0
        measured["prior_hit_rate"] = prior
        if prior <= 0.0:
            return result(False, "the history shared a prefix but nothing hit before the window")
    if c.kind == "preemption":
        return result(m.preemptions > 0, f"{m.preemptions:g} preemptions in the window")
    if c.kind == "queueing":
        ok = (
            queue_share >= QUEUE_SHARE
            and m.waiting_max >= 1
            and m.running_max >= c.max_num_seqs
            and m.kv_usage_max < FULL_POOL
        )
        return result(
            ok,
            f"queue share of TTFT {queue_share:.2f} (>= {QUEUE_SHARE}), waiting max "
            f"{m.waiting_max:g}, running max {m.running_max:g} of {c.max_num_seqs} slots, "
            f"KV usage max {m.kv_usage_max:.2f} (< {FULL_POOL})",
        )
    if c.kind == "hol":
        # The short requests' TTFT against the single-request baseline. vLLM's queue-time
        # histogram does not see this wait (a request that arrives during a long prefill step
        # reaches the scheduler after it; dev draw 1000-6 measured 0.000 s), TTFT does. Every
        # long request is counted as slow, so what remains is a lower bound on delayed shorts.
        short_n = _requests_in(m.prompt_buckets, *c.short_prompt_range)
        long_n = _above(m.prompt_buckets, c.short_prompt_range[1])
        slow_n = _above(m.ttft_buckets, SLOW_FACTOR * base_ttft) if base_ttft else 0.0
        delayed = max(0.0, slow_n - long_n) / short_n if short_n > 0 else 0.0
        if short_n == 0 and m.waiting_max >= 1:
            # No short request finished in the window although they are offered all along and
            # requests waited with free slots and free KV: every one of them was stalled past
            # the window (fresh draw 5000-3: two 8,275-token prompts kept the queue's head).
            delayed = 1.0
        measured["short_requests"] = short_n
        measured["short_delayed_share"] = delayed
        ok = (
            delayed >= DELAYED_SHARE
            and m.running_max < c.max_num_seqs
            and m.kv_usage_max < FULL_POOL
        )
        return result(
            ok,
            f"{delayed:.2f} of {short_n:g} short requests waited >= {SLOW_FACTOR}x the "
            f"single-request TTFT of {base_ttft or 0:.3f} s (>= {DELAYED_SHARE}), running max "
            f"{m.running_max:g} < {c.max_num_seqs} slots, KV usage max {m.kv_usage_max:.2f}",
        )
    if c.kind == "no-hits":
        ok = c.shared_tokens > 0 and hit_rate < 0.05
        return result(
            ok,
            f"prefix hit rate {hit_rate:.3f} (< 0.05) while every request shares "
            f"{c.shared_tokens} tokens",
        )
    if c.kind == "evicted":
        # The symptom only: hits far below what the shared stream offers. Caching is on, the
        # prefix spans whole blocks and nothing drifts (by construction), so what is left is
        # the pressure the draw builds. The KV usage gauge is not required: sampled once per
        # interval it misses the peaks (0.85 seen while sequences were being evicted).
        ok = retention is not None and retention < 0.5
        return result(
            ok,
            f"hits cover {retention if retention is not None else float('nan'):.2f} of the "
            f"{c.cacheable_shared_tokens} cacheable shared tokens of {shared_n:g} requests "
            f"(< 0.5); KV usage max {m.kv_usage_max:.2f}",
        )
    if c.kind == "itl-ratio":
        ok = itl_ratio is not None and itl_ratio >= SLOW_FACTOR and m.preemptions == 0
        return result(
            ok,
            f"mean ITL {itl_mean or 0:.4f} s = {itl_ratio or 0:.1f}x the single-request "
            f"baseline (>= {SLOW_FACTOR}x), {m.preemptions:g} preemptions",
        )
    # healthy: none of the symptoms happened.
    problems = []
    if m.preemptions > 0:
        problems.append(f"{m.preemptions:g} preemptions")
    if queue_share >= 0.2 and m.waiting_max >= 1:
        problems.append(f"queue share of TTFT {queue_share:.2f}")
    if itl_ratio is not None and itl_ratio >= SLOW_FACTOR:
        problems.append(f"ITL {itl_ratio:.1f}x the baseline")
    if c.cacheable_shared_tokens and (retention is None or retention < 0.5):
        problems.append(f"shared prefix retention {retention}")
    return result(not problems, "; ".join(problems) or "no symptom in the window")
