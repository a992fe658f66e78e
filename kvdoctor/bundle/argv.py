"""A vLLM command line as ``engine_args.json`` keeps it: flags parsed, secret values hidden.

Shared by the engine probe (which records the argv) and the signals (which tell a flag from
the process argv from one the user gave); it lives with the bundle format so the signals never
import the probes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

REDACTED = "<redacted>"
# One flag's value as engine_args.json keeps it: a number, text, or True for a bare flag.
FlagValue = int | float | str | bool
_SECRET_FLAG = re.compile(r"(^|-)(api-key|api-keys|token|secret|password|passwd)$")


def is_secret_flag(key: str) -> bool:
    return bool(_SECRET_FLAG.search(key.lower().replace("_", "-")))


def coerce(value: str) -> int | float | str:
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


def parse_argv(argv: Iterable[str]) -> dict[str, FlagValue]:
    """Flags of a vLLM server command line as {"flag-name": value}; secrets redacted."""
    tokens = list(argv)
    args: dict[str, FlagValue] = {}
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
