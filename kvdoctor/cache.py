"""kvdoctor's own on-disk cache of derived, non-secret data (compiled report templates).

Only things that are a pure function of files shipped with kvdoctor go here, keyed so a
changed source or a different kvdoctor build never reads a stale entry. Nothing read from a
server or a bundle is ever cached. The cache is an optimisation only: when the directory cannot
be created or written (read-only home, a sandbox), everything works the same, just slower.

Location: ``$KVDOCTOR_CACHE_DIR`` or ``~/.cache/kvdoctor`` (as the lab's model cache);
``KVDOCTOR_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from kvdoctor import __version__


def cache_dir(name: str) -> Path | None:
    """The cache sub-directory ``name``, created if needed; ``None`` when caching is off or
    the directory cannot be made."""
    if os.environ.get("KVDOCTOR_NO_CACHE"):
        return None
    env = os.environ.get("KVDOCTOR_CACHE_DIR")
    root = Path(env) if env else Path.home() / ".cache" / "kvdoctor"
    path = root / name
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path


def code_fingerprint(*files: Path) -> str:
    """A short hash of kvdoctor's version and the given source files.

    Part of every cache key: an entry made by another build (or an edited checkout) is
    never taken for this one's.
    """
    h = hashlib.sha256(__version__.encode())
    for f in files:
        h.update(b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]
