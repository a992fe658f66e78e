"""Report objects built by hand for renderer tests (no pipeline involved)."""

from __future__ import annotations

from typing import Any

from kvdoctor.bundle.model import NotChecked
from kvdoctor.report.context import RenderContext
from kvdoctor.report.model import Evidence, Finding, Report, ReproducerOutcome
from kvdoctor.reproducers.model import ReproducerRecord
from kvdoctor.rules.verdict import verdict_facts

T0 = 1_700_000_000.0


def finding(**overrides: Any) -> Finding:
    base: dict[str, Any] = {
        "id": "preemption",
        "symptom": "preemption",
        "cause": "kv-capacity",
        "status": "confirmed",
        "severity": "critical",
        "confidence": 0.9,
        "title": "Live KV demand exceeds the pool",
        "evidence": [
            Evidence(signal="kv_usage_max", value=1.0, expected="below 0.90"),
            Evidence(signal="preemptions_window", value=42, expected="0"),
        ],
        "remediation": [
            "Lower `--max-num-seqs` from 64 to 16",
            "Raise `--gpu-memory-utilization` from 0.80 to 0.90 (the GPU has headroom)",
        ],
        "reproducer": ReproducerOutcome(name="capacity-ramp", verdict="confirmed", measured={}),
    }
    base.update(overrides)
    return Finding(**base)


def report(**overrides: Any) -> Report:
    base: dict[str, Any] = {
        "verdict": "critical",
        "findings": [
            finding(),
            finding(
                id="prefix-miss",
                symptom="prefix-miss",
                cause="caching-disabled",
                status="refuted",
                severity="warning",
                confidence=0.2,
                title="Prefix caching is off",
                evidence=[],
                remediation=[],
                reproducer=ReproducerOutcome(name="prefix-probe", verdict="refuted"),
            ),
        ],
        "signals": {
            "kv_usage_max": 1.0,
            "kv_usage_last": 0.98,
            "num_gpu_blocks": 512,
            "preemptions_window": 42,
            "preemptions_lifetime": 100,
            "served_model": "tiny-llama",
            "vllm_version": "0.32.0",
            "scrapes_ok": 30,
            "scrapes_failed": 0,
            "ttft_p50": 0.123,
            "ttft_p95": 1.5,
            "ttft_p99": 2.5,
            "itl_p50": 0.02,
            "running_max": 16,
            "waiting_max": 4,
            "max_num_seqs": 64,
            "prefix_caching": True,
        },
        "kv": {"bytes_per_token": 1024, "capacity_tokens": 65536, "notes": ["a note"]},
        "not_checked": [NotChecked(what="GPU memory", why="no NVIDIA driver")],
    }
    base.update(overrides)
    if "facts" not in overrides:
        # As the pipeline does: the rules decide what the verdict sentence rests on (1.6).
        base["facts"] = verdict_facts(base["signals"], base["findings"])
    return Report(**base)


def context(**overrides: Any) -> RenderContext:
    ramp = [(T0 + 2 * i, min(1.0, i / 20)) for i in range(30)]
    base: dict[str, Any] = {
        "source": "fixtures/preemption-storm/bundle",
        "endpoint": "http://127.0.0.1:18001",
        "created_by": "kvdoctor 0.1.0",
        "started_at": T0,
        "ended_at": T0 + 60,
        "interval_s": 2.0,
        "scrapes_total": 30,
        "engine_args": {"max-num-seqs": 64, "block-size": 128},
        "series": {
            "kv_usage": ramp,
            "running": [(T0 + 2 * i, float(i % 8)) for i in range(30)],
            "waiting": [(T0 + 2 * i, 0.0) for i in range(30)],
            "preemptions": [(T0 + 2 * i, float(max(0, i - 20) * 4)) for i in range(30)],
        },
        "reproducers": [
            ReproducerRecord(
                name="capacity-ramp",
                verdict="confirmed",
                summary="preemptions start at 9 concurrent sequences",
                expected={"knee_concurrency": 8},
                measured={"knee_concurrency": 9},
                started_at=T0 + 61,
                ended_at=T0 + 90,
                requests_sent=40,
            )
        ],
    }
    base.update(overrides)
    return RenderContext(**base)
