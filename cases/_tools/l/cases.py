#!/usr/bin/env python3
"""Bundle builders for writer l's cases. `python cases/_tools/l/cases.py [case-id ...]`.

Deterministic: seeded generators, no wall clock. Quoted log lines are copied verbatim from the
sources named in each case.yaml; the rest is reconstructed and listed there under `assumed`.
"""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (GiB, LLAMA31_8B, MiB, QWEN25_72B, QWEN25_7B, device, epoch, models_body,  # noqa: E402
                    refused, stamp, write_bundle)

BUILDERS = {}


def case(fn):
    BUILDERS[fn.__name__.replace("_", "-")] = fn
    return fn


# --------------------------------------------------------------------------------------------
@case
def l_qwen25_7b_bnb4_rtx4060_util_070():
    """vllm#13882: Qwen2.5-7B bnb-4bit on an 8 GB RTX 4060, gpu_memory_utilization 0.70, V0 0.7.3.dev."""
    cid = "l-qwen25-7b-bnb4-rtx4060-util-070"
    mp = "/home/sancelot/Qwen2.5-7B-Instruct-bnb-4bit"
    t0 = epoch(2025, 2, 26, 9, 53, 14)
    cfg = (f"Initializing a V0 LLM engine (v0.7.3.dev233+gad5a35c2) with config: model='{mp}', "
           f"speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, "
           "revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, "
           "dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.BITSANDBYTES, "
           "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, "
           "quantization=bitsandbytes, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, "
           "decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), "
           "observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, "
           f"collect_model_execute_time=False), seed=0, served_model_name={mp}, num_scheduler_steps=1, "
           "multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=False, "
           "use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, "
           "pooler_config=None, compilation_config={\"splitting_ops\":[],\"compile_sizes\":[],"
           "\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,"
           "120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}, "
           "use_cached_outputs=False, ")
    lines = [
        "loading model",
        "INFO 02-26 09:53:14 __init__.py:197] Automatically detected platform cuda.",
        "INFO 02-26 09:53:46 config.py:549] This model supports multiple tasks: {'score', 'generate', 'classify', 'reward', 'embed'}. Defaulting to 'generate'.",
        "WARNING 02-26 09:53:51 config.py:628] bitsandbytes quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
        "INFO 02-26 09:53:52 llm_engine.py:234] " + cfg,
        "INFO 02-26 09:53:53 cuda.py:230] Using Flash Attention backend.",
        "INFO 02-26 09:53:54 model_runner.py:1110] Starting to load model /home/sancelot/Qwen2.5-7B-Instruct-bnb-4bit...",
        "INFO 02-26 09:53:54 loader.py:1089] Loading weights with BitsAndBytes quantization.  May take a while ...",
        "Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]",
        "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:04<00:04,  4.12s/it]",
        "Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:06<00:00,  3.02s/it]",
        "Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:06<00:00,  3.19s/it]",
        "",
        "INFO 02-26 09:54:02 model_runner.py:1115] Loading model weights took 5.2032 GB",
        "INFO 02-26 09:54:05 worker.py:267] Memory profiling takes 3.25 seconds",
        "INFO 02-26 09:54:05 worker.py:267] the current vLLM instance can use total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB",
        "INFO 02-26 09:54:05 worker.py:267] model weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch activation peak memory takes 1.42GiB; the rest of the memory reserved for KV Cache is -1.05GiB.",
        "INFO 02-26 09:54:05 executor_base.py:111] # cuda blocks: 0, # CPU blocks: 4681",
        "INFO 02-26 09:54:05 executor_base.py:116] Maximum concurrency for 4096 tokens per request: 0.00x",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "<frozen runpy>", line 198, in _run_module_as_main',
        '[rank0]:   File "<frozen runpy>", line 88, in _run_code',
        '[rank0]:   File "/mnt/d/WORKSPACE/lra-learning/src/model-backend/CHATBOT/LLMFactory/factoryllm.py", line 220, in <module>',
        "[rank0]:     llm = LLMFactory.create_llm(config)",
        "[rank0]:           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '[rank0]:   File "/mnt/d/WORKSPACE/lra-learning/src/model-backend/CHATBOT/LLMFactory/factoryllm.py", line 128, in create_llm',
        "[rank0]:     return vLLM(config)",
        "[rank0]:            ^^^^^^^^^^^^",
        '[rank0]:   File "/mnt/d/WORKSPACE/lra-learning/src/model-backend/CHATBOT/LLMFactory/basellm.py", line 41, in __init__',
        "[rank0]:     self.llm = LLM(**engine_kwargs)",
        "[rank0]:                ^^^^^^^^^^^^^^^^^^^^",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/utils.py", line 1022, in inner',
        "[rank0]:     return fn(*args, **kwargs)",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 242, in __init__',
        "[rank0]:     self.llm_engine = self.engine_class.from_engine_args(",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/engine/llm_engine.py", line 489, in from_engine_args',
        "[rank0]:     engine = cls(",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/engine/llm_engine.py", line 276, in __init__',
        "[rank0]:     self._initialize_kv_caches()",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/engine/llm_engine.py", line 434, in _initialize_kv_caches',
        "[rank0]:     self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/executor/executor_base.py", line 122, in initialize_cache',
        '[rank0]:     self.collective_rpc("initialize_cache",',
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/worker/worker.py", line 291, in initialize_cache',
        "[rank0]:     raise_if_cache_size_invalid(",
        '[rank0]:   File "/home/sancelot/.venv/lib/python3.12/site-packages/vllm/worker/worker.py", line 539, in raise_if_cache_size_invalid',
        '[rank0]:     raise ValueError("No available memory for the cache blocks. "',
        "[rank0]: ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
    ]
    tf = epoch(2025, 2, 26, 9, 54, 6)
    total = 8188 * MiB
    gpu = [{"t": tf, "devices": [device(0, "NVIDIA GeForce RTX 4060", total, [(4127, "/usr/bin/python3", int(6.92 * GiB))],
                                        extra_used=int(0.61 * GiB))]}]
    mc = copy.deepcopy(QWEN25_7B)
    mc["_name_or_path"] = "unsloth/Qwen2.5-7B-Instruct-bnb-4bit"
    mc["quantization_config"] = {
        "_load_in_4bit": True, "_load_in_8bit": False, "bnb_4bit_compute_dtype": "bfloat16",
        "bnb_4bit_quant_storage": "uint8", "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True,
        "llm_int8_enable_fp32_cpu_offload": False, "llm_int8_has_fp16_weight": False,
        "llm_int8_skip_modules": None, "llm_int8_threshold": 6.0, "load_in_4bit": True, "load_in_8bit": False,
        "quant_method": "bitsandbytes"}
    args = {"model": mp, "dtype": "bfloat16", "max-model-len": 4096, "quantization": "bitsandbytes",
            "load-format": "bitsandbytes", "trust-remote-code": True, "tensor-parallel-size": 1,
            "gpu-memory-utilization": 0.7, "kv-cache-dtype": "auto"}
    write_bundle(cid, endpoint="offline LLM() in a python process (no HTTP server)", started_at=t0,
                 interval_s=1.0, notes="Offline vLLM engine built by the application's LLMFactory; it raised during "
                 "start-up, no server was ever listening. Logs are the process's stderr.",
                 scrapes=[refused(tf)], engine_args={"argv": None, "args": args}, model_config=mc, gpu=gpu,
                 logs="\n".join(lines) + "\n")


def main(argv: list[str]) -> None:
    names = argv or sorted(BUILDERS)
    for n in names:
        BUILDERS[n]()
        print("built", n)


if __name__ == "__main__":
    main(sys.argv[1:])
