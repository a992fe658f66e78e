#!/usr/bin/env python3
"""Build the bundles of the d-* cases. Usage (from the worktree root):

    PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/d/cases.py [case-id ...]

gen.py is a copy of cases/_tools/a/gen.py (metric text writers: names per release from
kvdoctor/data/vllm_metrics.yaml, HELP texts and buckets from tests/data/vllm-0.32). Each builder
takes the numbers its case.yaml quotes and fills in the rest as case.yaml's `assumed:` says.
"""

from __future__ import annotations

import datetime as _dt
import sys
import time as _t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import models  # noqa: E402
from gen import GiB, MiB, Engine, device, prom_error, v0_engine, v0_text, v1_text, write_bundle  # noqa: E402

CASES = Path(__file__).resolve().parents[2]
BUILDERS = {}


def case(fn):
    BUILDERS[fn.__name__.replace("_", "-")] = fn
    return fn


def epoch(y, mo, d, h=0, mi=0, s=0) -> float:
    return _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc).timestamp()


def hms(t: float) -> str:
    return _t.strftime("%H:%M:%S", _t.gmtime(t))


def md(t: float) -> str:
    return _t.strftime("%m-%d", _t.gmtime(t))


def models_body(served: str, root: str, max_len: int, created: int) -> dict:
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created, "owned_by": "vllm",
                                        "root": root, "parent": None, "max_model_len": max_len,
                                        "permission": [{"id": "modelperm-0d1f6a3c9b7e4e0f8a2b5c6d7e8f9012",
                                                        "object": "model_permission", "created": created,
                                                        "allow_create_engine": False, "allow_sampling": True,
                                                        "allow_logprobs": True, "allow_search_indices": False,
                                                        "allow_view": True, "allow_fine_tuning": False,
                                                        "organization": "*", "group": None, "is_blocking": False}]}]}


