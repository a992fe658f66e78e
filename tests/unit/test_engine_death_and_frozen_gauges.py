"""A server that stopped serving: the engine's death in its log (and the file it died in), the
scrapes it refused to the capture's end, and a V0 release without token counters whose gauges
froze (external cases zzg-engine-death and zzg-v0-4090, holdout-13)."""

from __future__ import annotations

import re
from pathlib import Path

from _bundle_factory import bundle

from kvdoctor.bundle.model import Scrape
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.signals.compute import compute_signals

CASES = Path(__file__).resolve().parents[2] / "cases"

V1_DEATH = """\
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110] EngineCore encountered a fatal error.
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110] Traceback (most recent call last):
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]   File "/usr/lib/python3/vllm/v1/engine/core.py", line 412, in step
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]     raise_if_bad(ValueError)
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]   File "/usr/lib/python3/vllm/v1/core/sched/scheduler.py", line 602, in schedule
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]     self.connector.update_state_after_alloc(request)
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]   File "/usr/lib/python3/vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py", line 241, in update_state_after_alloc
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]     assert a == b
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110] AssertionError
(EngineCore pid=287) ERROR 07-17 07:04:08 [core.py:1110]   File "/usr/lib/python3/vllm/v1/worker/unrelated.py", line 1, in later
(APIServer pid=1) ERROR 07-17 07:04:08 [async_llm.py:693] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.
"""  # noqa: E501


def test_the_engine_death_and_the_innermost_vllm_frame_before_the_error_are_read() -> None:
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": V1_DEATH}))
    assert ss.get("log_engine_deaths") == 2
    # The source line "raise_if_bad(ValueError)" is not the error; the frame after
    # "AssertionError" belongs to no traceback of the death.
    assert (
        ss.get("log_engine_death_site")
        == "distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py"
    )


def test_a_log_without_a_death_says_none() -> None:
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": "INFO all fine\n"}))
    assert ss.get("log_engine_deaths") == 0
    assert ss.get("log_engine_death_site") is None


def test_refused_scrapes_to_the_capture_end_are_the_server_down() -> None:
    b = bundle("healthy")
    last = max(s.t for s in b.scrapes)
    refused = [Scrape(t=last + 10 * k, error="connection refused") for k in (1, 2, 3, 4)]
    ss = compute_signals(b.model_copy(update={"scrapes": [*b.scrapes, *refused]}))
    assert ss.get("down_tail_s") == 40
    # A failure followed by a good scrape is a blip, not a server down.
    blip = [Scrape(t=last - 0.5, error="timeout")]
    ss = compute_signals(b.model_copy(update={"scrapes": [*b.scrapes, *blip]}))
    assert ss.get("down_tail_s") == 0


def test_v0_gauges_frozen_with_a_request_running_are_a_stalled_tail() -> None:
    b = read_bundle(CASES / "zzg-v0-tp2-4090-kv-full-freeze" / "bundle")
    ss = compute_signals(b)
    assert ss.get("stalled_tail_s") is not None and ss.get("stalled_tail_s") >= 290
    # The same capture with its throughput gauge still moving is no stall.
    moving = []
    for i, s in enumerate(b.scrapes):
        text = s.text
        if text is not None:
            text = re.sub(
                r"^(vllm:avg_generation_throughput_toks_per_s\{[^}]*\}) ([\d.]+)$",
                lambda m, i=i: f"{m.group(1)} {float(m.group(2)) + i}",
                text,
                flags=re.M,
            )
        moving.append(s.model_copy(update={"text": text}))
    assert compute_signals(b.model_copy(update={"scrapes": moving})).get("stalled_tail_s") is None


def test_an_exclusion_with_a_none_part_reads_without_a_dangling_and() -> None:
    from kvdoctor.rules.conditions import Context
    from kvdoctor.rules.explain import explain
    from kvdoctor.rules.load import runtime_of
    from kvdoctor.rules.predicates import SignalView
    from kvdoctor.rules.schema import Group
    from kvdoctor.signals.model import SignalSet

    s = SignalSet()
    s.set("gpu_memory_utilization", 0.95, provenance="test")
    s.set("log_sampler_warmup_seqs", None, reason="test")
    valid = Group.model_validate(
        {
            "none": [
                {
                    "all": [
                        {"signal": "gpu_memory_utilization", "op": ">=", "value": 0.95},
                        {"none": [{"signal": "log_sampler_warmup_seqs", "op": ">=", "value": 512}]},
                    ]
                }
            ]
        }
    )
    line = explain(runtime_of(valid), Context(SignalView(s)))
    assert line is not None and not line.rstrip().endswith("and"), line
