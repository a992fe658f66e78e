"""Bundle for zya-lmcache-mooncake-retrieve-slower-than-recompute (vLLM 0.9.1 V1 families, LMCache + Mooncake store)."""
import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import pdsim as P

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zya-lmcache-mooncake-retrieve-slower-than-recompute" / "bundle"
MODEL = "vllm_cpu_offload"
MML = 24784
BS = 16
POOL = 168960                 # blocks: 2,703,360 tokens (assumed, 4x L20 at 0.9)
T_SERVE = 1749549600.0        # 2025-06-10 10:00 UTC
W0 = T_SERVE + 300.0
N, IV = 61, 5.0
RUNS = [(W0 + 30.0, 0.75625, False), (W0 + 150.0, 1.8125, True)]   # (start, step s, external hit)
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
PREFILL_TOK_B = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]


class R:
    def __init__(self, t_arr, prompt, t_sched, t_first, hit):
        self.t_arr, self.prompt, self.t_sched, self.t_first, self.t_end, self.hit = t_arr, prompt, t_sched, t_first, t_first, hit


def main():
    rng = random.Random(467)
    prompts = [10000] * 32        # "32 requests of 10k tokens each"
    reqs = []
    for start, step, hit in RUNS:
        for i, p in enumerate(prompts):
            arr = start + rng.random() * 0.05
            k = i // 2
            reqs.append(R(round(arr, 4), p, start + 0.05 + k * step, start + 0.05 + (k + 1) * step, hit))
    return reqs


def scrape(reqs, t, created):
    lab = {"engine": "0", "model_name": MODEL}
    running = [r for r in reqs if r.t_sched <= t < r.t_end]
    waiting = [r for r in reqs if r.t_arr <= t < r.t_sched]
    usage = sum(math.ceil(r.prompt / BS) for r in running) / POOL
    first = [r for r in reqs if r.t_first <= t]
    done = first
    e = P.Expo()
    e.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", [(lab, len(running))])
    e.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(lab, len(waiting))])
    e.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", [(lab, round(usage, 6))])
    e.counter("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", [(lab, 0)], created)
    e.counter("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", [(lab, 0)], created)
    e.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [(lab, round(usage, 6))])
    e.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", [(lab, 0)], created)
    e.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [(lab, 0)], created)
    e.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(lab, 0)], created)
    e.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [(lab, sum(r.prompt for r in first))], created)
    e.counter("vllm:generation_tokens", "Number of generation tokens processed.", [(lab, len(first))], created)
    succ = [({**lab, "finished_reason": fr}, len(done) if fr == "length" else 0) for fr in ("stop", "length", "abort")]
    e.counter("vllm:request_success", "Count of successfully processed requests.", succ, created)
    b = P.b125(MML)
    e.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", lab, [r.prompt for r in done], b, created)
    e.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", lab, [1 for r in done], b, created)
    it = []
    for start, step, hit in RUNS:
        for k in range(16):
            if start + 0.05 + (k + 1) * step <= t:
                it.append(2 if hit else 20000)
    e.hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", lab, it, P.ITER_B, created)
    e.hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", lab, [1 for r in reqs if r.t_arr <= t], b, created)
    e.hist("vllm:request_params_n", "Histogram of the n request parameter.", lab, [1 for r in reqs if r.t_arr <= t], P.N_B, created)
    e.hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", lab, [1 for r in done], b, created)
    e.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lab, [r.t_first - r.t_arr for r in first], P.TTFT_B, created)
    e.hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", lab, [], TPOT_B, created)
    e.hist("vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", lab, [(r.t_first - r.t_sched) / r.prompt for r in done], PREFILL_TOK_B, created)
    e.hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", lab, [r.t_end - r.t_arr for r in done], P.LAT_B, created)
    e.hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", lab, [r.t_sched - r.t_arr for r in done], P.LAT_B, created)
    e.hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", lab, [r.t_end - r.t_sched for r in done], P.LAT_B, created)
    e.hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", lab, [r.t_first - r.t_sched for r in done], P.LAT_B, created)
    e.hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", lab, [0.0 for r in done], P.LAT_B, created)
    ci = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(POOL), "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4", "engine": "0"}
    e.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", [(ci, 1)])
    return e.text()


def ts(t, lm=False):
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int(d.microsecond / 1000):03d}" if lm else d.strftime("%m-%d %H:%M:%S")


