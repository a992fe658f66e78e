"""The repository stands alone: every document a comment, a docstring or a doc cites is a file
a reader of the repository can open (the contracts live in docs/, in the project's words)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
SCANNED = ("kvdoctor", "tests", "playbooks", "scripts", "benchmarks", "docs", "templates")
SUFFIXES = {".py", ".md", ".yaml", ".sh", ".j2"}
CITED = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md\b")


def _files() -> list[Path]:
    return [
        p
        for top in SCANNED
        for p in sorted((ROOT / top).rglob("*"))
        if p.suffix in SUFFIXES and p.is_file() and "accuracy" not in p.parts
    ]


def test_no_citation_of_a_document_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    cites = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in _files()
        if p.resolve() != this
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if "DESIGN.md" in line
    ]
    assert cites == []


def test_every_cited_doc_exists() -> None:
    missing = sorted(
        {
            f"{p.relative_to(ROOT)}: {m}"
            for p in _files()
            for m in CITED.findall(p.read_text(encoding="utf-8", errors="replace"))
            if not (ROOT / m).is_file() and "runbooks" not in m
        }
    )
    assert missing == []
    for contract in ("bundle", "report", "cli", "troubleshooting", "kvmath"):
        assert (ROOT / "docs" / f"{contract}.md").is_file()
