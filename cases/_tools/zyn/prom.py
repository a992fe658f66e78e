"""zyn builders: V1 Prometheus exposition (names, help texts and buckets read from
vllm/v1/metrics/loggers.py of the 0.10 line, stored commit 005a810b), cumulative
histograms, bundle writer. Pure stdlib."""
import json
import os

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
PPT_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
REASONS = ["stop", "length", "abort"]


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


def num(v):
    return repr(float(v))


def lab(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}" if d else ""


class H:
    def __init__(self, b):
        self.b = list(b)
        self.c = [0] * (len(self.b) + 1)
        self.s = 0.0
        self.n = 0

    def obs(self, v, k=1):
        if k <= 0:
            return
        for i, ub in enumerate(self.b):
            if v <= ub:
                self.c[i] += k
                break
        else:
            self.c[-1] += k
        self.s += v * k
        self.n += k

    def lines(self, name, L):
        out, cum = [], 0
        for i, ub in enumerate(self.b):
            cum += self.c[i]
            out.append(f"{name}_bucket{lab({**L, 'le': num(ub)})} {num(cum)}")
        out.append(f"{name}_bucket{lab({**L, 'le': '+Inf'})} {num(self.n)}")
        out.append(f"{name}_count{lab(L)} {num(self.n)}")
        out.append(f"{name}_sum{lab(L)} {num(self.s)}")
        return out


HDOC = [
    ("vllm:request_prompt_tokens", "Number of prefill tokens processed.", "len"),
    ("vllm:request_generation_tokens", "Number of generation tokens processed.", "len"),
    ("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITER_B),
    ("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", "len"),
    ("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20]),
    ("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", "len"),
    ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B),
    ("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B),
    ("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", PPT_B),
    ("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B),
    ("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B),
    ("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B),
    ("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B),
    ("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B),
]


class Engine:
    """State of one V1 engine as /metrics shows it."""

    def __init__(self, max_model_len, deprecated_gpu=True):
        self.dep = deprecated_gpu
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = dict(pq=0, ph=0, pre=0, prompt=0, gen=0)
        self.succ = {r: 0 for r in REASONS}
        self.h = {n: H(b125(max_model_len) if b == "len" else b) for n, _, b in HDOC}

    def finish(self, prompt, gen, max_tokens, e2e, queued, prefill, decode, reason="stop"):
        h = self.h
        self.succ[reason] += 1
        h["vllm:e2e_request_latency_seconds"].obs(e2e)
        h["vllm:request_queue_time_seconds"].obs(queued)
        h["vllm:request_prefill_time_seconds"].obs(prefill)
        if prompt:
            h["vllm:time_per_prefill_token_request_seconds"].obs(prefill / prompt)
        h["vllm:request_inference_time_seconds"].obs(prefill + decode)
        h["vllm:request_decode_time_seconds"].obs(decode)
        h["vllm:request_prompt_tokens"].obs(prompt)
        h["vllm:request_generation_tokens"].obs(gen)
        h["vllm:request_params_max_tokens"].obs(max_tokens)

    def admit(self, max_tokens):
        self.h["vllm:request_max_num_generation_tokens"].obs(max_tokens)
        self.h["vllm:request_params_n"].obs(1)


def fam(name, typ, doc, rows):
    out = [f"# HELP {name} {doc}", f"# TYPE {name} {typ}"]
    for r in rows:
        out.append(r if isinstance(r, str) else f"{r[0]}{lab(r[1])} {num(r[2])}")
    return out


def render(e, model, cache_info, engine="0"):
    L = {"engine": engine, "model_name": model}
    o = []
    o += fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
             [("vllm:num_requests_running", L, e.running)])
    o += fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
             [("vllm:num_requests_waiting", L, e.waiting)])
    if e.dep:
        o += fam("vllm:gpu_cache_usage_perc", "gauge",
                 "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.",
                 [("vllm:gpu_cache_usage_perc", L, round(e.kv, 6))])
        o += fam("vllm:gpu_prefix_cache_queries", "counter",
                 "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.",
                 [("vllm:gpu_prefix_cache_queries_total", L, e.c["pq"])])
        o += fam("vllm:gpu_prefix_cache_hits", "counter",
                 "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.",
                 [("vllm:gpu_prefix_cache_hits_total", L, e.c["ph"])])
    o += fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
             [("vllm:kv_cache_usage_perc", L, round(e.kv, 6))])
    o += fam("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens.",
             [("vllm:prefix_cache_queries_total", L, e.c["pq"])])
    o += fam("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.",
             [("vllm:prefix_cache_hits_total", L, e.c["ph"])])
    o += fam("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.",
             [("vllm:num_preemptions_total", L, e.c["pre"])])
    o += fam("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.",
             [("vllm:prompt_tokens_total", L, e.c["prompt"])])
    o += fam("vllm:generation_tokens", "counter", "Number of generation tokens processed.",
             [("vllm:generation_tokens_total", L, e.c["gen"])])
    o += fam("vllm:request_success", "counter", "Count of successfully processed requests.",
             [("vllm:request_success_total", {**L, "finished_reason": r}, e.succ[r]) for r in REASONS])
    for n, doc, _ in HDOC:
        o += fam(n, "histogram", doc, e.h[n].lines(n, L))
    o += fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
             [("vllm:cache_config_info", {**cache_info, "engine": engine}, 1)])
    return "\n".join(o) + "\n"


def write_bundle(path, manifest, scrapes, server=None, engine_args=None, model_config=None,
                 gpu=None, logs=None):
    os.makedirs(path, exist_ok=True)

    def dump(fn, obj):
        with open(os.path.join(path, fn), "w") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")
    dump("manifest.json", manifest)
    with open(os.path.join(path, "metrics.jsonl"), "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        dump("server.json", server)
    if engine_args is not None:
        dump("engine_args.json", engine_args)
    if model_config is not None:
        dump("model_config.json", model_config)
    if gpu is not None:
        with open(os.path.join(path, "gpu.jsonl"), "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        with open(os.path.join(path, "logs.txt"), "w") as f:
            f.write(logs)
