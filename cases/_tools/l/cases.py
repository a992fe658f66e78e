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

import v0sim  # noqa: E402
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

# --------------------------------------------------------------------------------------------
def _default_collectors(t: float, start: float, cpu: float, gc: tuple[int, int, int], rss: int) -> str:
    """prometheus_client's default python/process collectors: all /metrics serves without stat loggers."""
    g0, g1, g2 = gc
    return "\n".join([
        "# HELP python_gc_objects_collected_total Objects collected during gc",
        "# TYPE python_gc_objects_collected_total counter",
        f'python_gc_objects_collected_total{{generation="0"}} {float(g0)}',
        f'python_gc_objects_collected_total{{generation="1"}} {float(g1)}',
        f'python_gc_objects_collected_total{{generation="2"}} {float(g2)}',
        "# HELP python_gc_objects_uncollectable_total Uncollectable objects found during GC",
        "# TYPE python_gc_objects_uncollectable_total counter",
        'python_gc_objects_uncollectable_total{generation="0"} 0.0',
        'python_gc_objects_uncollectable_total{generation="1"} 0.0',
        'python_gc_objects_uncollectable_total{generation="2"} 0.0',
        "# HELP python_gc_collections_total Number of times this generation was collected",
        "# TYPE python_gc_collections_total counter",
        f'python_gc_collections_total{{generation="0"}} {float(g0 // 180)}',
        f'python_gc_collections_total{{generation="1"}} {float(g1 // 40)}',
        f'python_gc_collections_total{{generation="2"}} {float(max(1, g2 // 900))}',
        "# HELP python_info Python platform information",
        "# TYPE python_info gauge",
        'python_info{implementation="CPython",major="3",minor="12",patchlevel="8",version="3.12.8"} 1.0',
        "# HELP process_virtual_memory_bytes Virtual memory size in bytes.",
        "# TYPE process_virtual_memory_bytes gauge",
        f"process_virtual_memory_bytes {float(38_412_918_784)}",
        "# HELP process_resident_memory_bytes Resident memory size in bytes.",
        "# TYPE process_resident_memory_bytes gauge",
        f"process_resident_memory_bytes {float(rss)}",
        "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
        "# TYPE process_start_time_seconds gauge",
        f"process_start_time_seconds {start:.2f}",
        "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
        "# TYPE process_cpu_seconds_total counter",
        f"process_cpu_seconds_total {cpu:.2f}",
        "# HELP process_open_fds Number of open file descriptors.",
        "# TYPE process_open_fds gauge",
        "process_open_fds 74.0",
        "# HELP process_max_fds Maximum number of open file descriptors.",
        "# TYPE process_max_fds gauge",
        "process_max_fds 1048576.0",
    ]) + "\n"


