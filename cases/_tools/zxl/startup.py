"""Writer zxl: bundles of V0 engines that refuse to start because the KV pool cannot hold one
max_model_len sequence (vllm/worker/worker.py raise_if_cache_size_invalid, vLLM 0.2.x-0.6.x).
Every scrape is refused (the server never listened); logs.txt is the launch log; gpu.jsonl is
sampled after the engine process exited. Deterministic: no clock, no randomness."""

from __future__ import annotations

from common import GiB, MiB, epoch, write_bundle

ERR = ("The model's max seq len ({L}) is larger than the maximum number of tokens that can be stored in "
       "KV cache ({T}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
       "initializing the engine.")


def stamp(t):
    import datetime as dt
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def refused(endpoint, t0, n, interval):
    host = endpoint.rstrip("/")
    return [{"t": t0 + i * interval, "error": f"GET {host}/metrics: connection refused ([Errno 111] Connection refused)"}
            for i in range(n)]


def gpu_after(t0, n, interval, name, total, idle_used, ndev=1):
    return [{"t": t0 + i * interval, "devices": [{"index": d, "name": name, "memory_total": total,
                                                   "memory_used": idle_used, "processes": []} for d in range(ndev)]}
            for i in range(n)]


# ---------------------------------------------------------------- 1. OpenRLHF Llama-3-70B TP2
def llama3_70b():
    case = "zxl-llama3-70b-ppo-tp2-378-blocks"
    t0 = epoch(2024, 6, 28, 6, 12, 0.0)
    ts = epoch(2024, 6, 28, 6, 9, 0.0)
    P = "(LLMRayActor pid=20770)"
    W = "(RayWorkerWrapper pid=20991)"
    model = "/root/models/Meta-Llama-3-70B-Instruct"
    L = []
    def log(t, who, lvl, src, msg, iso=None):
        L.append(f"2024-06-28T{stamp(t)[6:]}.{int((t % 1) * 1e6):06d}Z {who} {lvl} {stamp(t)} {src}] {msg}")
    log(ts, P, "INFO", "llm_engine.py:161", "Initializing an LLM engine (v0.4.3) with config: model='" + model + "', "
        "speculative_config=None, tokenizer='" + model + "', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, "
        "max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, disable_custom_all_reduce=False, "
        "quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=42, served_model_name=" + model + ")")
    log(ts + 14, P, "INFO", "utils.py:660", "Found nccl from library libnccl.so.2")
    log(ts + 14, P, "INFO", "pynccl.py:63", "vLLM is using nccl==2.20.5")
    log(ts + 15, W, "INFO", "pynccl.py:63", "vLLM is using nccl==2.20.5")
    log(ts + 16, P, "INFO", "custom_all_reduce_utils.py:202", "generating GPU P2P access cache in /root/.config/vllm/gpu_p2p_access_cache_for_0,1.json")
    log(ts + 20, P, "INFO", "selector.py:51", "Using FlashAttention-2 backend.")
    log(ts + 151, P, "INFO", "model_runner.py:146", "Loading model weights took 65.7380 GB")
    log(ts + 151, W, "INFO", "model_runner.py:146", "Loading model weights took 65.7380 GB")
    tb = ts + 165
    log(tb, P, "INFO", "distributed_gpu_executor.py:45", "# GPU blocks: 378, # CPU blocks: 1638")
    frames = [
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker_base.py", line 137, in execute_method',
        "    return executor(*args, **kwargs)",
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 178, in initialize_cache',
        "    raise_if_cache_size_invalid(num_gpu_blocks, self.cache_config.block_size,",
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 352, in raise_if_cache_size_invalid',
        "    raise ValueError(",
        "ValueError: " + ERR.format(L=8192, T=6048),
    ]
    for who in (P, W):
        log(tb, who, "ERROR", "worker_base.py:145", "Error executing method initialize_cache. This might cause deadlock in distributed execution.")
        for f in frames:
            log(tb, who, "ERROR", "worker_base.py:145", f)
    L.append(f"2024-06-28T{stamp(tb + 1)[6:]}.204113Z (LLMRayActor pid=20770) ray.exceptions.RayTaskError(ValueError): "
             f"ray::LLMRayActor.__init__() (pid=20770, ip=10.0.4.17, actor_id=9f3c1e0a7b6d2c5e4f180a2b01000000)")
    L.append("ValueError: " + ERR.format(L=8192, T=6048))
    model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                    "bos_token_id": 128000, "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 8192,
                    "initializer_range": 0.02, "intermediate_size": 28672, "max_position_embeddings": 8192,
                    "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80,
                    "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None,
                    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                    "transformers_version": "4.40.0", "use_cache": True, "vocab_size": 128256}
    engine_args = {"argv": None, "args": {"model": model, "tensor-parallel-size": 2, "dtype": "bfloat16",
                                          "trust-remote-code": True, "seed": 42}}
    write_bundle(case, endpoint="ray://ppo-head:10001 (vLLM rollout engine, no HTTP server)", started_at=t0,
                 interval_s=10.0,
                 notes="OpenRLHF PPO run (Llama-3-70B actor, vllm_num_engines with vllm_tensor_parallel_size 2): the rollout "
                       "engine actors die at start-up. No HTTP endpoint ever listened; logs.txt is the Ray actor log.",
                 scrapes=refused("http://10.0.4.17:8000", t0, 6, 10.0), engine_args=engine_args,
                 model_config=model_config,
                 gpu=gpu_after(t0, 6, 10.0, "NVIDIA A100-SXM4-80GB", 85_899_345_920, 4 * MiB + 520 * MiB, ndev=2),
                 logs="\n".join(L) + "\n")
    print(case, "ok")


