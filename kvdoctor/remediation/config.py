"""The engine configuration the server in front of us runs with: flags as given plus defaults.

Advice is for the server in front of you (docs/troubleshooting.md): a suggestion must start
from the flags this server was started with (``engine_args.json``), what it reports about itself
(``vllm:cache_config_info`` through the signals) and, for flags nobody set, the defaults of the
detected vLLM version. Facts below are read from vLLM 0.32's ``engine/arg_utils.py``,
``config/scheduler.py``, ``config/cache.py`` and ``platforms/cpu.py`` (the lab's build).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

from kvdoctor.bundle.model import Bundle, Manifest
from kvdoctor.kvmath import KvModel
from kvdoctor.kvmath.capacity import (
    CPU_DEFAULT_BATCHED_TOKENS,
    CPU_DEFAULT_BLOCK_SIZE,
    CPU_DEFAULT_MAX_NUM_SEQS,
    GPU_DEFAULT_BATCHED_TOKENS,
    GPU_DEFAULT_MAX_NUM_SEQS,
    held_tokens,
    pool_capacity,
)
from kvdoctor.kvmath.section import KvSection
from kvdoctor.signals.locker import blocks_override
from kvdoctor.signals.model import Scalar, SignalSet

Platform = Literal["cpu", "gpu"]
FlagValue = int | float | str | bool

# Boolean flags vLLM 0.32 declares with argparse.BooleanOptionalAction: "--no-X" turns X off.
BOOL_FLAGS: tuple[str, ...] = (
    "enable-prefix-caching",
    "enable-chunked-prefill",
    "enforce-eager",
)
# Spellings of one flag (0.32 accepts --device-memory-utilization for --gpu-memory-utilization);
# advice names a flag the way the server's own command line spells it.
ALIASES: dict[str, str] = {"device-memory-utilization": "gpu-memory-utilization"}

# vLLM 0.32 defaults for the OpenAI server (UsageContext.OPENAI_API_SERVER): the batch defaults
# are kvmath.capacity's (the smallest per platform here, where the device may not be known).
DEFAULT_GPU_MEMORY_UTILIZATION = 0.92  # CacheConfig.gpu_memory_utilization
_GIB = 1 << 30


# Flags the server can report itself (the signal that carries the value), and so known without
# its command line.
_REPORTED: tuple[tuple[str, str], ...] = (
    ("block-size", "block_size"),
    ("kv-cache-dtype", "cache_dtype"),
    ("enable-prefix-caching", "prefix_caching"),
    ("gpu-memory-utilization", "gpu_memory_utilization"),
    ("max-model-len", "max_model_len"),
    ("max-num-seqs", "max_num_seqs"),
    ("max-num-batched-tokens", "max_num_batched_tokens"),
)


def canonical_flag(name: str) -> str:
    """``max_num_seqs`` / ``--max-num-seqs`` / an alias → ``max-num-seqs``."""
    flag = name.lstrip("-").replace("_", "-")
    return ALIASES.get(flag, flag)


def normalize_args(raw: dict[str, object]) -> dict[str, FlagValue]:
    """Flags as vLLM would read them: ``no-X: true`` becomes ``X: false``; aliases resolved."""
    out: dict[str, FlagValue] = {}
    for key in sorted(raw):
        value = raw[key]
        flag = canonical_flag(key)
        if flag.startswith("no-") and flag[3:] in BOOL_FLAGS:
            if value is True or value == "true":
                out[flag[3:]] = False
            continue
        if isinstance(value, bool | int | float | str):
            out[flag] = value
        elif isinstance(value, dict):
            # JSON-valued flags (--limit-mm-per-prompt, --compilation-config) as vLLM's command
            # line takes them.
            out[flag] = json.dumps(value, sort_keys=True, separators=(", ", ": "))
    return out


def _int(v: object) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if math.isfinite(v) and v.is_integer() else None
    try:
        return int(str(v))
    except ValueError:
        return None


def _float(v: object) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(str(v)) if not isinstance(v, int | float) else float(v)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def _bool(v: object) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    return None


class EngineConfig(NamedTuple):
    """Effective settings of one server, each with whether the operator set it explicitly."""

    version: str | None
    platform: Platform
    args: dict[str, FlagValue]  # explicit flags (normalized), what "remove X" can undo
    spelled: dict[str, str]  # canonical flag -> how the server's command line spells it
    max_model_len: int | None
    max_num_seqs: int
    max_num_batched_tokens: int | None
    enable_chunked_prefill: bool
    enable_prefix_caching: bool
    kv_cache_dtype: str
    block_size: int | None
    num_gpu_blocks: int | None
    num_gpu_blocks_override: int | None
    gpu_memory_utilization: float
    long_prefill_token_threshold: int
    tensor_parallel_size: int
    max_position_embeddings: int | None
    kv_cache_memory_bytes: int | None  # what the pool's memory budget is (reported)
    bytes_per_token: int | None
    gpu_count: int | None = None  # devices NVML saw (None: not sampled)
    capacity_tokens: int | None = None  # the pool's tokens as the signals state it
    # KV cache groups the engine's stated pool is divided by (hybrid allocator; signals'
    # kv_pool_groups): blocks / groups × block size is the pool as the engine counts it.
    kv_groups: int = 1
    # The model's layer mix (None without a model config): what a sequence of a given length
    # holds of a pool counted in groups (held_tokens).
    layer_mix: KvModel | None = None
    # Read-only and shared: a NamedTuple default is one object for every instance.
    extra: Mapping[str, Scalar] = MappingProxyType({})
    # Flags whose current value the bundle states: given on the command line, reported by the
    # server (cache_config_info, /v1/models), or left at vLLM's default on a recorded full
    # command line. Any other value above is vLLM's default, a guess: history from Prometheus
    # has no process arguments, so advice never quotes it as the server's value.
    known: frozenset[str] = frozenset()

    def held_tokens(self, tokens: int) -> float:
        """Pool tokens, as pool_tokens counts them, that one sequence of ``tokens`` holds."""
        if self.layer_mix is None or not self.block_size or tokens <= 0:
            return float(tokens)
        return held_tokens(self.layer_mix, tokens, self.block_size, self.kv_groups)

    def is_set(self, flag: str) -> bool:
        return canonical_flag(flag) in self.args

    def knows(self, flag: str) -> bool:
        """Whether the bundle states this flag's current value (not a default assumed)."""
        return canonical_flag(flag) in self.known

    def spell(self, flag: str) -> str:
        c = canonical_flag(flag)
        return "--" + self.spelled.get(c, c)

    @property
    def pool_tokens(self) -> int | None:
        # The pool these flags give (the planner compares it before and after an edit), by
        # the one capacity function; blocks × block size, as vLLM allocates it, over the KV
        # cache groups each block pages for when the engine states its pool that way.
        blocks = self.num_gpu_blocks
        if blocks is not None and self.kv_groups > 1:
            blocks //= self.kv_groups
        tokens = pool_capacity(block_size=self.block_size, num_gpu_blocks=blocks)
        return tokens.tokens if tokens.tokens is not None else self.capacity_tokens


