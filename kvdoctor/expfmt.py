"""A focused parser for the Prometheus text exposition format (version 0.0.4).

kvdoctor parses the same few hundred series hundreds of times (one payload per scrape), so the
parser is built around that: the part of a line before the value ("series key": name and
labels) repeats from scrape to scrape and its parse is cached; only the value is converted per
line. With ``prefixes`` the caller can skip families it will never read (Python runtime and
HTTP-server metrics make up most of a vLLM payload) before any label is parsed.

Checked sample-by-sample against ``prometheus_client.parser`` on real vLLM payloads
(tests/unit/test_expfmt.py). Errors are one line, with the line number, and are
:class:`ExpositionError` (a :class:`~kvdoctor.errors.KvdoctorError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import itemgetter, methodcaller
from typing import NamedTuple, cast

from kvdoctor.errors import KvdoctorError

Labels = tuple[tuple[str, str], ...]


class Sample(NamedTuple):
    """One sample line: metric name, labels (sorted by label name) and value."""

    name: str
    labels: Labels
    value: float

    def label(self, key: str, default: str = "") -> str:
        for k, v in self.labels:
            if k == key:
                return v
        return default


class ExpositionError(KvdoctorError):
    """Text that is not valid Prometheus exposition format."""


_NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
# Values are matched "unrolled" ([^"\\]* between escapes): an alternation repeated per
# character made the regex engine's backtracking stack grow with the value (a 15 MB label value
# once took 2.6 GB).
_VALUE = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_LNAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
# A whole label set: "name = value" pairs separated by commas, one trailing comma allowed.
_LABELS_RE = re.compile(
    rf"(?:\s*{_LNAME}\s*=\s*{_VALUE}\s*,)*(?:\s*{_LNAME}\s*=\s*{_VALUE}\s*)?", re.DOTALL
)
_PAIR_RE = re.compile(rf'({_LNAME})\s*=\s*"([^"\\]*(?:\\.[^"\\]*)*)"', re.DOTALL)
# No vLLM label comes near this (cache_config_info's longest value is a few hundred characters).
MAX_LABEL_VALUE_CHARS = 64 * 1024
# Keys longer than this are parsed every time instead of cached: the cache holds up to
# _KEY_CACHE_MAX keys, and hostile megabyte keys would make that gigabytes.
_CACHE_KEY_MAX_CHARS = 4096
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
_ESCAPE_RE = re.compile(r"\\[\\\"n]")

# Parsed series keys, shared across calls: real scrapes repeat the same keys, so after the first
# payload nearly every line is a dictionary hit. Bounded so hostile input cannot grow it forever.
_KEY_CACHE: dict[str, tuple[str, Labels]] = {}
_KEY_CACHE_MAX = 200_000


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], value)


def _parse_key(key: str, lineno: int) -> tuple[str, Labels]:
    brace = key.find("{")
    if brace < 0:
        name = key.strip()
        if not _NAME_RE.fullmatch(name):
            raise ExpositionError(f"line {lineno}: invalid metric name {_clip(name)!r}")
        return name, ()
    name = key[:brace].strip()
    if not _NAME_RE.fullmatch(name):
        raise ExpositionError(f"line {lineno}: invalid metric name {_clip(name)!r}")
    body = key[brace + 1 :].rstrip()
    if not body.endswith("}"):
        raise ExpositionError(f"line {lineno}: unterminated label set in {_clip(key)!r}")
    body = body[:-1]
    # Two passes in C, each linear in the label count: validate the whole label set, then take
    # the pairs (a Python loop per label, slicing the rest each time, made 320k labels cost 15 s).
    if _LABELS_RE.fullmatch(body) is None:
        raise ExpositionError(f"line {lineno}: malformed labels in {_clip(key)!r}")
    labels: list[tuple[str, str]] = []
    for label, raw in _PAIR_RE.findall(body):
        if len(raw) > MAX_LABEL_VALUE_CHARS:
            raise ExpositionError(
                f"line {lineno}: label {label!r} has a value of {len(raw)} characters "
                f"(cap {MAX_LABEL_VALUE_CHARS}); not a metrics label"
            )
        labels.append((label, _unescape(raw)))
    labels.sort()
    return name, tuple(labels)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _value(raw: str, lineno: int) -> float:
    # float() also accepts "1_000" and surrounding blanks, which the format does not.
    if "_" in raw:
        raise ExpositionError(f"line {lineno}: invalid sample value {_clip(raw)!r}")
    try:
        return float(raw)
    except ValueError:
        raise ExpositionError(f"line {lineno}: invalid sample value {_clip(raw)!r}") from None


def check_shape(text: str) -> None:
    """Refuse text that is obviously not an exposition (an HTML page, a truncated body)."""
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype", "<html", "<head", "<body", "<?xml", "<")):
        raise ExpositionError("got an HTML/XML page, not Prometheus exposition text")
    if text and not text.endswith("\n"):
        # The format ends every line with a newline; a body without one was cut short.
        raise ExpositionError("truncated exposition text (no newline after the last line)")


_HEAD = _NAME = itemgetter(0)
_RAW = itemgetter(2)
_LABELS = itemgetter(1)


def _known_lines(text: str, wanted: tuple[str, ...]) -> list[tuple[str, Labels, float]] | None:
    """The samples of ``text`` when every wanted line is the common line of :func:`parse`'s
    loop ("KEY VALUE", the key cached, a value ``float()`` takes and the format allows);
    ``None`` when any is not, and :func:`parse` reads the text line by line instead.

    The loop's first steps, each done for all lines at once by ``filter`` and ``map`` (loops in
    C): from the second scrape of a capture on, every line is such a line, and the Python loop
    over lines was most of a replay's parse.
    """
    lines = list(filter(methodcaller("startswith", wanted), text.split("\n")))
    parts = list(map(str.rpartition, lines, repeat(" ")))
    found = list(map(_KEY_CACHE.get, map(_HEAD, parts)))
    if None in found:
        return None
    keys = cast("list[tuple[str, Labels]]", found)
    raws = list(map(_RAW, parts))
    if "_" in "".join(raws):
        return None
    try:
        values = list(map(float, raws))
    except ValueError:
        return None
    return list(zip(map(_NAME, keys), map(_LABELS, keys), values, strict=True))


def parse_values(text: str, prefixes: Iterable[str]) -> Sequence[tuple[str, Labels, float]]:
    """The samples :func:`parse` gives for ``text`` and ``prefixes``, as plain tuples ``(name,
    labels, value)``: for a caller that only unpacks them (the observations), building one
    :class:`Sample` per line cost as much as reading the line. Raises :class:`ExpositionError`
    as :func:`parse` does."""
    check_shape(text)
    wanted = tuple(prefixes)
    known = _known_lines(text, wanted)
    return known if known is not None else parse(text, wanted)


def parse(text: str, prefixes: Iterable[str] | None = None) -> list[Sample]:
    """Parse exposition text into samples, in order. Raises :class:`ExpositionError`.

    ``prefixes``: when given, only samples whose name starts with one of them are returned
    (and validated); other lines are skipped unparsed. Timestamps are accepted and dropped.
    """
    check_shape(text)
    wanted = tuple(prefixes) if prefixes is not None else None
    cache = _KEY_CACHE
    # tuple.__new__ builds the same Sample as Sample(...) without the Python-level __new__ that
    # NamedTuple generates: one call per sample line, the parser's largest cost after the loop.
    new_sample = tuple.__new__
    out: list[Sample] = []
    append = out.append
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line or line[0] == "#":
            continue
        if wanted is not None and not line.startswith(wanted):
            continue
        # The common line, "KEY VALUE" with a key already parsed: one dictionary hit and one
        # float. A cached key is a valid, stripped series key that ends in "}" or has no
        # blank, so the steps below would take the same key (the text before the line's last
        # space) and no timestamp; float() ignores the blanks around a value that rstrip()
        # would take off first. Anything else (a new key, a timestamp, a value float() or the
        # format refuses) goes the whole way below.
        head, _, raw = line.rpartition(" ")
        parsed = cache.get(head)
        if parsed is not None and "_" not in raw:
            try:
                value = float(raw)
            except ValueError:
                pass
            else:
                append(new_sample(Sample, (parsed[0], parsed[1], value)))
                continue
        head, _, raw = line.rstrip().rpartition(" ")
        head = head.rstrip()
        if not head:
            if line.strip() == "" or line.lstrip().startswith("#"):
                continue
            raise ExpositionError(f"line {lineno}: no value in {_clip(line)!r}")
        if head[-1] != "}" and " " in head.lstrip():
            # "name{...} value timestamp" or "name value timestamp": drop the timestamp.
            ts = raw
            head, _, raw = head.rpartition(" ")
            head = head.rstrip()
            if not head:
                raise ExpositionError(f"line {lineno}: no value in {_clip(line)!r}")
            _value(ts, lineno)
        parsed = cache.get(head)
        if parsed is None:
            parsed = _parse_key(head, lineno)
            if len(head) <= _CACHE_KEY_MAX_CHARS:
                if len(cache) >= _KEY_CACHE_MAX:
                    cache.clear()
                cache[head] = parsed
        try:
            value = float(raw)
        except ValueError:
            value = _value(raw, lineno)
        else:
            if "_" in raw:
                _value(raw, lineno)
        append(new_sample(Sample, (parsed[0], parsed[1], value)))
    return out
