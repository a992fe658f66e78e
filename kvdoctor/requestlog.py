"""vLLM's request log lines, read for the prompts they carry (``--enable-log-requests``).

The adapter of every request at INFO, the prompt and its token ids at ``--log-level DEBUG``, the
JSON body (with ``cache_salt``) at DEBUG: :func:`requests_from_log` gathers them per request for
:mod:`kvdoctor.promptshare` to analyse, :func:`adapters_in_log` counts the adapters. Its own
module because every replay of a bundle with a log scans it, while the analysis runs only when
two prompts or more were found: the analysis (and its regexes and types) stays off that path.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import re
from typing import Final, NamedTuple

from kvdoctor.errors import KvdoctorError
from kvdoctor.lazyre import LazyPattern

# Caps: a sample is a sample. More prompts add nothing to the decision and cost O(n²) pairs.
MAX_PROMPTS: Final = 256
MAX_PROMPT_TOKENS: Final = 65_536


class RawPrompt(NamedTuple):
    """One request as the operator or the log gave it (held in memory only)."""

    text: str | None
    token_ids: list[int] | None
    adapter: str | None = None
    salt: str | None = None


def messages_text(messages: object, where: str) -> str:
    # A plain rendering in order (role, then content): the chat template adds the same tokens
    # around every message, so what is shared and where it first differs are kept.
    if not isinstance(messages, list):
        raise KvdoctorError(f"{where}: messages must be a list")
    parts: list[str] = []
    for m in messages:
        if not isinstance(m, dict):
            raise KvdoctorError(f"{where}: each message must be an object")
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(_content_part(p) for p in content if isinstance(p, dict))
        parts.append(f"<|{m.get('role', 'user')}|>\n{content if content is not None else ''}\n")
    return "".join(parts)


# Media parts of a chat message in OpenAI form ("image_url", "input_audio", "video_url", ...).
_MEDIA_TYPES = ("image_url", "image", "input_image", "video_url", "video", "input_audio", "audio")
# vLLM mixes each media item's hash into every block that holds its tokens, so a media part
# stands for itself in place: a marker named by the item's own hash, never its bytes.
MEDIA_MARKER = re.compile(r"<\|media:[0-9a-f]{12}\|>")


def _content_part(part: dict[str, object]) -> str:
    kind = str(part.get("type", ""))
    if kind in _MEDIA_TYPES or (not kind and any(k in part for k in _MEDIA_TYPES)):
        payload = (
            part.get(kind)
            if kind in part
            else next((part[k] for k in _MEDIA_TYPES if k in part), part)
        )
        digest = hashlib.sha256(
            json.dumps(payload, sort_keys=True, default=str).encode()
        ).hexdigest()[:12]
        return f"<|media:{digest}|>"
    return str(part.get("text", ""))


# vLLM's request log lines (entrypoints/logger.py, later serve/utils/request_logger.py):
#   <=0.10 INFO:  Received request ID: prompt: '...', params: ..., prompt_token_ids: [...],
#                 [prompt_embeds shape: ..., ]lora_request: None.
#   >=0.11 INFO:  Received request ID: params: ..., lora_request: LoRARequest(lora_name='x', ...).
#          DEBUG: Request ID details: prompt: '...', prompt_token_ids: [...], prompt_embeds ...
#          DEBUG: Request ID JSON body: {...}   (cache_salt, model, messages)
_RECEIVED = LazyPattern(r"Received request (\S+?): (.*)$")
_DETAILS = LazyPattern(r"Request (\S+?) details: (.*)$")
_BODY = LazyPattern(r"Request (\S+?) JSON body: (\{.*)$")
_IDS = LazyPattern(r"prompt_token_ids: \[([0-9,\s]*)\]")
_LORA = LazyPattern(r"lora_request: (None|\w*\(.*?lora_name='([^']*)')")
_PROMPT = LazyPattern(r"prompt: ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|None)")
_LOG_SCAN_BYTES: Final = 64 * 1024 * 1024


def _norm_id(request_id: str) -> str:
    # vLLM appends "-0"/"-<hex>" suffixes in some places; the log lines of one request share
    # the id as printed, so only a trailing period or comma is removed.
    return request_id.rstrip(".,:")


def requests_from_log(text: str) -> tuple[list[RawPrompt], int]:
    """The requests vLLM logged (prompt text and ids where the log level kept them) and how many
    request lines there were (including those that logged no prompt)."""
    per: dict[str, dict[str, object]] = {}
    order: list[str] = []
    for line in text[:_LOG_SCAN_BYTES].splitlines():
        if "equest " not in line:
            continue
        m = _RECEIVED.search(line) or _DETAILS.search(line)
        body = None
        if m is None:
            body = _BODY.search(line)
            if body is None:
                continue
            rid = _norm_id(body.group(1))
        else:
            rid = _norm_id(m.group(1))
        if rid not in per:
            if len(order) >= MAX_PROMPTS:
                continue
            per[rid] = {}
            order.append(rid)
        rec = per[rid]
        if body is not None:
            _merge_body(rec, body.group(2))
            continue
        assert m is not None
        rest = m.group(2)
        ids = _IDS.search(rest)
        if ids is not None and "ids" not in rec:
            nums = [int(x) for x in ids.group(1).replace(" ", "").split(",") if x]
            rec["ids"] = nums[:MAX_PROMPT_TOKENS]
        lora = _LORA.search(rest)
        if lora is not None:
            rec["adapter"] = lora.group(2) if lora.group(1) != "None" else None
            rec["seen_info"] = True
        prompt = _PROMPT.search(rest)
        if prompt is not None and "text" not in rec and prompt.group(1) != "None":
            try:
                value = ast.literal_eval(prompt.group(1))
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
            if isinstance(value, str):
                rec["text"] = value
    out: list[RawPrompt] = []
    for rid in order:
        rec = per[rid]
        ids_v = rec.get("ids")
        text_v = rec.get("text")
        if not isinstance(ids_v, list) and not isinstance(text_v, str):
            continue
        adapter_v = rec.get("adapter")
        salt_v = rec.get("salt")
        out.append(
            RawPrompt(
                text=text_v if isinstance(text_v, str) else None,
                token_ids=ids_v if isinstance(ids_v, list) else None,
                adapter=adapter_v if isinstance(adapter_v, str) else None,
                salt=salt_v if isinstance(salt_v, str) else None,
            )
        )
    return out, len(order)


def adapters_in_log(text: str) -> tuple[int, int]:
    """(requests logged at INFO with their adapter field, distinct adapters among them)."""
    seen = 0
    names: set[str | None] = set()
    for line in text[:_LOG_SCAN_BYTES].splitlines():
        if "Received request" not in line:
            continue
        lora = _LORA.search(line)
        if lora is None:
            continue
        seen += 1
        names.add(lora.group(2) if lora.group(1) != "None" else None)
    return seen, len(names)


def _merge_body(rec: dict[str, object], raw: str) -> None:
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return  # a body cut by --max-log-len is not JSON: its prompt line still counts
    if not isinstance(body, dict):
        return
    salt = body.get("cache_salt")
    if isinstance(salt, str) and salt:
        rec["salt"] = salt
    if "text" not in rec:
        if isinstance(body.get("prompt"), str):
            rec["text"] = body["prompt"]
        elif isinstance(body.get("messages"), list):
            with contextlib.suppress(KvdoctorError):
                rec["text"] = messages_text(body["messages"], "log")
