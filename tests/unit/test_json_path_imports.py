"""A JSON report never imports jinja2: its summary sentence is worded in Python.

Static, so it stays in the unit tier (no child process): the module-level imports reachable from
the replay's pipeline and the JSON renderer, read with :mod:`ast`, name no jinja2. A fresh
interpreter running ``kvdoctor diagnose --bundle ... --format json`` is checked by
tests/integration/test_replay_imports.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "kvdoctor"


def _source(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] != "kvdoctor":
        return None
    if len(parts) == 1:
        return PACKAGE / "__init__.py"
    rel = Path(*parts[1:])
    for candidate in (PACKAGE / rel / "__init__.py", PACKAGE / rel.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _top_level_imports(module: str) -> set[str]:
    """Modules ``module`` imports when it is imported (not in functions, not TYPE_CHECKING)."""
    path = _source(module)
    if path is None:
        return set()
    out: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {
                f"{node.module}.{a.name}" for a in node.names if _source(f"{node.module}.{a.name}")
            }
    return out


def _closure(roots: tuple[str, ...]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # a.b.c runs a/__init__ and a/b/__init__ first
            prefix = ".".join(parts[:i])
            if prefix in seen:
                continue
            seen.add(prefix)
            if prefix.startswith("kvdoctor"):
                todo.extend(_top_level_imports(prefix))
    return seen


def test_the_json_path_imports_no_jinja2() -> None:
    reached = _closure(
        ("kvdoctor.commands.diagnose", "kvdoctor.pipeline", "kvdoctor.report.render")
    )
    assert "kvdoctor.pipeline" in reached
    assert sorted(m for m in reached if m.split(".")[0] in ("jinja2",)) == []
