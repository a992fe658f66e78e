"""Issue 14, item 12: many engines are indexed once, and a documented cap refuses the absurd."""

from __future__ import annotations

import pytest

from kvdoctor import observations
from kvdoctor.bundle.model import Bundle, Manifest, Scrape
from kvdoctor.errors import KvdoctorError
from kvdoctor.observations import group_of, observe


def _bundle(engines: int) -> Bundle:
    scrapes = []
    for i in range(3):
        lines = []
        for e in range(engines):
            lab = f'engine="{e}",model_name="m"'
            lines.append(f"vllm:kv_cache_usage_perc{{{lab}}} {(e % 10) / 10}")
            lines.append(f"vllm:num_requests_running{{{lab}}} {e % 3}")
            lines.append(f"vllm:num_preemptions_total{{{lab}}} {i * e}")
        scrapes.append(Scrape(t=100.0 + i, status=200, text="\n".join(lines) + "\n"))
    manifest = Manifest(
        created_by="t", endpoint="http://h:1", started_at=100.0, ended_at=102.0, interval_s=1.0
    )
    return Bundle(manifest=manifest, scrapes=scrapes)


def test_per_engine_selection_matches_a_full_scan() -> None:
    obs = observe(_bundle(40))
    for name in ("vllm:kv_cache_usage_perc", "vllm:num_preemptions"):
        everything = sorted(obs.columns[name].items())
        for g in obs.groups():
            assert obs._select(name, g) == [(lab, c) for lab, c in everything if group_of(lab) == g]
        assert obs._select(name, None) == everything
    assert obs.counter_increase("vllm:num_preemptions", ("m", "7")) == 14.0
    assert obs.counter_increase("vllm:num_preemptions") == sum(2.0 * e for e in range(40))
    assert obs._select("vllm:absent", ("m", "1")) == []


def test_more_series_than_the_cap_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observations, "MAX_SERIES", 100)
    observe(_bundle(33))  # 99 series: under the cap
    with pytest.raises(KvdoctorError, match=r"more than 100 distinct vLLM series"):
        observe(_bundle(34))
