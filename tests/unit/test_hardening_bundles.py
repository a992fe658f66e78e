"""Issue 14, items 8-10 and "Also": hostile bundles end in one line and exit 2, or in a report
that says what was wrong with them; never in a traceback."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from _bundle_factory import bundle

from kvdoctor.bundle import reader
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main
from kvdoctor.signals.compute import compute_signals


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _edit(path: Path, name: str, change: Callable[[str], str]) -> None:
    f = path / name
    f.write_text(change(f.read_text(encoding="utf-8")), encoding="utf-8")


def _manifest(change: Callable[[dict[str, object]], None]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        data = json.loads(text)
        change(data)
        return json.dumps(data)

    return apply


NESTED = "[" * 100_000 + "]" * 100_000
MODERATELY_NESTED = "[" * 500 + "]" * 500  # loads, but deeper than any bundle file is

BAD_BUNDLES: dict[str, tuple[str, Callable[[str], str], str]] = {
    "nested server.json": ("server.json", lambda _t: NESTED, "nested too deeply"),
    "nested metrics line": (
        "metrics.jsonl",
        lambda t: t.replace("\n", "\n" + NESTED + "\n", 1),
        "nested too deeply",
    ),
    "nested within the recursion limit": (
        "engine_args.json",
        lambda _t: '{"argv": null, "args": {"x": ' + MODERATELY_NESTED + "}}",
        "nested too deeply",
    ),
    "5000-digit schema": (
        "manifest.json",
        _manifest(lambda m: m.update(schema="kvdoctor.bundle/" + "1" * 5000)),
        "unknown bundle schema",
    ),
    "5000-digit number": (
        "manifest.json",
        lambda t: t.replace('"interval_s":', '"interval_s": ' + "9" * 5000 + ', "x":', 1),
        "out of range",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_BUNDLES))
def test_hostile_bundle_files_are_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_bundle(bundle("preemption"), tmp_path / "b")
    name, change, message = BAD_BUNDLES[case]
    if not (path / name).exists():
        (path / name).write_text("{}", encoding="utf-8")
    _edit(path, name, change)
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2 and message in err, err
    assert err.count("\n") == 1 and len(err) < 400


def test_gauge_of_1e308_is_invalid_data_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_bundle(bundle("preemption"), tmp_path / "b")
    _edit(path, "metrics.jsonl", lambda t: _usage_lines(t, "1e308"))
    rc, out, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc in (0, 1) and "Traceback" not in err, err
    assert "impossible metric values" in out and "vllm:kv\\_cache\\_usage\\_perc (20×)" in out


def _usage_lines(text: str, value: str) -> str:
    return (
        "\n".join(
            json.dumps({**(r := json.loads(line)), "text": _set_usage(r["text"], value)})
            for line in text.splitlines()
        )
        + "\n"
    )


@pytest.mark.parametrize("value", ["-5.0", "1.02e2", "NaN", "+Inf", "-Inf"])
def test_impossible_usage_is_a_not_checked_line(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_bundle(bundle("healthy"), tmp_path / "b")
    _edit(path, "metrics.jsonl", lambda t: _usage_lines(t, value))
    rc, out, err = _run(["diagnose", "--bundle", str(path)], capsys)
    # Usage was the only evidence of health here: with it invalid, nothing is diagnosed, and the
    # one line says it was the impossible values (not "absent").
    assert rc == 2 and err.startswith("kvdoctor: nothing could be diagnosed: impossible metric")
    assert "impossible metric values" in out and "kv\\_cache\\_usage\\_perc (20×)" in out
    assert "-500" not in out and "102 of" not in out
    assert "usage\\_perc absent" not in out and "usage_perc absent" not in err
    # The signal's own reason says present but invalid, never absent.
    signals = compute_signals(read_bundle(path))
    reason = signals.values["kv_usage_max"].reason or ""
    assert signals.get("kv_usage_max") is None and "present but invalid" in reason, reason


def _set_usage(text: str, value: str) -> str:
    lines = []
    for line in text.splitlines():
        if line.startswith("vllm:kv_cache_usage_perc{"):
            line = line.rsplit(" ", 1)[0] + " " + value
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_model_config_with_1e30_layers_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "num_hidden_layers": 1e30,
                "num_attention_heads": 8,
                "hidden_size": 512,
            }
        )
    )
    rc, _, err = _run(["kv", "--model-config", str(cfg)], capsys)
    assert rc == 2 and err.count("\n") == 1 and "num_hidden_layers" in err


def test_all_scrapes_failed_names_the_scrape_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvdoctor.bundle.model import NotChecked

    b = bundle("preemption", not_checked=[NotChecked(what="GPU", why="NVML unavailable")])
    failed = [
        s.model_copy(
            update={"status": None, "text": None, "error": "the server reset the connection"}
        )
        for s in b.scrapes
    ]
    path = write_bundle(
        b.model_copy(update={"scrapes": failed, "logs": "INFO hello\n"}), tmp_path / "b"
    )
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2
    assert "no scrape of /metrics succeeded (first: the server reset the connection)" in err
    assert "NVML" not in err


def test_a_cut_last_line_is_reported_not_dropped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_bundle(bundle("preemption"), tmp_path / "b")
    _edit(path, "metrics.jsonl", lambda t: t + '{"t": 1700000099, "status": 200, "te')
    rc, out, _ = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 1
    assert "cut short" in out and "metrics.jsonl" in out


def test_directory_bundles_have_the_archive_size_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_bundle(bundle("preemption"), tmp_path / "b")
    # A sparse file: its size is claimed without writing the bytes.
    with (path / "logs.txt").open("wb") as fh:
        fh.truncate(reader.MAX_MEMBER_BYTES + 1)
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2 and "larger than the size cap" in err
    os.unlink(path / "logs.txt")
    monkeypatch.setattr(reader, "MAX_TOTAL_BYTES", 1000)
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2 and "larger than the size cap" in err


def test_check_reports_every_fixture_when_one_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixtures = []
    for name in ("a-bad-expected", "b-bad-golden", "c-good"):
        fx = tmp_path / name
        write_bundle(bundle("preemption"), fx / "bundle")
        (fx / "expected.yaml").write_text("verdict: critical\n")
        fixtures.append(str(fx))
    (tmp_path / "a-bad-expected" / "expected.yaml").write_bytes(b"verdict: \xff\xfe\n")
    (tmp_path / "b-bad-golden" / "report.md").write_bytes(b"# report \xff\n")
    rc, out, err = _run(["check", *fixtures], capsys)
    assert rc == 2, err
    assert "not UTF-8" in out and out.count("not UTF-8") == 2
    assert "ok   " in out and "c-good" in out


def test_tar_with_several_top_level_folders_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import tarfile

    one = write_bundle(bundle("preemption"), tmp_path / "run1")
    two = write_bundle(bundle("healthy"), tmp_path / "run2")
    archive = tmp_path / "two.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for folder, names in ((one, ["manifest.json", "metrics.jsonl"]), (two, ["logs.txt"])):
            for name in names:
                data = (folder / name).read_bytes() if (folder / name).exists() else b"x\n"
                info = tarfile.TarInfo(f"{folder.name}/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    rc, _, err = _run(["diagnose", "--bundle", str(archive)], capsys)
    assert rc == 2 and "several top-level folders" in err and "'run1', 'run2'" in err


@pytest.mark.parametrize("end_shift", [-500.0, float("inf")])
def test_impossible_manifest_window_is_not_rendered(
    end_shift: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_bundle(bundle("preemption"), tmp_path / "b")
    _edit(
        path,
        "manifest.json",
        _manifest(lambda m: m.update(ended_at=float(m["started_at"]) + end_shift)),  # type: ignore[arg-type]
    )
    rc, out, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 1, err
    assert "| capture window | manifest.json gives an impossible window" in out
    assert "window — (" in out and "(-" not in out


def test_a_window_without_traffic_is_judged_unknown_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every scrape answered, nothing ran, waited or finished: an observation (exit 1, the report
    # says the window saw no traffic), not "nothing could be diagnosed" (exit 2).
    idle = bundle("healthy", kv=0.0, running=0, finished=0, prefix_queries=0, prefix_hits=0)
    path = write_bundle(idle, tmp_path / "b")
    rc, out, err = _run(["diagnose", "--bundle", str(path), "--format", "json"], capsys)
    assert rc == 1, err
    assert "nothing could be diagnosed" not in err
    assert json.loads(out)["verdict"] == "unknown"
    rc, out, _ = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 1 and "The window saw no traffic" in out


def test_metrics_without_vllm_families_say_what_they_held_and_what_would_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = bundle("preemption")
    text = (
        "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3.5\n"
        "# TYPE python_gc_objects_collected_total counter\n"
        'python_gc_objects_collected_total{generation="0"} 10\n'
    )
    other = [s.model_copy(update={"status": 200, "text": text}) for s in b.scrapes]
    # A log without a stats line: nothing to read instead.
    path = write_bundle(
        b.model_copy(update={"scrapes": other, "logs": "INFO hello\n"}), tmp_path / "b"
    )
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2 and err.count("\n") == 1
    assert (
        "/metrics answered without vLLM metrics (vllm:*), only process_cpu_seconds_total, "
        "python_gc_objects_collected_total, and the logs hold no engine stats line" in err
    )
    # With the engine's stats lines in the log, they are the series: diagnosed, not refused.
    stats = "\n".join(
        f"INFO 05-01 10:00:{5 * m:02d} metrics.py:341] Avg prompt throughput: 50.0 tokens/s, "
        f"Avg generation throughput: 40.0 tokens/s, Running: 4 reqs, Swapped: 0 reqs, "
        f"Pending: 0 reqs, GPU KV cache usage: 12.0%, CPU KV cache usage: 0.0%."
        for m in range(10)
    )
    path2 = write_bundle(
        b.model_copy(update={"scrapes": other, "logs": stats + "\n"}), tmp_path / "b2"
    )
    _, out2, err2 = _run(["diagnose", "--bundle", str(path2)], capsys)
    assert "engine stats lines of the log: no scrape held vLLM metrics" in out2, err2
    # Whatever the verdict, the refusal is not about the metrics any more.
    assert "/metrics answered without vLLM metrics" not in err2


def test_a_failed_start_without_its_error_asks_for_the_whole_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The server never answered and its log stops at "Engine core initialization failed":
    # the line says what to give next, not only that no scrape succeeded (external case
    # zzp-internvl3, holdout-15, whose log was cut before the worker's error).
    b = bundle("preemption")
    failed = [
        s.model_copy(update={"status": None, "text": None, "error": "connection refused"})
        for s in b.scrapes
    ]
    log = (
        "INFO 04-17 09:40:29 [api_server.py:1034] vLLM API server version 0.8.4\n"
        "ERROR 04-17 09:42:13 [core.py:396] RuntimeError: Engine core initialization failed. "
        "See root cause above.\n"
    )
    path = write_bundle(
        b.model_copy(update={"scrapes": failed, "logs": log, "gpu": []}), tmp_path / "b"
    )
    rc, _, err = _run(["diagnose", "--bundle", str(path)], capsys)
    assert rc == 2 and err.count("\n") == 1
    assert "engine failed while starting" in err and "--logs" in err
