"""What the application's own prompts share: the evidence that decides a prefix miss.

The troubleshooting table's row for unexpected prefix misses says to inspect token IDs, prior
context and adapter/cache identity. Metrics alone cannot: 0 % hits over prompts of several
blocks is prompts that drift (a timestamp first), a shared prefix shorter than one block, a
LoRA adapter or cache salt per tenant, eviction, or traffic that shares nothing. A sample of
the prompts decides it.

Two sources feed the same analysis:

* ``--prompts FILE``: a JSONL sample the operator hands over (``prompt``, ``messages`` or
  ``prompt_token_ids``; optional ``lora``/``adapter`` and ``cache_salt``), tokenised through
  the server's ``/tokenize`` when live, else approximated (stated as such);
* vLLM's request log lines in ``--logs`` (``--enable-log-requests``): the adapter of every
  request at INFO, the prompt and its token ids at ``--log-level DEBUG``, the JSON body (with
  ``cache_salt``) at DEBUG.

What is kept (docs/reproducers.md): per prompt only its length, the tokens it shares with the
most similar earlier prompt, where the first difference sits, what kind of text differs there
(a word such as "timestamp", never the text), and an opaque identity hash for its adapter/salt.
No prompt text and no token id reaches a bundle or a report.

Pure functions; no I/O except the caller-supplied tokenizer.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Final, Literal

from kvdoctor.bundle.model import PROMPT_SAMPLE_FILE as PROMPT_SAMPLE_FILE
from kvdoctor.bundle.model import PromptSample, PromptStat
from kvdoctor.bundle.model import PromptSource as Source
from kvdoctor.bundle.model import PromptTokenizer as Tokenizer
from kvdoctor.errors import KvdoctorError
from kvdoctor.requestlog import (
    MAX_PROMPT_TOKENS,
    MAX_PROMPTS,
    MEDIA_MARKER,
    RawPrompt,
    messages_text,
)
from kvdoctor.requestlog import adapters_in_log as adapters_in_log
from kvdoctor.requestlog import requests_from_log as requests_from_log

MAX_FILE_BYTES: Final = 64 * 1024 * 1024
# A shared run shorter than this is coincidence (a chat template's first tokens), not a prefix.
MIN_SHARED_TOKENS: Final = 16
# A mechanism is the sample's when at least this share of its prompts show it (traffic is
# mixed: a shared stream beside unique requests is still a shared stream that can miss).
MIN_SHARE: Final = 0.2
# Tokens per k-gram when looking for content shared after the first difference.
_KGRAM: Final = 8

Pattern = Literal["shared", "identity-split", "drift", "sub-block", "unshared"]


# ------------------------------------------------------------------------------ reading


def read_prompts_file(data: bytes, where: str = "--prompts") -> list[RawPrompt]:
    """Parse a JSONL prompt sample; a bad file is a one-line :class:`KvdoctorError`."""
    if len(data) > MAX_FILE_BYTES:
        raise KvdoctorError(f"{where}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KvdoctorError(f"{where}: not UTF-8 text") from None
    out: list[RawPrompt] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(out) >= MAX_PROMPTS:
            break
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            raise KvdoctorError(f"{where}: line {n} is not JSON") from None
        if not isinstance(obj, dict):
            raise KvdoctorError(f"{where}: line {n} is not a JSON object")
        out.append(_raw_from_object(obj, f"{where}: line {n}"))
    if not out:
        raise KvdoctorError(f"{where}: no prompt in the file")
    return out


def _raw_from_object(obj: dict[str, object], where: str) -> RawPrompt:
    adapter = obj.get("lora", obj.get("adapter"))
    salt = obj.get("cache_salt")
    ids = obj.get("prompt_token_ids")
    token_ids: list[int] | None = None
    if ids is not None:
        if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids
        ):
            raise KvdoctorError(f"{where}: prompt_token_ids must be a list of integers")
        token_ids = [int(i) for i in ids[:MAX_PROMPT_TOKENS]]
    text = obj.get("prompt")
    if text is None and "messages" in obj:
        text = messages_text(obj["messages"], where)
    if text is not None and not isinstance(text, str):
        raise KvdoctorError(f"{where}: prompt must be a string")
    if text is None and token_ids is None:
        raise KvdoctorError(f"{where}: needs prompt, messages or prompt_token_ids")
    return RawPrompt(
        text=text,
        token_ids=token_ids,
        adapter=str(adapter) if adapter not in (None, "") else None,
        salt=str(salt) if salt not in (None, "") else None,
    )


# --------------------------------------------------------------------------- tokenising

# A word with the whitespace before it, or one punctuation mark: BPE tokenizers fold the
# leading space into the word, so a space is not a piece of its own.
_APPROX = re.compile(r"\s*\w+|\s*[^\w\s]|\s+$", re.UNICODE)


def approximate_tokens(text: str) -> tuple[list[int], list[int]]:
    """Word-and-punctuation pieces as stand-in token ids, and each piece's start offset.

    No tokenizer: counts are approximate (real BPE tokens are somewhat more numerous), but
    where prompts first differ and how much they share after it are kept.
    """
    ids: list[int] = []
    starts: list[int] = []
    for m in _APPROX.finditer(text[: MAX_PROMPT_TOKENS * 8]):
        piece = m.group(0)
        ids.append(int.from_bytes(hashlib.blake2b(piece.encode(), digest_size=6).digest(), "big"))
        starts.append(m.start())
        if len(ids) >= MAX_PROMPT_TOKENS:
            break
    return ids, starts


# ------------------------------------------------------------------------------ analysis


def _lcp(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _shared_after(a: Sequence[int], b: Sequence[int], start: int) -> int:
    """Tokens of ``a`` after ``start`` inside k-grams that ``b`` also holds after ``start``."""
    if len(a) - start < _KGRAM or len(b) - start < _KGRAM:
        return 0
    grams = {tuple(b[i : i + _KGRAM]) for i in range(start, len(b) - _KGRAM + 1)}
    covered = 0
    last_end = start
    for i in range(start, len(a) - _KGRAM + 1):
        if tuple(a[i : i + _KGRAM]) in grams:
            lo = max(i, last_end)
            covered += i + _KGRAM - lo
            last_end = i + _KGRAM
    return covered


_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("image or other media", MEDIA_MARKER),
    ("timestamp", re.compile(r"\d{1,2}:\d{2}(:\d{2})?|\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}")),
    ("uuid", re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}")),
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\b(19|20)\d{2}\b")),
    ("hex id", re.compile(r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b")),
    ("number", re.compile(r"\d{2,}")),
)


def _difference_kind(a: str, b: str) -> str:
    """What kind of text differs where two prompts first differ (a word, never the text)."""
    i = _lcp([ord(c) for c in a[:20000]], [ord(c) for c in b[:20000]])
    # The differing stretch with a little context before it (a timestamp's first digits
    # may be shared).
    lo = max(0, i - 12)
    window = a[lo : i + 40] + " " + b[lo : i + 40]
    for kind, pattern in _KINDS:
        if pattern.search(window):
            return kind
    return "text"


def _identity(adapter: str | None, salt: str | None) -> str:
    raw = f"{adapter or ''}\x00{salt or ''}".encode()
    return hashlib.sha256(raw).hexdigest()[:12]


def analyse(
    prompts: Sequence[RawPrompt],
    source: Source,
    tokenize: Callable[[str], list[int] | None] | None = None,
) -> PromptSample:
    """The sample's sharing, as lengths only (see :class:`PromptStat`).

    ``tokenize``: the server's or the model's tokenizer for text prompts (None, or a call that
    returns None: approximate pieces, and the sample says so).
    """
    tokens: list[list[int]] = []
    kinds: set[Tokenizer] = set()
    for p in prompts[:MAX_PROMPTS]:
        if p.token_ids is not None:
            tokens.append(list(p.token_ids[:MAX_PROMPT_TOKENS]))
            kinds.add("given")
            continue
        ids = tokenize(p.text or "") if tokenize is not None else None
        if ids is not None:
            tokens.append(list(ids[:MAX_PROMPT_TOKENS]))
            kinds.add("server")
        else:
            tokens.append(approximate_tokens(p.text or "")[0])
            kinds.add("approximate")
    tokenizer: Tokenizer = (
        "approximate" if "approximate" in kinds else "server" if "server" in kinds else "given"
    )
    idents = [_identity(p.adapter, p.salt) for p in prompts[:MAX_PROMPTS]]
    stats: list[PromptStat] = []
    for i, toks in enumerate(tokens):
        best_any, best_j = 0, -1
        best_same: int | None = None
        for j in range(i):
            n = _lcp(toks, tokens[j])
            if n > best_any or best_j < 0:
                best_any, best_j = n, j
            if idents[j] == idents[i]:
                best_same = n if best_same is None else max(best_same, n)
        after = 0
        kind: str | None = None
        if best_j >= 0:
            # The earlier prompt sharing most content after the first difference (drift hides
            # the sharing that the prefix alone does not show).
            for j in range(i):
                start = _lcp(toks, tokens[j])
                after = max(after, _shared_after(toks, tokens[j], start))
            a, b = prompts[i].text, prompts[best_j].text
            if best_any < len(toks) and a is not None and b is not None:
                kind = _difference_kind(a, b)
        stats.append(
            PromptStat(
                tokens=len(toks),
                shared_prefix=best_any,
                shared_prefix_same_identity=best_same,
                shared_after_difference=after,
                difference=kind,
                identity=idents[i],
            )
        )
    return PromptSample(
        source=source,
        tokenizer=tokenizer,
        prompts=stats,
        adapters=len({p.adapter for p in prompts[:MAX_PROMPTS]}),
        salts=len({p.salt for p in prompts[:MAX_PROMPTS]}),
    )


@dataclass(frozen=True)
class Sharing:
    """The sample's verdict on sharing, for one block size (the signals read this)."""

    pattern: Pattern
    prompts: int
    mean_tokens: float
    shared_prefix_tokens: float  # median over prompts with an earlier one
    shared_prefix_same_identity_tokens: float
    shared_after_difference_tokens: float
    first_difference_in_block: int | None  # token offset of the first difference in its block
    difference: str | None  # the most common kind of text at the first difference
    identities: int
    blocks_shared: int  # whole blocks the cache could reuse per prompt (same identity)
    # Share of the sample's prompt tokens the cache serves, or would once the fault is fixed.
    shareable_fraction: float = 0.0
    # Prompts of the sample that show the mechanism (0 for unshared).
    showing: int = 0
    # Share of the later prompts' tokens whose text repeats whole blocks of an earlier prompt
    # under another adapter or salt and of none under its own, whatever the majority shows:
    # the hits the identity split costs (external case: a base-model warm-up, then the same
    # prompt under a LoRA adapter, one request in three).
    identity_split_fraction: float = 0.0
    # The same for drift: the share of the later prompts' tokens shared after an early
    # difference (whole blocks), whatever most prompts show, and the drifted prompts' medians
    # (external case zyx-glm53: one turn in eight changed its first line and prefilled 42k
    # tokens the conversation had cached 15 s before, inside a mostly shared sample).
    drift_fraction: float = 0.0
    # Later prompts that repeat an earlier one of their adapter and salt whole, two blocks or
    # more: a cache that works serves them whatever else the sample shows (external case
    # zyx-qwen38next: a 15.6k-token prompt sent again byte for byte, 0 tokens cached).
    exact_repeats: int = 0
    drift_prompts: int = 0
    drift_at_tokens: float | None = None
    drift_shared_after_tokens: float | None = None


