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
from typing import Any
from urllib.parse import urlsplit

from kvdoctor.bundle.model import EngineArgs, NotChecked

REDACTED = "<redacted>"
_SECRET_FLAG = re.compile(r"(^|-)(api-key|api-keys|token|secret|password|passwd)$")


def is_secret_flag(key: str) -> bool:
    return bool(_SECRET_FLAG.search(key.lower().replace("_", "-")))


def coerce(value: str) -> Any:
    """Command-line text to a JSON scalar: integers and decimals become numbers."""
    if re.fullmatch(r"[+-]?\d+", value):
        return int(value)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)", value):
        return float(value)
    return value


def norm_flag(key: str) -> str:
    return key.lstrip("-").strip().lower().replace("_", "-")


def _entry_index(argv: list[str]) -> int:
    """Index of the first argument after the vLLM entry point (``serve`` or the module)."""
    for i, tok in enumerate(argv):
        base = os.path.basename(tok)
        if tok.startswith("vllm.entrypoints"):
            return i + 1
        if tok == "serve" and i > 0 and "vllm" in os.path.basename(argv[i - 1]):
            return i + 1
        if base == "vllm" and i + 1 < len(argv) and argv[i + 1] == "serve":
            return i + 2
    return len(argv)


def parse_argv(argv: Iterable[str]) -> dict[str, Any]:
    """Flags of a vLLM server command line as {"flag-name": value}; secrets redacted."""
    tokens = list(argv)
    args: dict[str, Any] = {}
    i = _entry_index(tokens)
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("--") and len(tok) > 2:
            if "=" in tok:
                key, value = tok[2:].split("=", 1)
                args[norm_flag(key)] = coerce(value)
                i += 1
                continue
            key = norm_flag(tok)
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if nxt is not None and not nxt.startswith("--"):
                args[key] = coerce(nxt)
                i += 2
            else:
                args[key] = True
                i += 1
            continue
        if not tok.startswith("-") and "model" not in args:
            args["model"] = tok  # `vllm serve MODEL`
        i += 1
    return {k: (REDACTED if is_secret_flag(k) else v) for k, v in args.items()}


def scrub_argv(argv: list[str]) -> list[str]:
    """The command line with the values of secret-bearing flags replaced."""
    out: list[str] = []
    hide_next = False
    for tok in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        if tok.startswith("--") and is_secret_flag(tok.split("=", 1)[0]):
            if "=" in tok:
                out.append(tok.split("=", 1)[0] + "=" + REDACTED)
            else:
                out.append(tok)
                hide_next = True
            continue
        out.append(tok)
    return out


def parse_user_flags(pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings (``--engine-arg``) to flags; a bare KEY means ``true``."""
    from kvdoctor.errors import KvdoctorError

    out: dict[str, Any] = {}
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


def _int_or(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
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
    endpoint: str, user_flags: Mapping[str, Any]
) -> tuple[EngineArgs | None, list[NotChecked], set[int]]:
    """Engine flags (argv of a local server, then user flags on top) and the server's pids."""
    missing: list[NotChecked] = []
    argv: list[str] | None = None
    args: dict[str, Any] = {}
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
