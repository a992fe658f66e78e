"""The on-disk cache of compiled report templates (jinja2's bytecode cache, keyed safely).

Its own module so that :mod:`kvdoctor.report.render` imports jinja2 only when it renders
Markdown: ``--format json`` renders no template.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import jinja2
import jinja2.bccache

from kvdoctor.cache import cache_dir, code_fingerprint


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates on disk: compiling report.md.j2 was a third of a replay's time.

    Jinja keys an entry by template name and checks its source's hash; the key here also holds
    a fingerprint of ``code`` (the module that sets the environment options and filters compiled
    into the code) and kvdoctor's version. A cache that cannot be written is skipped, never an
    error.
    """

    def __init__(self, directory: str, code: Path) -> None:
        super().__init__(directory)
        self._prefix = code_fingerprint(code)

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return super().get_cache_key(f"{self._prefix}/{name}", filename)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def bytecode_cache(code: Path) -> jinja2.BytecodeCache | None:
    """The cache for templates whose environment ``code`` sets up (None: no cache directory)."""
    directory = cache_dir("templates")
    return None if directory is None else _BytecodeCache(str(directory), code)
