"""vLLM's own start-up constraints on a set of flags, in one place.

Every flag set the planner suggests passes :func:`problems`; a change that would fail is never
shown. The facts come from vLLM 0.32 (the lab's build) and are proven against it in the lab tier
(``tests/lab/test_remediation_lab.py`` has the real ``EngineArgs.create_engine_config`` accept
each plan and refuse the known-bad sets):

- ``SchedulerConfig.verify_max_model_len``: without chunked prefill ``max_num_batched_tokens``
  must be ≥ ``max_model_len``; ``max_num_batched_tokens`` ≥ ``max_num_seqs``;
  ``long_prefill_token_threshold`` ≤ ``max_model_len``.
- ``CacheConfig``: ``0 < gpu_memory_utilization ≤ 1``; ``block_size > 0``; ``cache_dtype`` one of
  a fixed list.
- ``ModelConfig``: ``max_model_len`` ≤ the model's ``max_position_embeddings``.
- Engine start-up (KV cache sizing): ``max_model_len`` must fit in the pool, else "the
  estimated maximum model length is N" and the server exits.
- Backends: the CPU backend works in multiples of 32 tokens per block (other sizes log "not
  optimized"); GPU attention kernels take multiples of 16.
- kvdoctor's own rule on top: ``--long-prefill-token-threshold`` acts only under chunked
  prefill (vLLM accepts it without, where it does nothing: a no-op, never suggested).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal, NamedTuple

from kvdoctor.kvmath.model import KV_DTYPES, kv_dtype_bytes
from kvdoctor.remediation.config import (
    BOOL_FLAGS,
    EngineConfig,
    FlagValue,
    canonical_flag,
    normalize_args,
)

Action = Literal["remove", "set", "raise", "lower"]

# The dtypes --kv-cache-dtype accepts: the KV math's one table (4-bit and scaled formats too).
KV_CACHE_DTYPES: frozenset[str] = frozenset(KV_DTYPES)
# Flags that describe where the server listens or what it serves, not how it runs: dropped from
# the argument lists kvdoctor validates (they need a host or a model path of this machine).
SERVER_ONLY: frozenset[str] = frozenset(
    {"host", "port", "model", "served-model-name", "api-key", "ssl-keyfile", "ssl-certfile"}
)


class Edit(NamedTuple):
    """One flag edit: remove a flag, or give it a value (set / raise / lower)."""

    action: Action
    flag: str  # canonical, without dashes
    before: FlagValue | None
    after: FlagValue | None  # None for "remove"


def apply(args: dict[str, FlagValue], edits: tuple[Edit, ...]) -> dict[str, FlagValue]:
    out = dict(args)
    for e in edits:
        flag = canonical_flag(e.flag)
        if e.action == "remove":
            out.pop(flag, None)
        else:
            assert e.after is not None
            out[flag] = e.after
    return dict(sorted(out.items()))


def to_argv(args: dict[str, FlagValue]) -> list[str]:
    """vLLM command-line flags for ``args`` (booleans as ``--X`` / ``--no-X``)."""
    argv: list[str] = []
    for flag, value in sorted(args.items()):
        if flag in SERVER_ONLY:
            continue
        if isinstance(value, bool):
            if flag in BOOL_FLAGS:
                argv.append(f"--{flag}" if value else f"--no-{flag}")
            elif value:
                argv.append(f"--{flag}")
            continue
        argv += [f"--{flag}", str(value)]
    return argv


def parse_flags(argv: Sequence[str]) -> dict[str, FlagValue]:
    """``["--max-num-seqs", "4", "--no-enable-prefix-caching"]`` → normalized flags."""
    raw: dict[str, object] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if not tok.startswith("--"):
            i += 1
            continue
        if "=" in tok:
            key, value = tok[2:].split("=", 1)
            raw[key] = _coerce(value)
            i += 1
        elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            raw[tok[2:]] = _coerce(argv[i + 1])
            i += 2
        else:
            raw[tok[2:]] = True
            i += 1
    return normalize_args(raw)


def _coerce(text: str) -> FlagValue:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def edit_flags(argv: Sequence[str], edits: tuple[Edit, ...]) -> list[str]:
    """A server's engine flags with ``edits`` applied, as vLLM command-line flags."""
    return to_argv(apply(parse_flags(argv), edits))


class Settings(NamedTuple):
    """The effective values vLLM would run with for a flag set, on this server."""

    max_model_len: int | None
    max_num_seqs: int
    max_num_batched_tokens: int | None
    enable_chunked_prefill: bool
    long_prefill_token_threshold: int
    gpu_memory_utilization: float
    block_size: int | None
    kv_cache_dtype: str
    pool_tokens: int | None


def _num(v: FlagValue | None) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return float(v)
    except ValueError:
        return None


def _dtype_bytes(dtype: str) -> Fraction:
    # One table for every dtype (a 4-bit cache is half a byte): ``auto`` and names it does
    # not know count as a 16-bit model dtype.
    return kv_dtype_bytes(dtype) or Fraction(2)


