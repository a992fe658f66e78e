"""Read a ``kvdoctor.bundle/1`` bundle from a directory or a ``.tar.gz`` (docs/bundle.md).

A ``.tar.gz`` is untrusted input: it is read in memory member by member (never extracted), and
members with absolute paths, ``..``, links or devices, too many members, or sizes beyond the caps
are refused. A bundle of a newer major schema is refused with a message that says so. Missing
optional files give ``None``; unknown files and keys are ignored.
"""

from __future__ import annotations

import json
import math
import re
import tarfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import TypeVar

from pydantic import JsonValue, ValidationError

from kvdoctor.bundle.model import (
    BUNDLE_MAJOR,
    BUNDLE_SCHEMA,
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
    NotChecked,
    PromptSample,
    ReproducerRecord,
    Scrape,
    ServerInfo,
    UnreadRecord,
)
from kvdoctor.errors import BundleError, KvdoctorError
from kvdoctor.slo import slo_from_bundle_file

# Caps for untrusted archives. A one-hour capture of a busy server is a few hundred MB of raw
# exposition text at most; anything beyond these is refused rather than loaded.
MAX_MEMBER_BYTES = 1 << 30
MAX_TOTAL_BYTES = 2 << 30
MAX_MEMBERS = 256
# Caps on records. A day of scrapes every half second is 172,800 lines; a run writes one
# reproducer record per experiment. 10M lines of "{}" (a 155 KB archive) once took 5.5 GB, 3M
# error scrapes 8 GB: the count is refused before any line is parsed.
MAX_LINES = {METRICS: 200_000, GPU: 200_000, REPRODUCERS: 10_000}

T = TypeVar("T")

_KNOWN = (
    MANIFEST,
    METRICS,
    SERVER,
    ENGINE_ARGS,
    MODEL_CONFIG,
    GPU,
    LOGS,
    REPRODUCERS,
    "slo.json",
    PROMPT_SAMPLE_FILE,
)
# Bounded digits: int() of a 5,000-digit major raises (Python's int max str digits).
_SCHEMA_RE = re.compile(r"kvdoctor\.bundle/(\d{1,9})(?:\.\d{1,9})*")
MAX_JSON_DEPTH = 200


def read_bundle(path: str | Path, scan: ArchiveScan | None = None) -> Bundle:
    """Read a bundle directory or ``.tar.gz``. Raises :class:`BundleError` (one line).

    ``scan``: the archive at ``path`` already read by :func:`scan_archive` (keeping at least the
    bundle's files), so that it is not decompressed a second time.
    """
    p = Path(path)
    if p.is_dir():
        files = _read_dir(p)
    elif p.is_file():
        files = _read_tar(p, scan)
    else:
        raise BundleError(f"bundle not found: {p}")
    return _assemble(files, source=str(p))


def _read_dir(root: Path) -> dict[str, bytes]:
    # The caps of an archive apply to a directory too: a directory is no more trusted (a 1.2 GB
    # sparse file took 98 s and 2.5 GB of memory before being refused by nothing).
    files: dict[str, bytes] = {}
    total = 0
    for name in _KNOWN:
        f = root / name
        if f.is_file():
            try:
                size = f.stat().st_size
                if size > MAX_MEMBER_BYTES:
                    raise BundleError(f"bundle file {f} is larger than the size cap")
                total += size
                if total > MAX_TOTAL_BYTES:
                    raise BundleError(f"bundle {root} is larger than the size cap")
                with f.open("rb") as fh:
                    data = fh.read(MAX_MEMBER_BYTES + 1)
            except OSError as exc:
                raise BundleError(f"cannot read {f}: {exc.strerror or exc}") from None
            if len(data) > MAX_MEMBER_BYTES:  # grew while being read
                raise BundleError(f"bundle file {f} is larger than the size cap")
            files[name] = data
    return files


def _read_tar(path: Path, scan: ArchiveScan | None = None) -> dict[str, bytes]:
    # Bundle files from two folders (a.tar.gz holding run1/ and run2/) would be merged into one
    # bundle that no capture ever made: refused instead.
    folders: list[str] = []

    def select(parts: list[str]) -> str | None:
        name = _bundle_name(parts)
        if name is not None:
            folder = parts[0] if len(parts) == 2 else "."
            if folder not in folders:
                folders.append(folder)
            if len(folders) > 1:
                raise BundleError(
                    f"archive {path.name} holds bundle files in several top-level folders "
                    f"({', '.join(repr(f) for f in folders)}); pack one bundle per archive"
                )
        return name

    if scan is not None:
        return scan.files(select, MAX_MEMBERS)
    return read_tar_members(path, select)


