"""Locate the data that ships beside the code (playbooks, templates).

In a wheel they are package data under ``kvdoctor/_data``; in a source checkout or an editable
install they sit at the repository's top level, where reviewers find them.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the directory holding the shipped data set ``name`` ("playbooks", "templates")."""
    packaged = _PACKAGE_DIR / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE_DIR.parent / name
