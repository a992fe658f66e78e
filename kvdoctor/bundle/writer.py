"""Write ``kvdoctor.bundle/1`` bundles atomically, as a directory or a ``.tar.gz``.

Every write goes to a staging place beside the destination and is renamed into place at the
end, so a reader never sees half a bundle. :class:`BundleSink` is the incremental form used by
the capture: scrapes and GPU samples are appended (and flushed) as they arrive, so an
interrupted recording still finalises into a valid bundle of everything captured so far.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from pydantic import JsonValue

from kvdoctor.bundle.model import (
    ENGINE_ARGS,
    GPU,
    LOGS,
    MANIFEST,
    METRICS,
    MODEL_CONFIG,
    PROMPT_SAMPLE_FILE,
    REPRODUCERS,
    SERVER,
    Bundle,
    EngineArgs,
    GpuSample,
    Manifest,
    PromptSample,
    ReproducerRecord,
    Scrape,
    ServerInfo,
)
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.errors import BundleError
from kvdoctor.slo import SLO_FILE, slo_json

_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")


def is_archive(dest: Path) -> bool:
    return dest.name.endswith(_ARCHIVE_SUFFIXES)


def _dumps(obj: JsonValue) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def manifest_json(manifest: Manifest) -> str:
    # Extensions not given are left out, so other readers see the contract's keys only.
    leave_out = {k for k in ("complaint", "replicas", "routing") if getattr(manifest, k) is None}
    body = manifest.model_dump(mode="json", by_alias=True, exclude=leave_out or None)
    return json.dumps(body, indent=2) + "\n"


def scrape_line(scrape: Scrape) -> str:
    return _dumps(scrape.model_dump(mode="json", exclude_none=True)) + "\n"


def gpu_line(sample: GpuSample) -> str:
    return _dumps(sample.model_dump(mode="json")) + "\n"


def record_line(record: ReproducerRecord) -> str:
    return _dumps(record.model_dump(mode="json", by_alias=True)) + "\n"


def reproducer_lines(bundle: Bundle) -> list[str]:
    """The lines of ``reproducers.jsonl``: the records, with every unread line put back
    verbatim at the place it was read from (a rewrite loses nothing and keeps the order)."""
    lines = [record_line(r) for r in bundle.reproducers or []]
    for unread in sorted(bundle.unread_reproducers, key=lambda u: u.position):
        lines.insert(min(unread.position, len(lines)), unread.line + "\n")
    return lines


def bundle_files(bundle: Bundle) -> dict[str, str]:
    """The files of ``bundle`` as name -> text (optional parts only when present)."""
    files = {
        MANIFEST: manifest_json(bundle.manifest),
        METRICS: "".join(scrape_line(s) for s in bundle.scrapes),
    }
    if bundle.server is not None:
        files[SERVER] = json.dumps(bundle.server.model_dump(mode="json"), indent=2) + "\n"
    if bundle.engine_args is not None:
        files[ENGINE_ARGS] = json.dumps(bundle.engine_args.model_dump(mode="json"), indent=2) + "\n"
    if bundle.model_config_raw is not None:
        files[MODEL_CONFIG] = json.dumps(bundle.model_config_raw, indent=2) + "\n"
    if bundle.gpu is not None:
        files[GPU] = "".join(gpu_line(g) for g in bundle.gpu)
    if bundle.logs is not None:
        files[LOGS] = bundle.logs
    if bundle.reproducers is not None or bundle.unread_reproducers:
        files[REPRODUCERS] = "".join(reproducer_lines(bundle))
    if bundle.slo:
        files[SLO_FILE] = slo_json(bundle.slo)
    if bundle.prompt_sample is not None:
        files[PROMPT_SAMPLE_FILE] = bundle.prompt_sample.to_json()
    return files


def _check_dir_dest(dest: Path) -> None:
    if dest.exists():
        if not dest.is_dir():
            raise BundleError(f"{dest} exists and is not a directory")
        if any(dest.iterdir()):
            raise BundleError(f"refusing to write into non-empty directory {dest}")


def _staging_dir(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{dest.name}.partial-", dir=dest.parent))


def _pack(src_dir: Path, dest: Path, mtime: float) -> None:
    """Pack ``src_dir`` into ``dest`` (a .tar.gz) atomically, deterministically."""
    top = dest.name
    for suffix in _ARCHIVE_SUFFIXES:
        if top.endswith(suffix):
            top = top[: -len(suffix)]
            break
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for f in sorted(src_dir.iterdir()):
                if not f.is_file():
                    continue
                info = tarfile.TarInfo(f"{top}/{f.name}")
                info.size = f.stat().st_size
                info.mtime = int(mtime)
                info.mode = 0o644
                with f.open("rb") as fh:
                    tar.addfile(info, fh)
        os.replace(tmp_name, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def _place_dir(staging: Path, dest: Path) -> None:
    if dest.exists():
        dest.rmdir()  # checked empty before; rename cannot replace a directory
    os.replace(staging, dest)


def write_bundle(bundle: Bundle, dest: Path) -> Path:
    """Write ``bundle`` to ``dest`` (a directory, or a ``.tar.gz`` by suffix), atomically."""
    dest = Path(dest)
    archive = is_archive(dest)
    if not archive:
        _check_dir_dest(dest)
    try:
        staging = _staging_dir(dest)
    except OSError as exc:
        raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
    try:
        for name, text in bundle_files(bundle).items():
            (staging / name).write_text(text, encoding="utf-8")
        if archive:
            _pack(staging, dest, bundle.manifest.ended_at)
            shutil.rmtree(staging, ignore_errors=True)
        else:
            _place_dir(staging, dest)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return dest


def append_reproducers(dest: Path, records: Iterable[ReproducerRecord]) -> Path:
    """Append reproducer records to the bundle at ``dest`` (directory or .tar.gz), atomically.

    A directory's ``reproducers.jsonl`` only grows; an archive is rewritten whole, its unread
    reproducer lines included (see :class:`~kvdoctor.bundle.model.UnreadRecord`).
    """
    dest = Path(dest)
    added = list(records)
    lines = "".join(record_line(r) for r in added)
    if is_archive(dest):
        return write_bundle(read_bundle(dest).with_reproducers(added), dest)
    target = dest / REPRODUCERS
    if not (dest / MANIFEST).is_file():
        raise BundleError(f"not a kvdoctor bundle (no {MANIFEST}): {dest}")
    try:
        old = target.read_text(encoding="utf-8") if target.is_file() else ""
        if old and not old.endswith("\n"):
            old += "\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{REPRODUCERS}.", dir=dest)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise BundleError(f"cannot add to {target}: {why or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(old + lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return dest


def add_prompt_sample(dest: Path, sample: PromptSample) -> Path:
    """Store what the operator's prompt sample showed (lengths only) in the bundle at ``dest``,
    atomically; an archive is rewritten whole."""
    dest = Path(dest)
    if is_archive(dest):
        from kvdoctor.bundle.reader import read_bundle

        return write_bundle(read_bundle(dest).model_copy(update={"prompt_sample": sample}), dest)
    if not (dest / MANIFEST).is_file():
        raise BundleError(f"not a kvdoctor bundle (no {MANIFEST}): {dest}")
    fd, tmp = tempfile.mkstemp(prefix=f".{PROMPT_SAMPLE_FILE}.", dir=dest)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(sample.to_json())
        os.replace(tmp, dest / PROMPT_SAMPLE_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return dest


class BundleSink:
    """Incremental, crash-tolerant bundle writer used during a capture.

    Files grow in a staging directory beside ``dest``; :meth:`finalize` writes the final
    manifest and moves (or packs) the staging directory into place in one step.
    """

    def __init__(self, dest: Path, manifest: Manifest) -> None:
        self.dest = Path(dest)
        self.archive = is_archive(self.dest)
        if not self.archive:
            _check_dir_dest(self.dest)
        try:
            self.staging = _staging_dir(self.dest)
        except OSError as exc:
            raise BundleError(f"cannot write bundle to {dest}: {exc.strerror or exc}") from None
        self._streams: dict[str, IO[str]] = {}
        try:
            # A provisional manifest first: even the staging directory is a readable bundle.
            self._write(MANIFEST, manifest_json(manifest))
            self._stream(METRICS)
        except BaseException:
            # A SIGTERM or a full disk before the caller holds this sink: nobody else can
            # remove the staging directory.
            self.abort()
            raise

    def _failed(self, exc: OSError) -> BundleError:
        # A full disk mid-capture: one line (the staging directory goes in abort()).
        return BundleError(f"cannot write bundle to {self.dest}: {exc.strerror or exc}")

    def _write(self, name: str, text: str) -> None:
        try:
            (self.staging / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise self._failed(exc) from None

    def _stream(self, name: str) -> IO[str]:
        fh = self._streams.get(name)
        if fh is None:
            try:
                fh = (self.staging / name).open("a", encoding="utf-8")
            except OSError as exc:
                raise self._failed(exc) from None
            self._streams[name] = fh
        return fh

    def _append(self, name: str, line: str) -> None:
        fh = self._stream(name)
        try:
            fh.write(line)
            fh.flush()
        except OSError as exc:
            raise self._failed(exc) from None

    def add_scrape(self, scrape: Scrape) -> None:
        self._append(METRICS, scrape_line(scrape))

    def add_gpu(self, sample: GpuSample) -> None:
        self._append(GPU, gpu_line(sample))

    def set_server(self, server: ServerInfo) -> None:
        self._write(SERVER, json.dumps(server.model_dump(mode="json"), indent=2) + "\n")

    def set_engine_args(self, args: EngineArgs) -> None:
        self._write(ENGINE_ARGS, json.dumps(args.model_dump(mode="json"), indent=2) + "\n")

    def set_model_config(self, cfg: Mapping[str, JsonValue]) -> None:
        self._write(MODEL_CONFIG, json.dumps(dict(cfg), indent=2) + "\n")

    def set_logs(self, text: str) -> None:
        self._write(LOGS, text)

    def set_slo(self, slo: Mapping[str, float]) -> None:
        self._write(SLO_FILE, slo_json(slo))

    def set_prompt_sample(self, sample: PromptSample) -> None:
        self._write(PROMPT_SAMPLE_FILE, sample.to_json())

    def _close_streams(self) -> None:
        try:
            for fh in self._streams.values():
                with contextlib.suppress(OSError):
                    fh.close()
        finally:
            self._streams.clear()

    def finalize(self, manifest: Manifest) -> Path:
        try:
            for fh in self._streams.values():
                fh.flush()
            self._close_streams()
            self._write(MANIFEST, manifest_json(manifest))
            if self.archive:
                _pack(self.staging, self.dest, manifest.ended_at)
                shutil.rmtree(self.staging, ignore_errors=True)
            else:
                _place_dir(self.staging, self.dest)
        except OSError as exc:
            raise BundleError(
                f"cannot write bundle to {self.dest}: {exc.strerror or exc}"
            ) from None
        return self.dest

    def abort(self) -> None:
        self._close_streams()
        shutil.rmtree(self.staging, ignore_errors=True)