def build():
    reqs = main()
    created = T_SERVE + 82.0
    scrapes = [(round(W0 + k * IV + 0.2, 3), scrape(reqs, W0 + k * IV + 0.2, created)) for k in range(N)]
    L = [f"INFO {ts(T_SERVE)} [__init__.py:244] Automatically detected platform cuda.",
         f"INFO {ts(T_SERVE+2)} [api_server.py:1287] vLLM API server version 0.9.1",
         f"INFO {ts(T_SERVE+2)} [cli_args.py:309] non-default args: {{'host': '0.0.0.0', 'model': 'DeepSeek-R1-Distill-Qwen-7B', 'trust_remote_code': True, 'max_model_len': 24784, 'max_seq_len_to_capture': 10000, 'served_model_name': ['vllm_cpu_offload'], 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': False, 'max_num_seqs': 64, 'enable_chunked_prefill': False, 'disable_log_requests': True, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}}",
         f"INFO {ts(T_SERVE+9)} [core.py:69] Initializing a V1 LLM engine (v0.9.1) with config: model='DeepSeek-R1-Distill-Qwen-7B', tensor_parallel_size=4, max_seq_len=24784, served_model_name=vllm_cpu_offload, enable_prefix_caching=False, chunked_prefill_enabled=False",
         f"(VllmWorker rank=0 pid=30512) INFO {ts(T_SERVE+31)} [gpu_model_runner.py:1595] Model loading took 3.5547 GiB and 12.480917 seconds",
         f"INFO {ts(T_SERVE+70)} [kv_cache_utils.py:715] GPU KV cache size: 2,703,360 tokens",
         f"INFO {ts(T_SERVE+70)} [kv_cache_utils.py:719] Maximum concurrency for 24,784 tokens per request: 109.08x",
         f"INFO {ts(T_SERVE+82)} [api_server.py:1349] Starting vLLM API server on http://0.0.0.0:8000"]
    ev = []
    for n, r in enumerate(reqs):
        rid = f"cmpl-{(n * 2654435761) % 16**8:08x}{n:04d}-0"
        if r.hit:
            ev.append((r.t_arr + 0.01, f"[{ts(r.t_arr + 0.01, True)}] LMCache INFO: Reqid: {rid}, Total tokens {r.prompt}, LMCache hit tokens: {r.prompt}, need to load: {r.prompt - 1} (vllm_v1_adapter.py:836:lmcache.integration.vllm.vllm_v1_adapter)"))
        else:
            ev.append((r.t_arr + 0.01, f"[{ts(r.t_arr + 0.01, True)}] LMCache INFO: Reqid: {rid}, Total tokens {r.prompt}, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:836:lmcache.integration.vllm.vllm_v1_adapter)"))
    tl = W0
    last = (0, 0)
    while tl <= W0 + (N - 1) * IV + 5:
        tl += 10.0
        p = sum(r.prompt for r in reqs if r.t_first <= tl)
        g = sum(1 for r in reqs if r.t_first <= tl)
        run = sum(1 for r in reqs if r.t_sched <= tl < r.t_end)
        wait = sum(1 for r in reqs if r.t_arr <= tl < r.t_sched)
        u = sum(math.ceil(r.prompt / BS) for r in reqs if r.t_sched <= tl < r.t_end) / POOL
        pt, gt = (p - last[0]) / 10, (g - last[1]) / 10
        if pt or gt or last != (0, 0) and (p, g) != last or run or wait:
            ev.append((tl, f"INFO {ts(tl)} [loggers.py:118] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {u*100:.1f}%, Prefix cache hit rate: 0.0%"))
        last = (p, g)
    ev.sort(key=lambda x: x[0])
    L += [x[1] for x in ev]
    gpu = [{"t": round(W0 + k * IV + 0.3, 3), "devices": [{"index": i, "name": "NVIDIA L20", "memory_total": 46068 * 2**20,
            "memory_used": 41802 * 2**20, "processes": [{"pid": 30512 + i, "name": "python3", "used_memory": 41280 * 2**20}]} for i in range(4)]}
           for k in range(N)]
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8000",
                "started_at": W0, "ended_at": W0 + (N - 1) * IV + 0.2, "interval_s": IV,
                "notes": "LMCache + Mooncake store backend test: 32 x 10k-token prompts, max_tokens 1, sent twice (store run, then retrieve run)"}
    server = {"version": {"version": "0.9.1"}, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(W0),
              "owned_by": "vllm", "root": "DeepSeek-R1-Distill-Qwen-7B", "parent": None, "max_model_len": MML}]}, "health": 200}
    kv = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
    argv = ["vllm", "serve", "DeepSeek-R1-Distill-Qwen-7B", "--trust-remote-code", "--served-model-name", MODEL,
            "--max-model-len", "24784", "--max-seq-len-to-capture", "10000", "--max-num-seqs", "64",
            "--gpu-memory-utilization", "0.9", "--no-enable-chunked-prefill", "--no-enable-prefix-caching",
            "--disable-log-requests", "--host", "0.0.0.0", "-tp", "4", "--kv-transfer-config", kv]
    eargs = {"argv": argv, "args": {"model": "DeepSeek-R1-Distill-Qwen-7B", "served-model-name": MODEL, "max-model-len": 24784,
             "max-num-seqs": 64, "gpu-memory-utilization": 0.9, "enable-chunked-prefill": False,
             "enable-prefix-caching": False, "tensor-parallel-size": 4, "kv-transfer-config": kv}}
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
          "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
          "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
          "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 10000, "sliding_window": 4096,
          "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.44.0", "use_cache": True,
          "use_mrope": False, "use_sliding_window": False, "vocab_size": 152064}
    P.write_bundle(OUT, manifest, scrapes, server, eargs, mc, gpu, "\n".join(L) + "\n")
    return reqs


if __name__ == "__main__":
    reqs = build()
    for hit in (False, True):
        tt = [r.t_first - r.t_arr for r in reqs if r.hit == hit]
        print(hit, round(sum(tt), 2), round(sum(tt) / len(tt), 2), round(max(r.t_first for r in reqs if r.hit == hit) - min(r.t_arr for r in reqs if r.hit == hit), 2))
