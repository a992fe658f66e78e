"""One home for each judgement: the ranking's orderings and the active set live in
kvdoctor/vocab.py, and no other module spells them out again (where two spellings drifted, the
fleet and the report ranked findings differently)."""

from __future__ import annotations

import ast
from pathlib import Path

from kvdoctor import vocab

PACKAGE = Path(__file__).parents[2] / "kvdoctor"

STATUS_WORDS = frozenset(vocab.STATUSES)
SEVERITY_WORDS = frozenset(vocab.SEVERITIES)
VERDICT_WORDS = frozenset(vocab.VERDICT_ORDER)


def _spelled_out(node: ast.AST) -> frozenset[str] | None:
    """The vocabulary words of an ordering or a set of statuses written as a literal: a rank
    table (words → integers), or a collection of nothing but words."""
    if isinstance(node, ast.Dict):
        keys = [k for k in node.keys if k is not None]
        words = {k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        ranks = all(isinstance(v, ast.Constant) and type(v.value) is int for v in node.values)
        return frozenset(words) if ranks and len(words) >= 2 else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        if not node.elts or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        ):
            return None
        return frozenset(e.value for e in node.elts if isinstance(e, ast.Constant))
    return None


def redefinitions(source: str) -> list[int]:
    """Lines that spell out an ordering or a set of statuses ``kvdoctor.vocab`` exports."""
    tree = ast.parse(source)
    in_types = {
        id(n) for s in ast.walk(tree) if isinstance(s, ast.Subscript) for n in ast.walk(s.slice)
    }
    lines = []
    for node in ast.walk(tree):
        words = None if id(node) in in_types else _spelled_out(node)
        if words is None:
            continue
        if (
            len(words & STATUS_WORDS) >= 2
            or words >= SEVERITY_WORDS
            or len(words & VERDICT_WORDS) >= 3
            or (isinstance(node, ast.Dict) and len(words & SEVERITY_WORDS) >= 2)
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_redefines_an_ordering_or_the_active_set() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "vocab.py"
        for line in redefinitions(path.read_text(encoding="utf-8"))
    ]
    assert found == [], f"import the ordering from kvdoctor.vocab instead: {found}"


def test_the_check_catches_each_way_of_spelling_one_out() -> None:
    assert redefinitions('RANK = {"confirmed": 0, "suspected": 1, "refuted": 2}') == [1]
    assert redefinitions('SEV = {"critical": 2, "warning": 1, "info": 0}') == [1]
    assert redefinitions('x = [f for f in fs if f.status in ("confirmed", "suspected")]') == [1]
    assert redefinitions('ORDER = ("critical", "degraded", "healthy", "unknown")') == [1]
    # Not orderings: a type, a mapping to other words, a choice of two severities.
    assert redefinitions('S = Literal["critical", "warning", "info"]') == []
    assert redefinitions('s = {"confirmed": "confirmed", "refuted": "refuted"}.get(v)') == []
    assert redefinitions('FOR = {"critical": "2m", "warning": "5m", "info": "15m"}') == []
    assert redefinitions('click.Choice(["warning", "critical"])') == []


def test_the_orderings_are_the_contracts() -> None:
    # Ranking (docs/report.md): severity first, critical > warning > info; then status,
    # confirmed > suspected; refuted last.
    assert vocab.SEVERITIES == ("critical", "warning", "info")
    assert vocab.STATUSES == ("confirmed", "suspected", "refuted")
    assert vocab.ACTIVE_STATUSES == ("confirmed", "suspected")
    assert [vocab.SEVERITY_RANK[s] for s in vocab.SEVERITIES] == [0, 1, 2]
    assert [vocab.STATUS_RANK[s] for s in vocab.STATUSES] == [0, 1, 2]


# ------------------------------------------------------------------------- signal names, read

# Expressions that hold a SignalSet or the rules' SignalView wherever the package reads one.
_SIGNAL_READERS = ("signals", "sig", "ss", "out.ss", "view", "c.view", "r.signals", "d.signals")
_READS = ("get", "num", "flag", "value", "raw")


