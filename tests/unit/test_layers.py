"""The package's imports point one way (docs/architecture.md), with no cycle anywhere.

Every ``import`` in ``kvdoctor/`` (module level, inside functions, and under TYPE_CHECKING, since
a type is a dependency too) is read with :mod:`ast` and checked three ways:

* against the layer table below: a module may import its own layer and the layers its layer
  lists, nothing else (the table itself is checked to be a strict order);
* for cycles between modules, package-internal ones included (importing ``a.b.c`` runs
  ``a/__init__.py`` and ``a/b/__init__.py`` first, so those count as imported too);
* an import inside a function is allowed only where :data:`LAZY` names it with the start-up
  cost it spares (measured as the modules it adds to a fresh interpreter; a replay's imports are
  also held by tests/integration/test_replay_imports.py).
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "kvdoctor"

# Layer -> the module prefixes in it (a module belongs to its longest matching prefix).
LAYERS: dict[str, tuple[str, ...]] = {
    # Shared vocabulary, plain data and pure arithmetic: no knowledge of any stage.
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
        "kvdoctor.experiment_catalog",
        "kvdoctor.thresholds",
        "kvdoctor.kvmath",
    ),
    # The bundle format (docs/bundle.md): what the probes write and everything else reads.
    "bundle": ("kvdoctor.bundle",),
    # Collecting: the probes and the capture loop that drives them.
    "probes": ("kvdoctor.probes", "kvdoctor.capture"),
    # Pure functions of a bundle.
    # kvdoctor.promptshare analyses a prompt sample into the bundle's prompt_sample.json record.
    "signals": ("kvdoctor.observations", "kvdoctor.signals", "kvdoctor.promptshare"),
    # The report/1 contract: findings, verdict, the report object (below everything that makes
    # or reads findings).
    "contracts": ("kvdoctor.report.model",),
    # Findings from signals and reproducer records.
    "rules": ("kvdoctor.rules",),
    # The experiments that confirm or refute findings against a live server.
    "reproducers": ("kvdoctor.reproducers",),
    # Renderers and the report checker.
    "report": ("kvdoctor.report",),
    # Flag edits per finding: called by the pipeline, never calling it.
    "remediation": ("kvdoctor.remediation",),
    # Whole runs built from the layers below.
    "orchestration": (
        "kvdoctor.pipeline",
        "kvdoctor.replay",
        "kvdoctor.compare",
        "kvdoctor.alerts",
        "kvdoctor.alerting",
        "kvdoctor.fleet",
        "kvdoctor.lab",
    ),
    # The CLI only wires: nothing else imports it.
    "cli": ("kvdoctor.cli", "kvdoctor.commands", "kvdoctor.__main__"),
}

# Layer -> the other layers it may import. Probes and signals are siblings over the bundle (a
# replay computes signals without any probe code); rules, reproducers and report are siblings
# over the contracts (the rules and the report read the experiment catalog in core, never the
# experiments).
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "core": (),
    "bundle": ("core",),
    "probes": ("core", "bundle"),
    "signals": ("core", "bundle"),
    "contracts": ("core", "bundle"),
    "rules": ("core", "bundle", "signals", "contracts"),
    # The experiments read /metrics through the probes' one client.
    "reproducers": ("core", "bundle", "probes", "signals"),
    "report": ("core", "bundle", "signals", "contracts"),
    # The planner reads signals through the rules' SignalView.
    "remediation": ("core", "bundle", "signals", "contracts", "rules"),
    "orchestration": (
        "core",
        "bundle",
        "probes",
        "signals",
        "contracts",
        "rules",
        "reproducers",
        "report",
        "remediation",
    ),
    "cli": (
        "core",
        "bundle",
        "probes",
        "signals",
        "contracts",
        "rules",
        "reproducers",
        "report",
        "remediation",
        "orchestration",
    ),
}

# Why an import waits for the function that needs it. Each reason names what it keeps off a
# path; the module counts are what the import adds to a fresh interpreter that already has the
# importer (measured with ``python -c "import A; import B"`` against ``import A``).
_HELP = (
    "a command's --help and usage errors answer before its machinery loads (the CLI imports a "
    "command module to parse it)"
)
_REPLAY = (
    "a replay (diagnose --bundle) never captures, writes a bundle or runs an experiment: "
    "kvdoctor.capture, kvdoctor.bundle.writer and the experiments stay off its path "
    "(tests/integration/test_replay_imports.py)"
)
_FLEET = (
    "a single-bundle replay imports kvdoctor.fleet for its options and is_fleet_bundle only: "
    "the fleet machinery (concurrent.futures, statistics, +13..95 modules) loads for a fleet run"
)
_HTTPX = "httpx and rich (+135 modules) load when a probe really talks to a server"

_RECEIVER = (
    "kvdoctor serve answers and queues webhooks before any diagnosis machinery loads; an "
    "investigation loads the capture, fleet and pipeline modules when it runs"
)
_LIVE_ONLY = (
    "a replay never talks to a server: httpx stays off its path (a prompt sample is tokenised "
    "by the server's /tokenize in a live run only)"
)

LAZY: dict[tuple[str, str], str] = {
    **{
        ("kvdoctor.alerting.investigate", t): _RECEIVER
        for t in (
            "kvdoctor.alerting.resolve",
            "kvdoctor.bundle.reader",
            "kvdoctor.capture",
            "kvdoctor.compare",
            "kvdoctor.fleet",
            "kvdoctor.fleet.build",
            "kvdoctor.fleet.promapi",
            "kvdoctor.fleet.store",
            "kvdoctor.pipeline",
            "kvdoctor.report.render",
        )
    },
    ("kvdoctor.alerting.resolve", "kvdoctor.fleet.capture"): _RECEIVER,
    ("kvdoctor.alerting.service", "kvdoctor.fleet.promapi"): _RECEIVER,
    ("kvdoctor.bundle.writer", "kvdoctor.bundle.reader"): (
        "only appending to a .tar.gz archive reads it back; a capture's writer never does"
    ),
    ("kvdoctor.pipeline", "kvdoctor.probes.http"): _LIVE_ONLY,
    ("kvdoctor.pipeline", "kvdoctor.probes.tokenize"): _LIVE_ONLY,
    ("kvdoctor.pipeline", "kvdoctor.promptshare"): _LIVE_ONLY,
    ("kvdoctor.rules.load", "kvdoctor.rules.schema"): (
        "the pydantic playbook schema validates playbook files only when the playbook cache is "
        "cold or stale: a replay with a warm cache reads plain runtime data "
        "(kvdoctor.rules.runtime) and never builds the schema's models"
    ),
    ("kvdoctor.signals.prompts", "kvdoctor.promptshare"): (
        "the prompt analysis runs only with a sample (--prompts, or two prompts in the request "
        "log): a replay without one skips its regexes and types (~2.5 ms)"
    ),
    **{
        (m, t): _HELP
        for m, t in (
            ("kvdoctor.commands._alerting_opts", "kvdoctor.alerting.config"),
            ("kvdoctor.commands.alerts", "kvdoctor.commands._capture_opts"),
            ("kvdoctor.commands.alerts", "kvdoctor.report.output"),
            ("kvdoctor.commands.alerts", "kvdoctor.urlauth"),
            ("kvdoctor.commands.compare", "kvdoctor.bundle.redact"),
            ("kvdoctor.commands.compare", "kvdoctor.commands._capture_opts"),
            ("kvdoctor.commands.compare", "kvdoctor.probes.engine"),
            ("kvdoctor.commands.diagnose", "kvdoctor.promptshare"),
            ("kvdoctor.commands.diagnose", "kvdoctor.signals.window"),
            ("kvdoctor.commands.diagnose", "kvdoctor.urlauth"),
            ("kvdoctor.commands.investigate", "kvdoctor.alerting.investigate"),
            ("kvdoctor.commands.investigate", "kvdoctor.alerting.payload"),
            ("kvdoctor.commands.investigate", "kvdoctor.alerting.service"),
            ("kvdoctor.commands.investigate", "kvdoctor.alerting.sinks"),
            ("kvdoctor.commands.investigate", "kvdoctor.alerting.state"),
            ("kvdoctor.commands.investigate", "kvdoctor.bundle.reader"),
            ("kvdoctor.commands.investigate", "kvdoctor.fleet"),
            ("kvdoctor.commands.investigate", "kvdoctor.fleet.promapi"),
            ("kvdoctor.commands.investigate", "kvdoctor.pipeline"),
            ("kvdoctor.commands.investigate", "kvdoctor.replay"),
            ("kvdoctor.commands.investigate", "kvdoctor.report.model"),
            ("kvdoctor.commands.investigate", "kvdoctor.urlauth"),
            ("kvdoctor.commands.reproduce", "kvdoctor.report.escape"),
            ("kvdoctor.commands.reproduce", "kvdoctor.urlauth"),
            ("kvdoctor.commands.serve", "kvdoctor.alerting.server"),
            ("kvdoctor.commands.serve", "kvdoctor.alerting.service"),
            ("kvdoctor.commands.serve", "kvdoctor.alerting.state"),
        )
    },
    # ``kvdoctor alerts`` without --write-runbooks never renders runbook pages (+67 modules).
    ("kvdoctor.alerts.generate", "kvdoctor.rules.docs"): "runbook pages only: +67 modules",
    ("kvdoctor.capture", "kvdoctor.probes.metrics"): _HTTPX,
    ("kvdoctor.capture", "kvdoctor.probes.server"): _HTTPX,
    ("kvdoctor.commands._capture_opts", "kvdoctor.capture"): _HELP + "; +129 modules",
    ("kvdoctor.commands._capture_opts", "kvdoctor.probes.engine"): _HELP + "; +131 modules",
    ("kvdoctor.commands.alerts", "kvdoctor.alerts.generate"): _HELP + "; +105 modules",
    ("kvdoctor.commands.alerts", "kvdoctor.fleet.promapi"): _HELP + "; +139 modules",
    ("kvdoctor.commands.alerts", "kvdoctor.rules.load"): _HELP + "; +154 modules",
    ("kvdoctor.commands.check", "kvdoctor.replay"): _HELP + "; +146 modules",
    ("kvdoctor.commands.compare", "kvdoctor.bundle.reader"): _HELP + "; +130 modules",
    ("kvdoctor.commands.compare", "kvdoctor.compare"): _HELP + "; +205 modules",
    ("kvdoctor.commands.compare", "kvdoctor.pipeline"): _HELP + "; +204 modules",
    ("kvdoctor.commands.compare", "kvdoctor.report.output"): _HELP + "; +15 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.bundle.model"): _HELP + "; pydantic, +125 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.bundle.reader"): _HELP + "; pydantic, +131 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.fleet.endpoints"): _FLEET,
    ("kvdoctor.commands.diagnose", "kvdoctor.kvmath"): _HELP + "; pydantic, +137 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.probes.logs"): _HELP + "; pydantic, +108 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.pipeline"): _HELP + "; jinja2, +212 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.report.exitcode"): _HELP + "; pydantic, +141 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.report.output"): _HELP + "; +16 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.report.render"): _HELP + "; jinja2, +184 modules",
    ("kvdoctor.commands.diagnose", "kvdoctor.replay"): (
        "a bundle given as it is needs nothing of the fixture checker (difflib, +4 modules)"
    ),
    ("kvdoctor.commands.kv", "kvdoctor.report.escape"): "Markdown output only: markupsafe",
    ("kvdoctor.commands.lab", "kvdoctor.lab.demo"): _HELP + "; psutil, +14 modules",
    ("kvdoctor.commands.lab", "kvdoctor.lab.server"): _HELP + "; psutil, +12 modules",
    ("kvdoctor.commands.record", "kvdoctor.capture"): _HELP + "; +127 modules",
    ("kvdoctor.commands.reproduce", "kvdoctor.bundle.model"): _HELP + "; pydantic, +124 modules",
    ("kvdoctor.commands.reproduce", "kvdoctor.bundle.redact"): _HELP + "; +7 modules",
    ("kvdoctor.commands.reproduce", "kvdoctor.bundle.writer"): _HELP + "; +128 modules",
    ("kvdoctor.commands.reproduce", "kvdoctor.probes.metrics"): _HELP + "; +248 modules",
    ("kvdoctor.commands.reproduce", "kvdoctor.reproducers.experiments"): (
        _HELP + "; httpx and asyncio, +308 modules"
    ),
    ("kvdoctor.commands.reproduce", "kvdoctor.reproducers.host"): _HELP + "; +129 modules",
    ("kvdoctor.commands.rules", "kvdoctor.rules.docs"): _HELP + "; +147 modules",
    ("kvdoctor.commands.rules", "kvdoctor.rules.load"): _HELP + "; +154 modules",
    ("kvdoctor.fleet", "kvdoctor.fleet.build"): _FLEET,
    ("kvdoctor.fleet", "kvdoctor.fleet.bundle"): _HELP + "; pydantic through the bundle reader",
    ("kvdoctor.fleet", "kvdoctor.fleet.promapi"): _HELP + "; pydantic through the redactor",
    ("kvdoctor.fleet", "kvdoctor.fleet.capture"): _FLEET,
    ("kvdoctor.fleet", "kvdoctor.fleet.diagnose"): _FLEET,
    ("kvdoctor.fleet", "kvdoctor.fleet.endpoints"): _FLEET,
    ("kvdoctor.fleet", "kvdoctor.fleet.render"): _FLEET,
    ("kvdoctor.fleet", "kvdoctor.fleet.store"): _FLEET,
    ("kvdoctor.fleet.bundle", "kvdoctor.bundle.writer"): _REPLAY,
    ("kvdoctor.pipeline", "kvdoctor.bundle.writer"): _REPLAY,
    ("kvdoctor.pipeline", "kvdoctor.bundle.redact"): (
        "a replay scrubs no live answer: the redactor's 15 patterns compile in live runs only"
    ),
    ("kvdoctor.report.render", "kvdoctor.report.bccache"): (
        "Markdown only: --format json renders no template and never imports jinja2 (+24 modules)"
    ),
    ("kvdoctor.pipeline", "kvdoctor.capture"): _REPLAY,
    ("kvdoctor.pipeline", "kvdoctor.reproducers.experiments"): (
        _REPLAY + "; httpx and asyncio, +189 modules"
    ),
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


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path = PACKAGE) -> bool:
    path = root.parent / Path(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def imported(tree: ast.AST, package: str, root: Path = PACKAGE) -> list[tuple[int, str]]:
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
                out.append((node.lineno, sub if _is_module(sub, root) else base))
    return out


def _sources(root: Path) -> Iterator[tuple[Path, str, str, ast.Module]]:
    """(path, module, package, tree) of every module under ``root``."""
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        yield path, module, package, ast.parse(path.read_text(encoding="utf-8"))


def violations(root: Path = PACKAGE) -> list[str]:
    found: list[str] = []
    for path, module, package, tree in _sources(root):
        for line, target in imported(tree, package, root):
            if not allowed(module, target):
                found.append(
                    f"{path.relative_to(root.parent)}:{line}: {module} ({layer_of(module)}) "
                    f"imports {target} ({layer_of(target)})"
                )
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the kvdoctor modules importing it runs: every import in it, plus the packages
    above each (their ``__init__`` runs first) that are not the importer's own packages (those
    are already running when it is imported)."""
    graph: dict[str, set[str]] = {}
    for _, module, package, tree in _sources(root):
        edges = graph.setdefault(module, set())
        for _, target in imported(tree, package, root):
            if target != module:
                edges.add(target)
            parts = target.split(".")
            for i in range(1, len(parts)):
                above = ".".join(parts[:i])
                if not module.startswith(above + "."):
                    edges.add(above)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def local_imports(root: Path = PACKAGE) -> list[tuple[str, int, str]]:
    """(importer, line, imported module) of every kvdoctor import inside a function."""
    out: list[tuple[str, int, str]] = []
    for _, module, package, tree in _sources(root):
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                for stmt in fn.body:
                    out += [(module, ln, t) for ln, t in imported(stmt, package, root)]
    return sorted(set(out))


