"""kvdoctor's on-disk cache: a speed-up only, never a source of different answers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kvdoctor import cache
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.replay import check_fixture
from kvdoctor.report.render import _environment, render_markdown
from kvdoctor.resources import data_dir
from kvdoctor.rules.load import load_playbooks

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(root))
    monkeypatch.delenv("KVDOCTOR_NO_CACHE", raising=False)
    return root


def test_cached_playbooks_equal_freshly_validated(cache_root: Path) -> None:
    first = load_playbooks()
    entries = list((cache_root / "playbooks").glob("*.pickle"))
    assert len(entries) == 1
    assert entries[0].stat().st_mode & 0o077 == 0
    second = load_playbooks()
    assert second == first
    assert [pb.id for pb in second] == [pb.id for pb in first]


def test_changed_playbook_is_a_new_key(cache_root: Path, tmp_path: Path) -> None:
    src = tmp_path / "playbooks"
    shutil.copytree(data_dir("playbooks"), src)
    before = load_playbooks(src)
    path = src / "slow-itl.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('\ntitle: "', '\ntitle: "Edited ', 1), encoding="utf-8")
    after = load_playbooks(src)
    assert len(list((cache_root / "playbooks").glob("*.pickle"))) == 2
    itl = {pb.id: pb for pb in after}["slow-itl"]
    assert itl.title.startswith("Edited ")
    assert itl != {pb.id: pb for pb in before}["slow-itl"]


def test_foreign_or_damaged_entry_is_a_miss(
    cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_playbooks()
    [entry] = (cache_root / "playbooks").glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert load_playbooks() == first  # read from the files again, and the entry rewritten
    assert entry.read_bytes() != b"not a pickle"
    # An entry others could have written is never unpickled.
    cache.store_pickle("t", "k", ["ok"])
    [t_entry] = (cache_root / "t").glob("*.pickle")
    assert cache.load_pickle("t", "k") == ["ok"]
    os.chmod(t_entry, 0o666)
    assert cache.load_pickle("t", "k") is None


def test_unwritable_cache_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(blocker / "sub"))  # cannot be created
    _environment.cache_clear()
    try:
        result = check_fixture(FIXTURES / "preemption-storm")
    finally:
        _environment.cache_clear()
    assert result.golden == "same" and result.ok, "\n".join(result.problems)


def test_compiled_template_cache_gives_the_same_bytes(cache_root: Path) -> None:
    d = diagnose(read_bundle(FIXTURES / "fp8-kv" / "bundle.tar.gz"))
    _environment.cache_clear()
    try:
        cold = render_markdown(d.report, d.context)  # compiles and stores
        assert list((cache_root / "templates").iterdir())
        _environment.cache_clear()
        warm = render_markdown(d.report, d.context)  # loads the compiled code
        assert check_fixture(FIXTURES / "fp8-kv").golden == "same"
    finally:
        _environment.cache_clear()
    assert cold == warm


def test_pipeline_reproducer_lookup_matches_the_map() -> None:
    """The pipeline's lookup names the same experiment, with the reason it did not run, as the
    playbooks' one map (kvdoctor.rules.experiments.experiment_of), for every playbook cause and
    for a symptom no cause explains, and every symptom has one."""
    from _report_factory import finding

    from kvdoctor.experiment_catalog import EXPERIMENTS, why_not_run
    from kvdoctor.pipeline import _reproducer_lookup
    from kvdoctor.rules.experiments import experiment_of
    from kvdoctor.vocab import SYMPTOMS

    playbooks = load_playbooks()
    ours = _reproducer_lookup(playbooks)
    theirs = experiment_of(playbooks)
    cases = [
        finding(id=pb.id, symptom=pb.symptom, cause=c.id, reproducer=None)
        for pb in playbooks
        for c in pb.causes
    ]
    cases += [
        finding(id=pb.id, symptom=pb.symptom, cause="unidentified", reproducer=None)
        for pb in playbooks
    ]
    cases += [
        finding(id="fleet", symptom=s, cause="unidentified", reproducer=None) for s in SYMPTOMS
    ]
    assert len(cases) > len(SYMPTOMS)
    for f in cases:
        name = theirs(f)
        assert ours(f) == (None if name is None else (name, why_not_run(name))), f
    # A symptom whose cause is not identified still has an experiment, one that tests it.
    for s in SYMPTOMS:
        name = theirs(finding(id="x", symptom=s, cause="unidentified", reproducer=None))
        assert name is not None and s in EXPERIMENTS[name].symptoms(), s


def _closure(start: str) -> set[str]:
    from test_layers import import_graph

    graph, seen, todo = import_graph(), set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += graph.get(name, ())
    return seen


def test_the_playbook_cache_key_covers_every_module_validation_reads() -> None:
    """A module the playbook loader imports (directly or not, kvdoctor.rules.validate among them)
    decides what a valid playbook is: the experiment catalog's measured keys, the signal names,
    the vocabulary. Left out of the key, a change to it (a renamed measured key) would pass with a
    warm cache and fail without one."""
    from kvdoctor.rules.load import VALIDATION_MODULES

    assert set(VALIDATION_MODULES) == _closure("kvdoctor.rules.load")
    assert "kvdoctor.experiment_catalog" in VALIDATION_MODULES


def test_an_edited_validation_module_is_a_new_key(
    cache_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edit the catalog's source in place (a renamed measured key, same size, the modification
    time put back): the warm entry is not taken, the playbooks are validated again. The key
    reads no file's bytes, only what a write changes (size, times, inode), so the edit is made
    to a copy standing in for the module's source."""
    from kvdoctor import experiment_catalog
    from kvdoctor.rules import load

    catalog = Path(experiment_catalog.__file__)
    copy = tmp_path / "experiment_catalog.py"
    shutil.copy2(catalog, copy)
    sources = tuple(copy if s == catalog else s for s in load.validation_sources())
    assert copy in sources
    monkeypatch.setattr(load, "validation_sources", lambda: sources)
    validated: list[int] = []
    real_load_all = load._load_all
    monkeypatch.setattr(load, "_load_all", lambda *a: validated.append(1) or real_load_all(*a))
    load_playbooks()
    load_playbooks()
    assert validated == [1]  # the second load is the warm entry
    before = copy.stat()
    data = copy.read_bytes()
    assert b'"window_hit_rate"' in data
    with copy.open("r+b") as fh:  # the same file (inode), the same size
        fh.write(data.replace(b'"window_hit_rate"', b'"window_hit_ratX"'))
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert copy.stat().st_size == before.st_size
    load_playbooks()
    assert validated == [1, 1]
    assert len(list((cache_root / "playbooks").glob("*.pickle"))) == 2


