"""Default factories for pydantic fields on the replay path.

pydantic reads the signature of every ``default_factory`` when a model class is built (to see
whether it takes the validated data). For a builtin such as ``list`` or ``dict`` that signature
is parsed from its text with :mod:`tokenize`: the first one imports tokenize and compiles its
regular expressions (~3 ms), and each later one tokenizes again. A Python function carries its
signature, so these cost nothing at start-up; they build the same empty values.
"""

from __future__ import annotations

from typing import Any


def new_list() -> list[Any]:
    """``[]``, as ``default_factory=list`` gives."""
    return []


def new_dict() -> dict[str, Any]:
    """``{}``, as ``default_factory=dict`` gives."""
    return {}
