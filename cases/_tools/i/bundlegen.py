#!/usr/bin/env python3
"""Small library that writes kvdoctor.bundle/1 directories for the i- cases.

Copied unchanged (apart from this line) from cases/_tools/c/bundlegen.py of writer c.

Metric names, kinds and cache_config_info label names of a V1 release come from
``kvdoctor/data/vllm_metrics.yaml`` (read from each release's own source); a metric is written
only if that release exports it, so a scenario may list old and new spellings side by side.
Releases older than the table (V0 engine, 0.5.x and 0.6.x/0.7.x) use the name lists copied
below from those releases' ``vllm/engine/metrics.py`` (read through the search tool).

Histogram bucket layouts:
- V1: the real vLLM 0.32 recording in ``tests/data/vllm-0.32/metrics-prefix-hits.txt`` (same
  layouts as the 0.9-0.24 sources for TTFT/ITL/latency), token-count histograms built with
  vLLM's own 1-2-5 rule from max_model_len.
- V0: the bucket lists written in the V0 metrics.py of the release family.

Only numbers are scripted (by the scenarios in ``cases.py``); everything here is format.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from kvdoctor.vllm_metrics import exported_names, metric_entry  # noqa: E402

RECORDED = ROOT / "tests" / "data" / "vllm-0.32" / "metrics-prefix-hits.txt"

# ---------------------------------------------------------------- V0 name lists
# vLLM 0.5.x vllm/engine/metrics.py (Metrics class, max_model_len signature).
V0_05 = {
    "vllm:num_requests_running": "gauge",
    "vllm:num_requests_waiting": "gauge",
    "vllm:num_requests_swapped": "gauge",
    "vllm:gpu_cache_usage_perc": "gauge",
    "vllm:cpu_cache_usage_perc": "gauge",
    "vllm:cpu_prefix_cache_hit_rate": "gauge",
    "vllm:gpu_prefix_cache_hit_rate": "gauge",
    "vllm:num_preemptions": "counter",
    "vllm:prompt_tokens": "counter",
    "vllm:generation_tokens": "counter",
    "vllm:time_to_first_token_seconds": "histogram",
    "vllm:time_per_output_token_seconds": "histogram",
    "vllm:e2e_request_latency_seconds": "histogram",
    "vllm:request_prompt_tokens": "histogram",
    "vllm:request_generation_tokens": "histogram",
    "vllm:request_params_best_of": "histogram",
    "vllm:request_params_n": "histogram",
    "vllm:request_success": "counter",
    "vllm:spec_decode_draft_acceptance_rate": "gauge",
    "vllm:spec_decode_efficiency": "gauge",
    "vllm:spec_decode_num_accepted_tokens": "counter",
    "vllm:spec_decode_num_draft_tokens": "counter",
    "vllm:spec_decode_num_emitted_tokens": "counter",
    "vllm:avg_prompt_throughput_toks_per_s": "gauge",
    "vllm:avg_generation_throughput_toks_per_s": "gauge",
}
# vLLM 0.6.4-0.7.x vllm/engine/metrics.py (Metrics class, VllmConfig signature).
V0_06 = {
    "vllm:num_requests_running": "gauge",
    "vllm:num_requests_waiting": "gauge",
    "vllm:num_requests_swapped": "gauge",
    "vllm:gpu_cache_usage_perc": "gauge",
    "vllm:cpu_cache_usage_perc": "gauge",
    "vllm:cpu_prefix_cache_hit_rate": "gauge",
    "vllm:gpu_prefix_cache_hit_rate": "gauge",
    "vllm:num_preemptions": "counter",
    "vllm:prompt_tokens": "counter",
    "vllm:generation_tokens": "counter",
    "vllm:tokens": "counter",
    "vllm:iteration_tokens_total": "histogram",
    "vllm:time_to_first_token_seconds": "histogram",
    "vllm:time_per_output_token_seconds": "histogram",
    "vllm:e2e_request_latency_seconds": "histogram",
    "vllm:request_queue_time_seconds": "histogram",
    "vllm:request_inference_time_seconds": "histogram",
    "vllm:request_prefill_time_seconds": "histogram",
    "vllm:request_decode_time_seconds": "histogram",
    "vllm:time_in_queue_requests": "histogram",
    "vllm:request_prompt_tokens": "histogram",
    "vllm:request_generation_tokens": "histogram",
    "vllm:request_max_num_generation_tokens": "histogram",
    "vllm:request_params_n": "histogram",
    "vllm:request_params_max_tokens": "histogram",
    "vllm:request_success": "counter",
    "vllm:spec_decode_draft_acceptance_rate": "gauge",
    "vllm:spec_decode_efficiency": "gauge",
    "vllm:spec_decode_num_accepted_tokens": "counter",
    "vllm:spec_decode_num_draft_tokens": "counter",
    "vllm:spec_decode_num_emitted_tokens": "counter",
}
# V0 Info metric vllm:cache_config: CacheConfig.metrics_info() keys of the family.
V0_CACHE_LABELS = {
    "v0-0.5": ["block_size", "cache_dtype", "cpu_offload_gb", "enable_prefix_caching",
               "gpu_memory_utilization", "num_cpu_blocks", "num_gpu_blocks",
               "num_gpu_blocks_override", "sliding_window", "swap_space"],
    "v0-0.6": ["block_size", "cache_dtype", "cpu_offload_gb", "enable_prefix_caching",
               "gpu_memory_utilization", "is_attention_free", "num_cpu_blocks", "num_gpu_blocks",
               "num_gpu_blocks_override", "sliding_window", "swap_space"],
}
# Names renamed in 0.9.2 (V1 0.8.x exported only the old spelling) and V1 spec-decode names
# that 0.8.3 did not have yet.
_NEW_IN_092 = {"vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries", "vllm:prefix_cache_hits",
               "vllm:spec_decode_num_accepted_tokens_per_pos"}


def _recorded_buckets() -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for m in re.finditer(r'^(vllm:[a-z0-9_]+)_bucket\{[^}]*le="([^"]+)"', RECORDED.read_text(),
                         re.M):
        if m.group(2) != "+Inf":
            out.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: sorted(set(v)) for k, v in out.items()}


_REC = _recorded_buckets()
_REC["vllm:time_per_output_token_seconds"] = _REC["vllm:inter_token_latency_seconds"]


def build_1_2_5(max_value: int) -> list[float]:
    out: list[float] = []
    e = 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v <= max_value:
                out.append(float(v))
            else:
                return out
        e += 1


V0_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
           7.5, 10.0]
V0_TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
V0_05_E2E = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
V0_06_LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
_TOKEN_HISTS = {"vllm:request_prompt_tokens", "vllm:request_generation_tokens",
                "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens",
                "vllm:request_prefill_kv_computed_tokens"}


def go_float(d: float) -> str:
    """prometheus_client's floatToGoString."""
    d = float(d)
    if d == math.inf:
        return "+Inf"
    if d == -math.inf:
        return "-Inf"
    if math.isnan(d):
        return "NaN"
    s = repr(d)
    dot = s.find(".")
    if d > 0 and dot > 6:
        mantissa = f"{s[0]}.{s[1:dot]}{s[dot + 1:]}".rstrip("0.")
        return f"{mantissa}e+0{dot - 1}"
    return s


