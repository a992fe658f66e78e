"""A prompt sample whose prompts are not the lengths the server prefilled (external cases of
round 6: 55-token texts with image placeholders against 2,219-token server prompts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvdoctor.cli import main

CASE = Path(__file__).resolve().parents[2] / "cases" / "r-fp8-e5m2-qwen25-vl-default-scale"


def test_a_sample_far_shorter_than_the_servers_prompts_is_not_compared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["diagnose", "--bundle", str(CASE / "bundle"), "--prompts", str(CASE / "prompts.jsonl")]
    with pytest.raises(SystemExit):
        main([*args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    signals = report["signals"]
    assert signals["prompt_shareable_fraction"] is None
    assert signals["prompt_sample_length_ratio"] < 0.25
    # The pattern the text shows is kept; only the token shares are not the server's.
    assert signals["prompt_share_pattern"] == "shared"
    lines = [n for n in report["not_checked"] if "prompt sample" in n["what"]]
    assert lines and "not shares of the server's tokens" in lines[0]["why"]
    # The quality suspicion leads, not a prefix miss computed from the text's shares.
    lead = report["findings"][0]
    assert (lead["symptom"], lead["cause"]) == ("quant-quality", "fp8-kv-cache")
