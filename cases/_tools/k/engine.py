"""Small, deterministic request-level simulator and writer for kvdoctor.bundle/1 captures.

Copied from cases/_tools/b/engine.py (writer b) and extended for the h-* cases (copied from writer e): an engine id
(data-parallel engines behind one endpoint, merged by cases.py), multi-modal cache counters and
the "MM cache hit rate" part of the stats line. Every number in a bundle comes
from the list of simulated requests of its case (arrival, prompt length, prefix-cache hit tokens,
output length, queue/prefill/inter-token times), so counters, histograms, gauges and the stats
lines in logs.txt agree with each other.

Metric names, kinds and which families a release exports are taken from the project's
per-release table (kvdoctor/data/vllm_metrics.yaml, read through kvdoctor.vllm_metrics);
histogram bucket layouts and HELP strings of the V1 engine from the real vLLM 0.32 recording
(tests/data/vllm-0.32/). The V0 (0.6.x) families and their bucket layouts are written from
vllm/engine/metrics.py of the 0.6 line (see case.yaml of the V0 cases).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from kvdoctor.vllm_metrics import exported_names, metric_entry

ROOT = Path(__file__).resolve().parents[3]
REC_DIR = ROOT / "tests" / "data" / "vllm-0.32"


# --------------------------------------------------------------------------- requests


@dataclass
class Req:
    rid: str
    t_arrive: float
    prompt_len: int
    hit: int  # local prefix-cache hit tokens
    gen_len: int
    queue_s: float
    prefill_s: float
    itl_s: float
    max_tokens: int = 0
    finished_reason: str = "length"
    ext_query: int = 0  # tokens looked up in an external (connector) cache
    ext_hit: int = 0
    lora: str | None = None
    mm_items: int = 0  # multi-modal items looked up in the processor (MM) cache
    mm_hit_items: int = 0
    # filled in
    t_sched: float = 0.0
    t_first: float = 0.0
    t_end: float = 0.0

    def finish(self) -> "Req":
        self.t_sched = self.t_arrive + self.queue_s
        self.t_first = self.t_sched + self.prefill_s
        self.t_end = self.t_first + max(0, self.gen_len - 1) * self.itl_s
        if not self.max_tokens:
            self.max_tokens = self.gen_len
        return self

    def generated_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.gen_len
        return min(self.gen_len, 1 + int((t - self.t_first) / self.itl_s))


# --------------------------------------------------------------------------- helpers


def build_1_2_5(max_value: int) -> list[float]:
    out: list[float] = []
    e = 0
    while True:
        for m in (1, 2, 5):
            v = m * 10**e
            if v <= max_value:
                out.append(float(v))
            else:
                return out
        e += 1


def _rec_buckets() -> dict[str, list[float]]:
    text = (REC_DIR / "metrics-prefix-hits.txt").read_text()
    out: dict[str, list[float]] = {}
    for m in re.finditer(r'^(vllm:[a-z0-9_]+)_bucket\{[^}]*le="([^"]+)"', text, re.M):
        if m.group(2) != "+Inf":
            out.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: sorted(set(v)) for k, v in out.items()}


def _rec_help() -> dict[str, str]:
    helps: dict[str, str] = {}
    for p in sorted(REC_DIR.glob("metrics-*.txt")):
        for m in re.finditer(r"^# HELP (vllm:[a-z0-9_]+) (.*)$", p.read_text(), re.M):
            helps.setdefault(m.group(1), m.group(2))
    return helps


V1_BUCKETS = _rec_buckets()
V1_HELP = _rec_help()
V1_HELP.update(
    {
        "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.",
        "vllm:gpu_prefix_cache_queries_total": "GPU prefix cache queries, in terms of number of queried tokens. DEPRECATED: Use vllm:prefix_cache_queries instead.",
        "vllm:gpu_prefix_cache_hits_total": "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.",
        "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
        "vllm:lora_requests_info": "Running stats on lora requests.",
        "vllm:prompt_tokens_recomputed_total": "Number of cached tokens recomputed for forward pass.",
    }
)

# V0 (0.6.x) layouts from vllm/engine/metrics.py of that line.
V0_BUCKETS = {
    "vllm:time_to_first_token_seconds": [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0],
    "vllm:time_per_output_token_seconds": [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5],
    "vllm:e2e_request_latency_seconds": [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0],
    "vllm:request_params_n": [1.0, 2.0, 5.0, 10.0, 20.0],
}
V0_HELP = {
    "vllm:num_requests_running": "Number of requests currently running on GPU.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:num_requests_swapped": "Number of requests swapped to CPU.",
    "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:cpu_cache_usage_perc": "CPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:cpu_prefix_cache_hit_rate": "CPU prefix cache block hit rate.",
    "vllm:gpu_prefix_cache_hit_rate": "GPU prefix cache block hit rate.",
    "vllm:num_preemptions_total": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens_total": "Number of prefill tokens processed.",
    "vllm:generation_tokens_total": "Number of generation tokens processed.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:e2e_request_latency_seconds": "Histogram of end to end request latency in seconds.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_success_total": "Count of successfully processed requests.",
    "vllm:avg_prompt_throughput_toks_per_s": "Average prefill throughput in tokens/s.",
    "vllm:avg_generation_throughput_toks_per_s": "Average generation throughput in tokens/s.",
    "vllm:cache_config_info": "Information of the LLMEngine CacheConfig",
}


def num(v: float) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(float(v))
    return repr(float(v))


def lab(labels: dict[str, str]) -> str:
    return ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))


def hist_counts(values: list[float], buckets: list[float]) -> list[int]:
    return [sum(1 for x in values if x <= le) for le in buckets]


# --------------------------------------------------------------------------- state at time t


@dataclass
class Server:
    version: str  # the vLLM release of the incident
    table: str | None  # release of the name table to filter V1 families; None = V0 engine
    model_name: str
    max_model_len: int
    block_size: int
    num_gpu_blocks: int
    cache_labels: dict[str, str]
    start_time: float  # process start (for _created)
    pool_groups: int = 1  # KV cache groups sharing the block pool (hybrid models)
    lora: bool = False
    max_loras: int = 0
    interval_log_s: float = 10.0
    shared_prefix_blocks: int = 0  # blocks shared by concurrently running requests
    extra_gauges: dict[str, float] = field(default_factory=dict)
    engine_id: str = "0"
    preemptions: int = 0


class Sim:
    def __init__(self, srv: Server, reqs: list[Req]):
        self.srv = srv
        self.reqs = sorted((r.finish() for r in reqs), key=lambda r: r.t_arrive)
        # A request only waits while the engine is busy: one that arrives while nothing is running
        # is scheduled at once (keeps "Waiting: 1, Running: 0" states out of the capture).
        active: list[Req] = []
        for r in self.reqs:
            active = [q for q in active if q.t_end > r.t_arrive]
            busy = [q for q in active if q.t_sched <= r.t_arrive]
            if not busy:
                r.queue_s = min(r.queue_s, 0.008)
            else:  # never waits past the moment the engine runs dry
                r.queue_s = round(min(r.queue_s, max(q.t_end for q in busy) - r.t_arrive + 0.008), 4)
            r.finish()
            active.append(r)
        self.lora_seen: dict[tuple[str, str, str], float] = {}
        self._memo: dict[float, dict] = {}

    # cumulative values at time t ------------------------------------------------
    def at(self, t: float) -> dict:
        key = round(t, 3)
        if key not in self._memo:
            self._memo[key] = self._at(key)
        return self._memo[key]

    def _at(self, t: float) -> dict:
        s = self.srv
        sched = [r for r in self.reqs if r.t_sched <= t]
        first = [r for r in self.reqs if r.t_first <= t]
        done = [r for r in self.reqs if r.t_end <= t]
        running = [r for r in self.reqs if r.t_sched <= t < r.t_end]
        waiting = [r for r in self.reqs if r.t_arrive <= t < r.t_sched]
        blocks = 0
        for r in running:
            toks = r.prompt_len + r.generated_by(t)
            blocks += math.ceil(toks / s.block_size)
        if running and s.shared_prefix_blocks:
            blocks -= s.shared_prefix_blocks * (len(running) - 1)
        usage = min(1.0, blocks * s.pool_groups / max(1, s.num_gpu_blocks)) if running else 0.0
        gen = sum(r.generated_by(t) for r in self.reqs)
        itl_obs: list[float] = []
        for r in self.reqs:
            g = r.generated_by(t)
            if g > 1:
                itl_obs.extend([r.itl_s] * (g - 1))
        caching = s.cache_labels.get("enable_prefix_caching", "True") == "True"
        st = {
            # a disabled prefix cache is never queried: the counters stay at 0
            "queries": sum(r.prompt_len for r in sched) if caching else 0,
            "hits": sum(r.hit for r in sched) if caching else 0,
            "ext_queries": sum(r.ext_query for r in sched),
            "ext_hits": sum(r.ext_hit for r in sched),
            "mm_q": sum(r.mm_items for r in sched),
            "mm_h": sum(r.mm_hit_items for r in sched),
            "prompt_tokens": sum(r.prompt_len for r in first),
            "computed": sum(r.prompt_len - r.hit - r.ext_hit for r in first),
            "cached_local": sum(r.hit for r in first),
            "cached_ext": sum(r.ext_hit for r in first),
            "gen": gen,
            "running": len(running),
            "waiting": len(waiting),
            "usage": usage,
            "done": done,
            "first": first,
            "itl": itl_obs,
            "running_reqs": running,
            "waiting_reqs": waiting,
        }
        return st

    # exposition -------------------------------------------------------------------
    def exposition(self, t: float) -> str:
        if self.srv.table is None:
            return self._expo_v0(t)
        return self._expo_v1(t)

    def _expo_v1(self, t: float) -> str:
        s = self.srv
        have = exported_names(s.table)
        st = self.at(t)
        base = {"engine": s.engine_id, "model_name": s.model_name}
        L: list[str] = []
        created = s.start_time + 12.5

        def ok(name: str) -> bool:
            return name in have

        def gauge(name: str, value: float, extra: dict[str, str] | None = None, header=True):
            if header:
                L.append(f"# HELP {name} {V1_HELP.get(name, name)}")
                L.append(f"# TYPE {name} gauge")
            L.append(f"{name}{{{lab({**base, **(extra or {})})}}} {num(value)}")

        def counter(name: str, values: list[tuple[dict[str, str], float]]):
            wire = name + "_total"
            help_ = V1_HELP.get(wire, V1_HELP.get(name, name))
            L.append(f"# HELP {wire} {help_}")
            L.append(f"# TYPE {wire} counter")
            for extra, v in values:
                L.append(f"{wire}{{{lab({**base, **extra})}}} {num(v)}")
            L.append(f"# HELP {name}_created {help_}")
            L.append(f"# TYPE {name}_created gauge")
            for extra, _ in values:
                L.append(f"{name}_created{{{lab({**base, **extra})}}} {num(created)}")

        def histo(name: str, obs: list[float], buckets: list[float]):
            help_ = V1_HELP.get(name, name)
            L.append(f"# HELP {name} {help_}")
            L.append(f"# TYPE {name} histogram")
            for le, c in zip(buckets, hist_counts(obs, buckets)):
                L.append(f'{name}_bucket{{{lab({**base, "le": num(le)})}}} {num(c)}')
            L.append(f'{name}_bucket{{{lab({**base, "le": "+Inf"})}}} {num(len(obs))}')
            L.append(f"{name}_count{{{lab(base)}}} {num(len(obs))}")
            L.append(f"{name}_sum{{{lab(base)}}} {num(round(sum(obs), 6))}")
            L.append(f"# HELP {name}_created {help_}")
            L.append(f"# TYPE {name}_created gauge")
            L.append(f"{name}_created{{{lab(base)}}} {num(created)}")

        if ok("vllm:estimated_flops_per_gpu_total"):
            for n in ("flops", "read_bytes", "write_bytes"):
                counter(f"vllm:estimated_{n}_per_gpu", [({}, 0.0)])
        gauge("vllm:num_requests_running", st["running"])
        gauge("vllm:num_requests_waiting", st["waiting"])
        if ok("vllm:num_requests_waiting_by_reason"):
            L.append(f"# HELP vllm:num_requests_waiting_by_reason {V1_HELP['vllm:num_requests_waiting_by_reason']}")
            L.append("# TYPE vllm:num_requests_waiting_by_reason gauge")
            gauge("vllm:num_requests_waiting_by_reason", st["waiting"], {"reason": "capacity"}, header=False)
            gauge("vllm:num_requests_waiting_by_reason", 0, {"reason": "deferred"}, header=False)
        if ok("vllm:engine_sleep_state"):
            L.append(f"# HELP vllm:engine_sleep_state {V1_HELP['vllm:engine_sleep_state']}")
            L.append("# TYPE vllm:engine_sleep_state gauge")
            for k, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                gauge("vllm:engine_sleep_state", v, {"sleep_state": k}, header=False)
        if s.lora and ok("vllm:lora_requests_info"):
            self._lora_info(t, st, L)
        if ok("vllm:gpu_cache_usage_perc"):
            gauge("vllm:gpu_cache_usage_perc", round(st["usage"], 6))
        gauge("vllm:kv_cache_usage_perc", round(st["usage"], 6))
        if ok("vllm:gpu_prefix_cache_queries"):
            counter("vllm:gpu_prefix_cache_queries", [({}, st["queries"])])
            counter("vllm:gpu_prefix_cache_hits", [({}, st["hits"])])
        counter("vllm:prefix_cache_queries", [({}, st["queries"])])
        counter("vllm:prefix_cache_hits", [({}, st["hits"])])
        if ok("vllm:external_prefix_cache_queries"):
            counter("vllm:external_prefix_cache_queries", [({}, st["ext_queries"])])
            counter("vllm:external_prefix_cache_hits", [({}, st["ext_hits"])])
        if ok("vllm:mm_cache_queries"):
            counter("vllm:mm_cache_queries", [({}, st["mm_q"])])
            counter("vllm:mm_cache_hits", [({}, st["mm_h"])])
        counter("vllm:num_preemptions", [({}, float(s.preemptions))])
        counter("vllm:prompt_tokens", [({}, st["prompt_tokens"])])
        if ok("vllm:prompt_tokens_by_source"):
            counter(
                "vllm:prompt_tokens_by_source",
                [
                    ({"source": "local_compute"}, st["computed"]),
                    ({"source": "local_cache_hit"}, st["cached_local"]),
                    ({"source": "external_kv_transfer"}, st["cached_ext"]),
                ],
            )
        if ok("vllm:prompt_tokens_cached"):
            counter("vllm:prompt_tokens_cached", [({}, st["cached_local"] + st["cached_ext"])])
        if ok("vllm:prompt_tokens_recomputed"):
            counter("vllm:prompt_tokens_recomputed", [({}, 0.0)])
        counter("vllm:generation_tokens", [({}, st["gen"])])
        done = st["done"]
        reasons = ["stop", "length", "abort"]
        if ok("vllm:num_requests_waiting_by_reason"):
            reasons = ["stop", "length", "abort", "error"]
        counter(
            "vllm:request_success",
            [({"finished_reason": fr}, sum(1 for r in done if r.finished_reason == fr)) for fr in reasons],
        )
        mml = s.max_model_len
        tok_b = build_1_2_5(mml)
        histo("vllm:request_prompt_tokens", [r.prompt_len for r in done], tok_b)
        histo("vllm:request_generation_tokens", [r.gen_len for r in done], tok_b)
        histo("vllm:iteration_tokens_total", self._iteration_obs(t), V1_BUCKETS["vllm:iteration_tokens_total"])
        histo("vllm:request_max_num_generation_tokens", [r.max_tokens for r in done], tok_b)
        histo("vllm:request_params_n", [1.0 for _ in done], V1_BUCKETS["vllm:request_params_n"])
        histo("vllm:request_params_max_tokens", [r.max_tokens for r in done], tok_b)
        histo("vllm:time_to_first_token_seconds", [round(r.t_first - r.t_arrive, 4) for r in st["first"]], V1_BUCKETS["vllm:time_to_first_token_seconds"])
        itl_b = V1_BUCKETS["vllm:inter_token_latency_seconds"]
        if ok("vllm:time_per_output_token_seconds"):
            histo("vllm:time_per_output_token_seconds", st["itl"], itl_b)
        if ok("vllm:inter_token_latency_seconds"):
            histo("vllm:inter_token_latency_seconds", st["itl"], itl_b)
        if ok("vllm:request_time_per_output_token_seconds"):
            histo("vllm:request_time_per_output_token_seconds", [r.itl_s for r in done if r.gen_len > 1], itl_b)
        lat_b = V1_BUCKETS["vllm:e2e_request_latency_seconds"]
        histo("vllm:e2e_request_latency_seconds", [round(r.t_end - r.t_arrive, 4) for r in done], lat_b)
        histo("vllm:request_queue_time_seconds", [r.queue_s for r in done], lat_b)
        histo("vllm:request_inference_time_seconds", [round(r.t_end - r.t_sched, 4) for r in done], lat_b)
        histo("vllm:request_prefill_time_seconds", [r.prefill_s for r in done], lat_b)
        histo("vllm:request_decode_time_seconds", [round(r.t_end - r.t_first, 4) for r in done], lat_b)
        if ok("vllm:request_prefill_kv_computed_tokens"):
            histo("vllm:request_prefill_kv_computed_tokens", [r.prompt_len - r.hit - r.ext_hit for r in done], tok_b)
        # cache_config_info
        allowed = set(metric_entry(s.table, "vllm:cache_config_info").get("labels", []))
        labels = {k: v for k, v in s.cache_labels.items() if k in allowed}
        labels["engine"] = s.engine_id
        missing = allowed - set(labels)
        if missing:
            raise SystemExit(f"cache_config_info labels missing for {s.table}: {sorted(missing)}")
        L.append(f"# HELP vllm:cache_config_info {V1_HELP['vllm:cache_config_info']}")
        L.append("# TYPE vllm:cache_config_info gauge")
        L.append(f"vllm:cache_config_info{{{lab(labels)}}} 1.0")
        return "\n".join(L) + "\n"

    def _lora_info(self, t: float, st: dict, L: list[str]) -> None:
        # vllm:lora_requests_info is set_to_current_time() with the adapters as labels each time
        # stats are logged; every label combination seen stays in the registry.
        step = 1.0
        tt = max(self.srv.start_time + 60, t - 120.0)
        tt = self.srv.start_time + 60 + 4.0 * int((tt - self.srv.start_time - 60) / 4.0)
        while tt <= t:
            run = sorted({r.lora for r in self.at(tt)["running_reqs"] if r.lora})
            wait = sorted({r.lora for r in self.at(tt)["waiting_reqs"] if r.lora})
            key = (str(self.srv.max_loras), ",".join(run), ",".join(wait))
            self.lora_seen[key] = tt
            tt += step * 4
        L.append(f"# HELP vllm:lora_requests_info {V1_HELP['vllm:lora_requests_info']}")
        L.append("# TYPE vllm:lora_requests_info gauge")
        for (mx, run, wait), when in sorted(self.lora_seen.items(), key=lambda kv: kv[1])[-6:]:
            labels = {"max_lora": mx, "running_lora_adapters": run, "waiting_lora_adapters": wait}
            L.append(f"vllm:lora_requests_info{{{lab(labels)}}} {num(round(when, 3))}")

    def _iteration_obs(self, t: float) -> list[float]:
        # One engine step per decode step of the batch; prefill steps carry the prompt tokens.
        obs: list[float] = []
        for r in self.reqs:
            if r.t_first <= t:
                obs.append(float(min(r.prompt_len - r.hit - r.ext_hit, 8192)))
        # decode steps: approximate by the mean batch across the run so far
        dec = sum(max(0, r.generated_by(t) - 1) for r in self.reqs)
        if dec:
            # one constant mean decode batch per engine (over all its requests), so the counts only grow
            if not hasattr(self, "_mb"):
                end = max((r.t_end for r in self.reqs), default=self.srv.start_time)
                self._mb = self._mean_batch(end)
            steps = max(1, int(dec / self._mb))
            obs.extend([float(max(1, round(self._mb)))] * steps)
        return obs

    def _mean_batch(self, t: float) -> float:
        first = min((r.t_arrive for r in self.reqs), default=self.srv.start_time)
        a = self.srv.start_time + 60 + 20.0 * max(0, int((first - self.srv.start_time - 60) / 20.0))
        pts = [self.at(x)["running"] for x in _frange(a, t, 20.0)] or [1]
        return max(1.0, sum(pts) / len(pts))

    def _expo_v0(self, t: float) -> str:
        s = self.srv
        st = self.at(t)
        base = {"model_name": s.model_name}
        L: list[str] = []

        # The 0.6 OpenAI server runs prometheus_client in multiprocess mode (PROMETHEUS_MULTIPROC_DIR):
        # MultiProcessCollector writes every family with HELP "Multiprocess metric".
        def g(name: str, v: float):
            L.append(f"# HELP {name} Multiprocess metric")
            L.append(f"# TYPE {name} gauge")
            L.append(f"{name}{{{lab(base)}}} {num(v)}")

        def c(name: str, v: float):
            L.append(f"# HELP {name} Multiprocess metric")
            L.append(f"# TYPE {name} counter")
            L.append(f"{name}{{{lab(base)}}} {num(v)}")

        def h(name: str, obs: list[float], buckets: list[float]):
            L.append(f"# HELP {name} Multiprocess metric")
            L.append(f"# TYPE {name} histogram")
            for le, cnt in zip(buckets, hist_counts(obs, buckets)):
                L.append(f'{name}_bucket{{{lab({**base, "le": num(le)})}}} {num(cnt)}')
            L.append(f'{name}_bucket{{{lab({**base, "le": "+Inf"})}}} {num(len(obs))}')
            L.append(f"{name}_count{{{lab(base)}}} {num(len(obs))}")
            L.append(f"{name}_sum{{{lab(base)}}} {num(round(sum(obs), 6))}")

        # cache_config_info first, as the engine registers it at start-up
        L.append("# HELP vllm:cache_config_info Multiprocess metric")
        L.append("# TYPE vllm:cache_config_info gauge")
        L.append(f"vllm:cache_config_info{{{lab(s.cache_labels)}}} 1.0")
        g("vllm:num_requests_running", st["running"])
        g("vllm:num_requests_waiting", st["waiting"])
        g("vllm:num_requests_swapped", 0)
        g("vllm:gpu_cache_usage_perc", round(st["usage"], 6))
        g("vllm:cpu_cache_usage_perc", 0.0)
        enabled = s.cache_labels.get("enable_prefix_caching") == "True"
        # V0 block-level hit rate of the block manager, cumulative since start; -1 when off
        if enabled:
            q = st["queries"]
            rate = (st["hits"] / q) if q else 0.0
            g("vllm:cpu_prefix_cache_hit_rate", 0.0)
            g("vllm:gpu_prefix_cache_hit_rate", round(rate, 6))
        else:
            g("vllm:cpu_prefix_cache_hit_rate", -1.0)
            g("vllm:gpu_prefix_cache_hit_rate", -1.0)
        c("vllm:num_preemptions_total", 0)
        c("vllm:prompt_tokens_total", st["prompt_tokens"])
        c("vllm:generation_tokens_total", st["gen"])
        h("vllm:time_to_first_token_seconds", [round(r.t_first - r.t_arrive, 4) for r in st["first"]], V0_BUCKETS["vllm:time_to_first_token_seconds"])
        h("vllm:time_per_output_token_seconds", st["itl"], V0_BUCKETS["vllm:time_per_output_token_seconds"])
        done = st["done"]
        h("vllm:e2e_request_latency_seconds", [round(r.t_end - r.t_arrive, 4) for r in done], V0_BUCKETS["vllm:e2e_request_latency_seconds"])
        tok_b = build_1_2_5(s.max_model_len)
        h("vllm:request_prompt_tokens", [r.prompt_len for r in done], tok_b)
        h("vllm:request_generation_tokens", [r.gen_len for r in done], tok_b)
        h("vllm:request_params_n", [1.0 for _ in done], V0_BUCKETS["vllm:request_params_n"])
        name = "vllm:request_success_total"
        L.append(f"# HELP {name} Multiprocess metric")
        L.append(f"# TYPE {name} counter")
        for fr in ("length", "stop"):
            n = sum(1 for r in done if r.finished_reason == fr)
            if n:
                L.append(f"{name}{{{lab({**base, 'finished_reason': fr})}}} {num(n)}")
        pt, gt = self.throughput(t - 10.0, t)
        g("vllm:avg_prompt_throughput_toks_per_s", round(pt, 3))
        g("vllm:avg_generation_throughput_toks_per_s", round(gt, 3))
        return "\n".join(L) + "\n"

    # logging helpers ---------------------------------------------------------------
    def throughput(self, t0: float, t1: float) -> tuple[float, float]:
        a, b = self.at(t0), self.at(t1)
        dt = max(1e-9, t1 - t0)
        return (b["prompt_tokens"] - a["prompt_tokens"]) / dt, (b["gen"] - a["gen"]) / dt

    def window_hit_rate(self, t: float, n: int = 1000) -> float:
        """The logged hit rate: token-weighted over the last <= n scheduled requests."""
        sched = [r for r in self.reqs if r.t_sched <= t][-n:]
        q = sum(r.prompt_len for r in sched)
        return 100.0 * sum(r.hit for r in sched) / q if q else 0.0

    def window_mm_hit_rate(self, t: float, n: int = 1000) -> float:
        sched = [r for r in self.reqs if r.t_sched <= t][-n:]
        q = sum(r.mm_items for r in sched)
        return 100.0 * sum(r.mm_hit_items for r in sched) / q if q else 0.0

    def window_ext_hit_rate(self, t: float, n: int = 1000) -> float:
        sched = [r for r in self.reqs if r.t_sched <= t][-n:]
        q = sum(r.ext_query for r in sched)
        return 100.0 * sum(r.ext_hit for r in sched) / q if q else 0.0


def _frange(a: float, b: float, step: float):
    x = a
    while x <= b:
        yield x
        x += step


# --------------------------------------------------------------------------- writing


def ts(t: float) -> str:
    """vLLM's log time stamp: MM-DD HH:MM:SS (UTC here)."""
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def epoch(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0) -> float:
    return _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc).timestamp()


