"""The pure pipeline: bundle → signals → findings → report (no server involved)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _bundle_factory import T0, bundle

from kvdoctor.bundle.model import NotChecked, Scrape
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.bundle.writer import write_bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.pipeline import diagnose, diagnose_bundle
from kvdoctor.report.render import render_json, render_markdown
from kvdoctor.reproducers.model import ReproducerRecord


def _ramp_record(verdict: str) -> ReproducerRecord:
    return ReproducerRecord(
        name="capacity-ramp",
        verdict=verdict,  # type: ignore[arg-type]
        summary="preemptions start at 13 concurrent sequences",
        expected={"knee_concurrency": 12},
        measured={"knee_concurrency": 13},
        started_at=T0 + 40,
        ended_at=T0 + 70,
        requests_sent=30,
    )


def test_preemption_bundle_gives_a_suspected_kv_capacity_finding() -> None:
    report = diagnose_bundle(bundle("preemption"))
    assert report.verdict == "critical"
    assert (report.findings[0].symptom, report.findings[0].cause) == ("preemption", "kv-capacity")
    assert report.findings[0].status == "suspected"
    assert report.kv.bytes_per_token == 1024
    assert report.kv.capacity_tokens == 512 * 16
    whats = [n.what for n in report.not_checked]
    assert "reproducer capacity-ramp for preemption/kv-capacity" in whats


def test_reproducer_record_in_the_bundle_confirms_and_shows_expected_vs_observed() -> None:
    d = diagnose(bundle("preemption", reproducers=[_ramp_record("confirmed")]))
    primary = d.report.findings[0]
    assert primary.status == "confirmed"
    assert primary.reproducer is not None and primary.reproducer.name == "capacity-ramp"
    assert not any("capacity-ramp" in n.what for n in d.report.not_checked)
    text = render_markdown(d.report, d.context)
    assert "| `knee_concurrency` | 12 | 13 |" in text
    assert "**confirmed** by reproducer `capacity-ramp`" in "\n".join(text.splitlines()[:15])


def test_unreadable_reproducer_record_is_not_checked_not_fatal(tmp_path: Path) -> None:
    # The bad line as a bundle on disk holds it: the reader keeps it aside, typed records only
    # reach the pipeline.
    dest = write_bundle(bundle("preemption", reproducers=[]), tmp_path / "b")
    bad = {"name": "capacity-ramp", "verdict": "maybe", "started_at": T0, "ended_at": T0}
    (dest / "reproducers.jsonl").write_text(json.dumps(bad) + "\n[1, 2]\n")
    report = diagnose_bundle(read_bundle(dest))
    assert report.findings[0].status == "suspected"
    problems = {n.what: n.why for n in report.not_checked}
    assert "verdict" in problems["reproducer record capacity-ramp"]
    assert problems["reproducer record #2"] == "unreadable (not a JSON object); not used"


def test_queueing_with_low_kv_is_not_a_kv_problem() -> None:
    d = diagnose(bundle("queueing"))
    assert d.report.findings[0].symptom == "high-ttft"
    assert not any(f.symptom == "preemption" for f in d.report.findings)
    assert "but the KV cache is not full" in render_markdown(d.report, d.context)


def test_healthy_bundle_has_no_finding_and_says_why() -> None:
    d = diagnose(bundle("healthy"))
    assert d.report.verdict == "healthy" and d.report.findings == []
    assert d.context.healthy_evidence
    assert "The KV cache is fine" in render_markdown(d.report, d.context)


def test_not_checked_merges_manifest_absent_files_and_null_signals_without_duplicates() -> None:
    from_capture = NotChecked(what="GPU memory (NVML)", why="no NVIDIA driver on this host")
    report = diagnose_bundle(bundle("healthy", not_checked=[from_capture]))
    whats = [n.what for n in report.not_checked]
    assert whats[0] == "GPU memory (NVML)"
    # The capture already said why there is no GPU data: no second, vaguer entry for gpu.jsonl.
    assert "GPU memory" not in whats
    assert "server logs" in whats
    assert len(whats) == len(set(zip(whats, [n.why for n in report.not_checked], strict=True)))


def test_nothing_diagnosable_when_every_scrape_failed() -> None:
    b = bundle("healthy", n=2)
    failed = b.model_copy(update={"scrapes": [Scrape(t=T0, error="connection refused")]})
    with pytest.raises(KvdoctorError, match=r"nothing to diagnose.*connection refused"):
        diagnose(failed)


def test_same_bundle_same_bytes_and_source_only_in_the_appendix() -> None:
    a = diagnose(bundle("preemption", source="out/incident"))
    b = diagnose(bundle("preemption", source="out/incident"))
    assert render_markdown(a.report, a.context) == render_markdown(b.report, b.context)
    assert render_json(a.report) == render_json(b.report)
    live = diagnose(bundle("preemption"))
    assert render_json(live.report) == render_json(a.report)
    assert "`out/incident`" in render_markdown(a.report, a.context)
