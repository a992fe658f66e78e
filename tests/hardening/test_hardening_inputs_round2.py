"""Issue 25, inputs and errors: caps on every input, one line (exit 2) on every error path.

Each test feeds one hostile input the second review found (a bundle of millions of tiny lines,
an endless device, a Prometheus answer of the wrong types, a full disk, SIGTERM, a planted link)
and checks the run ends in one line, bounded, with nothing lost or half-written.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from _hostile import Echo, PromFleet, Run, kvdoctor, prom_handler, serve

from kvdoctor import expfmt

WINDOW = ["--window", "1s", "--interval", "0.5s", "--no-progress"]
DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"


def one_line(run: Run) -> bool:
    return run.rc == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def _tar(path: Path, members: list[tuple[str, bytes]]) -> Path:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(buf.getvalue(), compresslevel=9))
    return path


def _manifest() -> bytes:
    return json.dumps(
        {
            "schema": "kvdoctor.bundle/1",
            "created_by": "t",
            "endpoint": "e",
            "started_at": 1.0,
            "ended_at": 2.0,
            "interval_s": 1.0,
        }
    ).encode()


def _scrape() -> bytes:
    text = (DATA / "metrics-idle.txt").read_text(encoding="utf-8")
    return (json.dumps({"t": 1.0, "status": 200, "text": text}) + "\n").encode()


@pytest.mark.parametrize(
    ("member", "line", "count"),
    [("reproducers.jsonl", b"{}\n", 10_001), ("metrics.jsonl", b'{"t":1,"error":"x"}\n', 200_001)],
)
def test_a_small_archive_of_many_tiny_lines_is_refused(
    tmp_path: Path, member: str, line: bytes, count: int
) -> None:
    members = [("b/manifest.json", _manifest()), ("b/metrics.jsonl", _scrape())]
    members = [m for m in members if m[0] != f"b/{member}"] + [(f"b/{member}", line * count)]
    bundle = _tar(tmp_path / "b.tar.gz", members)
    assert bundle.stat().st_size < 200_000
    run = kvdoctor(["diagnose", "--bundle", str(bundle)], cwd=tmp_path)
    assert one_line(run) and f"{member} has {count} lines" in run.stderr, run.stderr


def test_an_archive_with_two_manifests_is_refused(tmp_path: Path) -> None:
    bundle = _tar(
        tmp_path / "b.tar.gz",
        [("manifest.json", _manifest()), ("metrics.jsonl", _scrape()), ("manifest.json", b"{}")],
    )
    run = kvdoctor(["diagnose", "--bundle", str(bundle)], cwd=tmp_path)
    assert one_line(run) and "manifest.json twice" in run.stderr, run.stderr


def test_exposition_labels_parse_linear_and_bounded() -> None:
    # Correctness only (the time is benchmarks/bench_input_caps.py's): 320k labels in one series.
    text = "vllm:x{" + ",".join(f'l{i}="v{i}"' for i in range(320_000)) + "} 1\n"
    (sample,) = expfmt.parse(text)
    assert len(sample.labels) == 320_000 and sample.label("l319999") == "v319999"
    with pytest.raises(expfmt.ExpositionError, match="cap"):
        expfmt.parse('vllm:x{a="' + "y" * (expfmt.MAX_LABEL_VALUE_CHARS + 1) + '"} 1\n')


def test_endless_devices_as_inputs(tmp_path: Path) -> None:
    bundle = _tar(
        tmp_path / "b.tar.gz", [("manifest.json", _manifest()), ("metrics.jsonl", _scrape())]
    )
    slo = kvdoctor(["diagnose", "--bundle", str(bundle), "--slo-file", "/dev/zero"], cwd=tmp_path)
    assert one_line(slo) and "larger than" in slo.stderr, slo.stderr
    with serve() as (hp, _):
        cfg = kvdoctor(
            [
                "record",
                "--endpoint",
                f"http://{hp}",
                *WINDOW,
                "--model-config",
                "/dev/zero",
                "-o",
                str(tmp_path / "c"),
            ],
            cwd=tmp_path,
            timeout=60,
        )
        started = time.monotonic()
        logs = kvdoctor(
            [
                "record",
                "--endpoint",
                f"http://{hp}",
                *WINDOW,
                "--logs",
                "/dev/zero",
                "-o",
                str(tmp_path / "l"),
            ],
            cwd=tmp_path,
            timeout=60,
        )
        elapsed = time.monotonic() - started
    assert "Traceback" not in cfg.stderr and cfg.rc in (0, 2), cfg.stderr
    assert logs.rc == 0, logs.stderr
    assert "did not end" in (tmp_path / "l" / "logs.txt").read_text(encoding="utf-8")
    assert elapsed < 50


def test_header_values_http_cannot_carry(tmp_path: Path) -> None:
    for header in ("X-Token: café", "Content-Length: 99", "Host: evil", "X-A: a\x01b"):
        run = kvdoctor(
            ["diagnose", "--endpoint", "http://127.0.0.1:9", "--header", header], cwd=tmp_path
        )
        assert one_line(run) and "--header" in run.stderr, (header, run.stderr)
        assert "café" not in run.stderr


@pytest.mark.parametrize("until", ["nan", "inf", "-1", "1e300", "9999-12-31T23:59:59+14:00"])
def test_until_out_of_range(tmp_path: Path, until: str) -> None:
    run = kvdoctor(
        ["diagnose", "--prometheus", "http://127.0.0.1:9", "--until", until], cwd=tmp_path
    )
    assert one_line(run), run.stderr


MALFORMED = {
    "values not a list": {
        "metric": {"__name__": "vllm:num_requests_running", "pod": "a"},
        "values": 5,
    },
    "value a dict": {
        "metric": {"__name__": "vllm:num_requests_running", "pod": "a"},
        "values": [[1.0, {"x": 1}]],
    },
    "huge integer time": {
        "metric": {"__name__": "vllm:num_requests_running", "pod": "a"},
        "values": [[10**400, "1"]],
    },
    "metric a list": {"metric": ["a"], "values": []},
}


@pytest.mark.parametrize("shape", [*MALFORMED, "nested", "label of 1 MB"])
def test_malformed_prometheus_answers_are_one_line(tmp_path: Path, shape: str) -> None:
    if shape == "nested":
        raw = b'{"status": "success", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    elif shape == "label of 1 MB":
        series = {
            "metric": {"__name__": "vllm:num_requests_running", "pod": "p" * (1 << 20)},
            "values": [[1.0, "1"]],
        }
        raw = json.dumps(
            {"status": "success", "data": {"resultType": "matrix", "result": [series]}}
        ).encode()
    else:
        raw = json.dumps(
            {"status": "success", "data": {"resultType": "matrix", "result": [MALFORMED[shape]]}}
        ).encode()
    fleet = PromFleet(mode="raw", raw=raw)
    with serve(handler=prom_handler(fleet)) as (hp, _):
        run = kvdoctor(["diagnose", "--prometheus", f"http://{hp}"], cwd=tmp_path)
    assert one_line(run), run.stderr


def test_a_dripping_prometheus_is_cut_by_one_deadline(tmp_path: Path) -> None:
    fleet = PromFleet(pods={"p": {"num_requests_running": 1.0}}, mode="drip", drip_s=0.5)
    with serve(handler=prom_handler(fleet)) as (hp, _):
        started = time.monotonic()
        from kvdoctor.fleet.promapi import PromClient, PrometheusError

        with (
            PromClient(f"http://{hp}", timeout_s=2.0) as client,
            pytest.raises(PrometheusError, match="within 2s"),
        ):
            client.query_range("up", 1000.0, 1060.0, 15.0)
        elapsed = time.monotonic() - started
        fleet.stop.set()
    # Unbounded, a byte every 0.5 s of a ~150-byte answer took over a minute.
    assert elapsed < 10, elapsed


def test_a_full_disk_during_record_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    def small_files() -> None:
        # Writes past 64 KiB fail with EFBIG, as a full disk fails them with ENOSPC.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    # A window long enough that a busy host still scrapes inside it (each scrape's deadline is
    # the window's end: at 1 s a loaded host got "nothing collected" before any write); the
    # bundle is still well past the 64 KiB the writes may take.
    window = ["--window", "4s", "--interval", "1s", "--no-progress"]
    with serve() as (hp, _):
        run = kvdoctor(
            ["record", "--endpoint", f"http://{hp}", *window, "-o", str(tmp_path / "b")],
            cwd=tmp_path,
            preexec_fn=small_files,
        )
        diag = kvdoctor(
            [
                "diagnose",
                "--endpoint",
                f"http://{hp}",
                *window,
                "--no-reproduce",
                "--save-bundle",
                str(tmp_path / "s.tar.gz"),
            ],
            cwd=tmp_path,
            preexec_fn=small_files,
        )
    assert one_line(run) and "cannot write bundle" in run.stderr, run.stderr
    assert one_line(diag), diag.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_sigterm_leaves_no_partial_directory(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    with serve() as (hp, _):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kvdoctor",
                "record",
                "--endpoint",
                f"http://{hp}",
                "--window",
                "30s",
                "--interval",
                "0.5s",
                "--no-progress",
                "-o",
                str(tmp_path / "b"),
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(tmp_path.glob(".b.partial-*")):
            time.sleep(0.1)
        assert any(tmp_path.glob(".b.partial-*")), "the capture never started"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert err.decode().count("\n") == 1 and b"Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def _bundle_dir(tmp_path: Path) -> Path:
    with serve() as (hp, _):
        run = kvdoctor(
            ["record", "--endpoint", f"http://{hp}", *WINDOW, "-o", str(tmp_path / "b")],
            cwd=tmp_path,
        )
    assert run.rc == 0, run.stderr
    return tmp_path / "b"


def test_o_never_replaces_an_input(tmp_path: Path) -> None:
    b = _bundle_dir(tmp_path)
    logs = tmp_path / "server.log"
    logs.write_text("INFO start\n", encoding="utf-8")
    slo = tmp_path / "slo.yaml"
    slo.write_text("ttft-p95: 800ms\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in [*b.iterdir(), logs, slo]}
    attempts = [
        ["diagnose", "--bundle", str(b), "-o", str(b / "metrics.jsonl")],
        ["diagnose", "--bundle", str(b), "--logs", str(logs), "-o", str(logs)],
        ["diagnose", "--bundle", str(b), "--slo-file", str(slo), "-o", str(slo)],
        ["compare", str(b), str(b), "-o", str(b / "manifest.json")],
        ["compare", str(b), str(b), "-o", str(b)],
    ]
    for args in attempts:
        run = kvdoctor(args, cwd=tmp_path)
        assert one_line(run), (args, run.stderr)
    assert {p: p.read_bytes() for p in before} == before


def test_planted_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n", encoding="utf-8")
    runbooks = tmp_path / "runbooks"
    runbooks.mkdir()
    (runbooks / "preemption.md").symlink_to(outside)
    run = kvdoctor(["alerts", "--write-runbooks", str(runbooks)], cwd=tmp_path)
    assert one_line(run) and "link" in run.stderr, run.stderr
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "alerts.yaml").symlink_to(outside)
    run = kvdoctor(["alerts", "-o", str(rules / "alerts.yaml")], cwd=tmp_path)
    assert one_line(run), run.stderr
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    src = Path(__file__).resolve().parents[2] / "fixtures" / "healthy"
    for name in ("bundle.tar.gz", "expected.yaml"):
        (fixture / name).write_bytes((src / name).read_bytes())
    (fixture / "report.md").symlink_to(outside)
    run = kvdoctor(["check", "--update-golden", str(fixture)], cwd=tmp_path)
    assert "Traceback" not in run.stderr and run.rc == 2, run.stderr
    assert outside.read_text(encoding="utf-8") == "precious\n"


def test_alerts_o_is_atomic_on_a_full_disk(tmp_path: Path) -> None:
    old = "groups: []  # the rules in production\n"
    (tmp_path / "alerts.yaml").write_text(old, encoding="utf-8")

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    run = kvdoctor(
        ["alerts", "-o", str(tmp_path / "alerts.yaml")], cwd=tmp_path, preexec_fn=small_files
    )
    assert one_line(run), run.stderr
    assert (tmp_path / "alerts.yaml").read_text(encoding="utf-8") == old
    assert [p.name for p in tmp_path.iterdir()] == ["alerts.yaml"]


def test_fleet_report_escapes_prometheus_names(tmp_path: Path) -> None:
    evil = "[Click to fix](https://evil.example/x)"
    fleet = PromFleet(
        pods={
            evil: {
                "kv_cache_usage_perc": 0.99,
                "num_requests_running": 8.0,
                "num_requests_waiting": 20.0,
                "num_preemptions_total": 50.0,
            },
            "good-1": {
                "kv_cache_usage_perc": 0.1,
                "num_requests_running": 1.0,
                "num_requests_waiting": 0.0,
                "num_preemptions_total": 0.0,
            },
        },
        info={
            evil: {"block_size": "16", "cache_dtype": "fp8"},
            "good-1": {"block_size": "32", "cache_dtype": "auto"},
        },
    )
    with serve(handler=prom_handler(fleet)) as (hp, _):
        run = kvdoctor(
            [
                "diagnose",
                "--prometheus",
                f"http://{hp}",
                "--since",
                "10m",
                "-o",
                str(tmp_path / "fleet.md"),
            ],
            cwd=tmp_path,
        )
    assert "Traceback" not in run.stderr
    md = (tmp_path / "fleet.md").read_text(encoding="utf-8")
    assert "Click to fix" in md  # the pod is named, as text
    assert "[Click to fix](https://evil.example/x)" not in md


def test_canary_answer_is_capped(tmp_path: Path) -> None:
    with serve("vllm", Echo(mode="big")) as (hp, _), serve("vllm", Echo(mode="big")) as (rp, _):
        run = kvdoctor(
            [
                "reproduce",
                "quant-canary",
                "--endpoint",
                f"http://{hp}",
                "--reference-endpoint",
                f"http://{rp}",
                "--format",
                "json",
            ],
            cwd=tmp_path,
        )
    assert "Traceback" not in run.stderr and run.rc in (0, 2), run.stderr
    assert "larger than" in run.stdout + run.stderr
