"""The unit tier is pure logic: no test here opens a socket or starts a process.

Tests that need a server on loopback or a child process live in tests/integration (and the
real vLLM ones in tests/lab). Read with :mod:`ast`, so a new import of one of these is caught
before anyone runs it.
"""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).parent

# Modules whose import means sockets or processes (the loopback fakes included).
FORBIDDEN_MODULES = frozenset(
    {
        "socket",
        "socketserver",
        "subprocess",
        "multiprocessing",
        "http.server",
        "ssl",
        "_vllm_fake",
        "_asyncio_http",
    }
)
# Calls that do the same through modules a pure test may import for other reasons.
FORBIDDEN_CALLS = frozenset(
    {
        ("asyncio", "start_server"),
        ("asyncio", "open_connection"),
        ("asyncio", "create_subprocess_exec"),
        ("asyncio", "create_subprocess_shell"),
        ("os", "fork"),
        ("os", "system"),
        ("os", "popen"),
        ("os", "spawnv"),
    }
)


def offences(tree: ast.AST) -> list[str]:
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in FORBIDDEN_MODULES:
                found.append(node.module)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in FORBIDDEN_CALLS
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_unit_test_opens_a_socket_or_starts_a_process() -> None:
    bad = {
        path.name: hits
        for path in sorted(UNIT.glob("*.py"))
        if (hits := offences(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert bad == {}


def test_the_check_sees_what_it_forbids() -> None:
    source = "import socket\nfrom _vllm_fake import serve\nimport asyncio\nasyncio.start_server\n"
    assert offences(ast.parse(source)) == ["socket", "_vllm_fake", "asyncio.start_server"]
    # platform.system() is not os.system().
    assert offences(ast.parse("import platform\nplatform.system()\n")) == []
