"""The package's imports point one way (DESIGN.md §1): probes → bundle → signals → rules → report.

Every ``import`` in ``kvdoctor/`` (module level, inside functions, and under TYPE_CHECKING, since
a type is a dependency too) is read with :mod:`ast` and checked against the table below: a
module may import its own layer and the layers its layer lists, nothing else. The CLI sits on
top and only wires; nothing else imports ``kvdoctor.cli`` or ``kvdoctor.commands``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "kvdoctor"

# Layer -> the module prefixes in it (a module belongs to its longest matching prefix).
LAYERS: dict[str, tuple[str, ...]] = {
    # Shared vocabulary and pure arithmetic: no knowledge of any stage.
    "core": (
        "kvdoctor",
        "kvdoctor.errors",
        "kvdoctor.vocab",
        "kvdoctor.expfmt",
        "kvdoctor.resources",
        "kvdoctor.urlauth",
        "kvdoctor.slo",
        "kvdoctor.cache",
        "kvdoctor.vllm_metrics",
        "kvdoctor.kvmath",
    ),
    # The bundle format (DESIGN.md §3): what the probes write and everything else reads.
    "bundle": ("kvdoctor.bundle",),
    # Collecting: the probes and the capture loop that drives them.
    "probes": ("kvdoctor.probes", "kvdoctor.capture"),
    # Pure functions of a bundle.
    "signals": ("kvdoctor.observations", "kvdoctor.signals"),
    # Findings from signals (their model is the rules'; the report renders it).
    "rules": ("kvdoctor.rules", "kvdoctor.report.model"),
    # The experiments that confirm or refute findings against a live server.
    "reproducers": ("kvdoctor.reproducers",),
    "report": ("kvdoctor.report",),
    # Whole runs built from the layers below.
    "orchestration": (
        "kvdoctor.pipeline",
        "kvdoctor.replay",
        "kvdoctor.compare",
        "kvdoctor.remediation",
        "kvdoctor.alerts",
        "kvdoctor.alerting",
        "kvdoctor.fleet",
        "kvdoctor.lab",
    ),
    # The CLI only wires: nothing else imports it.
    "cli": ("kvdoctor.cli", "kvdoctor.commands", "kvdoctor.__main__"),
}

_BELOW_ORCHESTRATION = ("core", "bundle", "probes", "signals", "rules", "reproducers", "report")

# Layer -> the other layers it may import. Signals and probes are siblings over the bundle:
# a replay computes signals without any probe code.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "core": (),
    "bundle": ("core",),
    "probes": ("core", "bundle"),
    "signals": ("core", "bundle"),
    # The reproducers: the playbook loader rejects an experiment, cause or measured key the
    # experiment registry does not know (load-time checks), so the rules read the registry.
    "rules": ("core", "bundle", "signals", "reproducers"),
    # The experiments read /metrics through the probes' one client, and plan from playbooks.
    "reproducers": ("core", "bundle", "probes", "signals", "rules"),
    "report": ("core", "bundle", "signals", "rules", "reproducers"),
    "orchestration": _BELOW_ORCHESTRATION,
    "cli": (*_BELOW_ORCHESTRATION, "orchestration"),
}


def layer_of(module: str) -> str | None:
    best, layer = "", None
    for name, prefixes in LAYERS.items():
        for prefix in prefixes:
            hit = module == prefix or module.startswith(prefix + ".")
            if hit and len(prefix) > len(best):
                best, layer = prefix, name
    return layer


def allowed(importer: str, imported_module: str) -> bool:
    mine, theirs = layer_of(importer), layer_of(imported_module)
    assert mine is not None, f"{importer} is in no layer: add it to LAYERS"
    assert theirs is not None, f"{imported_module} is in no layer: add it to LAYERS"
    return mine == theirs or theirs in MAY_IMPORT[mine]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent / Path(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def imported(tree: ast.AST, package: str) -> list[tuple[int, str]]:
    """(line, module) of every kvdoctor import, relative ones resolved against ``package``."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("kvdoctor")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("kvdoctor"):
                continue
            # ``from kvdoctor import expfmt`` imports the module kvdoctor.expfmt.
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((node.lineno, sub if _is_module(sub) else base))
    return out


def violations() -> list[str]:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for line, target in imported(ast.parse(path.read_text(encoding="utf-8")), package):
            if not allowed(module, target):
                found.append(
                    f"{path.relative_to(PACKAGE.parent)}:{line}: {module} ({layer_of(module)}) "
                    f"imports {target} ({layer_of(target)})"
                )
    return found


def test_imports_point_down_the_layers() -> None:
    assert violations() == []


def test_the_table_forbids_the_seams_it_was_written_for() -> None:
    assert not allowed("kvdoctor.signals.compute", "kvdoctor.probes.engine")
    assert not allowed("kvdoctor.lab.demo", "kvdoctor.commands._capture_opts")
    assert not allowed("kvdoctor.rules.engine", "kvdoctor.report.render")
    assert not allowed("kvdoctor.bundle.reader", "kvdoctor.signals.compute")
    assert allowed("kvdoctor.rules.engine", "kvdoctor.report.model")
    assert allowed("kvdoctor.signals.compute", "kvdoctor.bundle.argv")
    tree = ast.parse("from kvdoctor.probes.engine import parse_argv\nfrom kvdoctor import expfmt\n")
    assert imported(tree, "kvdoctor.signals") == [
        (1, "kvdoctor.probes.engine"),
        (2, "kvdoctor.expfmt"),
    ]


def test_a_relative_import_is_resolved() -> None:
    tree = ast.parse("from ..probes import metrics\nfrom . import model\n")
    assert imported(tree, "kvdoctor.signals") == [
        (1, "kvdoctor.probes.metrics"),
        (2, "kvdoctor.signals.model"),
    ]
