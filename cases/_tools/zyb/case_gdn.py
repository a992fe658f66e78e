"""zyb-gdn-hybrid-align-zero-hits: vLLM 0.26.0, Qwen3.6-35B-A3B (GDN hybrid) on GB10, staggered A/B probes."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyb-gdn-hybrid-align-zero-hits"
MODEL = "Qwen/Qwen3.6-35B-A3B"
T0 = 1786010400.0  # 2026-08-06 10:00:00 UTC
DUR, IV = 600.0, 10.0
BS, NB, MML = 544, 3662, 262144

rng = random.Random(51198)
reqs, prompts = [], []
for i in range(10):
    ta = T0 + 25.0 + 60.0 * i
    a = [rng.randrange(1000, 150000) for _ in range(561)]
    b = a + [rng.randrange(1000, 150000) for _ in range(9)]
    reqs.append({"t": ta, "engine": 0, "prompt": 561, "hit": 0, "out": 1, "max_tokens": 1, "prefill": 0.41, "tpot": 0.02})
    reqs.append({"t": ta + 2.41, "engine": 0, "prompt": 570, "hit": 0, "out": 1, "max_tokens": 1, "prefill": 0.42, "tpot": 0.02})
    prompts.append({"prompt_token_ids": a})
    prompts.append({"prompt_token_ids": b})

cache_labels = {
    "block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
    "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
    "kv_sharing_fast_prefill": "False", "mamba_block_size": str(BS), "mamba_cache_dtype": "auto",
    "mamba_cache_mode": "align", "mamba_page_size_padded": str(BS * 2048), "mamba_ssm_cache_dtype": "auto",
    "num_cpu_blocks": "None", "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "log_prefix": lambda e: "(APIServer pid=1) ", "log_lineno": 259}

mc = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
    "image_token_id": 248056, "video_token_id": 248057, "vision_start_token_id": 248053, "vision_end_token_id": 248054,
    "tie_word_embeddings": False, "transformers_version": "4.57.0.dev0",
    "text_config": {
        "model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
        "full_attention_interval": 4,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
        "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512, "vocab_size": 248320, "max_position_embeddings": 262144,
        "rope_theta": 10000000, "partial_rotary_factor": 0.25, "rms_norm_eps": 1e-06,
        "torch_dtype": "bfloat16", "attn_output_gate": True, "mtp_num_hidden_layers": 1,
    },
    "vision_config": {"depth": 27, "hidden_size": 1152, "out_hidden_size": 2048, "patch_size": 16},
    "torch_dtype": "bfloat16",
}
GIB = 1024 ** 3
TOTAL = int(119.70 * GIB)
USED = int(108.31 * GIB)


def gpu(T):
    return [{"index": 0, "name": "NVIDIA GB10", "memory_total": TOTAL, "memory_used": USED,
             "processes": [{"pid": 215, "name": "VLLM::EngineCore", "used_memory": USED - int(0.55 * GIB)}]}]


head = [
    "(APIServer pid=1) INFO 08-06 09:41:02 [api_server.py:1896] vLLM API server version 0.26.0",
    "(APIServer pid=1) INFO 08-06 09:41:02 [utils.py:253] non-default args: {'model_tag': 'Qwen/Qwen3.6-35B-A3B', 'host': '0.0.0.0', 'model': 'Qwen/Qwen3.6-35B-A3B', 'enable_prefix_caching': True, 'max_num_batched_tokens': 4096}",
    "(APIServer pid=1) INFO 08-06 09:41:09 [model.py:569] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
    "(APIServer pid=1) INFO 08-06 09:41:09 [model.py:1574] Using max model len 262144",
    "(APIServer pid=1) INFO 08-06 09:41:09 [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=4096.",
    "(APIServer pid=1) INFO 08-06 09:41:09 [config.py:312] Mamba cache mode is set to 'align' for Qwen3_5MoeForConditionalGeneration by default when prefix caching is enabled",
    "(APIServer pid=1) INFO 08-06 09:41:09 [config.py:338] Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size.",
    "(APIServer pid=1) INFO 08-06 09:41:09 [config.py:369] Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal.",
    "(EngineCore pid=215) INFO 08-06 09:41:13 [core.py:97] Initializing a V1 LLM engine (v0.26.0) with config: model='Qwen/Qwen3.6-35B-A3B', speculative_config=None, tokenizer='Qwen/Qwen3.6-35B-A3B', dtype=torch.bfloat16, max_seq_len=262144, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name=Qwen/Qwen3.6-35B-A3B, enable_prefix_caching=True, enable_chunked_prefill=True",
    "(EngineCore pid=215) INFO 08-06 09:45:51 [gpu_model_runner.py:3421] Model loading took 65.53 GiB and 268.114207 seconds",
    "(EngineCore pid=215) INFO 08-06 09:46:40 [gpu_worker.py:391] Available KV cache memory: 38.00 GiB",
    "(EngineCore pid=215) INFO 08-06 09:46:40 [kv_cache_utils.py:1236] GPU KV cache size: 497,760 tokens",
    "(EngineCore pid=215) INFO 08-06 09:46:40 [kv_cache_utils.py:1241] Maximum concurrency for 262,144 tokens per request: 1.90x",
    "(EngineCore pid=215) INFO 08-06 09:47:31 [core.py:218] init engine (profile, create kv cache, warmup model) took 99.62 seconds",
    "(APIServer pid=1) INFO 08-06 09:47:33 [api_server.py:1964] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "(APIServer pid=1) INFO:     Application startup complete.",
]
extra = []
for r in reqs:
    import datetime as dt
    ts = dt.datetime.fromtimestamp(r["t"], dt.timezone.utc).strftime("%m-%d %H:%M:%S")
    extra.append((r["t"], f"(APIServer pid=1) INFO:     172.17.0.1:{40000 + int(r['t']) % 20000} - \"POST /v1/completions HTTP/1.1\" 200 OK"))

server = {"version": {"version": "0.26.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--enable-prefix-caching", "--max-num-batched-tokens", "4096"],
      "args": {"enable-prefix-caching": True, "max-num-batched-tokens": 4096}}

write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, gpu=gpu, logs_head=head, extra_logs=extra, prompts=prompts,
             notes="Staggered A/B probes (A = 561 token ids, B = A + 9), one pair a minute, max_tokens=1.")
check(CASE / "bundle")
