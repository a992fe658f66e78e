"""Engine configuration signals: ``vllm:cache_config_info`` labels, else the recorded engine
flags, with the converters that read both; the served model and version from server.json."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

from pydantic import JsonValue

from kvdoctor.bundle.argv import parse_argv
from kvdoctor.bundle.model import Bundle, EngineArgs
from kvdoctor.kvmath.capacity import pool_capacity
from kvdoctor.lazyre import LazyPattern
from kvdoctor.observations import Observations
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.model import Scalar
from kvdoctor.vllm_metrics import (
    CACHE_CONFIG_INFO,
)

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def to_int(v: object) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    try:
        f = float(str(v).replace(",", ""))
    except ValueError:
        return None
    return int(f) if math.isfinite(f) and f.is_integer() else None


def to_float(v: object) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(str(v))
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def to_bool(v: object) -> bool | None:
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    return None


def to_str(v: object) -> str | None:
    s = str(v).strip() if v is not None else ""
    return s if s and s != "None" else None


def cache_config_labels(obs: Observations) -> dict[str, str]:
    """Labels of ``vllm:cache_config_info`` at the last scrape carrying it (engine 0 first)."""
    cols = obs.columns.get(CACHE_CONFIG_INFO)
    if not cols:
        return {}
    best: tuple[int, str, dict[str, str]] | None = None
    for labels, col in cols.items():
        last = max((i for i, v in enumerate(col) if v == v), default=-1)
        if last < 0:
            continue
        d = dict(labels)
        key = (last, "" if d.get("engine", "0") == "0" else d.get("engine", ""))
        # The latest scrape wins; among equals, engine "0" (sorted first) wins.
        if best is None or key[0] > best[0] or (key[0] == best[0] and key[1] < best[1]):
            best = (key[0], key[1], d)
    return best[2] if best else {}


# name -> (cache_config_info label, engine flag(s), converter)
_CONFIG: list[tuple[str, str | None, tuple[str, ...], Callable[[object], Scalar]]] = [
    ("block_size", "block_size", ("block-size",), to_int),
    ("num_gpu_blocks", "num_gpu_blocks", ("num-gpu-blocks-override",), to_int),
    ("cache_dtype", "cache_dtype", ("kv-cache-dtype",), to_str),
    ("prefix_caching", "enable_prefix_caching", ("enable-prefix-caching",), to_bool),
    ("gpu_memory_utilization", "gpu_memory_utilization", ("gpu-memory-utilization",), to_float),
    ("max_model_len", None, ("max-model-len",), to_int),
    ("max_num_seqs", None, ("max-num-seqs",), to_int),
    ("max_num_batched_tokens", None, ("max-num-batched-tokens",), to_int),
    ("kv_cache_memory_bytes", "kv_cache_memory_bytes", ("kv-cache-memory-bytes",), to_int),
    ("cpu_offload_gb", "cpu_offload_gb", ("cpu-offload-gb",), to_float),
    ("tensor_parallel_size", None, ("tensor-parallel-size",), to_int),
    ("quantization", None, ("quantization",), to_str),
    ("enforce_eager", None, ("enforce-eager",), to_bool),
    ("lora_enabled", None, ("enable-lora",), to_bool),
    ("max_loras", None, ("max-loras",), to_int),
]


def _engine_arg(args: EngineArgs | None, flags: tuple[str, ...]) -> tuple[JsonValue, str] | None:
    """A flag's value from engine_args.json and whether it came from argv or the user."""
    if args is None:
        return None

    argv_args = parse_argv(args.argv) if args.argv else {}
    for flag in flags:
        for key in (flag, flag.replace("-", "_")):
            if key in args.args:
                value = args.args[key]
                src = "process argv" if argv_args.get(flag) == value else "user-supplied flag"
                return value, src
        if flag.startswith("enable-") and f"no-{flag}" in args.args:
            neg = to_bool(args.args[f"no-{flag}"])
            src = "process argv" if f"no-{flag}" in argv_args else "user-supplied flag"
            return (None if neg is None else not neg), src
    return None