def bundle_file_name(parts: list[str]) -> str | None:
    """The bundle file an archive member is (its path parts), ``None`` for any other member."""
    return _bundle_name(parts)


class ArchiveScan:
    """An archive read in one pass: how many members it has, and the regular files a
    predicate kept, each with its position among the members, its path parts and its bytes.

    Every member passed the checks and caps of :func:`read_tar_members` under the member cap
    the scan was made with; :meth:`files` answers what :func:`read_tar_members` would have
    returned for another selector, without decompressing the archive again.
    """

    __slots__ = ("count", "kept", "name")

    def __init__(self, name: str, count: int, kept: list[tuple[int, list[str], bytes]]) -> None:
        self.name = name
        self.count = count
        self.kept = kept

    def files(
        self, select: Callable[[list[str]], str | None], max_members: int
    ) -> dict[str, bytes]:
        """The members ``select`` keeps, with the same errors, in the same order, as
        :func:`read_tar_members` would raise them (``select`` must keep only members the
        scan's predicate kept)."""
        files: dict[str, bytes] = {}
        for position, parts, data in self.kept:
            if position > max_members:
                break
            key = select(parts)
            if key is None:
                continue
            if key in files:
                raise BundleError(f"archive {self.name} holds {key} twice; refused")
            files[key] = data
        if self.count > max_members:
            raise BundleError(f"archive {self.name} has more than {max_members} members")
        return files


def scan_archive(
    path: Path, keep: Callable[[list[str]], bool], max_members: int
) -> ArchiveScan | None:
    """Read the archive at ``path`` once, keeping the regular files ``keep`` wants.

    ``None`` when the archive breaks any check or cap (or is not an archive): reading it again
    with :func:`read_tar_members` raises the exact error for what the caller wanted.
    """
    kept: list[tuple[int, list[str], bytes]] = []
    count = 0
    try:
        with tarfile.open(path, mode="r:*") as tar:
            total = 0
            for count, member in enumerate(_members(tar), 1):
                if count > max_members:
                    return None
                _check_member(member)
                if member.isdir():
                    continue
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    return None
                parts = [p for p in PurePosixPath(member.name).parts if p not in ("", ".")]
                fh = tar.extractfile(member) if keep(parts) else None
                if fh is None:
                    continue
                data = fh.read(MAX_MEMBER_BYTES + 1)
                if len(data) > MAX_MEMBER_BYTES:
                    return None
                kept.append((count, parts, data))
    except (BundleError, tarfile.TarError, OSError, EOFError, ValueError, zlib.error):
        return None
    return ArchiveScan(path.name, count, kept)


def read_tar_members(
    path: Path, select: Callable[[list[str]], str | None], max_members: int | None = None
) -> dict[str, bytes]:
    """The members of an untrusted archive that ``select`` keeps, never extracted to disk.

    ``select`` maps a member's path parts to the key it is returned under (``None``: skip it).
    Every member is checked (no absolute paths, ``..``, links or special files; size caps per
    member and in total), whether it is kept or not.
    """
    files: dict[str, bytes] = {}
    # Read at call time (not as a default argument) so the module's caps stay the one setting.
    if max_members is None:
        max_members = MAX_MEMBERS
    try:
        with tarfile.open(path, mode="r:*") as tar:
            total = 0
            for count, member in enumerate(_members(tar), 1):
                if count > max_members:
                    raise BundleError(f"archive {path.name} has more than {max_members} members")
                _check_member(member)
                if member.isdir():
                    continue
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise BundleError(f"archive {path.name} is larger than the size cap")
                parts = [p for p in PurePosixPath(member.name).parts if p not in ("", ".")]
                key = select(parts)
                fh = None if key is None else tar.extractfile(member)
                if key is None or fh is None:
                    continue
                if key in files:
                    # Two members of one name: taking either one would hide the other.
                    raise BundleError(f"archive {path.name} holds {key} twice; refused")
                data = fh.read(MAX_MEMBER_BYTES + 1)
                if len(data) > MAX_MEMBER_BYTES:
                    raise BundleError(f"archive member {member.name!r} is larger than the size cap")
                files[key] = data
    except (tarfile.TarError, OSError, EOFError, ValueError, zlib.error) as exc:
        raise BundleError(f"corrupt bundle archive {path.name}: {_one_line(exc)}") from None
    return files


