"""`kvdoctor alerts` output checked by Prometheus' own promtool: syntax and boundary behaviour.

promtool comes from Debian's `prometheus` package (scripts/install-prometheus.sh). Without it
the tests skip, except in CI (env CI set), where a missing promtool is a failure.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from labenv import tool_or_skip

from kvdoctor.cli import cli

PROMTOOL_DIR = Path(__file__).resolve().parents[1] / "promtool"


def _promtool() -> str:
    return tool_or_skip("promtool")


def _generate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "kvdoctor-alerts.yaml"
    result = CliRunner().invoke(
        cli, ["alerts", "--format", "prometheus", "-o", str(out), *args], standalone_mode=False
    )
    assert result.exception is None, result.output
    assert result.return_value == 0
    return out


@pytest.mark.parametrize(
    "version", [None, "0.9.1", "0.10.1", "0.11.0", "0.12.0", "0.32.0", "0.33.0"]
)
def test_generated_rules_pass_promtool_check(tmp_path: Path, version: str | None) -> None:
    promtool = _promtool()
    args = ["--vllm-version", version] if version else []
    rules = _generate(tmp_path, *args, "--runbook-url-base", "https://wiki.example/runbooks")
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
        assert url == f"https://wiki.example/runbooks/{playbook}.md"
        assert rule["annotations"]["runbook"] == f"kvdoctor explain {playbook}"
        assert rule["for"]
        # Prose placeholders are filled or dropped: no "{signal}" or "<signal>" is left.
        for text in (rule["annotations"]["summary"], rule["annotations"]["description"]):
            assert not re.search(r"<[a-z_]+>", text), text
            assert not re.search(r"(?<!\{)\{[a-z_][a-z0-9_]*(:[^{}]*)?\}(?!\})", text), text
            assert text.startswith("{{ $labels.instance }}"), text


def test_inhibition_rules_pass_amtool(tmp_path: Path) -> None:
    """The inhibit_rules written beside the rules load in a real Alertmanager configuration."""
    from labenv import tool_or_skip

    amtool = tool_or_skip("amtool")
    inhibit = tmp_path / "inhibit.yml"
    _generate(tmp_path, "--inhibit-rules", str(inhibit))
    config = {
        "route": {"receiver": "kvdoctor"},
        "receivers": [{"name": "kvdoctor"}],
        **yaml.safe_load(inhibit.read_text()),
    }
    am = tmp_path / "alertmanager.yml"
    am.write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [amtool, "check-config", str(am)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 inhibit rules" in proc.stdout, proc.stdout


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
    from kvdoctor.alerts.promql import parse_version

    for src in sorted(PROMTOOL_DIR.glob("*.yaml")):
        doc = yaml.safe_load(src.read_text())
        # A file about metrics a release added runs with the names of that release and later
        # only (older releases export none of its inputs); its alerts count as tested there.
        oldest = doc.pop("kvdoctor_min_vllm", None)
        if (
            version
            and oldest
            and (parse_version(version) or (0, 0)) < (parse_version(str(oldest)) or (0, 0))
        ):
            tested |= {c["alertname"] for t in doc["tests"] for c in t.get("alert_rule_test", [])}
            continue
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


def _exported(version: str) -> set[str]:
    """Names vLLM ``version`` exports without --show-hidden-metrics (from the source table)."""
    from kvdoctor.vllm_metrics import exported_names

    return exported_names(version)


@pytest.mark.parametrize(
    ("version", "kv", "itl"),
    [
        # Before 0.9.2 only the old names exist.
        ("0.9.1", "vllm:gpu_cache_usage_perc", "vllm:time_per_output_token_seconds"),
        # 0.9.2 and 0.10 export both KV names; inter_token_latency_seconds arrives in 0.11.
        ("0.9.2", "vllm:kv_cache_usage_perc", "vllm:time_per_output_token_seconds"),
        ("0.10.0", "vllm:kv_cache_usage_perc", "vllm:time_per_output_token_seconds"),
        ("0.11.0", "vllm:kv_cache_usage_perc", "vllm:inter_token_latency_seconds"),
        ("0.12.0", "vllm:kv_cache_usage_perc", "vllm:inter_token_latency_seconds"),
        ("0.33.0", "vllm:kv_cache_usage_perc", "vllm:inter_token_latency_seconds"),
    ],
)
def test_alerts_use_the_names_each_vllm_exports(
    tmp_path: Path, version: str, kv: str, itl: str
) -> None:
    text = _generate(tmp_path, "--vllm-version", version).read_text()
    assert kv in text
    assert itl + "_bucket" in text
    other_kv = {"vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"} - {kv}
    other_itl = {"vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds"} - {itl}
    assert not any(n in text for n in other_kv | other_itl)
    # Counters carry _total on the wire; histograms are read through _bucket/_sum/_count.
    assert "vllm:num_preemptions_total" in text
    assert "vllm:num_preemptions[" not in text
    # Every vllm: name in the rules exists (and is not hidden) in that release's source.
    import re

    from kvdoctor.vllm_metrics import table_versions

    if version in table_versions():
        exported = _exported(version)
        for wire in set(re.findall(r"vllm:[a-z0-9_]+", text)):
            base = re.sub(r"(_total|_bucket|_sum|_count)$", "", wire)
            assert base in exported or wire in exported, (version, wire)


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
