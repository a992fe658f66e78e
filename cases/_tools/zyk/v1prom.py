"""V1-engine (vLLM 0.1x) Prometheus exposition for one engine, from a state
object kept by a simulator. Names and buckets read from vllm/v1/metrics/loggers.py
(stored commit 005a810b); deprecated gpu_* series left out (removed by 0.11),
external_prefix_cache_* added (0.1x)."""
from common import Hist, family, one_two_five

LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
       120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
PPT_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
REASONS = ["stop", "length", "abort"]


class EngineMetrics:
    def __init__(self, max_model_len):
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = {k: 0 for k in ["prefix_q", "prefix_h", "ext_q", "ext_h", "preempt", "prompt", "gen"]}
        self.success = {r: 0 for r in REASONS}
        mb = one_two_five(max_model_len)
        self.h = {
            "vllm:request_prompt_tokens": Hist(mb),
            "vllm:request_generation_tokens": Hist(mb),
            "vllm:iteration_tokens_total": Hist(ITER_B),
            "vllm:request_max_num_generation_tokens": Hist(mb),
            "vllm:request_params_n": Hist([1, 2, 5, 10, 20]),
            "vllm:request_params_max_tokens": Hist(mb),
            "vllm:time_to_first_token_seconds": Hist(TTFT_B),
            "vllm:time_per_output_token_seconds": Hist(TPOT_B),
            "vllm:time_per_prefill_token_request_seconds": Hist(PPT_B),
            "vllm:e2e_request_latency_seconds": Hist(LAT),
            "vllm:request_queue_time_seconds": Hist(LAT),
            "vllm:request_inference_time_seconds": Hist(LAT),
            "vllm:request_prefill_time_seconds": Hist(LAT),
            "vllm:request_decode_time_seconds": Hist(LAT),
        }

    def finish(self, prompt, gen, max_tokens, e2e, queued, prefill, decode, reason="stop"):
        h = self.h
        self.success[reason] += 1
        h["vllm:e2e_request_latency_seconds"].observe(e2e)
        h["vllm:request_queue_time_seconds"].observe(queued)
        h["vllm:request_prefill_time_seconds"].observe(prefill)
        if prompt > 0:
            h["vllm:time_per_prefill_token_request_seconds"].observe(prefill / prompt)
        h["vllm:request_inference_time_seconds"].observe(prefill + decode)
        h["vllm:request_decode_time_seconds"].observe(decode)
        h["vllm:request_prompt_tokens"].observe(prompt)
        h["vllm:request_generation_tokens"].observe(gen)
        h["vllm:request_params_max_tokens"].observe(max_tokens)
        h["vllm:request_max_num_generation_tokens"].observe(max_tokens)
        h["vllm:request_params_n"].observe(1)


DOC = {
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:request_max_num_generation_tokens": "Histogram of maximum number of requested generation tokens.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_params_max_tokens": "Histogram of the max_tokens request parameter.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:time_per_prefill_token_request_seconds": "Time spent per token during prefill  phase in seconds",
    "vllm:e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
}


def render(engines, model, cache_info):
    """engines: dict idx -> EngineMetrics. cache_info: label dict (without engine)."""
    out = []
    out += family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                  [("vllm:cache_config_info", {**cache_info, "engine": str(i)}, 1.0) for i in engines])
    L = {i: {"engine": str(i), "model_name": model} for i in engines}
    out += family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                  [("vllm:num_requests_running", L[i], float(e.running)) for i, e in engines.items()])
    out += family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                  [("vllm:num_requests_waiting", L[i], float(e.waiting)) for i, e in engines.items()])
    out += family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                  [("vllm:kv_cache_usage_perc", L[i], round(e.kv, 6)) for i, e in engines.items()])
    for key, name, doc in [
        ("prefix_q", "vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens."),
        ("prefix_h", "vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens."),
        ("ext_q", "vllm:external_prefix_cache_queries_total", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens."),
        ("ext_h", "vllm:external_prefix_cache_hits_total", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens."),
        ("preempt", "vllm:num_preemptions_total", "Cumulative number of preemption from the engine."),
        ("prompt", "vllm:prompt_tokens_total", "Number of prefill tokens processed."),
        ("gen", "vllm:generation_tokens_total", "Number of generation tokens processed."),
    ]:
        out += family(name, "counter", doc, [(name, L[i], float(e.c[key])) for i, e in engines.items()])
    out += family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                  [("vllm:request_success_total", {**L[i], "finished_reason": r}, float(e.success[r]))
                   for i, e in engines.items() for r in REASONS])
    for name in DOC:
        lines = []
        for i, e in engines.items():
            lines += e.h[name].lines(name, L[i])
        out += family(name, "histogram", DOC[name], lines)
    return "\n".join(out) + "\n"
