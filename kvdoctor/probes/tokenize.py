"""Tokenise a prompt sample through the server's own ``/tokenize`` (vLLM's OpenAI server).

The server's tokenizer and chat template are the ones its prefix cache hashes, so where two
prompts first differ in tokens is exactly where their cached blocks part. Bounded: one overall
deadline for the whole sample and a byte cap per answer; a server without ``/tokenize`` (or an
error) leaves the sample to the approximate word-piece tokenizer, and the report says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx

from kvdoctor.probes.http import join

_MAX_ANSWER_BYTES = 4 * 1024 * 1024
_PER_REQUEST_S = 5.0
_TOTAL_S = 30.0


def server_tokenizer(
    client: httpx.Client, endpoint: str, model: str | None
) -> Callable[[str], list[int] | None]:
    """A tokenize function for :func:`kvdoctor.promptshare.analyse` (None: not available)."""
    deadline = time.monotonic() + _TOTAL_S
    state = {"broken": False}

    def tokenize(text: str) -> list[int] | None:
        left = deadline - time.monotonic()
        if state["broken"] or left <= 0:
            return None
        body: dict[str, object] = {"prompt": text, "add_special_tokens": True}
        if model:
            body["model"] = model
        try:
            resp = client.post(
                join(endpoint, "/tokenize"),
                content=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
                timeout=httpx.Timeout(min(_PER_REQUEST_S, left)),
            )
        except (httpx.HTTPError, OSError, ValueError):
            state["broken"] = True
            return None
        if resp.status_code != 200 or len(resp.content) > _MAX_ANSWER_BYTES:
            state["broken"] = True
            return None
        try:
            tokens = json.loads(resp.content).get("tokens")
        except (ValueError, AttributeError, RecursionError):
            state["broken"] = True
            return None
        if not isinstance(tokens, list) or not all(
            isinstance(t, int) and not isinstance(t, bool) for t in tokens
        ):
            state["broken"] = True
            return None
        return [int(t) for t in tokens]

    return tokenize
