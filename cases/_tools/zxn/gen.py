"""kvdoctor.bundle/1 writer for the zxn-* cases (writer zxn, round 24), copied from writer zxb's gen.py (from zd),
with prompt tokens counted when a request's first token is produced (as V1's IterationStats does) and
per-step token counts spread over each prefill's duration in max_num_batched_tokens chunks; itself adapted
from cases/_tools/r/gen.py: metric families chosen per vLLM release (`families`: "0.9.2",
"0.10.2", "0.11.0", "0.12.0"), `_created` samples in single-process mode, and a prometheus
multiprocess mode (`mp_pids`) where counters/histograms are summed over the API-server
processes and a gauge without multiprocess_mode="mostrecent" is exposed once per pid.

Written from scratch (no import of the project package, no test data): the metric families,
HELP strings and histogram bucket layouts follow the V1 engine's /metrics as shown by the
existing corpus bundles (format examples) and vLLM's v1/metrics/loggers.py; token-count
buckets use vLLM's 1-2-5 rule up to max_model_len. Every number comes from a list of simulated
requests, so counters, histograms, gauges and the stats lines in logs.txt agree.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path

LAT_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
               120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
               10.0, 20.0, 40.0, 80.0]
ITER_BUCKETS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_BUCKETS = [1, 2, 5, 10, 20]


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
    reason: str = "stop"
    max_tokens: int = 1024
    lora: str | None = None
    mm_items: int = 0
    mm_hits: int = 0

    @property
    def t_sched(self):
        return self.t_arrive + self.queue

    @property
    def t_first(self):
        return self.t_sched + self.prefill

    @property
    def t_end(self):
        return self.t_first + max(0, self.gen - 1) * self.itl

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
    "vllm:gpu_cache_usage_perc": ("gauge", "GPU KV-cache usage. 1 means 100 percent usage."),
    "vllm:gpu_prefix_cache_queries": ("counter", "GPU prefix cache queries, in terms of number of queried tokens."),
    "vllm:gpu_prefix_cache_hits": ("counter", "GPU prefix cache hits, in terms of number of cached tokens."),
    "vllm:time_per_output_token_seconds": ("histogram", "Histogram of time per output token in seconds."),
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
}


def fmt(v: float) -> str:
    if isinstance(v, int) or float(v).is_integer():
        return f"{float(v):.1f}"
    return repr(round(float(v), 6))


class Scenario:
    def __init__(self, *, model, version, max_model_len, pool_tokens, block_size, cache_labels,
                 reqs, t0, window, interval, families="new", lora_max=None, mm=False,
                 engine="0", step_s=0.03, mp_pids=None, live_pid=None, t_start=None):
        self.model, self.version = model, version
        self.mml, self.pool, self.bs = max_model_len, pool_tokens, block_size
        self.cache_labels = cache_labels
        self.reqs = sorted(reqs, key=lambda r: r.t_arrive)
        self.t0, self.window, self.interval = t0, window, interval
        self.families, self.lora_max, self.mm, self.engine = families, lora_max, mm, engine
        self.step_s = step_s
        self.mp_pids, self.live_pid = mp_pids, live_pid
        self.t_start = t_start if t_start is not None else t0 - 1800.0
        self.tok_b = b125(max_model_len)

    # ------------------------------------------------------------------ metrics
    def lab(self, extra: str = "") -> str:
        s = f'engine="{self.engine}",model_name="{self.model}"'
        return "{" + s + ("," + extra if extra else "") + "}"

    def created(self, lines, full, help_):
        if self.mp_pids:
            return
        lines.append(f"# HELP {full}_created {help_}")
        lines.append(f"# TYPE {full}_created gauge")
        lines.append(f"{full}_created{self.lab()} {self.t_start!r}")

    def hist(self, lines, name, buckets, values, weights=None):
        typ, help_ = HELP[name]
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} histogram")
        weights = weights or [1] * len(values)
        for le in buckets:
            c = sum(w for v, w in zip(values, weights) if v <= le)
            lb = self.lab("le=" + json.dumps(fmt(le)))
            lines.append(f"{name}_bucket{lb} {fmt(c)}")
        tot = sum(weights)
        s = sum(v * w for v, w in zip(values, weights))
        inf = self.lab('le="+Inf"')
        lines.append(f"{name}_bucket{inf} {fmt(tot)}")
        lines.append(f"{name}_count{self.lab()} {fmt(tot)}")
        lines.append(f"{name}_sum{self.lab()} {fmt(s)}")
        self.created(lines, name, help_)

    def scalar(self, lines, name, value, extra_rows=None, per_pid=None):
        typ, help_ = HELP[name]
        full = name + ("_total" if typ == "counter" else "")
        lines.append(f"# HELP {full} {help_}")
        lines.append(f"# TYPE {full} {typ}")
        if per_pid is not None:
            for pid, v in per_pid:
                lines.append(f"{full}{self.lab('pid=' + json.dumps(str(pid)))} {fmt(v)}")
        elif extra_rows:
            for lbl, v in extra_rows:
                lines.append(f"{full}{self.lab(lbl)} {fmt(v)}")
        else:
            lines.append(f"{full}{self.lab()} {fmt(value)}")
        if typ == "counter":
            if extra_rows and not self.mp_pids:
                lines.append(f"# HELP {full[:-6]}_created {help_}")
                lines.append(f"# TYPE {full[:-6]}_created gauge")
                for lbl, v in extra_rows:
                    lines.append(f"{full[:-6]}_created{self.lab(lbl)} {self.t_start!r}")
            elif not extra_rows:
                self.created(lines, full[:-6], help_)

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
            if t < r.t_first:
                frac = (t - r.t_sched) / max(1e-6, r.t_first - r.t_sched)
                toks = r.hit + int((r.prompt - r.hit) * frac)
            else:
                toks = r.prompt + r.gen_by(t)
            used += math.ceil(toks / self.bs) * self.bs
        return min(1.0, used / self.pool)

    def _slices(self):
        if getattr(self, "_sl", None) is None:
            sl = []
            tt = self.t0 - 600.0
            end = self.t0 + self.window + 1
            mnbt = getattr(self, "mnbt", 2048)
            while tt < end:
                b = tt + 5.0
                pre = 0.0
                for r in self.reqs:
                    d = max(1e-6, r.t_first - r.t_sched)
                    ov = min(b, r.t_first) - max(tt, r.t_sched)
                    if ov > 0:
                        pre += (r.prompt - r.hit) * ov / d
                dec = sum(r.gen_by(b) - r.gen_by(tt) for r in self.reqs if r.t_first < b and r.t_end >= tt)
                if pre + dec > 0:
                    dsteps = min(int(5.0 / self.step_s), int(dec)) if dec else 0
                    steps = max(1, dsteps, math.ceil(pre / mnbt))
                    sl.append((b, (pre + dec) / steps, steps))
                tt = b
            self._sl = sl
        return self._sl

    def iter_obs(self, t):
        vals, ws = [], []
        for b, v, w in self._slices():
            if b <= t:
                vals.append(v)
                ws.append(w)
        return vals, ws

    def text(self, t):
        sched, done, running, waiting, first = self.state(t)
        L: list[str] = []
        fam = self.families
        old = fam in ("0.9.2", "0.10.2")
        self.scalar(L, "vllm:num_requests_running", len(running))
        self.scalar(L, "vllm:num_requests_waiting", len(waiting))
        kv = self.kv_usage(running, t)
        if fam == "0.9.2":
            self.scalar(L, "vllm:gpu_cache_usage_perc", kv)
        else:
            if self.mp_pids:
                self.scalar(L, "vllm:kv_cache_usage_perc", None,
                            per_pid=[(p, kv if p == self.live_pid else 0.0) for p in self.mp_pids])
            else:
                self.scalar(L, "vllm:kv_cache_usage_perc", kv)
            if fam == "0.10.2":
                self.scalar(L, "vllm:gpu_cache_usage_perc", kv)
        q = sum(r.prompt for r in sched)
        h = sum(r.hit for r in sched)
        if old:
            self.scalar(L, "vllm:gpu_prefix_cache_queries", q)
            self.scalar(L, "vllm:gpu_prefix_cache_hits", h)
        if fam != "0.9.2":
            self.scalar(L, "vllm:prefix_cache_queries", q)
            self.scalar(L, "vllm:prefix_cache_hits", h)
        self.scalar(L, "vllm:num_preemptions", 0)
        self.scalar(L, "vllm:prompt_tokens", sum(r.prompt for r in first))
        self.scalar(L, "vllm:generation_tokens", sum(r.gen_by(t) for r in self.reqs))
        rows = []
        for reason in ("stop", "length", "abort"):
            rows.append((f'finished_reason="{reason}"', sum(1 for r in done if r.reason == reason)))
        self.scalar(L, "vllm:request_success", None, rows)
        self.hist(L, "vllm:request_prompt_tokens", self.tok_b, [r.prompt for r in done])
        self.hist(L, "vllm:request_generation_tokens", self.tok_b, [r.gen for r in done])
        iv, iw = self.iter_obs(t)
        self.hist(L, "vllm:iteration_tokens_total", ITER_BUCKETS, iv, iw)
        self.hist(L, "vllm:request_max_num_generation_tokens", self.tok_b, [r.max_tokens for r in done])
        self.hist(L, "vllm:request_params_n", N_BUCKETS, [1 for r in done])
        self.hist(L, "vllm:request_params_max_tokens", self.tok_b, [r.max_tokens for r in done])
        self.hist(L, "vllm:time_to_first_token_seconds", TTFT_BUCKETS, [r.t_first - r.t_arrive for r in first])
        itl_v = [r.itl for r in self.reqs if r.gen_by(t) > 1]
        itl_w = [r.gen_by(t) - 1 for r in self.reqs if r.gen_by(t) > 1]
        if fam != "0.12.0":
            self.hist(L, "vllm:time_per_output_token_seconds", ITL_BUCKETS, itl_v, itl_w)
        if not old:
            self.hist(L, "vllm:inter_token_latency_seconds", ITL_BUCKETS, itl_v, itl_w)
            self.hist(L, "vllm:request_time_per_output_token_seconds", ITL_BUCKETS, [r.itl for r in done])
        self.hist(L, "vllm:e2e_request_latency_seconds", LAT_BUCKETS, [r.t_end - r.t_arrive for r in done])
        self.hist(L, "vllm:request_queue_time_seconds", LAT_BUCKETS, [r.queue for r in done])
        self.hist(L, "vllm:request_inference_time_seconds", LAT_BUCKETS, [r.t_end - r.t_sched for r in done])
        self.hist(L, "vllm:request_prefill_time_seconds", LAT_BUCKETS, [r.prefill for r in done])
        self.hist(L, "vllm:request_decode_time_seconds", LAT_BUCKETS, [r.t_end - r.t_first for r in done])
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
        win: list[Req] = []
        while t < end:
            a, b = t, t + every
            sched = [r for r in self.reqs if a <= r.t_sched < b]
            pt = sum(r.prompt for r in self.reqs if a <= r.t_first < b)
            gt = sum(r.gen_by(b) - r.gen_by(a) for r in self.reqs)
            running = [r for r in self.reqs if r.t_sched <= b < r.t_end]
            waiting = [r for r in self.reqs if r.t_arrive <= b < r.t_sched]
            win.extend(sched)
            win = win[-1000:]
            qq = sum(r.prompt for r in win)
            hh = sum(r.hit for r in win)
            rate = 100.0 * hh / qq if qq else 0.0
            ts = dt.datetime.fromtimestamp(b, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
            line = (f"{prefix} INFO {ts} [{logger_line}] Engine {int(self.engine):03d}: Avg prompt throughput: "
                    f"{pt / every:.1f} tokens/s, Avg generation throughput: {gt / every:.1f} tokens/s, "
                    f"Running: {len(running)} reqs, Waiting: {len(waiting)} reqs, GPU KV cache usage: "
                    f"{100 * self.kv_usage(running, b):.1f}%, Prefix cache hit rate: {rate:.1f}%")
            if self.mm:
                mq = sum(r.mm_items for r in win)
                mh = sum(r.mm_hits for r in win)
                line += f", MM cache hit rate: {100.0 * mh / mq if mq else 0.0:.1f}%"
            if pt or gt or running:
                out.append((b, line))
            t = b
        return out

    # ------------------------------------------------------------------ write
    def write(self, out: Path, *, manifest_notes, endpoint, engine_args, model_config, served_name,
              startup_logs, log_prefix, logger_line, gpu=None, access_prefix=None, stats=True,
              extra_events=(), server_version=None):
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
            "version": server_version if server_version is not None else {"version": self.version},
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
        ev = [(t, l) for t, l in self.stats_lines(log_prefix, logger_line)] if stats else []
        ev.extend(extra_events)
        if access_prefix:
            for i, r in enumerate(self.reqs):
                if self.t0 - 300 <= r.t_end < self.t0 + self.window and i % 3 == 0:
                    ev.append((r.t_end, f'{access_prefix} INFO:     10.0.{(i % 7) + 1}.{10 + i % 40}:{40000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        ev.sort(key=lambda x: x[0])
        lines.extend(l.lstrip() for _, l in ev)
        (out / "logs.txt").write_text("\n".join(lines) + "\n")
