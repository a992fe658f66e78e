"""vLLM V1 (0.2x) Prometheus exposition for single-engine servers, names / HELP /
buckets as in vllm/v1/metrics/loggers.py (stored copy with prompt_tokens_by_source,
prompt_tokens_cached, prompt_tokens_recomputed, inter_token_latency) and
vllm/v1/spec_decode/metrics.py (spec_decode_* counters)."""
from common import Hist, family, one_two_five

LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
       120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
         10.0, 20.0, 40.0, 80.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
REASONS = ["stop", "length", "abort"]
SOURCES = ["local_compute", "local_cache_hit", "external_kv_transfer"]

HDOC = {
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:request_max_num_generation_tokens": "Histogram of maximum number of requested generation tokens.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_params_max_tokens": "Histogram of the max_tokens request parameter.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "vllm:request_time_per_output_token_seconds": "Histogram of time_per_output_token_seconds per request.",
    "vllm:e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
}
CDOC = [
    ("prefix_q", "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens."),
    ("prefix_h", "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."),
    ("ext_q", "vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens."),
    ("ext_h", "vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens."),
    ("preempt", "vllm:num_preemptions", "Cumulative number of preemption from the engine."),
    ("prompt", "vllm:prompt_tokens", "Number of prefill tokens processed."),
    ("cached", "vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external)."),
    ("recomputed", "vllm:prompt_tokens_recomputed", "Number of cached tokens recomputed for forward pass."),
    ("gen", "vllm:generation_tokens", "Number of generation tokens processed."),
]


class Engine:
    def __init__(self, max_model_len, external=False, spec_k=0):
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.external = external
        self.spec_k = spec_k
        self.c = {k: 0 for k, _, _ in CDOC}
        self.src = {s: 0 for s in SOURCES}
        self.success = {r: 0 for r in REASONS}
        self.spec = {"drafts": 0, "draft_tokens": 0, "accepted": 0}
        self.spec_pos = [0] * spec_k
        mb = one_two_five(max_model_len)
        self.h = {n: Hist(mb) for n in ["vllm:request_prompt_tokens", "vllm:request_generation_tokens",
                                        "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens"]}
        self.h["vllm:iteration_tokens_total"] = Hist(ITER_B)
        self.h["vllm:request_params_n"] = Hist([1, 2, 5, 10, 20])
        self.h["vllm:time_to_first_token_seconds"] = Hist(TTFT_B)
        self.h["vllm:inter_token_latency_seconds"] = Hist(ITL_B)
        self.h["vllm:request_time_per_output_token_seconds"] = Hist(ITL_B)
        for n in ["vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
                  "vllm:request_inference_time_seconds", "vllm:request_prefill_time_seconds",
                  "vllm:request_decode_time_seconds"]:
            self.h[n] = Hist(LAT)

    def finish(self, prompt, gen, max_tokens, queued, prefill, decode, reason="stop"):
        h = self.h
        self.success[reason] += 1
        h["vllm:e2e_request_latency_seconds"].observe(queued + prefill + decode)
        h["vllm:request_queue_time_seconds"].observe(queued)
        h["vllm:request_prefill_time_seconds"].observe(prefill)
        h["vllm:request_inference_time_seconds"].observe(prefill + decode)
        h["vllm:request_decode_time_seconds"].observe(decode)
        h["vllm:request_prompt_tokens"].observe(prompt)
        h["vllm:request_generation_tokens"].observe(gen)
        h["vllm:request_params_max_tokens"].observe(max_tokens)
        h["vllm:request_max_num_generation_tokens"].observe(max_tokens)
        h["vllm:request_params_n"].observe(1)
        if gen > 1:
            h["vllm:request_time_per_output_token_seconds"].observe(decode / (gen - 1))


def render(engines, model, cache_info):
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
    for key, name, doc in CDOC:
        if key in ("ext_q", "ext_h") and not any(e.external for e in engines.values()):
            continue
        out += family(name + "_total", "counter", doc, [(name + "_total", L[i], float(e.c[key])) for i, e in engines.items()])
    out += family("vllm:prompt_tokens_by_source_total", "counter", "Number of prompt tokens by source.",
                  [("vllm:prompt_tokens_by_source_total", {**L[i], "source": s}, float(e.src[s]))
                   for i, e in engines.items() for s in SOURCES])
    out += family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                  [("vllm:request_success_total", {**L[i], "finished_reason": r}, float(e.success[r]))
                   for i, e in engines.items() for r in REASONS])
    if any(e.spec_k for e in engines.values()):
        for key, name, doc in [("drafts", "vllm:spec_decode_num_drafts", "Number of spec decoding drafts."),
                               ("draft_tokens", "vllm:spec_decode_num_draft_tokens", "Number of draft tokens."),
                               ("accepted", "vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.")]:
            out += family(name + "_total", "counter", doc, [(name + "_total", L[i], float(e.spec[key])) for i, e in engines.items()])
        out += family("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter", "Accepted tokens per draft position.",
                      [("vllm:spec_decode_num_accepted_tokens_per_pos_total", {**L[i], "position": str(p)}, float(v))
                       for i, e in engines.items() for p, v in enumerate(e.spec_pos)])
    for name in HDOC:
        lines = []
        for i, e in engines.items():
            lines += e.h[name].lines(name, L[i])
        out += family(name, "histogram", HDOC[name], lines)
    return "\n".join(out) + "\n"