def signal_reads(source: str, readers: tuple[str, ...] = _SIGNAL_READERS) -> list[tuple[int, str]]:
    """(line, name) of every literal name read from a signal set or view in ``source``."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _READS
            and ast.unparse(node.func.value) in readers
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def test_every_signal_the_package_reads_by_name_exists() -> None:
    from kvdoctor.rules.predicates import DERIVED
    from kvdoctor.signals.catalog import SIGNALS

    reads = [
        (path, line, name)
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, name in signal_reads(
            path.read_text(encoding="utf-8"),
            # The predicates and derived values name their SignalView ``s``.
            (*_SIGNAL_READERS, "s") if path.name == "predicates.py" else _SIGNAL_READERS,
        )
    ]
    assert len(reads) > 30  # the scan sees the package's reads
    unknown = [
        f"{p.relative_to(PACKAGE.parent)}:{line}: {name!r}"
        for p, line, name in reads
        if name not in SIGNALS and name not in DERIVED
    ]
    assert unknown == []


def test_a_misspelt_read_fails_as_a_misspelt_write_does() -> None:
    import pytest

    from kvdoctor.rules.predicates import SignalView
    from kvdoctor.signals.common import Out

    out = Out()
    out.set("kv_usage_max", 0.5)
    assert out.ss.get("kv_usage_max") == 0.5
    assert out.ss.get("preemptions_window") is None  # in the catalog, not computed: unknown
    with pytest.raises(KeyError, match="kv_usage_mx"):
        out.ss.get("kv_usage_mx")
    with pytest.raises(KeyError, match="kv_usage_mx"):
        out.set("kv_usage_mx", 0.5)
    view = SignalView(out.ss)
    with pytest.raises(KeyError, match="kv_usage_mx"):
        view.num("kv_usage_mx")
    # A predicate is not a signal: reading one as a signal is the same mistake.
    with pytest.raises(KeyError, match="gpu_has_headroom"):
        view.flag("gpu_has_headroom")
    assert signal_reads('x = view.num("kv_usage_mx")\ny = cfg.get("model")\n') == [
        (1, "kv_usage_mx")
    ]


# ------------------------------------------------------------------- shared thresholds, named


def test_a_playbook_names_the_pool_full_threshold_not_its_number() -> None:
    """Every condition on KV usage that means "the pool is full" reads $pool_full, so the
    playbooks, the renderer and the capacity ramp cannot drift apart."""
    import re

    import pytest
    from pydantic import ValidationError

    from kvdoctor.report import render
    from kvdoctor.reproducers.experiments import capacity_ramp
    from kvdoctor.resources import data_dir
    from kvdoctor.rules.schema import Condition
    from kvdoctor.thresholds import POOL_FULL

    texts = [p.read_text(encoding="utf-8") for p in sorted(data_dir("playbooks").glob("*.yaml"))]
    written = [
        ln for t in texts for ln in t.splitlines() if re.search(r"kv_usage.*value: 0?\.9\b", ln)
    ]
    assert written == []
    assert sum(t.count("$pool_full") for t in texts) >= 10
    cond = Condition.model_validate({"signal": "kv_usage_max", "op": ">=", "value": "$pool_full"})
    assert cond.value == POOL_FULL == capacity_ramp.FILLED
    # The verdict sentence's "pool full" is a fact the rules decide (report/1.6) on the same
    # constant; the renderer keeps no threshold of its own.
    assert not hasattr(render, "KV_FULL_FRACTION") and not hasattr(render, "CARD_FULL_FRACTION")
    from kvdoctor.rules.verdict import verdict_facts

    assert verdict_facts({"kv_usage_max": POOL_FULL}, []).kv_full is True
    assert verdict_facts({"kv_usage_max": POOL_FULL - 0.001}, []).kv_full is False
    with pytest.raises(ValidationError, match="unknown constant"):
        Condition.model_validate({"signal": "kv_usage_max", "op": ">=", "value": "$pool_ful"})


# ------------------------------------------------------------------------------ cause ids


def test_the_vocabulary_lists_exactly_the_shipped_causes() -> None:
    from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks

    shipped = {
        pb.id: tuple(c.id for c in pb.causes) for pb in [*load_playbooks(), *load_fleet_playbooks()]
    }
    assert shipped == dict(vocab.CAUSES)


def test_a_cause_the_vocabulary_does_not_list_is_refused_at_load() -> None:
    from kvdoctor.rules.load import load_playbooks
    from kvdoctor.rules.validate import check_playbook

    pb = load_playbooks()[0]
    renamed = pb._replace(causes=[pb.causes[0]._replace(id="kv-capacty"), *pb.causes[1:]])
    assert check_playbook(pb) == []
    assert any("'kv-capacty' is not a cause" in p for p in check_playbook(renamed))


def test_every_cause_an_experiment_tests_is_in_the_vocabulary() -> None:
    from kvdoctor.experiment_catalog import EXPERIMENTS

    for spec in EXPERIMENTS.values():
        for ref in spec.causes:
            assert ref.cause in vocab.CAUSES[ref.playbook], (spec.name, str(ref))
