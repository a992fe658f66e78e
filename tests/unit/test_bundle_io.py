"""Bundle reading and writing: round trips, atomicity, hostile archives, schema versions."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from kvdoctor.bundle import reader as reader_mod
from kvdoctor.bundle.model import (
    Bundle,
    EngineArgs,
    GpuDevice,
    GpuProcess,
    GpuSample,
    Manifest,
    NotChecked,
    Scrape,
    ServerInfo,
    UnreadRecord,
)
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import BundleSink, append_reproducers, write_bundle
from kvdoctor.errors import BundleError
from kvdoctor.reproducers.model import ReproducerRecord

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def _bundle(full: bool = True) -> Bundle:
    text = (DATA / "metrics-idle.txt").read_text(encoding="utf-8")
    manifest = Manifest(
        created_by="kvdoctor test",
        endpoint="http://127.0.0.1:18080",
        started_at=100.0,
        ended_at=104.0,
        interval_s=2.0,
        notes="unit test",
        not_checked=[NotChecked(what="gpu", why="no driver")],
    )
    scrapes = [
        Scrape(t=100.0, status=200, text=text),
        Scrape(t=102.0, error="connection refused (nothing listens there)"),
        Scrape(t=104.0, status=200, text=text),
    ]
    if not full:
        return Bundle(manifest=manifest, scrapes=scrapes)
    return Bundle(
        manifest=manifest,
        scrapes=scrapes,
        server=ServerInfo(version={"version": "0.32.0"}, models={"data": []}, health=200),
        engine_args=EngineArgs(argv=["vllm", "serve", "m"], args={"max-num-seqs": 8}),
        model_config_raw={"num_hidden_layers": 2},
        gpu=[
            GpuSample(
                t=100.0,
                devices=[
                    GpuDevice(
                        index=0,
                        name="H100",
                        memory_total=80,
                        memory_used=70,
                        processes=[GpuProcess(pid=1, name="vllm (python)", used_memory=60)],
                    )
                ],
            )
        ],
        logs="INFO start\n",
        reproducers=[ReproducerRecord(name="x", verdict="refuted", started_at=1.0, ended_at=1.5)],
        # A line no valid record (it lacks verdict and times): written back as it was.
        unread_reproducers=[
            UnreadRecord(
                position=0,
                line='{"schema":"kvdoctor.reproducer/1","name":"raw"}',
                problem=NotChecked(
                    what="reproducer record raw",
                    why="unreadable (verdict: Field required); not used",
                ),
            )
        ],
    )


@pytest.mark.parametrize("dest_name", ["bundle", "bundle.tar.gz"])
def test_round_trip(tmp_path: Path, dest_name: str) -> None:
    b = _bundle()
    dest = write_bundle(b, tmp_path / dest_name)
    back = read_bundle(dest)
    assert back.model_dump(exclude={"source"}) == b.model_dump(exclude={"source"})
    assert back.source == str(dest)
    # Nothing but the bundle itself is left beside it (staging cleaned up).
    assert sorted(p.name for p in tmp_path.iterdir()) == [dest_name]


def test_failed_scrape_is_written_as_t_and_error_only(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(), tmp_path / "b")
    lines = (dest / "metrics.jsonl").read_text().splitlines()
    assert json.loads(lines[1]) == {
        "t": 102.0,
        "error": "connection refused (nothing listens there)",
    }
    manifest = json.loads((dest / "manifest.json").read_text())
    assert manifest["schema"] == "kvdoctor.bundle/1"


def test_missing_optional_files_are_none(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    assert sorted(p.name for p in dest.iterdir()) == ["manifest.json", "metrics.jsonl"]
    back = read_bundle(dest)
    assert (back.server, back.engine_args, back.model_config_raw, back.gpu, back.logs) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert back.reproducers is None


def test_unknown_files_and_keys_are_ignored(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    (dest / "future.bin").write_bytes(b"\x00")
    m = json.loads((dest / "manifest.json").read_text())
    m["schema"] = "kvdoctor.bundle/1.3"
    m["new_key"] = {"x": 1}
    (dest / "manifest.json").write_text(json.dumps(m))
    assert read_bundle(dest).manifest.endpoint == "http://127.0.0.1:18080"


def test_future_major_schema_is_refused(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    m = json.loads((dest / "manifest.json").read_text())
    m["schema"] = "kvdoctor.bundle/2"
    (dest / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BundleError, match=r"newer than this kvdoctor reads.*upgrade"):
        read_bundle(dest)


@pytest.mark.parametrize("schema", ["something/1", None, 3])
def test_unknown_schema_is_refused(tmp_path: Path, schema: object) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    m = json.loads((dest / "manifest.json").read_text())
    m["schema"] = schema
    (dest / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BundleError):
        read_bundle(dest)


def test_missing_required_parts(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not found"):
        read_bundle(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleError, match=r"no manifest\.json"):
        read_bundle(tmp_path / "empty")
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    (dest / "metrics.jsonl").unlink()
    with pytest.raises(BundleError, match=r"no metrics\.jsonl"):
        read_bundle(dest)


def test_corrupt_jsonl_line_is_refused_but_a_cut_last_line_is_dropped(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    path = dest / "metrics.jsonl"
    good = path.read_text()
    path.write_text(good + '{"t": 106.0, "status": 200, "te')  # a write cut short by a kill
    assert len(read_bundle(dest).scrapes) == 3
    path.write_text('{"t": 1, oops}\n' + good)
    with pytest.raises(BundleError, match=r"metrics\.jsonl line 1"):
        read_bundle(dest)


def test_records_of_the_wrong_shape_are_one_line_errors(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    (dest / "metrics.jsonl").write_text('{"status": 200}\n')
    with pytest.raises(BundleError, match=r"metrics\.jsonl record 1: t"):
        read_bundle(dest)


def test_refuses_to_write_into_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "keep.txt").write_text("mine")
    with pytest.raises(BundleError, match="non-empty"):
        write_bundle(_bundle(), tmp_path / "b")
    assert (tmp_path / "b" / "keep.txt").read_text() == "mine"


def test_append_reproducers_dir_and_archive(tmp_path: Path) -> None:
    rec = ReproducerRecord(name="admission", verdict="confirmed", started_at=1.0, ended_at=2.0)
    again = rec.model_copy(update={"name": "again"})
    for name in ("d", "d.tar.gz"):
        dest = write_bundle(_bundle(), tmp_path / name)
        append_reproducers(dest, [rec])
        append_reproducers(dest, [again])
        back = read_bundle(dest)
        assert back.reproducers is not None
        assert [r.name for r in back.reproducers] == ["x", "admission", "again"]
        assert back.reproducers[1] == rec
        # The unread line survives the rewrite of an archive, verbatim and in its place.
        [unread] = back.unread_reproducers
        assert (unread.position, unread.problem.what) == (0, "reproducer record raw")
        files = reader_mod.read_tar_members(dest, lambda p: p[-1]) if name != "d" else None
        text = (
            files["reproducers.jsonl"].decode()
            if files is not None
            else (dest / "reproducers.jsonl").read_text()
        )
        assert text.splitlines()[0] == '{"schema":"kvdoctor.reproducer/1","name":"raw"}'


def test_bad_reproducer_lines_are_kept_aside_not_fatal(tmp_path: Path) -> None:
    dest = write_bundle(_bundle(full=False), tmp_path / "b")
    good = ReproducerRecord(name="ok", verdict="confirmed", started_at=1.0, ended_at=2.0)
    lines = [
        '{"name": "quant-canary", "verdict": "maybe", "started_at": 0, "ended_at": 0}',
        "",
        json.dumps(good.model_dump(mode="json", by_alias=True)),
        '"just a string"',
    ]
    (dest / "reproducers.jsonl").write_text("\n".join(lines) + "\n")
    back = read_bundle(dest)
    assert back.reproducers == [good]
    got = [(u.position, u.line, u.problem.what) for u in back.unread_reproducers]
    assert got == [
        (0, lines[0], "reproducer record quant-canary"),
        (2, lines[3], "reproducer record #3"),
    ]
    assert "verdict" in back.unread_reproducers[0].problem.why
    # Written again, the file holds the same records in the same order.
    again = write_bundle(back, tmp_path / "again")
    assert (again / "reproducers.jsonl").read_text().splitlines() == [
        lines[0],
        json.dumps(good.model_dump(mode="json", by_alias=True), separators=(",", ":")),
        lines[3],
    ]


# ----------------------------------------------------------------------- hostile archives


def _tar(tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    path = tmp_path / "hostile.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _good_members() -> list[tuple[tarfile.TarInfo, bytes | None]]:
    m = json.dumps(
        {
            "schema": "kvdoctor.bundle/1",
            "created_by": "x",
            "endpoint": "e",
            "started_at": 0,
            "ended_at": 1,
            "interval_s": 1,
        }
    ).encode()
    return [_file("b/manifest.json", m), _file("b/metrics.jsonl", b'{"t": 0, "error": "x"}\n')]


def test_a_good_archive_reads(tmp_path: Path) -> None:
    assert len(read_bundle(_tar(tmp_path, _good_members())).scrapes) == 1


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("/etc/manifest.json", "absolute path"),
        ("b/../../manifest.json", "escaping"),
        ("..", "escaping"),
    ],
)
def test_path_tricks_are_refused(tmp_path: Path, name: str, fragment: str) -> None:
    members = [_file(name, b"{}"), *_good_members()]
    with pytest.raises(BundleError, match=fragment):
        read_bundle(_tar(tmp_path, members))


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_links_are_refused(tmp_path: Path, kind: bytes) -> None:
    link = tarfile.TarInfo("b/logs.txt")
    link.type = kind
    link.linkname = "/etc/passwd"
    with pytest.raises(BundleError, match="link"):
        read_bundle(_tar(tmp_path, [*_good_members(), (link, None)]))


def test_devices_are_refused(tmp_path: Path) -> None:
    dev = tarfile.TarInfo("b/logs.txt")
    dev.type = tarfile.CHRTYPE
    with pytest.raises(BundleError, match="not a regular file"):
        read_bundle(_tar(tmp_path, [*_good_members(), (dev, None)]))


def test_size_and_member_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_mod, "MAX_MEMBER_BYTES", 1000)
    big = [*_good_members(), _file("b/logs.txt", b"x" * 5000)]
    with pytest.raises(BundleError, match="size cap"):
        read_bundle(_tar(tmp_path, big))
    monkeypatch.setattr(reader_mod, "MAX_MEMBER_BYTES", 1 << 20)
    monkeypatch.setattr(reader_mod, "MAX_MEMBERS", 5)
    many = [*_good_members(), *[_file(f"b/x{i}", b"") for i in range(10)]]
    with pytest.raises(BundleError, match="more than 5 members"):
        read_bundle(_tar(tmp_path, many))


@pytest.mark.parametrize(
    "content",
    [b"", b"not a tarball at all", b"\x1f\x8b\x08\x00garbage-gzip", None],
    ids=["empty", "text", "bad-gzip", "cut"],
)
def test_corrupt_archives_are_one_line_errors(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "bad.tar.gz"
    if content is None:
        good = _tar(tmp_path, _good_members()).read_bytes()
        content = good[: len(good) // 2]
    path.write_bytes(content)
    with pytest.raises(BundleError) as err:
        read_bundle(path)
    assert "\n" not in str(err.value)


# -------------------------------------------------------------------- incremental writing


def test_sink_staging_is_a_readable_bundle_and_finalize_moves_it(tmp_path: Path) -> None:
    b = _bundle(full=False)
    sink = BundleSink(tmp_path / "out", b.manifest)
    sink.add_scrape(b.scrapes[0])
    # Mid-capture the staging directory already reads as a bundle (kill -9 leaves evidence).
    assert len(read_bundle(sink.staging).scrapes) == 1
    sink.add_scrape(b.scrapes[1])
    sink.set_logs("log line\n")
    dest = sink.finalize(b.manifest.model_copy(update={"notes": "done"}))
    back = read_bundle(dest)
    assert [s.t for s in back.scrapes] == [100.0, 102.0]
    assert back.logs == "log line\n"
    assert back.manifest.notes == "done"
    assert not sink.staging.exists()


def test_sink_abort_leaves_nothing(tmp_path: Path) -> None:
    b = _bundle(full=False)
    sink = BundleSink(tmp_path / "out.tar.gz", b.manifest)
    sink.add_scrape(b.scrapes[0])
    sink.abort()
    assert list(tmp_path.iterdir()) == []


def test_sink_interrupted_while_it_opens_leaves_no_staging_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A SIGTERM (raised as an exception by the CLI) between the staging directory and the
    # caller holding the sink: the sink removes what it made.
    b = _bundle()

    def interrupted(self: BundleSink, name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(BundleSink, "_stream", interrupted)
    with pytest.raises(KeyboardInterrupt):
        BundleSink(tmp_path / "out", b.manifest)
    assert list(tmp_path.iterdir()) == []