# ---------------------------------------------------------------- 2. Xinference GLM-4-9B on a 4090
def glm4_9b():
    case = "zxl-glm4-9b-4090-131k-pool-53376"
    t0 = epoch(2024, 10, 15, 1, 57, 0.0)
    ts = epoch(2024, 10, 15, 1, 54, 52.0)
    L = []
    def xl(t, lvl, msg, src="xinference.core.worker 75563"):
        L.append(f"2024-10-15 {stamp(t)[6:]},{int((t % 1) * 1000):03d} {src} {lvl:<8} {msg}")
    def vl(t, lvl, src, msg):
        L.append(f"{lvl} {stamp(t)} {src}] {msg}")
    path = "/usr/models/glm-4-9b-chat"
    xl(ts, "INFO", "[request 3b1f6a2e-8a89-11ef-9d4f-0242ac120002] Enter launch_builtin_model, args: <xinference.core.worker.WorkerActor object>, "
       "kwargs: model_uid=glm4-chat-1-0,model_name=glm4-chat,model_size_in_billions=9,model_format=pytorch,quantization=none,"
       "model_engine=vLLM,model_type=LLM,n_gpu=auto,request_limits=None,peft_model_config=None,gpu_idx=None,download_hub=None,model_path=" + path)
    xl(ts + 1, "INFO", "Loading glm4-chat with following model config: {'tokenizer_mode': 'auto', 'trust_remote_code': True, "
       "'tensor_parallel_size': 1, 'block_size': 16, 'swap_space': 4, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 256, "
       "'quantization': None, 'max_model_len': None}Enable lora: False. Lora count: 0.", src="xinference.model.llm.vllm.core 75563")
    vl(ts + 1, "INFO", "llm_engine.py:237", "Initializing an LLM engine (v0.6.3.post1) with config: model='" + path + "', "
       "speculative_config=None, tokenizer='" + path + "', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
       "override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, "
       "dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, "
       "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
       "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
       "observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), "
       "seed=0, served_model_name=" + path + ", num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, "
       "enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=False, mm_processor_kwargs=None)")
    vl(ts + 4, "INFO", "selector.py:135", "Using Flash Attention backend.")
    vl(ts + 15, "INFO", "model_runner.py:1056", "Starting to load model " + path + "...")
    for i, s in enumerate(range(0, 11)):
        pct = s * 10
        L.append(f"Loading safetensors checkpoint shards: {pct:3d}% Completed | {s}/10 [00:{s * 3 // 1:02d}<00:00,  3.58it/s]")
    vl(ts + 46, "INFO", "model_runner.py:1067", "Loading model weights took 17.5635 GB")
    vl(ts + 48, "INFO", "gpu_executor.py:122", "# GPU blocks: 3336, # CPU blocks: 6553")
    vl(ts + 48, "INFO", "gpu_executor.py:126", "Maximum concurrency for 131072 tokens per request: 0.41x")
    tb = ts + 48.4
    xl(tb, "ERROR", "Failed to load model glm4-chat-1-0", src="xinference.core.worker 75563")
    tbl = ["Traceback (most recent call last):",
           '  File "/usr/local/lib/python3.10/dist-packages/xinference/core/worker.py", line 894, in launch_builtin_model',
           "    await model_ref.load()",
           '  File "/usr/local/lib/python3.10/dist-packages/xinference/model/llm/vllm/core.py", line 306, in load',
           "    self._engine = AsyncLLMEngine.from_engine_args(engine_args)",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 685, in from_engine_args',
           "    engine = cls(",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 349, in __init__',
           "    self._initialize_kv_caches()",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 497, in _initialize_kv_caches',
           "    self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/executor/gpu_executor.py", line 128, in initialize_cache',
           "    self.driver_worker.initialize_cache(num_gpu_blocks, num_cpu_blocks)",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 258, in initialize_cache',
           "    raise_if_cache_size_invalid(num_gpu_blocks,",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 483, in raise_if_cache_size_invalid',
           "    raise ValueError(",
           "ValueError: [address=0.0.0.0:43171, pid=75563] " + ERR.format(L=131072, T=53376)]
    L.extend(tbl)
    model_config = {"_name_or_path": "THUDM/glm-4-9b-chat", "add_bias_linear": False, "add_qkv_bias": True,
                    "apply_query_key_layer_scaling": True, "apply_residual_connection_post_layernorm": False,
                    "architectures": ["ChatGLMModel"], "attention_dropout": 0.0, "attention_softmax_in_fp32": True,
                    "bias_dropout_fusion": True, "ffn_hidden_size": 13696, "fp32_residual_connection": False,
                    "hidden_dropout": 0.0, "hidden_size": 4096, "kv_channels": 128, "layernorm_epsilon": 1.5625e-07,
                    "model_type": "chatglm", "multi_query_attention": True, "multi_query_group_num": 2,
                    "num_attention_heads": 32, "num_hidden_layers": 40, "num_layers": 40, "rope_ratio": 500,
                    "original_rope": True, "padded_vocab_size": 151552, "post_layer_norm": True,
                    "rmsnorm": True, "seq_length": 131072, "use_cache": True, "torch_dtype": "bfloat16",
                    "transformers_version": "4.44.0", "tie_word_embeddings": False,
                    "eos_token_id": [151329, 151336, 151338], "pad_token_id": 151329}
    engine_args = {"argv": None, "args": {"model": path, "tokenizer-mode": "auto", "trust-remote-code": True,
                                          "tensor-parallel-size": 1, "block-size": 16, "swap-space": 4,
                                          "gpu-memory-utilization": 0.9, "max-num-seqs": 256}}
    write_bundle(case, endpoint="http://xinference:9997 (glm4-chat, vLLM engine)", started_at=t0, interval_s=10.0,
                 notes="Xinference v0.15.4 docker, launching glm4-chat (glm-4-9b-chat) with the vLLM engine on one RTX 4090 "
                       "24 GB and no max_model_len: the launch fails. logs.txt is the Xinference worker log.",
                 scrapes=refused("http://xinference:9997", t0, 6, 10.0), engine_args=engine_args,
                 model_config=model_config,
                 gpu=gpu_after(t0, 6, 10.0, "NVIDIA GeForce RTX 4090", 25_757_220_864, 412 * MiB),
                 logs="\n".join(L) + "\n")
    print(case, "ok")


