"""Synthetic prompts of exact token lengths, unique per request unless a prefix is shared.

Prompts are sequences of units: common English words joined by spaces, or single letters joined
by nothing. A calibration step asks the server how its tokenizer counts them (vLLM's
``/tokenize`` when present, else the ``usage`` of one-token completions), so that a prompt of
``n`` tokens can be built without a local tokenizer. When every unit is one distinct token (words
in real BPE/SentencePiece vocabularies; letters in byte-level ones such as the lab's), a prompt of
``n`` tokens is exactly ``n - overhead`` units and prefixes line up on token boundaries, which is
what prefix-cache experiments need. Prompts are never stored: only their lengths are.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

PrefixMode = Literal["unique", "shared", "timestamp-first"]

# Short, frequent words: one token each in every mainstream tokenizer (checked at calibration).
VOCAB: tuple[str, ...] = (
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "for",
    "on",
    "that",
    "with",
    "as",
    "by",
    "at",
    "from",
    "his",
    "her",
    "he",
    "she",
    "it",
    "they",
    "we",
    "you",
    "are",
    "be",
    "this",
    "have",
    "not",
    "but",
    "had",
    "or",
    "an",
    "were",
    "which",
    "their",
    "one",
    "all",
    "there",
    "has",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "out",
    "up",
    "into",
    "do",
    "than",
    "its",
    "can",
    "only",
    "other",
    "time",
    "new",
    "some",
    "could",
    "these",
    "two",
    "may",
    "first",
    "then",
    "any",
    "like",
    "my",
    "now",
    "over",
    "such",
    "our",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "off",
    "before",
    "must",
    "well",
    "back",
    "through",
    "years",
    "much",
    "where",
    "your",
    "way",
    "down",
    "should",
    "because",
    "long",
    "each",
    "just",
    "state",
    "people",
    "those",
    "how",
    "too",
    "little",
    "good",
    "world",
    "very",
    "still",
    "own",
    "see",
    "men",
    "work",
    "last",
    "here",
    "old",
    "both",
    "between",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "year",
    "great",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "small",
    "house",
    "does",
    "part",
    "around",
    "place",
    "just",
    "home",
    "large",
    "every",
    "found",
    "left",
    "end",
    "along",
    "next",
    "few",
    "good",
    "water",
    "land",
    "city",
    "hand",
    "high",
    "look",
    "name",
    "show",
    "light",
    "play",
    "run",
    "open",
    "line",
    "near",
    "read",
    "tree",
    "green",
    "blue",
    "red",
    "black",
    "white",
    "cold",
    "warm",
    "fast",
    "slow",
    "dark",
    "game",
    "word",
    "boy",
    "girl",
    "book",
    "door",
    "road",
    "room",
    "king",
    "rain",
    "snow",
    "wind",
    "fire",
    "sun",
    "moon",
    "star",
    "ship",
    "farm",
    "bird",
    "fish",
    "dog",
    "horse",
    "cat",
    "song",
    "food",
    "milk",
    "rice",
    "salt",
    "gold",
    "iron",
    "wood",
    "rock",
    "hill",
    "lake",
    "sea",
    "field",
    "town",
    "story",
    "river",
    "stone",
    "glass",
    "paper",
    "table",
    "chair",
    "bread",
    "apple",
    "music",
    "money",
    "power",
    "voice",
    "color",
    "sound",
    "heart",
    "mind",
    "plan",
    "page",
    "list",
    "rule",
    "fact",
    "idea",
    "form",
    "case",
    "week",
    "month",
    "hour",
    "minute",
    "morning",
    "night",
    "summer",
    "winter",
    "spring",
    "north",
    "south",
    "east",
    "west",
)
# Duplicates above are harmless for the text but not for uniqueness arithmetic.
VOCAB = tuple(dict.fromkeys(VOCAB))
# Second choice, for byte-level tokenizers where a word is several tokens but a letter is one.
LETTERS: tuple[str, ...] = tuple("abcdefghijklmnopqrstuvwxyz")
# (units, separator) pairs tried in order at calibration.
UNIT_SETS: tuple[tuple[tuple[str, ...], str], ...] = ((VOCAB, " "), (LETTERS, ""))

CountFn = Callable[[str], Awaitable[int]]


@dataclass(frozen=True)
class Calibration:
    """How the server's tokenizer counts synthetic prompts."""

    # Tokens a prompt has before any word (BOS for completions; the chat template for chat).
    overhead: int
    # Units usable for prompts: each one distinct token when ``exact`` holds.
    vocab: tuple[str, ...]
    # What joins units: " " for words, "" for letters.
    sep: str
    # True when every unit in ``vocab`` counts as one token, so lengths are exact by construction.
    exact: bool
    # Mean tokens per unit (1.0 when exact): used to estimate lengths when not exact.
    tokens_per_word: float
    # "tokenize" (vLLM /tokenize), "usage" (completion usage field) or "assumed".
    source: str

    def text(self, words: list[str]) -> str:
        return self.sep.join(words)


