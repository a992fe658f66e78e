"""Self-contained bundle writer for the n-* cases (kvdoctor.bundle/1).

Written from scratch for writer n: it imports nothing from the kvdoctor package and reads no
test data. Metric names, HELP strings and bucket layouts are those of vllm/v1/metrics/loggers.py
of the 0.10 line (read through the search tool); the 2026-era profile ("new") drops the
deprecated gpu_* families, splits time_per_output_token into request_time_per_output_token /
inter_token_latency and adds the connector / offload / spec-decode counters named in the
incident threads. Every number comes from a list of simulated requests, so counters, histograms,
gauges and the stats lines in logs.txt agree.
"""
from __future__ import annotations

import json
import math
import random
import time as _time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Req:
    rid: str
    t_arrive: float
    prompt_len: int
    hit: int
    gen_len: int
    queue_s: float
    prefill_s: float
    itl_s: float
    max_tokens: int = 0
    lora: str | None = None
    ext_query: int = 0
    ext_hit: int = 0
    finished_reason: str = "length"

    def __post_init__(self):
        self.t_sched = self.t_arrive + self.queue_s
        self.t_first = self.t_sched + self.prefill_s
        self.t_end = self.t_first + max(0, self.gen_len - 1) * self.itl_s
        if not self.max_tokens:
            self.max_tokens = self.gen_len

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.gen_len
        return min(self.gen_len, 1 + int((t - self.t_first) / self.itl_s))


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def fnum(v):
    v = float(v)
    if v.is_integer() and abs(v) < 1e16:
        return f"{v:.1f}"
    return repr(v)


@dataclass
class Server:
    version: str
    profile: str  # "v010" or "new"
    model: str
    max_model_len: int
    block_size: int
    num_gpu_blocks: int
    cache_labels: dict
    start_time: float
    lora_max: int = 0
    connector: bool = False
    offload_bytes_per_token: float = 0.0
    spec_k: int = 0
    spec_accept: float = 0.0
    base: dict = field(default_factory=dict)  # counter offsets
    kv_usage_fn: object = None
    log_lines_fn: object = None


class Expo:
    def __init__(self):
        self.lines = []

    def fam(self, name, typ, helptext):
        self.lines.append(f"# HELP {name} {helptext}")
        self.lines.append(f"# TYPE {name} {typ}")

    def s(self, name, labels, v):
        lab = ",".join(f'{k}="{val}"' for k, val in labels.items())
        self.lines.append(f"{name}{{{lab}}} {fnum(v)}")

    def counter(self, name, helptext, labels, v, created):
        self.fam(name, "counter", helptext)
        self.s(name + "_total", labels, v)
        self.s(name + "_created", labels, created)

    def gauge(self, name, helptext, labels, v):
        self.fam(name, "gauge", helptext)
        self.s(name, labels, v)

    def hist(self, name, helptext, labels, values, buckets, created):
        self.fam(name, "histogram", helptext)
        for le in buckets:
            self.s(name + "_bucket", {**labels, "le": fnum(le)}, sum(1 for x in values if x <= le))
        self.s(name + "_bucket", {**labels, "le": "+Inf"}, len(values))
        self.s(name + "_count", labels, len(values))
        self.s(name + "_sum", labels, sum(values))
        self.s(name + "_created", labels, created)

    def text(self):
        return "\n".join(self.lines) + "\n"


def kv_usage(srv, reqs, t):
    if srv.kv_usage_fn:
        return srv.kv_usage_fn(t)
    blocks = 0
    for r in reqs:
        if r.t_sched <= t < r.t_end:
            blocks += math.ceil((r.prompt_len + r.gen_by(t)) / srv.block_size)
    return min(1.0, blocks / srv.num_gpu_blocks)


