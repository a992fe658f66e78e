"""Writer zya: bundle for zya-deferred-wedge-max-num-seqs (vLLM issue #53130).
Family names, HELP texts and bucket layouts are read from vLLM's vllm/v1/metrics/loggers.py
(PrometheusStatLogger); vllm:num_requests_waiting_by_reason carries no HELP line (text not read
from source). Cumulative series only rise; gauges are held at the quoted post-collapse values."""
import json, math, random
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "zya-deferred-wedge-max-num-seqs" / "bundle"
MODEL = "Qwen/Qwen3-32B"
MML = 32768
T0 = 1755000900.0  # 12:15 (assumed date)
N, DT = 41, 15.0
rnd = random.Random(53130)
LAB = f'engine="0",model_name="{MODEL}"'

def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
IT_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]

# history before the window (4 days of serving, then the collapse at 10:57)
done = 118_400
ttft_hist = [rnd.lognormvariate(math.log(0.6), 0.8) for _ in range(3000)]
scale = done / 3000
e2e_hist = [rnd.lognormvariate(math.log(9.0), 0.7) for _ in range(3000)]
tpot_hist = [rnd.uniform(0.03, 0.06) for _ in range(3000)]
ptoks = [int(rnd.lognormvariate(math.log(3500), 0.8)) % MML + 50 for _ in range(3000)]
gtoks = [int(rnd.lognormvariate(math.log(400), 0.7)) % 8000 + 1 for _ in range(3000)]

def hist(lines, name, help_, buckets, vals, sc):
    lines.append(f"# HELP {name} {help_}")
    lines.append(f"# TYPE {name} histogram")
    s = sorted(vals)
    j = 0
    for le in buckets:
        while j < len(s) and s[j] <= le:
            j += 1
        lines.append(f'{name}_bucket{{{LAB},le="{float(le)}"}} {float(round(j * sc))}')
    lines.append(f'{name}_bucket{{{LAB},le="+Inf"}} {float(round(len(s) * sc))}')
    lines.append(f"{name}_count{{{LAB}}} {float(round(len(s) * sc))}")
    lines.append(f"{name}_sum{{{LAB}}} {round(sum(s) * sc, 3)}")

def counter(lines, name, help_, v, extra=""):
    lines.append(f"# HELP {name} {help_}")
    lines.append(f"# TYPE {name} counter")
    lines.append(f"{name}_total{{{LAB}{extra}}} {float(v)}")

def gauge(lines, name, help_, v, extra=""):
    if help_:
        lines.append(f"# HELP {name} {help_}")
    lines.append(f"# TYPE {name} gauge")
    lines.append(f"{name}{{{LAB}{extra}}} {float(v)}")

