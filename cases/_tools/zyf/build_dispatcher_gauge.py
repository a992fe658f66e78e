"""zyf-dispatcher-removed-throughput-gauge: an idle, healthy vLLM 0.7.3 (V0) pod whose only client,
a dispatcher, keeps failing its readiness check because it regex-parses the removed gauge
vllm:avg_generation_throughput_toks_per_s out of /metrics. Families are the V0 0.7-line set
(written from memory of vllm/engine/metrics.py of that line; see the case's assumed:)."""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sim import write_bundle, server_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zyf-dispatcher-removed-throughput-gauge" / "bundle"
T0 = dt.datetime(2025, 3, 20, 16, 35, 20, tzinfo=dt.timezone.utc).timestamp()
INTERVAL, N = 10.0, 31
MODEL = "deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct"
SERVED = "deepseek-coder-v2-lite-instruct"
MML = 32768
GIB = 1024 ** 3
kv_gib = round(79.15 * 0.90, 2) - 29.26 - 0.21 - 2.33          # 39.44 GiB
block_bytes = 16 * 576 * 2 * 27                                   # MLA latent 512 + rope 64, bf16, 27 layers
gpu_blocks = int(kv_gib * GIB // block_bytes)
cpu_blocks = int(4 * GIB // block_bytes)
lab = f'model_name="{SERVED}"'
LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]

def text() -> str:
    L = []
    def fam(n, t, h):
        L.append(f"# HELP {n} {h}"); L.append(f"# TYPE {n} {t}")
    cc = {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space_bytes": str(4 * GIB), "num_gpu_blocks_override": "None",
          "cache_dtype": "auto", "is_attention_free": "False", "sliding_window": "None", "enable_prefix_caching": "False",
          "cpu_offload_gb": "0", "calculate_kv_scales": "False", "num_gpu_blocks": str(gpu_blocks), "num_cpu_blocks": str(cpu_blocks)}
    fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    L.append("vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in cc.items()) + "} 1.0")
    for n, h in (("vllm:num_requests_running", "Number of requests currently running on GPU."),
                 ("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
                 ("vllm:num_requests_swapped", "Number of requests swapped to CPU."),
                 ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage."),
                 ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage."),
                 ("vllm:cpu_prefix_cache_hit_rate", "CPU prefix cache block hit rate."),
                 ("vllm:gpu_prefix_cache_hit_rate", "GPU prefix cache block hit rate.")):
        fam(n, "gauge", h)
        L.append(f"{n}{{{lab}}} {-1.0 if 'prefix_cache_hit' in n else 0.0}")
    for n, h in (("vllm:num_preemptions_total", "Cumulative number of preemption from the engine."),
                 ("vllm:prompt_tokens_total", "Number of prefill tokens processed."),
                 ("vllm:generation_tokens_total", "Number of generation tokens processed."),
                 ("vllm:tokens_total", "Number of prefill plus generation tokens processed.")):
        fam(n, "counter", h)
        L.append(f"{n}{{{lab}}} 0.0")
    # histograms with no observation yet: HELP/TYPE only (labelled children are created on first observe)
    for n, h in (("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step."),
                 ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds."),
                 ("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds."),
                 ("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds."),
                 ("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request."),
                 ("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request."),
                 ("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request."),
                 ("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request."),
                 ("vllm:time_in_queue_requests", "Histogram of time the request spent in the queue in seconds."),
                 ("vllm:model_forward_time_milliseconds", "Histogram of time spent in the model forward pass in ms."),
                 ("vllm:model_execute_time_milliseconds", "Histogram of time spent in the model execute function in ms."),
                 ("vllm:request_prompt_tokens", "Number of prefill tokens processed."),
                 ("vllm:request_generation_tokens", "Number of generation tokens processed."),
                 ("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens."),
                 ("vllm:request_params_n", "Histogram of the n request parameter."),
                 ("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.")):
        fam(n, "histogram", h)
    fam("vllm:request_success_total", "counter", "Count of successfully processed requests.")
    return "\n".join(L) + "\n"

t_boot = T0 - 905.0
def ts(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)
logs = [
    (t_boot, f"INFO {ts(t_boot)} api_server.py:912] vLLM API server version 0.7.3"),
    (t_boot + 0.1, f"INFO {ts(t_boot)} api_server.py:913] args: Namespace(host=None, port=8000, model='{MODEL}', served_model_name=['{SERVED}'], trust_remote_code=True, max_model_len={MML}, gpu_memory_utilization=0.9, block_size=None, enable_prefix_caching=None, tensor_parallel_size=1, swap_space=4, disable_log_requests=True, disable_log_stats=False)"),
    (t_boot + 60, f"INFO {ts(t_boot + 60)} worker.py:267] Memory profiling takes 6.12 seconds\nthe current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB\nmodel weights take 29.26GiB; non_torch_memory takes 0.21GiB; PyTorch activation peak memory takes 2.33GiB; the rest of the memory reserved for KV Cache is {kv_gib:.2f}GiB."),
    (t_boot + 60.1, f"INFO {ts(t_boot + 60)} executor_base.py:111] # cuda blocks: {gpu_blocks}, # CPU blocks: {cpu_blocks}"),
    (t_boot + 60.2, f"INFO {ts(t_boot + 60)} executor_base.py:116] Maximum concurrency for {MML} tokens per request: {gpu_blocks * 16 / MML:.2f}x"),
    (t_boot + 95, f"INFO {ts(t_boot + 95)} llm_engine.py:436] init engine (profile, create kv cache, warmup model) took 34.87 seconds"),
    (t_boot + 96, f"INFO:     Started server process [1]"),
    (t_boot + 96.1, f"INFO:     Waiting for application startup."),
    (t_boot + 96.2, f"INFO:     Application startup complete."),
    (t_boot + 96.3, f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"),
]
# the dispatcher's readiness loop: one /metrics call every 5 s (attempt 38 at 16:35:15)
t = T0 - 5.0
while t <= T0 + (N - 1) * INTERVAL:
    logs.append((t, f'INFO:     10.42.3.17:{48000 + int(t) % 1000} - "GET /metrics HTTP/1.1" 200 OK'))
    t += 5.0
logs.sort()
gpu = [{"t": round(T0 + k * INTERVAL, 3), "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920,
        "memory_used": 77225082880, "processes": [{"pid": 1, "name": "python3", "used_memory": 76695552000}]}]} for k in range(N)]
mc = {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
      "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
      "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
      "max_position_embeddings": 163840, "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
      "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096, "type": "yarn"}, "torch_dtype": "bfloat16",
      "vocab_size": 102400, "bos_token_id": 100000, "eos_token_id": 100001, "tie_word_embeddings": False}
write_bundle(OUT, scrapes=[(T0 + k * INTERVAL, text()) for k in range(N)], interval=INTERVAL,
             endpoint="http://vllm-consumer-deepseek-coder-v2-lite-instruct-0:8000",
             notes="vLLM pod behind the aristote dispatcher; the dispatcher logs 'Waiting for vllm to be ready (38/100): NoneType object has no attribute group' on every try",
             server=server_json("0.7.3", SERVED, MODEL, MML, int(t_boot + 96)),
             engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL, "--served-model-name", SERVED,
                                   "--trust-remote-code", "--max-model-len", str(MML), "--disable-log-requests"],
                          "args": {"model": MODEL, "served-model-name": SERVED, "trust-remote-code": True, "max-model-len": MML}},
             model_config=mc, gpu=gpu, logs=logs)
print("ok", gpu_blocks, cpu_blocks, kv_gib)
