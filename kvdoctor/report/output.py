"""Writing a report to a file atomically: a reader (or a ticket upload) never sees half of it."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kvdoctor.errors import KvdoctorError
from kvdoctor.report.model import Report


def check_output(path: str | Path, *, inputs: Sequence[Path | None] = ()) -> Path:
    """Refuse an ``-o`` target that would destroy data or that cannot be written.

    Called before any capture (a missing directory found after a ten-minute window loses the
    window) and again by :func:`write_atomic`. ``inputs`` are files the run reads or writes
    besides the report (``--bundle``, ``--save-bundle``): writing the report over one of them
    would replace a bundle with Markdown. Returns the path to write: a symlink to a regular
    file is followed, so the link survives and its target gets the report.
    """
    target = Path(path)
    if target.is_dir():
        raise KvdoctorError(f"cannot write report to {target}: it is a directory")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise KvdoctorError(f"cannot write report to {target}: no directory {directory}")
    if os.path.lexists(target):
        real = target.resolve()
        if real.exists() and not stat.S_ISREG(real.stat().st_mode):
            # os.replace would swap a device (as root, even /dev/null) for a regular file.
            raise KvdoctorError(
                f"cannot write report to {target}: not a regular file (a device, pipe or socket);"
                " omit -o to print the report"
            )
        if target.is_symlink() and real.parent != directory.resolve():
            # A link planted in the output directory must not send the write elsewhere.
            raise KvdoctorError(
                f"cannot write report to {target}: it is a symbolic link out of its directory"
            )
        target = real
    resolved = target.resolve()
    for other in inputs:
        if other is None or str(other) in ("", "-"):
            continue
        o = Path(other).resolve()
        kind = "bundle" if o.is_dir() or o.name.endswith((".tar.gz", ".tgz")) else "input"
        if resolved == o:
            raise KvdoctorError(f"-o {path} is the {kind} {other}: choose another report file")
        if o in resolved.parents:
            # A file inside an input directory (a bundle's metrics.jsonl).
            raise KvdoctorError(
                f"-o {path} is inside the {kind} {other}: choose another report file"
            )
    return target


def write_atomic(path: str | Path, text: str, *, inputs: Sequence[Path | str | None] = ()) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same directory.

    ``os.replace`` within one directory is atomic on POSIX and Windows, so ``path`` holds either
    the old content or the whole new report, even if kvdoctor is killed mid-write.
    """
    target = check_output(path, inputs=[None if i is None else Path(i) for i in inputs])
    directory = target.parent if str(target.parent) else Path(".")
    try:
        # Replacing a file keeps its mode (a 0600 report stays private); a new one gets the
        # umask's default, like any file the user writes.
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise KvdoctorError(f"cannot write report to {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
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


def render_json(report: Report) -> str:
    """The ``kvdoctor.report/1`` object as indented JSON with a trailing newline.

    Key order is the model's field order (``schema`` first) and the rule engine's ranking;
    ``signals`` arrive sorted by name. NaN/Infinity are not JSON: the pipeline turns them into
    ``null`` with a reason, and a report that still carries one is a bug, reported as such.
    """
    try:
        text = json.dumps(report.to_json_dict(), indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise KvdoctorError(f"report holds a non-finite number and cannot be JSON: {exc}") from exc
    return text + "\n"
