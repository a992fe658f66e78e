"""Escaping for text that goes into a Markdown report.

Anything that comes from the server (model names, label values, log lines, error messages) is
untrusted: it must not break a GitHub-flavoured Markdown table, start a code span, a link or an
emphasis run, or smuggle HTML into a ticket (GitHub, GitLab and Jira all render inline HTML
differently, so the only safe HTML is none). The renderer escapes every value by default and
only text written by kvdoctor itself (templates, playbooks) is marked as trusted.
"""

from __future__ import annotations

import re

from markupsafe import Markup

# Markdown punctuation that can open a construct in the middle of a line. Line-start constructs
# (#, -, +, 1.) cannot happen: escaped values never contain a newline and never start a line.
# "<", ">" and "&" are backslash-escaped too (CommonMark allows it for all ASCII punctuation):
# no HTML tag or entity can form, and the raw text stays readable, unlike "&lt;". Parentheses,
# "!" and "#" stay as they are: without "[" they open no link or image, and "#" is only a
# heading at the start of a line, where an escaped value never is.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~<>&])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
# C0/C1 controls other than tab break terminals and some renderers; they carry no meaning here.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WHITESPACE_RUN = re.compile(r"[\t\r\n\u2028\u2029]+")
# Bidirectional controls (right-to-left override and friends) make a cell display other text
# than it holds ("Trojan Source"): shown as their code point instead, so the trick is visible.
_BIDI = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

DEFAULT_MAX_LEN = 300


def _one_line(text: str, max_len: int | None) -> str:
    text = _WHITESPACE_RUN.sub(" ", text)
    text = _CONTROL.sub("", text)
    text = _BIDI.sub(lambda m: f"U+{ord(m.group(0)):04X}", text)
    if max_len is not None and len(text) > max_len:
        # Cut before escaping so an escape sequence or entity is never split in half.
        text = text[: max_len - 1] + "…"
    return text


def escape_md(value: object, max_len: int | None = DEFAULT_MAX_LEN) -> Markup:
    """Escape untrusted text for any inline position, table cells included.

    The result is one line, has no raw HTML, no unescaped Markdown punctuation, and is at most
    ``max_len`` characters of the original text (an ellipsis marks a cut).
    """
    if isinstance(value, Markup):
        return value
    text = _one_line(str(value), max_len)
    return Markup(_MD_SPECIAL.sub(r"\\\1", text))


def escape_trusted(value: object) -> Markup:
    """Text kvdoctor wrote itself (templates, playbooks): keep its Markdown, stay table-safe.

    Emphasis and code spans written by playbook authors survive; HTML tags and pipes do not,
    because a stray ``|`` would split a table cell and HTML renders differently in every tracker.
    """
    if isinstance(value, Markup):
        return value
    text = _one_line(str(value), None)
    out: list[str] = []
    pos = 0
    for span in _CODE_SPAN.finditer(text):
        # Inside a code span "<" is already literal (and a backslash would show); outside it
        # could open a tag. Pipes split GFM table cells in both places.
        out.append(text[pos : span.start()].replace("<", "\\<").replace("|", "\\|"))
        out.append(span.group(0).replace("|", "\\|"))
        pos = span.end()
    out.append(text[pos:].replace("<", "\\<").replace("|", "\\|"))
    return Markup("".join(out))


def code_span(value: object, max_len: int | None = DEFAULT_MAX_LEN) -> Markup:
    """Untrusted text as an inline code span, safe inside a table cell.

    Backslashes do not escape inside code spans, so the fence is one backtick longer than the
    longest backtick run in the text. Pipes are the exception: GFM splits table cells on ``|``
    even inside code, so they are replaced by a look-alike (U+2502) rather than escaped. HTML
    needs nothing: code spans show ``<`` literally (and would show an entity literally too).
    """
    text = _one_line(str(value), max_len).replace("|", "\u2502")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")