P0, G0, Q0, H0, IT0 = 4.21e8, 4.74e7, 4.21e8, 2.9e8, 2.05e6
rows, logs = [], []
prompt = P0; gen = G0; q = Q0; h = H0; it_cnt = IT0; it_sum = P0 + G0
for i in range(N):
    t = T0 + i * DT
    if i:
        dp = 1946.0 * DT * rnd.uniform(0.93, 1.07)
        dg = 0.48 * DT * rnd.uniform(0.5, 1.5)
        prompt += round(dp); gen += round(dg)
        q += round(dp); h += round(dp * 0.18)
        steps = round(0.2 * DT)
        it_cnt += steps; it_sum += round(dp) + round(dg)
    deferred = 468 + min(5, i // 8)
    waiting = deferred + 19
    L = []
    gauge(L, "vllm:num_requests_running", "Number of requests in model execution batches.", 4)
    gauge(L, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting)
    L.append("# TYPE vllm:num_requests_waiting_by_reason gauge")
    L.append(f'vllm:num_requests_waiting_by_reason{{{LAB},reason="capacity"}} 19.0')
    L.append(f'vllm:num_requests_waiting_by_reason{{{LAB},reason="deferred"}} {float(deferred)}')
    gauge(L, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", round(0.200 + rnd.uniform(-0.003, 0.003), 4))
    counter(L, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", q)
    counter(L, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", h)
    counter(L, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
    counter(L, "vllm:prompt_tokens", "Number of prefill tokens processed.", prompt)
    counter(L, "vllm:generation_tokens", "Number of generation tokens processed.", gen)
    L.append("# HELP vllm:request_success Count of successfully processed requests.")
    L.append("# TYPE vllm:request_success counter")
    for r, v in (("stop", 104_100), ("length", 14_300), ("abort", 0)):
        L.append(f'vllm:request_success_total{{{LAB},finished_reason="{r}"}} {float(v)}')
    hist(L, "vllm:request_prompt_tokens", "Number of prefill tokens processed.", b125(MML), ptoks, scale)
    hist(L, "vllm:request_generation_tokens", "Number of generation tokens processed.", b125(MML), gtoks, scale)
    L.append("# HELP vllm:iteration_tokens_total Histogram of number of tokens per engine_step.")
    L.append("# TYPE vllm:iteration_tokens_total histogram")
    # all iterations assigned to buckets in fixed proportions of the pre-window mix, new ones land >8192
    base = IT0
    for le in IT_B:
        frac = {1: 0.0, 8: 0.02, 16: 0.05, 32: 0.12, 64: 0.3, 128: 0.5, 256: 0.66, 512: 0.75, 1024: 0.82, 2048: 0.9, 4096: 0.96, 8192: 0.99}.get(le, 1.0)
        v = round(base * frac) if le <= 8192 else it_cnt
        L.append(f'vllm:iteration_tokens_total_bucket{{{LAB},le="{float(le)}"}} {float(v)}')
    L.append(f'vllm:iteration_tokens_total_bucket{{{LAB},le="+Inf"}} {float(it_cnt)}')
    L.append(f"vllm:iteration_tokens_total_count{{{LAB}}} {float(it_cnt)}")
    L.append(f"vllm:iteration_tokens_total_sum{{{LAB}}} {float(it_sum)}")
    hist(L, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B, ttft_hist, scale)
    hist(L, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B, tpot_hist, scale)
    hist(L, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B, e2e_hist, scale)
    L.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    L.append("# TYPE vllm:cache_config_info gauge")
    L.append('vllm:cache_config_info{block_size="16",cache_dtype="auto",calculate_kv_scales="False",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="16384",prefix_caching_hash_algo="sha256",sliding_window="None",swap_space="4",swap_space_bytes="4294967296"} 1.0')
    rows.append({"t": t, "status": 200, "text": "\n".join(L) + "\n"})
    if i % 2 == 0 and i:
        import datetime as dt
        ts = dt.datetime.utcfromtimestamp(t).strftime("%m-%d %H:%M:%S")
        logs.append(f"(APIServer pid=1) INFO {ts} [loggers.py:123] Engine 000: Avg prompt throughput: {1946 * rnd.uniform(0.93,1.07):.1f} tokens/s, Avg generation throughput: {0.48 * rnd.uniform(0.5,1.5):.1f} tokens/s, Running: 4 reqs, Waiting: {waiting} reqs, GPU KV cache usage: 20.0%, Prefix cache hit rate: 18.0%")

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
(OUT / "logs.txt").write_text("\n".join(logs) + "\n")
(OUT / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://vllm:8000", "started_at": T0, "ended_at": T0 + (N - 1) * DT, "interval_s": DT, "notes": "post-collapse window; /health 200 throughout"}, indent=1))
(OUT / "server.json").write_text(json.dumps({"version": {"version": "0.20.1"}, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "max_model_len": MML}]}, "health": 200}, indent=1))
(OUT / "engine_args.json").write_text(json.dumps({"argv": None, "args": {"model": MODEL, "tensor-parallel-size": 2, "max-num-seqs": 256, "max-model-len": MML, "enable-prefix-caching": True, "gpu-memory-utilization": 0.9}}, indent=1))
(OUT / "model_config.json").write_text(json.dumps({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "torch_dtype": "bfloat16", "max_position_embeddings": 40960, "vocab_size": 151936}, indent=1))
print("ok", len(rows))