@dataclass
class Engine:
    """The series of one engine (V1 engine label value); V0 has exactly one."""

    gauges: dict[str, list[float]] = field(default_factory=dict)
    counters: dict[str, list[float]] = field(default_factory=dict)
    # (name, label, value) -> cumulative per scrape
    lcounters: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)
    # name -> per scrape list of (value, count) observations added since the previous scrape
    hists: dict[str, list[list[tuple[float, float]]]] = field(default_factory=dict)


@dataclass
class Capture:
    family: str  # "v0-0.5" | "v0-0.6" | "v1-0.8.3" | a table version such as "0.10.0"
    vllm_version: str  # the version string /version answers
    model_name: str
    t0: float
    dt: float
    n: int
    max_model_len: int
    engines: dict[str, Engine]
    cache_info: dict[str, str] = field(default_factory=dict)
    created_at: float = 0.0  # process start (for _created samples)
    iteration_buckets: list[float] | None = None  # V0 0.6 iteration_tokens_total buckets

    # ------------------------------------------------------------ names
    def kind(self, name: str) -> str | None:
        if self.family == "v0-0.5":
            return V0_05.get(name)
        if self.family == "v0-0.6":
            return V0_06.get(name)
        table = "0.9.2" if self.family == "v1-0.8.3" else self.family
        if self.family == "v1-0.8.3" and name in _NEW_IN_092:
            return None
        if name not in exported_names(table):
            return None
        e = metric_entry(table, name)
        return None if e is None else str(e["kind"])

    @property
    def v0(self) -> bool:
        return self.family.startswith("v0-")

    def buckets(self, name: str) -> list[float]:
        if name in _TOKEN_HISTS:
            return build_1_2_5(self.max_model_len)
        if name in ("vllm:request_params_n", "vllm:request_params_best_of"):
            return [1.0, 2.0, 5.0, 10.0, 20.0]
        if self.v0:
            if name == "vllm:time_to_first_token_seconds":
                return V0_TTFT
            if name == "vllm:time_per_output_token_seconds":
                return V0_TPOT
            if name == "vllm:iteration_tokens_total":
                return [float(x) for x in (self.iteration_buckets or
                                           [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                            8096])]
            if self.family == "v0-0.5":
                return V0_05_E2E
            return V0_06_LAT
        return _REC[name]

    def labels(self, engine: str, extra: dict[str, str] | None = None) -> str:
        if self.v0:
            pairs = [("model_name", self.model_name)]
            if extra:
                pairs += list(extra.items())
        else:
            d = {"engine": engine, "model_name": self.model_name, **(extra or {})}
            pairs = sorted(d.items())
        return ",".join(f'{k}="{v}"' for k, v in pairs)

    # ------------------------------------------------------------ exposition
    def exposition(self, i: int) -> str:
        fams: dict[str, tuple[str, list[str]]] = {}

        def add(fam: str, kind: str, line: str) -> None:
            fams.setdefault(fam, (kind, []))[1].append(line)

        created = go_float(self.created_at)
        for eng, e in self.engines.items():
            for name, vals in e.gauges.items():
                if self.kind(name) == "gauge":
                    add(name, "gauge", f"{name}{{{self.labels(eng)}}} {go_float(vals[i])}")
            for name, vals in e.counters.items():
                if self.kind(name) == "counter":
                    lab = self.labels(eng)
                    add(name + "_total", "counter", f"{name}_total{{{lab}}} {go_float(vals[i])}")
                    if not self.v0:
                        add(name + "_created", "gauge", f"{name}_created{{{lab}}} {created}")
            for (name, lk, lv), vals in e.lcounters.items():
                k = self.kind(name)
                if k is None:
                    continue
                lab = self.labels(eng, {lk: lv})
                if k == "counter":
                    add(name + "_total", "counter", f"{name}_total{{{lab}}} {go_float(vals[i])}")
                    if not self.v0:
                        add(name + "_created", "gauge", f"{name}_created{{{lab}}} {created}")
                else:
                    add(name, k, f"{name}{{{lab}}} {go_float(vals[i])}")
            for name, per in e.hists.items():
                if self.kind(name) != "histogram":
                    continue
                obs: list[tuple[float, float]] = [o for step in per[: i + 1] for o in step]
                lab = self.labels(eng)
                for le in self.buckets(name):
                    c = sum(cnt for v, cnt in obs if v <= le)
                    add(name, "histogram", f'{name}_bucket{{{lab},le="{go_float(le)}"}} '
                                           f"{go_float(c)}")
                total = sum(cnt for _, cnt in obs)
                add(name, "histogram", f'{name}_bucket{{{lab},le="+Inf"}} {go_float(total)}')
                add(name, "histogram", f"{name}_count{{{lab}}} {go_float(total)}")
                add(name, "histogram",
                    f"{name}_sum{{{lab}}} {go_float(sum(v * c for v, c in obs))}")
                if not self.v0:
                    add(name + "_created", "gauge", f"{name}_created{{{lab}}} {created}")
        if self.cache_info:
            if self.v0:
                allowed = V0_CACHE_LABELS[self.family]
            else:
                table = "0.9.2" if self.family == "v1-0.8.3" else self.family
                allowed = list(metric_entry(table, "vllm:cache_config_info")["labels"])
            info = {k: "None" for k in allowed}
            if not self.v0:
                info["engine"] = "0"
            info.update({k: v for k, v in self.cache_info.items() if k in allowed})
            body = ",".join(f'{k}="{v}"' for k, v in sorted(info.items()))
            add("vllm:cache_config_info", "gauge", f"vllm:cache_config_info{{{body}}} 1.0")
        out: list[str] = []
        for fam, (kind, lines) in fams.items():
            out.append(f"# TYPE {fam} {kind}")
            out.extend(lines)
        return "\n".join(out) + "\n"