@pytest.mark.parametrize("scope", ["replica", "fleet"])
def test_the_cache_key_changes_with_every_file_validation_reads(
    scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each source of VALIDATION_MODULES (held equal to the loader's import graph above) and
    each playbook file is in the key: any one of them written (a new modification time, size,
    change time or inode) gives a new key, so a stale entry is never taken for it."""
    from kvdoctor.rules import load

    directory = data_dir("playbooks") / (load.FLEET_DIR if scope == "fleet" else "")
    paths = sorted(directory.glob("*.yaml"))
    files = [*load.validation_sources(), *paths]
    assert len(files) == len(load.VALIDATION_MODULES) + len(paths) and paths
    base = load._cache_key(directory, paths, scope)  # type: ignore[arg-type]
    assert base is not None
    assert load._cache_key(directory, paths, scope) == base  # type: ignore[arg-type]
    real_stat = os.stat
    for changed in files:
        for field in ("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino"):

            def stat(path: object, _changed: Path = changed, _field: str = field) -> object:
                st = real_stat(path)  # type: ignore[call-overload]
                if Path(str(path)) != _changed:
                    return st
                values = {f: getattr(st, f) for f in ("st_size", "st_mtime_ns", "st_ctime_ns")}
                values["st_ino"] = st.st_ino
                values[_field] += 1
                return type("Stat", (), values)()

            monkeypatch.setattr(os, "stat", stat)
            key = load._cache_key(directory, paths, scope)  # type: ignore[arg-type]
            monkeypatch.setattr(os, "stat", real_stat)
            assert key is not None and key != base, (changed, field)


def test_a_playbook_rewritten_in_place_is_read_again(cache_root: Path, tmp_path: Path) -> None:
    """A playbook edited in place to the same size (one letter of its title) is validated
    again, not served from the entry its old bytes made."""
    src = tmp_path / "playbooks"
    shutil.copytree(data_dir("playbooks"), src)
    load_playbooks(src)  # fills the cache
    path = src / "slow-itl.yaml"
    data = path.read_bytes()
    assert b'\ntitle: "' in data
    with path.open("r+b") as fh:
        fh.write(data.replace(b'\ntitle: "', b'\ntitle: "#', 1)[: len(data)])
    itl = {pb.id: pb for pb in load_playbooks(src)}["slow-itl"]
    assert itl.title.startswith("#")


def test_an_unstatable_file_is_no_cache(cache_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source that cannot be stat'ed (gone mid-upgrade) means no key: the playbooks are
    validated from their files and nothing is stored under a key that does not cover it."""
    from kvdoctor.rules import load

    sources = (*load.validation_sources(), Path("/nonexistent/kvdoctor/module.py"))
    monkeypatch.setattr(load, "validation_sources", lambda: sources)
    assert load_playbooks() == load._load_all(
        data_dir("playbooks"),
        sorted(data_dir("playbooks").glob("*.yaml")),
        [p.read_bytes() for p in sorted(data_dir("playbooks").glob("*.yaml"))],
        "replica",
    )
    assert not list((cache_root / "playbooks").glob("*.pickle"))


def test_runtime_playbook_classes_mirror_the_schema() -> None:
    """Each class of the pydantic playbook schema has a runtime class of its name with the same
    fields in the same order (the loader fills them positionally), and nothing else does."""
    import pydantic

    from kvdoctor.rules import schema
    from kvdoctor.rules.runtime import RUNTIME_CLASSES

    models = {
        name: cls
        for name, cls in vars(schema).items()
        if isinstance(cls, type)
        and issubclass(cls, pydantic.BaseModel)
        and cls.__module__ == schema.__name__
        and not name.startswith("_")
    }
    assert sorted(models) == sorted(RUNTIME_CLASSES)
    for name, model in models.items():
        assert RUNTIME_CLASSES[name]._fields == tuple(model.model_fields), name


def test_cached_playbooks_are_runtime_data_equal_to_the_validated_ones(cache_root: Path) -> None:
    from kvdoctor.rules import schema
    from kvdoctor.rules.load import runtime_of
    from kvdoctor.rules.runtime import Playbook

    cached = load_playbooks()
    assert all(type(pb) is Playbook for pb in cached)
    raw = (data_dir("playbooks") / "slow-itl.yaml").read_text(encoding="utf-8")
    import yaml

    validated = schema.Playbook.model_validate(yaml.safe_load(raw))
    assert runtime_of(validated) == {pb.id: pb for pb in cached}["slow-itl"]


def test_a_warm_cache_replay_never_imports_the_playbook_schema(
    cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pydantic schema (~12 ms to import, and its instances ~5 ms to unpickle) validates
    playbook files; once they are cached, loading them and diagnosing a bundle never import it.
    In this process the schema is imported already: it is taken out of sys.modules, and must not
    be back after. (tests/integration/test_replay_imports.py checks, in a fresh interpreter,
    that the whole ``diagnose --bundle`` leaves it out.)"""
    import sys

    import kvdoctor.rules
    from kvdoctor.rules.load import load_fleet_playbooks

    cold = load_playbooks(), load_fleet_playbooks()  # fills the cache
    monkeypatch.delitem(sys.modules, "kvdoctor.rules.schema")
    monkeypatch.delattr(kvdoctor.rules, "schema", raising=False)
    assert (load_playbooks(), load_fleet_playbooks()) == cold
    report = diagnose(read_bundle(FIXTURES / "preemption-storm" / "bundle.tar.gz")).report
    assert report.findings
    assert "kvdoctor.rules.schema" not in sys.modules
