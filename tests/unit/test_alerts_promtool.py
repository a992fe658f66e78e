"""`kvdoctor alerts` output checked by Prometheus' own promtool: syntax and boundary behaviour.

promtool comes from Debian's `prometheus` package (scripts/install-prometheus.sh). Without it
the tests skip, except in CI (env CI set), where a missing promtool is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from kvdoctor.cli import cli

PROMTOOL_DIR = Path(__file__).resolve().parents[1] / "promtool"


def _promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("promtool missing in CI: run scripts/install-prometheus.sh")
        pytest.skip("promtool not installed (scripts/install-prometheus.sh installs it)")
    return path


def _generate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "kvdoctor-alerts.yaml"
    result = CliRunner().invoke(
        cli, ["alerts", "--format", "prometheus", "-o", str(out), *args], standalone_mode=False
    )
    assert result.exception is None, result.output
    assert result.return_value == 0
    return out


@pytest.mark.parametrize("version", [None, "0.10.1", "0.32.0"])
def test_generated_rules_pass_promtool_check(tmp_path: Path, version: str | None) -> None:
    promtool = _promtool()
    args = ["--vllm-version", version] if version else []
    rules = _generate(tmp_path, *args)
    proc = subprocess.run(
        [promtool, "check", "rules", str(rules)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = yaml.safe_load(rules.read_text())
    alerts = [r for g in doc["groups"] for r in g["rules"]]
    assert alerts, "no alert generated"
    for rule in alerts:
        assert rule["labels"]["severity"] in ("critical", "warning", "info")
        url = rule["annotations"]["runbook_url"]
        playbook = rule["labels"]["kvdoctor_playbook"]
        assert url.startswith("https://") and url.endswith(f"/docs/runbooks/{playbook}.md")
        assert rule["for"]
        # Prose placeholders are filled or dropped: no "{signal}" or "<signal>" is left.
        for text in (rule["annotations"]["summary"], rule["annotations"]["description"]):
            assert not re.search(r"<[a-z_]+>", text), text
            assert not re.search(r"(?<!\{)\{[a-z_][a-z0-9_]*(:[^{}]*)?\}(?!\})", text), text
            assert text.startswith("{{ $labels.instance }}"), text


_SERIES = re.compile(r"^([^{]+)\{(.*)\}$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"')
_VALUE = '{{ printf "%.3g" $value }}'
_CONFIG = re.compile(
    r'\{\{ with printf "[^"]*cache_config_info\{instance=%q\}" \$labels\.instance \| query \}\}'
    r'\{\{ \. \| first \| label "([a-z_]+)" \}\}\{\{ end \}\}'
)


def _config_label(case: dict[str, Any], instance: str, label: str) -> str:
    for item in case["input_series"]:
        m = _SERIES.match(item["series"])
        assert m is not None, item["series"]
        labels = dict(_LABEL.findall(m.group(2)))
        if m.group(1).endswith("cache_config_info") and labels.get("instance") == instance:
            return labels.get(label, "")
    return ""


def _expand(text: str, labels: dict[str, str], value: float | None, case: dict[str, Any]) -> str:
    """What Prometheus makes of the few template constructs kvdoctor's annotations use."""
    if _VALUE in text:
        assert value is not None, f"exp_value needed for {labels.get('instance')}: {text}"
        text = text.replace(_VALUE, f"{value:.3g}")
    text = _CONFIG.sub(lambda m: _config_label(case, labels["instance"], m.group(1)), text)
    text = re.sub(
        r"\{\{ with \$labels\.([a-z_]+) \}\}(.*?)\{\{ \. \}\}(.*?)\{\{ end \}\}",
        lambda m: f"{m.group(2)}{labels[m.group(1)]}{m.group(3)}" if labels.get(m.group(1)) else "",
        text,
    )
    text = re.sub(r"\{\{ \$labels\.([a-z_]+) \}\}", lambda m: labels.get(m.group(1), ""), text)
    assert "{{" not in text, f"template construct the harness does not know: {text}"
    return text


