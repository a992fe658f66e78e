"""Fleet bundles on disk: two layouts, both valid ``kvdoctor.bundle/1`` bundles at the top.

Through Prometheus (a directory, or the same packed as ``.tar.gz``)::

    manifest.json, metrics.jsonl     the fleet view (valid for any bundle/1 reader)
    prometheus/query.json            URL (no credentials), selector, window, step
    prometheus/series.json           raw query_range answer for the vllm: series
    prometheus/up.json               raw query_range answer for up{selector}
    prometheus/metadata.json         raw /api/v1/metadata answer (when the server has it)

From several endpoints scraped directly (``diagnose --endpoint A --endpoint B``)::

    manifest.json, metrics.jsonl     the fleet view
    fleet.json                       {"schema": "kvdoctor.fleet-endpoints/1", "replicas":
                                      [{"name": "host:port", "path": "replicas/0"}, ...]}
    replicas/<i>/...                 each replica's own bundle/1 (server.json, logs.txt, ...)

Extra files are allowed by the bundle contract. A fleet replay rebuilds everything from the
``prometheus/`` answers or the replica bundles, never from the top-level view, so the report
is the same byte for byte as the live run's. docs/bundle-fleet.md describes both layouts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Literal

from kvdoctor.bundle.reader import (
    MAX_MEMBER_BYTES,
    MAX_TOTAL_BYTES,
    ArchiveScan,
    bundle_file_name,
    read_tar_members,
    scan_archive,
)
from kvdoctor.errors import BundleError

# ``diagnose --bundle`` asks this module whether a single-replica bundle is a fleet one, and
# must not load the fleet machinery to hear "no": writing and reading a whole Prometheus fleet
# bundle (with the capture and the fleet view) is kvdoctor.fleet.store.

# The Prometheus layout's folder and its query record (kvdoctor.fleet.capture writes them).
PROM_DIR = "prometheus"
QUERY_FILE = "query.json"
ENDPOINTS_FILE = "fleet.json"
REPLICAS_DIR = "replicas"
# A fleet archive holds one bundle per replica: more members than a single bundle's cap.
FLEET_MAX_MEMBERS = 4096


def write_files(files: dict[str, bytes], dest: str | Path, mtime: int) -> Path:
    """Write relative path → bytes under ``dest`` atomically: a directory, or a ``.tar.gz``."""
    dest = Path(dest)
    from kvdoctor.bundle.writer import is_archive

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
            _pack(files, dest, mtime)
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


def _wanted(parts: list[str]) -> str | None:
    """The fleet-specific relative path of an archive member or file (``None``: not ours).

    Members sit at the archive root or under one top-level folder (as the bundle reader
    accepts): ``prometheus/<file>``, ``fleet.json`` and ``replicas/<i>/<file>``.
    """
    for rel in (parts[1:], parts):
        if len(rel) == 2 and rel[0] == PROM_DIR:
            return "/".join(rel)
        if len(rel) == 1 and rel[0] == ENDPOINTS_FILE:
            return rel[0]
        if len(rel) == 3 and rel[0] == REPLICAS_DIR:
            return "/".join(rel)
    return None


def _files_dir(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    candidates = [root / ENDPOINTS_FILE]
    for sub in (PROM_DIR, REPLICAS_DIR):
        folder = root / sub
        if folder.is_dir() and not folder.is_symlink():
            if sub == PROM_DIR:
                candidates += sorted(folder.iterdir())
            else:
                for rep in sorted(folder.iterdir()):
                    if rep.is_dir() and not rep.is_symlink():
                        candidates += sorted(rep.iterdir())
    for f in candidates:
        if not f.is_file() or f.is_symlink():
            continue
        rel = f.relative_to(root).as_posix()
        size = f.stat().st_size
        total += size
        if size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
            raise BundleError(f"{rel} is larger than the size cap")
        try:
            out[rel] = f.read_bytes()
        except OSError as exc:
            raise BundleError(f"cannot read {f}: {exc.strerror or exc}") from None
    return out


def _files_tar(path: Path) -> dict[str, bytes]:
    """The fleet members of an untrusted archive, under the bundle reader's checks and caps."""
    return read_tar_members(path, _wanted, FLEET_MAX_MEMBERS)


def fleet_files(path: str | Path) -> dict[str, bytes]:
    """The fleet parts of the bundle at ``path``: ``prometheus/*``, ``fleet.json``,
    ``replicas/<i>/*`` (relative path → bytes)."""
    p = Path(path)
    if p.is_dir():
        return _files_dir(p)
    if p.is_file():
        return _files_tar(p)
    raise BundleError(f"bundle not found: {p}")


def prometheus_files(path: str | Path) -> dict[str, bytes]:
    return {k: v for k, v in fleet_files(path).items() if k.startswith(f"{PROM_DIR}/")}


def fleet_bundle_kind(path: str | Path) -> Literal["prometheus", "endpoints"] | None:
    """Which fleet layout the bundle at ``path`` has (``None``: a single-server bundle)."""
    return scan_bundle(path)[0]


def _fleet_or_bundle_file(parts: list[str]) -> bool:
    return _wanted(parts) is not None or bundle_file_name(parts) is not None


def scan_bundle(
    path: str | Path,
) -> tuple[Literal["prometheus", "endpoints"] | None, ArchiveScan | None]:
    """Which fleet layout the bundle at ``path`` has (``None``: a single-server bundle) and, for
    an archive that passed every check, the scan that answered: it holds the bundle's own files
    too, so :func:`kvdoctor.bundle.reader.read_bundle` reads a single-server archive from it
    instead of decompressing it a second time."""
    p = Path(path)
    if p.is_dir():
        if (p / PROM_DIR / QUERY_FILE).is_file():
            return "prometheus", None
        return ("endpoints" if (p / ENDPOINTS_FILE).is_file() else None), None
    if p.is_file():
        scan = scan_archive(p, _fleet_or_bundle_file, FLEET_MAX_MEMBERS)
        if scan is None:
            return None, None
        try:
            names = set(scan.files(_wanted, FLEET_MAX_MEMBERS))
        except BundleError:
            return None, None
        if f"{PROM_DIR}/{QUERY_FILE}" in names:
            return "prometheus", scan
        return ("endpoints" if ENDPOINTS_FILE in names else None), scan
    return None, None


def is_fleet_bundle(path: str | Path) -> bool:
    """True when the bundle at ``path`` is a fleet bundle (either layout)."""
    return fleet_bundle_kind(path) is not None