# --------------------------------------------------------------------------------------------
@case
def d_mm_profiling_oom_qwen25vl_v100():
    """vllm#22173: Qwen2.5-VL-72B GPTQ-Int4, 4x V100 32GB, TP4, limit_mm image=10 video=1: OOM profiling."""
    d = "08-04"
    mp = "******/models/Qwen2.5-VL-72B-Instruct-GPTQ-Int4"
    site = "******/miniconda3/envs/qwen25vl.train.vlm0901/lib/python3.10/site-packages"
    W = [42876, 42877, 42878]
    L = [f"INFO {d} 16:52:31 [__init__.py:243] Automatically detected platform cuda.",
         f"INFO {d} 16:52:44 [config.py:793] This model supports multiple tasks: {{'generate', 'reward', 'classify', 'embed', 'score'}}. Defaulting to 'generate'.",
         f"WARNING {d} 16:52:44 [config.py:931] gptq quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
         f"WARNING {d} 16:52:44 [arg_utils.py:1658] Compute Capability < 8.0 is not supported by the V1 Engine. Falling back to V0. ",
         f"INFO {d} 16:52:44 [config.py:1441] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
         f"INFO {d} 16:52:44 [config.py:1875] Defaulting to use mp for distributed inference",
         f"INFO {d} 16:52:44 [llm_engine.py:230] Initializing a V0 LLM engine (v0.9.0.1) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=True, dtype=torch.float16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gptq, enforce_eager=False, kv_cache_dtype=fp8_e5m2,  device_config=cuda, decoding_config=DecodingConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_backend=''), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=None, served_model_name={mp}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=None, chunked_prefill_enabled=False, use_async_output_proc=True, pooler_config=None, compilation_config={{\"compile_sizes\": [], \"inductor_compile_config\": {{\"enable_auto_functionalized_v2\": false}}, \"cudagraph_capture_sizes\": [256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1], \"max_capture_size\": 256}}, use_cached_outputs=False, "]
    for pid in W:
        L.append(f"(VllmWorkerProcess pid={pid}) INFO {d} 16:52:53 [multiproc_worker_utils.py:225] Worker ready; awaiting tasks")
    L += [f"INFO {d} 16:52:58 [cuda.py:240] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.",
          f"INFO {d} 16:52:58 [cuda.py:289] Using XFormers backend.",
          f"INFO {d} 16:53:02 [parallel_state.py:1064] rank 0 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
          f"INFO {d} 16:53:02 [model_runner.py:1170] Starting to load model {mp}...",
          f"WARNING {d} 16:53:02 [vision.py:91] Current `vllm-flash-attn` has a bug inside vision module, so we use xformers backend instead. You can run `pip install flash-attn` to use flash-attention backend."]
    for pid in [None] + W:
        pre = "" if pid is None else f"(VllmWorkerProcess pid={pid}) "
        L.append(f"{pre}INFO {d} 16:54:31 [model_runner.py:1202] Model loading took 10.7148 GiB and 88.417331 seconds")
    warn = ("The sequence length used for profiling (max_num_batched_tokens / max_num_seqs = 8192) is too short to hold the "
            "multi-modal embeddings in the worst case (180224 tokens in total, out of which {'image': 163840, 'video': 16384} "
            "are reserved for multi-modal embeddings). This may cause certain multi-modal inputs to fail during inference, even "
            "when the input text is short. To avoid this, you should increase `max_model_len`, reduce `max_num_seqs`, and/or reduce `mm_counts`.")
    for pid in W:
        L.append(f"(VllmWorkerProcess pid={pid}) WARNING {d} 16:54:33 [model_runner.py:1277] Computed max_num_seqs (min(256, 8192 // 180224)) to be less than 1. Setting it to the minimum value of 1.")
    L.append(f"WARNING {d} 16:54:33 [model_runner.py:1277] Computed max_num_seqs (min(256, 8192 // 180224)) to be less than 1. Setting it to the minimum value of 1.")
    for pid in W:
        L.append(f"(VllmWorkerProcess pid={pid}) WARNING {d} 16:54:49 [profiling.py:247] {warn}")
    L.append(f"WARNING {d} 16:54:49 [profiling.py:247] {warn}")
    pid = 42878
    e = f"(VllmWorkerProcess pid={pid}) ERROR {d} 16:54:59 [multiproc_worker_utils.py:238]"
    L += [f"{e} Exception in worker VllmWorkerProcess while processing method determine_num_available_blocks.",
          f"{e} Traceback (most recent call last):",
          f"{e}   File \"{site}/vllm/executor/multiproc_worker_utils.py\", line 232, in _run_worker_process",
          f"{e}     output = run_method(worker, method, args, kwargs)",
          f"{e}   File \"{site}/vllm/worker/worker.py\", line 229, in determine_num_available_blocks",
          f"{e}     self.model_runner.profile_run()",
          f"{e}   File \"{site}/vllm/worker/model_runner.py\", line 1243, in profile_run",
          f"{e}     self._dummy_run(max_num_batched_tokens, max_num_seqs)",
          f"{e}   File \"{site}/vllm/model_executor/models/qwen2_5_vl.py\", line 1010, in get_multimodal_embeddings",
          f"{e}     vision_embeddings = self._process_image_input(image_input)",
          f"{e}   File \"{site}/vllm/model_executor/models/qwen2_5_vl.py\", line 728, in forward",
          f"{e}     hidden_states = blk(",
          f"{e}   File \"{site}/vllm/model_executor/models/qwen2_5_vl.py\", line 395, in forward",
          f"{e}     x = x + self.attn(self.norm1(x),",
          f"{e} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.69 GiB. GPU 3 has a total capacity of 31.74 GiB of which 3.56 GiB is free. Process 1865364 has 28.17 GiB memory in use. Of the allocated memory 27.43 GiB is allocated by PyTorch, and 32.62 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
          "[rank0]: Traceback (most recent call last):",
          "[rank0]:   File \"******/test_vllm_qwen25_batch.py\", line 31, in <module>",
          "[rank0]:     llm = LLM(",
          f"[rank0]:   File \"{site}/vllm/utils.py\", line 1183, in inner",
          "[rank0]:     return fn(*args, **kwargs)",
          f"[rank0]:   File \"{site}/vllm/entrypoints/llm.py\", line 253, in __init__",
          "[rank0]:     self.llm_engine = LLMEngine.from_engine_args(",
          f"[rank0]:   File \"{site}/vllm/model_executor/models/qwen2_5_vl.py\", line 728, in forward",
          "[rank0]:     hidden_states = blk(",
          f"[rank0]:   File \"{site}/vllm/model_executor/models/qwen2_5_vl.py\", line 395, in forward",
          "[rank0]:     x = x + self.attn(self.norm1(x),",
          "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.69 GiB. GPU 3 has a total capacity of 31.74 GiB of which 3.56 GiB is free."]
    t_fail = epoch(2025, 8, 4, 16, 54, 59)
    total = 32510 * MiB  # 31.74 GiB
    procs = [(1865361, 27.96), (1865362, 28.05), (1865363, 27.99), (1865364, 28.17)]
    gpu = [{"t": t_fail + 0.4, "devices": [device(i, "Tesla V100-SXM2-32GB", total, [(p, "python", int(u * GiB))])
                                           for i, (p, u) in enumerate(procs)]}]
    args = {"model": mp, "tokenizer": mp, "limit-mm-per-prompt": {"image": 10, "video": 1}, "dtype": "float16",
            "gpu-memory-utilization": 0.9, "quantization": "gptq", "tensor-parallel-size": 4, "max-model-len": 8192,
            "kv-cache-dtype": "fp8_e5m2", "trust-remote-code": True}
    write_bundle(CASES / "d-mm-profiling-oom-qwen25vl-v100", endpoint="offline LLM() in test_vllm_qwen25_batch.py (no HTTP server)",
                 started_at=t_fail - 10, interval_s=5.0,
                 notes="Offline batch script constructing vllm.LLM(...) on 4x V100 32GB; engine construction failed. "
                       "No OpenAI server ran, so /metrics could not be scraped. NVML sampled once, at the failure.",
                 scrapes=[prom_error(t_fail - 9.7), prom_error(t_fail + 0.3)], server=None,
                 engine_args={"argv": None, "args": args}, model_config=models.QWEN25_VL_72B_GPTQ_INT4, gpu=gpu,
                 logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def d_lora_8k_prompt_runtime_oom_llama33():
    """vllm#15039: Llama-3.3-70B TP4 H100, V0, gmu 0.89, runtime LoRA: OOM on the first 8k-token LoRA prompt."""
    d = "03-19"
    served = "llama3.3"
    mp = "/app/model/llama3.3-70b-instruct"
    blocks = 29547
    pool = blocks * 16
    e = v0_engine(served)
    for k in ["vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"]:
        e.counters[k] = 0.0
    cache = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
             "enable_prefix_caching": "False", "gpu_memory_utilization": "0.89", "is_attention_free": "False",
             "num_cpu_blocks": "3276", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
             "sliding_window": "None", "swap_space_bytes": "4294967296"}
    # ladder of single LoRA requests: (arrival offset s, prompt tokens, output tokens); decode 30 tok/s
    ladder = [(8.0, 512, 96), (18.0, 1024, 96), (29.0, 2048, 96), (39.5, 3072, 96), (50.3, 1530, 48), (54.02, 4225, 96)]
    t0 = epoch(2025, 3, 19, 10, 54, 21)
    reqs = []
    for off, p_, o in ladder:
        ta = t0 + off
        ttft = 0.18 + p_ / 11000
        reqs.append((ta, p_, o, ta + ttft, ta + ttft + (o - 1) / 30.0))
    scrapes, logs = [], []
    prev_p = prev_g = 0.0
    seen_first, seen_done = set(), set()
    for i in range(12):
        t = t0 + 5 * i
        ptoks = sum(p_ for (ta, p_, o, tf, te) in reqs if tf <= t)
        gtoks = sum(min(o, 1 + int((t - tf) * 30)) if t < te else o for (ta, p_, o, tf, te) in reqs if tf <= t)
        e.counters["vllm:prompt_tokens_total"] = ptoks
        e.counters["vllm:generation_tokens_total"] = gtoks
        for k, (ta, p_, o, tf, te) in enumerate(reqs):
            if tf <= t and k not in seen_first:
                seen_first.add(k)
                e.hists["vllm:time_to_first_token_seconds"].observe(tf - ta)
            if te <= t and k not in seen_done:
                seen_done.add(k)
                e.hists["vllm:time_per_output_token_seconds"].observe(1 / 30.0, o - 1)
                e.hists["vllm:e2e_request_latency_seconds"].observe(te - ta)
                e.labelled[("vllm:request_success_total", "finished_reason", "length")] = \
                    e.labelled.get(("vllm:request_success_total", "finished_reason", "length"), 0) + 1
        run = [(p_, o, tf, te) for (ta, p_, o, tf, te) in reqs if ta <= t < te]
        kvtok = sum(-(-(p_ + (min(o, int((t - tf) * 30)) if t > tf else 0)) // 16) * 16 for (p_, o, tf, te) in run)
        e.gauges = {"vllm:num_requests_running": len(run), "vllm:num_requests_waiting": 0, "vllm:num_requests_swapped": 0,
                    "vllm:gpu_cache_usage_perc": round(kvtok / pool, 6), "vllm:cpu_cache_usage_perc": 0.0}
        scrapes.append({"t": t + 0.25, "status": 200, "text": v0_text(e, cache)})
        logs.append((t, f"INFO {d} {hms(t)} [metrics.py:481] Avg prompt throughput: {(ptoks - prev_p) / 5:.1f} tokens/s, Avg generation throughput: {(gtoks - prev_g) / 5:.1f} tokens/s, Running: {len(run)} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {100 * kvtok / pool:.1f}%, CPU KV cache usage: 0.0%."))
        prev_p, prev_g = ptoks, gtoks
    for k, (ta, p_, o, tf, te) in enumerate(reqs):
        rid = f"chatcmpl-{(0x5a17c0de + 7919 * k) & 0xffffffff:08x}4c2e9b1d{k:02d}f0a7e3c5d6b8"
        logs.append((ta, f"INFO {d} {hms(ta)} [logger.py:39] Received request {rid}: prompt: '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\\n\\nCutting Knowledge Date: December 2023\\nToday Date: 26 Jul 2024\\n\\nYou are a helpful assistant.<|eot_id|><|start_header_id|>JSON data:\\n{{\"a6b6eaef-5121-4071-bddb-3a5875dfa2ff\": \"0789de0e-7078-42c1-bf82-3bc23eeec6a1\", ...', params: SamplingParams(n=1, temperature=0.0, max_tokens=96), prompt_token_ids: None, lora_request: LoRARequest(lora_name='test', lora_int_id=1, lora_path='/app/model/lora/llama3.3-test/'), prompt_adapter_request: None."))
        logs.append((ta + 0.01, f"INFO {d} {hms(ta)} [engine.py:289] Added request {rid}."))
    # the 8k step
    t8 = t0 + 59.3
    rid = "chatcmpl-94389d40cd724c338aa0eb6b2bd40a71"
    logs.append((t8 - 1.0, f"INFO {d} {hms(t8 - 1.0)} [logger.py:39] Received request {rid}: prompt: '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\\n\\nCutting Knowledge Date: December 2023\\nToday Date: 26 Jul 2024\\n\\nYou are a helpful assistant.<|eot_id|><|start_header_id|>JSON data:\\n{{\"a6b6eaef-5121-4071-bddb-3a5875dfa2ff\": \"0789de0e-7078-42c1-bf82-3bc23eeec6a1\", \"eec58957-5827-4f92-887a-169e82058037\": \"e287e9db-1eca-4e27-b8fd-f924860d97fe\", ...', params: SamplingParams(n=1, temperature=0.0, max_tokens=96), prompt_token_ids: None, lora_request: LoRARequest(lora_name='test', lora_int_id=1, lora_path='/app/model/lora/llama3.3-test/'), prompt_adapter_request: None."))
    logs.append((t8 - 0.99, f"INFO {d} {hms(t8 - 1.0)} [engine.py:289] Added request {rid}."))
    site = "/usr/local/lib/python3.12/dist-packages/vllm"
    er = f"(VllmWorkerProcess pid=486733) ERROR {d} {hms(t8)} [multiproc_worker_utils.py:242]"
    crash = [f"{er} Exception in worker VllmWorkerProcess while processing method start_worker_execution_loop.",
             f"{er} Traceback (most recent call last):",
             f"{er}   File \"{site}/worker/model_runner.py\", line 1788, in execute_model",
             f"{er}     hidden_or_intermediate_states = model_executable(",
             f"{er}   File \"{site}/model_executor/models/llama.py\", line 94, in forward",
             f"{er}     x, _ = self.gate_up_proj(x)",
             f"{er}   File \"{site}/lora/layers.py\", line 469, in forward",
             f"{er}     output_parallel = self.apply(input_, bias)",
             f"{er}   File \"{site}/lora/layers.py\", line 333, in apply",
             f"{er}     self.punica_wrapper.add_lora_linear(output, x, self.lora_a_stacked,",
             f"{er}   File \"{site}/lora/punica_wrapper/punica_gpu.py\", line 219, in add_lora_linear",
             f"{er}     buffer = torch.zeros(  # type: ignore",
             f"{er} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 2 has a total capacity of 79.33 GiB of which 402.69 MiB is free. Process 486733 has 78.92 GiB memory in use. Of the allocated memory 76.81 GiB is allocated by PyTorch, with 508.00 MiB allocated in private pools (e.g., CUDA Graphs), and 1.13 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
             f"ERROR {d} {hms(t8 + 0.4)} [engine.py:160] RuntimeError('Worker failed with error \\'CUDA out of memory. Tried to allocate 1.75 GiB. GPU 2 has a total capacity of 79.33 GiB of which 402.69 MiB is free.\\'')",
             f"ERROR {d} {hms(t8 + 0.5)} [serving_chat.py:688] Error in chat completion stream generator.",
             f"CRITICAL {d} {hms(t8 + 1.2)} [launcher.py:116] MQLLMEngine is already dead, terminating server process",
             "INFO:     127.0.0.1:58590 - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error",
             "INFO:     Shutting down",
             "INFO:     Application shutdown complete."]
    head = [f"INFO {d} 10:51:02 [api_server.py:972] vLLM API server version 0.8.1",
            f"INFO {d} 10:51:02 [api_server.py:973] args: Namespace(subparser='serve', model_tag='{mp}', host='0.0.0.0', port=8000, served_model_name=['{served}'], model='{mp}', tensor_parallel_size=4, gpu_memory_utilization=0.89, max_model_len=131072, enable_lora=True, max_loras=1, max_lora_rank=64, enable_chunked_prefill=False, enable_prefix_caching=None, swap_space=4)",
            f"WARNING {d} 10:51:02 [api_server.py:935] LoRA dynamic loading & unloading is enabled in the API server. This should ONLY be used for local development!",
            f"INFO {d} 10:51:10 [llm_engine.py:232] Initializing a V0 LLM engine (v0.8.1) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name={served}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=None, chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=True, ",
            f"INFO {d} 10:52:47 [model_runner.py:1146] Model loading took 32.9504 GiB and 96.116245 seconds",
            f"(VllmWorkerProcess pid=486732) INFO {d} 10:53:21 [worker.py:267] Memory profiling takes 9.84 seconds",
            f"(VllmWorkerProcess pid=486732) INFO {d} 10:53:21 [worker.py:267] the current vLLM instance can use total_gpu_memory (79.33GiB) x gpu_memory_utilization (0.89) = 70.60GiB",
            f"(VllmWorkerProcess pid=486732) INFO {d} 10:53:21 [worker.py:267] model weights take 32.95GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak memory takes 0.73GiB; the rest of the memory reserved for KV Cache is 36.63GiB.",
            f"INFO {d} 10:53:21 [worker.py:267] Memory profiling takes 9.84 seconds",
            f"INFO {d} 10:53:21 [worker.py:267] the current vLLM instance can use total_gpu_memory (79.33GiB) x gpu_memory_utilization (0.89) = 70.60GiB",
            f"INFO {d} 10:53:21 [worker.py:267] model weights take 32.95GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak memory takes 1.30GiB; the rest of the memory reserved for KV Cache is 36.07GiB.",
            f"INFO {d} 10:53:21 [executor_base.py:111] # cuda blocks: 29547, # CPU blocks: 3276",
            f"INFO {d} 10:53:21 [executor_base.py:116] Maximum concurrency for 131072 tokens per request: 3.61x",
            f"(VllmWorkerProcess pid=486731) INFO {d} 10:53:24 [model_runner.py:1442] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
            f"INFO {d} 10:53:52 [model_runner.py:1570] Graph capturing finished in 28 secs, took 0.50 GiB",
            f"INFO {d} 10:53:52 [llm_engine.py:447] init engine (profile, create kv cache, warmup model) took 64.86 seconds",
            "INFO: Started server process [486325]",
            "INFO: Waiting for application startup.",
            "INFO: Application startup complete.",
            f"INFO {d} 10:54:16 [serving_models.py:174] Loaded new LoRA adapter: name 'test', path '/app/model/lora/llama3.3-test/'",
            "INFO: 127.0.0.1:58576 - \"POST /v1/load_lora_adapter HTTP/1.1\" 200 OK"]
    logs.sort(key=lambda x: x[0])
    scrapes.append(prom_error(t0 + 60.25))
    scrapes.append(prom_error(t0 + 65.25))
    gpu = []
    for i in range(0, 12, 2):
        t = t0 + 5 * i + 0.3
        gpu.append({"t": t, "devices": [device(k, "NVIDIA H100 NVL", 81234 * MiB, [(486730 + k, "python3" if k == 0 else "VllmWorkerProcess", int(72.61 * GiB))]) for k in range(4)]})
    args = {"model": mp, "served-model-name": served, "tensor-parallel-size": 4, "gpu-memory-utilization": 0.89,
            "max-model-len": 131072, "enable-lora": True, "max-loras": 1, "max-lora-rank": 64, "enable-chunked-prefill": False}
    argv = ["vllm", "serve", mp, "--served-model-name", served, "--tensor-parallel-size", "4", "--gpu-memory-utilization",
            "0.89", "--max-model-len", "131072", "--enable-lora", "--max-loras", "1", "--max-lora-rank", "64",
            "--enable-chunked-prefill", "false"]
    write_bundle(CASES / "d-lora-8k-prompt-runtime-oom-llama33", endpoint="http://127.0.0.1:8000", started_at=t0, interval_s=5.0,
                 notes="Env VLLM_USE_V1=0, VLLM_ALLOW_RUNTIME_LORA_UPDATING=True. Adapter 'test' loaded at run time, then a "
                       "long-context test sent single LoRA requests of growing length; the server died during the capture.",
                 scrapes=scrapes, server={"version": {"version": "0.8.1"}, "models": models_body(served, mp, 131072, 1742381632), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=models.LLAMA33_70B, gpu=gpu,
                 logs="\n".join(head + [x[1] for x in logs] + crash) + "\n")


# --------------------------------------------------------------------------------------------
@case
def d_fp8_kv_221k_exceeds_pool():
    """vllm#25350: fp8 KV, max_model_len 221000 needs 10.12 GiB, 5.59 GiB available (estimate 122080)."""
    d = "09-21"
    mp = "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"
    comp = ("{'level': 3, 'debug_dump_path': '', 'cache_dir': '', 'backend': '', 'custom_ops': [], 'splitting_ops': "
            "['vllm.unified_attention', 'vllm.unified_attention_with_output', 'vllm.mamba_mixer2', 'vllm.mamba_mixer', "
            "'vllm.short_conv', 'vllm.linear_attention', 'vllm.plamo2_mamba_mixer', 'vllm.gdn_attention'], 'use_inductor': True, "
            "'cudagraph_mode': [2, 1], 'use_cudagraph': True, 'cudagraph_num_of_warmups': 1, 'cudagraph_capture_sizes': [512, 504, 496, 488, 480, 472, 464, 456, 448, 440, 432, 424, 416, 408, 400, 392, 384, 376, 368, 360, 352, 344, 336, 328, 320, 312, 304, 296, 288, 280, 272, 264, 256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1], 'max_capture_size': 512}")

    def run(hh: str, mml: int, core_pid: int) -> list[str]:
        a = f"(APIServer pid=1) INFO {d} {hh}"
        c = f"(EngineCore_DP0 pid={core_pid}) INFO {d} {hh}"
        return [f"{a}:02 [api_server.py:1896] vLLM API server version 0.10.2",
                f"{a}:02 [utils.py:328] non-default args: {{'model_tag': '{mp}', 'host': '0.0.0.0', 'model': '{mp}', 'max_model_len': {mml}, 'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8'}}",
                f"{a}:09 [__init__.py:742] Resolved architecture: Qwen3MoeForCausalLM",
                f"{a}:09 [__init__.py:1815] Using max model len {mml}",
                f"{a}:09 [cache.py:180] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
                f"{a}:10 [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=2048.",
                f"{c}:17 [core.py:654] Waiting for init message from front-end.",
                f"{c}:17 [core.py:76] Initializing a V1 LLM engine (v0.10.2) with config: model='{mp}', speculative_config=None, tokenizer='{mp}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len={mml}, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=fp8,  device_config=cuda, decoding_config=DecodingConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_backend=''), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name={mp}, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None, compilation_config={comp}",
                f"{c}:19 [parallel_state.py:1165] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
                f"{c}:19 [gpu_model_runner.py:2338] Starting to load model {mp}...",
                f"{c}:19 [gpu_model_runner.py:2370] Loading model from scratch...",
                f"{c}:19 [cuda.py:362] Using Flash Attention backend on V1 engine."]

    L = run("08:41", 100000, 3412)
    c1 = f"(EngineCore_DP0 pid=3412) INFO {d}"
    L += [f"{c1} 08:41:48 [gpu_model_runner.py:2392] Model loading took 29.0900 GiB and 27.826341 seconds",
          f"{c1} 08:42:07 [backends.py:539] Using cache directory: /root/.cache/vllm/torch_compile_cache/5b0f3a91c2/rank_0_0/backbone for vLLM's torch.compile",
          f"{c1} 08:42:21 [monitor.py:34] torch.compile takes 18.41 s in total",
          f"{c1} 08:42:24 [gpu_worker.py:298] Available KV cache memory: 10.55 GiB",
          f"{c1} 08:42:24 [kv_cache_utils.py:864] GPU KV cache size: 230,528 tokens",
          f"{c1} 08:42:24 [kv_cache_utils.py:868] Maximum concurrency for 100,000 tokens per request: 2.31x",
          "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:05<00:00, 12.71it/s]",
          "Capturing CUDA graphs (decode, FULL): 100%|██████████| 67/67 [00:03<00:00, 19.96it/s]",
          f"{c1} 08:42:34 [gpu_model_runner.py:3118] Graph capturing finished in 9 secs, took 0.84 GiB",
          f"(APIServer pid=1) INFO {d} 08:42:37 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
          f"(APIServer pid=1) INFO {d} 08:57:12 [launcher.py:101] Shutting down FastAPI HTTP server.",
          "(APIServer pid=1) INFO:     Shutting down"]
    L += run("09:03", 221000, 5127)
    c2 = f"(EngineCore_DP0 pid=5127)"
    er = f"{c2} ERROR {d} 09:04:26 [core.py:718]"
    L += [f"{c2} INFO {d} 09:03:47 [gpu_model_runner.py:2392] Model loading took 29.0900 GiB and 26.903114 seconds",
          f"{c2} INFO {d} 09:04:05 [backends.py:539] Using cache directory: /root/.cache/vllm/torch_compile_cache/8e21c7d04a/rank_0_0/backbone for vLLM's torch.compile",
          f"{c2} INFO {d} 09:04:19 [monitor.py:34] torch.compile takes 17.96 s in total",
          f"{c2} INFO {d} 09:04:26 [gpu_worker.py:298] Available KV cache memory: 5.59 GiB",
          f"{er} EngineCore failed to start.",
          f"{er} Traceback (most recent call last):",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 709, in run_engine_core",
          f"{er}     engine_core = EngineCoreProc(*args, **kwargs)",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 505, in __init__",
          f"{er}     super().__init__(vllm_config, executor_class, log_stats,",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 91, in __init__",
          f"{er}     self._initialize_kv_caches(vllm_config)",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 193, in _initialize_kv_caches",
          f"{er}     get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 1110, in get_kv_cache_config",
          f"{er}     check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
          f"{er}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 699, in check_enough_kv_cache_memory",
          f"{er}     raise ValueError(",
          f"{er} ValueError: To serve at least one request with the models's max seq len (221000), (10.12 GiB KV cache is needed, which is larger than the available KV cache memory (5.59 GiB). Based on the available memory, the estimated maximum model length is 122080. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
          f"{c2} Process EngineCore_DP0:",
          f"(APIServer pid=1) Traceback (most recent call last):",
          f"(APIServer pid=1)   File \"/usr/local/bin/vllm\", line 10, in <module>",
          f"(APIServer pid=1)     sys.exit(main())",
          f"(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t_w = epoch(2025, 9, 21, 9, 4, 10)
    gpu = [{"t": t_w, "devices": [device(0, "NVIDIA RTX 6000 Ada Generation", 49140 * MiB, [(5127, "VLLM::EngineCore", int(31.9 * GiB))])]}]
    args = {"model": mp, "host": "0.0.0.0", "max-model-len": 221000, "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8"}
    argv = ["vllm", "serve", mp, "--host", "0.0.0.0", "--max-model-len", "221000", "--gpu-memory-utilization", "0.9",
            "--kv-cache-dtype", "fp8"]
    write_bundle(CASES / "d-fp8-kv-221k-exceeds-pool", endpoint="http://localhost:8000", started_at=t_w - 20.0, interval_s=10.0,
                 notes="Restart with --max-model-len raised from 100000 to 221000 (kv-cache-dtype fp8) to double the context; "
                       "the server did not come up. logs.txt: the previous (working) start, then the failing one.",
                 scrapes=[prom_error(t_w - 19.7), prom_error(t_w - 9.7), prom_error(t_w + 0.3), prom_error(t_w + 10.3), prom_error(t_w + 20.3)],
                 server=None, engine_args={"argv": argv, "args": args}, model_config=models.QWEN3_30B_A3B_INSTRUCT_2507_FP8,
                 gpu=gpu, logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def d_chunked_admission_thrash_qwen3_235b():
    """vllm PR#37307: first-chunk admission into a full pool -> preempt/re-prefill cycle, generation collapses."""
    vers = ("0.18.0",)
    served = "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    day = "03-17"
    t0 = epoch(2026, 3, 17, 15, 38, 0)
    blocks = 128_768
    pool = blocks * 16
    e = Engine(labels={"engine": "0", "model_name": served}, created=t0 - 900)
    cache = {"_block_size_resolved": "True", "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
             "cpu_kvcache_space_bytes": "None", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9",
             "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
             "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
             "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
             "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
             "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
             "user_specified_block_size": "False"}
    for k in ["vllm:prompt_tokens", "vllm:generation_tokens", "vllm:num_preemptions", "vllm:prefix_cache_queries",
              "vllm:prefix_cache_hits", "vllm:prompt_tokens_cached", "vllm:external_prefix_cache_queries",
              "vllm:external_prefix_cache_hits"]:
        e.counters[k] = 0.0
    e.labelled[("vllm:prompt_tokens_by_source", "source", "local_compute")] = 0.0
    e.labelled[("vllm:prompt_tokens_by_source", "source", "local_cache_hit")] = 0.0
    e.labelled[("vllm:prompt_tokens_by_source", "source", "external_kv_transfer")] = 0.0
    # quoted 10 s stats (t = seconds after 15:38:00): prompt tok/s, gen tok/s, running, waiting, kv
    quoted = {10: (23998.2, 18.1, 10, 90, 0.193), 20: (23999.9, 35.4, 16, 84, 0.309), 30: (23999.8, 52.6, 22, 78, 0.425),
              40: (23998.3, 69.6, 28, 72, 0.542), 50: (24000.7, 83.7, 34, 66, 0.654), 60: (19999.5, 92.4, 40, 60, 0.771)}
    later = {70: (22874.0, 101.3, 45, 55, 0.873), 80: (21630.8, 88.9, 49, 51, 0.958), 90: (21152.6, 41.7, 51, 49, 0.994)}
    quoted.update(later)
    import math
    thrash_gen = [15.8, 12.6, 13.9, 11.4, 14.7, 12.1, 10.8, 13.3, 15.2, 11.9, 12.7, 14.1, 10.6, 13.8, 12.4, 11.2, 14.9,
                  12.2, 13.1, 11.7, 10.9]
    for j, g in enumerate(thrash_gen):
        tt = 100 + 10 * j
        quoted[tt] = (20400.0 + 1700.0 * math.sin(j * 1.7), g, 50 + (j * 7) % 3, 50 - (j * 7) % 3, 0.985 + 0.012 * ((j * 5) % 3) / 2)
    scrapes, logs = [], []
    first_tok = 0.0
    prev_run = 0
    preempt_carry = 0.0
    for i in range(1, 61):
        t = t0 + 5 * i
        sec = 5 * i
        key = sec if sec % 10 == 0 else sec + 5
        pt, gt, run, wait, kv = quoted[key]
        if sec % 10 == 5:  # midpoint of a stats interval: interpolate the gauges
            pp = quoted.get(sec - 5, (pt, gt, max(0, run - 3), wait + 3, kv * 0.6))
            run = (run + pp[2]) // 2 if sec > 5 else 7
            wait = 100 - run
            kv = (kv + pp[4]) / 2 if sec > 5 else 0.131
        p_inc, g_inc = pt * 5, gt * 5
        e.inc("vllm:prompt_tokens", p_inc)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_compute", p_inc)
        e.inc("vllm:generation_tokens", g_inc)
        if sec >= 90:
            preempt_carry += 2.6 + 0.8 * math.sin(sec / 13.0)
            n = int(preempt_carry)
            preempt_carry -= n
            e.inc("vllm:num_preemptions", n)
        # first tokens: ~3 new prefills complete per 5 s during the ramp, rarely afterwards
        new_first = 3.0 if sec <= 85 else (0.4 if sec % 15 == 0 else 0.0)
        if new_first:
            e.observe("vllm:time_to_first_token_seconds", min(sec, 180) * 0.9, new_first)
            e.observe("vllm:request_queue_time_seconds", max(0.5, sec * 0.8 - 4), new_first)
            first_tok += new_first
        itl = 0.4 if sec <= 80 else 3.6
        e.observe("vllm:inter_token_latency_seconds", itl, max(0.0, g_inc - new_first))
        e.observe("vllm:iteration_tokens_total", 8192, 5 * (pt + gt) / 8192)
        e.gauges["vllm:num_requests_running"] = run
        e.gauges["vllm:num_requests_waiting"] = wait
        e.gauges["vllm:kv_cache_usage_perc"] = round(min(1.0, kv), 4)
        scrapes.append({"t": t + 0.18, "status": 200, "text": v1_text(vers, [e], cache)})
        if sec % 10 == 0:
            logs.append(f"(APIServer pid=11574) INFO {day} {hms(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                        f"Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, "
                        f"GPU KV cache usage: {kv * 100:.1f}%, Prefix cache hit rate: 0.0%")
    head = [f"(APIServer pid=11574) INFO {day} 15:21:40 [utils.py:302]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.18.0",
            f"(APIServer pid=11574) INFO {day} 15:21:40 [utils.py:238] non-default args: {{'model_tag': '{served}', 'host': '0.0.0.0', 'port': 8080, 'model': '{served}', 'max_model_len': 41001, 'tensor_parallel_size': 8, 'data_parallel_size': 1, 'enable_expert_parallel': True, 'enable_prefix_caching': False, 'api_server_count': 1, 'enable_chunked_prefill': True}}",
            f"(APIServer pid=11574) INFO {day} 15:21:49 [model.py:1644] Using max model len 41001",
            f"(APIServer pid=11574) INFO {day} 15:21:49 [scheduler.py:236] Chunked prefill is enabled with max_num_batched_tokens=8192.",
            f"(EngineCore pid=11790) INFO {day} 15:22:01 [core.py:105] Initializing a V1 LLM engine (v0.18.0) with config: model='{served}', speculative_config=None, tokenizer='{served}', dtype=torch.bfloat16, max_seq_len=41001, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=False, enable_chunked_prefill=True",
            f"(Worker_TP0_EP0 pid=11922) INFO {day} 15:25:12 [gpu_model_runner.py:5102] Model loading took 27.61 GiB memory and 171.388203 seconds",
            f"(Worker_TP0_EP0 pid=11922) INFO {day} 15:26:03 [gpu_worker.py:455] Available KV cache memory: 92.28 GiB",
            f"(EngineCore pid=11790) INFO {day} 15:26:03 [kv_cache_utils.py:1611] GPU KV cache size: {pool:,} tokens",
            f"(EngineCore pid=11790) INFO {day} 15:26:03 [kv_cache_utils.py:1612] Maximum concurrency for 41,001 tokens per request: {pool / 41001:.2f}x",
            f"(Worker_TP0_EP0 pid=11922) INFO {day} 15:26:29 [gpu_model_runner.py:6090] Graph capturing finished in 24 secs, took 1.37 GiB",
            f"(APIServer pid=11574) INFO {day} 15:26:51 [api_server.py:588] Starting vLLM server on http://0.0.0.0:8080"]
    gpu = []
    for i in range(1, 61, 2):
        t = t0 + 5 * i + 0.3
        gpu.append({"t": t, "devices": [device(k, "NVIDIA H200", 143771 * MiB, [(11922 + k, f"VLLM::Worker_TP{k}_EP{k}", int(127.1 * GiB))]) for k in range(8)]})
    argv = ["vllm", "serve", served, "--host", "0.0.0.0", "--port", "8080", "--max-model-len", "41001", "--tensor-parallel-size", "8",
            "--data-parallel-size", "1", "--enable-expert-parallel", "--no-enable-prefix-caching", "--api-server-count", "1",
            "--enable-chunked-prefill"]
    args = {"model": served, "max-model-len": 41001, "tensor-parallel-size": 8, "data-parallel-size": 1,
            "enable-expert-parallel": True, "enable-prefix-caching": False, "api-server-count": 1, "enable-chunked-prefill": True}
    write_bundle(CASES / "d-chunked-admission-thrash-qwen3-235b", endpoint="http://0.0.0.0:8080", started_at=t0 + 5, interval_s=5.0,
                 notes="Benchmark: 100 concurrent requests, ~40k input / 1k output tokens each, started 15:38:00. Operator: "
                       "generation throughput collapsed a minute and a half in and never recovered.",
                 scrapes=scrapes, server={"version": {"version": "0.18.0"}, "models": models_body(served, served, 41001, 1773760011), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=models.QWEN3_235B_A22B_INSTRUCT_2507_FP8, gpu=gpu,
                 logs="\n".join(head + logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def d_v0_swap_n8_blocks_override():
    """vllm#5578: 0.5.0.post1, opt-125m, chunked prefill, num_gpu_blocks_override=8192, n=8: swap fills up."""
    import math
    served = "facebook/opt-125m"
    d = "06-16"
    t0 = epoch(2024, 6, 16, 21, 23, 50)
    start = epoch(2024, 6, 16, 21, 23, 46)
    e = v0_engine(served, extended_buckets=False)
    for k in ["vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"]:
        e.counters[k] = 0.0
    cache = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
             "gpu_memory_utilization": "0.9", "num_cpu_blocks": "7281", "num_gpu_blocks": "8192",
             "num_gpu_blocks_override": "8192", "sliding_window": "None", "swap_space_bytes": "4294967296"}
    # (running, swapped, gpu, cpu, prompt tok/s, gen tok/s, cumulative preemptions, finished groups)
    plan = [(96, 0, 0.62, 0.0, 5400.0, 9800.0, 0, 0), (78, 18, 0.97, 0.12, 3100.0, 12400.0, 22, 0),
            (52, 55, 0.99, 0.41, 2900.0, 13100.0, 61, 2), (41, 80, 0.995, 0.58, 2600.0, 13000.0, 98, 8),
            (37, 92, 0.991, 0.66, 2800.0, 12900.0, 127, 21), (34, 100, 0.992, 0.704, 2706.1, 13395.4, 151, 34),
            (37, 137, 0.766, 0.779, 3737.0, 8906.6, 176, 47), (36, 125, 0.981, 0.712, 0.0, 14857.3, 183, 60)]
    for j in range(13):
        run = 36 + (j * 5) % 5 + (1 if j % 3 == 0 else 0)
        sw = 125 + int(6 * math.sin(j * 0.9)) + (4 if j > 8 else 0)
        fin = 60 + 11 * (j + 1)
        pt = 2400.0 + 900.0 * math.sin(j * 1.3) if j % 4 else 0.0
        plan.append((run, sw, 0.975 + 0.02 * ((j * 3) % 2), 0.70 + 0.01 * (sw - 120) / 2, pt, 13200.0 + 1400.0 * math.cos(j),
                     183 + 23 * (j + 1) + (j % 3), fin))
    plan[-1] = (39, 129) + plan[-1][2:]
    scrapes, logs = [], []
    warned = 0
    prev_fin = 0
    gid = 160
    for i, (run, sw, gu, cu, pt, gt, pre, fin) in enumerate(plan):
        t = t0 + 5 * i
        pending = 10000 - run - sw - fin
        admitted = pt * 5 / 290.0
        e.counters["vllm:prompt_tokens_total"] += pt * 5
        e.counters["vllm:generation_tokens_total"] += gt * 5
        e.counters["vllm:num_preemptions_total"] = pre
        if admitted:
            e.hists["vllm:time_to_first_token_seconds"].observe(min(9.9, 0.05 + (t - start) * 0.02), admitted * 0.4)
            e.hists["vllm:time_to_first_token_seconds"].observe(t - start, admitted * 0.6)
        e.hists["vllm:time_per_output_token_seconds"].observe(0.02, gt * 5 * 0.9)
        e.hists["vllm:time_per_output_token_seconds"].observe(2.5, gt * 5 * 0.1)
        if fin > prev_fin:
            e.hists["vllm:e2e_request_latency_seconds"].observe(t - start - 2.0, fin - prev_fin)
            e.labelled[("vllm:request_success_total", "finished_reason", "length")] = \
                e.labelled.get(("vllm:request_success_total", "finished_reason", "length"), 0) + (fin - prev_fin)
            prev_fin = fin
        e.gauges = {"vllm:num_requests_running": run, "vllm:num_requests_waiting": pending, "vllm:num_requests_swapped": sw,
                    "vllm:gpu_cache_usage_perc": gu, "vllm:cpu_cache_usage_perc": round(cu, 4)}
        scrapes.append({"t": t + 0.4, "status": 200, "text": v0_text(e, cache)})
        while warned * 50 + 1 <= pre:
            n = warned * 50 + 1
            gid = {1: 9, 51: 61, 101: 113, 151: 165}.get(n, 165 + 52 * (warned - 3))
            logs.append(f"WARNING {d} {hms(t)} scheduler.py:1089] Sequence group {gid} is preempted by PreemptionMode.SWAP mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption={n}")
            warned += 1
        logs.append(f"INFO {d} {hms(t)} metrics.py:341] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: {sw} reqs, Pending: {pending} reqs, GPU KV cache usage: {gu * 100:.1f}%, CPU KV cache usage: {cu * 100:.1f}%.")
    head = [f"INFO {d} 21:22:58 api_server.py:177] vLLM API server version 0.5.0.post1",
            f"INFO {d} 21:22:58 api_server.py:178] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, model='{served}', tokenizer=None, max_model_len=None, block_size=16, enable_prefix_caching=False, swap_space=4, gpu_memory_utilization=0.9, num_gpu_blocks_override=8192, max_num_batched_tokens=4096, max_num_seqs=256, disable_log_stats=False, enable_chunked_prefill=True, disable_log_requests=True)",
            f"WARNING {d} 21:22:58 config.py:721] Chunked prefill is enabled (EXPERIMENTAL).",
            f"INFO {d} 21:22:58 llm_engine.py:161] Initializing an LLM engine (v0.5.0.post1) with config: model='{served}', speculative_config=None, tokenizer='{served}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={served})",
            f"INFO {d} 21:23:01 weight_utils.py:218] Using model weights format ['*.bin']",
            f"INFO {d} 21:23:02 model_runner.py:159] Loading model weights took 0.2389 GB",
            f"INFO {d} 21:23:03 gpu_executor.py:83] # GPU blocks: 8192, # CPU blocks: 7281",
            f"INFO {d} 21:23:05 model_runner.py:878] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
            f"INFO {d} 21:23:12 model_runner.py:954] Graph capturing finished in 7 secs.",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"]
    gpu = []
    for i in range(0, len(plan), 2):
        gpu.append({"t": t0 + 5 * i + 0.5, "devices": [device(0, "NVIDIA A100-SXM4-80GB", 81920 * MiB, [(51873, "python", int(6.93 * GiB))])]})
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", served, "--enable-chunked-prefill",
            "--max-num-batched-tokens", "4096", "--num-gpu-blocks-override", "8192"]
    args = {"model": served, "enable-chunked-prefill": True, "max-num-batched-tokens": 4096, "num-gpu-blocks-override": 8192}
    write_bundle(CASES / "d-v0-swap-n8-blocks-override", endpoint="http://127.0.0.1:8000", started_at=t0, interval_s=5.0,
                 notes="Batch job: 10,000 completions (1,000-character code snippets), n=8, max_tokens=1000, submitted at "
                       "21:23:46. Operator: throughput uneven, swap (CPU KV) filling up.",
                 scrapes=scrapes, server={"version": {"version": "0.5.0.post1"}, "models": models_body(served, served, 2048, 1718573002), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=models.OPT_125M, gpu=gpu, logs="\n".join(head + logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def d_kv_93pct_38_streams_healthy():
    """vllm#27073: ~38 long generations hold ~90% of the KV pool; no waiting, no preemption: healthy."""
    import random
    vers = ("0.11.0",)
    served = "Qwen/Qwen3-30B-A3B-Instruct-2507"
    blocks = 66_272
    pool = blocks * 16
    t0 = epoch(2025, 10, 15, 0, 2, 28)
    start = t0 - 3 * 3600
    rnd = random.Random(27073)
    reqs = []
    t = -1900.0
    while t < 600:
        reqs.append((t0 + t, 24064, 10204, rnd.randint(12000, 30000)))
        t += rnd.uniform(16, 38)
    itl, pf = 0.0455, 1.4
    cache = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
             "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.85",
             "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
             "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
             "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
             "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    # requests served before the reconstructed history began (the server had been up ~3 h)
    base_done, base_p, base_g = 302, 302 * 24064, 302 * 19800

    def gen_of(r, T):
        ta, p_, h, o = r
        if T < ta + pf:
            return 0
        return min(o, 1 + int((T - ta - pf) / itl))

    def engine_at(T):
        e = Engine(labels={"engine": "0", "model_name": served}, created=start + 95)
        sched = [r for r in reqs if r[0] <= T]
        first = [r for r in reqs if r[0] + pf <= T]
        done = [r for r in reqs if r[0] + pf + (r[3] - 1) * itl <= T]
        run = [r for r in sched if r not in done]
        e.counters["vllm:prompt_tokens"] = base_p + sum(r[1] for r in first)
        e.counters["vllm:generation_tokens"] = base_g + sum(gen_of(r, T) for r in sched)
        e.counters["vllm:num_preemptions"] = 0.0
        e.counters["vllm:prefix_cache_queries"] = base_p + sum(r[1] for r in sched)
        e.counters["vllm:prefix_cache_hits"] = base_done * 10204 + sum(r[2] for r in sched)
        e.counters["vllm:external_prefix_cache_queries"] = 0.0
        e.counters["vllm:external_prefix_cache_hits"] = 0.0
        e.counters["vllm:mm_cache_queries"] = 0.0
        e.counters["vllm:mm_cache_hits"] = 0.0
        e.labelled[("vllm:request_success", "finished_reason", "stop")] = base_done + len(done)
        e.observe("vllm:time_to_first_token_seconds", pf, base_done + len(first))
        ntok = (base_g - base_done) + sum(max(0, gen_of(r, T) - 1) for r in sched)
        e.observe("vllm:inter_token_latency_seconds", itl, ntok * 0.97)
        e.observe("vllm:inter_token_latency_seconds", itl * 2.4, ntok * 0.03)
        e.observe("vllm:time_per_output_token_seconds", itl, ntok)
        for name, v in (("vllm:e2e_request_latency_seconds", 870.0), ("vllm:request_inference_time_seconds", 869.9),
                        ("vllm:request_decode_time_seconds", 868.5)):
            e.observe(name, v, base_done)
        e.observe("vllm:request_queue_time_seconds", 0.008, base_done + len(done))
        e.observe("vllm:request_prefill_time_seconds", pf - 0.01, base_done + len(done))
        e.observe("vllm:request_prompt_tokens", 24064, base_done + len(done))
        e.observe("vllm:request_generation_tokens", 19800, base_done)
        e.observe("vllm:request_params_max_tokens", 32768, base_done + len(done))
        e.observe("vllm:request_max_num_generation_tokens", 19800, base_done)
        e.observe("vllm:request_params_n", 1, base_done + len(done))
        for r in done:
            dur = pf + (r[3] - 1) * itl
            for name in ("vllm:e2e_request_latency_seconds", "vllm:request_inference_time_seconds"):
                e.observe(name, dur)
            e.observe("vllm:request_decode_time_seconds", dur - pf)
            e.observe("vllm:request_generation_tokens", r[3])
            e.observe("vllm:request_max_num_generation_tokens", r[3])
            e.observe("vllm:request_time_per_output_token_seconds", itl)
        e.observe("vllm:request_time_per_output_token_seconds", itl, base_done)
        e.observe("vllm:iteration_tokens_total", len(run), (T - start) / 0.0455 * 0.98)
        e.observe("vllm:iteration_tokens_total", 2048, (T - start) / 0.0455 * 0.02)
        toks = (10204 if run else 0) + sum(-(-(r[1] - r[2] + gen_of(r, T)) // 16) * 16 for r in run)
        e.gauges["vllm:num_requests_running"] = len(run)
        e.gauges["vllm:num_requests_waiting"] = 0
        e.gauges["vllm:kv_cache_usage_perc"] = round(toks / pool, 6)
        e.gauges["vllm:gpu_cache_usage_perc"] = round(toks / pool, 6)
        return e, len(run), toks

    scrapes, logs, gpu = [], [], []
    for i in range(31):
        T = t0 + 10 * i
        e, run, toks = engine_at(T)
        scrapes.append({"t": T + 4.4, "status": 200, "text": v1_text(vers, [e], cache)})
        gpu.append({"t": T + 4.5, "devices": [device(k, "NVIDIA H20", 97871 * MiB, [(211 + k, f"VLLM::Worker_TP{k}", int(81.2 * GiB))]) for k in range(2)]})
        ea = engine_at(T - 10)[0]
        pt = (sum(r[1] - r[2] for r in reqs if T - 10 < r[0] + pf <= T)) / 10
        gt = (e.counters["vllm:generation_tokens"] - ea.counters["vllm:generation_tokens"]) / 10
        q, h = e.counters["vllm:prefix_cache_queries"], e.counters["vllm:prefix_cache_hits"]
        q0, h0 = engine_at(T - 600)[0].counters["vllm:prefix_cache_queries"], engine_at(T - 600)[0].counters["vllm:prefix_cache_hits"]
        local = _t.strftime("%m-%d %H:%M:%S", _t.gmtime(T - 7 * 3600))
        iso = _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(T)) + ".756689123Z"
        logs.append(f"{iso} (APIServer pid=1) INFO {local} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: 0 reqs, GPU KV cache usage: {100 * toks / pool:.1f}%, Prefix cache hit rate: {100 * (h - h0) / max(1, q - q0):.1f}%")
        for src in ("10.250.5.33:50840", "10.250.5.32:45746"):
            logs.append(_t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(T + 4.4)) + f".157050784Z (APIServer pid=1) INFO:     {src} - \"GET /metrics HTTP/1.1\" 200 OK")
        for r in reqs:
            if T - 10 < r[0] + pf + (r[3] - 1) * itl <= T:
                logs.append(_t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(T - 1)) + ".778800185Z (APIServer pid=1) INFO:     10.250.3.7:48614 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
    over = [_t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(t0 - 5400)) + ".104412233Z (APIServer pid=1) ERROR " + _t.strftime("%m-%d %H:%M:%S", _t.gmtime(t0 - 5400 - 7 * 3600)) + " [serving_chat.py:257] Error in preprocessing prompt inputs",
            _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(t0 - 5400)) + ".104598100Z (APIServer pid=1) ERROR " + _t.strftime("%m-%d %H:%M:%S", _t.gmtime(t0 - 5400 - 7 * 3600)) + " [serving_chat.py:257] ValueError: This model's maximum context length is 65536 tokens. However, your request has 91342 input tokens. Please reduce the length of the input messages.",
            _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(t0 - 5400)) + ".105011542Z (APIServer pid=1) INFO:     10.250.3.7:47702 - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request"]
    head = ["2025-10-14T21:00:41.102334512Z (APIServer pid=1) INFO 10-14 14:00:41 [api_server.py:1839] vLLM API server version 0.11.0",
            f"2025-10-14T21:00:41.104771200Z (APIServer pid=1) INFO 10-14 14:00:41 [utils.py:233] non-default args: {{'model_tag': '{served}', 'host': '0.0.0.0', 'model': '{served}', 'max_model_len': 65536, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85}}",
            "2025-10-14T21:02:37.558122034Z (EngineCore_DP0 pid=167) INFO 10-14 14:02:37 [kv_cache_utils.py:1087] GPU KV cache size: 1,060,352 tokens",
            "2025-10-14T21:02:37.558201117Z (EngineCore_DP0 pid=167) INFO 10-14 14:02:37 [kv_cache_utils.py:1091] Maximum concurrency for 65,536 tokens per request: 16.18x",
            "2025-10-14T21:03:01.003316870Z (APIServer pid=1) INFO 10-14 14:03:01 [api_server.py:1910] Starting vLLM API server 0 on http://0.0.0.0:8000"]
    argv = ["vllm", "serve", served, "--host", "0.0.0.0", "--max-model-len", "65536", "--tensor-parallel-size", "2",
            "--gpu-memory-utilization", "0.85"]
    args = {"model": served, "max-model-len": 65536, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.85}
    write_bundle(CASES / "d-kv-93pct-38-streams-healthy", endpoint="http://10.250.5.20:8000", started_at=t0 + 4.4, interval_s=10.0,
                 notes="Captured because the dashboard showed GPU KV cache usage near 100% for hours after some over-limit "
                       "requests; the on-call question is whether KV is leaking and the server must be restarted.",
                 scrapes=scrapes, server={"version": {"version": "0.11.0"}, "models": models_body(served, served, 65536, 1760475781), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=models.QWEN3_30B_A3B_INSTRUCT_2507, gpu=gpu,
                 logs="\n".join(head + over + logs) + "\n")


def main(argv: list[str]) -> None:
    names = argv or list(BUILDERS)
    for n in names:
        BUILDERS[n]()
        print("built", n)


if __name__ == "__main__":
    main(sys.argv[1:])
