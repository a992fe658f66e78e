"""The integer-label regexes of the generated alert rules, exhaustively over a range."""

from __future__ import annotations

import re

from kvdoctor.alerts.promql import int_ge_regex, int_le_regex


def test_integer_label_regexes_match_exactly_their_side() -> None:
    for n in (0, 1, 9, 10, 63, 64, 100, 128, 999, 1000):
        ge, le = re.compile(f"^(?:{int_ge_regex(n)})$"), re.compile(f"^(?:{int_le_regex(n)})$")
        for v in range(0, 2100):
            assert bool(ge.match(str(v))) == (v >= n), (n, v)
            assert bool(le.match(str(v))) == (v <= n), (n, v)