# ---------------------------------------------------------------- 3. Xinference InternLM-20B on 48 GB
def internlm20b():
    case = "zxl-internlm20b-48g-mha-4096"
    t0 = epoch(2024, 3, 11, 2, 57, 30.0)
    ts = epoch(2024, 3, 11, 2, 55, 27.0)
    path = "/root/.xinference/cache/internlm-chat-20b-pytorch-20b"
    L = []
    def xl(t, lvl, src, msg):
        L.append(f"2024-03-11 {stamp(t)[6:]},{int((t % 1) * 1000):03d} {src} {lvl:<8} {msg}")
    def vl(t, lvl, src, msg):
        L.append(f"{lvl} {stamp(t)} {src}] {msg}")
    xl(ts + 0.495, "INFO", "xinference.model.llm.llm_family 80", "Cache " + path + " exists")
    xl(ts + 0.496, "DEBUG", "xinference.model.llm.core 80", "Launching internlm-chat-20b-1-0 with VLLMChatModel")
    xl(ts + 0.501, "INFO", "xinference.model.llm.vllm.core 249", "Loading internlm-chat-20b with following model config: "
       "{'tokenizer_mode': 'auto', 'trust_remote_code': True, 'tensor_parallel_size': 1, 'block_size': 16, 'swap_space': 4, "
       "'gpu_memory_utilization': 0.9, 'max_num_seqs': 256, 'quantization': None, 'max_model_len': 4096}")
    vl(ts, "INFO", "llm_engine.py:72", "Initializing an LLM engine with config: model='" + path + "', tokenizer='" + path + "', "
       "tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, "
       "max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=False, "
       "quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0)")
    vl(ts, "WARNING", "tokenizer.py:64", "Using a slow tokenizer. This might cause a significant slowdown. Consider using a fast tokenizer instead.")
    vl(ts + 74, "INFO", "weight_utils.py:163", "Using model weights format ['*.bin']")
    vl(ts + 90, "INFO", "llm_engine.py:322", "# GPU blocks: 211, # CPU blocks: 218")
    tb = ts + 90.3
    tbl = ["Traceback (most recent call last):",
           '  File "/usr/local/lib/python3.10/dist-packages/xinference/core/worker.py", line 569, in launch_builtin_model',
           "    await model_ref.load()",
           '  File "/usr/local/lib/python3.10/dist-packages/xinference/model/llm/vllm/core.py", line 183, in load',
           "    self._engine = AsyncLLMEngine.from_engine_args(engine_args)",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 628, in from_engine_args',
           "    engine = cls(parallel_config.worker_use_ray,",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 129, in __init__',
           "    self._init_cache()",
           '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", line 338, in _init_cache',
           "    raise ValueError(",
           "ValueError: [address=0.0.0.0:36817, pid=249] " + ERR.format(L=4096, T=3376)]
    xl(tb, "ERROR", "xinference.core.worker 80", "Failed to load model internlm-chat-20b-1-0")
    L.extend(tbl)
    model_config = {"architectures": ["InternLMForCausalLM"], "auto_map": {"AutoConfig": "configuration_internlm.InternLMConfig",
                    "AutoModelForCausalLM": "modeling_internlm.InternLMForCausalLM"}, "bias": False,
                    "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 5120,
                    "initializer_range": 0.02, "intermediate_size": 13824, "max_position_embeddings": 4096,
                    "model_type": "internlm", "num_attention_heads": 40, "num_hidden_layers": 60,
                    "num_key_value_heads": 40, "pad_token_id": 0, "rms_norm_eps": 1e-06, "rotary": {"base": 10000, "type": "dynamic"},
                    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.33.2",
                    "use_cache": True, "vocab_size": 103168}
    engine_args = {"argv": None, "args": {"model": path, "tokenizer-mode": "auto", "trust-remote-code": True,
                                          "tensor-parallel-size": 1, "block-size": 16, "swap-space": 4,
                                          "gpu-memory-utilization": 0.9, "max-num-seqs": 256, "max-model-len": 4096}}
    write_bundle(case, endpoint="http://127.0.0.1:9997 (internlm-chat-20b, vLLM engine)", started_at=t0, interval_s=10.0,
                 notes="Xinference launching internlm-chat-20b (pytorch, bf16) with the vLLM engine on one 48 GB GPU; the "
                       "launch fails. logs.txt is the Xinference log.",
                 scrapes=refused("http://127.0.0.1:9997", t0, 6, 10.0), engine_args=engine_args,
                 model_config=model_config,
                 gpu=gpu_after(t0, 6, 10.0, "NVIDIA RTX A6000", 51_527_024_640, 780 * MiB),
                 logs="\n".join(L) + "\n")
    print(case, "ok")


