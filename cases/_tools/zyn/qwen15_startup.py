"""zyn-qwen15-gptq-3090-32k-pool: vLLM 0.3.0 (V0) refuses to start, the pool (1,520 blocks
x 16 = 24,320 tokens) is smaller than max_model_len 32,768. Run from the worktree root."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from prom import write_bundle  # noqa

OUT = "cases/zyn-qwen15-gptq-3090-32k-pool/bundle"
T0 = 1707199860  # 2024-02-06 06:11:00 UTC
INTERVAL, N = 10, 13


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t + 8 * 3600))


st = T0 - 95
M = "qwen/Qwen1.5-7B-Chat-GPTQ-Int4"
lg = [
    f"INFO {ts(st)} api_server.py:209] args: Namespace(host=None, port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name='{M}', lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, root_path=None, middleware=[], model='{M}', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization='gptq', enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, max_cpu_loras=None, device='auto', engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
    f"WARNING {ts(st + 2)} config.py:177] gptq quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
    f"INFO {ts(st + 2)} llm_engine.py:72] Initializing an LLM engine with config: model='{M}', tokenizer='{M}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=gptq, enforce_eager=False, kv_cache_dtype=auto, seed=0)",
    f"INFO {ts(st + 61)} llm_engine.py:322] # GPU blocks: 1520, # CPU blocks: 512",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
    '    return _run_code(code, main_globals, None,',
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/openai/api_server.py", line 217, in <module>',
    '    engine = AsyncLLMEngine.from_engine_args(engine_args)',
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 623, in from_engine_args',
    '    engine = cls(parallel_config.worker_use_ray,',
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 115, in __init__',
    '    self._init_cache()',
    '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 330, in _init_cache',
    '    raise ValueError(',
    "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (24320). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
]
scrapes = [{"t": T0 + i * INTERVAL, "error": "GET http://127.0.0.1:8000/metrics: [Errno 111] Connection refused"}
           for i in range(N)]
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "the OpenAI server exits during start-up; log attached"}
engine_args = {"argv": None, "args": {"model": M, "served-model-name": M, "quantization": "gptq"}}
model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
                "intermediate_size": 11008, "max_position_embeddings": 32768, "max_window_layers": 28,
                "model_type": "qwen2", "num_attention_heads": 32, "num_hidden_layers": 32,
                "num_key_value_heads": 32, "quantization_config": {"bits": 4, "damp_percent": 0.01,
                "desc_act": False, "group_size": 128, "modules_in_block_to_quantize": None,
                "quant_method": "gptq", "sym": True, "true_sequential": True},
                "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
                "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.37.0",
                "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 7, "name": "NVIDIA GeForce RTX 3090",
        "memory_total": 25769803776, "memory_used": 283115520, "processes": []}]} for i in range(N)]
write_bundle(OUT, manifest, scrapes, None, engine_args, model_config, gpu, "\n".join(lg) + "\n")
print("ok")
