"""Escaping of untrusted text: it must never break a table or reach a ticket as HTML."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kvdoctor.report.escape import code_span, escape_md, escape_trusted

MD = MarkdownIt("commonmark").enable("table")

# Printable text of any script, including every Markdown and HTML metacharacter.
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=80
)
# The same, less the bidirectional controls: the escaper shows those as their code point on
# purpose (test_hardening_render checks it), so they cannot render back to themselves.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ROUND_TRIP_TEXT = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters=BIDI_CONTROLS
    ),
    min_size=1,
    max_size=80,
)


def _cell_tokens(cell_markdown: str) -> list[object]:
    tokens = MD.parse(f"| head |\n|---|\n| {cell_markdown} |\n")
    cells = [t for t in tokens if t.type == "td_open"]
    assert len(cells) == 1, "the value split or swallowed the table cell"
    inline = [t for t in tokens if t.type == "inline"][-1]
    return list(inline.children or [])


@settings(max_examples=300, deadline=None)
@given(ROUND_TRIP_TEXT)
def test_escaped_text_renders_back_to_itself_inside_one_table_cell(text: str) -> None:
    children = _cell_tokens(escape_md(text))
    assert all(c.type == "text" for c in children), [c.type for c in children]
    # Table cells are trimmed, and CommonMark turns a NUL into U+FFFD; nothing else may change.
    assert "".join(c.content for c in children) == text.strip()


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_code_span_stays_one_code_span_in_one_cell(text: str) -> None:
    children = _cell_tokens(code_span(text))
    kinds = [c.type for c in children]
    assert kinds == ["code_inline"], kinds


def test_escape_removes_newlines_html_and_long_tails() -> None:
    hostile = "model|x\n# heading\r\n<script>alert(1)</script> [a](http://e) `c` *b*"
    out = escape_md(hostile)
    assert "\n" not in out and "\r" not in out
    assert "\\<script\\>" in out
    assert "\\|" in out and "\\[" in out and "\\`" in out and "\\*" in out
    assert len(escape_md("x" * 1000, max_len=50)) == 50
    assert escape_md("x" * 1000, max_len=50).endswith("…")


def test_trusted_text_keeps_markdown_but_not_html_or_pipes() -> None:
    out = escape_trusted("Lower `--max-num-seqs <n>` to 16 | <b>now</b>")
    assert "`--max-num-seqs <n>`" in out
    assert "\\|" in out and "\\<b>now\\</b>" in out
    tokens = MD.parse(f"| h |\n|---|\n| {out} |\n")
    kinds = [c.type for t in tokens for c in t.children or []]
    assert "html_inline" not in kinds and "code_inline" in kinds


def test_code_span_fence_outgrows_backticks_in_the_value() -> None:
    assert code_span("a``b") == "```a``b```"
    assert code_span("`x") == "`` `x ``"
