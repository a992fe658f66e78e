"""zyq-ascend-single-request-zero-hit: vllm-ascend, one chat request, 'Prefix cache hit rate: 0.0%' (vllm-ascend#2304)."""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from v1gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyq-ascend-single-request-zero-hit"
MODEL = "Qwen2.5-7B-Instruct"
T0 = 1754903880.0  # 2025-08-11 09:18:00 UTC
DUR, IV = 300.0, 10.0
BS, MML = 128, 32768
BPT = 57344
GIB = 1024 ** 3
NB = int(41.40 * GIB // (BS * BPT))

t_req = T0 + 122.0  # 09:20:02
reqs = [{"t": t_req, "engine": 0, "prompt": 361, "hit": 0, "out": 500, "max_tokens": 500, "reason": "length",
         "prefill": 0.118, "tpot": 0.0122, "queue": 0.003}]

cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "num_cpu_blocks": "None", "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None",
                "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4",
                "swap_space_bytes": str(4 * GIB)}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "v09": True, "log_prefix": lambda e: "", "log_lineno": 118}


def vts(T):
    return dt.datetime.fromtimestamp(T, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


head = [
    "INFO 08-11 09:12:41 [__init__.py:39] Available plugins for group vllm.platform_plugins:",
    "INFO 08-11 09:12:41 [__init__.py:41] - ascend -> vllm_ascend:register",
    "INFO 08-11 09:12:41 [__init__.py:235] Platform plugin ascend is activated",
    "INFO 08-11 09:12:47 [api_server.py:1395] vLLM API server version 0.9.2",
    "INFO 08-11 09:12:47 [cli_args.py:325] non-default args: {'host': '0.0.0.0', 'port': 8000, 'model': '/models/Qwen2.5-7B-Instruct', 'served_model_name': ['Qwen2.5-7B-Instruct'], 'max_model_len': 32768}",
    "INFO 08-11 09:12:55 [config.py:2206] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    "INFO 08-11 09:12:55 [platform.py:174] Block size is set to 128 if prefix cache or chunked prefill is enabled.",
    "INFO 08-11 09:13:03 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='/models/Qwen2.5-7B-Instruct', speculative_config=None, tokenizer='/models/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, device_config=npu, tensor_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=Qwen2.5-7B-Instruct, enable_prefix_caching=True, chunked_prefill_enabled=True",
    "INFO 08-11 09:13:41 [model_runner_v1.py:1986] Loading model weights took 14.2561 GB",
    "INFO 08-11 09:13:58 [worker_v1.py:172] Available memory: 44452911513, total memory: 65464696832",
    f"INFO 08-11 09:13:58 [kv_cache_utils.py:716] GPU KV cache size: {NB * BS:,} tokens",
    f"INFO 08-11 09:13:58 [kv_cache_utils.py:720] Maximum concurrency for 32,768 tokens per request: {NB * BS / MML:.2f}x",
    "INFO 08-11 09:15:02 [core.py:172] init engine (profile, create kv cache, warmup model) took 81.22 seconds",
    "INFO 08-11 09:15:03 [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     Started server process [1327]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
r = reqs[0]
end = r["t"] + r["queue"] + r["prefill"] + (r["out"] - 1) * r["tpot"]
extra = [(r["t"], "INFO 08-11 09:20:02 [async_llm.py:270] Added request chatcmpl-17b89d9812784abb94a100224e1208af."),
         (end + 0.002, 'INFO:     127.0.0.1:50622 - "POST /v1/chat/completions HTTP/1.1" 200 OK')]
server = {"version": {"version": "0.9.2"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm",
                                                 "root": "/models/Qwen2.5-7B-Instruct", "parent": None, "max_model_len": MML,
                                                 "permission": []}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", "/models/Qwen2.5-7B-Instruct", "--served-model-name", "Qwen2.5-7B-Instruct", "--host",
               "0.0.0.0", "--port", "8000", "--max-model-len", "32768"],
      "args": {"served-model-name": "Qwen2.5-7B-Instruct", "max-model-len": 32768}}
mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
      "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
      "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
      "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
      "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
      "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
if "--numbers" in sys.argv:
    print("NB", NB, "tokens", NB * BS, "end", end - t_req)
    sys.exit(0)
write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, gpu=None, logs_head=head, extra_logs=extra,
             notes="vllm-ascend on one Ascend 910B (64 GB); no NVIDIA driver. The operator sent a chat request and looked at the stats line.")
check(CASE / "bundle")
