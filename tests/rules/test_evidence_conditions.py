"""Evidence rows carry their condition as data (``holds``), and it agrees with their words.

The engine stores whether each row's condition holds (``Evidence.met``); the renderer reads
that, never the prose. So a row whose words state a comparison ("≥ 0.90: the pool fills up",
"above the {seqs_that_fit} sequences the pool holds") must carry a ``holds`` condition on the
same signal with the same operator and bound: otherwise the report could print "not met" where
the words hold, or nothing where they do not.
"""

from __future__ import annotations

import re

from test_rule_cases import PLAYBOOKS

from kvdoctor.report.checker import _COMPARATOR
from kvdoctor.rules import schema
from kvdoctor.rules.load import runtime_of
from kvdoctor.rules.runtime import Condition, EvidenceSpec

_OPS = {
    "≥": ">=",
    "at least": ">=",
    "≤": "<=",
    "at most": "<=",
    ">": ">",
    "above": ">",
    "over": ">",
    "<": "<",
    "below": "<",
    "under": "<",
}
_PLACEHOLDER = re.compile(
    r"^(?:≥|≤|>|<|above|below|at least|at most|under|over)\s*(?:the )?\{(\w+)\}"
)

ROWS = [
    (f"{pb.id}/{cause.id}/{ev.signal}", ev)
    for pb in PLAYBOOKS
    for cause in pb.causes
    for ev in cause.evidence
]


def _stated(text: str) -> tuple[str, str] | None:
    """(op, bound) of the comparison the words state, as the report's reader would take it."""
    probe = re.sub(r"\{\w+\}", "7", text)
    m = _COMPARATOR.match(probe)
    if m is None:
        return None
    rest = probe[m.end() :].lstrip()
    if not (
        rest.startswith(":") or (m.group("op") in ("above", "below") and m.group("words") == "the ")
    ):
        return None
    ph = _PLACEHOLDER.match(text)
    if ph:
        return _OPS[m.group("op")], ph.group(1)
    n = float(m.group("n").replace(",", ""))
    unit = m.group("u") or ""
    n = n / 100 if unit == "%" else n / 1000 if unit == "ms" else n
    return _OPS[m.group("op")], repr(n)


def _problems(name: str, ev: EvidenceSpec) -> list[str]:
    stated = _stated(ev.expected)
    if stated is None:
        return []  # the words state no condition; a row may still carry one
    if not isinstance(ev.holds, Condition):
        return [f"{name}: {ev.expected!r} states a condition: add holds"]
    op, bound = stated
    out: list[str] = []
    if ev.holds.signal != ev.signal:
        out.append(f"{name}: holds tests {ev.holds.signal}, the row shows {ev.signal}")
    if ev.holds.op != op:
        out.append(f"{name}: the words say {op}, holds says {ev.holds.op}")
    if ev.holds.value_from is not None:
        if (ev.holds.value_from, ev.holds.scale) != (bound, 1.0):
            out.append(f"{name}: the words compare with {bound}, holds with {ev.holds.value_from}")
    elif not isinstance(ev.holds.value, int | float) or repr(float(ev.holds.value)) != bound:
        out.append(f"{name}: the words compare with {bound}, holds with {ev.holds.value}")
    return out


def test_words_that_state_a_comparison_carry_it_as_data() -> None:
    stated = [name for name, ev in ROWS if _stated(ev.expected) is not None]
    assert len(stated) >= 28  # the playbooks' comparisons, each checked below
    assert [p for name, ev in ROWS for p in _problems(name, ev)] == []


def test_a_row_whose_condition_disagrees_with_its_words_is_caught() -> None:
    row = runtime_of(
        schema.EvidenceSpec(
            signal="kv_usage_max",
            expected="≥ 0.90: the pool fills up",
            holds=schema.Condition(signal="kv_usage_max", op="<", value=0.9),
        )
    )
    assert isinstance(row, EvidenceSpec)
    assert _problems("planted", row) == ["planted: the words say >=, holds says <"]
    bare = runtime_of(
        schema.EvidenceSpec(signal="running_max", expected="above the {seqs_that_fit} sequences")
    )
    assert isinstance(bare, EvidenceSpec)
    assert _problems("bare", bare) == [
        "bare: 'above the {seqs_that_fit} sequences' states a condition: add holds"
    ]
