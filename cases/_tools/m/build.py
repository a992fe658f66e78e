#!/usr/bin/env python3
"""Build the bundles of the m-* cases (writer m, round 5). Usage: python3 cases/_tools/m/build.py

Formats: V0 families / HELP / buckets as vLLM 0.5.4 and 0.6.4 export them (vllm/engine/metrics.py;
checked against the 0.5.4 and 0.6.4.post1 bundles under cases/ as format examples); V1 0.8.1 families
as its PrometheusStatLogger exports them (labels model_name only, counters with _total). Log lines in each
release's own format. Deterministic: seeded generators, no wall clock. Numbers follow each case.yaml.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GiB, MiB, device, epoch, models_body, refused, stamp, write_bundle  # noqa: E402

B125 = lambda top: [float(m * 10 ** e) for e in range(0, 8) for m in (1, 2, 5) if m * 10 ** e <= top]
TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E_054 = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
E2E_06 = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
HELP = {
    "vllm:num_requests_running": "Number of requests currently running on GPU.",
    "vllm:num_requests_swapped": "Number of requests swapped to CPU.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:cpu_cache_usage_perc": "CPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:gpu_prefix_cache_hit_rate": "GPU prefix cache block hit rate.",
    "vllm:cpu_prefix_cache_hit_rate": "CPU prefix cache block hit rate.",
    "vllm:num_preemptions_total": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens_total": "Number of prefill tokens processed.",
    "vllm:generation_tokens_total": "Number of generation tokens processed.",
    "vllm:request_success_total": "Count of successfully processed requests.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:e2e_request_latency_seconds": "Histogram of end to end request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:gpu_prefix_cache_queries_total": "GPU prefix cache queries, in terms of number of queried blocks.",
    "vllm:gpu_prefix_cache_hits_total": "GPU prefix cache hits, in terms of number of cached blocks.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
}


def num(v):
    return repr(float(v))


def hist(name, lab, buckets, values):
    out, cum = [], 0
    vs = sorted(values)
    for le in buckets:
        cum = sum(1 for v in vs if v <= le)
        out.append(f'{name}_bucket{{{lab},le="{le}"}} {num(cum)}')
    out.append(f'{name}_bucket{{{lab},le="+Inf"}} {num(len(vs))}')
    out.append(f"{name}_count{{{lab}}} {num(len(vs))}")
    out.append(f"{name}_sum{{{lab}}} {num(sum(vs))}")
    return out


class Req:
    def __init__(s, arr, p, o, ttft, tpot, cached=0):
        s.arr, s.p, s.o, s.ttft, s.tpot, s.cached = arr, p, o, ttft, tpot, cached
        s.first = arr + ttft
        s.end = s.first + tpot * (o - 1)


def state(reqs, t):
    done = [r for r in reqs if r.end <= t]
    run = [r for r in reqs if r.arr <= t < r.end and r.first - r.ttft * 0.0 <= t + 1e9]
    started = [r for r in reqs if r.first <= t]
    gen = sum(r.o for r in done) + sum(int((t - r.first) / r.tpot) + 1 for r in run if r.first <= t)
    itl = []
    for r in done:
        itl += [r.tpot] * (r.o - 1)
    return done, run, started, gen


def v0_text(version, model, reqs, t, blocks, block_tokens, cache_info, max_len, prefix=False, swapped=False):
    done, run, started, gen = state(reqs, t)
    waiting = [r for r in run if r.arr <= t < r.arr + max(0.0, r.ttft - 0.35)]
    running = [r for r in run if r not in waiting]
    used_tok = sum(r.p + max(0, int((t - r.first) / r.tpot)) for r in running)
    usage = min(1.0, (used_tok / block_tokens + len(running) * 0.5) / blocks)
    lab = f'model_name="{model}"'
    L = []
    if version == "0.5.4":
        L += ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
              "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cache_info.items())) + "} 1.0"]
    gauges = [("vllm:num_requests_running", len(running)), ("vllm:num_requests_swapped", 0),
              ("vllm:num_requests_waiting", len(waiting)), ("vllm:gpu_cache_usage_perc", usage),
              ("vllm:cpu_cache_usage_perc", 0.0)]
    if version != "0.5.4":
        hit = -1.0
        if prefix:
            q = sum(r.p for r in started)
            hit = (sum(r.cached for r in started) / q) if q else 0.0
        gauges += [("vllm:gpu_prefix_cache_hit_rate", hit), ("vllm:cpu_prefix_cache_hit_rate", -1.0)]
    for n, v in gauges:
        L += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} gauge", f"{n}{{{lab}}} {num(v)}"]
    ptok = sum(r.p for r in started)
    for n, v in (("vllm:num_preemptions_total", 0), ("vllm:prompt_tokens_total", ptok), ("vllm:generation_tokens_total", gen)):
        L += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} counter", f"{n}{{{lab}}} {num(v)}"]
    L += [f"# HELP vllm:request_success_total {HELP['vllm:request_success_total']}", "# TYPE vllm:request_success_total counter"]
    L.append(f'vllm:request_success_total{{{lab},finished_reason="stop"}} {num(sum(1 for r in done if r.o % 5))}')
    L.append(f'vllm:request_success_total{{{lab},finished_reason="length"}} {num(sum(1 for r in done if not r.o % 5))}')
    tp = []
    for r in done:
        tp += [r.tpot] * (r.o - 1)
    for r in run:
        if r.first <= t:
            tp += [r.tpot] * int((t - r.first) / r.tpot)
    H = [("vllm:time_to_first_token_seconds", TTFT, [r.ttft for r in started]),
         ("vllm:time_per_output_token_seconds", TPOT, tp),
         ("vllm:e2e_request_latency_seconds", E2E_054 if version == "0.5.4" else E2E_06, [r.end - r.arr for r in done]),
         ("vllm:request_prompt_tokens", B125(max_len), [r.p for r in done]),
         ("vllm:request_generation_tokens", B125(max_len), [r.o for r in done])]
    if version != "0.5.4":
        H.insert(3, ("vllm:request_queue_time_seconds", E2E_06, [max(0.0, r.ttft - 0.35) for r in done]))
    for n, b, vals in H:
        L += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} histogram"] + hist(n, lab, b, vals)
    if version != "0.5.4":
        L += ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
              "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cache_info.items())) + "} 1.0"]
    return "\n".join(L) + "\n"


def v1_081_text(model, reqs, t, blocks, cache_info, max_len):
    done, run, started, gen = state(reqs, t)
    lab = f'model_name="{model}"'
    used = sum(-(-(r.p + max(0, int((t - r.first) / r.tpot))) // 16) for r in run)
    L = ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
         "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cache_info.items())) + "} 1.0"]
    for n, h, v in (("vllm:num_requests_running", "Number of requests in model execution batches.", len(run)),
                    ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0),
                    ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", used / blocks)):
        L += [f"# HELP {n} {h}", f"# TYPE {n} gauge", f"{n}{{{lab}}} {num(v)}"]
    q = sum(r.p for r in started)
    hits = sum(r.cached for r in started)
    for n, h, v in (("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queried blocks.", q),
                    ("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached blocks.", hits),
                    ("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0),
                    ("vllm:prompt_tokens", "Number of prefill tokens processed.", q),
                    ("vllm:generation_tokens", "Number of generation tokens processed.", gen)):
        L += [f"# HELP {n}_total {h}", f"# TYPE {n}_total counter", f"{n}_total{{{lab}}} {num(v)}"]
    L += ["# HELP vllm:request_success_total Count of successfully processed requests.", "# TYPE vllm:request_success_total counter"]
    for reason, cnt in (("stop", sum(1 for r in done if r.o % 5)), ("length", sum(1 for r in done if not r.o % 5)), ("abort", 0)):
        L.append(f'vllm:request_success_total{{{lab},finished_reason="{reason}"}} {num(cnt)}')
    tp = []
    for r in done:
        tp += [r.tpot] * (r.o - 1)
    for r in run:
        if r.first <= t:
            tp += [r.tpot] * int((t - r.first) / r.tpot)
    it = []
    for r in started:
        it.append(r.p)
    it += [1] * gen  # decode steps: one request decoding at a time most of the window
    H = [("vllm:request_prompt_tokens", B125(max_len), [r.p for r in done]),
         ("vllm:request_generation_tokens", B125(max_len), [r.o for r in done]),
         ("vllm:iteration_tokens_total", [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], it),
         ("vllm:time_to_first_token_seconds", TTFT + [20.0, 40.0, 80.0, 160.0, 640.0, 2560.0], [r.ttft for r in started]),
         ("vllm:time_per_output_token_seconds", TPOT + [5.0, 7.5, 10.0, 20.0, 40.0, 80.0], tp),
         ("vllm:e2e_request_latency_seconds", E2E_06 + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0], [r.end - r.arr for r in done]),
         ("vllm:request_queue_time_seconds", E2E_06 + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0], [0.004 for r in done]),
         ("vllm:request_inference_time_seconds", E2E_06 + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0], [r.end - r.arr - 0.004 for r in done]),
         ("vllm:request_prefill_time_seconds", E2E_06 + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0], [r.ttft - 0.004 for r in done]),
         ("vllm:request_decode_time_seconds", E2E_06 + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0], [r.end - r.first for r in done])]
    for n, b, vals in H:
        L += [f"# HELP {n} {HELP[n]}", f"# TYPE {n} histogram"] + hist(n, lab, b, vals)
    return "\n".join(L) + "\n"


def stats_line_v0(ts, reqs, t, dt, blocks, block_tokens, fmt_line):
    d0, r0, s0, g0 = state(reqs, t - dt)
    d1, r1, s1, g1 = state(reqs, t)
    pt = (sum(r.p for r in s1) - sum(r.p for r in s0)) / dt
    gt = (g1 - g0) / dt
    used = sum(r.p + max(0, int((t - r.first) / r.tpot)) for r in r1)
    return fmt_line.format(ts=stamp(t), pt=pt, gt=gt, run=len(r1), kv=100 * min(1, (used / block_tokens + len(r1) * 0.5) / blocks))