# ---------------------------------------------------------------------------------- the tests


def test_imports_point_down_the_layers() -> None:
    assert violations() == []


def test_the_layer_table_is_a_strict_order() -> None:
    layer_graph = {layer: set(below) for layer, below in MAY_IMPORT.items()}
    assert set(MAY_IMPORT) == set(LAYERS)
    assert cycles(layer_graph) == []
    assert all(layer not in below for layer, below in layer_graph.items())


def test_no_import_cycle_between_modules() -> None:
    assert cycles(import_graph()) == []


def test_every_function_local_import_has_its_reason() -> None:
    unexplained = [
        f"{m}:{line} imports {t} inside a function: import it at the top, or add it to LAZY "
        "with the start-up cost it spares"
        for m, line, t in local_imports()
        if (m, t) not in LAZY
    ]
    assert unexplained == []
    # A reason whose import is gone is stale: the table says only what is true.
    used = {(m, t) for m, _, t in local_imports()}
    assert sorted(set(LAZY) - used) == []


def _copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "kvdoctor"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "data"))
    return root


def _plant(root: Path, relpath: str, line: str) -> None:
    path = root / relpath
    path.write_text(path.read_text(encoding="utf-8") + f"\n\ndef _planted() -> None:\n    {line}\n")


def test_a_planted_cycle_between_layers_fails(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    assert cycles(import_graph(root)) == []
    # The catalog (core) reaching up into the rules that read it.
    _plant(root, "experiment_catalog.py", "from kvdoctor.rules.experiments import plan_for")
    assert any("kvdoctor.experiment_catalog" in c for c in cycles(import_graph(root)))
    assert any("experiment_catalog" in v for v in violations(root))


def test_a_planted_cycle_inside_a_package_fails(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    # Same layer, so the table allows it; the cycle check does not.
    _plant(root, "kvmath/entries.py", "from kvdoctor.kvmath.model import KvModel")
    assert violations(root) == []
    found = cycles(import_graph(root))
    assert ["kvdoctor.kvmath.entries", "kvdoctor.kvmath.model"] in found


def test_a_planted_cycle_through_a_package_init_fails(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    # The package's __init__ imports base; base importing its own package back is a cycle.
    _plant(root, "reproducers/experiments/base.py", "from kvdoctor.reproducers import experiments")
    assert any(
        "kvdoctor.reproducers.experiments" in c and "kvdoctor.reproducers.experiments.base" in c
        for c in cycles(import_graph(root))
    )


def test_the_table_forbids_the_seams_it_was_written_for() -> None:
    assert not allowed("kvdoctor.signals.compute", "kvdoctor.probes.engine")
    assert not allowed("kvdoctor.lab.demo", "kvdoctor.commands._capture_opts")
    assert not allowed("kvdoctor.rules.evaluate", "kvdoctor.report.render")
    assert not allowed("kvdoctor.bundle.reader", "kvdoctor.signals.compute")
    # The cycles this table once permitted.
    assert not allowed("kvdoctor.rules.evaluate", "kvdoctor.reproducers.experiments.registry")
    assert not allowed("kvdoctor.reproducers.experiments.registry", "kvdoctor.rules.evaluate")
    assert not allowed("kvdoctor.report.render", "kvdoctor.reproducers.model")
    assert not allowed("kvdoctor.remediation", "kvdoctor.pipeline")
    assert allowed("kvdoctor.rules.evaluate", "kvdoctor.report.model")
    assert allowed("kvdoctor.rules.validate", "kvdoctor.experiment_catalog")
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
