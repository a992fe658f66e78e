"""The engine-config probe: flags of a local ``vllm serve`` process, merged with user flags.

``vllm:cache_config_info`` (read from the metrics) is the primary source; this probe adds what
the metrics do not carry (``max_num_seqs``, ``max_num_batched_tokens``, ...). The local process
is found through psutil by its command line and the port it serves; a remote endpoint simply
has no argv. Secret-bearing flags (``--api-key``, ``--hf-token``) are replaced before anything
is stored.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from pydantic import JsonValue

from kvdoctor.bundle.argv import (
    REDACTED,
    FlagValue,
    coerce,
    is_secret_flag,
    norm_flag,
    parse_argv,
    scrub_argv,
)
from kvdoctor.bundle.model import EngineArgs, JsonObject, NotChecked
from kvdoctor.errors import KvdoctorError


def parse_user_flags(pairs: Iterable[str]) -> dict[str, FlagValue]:
    """``KEY=VALUE`` strings (``--engine-arg``) to flags; a bare KEY means ``true``."""
    out: dict[str, FlagValue] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = norm_flag(key)
        if not key or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", key):
            raise KvdoctorError(f"--engine-arg {pair!r}: expected KEY=VALUE, e.g. max-num-seqs=64")
        out[key] = coerce(value.strip()) if sep else True
    return out


def _local_addresses() -> set[str]:
    addrs = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"}
    try:
        addrs.add(socket.gethostname())
        addrs.add(socket.getfqdn())
    except OSError:
        pass
    try:
        import psutil

        for entries in psutil.net_if_addrs().values():
            for e in entries:
                addrs.add(e.address.split("%")[0])
    except Exception:  # interface listing is best effort on locked-down hosts
        pass
    return addrs


def endpoint_host_port(endpoint: str) -> tuple[str, int]:
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    return host, port


def _is_local(host: str) -> bool:
    if host in _local_addresses():
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _looks_like_vllm_server(cmdline: list[str]) -> bool:
    joined = " ".join(cmdline)
    return "vllm.entrypoints" in joined or (
        any(os.path.basename(t) == "vllm" for t in cmdline) and "serve" in cmdline
    )


def find_server_process(endpoint: str) -> tuple[int, list[str]] | None:
    """(pid, argv) of a local vLLM server process serving ``endpoint``'s port, if any."""
    host, port = endpoint_host_port(endpoint)
    if not _is_local(host):
        return None
    import psutil

    me = os.getpid()
    found: list[tuple[int, int, list[str]]] = []
    for proc in psutil.process_iter(["pid", "ppid", "cmdline"]):
        info = proc.info
        cmd = info.get("cmdline") or []
        if info["pid"] == me or not cmd or not _looks_like_vllm_server(cmd):
            continue
        args = parse_argv(cmd)
        if _int_or(args.get("port"), 8000) != port:
            continue
        found.append((info["pid"], info.get("ppid") or 0, cmd))
    if not found:
        return None
    pids = {pid for pid, _, _ in found}
    # vLLM forks helpers with the same command line; the root of that tree is the server.
    roots = sorted((pid, cmd) for pid, ppid, cmd in found if ppid not in pids)
    pid, cmd = roots[0] if roots else (found[0][0], found[0][2])
    return pid, cmd


def _int_or(value: FlagValue | None, default: int) -> int:
    if value is None:
        return default
    try:
        return int(value)
    except (ValueError, OverflowError):  # "8000x", or 1e999 read as infinity
        return default


def process_tree(pid: int) -> set[int]:
    """``pid`` and all its descendants (the server's engine and worker processes)."""
    import psutil

    try:
        proc = psutil.Process(pid)
        return {pid} | {c.pid for c in proc.children(recursive=True)}
    except psutil.Error:
        return {pid}


def probe_engine_args(
    endpoint: str, user_flags: Mapping[str, JsonValue]
) -> tuple[EngineArgs | None, list[NotChecked], set[int]]:
    """Engine flags (argv of a local server, then user flags on top) and the server's pids."""
    missing: list[NotChecked] = []
    argv: list[str] | None = None
    args: JsonObject = {}
    pids: set[int] = set()
    try:
        found = find_server_process(endpoint)
    except Exception as exc:  # psutil trouble must not stop a diagnosis
        found = None
        missing.append(NotChecked(what="engine process", why=f"process listing failed: {exc}"))
    if found is not None:
        pid, cmd = found
        argv = scrub_argv(cmd)
        args.update(parse_argv(cmd))
        pids = process_tree(pid)
    elif not missing:
        host, port = endpoint_host_port(endpoint)
        why = (
            f"no local vLLM server process serves port {port}"
            if _is_local(host)
            else "endpoint is remote; its command line cannot be read (use --engine-arg)"
        )
        missing.append(NotChecked(what="engine process", why=why))
    for key, value in user_flags.items():
        args[norm_flag(key)] = REDACTED if is_secret_flag(key) else value
    if argv is None and not args:
        return None, missing, pids
    return EngineArgs(argv=argv, args=dict(sorted(args.items()))), missing, pids