def settings(cfg: EngineConfig, args: dict[str, FlagValue]) -> Settings:
    """Effective settings when the server runs with ``args`` instead of ``cfg.args``."""

    def num(flag: str, current: float | None) -> float | None:
        if flag in args:
            return _num(args[flag])
        if cfg.is_set(flag):
            return None  # removed: back to vLLM's default, handled by the caller
        return current

    chunked_v = args.get("enable-chunked-prefill")
    chunked = chunked_v if isinstance(chunked_v, bool) else True
    mml = num("max-model-len", cfg.max_model_len)
    if mml is None and "max-model-len" not in args:
        mml = cfg.max_position_embeddings if cfg.is_set("max-model-len") else cfg.max_model_len
    seqs = num("max-num-seqs", cfg.max_num_seqs)
    seqs_i = int(seqs) if seqs is not None else cfg.max_num_seqs
    if "max-num-batched-tokens" in args:
        mnbt: float | None = _num(args["max-num-batched-tokens"])
    else:
        # vLLM's default budget, raised to max_model_len when chunked prefill is off.
        default = 2048 * cfg.tensor_parallel_size
        mnbt = float(default if chunked or mml is None else max(default, int(mml)))
    lptt = num("long-prefill-token-threshold", 0.0) or 0.0
    gmu = num("gpu-memory-utilization", cfg.gpu_memory_utilization)
    bs = num("block-size", cfg.block_size)
    dtype = str(args.get("kv-cache-dtype", "auto"))
    pool = _pool_tokens(cfg, args, int(bs) if bs else None, dtype)
    return Settings(
        max_model_len=int(mml) if mml is not None else None,
        max_num_seqs=seqs_i,
        max_num_batched_tokens=int(mnbt) if mnbt is not None else None,
        enable_chunked_prefill=chunked,
        long_prefill_token_threshold=int(lptt),
        gpu_memory_utilization=gmu if gmu is not None else cfg.gpu_memory_utilization,
        block_size=int(bs) if bs else None,
        kv_cache_dtype=dtype,
        pool_tokens=pool,
    )


def _pool_tokens(
    cfg: EngineConfig, args: dict[str, FlagValue], block_size: int | None, dtype: str
) -> int | None:
    override = _num(args.get("num-gpu-blocks-override"))
    if override is not None and block_size:
        return int(override) * block_size
    if not cfg.bytes_per_token or not block_size:
        return None
    current_dtype_bytes = _dtype_bytes(cfg.kv_cache_dtype)
    bpt = int(cfg.bytes_per_token * _dtype_bytes(dtype) / current_dtype_bytes)
    memory = cfg.kv_cache_memory_bytes
    if memory is None and cfg.num_gpu_blocks_override is None and cfg.pool_tokens:
        memory = cfg.pool_tokens * cfg.bytes_per_token
    if memory is None:
        return None
    gmu = _num(args.get("gpu-memory-utilization"))
    if gmu is not None and cfg.gpu_memory_utilization > 0 and cfg.platform != "cpu":
        # The budget scales with the utilization (weights and activations aside: a bound).
        memory = int(memory * gmu / cfg.gpu_memory_utilization)
    return (memory // (bpt * block_size)) * block_size


def problems(cfg: EngineConfig, args: dict[str, FlagValue]) -> list[str]:
    """Why vLLM (this version) would refuse to start with ``args``, or why a flag does nothing."""
    s = settings(cfg, args)
    out: list[str] = []
    if not 0 < s.gpu_memory_utilization <= 1:
        out.append(f"--gpu-memory-utilization {s.gpu_memory_utilization} is outside (0, 1]")
    mml = s.max_model_len
    mnbt = s.max_num_batched_tokens
    if mnbt is not None and mml is not None and not s.enable_chunked_prefill and mnbt < mml:
        out.append(
            f"--max-num-batched-tokens {mnbt} is below --max-model-len {mml} "
            "without chunked prefill"
        )
    if mnbt is not None and mnbt < s.max_num_seqs:
        out.append(f"--max-num-batched-tokens {mnbt} is below --max-num-seqs {s.max_num_seqs}")
    if s.max_num_seqs < 1:
        out.append("--max-num-seqs must be at least 1")
    if s.long_prefill_token_threshold:
        if mml is not None and s.long_prefill_token_threshold > mml:
            out.append(
                f"--long-prefill-token-threshold {s.long_prefill_token_threshold} is above "
                f"--max-model-len {mml}"
            )
        if not s.enable_chunked_prefill:
            out.append("--long-prefill-token-threshold acts only with chunked prefill")
    if mml is not None and cfg.max_position_embeddings and mml > cfg.max_position_embeddings:
        out.append(f"--max-model-len {mml} is above the model's {cfg.max_position_embeddings}")
    # A max-model-len request holds less than its length of a pool counted in KV cache groups
    # (sliding-window groups keep only the window's blocks).
    if mml is not None and s.pool_tokens is not None and cfg.held_tokens(mml) > s.pool_tokens:
        out.append(f"--max-model-len {mml} is above the pool's {s.pool_tokens} tokens")
    if s.block_size is not None:
        step = 32 if cfg.platform == "cpu" else 16
        if s.block_size <= 0 or s.block_size % step:
            out.append(f"--block-size {s.block_size} is not a multiple of {step} ({cfg.platform})")
    if s.kv_cache_dtype not in KV_CACHE_DTYPES:
        out.append(f"--kv-cache-dtype {s.kv_cache_dtype} is not a KV cache dtype vLLM knows")
    override = _num(args.get("num-gpu-blocks-override"))
    if override is not None and (override <= 0 or not float(override).is_integer()):
        out.append("--num-gpu-blocks-override must be a positive integer")
    return out
