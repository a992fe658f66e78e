#!/usr/bin/env python3
"""Builders of the five m-* bundles. Usage (worktree root): python3 cases/_tools/m/cases.py"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import Req, stats_line_v0, v0_text, v1_081_text  # noqa: E402
from common import GiB, MiB, LLAMA31_8B, device, epoch, models_body, refused, stamp, write_bundle  # noqa: E402

QWEN25_3B_AWQ = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 11008,
    "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 16,
    "num_hidden_layers": 36, "num_key_value_heads": 2,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
                            "version": "gemm", "zero_point": True},
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": True,
    "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 151936}
DSR1_LLAMA8B = dict(LLAMA31_8B, eos_token_id=128001, bos_token_id=128000, transformers_version="4.43.0.dev0")
QWEN25_32B_AWQ = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
    "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 40,
    "num_hidden_layers": 64, "num_key_value_heads": 8,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
                            "version": "gemm", "zero_point": True},
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 152064}
YI15_34B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 20480,
    "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 56, "num_hidden_layers": 60,
    "num_key_value_heads": 8, "pad_token_id": 0, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
    "rope_theta": 5000000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.37.2",
    "use_cache": True, "vocab_size": 64000}
CASES = Path(__file__).resolve().parents[2]


def srv(version, served, root, maxlen, created, health=200):
    return {"version": {"version": version}, "models": models_body(served, root, maxlen, created), "health": health}


# ------------------------------------------------------------------------------------------------
def m_v100_tp2_cudagraph_capture_oom_util_095():
    cid = "m-v100-tp2-cudagraph-capture-oom-util-095"
    t0 = epoch(2024, 12, 20, 20, 23, 30)
    model = "meta-llama/Llama-3.1-8B-Instruct"
    L = []
    w = lambda s, msg, pid=None: L.append((f"(VllmWorkerProcess pid={pid}) " if pid else "") + f"INFO {stamp(t0 + s)} {msg}")
    w(2, "api_server.py:625] vLLM API server version 0.6.5")
    w(2, "api_server.py:626] args: Namespace(subparser='serve', model_tag='meta-llama/Llama-3.1-8B-Instruct', host=None, port=8000, model='meta-llama/Llama-3.1-8B-Instruct', dtype='float16', max_model_len=40000, tensor_parallel_size=2, swap_space=4, gpu_memory_utilization=0.95, max_num_seqs=256, enforce_eager=False, enable_prefix_caching=False, disable_log_requests=True)")
    w(9, "config.py:478] This model supports multiple tasks: {'generate', 'embedding'}. Defaulting to 'generate'.")
    w(9, "config.py:1216] Defaulting to use mp for distributed inference")
    L.append(f"WARNING {stamp(t0 + 9)} arg_utils.py:1107] Chunked prefill is enabled by default for models with max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter any issues, please disable chunked prefill by setting --enable-chunked-prefill=False.")
    w(9, "config.py:1364] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    w(9, "llm_engine.py:249] Initializing an LLM engine (v0.6.5) with config: model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=None, tokenizer='meta-llama/Llama-3.1-8B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=40000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=meta-llama/Llama-3.1-8B-Instruct, num_scheduler_steps=1, chunked_prefill_enabled=True multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None, pooler_config=None, compilation_config=CompilationConfig(level=0, backend='', custom_ops=[], splitting_ops=['vllm.unified_attention', 'vllm.unified_attention_with_output'], use_inductor=True, inductor_specialize_for_cudagraph_no_more_than=None, inductor_compile_sizes={}, inductor_compile_config={}, inductor_passes={}, use_cudagraph=False, cudagraph_num_of_warmups=0, cudagraph_capture_sizes=None, cudagraph_copy_inputs=False, pass_config=PassConfig(dump_graph_stages=[], dump_graph_dir=PosixPath('.'), enable_fusion=True, enable_reshape=True), compile_sizes=<function PrefixCacheAwareCompilationConfig at 0x7f>, capture_sizes=<function at 0x7f>, enabled_custom_ops=Counter(), disabled_custom_ops=Counter(), static_forward_context={})")
    L.append(f"WARNING {stamp(t0 + 10)} multiproc_worker_utils.py:312] Reducing Torch parallelism from 8 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    w(10, "custom_cache_manager.py:17] Setting Triton cache manager to: vllm.triton_utils.custom_cache_manager:CustomCacheManager")
    w(12, "multiproc_worker_utils.py:222] Worker ready; awaiting tasks", 90)
    for pid in (None, 90):
        w(13, "selector.py:229] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.", pid)
        w(13, "selector.py:129] Using XFormers backend.", pid)
    w(15, "utils.py:961] Found nccl from library libnccl.so.2")
    w(15, "pynccl.py:69] vLLM is using nccl==2.21.5")
    w(16, "custom_all_reduce_utils.py:242] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json")
    w(16, "shm_broadcast.py:255] vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1], buffer_handle=(1, 4194304, 6, 'psm_1c6d2a7e'), local_subscribe_port=49321, remote_subscribe_port=None)")
    for pid in (None, 90):
        w(16, "model_runner.py:1092] Starting to load model meta-llama/Llama-3.1-8B-Instruct...", pid)
    for pid in (90, None):
        w(61, "model_runner.py:1097] Loading model weights took 7.5123 GB", pid)
    for pid in (90, None):
        w(81, "worker.py:241] Memory profiling takes 19.62 seconds", pid)
        w(81, "worker.py:241] the current vLLM instance can use total_gpu_memory (15.77GiB) x gpu_memory_utilization (0.95) = 14.98GiB", pid)
        w(81, "worker.py:241] model weights take 7.51GiB; non_torch_memory takes 0.39GiB; PyTorch activation peak memory takes 2.53GiB; the rest of the memory reserved for KV Cache is 4.55GiB.", pid)
    w(81, "distributed_gpu_executor.py:57] # GPU blocks: 4659, # CPU blocks: 4096")
    w(81, "distributed_gpu_executor.py:61] Maximum concurrency for 40000 tokens per request: 1.86x")
    for pid in (90, None):
        w(84, "model_runner.py:1413] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.", pid)
        w(84, "model_runner.py:1417] If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.", pid)
    err = "(VllmWorkerProcess pid=90) ERROR " + stamp(t0 + 97) + " multiproc_worker_utils.py:236] "
    tb = ["Exception in worker VllmWorkerProcess while processing method initialize_cache.", "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/executor/multiproc_worker_utils.py", line 230, in _run_worker_process',
          "    output = executor(*args, **kwargs)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 276, in initialize_cache',
          "    self._warm_up_model()",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 292, in _warm_up_model',
          "    self.model_runner.capture_model(self.gpu_cache)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1497, in capture_model',
          "    graph_runner.capture(**capture_inputs)",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1841, in capture',
          "    output_hidden_or_intermediate_states = self.model(",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py", line 344, in forward',
          "    hidden_states, residual = layer(positions, hidden_states,",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py", line 185, in forward',
          "    x = self.act_fn(gate_up)",
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 1 has a total capacity of 15.77 GiB of which 29.12 MiB is free. Process 2871 has 15.74 GiB memory in use. Of the allocated memory 14.95 GiB is allocated by PyTorch, with 312.00 MiB allocated in private pools (e.g., CUDA Graphs), and 95.26 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
    L += [err + x for x in tb]
    L.append(f"ERROR {stamp(t0 + 97)} engine.py:366] CUDA out of memory. Tried to allocate 64.00 MiB. GPU 1 has a total capacity of 15.77 GiB of which 29.12 MiB is free.")
    L.append(f"ERROR {stamp(t0 + 98)} multiproc_worker_utils.py:123] Worker VllmWorkerProcess pid 90 died, exit code: -15")
    L.append(f"INFO {stamp(t0 + 98)} multiproc_worker_utils.py:127] Killing local vLLM worker processes")
    L.append("Traceback (most recent call last):")
    L.append('  File "/usr/local/bin/vllm", line 8, in <module>')
    L.append("RuntimeError: Engine process failed to start. See stack trace for the root cause.")
    scrapes, gpu = [], []
    for i in range(30):
        t = t0 + 10 * i + 0.4
        scrapes.append(refused(t))
        s = t - t0
        if s < 16: use = [0.3, 0.3]
        elif s < 61: use = [0.5 + 7.0 * (s - 16) / 45] * 2
        elif s < 81: use = [7.51 + 0.39 + 2.53 * (s - 61) / 20] * 2
        elif s < 84: use = [14.98 - 0.0, 14.98]
        elif s < 98: use = [15.30 + 0.4 * (s - 84) / 14, 15.40 + 0.34 * (s - 84) / 13]
        else: use = [0.0, 0.0]
        procs = lambda k: [] if use[k] <= 0 else [(2870 + k, "python3" if k == 0 else "python3", int(min(use[k], 15.74) * GiB))]
        gpu.append({"t": t + 0.1, "devices": [device(k, "Tesla V100-SXM2-16GB", 16384 * MiB, procs(k), extra_used=int(0.31 * GiB)) for k in range(2)]})
    write_bundle(cid, endpoint="http://127.0.0.1:8000", started_at=t0, interval_s=10.0,
                 notes="Start-up of vllm serve at --gpu-memory-utilization 0.95 (TP 2, 2 x V100 16GB); the engine dies during CUDA-graph capture; no scrape succeeded.",
                 scrapes=scrapes, engine_args={"argv": ["vllm", "serve", model, "--dtype", "float16", "--max-model-len", "40000", "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.95"],
                                               "args": {"model": model, "dtype": "float16", "max-model-len": 40000, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.95}},
                 model_config=LLAMA31_8B, gpu=gpu, logs="\n".join(L) + "\n")


# ------------------------------------------------------------------------------------------------
def m_qwen25_3b_awq_3090_16g_healthy():
    cid = "m-qwen25-3b-awq-3090-16g-healthy"
    model = "Qwen/Qwen2.5-3B-Instruct-AWQ"
    boot = epoch(2025, 3, 20, 17, 28, 12)
    t0 = boot + 420.0
    rnd = random.Random(15204)
    reqs, t = [], t0 - 300
    while t < t0 + 620:
        t += rnd.uniform(9, 26)
        p, o = rnd.randint(200, 1500), rnd.randint(100, 500)
        reqs.append(Req(t, p, o, 0.028 + p / 21000 + rnd.uniform(0, 0.02), rnd.uniform(0.0071, 0.0079)))
        if rnd.random() < 0.25:  # the client fires a follow-up right away
            reqs.append(Req(t + 1.5, rnd.randint(300, 1400), rnd.randint(100, 400), 0.05 + rnd.uniform(0, 0.05), 0.0081))
    blocks = 372240 // 16
    cache = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
             "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
             "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
             "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * GiB)}
    for r in reqs:
        r.cached = (r.p // 16) * 16 // 3 if r.p > 600 else 0
    scrapes, gpu, L = [], [], []
    i0 = lambda s, m: L.append(f"INFO {stamp(boot + s)} {m}")
    i0(0, "[__init__.py:256] Automatically detected platform cuda.")
    i0(1, "[api_server.py:977] vLLM API server version 0.8.1")
    i0(1, "[api_server.py:978] args: Namespace(subparser='serve', model_tag='Qwen/Qwen2.5-3B-Instruct-AWQ', config='', host=None, port=8000, model='Qwen/Qwen2.5-3B-Instruct-AWQ', gpu_memory_utilization=0.9, max_model_len=None, tensor_parallel_size=1, enable_prefix_caching=None, disable_log_requests=False)")
    i0(8, "[config.py:583] This model supports multiple tasks: {'classify', 'reward', 'score', 'embed', 'generate'}. Defaulting to 'generate'.")
    i0(8, "[awq_marlin.py:114] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.")
    i0(8, "[config.py:1693] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    i0(12, "[core.py:53] Initializing a V1 LLM engine (v0.8.1) with config: model='Qwen/Qwen2.5-3B-Instruct-AWQ', speculative_config=None, tokenizer='Qwen/Qwen2.5-3B-Instruct-AWQ', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name=Qwen/Qwen2.5-3B-Instruct-AWQ, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}")
    i0(13, "[gpu_model_runner.py:1164] Starting to load model Qwen/Qwen2.5-3B-Instruct-AWQ...")
    i0(13, "[cuda.py:215] Using Flash Attention backend on V1 engine.")
    i0(24, "[gpu_model_runner.py:1176] Loading model weights took 1.9621 GB and 10.713248 seconds")
    i0(33, "[backends.py:409] Using cache directory: /home/shaojun/.cache/vllm/torch_compile_cache/5b3fd0f8a2/rank_0_0 for vLLM's torch.compile")
    i0(33, "[backends.py:419] Dynamo bytecode transform time: 8.94 s")
    i0(40, "[backends.py:132] Compiling a graph for general shape takes 6.71 s")
    i0(46, "[monitor.py:33] torch.compile takes 15.65 s in total")
    i0(47, "[kv_cache_utils.py:537] GPU KV cache size: 372,240 tokens")
    i0(47, "[kv_cache_utils.py:540] Maximum concurrency for 32,768 tokens per request: 11.36x")
    i0(66, "[gpu_model_runner.py:1499] Graph capturing finished in 19 secs, took 0.38 GiB")
    i0(66, "[core.py:138] init engine (profile, create kv cache, warmup model) took 42.12 seconds")
    i0(67, "[api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000")
    L += ["INFO:     Started server process [31807]", "INFO:     Waiting for application startup.", "INFO:     Application startup complete."]
    vllm_mib = 15982
    others = [(2114, "/usr/lib/xorg/Xorg", 1012 * MiB), (2390, "/usr/bin/gnome-shell", 205 * MiB),
              (40122, "/home/shaojun/anaconda3/envs/nlp/bin/python", 3874 * MiB)]
    last = t0 - 10
    for i in range(61):
        t = t0 + 10 * i + 0.3
        for k in range(int(last - boot) // 10 + 1, int(t - boot) // 10 + 1):
            tl = boot + 10 * k
            if tl > boot + 70:
                line = stats_line_v0(None, reqs, tl, 10.0, blocks, 16,
                                     "INFO {ts} [loggers.py:80] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: 27.6%")
                L.append(line)
        for r in reqs:
            if last < r.end <= t:
                L.append(f'INFO:     127.0.0.1:{50000 + reqs.index(r) % 9000} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
        last = t
        scrapes.append({"t": t, "status": 200, "text": v1_081_text(model, reqs, t, blocks, cache, 32768)})
        gpu.append({"t": t + 0.1, "devices": [device(0, "NVIDIA GeForce RTX 3090", 24576 * MiB,
                                                     [(31807, "/home/shaojun/anaconda3/envs/vllm/bin/python", vllm_mib * MiB)] + others, extra_used=3 * MiB)]})
    write_bundle(cid, endpoint="http://127.0.0.1:8000", started_at=t0, interval_s=10.0,
                 notes="Developer workstation (Ubuntu 22, RTX 3090, desktop session on the same card); vllm serve with defaults; the operator asked why nvidia-smi shows ~16 GB for a 3B AWQ model.",
                 scrapes=scrapes, server=srv("0.8.1", model, model, 32768, int(boot + 67)),
                 engine_args={"argv": ["vllm", "serve", model], "args": {"model": model}},
                 model_config=QWEN25_3B_AWQ, gpu=gpu, logs="\n".join(L) + "\n")


# ------------------------------------------------------------------------------------------------
def m_tp2_rank1_31gib_free_other_container():
    cid = "m-tp2-rank1-31gib-free-other-container"
    model = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
    t0 = epoch(2025, 6, 30, 13, 52, 31)
    L = []
    i = lambda s, m: L.append(f"INFO {stamp(t0 + s)} {m}")
    i(0, "[__init__.py:244] Automatically detected platform cuda.")
    i(3, "[api_server.py:1287] vLLM API server version 0.9.1")
    i(3, "[cli_args.py:309] non-default args: {'model': 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B', 'max_model_len': 1024, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95, 'max_num_seqs': 1}")
    i(11, "[config.py:823] This model supports multiple tasks: {'embed', 'reward', 'classify', 'score', 'generate'}. Defaulting to 'generate'.")
    i(11, "[config.py:1946] Defaulting to use mp for distributed inference")
    i(11, "[config.py:2195] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    i(17, "[__init__.py:244] Automatically detected platform cuda.")
    i(20, "[core.py:455] Waiting for init message from front-end.")
    i(20, "[core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='deepseek-ai/DeepSeek-R1-Distill-Llama-8B', speculative_config=None, tokenizer='deepseek-ai/DeepSeek-R1-Distill-Llama-8B', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=1024, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(backend='auto', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_backend=''), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name=deepseek-ai/DeepSeek-R1-Distill-Llama-8B, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None, compilation_config={\"level\":3,\"debug_dump_path\":\"\",\"cache_dir\":\"\",\"backend\":\"\",\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"inductor_compile_config\":{\"enable_auto_functionalized_v2\":false},\"inductor_passes\":{},\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[2,1],\"cudagraph_copy_inputs\":false,\"full_cuda_graph\":false,\"max_capture_size\":2,\"local_cache_dir\":null}")
    L.append(f"WARNING {stamp(t0 + 20)} [multiproc_worker_utils.py:307] Reducing Torch parallelism from 24 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    i(20, "[shm_broadcast.py:289] vLLM message queue communication handle: Handle(local_reader_ranks=[0, 1], buffer_handle=(2, 16777216, 10, 'psm_4b1e0c2d'), local_subscribe_addr='ipc:///tmp/0f3b6d8e-8c2a-4e57-a0f1-7d2c9e4b5a61', remote_subscribe_addr=None, remote_addr_ipv6=False)")
    for r in (0, 1):
        i(26, f"[__init__.py:244] Automatically detected platform cuda.")
    L.append(f"(VllmWorker rank=0 pid=298) INFO {stamp(t0 + 30)} [shm_broadcast.py:289] vLLM message queue communication handle: Handle(local_reader_ranks=[0], buffer_handle=(1, 10485760, 10, 'psm_9e2f7a10'), local_subscribe_addr='ipc:///tmp/5a8c1e44-2b7d-4c1a-9f60-3e2d1b7c8a92', remote_subscribe_addr=None, remote_addr_ipv6=False)")
    pre = f"(VllmWorker rank=1 pid=299) ERROR {stamp(t0 + 31)} [multiproc_executor.py:492] "
    tb = ["WorkerProc failed to start.", "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 466, in worker_main',
          "    worker = WorkerProc(*args, **kwargs)",
          "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 362, in __init__',
          "    self.worker.init_device()",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py", line 606, in init_device',
          "    self.worker.init_device()  # type: ignore",
          "    ^^^^^^^^^^^^^^^^^^^^^^^^^",
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 140, in init_device',
          "    raise ValueError(",
          "ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory utilization (0.95, 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."]
    L += [pre + x for x in tb]
    L.append(f"INFO {stamp(t0 + 32)} [multiproc_executor.py:135] Process 298 exited; terminating remaining workers")
    e = f"ERROR {stamp(t0 + 48)} [core.py:515] "
    L += [e + x for x in ["EngineCore failed to start.", "Traceback (most recent call last):",
                          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 506, in run_engine_core',
                          "    engine_core = EngineCoreProc(*args, **kwargs)",
                          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 93, in _init_executor',
                          "    self.workers = WorkerProc.wait_for_ready(unready_workers)",
                          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 422, in wait_for_ready',
                          "    raise e from None",
                          "Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause."]]
    L += ["Process EngineCore_0:", "Traceback (most recent call last):",
          "Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
          "Traceback (most recent call last):", '  File "<frozen runpy>", line 198, in _run_module_as_main',
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core_client.py", line 420, in __init__',
          "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"]
    scrapes, gpu = [], []
    other = [(2811604, "python3", int(15.94 * GiB))]
    for k in range(30):
        t = t0 + 10 * k + 0.5
        scrapes.append(refused(t))
        mine0 = [(2840812, "python3", int(0.48 * GiB))] if 28 <= t - t0 < 50 else []
        mine1 = [(2840813, "python3", int(0.43 * GiB))] if 28 <= t - t0 < 33 else []
        gpu.append({"t": t + 0.1, "devices": [device(0, "NVIDIA RTX 6000 Ada Generation", 49140 * MiB, mine0, extra_used=int(0.58 * GiB)),
                                              device(1, "NVIDIA RTX 6000 Ada Generation", 49140 * MiB, other + mine1, extra_used=int(0.58 * GiB))]})
    write_bundle(cid, endpoint="http://10.20.0.14:8000", started_at=t0, interval_s=10.0,
                 notes="Container created with Dockerode: vLLM 0.9.1, TP 2 on GPUs 0,1 of a shared server; recorded while the container was starting.",
                 scrapes=scrapes,
                 engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--max-model-len", "1024", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "1", "--tensor-parallel-size", "2", "--model", model],
                              "args": {"max-model-len": 1024, "gpu-memory-utilization": 0.95, "max-num-seqs": 1, "tensor-parallel-size": 2, "model": model}},
                 model_config=DSR1_LLAMA8B, gpu=gpu, logs="\n".join(L) + "\n")


# ------------------------------------------------------------------------------------------------
def m_qwen25_32b_awq_a6000_runtime_oom():
    cid = "m-qwen25-32b-awq-a6000-runtime-oom"
    model = "Qwen2.5-32B-Instruct-AWQ"
    boot = epoch(2024, 11, 29, 8, 0, 0)
    t0 = epoch(2024, 11, 30, 14, 2, 0)
    crash = t0 + 571.4
    rnd = random.Random(10360)
    reqs, t = [], t0 - 900
    while t < crash:
        t += rnd.expovariate(1 / 2.1)
        p, o = rnd.randint(1500, 3600), rnd.randint(150, 600)
        r = Req(t, p, o, 0.55 + p / 4200 + rnd.uniform(0, 0.6), rnd.uniform(0.046, 0.062), cached=(rnd.choice([0, 512, 1024]) if p > 2000 else 0))
        reqs.append(r)
    # requests in flight at the crash never finish
    live = [r for r in reqs if r.end <= crash]
    blocks, btok = 5821, 16
    cache = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
             "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "1024",
             "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    L = []
    i0 = lambda s, m: L.append(f"INFO {stamp(boot + s)} {m}")
    i0(0, "api_server.py:585] vLLM API server version 0.6.4.post1")
    i0(0, "api_server.py:586] args: Namespace(host=None, port=8000, model='Qwen2.5-32B-Instruct-AWQ', max_model_len=4096, gpu_memory_utilization=0.9, max_num_seqs=256, enable_prefix_caching=True, swap_space=4, disable_log_requests=True)")
    i0(6, "awq_marlin.py:109] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.")
    i0(7, "llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='Qwen2.5-32B-Instruct-AWQ', speculative_config=None, tokenizer='Qwen2.5-32B-Instruct-AWQ', dtype=torch.float16, max_seq_len=4096, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, num_scheduler_steps=1, chunked_prefill_enabled=False, multi_step_stream_outputs=True, enable_prefix_caching=True, use_async_output_proc=True")
    i0(9, "selector.py:135] Using Flash Attention backend.")
    i0(10, "model_runner.py:1072] Starting to load model Qwen2.5-32B-Instruct-AWQ...")
    i0(71, "model_runner.py:1077] Loading model weights took 18.1447 GB")
    i0(79, "worker.py:232] Memory profiling results: total_gpu_memory=47.54GiB initial_memory_usage=18.60GiB peak_torch_memory=19.60GiB memory_usage_post_profile=18.62GiB non_torch_memory=0.44GiB kv_cache_size=22.74GiB gpu_memory_utilization=0.90")
    i0(79, "gpu_executor.py:113] # GPU blocks: 5821, # CPU blocks: 1024")
    i0(79, "gpu_executor.py:117] Maximum concurrency for 4096 tokens per request: 22.74x")
    i0(82, "model_runner.py:1400] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.")
    i0(82, "model_runner.py:1404] If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.")
    i0(104, "model_runner.py:1518] Graph capturing finished in 22 secs, took 1.42 GiB")
    i0(106, "api_server.py:640] Starting vLLM API server on http://0.0.0.0:8000")
    scrapes, gpu = [], []
    last = t0 - 5
    for k in range(73):
        t = t0 + 10 * k + 0.2
        if t < crash:
            for s in range(int((last - t0) // 5) + 1, int((t - t0) // 5) + 1):
                tl = t0 + 5 * s
                L.append(stats_line_v0(None, live + [r for r in reqs if r.end > crash], tl, 5.0, blocks, btok,
                                       "INFO {ts} metrics.py:449] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%."))
            last = t
            scrapes.append({"t": t, "status": 200, "text": v0_text("0.6.4", model, reqs, t, blocks, btok, cache, 4096, prefix=True)})
            used = 18.60 + 22.74 + 1.42 + 0.44 + (0.6 if k % 3 else 0.9)
            procs = [(48213, "python3", int(used * GiB))]
        else:
            scrapes.append(refused(t))
            procs = []
        gpu.append({"t": t + 0.1, "devices": [device(0, "NVIDIA RTX A6000", 49140 * MiB, procs, extra_used=int(0.27 * GiB))]})
    ts = stamp(crash)
    err = f"ERROR {ts} engine.py:135] "
    L += [err + x for x in ["OutOfMemoryError('CUDA out of memory. Tried to allocate 1.18 GiB. GPU 0 has a total capacity of 47.54 GiB of which 991.56 MiB is free. Process 48213 has 46.55 GiB memory in use. Of the allocated memory 42.36 GiB is allocated by PyTorch, with 1.42 GiB allocated in private pools (e.g., CUDA Graphs), and 1.04 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)')",
                            "Traceback (most recent call last):",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 133, in start',
                            "    self.run_engine_loop()",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 196, in run_engine_loop',
                            "    request_outputs = self.engine_step()",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 1441, in step',
                            "    outputs = self.model_executor.execute_model(",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1654, in execute_model',
                            "    hidden_or_intermediate_states = model_executable(",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2.py", line 340, in forward',
                            "    hidden_states, residual = layer(",
                            '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/qwen2.py", line 93, in forward',
                            "    gate_up, _ = self.gate_up_proj(x)",
                            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.18 GiB. GPU 0 has a total capacity of 47.54 GiB of which 991.56 MiB is free."]]
    L.append(f"ERROR {stamp(crash + 0.1)} serving_chat.py:687] Error in chat completion stream generator.")
    L.append(f"CRITICAL {stamp(crash + 0.5)} launcher.py:99] MQLLMEngine is already dead, terminating server process")
    L += ['INFO:     172.17.0.1:51922 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error', "INFO:     Shutting down",
          "INFO:     Application shutdown complete."]
    write_bundle(cid, endpoint="http://172.17.0.3:8000", started_at=t0, interval_s=10.0,
                 notes="Docker vllm/vllm-openai:v0.6.4.post1 on one RTX A6000, in service for ~30 h of a multi-week soak test; recorded through the crash.",
                 scrapes=scrapes, server=srv("0.6.4.post1", model, model, 4096, int(boot + 106)),
                 engine_args={"argv": ["--model", model, "--max-model-len", "4096", "--enable-prefix-caching"],
                              "args": {"model": model, "max-model-len": 4096, "enable-prefix-caching": True}},
                 model_config=QWEN25_32B_AWQ, gpu=gpu, logs="\n".join(L) + "\n")


# ------------------------------------------------------------------------------------------------
def m_yi34b_4x4090_graph_pool_eats_headroom():
    cid = "m-yi34b-4x4090-graph-pool-eats-headroom"
    model = "Yi-1.5-34B-Chat"
    path = "/workspace/sdb/models/Yi/Yi-1.5-34B-Chat/"
    boot = epoch(2024, 8, 15, 2, 49, 40)
    t0 = epoch(2024, 8, 15, 2, 54, 30)
    crash = t0 + 241.7
    rnd = random.Random(7553)
    reqs = [Req(t0 + a, rnd.randint(300, 900), rnd.randint(80, 250), 0.21 + rnd.uniform(0, 0.05), 0.0405) for a in (35.0, 92.0, 150.0)]
    blocks = 4789
    cache = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
             "gpu_memory_utilization": "0.9", "num_cpu_blocks": "0", "num_gpu_blocks": str(blocks),
             "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "0"}
    L = []
    i0 = lambda s, m, pid=None: L.append((f"(VllmWorkerProcess pid={pid}) " if pid else "") + f"INFO {stamp(boot + s)} {m}")
    i0(0, "api_server.py:219] vLLM API server version 0.5.4")
    i0(0, f"api_server.py:220] args: Namespace(host=None, port=8001, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, model='{path}', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=4, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=0, cpu_offload_gb=0, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, served_model_name=['Yi-1.5-34B-Chat'], disable_log_requests=False, max_log_len=None)")
    i0(1, "config.py:729] Defaulting to use mp for distributed inference")
    i0(1, f"llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{path}', speculative_config=None, tokenizer='{path}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name=Yi-1.5-34B-Chat, use_v2_block_manager=False, enable_prefix_caching=False)")
    L.append(f"WARNING {stamp(boot + 1)} multiproc_gpu_executor.py:59] Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
    pids = [3301, 3302, 3303]
    for pid in [None] + pids:
        i0(4, "selector.py:54] Using Flash Attention backend.", pid)
    for pid in pids:
        i0(4, "multiproc_worker_utils.py:215] Worker ready; awaiting tasks", pid)
    i0(6, "utils.py:841] Found nccl from library libnccl.so.2")
    i0(6, "pynccl.py:63] vLLM is using nccl==2.20.5")
    L.append(f"WARNING {stamp(boot + 7)} custom_all_reduce.py:118] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.")
    for pid in pids:
        L.append(f"(VllmWorkerProcess pid={pid}) WARNING {stamp(boot + 7)} custom_all_reduce.py:118] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.")
    i0(7, "shm_broadcast.py:235] vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1, 2, 3], buffer=<vllm.distributed.device_communicators.shm_broadcast.ShmRingBuffer object at 0x7f3a1c2e1b50>, local_subscribe_port=45213, remote_subscribe_port=None)")
    for pid in [None] + pids:
        i0(7, f"model_runner.py:720] Starting to load model {path}...", pid)
    for pid in pids + [None]:
        i0(52, "model_runner.py:732] Loading model weights took 16.0723 GB", pid)
    i0(60, "distributed_gpu_executor.py:56] # GPU blocks: 4789, # CPU blocks: 0")
    for pid in pids + [None]:
        i0(63, "model_runner.py:1024] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.", pid)
        i0(63, "model_runner.py:1028] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.", pid)
    for pid in pids + [None]:
        i0(84, "model_runner.py:1225] Graph capturing finished in 21 secs.", pid)
    i0(85, "api_server.py:292] Available routes are:")
    L += ["INFO:     Started server process [3244]", "INFO:     Waiting for application startup.", "INFO:     Application startup complete.",
          "INFO:     Uvicorn running on http://0.0.0.0:8001 (Press CTRL+C to quit)"]
    batch = [Req(t0 + 236.0 + 0.05 * j, 1980 + 37 * j, 512, 9e9, 0.05) for j in range(4)]  # never complete
    allr = reqs + batch
    scrapes, gpu = [], []
    last = t0 - 10
    idle_mib = 23850
    for k in range(37):
        t = t0 + 10 * k + 0.3
        if t < crash:
            for r in reqs:
                if last < r.arr <= t:
                    L.append(f"INFO {stamp(r.arr)} async_llm_engine.py:173] Added request chat-{abs(hash((r.arr, r.p))) % 10**32:032x}.")
                if last < r.end <= t:
                    L.append(f"INFO {stamp(r.end)} async_llm_engine.py:140] Finished request chat-{abs(hash((r.arr, r.p))) % 10**32:032x}.")
                    L.append('INFO:     10.1.3.27:40412 - "POST /v1/chat/completions HTTP/1.1" 200 OK')
            for s in range(int((last - t0) // 10) + 1, int((t - t0) // 10) + 1):
                tl = t0 + 10 * s
                d0 = [r for r in reqs if tl - 10 < r.end <= tl or r.arr <= tl < r.end]
                if d0:
                    L.append(stats_line_v0(None, reqs, tl, 10.0, blocks, 16,
                                           "INFO {ts} metrics.py:406] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%."))
            last = t
            scrapes.append({"t": t, "status": 200, "text": v0_text("0.5.4", model, reqs, t, blocks, 16, cache, 4096)})
            procs = lambda g: [(3244 if g == 0 else 3300 + g, "python", (idle_mib + (60 if any(r.arr <= t < r.end for r in reqs) else 0)) * MiB)]
        else:
            scrapes.append(refused(t, port=8001))
            procs = lambda g: []
        gpu.append({"t": t + 0.1, "devices": [device(g, "NVIDIA GeForce RTX 4090", 24564 * MiB, procs(g), extra_used=9 * MiB) for g in range(4)]})
    for j, r in enumerate(batch):
        L.append(f"INFO {stamp(r.arr)} async_llm_engine.py:173] Added request chat-b{j}7f3e2a9c41d84f0e8a6b52c1d90e7{j:02d}.")
    pre = f"(VllmWorkerProcess pid=3302) ERROR {stamp(crash)} multiproc_worker_utils.py:226] "
    L += [pre + x for x in ["Exception in worker VllmWorkerProcess while processing method execute_model: CUDA out of memory. Tried to allocate 320.00 MiB. GPU 2 has a total capacity of 23.65 GiB of which 187.06 MiB is free. Including non-PyTorch memory, this process has 23.45 GiB memory in use. Of the allocated memory 20.61 GiB is allocated by PyTorch, with 2.31 GiB allocated in private pools (e.g., CUDA Graphs), and 96.25 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables), Traceback (most recent call last):",
                            '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1450, in execute_model',
                            "    hidden_or_intermediate_states = model_executable(",
                            '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/llama.py", line 329, in forward',
                            "    hidden_states, residual = layer(positions, hidden_states,",
                            '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/llama.py", line 184, in forward',
                            "    x = self.act_fn(gate_up)",
                            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 320.00 MiB. GPU 2 has a total capacity of 23.65 GiB of which 187.06 MiB is free."]]
    L.append(f"ERROR {stamp(crash + 0.2)} async_llm_engine.py:56] Engine background task failed")
    L.append(f"ERROR {stamp(crash + 0.2)} async_llm_engine.py:56] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 320.00 MiB. GPU 2 has a total capacity of 23.65 GiB of which 187.06 MiB is free.")
    L.append(f"ERROR {stamp(crash + 1.0)} multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3302 died, exit code: -9")
    L.append(f"INFO {stamp(crash + 1.0)} multiproc_worker_utils.py:123] Killing local vLLM worker processes")
    L += ['INFO:     10.1.3.27:40418 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'] * 4
    write_bundle(cid, endpoint="http://127.0.0.1:8001", started_at=t0, interval_s=10.0,
                 notes="4 x RTX 4090 (CUDA_VISIBLE_DEVICES=4,5,6,7), vLLM 0.5.4 TP 4 with CUDA graphs; a few single requests, then a batch of 4 x ~2k-token prompts; recorded through the OOM.",
                 scrapes=scrapes, server=srv("0.5.4", model, path, 4096, int(boot + 85)),
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--served-model-name", model, "--model", path, "--port", "8001", "--gpu-memory-utilization", "0.9", "--swap-space", "0", "--tensor-parallel-size", "4"],
                              "args": {"served-model-name": model, "model": path, "port": 8001, "gpu-memory-utilization": 0.9, "swap-space": 0, "tensor-parallel-size": 4}},
                 model_config=YI15_34B, gpu=gpu, logs="\n".join(L) + "\n")


if __name__ == "__main__":
    for fn in (m_v100_tp2_cudagraph_capture_oom_util_095, m_qwen25_3b_awq_3090_16g_healthy, m_tp2_rank1_31gib_free_other_container,
               m_qwen25_32b_awq_a6000_runtime_oom, m_yi34b_4x4090_graph_pool_eats_headroom):
        fn()
        print("built", fn.__name__)