def engine_config(out: Out, obs: Observations, bundle: Bundle) -> dict[str, str]:
    labels = cache_config_labels(obs)
    sources: dict[str, str] = {}
    for name, label, flags, conv in _CONFIG:
        value: Scalar = None
        if label is not None and label in labels:
            value = conv(labels[label])
            if value is not None:
                out.set(name, value, f"metrics: vllm:cache_config_info label {label}")
                sources[name] = "metrics"
                continue
        got = _engine_arg(bundle.engine_args, flags)
        if got is not None:
            value = conv(got[0])
            if value is not None:
                out.set(name, value, f"engine_args: --{flags[0]} ({got[1]})")
                sources[name] = "engine_args"
                continue
        if label is None:
            why = "not exposed in /metrics"
        elif label in labels:
            why = f"vllm:cache_config_info reports {label}={labels[label]!r}"
        else:
            why = "not in vllm:cache_config_info"
        src = "no engine flags recorded" if bundle.engine_args is None else "no such flag given"
        out.set(name, None, reason=f"{why}; {src} (server default unknown)")
    # A recorded full command line runs every flag it does not name at vLLM's default, so these
    # are known, not guessed: no weights offloaded (every release defaults to 0), no LoRA
    # adapter, CUDA graphs captured (the log's engine config line, read later, is the witness
    # where no command line was recorded).
    argv = bundle.engine_args.argv if bundle.engine_args is not None else None
    if argv is not None:
        out.set("flags_complete", True, "engine_args: the full command line")
        defaults: tuple[tuple[str, str, Scalar], ...] = (
            ("cpu_offload_gb", "--cpu-offload-gb", 0.0),
            ("lora_enabled", "--enable-lora", False),
            ("enforce_eager", "--enforce-eager", False),
        )
        for name, flag, default in defaults:
            if out.ss.get(name) is None and not any(a.startswith(flag) for a in argv):
                out.set(name, default, f"engine_args: full command line without {flag}")
    # What the operator asked for, apart from what runs: vLLM turns prefix caching off for
    # models that cannot use it ("Hybrid or mamba-based model detected: disabling prefix
    # caching") although the flag was given.
    asked = _engine_arg(bundle.engine_args, ("enable-prefix-caching",))
    asked_value = to_bool(asked[0]) if asked is not None else None
    out.set(
        "prefix_caching_requested",
        asked_value,
        f"engine_args: --enable-prefix-caching ({asked[1]})" if asked is not None else "",
        reason="no --enable-prefix-caching flag recorded",
    )
    # Capacity: the engine's own figure when it reports one, else blocks × block size.

    # The server's own figures only: the rules and the report add the log's and the model
    # config's (kvdoctor.kvmath.capacity, the one definition) where these are missing.
    bs, nb = out.ss.get("block_size"), out.ss.get("num_gpu_blocks")
    cap = pool_capacity(
        reported=to_int(labels.get("kv_cache_size_tokens")),
        block_size=bs if isinstance(bs, int) else None,
        num_gpu_blocks=nb if isinstance(nb, int) else None,
    )
    if cap.tokens is not None and cap.source is not None:
        out.set("kv_capacity_tokens", cap.tokens, cap.source)
    else:
        out.set("kv_capacity_tokens", None, reason="block_size or num_gpu_blocks unknown")
    return sources


# The version vLLM prints at start-up, for a server whose /version was never read (one that did
# not start, or a log handed over alone): the API server's banner, else the engine's config line.
_LOG_VERSION = (
    re.compile(r"vLLM API server version ([0-9][\w.+-]*)"),
    re.compile(r"Initializing an? (?:V1 )?LLM engine \(v([0-9][\w.+-]*)\)"),
)


def _log_version(logs: str | None) -> str | None:
    if not logs:
        return None
    for pattern in _LOG_VERSION:
        m = pattern.search(logs)
        if m:
            return m.group(1)
    return None


def server_info(out: Out, bundle: Bundle, config_src: dict[str, str]) -> None:
    server = bundle.server
    from_log = _log_version(bundle.logs)
    if server is None:
        why = not_checked_reason(bundle, "server", "no server.json in the bundle")
        named = _engine_arg(bundle.engine_args, ("served-model-name", "model"))
        out.set(
            "served_model",
            to_str(named[0]) if named is not None else None,
            "engine_args: the model the server was started with",
            reason=why,
        )
        out.set("vllm_version", from_log, "logs: the version vLLM printed at start-up", reason=why)
        return
    version = server.version.get("version") if isinstance(server.version, dict) else None
    if to_str(version) is None and from_log is not None:
        out.set("vllm_version", from_log, "logs: the version vLLM printed at start-up")
    else:
        out.set(
            "vllm_version", to_str(version), "server: /version", reason="/version gave no version"
        )
    data = server.models.get("data") if isinstance(server.models, dict) else None
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None
    model_id = to_str(first.get("id")) if first else None
    out.set(
        "served_model", model_id, "server: /v1/models (first)", reason="/v1/models listed no model"
    )
    mml = to_int(first.get("max_model_len")) if first else None
    if mml is not None:
        # The served value is what the engine admits; it beats a flag that may have been capped.
        out.set("max_model_len", mml, "server: /v1/models max_model_len")


# What names the platform in a vLLM log: the CPU build's platform module and its KV line, the
# GPU KV line and CUDA's own words. A GPU server's KV offloading to host memory logs from a
# module of the same name (vllm/v1/kv_offload/cpu.py: "Allocating N CPU KV blocks ... for KV
# offloading"; external case zyz-qwen32b), so a line that speaks of offloading names no
# platform.
_CPU_LOG = re.compile(
    r"^(?!.*offload).*(?:\[cpu\.py:\d+\]|\bCPU KV cache size\b|platform: cpu\b|CpuPlatform)",
    re.MULTILINE | re.IGNORECASE,
)
_GPU_LOG = LazyPattern(r"\bGPU KV cache size\b|\bCUDA\b|platform: cuda\b")


def platform_of(
    args: Mapping[str, object], logs: str | None, gpu_devices: int | None
) -> str | None:
    """``"cpu"``, ``"gpu"`` or None (unknown), from what the bundle holds: ``--device``, the
    start-up log, the devices NVML sampled. The CPU build's evidence wins: its log can mention
    CUDA (a warning that none is available)."""
    device = args.get("device")
    if isinstance(device, str) and device.lower() == "cpu":
        return "cpu"
    if logs and _CPU_LOG.search(logs):
        return "cpu"
    if gpu_devices:
        return "gpu"
    if isinstance(device, str) and device.lower() in ("cuda", "gpu"):
        return "gpu"
    if logs and _GPU_LOG.search(logs):
        return "gpu"
    return None


def platform(out: Out, bundle: Bundle) -> None:
    """The ``platform`` signal (after the GPU and log signals)."""
    args: Mapping[str, object] = bundle.engine_args.args if bundle.engine_args else {}
    devices = out.ss.get("gpu_device_count")
    count = devices if isinstance(devices, int) and not isinstance(devices, bool) else None
    out.set(
        "platform",
        platform_of(args, bundle.logs, count),
        "engine_args.json --device, logs.txt platform lines, gpu.jsonl devices",
        reason="no --device flag, no platform line in the logs and no NVML device",
    )
