"""A command's --help answers before its machinery loads: the reason tests/unit/test_layers.py
gives for most function-local imports under kvdoctor/commands, held here in fresh interpreters
(a module imported by an earlier test would hide an import)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "jinja2", "httpx", "rich", "yaml", "asyncio", "psutil")

_SCRIPT = """
import json, sys
from kvdoctor.cli import main
sys.argv = ["kvdoctor", sys.argv[1], "--help"]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "command", ["diagnose", "record", "reproduce", "compare", "alerts", "rules", "check"]
)
def test_help_imports_none_of_the_heavy_libraries(command: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, command],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    modules = set(json.loads(out.stderr.strip().splitlines()[-1]))
    assert [m for m in HEAVY if m in modules] == []