@case
def l_v1_fp8_kv_ignored_qwen25_72b_h100():
    """vllm#13133 / PR #14221: V1 0.7.1 FlashAttention ignores --kv-cache-dtype fp8; garbage output."""
    cid = "l-v1-fp8-kv-ignored-qwen25-72b-h100"
    rng = random.Random(13133)
    mp = "/data/models/qwen2.5_72b-FP8"
    s0 = epoch(2025, 2, 12, 3, 20, 4)
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "10011", "--model", mp,
            "--dtype", "auto", "-tp", "2", "--max-model-len", "8192", "--max-num-seqs", "512",
            "--gpu-memory-utilization", "0.9", "--enable-prefix-caching", "--swap-space", "16",
            "--disable-log-stats", "--disable-log-requests", "--trust-remote-code", "--kv-cache-dtype", "fp8"]
    args = {"port": 10011, "model": mp, "dtype": "auto", "tensor-parallel-size": 2, "max-model-len": 8192,
            "max-num-seqs": 512, "gpu-memory-utilization": 0.9, "enable-prefix-caching": True, "swap-space": 16,
            "disable-log-stats": True, "disable-log-requests": True, "trust-remote-code": True,
            "kv-cache-dtype": "fp8"}
    cfg = (f"Initializing a V1 LLM engine (v0.7.1) with config: model='{mp}', speculative_config=None, "
           f"tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
           "override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, "
           "max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, "
           "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, "
           "kv_cache_dtype=fp8,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), "
           "observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, "
           f"collect_model_execute_time=False), seed=0, served_model_name={mp}, num_scheduler_steps=1, "
           "multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, "
           "use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, "
           "pooler_config=None, compilation_config={\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":"
           "[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,"
           "\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":"
           "[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,"
           "312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,"
           "112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}")
    L = []

    def log(t, msg, pre=""):
        L.append(f"{pre}INFO {stamp(t)} {msg}")

    log(s0, "__init__.py:183] Automatically detected platform cuda.")
    log(s0 + 2, "api_server.py:838] vLLM API server version 0.7.1")
    log(s0 + 2, "api_server.py:839] args: Namespace(host=None, port=10011, uvicorn_log_level='info', "
        f"allow_credentials=False, model='{mp}', tokenizer=None, dtype='auto', kv_cache_dtype='fp8', "
        "max_model_len=8192, tensor_parallel_size=2, gpu_memory_utilization=0.9, swap_space=16.0, "
        "enable_prefix_caching=True, max_num_seqs=512, disable_log_stats=True, disable_log_requests=True, "
        "trust_remote_code=True)")
    L.append(f"WARNING {stamp(s0 + 3)} arg_utils.py:1298] Setting max_num_batched_tokens to 2048 for OPENAI_API_SERVER usage context.")
    log(s0 + 12, "config.py:542] This model supports multiple tasks: {'generate', 'embed', 'classify', 'reward', 'score'}. Defaulting to 'generate'.")
    log(s0 + 12, "config.py:1364] Defaulting to use mp for distributed inference")
    log(s0 + 12, "config.py:1011] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor")
    log(s0 + 14, "core.py:45] " + cfg)
    L.append(f"WARNING {stamp(s0 + 14)} multiproc_worker_utils.py:298] Reducing Torch parallelism from 104 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    for r in (0, 1):
        log(s0 + 22, f"cuda.py:157] Using Flash Attention backend on V1 engine.", pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    for r in (0, 1):
        log(s0 + 24, f"gpu_model_runner.py:872] Starting to load model {mp}...", pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    for r in (0, 1):
        log(s0 + 121, "gpu_model_runner.py:877] Loading model weights took 33.9087 GB", pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    for r in (0, 1):
        log(s0 + 140, "backends.py:579] Using cache directory: /root/.cache/vllm/torch_compile_cache/3b1f2ac6d9/rank_%d for vLLM's torch.compile" % r, pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    for r in (0, 1):
        log(s0 + 171, "monitor.py:33] torch.compile takes 44.71 s in total", pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    log(s0 + 175, "kv_cache_utils.py:400] # GPU blocks: 28918")
    for r in (0, 1):
        log(s0 + 214, "gpu_model_runner.py:1043] Graph capturing finished in 39 secs, took 1.36 GiB", pre=f"(VllmWorker rank={r} pid={31840 + r}) ")
    log(s0 + 215, "core.py:91] init engine (profile, create kv cache, warmup model) took 92.64 seconds")
    log(s0 + 216, "api_server.py:756] Using supplied chat template:")
    log(s0 + 216, "launcher.py:21] Available routes are:")
    for route, meth in [("/openapi.json", "GET, HEAD"), ("/docs", "GET, HEAD"), ("/health", "GET"),
                        ("/tokenize", "POST"), ("/detokenize", "POST"), ("/v1/models", "GET"), ("/version", "GET"),
                        ("/v1/chat/completions", "POST"), ("/v1/completions", "POST"), ("/v1/embeddings", "POST"),
                        ("/metrics", "GET")]:
        log(s0 + 216, f"launcher.py:29] Route: {route}, Methods: {meth}")
    L.append("INFO:     Started server process [31790]")
    L.append("INFO:     Waiting for application startup.")
    L.append("INFO:     Application startup complete.")
    L.append("INFO:     Uvicorn running on http://0.0.0.0:10011 (Press CTRL+C to quit)")

    # traffic: chat completions, every answer runs to max_tokens=1024 at ~31 ms/token
    c0 = epoch(2025, 2, 12, 3, 30, 0)
    dt, n = 10.0, 31
    done = []
    t = c0 - 40.0
    while t < c0 + dt * (n - 1):
        t += rng.uniform(2.0, 6.0)
        dur = 0.35 + 1024 * rng.uniform(0.029, 0.033)
        done.append((t + dur, rng.randint(40000, 60999)))
    done.sort()
    head = list(L)
    scrape_access = []
    start_proc = s0 + 1.2
    scrapes, gpu = [], []
    cpu, g0, g1, g2 = 402.7, 1_284_311, 392_104, 61_977
    for i in range(n):
        ts = c0 + dt * i
        cpu += rng.uniform(2.1, 2.9)
        g0 += rng.randint(9000, 14000)
        g1 += rng.randint(1500, 2600)
        g2 += rng.randint(0, 300)
        scrapes.append({"t": ts, "status": 200, "text": _default_collectors(ts, start_proc, cpu, (g0, g1, g2),
                                                                              2_954_012_672 + 4096 * i)})
        scrape_access.append(f'INFO:     127.0.0.1:{38000 + i} - "GET /metrics HTTP/1.1" 200 OK')
        gpu.append({"t": ts, "devices": [
            device(r, "NVIDIA H100 80GB HBM3", 81559 * MiB,
                   [(31840 + r, "python3", 74114 * MiB + (412 * MiB if r == 0 else 0))]) for r in (0, 1)]})
    # interleave access lines by time
    events = [(te, f'INFO:     10.12.3.41:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
              for te, port in done if te <= c0 + dt * (n - 1)]
    events += [(c0 + dt * i + 0.01, scrape_access[i]) for i in range(n)]
    events.sort()
    logs = "\n".join(head + [e[1] for e in events]) + "\n"
    mc = copy.deepcopy(QWEN25_72B)
    mc["_name_or_path"] = mp
    mc["quantization_config"] = {"activation_scheme": "dynamic", "quant_method": "fp8",
                                 "ignored_layers": ["lm_head"]}
    server = {"version": {"version": "0.7.1"}, "models": models_body(mp, mp, 8192, int(s0) + 216), "health": 200}
    write_bundle(cid, endpoint="http://10.12.3.7:10011", started_at=c0, interval_s=dt,
                 notes="Server started with VLLM_USE_V1=1 in its environment (the V1 engine); "
                       "the operator's complaint: answers are 1000+ tokens of unreadable text.",
                 scrapes=scrapes, server=server, engine_args={"argv": argv, "args": args}, model_config=mc,
                 gpu=gpu, logs=logs)

# --------------------------------------------------------------------------------------------
QWEN15_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 11008, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.37.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}


@case
def l_qwen15_7b_32k_over_7344_kv():
    """QwenLM/Qwen3#295: Qwen1.5-7B-Chat default 32768 context, pool 7344 tokens: start-up refusal."""
    cid = "l-qwen15-7b-32k-over-7344-kv"
    mp = "/models--Qwen--Qwen1.5-7B-Chat"
    s0 = epoch(2024, 4, 11, 14, 2, 11)
    site = "/usr/local/lib/python3.10/dist-packages"
    L = [
        f"INFO {stamp(s0)} api_server.py:149] vLLM API server version 0.4.0.post1",
        f"INFO {stamp(s0)} api_server.py:150] args: Namespace(host=None, port=8000, uvicorn_log_level='info', "
        "allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        "served_model_name='Qwen1.5-7B-Chat', lora_modules=None, chat_template=None, response_role='assistant', "
        f"ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='{mp}', "
        "tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, "
        "tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', "
        "kv_cache_dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, "
        "max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, "
        "use_v2_block_manager=False, seed=0, swap_space=4, gpu_memory_utilization=0.9, forced_num_gpu_blocks=None, "
        "max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=5, disable_log_stats=False, quantization=None, "
        "enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, "
        "tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, "
        "lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='auto', image_input_type=None, "
        "image_token_id=None, image_input_shape=None, image_feature_size=None, scheduler_delay_factor=0.0, "
        "enable_chunked_prefill=False, engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
        f"INFO {stamp(s0)} llm_engine.py:75] Initializing an LLM engine (v0.4.0.post1) with config: model='{mp}', "
        f"tokenizer='{mp}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, "
        "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, "
        "disable_custom_all_reduce=True, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
        "device_config=cuda, seed=0)",
        f"INFO {stamp(s0 + 1)} selector.py:16] Using FlashAttention backend.",
        f"INFO {stamp(s0 + 29)} model_runner.py:104] Loading model weights took 14.3919 GB",
        f"INFO {stamp(s0 + 34)} gpu_executor.py:94] # GPU blocks: 459, # CPU blocks: 512",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
        '    return _run_code(code, main_globals, None,',
        '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code',
        "    exec(code, run_globals)",
        f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 157, in <module>',
        "    engine = AsyncLLMEngine.from_engine_args(",
        f'  File "{site}/vllm/engine/async_llm_engine.py", line 348, in from_engine_args',
        "    engine = cls(",
        f'  File "{site}/vllm/engine/async_llm_engine.py", line 311, in __init__',
        "    self.engine = self._init_engine(*args, **kwargs)",
        f'  File "{site}/vllm/engine/async_llm_engine.py", line 422, in _init_engine',
        "    return engine_class(*args, **kwargs)",
        f'  File "{site}/vllm/engine/llm_engine.py", line 111, in __init__',
        "    self._initialize_kv_caches()",
        f'  File "{site}/vllm/engine/llm_engine.py", line 172, in _initialize_kv_caches',
        "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
        f'  File "{site}/vllm/executor/gpu_executor.py", line 97, in initialize_cache',
        "    self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
        f'  File "{site}/vllm/worker/worker.py", line 143, in initialize_cache',
        "    raise_if_cache_size_invalid(num_gpu_blocks, self.cache_config.block_size,",
        f'  File "{site}/vllm/worker/worker.py", line 328, in raise_if_cache_size_invalid',
        "    raise ValueError(",
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ]
    total = 23028 * MiB
    tf = s0 + 34.6
    gpu = [{"t": tf, "devices": [device(0, "NVIDIA A10", total, [(2871, "python", int(18.93 * GiB))])]},
           {"t": tf + 5.0, "devices": [device(0, "NVIDIA A10", total, [], extra_used=4 * MiB)]}]
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--served-model-name", "Qwen1.5-7B-Chat",
            "--model", mp]
    args = {"served-model-name": "Qwen1.5-7B-Chat", "model": mp}
    mc = copy.deepcopy(QWEN15_7B)
    write_bundle(cid, endpoint="http://127.0.0.1:8000", started_at=s0 + 30.0, interval_s=5.0,
                 notes="Captured while `python -m vllm.entrypoints.openai.api_server` was starting; it exited "
                       "with the ValueError in logs.txt and never listened.",
                 scrapes=[refused(s0 + 30.0), refused(s0 + 35.0), refused(s0 + 40.0)],
                 engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu, logs="\n".join(L) + "\n")

# --------------------------------------------------------------------------------------------
QWEN2_7B_GPTQ = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.41.2", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 152064,
    "quantization_config": {"batch_size": 1, "bits": 4, "block_name_to_quantize": None, "cache_block_outputs": True,
                            "damp_percent": 0.01, "dataset": None, "desc_act": False, "exllama_config": {"version": 1},
                            "group_size": 128, "max_input_length": None, "model_seqlen": None,
                            "module_name_preceding_first_block": None, "modules_in_block_to_quantize": None,
                            "pad_token_id": None, "quant_method": "gptq", "sym": True, "tokenizer": None,
                            "true_sequential": True, "use_cuda_fp16": False, "use_exllama": True},
}


@case
def l_qwen2_7b_fp8_kv_repeats_4090():
    """QwenLM/Qwen3#840: Qwen2-7B GPTQ with --kv-cache-dtype fp8 repeats nonsense; 'auto' fixes it (V0 0.5.4)."""
    cid = "l-qwen2-7b-fp8-kv-repeats-4090"
    rng = random.Random(840)
    mp = "/data/GPT/models/Qwen2-7B-Instruct-GPTQ-Int4"
    served = "Qwen2-7B-Instruct-GPTQ-Int4"
    s0 = epoch(2024, 8, 6, 9, 41, 3)
    c0 = epoch(2024, 8, 6, 10, 0, 0)
    dt, n = 10.0, 61
    pool_blocks, block = 33844, 16
    cache_info = {"block_size": "16", "cache_dtype": "fp8", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
                  "gpu_memory_utilization": "0.9", "num_cpu_blocks": "9362", "num_gpu_blocks": str(pool_blocks),
                  "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    st = v0sim.State(served, 8192, cache_info)
    reqs, t = [], s0 + 120.0
    while t < c0 + dt * (n - 1):
        t += rng.uniform(1.5, 4.5)
        reqs.append(v0sim.Req(t, rng.randint(1200, 3000), 1024, "length"))
    scrapes, stat_lines = v0sim.simulate(
        st, reqs, t0=s0 + 120.0, t1=c0 + dt * (n - 1), scrape_dt=dt, pool_tokens=pool_blocks * block, block=block,
        prefill_tps=9200.0, step_fn=lambda b: 0.0086 + 0.00031 * b, log_stamp=stamp)
    scrapes = [x for x in scrapes if x["t"] >= c0 - 1e-6]
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", mp, "--served-model-name", served,
            "--kv-cache-dtype", "fp8", "--max-model-len", "8192", "--gpu-memory-utilization", "0.9",
            "--disable-log-requests"]
    args = {"model": mp, "served-model-name": served, "kv-cache-dtype": "fp8", "max-model-len": 8192,
            "gpu-memory-utilization": 0.9, "disable-log-requests": True}
    head = [
        f"INFO {stamp(s0)} api_server.py:219] vLLM API server version 0.5.4",
        f"INFO {stamp(s0)} api_server.py:220] args: Namespace(host=None, port=8000, uvicorn_log_level='info', "
        f"allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        f"lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, "
        f"ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, "
        f"disable_frontend_multiprocessing=False, model='{mp}', tokenizer=None, skip_tokenizer_init=False, revision=None, "
        f"code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, "
        f"load_format='auto', dtype='auto', kv_cache_dtype='fp8', quantization_param_path=None, max_model_len=8192, "
        f"guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, "
        f"pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, "
        f"block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, "
        f"num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, "
        f"num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, "
        f"disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, "
        f"max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, "
        f"served_model_name=['{served}'], disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(s0 + 1)} gptq_marlin.py:87] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.",
        f"INFO {stamp(s0 + 1)} config.py:467] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
        f"INFO {stamp(s0 + 1)} llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{mp}', "
        f"speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, "
        "max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=False, "
        "kv_cache_dtype=fp8, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig("
        f"otlp_traces_endpoint=None), seed=0, served_model_name={served}, use_v2_block_manager=False, "
        "enable_prefix_caching=False)",
        f"INFO {stamp(s0 + 3)} selector.py:151] Cannot use FlashAttention-2 backend for FP8 KV cache.",
        f"INFO {stamp(s0 + 3)} selector.py:54] Using XFormers backend.",
        f"INFO {stamp(s0 + 4)} model_runner.py:720] Starting to load model {mp}...",
        f"INFO {stamp(s0 + 12)} model_runner.py:732] Loading model weights took 5.1322 GB",
        f"INFO {stamp(s0 + 15)} gpu_executor.py:102] # GPU blocks: {pool_blocks}, # CPU blocks: 9362",
        f"INFO {stamp(s0 + 16)} model_runner.py:1024] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(s0 + 16)} model_runner.py:1028] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(s0 + 27)} model_runner.py:1225] Graph capturing finished in 11 secs.",
        f"INFO {stamp(s0 + 28)} api_server.py:292] Available routes are:",
        "INFO:     Started server process [1]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    events = list(stat_lines)
    for i, r in enumerate(reqs):
        if r.end is not None:
            events.append((r.end + 0.001, f'INFO:     172.18.0.1:{41000 + i % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    events.sort(key=lambda e: e[0])
    logs = "\n".join(head + [e[1] for e in events]) + "\n"
    gpu = [{"t": x["t"], "devices": [device(0, "NVIDIA GeForce RTX 4090", 24564 * MiB, [(1, "python", 22118 * MiB)])]}
           for x in scrapes]
    mc = copy.deepcopy(QWEN2_7B_GPTQ)
    server = {"version": {"version": "0.5.4"}, "models": models_body(served, served, 8192, int(s0) + 28), "health": 200}
    write_bundle(cid, endpoint="http://10.0.8.21:8000", started_at=c0, interval_s=dt,
                 notes="Summarisation service; operator reports that every answer degenerates into repeated nonsense "
                       "after a few words.",
                 scrapes=scrapes, server=server, engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu,
                 logs=logs)

# --------------------------------------------------------------------------------------------
QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 152064,
}


@case
def l_ngram_spec_slower_qwen2_7b():
    """vllm#8439: ngram speculation (k=5) on Qwen2-7B-Instruct decodes 61.8 tok/s vs 69.8 without (V0 0.6.1)."""
    cid = "l-ngram-spec-slower-qwen2-7b"
    rng = random.Random(8439)
    srng = random.Random(84390)
    mp = "Qwen2-7B-Instruct"
    s0 = epoch(2024, 9, 13, 7, 12, 40)
    c0 = epoch(2024, 9, 13, 7, 30, 0)
    dt, n = 10.0, 61
    # KV pool: A100 80GB (79.15 GiB) x 0.9 - 14.25 GiB weights - ~2.3 GiB activation/other -> ~54.7 GiB
    # at 56 KiB/token (28 layers x 4 KV heads x 128 x 2 x 2 bytes) = 1,024,000 tokens = 64,000 blocks
    pool_blocks, block = 64000, 16
    cache_info = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
                  "gpu_memory_utilization": "0.9", "num_cpu_blocks": "4681", "num_gpu_blocks": str(pool_blocks),
                  "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    st = v0sim.State(mp, 32768, cache_info, spec=True)
    reqs, t = [], s0 + 60.0
    while t < c0 + dt * (n - 1):
        out = rng.randint(880, 1000)
        reqs.append(v0sim.Req(t, rng.randint(150, 300), out, "stop"))
        t += 0.025 + out * 0.0162 + 2.0 + rng.uniform(0.0, 0.4)

    def spec_fn(_k):
        if srng.random() < 0.5:
            return 0, 0, 0.0
        u = srng.random()
        acc = 0 if u < 0.78 else 1 if u < 0.93 else 2 if u < 0.98 else 3
        return 5, acc, 0.005

    # one request at a time: sequential client (next request sent after the previous answer)
    scrapes, stat_lines = v0sim.simulate(
        st, reqs, t0=s0 + 60.0, t1=c0 + dt * (n - 1), scrape_dt=dt, pool_tokens=pool_blocks * block, block=block,
        prefill_tps=20000.0, step_fn=lambda b: 0.0160 + 0.0002 * (b - 1), log_stamp=stamp, spec_fn=spec_fn)
    scrapes = [x for x in scrapes if x["t"] >= c0 - 1e-6]
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "9002", "--model", mp,
            "-tp", "1", "--speculative_model", "[ngram]", "--use-v2-block-manager", "--num_speculative_tokens", "5",
            "--ngram-prompt-lookup-max", "4", "--gpu_memory_utilization", "0.9"]
    args = {"host": "0.0.0.0", "port": 9002, "model": mp, "tensor-parallel-size": 1, "speculative-model": "[ngram]",
            "use-v2-block-manager": True, "num-speculative-tokens": 5, "ngram-prompt-lookup-max": 4,
            "gpu-memory-utilization": 0.9}
    head = [
        f"INFO {stamp(s0)} api_server.py:459] vLLM API server version 0.6.1.post2",
        f"INFO {stamp(s0)} api_server.py:460] args: Namespace(host='0.0.0.0', port=9002, uvicorn_log_level='info', "
        f"allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        f"lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', model='{mp}', "
        "tokenizer=None, dtype='auto', kv_cache_dtype='auto', max_model_len=None, tensor_parallel_size=1, "
        "block_size=16, enable_prefix_caching=False, use_v2_block_manager=True, swap_space=4, "
        "gpu_memory_utilization=0.9, max_num_seqs=256, disable_log_stats=False, enforce_eager=False, "
        "speculative_model='[ngram]', num_speculative_tokens=5, speculative_draft_tensor_parallel_size=None, "
        "speculative_max_model_len=None, speculative_disable_by_batch_size=None, ngram_prompt_lookup_max=4, "
        "ngram_prompt_lookup_min=None, spec_decoding_acceptance_method='rejection_sampler', "
        "disable_log_requests=False)",
        f"WARNING {stamp(s0 + 4)} arg_utils.py:930] Chunked prefill is enabled by default for models with max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter any issues, please disable chunked prefill by setting --enable-chunked-prefill=False.",
        f"WARNING {stamp(s0 + 4)} arg_utils.py:961] Speculative decoding is not yet supported with chunked prefill; chunked prefill is disabled.",
        f"INFO {stamp(s0 + 4)} llm_engine.py:232] Initializing an LLM engine (v0.6.1.post2) with config: model='{mp}', "
        f"speculative_config=SpeculativeConfig(draft_model='[ngram]', num_spec_tokens=5), tokenizer='{mp}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, "
        "rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, "
        "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
        "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
        f"observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, "
        f"collect_model_execute_time=False), seed=0, served_model_name={mp}, use_v2_block_manager=True, "
        "num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=False)",
        f"INFO {stamp(s0 + 5)} spec_decode_worker.py:156] Configuring SpecDecodeWorker with proposer=<class 'vllm.spec_decode.ngram_worker.NGramWorker'>",
        f"INFO {stamp(s0 + 5)} spec_decode_worker.py:170] Configuring SpecDecodeWorker with sampler=<class 'vllm.model_executor.layers.rejection_sampler.RejectionSampler'>",
        f"INFO {stamp(s0 + 6)} model_runner.py:997] Starting to load model {mp}...",
        f"INFO {stamp(s0 + 14)} model_runner.py:1008] Loading model weights took 14.2487 GB",
        f"INFO {stamp(s0 + 17)} gpu_executor.py:122] # GPU blocks: {pool_blocks}, # CPU blocks: 4681",
        f"INFO {stamp(s0 + 17)} gpu_executor.py:126] Maximum concurrency for 32768 tokens per request: 31.25x",
        f"INFO {stamp(s0 + 19)} model_runner.py:1311] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(s0 + 19)} model_runner.py:1315] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(s0 + 31)} model_runner.py:1430] Graph capturing finished in 12 secs.",
        f"INFO {stamp(s0 + 32)} api_server.py:224] vLLM to use /tmp/tmpk3x9v2ab as PROMETHEUS_MULTIPROC_DIR",
        "INFO:     Started server process [60113]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:9002 (Press CTRL+C to quit)",
    ]
    events = list(stat_lines)
    for i, r in enumerate(reqs):
        events.append((r.arrival + 0.0005, f"INFO {stamp(r.arrival)} logger.py:36] Received request chat-{i:05d}: "
                       f"prompt: <{r.prompt} tokens>, params: SamplingParams(n=1, temperature=0.7, top_p=0.8, "
                       f"max_tokens=1000, repetition_penalty=1.05), prompt_token_ids: <elided>, lora_request: None, "
                       "prompt_adapter_request: None."))
        events.append((r.arrival + 0.001, f"INFO {stamp(r.arrival)} engine.py:288] Added request chat-{i:05d}."))
        if r.end is not None:
            events.append((r.end + 0.001, f"INFO {stamp(r.end)} engine.py:301] Finished request chat-{i:05d}."))
            events.append((r.end + 0.002, f'INFO:     127.0.0.1:{52000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    events.sort(key=lambda e: e[0])
    logs = "\n".join(head + [e[1] for e in events]) + "\n"
    gpu = [{"t": x["t"], "devices": [device(3, "NVIDIA A100-SXM4-80GB", 81920 * MiB, [(60113, "python", 73588 * MiB)])]}
           for x in scrapes]
    server = {"version": {"version": "0.6.1.post2"}, "models": models_body(mp, mp, 32768, int(s0) + 32), "health": 200}
    write_bundle(cid, endpoint="http://127.0.0.1:9002", started_at=c0, interval_s=dt,
                 notes="Speculative (n-gram) server under the reporter's single-stream speed test; the same model "
                       "without speculation (port 9000) decodes 69.8 tok/s.",
                 scrapes=scrapes, server=server, engine_args={"argv": argv, "args": args},
                 model_config=copy.deepcopy(QWEN2_7B), gpu=gpu, logs=logs)


def main(argv: list[str]) -> None:
    names = argv or sorted(BUILDERS)
    for n in names:
        BUILDERS[n]()
        print("built", n)


if __name__ == "__main__":
    main(sys.argv[1:])