def _fill_expectations(test_doc: dict[str, Any], rules_doc: dict[str, Any]) -> None:
    """Add each expected alert's rule labels and its annotations as Prometheus expands them.

    A test lists only the series labels and, where the description prints ``$value``, the
    value the alert must carry (``exp_value``): the prose comes from the generated rule, so it
    can change without touching the tests, while the numbers are checked by promtool.
    """
    by_name = {r["alert"]: r for g in rules_doc["groups"] for r in g["rules"]}
    for case in test_doc["tests"]:
        for check in case.get("alert_rule_test", []):
            rule = by_name.get(check["alertname"])
            assert rule is not None, f"no generated alert {check['alertname']}"
            for exp in check.get("exp_alerts", []):
                value = exp.pop("exp_value", None)
                exp["exp_labels"] = {**exp["exp_labels"], **rule["labels"]}
                exp["exp_annotations"] = {
                    k: _expand(v, exp["exp_labels"], value, case)
                    for k, v in rule["annotations"].items()
                }


def _series_renamer(version: str | None) -> Any:
    """The test files feed current metric names; rename them as ``version`` exposes them."""
    from kvdoctor.alerts.promql import metric_names, parse_version

    names = metric_names(parse_version(version) if version else None, "vllm:")
    renames = {
        "vllm:kv_cache_usage_perc": names.kv_usage,
        "vllm:prefix_cache_queries_total": names.prefix_queries,
        "vllm:prefix_cache_hits_total": names.prefix_hits,
        "vllm:inter_token_latency_seconds": names.itl,  # and its _bucket/_sum/_count
    }

    def rename(series: str) -> str:
        for new, old in renames.items():
            if series.startswith((new + "{", new + "_")):
                return old + series[len(new) :]
        return series

    return rename


@pytest.mark.parametrize("version", [None, "0.10.1", "0.11.0", "0.12.0", "0.33.0"])
def test_alerts_fire_and_hold_at_their_boundaries(tmp_path: Path, version: str | None) -> None:
    promtool = _promtool()
    rules = _generate(tmp_path, *(["--vllm-version", version] if version else []))
    rules_doc = yaml.safe_load(rules.read_text())
    rename = _series_renamer(version)
    tested: set[str] = set()
    for src in sorted(PROMTOOL_DIR.glob("*.yaml")):
        doc = yaml.safe_load(src.read_text())
        for case in doc["tests"]:
            for item in case["input_series"]:
                item["series"] = rename(item["series"])
        _fill_expectations(doc, rules_doc)
        tested |= {c["alertname"] for t in doc["tests"] for c in t.get("alert_rule_test", [])}
        target = tmp_path / src.name
        target.write_text(yaml.safe_dump(doc, sort_keys=False))
        proc = subprocess.run(
            [promtool, "test", "rules", str(target)], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, f"{version} {src.name}:\n{proc.stdout}{proc.stderr}"
    # Every alert kvdoctor generates is shown firing and not firing somewhere in tests/promtool.
    generated = {r["alert"] for g in rules_doc["groups"] for r in g["rules"]}
    assert generated - tested == set(), f"alerts without a promtool test: {generated - tested}"


def test_old_vllm_gets_old_metric_names(tmp_path: Path) -> None:
    old = _generate(tmp_path, "--vllm-version", "0.10.1").read_text()
    assert "vllm:gpu_cache_usage_perc" in old
    assert "vllm:kv_cache_usage_perc" not in old
    new_dir = tmp_path / "new"
    new_dir.mkdir()
    new = _generate(new_dir, "--vllm-version", "0.11.0").read_text()
    assert "vllm:kv_cache_usage_perc" in new
    assert "vllm:gpu_cache_usage_perc" not in new
    # Counters carry _total on the wire; histograms are read through _bucket/_sum/_count.
    assert "vllm:num_preemptions_total" in new
    assert "vllm:num_preemptions[" not in new


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vllm-version", "banana"], "not a version"),
        (["--window", "soon"], "not a duration"),
        (["--vllm-version", "0.11.0", "--endpoint", "http://127.0.0.1:1"], "not both"),
    ],
)
def test_alerts_bad_input_is_one_line_error(args: list[str], message: str) -> None:
    from kvdoctor.errors import KvdoctorError

    with pytest.raises(KvdoctorError, match=message):
        CliRunner().invoke(cli, ["alerts", *args], standalone_mode=False, catch_exceptions=False)


def test_integer_label_regexes_match_exactly_their_side() -> None:
    import re

    from kvdoctor.alerts.promql import int_ge_regex, int_le_regex

    for n in (0, 1, 9, 10, 63, 64, 100, 128, 999, 1000):
        ge, le = re.compile(f"^(?:{int_ge_regex(n)})$"), re.compile(f"^(?:{int_le_regex(n)})$")
        for v in range(0, 2100):
            assert bool(ge.match(str(v))) == (v >= n), (n, v)
            assert bool(le.match(str(v))) == (v <= n), (n, v)
