"""kvdoctor's own on-disk cache of derived, non-secret data (compiled report templates).

Only things that are a pure function of files shipped with kvdoctor go here, keyed so a
changed source or a different kvdoctor build never reads a stale entry. Nothing read from a
server or a bundle is ever cached. The cache is an optimisation only: when the directory cannot
be created or written (read-only home, a sandbox), everything works the same, just slower.

Location: ``$KVDOCTOR_CACHE_DIR`` or ``~/.cache/kvdoctor`` (as the lab's model cache);
``KVDOCTOR_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import contextlib
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


def load_pickle(name: str, key: str) -> object | None:
    """The object cached under ``name/key``, or ``None`` (absent, unreadable, or not trusted).

    Unpickling runs code named in the file, so an entry is read only when this user owns it
    and nobody else can write it (the directory is created private, the file 0600).
    """
    directory = cache_dir(name)
    if directory is None:
        return None
    path = directory / f"{key}.pickle"
    try:
        with path.open("rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
            dir_st = directory.stat()
            if dir_st.st_uid != os.getuid() or dir_st.st_mode & 0o022:
                return None
            # The C unpickler itself: ``pickle`` (the Python module around it, with its
            # compatibility tables) cost ~2 ms of a replay's start-up to import, for one load.
            try:
                from _pickle import load
            except ImportError:  # an interpreter without CPython's accelerator
                from pickle import load

            obj: object = load(fh)
            return obj
    except Exception:  # a damaged or foreign entry is a cache miss, whatever the error
        return None


def store_pickle(name: str, key: str, obj: object) -> None:
    """Cache ``obj`` under ``name/key`` atomically; any failure leaves no entry behind."""
    directory = cache_dir(name)
    if directory is None:
        return
    import pickle
    import tempfile

    try:
        directory.chmod(0o700)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=directory)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, directory / f"{key}.pickle")
    except Exception:  # caching is best effort
        with contextlib.suppress(OSError):
            os.unlink(tmp)
