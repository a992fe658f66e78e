"""Prometheus exposition for a vLLM 0.11.x V1 server (metric set read from a 0.11.x
vllm/v1/metrics/loggers.py: 'engine' label, kv_cache_usage_perc, prefix_cache_*). Writer zyo."""
from v1metrics081 import Hist, fmt, lab, hist_text, TTFT_B, TPOT_B, LAT_B, b125

ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]

class V1Metrics011:
    def __init__(self, model, max_model_len, cache_info, engine="0"):
        self.L = {"model_name": model, "engine": engine}
        self.cache_info = dict(cache_info, engine=engine)
        self.running = self.waiting = 0
        self.kv = 0.0
        self.pq = self.ph = self.preempt = self.prompt = self.gen = 0
        self.success = {"stop": 0, "length": 0, "abort": 0}
        self.h_prompt = Hist(b125(max_model_len)); self.h_gen = Hist(b125(max_model_len))
        self.h_iter = Hist(ITER_B); self.h_maxgen = Hist(b125(max_model_len))
        self.h_n = Hist([1, 2, 5, 10, 20]); self.h_maxtok = Hist(b125(max_model_len))
        self.h_ttft = Hist(TTFT_B); self.h_tpot = Hist(TPOT_B); self.h_itl = Hist(TPOT_B)
        self.h_e2e = Hist(LAT_B); self.h_queue = Hist(LAT_B); self.h_inf = Hist(LAT_B)
        self.h_prefill = Hist(LAT_B); self.h_decode = Hist(LAT_B)

    def text(self):
        L, o = self.L, []
        def one(name, doc, typ, v):
            o.extend(["# HELP %s %s" % (name, doc), "# TYPE %s %s" % (name, typ), "%s%s %s" % (name, lab(L), fmt(v))])
        one("vllm:num_requests_running", "Number of requests in model execution batches.", "gauge", self.running)
        one("vllm:num_requests_waiting", "Number of requests waiting to be processed.", "gauge", self.waiting)
        one("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", "gauge", self.kv)
        one("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", "counter", self.pq)
        one("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", "counter", self.ph)
        one("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", "counter", self.preempt)
        one("vllm:prompt_tokens_total", "Number of prefill tokens processed.", "counter", self.prompt)
        one("vllm:generation_tokens_total", "Number of generation tokens processed.", "counter", self.gen)
        o += ["# HELP vllm:request_success_total Count of successfully processed requests.", "# TYPE vllm:request_success_total counter"]
        for r in ("stop", "length", "abort"):
            o.append("vllm:request_success_total%s %s" % (lab(dict(L, finished_reason=r)), fmt(self.success[r])))
        o += hist_text("vllm:request_prompt_tokens", "Number of prefill tokens processed.", self.h_prompt, L)
        o += hist_text("vllm:request_generation_tokens", "Number of generation tokens processed.", self.h_gen, L)
        o += hist_text("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", self.h_iter, L)
        o += hist_text("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", self.h_maxgen, L)
        o += hist_text("vllm:request_params_n", "Histogram of the n request parameter.", self.h_n, L)
        o += hist_text("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", self.h_maxtok, L)
        o += hist_text("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", self.h_ttft, L)
        o += hist_text("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.", self.h_tpot, L)
        o += hist_text("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", self.h_itl, L)
        o += hist_text("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", self.h_e2e, L)
        o += hist_text("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", self.h_queue, L)
        o += hist_text("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", self.h_inf, L)
        o += hist_text("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", self.h_prefill, L)
        o += hist_text("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", self.h_decode, L)
        o += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge",
              "vllm:cache_config_info%s 1.0" % lab(self.cache_info)]
        return "\n".join(o) + "\n"