def _check_member(member: tarfile.TarInfo) -> None:
    name = member.name
    pure = PurePosixPath(name)
    if name.startswith(("/", "\\")) or pure.is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise BundleError(f"archive member with an absolute path refused: {name!r}")
    if ".." in pure.parts or "\\" in name:
        raise BundleError(f"archive member escaping the bundle refused: {name!r}")
    if member.issym() or member.islnk():
        raise BundleError(f"archive member that is a link refused: {name!r}")
    if not (member.isdir() or member.isfile()):
        raise BundleError(f"archive member that is not a regular file refused: {name!r}")
    if member.size > MAX_MEMBER_BYTES:
        raise BundleError(f"archive member {name!r} is larger than the size cap")


def _members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    # Iterate lazily (tar.getmembers() would read a hostile archive's whole index first).
    member = tar.next()
    while member is not None:
        yield member
        member = tar.next()


def _bundle_name(parts: list[str]) -> str | None:
    """Accept files at the archive root or under one top-level folder (``name/manifest.json``)."""
    if len(parts) == 1 or len(parts) == 2:
        return parts[-1] if parts[-1] in _KNOWN else None
    return None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _text(files: dict[str, bytes], name: str) -> str | None:
    data = files.get(name)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BundleError(f"{name} is not UTF-8 text") from None


def _loads(text: str, where: str) -> JsonValue:
    """``json.loads`` for untrusted text: every failure is one :class:`BundleError` line."""
    try:
        value: JsonValue = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise BundleError(
            f"{where} is nested too deeply (more than {MAX_JSON_DEPTH} levels)"
        ) from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise BundleError(f"{where} holds a value out of range: {_one_line(exc)[:120]}") from None
    if json_depth(value) > MAX_JSON_DEPTH:
        # Loadable but deeper than any bundle file is: later walks over it would recurse.
        raise BundleError(f"{where} is nested too deeply (more than {MAX_JSON_DEPTH} levels)")
    return value


