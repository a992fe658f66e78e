"""Build the zc-* bundles: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/zc/cases.py [case-id ...]

Start-up failures (three cases) are written directly: server log, NVML samples during start-up, engine args,
model config, and /metrics scrapes that are refused. The run-time case uses the simulator of gen.py (copied from
cases/_tools/y/gen.py); family names, HELP texts and buckets come from the last scrape of an existing vLLM 0.11.0
case bundle (format example allowed by the brief).
"""
import datetime as dt
import json, math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import (Case, Req, simulate, write, server_json, gpu_samples, stats_lines, access_lines, ts, ROOT, tmpl_cc)

C = ROOT / "cases"
GiB = 2 ** 30
MiB = 2 ** 20


def epoch(s):
    return dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp()


def write_startup_failure(cid, *, t_fail, logs, gpu, engine_args, model_config, notes, endpoint="http://127.0.0.1:8000", iv=5.0):
    out = C / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    t1, t2 = t_fail - 1.0, t_fail + iv - 1.0
    err = f"GET {endpoint}/metrics: connection refused ([Errno 111] Connection refused)"
    (out / "metrics.jsonl").write_text("\n".join(json.dumps({"t": round(t, 3), "error": err}) for t in (t1, t2)) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": t1,
           "ended_at": t2, "interval_s": iv, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def kv_check_traceback(prefix, t, core_ref, msg):
    T = ts(t)
    L = [f"ERROR {T} [{core_ref}] EngineCore failed to start.",
         f"ERROR {T} [{core_ref}] Traceback (most recent call last):",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 857, in run_engine_core',
         f"ERROR {T} [{core_ref}]     engine_core = EngineCoreProc(*args, **kwargs)",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 634, in __init__',
         f"ERROR {T} [{core_ref}]     super().__init__(",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 109, in __init__',
         f"ERROR {T} [{core_ref}]     num_gpu_blocks, num_cpu_blocks, kv_cache_config = self._initialize_kv_caches(",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 242, in _initialize_kv_caches',
         f"ERROR {T} [{core_ref}]     kv_cache_configs = get_kv_cache_configs(",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 1418, in get_kv_cache_configs',
         f"ERROR {T} [{core_ref}]     _check_enough_kv_cache_memory(",
         f'ERROR {T} [{core_ref}]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 611, in _check_enough_kv_cache_memory',
         f"ERROR {T} [{core_ref}]     raise ValueError(",
         f"ERROR {T} [{core_ref}] ValueError: {msg}"]
    return [(t + i * 0.0001, prefix + x) for i, x in enumerate(L)]


# ---------------------------------------------------------------- holdout-8: GLM-4.7-FP8 PP8 on 8x A100, unified KV check
def case_glm47_pp8():
    cid = "zc-pp8-glm47-a100-unified-kv-check"
    ver = "0.14.1rc1.dev412+g58996f358"
    t0 = epoch("2026-01-28 09:12:05")
    api, core = 1, 211
    A = f"(APIServer pid={api}) "; E = f"(EngineCore_DP0 pid={core}) "
    W = lambda i: f"(Worker_PP{i} pid={318 + i}) "
    model = "zai-org/GLM-4.7-FP8"
    nondef = ("{'model_tag': 'zai-org/GLM-4.7-FP8', 'enable_auto_tool_choice': True, 'tool_call_parser': 'glm47', 'host': '0.0.0.0', "
              "'port': 5000, 'model': 'zai-org/GLM-4.7-FP8', 'trust_remote_code': True, 'download_dir': '/workspace/.cache/huggingface/hub', "
              "'max_model_len': 202752, 'reasoning_parser': 'glm45', 'pipeline_parallel_size': 8, 'gpu_memory_utilization': 0.925, "
              "'enable_prefix_caching': True, 'max_num_seqs': 128, 'enable_chunked_prefill': True}")
    L = [(t0, f"{A}INFO {ts(t0)} [api_server.py:1278] vLLM API server version {ver}"),
         (t0 + 0.01, f"{A}INFO {ts(t0)} [utils.py:254] non-default args: {nondef}"),
         (t0 + 6, f"{A}INFO {ts(t0+6)} [model.py:528] Resolved architecture: Glm4MoeForCausalLM"),
         (t0 + 6.1, f"{A}INFO {ts(t0+6)} [model.py:1543] Using max model len 202752"),
         (t0 + 6.2, f"{A}INFO {ts(t0+6)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=2048."),
         (t0 + 14, f"{E}INFO {ts(t0+14)} [core.py:93] Initializing a V1 LLM engine (v{ver}) with config: model='zai-org/GLM-4.7-FP8', "
                   "speculative_config=None, tokenizer='zai-org/GLM-4.7-FP8', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
                   "trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=202752, download_dir='/workspace/.cache/huggingface/hub', "
                   "load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=8, data_parallel_size=1, disable_custom_all_reduce=False, "
                   "quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name=zai-org/GLM-4.7-FP8, "
                   "enable_prefix_caching=True, enable_chunked_prefill=True")]
    layers = [12, 12, 12, 12, 11, 11, 11, 11]
    avail = [28.57, 29.31, 29.31, 29.31, 29.86, 29.86, 29.86, 28.94]
    weights = [42.38, 41.64, 41.64, 41.64, 41.09, 41.09, 41.09, 42.01]
    for i in range(8):
        t = t0 + 30 + i * 0.02
        L.append((t, f"{W(i)}INFO {ts(t)} [parallel_state.py:1208] rank {i} in world size 8 is assigned as DP rank 0, PP rank {i}, PCP rank 0, TP rank 0, EP rank 0"))
        t = t0 + 31 + i * 0.02
        L.append((t, f"{W(i)}WARNING {ts(t)} [marlin_utils_fp8.py:80] Your GPU does not have native support for FP8 computation but FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads."))
        t = t0 + 412 + i * 0.4
        L.append((t, f"{W(i)}INFO {ts(t)} [gpu_model_runner.py:3650] Model loading took {weights[i]:.4f} GiB memory and {381.2 + i * 0.4:.6f} seconds"))
        t = t0 + 468 + i * 0.3
        L.append((t, f"{W(i)}INFO {ts(t)} [gpu_worker.py:359] Available KV cache memory: {avail[i]:.2f} GiB"))
    tf = t0 + 471
    msg = ("To serve at least one request with the models's max seq len (202752), (71.16 GiB KV cache is needed, which is larger than "
           "the available KV cache memory (28.57 GiB). Based on the available memory, the estimated maximum model length is 81392. Try "
           "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See "
           "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
    L += kv_check_traceback(E, tf, "core.py:866", msg)
    L.append((tf + 0.5, f"{A}ERROR {ts(tf)} [api_server.py:1295] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"))
    A100 = 81920 * MiB
    gpu = []
    for k, t in enumerate((tf - 1.0, tf + 4.0)):
        devs = []
        for i in range(8):
            used = int((weights[i] + 1.71) * GiB) if k == 0 else 0
            procs = [{"pid": 318 + i, "name": "VLLM::Worker_PP%d" % i, "used_memory": used}] if k == 0 else []
            devs.append({"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": A100, "memory_used": used + 4 * MiB, "processes": procs})
        gpu.append({"t": round(t, 3), "devices": devs})
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "5000", "--host", "0.0.0.0", "--download-dir",
            "/workspace/.cache/huggingface/hub", "--model", model, "--pipeline-parallel-size", "8", "--trust-remote-code",
            "--enable-chunked-prefill", "--enable-prefix-caching", "--max-num-seqs", "128", "--gpu-memory-utilization", "0.925",
            "--max-model-len", "202752", "--enable-auto-tool-choice", "--tool-call-parser", "glm47", "--reasoning-parser", "glm45"]
    args = {"model": model, "port": 5000, "host": "0.0.0.0", "download-dir": "/workspace/.cache/huggingface/hub", "pipeline-parallel-size": 8,
            "trust-remote-code": True, "enable-chunked-prefill": True, "enable-prefix-caching": True, "max-num-seqs": 128,
            "gpu-memory-utilization": 0.925, "max-model-len": 202752, "enable-auto-tool-choice": True, "tool-call-parser": "glm47",
            "reasoning-parser": "glm45"}
    mc = {"architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "attention_dropout": 0.0, "pad_token_id": 151329,
          "eos_token_id": [151329, 151336, 151338], "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "partial_rotary_factor": 0.5,
          "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 202752, "model_type": "glm4_moe",
          "moe_intermediate_size": 1536, "norm_topk_prob": True, "num_attention_heads": 96, "n_group": 1, "topk_group": 1,
          "n_routed_experts": 160, "n_shared_experts": 1, "routed_scaling_factor": 2.5, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
          "num_hidden_layers": 92, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
          "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.57.1",
          "use_cache": True, "use_qk_norm": True, "vocab_size": 151552,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    write_startup_failure(cid, t_fail=tf, logs=L, gpu=gpu, engine_args={"argv": argv, "args": args}, model_config=mc,
                          endpoint="http://127.0.0.1:5000",
                          notes="GLM-4.7-FP8 on one node with 8x A100 80GB, pipeline-parallel-size 8 (no TP), vLLM nightly. The server never "
                                "came up: start-up refused with a KV-cache error. Captured: server log, NVML per GPU during start-up; /metrics refused.")


# ---------------------------------------------------------------- holdout-8: Qwen3-Coder-30B-A3B-FP8, PP2 on 5070 Ti + 5090 D
def case_pp2_hetero():
    cid = "zc-pp2-5070ti-5090d-262k-kv-short"
    ver = "0.15.2rc1.dev93+g11a4c9d30"
    t0 = epoch("2026-02-08 05:41:17")
    api, core = 1021, 1094
    A = f"(APIServer pid={api}) "; E = f"(EngineCore_DP0 pid={core}) "
    W = lambda i: f"(Worker_PP{i} pid={1160 + i}) "
    model = "./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"
    nondef = ("{'model_tag': './Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', "
              "'model': './Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', 'served_model_name': ['Qwen3-Coder-30B-A3B-Instruct-FP8'], "
              "'pipeline_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'enable_chunked_prefill': True}")
    L = [(t0, f"{A}INFO {ts(t0)} [api_server.py:1278] vLLM API server version {ver}"),
         (t0 + 0.01, f"{A}INFO {ts(t0)} [utils.py:254] non-default args: {nondef}"),
         (t0 + 4, f"{A}INFO {ts(t0+4)} [model.py:528] Resolved architecture: Qwen3MoeForCausalLM"),
         (t0 + 4.1, f"{A}INFO {ts(t0+4)} [model.py:1543] Using max model len 262144"),
         (t0 + 4.2, f"{A}INFO {ts(t0+4)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=2048."),
         (t0 + 9, f"{E}INFO {ts(t0+9)} [core.py:93] Initializing a V1 LLM engine (v{ver}) with config: model='./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', "
                  "speculative_config=None, tokenizer='./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', skip_tokenizer_init=False, tokenizer_mode=auto, "
                  "revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=262144, download_dir=None, load_format=auto, "
                  "tensor_parallel_size=1, pipeline_parallel_size=2, data_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, "
                  "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name=Qwen3-Coder-30B-A3B-Instruct-FP8, "
                  "enable_prefix_caching=True, enable_chunked_prefill=True")]
    weights = [10.02, 20.01]
    avail = [3.18, 7.46]
    for i in range(2):
        t = t0 + 15 + i * 0.02
        L.append((t, f"{W(i)}INFO {ts(t)} [parallel_state.py:1208] rank {i} in world size 2 is assigned as DP rank 0, PP rank {i}, PCP rank 0, TP rank 0, EP rank 0"))
        t = t0 + 16 + i * 0.02
        L.append((t, f"{W(i)}INFO {ts(t)} [utils.py:84] Using VLLM_PP_LAYER_PARTITION=16,32: layers [{0 if i == 0 else 16}, {16 if i == 0 else 48}) on PP rank {i}"))
        t = t0 + 41 + i * 1.3
        L.append((t, f"{W(i)}INFO {ts(t)} [gpu_model_runner.py:3650] Model loading took {weights[i]:.4f} GiB memory and {22.4 + i * 1.3:.6f} seconds"))
        t = t0 + 77 + i * 0.3
        L.append((t, f"{W(i)}INFO {ts(t)} [gpu_worker.py:359] Available KV cache memory: {avail[i]:.2f} GiB"))
    tf = t0 + 78
    msg = ("To serve at least one request with the models's max seq len (262144), (24.0 GiB KV cache is needed, which is larger than "
           "the available KV cache memory (3.18 GiB). Based on the available memory, the estimated maximum model length is 34736. Try "
           "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See "
           "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
    L += kv_check_traceback(E, tf, "core.py:866", msg)
    L.append((tf + 0.5, f"{A}ERROR {ts(tf)} [api_server.py:1295] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"))
    names = ["NVIDIA GeForce RTX 5070 Ti", "NVIDIA GeForce RTX 5090 D"]
    totals = [16303 * MiB, 32607 * MiB]
    gpu = []
    for k, t in enumerate((tf - 1.0, tf + 4.0)):
        devs = []
        for i in range(2):
            used = int((weights[i] + 1.17) * GiB) if k == 0 else 0
            procs = [{"pid": 1160 + i, "name": "VLLM::Worker_PP%d" % i, "used_memory": used}] if k == 0 else []
            devs.append({"index": i, "name": names[i], "memory_total": totals[i], "memory_used": used + 412 * MiB, "processes": procs})
        gpu.append({"t": round(t, 3), "devices": devs})
    argv = ["vllm", "serve", model, "--gpu-memory-utilization", "0.9", "--served-model-name", "Qwen3-Coder-30B-A3B-Instruct-FP8",
            "--pipeline-parallel-size", "2", "--enable-chunked-prefill", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"]
    args = {"model": model, "gpu-memory-utilization": 0.9, "served-model-name": "Qwen3-Coder-30B-A3B-Instruct-FP8", "pipeline-parallel-size": 2,
            "enable-chunked-prefill": True, "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder"}
    mc = {"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
          "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048,
          "initializer_range": 0.02, "intermediate_size": 5472, "max_position_embeddings": 262144, "max_window_layers": 28,
          "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True, "num_attention_heads": 32,
          "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": False,
          "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 10000000, "router_aux_loss_coef": 0.0, "shared_expert_intermediate_size": 0,
          "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
          "use_sliding_window": False, "vocab_size": 151936,
          "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}
    write_startup_failure(cid, t_fail=tf, logs=L, gpu=gpu, engine_args={"argv": argv, "args": args}, model_config=mc,
                          notes="Local workstation, RTX 5070 Ti 16 GB (GPU 0) + RTX 5090 D 32 GB (GPU 1), pipeline parallel 2 with "
                                "VLLM_PP_LAYER_PARTITION=16,32 (env: CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1). Backend for a "
                                "coding agent that needs long context. The server never came up. Captured: server log, NVML during start-up; /metrics refused.")


# ---------------------------------------------------------------- dev-8: Llama-3.2-11B-Vision on 2x A10, V0 multimodal profile OOM
def case_mllama():
    cid = "zc-mllama-11b-2xa10-profile-oom"
    ver = "0.6.1.dev238+ge2c6e0a82"
    t0 = epoch("2024-11-05 03:21:18")
    wp = "(VllmWorkerProcess pid=67) "
    ns = ("Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
          "allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', "
          "ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, "
          "disable_frontend_multiprocessing=False, enable_auto_tool_choice=False, tool_call_parser=None, model='/data/model/llama', tokenizer=None, "
          "skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, "
          "download_dir=None, load_format='auto', config_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, "
          "max_model_len=1024, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, "
          "tensor_parallel_size=2, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, "
          "disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, "
          "gpu_memory_utilization=0.7, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, "
          "disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, "
          "max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', "
          "tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, enable_lora=False, scheduler_delay_factor=0.0, "
          "enable_chunked_prefill=None, speculative_model=None, served_model_name=None, disable_log_requests=False, max_log_len=None)")
    L = [(t0, f"INFO {ts(t0)} api_server.py:526] vLLM API server version {ver}"),
         (t0 + 0.01, f"INFO {ts(t0)} api_server.py:527] args: {ns}"),
         (t0 + 0.3, f"INFO {ts(t0)} api_server.py:164] Multiprocessing frontend to use ipc:///tmp/6a2f4b0e-4c1d-4b57-9a0e-2d7b1f1c9e83 for IPC Path."),
         (t0 + 0.4, f"INFO {ts(t0)} api_server.py:177] Started engine process with PID 37"),
         (t0 + 5.1, f"INFO {ts(t0+5)} config.py:899] Defaulting to use mp for distributed inference"),
         (t0 + 5.2, f"INFO {ts(t0+5)} llm_engine.py:237] Initializing an LLM engine (v{ver}) with config: model='/data/model/llama', "
                    "speculative_config=None, tokenizer='/data/model/llama', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
                    "override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, "
                    "dtype=torch.bfloat16, max_seq_len=1024, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, "
                    "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
                    "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), "
                    "seed=0, served_model_name=/data/model/llama, use_v2_block_manager=False, num_scheduler_steps=1, chunked_prefill_enabled=False "
                    "multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)"),
         (t0 + 5.3, f"WARNING {ts(t0+5)} multiproc_gpu_executor.py:53] Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed."),
         (t0 + 5.4, f"INFO {ts(t0+5)} custom_cache_manager.py:17] Setting Triton cache manager to: vllm.triton_utils.custom_cache_manager:CustomCacheManager"),
         (t0 + 7, f"{wp}INFO {ts(t0+7)} multiproc_worker_utils.py:218] Worker ready; awaiting tasks"),
         (t0 + 8, f"INFO {ts(t0+8)} utils.py:1008] Found nccl from library libnccl.so.2"),
         (t0 + 8.1, f"INFO {ts(t0+8)} pynccl.py:63] vLLM is using nccl==2.20.5"),
         (t0 + 8.2, f"{wp}INFO {ts(t0+8)} pynccl.py:63] vLLM is using nccl==2.20.5"),
         (t0 + 9, f"WARNING {ts(t0+9)} custom_all_reduce.py:132] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly."),
         (t0 + 9.5, f"INFO {ts(t0+9)} model_runner.py:1014] Starting to load model /data/model/llama..."),
         (t0 + 9.6, f"{wp}INFO {ts(t0+9)} model_runner.py:1014] Starting to load model /data/model/llama..."),
         (t0 + 23, f"INFO {ts(t0+23)} model_runner.py:1025] Loading model weights took 10.0714 GB"),
         (t0 + 23.1, f"{wp}INFO {ts(t0+23)} model_runner.py:1025] Loading model weights took 10.0714 GB"),
         (t0 + 23.2, f"INFO {ts(t0+23)} enc_dec_model_runner.py:297] Starting profile run for multi-modal models."),
         (t0 + 23.3, f"{wp}INFO {ts(t0+23)} enc_dec_model_runner.py:297] Starting profile run for multi-modal models.")]
    tf = t0 + 34
    oom = ("CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 has a total capacity of 22.09 GiB of which 758.44 MiB is free. "
           "Process 2751070 has 21.35 GiB memory in use. Of the allocated memory 20.90 GiB is allocated by PyTorch, and 85.19 MiB is reserved "
           "by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
           "to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    T = ts(tf)
    tb = [f"ERROR {T} multiproc_worker_utils.py:233] Exception in worker VllmWorkerProcess while processing method determine_num_available_blocks: {oom}, Traceback (most recent call last):",
          f'ERROR {T} multiproc_worker_utils.py:233]   File "/usr/local/lib/python3.12/dist-packages/vllm/executor/multiproc_worker_utils.py", line 226, in _run_worker_process',
          f"ERROR {T} multiproc_worker_utils.py:233]     output = executor(*args, **kwargs)",
          f'ERROR {T} multiproc_worker_utils.py:233]   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 223, in determine_num_available_blocks',
          f"ERROR {T} multiproc_worker_utils.py:233]     self.model_runner.profile_run()",
          f'ERROR {T} multiproc_worker_utils.py:233]   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/enc_dec_model_runner.py", line 348, in profile_run',
          f"ERROR {T} multiproc_worker_utils.py:233]     self.execute_model(model_input, kv_caches, intermediate_tensors)",
          f'ERROR {T} multiproc_worker_utils.py:233]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 1084, in forward',
          f"ERROR {T} multiproc_worker_utils.py:233]     cross_attention_states = self.vision_model(pixel_values,",
          f'ERROR {T} multiproc_worker_utils.py:233]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/mllama.py", line 542, in forward',
          f"ERROR {T} multiproc_worker_utils.py:233]     hidden_state = self.transformer(hidden_state, attention_mask=attention_mask)",
          f"ERROR {T} multiproc_worker_utils.py:233] torch.OutOfMemoryError: {oom}"]
    L += [(tf + i * 0.0001, wp + x) for i, x in enumerate(tb)]
    L += [(tf + 0.2, f"ERROR {T} engine.py:366] {oom.replace('GPU 1', 'GPU 0').replace('758.44 MiB', '761.44 MiB').replace('Process 2751070', 'Process 2750905')}"),
          (tf + 0.3, f"ERROR {T} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 67 died, exit code: -15"),
          (tf + 0.4, f"INFO {T} multiproc_worker_utils.py:123] Killing local vLLM worker processes")]
    A10 = 23028 * MiB
    gpu = [{"t": round(tf - 1.0, 3), "devices": [
        {"index": 0, "name": "NVIDIA A10", "memory_total": A10, "memory_used": int(21.33 * GiB) + 412 * MiB,
         "processes": [{"pid": 2750905, "name": "/usr/bin/python3", "used_memory": int(21.33 * GiB)}]},
        {"index": 1, "name": "NVIDIA A10", "memory_total": A10, "memory_used": int(21.35 * GiB) + 412 * MiB,
         "processes": [{"pid": 2751070, "name": "/usr/bin/python3", "used_memory": int(21.35 * GiB)}]}]},
        {"t": round(tf + 4.0, 3), "devices": [
        {"index": 0, "name": "NVIDIA A10", "memory_total": A10, "memory_used": 4 * MiB, "processes": []},
        {"index": 1, "name": "NVIDIA A10", "memory_total": A10, "memory_used": 4 * MiB, "processes": []}]}]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/data/model/llama", "--tensor-parallel-size", "2",
            "--max-model-len", "1024", "--gpu-memory-utilization", "0.7"]
    args = {"model": "/data/model/llama", "tensor-parallel-size": 2, "max-model-len": 1024, "gpu-memory-utilization": 0.7}
    mc = {"architectures": ["MllamaForConditionalGeneration"], "image_token_index": 128256, "model_type": "mllama", "torch_dtype": "bfloat16",
          "transformers_version": "4.45.0.dev0",
          "text_config": {"model_type": "mllama_text_model", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                          "num_hidden_layers": 40, "num_key_value_heads": 8, "max_position_embeddings": 131072, "vocab_size": 128256,
                          "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38], "rope_theta": 500000.0, "rms_norm_eps": 1e-05,
                          "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                           "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                          "torch_dtype": "bfloat16", "tie_word_embeddings": False},
          "vision_config": {"model_type": "mllama_vision_model", "hidden_size": 1280, "image_size": 560, "patch_size": 14,
                            "max_num_tiles": 4, "num_hidden_layers": 32, "num_global_layers": 8, "attention_heads": 16,
                            "intermediate_size": 5120, "vision_output_dim": 7680, "num_channels": 3,
                            "intermediate_layers_indices": [3, 7, 15, 23, 30]}}
    write_startup_failure(cid, t_fail=tf, logs=L, gpu=gpu, engine_args={"argv": argv, "args": args}, model_config=mc,
                          notes="Llama-3.2-11B-Vision-Instruct (local copy /data/model/llama) served with tensor parallel 2 on two NVIDIA A10 "
                                "(24 GB). Start-up dies with CUDA out of memory. Captured: server log, NVML per process a second before the "
                                "error and after it; /metrics refused.")


# ---------------------------------------------------------------- holdout-8: Qwen3-VL-4B on RTX 3090, run-time OOM at util 0.95
def case_qwen3vl_3090():
    cid = "zc-qwen3vl-4b-3090-runtime-oom-util-095"
    rng = random.Random(26863)
    T011 = "d-kv-93pct-38-streams-healthy"   # vLLM 0.11.0
    mpath = "/home/deploy/Workspace/adkWorkSpace/models/krypton3-4b/"
    t0 = epoch("2025-10-15 06:02:11")
    start, n, iv = t0 + 1800, 61, 10.0
    block = 16; blocks = 4910; pool = blocks * block; mml = 32768
    c = Case(cid, "0.11.0", False, mpath, mpath, mml, start, n, iv, {}, pool, block, 256, tmpl=T011)
    t_crash = start + 372.4
    reqs, rid = [], 0
    t = start - 240.0
    while t < t_crash:
        img = rng.choice([1, 1, 1, 2])
        p = img * rng.randint(1900, 3300) + rng.randint(150, 600)
        g = rng.randint(220, 900)
        reqs.append(Req(rid, round(t, 3), p, 0, g, 1024, "stop", mm=img)); rid += 1
        t += rng.expovariate(1 / 14.0)
    # the fatal request: two page photos plus a long pasted text, prefilled in one step (chunked prefill off)
    big = Req(rid, round(t_crash - 1.6, 3), 2 * 3850 + 14200, 0, 0, 1024, "abort", mm=2)
    step = lambda nr: 0.0175 + 0.0011 * (nr - 1)
    pre = lambda r, nr: 0.32 * r.mm + r.prompt / 9500.0
    simulate(c, reqs, step, pre)
    for r in c.reqs:
        if r.t_end > t_crash:  # in flight when the engine died: aborted, no further tokens
            r.reason = "abort"
    big.t_sched = big.t_arr + 0.01; big.t_first = 1e12; big.t_end = 1e12; big.step_s = 0.0175
    c.reqs = c.reqs + [big]
    c.labels_cc = tmpl_cc(T011, gpu_memory_utilization=0.95, num_gpu_blocks=blocks, enable_prefix_caching="True")
    api, core = 1, 153
    A = f"(APIServer pid={api}) "; E = f"(EngineCore_DP0 pid={core}) "
    rope = "{'rope_type': 'yarn', 'factor': 3.0, 'original_max_position_embeddings': 262144, 'mrope_section': [24, 20, 20], 'mrope_interleaved': True}"
    nondef = (f"{{'model_tag': '{mpath}', 'port': 7001, 'model': '{mpath}', 'trust_remote_code': True, 'dtype': 'float16', "
              f"'max_model_len': 32768, 'rope_scaling': {rope}, 'enforce_eager': True, 'gpu_memory_utilization': 0.95, 'enable_chunked_prefill': False}}")
    L = [(t0, f"{A}INFO {ts(t0)} [api_server.py:1839] vLLM API server version 0.11.0"),
         (t0 + 0.01, f"{A}INFO {ts(t0)} [utils.py:233] non-default args: {nondef}"),
         (t0 + 5, f"{A}INFO {ts(t0+5)} [model.py:547] Resolved architecture: Qwen3VLForConditionalGeneration"),
         (t0 + 5.1, f"{A}WARNING {ts(t0+5)} [model.py:1733] Casting torch.bfloat16 to torch.float16."),
         (t0 + 5.2, f"{A}INFO {ts(t0+5)} [model.py:1510] Using max model len 32768"),
         (t0 + 14, f"{E}INFO {ts(t0+14)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{mpath}', speculative_config=None, "
                   f"tokenizer='{mpath}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, "
                   "dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
                   "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, "
                   f"served_model_name={mpath}, enable_prefix_caching=True, chunked_prefill_enabled=False"),
         (t0 + 17, f"{E}INFO {ts(t0+17)} [gpu_model_runner.py:2602] Starting to load model {mpath}..."),
         (t0 + 25, f"{E}INFO {ts(t0+25)} [gpu_model_runner.py:2653] Model loading took 8.2713 GiB and 7.913215 seconds"),
         (t0 + 25.5, f"{E}INFO {ts(t0+25)} [gpu_model_runner.py:3344] Encoder cache will be initialized with a budget of 32768 tokens, and profiled with 2 image items of the maximum feature size."),
         (t0 + 33, f"{E}INFO {ts(t0+33)} [gpu_worker.py:298] Available KV cache memory: 10.79 GiB"),
         (t0 + 33.1, f"{E}INFO {ts(t0+33)} [kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens"),
         (t0 + 33.2, f"{E}INFO {ts(t0+33)} [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: {pool / mml:.2f}x"),
         (t0 + 34, f"{E}INFO {ts(t0+34)} [core.py:210] init engine (profile, create kv cache, warmup model) took 9.87 seconds"),
         (t0 + 36, f"{A}INFO {ts(t0+36)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:7001")]
    L += [x for x in stats_lines(c, start - 60, t_crash, api, "loggers.py:123", mm_line=False) if x[0] < t_crash]
    acc = access_lines(c, api, "/v1/chat/completions")
    for r, a in zip(c.reqs, acc):
        if r.t_end <= t_crash:
            L.append((r.t_end + 0.002, a[1]))
    T = ts(t_crash)
    oom = ("CUDA out of memory. Tried to allocate 232.00 MiB. GPU 0 has a total capacity of 23.57 GiB of which 154.25 MiB is free. Including "
           "non-PyTorch memory, this process has 23.40 GiB memory in use. Of the allocated memory 22.88 GiB is allocated by PyTorch, and 188.29 MiB "
           "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
           "to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    tb = ["[dump_input.py:69] Dumping input data for V1 LLM engine (v0.11.0) with config: model='%s', max_seq_len=32768, enforce_eager=True, chunked_prefill_enabled=False" % mpath,
          "[dump_input.py:76] Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[NewRequestData(req_id=chatcmpl-5c0e1f7a2b9d4e63a1f0c2d8e4b7a915,prompt_token_ids_len=21900,mm_kwargs=[...],num_computed_tokens=0,lora_request=None)], num_scheduled_tokens={chatcmpl-5c0e1f7a2b9d4e63a1f0c2d8e4b7a915: 21900}, total_num_scheduled_tokens=21900, scheduled_encoder_inputs={chatcmpl-5c0e1f7a2b9d4e63a1f0c2d8e4b7a915: [0, 1]})",
          "[core.py:708] EngineCore encountered a fatal error.",
          "[core.py:708] Traceback (most recent call last):",
          '[core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
          "[core.py:708]     engine_core.run_busy_loop()",
          '[core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 726, in run_busy_loop',
          "[core.py:708]     self._process_engine_step()",
          '[core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2316, in execute_model',
          "[core.py:708]     model_output = self.model(",
          '[core.py:708]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/activation.py", line 91, in forward_cuda',
          "[core.py:708]     out = torch.empty(output_shape, dtype=x.dtype, device=x.device)",
          f"[core.py:708] torch.OutOfMemoryError: {oom}"]
    L += [(t_crash + i * 0.0001, f"{E}ERROR {T} {x}") for i, x in enumerate(tb)]
    L += [(t_crash + 0.1, f"{A}ERROR {T} [async_llm.py:480] AsyncLLM output_handler failed."),
          (t_crash + 0.11, f"{A}ERROR {T} [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")]
    k = 0
    for r in c.reqs:
        if r.t_sched <= t_crash < r.t_end:
            L.append((t_crash + 0.2 + k * 0.001, f'{A}INFO:     10.30.4.{11 + r.rid % 3}:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'))
            k += 1
    L += [(t_crash + 0.5, f"{A}INFO:     Shutting down"), (t_crash + 0.6, f"{A}INFO:     Waiting for application shutdown."),
          (t_crash + 0.7, f"{A}INFO:     Application shutdown complete."), (t_crash + 0.8, f"{A}INFO:     Finished server process [1]")]
    write(c, C / cid / "bundle", server=server_json("0.11.0", mpath, mpath, mml, int(t0 + 36)),
          engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", mpath, "--max-model-len", "32768",
                                "--tensor-parallel-size", "1", "--gpu-memory-utilization", "0.95", "--dtype", "float16", "--port", "7001",
                                "--trust-remote-code", "--rope-scaling", '{"rope_type":"yarn","factor":3.0,"original_max_position_embeddings": 262144,"mrope_section":[24,20,20],"mrope_interleaved": true}',
                                "--enforce-eager", "--no-enable-chunked-prefill"],
                       "args": {"model": mpath, "max-model-len": 32768, "tensor-parallel-size": 1, "gpu-memory-utilization": 0.95,
                                "dtype": "float16", "port": 7001, "trust-remote-code": True,
                                "rope-scaling": {"rope_type": "yarn", "factor": 3.0, "original_max_position_embeddings": 262144,
                                                 "mrope_section": [24, 20, 20], "mrope_interleaved": True},
                                "enforce-eager": True, "enable-chunked-prefill": False}},
          model_config=None, gpu=[], logs=L, endpoint="http://127.0.0.1:7001",
          notes="Fine-tuned Qwen3-VL-4B (krypton3-4b) on one RTX 3090 24 GB, OpenAI server on port 7001, document-image extraction "
                "(1-3 concurrent requests, one or two page images each). Complaint: the server crashed with CUDA out of memory during inference. "
                "/metrics every 10 s for 10 min, NVML, server log.")
    # NVML: steady at the 0.95 budget plus context, the peak at the crash, then the process is gone
    R3090 = 24576 * MiB
    gpu = []
    for kk in range(n):
        t = start + kk * iv
        if t < t_crash - 3:
            used = int(22.43 * GiB) + rng.randint(0, 40) * MiB
            procs = [{"pid": core, "name": "VLLM::EngineCore", "used_memory": used}]
        else:
            used, procs = 0, []
        gpu.append({"t": round(t, 3), "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": R3090,
                                                   "memory_used": used + 289 * MiB, "processes": procs}]})
    (C / cid / "bundle" / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    _err_after(cid, t_crash, "GET http://127.0.0.1:7001/metrics: connection refused ([Errno 111] Connection refused)")


def _err_after(cid, t_fail, msg):
    p = C / cid / "bundle" / "metrics.jsonl"
    out = []
    for ln in p.read_text().splitlines():
        r = json.loads(ln)
        if r["t"] > t_fail:
            r = {"t": r["t"], "error": msg}
        out.append(json.dumps(r))
    p.write_text("\n".join(out) + "\n")


BUILDERS = {"zc-pp8-glm47-a100-unified-kv-check": case_glm47_pp8, "zc-pp2-5070ti-5090d-262k-kv-short": case_pp2_hetero,
            "zc-mllama-11b-2xa10-profile-oom": case_mllama, "zc-qwen3vl-4b-3090-runtime-oom-util-095": case_qwen3vl_3090}

if __name__ == "__main__":
    for nme in sys.argv[1:] or list(BUILDERS):
        BUILDERS[nme]()
        print("built", nme)
