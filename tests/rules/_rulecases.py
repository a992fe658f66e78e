"""Shared loader for the rule cases in tests/rules/cases/*.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CASES_DIR = Path(__file__).parent / "cases"


def load_case_files() -> dict[str, dict[str, Any]]:
    """Case file stem -> its parsed YAML, in name order."""
    return {
        p.stem: yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted(CASES_DIR.glob("*.yaml"))
    }