def scrape(srv, reqs, t):
    L = {"engine": "0", "model_name": srv.model}
    c = srv.start_time + 1.5
    sched = [r for r in reqs if r.t_sched <= t]
    done = [r for r in reqs if r.t_end <= t]
    firsted = [r for r in reqs if r.t_first <= t]
    running = sum(1 for r in reqs if r.t_sched <= t < r.t_end)
    waiting = sum(1 for r in reqs if r.t_arrive <= t < r.t_sched)
    usage = kv_usage(srv, reqs, t)
    q = srv.base.get("queries", 0) + sum(r.prompt_len for r in sched)
    h = srv.base.get("hits", 0) + sum(r.hit for r in sched)
    ptoks = srv.base.get("prompt", 0) + sum(r.prompt_len for r in firsted)
    gtoks = srv.base.get("gen", 0) + sum(r.gen_by(t) for r in reqs)
    e = Expo()
    e.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", L, running)
    e.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", L, waiting)
    if srv.profile == "v010":
        e.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", L, usage)
        e.counter("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", L, q, c)
        e.counter("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", L, h, c)
    e.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", L, usage)
    e.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", L, q, c)
    e.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", L, h, c)
    if srv.connector:
        eq = srv.base.get("ext_queries", 0) + sum(r.ext_query for r in sched)
        eh = srv.base.get("ext_hits", 0) + sum(r.ext_hit for r in sched)
        e.counter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.", L, eq, c)
        e.counter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.", L, eh, c)
    if srv.offload_bytes_per_token:
        stored = srv.base.get("store_bytes", 0) + sum((r.prompt_len - r.hit - r.ext_hit) * srv.offload_bytes_per_token for r in firsted)
        loaded = srv.base.get("load_bytes", 0) + sum(r.ext_hit * srv.offload_bytes_per_token for r in firsted)
        e.counter("vllm:kv_offload_store_bytes", "Number of bytes stored by the KV offloading connector (GPU to CPU).", L, int(stored), c)
        e.counter("vllm:kv_offload_load_bytes", "Number of bytes loaded by the KV offloading connector (CPU to GPU).", L, int(loaded), c)
    e.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", L, 0, c)
    e.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", L, ptoks, c)
    e.counter("vllm:generation_tokens", "Number of generation tokens processed.", L, gtoks, c)
    if srv.spec_k:
        steps = sum(max(0, r.gen_by(t) - 1) for r in reqs) / (1 + srv.spec_k * srv.spec_accept) + srv.base.get("drafts", 0)
        e.counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", L, int(steps), c)
        e.counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", L, int(steps * srv.spec_k), c)
        e.counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", L, int(steps * srv.spec_k * srv.spec_accept), c)
    e.fam("vllm:request_success", "counter", "Count of successfully processed requests.")
    for reason in ("stop", "length", "abort"):
        n = srv.base.get("success_" + reason, 0) + sum(1 for r in done if r.finished_reason == reason)
        e.s("vllm:request_success_total", {**L, "finished_reason": reason}, n)
    for reason in ("stop", "length", "abort"):
        e.s("vllm:request_success_created", {**L, "finished_reason": reason}, c)
    mml = srv.max_model_len
    e.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", L, [r.prompt_len for r in done], b125(mml), c)
    e.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", L, [r.gen_len for r in done], b125(mml), c)
    iters = []
    for r in firsted:
        iters.append(r.prompt_len - r.hit)
    e.hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", L, iters, ITER_B, c)
    e.hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", L, [r.max_tokens for r in done], b125(mml), c)
    e.hist("vllm:request_params_n", "Histogram of the n request parameter.", L, [1 for r in done], [1, 2, 5, 10, 20], c)
    e.hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", L, [r.max_tokens for r in done], b125(mml), c)
    e.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", L, [r.t_first - r.t_arrive for r in firsted], TTFT_B, c)
    itl_vals = []
    for r in reqs:
        itl_vals += [r.itl_s] * max(0, r.gen_by(t) - 1)
    if srv.profile == "v010":
        e.hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", L, itl_vals, TPOT_B, c)
    else:
        e.hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", L, itl_vals, TPOT_B, c)
        e.hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", L, [r.itl_s for r in done], TPOT_B, c)
    e.hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", L, [r.t_end - r.t_arrive for r in done], LAT_B, c)
    e.hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", L, [r.queue_s for r in done], LAT_B, c)
    e.hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", L, [r.t_end - r.t_sched for r in done], LAT_B, c)
    e.hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", L, [r.prefill_s for r in done], LAT_B, c)
    e.hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", L, [r.t_end - r.t_first for r in done], LAT_B, c)
    if srv.lora_max:
        e.fam("vllm:lora_requests_info", "gauge", "Running stats on lora requests.")
        seen = {}
        for r in firsted:
            key = r.lora or ""
            seen[key] = max(seen.get(key, 0), min(t, r.t_end))
        seen.setdefault("", srv.start_time + 60)
        for key, ts in sorted(seen.items()):
            e.s("vllm:lora_requests_info", {"max_lora": str(srv.lora_max), "running_lora_adapters": key, "waiting_lora_adapters": ""}, round(ts, 3))
    e.fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    e.s("vllm:cache_config_info", {**{k: str(v) for k, v in sorted(srv.cache_labels.items())}, "engine": "0"}, 1)
    return e.text()


