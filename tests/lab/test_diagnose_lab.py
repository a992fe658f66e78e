"""`kvdoctor diagnose` against a real lab vLLM: the live report and the replay of its saved
bundle are the same bytes, and the JSON follows the published schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kvdoctor.cli import main
from kvdoctor.lab.server import LabHandle

pytestmark = pytest.mark.lab

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schema" / "report.schema.json").read_text()
)


def _run(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0)


def test_live_report_equals_the_replay_of_its_bundle(
    healthy_lab: LabHandle, tmp_path: Path
) -> None:
    saved = tmp_path / "incident.tar.gz"
    live_md, replay_md = tmp_path / "live.md", tmp_path / "replay.md"
    live_rc = _run(
        [
            "diagnose",
            "--endpoint",
            healthy_lab.url,
            "--window",
            "6s",
            "--interval",
            "1s",
            "--save-bundle",
            str(saved),
            "-o",
            str(live_md),
            "--no-progress",
        ]
    )
    replay_rc = _run(["diagnose", "--bundle", str(saved), "-o", str(replay_md)])
    assert live_rc == replay_rc and live_rc in (0, 1)
    live = live_md.read_bytes()
    assert live == replay_md.read_bytes()
    assert live.startswith(b"# kvdoctor incident report: ")
    # The light default experiments ran against the real server and their results replayed.
    assert b"Reproducer `" in live or b"reproducer `" in live

    json_out = tmp_path / "report.json"
    assert (
        _run(["diagnose", "--bundle", str(saved), "--format", "json", "-o", str(json_out)])
        == replay_rc
    )
    data = json.loads(json_out.read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["signals"]["scrapes_ok"] >= 5
    assert data["kv"]["capacity_tokens"]