def json_depth(value: object) -> int:
    """Nesting depth of a JSON value, without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, d)
            if d <= MAX_JSON_DEPTH:
                stack.extend((x, d + 1) for x in v if isinstance(x, dict | list))
    return deepest


def _json(files: dict[str, bytes], name: str) -> JsonValue:
    text = _text(files, name)
    if text is None:
        return None
    return _loads(text, name)


def _jsonl(files: dict[str, bytes], name: str, cut: list[NotChecked]) -> list[JsonValue] | None:
    lines = _jsonl_lines(files, name, cut)
    return None if lines is None else [value for _, value in lines]


def _jsonl_lines(
    files: dict[str, bytes], name: str, cut: list[NotChecked]
) -> list[tuple[str, JsonValue]] | None:
    """The non-blank lines of a JSON Lines file as (exact text, parsed JSON value)."""
    data = files.get(name)
    if data is None:
        return None
    cap = MAX_LINES.get(name)
    if cap is not None:
        n = data.count(b"\n")
        if n > cap:
            raise BundleError(f"{name} has {n} lines (cap {cap}); not read")
    text = _text(files, name)
    if text is None:
        return None
    lines = text.split("\n")
    out: list[tuple[str, JsonValue]] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append((line, _loads(line, f"{name} line {i}")))
        except BundleError:
            if i == len(lines):
                # The last line has no newline after it: a write that was cut short (a kill
                # during a recording). Everything before it is intact, so keep that, and say
                # what was dropped (the report lists it under "not checked").
                cut.append(
                    NotChecked(what=name, why=f"line {i} cut short (no newline, not JSON); dropped")
                )
                break
            raise
    return out


def reproducer_records(
    lines: list[tuple[str, JsonValue]],
) -> tuple[list[ReproducerRecord], list[UnreadRecord]]:
    """The lines of ``reproducers.jsonl`` as typed records, and those that are not valid ones.

    A bad record is not fatal: the diagnosis goes on without it, lists its problem under "not
    checked", and the line itself is kept for any rewrite of the bundle.
    """
    records: list[ReproducerRecord] = []
    unread: list[UnreadRecord] = []
    for position, (line, raw) in enumerate(lines):
        label = f"#{position + 1}"
        if not isinstance(raw, dict):
            why = "unreadable (not a JSON object); not used"
        else:
            name = raw.get("name")
            if isinstance(name, str):
                label = name
            try:
                records.append(ReproducerRecord.model_validate(raw))
                continue
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(x) for x in err.get("loc", ())) or "record"
                why = f"unreadable ({loc}: {err.get('msg', 'invalid')}); not used"
        unread.append(
            UnreadRecord(
                position=position,
                line=line,
                problem=NotChecked(what=f"reproducer record {label}", why=why),
            )
        )
    return records, unread


def check_schema(schema: object) -> None:
    if not isinstance(schema, str):
        raise BundleError("manifest.json has no schema string; not a kvdoctor bundle")
    m = _SCHEMA_RE.fullmatch(schema)
    if m is None:
        raise BundleError(f"unknown bundle schema {schema[:60]!r}; expected {BUNDLE_SCHEMA}")
    major = int(m.group(1))
    if major > BUNDLE_MAJOR:
        raise BundleError(
            f"bundle schema {schema} is newer than this kvdoctor reads ({BUNDLE_SCHEMA});"
            " upgrade kvdoctor to read it"
        )
    if major < 1:
        raise BundleError(f"unknown bundle schema {schema[:60]!r}; expected {BUNDLE_SCHEMA}")


def _model(factory: Callable[[object], T], data: object, what: str) -> T:
    try:
        return factory(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err.get("loc", ()))
        raise BundleError(f"{what}: {loc or 'value'}: {err.get('msg', 'invalid')}") from None


def bundle_from_files(files: dict[str, bytes], source: str) -> Bundle:
    """A bundle from its files already in memory (name -> bytes), e.g. a fleet archive's
    nested replica bundles; the same checks as :func:`read_bundle`."""
    return _assemble({k: v for k, v in files.items() if k in _KNOWN}, source)


def _assemble(files: dict[str, bytes], source: str) -> Bundle:
    if MANIFEST not in files:
        raise BundleError(f"not a kvdoctor bundle (no {MANIFEST}): {source}")
    raw_manifest = _json(files, MANIFEST)
    if not isinstance(raw_manifest, dict):
        raise BundleError(f"{MANIFEST} is not a JSON object")
    check_schema(raw_manifest.get("schema"))
    manifest = _model(Manifest.model_validate, raw_manifest, MANIFEST)

    cut: list[NotChecked] = []
    raw_scrapes = _jsonl(files, METRICS, cut)
    if raw_scrapes is None:
        raise BundleError(f"bundle has no {METRICS}: {source}")
    scrapes = [
        _model(Scrape.model_validate, s, f"{METRICS} record {i}")
        for i, s in enumerate(raw_scrapes, 1)
    ]

    server_raw = _json(files, SERVER)
    server = None if server_raw is None else _model(ServerInfo.model_validate, server_raw, SERVER)
    engine_raw = _json(files, ENGINE_ARGS)
    engine = (
        None if engine_raw is None else _model(EngineArgs.model_validate, engine_raw, ENGINE_ARGS)
    )
    model_cfg = _json(files, MODEL_CONFIG)
    if model_cfg is not None and not isinstance(model_cfg, dict):
        raise BundleError(f"{MODEL_CONFIG} is not a JSON object")
    gpu_raw = _jsonl(files, GPU, cut)
    gpu = (
        None
        if gpu_raw is None
        else [
            _model(GpuSample.model_validate, g, f"{GPU} record {i}")
            for i, g in enumerate(gpu_raw, 1)
        ]
    )
    repro_lines = _jsonl_lines(files, REPRODUCERS, cut)
    repro, unread = reproducer_records(repro_lines) if repro_lines is not None else (None, [])
    slo = None
    if "slo.json" in files:
        try:
            slo = slo_from_bundle_file(files["slo.json"]) or None
        except KvdoctorError as exc:
            raise BundleError(str(exc)) from None
    prompt_sample = None
    if PROMPT_SAMPLE_FILE in files:
        raw_sample = _json(files, PROMPT_SAMPLE_FILE)
        prompt_sample = _model(PromptSample.model_validate, raw_sample, PROMPT_SAMPLE_FILE)
    start, end = manifest.started_at, manifest.ended_at
    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
        # Impossible times are invalid data: the report shows no window rather than a negative
        # one, and says why.
        cut.append(
            NotChecked(
                what="capture window",
                why=f"{MANIFEST} gives an impossible window ({start!r} to {end!r}); not shown",
            )
        )
    if cut:
        manifest = manifest.model_copy(update={"not_checked": [*manifest.not_checked, *cut]})
    return Bundle(
        manifest=manifest,
        scrapes=scrapes,
        server=server,
        engine_args=engine,
        model_config_raw=model_cfg,
        gpu=gpu,
        logs=_text(files, LOGS),
        reproducers=repro,
        unread_reproducers=unread,
        slo=slo,
        prompt_sample=prompt_sample,
        source=source,
    )
