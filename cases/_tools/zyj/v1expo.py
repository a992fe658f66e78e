"""Minimal V1 (DP, per-engine labels) Prometheus exposition writer for zyj cases.
Names, label names (model_name, engine) and bucket layouts written from
vllm/v1/metrics/loggers.py (PrometheusStatLogger); inter_token_latency_seconds uses
the per-output-token layout of that file."""
import math

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
         10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]


def num(v):
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e15):
        return f"{float(v):.1f}"
    return repr(float(v))


def lab(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Hist:
    def __init__(self, buckets):
        self.b = buckets
        self.counts = [0] * len(buckets)
        self.n = 0
        self.s = 0.0

    def observe(self, v, k=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.counts[i] += k
        self.n += k
        self.s += v * k

    def lines(self, name, labels):
        out = []
        for le, c in zip(self.b, self.counts):
            out.append(f"{name}_bucket{lab({**labels, 'le': str(float(le))})} {num(c)}")
        out.append(f"{name}_bucket{lab({**labels, 'le': '+Inf'})} {num(self.n)}")
        out.append(f"{name}_count{lab(labels)} {num(self.n)}")
        out.append(f"{name}_sum{lab(labels)} {num(round(self.s, 6))}")
        return out


class Engine:
    def __init__(self, idx):
        self.idx = str(idx)
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = {"prefix_cache_queries": 0, "prefix_cache_hits": 0, "num_preemptions": 0,
                  "prompt_tokens": 0, "generation_tokens": 0}
        self.success = {"stop": 0, "length": 0, "abort": 0}
        self.ttft = Hist(TTFT_B)
        self.itl = Hist(ITL_B)
        self.e2e = Hist(LAT_B)


def exposition(model, engines, cache_info):
    L = []
    def fam(name, kind, help_):
        L.append(f"# HELP {name} {help_}")
        L.append(f"# TYPE {name} {kind}")
    fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
    for e in engines:
        L.append(f"vllm:num_requests_running{lab({'engine': e.idx, 'model_name': model})} {num(e.running)}")
    fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
    for e in engines:
        L.append(f"vllm:num_requests_waiting{lab({'engine': e.idx, 'model_name': model})} {num(e.waiting)}")
    fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.")
    for e in engines:
        L.append(f"vllm:kv_cache_usage_perc{lab({'engine': e.idx, 'model_name': model})} {num(round(e.kv, 6))}")
    helps = {"prefix_cache_queries": "Prefix cache queries, in terms of number of queried tokens.",
             "prefix_cache_hits": "Prefix cache hits, in terms of number of cached tokens.",
             "num_preemptions": "Cumulative number of preemption from the engine.",
             "prompt_tokens": "Number of prefill tokens processed.",
             "generation_tokens": "Number of generation tokens processed."}
    for k, h in helps.items():
        fam(f"vllm:{k}_total", "counter", h)
        for e in engines:
            L.append(f"vllm:{k}_total{lab({'engine': e.idx, 'model_name': model})} {num(e.c[k])}")
    fam("vllm:request_success_total", "counter", "Count of successfully processed requests.")
    for e in engines:
        for r, v in e.success.items():
            L.append(f"vllm:request_success_total{lab({'engine': e.idx, 'finished_reason': r, 'model_name': model})} {num(v)}")
    for name, attr, h in [("vllm:time_to_first_token_seconds", "ttft", "Histogram of time to first token in seconds."),
                          ("vllm:inter_token_latency_seconds", "itl", "Histogram of inter-token latency in seconds."),
                          ("vllm:e2e_request_latency_seconds", "e2e", "Histogram of e2e request latency in seconds.")]:
        fam(name, "histogram", h)
        for e in engines:
            L += getattr(e, attr).lines(name, {"engine": e.idx, "model_name": model})
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    for e in engines:
        L.append(f"vllm:cache_config_info{lab({**cache_info, 'engine': e.idx})} 1.0")
    return "\n".join(L) + "\n"
