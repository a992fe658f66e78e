"""V1 Prometheus exposition built with prometheus_client (names, docs, buckets and labels as read
from vllm/v1/metrics/loggers.py of a recent release, deprecated gpu_* aliases left out). Writer zyt."""
import prometheus_client as pc
from prometheus_client import CollectorRegistry, Gauge, Counter, Histogram

pc.disable_created_metrics()

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


class State:
    """Cumulative engine state; text() renders one scrape."""
    def __init__(self, model, max_model_len, cache_info):
        self.model, self.mml, self.cache_info = model, max_model_len, cache_info
        self.running = self.waiting = 0
        self.kv = 0.0
        self.c = {"prefix_cache_queries": 0, "prefix_cache_hits": 0, "num_preemptions": 0,
                  "prompt_tokens": 0, "generation_tokens": 0}
        self.success = {"stop": 0, "length": 0, "abort": 0, "error": 0}
        self.obs = {k: [] for k in ("request_prompt_tokens", "request_generation_tokens", "iteration_tokens_total",
                                    "request_max_num_generation_tokens", "request_params_n",
                                    "request_params_max_tokens", "time_to_first_token_seconds",
                                    "time_per_output_token_seconds", "time_per_prefill_token_request_seconds",
                                    "e2e_request_latency_seconds", "request_queue_time_seconds",
                                    "request_inference_time_seconds", "request_prefill_time_seconds",
                                    "request_decode_time_seconds")}

    def text(self):
        r = CollectorRegistry()
        ln = ["model_name", "engine"]
        lv = (self.model, "0")
        Gauge("vllm:num_requests_running", "Number of requests in model execution batches.", ln, registry=r).labels(*lv).set(self.running)
        Gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", ln, registry=r).labels(*lv).set(self.waiting)
        Gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", ln, registry=r).labels(*lv).set(self.kv)
        docs = {"prefix_cache_queries": "Prefix cache queries, in terms of number of queried tokens.",
                "prefix_cache_hits": "Prefix cache hits, in terms of number of cached tokens.",
                "num_preemptions": "Cumulative number of preemption from the engine.",
                "prompt_tokens": "Number of prefill tokens processed.",
                "generation_tokens": "Number of generation tokens processed."}
        for k, d in docs.items():
            Counter("vllm:" + k, d, ln, registry=r).labels(*lv).inc(self.c[k])
        rs = Counter("vllm:request_success", "Count of successfully processed requests.", ln + ["finished_reason"], registry=r)
        for reason, v in self.success.items():
            rs.labels(*lv, reason).inc(v)
        H = [("request_prompt_tokens", "Number of prefill tokens processed.", b125(self.mml)),
             ("request_generation_tokens", "Number of generation tokens processed.", b125(self.mml)),
             ("iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITER_B),
             ("request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", b125(self.mml)),
             ("request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20]),
             ("request_params_max_tokens", "Histogram of the max_tokens request parameter.", b125(self.mml)),
             ("time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B),
             ("time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B),
             ("time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", PREFILL_TOK_B),
             ("e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B),
             ("request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B),
             ("request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B),
             ("request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B),
             ("request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B)]
        for name, doc, b in H:
            h = Histogram("vllm:" + name, doc, ln, buckets=b, registry=r).labels(*lv)
            for v in self.obs[name]:
                h.observe(v)
        info = dict(self.cache_info, engine="0")
        Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", list(info), registry=r).labels(**info).set(1)
        return pc.generate_latest(r).decode()
