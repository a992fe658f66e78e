"""``kvdoctor serve`` and ``kvdoctor investigate`` as a user runs them: one-line errors (exit 2,
no traceback), the settings check, and what a sink receives from a bundle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.alerting._payloads import alert, body, payload

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "KVDOCTOR_SERVE_TOKEN"}
    return subprocess.run(
        [sys.executable, "-m", "kvdoctor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "PYTHONPATH": str(ROOT), **(env or {})},
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve", "--listen", "127.0.0.1:0"], "no bearer token for the receiver"),
        (["serve", "--listen", "nowhere"], "expected HOST:PORT"),
        (["serve", "--tls-cert", "c.pem", "--no-auth"], "--tls-cert and --tls-key go together"),
        (["serve", "--sink", "teams=https://x.test"], "--sink teams: kind"),
        (["investigate"], "give one of --alertmanager URL, --payload FILE or --bundle PATH"),
        (["investigate", "--payload", "missing.json"], "--payload missing.json"),
        (["investigate", "--alertmanager", "ftp://x"], "not an http(s) URL"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    done = run(*args, "--state-dir", str(tmp_path / "s"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_check_config_shows_settings_and_no_secret(tmp_path: Path) -> None:
    cfg = tmp_path / "serve.yaml"
    cfg.write_text(
        "rate_limit: 5\nsinks:\n  - {kind: github, url: https://api.github.test/c, "
        "token_env: GH_TOKEN}\n  - {kind: slack, url: https://hooks.slack.test/services/T/B/secret}\n"
    )
    done = run(
        "serve",
        "--config",
        str(cfg),
        "--check-config",
        "--max-concurrent",
        "3",
        env={"GH_TOKEN": "ghp_secret", "KVDOCTOR_SERVE_TOKEN": "serve-secret"},
    )
    assert done.returncode == 0, done.stderr
    assert "rate_limit: 5" in done.stdout and "max_concurrent: 3" in done.stdout
    assert "token_env: GH_TOKEN" in done.stdout
    assert "https://hooks.slack.test/…" in done.stdout
    assert "secret" not in done.stdout


def test_investigate_payload_malformed_and_without_prometheus(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "4", "alerts": []}')
    done = run("investigate", "--payload", str(bad), "--state-dir", str(tmp_path / "s"))
    assert done.returncode == 2 and "alerts: a non-empty list is required" in done.stderr
    good = tmp_path / "good.json"
    good.write_bytes(body(payload(alert("10.0.0.1:8000"))))
    done = run("investigate", "--payload", str(good), "--state-dir", str(tmp_path / "s"))
    assert done.returncode == 2, done.stderr
    assert "no Prometheus configured" in done.stderr and "Traceback" not in done.stderr
    # The same payload again is the same episode: not investigated twice.
    again = run("investigate", "--payload", str(good), "--state-dir", str(tmp_path / "s"))
    assert "duplicate" in again.stderr


@pytest.mark.parametrize("kind", ["webhook", "github", "gitlab", "slack"])
def test_what_each_sink_receives_from_a_bundle(kind: str) -> None:
    done = run(
        "investigate", "--bundle", str(ROOT / "fixtures/preemption-storm"), "--sink-format", kind
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    text = json.dumps(doc)
    assert "preemption/kv-capacity" in text or doc.get("primary", {}).get("cause") == "kv-capacity"
    again = run(
        "investigate", "--bundle", str(ROOT / "fixtures/preemption-storm"), "--sink-format", kind
    )
    assert again.stdout == done.stdout  # same bundle, same bytes
