"""Fleet bundles: a ``kvdoctor.bundle/1`` bundle plus the raw Prometheus answers.

Layout (a directory, or the same packed as ``.tar.gz``)::

    manifest.json, metrics.jsonl     the fleet view (valid for any bundle/1 reader)
    prometheus/query.json            URL (no credentials), selector, window, step
    prometheus/series.json           raw query_range answer for the vllm: series
    prometheus/up.json               raw query_range answer for up{selector}
    prometheus/metadata.json         raw /api/v1/metadata answer (when the server has it)

Extra files are allowed by the bundle contract. A fleet replay rebuilds everything from the
``prometheus/`` answers, so the report is the same byte for byte as the live run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from kvdoctor.bundle.reader import MAX_MEMBER_BYTES, MAX_MEMBERS, MAX_TOTAL_BYTES
from kvdoctor.bundle.writer import bundle_files, is_archive
from kvdoctor.errors import BundleError
from kvdoctor.fleet.build import FleetData
from kvdoctor.fleet.capture import (
    PROM_DIR,
    QUERY_FILE,
    FleetCapture,
    capture_files,
    capture_from_files,
)


def write_fleet_bundle(data: FleetData, dest: str | Path) -> Path:
    """Write the fleet view and the raw answers to ``dest`` atomically (dir or .tar.gz)."""
    dest = Path(dest)
    files: dict[str, bytes] = {k: v.encode("utf-8") for k, v in bundle_files(data.fleet).items()}
    files.update(capture_files(data.capture))
    archive = is_archive(dest)
    if not archive and dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BundleError(f"refusing to write the bundle into non-empty {dest}")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.partial-", dir=dest.parent))
    except OSError as exc:
        raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
    try:
        for rel, blob in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        if archive:
            _pack(files, dest, int(data.capture.end))
            shutil.rmtree(staging, ignore_errors=True)
        else:
            if dest.exists():
                dest.rmdir()
            os.replace(staging, dest)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return dest


def _pack(files: dict[str, bytes], dest: Path, mtime: int) -> None:
    import io

    top = dest.name
    for suffix in (".tar.gz", ".tgz"):
        if top.endswith(suffix):
            top = top[: -len(suffix)]
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for rel, blob in sorted(files.items()):
                info = tarfile.TarInfo(f"{top}/{rel}")
                info.size = len(blob)
                info.mtime = mtime
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(blob))
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _prom_files_dir(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    folder = root / PROM_DIR
    if not folder.is_dir():
        return out
    for f in sorted(folder.iterdir()):
        if f.is_file() and not f.is_symlink():
            size = f.stat().st_size
            if size > MAX_MEMBER_BYTES:
                raise BundleError(f"{PROM_DIR}/{f.name} is larger than the size cap")
            out[f"{PROM_DIR}/{f.name}"] = f.read_bytes()
    return out


def _prom_files_tar(path: Path) -> dict[str, bytes]:
    """``prometheus/*`` members of an untrusted archive, under the reader's caps."""
    out: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(path, mode="r:*") as tar:
            count = 0
            member = tar.next()
            while member is not None:
                count += 1
                if count > MAX_MEMBERS:
                    raise BundleError(f"archive {path.name} has more than {MAX_MEMBERS} members")
                pure = PurePosixPath(member.name)
                if pure.is_absolute() or ".." in pure.parts or "\\" in member.name:
                    raise BundleError(f"archive member escaping the bundle: {member.name!r}")
                parts = [p for p in pure.parts if p not in ("", ".")]
                if member.isfile() and len(parts) in (2, 3) and parts[-2] == PROM_DIR:
                    if member.size > MAX_MEMBER_BYTES:
                        raise BundleError(f"archive member {member.name!r} is over the size cap")
                    total += member.size
                    if total > MAX_TOTAL_BYTES:
                        raise BundleError(f"archive {path.name} is larger than the size cap")
                    fh = tar.extractfile(member)
                    if fh is not None:
                        out[f"{PROM_DIR}/{parts[-1]}"] = fh.read(MAX_MEMBER_BYTES + 1)
                member = tar.next()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BundleError(f"corrupt bundle archive {path.name}: {exc}") from None
    return out


def prometheus_files(path: str | Path) -> dict[str, bytes]:
    p = Path(path)
    if p.is_dir():
        return _prom_files_dir(p)
    if p.is_file():
        return _prom_files_tar(p)
    raise BundleError(f"bundle not found: {p}")


def is_fleet_bundle(path: str | Path) -> bool:
    """True when the bundle at ``path`` carries recorded Prometheus answers."""
    p = Path(path)
    if p.is_dir():
        return (p / PROM_DIR / QUERY_FILE).is_file()
    if p.is_file():
        try:
            return f"{PROM_DIR}/{QUERY_FILE}" in _prom_files_tar(p)
        except BundleError:
            return False
    return False


def read_fleet_capture(path: str | Path) -> FleetCapture:
    return capture_from_files(prometheus_files(path), str(path))