def _detect_platform(args: dict[str, FlagValue], block_size: int | None, logs: str) -> Platform:
    # vLLM 0.32 picks 128-token blocks on the CPU backend when the operator did not choose,
    # 16 elsewhere: a 128-token pool without a --block-size flag is the CPU build.
    if "block-size" not in args and block_size == CPU_DEFAULT_BLOCK_SIZE:
        return "cpu"
    # A server that never started reports no pool, but its log names the CPU platform module.
    if "[cpu.py:" in logs:
        return "cpu"
    if "device" in args and str(args["device"]).lower() == "cpu":
        return "cpu"
    return "gpu"


def config_from_signals(signals: SignalSet) -> EngineConfig:
    """The configuration the signals alone describe (no command line, no model config): what
    the rule cases, given as signal sets, are planned against, as a report plans a bundle."""

    bundle = Bundle(
        manifest=Manifest(
            created_by="signals", endpoint="signals", started_at=0.0, ended_at=0.0, interval_s=1.0
        ),
        scrapes=[],
    )
    kv = KvSection(
        block_size=_int(signals.get("block_size")),
        num_gpu_blocks=_int(signals.get("num_gpu_blocks")),
        bytes_per_token=_int(signals.get("kv_bytes_per_token")),
    )
    return engine_config(bundle, signals, kv)


