"""The published JSON Schema of ``kvdoctor.report/1``, generated from the pydantic models.

``schema/report.schema.json`` is this module's output; a unit test fails when it is stale.
Regenerate with ``python -m kvdoctor.report.jsonschema > schema/report.schema.json``.
"""

from __future__ import annotations

import json
import sys

from kvdoctor.bundle.model import JsonObject
from kvdoctor.report.model import REPORT_SCHEMA, Report

SCHEMA_ID = "https://kvdoctor.dev/schema/report.schema.json"


def report_json_schema() -> JsonObject:
    schema = Report.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": REPORT_SCHEMA,
        **{k: v for k, v in schema.items() if k != "title"},
    }


def report_json_schema_text() -> str:
    return json.dumps(report_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(report_json_schema_text())