def sharing(sample: PromptSample, block_size: int) -> Sharing | None:
    """Which of the prefix-miss mechanisms the sample shows, at ``block_size`` tokens per block.

    ``shared``: prompts of the same adapter and salt share whole blocks (a miss is then the
    cache's: off or evicting); ``identity-split``: the text shares whole blocks but adapters or
    salts differ; ``drift``: prompts differ early and share at least a block of content after
    that, more than twice what the prefix before the difference keeps; ``sub-block``: they
    share a prefix of at least ``MIN_SHARED_TOKENS`` tokens but shorter than one block;
    ``unshared``: nothing worth caching is shared.

    Traffic is usually mixed (a shared stream beside unique requests): the sample's mechanism
    is the one most of its prompts show, among those at least ``MIN_SHARE`` of them show, and
    the lengths stated are those of the prompts that show it.
    """
    later = sample.prompts[1:]
    if not later or block_size <= 0:
        return None
    unit = block_size
    identities = len({p.identity for p in sample.prompts})

    def same(p: PromptStat) -> int:
        # A prompt with no earlier one of its adapter and salt shares nothing the cache reuses.
        return p.shared_prefix_same_identity or 0

    def drifted(p: PromptStat) -> bool:
        # An early difference that loses more than twice what the prefix before it keeps:
        # a few shared blocks (a preamble) ahead of a timestamp are not what the traffic
        # shares (external case: 41 tokens shared, a timestamp, then 1,499 shared tokens).
        return p.shared_after_difference >= unit and p.shared_after_difference > 2 * max(
            p.shared_prefix, same(p)
        )

    groups: dict[Pattern, list[PromptStat]] = {
        "shared": [p for p in later if same(p) >= unit and not drifted(p)],
        "identity-split": [
            p for p in later if p.shared_prefix >= unit and same(p) < unit and not drifted(p)
        ],
        "drift": [p for p in later if drifted(p)],
        # A prompt sent again whole is shared however short: the run is the prompt, not a
        # chat template's first tokens (external case zyq-cpu-joke, dev-21: "Tell me a joke"
        # a hundred times under 128-token blocks).
        "sub-block": [
            p
            for p in later
            if min(MIN_SHARED_TOKENS, max(p.tokens, 1)) <= p.shared_prefix < unit
            and p.shared_after_difference < unit
        ],
    }
    # The mechanism most of the sample shows, among those a fifth or more show (ties: the
    # order above): a system prompt shared across tenants' salts by most requests is an
    # identity split even when a third of them also share within their own salt.
    pattern: Pattern = "unshared"
    best = 0
    for name, members in groups.items():
        if name == "identity-split" and identities < 2:
            continue
        if len(members) >= MIN_SHARE * len(later) and len(members) > best:
            pattern, best = name, len(members)
    chosen = groups.get(pattern) or later
    any_ = median(p.shared_prefix for p in chosen)
    same_med = median(same(p) for p in chosen)
    after = median(p.shared_after_difference for p in chosen)

    def reusable(p: PromptStat) -> int:
        if pattern == "shared":
            return (same(p) // unit) * unit
        if pattern == "identity-split":
            return (p.shared_prefix // unit) * unit
        if pattern == "drift":
            return (p.shared_after_difference // unit) * unit
        if pattern == "sub-block":
            return p.shared_prefix
        return 0

    total = sum(p.tokens for p in later)
    shareable = min(1.0, sum(reusable(p) for p in chosen) / total) if total else 0.0
    split_tokens = sum((p.shared_prefix // unit) * unit for p in groups["identity-split"])
    split = min(1.0, split_tokens / total) if total and identities >= 2 else 0.0
    drifted_ = groups["drift"]
    drift_tokens = sum((p.shared_after_difference // unit) * unit for p in drifted_)
    drift_fraction = min(1.0, drift_tokens / total) if total else 0.0
    kinds = [p.difference for p in chosen if p.difference is not None]
    kind = max(sorted(set(kinds)), key=kinds.count) if kinds else None
    first_diff = int(any_) % unit if pattern in ("drift", "sub-block") else None
    return Sharing(
        pattern=pattern,
        prompts=len(sample.prompts),
        mean_tokens=sum(p.tokens for p in sample.prompts) / len(sample.prompts),
        shared_prefix_tokens=float(any_),
        shared_prefix_same_identity_tokens=float(same_med),
        shared_after_difference_tokens=float(after),
        first_difference_in_block=first_diff,
        difference=kind,
        identities=identities,
        blocks_shared=int(same_med // unit),
        shareable_fraction=round(shareable, 4),
        showing=len(chosen) if pattern != "unshared" else 0,
        identity_split_fraction=round(split, 4),
        drift_fraction=round(drift_fraction, 4),
        exact_repeats=sum(1 for p in later if p.tokens >= 2 * unit and same(p) >= p.tokens),
        drift_prompts=len(drifted_),
        drift_at_tokens=float(median(p.shared_prefix for p in drifted_)) if drifted_ else None,
        drift_shared_after_tokens=(
            float(median(p.shared_after_difference for p in drifted_)) if drifted_ else None
        ),
    )