def write_bundle(
    out: Path,
    sim: Sim,
    *,
    t0: float,
    n: int,
    interval: float,
    endpoint: str,
    notes: str,
    version_body: dict,
    models_body: dict | None,
    argv: list[str] | None,
    args: dict,
    model_config: dict | None,
    gpus: list[dict] | None,
    logs: str | None,
    failed: dict[int, str] | None = None,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "schema": "kvdoctor.bundle/1",
        "created_by": "kvdoctor 0.2.0",
        "endpoint": endpoint,
        "started_at": round(t0, 3),
        "ended_at": round(t0 + interval * (n - 1), 3),
        "interval_s": interval,
        "notes": notes,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for i in range(n):
            t = t0 + interval * i
            if failed and i in failed:
                f.write(json.dumps({"t": round(t, 3), "error": failed[i]}) + "\n")
                continue
            f.write(json.dumps({"t": round(t, 3), "status": 200, "text": sim.exposition(t)}) + "\n")
    server = {"version": version_body, "models": models_body, "health": 200}
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps({"argv": argv, "args": args}, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpus is not None:
        with (out / "gpu.jsonl").open("w") as f:
            for i in range(0, n, 2):
                t = t0 + interval * i
                f.write(json.dumps({"t": round(t, 3), "devices": gpus}) + "\n")
    if logs is not None:
        (out / "logs.txt").write_text(logs)


def models_body(served: str, root: str, max_model_len: int, created: int, lora: list[tuple[str, str]] | None = None) -> dict:
    data = [
        {
            "id": served,
            "object": "model",
            "created": created,
            "owned_by": "vllm",
            "root": root,
            "parent": None,
            "max_model_len": max_model_len,
            "permission": [
                {
                    "id": "modelperm-" + hashlib.sha1(f"{served}{created}".encode()).hexdigest()[:32],
                    "object": "model_permission",
                    "created": created,
                    "allow_create_engine": False,
                    "allow_sampling": True,
                    "allow_logprobs": True,
                    "allow_search_indices": False,
                    "allow_view": True,
                    "allow_fine_tuning": False,
                    "organization": "*",
                    "group": None,
                    "is_blocking": False,
                }
            ],
        }
    ]
    for name, path in lora or []:
        data.append(
            {
                "id": name,
                "object": "model",
                "created": created,
                "owned_by": "vllm",
                "root": path,
                "parent": served,
                "max_model_len": None,
                "permission": data[0]["permission"],
            }
        )
    return {"object": "list", "data": data}


def stats_lines(sim: Sim, t_from: float, t_to: float, fmt: str, prefix: str, step: float = 10.0) -> list[tuple[float, str]]:
    """Periodic stats lines of the engine in the release's format.

    fmt: 'v0' (0.6.x metrics.py lines), 'v1' (Engine 000 lines with GPU KV cache usage and the
    windowed prefix hit rate), 'v1ext' (also External prefix cache hit rate).
    """
    out: list[tuple[float, str]] = []
    t = t_from
    while t <= t_to:
        pt, gt = sim.throughput(t - step, t)
        st = sim.at(t)
        if fmt.startswith("v0"):
            line = (
                f"INFO {ts(t)} metrics.py:{fmt[3:] or '345'}] Avg prompt throughput: {pt:.1f} tokens/s, "
                f"Avg generation throughput: {gt:.1f} tokens/s, Running: {st['running']} reqs, "
                f"Swapped: 0 reqs, Pending: {st['waiting']} reqs, GPU KV cache usage: {100*st['usage']:.1f}%, "
                f"CPU KV cache usage: 0.0%."
            )
            out.append((t, line))
            if sim.srv.cache_labels.get("enable_prefix_caching") == "True":
                q, h = st["queries"], st["hits"]
                out.append((t, f"INFO {ts(t)} metrics.py:{int(fmt[3:] or 345) + 16}] Prefix cache hit rate: GPU: {100*h/q if q else 0:.2f}%, CPU: 0.00%"))
        else:
            line = (
                f"{prefix}INFO {ts(t)} [{sim.srv.extra_gauges.get('_loggers_ref', 'loggers.py:127')}] Engine {int(sim.srv.engine_id):03d}: "
                f"Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                f"Running: {st['running']} reqs, Waiting: {st['waiting']} reqs, GPU KV cache usage: "
                f"{100*st['usage']:.1f}%, Prefix cache hit rate: {sim.window_hit_rate(t):.1f}%"
            )
            if fmt == "v1ext":
                line += f", External prefix cache hit rate: {sim.window_ext_hit_rate(t):.1f}%"
            if fmt == "v1mm":
                line += f", MM cache hit rate: {sim.window_mm_hit_rate(t):.1f}%"
            out.append((t, line))
        t += step
    return out


def gpu_devices(name: str, total_mib: int, used_mib: list[int], pids: list[tuple[int, str, int]] | None = None) -> list[dict]:
    devs = []
    for i, u in enumerate(used_mib):
        procs = []
        if pids:
            pid, pname, pm = pids[i]
            procs = [{"pid": pid, "name": pname, "used_memory": pm * 1024 * 1024}]
        devs.append(
            {
                "index": i,
                "name": name,
                "memory_total": total_mib * 1024 * 1024,
                "memory_used": u * 1024 * 1024,
                "processes": procs,
            }
        )
    return devs
