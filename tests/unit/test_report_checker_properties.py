"""Property-generated bundles: every report they render passes the consistency checker.

Hypothesis draws a window of scrapes (KV usage, running, waiting, preemptions) and the requests
finished in it, each with its own queue and prefill time (TTFT = queue + prefill, as vLLM
measures them), then writes vLLM 0.32-style histograms of those requests. The pipeline diagnoses
the bundle, the report renders at both detail levels, and the checker must find nothing:
percentiles in order and within what the mean allows, prefill never above TTFT, one unit per
kind, verdict agreeing with the exit code, and the first screen within 60 lines.
"""

from __future__ import annotations

from _bundle_factory import _BUCKETS, LABELS, T0, bundle, exposition
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvdoctor.bundle.model import Scrape
from kvdoctor.pipeline import diagnose
from kvdoctor.report.checker import check_report, exit_code_for
from kvdoctor.report.render import render_markdown

_LATENCY = (
    "vllm:time_to_first_token_seconds",
    "vllm:inter_token_latency_seconds",
    "vllm:request_queue_time_seconds",
    "vllm:request_prefill_time_seconds",
)


def _histogram(name: str, values: list[float]) -> str:
    lines = [f"# TYPE {name} histogram"]
    for le in _BUCKETS:
        lines.append(f'{name}_bucket{{{LABELS},le="{le}"}} {sum(v <= le for v in values)}')
    lines.append(f'{name}_bucket{{{LABELS},le="+Inf"}} {len(values)}')
    lines.append(f"{name}_count{{{LABELS}}} {len(values)}")
    lines.append(f"{name}_sum{{{LABELS}}} {sum(values)!r}")
    return "\n".join(lines)


def _without_latency(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not any(h in ln for h in _LATENCY))


durations = st.floats(min_value=1e-5, max_value=30.0, allow_nan=False, allow_infinity=False)
requests = st.lists(st.tuples(durations, durations, durations), min_size=1, max_size=40)
scrape = st.tuples(
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),  # kv usage
    st.integers(min_value=0, max_value=64),  # running
    st.integers(min_value=0, max_value=64),  # waiting
    st.integers(min_value=0, max_value=5),  # preemptions in the interval
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=st.lists(scrape, min_size=3, max_size=12), reqs=requests)
def test_every_generated_report_passes_the_checker(
    window: list[tuple[float, int, int, int]], reqs: list[tuple[float, float, float]]
) -> None:
    base = bundle("healthy", n=len(window))
    scrapes: list[Scrape] = []
    preempted = 0
    for i, (kv, running, waiting, new_preemptions) in enumerate(window):
        preempted += new_preemptions if i else 0
        # Requests finish evenly over the window; the first scrape sees none of them.
        done = reqs[: len(reqs) * i // (len(window) - 1)]
        queue = [q for q, _, _ in done]
        prefill = [p for _, p, _ in done]
        text = _without_latency(
            exposition(
                kv=kv,
                running=running,
                waiting=waiting,
                preemptions=preempted,
                finished=len(done),
                prefix_queries=1000 * i,
                prefix_hits=500 * i,
            )
        )
        text += "\n" + "\n".join(
            [
                _histogram(_LATENCY[0], [q + p for q, p, _ in done]),
                _histogram(_LATENCY[1], [itl for _, _, itl in done]),
                _histogram(_LATENCY[2], queue),
                _histogram(_LATENCY[3], prefill),
            ]
        )
        scrapes.append(Scrape(t=T0 + 2 * i, status=200, text=text + "\n"))
    diagnosis = diagnose(base.model_copy(update={"scrapes": scrapes}))
    report = diagnosis.report
    summary = render_markdown(report, diagnosis.context)
    problems = check_report(summary, report, exit_code=exit_code_for(report))
    assert problems == [], "\n".join(map(str, problems)) + "\n\n" + summary
    full = render_markdown(report, diagnosis.context, detail="full")
    problems = check_report(full, report, exit_code=exit_code_for(report), max_visible=None)
    assert problems == [], "\n".join(map(str, problems)) + "\n\n" + full
