"""The published JSON Schema of kvdoctor.report/1 is generated from the models, never edited."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from kvdoctor.report.jsonschema import report_json_schema, report_json_schema_text

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema" / "report.schema.json"


def test_published_schema_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == report_json_schema_text(), (
        "schema/report.schema.json is stale: "
        "python -m kvdoctor.report.jsonschema > schema/report.schema.json"
    )


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(report_json_schema())


@pytest.mark.parametrize(
    "bad",
    [
        {"verdict": "fine"},
        {"extra": 1},
        {"findings": [{"id": "x"}]},
        {"schema": "kvdoctor.report/2"},
    ],
)
def test_schema_rejects_reports_outside_the_contract(bad: dict[str, object]) -> None:
    doc = {
        "schema": "kvdoctor.report/1",
        "verdict": "healthy",
        "findings": [],
        "signals": {},
        "kv": {},
        "not_checked": [],
    }
    jsonschema.validate(doc, report_json_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, **bad}, report_json_schema())
