"""Every README command block that only touches files in the repository runs as written.

A block is a fenced shell block (for a workflow: its ``run:`` steps) or an inline code span that
starts with ``kvdoctor``. It qualifies when every command in it is ``kvdoctor ...`` (an install
line such as ``pip install .`` is what this venv already did, so it is skipped), with no URL,
no environment variable, no placeholder (``URL``, ``DIR``) and no input file outside the
repository. Each qualifying block runs in bash in a scratch directory holding a copy of
``fixtures/``, so outputs (``-o report.md``, ``--update-golden``) never touch the checkout.

This runs the CLI in subprocesses (the README is about the installed command, not the API).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_INSTALL = re.compile(r"^(pipx|pip) install \.\s*(#.*)?$")
_FILE_LIKE = re.compile(r"\.(tar\.gz|md|json|jsonl|ya?ml|txt|sh)$")
_OUTPUT_FLAGS = {"-o", "--output", "--save-bundle"}


def _blocks() -> list[list[str]]:
    blocks: list[list[str]] = []
    for tok in MarkdownIt("commonmark").parse(README):
        if tok.type == "fence" and tok.info.strip() in ("bash", "sh", "yaml"):
            text = tok.content.replace("\\\n", " ")
            if tok.info.strip() == "yaml":
                lines = [ln.split("run:", 1)[1] for ln in text.splitlines() if "run:" in ln]
            else:
                lines = text.splitlines()
            cmds = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
            if cmds:
                blocks.append(cmds)
        for child in tok.children or []:
            if child.type == "code_inline" and child.content.startswith("kvdoctor "):
                blocks.append([child.content])
    return blocks


def _repo_only(command: str) -> bool:
    if "://" in command or re.search(r"\$[A-Za-z_{]", command):
        return False
    words = shlex.split(command.split("||", 1)[0], comments=True)
    if not words or words[0] != "kvdoctor":
        return False
    for i, word in enumerate(words[1:], 1):
        if re.fullmatch(r"[A-Z][A-Z_|.]*", word):  # a placeholder: URL, DIR, P, ID
            return False
        if words[i - 1] in _OUTPUT_FLAGS:
            continue
        if (_FILE_LIKE.search(word) or word.startswith("fixtures/")) and not list(ROOT.glob(word)):
            return False
    return True


def _runnable() -> list[list[str]]:
    out = []
    for block in _blocks():
        cmds = [c for c in block if not _INSTALL.match(c)]
        if cmds and all(_repo_only(c) for c in cmds):
            out.append(cmds)
    return out


RUNNABLE = _runnable()


def test_the_readme_blocks_that_only_touch_the_repository_are_found() -> None:
    flat = [c for block in RUNNABLE for c in block]
    assert len(flat) >= 5, flat
    # The CI gate of the GitHub Actions snippet is one of them, exactly as printed.
    assert any(c.startswith("kvdoctor diagnose --bundle fixtures/") for c in flat), flat
    assert any(c.startswith("kvdoctor check fixtures/") for c in flat), flat


@pytest.mark.parametrize("block", RUNNABLE, ids=[" && ".join(b) for b in RUNNABLE])
def test_readme_block_runs(block: list[str], tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in block:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, done.stderr
