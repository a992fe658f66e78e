"""Prometheus exposition for a vLLM 0.8.1 V1 server (metric set read from a V1 loggers.py of the
0.8 series, without the later 'engine' label). Writer zyo."""

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
          20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]

def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v <= maxv:
                out.append(v)
            else:
                return out
        e += 1

class Hist:
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * len(self.b)
        self.n = 0
        self.s = 0.0
    def obs(self, v, k=1):
        for i, ub in enumerate(self.b):
            if v <= ub:
                self.c[i] += k
        self.n += k
        self.s += v * k

def fmt(v):
    if isinstance(v, int):
        v = float(v)
    return repr(v) if v != int(v) or abs(v) >= 1e16 else "%.1f" % v

def lab(d):
    return "{" + ",".join('%s="%s"' % (k, v) for k, v in d.items()) + "}"

def hist_text(name, doc, h, labels):
    out = ["# HELP %s %s" % (name, doc), "# TYPE %s histogram" % name]
    for ub, c in zip(h.b, h.c):
        le = str(float(ub)) if isinstance(ub, float) else "%.1f" % ub
        out.append("%s_bucket%s %s" % (name, lab(dict(le=le, **labels)), fmt(c)))
    out.append("%s_bucket%s %s" % (name, lab(dict(le="+Inf", **labels)), fmt(h.n)))
    out.append("%s_count%s %s" % (name, lab(labels), fmt(h.n)))
    out.append("%s_sum%s %s" % (name, lab(labels), fmt(h.s)))
    return out

class V1Metrics:
    def __init__(self, model, max_model_len, capture_sizes, cache_info):
        self.L = {"model_name": model}
        self.cache_info = cache_info
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.pq = 0
        self.ph = 0
        self.preempt = 0
        self.prompt = 0
        self.gen = 0
        self.success = {"stop": 0, "length": 0, "abort": 0}
        self.h_prompt = Hist(b125(max_model_len))
        self.h_gen = Hist(b125(max_model_len))
        self.h_iter = Hist(sorted(capture_sizes))
        self.h_ttft = Hist(TTFT_B)
        self.h_tpot = Hist(TPOT_B)
        self.h_e2e = Hist(LAT_B)
        self.h_queue = Hist(LAT_B)
        self.h_inf = Hist(LAT_B)
        self.h_prefill = Hist(LAT_B)
        self.h_decode = Hist(LAT_B)

    def text(self):
        L = self.L
        o = []
        def g(name, doc, v, typ="gauge", labels=None):
            o.append("# HELP %s %s" % (name, doc))
            o.append("# TYPE %s %s" % (name, typ))
            o.append("%s%s %s" % (name, lab(labels or L), fmt(v)))
        g("vllm:num_requests_running", "Number of requests in model execution batches.", self.running)
        g("vllm:num_requests_waiting", "Number of requests waiting to be processed.", self.waiting)
        g("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", self.kv)
        g("vllm:gpu_prefix_cache_queries_total", "GPU prefix cache queries, in terms of number of queried blocks.", self.pq, "counter")

        g("vllm:gpu_prefix_cache_hits_total", "GPU prefix cache hits, in terms of number of cached blocks.", self.ph, "counter")

        g("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", self.preempt, "counter")

        g("vllm:prompt_tokens_total", "Number of prefill tokens processed.", self.prompt, "counter")

        g("vllm:generation_tokens_total", "Number of generation tokens processed.", self.gen, "counter")

        o.append("# HELP vllm:request_success_total Count of successfully processed requests.")
        o.append("# TYPE vllm:request_success_total counter")
        for r in ("stop", "length", "abort"):
            o.append("vllm:request_success_total%s %s" % (lab(dict(L, finished_reason=r)), fmt(self.success[r])))
        o += hist_text("vllm:request_prompt_tokens", "Number of prefill tokens processed.", self.h_prompt, L)
        o += hist_text("vllm:request_generation_tokens", "Number of generation tokens processed.", self.h_gen, L)
        o += hist_text("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", self.h_iter, L)
        o += hist_text("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", self.h_ttft, L)
        o += hist_text("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", self.h_tpot, L)
        o += hist_text("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", self.h_e2e, L)
        o += hist_text("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", self.h_queue, L)
        o += hist_text("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", self.h_inf, L)
        o += hist_text("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", self.h_prefill, L)
        o += hist_text("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", self.h_decode, L)
        o.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
        o.append("# TYPE vllm:cache_config_info gauge")
        o.append("vllm:cache_config_info%s 1.0" % lab(self.cache_info))
        return "\n".join(o) + "\n"