def models_body(model_name: str, root: str, max_model_len: int, created: int) -> dict:
    return {"object": "list", "data": [{
        "id": model_name, "object": "model", "created": created, "owned_by": "vllm",
        "root": root, "parent": None, "max_model_len": max_model_len,
        "permission": [{"id": "modelperm-3f1c9a0d2b7e4c58", "object": "model_permission",
                        "created": created, "allow_create_engine": False,
                        "allow_sampling": True, "allow_logprobs": True,
                        "allow_search_indices": False, "allow_view": True,
                        "allow_fine_tuning": False, "organization": "*", "group": None,
                        "is_blocking": False}]}]}


def write_bundle(out: Path, cap: Capture, *, endpoint: str, notes: str, argv: list[str] | None,
                 args: dict, models: dict | None, logs: str | None = None,
                 model_config: dict | None = None, gpu: list[dict] | None = None,
                 failed_scrapes: dict[int, str] | None = None, health: int = 200) -> None:
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
                "endpoint": endpoint, "started_at": cap.t0,
                "ended_at": cap.t0 + cap.dt * (cap.n - 1), "interval_s": cap.dt, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for i in range(cap.n):
            t = round(cap.t0 + cap.dt * i + 0.013 * ((i * 7) % 5), 3)
            if failed_scrapes and i in failed_scrapes:
                f.write(json.dumps({"t": t, "error": failed_scrapes[i]}) + "\n")
                continue
            f.write(json.dumps({"t": t, "status": 200, "text": cap.exposition(i)}) + "\n")
    server = {"version": {"version": cap.vllm_version}, "models": models, "health": health}
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps({"argv": argv, "args": args}, indent=1)
                                          + "\n")
    if logs is not None:
        (out / "logs.txt").write_text(logs)
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with (out / "gpu.jsonl").open("w") as f:
            for rec in gpu:
                f.write(json.dumps(rec) + "\n")


# ---------------------------------------------------------------- series helpers
def cum(start: float, per_interval: list[float]) -> list[float]:
    """Cumulative counter values per scrape from per-interval increments (index 0 unused)."""
    out = [float(round(start))]
    for inc in per_interval[1:]:
        out.append(out[-1] + float(round(inc)))
    return out


def spread(total: float, shape: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Split ``total`` observations over (value, weight) points; counts are integers."""
    wsum = sum(w for _, w in shape)
    res: list[tuple[float, float]] = []
    acc = 0.0
    done = 0
    for v, w in shape:
        acc += total * w / wsum
        n = int(round(acc)) - done
        done += n
        if n:
            res.append((v, float(n)))
    return res
