"""Claims the evidence holds (issue 24, item 3): each check fails on a planted false claim.

The checker reads the Markdown as a reader does and holds each sentence against the bundle's
own facts in the report: a full card, an out-of-memory error, a GPU, a healthy row's words.
Evidence rows say "not met" from ``Evidence.met`` as the engine stored it, never from prose.
"""

from __future__ import annotations

from pathlib import Path

from _report_factory import context, finding, report

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.pipeline import diagnose
from kvdoctor.report.checker import check_report, exit_code_for
from kvdoctor.report.model import Evidence, Report
from kvdoctor.report.render import render_markdown
from kvdoctor.rules.verdict import healthy_evidence
from kvdoctor.signals.model import SignalSet

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _kinds(markdown: str, r: Report) -> set[str]:
    return {p.kind for p in check_report(markdown, r, exit_code=exit_code_for(r))}


def _plant(markdown: str, line: str) -> str:
    lines = markdown.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("**Verdict"))
    return "\n".join([*lines[: at + 1], "", line, *lines[at + 1 :]]) + "\n"


def _with(**signals: object) -> Report:
    r = report()
    return r.model_copy(update={"signals": {**r.signals, **signals}})


def test_gpu_memory_full_needs_what_shows_it() -> None:
    r = _with(gpu_memory_used_fraction=0.33, log_oom=False, log_no_cache_memory=False)
    text = _plant(render_markdown(r, context()), "GPU memory is full: nothing fits.")
    assert "claim-card-full" in _kinds(text, r)
    # NVML at the top of the card, or a logged OOM, shows it: then the sentence may stand.
    for shown in (_with(gpu_memory_used_fraction=0.99), _with(log_oom=True)):
        text = _plant(render_markdown(shown, context()), "GPU memory is full: nothing fits.")
        assert "claim-card-full" not in _kinds(text, shown)


def test_an_oom_claimed_without_one_logged() -> None:
    r = _with(log_oom=False)
    clean = render_markdown(r, context())
    assert "claim-oom" not in _kinds(clean, r)
    assert "claim-oom" in _kinds(_plant(clean, "The GPU ran out of memory."), r)
    assert "claim-oom" in _kinds(_plant(clean, "An OOM stopped the engine."), r)
    # Negated, it is what the data shows.
    assert "claim-oom" not in _kinds(
        _plant(clean, "The server reported no out-of-memory error."), r
    )
    # The capture's notes quote the operator ("reports 'OOM'"): their words, not a claim.
    assert "claim-oom" not in _kinds(_plant(clean, "| notes | the operator reports 'OOM' |"), r)
    logged = _with(log_oom=True)
    text = _plant(render_markdown(logged, context()), "The GPU ran out of memory.")
    assert "claim-oom" not in _kinds(text, logged)


def test_a_gpu_named_on_a_cpu_server() -> None:
    advice = ["Lower `--max-num-seqs` from 64 to 16"]
    cpu = _with(platform="cpu").model_copy(update={"findings": [finding(remediation=advice)]})
    text = render_markdown(cpu, context())
    # The renderer words the kv-full sentence for the platform: no GPU on the CPU build.
    assert "The KV cache is full, not the server's memory" in text
    assert "claim-gpu-on-cpu" not in _kinds(text, cpu)
    assert "claim-gpu-on-cpu" in _kinds(_plant(text, "GPU memory stayed at 40 %."), cpu)
    # The factory's advice says "(the GPU has headroom)": false on the CPU build, and caught.
    said = _with(platform="cpu")
    assert "claim-gpu-on-cpu" in _kinds(render_markdown(said, context()), said)
    gpu = _with(platform="gpu")
    gpu_text = render_markdown(gpu, context())
    assert "The KV cache is full, not GPU memory" in gpu_text
    assert "claim-gpu-on-cpu" not in _kinds(_plant(gpu_text, "GPU memory stayed at 40 %."), gpu)


def _healthy(kv_usage_max: float) -> tuple[str, Report]:
    sig = SignalSet()
    for name, v in {
        "kv_usage_max": kv_usage_max,
        "preemptions_window": 0,
        "waiting_max": 0,
    }.items():
        sig.set(name, v)
    r = report(verdict="healthy", findings=[], signals={**sig.flat(), "scrapes_ok": 30})
    md = render_markdown(r, context(healthy_evidence=healthy_evidence(sig), reproducers=[]))
    return md, r


def test_a_healthy_row_that_contradicts_its_own_number() -> None:
    # A healthy verdict over a pool that filled (no symptom showed harm): the row says so.
    md, r = _healthy(0.97)
    assert "| peak KV cache usage | 97 % | ≥ 90 %: the KV pool filled at its peak" in md
    assert "never filled" not in md
    assert check_report(md, r, exit_code=0) == []
    planted = md.replace(
        "| peak KV cache usage | 97 % | ≥ 90 %: the KV pool filled at its peak, and no symptom "
        "shows harm from it |",
        "| peak KV cache usage | 97 % | below 90 %: the KV pool never filled |",
    )
    assert planted != md
    assert "healthy-row" in {p.kind for p in check_report(planted, r, exit_code=0)}
    quiet, r2 = _healthy(0.2)
    assert "| peak KV cache usage | 20 % | below 90 %: the KV pool never filled |" in quiet
    assert check_report(quiet, r2, exit_code=0) == []


def test_met_is_read_from_the_report_not_from_the_prose() -> None:
    row = Evidence(signal="kv_usage_max", value=0.5, expected="≥ 0.90: the pool fills up")
    for met, shown in ((False, "| not met: ≥ 90 %"), (True, "| ≥ 90 %")):
        f = finding(evidence=[row.model_copy(update={"met": met})])
        text = render_markdown(report(findings=[f]), context())
        assert f"| peak KV cache usage | 50 % {shown}" in text
    # A report that stores no answer gets no "not met" from the renderer's reading of the
    # words; the checker then catches the false sentence.
    f = finding(evidence=[row])
    r = report(findings=[f])
    text = render_markdown(r, context())
    assert "| peak KV cache usage | 50 % | ≥ 90 %: the pool fills up |" in text
    assert "false-comparison" in _kinds(text, r)


def test_the_engine_stores_met_from_the_playbook_condition() -> None:
    d = diagnose(read_bundle(FIXTURES / "queueing" / "bundle.tar.gz"))
    rows = {e.signal: e for e in d.report.findings[0].evidence}
    assert rows["ttft_queue_share"].met is True  # ≥ 0.5, 0.92 in the window
    assert rows["kv_usage_queued"].met is True  # < 0.90 while requests waited, 0.3 %
    assert rows["running_max"].met is None  # the words state no condition
    hol = diagnose(read_bundle(FIXTURES / "long-prefill-hol" / "bundle.tar.gz"))
    itl = [e for f in hol.report.findings for e in f.evidence if e.signal == "itl_prefill_r2"]
    assert itl and all(e.met is False for e in itl)


def test_an_evidence_row_named_for_an_oom_is_no_claim_of_one() -> None:
    r = _with(log_oom=False)
    clean = render_markdown(r, context())
    row = (
        "| log shows a CUDA/torch out-of-memory error | no "
        "| a CUDA out-of-memory error in the log |"
    )
    at = next(ln for ln in clean.splitlines() if ln.startswith("| peak KV cache usage |"))
    assert "claim-oom" not in _kinds(clean.replace(at, at + "\n" + row, 1), r)
    # Outside a table's name column the same words are a claim.
    assert "claim-oom" in _kinds(_plant(clean, "The log shows a CUDA out-of-memory error."), r)
