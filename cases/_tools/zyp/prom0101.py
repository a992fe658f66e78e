"""V1-engine Prometheus exposition of the vLLM 0.10.1 line, read from
vllm/v1/metrics/loggers.py (stored commit 005a810b): labels model_name + engine,
the deprecated vllm:gpu_cache_usage_perc / vllm:gpu_prefix_cache_* series still
exported beside their renames, counters exposed with _total, no external
prefix-cache series yet. Adapted from writer zyk's v1prom.py."""
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


class EngineMetrics:
    def __init__(self, max_model_len):
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = {k: 0 for k in ["prefix_q", "prefix_h", "preempt", "prompt", "gen"]}
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

    def start(self, max_tokens):
        # observed when the first token comes out (max_num_generation_tokens, n)
        self.h["vllm:request_max_num_generation_tokens"].observe(max_tokens)
        self.h["vllm:request_params_n"].observe(1)

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


def render(engines, model, cache_info, deprecated=True):
    """deprecated=False: 0.11 line, the vllm:gpu_* series no longer exported."""
    out = []
    out += family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                  [("vllm:cache_config_info", {**cache_info, "engine": str(i)}, 1.0) for i in engines])
    L = {i: {"engine": str(i), "model_name": model} for i in engines}
    out += family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                  [("vllm:num_requests_running", L[i], float(e.running)) for i, e in engines.items()])
    out += family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                  [("vllm:num_requests_waiting", L[i], float(e.waiting)) for i, e in engines.items()])
    dep = []
    dep += family("vllm:gpu_cache_usage_perc", "gauge",
                  "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.",
                  [("vllm:gpu_cache_usage_perc", L[i], round(e.kv, 6)) for i, e in engines.items()])
    for key, name, doc in [
        ("prefix_q", "vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead."),
        ("prefix_h", "vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead."),
    ]:
        dep += family(name + "_total", "counter", doc, [(name + "_total", L[i], float(e.c[key])) for i, e in engines.items()])
    if deprecated:
        out += dep
    out += family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                  [("vllm:kv_cache_usage_perc", L[i], round(e.kv, 6)) for i, e in engines.items()])
    for key, name, doc in [
        ("prefix_q", "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens."),
        ("prefix_h", "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."),
        ("preempt", "vllm:num_preemptions", "Cumulative number of preemption from the engine."),
        ("prompt", "vllm:prompt_tokens", "Number of prefill tokens processed."),
        ("gen", "vllm:generation_tokens", "Number of generation tokens processed."),
    ]:
        out += family(name + "_total", "counter", doc, [(name + "_total", L[i], float(e.c[key])) for i, e in engines.items()])
    out += family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                  [("vllm:request_success_total", {**L[i], "finished_reason": r}, float(e.success[r]))
                   for i, e in engines.items() for r in REASONS])
    for name in DOC:
        lines = []
        for i, e in engines.items():
            lines += e.h[name].lines(name, L[i])
        out += family(name, "histogram", DOC[name], lines)
    return "\n".join(out) + "\n"


def cache_info(num_blocks, gmu, prefix=True, block=16, dtype="auto", swap=4):
    return {"block_size": str(block), "cache_dtype": dtype, "calculate_kv_scales": "False",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(gmu),
            "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "mamba_page_size_padded": "None",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(num_blocks), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": str(swap),
            "swap_space_bytes": str(swap * 1024 ** 3)}
