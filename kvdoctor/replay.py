"""Fixture replay for CI (``kvdoctor check``): bundle + ``expected.yaml`` (+ golden report).

A fixture is a directory holding a bundle and what its diagnosis must say::

    fixtures/<name>/
      bundle/ | bundle.tar.gz | manifest.json ...   the recorded bundle (or the dir itself)
      expected.yaml                                what the diagnosis must say
      report.md                                    optional golden Markdown, compared byte for byte

``expected.yaml`` (every key optional; keys of a finding match are all optional too)::

    verdict: critical
    primary: {symptom: preemption, cause: kv-capacity, status: confirmed}
    findings:            # each must match some finding
      - {symptom: prefix-miss, cause: caching-disabled, status: refuted}
    absent:              # no confirmed or suspected finding may match
      - {symptom: gpu-oom}
    notes:               # each must match some note (report/1.2: info, no harm measured)
      - {symptom: prefix-miss, cause: block-larger-than-prefix, status: confirmed}

``primary`` matches what the report leads with (``Report.lead``): the first finding not
refuted, else the first note. Shorthand: top-level ``symptom``/``cause``/``status`` describe
the primary finding.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kvdoctor.bundle.model import MANIFEST
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.inputs import MAX_YAML_BYTES, read_capped_text
from kvdoctor.pipeline import diagnose
from kvdoctor.report.model import Finding, Report, Severity, Status, Symptom, Verdict
from kvdoctor.report.output import write_atomic
from kvdoctor.report.render import render_markdown

EXPECTED = "expected.yaml"
GOLDEN = "report.md"
_BUNDLE_CANDIDATES = ("bundle", "bundle.tar.gz")
_DIFF_LINES = 80


class FindingMatch(BaseModel):
    # defer_build: `diagnose --bundle FIXTURE_DIR` imports this module for find_bundle only;
    # the validators are built when `kvdoctor check` first reads an expected.yaml.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str | None = None
    symptom: Symptom | None = None
    cause: str | None = None
    status: Status | None = None
    severity: Severity | None = None

    def matches(self, finding: Finding) -> bool:
        wanted = self.model_dump(exclude_none=True)
        return all(getattr(finding, key) == value for key, value in wanted.items())

    def describe(self) -> str:
        wanted = self.model_dump(exclude_none=True)
        return ", ".join(f"{k}={v}" for k, v in wanted.items()) or "any finding"


class Expected(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    description: str = ""
    verdict: Verdict | None = None
    primary: FindingMatch | None = None
    findings: list[FindingMatch] = Field(default_factory=list)
    absent: list[FindingMatch] = Field(default_factory=list)
    notes: list[FindingMatch] = Field(default_factory=list)
    # Shorthand for ``primary``.
    symptom: Symptom | None = None
    cause: str | None = None
    status: Status | None = None

    @model_validator(mode="after")
    def _shorthand(self) -> Expected:
        short = {
            k: v
            for k, v in (("symptom", self.symptom), ("cause", self.cause), ("status", self.status))
            if v is not None
        }
        if short:
            if self.primary is not None:
                raise ValueError("give either primary or top-level symptom/cause/status, not both")
            self.primary = FindingMatch(**short)
        return self


def _describe(finding: Finding) -> str:
    return f"{finding.symptom}/{finding.cause} ({finding.status}, {finding.severity})"


def compare(report: Report, expected: Expected) -> list[str]:
    """Mismatches between a diagnosis and its expectations, one readable line each."""
    problems: list[str] = []
    if expected.verdict is not None and report.verdict != expected.verdict:
        problems.append(f"verdict: expected {expected.verdict}, got {report.verdict}")
    if expected.primary is not None:
        primary = report.lead()
        if primary is None:
            problems.append(f"primary: expected {expected.primary.describe()}, got no finding")
        elif not expected.primary.matches(primary):
            problems.append(
                f"primary: expected {expected.primary.describe()}, got {_describe(primary)}"
            )
    for want in expected.findings:
        if not any(want.matches(f) for f in report.findings):
            got = "; ".join(_describe(f) for f in report.findings) or "no findings"
            problems.append(f"missing finding: {want.describe()} (got: {got})")
    for want in expected.notes:
        if not any(want.matches(n) for n in report.notes):
            got = "; ".join(_describe(n) for n in report.notes) or "no notes"
            problems.append(f"missing note: {want.describe()} (got: {got})")
    for unwanted in expected.absent:
        for f in report.findings:
            if f.status != "refuted" and unwanted.matches(f):
                problems.append(
                    f"unexpected finding: {_describe(f)} matches absent {unwanted.describe()}"
                )
    return problems


def load_expected(path: Path) -> Expected:
    # Imported here: `diagnose --bundle FIXTURE_DIR` uses this module for find_bundle only.
    import yaml

    text = read_capped_text(path, "expected", MAX_YAML_BYTES)
    try:
        raw = yaml.safe_load(text)
    except RecursionError:
        raise KvdoctorError(f"{path}: nested too deeply") from None
    except yaml.YAMLError as exc:
        raise KvdoctorError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise KvdoctorError(f"{path}: expected a mapping of expectations")
    try:
        return Expected.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err.get("loc", ())) or "value"
        raise KvdoctorError(f"{path}: {loc}: {err.get('msg', 'invalid')}") from None


def find_bundle(fixture: Path) -> Path:
    """The bundle of a fixture: the directory itself, ``bundle/``, or one ``*.tar.gz``."""
    if (fixture / MANIFEST).is_file():
        return fixture
    for name in _BUNDLE_CANDIDATES:
        if (fixture / name).exists():
            return fixture / name
    archives = sorted(fixture.glob("*.tar.gz"))
    if len(archives) == 1:
        return archives[0]
    raise KvdoctorError(
        f"{fixture}: no bundle (expected {MANIFEST}, bundle/, bundle.tar.gz or one *.tar.gz)"
    )


@dataclass
class FixtureResult:
    fixture: str
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    summary: str = ""
    golden: Literal["same", "differs", "written", "none"] = "none"

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems


def golden_diff(expected: str, actual: str, name: str) -> list[str]:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            fromfile=f"{name} (golden)",
            tofile=f"{name} (this run)",
            lineterm="",
        )
    )
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"... {len(lines) - _DIFF_LINES} more diff lines"]
    return lines


def check_fixture(fixture: Path, *, update_golden: bool = False) -> FixtureResult:
    """Replay one fixture. Never raises for a bad fixture: the error is in the result."""
    result = FixtureResult(fixture=str(fixture))
    try:
        if not fixture.is_dir():
            raise KvdoctorError(f"{fixture}: not a directory")
        expected_path = fixture / EXPECTED
        if not expected_path.is_file():
            raise KvdoctorError(f"{fixture}: no {EXPECTED}")
        expected = load_expected(expected_path)
        bundle_path = find_bundle(fixture)
        bundle = read_bundle(bundle_path)
        # The appendix names the bundle relative to its fixture, so a golden report is the same
        # wherever the repository is checked out and however the fixture path was typed.
        relative = bundle_path.relative_to(fixture).as_posix()
        bundle = bundle.model_copy(update={"source": relative if relative != "." else "."})
        diagnosis = diagnose(bundle)
    except KvdoctorError as exc:
        result.error = str(exc)
        return result
    report = diagnosis.report
    result.problems = compare(report, expected)
    primary = report.lead()
    label = "note" if primary is not None and primary in report.notes else "primary"
    result.summary = f"{report.verdict}; {label} " + (_describe(primary) if primary else "none")

    markdown = render_markdown(report, diagnosis.context)
    golden_path = fixture / GOLDEN
    if update_golden:
        _write_text_atomic(golden_path, markdown)
        result.golden = "written"
    elif golden_path.is_file():
        try:
            golden = golden_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            # One unreadable golden is this fixture's failure, not the end of the whole check.
            why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else str(exc)
            result.error = f"{golden_path}: {why}"
            return result
        if golden == markdown:
            result.golden = "same"
        else:
            result.golden = "differs"
            result.problems.append(
                f"{GOLDEN} differs from this run (kvdoctor check --update-golden rewrites it):"
            )
            result.problems.extend("  " + line for line in golden_diff(golden, markdown, GOLDEN))
    return result


def _write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, text)


def format_results(results: Sequence[FixtureResult]) -> list[str]:
    """The human-readable outcome of ``kvdoctor check``, one block per fixture."""
    lines: list[str] = []
    for r in results:
        if r.error is not None:
            lines.append(f"ERROR {r.fixture}: {r.error}")
            continue
        golden = {"same": "; golden same", "written": "; golden written", "differs": "", "none": ""}
        tag = "ok   " if r.ok else "FAIL "
        lines.append(f"{tag}{r.fixture}: {r.summary}{golden[r.golden]}")
        lines.extend(f"      {p}" for p in r.problems)
    failed = sum(1 for r in results if not r.ok)
    lines.append(f"{len(results)} fixture(s): {len(results) - failed} ok, {failed} failed")
    return lines


def exit_code(results: Sequence[Any]) -> int:
    """0 all ok; 1 any mismatch; 2 when a fixture could not even be read (usage error)."""
    if any(r.error is not None for r in results):
        return 2
    return 1 if any(not r.ok for r in results) else 0
