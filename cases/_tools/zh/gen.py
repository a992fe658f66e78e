"""Writer zh's kvdoctor.bundle/1 writer (round 9), adapted from cases/_tools/zd/gen.py
(itself from r/gen.py). Self-contained: no import of the project package, no test data.

Changes against zd: one family set for the V1 releases of late 2025 - 2026 (kv_cache_usage_perc,
prefix/external/mm cache counters, prompt_tokens_by_source/cached/recomputed,
request_prefill_kv_computed_tokens, no time_per_output_token_seconds), a request-level
`ext` (tokens received over a KV connector) and optional NIXL connector metrics
(vllm:nixl_* histograms/counters as in the NIXL connector's NixlPromMetrics), and a
step model for vllm:iteration_tokens_total that honours the token budget (a long prompt is
chunked into budget-sized steps). Every number derives from one list of simulated requests.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

LAT_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
               120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
               10.0, 20.0, 40.0, 80.0]
ITER_BUCKETS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_BUCKETS = [1, 2, 5, 10, 20]
_NB = [0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0]
NIXL_XFER_BUCKETS = _NB[1:]
NIXL_POST_BUCKETS = _NB
NIXL_BYTES_BUCKETS = [2 ** (10 + i) for i in range(1, 25, 2)]
NIXL_DESC_BUCKETS = [10, 20, 30, 50, 75, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 50000]


def b125(maxv: int) -> list[float]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(float(v))
        e += 1


@dataclass
class Req:
    t_arrive: float
    prompt: int
    hit: int
    gen: int
    queue: float
    prefill: float
    itl: float
    ext: int = 0                 # prompt tokens received from a remote prefill (KV connector)
    reason: str = "stop"
    max_tokens: int = 1024
    xfer: list | None = None     # one {"dur","post","bytes","descs"} per TP rank for a NIXL pull

    @property
    def t_sched(self):
        return self.t_arrive + self.queue

    @property
    def t_first(self):
        return self.t_sched + self.prefill

    @property
    def t_end(self):
        return self.t_first + max(0, self.gen - 1) * self.itl

    @property
    def computed(self):
        return self.prompt - self.hit - self.ext

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.gen
        return min(self.gen, 1 + int((t - self.t_first) / self.itl))


HELP = {
    "vllm:num_requests_running": ("gauge", "Number of requests in model execution batches."),
    "vllm:num_requests_waiting": ("gauge", "Number of requests waiting to be processed."),
    "vllm:kv_cache_usage_perc": ("gauge", "KV-cache usage. 1 means 100 percent usage."),
    "vllm:prefix_cache_queries": ("counter", "Prefix cache queries, in terms of number of queried tokens."),
    "vllm:prefix_cache_hits": ("counter", "Prefix cache hits, in terms of number of cached tokens."),
    "vllm:external_prefix_cache_queries": ("counter", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens."),
    "vllm:external_prefix_cache_hits": ("counter", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens."),
    "vllm:mm_cache_queries": ("counter", "Multi-modal cache queries, in terms of number of queried items."),
    "vllm:mm_cache_hits": ("counter", "Multi-modal cache hits, in terms of number of cached items."),
    "vllm:num_preemptions": ("counter", "Cumulative number of preemption from the engine."),
    "vllm:prompt_tokens": ("counter", "Number of prefill tokens processed."),
    "vllm:prompt_tokens_by_source": ("counter", "Number of prompt tokens by source."),
    "vllm:prompt_tokens_cached": ("counter", "Number of cached prompt tokens (local + external)."),
    "vllm:prompt_tokens_recomputed": ("counter", "Number of cached tokens recomputed for forward pass."),
    "vllm:generation_tokens": ("counter", "Number of generation tokens processed."),
    "vllm:request_success": ("counter", "Count of successfully processed requests."),
    "vllm:request_prompt_tokens": ("histogram", "Number of prefill tokens processed."),
    "vllm:request_generation_tokens": ("histogram", "Number of generation tokens processed."),
    "vllm:iteration_tokens_total": ("histogram", "Histogram of number of tokens per engine_step."),
    "vllm:request_max_num_generation_tokens": ("histogram", "Histogram of maximum number of requested generation tokens."),
    "vllm:request_params_n": ("histogram", "Histogram of the n request parameter."),
    "vllm:request_params_max_tokens": ("histogram", "Histogram of the max_tokens request parameter."),
    "vllm:time_to_first_token_seconds": ("histogram", "Histogram of time to first token in seconds."),
    "vllm:inter_token_latency_seconds": ("histogram", "Histogram of inter-token latency in seconds."),
    "vllm:request_time_per_output_token_seconds": ("histogram", "Histogram of time_per_output_token_seconds per request."),
    "vllm:e2e_request_latency_seconds": ("histogram", "Histogram of e2e request latency in seconds."),
    "vllm:request_queue_time_seconds": ("histogram", "Histogram of time spent in WAITING phase for request."),
    "vllm:request_inference_time_seconds": ("histogram", "Histogram of time spent in RUNNING phase for request."),
    "vllm:request_prefill_time_seconds": ("histogram", "Histogram of time spent in PREFILL phase for request."),
    "vllm:request_decode_time_seconds": ("histogram", "Histogram of time spent in DECODE phase for request."),
    "vllm:request_prefill_kv_computed_tokens": ("histogram", "Histogram of new KV tokens computed during prefill (excluding cached tokens)."),
    "vllm:nixl_xfer_time_seconds": ("histogram", "Histogram of transfer duration for NIXL KV Cache transfers."),
    "vllm:nixl_post_time_seconds": ("histogram", "Histogram of transfer post time for NIXL KV Cache transfers."),
    "vllm:nixl_bytes_transferred": ("histogram", "Histogram of bytes transferred per NIXL KV Cache transfers."),
    "vllm:nixl_num_descriptors": ("histogram", "Histogram of number of descriptors per NIXL  KV Cache transfers."),
    "vllm:nixl_num_failed_transfers": ("counter", "Number of failed NIXL KV Cache transfers."),
    "vllm:nixl_num_failed_notifications": ("counter", "Number of failed NIXL KV Cache notifications."),
}


def fmt(v: float) -> str:
    if isinstance(v, int) or float(v).is_integer():
        return f"{float(v):.1f}"
    return repr(round(float(v), 6))


class Scenario:
    def __init__(self, *, model, version, max_model_len, pool_tokens, block_size, cache_labels,
                 reqs, t0, window, interval, budget=8192, prefill_tps=20000.0, decode_step_s=0.02,
                 engine="0", nixl=False, t_start=None):
        self.model, self.version = model, version
        self.mml, self.pool, self.bs = max_model_len, pool_tokens, block_size
        self.cache_labels = cache_labels
        self.reqs = sorted(reqs, key=lambda r: r.t_arrive)
        self.t0, self.window, self.interval = t0, window, interval
        self.budget, self.prefill_tps, self.decode_step_s = budget, prefill_tps, decode_step_s
        self.engine, self.nixl = engine, nixl
        self.t_start = t_start if t_start is not None else t0 - 1800.0
        self.tok_b = b125(max_model_len)
        self._steps = None

    # ------------------------------------------------------------------ metrics
    def lab(self, extra: str = "") -> str:
        s = f'engine="{self.engine}",model_name="{self.model}"'
        return "{" + s + ("," + extra if extra else "") + "}"

    def created(self, lines, full, help_, rows=None):
        lines.append(f"# HELP {full}_created {help_}")
        lines.append(f"# TYPE {full}_created gauge")
        for lbl in (rows or [""]):
            lines.append(f"{full}_created{self.lab(lbl)} {self.t_start!r}")

    def hist(self, lines, name, buckets, values, weights=None):
        typ, help_ = HELP[name]
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} histogram")
        weights = weights or [1] * len(values)
        pairs = sorted(zip(values, weights))
        i, c = 0, 0.0
        for le in buckets:
            while i < len(pairs) and pairs[i][0] <= le:
                c += pairs[i][1]
                i += 1
            lb = self.lab("le=" + json.dumps(fmt(le)))
            lines.append(f"{name}_bucket{lb} {fmt(c)}")
        tot = sum(weights)
        s = sum(v * w for v, w in zip(values, weights))
        inf = self.lab('le="+Inf"')
        lines.append(f"{name}_bucket{inf} {fmt(tot)}")
        lines.append(f"{name}_count{self.lab()} {fmt(tot)}")
        lines.append(f"{name}_sum{self.lab()} {fmt(s)}")
        self.created(lines, name, help_)

    def scalar(self, lines, name, value, extra_rows=None):
        typ, help_ = HELP[name]
        full = name + ("_total" if typ == "counter" else "")
        lines.append(f"# HELP {full} {help_}")
        lines.append(f"# TYPE {full} {typ}")
        if extra_rows:
            for lbl, v in extra_rows:
                lines.append(f"{full}{self.lab(lbl)} {fmt(v)}")
        else:
            lines.append(f"{full}{self.lab()} {fmt(value)}")
        if typ == "counter":
            self.created(lines, name, help_, [l for l, _ in extra_rows] if extra_rows else None)

    def state(self, t):
        sched = [r for r in self.reqs if r.t_sched <= t]
        done = [r for r in self.reqs if r.t_end <= t]
        running = [r for r in self.reqs if r.t_sched <= t < r.t_end]
        waiting = [r for r in self.reqs if r.t_arrive <= t < r.t_sched]
        first = [r for r in self.reqs if r.t_first <= t]
        return sched, done, running, waiting, first

    def kv_usage(self, running, t):
        used = 0
        for r in running:
            if t < r.t_first and r.ext == 0:   # chunked prefill: KV grows with the computed share
                frac = (t - r.t_sched) / max(r.prefill, 1e-6)
                toks = r.hit + int(frac * r.computed)
            else:
                toks = r.prompt + r.gen_by(t)
            used += math.ceil(toks / self.bs) * self.bs
        return min(1.0, used / self.pool)

    def steps(self):
        """(end time, tokens in step, number of such steps) per 1-s slice: prefill work is cut into
        budget-sized steps at prefill_tps, the rest of the slice is decode steps of decode_step_s."""
        if self._steps is None:
            out = []
            tt = self.t0 - 900.0
            end = self.t0 + self.window + 1
            while tt < end:
                b = tt + 1.0
                pre = 0.0
                for r in self.reqs:
                    a0, a1 = max(tt, r.t_sched), min(b, r.t_first)
                    if a1 > a0 and r.prefill > 0:
                        pre += (r.computed if r.ext == 0 else 1) * (a1 - a0) / r.prefill
                dec_running = sum(1 for r in self.reqs if r.t_first <= b and r.t_end > tt)
                if pre > 0:
                    n_pre = max(1, math.ceil(pre / self.budget))
                    out.append((b, min(self.budget, pre / n_pre + dec_running), n_pre))
                    busy = pre / self.prefill_tps
                else:
                    busy = 0.0
                if dec_running:
                    n_dec = max(0, int((1.0 - min(1.0, busy)) / self.decode_step_s))
                    if n_dec:
                        out.append((b, float(dec_running), n_dec))
                tt = b
            self._steps = out
        return self._steps

    def text(self, t):
        sched, done, running, waiting, first = self.state(t)
        L: list[str] = []
        self.scalar(L, "vllm:num_requests_running", len(running))
        self.scalar(L, "vllm:num_requests_waiting", len(waiting))
        self.scalar(L, "vllm:kv_cache_usage_perc", self.kv_usage(running, t))
        q = sum(r.prompt for r in sched)
        h = sum(r.hit for r in sched)
        ext = sum(r.ext for r in sched)
        self.scalar(L, "vllm:prefix_cache_queries", q)
        self.scalar(L, "vllm:prefix_cache_hits", h)
        self.scalar(L, "vllm:external_prefix_cache_queries", q if self.nixl else 0)
        self.scalar(L, "vllm:external_prefix_cache_hits", ext)
        self.scalar(L, "vllm:mm_cache_queries", 0)
        self.scalar(L, "vllm:mm_cache_hits", 0)
        self.scalar(L, "vllm:num_preemptions", 0)
        # V1 counts a request's prompt tokens when its prefill completes (first token)
        fq = sum(r.prompt for r in first)
        fh = sum(r.hit for r in first)
        fe = sum(r.ext for r in first)
        self.scalar(L, "vllm:prompt_tokens", fq)
        self.scalar(L, "vllm:prompt_tokens_by_source", None, [
            ('source="local_compute"', fq - fh - fe), ('source="local_cache_hit"', fh),
            ('source="external_kv_transfer"', fe)])
        self.scalar(L, "vllm:prompt_tokens_cached", fh + fe)
        self.scalar(L, "vllm:prompt_tokens_recomputed", 0)
        self.scalar(L, "vllm:generation_tokens", sum(r.gen_by(t) for r in self.reqs))
        rows = [(f'finished_reason="{x}"', sum(1 for r in done if r.reason == x))
                for x in ("stop", "length", "abort", "error")]
        self.scalar(L, "vllm:request_success", None, rows)
        self.hist(L, "vllm:request_prompt_tokens", self.tok_b, [r.prompt for r in done])
        self.hist(L, "vllm:request_generation_tokens", self.tok_b, [r.gen for r in done])
        st = [(v, w) for b, v, w in self.steps() if b <= t]
        self.hist(L, "vllm:iteration_tokens_total", ITER_BUCKETS, [v for v, _ in st], [w for _, w in st])
        self.hist(L, "vllm:request_max_num_generation_tokens", self.tok_b, [r.max_tokens for r in done])
        self.hist(L, "vllm:request_params_n", N_BUCKETS, [1 for r in done])
        self.hist(L, "vllm:request_params_max_tokens", self.tok_b, [r.max_tokens for r in done])
        self.hist(L, "vllm:time_to_first_token_seconds", TTFT_BUCKETS, [r.t_first - r.t_arrive for r in first])
        itl_v = [r.itl for r in self.reqs if r.gen_by(t) > 1]
        itl_w = [r.gen_by(t) - 1 for r in self.reqs if r.gen_by(t) > 1]
        self.hist(L, "vllm:inter_token_latency_seconds", ITL_BUCKETS, itl_v, itl_w)
        self.hist(L, "vllm:request_time_per_output_token_seconds", ITL_BUCKETS, [r.itl for r in done])
        self.hist(L, "vllm:e2e_request_latency_seconds", LAT_BUCKETS, [r.t_end - r.t_arrive for r in done])
        self.hist(L, "vllm:request_queue_time_seconds", LAT_BUCKETS, [r.queue for r in done])
        self.hist(L, "vllm:request_inference_time_seconds", LAT_BUCKETS, [r.t_end - r.t_sched for r in done])
        self.hist(L, "vllm:request_prefill_time_seconds", LAT_BUCKETS, [r.prefill for r in done])
        self.hist(L, "vllm:request_decode_time_seconds", LAT_BUCKETS, [r.t_end - r.t_first for r in done])
        self.hist(L, "vllm:request_prefill_kv_computed_tokens", self.tok_b, [max(0, r.computed) for r in done])
        if self.nixl:
            xs = [x for r in self.reqs if r.xfer and r.t_sched <= t for x in r.xfer]
            self.hist(L, "vllm:nixl_xfer_time_seconds", NIXL_XFER_BUCKETS, [x["dur"] for x in xs])
            self.hist(L, "vllm:nixl_post_time_seconds", NIXL_POST_BUCKETS, [x["post"] for x in xs])
            self.hist(L, "vllm:nixl_bytes_transferred", NIXL_BYTES_BUCKETS, [x["bytes"] for x in xs])
            self.hist(L, "vllm:nixl_num_descriptors", NIXL_DESC_BUCKETS, [x["descs"] for x in xs])
            self.scalar(L, "vllm:nixl_num_failed_transfers", 0)
            self.scalar(L, "vllm:nixl_num_failed_notifications", 0)
        lbl = ",".join(f'{k}="{v}"' for k, v in self.cache_labels.items())
        L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
        L.append("# TYPE vllm:cache_config_info gauge")
        L.append(f'vllm:cache_config_info{{engine="{self.engine}",{lbl}}} 1.0')
        return "\n".join(L) + "\n"

    # ------------------------------------------------------------------ logs
    def stats_lines(self, prefix, logger_line, every=10.0):
        out = []
        t = self.t0 - 300.0
        end = self.t0 + self.window
        win_q = win_h = win_e = 0
        while t < end:
            a, b = t, t + every
            sched = [r for r in self.reqs if a <= r.t_sched < b]
            pt = sum(r.prompt for r in self.reqs if a <= r.t_first < b)
            gt = sum(r.gen_by(b) - r.gen_by(a) for r in self.reqs)
            running = [r for r in self.reqs if r.t_sched <= b < r.t_end]
            waiting = [r for r in self.reqs if r.t_arrive <= b < r.t_sched]
            win_q += sum(r.prompt for r in sched)
            win_h += sum(r.hit for r in sched)
            win_e += sum(r.ext for r in sched)
            rate = 100.0 * win_h / win_q if win_q else 0.0
            ts = dt.datetime.fromtimestamp(b, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
            line = (f"{prefix} INFO {ts} [{logger_line}] Engine {int(self.engine):03d}: Avg prompt throughput: "
                    f"{pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                    f"Running: {len(running)} reqs, Waiting: {len(waiting)} reqs, GPU KV cache usage: "
                    f"{100 * self.kv_usage(running, b):.1f}%, Prefix cache hit rate: {rate:.1f}%")
            if self.nixl:
                line += f", External prefix cache hit rate: {100.0 * win_e / win_q if win_q else 0.0:.1f}%"
            if pt or gt or running:
                out.append((b, line))
                if self.nixl:
                    xs = [x for r in sched if r.xfer for x in r.xfer]
                    if xs:
                        d = sorted(x["dur"] for x in xs)
                        p = sorted(x["post"] for x in xs)
                        mb = [x["bytes"] / 2 ** 20 for x in xs]
                        p90 = lambda v: v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
                        out.append((b + 0.001, (
                            f"{prefix} INFO {ts} [{logger_line}] KV Transfer metrics: "
                            f"Num successful transfers={len(xs)}, Avg xfer time (ms)={1e3 * sum(d) / len(d):.3f}, "
                            f"P90 xfer time (ms)={1e3 * p90(d):.3f}, Avg post time (ms)={1e3 * sum(p) / len(p):.3f}, "
                            f"P90 post time (ms)={1e3 * p90(p):.3f}, Avg MB per transfer={sum(mb) / len(mb):.3f}, "
                            f"Throughput (MB/s)={sum(mb) / sum(d):.3f}, "
                            f"Avg number of descriptors={sum(x['descs'] for x in xs) / len(xs):.1f}")))
            t = b
        return out

    # ------------------------------------------------------------------ write
    def write(self, out: Path, *, manifest_notes, endpoint, engine_args, model_config, served_name,
              startup_logs, log_prefix, logger_line, gpu=None, access_prefix=None, extra_events=()):
        out.mkdir(parents=True, exist_ok=True)
        times = [self.t0 + i * self.interval for i in range(int(self.window / self.interval) + 1)]
        (out / "manifest.json").write_text(json.dumps({
            "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
            "started_at": self.t0, "ended_at": times[-1], "interval_s": self.interval,
            "notes": manifest_notes}, indent=1) + "\n")
        with (out / "metrics.jsonl").open("w") as f:
            for t in times:
                f.write(json.dumps({"t": t, "status": 200, "text": self.text(t)}) + "\n")
        (out / "server.json").write_text(json.dumps({
            "version": {"version": self.version},
            "models": {"object": "list", "data": [{
                "id": served_name, "object": "model", "created": int(self.t0 - 900), "owned_by": "vllm",
                "root": self.model, "parent": None, "max_model_len": self.mml}]},
            "health": 200}, indent=1) + "\n")
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
        if model_config is not None:
            (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
        if gpu is not None:
            with (out / "gpu.jsonl").open("w") as f:
                for t in times:
                    f.write(json.dumps({"t": t, "devices": gpu(t)}) + "\n")
        lines = list(startup_logs)
        ev = list(self.stats_lines(log_prefix, logger_line)) + list(extra_events)
        if access_prefix:
            for i, r in enumerate(self.reqs):
                if self.t0 - 300 <= r.t_end < self.t0 + self.window and i % 3 == 0:
                    ev.append((r.t_end, f'{access_prefix} INFO:     10.0.{(i % 7) + 1}.{10 + i % 40}:{40000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        ev.sort(key=lambda x: x[0])
        lines.extend(l for _, l in ev)
        (out / "logs.txt").write_text("\n".join(lines) + "\n")
