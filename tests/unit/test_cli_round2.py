"""CLI conventions from the second hardening pass (issue 25), each held by a test that failed
before its fix: one set of --format names wherever a format applies, alerts --range with its
deprecated --window alias, and the demo's exit code."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from kvdoctor.cli import COMMANDS, cli, main
from kvdoctor.lab.demo import DemoResult

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Every command that renders a report or listing takes these; alerts renders Prometheus rule
# files, a format of its own.
REPORT_FORMATS = {"text", "md", "json"}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 0), out, err


def _format_options() -> dict[str, click.Option]:
    ctx = click.Context(cli)
    found: dict[str, click.Option] = {}
    for name in sorted(COMMANDS):
        command = cli.get_command(ctx, name)
        assert command is not None
        subs = (
            [(f"{name} {s}", c) for s, c in sorted(command.commands.items())]
            if isinstance(command, click.Group)
            else [(name, command)]
        )
        for full, cmd in subs:
            for p in cmd.params:
                if isinstance(p, click.Option) and "--format" in p.opts:
                    found[full] = p
    return found


def test_every_report_format_option_takes_text_md_and_json() -> None:
    options = _format_options()
    assert {"diagnose", "compare", "kv", "reproduce", "rules"} <= set(options)
    for name, p in options.items():
        assert isinstance(p.type, click.Choice), name
        if name == "alerts":
            assert list(p.type.choices) == ["prometheus"], p.type.choices
            continue
        assert set(p.type.choices) == REPORT_FORMATS, (name, p.type.choices)


@pytest.mark.parametrize("fmt", sorted(REPORT_FORMATS))
def test_diagnose_and_compare_render_every_format(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    storm = str(FIXTURES / "preemption-storm" / "bundle.tar.gz")
    healthy = str(FIXTURES / "healthy" / "bundle.tar.gz")
    code, out, err = run(["diagnose", "--bundle", storm, "--format", fmt], capsys)
    assert code == 1 and out.strip(), err
    code, out, err = run(["compare", storm, healthy, "--format", fmt], capsys)
    assert code in (0, 1) and out.strip(), err
    code, out, err = run(["kv", "--model-config", "Qwen/Qwen2.5-7B", "--format", fmt], capsys)
    assert code == 0 and out.strip(), err


def test_alerts_range_and_its_deprecated_window_alias(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, by_range, err = run(["alerts", "--range", "2m"], capsys)
    assert code == 0 and "deprecated" not in err, err
    assert "[2m]" in by_range
    code, by_window, err = run(["alerts", "--window", "2m"], capsys)
    assert code == 0 and by_window == by_range
    assert err.strip() == "kvdoctor: warning: alerts --window is deprecated; use --range", err
    code, _, err = run(["alerts", "--range", "2m", "--window", "2m"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--range" in err, err


@pytest.mark.parametrize(
    ("verdict", "code"),
    [("critical", 0), ("degraded", 0), ("inconclusive", 0), ("healthy", 1), ("unknown", 2)],
)
def test_demo_exits_0_when_it_demonstrated_a_finding(
    verdict: str,
    code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The demo breaks a server on purpose: diagnosing a finding is its success (exit 0), not
    # diagnose's "a finding fired" (exit 1, which made scripts/demo.sh fail after a good run).
    import kvdoctor.lab.demo as demo

    diagnose_code = {"healthy": 0, "unknown": 2}.get(verdict, 1)

    def fake_run_demo(scenario: str, output: Path, **_: object) -> DemoResult:
        output.write_text("# report\n", encoding="utf-8")
        return DemoResult(output, verdict, "preemption / kv-capacity", diagnose_code)

    monkeypatch.setattr(demo, "run_demo", fake_run_demo)
    got, out, err = run(["demo", "-o", str(tmp_path / "r.md")], capsys)
    assert got == code, (verdict, out, err)
    assert f"verdict: {verdict}" in out
