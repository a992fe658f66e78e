"""A tiny, safe template formatter for playbook text: ``{name}`` and ``{name:spec}`` only.

Placeholders are plain signal or derived-value names: no attribute access, no indexing, no
conversions, so a playbook can never reach into Python objects. Values are formatted for
people (thousands separators, three significant digits); ``{name:plain}`` drops the separators
(for a value pasted into a flag), ``{name:dur}`` is a duration, ``{name:x}`` a ratio ("4.2×"),
``{name:gib}`` bytes in GiB ("29.6") and other specs are Python format specs. A missing value
raises :class:`MissingValue` so the caller can use the item's fallback text.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence

from kvdoctor.lazyre import LazyPattern
from kvdoctor.signals.model import Scalar

# What a placeholder may stand for: a scalar, or (fleet signals) a list of names, rendered
# "a, b, c", or a table (expanded into evidence rows by the engine, never a sentence).
TemplateValue = Scalar | Sequence[str] | Mapping[str, Scalar]

_NAME = LazyPattern(r"^[a-z_][a-z0-9_]*$")
_FORMATTER = string.Formatter()


class MissingValue(Exception):
    """A placeholder's value is unknown (None)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def template_fields(text: str) -> list[str]:
    """Names used by ``text``; raises ValueError for anything beyond ``{name[:spec]}``."""
    names: list[str] = []
    try:
        parsed = list(_FORMATTER.parse(text))
    except ValueError as exc:
        raise ValueError(f"bad template {text!r}: {exc}") from None
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if not _NAME.match(field):
            raise ValueError(f"placeholder {{{field}}} must be a plain lower-case name")
        if conversion is not None:
            raise ValueError(f"placeholder {{{field}!{conversion}}}: conversions are not allowed")
        if spec and "{" in spec:
            raise ValueError(f"placeholder {{{field}}}: nested fields are not allowed")
        names.append(field)
    return names


def human(value: TemplateValue, separators: bool = True) -> str:
    """Format a value for a sentence: 1,400 tokens, 0.95, 12.5, on/off.

    ``separators=False`` (the ``:plain`` spec) is for values pasted into a flag: 8192.
    """
    sep = "," if separators else ""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:{sep}}"
    if isinstance(value, float):
        if value.is_integer() and abs(value) >= 1:
            return f"{int(value):{sep}}"
        if abs(value) >= 1000:
            return f"{value:{sep}.0f}"
        return f"{value:.3g}"
    return str(value)


def duration(seconds: float) -> str:
    """A duration in the unit its size calls for: 850 µs, 42 ms, 2.4 s, 95 s."""
    a = abs(seconds)
    if a < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if a < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def render(text: str, lookup: Callable[[str], TemplateValue]) -> str:
    """Fill ``text``'s placeholders from ``lookup``; raises MissingValue on an unknown value."""
    out: list[str] = []
    for literal, field, spec, _conversion in _FORMATTER.parse(text):
        out.append(literal)
        if field is None:
            continue
        value = lookup(field)
        if value is None:
            raise MissingValue(field)
        if spec == "plain":
            out.append(human(value, separators=False))
            continue
        if spec == "x":
            # A ratio: "4.2×", or the range the report states for it ("between 126× and 253×").
            if isinstance(value, int | float) and not isinstance(value, bool):
                out.append(f"{value:.3g}×")
            else:
                out.append(human(value))
            continue
        if spec == "gib" and isinstance(value, int | float) and not isinstance(value, bool):
            # Bytes as GiB, three significant digits: "29.6", "140".
            g = float(value) / (1 << 30)
            out.append(f"{g:,.0f}" if abs(g) >= 100 else f"{g:.3g}")
            continue
        if spec == "dur" and isinstance(value, int | float) and not isinstance(value, bool):
            out.append(duration(float(value)))
            continue
        if spec and isinstance(value, int | float) and not isinstance(value, bool):
            try:
                out.append(format(value, spec))
                continue
            except (ValueError, TypeError):
                pass  # a spec that does not suit this value: fall back to the human form
        out.append(human(value))
    return "".join(out)


def render_or(text: str, fallbacks: list[str], lookup: Callable[[str], TemplateValue]) -> str:
    """The first of ``text`` and ``fallbacks`` whose values are all known, rendered; else
    ``text`` with 'unknown' for the gaps."""
    for candidate in (text, *fallbacks):
        try:
            return render(candidate, lookup)
        except MissingValue:
            continue

    def _unknown(name: str) -> TemplateValue:
        v = lookup(name)
        return "unknown" if v is None else v

    return render(text, _unknown)


def placeholder_name(field: str, *, markdown: bool = False) -> str:
    """How listings and runbooks show a value filled in only at diagnosis: ``<block_size>``
    (a code span in Markdown, where a bare ``<name>`` could read as an HTML tag)."""
    return f"`<{field}>`" if markdown else f"<{field}>"


def placeholders_as_names(
    text: str,
    constants: Callable[[str], TemplateValue] | None = None,
    *,
    markdown: bool = False,
) -> str:
    """``text`` with each placeholder shown as its name, ``<name>`` (spec dropped; listings,
    runbooks, docs); a name ``constants`` knows (a fleet playbook's thresholds) is filled in
    instead."""
    out: list[str] = []
    for literal, field, spec, _conversion in _FORMATTER.parse(text):
        out.append(literal)
        if field is None:
            continue
        value = constants(field) if constants is not None else None
        if value is None:
            out.append(placeholder_name(field, markdown=markdown))
        else:
            out.append(render(f"{{{field}:{spec}}}" if spec else f"{{{field}}}", constants))  # type: ignore[arg-type]
    return "".join(out)
