"""Loading playbooks: read, validate (:mod:`kvdoctor.rules.schema`, then
:mod:`kvdoctor.rules.validate`) and cache them.

A validated playbook becomes plain runtime data (:mod:`kvdoctor.rules.runtime`), which is
what the engine reads and what is pickled, under a key that covers the files' bytes and the
source of every module whose code decides what a valid playbook is (:data:`VALIDATION_MODULES`).
With a warm cache the pydantic schema is never imported.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from kvdoctor import __version__
from kvdoctor.cache import load_pickle, store_pickle
from kvdoctor.errors import KvdoctorError
from kvdoctor.report.model import SYMPTOMS
from kvdoctor.resources import data_dir
from kvdoctor.rules.runtime import RUNTIME_CLASSES, Playbook, Scope
from kvdoctor.rules.validate import check_playbook

if TYPE_CHECKING:
    from kvdoctor.rules import schema


def load_playbooks(directory: Path | None = None, scope: Scope = "replica") -> list[Playbook]:
    """Load and validate every ``*.yaml`` playbook, in troubleshooting-table order.

    ``scope`` is what the directory must hold: replica playbooks (the default directory,
    ``playbooks/``) or fleet playbooks (``playbooks/fleet/``, see :func:`load_fleet_playbooks`);
    each is checked against its own signal registry.
    """
    if directory is None:
        directory = data_dir("playbooks")
        if scope == "fleet":
            directory = directory / FLEET_DIR
    if not directory.is_dir():
        raise KvdoctorError(f"playbook directory not found: {directory}")
    paths = sorted(directory.glob("*.yaml"))
    key = _cache_key(directory, paths, scope)
    cached = None if key is None else load_pickle("playbooks", key)
    if isinstance(cached, list) and all(isinstance(pb, Playbook) for pb in cached):
        return cached
    texts: list[bytes] = []
    for path in paths:
        try:
            texts.append(path.read_bytes())
        except OSError as exc:
            raise KvdoctorError(f"{directory.name}/{path.name}: cannot read: {exc}") from None
    result = _load_all(directory, paths, texts, scope)
    if key is not None:
        store_pickle("playbooks", key, result)
    return result


# The fleet playbooks' folder under the playbooks data directory.
FLEET_DIR = "fleet"


def load_fleet_playbooks(directory: Path | None = None) -> list[Playbook]:
    """The fleet playbooks (``playbooks/fleet/*.yaml``): findings that compare replicas."""
    return load_playbooks(directory, scope="fleet")


# Every kvdoctor module this one imports, directly or not (the checks in kvdoctor.rules.validate
# among them): their code decides what a valid playbook is and what it becomes (the experiment
# catalog's measured keys, the signal names, the vocabulary), so each is part of the cache key.
# tests/unit/test_cache.py holds this list equal to the import graph: a module added to it
# without a line here fails there.
VALIDATION_MODULES: tuple[str, ...] = (
    "kvdoctor",
    "kvdoctor.bundle",
    "kvdoctor.bundle.model",
    "kvdoctor.cache",
    "kvdoctor.errors",
    "kvdoctor.experiment_catalog",
    "kvdoctor.expfmt",
    "kvdoctor.factories",
    "kvdoctor.inputs",
    "kvdoctor.kvmath",
    "kvdoctor.kvmath.capacity",
    "kvdoctor.kvmath.catalog",
    "kvdoctor.kvmath.entries",
    "kvdoctor.kvmath.memory",
    "kvdoctor.kvmath.model",
    "kvdoctor.kvmath.result",
    "kvdoctor.kvmath.section",
    "kvdoctor.kvmath.sizes",
    "kvdoctor.lazyre",
    "kvdoctor.report",
    "kvdoctor.report.model",
    "kvdoctor.resources",
    "kvdoctor.rules.formatting",
    "kvdoctor.rules.load",
    "kvdoctor.rules.predicates",
    "kvdoctor.rules.runtime",
    "kvdoctor.rules.schema",
    "kvdoctor.rules.validate",
    "kvdoctor.signals",
    "kvdoctor.signals.catalog",
    "kvdoctor.signals.fleet",
    "kvdoctor.signals.model",
    "kvdoctor.signals.physics",
    "kvdoctor.thresholds",
    "kvdoctor.vllm_metrics",
    "kvdoctor.vocab",
)


def validation_sources() -> tuple[Path, ...]:
    """The source files of :data:`VALIDATION_MODULES`, found without importing the ones a
    replay leaves out (the ``kv`` command's parts of :mod:`kvdoctor.kvmath`)."""
    return tuple(_source_of(name) for name in VALIDATION_MODULES)


def _source_of(name: str) -> Path:
    module = sys.modules.get(name)
    if module is not None:
        return Path(getattr(module, "__file__", None) or "")
    spec = find_spec(name)
    if spec is None or spec.origin is None:
        return Path(getattr(import_module(name), "__file__", None) or "")
    return Path(spec.origin)


def _cache_key(directory: Path, paths: Sequence[Path], scope: Scope) -> str | None:
    """Validated playbooks are cached (loading and checking them was a fifth of a replay).

    The key covers the pydantic version that validates them, kvdoctor's version, and the path,
    size, modification and change times (ns) and inode of every playbook file and of the source
    of every module whose code decides what a valid playbook is and what it becomes
    (:data:`VALIDATION_MODULES`): a file written, replaced or chmod-ed is a new key, found
    without reading or hashing any file's bytes (that was ~1 ms of every replay). Python itself
    takes a module's compiled code as current on its source's size and modification time, so
    the key is no weaker than the code it stands for. ``None`` (no caching) when a file cannot
    be stat'ed.
    """
    import hashlib
    import os

    import pydantic

    parts = [pydantic.VERSION, __version__, scope, str(directory)]
    try:
        for path in (*validation_sources(), *paths):
            st = os.stat(path)
            parts.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}")
    except OSError:
        return None
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()[:32]


def _load_all(
    directory: Path, paths: Sequence[Path], texts: Sequence[bytes], scope: Scope
) -> list[Playbook]:
    playbooks: list[tuple[Playbook, str]] = []
    for path, raw in zip(paths, texts, strict=True):
        label = f"{directory.name}/{path.name}"
        playbooks.append((_load_one(path, raw, label, scope), label))
    if not playbooks:
        raise KvdoctorError(f"no playbooks (*.yaml) in {directory}")
    seen: dict[str, str] = {}
    for pb, label in playbooks:
        if pb.id in seen:
            raise KvdoctorError(f"{label}: id: playbook id {pb.id!r} already used by {seen[pb.id]}")
        seen[pb.id] = label
    order = {s: i for i, s in enumerate(SYMPTOMS)}
    return [pb for pb, _ in sorted(playbooks, key=lambda x: (order[x[0].symptom], x[0].id))]


def _strict_loader() -> type:
    """PyYAML's safe loader (libyaml's when there) that refuses a key given twice in one
    mapping: YAML keeps the last silently, and a second ``explains:`` under one cause once
    dropped the first without a word."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[object, object]:
        loader.flatten_mapping(node)
        pairs = loader.construct_pairs(node, deep=True)
        seen: set[object] = set()
        for (key, _), (key_node, _) in zip(pairs, node.value, strict=True):
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return dict(pairs)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return StrictLoader


def runtime_of(value: object) -> object:
    """A validated schema instance (and what it holds) as :mod:`kvdoctor.rules.runtime` data:
    each model becomes the runtime class of its name, every field given in the schema's order."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:
        cls = RUNTIME_CLASSES[type(value).__name__]
        return cls(*(runtime_of(getattr(value, name)) for name in fields))
    if isinstance(value, list):
        return [runtime_of(v) for v in value]
    return value


def runtime_playbook(pb: schema.Playbook) -> Playbook:
    """``pb`` as the engine reads it."""
    out = runtime_of(pb)
    assert isinstance(out, Playbook)
    return out


def _load_one(path: Path, raw: bytes, label: str, scope: Scope) -> Playbook:
    import yaml
    from pydantic import ValidationError

    from kvdoctor.rules.schema import Playbook as PlaybookSchema

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KvdoctorError(f"{label}: cannot read: {exc}") from None
    try:
        # libyaml's loader when PyYAML has it: the pure-Python one was a quarter of a replay.
        data = yaml.load(text, Loader=_strict_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise KvdoctorError(f"{label}: invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise KvdoctorError(f"{label}: a playbook is a YAML mapping")
    try:
        validated = PlaybookSchema.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"] if p not in ("condition", "group")) or "(top)"
        msg = err["msg"].removeprefix("Value error, ")
        raise KvdoctorError(f"{label}: {loc}: {msg}") from None
    pb = runtime_playbook(validated)
    if pb.scope != scope:
        raise KvdoctorError(
            f"{label}: scope: a {pb.scope} playbook where {scope} playbooks are read "
            f"(fleet playbooks live in playbooks/{FLEET_DIR}/)"
        )
    problems = check_playbook(pb)
    if problems:
        raise KvdoctorError(f"{label}: {problems[0]}")
    stem = path.stem
    if pb.id != stem:
        raise KvdoctorError(f"{label}: id: {pb.id!r} must match the file name {stem!r}")
    return pb
