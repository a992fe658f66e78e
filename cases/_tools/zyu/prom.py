"""zyu: V1-engine Prometheus exposition (model_name + engine labels, counters with
_total) for the late vLLM line: no vllm:gpu_* series, no time_per_output_token (ITL
and per-request TPOT instead). Names and buckets read from a vllm/v1/metrics/loggers.py
of that line (PrometheusStatLogger). Also a V0 variant (vllm/engine/metrics.py names)
is not needed here. Counters carry _total on their HELP/TYPE lines as
prometheus_client's text exposition writes them. Pure stdlib; written for the zyu cases."""
import json
import os


def fmt(v):
    if v == float("inf"):
        return "+Inf"
    return repr(float(v))


def lbl(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}" if d else ""


def one_two_five(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


class Hist:
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * (len(self.b) + 1)
        self.sum = 0.0
        self.n = 0

    def observe(self, v, k=1):
        for i, ub in enumerate(self.b):
            if v <= ub:
                self.c[i] += k
                break
        else:
            self.c[-1] += k
        self.sum += v * k
        self.n += k

    def lines(self, name, labels):
        out, cum = [], 0
        for i, ub in enumerate(self.b):
            cum += self.c[i]
            out.append(f"{name}_bucket{lbl({**labels, 'le': fmt(ub)})} {fmt(cum)}")
        cum += self.c[-1]
        out.append(f"{name}_bucket{lbl({**labels, 'le': '+Inf'})} {fmt(cum)}")
        out.append(f"{name}_count{lbl(labels)} {fmt(self.n)}")
        out.append(f"{name}_sum{lbl(labels)} {fmt(round(self.sum, 6))}")
        return out


def family(name, typ, doc, lines):
    return [f"# HELP {name} {doc}", f"# TYPE {name} {typ}"] + lines


TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
          7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
         10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
REASONS = ["stop", "length", "abort", "error"]

HDOC = [
    ("vllm:request_prompt_tokens", "Number of prefill tokens processed."),
    ("vllm:request_generation_tokens", "Number of generation tokens processed."),
    ("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step."),
    ("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens."),
    ("vllm:request_params_n", "Histogram of the n request parameter."),
    ("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter."),
    ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds."),
    ("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds."),
    ("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request."),
    ("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds."),
    ("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request."),
    ("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request."),
    ("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request."),
    ("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request."),
    ("vllm:request_prefill_kv_computed_tokens", "Histogram of new KV tokens computed during prefill (excluding cached tokens)."),
]


class Engine:
    def __init__(self, max_model_len):
        mb = one_two_five(max_model_len)
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = dict(prefix_q=0, prefix_h=0, ext_q=0, ext_h=0, preempt=0, prompt=0, gen=0)
        self.success = {r: 0 for r in REASONS}
        B = {"vllm:request_prompt_tokens": mb, "vllm:request_generation_tokens": mb,
             "vllm:iteration_tokens_total": ITER_B, "vllm:request_max_num_generation_tokens": mb,
             "vllm:request_params_n": [1, 2, 5, 10, 20], "vllm:request_params_max_tokens": mb,
             "vllm:time_to_first_token_seconds": TTFT_B, "vllm:inter_token_latency_seconds": ITL_B,
             "vllm:request_time_per_output_token_seconds": ITL_B,
             "vllm:request_prefill_kv_computed_tokens": mb}
        self.h = {n: Hist(B.get(n, LAT_B)) for n, _ in HDOC}
        self.h["tpot"] = Hist(ITL_B)   # deprecated vllm:time_per_output_token_seconds (0.11 line)

    def first_token(self, ttft, max_tokens):
        self.h["vllm:time_to_first_token_seconds"].observe(ttft)
        self.h["vllm:request_max_num_generation_tokens"].observe(max_tokens)
        self.h["vllm:request_params_n"].observe(1)

    def finish(self, prompt, gen, max_tokens, queued, prefill, decode, reason="stop", cached=0):
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
        h["vllm:request_prefill_kv_computed_tokens"].observe(prompt - cached)
        if gen > 1:
            h["vllm:request_time_per_output_token_seconds"].observe(decode / (gen - 1))


def render(engines, model, cache_info, line="late", spec=None):
    """line: "late" (0.13+: engine_sleep_state, prefill_kv_computed) or "0.11" (deprecated
    time_per_output_token still exported, neither of those two yet). spec: dict of
    spec-decode counters (drafts, draft_tokens, accepted, per_pos list) or None."""
    out = []
    L = {i: {"model_name": model, "engine": str(i)} for i in engines}
    out += family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                  [f"vllm:num_requests_running{lbl(L[i])} {fmt(e.running)}" for i, e in engines.items()])
    out += family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                  [f"vllm:num_requests_waiting{lbl(L[i])} {fmt(e.waiting)}" for i, e in engines.items()])
    if line == "late":
      out += family("vllm:engine_sleep_state", "gauge",
                  "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
                  "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
                  [f"vllm:engine_sleep_state{lbl({**L[i], 'sleep_state': s})} {fmt(1 if s == 'awake' else 0)}"
                   for i in engines for s in ("awake", "weights_offloaded", "discard_all")])
    out += family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                  [f"vllm:kv_cache_usage_perc{lbl(L[i])} {fmt(round(e.kv, 6))}" for i, e in engines.items()])
    for key, name, doc in [
        ("prefix_q", "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens."),
        ("prefix_h", "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."),
        ("ext_q", "vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens."),
        ("ext_h", "vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens."),
        ("preempt", "vllm:num_preemptions", "Cumulative number of preemption from the engine."),
        ("prompt", "vllm:prompt_tokens", "Number of prefill tokens processed."),
        ("gen", "vllm:generation_tokens", "Number of generation tokens processed."),
    ]:
        out += family(name + "_total", "counter", doc,
                      [f"{name}_total{lbl(L[i])} {fmt(e.c[key])}" for i, e in engines.items()])
    out += family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                  [f"vllm:request_success_total{lbl({**L[i], 'finished_reason': r})} {fmt(e.success[r])}"
                   for i, e in engines.items() for r in REASONS])
    for name, doc in HDOC:
        if line == "0.11" and name == "vllm:request_prefill_kv_computed_tokens":
            continue
        lines = []
        for i, e in engines.items():
            lines += e.h[name].lines(name, L[i])
        out += family(name, "histogram", doc, lines)
    if line == "0.11":
        lines = []
        for i, e in engines.items():
            lines += e.h["tpot"].lines("vllm:time_per_output_token_seconds", L[i])
        out += family("vllm:time_per_output_token_seconds", "histogram",
                      "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.", lines)
    if spec is not None:
        for key, name, doc in [("drafts", "vllm:spec_decode_num_drafts", "Number of spec decoding drafts."),
                               ("draft_tokens", "vllm:spec_decode_num_draft_tokens", "Number of draft tokens."),
                               ("accepted", "vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.")]:
            out += family(name + "_total", "counter", doc,
                          [f"{name}_total{lbl(L[i])} {fmt(spec[key])}" for i in engines])
        out += family("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter",
                      "Accepted tokens per draft position.",
                      [f"vllm:spec_decode_num_accepted_tokens_per_pos_total{lbl({**L[i], 'position': str(k)})} {fmt(v)}"
                       for i in engines for k, v in enumerate(spec["per_pos"])])
    out += family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                  [f"vllm:cache_config_info{lbl({**cache_info, 'engine': str(i)})} 1.0" for i in engines])
    return "\n".join(out) + "\n"


def write_bundle(d, manifest, scrapes, server=None, engine_args=None, model_config=None,
                 gpu=None, logs=None):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    for name, obj in [("server.json", server), ("engine_args.json", engine_args),
                      ("model_config.json", model_config)]:
        if obj is not None:
            with open(os.path.join(d, name), "w") as f:
                json.dump(obj, f, indent=1)
    if gpu is not None:
        with open(os.path.join(d, "gpu.jsonl"), "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        with open(os.path.join(d, "logs.txt"), "w") as f:
            f.write(logs)
