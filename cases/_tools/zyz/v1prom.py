"""V1 /metrics exposition as PrometheusStatLogger writes it (names, labels, buckets read from
vllm/v1/metrics/loggers.py; the family set is assumed unchanged in the later releases imitated)."""

from __future__ import annotations

from common import (REQ_LAT_BUCKETS, TPOT_BUCKETS, TTFT_BUCKETS, Hist, build_1_2_5, family, fmt,
                    lbl)

FINISH = ["stop", "length", "abort"]


class V1Prom:
    def __init__(self, model: str, max_model_len: int, cache_info: dict, itl_name: str =
                 "vllm:inter_token_latency_seconds"):
        self.base = {"engine": "0", "model_name": model}
        self.cache_info = cache_info
        self.itl_name = itl_name
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = {"preempt": 0, "prompt": 0, "gen": 0, "pq": 0, "ph": 0}
        self.success = {r: 0 for r in FINISH}
        self.h = {
            "ttft": Hist(TTFT_BUCKETS), "itl": Hist(TPOT_BUCKETS), "e2e": Hist(REQ_LAT_BUCKETS),
            "queue": Hist(REQ_LAT_BUCKETS), "prefill": Hist(REQ_LAT_BUCKETS),
            "decode": Hist(REQ_LAT_BUCKETS), "inference": Hist(REQ_LAT_BUCKETS),
            "ptok": Hist(build_1_2_5(max_model_len)), "gtok": Hist(build_1_2_5(max_model_len)),
        }

    def text(self) -> str:
        b = self.base
        L: list[str] = []
        L += family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                    [f"vllm:num_requests_running{lbl(b)} {fmt(self.running)}"])
        L += family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                    [f"vllm:num_requests_waiting{lbl(b)} {fmt(self.waiting)}"])
        L += family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                    [f"vllm:kv_cache_usage_perc{lbl(b)} {fmt(round(self.kv, 6))}"])
        L += family("vllm:prefix_cache_queries", "counter",
                    "Prefix cache queries, in terms of number of queried tokens.",
                    [f"vllm:prefix_cache_queries_total{lbl(b)} {fmt(self.c['pq'])}"])
        L += family("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.",
                    [f"vllm:prefix_cache_hits_total{lbl(b)} {fmt(self.c['ph'])}"])
        L += family("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.",
                    [f"vllm:num_preemptions_total{lbl(b)} {fmt(self.c['preempt'])}"])
        L += family("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.",
                    [f"vllm:prompt_tokens_total{lbl(b)} {fmt(self.c['prompt'])}"])
        L += family("vllm:generation_tokens", "counter", "Number of generation tokens processed.",
                    [f"vllm:generation_tokens_total{lbl(b)} {fmt(self.c['gen'])}"])
        L += family("vllm:request_success", "counter", "Count of successfully processed requests.",
                    [f"vllm:request_success_total{lbl({**b, 'finished_reason': r})} {fmt(v)}"
                     for r, v in self.success.items()])
        hs = [("vllm:request_prompt_tokens", "ptok", "Number of prefill tokens processed."),
              ("vllm:request_generation_tokens", "gtok", "Number of generation tokens processed."),
              ("vllm:time_to_first_token_seconds", "ttft", "Histogram of time to first token in seconds."),
              (self.itl_name, "itl", "Histogram of inter-token latency in seconds."),
              ("vllm:e2e_request_latency_seconds", "e2e", "Histogram of e2e request latency in seconds."),
              ("vllm:request_queue_time_seconds", "queue", "Histogram of time spent in WAITING phase for request."),
              ("vllm:request_inference_time_seconds", "inference",
               "Histogram of time spent in RUNNING phase for request."),
              ("vllm:request_prefill_time_seconds", "prefill", "Histogram of time spent in PREFILL phase for request."),
              ("vllm:request_decode_time_seconds", "decode", "Histogram of time spent in DECODE phase for request.")]
        for name, key, doc in hs:
            L += family(name, "histogram", doc, self.h[key].lines(name, b))
        L += family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                    [f"vllm:cache_config_info{lbl({**self.cache_info, 'engine': '0'})} 1.0"])
        return "\n".join(L) + "\n"