ASSUMED = Calibration(
    overhead=1, vocab=VOCAB, sep=" ", exact=False, tokens_per_word=1.0, source="assumed"
)


def calibration_from_counts(
    overhead: int,
    units: tuple[str, ...],
    sep: str,
    units_count: int,
    unit_ids: list[int] | None,
    source: str,
) -> Calibration:
    """Decide the calibration from the token counts of the empty prompt and of all ``units``.

    ``unit_ids`` (the ids after the overhead, when the tokenizer returned them) guards against
    tokenizers that map unknown words to one ``<unk>`` id: such words would make "unique"
    prompts identical, so only units whose id no other unit shares are kept.
    """
    content = units_count - overhead
    if content == len(units):
        if unit_ids is None:
            return Calibration(overhead, units, sep, True, 1.0, source)
        if len(unit_ids) == len(units):
            seen: dict[int, int] = {}
            for tid in unit_ids:
                seen[tid] = seen.get(tid, 0) + 1
            kept = tuple(w for w, tid in zip(units, unit_ids, strict=True) if seen[tid] == 1)
            if len(kept) >= 16:
                return Calibration(overhead, kept, sep, True, 1.0, source)
    tpw = max(content, 1) / len(units)
    return Calibration(overhead, units, sep, False, tpw, source)


def _index_words(i: int, vocab: tuple[str, ...], width: int) -> list[str]:
    """``width`` words that encode ``i`` in base len(vocab): distinct i give distinct words."""
    v = len(vocab)
    out = []
    for _ in range(width):
        out.append(vocab[i % v])
        i //= v
    return out


def index_width(n_requests: int, vocab_size: int) -> int:
    """How many leading words are needed to make ``n_requests`` prompts pairwise distinct."""
    width, span = 1, vocab_size
    while span < max(n_requests, 1):
        width += 1
        span *= vocab_size
    return width


def request_words(
    i: int,
    n_words: int,
    *,
    mode: PrefixMode,
    shared_words: int,
    seed: int,
    vocab: tuple[str, ...],
    width: int,
) -> list[str]:
    """The words of request ``i`` (deterministic in ``seed`` and ``i``).

    - unique: the first ``width`` words encode ``i``, so no two prompts share even one block.
    - shared: the first ``shared_words`` are the same for every request, then ``i`` is encoded.
    - timestamp-first: ``i`` first (like a timestamp at the top of a system prompt), then the
      shared body: the prompts share most of their text and still no prefix (prefix drift).
    """
    shared_rng = random.Random(f"kvdoctor-shared:{seed}")
    body = [shared_rng.choice(vocab) for _ in range(max(shared_words, 0))]
    own_rng = random.Random(f"kvdoctor-own:{seed}:{i}")
    head = _index_words(i, vocab, width)
    if mode == "unique":
        words = head
    elif mode == "shared":
        words = body[:n_words] + head
    else:
        words = head + body
    while len(words) < n_words:
        words.append(own_rng.choice(vocab))
    return words[:n_words]


def words_for_tokens(tokens: int, cal: Calibration) -> int:
    """Estimated number of words for a prompt of ``tokens`` tokens (exact when ``cal.exact``)."""
    content = max(tokens - cal.overhead, 1)
    if cal.exact:
        return content
    return max(round(content / cal.tokens_per_word), 1)


async def fit_words(
    words: list[str], target: int, count: CountFn, sep: str = " ", max_steps: int = 20
) -> int:
    """How many leading ``words`` give a prompt closest to ``target`` tokens, asking ``count``.

    Token counts of word prefixes never decrease with more words, so a bracketing search over the
    prefix length converges; if no prefix hits ``target`` exactly (a word of several tokens
    straddles it) the closest one wins. Used only when calibration found words not to be one
    token each.
    """
    lo, hi = 1, len(words)
    best_k, best_err = hi, None
    for _ in range(max_steps):
        if lo > hi:
            break
        k = (lo + hi) // 2
        got = await count(sep.join(words[:k]))
        err = abs(got - target)
        if best_err is None or err < best_err or (err == best_err and k < best_k):
            best_k, best_err = k, err
        if got == target:
            return k
        if got < target:
            lo = k + 1
        else:
            hi = k - 1
    return best_k
