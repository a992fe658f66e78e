"""V1 /metrics exposition (names, labels model_name/engine and buckets as in
vllm/v1/metrics/loggers.py PrometheusStatLogger; adapted from cases/_tools/zyi)."""
from __future__ import annotations

import bisect

TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
        20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
       40.0, 80.0]
LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
       480.0, 960.0, 1920.0, 7680.0]
ITER = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(mx: int) -> list[int]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


def fmt(v) -> str:
    v = float(v)
    return f"{v:.1f}" if v.is_integer() else repr(v)


def lbl(d: dict) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Hist:
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * (len(self.b) + 1)
        self.sum = 0.0
        self.n = 0

    def observe(self, v: float, n: int = 1):
        self.c[bisect.bisect_left(self.b, v)] += n
        self.sum += v * n
        self.n += n

    def lines(self, name, labels):
        out, cum = [], 0
        for b, c in zip(self.b + ["+Inf"], self.c):
            cum += c
            out.append(f"{name}_bucket{lbl({**labels, 'le': '+Inf' if b == '+Inf' else fmt(b)})} {fmt(cum)}")
        out.append(f"{name}_count{lbl(labels)} {fmt(self.n)}")
        out.append(f"{name}_sum{lbl(labels)} {fmt(round(self.sum, 6))}")
        return out


def fam(name, typ, doc, lines):
    return [f"# HELP {name} {doc}", f"# TYPE {name} {typ}"] + lines


class V1:
    def __init__(self, model: str, max_len: int, cache_info: dict):
        self.base = {"model_name": model, "engine": "0"}
        self.cache_info = cache_info
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = {"pq": 0, "ph": 0, "pre": 0, "pt": 0, "gt": 0}
        self.succ = {"stop": 0, "length": 0, "abort": 0}
        self.h = {"ptok": Hist(b125(max_len)), "gtok": Hist(b125(max_len)), "iter": Hist(ITER),
                  "ttft": Hist(TTFT), "itl": Hist(ITL), "e2e": Hist(LAT), "queue": Hist(LAT),
                  "prefill": Hist(LAT), "decode": Hist(LAT)}

    def text(self) -> str:
        b = self.base
        L = []
        L += fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                 [f"vllm:num_requests_running{lbl(b)} {fmt(self.running)}"])
        L += fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                 [f"vllm:num_requests_waiting{lbl(b)} {fmt(self.waiting)}"])
        L += fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                 [f"vllm:kv_cache_usage_perc{lbl(b)} {fmt(round(self.kv, 6))}"])
        for key, name, doc in (("pq", "vllm:prefix_cache_queries",
                                "Prefix cache queries, in terms of number of queried tokens."),
                               ("ph", "vllm:prefix_cache_hits",
                                "Prefix cache hits, in terms of number of cached tokens."),
                               ("pre", "vllm:num_preemptions", "Cumulative number of preemption from the engine."),
                               ("pt", "vllm:prompt_tokens", "Number of prefill tokens processed."),
                               ("gt", "vllm:generation_tokens", "Number of generation tokens processed.")):
            L += fam(name, "counter", doc, [f"{name}_total{lbl(b)} {fmt(self.c[key])}"])
        L += fam("vllm:request_success", "counter", "Count of successfully processed requests.",
                 [f"vllm:request_success_total{lbl({**b, 'finished_reason': r})} {fmt(v)}"
                  for r, v in self.succ.items()])
        for name, key, doc in (
                ("vllm:request_prompt_tokens", "ptok", "Number of prefill tokens processed."),
                ("vllm:request_generation_tokens", "gtok", "Number of generation tokens processed."),
                ("vllm:iteration_tokens_total", "iter", "Histogram of number of tokens per engine_step."),
                ("vllm:time_to_first_token_seconds", "ttft", "Histogram of time to first token in seconds."),
                ("vllm:inter_token_latency_seconds", "itl", "Histogram of inter-token latency in seconds."),
                ("vllm:e2e_request_latency_seconds", "e2e", "Histogram of e2e request latency in seconds."),
                ("vllm:request_queue_time_seconds", "queue",
                 "Histogram of time spent in WAITING phase for request."),
                ("vllm:request_prefill_time_seconds", "prefill",
                 "Histogram of time spent in PREFILL phase for request."),
                ("vllm:request_decode_time_seconds", "decode",
                 "Histogram of time spent in DECODE phase for request.")):
            L += fam(name, "histogram", doc, self.h[key].lines(name, b))
        L += fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                 [f"vllm:cache_config_info{lbl({**self.cache_info, 'engine': '0'})} 1.0"])
        return "\n".join(L) + "\n"
