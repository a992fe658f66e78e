"""Writer zzk's cases (round 14): builds cases/zzk-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzk/cases.py
Seeded, no wall clock. Numbers not quoted from the sources are listed under `assumed:` in each case.yaml.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1024 ** 3
MiB = 1024 ** 2


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def ts(t):
    return gen.ts(t)


def failed_bundle(cid, t_fail, n, iv, endpoint, notes, engine_args, model_config, gpu, logs, err):
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    start = t_fail + 5
    recs = [json.dumps({"t": round(start + k * iv, 3), "error": err}) for k in range(n)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": start,
           "ended_at": start + (n - 1) * iv, "interval_s": iv, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("\n".join(json.dumps({"t": round(start + k * iv, 3), "devices": gpu}) for k in range(n)) + "\n")
    (out / "logs.txt").write_text("\n".join(logs) + "\n")


# ---------------------------------------------------------------- 1: vllm #33297 (CI, L4, leftover server)
def ci_l4():
    cid = "zzk-ci-l4-stale-server-1p5gib-free"
    t = utc(2026, 1, 28, 23, 59, 20)
    api, core = 951, 972
    L = lambda s, m, p="": f"{p}INFO {ts(t + s)} {m}"
    A = lambda s, m: L(s, m, f"(APIServer pid={api}) ")
    E = lambda s, m, lvl="INFO": f"(EngineCore_DP0 pid={core}) {lvl} {ts(t + s)} {m}"
    logs = [
        A(0, "[api_server.py:1351] vLLM API server version 0.15.0rc2.dev118+g3c9a1f0"),
        A(0, "[utils.py:253] non-default args: {'model_tag': 'openai/gpt-oss-20b', 'port': 45617, 'model': 'openai/gpt-oss-20b', 'max_model_len': 10000, 'enforce_eager': True, 'tool_server': 'demo'}"),
        A(6, "[model.py:541] Resolved architecture: GptOssForCausalLM"),
        A(6, "[model.py:1561] Using max model len 10000"),
        A(7, "[scheduler.py:226] Chunked prefill is enabled with max_num_batched_tokens=8192."),
        E(12, "[core.py:96] Initializing a V1 LLM engine (v0.15.0rc2.dev118+g3c9a1f0) with config: model='openai/gpt-oss-20b', speculative_config=None, tokenizer='openai/gpt-oss-20b', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=10000, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=mxfp4, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=openai/gpt-oss-20b, enable_prefix_caching=True, enable_chunked_prefill=True"),
        E(21, "[parallel_state.py:1212] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0"),
        E(22, "[core.py:935] EngineCore failed to start.", "ERROR"),
        E(22, "[core.py:935] Traceback (most recent call last):", "ERROR"),
        E(22, '[core.py:935]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 926, in run_engine_core', "ERROR"),
        E(22, "[core.py:935]     engine_core = EngineCoreProc(*args, **kwargs)", "ERROR"),
        E(22, '[core.py:935]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 239, in init_device', "ERROR"),
        E(22, "[core.py:935]     self.requested_memory = request_memory(init_snapshot, self.cache_config)", "ERROR"),
        E(22, '[core.py:935]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/utils.py", line 356, in request_memory', "ERROR"),
        E(22, "[core.py:935]     raise ValueError(", "ERROR"),
        E(22, "[core.py:935] ValueError: Free memory on device cuda:0 (1.53/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", "ERROR"),
        f"(APIServer pid={api}) Traceback (most recent call last):",
        f"(APIServer pid={api}) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}",
    ]
    tot = 23034 * MiB
    old = int(20.31 * GiB)
    new = int(0.21 * GiB)
    gpu = [{"index": 0, "name": "NVIDIA L4", "memory_total": tot, "memory_used": old + new + 440 * MiB,
            "processes": [{"pid": 738, "name": "VLLM::EngineCore", "used_memory": old},
                          {"pid": core, "name": "VLLM::EngineCore", "used_memory": new}]}]
    argv = ["vllm", "serve", "openai/gpt-oss-20b", "--port", "45617", "--max-model-len", "10000", "--enforce-eager", "--tool-server", "demo"]
    args = {"model": "openai/gpt-oss-20b", "port": 45617, "max-model-len": 10000, "enforce-eager": True, "tool-server": "demo"}
    mc = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 24,
          "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128,
          "layer_types": ["sliding_attention", "full_attention"] * 12, "num_local_experts": 32, "num_experts_per_tok": 4,
          "vocab_size": 201088, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "mxfp4"}}
    failed_bundle(cid, t + 22, 13, 5.0, "http://localhost:45617",
                  "CI job (responses-API entrypoint tests) on an L4: the test's vLLM server exits at start-up; /metrics never answered. NVML sampled by the job after the failure.",
                  {"argv": argv, "args": args}, mc, gpu, logs,
                  "connection refused: HTTPConnectionPool(host='localhost', port=45617): Max retries exceeded with url: /metrics")


# ---------------------------------------------------------------- 2: kaito #2132 (Mistral-Small-4, 1M ctx)
def kaito():
    cid = "zzk-mistral-small4-1m-ctx-h100nvl"
    t = utc(2026, 6, 19, 8, 12, 0)
    api, core = 1, 212
    A = lambda s, m: f"(APIServer pid={api}) INFO {ts(t + s)} {m}"
    E = lambda s, m, lvl="INFO": f"(EngineCore_DP0 pid={core}) {lvl} {ts(t + s)} {m}"
    W = lambda r, s, m: f"(Worker_TP{r} pid={300 + r}) INFO {ts(t + s)} {m}"
    m = "mistralai/Mistral-Small-4-119B-2603"
    logs = [
        A(0, "[api_server.py:1511] vLLM API server version 0.21.0"),
        A(0, f"[utils.py:299] non-default args: {{'model_tag': '/workspace/weights', 'host': '0.0.0.0', 'port': 5000, 'served_model_name': ['{m}'], 'tokenizer_mode': 'mistral', 'config_format': 'mistral', 'load_format': 'mistral', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'max_model_len': 1048576}}"),
        A(8, "[model.py:552] Resolved architecture: MistralLarge3ForCausalLM"),
        A(8, "[model.py:1677] Using max model len 1048576"),
        A(9, "[scheduler.py:241] Chunked prefill is enabled with max_num_batched_tokens=8192."),
    ]
    for r in (0, 1):
        logs.append(W(r, 95, "[default_loader.py:291] Loading weights took 71.84 seconds"))
        logs.append(W(r, 96, "[gpu_model_runner.py:3944] Model loading took 61.98 GiB memory and 78.120522 seconds"))
    for r in (0, 1):
        logs.append(W(r, 131, "[gpu_model_runner.py:6143] Estimated CUDA graph memory: 0.41 GiB total"))
        logs.append(W(r, 132, "[gpu_worker.py:460] Available KV cache memory: 17.39 GiB"))
    logs += [
        E(133, "[core.py:1001] EngineCore failed to start.", "ERROR"),
        E(133, "[core.py:1001] Traceback (most recent call last):", "ERROR"),
        E(133, '[core.py:1001]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 144, in __init__', "ERROR"),
        E(133, "[core.py:1001]     kv_cache_config = self._initialize_kv_caches(vllm_config)", "ERROR"),
        E(133, '[core.py:1001]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 758, in _check_enough_kv_cache_memory', "ERROR"),
        E(133, "[core.py:1001]     raise ValueError(", "ERROR"),
        E(133, "[core.py:1001] ValueError: To serve at least one request with the model's max seq len (1048576), 22.5 GiB KV cache is needed, which is larger than the available KV cache memory (17.39 GiB). Based on the available memory, the estimated maximum model length is 810208. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", "ERROR"),
        f"(APIServer pid={api}) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}",
    ]
    tot = 95830 * MiB
    used = int(62.0 * GiB + 1.9 * GiB)
    gpu = [{"index": i, "name": "NVIDIA H100 NVL", "memory_total": tot, "memory_used": used + 520 * MiB,
            "processes": [{"pid": 300 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used}]} for i in (0, 1)]
    argv = ["python3", "/workspace/vllm/inference_api.py", "--model", "/workspace/weights", "--served-model-name", m,
            "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--max-model-len", "1048576",
            "--tokenizer-mode", "mistral", "--config-format", "mistral", "--load-format", "mistral", "--port", "5000"]
    args = {"model": m, "served-model-name": m, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.9,
            "max-model-len": 1048576, "kv-cache-dtype": "auto"}
    mc = {"architectures": ["MistralLarge3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 4096,
          "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 32, "kv_lora_rank": 256,
          "q_lora_rank": 1024, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
          "n_routed_experts": 128, "num_experts_per_tok": 4, "vocab_size": 131072,
          "max_position_embeddings": 1048576, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    failed_bundle(cid, t + 133, 25, 10.0, "http://workspace-mistral-medium.default.svc:80",
                  "KAITO workspace on Standard_NC80adis_H100_v5 (2 x H100 NVL): the inference pod exits at start-up and restarts; the Service never answers /metrics. NVML sampled on the node just before the pod exited.",
                  {"argv": argv, "args": args}, mc, gpu, logs,
                  "connection refused: dial tcp 10.244.1.17:5000: connect: connection refused")


# ---------------------------------------------------------------- 3: Step3 PR #14 (DP8, sampler warm-up)
def step3():
    cid = "zzk-step3-fp8-dp8-sampler-warmup-oom"
    t = utc(2025, 8, 6, 14, 31, 0)
    api = 27911
    cores = [28302 + i * 2 for i in range(8)]
    A = lambda s, m: f"(APIServer pid={api}) INFO {ts(t + s)} {m}"
    E = lambda i, s, m, lvl="INFO": f"(EngineCore_{i} pid={cores[i]}) {lvl} {ts(t + s)} {m}"
    logs = [
        A(0, "[api_server.py:1805] vLLM API server version 0.10.1.dev402+g7e0b121a"),
        A(0, "[utils.py:326] non-default args: {'model_tag': '/models/step3-fp8', 'enable_auto_tool_choice': True, 'tool_call_parser': 'step3', 'model': '/models/step3-fp8', 'trust_remote_code': True, 'reasoning_parser': 'step3', 'data_parallel_size': 8}"),
        A(9, "[config.py:726] Resolved architecture: Step3VLForConditionalGeneration"),
        A(9, "[config.py:1759] Using max model len 65536"),
        A(10, "[config.py:2588] Chunked prefill is enabled with max_num_batched_tokens=8192."),
    ]
    for i in range(8):
        logs.append(E(i, 150, "[gpu_model_runner.py:1999] Model loading took 54.31 GiB and 118.402 seconds"))
    for i in range(8):
        logs.append(E(i, 228, "[gpu_worker.py:276] Available KV cache memory: 24.70 GiB"))
        logs.append(E(i, 229, "[kv_cache_utils.py:849] GPU KV cache size: 424,576 tokens"))
        logs.append(E(i, 229, "[kv_cache_utils.py:853] Maximum concurrency for 65,536 tokens per request: 6.48x"))
    for i in range(8):
        logs.append(E(i, 354, "[gpu_model_runner.py:2581] Graph capturing finished in 121 secs, took 2.91 GiB"))
    L = lambda m: E(2, 389, "[core.py:683] " + m, "ERROR")
    logs += [
        L("EngineCore failed to start."), L("Traceback (most recent call last):"),
        L('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2337, in _dummy_sampler_run'),
        L("    sampler_output = self.sampler(logits=logits,"),
        L('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/ops/topk_topp_sampler.py", line 230, in apply_top_k_top_p'),
        L("    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)"),
        L("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.97 GiB. GPU 2 has a total capacity of 95.00 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 93.92 GiB memory in use. Of the allocated memory 87.13 GiB is allocated by PyTorch, with 2.91 GiB allocated in private pools (e.g., CUDA Graphs), and 1.18 GiB is reserved by PyTorch but unallocated."),
        L(""), L("The above exception was the direct cause of the following exception:"), L(""),
        L("Traceback (most recent call last):"),
        L('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 301, in compile_or_warm_up_model'),
        L("    self.model_runner._dummy_sampler_run("),
        L('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2342, in _dummy_sampler_run'),
        L("    raise RuntimeError("),
        L("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine."),
        f"(APIServer pid={api}) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{'EngineCore_2': 1}}",
    ]
    tot = 97871 * MiB
    gpu = []
    for i in range(8):
        used = int((93.92 if i == 2 else 91.87 + 0.02 * i) * GiB)
        gpu.append({"index": i, "name": "NVIDIA H20", "memory_total": tot, "memory_used": used + 430 * MiB,
                    "processes": [{"pid": cores[i], "name": "VLLM::EngineCore", "used_memory": used}]})
    argv = ["vllm", "serve", "/models/step3-fp8", "--data-parallel-size", "8", "--tensor-parallel-size", "1",
            "--reasoning-parser", "step3", "--enable-auto-tool-choice", "--tool-call-parser", "step3", "--trust-remote-code"]
    args = {"model": "/models/step3-fp8", "data-parallel-size": 8, "tensor-parallel-size": 1, "reasoning-parser": "step3",
            "enable-auto-tool-choice": True, "tool-call-parser": "step3", "trust-remote-code": True}
    mc = {"architectures": ["Step3VLForConditionalGeneration"], "model_type": "step3_vl",
          "text_config": {"architectures": ["Step3TextForCausalLM"], "model_type": "step3_text", "hidden_size": 7168,
                          "num_hidden_layers": 61, "num_attention_heads": 64, "num_attention_groups": 1,
                          "head_dim": 256, "moe_num_experts": 48, "moe_top_k": 3, "vocab_size": 128815,
                          "max_position_embedding": 65536, "torch_dtype": "bfloat16"},
          "vision_config": {"model_type": "step3_vision_encoder", "image_size": 728},
          "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}, "torch_dtype": "bfloat16"}
    failed_bundle(cid, t + 389, 13, 5.0, "http://h20-node-0:8000",
                  "vllm serve step3-fp8 with DP8 on one 8 x H20 node: start-up aborts after CUDA graph capture; /metrics never answered. NVML sampled as engine 2 raised.",
                  {"argv": argv, "args": args}, mc, gpu, logs,
                  "connection refused: HTTPConnectionPool(host='h20-node-0', port=8000): Max retries exceeded with url: /metrics")


# ---------------------------------------------------------------- 4: vllm #8816 (Llama-3-8B, H100, looks full)
def llama8b():
    cid = "zzk-llama3-8b-h100-memory-full-healthy"
    rng = random.Random(1408)
    tmpl = "zp-client-cap-100-of-200-users"
    t0 = utc(2024, 9, 25, 15, 0, 0)
    n, iv = 61, 10.0
    blocks = 27955
    pool = blocks * 16
    c = Case(cid, "0.6.1.post2", True, "/models/Meta-Llama-3-8B/", "/models/Meta-Llama-3-8B/", 8192, t0, n, iv,
             gen.tmpl_cc(tmpl, num_gpu_blocks=blocks, num_cpu_blocks=2048, gpu_memory_utilization="0.9", enable_prefix_caching="False"),
             pool, 16, 256, tmpl=tmpl)
    R, rid, ta = [], 0, t0 - 900
    while ta < t0 + (n - 1) * iv:
        p = rng.randint(300, 1500)
        g = rng.randint(100, 400)
        R.append(Req(rid, ta, p, 0, g, 512, reason="stop"))
        rid += 1
        ta += rng.expovariate(0.9)
    gen.simulate(c, R, lambda k: 0.0105 + 0.00008 * k, lambda r, k: 0.018 + r.prompt / 22000.0)
    api = 1
    L = lambda s, m: f"INFO {ts(t0 - 2400 + s)} {m}"
    logs = [(t0 - 2400, L(0, "api_server.py:459] vLLM API server version 0.6.1.post2")),
            (t0 - 2400, L(0, "api_server.py:460] args: Namespace(model_tag='/models/Meta-Llama-3-8B/', config='', host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_auto_tool_choice=False, tool_call_parser=None, model='/models/Meta-Llama-3-8B/', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', config_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, enable_lora=False, max_loras=1, max_lora_rank=16, scheduler_delay_factor=0.0, enable_chunked_prefill=None, speculative_model=None, num_speculative_tokens=None, served_model_name=None, qlora_adapter_name_or_path=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, override_neuron_config=None, disable_log_requests=True, max_log_len=None, disable_fastapi_docs=False, dispatch_function=<function serve at 0x7f3b5c0a3d90>)")),
            (t0 - 2397, L(3, "llm_engine.py:232] Initializing an LLM engine (v0.6.1.post2) with config: model='/models/Meta-Llama-3-8B/', speculative_config=None, tokenizer='/models/Meta-Llama-3-8B/', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=/models/Meta-Llama-3-8B/, use_v2_block_manager=False, num_scheduler_steps=1, multi_step_stream_outputs=False, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)")),
            (t0 - 2390, L(10, "model_runner.py:997] Starting to load model /models/Meta-Llama-3-8B/...")),
            (t0 - 2381, L(19, "model_runner.py:1008] Loading model weights took 14.9595 GB")),
            (t0 - 2378, L(22, f"gpu_executor.py:122] # GPU blocks: {blocks}, # CPU blocks: 2048")),
            (t0 - 2376, L(24, "model_runner.py:1311] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.")),
            (t0 - 2376, L(24, "model_runner.py:1315] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.")),
            (t0 - 2365, L(35, "model_runner.py:1430] Graph capturing finished in 11 secs.")),
            (t0 - 2364, L(36, "api_server.py:224] vLLM to use /tmp/tmpq8w3n1zk as PROMETHEUS_MULTIPROC_DIR")),
            (t0 - 2363, "INFO:     Started server process [1]"),
            (t0 - 2363, "INFO:     Waiting for application startup."),
            (t0 - 2363, "INFO:     Application startup complete."),
            (t0 - 2363, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    # V0 stats line every 5 s (metrics.py:351)
    t = t0 - 60
    while t <= t0 + (n - 1) * iv:
        a, b = t - 5, t
        pt = sum(r.prompt for r in R if a < r.t_first <= b)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in R if r.t_first <= b and r.t_end > a)
        run = [r for r in R if r.t_sched <= b < r.t_end]
        wait = sum(1 for r in R if r.t_arr <= b < r.t_sched)
        bl = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in run)
        logs.append((b, f"INFO {ts(b)} metrics.py:351] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                        f"Running: {len(run)} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {100.0 * bl / blocks:.1f}%, CPU KV cache usage: 0.0%."))
        t += 5
    logs += gen.access_lines(c, api, "/v1/completions", v0=True)
    tot = 81559 * MiB
    used = int(72.31 * GiB)
    devs = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": tot, "memory_used": used + 530 * MiB,
             "processes": [{"pid": 1, "name": "python3", "used_memory": used}]}]
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000, "eos_token_id": 128001,
          "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
          "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 500000.0,
          "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.40.0.dev0", "use_cache": True,
          "vocab_size": 128256}
    argv = ["vllm", "serve", "/models/Meta-Llama-3-8B/", "--disable-log-requests"]
    gen.write(c, ROOT / "cases" / cid / "bundle",
              server=gen.server_json("0.6.1.post2", "/models/Meta-Llama-3-8B/", "/models/Meta-Llama-3-8B/", 8192, int(t0)),
              engine_args={"argv": argv, "args": {"model": "/models/Meta-Llama-3-8B/", "disable-log-requests": True}},
              model_config=mc, gpu=gen.gpu_samples(c, devs), logs=logs,
              notes="vllm serve of Meta-Llama-3-8B on one H100, defaults; operator asked why nvidia-smi shows the card almost full. 10 min of ordinary traffic.",
              endpoint="http://localhost:8000")


if __name__ == "__main__":
    ci_l4(); kaito(); step3(); llama8b()
