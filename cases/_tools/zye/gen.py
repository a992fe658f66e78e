"""Writer zye's bundle builder (kvdoctor.bundle/1), written for the zye-* cases.

Metric families, HELP texts, label names and bucket layouts are taken from vLLM's V1
vllm/v1/metrics/loggers.py (PrometheusStatLogger, the version read through the search tool,
0.9/0.10 era) -- not from other bundles. The stats log line follows LoggingStatLogger.log().

A request list (arrival, prompt, output, ttft, tpot) drives everything: gauges are the requests
in flight at the scrape time, counters and histograms are the finished requests up to it, so
cumulative series never decrease.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
N_B = [1, 2, 5, 10, 20]


def b125(maxv: int) -> list[int]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


@dataclass
class Req:
    t_arr: float
    prompt: int
    out: int
    queue: float      # seconds waiting
    ttft: float       # arrival -> first token
    tpot: float       # seconds per output token after the first
    max_tokens: int
    cached: int = 0
    reason: str = "length"   # FinishReason str(): "stop" / "length" / "abort"

    @property
    def t_first(self):
        return self.t_arr + self.ttft

    @property
    def t_end(self):
        return self.t_first + self.tpot * max(self.out - 1, 0)

    @property
    def prefill_time(self):
        return self.ttft - self.queue


def _fmt(v: float) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "+Inf"
    return repr(float(v))


class Expo:
    def __init__(self, labels: dict):
        self.lines: list[str] = []
        self.lab = labels

    def _l(self, extra=None):
        d = dict(self.lab)
        if extra:
            d.update(extra)
        return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"

    def gauge(self, name, help_, value, labels=None, base=True):
        self.lines += [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
        lab = self._l() if base else "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
        self.lines.append(f"{name}{lab} {_fmt(value)}")

    def counter(self, name, help_, value):
        self.lines += [f"# HELP {name}_total {help_}", f"# TYPE {name}_total counter",
                       f"{name}_total{self._l()} {_fmt(value)}"]

    def counter_multi(self, name, help_, values: dict):
        self.lines += [f"# HELP {name}_total {help_}", f"# TYPE {name}_total counter"]
        for lv, v in values.items():
            self.lines.append(f"{name}_total{self._l(lv)} {_fmt(v)}")

    def hist(self, name, help_, buckets, obs):
        self.lines += [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
        for b in buckets:
            n = sum(1 for o in obs if o <= b)
            self.lines.append(f"{name}_bucket{self._l({'le': _fmt(float(b))})} {_fmt(n)}")
        self.lines.append(f"{name}_bucket{self._l({'le': '+Inf'})} {_fmt(len(obs))}")
        self.lines.append(f"{name}_count{self._l()} {_fmt(len(obs))}")
        self.lines.append(f"{name}_sum{self._l()} {_fmt(round(sum(obs), 6))}")

    def text(self):
        return "\n".join(self.lines) + "\n"


def scrape_text(t: float, reqs: list[Req], cfg: dict) -> str:
    """cfg: model, max_model_len, num_gpu_blocks, block_size, cache_info (dict of labels),
    kv_tokens_per_req(t, r) optional, preemptions(t) optional, deprecated_names (bool)."""
    e = Expo({"model_name": cfg["model"], "engine": "0"})
    fin = [r for r in reqs if r.t_end <= t]
    started = [r for r in reqs if r.t_arr <= t]
    running = [r for r in started if r.t_arr + r.queue <= t < r.t_end]
    waiting = [r for r in started if t < r.t_arr + r.queue]
    # KV usage: blocks held by running requests
    bs = cfg["block_size"]
    used_blocks = 0
    for r in running:
        done = 0 if t < r.t_first else min(r.out, 1 + int((t - r.t_first) / max(r.tpot, 1e-9)))
        used_blocks += math.ceil((r.prompt + done) / bs)
    usage = min(1.0, used_blocks / cfg["num_gpu_blocks"])
    e.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", len(running))
    e.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", len(waiting))
    e.gauge("vllm:gpu_cache_usage_perc",
            "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.",
            round(usage, 6))
    q = sum(r.prompt for r in started if r.t_arr + r.queue <= t)
    h = sum(r.cached for r in started if r.t_arr + r.queue <= t)
    e.counter("vllm:gpu_prefix_cache_queries",
              "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", q)
    e.counter("vllm:gpu_prefix_cache_hits",
              "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", h)
    if not cfg.get("pre09"):
        e.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", round(usage, 6))
        e.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", q)
        e.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", h)
    e.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", cfg.get("preemptions", lambda t: 0)(t))
    prompt_done = sum(r.prompt - r.cached for r in started if r.t_first <= t)
    gen_done = 0
    for r in started:
        if r.t_first <= t:
            gen_done += min(r.out, 1 + int((t - r.t_first) / max(r.tpot, 1e-9)))
    e.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", prompt_done)
    e.counter("vllm:generation_tokens", "Number of generation tokens processed.", gen_done)
    e.lines += ["# HELP vllm:request_success_total Count of successfully processed requests.",
                "# TYPE vllm:request_success_total counter"]
    for rs in ("stop", "length", "abort"):
        e.lines.append(f"vllm:request_success_total{e._l({'finished_reason': rs})} "
                       f"{_fmt(sum(1 for r in fin if r.reason == rs))}")
    mml = cfg["max_model_len"]
    e.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", b125(mml), [r.prompt for r in fin])
    e.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", b125(mml), [r.out for r in fin])
    # iteration tokens: approximate one step per decode token of the busiest request in each scrape
    e.hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITER_B,
           cfg.get("iter_obs", lambda t: [])(t))
    e.hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.",
           b125(mml), [r.max_tokens for r in started if r.t_arr + r.queue <= t])
    e.hist("vllm:request_params_n", "Histogram of the n request parameter.", N_B,
           [1 for r in started if r.t_arr + r.queue <= t])
    e.hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", b125(mml),
           [r.max_tokens for r in fin])
    e.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B,
           [r.ttft for r in started if r.t_first <= t])
    tp = []
    for r in started:
        if r.t_first <= t:
            n = min(r.out, 1 + int((t - r.t_first) / max(r.tpot, 1e-9))) - 1
            tp += [r.tpot] * max(n, 0)
    e.hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B, tp)
    e.hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds",
           PREFILL_TOK_B, [r.prefill_time / r.prompt for r in fin if r.prompt > 0])
    e.hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B,
           [r.t_end - r.t_arr for r in fin])
    e.hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B,
           [r.queue for r in fin])
    e.hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B,
           [r.t_end - r.t_arr - r.queue for r in fin])
    e.hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B,
           [r.prefill_time for r in fin])
    e.hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B,
           [r.t_end - r.t_first for r in fin])
    ci = dict(cfg["cache_info"])
    ci["engine"] = "0"
    e.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", 1.0, labels=ci, base=False)
    return e.text()


def write_bundle(case: str, manifest: dict, scrapes: list[dict], *, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None):
    d = ROOT / "cases" / case / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    for f in d.iterdir():
        f.unlink()
    (d / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (d / "metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scrapes))
    if server is not None:
        (d / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (d / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        (d / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs is not None:
        (d / "logs.txt").write_text(logs if logs.endswith("\n") else logs + "\n")


# ---- V0 (vllm/engine/metrics.py, Metrics class as read; labels {model_name}) ----
V0_TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
V0_TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
V0_E2E_B = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def scrape_text_v0(t: float, reqs: list[Req], cfg: dict) -> str:
    e = Expo({"model_name": cfg["model"]})
    e.gauge("vllm:cache_config_info", "information of cache_config", 1.0, labels=cfg["cache_info"], base=False)
    fin = [r for r in reqs if r.t_end <= t]
    started = [r for r in reqs if r.t_arr <= t]
    running = [r for r in started if r.t_arr + r.queue <= t < r.t_end]
    waiting = [r for r in started if t < r.t_arr + r.queue]
    bs = cfg["block_size"]
    used = 0
    for r in running:
        done = 0 if t < r.t_first else min(r.out, 1 + int((t - r.t_first) / r.tpot))
        used += math.ceil((r.prompt + done) / bs)
    usage = min(1.0, used / cfg["num_gpu_blocks"]) + cfg.get("usage_extra", lambda t: 0.0)(t)
    e.gauge("vllm:num_requests_running", "Number of requests currently running on GPU.", len(running))
    e.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", len(waiting))
    e.gauge("vllm:num_requests_swapped", "Number of requests swapped to CPU.", 0)
    e.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", round(usage, 6))
    e.gauge("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0.0)
    e.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
    pt = sum(r.prompt for r in started if r.t_first <= t)
    gt = sum(min(r.out, 1 + int((t - r.t_first) / r.tpot)) for r in started if r.t_first <= t)
    e.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", pt)
    e.counter("vllm:generation_tokens", "Number of generation tokens processed.", gt)
    e.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", V0_TTFT_B,
           [r.ttft for r in started if r.t_first <= t])
    tp = []
    for r in started:
        if r.t_first <= t:
            tp += [r.tpot] * (min(r.out, 1 + int((t - r.t_first) / r.tpot)) - 1)
    e.hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", V0_TPOT_B, tp)
    e.hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", V0_E2E_B,
           [r.t_end - r.t_arr for r in fin])
    mml = cfg["max_model_len"]
    e.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", b125(mml), [r.prompt for r in fin])
    e.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", b125(mml), [r.out for r in fin])
    e.hist("vllm:request_params_best_of", "Histogram of the best_of request parameter.", N_B, [1 for r in fin])
    e.hist("vllm:request_params_n", "Histogram of the n request parameter.", N_B, [1 for r in fin])
    e.lines += ["# HELP vllm:request_success_total Count of successfully processed requests.",
                "# TYPE vllm:request_success_total counter"]
    for rs in ("length", "stop"):
        e.lines.append(f"vllm:request_success_total{e._l({'finished_reason': rs})} "
                       f"{_fmt(sum(1 for r in fin if r.reason == rs))}")
    e.gauge("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", cfg["thr"](t)[0])
    e.gauge("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", cfg["thr"](t)[1])
    return e.text()
