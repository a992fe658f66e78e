"""`kvdoctor alerts` for Alertmanager: runbook pages, filled annotations, info-level settings,
PromQL laid out on several lines without changing its meaning."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kvdoctor.alerts.generate import (
    RUNBOOK_URL_BASE,
    generate,
    inhibit_rules,
    layout_promql,
    render_yaml,
    runbook_pages,
)
from kvdoctor.alerts.promql import metric_names, parse_version
from kvdoctor.cli import cli
from kvdoctor.rules.load import load_fleet_playbooks, load_playbooks

RUNBOOKS = Path(__file__).resolve().parents[2] / "docs" / "runbooks"


SITE = "https://wiki.example/runbooks"


def _rules(version: str | None = None, base: str | None = SITE) -> list[dict[str, object]]:
    names = metric_names(parse_version(version) if version else None, "vllm:")
    text = render_yaml(generate(load_playbooks(), names, runbook_url_base=base), "header")
    doc = yaml.safe_load(text)
    return [r for g in doc["groups"] for r in g["rules"]]


def test_runbook_pages_are_current() -> None:
    pages = runbook_pages(load_playbooks() + load_fleet_playbooks())
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in RUNBOOKS.glob("*.md")}
    assert on_disk == pages, "regenerate: kvdoctor alerts --write-runbooks docs/runbooks"


def test_every_runbook_url_names_an_existing_page() -> None:
    for rule in _rules():
        url = rule["annotations"]["runbook_url"]  # type: ignore[index]
        assert url.startswith(SITE + "/")
        assert (RUNBOOKS / url.rsplit("/", 1)[1]).is_file(), url


def test_no_default_runbook_url_only_the_command() -> None:
    # No default link: it would send readers to a repository this project does not own.
    assert RUNBOOK_URL_BASE is None
    result = CliRunner().invoke(cli, ["alerts"], standalone_mode=False)
    assert result.exception is None, result.output
    assert "github.com" not in result.output and "runbook_url" not in result.output
    for rule in _rules(base=None):
        annotations = rule["annotations"]
        assert "runbook_url" not in annotations  # type: ignore[operator]
        page = annotations["runbook"].removeprefix("kvdoctor explain ")  # type: ignore[index]
        assert (RUNBOOKS / f"{page}.md").is_file(), page


def test_every_description_states_its_value_with_its_unit() -> None:
    value = '{{ printf "%.3g" $value }}'
    for rule in _rules():
        text = rule["annotations"]["description"]  # type: ignore[index]
        if text.endswith("A configuration state: it holds until the setting changes."):
            assert rule["labels"]["severity"] == "info"  # type: ignore[index]
            continue
        assert value in text, rule["alert"]
        after = text.split(value, 1)[1]
        # A unit or what the number counts follows the value (or precedes it: "Preemptions in
        # the window: N", "Value: N, the first of these that holds: x (unit); ...").
        assert re.match(
            r"^( (s|tokens|requests|blocks|bytes|per second|\(fraction of 1\))|×|[,.)] )", after
        ) or (
            text.split(value, 1)[0].rstrip().endswith(("Preemptions in the window:", "(value"))
        ), (rule["alert"], after[:80])


def test_every_alert_names_the_change_to_make_first() -> None:
    for rule in _rules():
        change = rule["annotations"]["change_first"]  # type: ignore[index]
        assert change and "{" not in change.replace("{{", ""), (rule["alert"], change)


def test_preemption_alerts_need_a_harmful_rate_not_one_event() -> None:
    [rule] = [r for r in _rules() if r["alert"] == "KvdoctorPreemptionKvCapacity"]
    expr = str(rule["expr"])
    assert "> 0" not in expr and ">= 3" in expr and "request_success_total" in expr


def test_inhibition_rules_critical_hides_warning_and_alerts_hide_info() -> None:
    crit, info = inhibit_rules()
    assert crit["source_matchers"][0] == 'severity="critical"'
    assert crit["target_matchers"][0] == 'severity="warning"'
    assert {"kvdoctor_playbook", "kvdoctor_cause", "instance"} <= set(crit["equal"])
    assert info["target_matchers"][0] == 'severity="info"'
    # Every critical alert has a warning twin with the same labels but severity.
    rules = _rules()
    warnings = {
        (r["labels"]["kvdoctor_playbook"], r["labels"]["kvdoctor_cause"])  # type: ignore[index]
        for r in rules
        if r["labels"]["severity"] == "warning"  # type: ignore[index]
    }
    for r in rules:
        if str(r["alert"]).endswith("Critical"):
            key = (r["labels"]["kvdoctor_playbook"], r["labels"]["kvdoctor_cause"])  # type: ignore[index]
            assert key in warnings, r["alert"]


def test_runbook_url_base_is_configurable(tmp_path: Path) -> None:
    out = tmp_path / "rules.yaml"
    result = CliRunner().invoke(
        cli,
        ["alerts", "--runbook-url-base", "https://wiki.example/runbooks/", "-o", str(out)],
        standalone_mode=False,
    )
    assert result.exception is None, result.output
    doc = yaml.safe_load(out.read_text())
    urls = {r["annotations"]["runbook_url"] for g in doc["groups"] for r in g["rules"]}
    assert urls and all(u.startswith("https://wiki.example/runbooks/") for u in urls)
    assert all("//" not in u.removeprefix("https://") for u in urls)


def test_bad_runbook_url_base_is_one_line_error() -> None:
    from kvdoctor.errors import KvdoctorError

    with pytest.raises(KvdoctorError, match="not an http"):
        CliRunner().invoke(
            cli,
            ["alerts", "--runbook-url-base", "docs/runbooks"],
            standalone_mode=False,
            catch_exceptions=False,
        )


@pytest.mark.parametrize("version", [None, "0.10.1", "0.11.0", "0.12.0", "0.33.0"])
def test_configuration_state_alerts_are_info(version: str | None) -> None:
    rules = {r["alert"]: r for r in _rules(version)}
    for name in ("KvdoctorPrefixMissCachingDisabled", "KvdoctorQuantQualityFp8KvCache"):
        rule = rules[name]
        assert rule["labels"]["severity"] == "info"  # type: ignore[index]
        assert rule["for"] == "15m"
    # An alert that also reads traffic (hit rates) is about harm, not a setting: not info.
    churn = rules["KvdoctorPrefixMissEvictionChurn"]
    assert churn["labels"]["severity"] == "warning"  # type: ignore[index]


def test_fp8_summary_names_the_dtype_through_a_lookup() -> None:
    rule = {r["alert"]: r for r in _rules()}["KvdoctorQuantQualityFp8KvCache"]
    summary = rule["annotations"]["summary"]  # type: ignore[index]
    assert "<cache_dtype>" not in summary
    assert 'label "cache_dtype"' in summary and "| query" in summary


def test_header_points_at_the_inhibition_rules() -> None:
    names = metric_names(None, "vllm:")
    text = render_yaml(generate(load_playbooks(), names), "header")
    assert "kvdoctor alerts --inhibit-rules FILE" in text


@pytest.mark.parametrize("version", [None, "0.10.1", "0.33.0"])
def test_layout_changes_only_whitespace(version: str | None) -> None:
    names = metric_names(parse_version(version) if version else None, "vllm:")
    for alert in generate(load_playbooks(), names).alerts:
        lines = layout_promql(alert.expr)
        assert re.sub(r"\s+", "", "".join(lines)) == re.sub(r"\s+", "", alert.expr)
        if len(alert.expr) > 120:
            assert len(lines) > 1, alert.name
    for rule in _rules(version):
        assert "\n" in rule["expr"] or len(rule["expr"]) <= 120  # type: ignore[operator]


def test_layout_breaks_at_operators_outside_strings_and_groups() -> None:
    expr = 'max by (job) (m{re=~"a and b|c or d"}) and (x or y) unless z'
    lines = layout_promql(expr, width=20)
    assert lines[0] == 'max by (job) (m{re=~"a and b|c or d"})'
    assert "and" in lines and "unless" in lines
    assert "(x or y)" in lines