def hit_rate_window(reqs, t, n=1000):
    s = [r for r in reqs if r.t_sched <= t][-n:]
    q = sum(r.prompt_len for r in s)
    return 100.0 * sum(r.hit for r in s) / q if q else 0.0


def ext_rate_window(reqs, t, n=1000):
    s = [r for r in reqs if r.t_sched <= t][-n:]
    q = sum(r.ext_query for r in s)
    return 100.0 * sum(r.ext_hit for r in s) / q if q else 0.0


def stamp(t):
    return _time.strftime("%m-%d %H:%M:%S", _time.gmtime(t))


def stat_lines(srv, reqs, t0, t1, prefix="(APIServer pid=1) ", every=10.0):
    out = []
    t = t0 + every
    while t <= t1:
        pt = sum(r.prompt_len for r in reqs if t - every < r.t_first <= t) / every
        gt = (sum(r.gen_by(t) for r in reqs) - sum(r.gen_by(t - every) for r in reqs)) / every
        running = sum(1 for r in reqs if r.t_sched <= t < r.t_end)
        waiting = sum(1 for r in reqs if r.t_arrive <= t < r.t_sched)
        line = (f"{prefix}INFO {stamp(t)} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                f"Avg generation throughput: {gt:.1f} tokens/s, Running: {running} reqs, Waiting: {waiting} reqs, "
                f"GPU KV cache usage: {100*kv_usage(srv, reqs, t):.1f}%, Prefix cache hit rate: {hit_rate_window(reqs, t):.1f}%")
        if srv.connector:
            line += f", External prefix cache hit rate: {ext_rate_window(reqs, t):.1f}%"
        if pt or gt:
            out.append((t, line))
        t += every
    return out


def write_bundle(dirpath: Path, srv: Server, reqs, t0, t1, interval, argv, args, logs_head, extra_logs, model_config=None, gpu=None, notes=""):
    dirpath.mkdir(parents=True, exist_ok=True)
    reqs = sorted(reqs, key=lambda r: r.t_arrive)
    with open(dirpath / "metrics.jsonl", "w") as f:
        t = t0
        while t <= t1 + 1e-6:
            f.write(json.dumps({"t": round(t, 3), "status": 200, "text": scrape(srv, reqs, t)}) + "\n")
            t += interval
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:8000",
           "started_at": round(t0, 3), "ended_at": round(t1, 3), "interval_s": float(interval), "notes": notes}
    (dirpath / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    server = {"version": {"version": srv.version},
              "models": {"object": "list", "data": [{"id": srv.model, "object": "model", "owned_by": "vllm", "root": args.get("model", srv.model), "max_model_len": srv.max_model_len}]
                         + ([{"id": srv.lora_name, "object": "model", "owned_by": "vllm", "root": srv.lora_path, "parent": srv.model, "max_model_len": None}] if getattr(srv, "lora_name", None) else [])},
              "health": 200}
    (dirpath / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (dirpath / "engine_args.json").write_text(json.dumps({"argv": argv, "args": args}, indent=1) + "\n")
    if model_config:
        (dirpath / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        with open(dirpath / "gpu.jsonl", "w") as f:
            t = t0
            while t <= t1 + 1e-6:
                f.write(json.dumps({"t": round(t, 3), "devices": gpu(t)}) + "\n")
                t += interval
    lines = list(extra_logs) + stat_lines(srv, reqs, t0 - 60, t1)
    lines.sort(key=lambda x: x[0])
    (dirpath / "logs.txt").write_text("\n".join(logs_head + [l for _, l in lines]) + "\n")