# ---------------------------------------------------------------- 4. RunPod worker-vllm Mistral-7B finetune
def mistral7b():
    case = "zxl-mistral7b-ft-gmu098-32k-a10g"
    t0 = epoch(2024, 1, 11, 14, 21, 0.0)
    ts = epoch(2024, 1, 11, 14, 19, 2.0)
    path = "/runpod-volume/mistral-7b-support-ft"
    L = []
    def vl(t, lvl, src, msg):
        L.append(f"{lvl} {stamp(t)} {src}] {msg}")
    L.append("worker-vllm: engine args {'model': '" + path + "', 'gpu_memory_utilization': 0.98, 'dtype': 'auto', "
             "'tensor_parallel_size': 1, 'disable_log_stats': False, 'quantization': None}")
    vl(ts, "INFO", "llm_engine.py:73", "Initializing an LLM engine (v0.2.7) with config: model='" + path + "', tokenizer='" + path + "', "
       "tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
       "max_seq_len=32768, download_dir='/runpod-volume/huggingface-cache/hub', load_format=auto, tensor_parallel_size=1, "
       "quantization=None, enforce_eager=False, seed=0)")
    vl(ts + 58, "INFO", "llm_engine.py:223", "# GPU blocks: 1848, # CPU blocks: 2048")
    L += ["Traceback (most recent call last):",
          '  File "/handler.py", line 9, in <module>',
          "    vllm_engine = vLLMEngine()",
          '  File "/src/engine.py", line 92, in __init__',
          "    self.llm = self._initialize_llm()",
          '  File "/src/engine.py", line 118, in _initialize_llm',
          "    return AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**self.config))",
          '  File "/usr/local/lib/python3.11/dist-packages/vllm/engine/async_llm_engine.py", line 628, in from_engine_args',
          "    engine = cls(parallel_config.worker_use_ray,",
          '  File "/usr/local/lib/python3.11/dist-packages/vllm/engine/llm_engine.py", line 111, in __init__',
          "    self._init_cache()",
          '  File "/usr/local/lib/python3.11/dist-packages/vllm/engine/llm_engine.py", line 231, in _init_cache',
          "    raise ValueError(",
          "ValueError: " + ERR.format(L=32768, T=29568)]
    model_config = {"architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
                    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
                    "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32,
                    "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
                    "sliding_window": 4096, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                    "transformers_version": "4.36.2", "use_cache": True, "vocab_size": 32000}
    engine_args = {"argv": None, "args": {"model": path, "gpu-memory-utilization": 0.98, "dtype": "auto",
                                          "tensor-parallel-size": 1}}
    write_bundle(case, endpoint="http://127.0.0.1:8000 (RunPod worker-vllm, in-process engine)", started_at=t0,
                 interval_s=10.0,
                 notes="RunPod serverless worker-vllm serving a Mistral-7B finetune; the worker crashes at start-up. "
                       "logs.txt is the worker's container log.",
                 scrapes=refused("http://127.0.0.1:8000", t0, 6, 10.0), engine_args=engine_args,
                 model_config=model_config,
                 gpu=gpu_after(t0, 6, 10.0, "NVIDIA A10G", 24_146_608_128, 268 * MiB),
                 logs="\n".join(L) + "\n")
    print(case, "ok")


if __name__ == "__main__":
    import sys
    which = sys.argv[1:] or ["llama3_70b", "glm4_9b", "internlm20b", "mistral7b"]
    for w in which:
        globals()[w]()