def engine_config(bundle: Bundle, signals: SignalSet, kv: KvSection) -> EngineConfig:
    """The effective configuration: explicit flags, then reported values, then defaults."""
    raw: dict[str, object] = dict(bundle.engine_args.args) if bundle.engine_args else {}
    args = normalize_args(raw)
    spelled: dict[str, str] = {}
    for key in raw:
        flag = key.lstrip("-").replace("_", "-")
        base = flag[3:] if flag.startswith("no-") and flag[3:] in BOOL_FLAGS else flag
        spelled[canonical_flag(base)] = base
    get = signals.get

    def arg_or(flag: str, signal: str) -> object:
        return args[flag] if flag in args else get(signal)

    block_size = _int(get("block_size")) or _int(args.get("block-size")) or _int(kv.block_size)
    platform = _detect_platform(args, block_size, bundle.logs or "")
    if block_size is None and platform == "cpu":
        block_size = _int(args.get("block-size")) or CPU_DEFAULT_BLOCK_SIZE
    tp = _int(args.get("tensor-parallel-size")) or 1
    chunked = _bool(args.get("enable-chunked-prefill"))
    # vLLM 0.32 enables chunked prefill by default for models that support it (decoder LLMs).
    enable_chunked = True if chunked is None else chunked
    prefix = _bool(get("prefix_caching"))
    if prefix is None:
        prefix = _bool(args.get("enable-prefix-caching"))
    default_seqs = (
        CPU_DEFAULT_MAX_NUM_SEQS if platform == "cpu" else GPU_DEFAULT_MAX_NUM_SEQS
    ) * tp
    max_num_seqs = _int(arg_or("max-num-seqs", "max_num_seqs")) or default_seqs
    max_model_len = _int(get("max_model_len")) or _int(args.get("max-model-len"))
    mnbt = _int(arg_or("max-num-batched-tokens", "max_num_batched_tokens"))
    if mnbt is None:
        mnbt = (
            CPU_DEFAULT_BATCHED_TOKENS if platform == "cpu" else GPU_DEFAULT_BATCHED_TOKENS
        ) * tp
        if not enable_chunked and max_model_len is not None:
            # arg_utils: without chunked prefill the default budget is raised to max_model_len.
            mnbt = max(mnbt, max_model_len)
    dtype = get("cache_dtype")
    cache_dtype = str(args.get("kv-cache-dtype", dtype if isinstance(dtype, str) else "auto"))
    gmu = _float(arg_or("gpu-memory-utilization", "gpu_memory_utilization"))
    mc = bundle.model_config_raw or {}
    mpe = _int(mc.get("max_position_embeddings")) if isinstance(mc, dict) else None
    known = set(args)
    full_argv = bundle.engine_args is not None and bundle.engine_args.argv is not None
    for flag, signal in _REPORTED:
        if full_argv or get(signal) is not None:
            known.add(flag)

    return EngineConfig(
        version=str(get("vllm_version")) if get("vllm_version") is not None else None,
        platform=platform,
        args=args,
        spelled=spelled,
        max_model_len=max_model_len,
        max_num_seqs=max_num_seqs,
        max_num_batched_tokens=mnbt,
        enable_chunked_prefill=enable_chunked,
        enable_prefix_caching=True if prefix is None else prefix,
        kv_cache_dtype=cache_dtype,
        block_size=block_size,
        num_gpu_blocks=_int(get("num_gpu_blocks")) or _int(kv.num_gpu_blocks),
        num_gpu_blocks_override=blocks_override(bundle),
        gpu_memory_utilization=gmu if gmu is not None else DEFAULT_GPU_MEMORY_UTILIZATION,
        long_prefill_token_threshold=_int(args.get("long-prefill-token-threshold")) or 0,
        tensor_parallel_size=tp,
        max_position_embeddings=mpe,
        kv_cache_memory_bytes=_int(get("kv_cache_memory_bytes")),
        bytes_per_token=_int(kv.bytes_per_token),
        gpu_count=max((len(g.devices) for g in bundle.gpu), default=None) if bundle.gpu else None,
        capacity_tokens=_int(get("kv_capacity_tokens")),
        kv_groups=_int(get("kv_pool_groups")) or 1,
        layer_mix=_layer_mix(bundle),
        known=frozenset(known),
    )


def _layer_mix(bundle: Bundle) -> KvModel | None:
    if bundle.model_config_raw is None:
        return None
    try:
        return KvModel.from_hf_config(bundle.model_config_raw)
    except Exception:  # the model config is untrusted input of any shape; the KV math says why
        return None


def gib(n: float) -> float:
    return n / _GIB
