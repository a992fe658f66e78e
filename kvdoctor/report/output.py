"""Writing a report to a file atomically: a reader (or a ticket upload) never sees half of it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from kvdoctor.errors import KvdoctorError


def write_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same directory.

    ``os.replace`` within one directory is atomic on POSIX and Windows, so ``path`` holds either
    the old content or the whole new report, even if kvdoctor is killed mid-write.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise KvdoctorError(f"cannot write report to {target}: it is a directory")
    if not directory.is_dir():
        raise KvdoctorError(f"cannot write report to {target}: no directory {directory}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise KvdoctorError(f"cannot write report to {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600; a report is meant to be shared like any file the user writes.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise KvdoctorError(f"cannot write report to {target}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
