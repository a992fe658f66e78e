"""Issue 14, item 11 and "Also": what a server or a model config says cannot forge the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _bundle_factory import T0, bundle

from kvdoctor.bundle.writer import write_bundle
from kvdoctor.cli import main
from kvdoctor.report.escape import code_span, escape_md


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_kv_markdown_escapes_model_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = {
        "model_type": "<img src=x onerror=alert(1)>",
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "hidden_size": 256,
        "torch_dtype": "bfloat16",
    }
    # The model's name comes from its directory, its type from the config: both untrusted.
    folder = tmp_path / "<img src=x onerror=alert(1)>"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    rc, out, _ = _run(["kv", "--model-config", str(path), "--format", "md"], capsys)
    assert rc == 0
    assert re.search(r"(?<!\\)<", out) is None  # no "<" that could open a tag
    assert "\\<img src=x onerror=alert(1)\\>" in out


@pytest.mark.parametrize("render", [escape_md, code_span])
def test_right_to_left_overrides_are_shown_not_obeyed(render: object) -> None:
    hostile = "model\u202egpj.exe\u2066x\u2069"
    out = str(render(hostile))  # type: ignore[operator]
    assert not any(ch in out for ch in "\u202e\u2066\u2069")
    assert "U+202E" in out and "U+2066" in out and "U+2069" in out


def test_mid_window_restart_is_said_in_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = bundle("preemption")
    # The counters start again from zero halfway: the server restarted inside the window.
    first = b.scrapes[:10]
    again = [s.model_copy(update={"t": T0 + 2 * (10 + j)}) for j, s in enumerate(b.scrapes[:10])]
    path = write_bundle(b.model_copy(update={"scrapes": first + again}), tmp_path / "b")
    _, out, _ = _run(["diagnose", "--bundle", str(path)], capsys)
    assert "**The server restarted during the window** (1 scrape(s) where counters dropped)" in out
    _, healthy, _ = _run(
        ["diagnose", "--bundle", str(write_bundle(bundle(), tmp_path / "h"))], capsys
    )
    assert "restarted during the window" not in healthy
