"""Writer zyw's bundle helpers (kvdoctor.bundle/1), adapted from writer zyd's common.py (round 21).

Metric families, HELP texts and bucket layouts are read from vLLM source through the search
tool: V1 from vllm/v1/metrics/loggers.py (stored version, trimmed to the families the 0.8/0.9
releases had), V0 from vllm/engine/metrics.py. Each case script drives a Prom object interval
by interval; counters and histograms only ever grow.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def v1_families(max_model_len, kv_usage_name="vllm:gpu_cache_usage_perc", prefix="vllm:gpu_prefix_cache"):
    g, c, h = "gauge", "counter", "histogram"
    fams = [
        ("vllm:num_requests_running", g, "Number of requests in model execution batches.", None),
        ("vllm:num_requests_waiting", g, "Number of requests waiting to be processed.", None),
        (kv_usage_name, g, "GPU KV-cache usage. 1 means 100 percent usage.", None),
        (prefix + "_queries", c, "GPU prefix cache queries, in terms of number of queried tokens.", None),
        (prefix + "_hits", c, "GPU prefix cache hits, in terms of number of cached tokens.", None),
        ("vllm:num_preemptions", c, "Cumulative number of preemption from the engine.", None),
        ("vllm:prompt_tokens", c, "Number of prefill tokens processed.", None),
        ("vllm:generation_tokens", c, "Number of generation tokens processed.", None),
        ("vllm:request_success", c, "Count of successfully processed requests.", None),
        ("vllm:request_prompt_tokens", h, "Number of prefill tokens processed.", b125(max_model_len)),
        ("vllm:request_generation_tokens", h, "Number of generation tokens processed.", b125(max_model_len)),
        ("vllm:iteration_tokens_total", h, "Histogram of number of tokens per engine_step.", ITER_B),
        ("vllm:request_max_num_generation_tokens", h, "Histogram of maximum number of requested generation tokens.", b125(max_model_len)),
        ("vllm:request_params_n", h, "Histogram of the n request parameter.", [1, 2, 5, 10, 20]),
        ("vllm:request_params_max_tokens", h, "Histogram of the max_tokens request parameter.", b125(max_model_len)),
        ("vllm:time_to_first_token_seconds", h, "Histogram of time to first token in seconds.", TTFT_B),
        ("vllm:time_per_output_token_seconds", h, "Histogram of time per output token in seconds.", TPOT_B),
        ("vllm:e2e_request_latency_seconds", h, "Histogram of e2e request latency in seconds.", LAT_B),
        ("vllm:request_queue_time_seconds", h, "Histogram of time spent in WAITING phase for request.", LAT_B),
        ("vllm:request_inference_time_seconds", h, "Histogram of time spent in RUNNING phase for request.", LAT_B),
        ("vllm:request_prefill_time_seconds", h, "Histogram of time spent in PREFILL phase for request.", LAT_B),
        ("vllm:request_decode_time_seconds", h, "Histogram of time spent in DECODE phase for request.", LAT_B),
    ]
    return fams


def fmt(v):
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{v:.1f}"
        return repr(v)
    return f"{float(v):.1f}"


def lbl(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Prom:
    def __init__(self, fams, base_labels, info=None, finish_reasons=("stop", "length", "abort")):
        self.fams = fams
        self.base = dict(base_labels)
        self.info = info or []  # list of (name, help, labels dict)
        self.vals = {}
        self.reasons = finish_reasons
        for name, typ, _, buckets in fams:
            if typ == "histogram":
                self.vals[name] = {"b": [0] * len(buckets), "sum": 0.0, "count": 0}
            elif name == "vllm:request_success":
                self.vals[name] = {r: 0 for r in finish_reasons}
            else:
                self.vals[name] = 0.0

    def set(self, name, v):
        self.vals[name] = float(v)

    def inc(self, name, v=1.0, reason=None):
        assert v >= 0, (name, v)
        if reason is not None:
            self.vals[name][reason] += v
        else:
            self.vals[name] += float(v)

    def obs(self, name, x):
        buckets = next(f[3] for f in self.fams if f[0] == name)
        h = self.vals[name]
        for i, le in enumerate(buckets):
            if x <= le:
                h["b"][i] += 1
        h["sum"] += float(x)
        h["count"] += 1

    def text(self):
        out = []
        for name, help_, labels in self.info:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} gauge")
            out.append(f"{name}{lbl(labels)} 1.0")
        for name, typ, help_, buckets in self.fams:
            expo = name + ("_total" if typ == "counter" and not name.endswith("_total") else "")
            out.append(f"# HELP {expo} {help_}")
            out.append(f"# TYPE {expo} {typ}")
            v = self.vals[name]
            if typ == "histogram":
                for le, n in zip(buckets, v["b"]):
                    out.append(f"{name}_bucket{lbl({**self.base, 'le': fmt(float(le))})} {fmt(n)}")
                out.append(f"{name}_bucket{lbl({**self.base, 'le': '+Inf'})} {fmt(v['count'])}")
                out.append(f"{name}_count{lbl(self.base)} {fmt(v['count'])}")
                out.append(f"{name}_sum{lbl(self.base)} {fmt(round(v['sum'], 6))}")
            elif name == "vllm:request_success":
                for r in self.reasons:
                    out.append(f"{expo}{lbl({**self.base, 'finished_reason': r})} {fmt(v[r])}")
            else:
                out.append(f"{expo}{lbl(self.base)} {fmt(round(v, 6))}")
        return "\n".join(out) + "\n"


def write_bundle(case_id, *, start, end, interval, scrapes, notes, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None, endpoint="http://vllm:8000"):
    d = ROOT / "cases" / case_id / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": endpoint,
           "started_at": start, "ended_at": end, "interval_s": float(interval), "notes": notes}
    (d / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    with open(d / "metrics.jsonl", "w") as f:
        for t, text in scrapes:
            f.write(json.dumps({"t": t, "status": 200, "text": text}) + "\n")
    if server is not None:
        (d / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (d / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with open(d / "gpu.jsonl", "w") as f:
            for row in gpu:
                f.write(json.dumps(row) + "\n")
    if logs is not None:
        (d / "logs.txt").write_text("\n".join(logs) + "\n")
    return d
