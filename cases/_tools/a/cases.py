#!/usr/bin/env python3
"""Build the bundles of the a-* cases. Usage (from the worktree root):

    PYTHONPATH=. /work/main/.venv/bin/python cases/_tools/a/cases.py [case-id ...]

Each builder takes the numbers its case.yaml quotes from the source and fills in the rest as
case.yaml's `assumed:` says. Without arguments every case is rebuilt.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import models  # noqa: E402
from gen import GiB, MiB, Engine, device, prom_error, v0_engine, v0_text, v1_text, write_bundle  # noqa: E402

CASES = Path(__file__).resolve().parents[2]
BUILDERS = {}


def case(fn):
    BUILDERS[fn.__name__.replace("_", "-")] = fn
    return fn


def ts(day: str, hms: str) -> str:
    return f"{day} {hms}"


# --------------------------------------------------------------------------------------------
@case
def a_cudagraph_capture_oom_deepseek_r1():
    """vllm#15598: DeepSeek-R1 TP8 x PP4 on 4x8 L40S, gmu 0.98, OOM while capturing CUDA graphs."""
    d = "03-27"
    head = "gpu01"
    per_tok = 1152 * 16  # MLA: (512 + 64) x 2 B per layer; 16 layers on this pipeline stage
    kv_bytes = 21.20 * GiB
    blocks = int(kv_bytes // (per_tok * 16))
    conc = blocks * 16 / 16384
    lines = [
        f"INFO {d} 10:21:40 [__init__.py:207] Automatically detected platform cuda.",
        f"INFO {d} 10:21:41 [api_server.py:912] vLLM API server version 0.7.3",
        f"INFO {d} 10:21:41 [api_server.py:913] args: Namespace(subparser='serve', model_tag='/ai_models/hf_hub/models/deepseek-ai/DeepSeek-R1', host='0.0.0.0', port=9999, served_model_name=['DeepSeek-R1'], max_model_len=16384, tensor_parallel_size=8, pipeline_parallel_size=4, gpu_memory_utilization=0.98, trust_remote_code=True, enforce_eager=False, max_num_seqs=None, kv_cache_dtype='auto', block_size=None, swap_space=4, distributed_executor_backend=None)",
        f"INFO {d} 10:21:55 [config.py:542] This model supports multiple tasks: {{'generate', 'embed', 'score', 'reward', 'classify'}}. Defaulting to 'generate'.",
        f"INFO {d} 10:21:55 [config.py:1430] Defaulting to use ray for distributed inference",
        f"INFO {d} 10:21:56 [llm_engine.py:234] Initializing a V0 LLM engine (v0.7.3) with config: model='/ai_models/hf_hub/models/deepseek-ai/DeepSeek-R1', speculative_config=None, tokenizer='/ai_models/hf_hub/models/deepseek-ai/DeepSeek-R1', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=4, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), seed=0, served_model_name=DeepSeek-R1, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=False, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=False,",
        f"INFO {d} 10:22:31 [ray_distributed_executor.py:153] use_ray_spmd_worker: False",
        f"INFO {d} 10:23:02 [cuda.py:161] Using Triton MLA backend.",
        f"INFO {d} 10:23:15 [model_runner.py:1110] Starting to load model /ai_models/hf_hub/models/deepseek-ai/DeepSeek-R1...",
        f"INFO {d} 10:28:36 [model_runner.py:1115] Loading model weights took 20.6396 GB",
        f"(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO {d} 10:28:37 [model_runner.py:1115] Loading model weights took 20.6396 GB [repeated 31x across cluster]",
        f"INFO {d} 10:29:01 [worker.py:267] Memory profiling takes 4.26 seconds",
        f"INFO {d} 10:29:01 [worker.py:267] the current vLLM instance can use total_gpu_memory (44.53GiB) x gpu_memory_utilization (0.98) = 43.64GiB",
        f"INFO {d} 10:29:01 [worker.py:267] model weights take 20.64GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak memory takes 1.52GiB; the rest of the memory reserved for KV Cache is 21.20GiB.",
        f"(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO {d} 10:29:01 [worker.py:267] Memory profiling takes 4.26 seconds [repeated 30x across cluster]",
        f"(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO {d} 10:29:01 [worker.py:267] the current vLLM instance can use total_gpu_memory (44.53GiB) x gpu_memory_utilization (0.98) = 43.64GiB [repeated 30x across cluster]",
        f"(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO {d} 10:29:01 [worker.py:267] model weights take 20.64GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak memory takes 1.52GiB; the rest of the memory reserved for KV Cache is 21.20GiB. [repeated 30x across cluster]",
        f"INFO {d} 10:29:02 [executor_base.py:111] # cuda blocks: {blocks}, # CPU blocks: 14563",
        f"INFO {d} 10:29:02 [executor_base.py:116] Maximum concurrency for 16384 tokens per request: {conc:.2f}x",
        f"INFO {d} 10:29:03 [model_runner.py:1442] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"(RayWorkerWrapper pid=1861983) INFO {d} 10:29:03 [model_runner.py:1442] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        "Capturing CUDA graph shapes:  43%|████▎     | 15/35 [00:09<00:12,  1.60it/s]",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620] Error executing method 'initialize_cache'. This might cause deadlock in distributed execution.",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620] Traceback (most recent call last):",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]   File \"/root/miniconda3/envs/vllm/lib/python3.12/site-packages/vllm/worker/worker_base.py\", line 612, in execute_method",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]     return run_method(target, method, args, kwargs)",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]   File \"/root/miniconda3/envs/vllm/lib/python3.12/site-packages/vllm/worker/worker.py\", line 311, in initialize_cache",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]     self._warm_up_model()",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]   File \"/root/miniconda3/envs/vllm/lib/python3.12/site-packages/vllm/worker/worker.py\", line 341, in _warm_up_model",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]     self.model_runner.capture_model(self.gpu_cache)",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]   File \"/root/miniconda3/envs/vllm/lib/python3.12/site-packages/vllm/worker/model_runner.py\", line 1560, in capture_model",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620]     graph_runner.capture(**capture_inputs)",
        f"(RayWorkerWrapper pid=206994, ip=192.168.10.25) ERROR {d} 10:29:13 [worker_base.py:620] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of 44.53 GiB of which 448.00 KiB is free. Including non-PyTorch memory, this process has 44.52 GiB memory in use. Of the allocated memory 43.12 GiB is allocated by PyTorch, with 698.00 MiB allocated in private pools (e.g., CUDA Graphs), and 226.41 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        f"ERROR {d} 10:29:14 [engine.py:400] RayWorkerWrapper died while executing initialize_cache; shutting down.",
        "Traceback (most recent call last):",
        "  File \"/root/miniconda3/envs/vllm/bin/vllm\", line 8, in <module>",
        "    sys.exit(main())",
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayWorkerWrapper.execute_method() (pid=206994, ip=192.168.10.25)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of 44.53 GiB of which 448.00 KiB is free.",
    ]
    total = 46068 * MiB
    t_cap = 1743071350.0
    pids = [1861983, 1861984, 1861985, 1861986, 1861987, 1861988, 1861989, 1861990]
    devs = [device(i, "NVIDIA L40S", total, [(p, "ray::RayWorkerWrapper", int((44.30 + 0.01 * i) * GiB))],
                   extra_used=int(0.45 * GiB)) for i, p in enumerate(pids)]
    gpu = [{"t": t_cap, "devices": devs}]
    scrapes = [prom_error(1743071360.0, 9999), prom_error(1743071365.0, 9999)]
    argv = ["vllm", "serve", "/ai_models/hf_hub/models/deepseek-ai/DeepSeek-R1", "--trust-remote-code",
            "--served-model-name", "DeepSeek-R1", "--max-model-len", "16384", "--host", "0.0.0.0", "--port", "9999",
            "--tensor-parallel-size", "8", "--pipeline-parallel-size", "4", "--gpu-memory-utilization", "0.98"]
    args = {"trust-remote-code": True, "served-model-name": "DeepSeek-R1", "max-model-len": 16384, "host": "0.0.0.0",
            "port": 9999, "tensor-parallel-size": 8, "pipeline-parallel-size": 4, "gpu-memory-utilization": 0.98}
    write_bundle(CASES / "a-cudagraph-capture-oom-deepseek-r1", endpoint=f"http://{head}:9999",
                 started_at=1743071350.0, interval_s=5.0,
                 notes="Start-up failure of a 32-GPU (4 nodes x 8 L40S) Ray deployment; the API server never came up. "
                       "NVML sample is of the head node while CUDA graphs were being captured.",
                 scrapes=scrapes, engine_args={"argv": argv, "args": args},
                 model_config=models.DEEPSEEK_R1, gpu=gpu, logs="\n".join(lines) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_nccl_workspace_pp_terminal_rank():
    """vllm PR#45517: TP=2 PP=2 on 4x 24 GB, gmu 0.70; NCCL workspace 8.76 GiB on cuda:2."""
    d = "06-13"
    model = "/models/Qwen3-VL-27B-AWQ"
    w = {0: (4011, "Worker_PP0_TP0", 1.62), 1: (4012, "Worker_PP0_TP1", 1.94),
         2: (4013, "Worker_PP1_TP0", 8.76), 3: (4014, "Worker_PP1_TP1", 6.10)}
    L = []
    L += [f"(APIServer pid=1) INFO {d} 09:12:01 [utils.py:297]        █     █     █▄   ▄█",
          f"(APIServer pid=1) INFO {d} 09:12:01 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.22.0",
          f"(APIServer pid=1) INFO {d} 09:12:01 [utils.py:297]   █▄█▀ █     █     █     █  model   {model}",
          f"(APIServer pid=1) INFO {d} 09:12:01 [utils.py:233] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'quantization': 'awq_marlin', 'tensor_parallel_size': 2, 'pipeline_parallel_size': 2, 'gpu_memory_utilization': 0.7, 'max_model_len': 32768}}",
          f"(EngineCore pid=212) INFO {d} 09:12:19 [core.py:114] Initializing a V1 LLM engine (v0.22.0) with config: model='{model}', tokenizer='{model}', dtype=torch.float16, max_seq_len=32768, tensor_parallel_size=2, pipeline_parallel_size=2, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True",
          f"(EngineCore pid=212) INFO {d} 09:12:19 [multiproc_executor.py:134] DP group leader: node_rank=0, node_rank_within_dp=0, master_addr=127.0.0.1, world_size=4, local_world_size=4"]
    for i, (pid, name, _) in w.items():
        pp, tp = i // 2, i % 2
        L.append(f"({name} pid={pid}) INFO {d} 09:12:31 [parallel_state.py:1411] rank {i} in world size 4 is assigned as DP rank 0, PP rank {pp}, PCP rank 0, TP rank {tp}, EP rank N/A")
    for i, (pid, name, _) in w.items():
        L.append(f"({name} pid={pid}) INFO {d} 09:12:32 [pynccl.py:111] vLLM is using nccl==2.28.9")
    for i, (pid, name, _) in w.items():
        L.append(f"({name} pid={pid}) INFO {d} 09:12:34 [custom_all_reduce.py:154] Registering 0 cuda graph addresses")
    pid, name, used = w[2]
    free = 23.56 - used
    L += [f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771] WorkerProc failed to start.",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771] Traceback (most recent call last):",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 742, in worker_main",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]     worker = WorkerProc(*args, **kwargs)",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 571, in __init__",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]     self.worker.init_device()",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py\", line 262, in init_device",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771]     raise ValueError(",
          f"({name} pid={pid}) ERROR {d} 09:12:36 [multiproc_executor.py:771] ValueError: Free memory on device cuda:2 ({free:.1f}/23.56 GiB) on startup is less than desired GPU memory utilization (0.7, 16.49 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
          f"(EngineCore pid=212) ERROR {d} 09:12:37 [core.py:1165] EngineCore failed to start.",
          f"(EngineCore pid=212) ERROR {d} 09:12:37 [core.py:1165] Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
          f"(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    total = 24576 * MiB
    t = 1781341956.0
    devs = [device(i, "NVIDIA GeForce RTX 3090", total, [(pid_, "VLLM::" + nm, int(u * GiB))]) for i, (pid_, nm, u) in w.items()]
    args = {"model": model, "quantization": "awq_marlin", "tensor-parallel-size": 2, "pipeline-parallel-size": 2,
            "gpu-memory-utilization": 0.7, "max-model-len": 32768}
    write_bundle(CASES / "a-nccl-workspace-pp-terminal-rank", endpoint="http://127.0.0.1:8000", started_at=t - 5,
                 interval_s=5.0,
                 notes="Start-up failure of a TP=2 x PP=2 server on four 24 GB consumer GPUs. NVML sampled once, "
                       "right after NCCL initialisation, before the worker on cuda:2 raised.",
                 scrapes=[prom_error(t + 2), prom_error(t + 7)],
                 engine_args={"argv": ["vllm", "serve", model, "--quantization", "awq_marlin", "--tensor-parallel-size", "2",
                                       "--pipeline-parallel-size", "2", "--gpu-memory-utilization", "0.70", "--max-model-len", "32768"],
                              "args": args},
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_sampler_warmup_oom_qwen3_32b():
    """llm-d#787: vLLM v0.11.0, Qwen3-32B TP=2, gmu 0.95: OOM warming up the sampler (1024 dummy reqs)."""
    d = "02-17"
    model = "Qwen/Qwen3-32B"
    per_tok = 64 * 4 * 128 * 2 * 2  # 64 layers, 4 of 8 KV heads per TP rank, K+V, bf16
    kv = 41.87 * GiB
    tokens = int(kv // (per_tok * 16)) * 16
    conc = tokens / 40960
    W = [(187, "Worker_TP0"), (188, "Worker_TP1")]
    L = [f"(APIServer pid=1) INFO {d} 03:14:02 [api_server.py:1839] vLLM API server version 0.11.0",
         f"(APIServer pid=1) INFO {d} 03:14:02 [utils.py:233] non-default args: {{'model_tag': '{model}', 'port': 8200, 'model': '{model}', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.95}}",
         f"(APIServer pid=1) INFO {d} 03:14:12 [model.py:547] Resolved architecture: Qwen3ForCausalLM",
         f"(APIServer pid=1) INFO {d} 03:14:12 [model.py:1510] Using max model len 40960",
         f"(APIServer pid=1) INFO {d} 03:14:13 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
         f"(EngineCore_DP0 pid=121) INFO {d} 03:14:24 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=40960, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True, compilation_config={{'level': 3, 'cudagraph_mode': [2, 1], 'cudagraph_capture_sizes': [512, 504, 496, 488, 480, 472, 464, 456, 448, 440, 432, 424, 416, 408, 400, 392, 384, 376, 368, 360, 352, 344, 336, 328, 320, 312, 304, 296, 288, 280, 272, 264, 256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1], 'max_capture_size': 512}}"]
    for pid, n in W:
        L.append(f"({n} pid={pid}) INFO {d} 03:15:41 [gpu_model_runner.py:2653] Model loading took 30.59 GiB and 88.412101 seconds")
    for pid, n in W:
        L.append(f"({n} pid={pid}) INFO {d} 03:16:05 [monitor.py:34] torch.compile takes 19.88 s in total")
    for pid, n in W:
        L.append(f"({n} pid={pid}) INFO {d} 03:16:08 [gpu_worker.py:298] Available KV cache memory: 41.87 GiB")
    L += [f"(EngineCore_DP0 pid=121) INFO {d} 03:16:09 [kv_cache_utils.py:1087] GPU KV cache size: {tokens:,} tokens",
          f"(EngineCore_DP0 pid=121) INFO {d} 03:16:09 [kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: {conc:.2f}x",
          "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:09<00:00,  7.03it/s]",
          "Capturing CUDA graphs (decode, FULL): 100%|██████████| 67/67 [00:06<00:00, 10.41it/s]"]
    for pid, n in W:
        L.append(f"({n} pid={pid}) INFO {d} 03:16:26 [gpu_model_runner.py:3480] Graph capturing finished in 17 secs, took 1.19 GiB")
    pid, n = W[0]
    pre = f"({n} pid={pid}) ERROR {d} 03:16:27 [multiproc_executor.py:671]"
    L += [f"{pre} WorkerProc hit an exception.",
          f"{pre} Traceback (most recent call last):",
          f"{pre}   File \"/opt/vllm/lib64/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py\", line 3204, in _dummy_sampler_run",
          f"{pre}     sampler_output = self.sampler(logits=logits,",
          f"{pre} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of 79.18 GiB of which 823.88 MiB is free. Including non-PyTorch memory, this process has 78.35 GiB memory in use. Of the allocated memory 76.21 GiB is allocated by PyTorch, with 1.19 GiB allocated in private pools (e.g., CUDA Graphs), and 214.06 MiB is reserved by PyTorch but unallocated.",
          f"{pre} ",
          f"{pre} The above exception was the direct cause of the following exception:",
          f"{pre} ",
          f"{pre} Traceback (most recent call last):",
          f"{pre}   File \"/opt/vllm/lib64/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py\", line 666, in worker_busy_loop",
          f"{pre}     output = func(*args, **kwargs)",
          f"{pre}   File \"/opt/vllm/lib64/python3.12/site-packages/vllm/v1/worker/gpu_worker.py\", line 429, in compile_or_warm_up_model",
          f"{pre}     self.model_runner._dummy_sampler_run(",
          f"{pre}   File \"/opt/vllm/lib64/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py\", line 3221, in _dummy_sampler_run",
          f"{pre}     raise RuntimeError(",
          f"{pre} RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
          f"(EngineCore_DP0 pid=121) ERROR {d} 03:16:27 [core.py:708] EngineCore failed to start.",
          f"(EngineCore_DP0 pid=121) ERROR {d} 03:16:27 [core.py:708] RuntimeError: Worker failed with error 'CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.', please check the stack trace above for the root cause",
          f"(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    total = 81559 * MiB
    t = 1771298186.0
    devs = [device(i, "NVIDIA H100 80GB HBM3", total, [(p, "VLLM::" + nm, int(78.35 * GiB) - i * int(0.02 * GiB))])
            for i, (p, nm) in enumerate(W)]
    args = {"model": model, "port": 8200, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.95}
    write_bundle(CASES / "a-sampler-warmup-oom-qwen3-32b", endpoint="http://ms-inference-scheduling-decode:8200",
                 started_at=t - 10, interval_s=5.0,
                 notes="Decode pod of an llm-d nightly E2E (8 such pods, all crash-looping). Captured during one start "
                       "attempt: the API server never served /metrics.",
                 scrapes=[prom_error(t - 5, 8200, "10.128.4.17"), prom_error(t, 8200, "10.128.4.17"), prom_error(t + 5, 8200, "10.128.4.17")],
                 engine_args={"argv": ["vllm", "serve", model, "--port", "8200", "--tensor-parallel-size", "2",
                                       "--gpu-memory-utilization=0.95"], "args": args},
                 model_config=models.QWEN3_32B, gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_util_0_1_below_weights_t4():
    """vllm#7028: offline LLM(...) on a Colab T4, AWQ 7B, gpu_memory_utilization=0.1."""
    d = "08-01"
    model = "hiuman/Vistral-7B-Chat-quantize"
    L = [f"WARNING {d} 07:12:03 config.py:254] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
         f"INFO {d} 07:12:03 llm_engine.py:176] Initializing an LLM engine (v0.5.3.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=True, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), seed=0, served_model_name={model}, use_v2_block_manager=False, enable_prefix_caching=False)",
         f"INFO {d} 07:12:05 model_runner.py:680] Starting to load model {model}...",
         f"INFO {d} 07:12:06 weight_utils.py:223] Using model weights format ['*.safetensors']",
         f"INFO {d} 07:13:40 model_runner.py:692] Loading model weights took 3.8842 GB",
         f"INFO {d} 07:13:46 gpu_executor.py:102] # GPU blocks: 0, # CPU blocks: 2048",
         "---------------------------------------------------------------------------",
         "ValueError                                Traceback (most recent call last)",
         "<ipython-input-3-5b1e0c27a9f4> in <cell line: 3>()",
         "      1 from vllm import LLM, SamplingParams",
         "      2 sampling_params = SamplingParams(temperature=0.1, top_p=0.95, max_tokens = 128)",
         f"----> 3 llm = LLM(model=\"{model}\", quantization=\"AWQ\",enforce_eager=True, gpu_memory_utilization=0.1)",
         "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py in initialize_cache(self, num_gpu_blocks, num_cpu_blocks)",
         "--> 218         raise_if_cache_size_invalid(num_gpu_blocks,",
         "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py in raise_if_cache_size_invalid(num_gpu_blocks, block_size, max_model_len)",
         "    363     if num_gpu_blocks <= 0:",
         "--> 364         raise ValueError(\"No available memory for the cache blocks. \"",
         "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."]
    t = 1722496426.0
    devs = [device(0, "Tesla T4", 15360 * MiB, [(5213, "/usr/bin/python3", int(4.61 * GiB))])]
    args = {"model": model, "quantization": "AWQ", "enforce_eager": True, "gpu_memory_utilization": 0.1}
    write_bundle(CASES / "a-util-0-1-below-weights-t4", endpoint="colab-notebook:offline-LLM", started_at=t - 100,
                 interval_s=5.0,
                 notes="Offline vllm.LLM(...) in a Google Colab notebook (T4): there is no HTTP server, so no /metrics; "
                       "the bundle carries the notebook output and one NVML sample taken when the cell raised.",
                 scrapes=[{"t": t, "error": "no /metrics endpoint: offline vllm.LLM() in a notebook, no HTTP server"}],
                 engine_args={"argv": None, "args": args}, model_config=models.VISTRAL_7B_AWQ,
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_max_model_len_262k_qwen3_coder_dp8():
    """vllm-project/recipes#12: Qwen3-Coder-480B FP8, DP=8 + EP on 8x H20, 262144 tokens need 62 GiB."""
    d = "08-04"
    model = "/tmp/model/Qwen3-Coder-480B-A35B-Instruct-FP8"
    L = [f"INFO {d} 06:20:11 [__init__.py:241] Automatically detected platform cuda.",
         f"(APIServer pid=1) INFO {d} 06:20:15 [api_server.py:1805] vLLM API server version 0.10.1.dev101+gbda9d0535",
         f"(APIServer pid=1) INFO {d} 06:20:15 [utils.py:326] non-default args: {{'model_tag': '{model}', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', 'model': '{model}', 'served_model_name': ['Qwen3-Coder-480B-A35B-FP8'], 'data_parallel_size': 8, 'enable_expert_parallel': True, 'gpu_memory_utilization': 0.95}}",
         f"(APIServer pid=1) INFO {d} 06:20:24 [config.py:726] Resolved architecture: Qwen3MoeForCausalLM",
         f"(APIServer pid=1) INFO {d} 06:20:24 [config.py:1759] Using max model len 262144",
         f"(APIServer pid=1) INFO {d} 06:20:25 [config.py:2588] Chunked prefill is enabled with max_num_batched_tokens=8192."]
    for r in range(8):
        L.append(f"(EngineCore_{r} pid={3100 + r}) INFO {d} 06:20:41 [core.py:71] Initializing a V1 LLM engine (v0.10.1.dev101+gbda9d0535) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=262144, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=8, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name=Qwen3-Coder-480B-A35B-FP8, enable_prefix_caching=True, chunked_prefill_enabled=True")
    for r in range(8):
        L.append(f"(EngineCore_{r} pid={3100 + r}) INFO {d} 06:27:52 [gpu_model_runner.py:1953] Model loading took 66.97 GiB and 421.337219 seconds")
    for r in range(8):
        L.append(f"(EngineCore_{r} pid={3100 + r}) INFO {d} 06:28:40 [gpu_worker.py:276] Available KV cache memory: 55.65 GiB")
    for r in range(8):
        pre = f"(EngineCore_{r} pid={3100 + r}) ERROR {d} 06:28:41 [core.py:700]"
        L += [f"{pre} EngineCore failed to start.",
              f"{pre} Traceback (most recent call last):",
              f"{pre}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 1107, in get_kv_cache_config",
              f"{pre}     check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
              f"{pre}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 699, in check_enough_kv_cache_memory",
              f"{pre}     raise ValueError(",
              f"{pre} ValueError: To serve at least one request with the models's max seq len (262144), (62.00 GiB KV cache is needed, which is larger than the available KV cache memory (55.65 GiB). Based on the available memory, the estimated maximum model length is 235296. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    L.append("(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_0': 1, 'EngineCore_1': 1, 'EngineCore_2': 1, 'EngineCore_3': 1, 'EngineCore_4': 1, 'EngineCore_5': 1, 'EngineCore_6': 1, 'EngineCore_7': 1}")
    t = 1754288920.0
    devs = [device(r, "NVIDIA H20", 143771 * MiB, [(3100 + r, f"VLLM::EngineCore_{r}", int((77.9 + 0.03 * r) * GiB))]) for r in range(8)]
    args = {"model": model, "served-model-name": "Qwen3-Coder-480B-A35B-FP8", "data-parallel-size": 8,
            "enable-expert-parallel": True, "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder",
            "gpu-memory-utilization": 0.95}
    argv = ["vllm", "serve", model, "--served-model-name", "Qwen3-Coder-480B-A35B-FP8", "-dp=8", "--enable-expert-parallel",
            "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder", "--gpu-memory-utilization", "0.95"]
    write_bundle(CASES / "a-max-model-len-262k-qwen3-coder-dp8", endpoint="http://127.0.0.1:8000", started_at=t - 10,
                 interval_s=5.0,
                 notes="Start-up refusal of all eight data-parallel engines (second attempt, --gpu-memory-utilization 0.95; "
                       "the first, default 0.9, failed the same way with 48.66 GiB available).",
                 scrapes=[prom_error(t - 5), prom_error(t), prom_error(t + 5)],
                 engine_args={"argv": argv, "args": args}, model_config=models.QWEN3_CODER_480B_FP8,
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_stale_instance_holds_gpu():
    """llm-d-fast-model-actuation#709: the new instance finds 0.41/79.18 GiB free on cuda:0."""
    d = "08-11"
    L = [f"(APIServer pid=3102) INFO {d} 13:55:41 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.26.0",
         f"(APIServer pid=3102) INFO {d} 13:55:41 [utils.py:233] non-default args: {{'port': 8005, 'gpu_memory_utilization': 0.85, 'enable_sleep_mode': True}}",
         f"(EngineCore pid=3310) INFO {d} 13:56:08 [v1/engine/core.py:101] Initializing a V1 LLM engine (v0.26.0) with config: enable_sleep_mode=True, kv_cache_dtype=auto, device_config=cuda",
         f"(EngineCore pid=3310) INFO {d} 13:56:13 [distributed/parallel_state.py:1411] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 0, EP rank N/A",
         f"(EngineCore pid=3310) ERROR {d} 13:56:14 [v1/engine/core.py:1195] EngineCore failed to start.",
         f"(EngineCore pid=3310) ERROR {d} 13:56:14 [v1/engine/core.py:1195] Traceback (most recent call last):",
         f"(EngineCore pid=3310) ERROR {d} 13:56:14 [v1/engine/core.py:1195]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py\", line 276, in init_device",
         f"(EngineCore pid=3310) ERROR {d} 13:56:14 [v1/engine/core.py:1195]     raise ValueError(",
         f"(EngineCore pid=3310) ERROR {d} 13:56:14 [v1/engine/core.py:1195] ValueError: Free memory on device cuda:0 (0.41/79.18 GiB) on startup is less than desired GPU memory utilization (0.85, 67.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
         f"(APIServer pid=3102) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    t = 1786456574.0
    devs = [device(0, "NVIDIA H100 80GB HBM3", 81559 * MiB, [(2841, "VLLM::EngineCore", 81141 * MiB - int(0.52 * GiB)),
                                                           (3310, "VLLM::EngineCore", int(0.52 * GiB))])]
    write_bundle(CASES / "a-stale-instance-holds-gpu", endpoint="http://10.131.8.254:8005", started_at=t - 10,
                 interval_s=5.0,
                 notes="A replacement vLLM instance started by the dual-pods controller on a GPU the previous instance "
                       "had not yet released; it crashed at start-up and was replaced repeatedly.",
                 scrapes=[prom_error(t - 5, 8005, "10.131.8.254"), prom_error(t, 8005, "10.131.8.254")],
                 engine_args={"argv": None, "args": {"port": 8005, "gpu-memory-utilization": 0.85, "enable-sleep-mode": True}},
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_tp2_4090_per_device_max_model_len():
    """vllm#13061: R1-Distill-Qwen-14B, TP=2 on two RTX 4090, gmu 0.98: 131072 > 81536 tokens."""
    d = "02-11"
    model = "/root/autodl-tmp/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B"
    W = "(VllmWorkerProcess pid=1786)"
    L = [f"INFO {d} 07:39:58 __init__.py:190] Automatically detected platform cuda.",
         f"INFO {d} 07:40:00 api_server.py:840] vLLM API server version 0.7.2",
         f"INFO {d} 07:40:00 api_server.py:841] args: Namespace(subparser='serve', model_tag='{model}', host=None, port=8000, model='{model}', trust_remote_code=True, max_model_len=None, tensor_parallel_size=2, gpu_memory_utilization=0.98, enforce_eager=False, max_num_seqs=None, enable_prefix_caching=None, kv_cache_dtype='auto', swap_space=4)",
         f"INFO {d} 07:40:08 config.py:542] This model supports multiple tasks: {{'generate', 'score', 'reward', 'embed', 'classify'}}. Defaulting to 'generate'.",
         f"INFO {d} 07:40:08 config.py:1401] Defaulting to use mp for distributed inference",
         f"INFO {d} 07:40:12 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=True,",
         f"WARNING {d} 07:40:12 multiproc_worker_utils.py:300] Reducing Torch parallelism from 16 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.",
         f"INFO {d} 07:40:12 custom_cache_manager.py:19] Setting Triton cache manager to: vllm.triton_utils.custom_cache_manager:CustomCacheManager",
         f"{W} INFO {d} 07:40:14 multiproc_worker_utils.py:229] Worker ready; awaiting tasks",
         f"INFO {d} 07:40:15 cuda.py:230] Using Flash Attention backend.",
         f"{W} INFO {d} 07:40:15 cuda.py:230] Using Flash Attention backend.",
         f"INFO {d} 07:40:16 utils.py:950] Found nccl from library libnccl.so.2",
         f"INFO {d} 07:40:16 pynccl.py:69] vLLM is using nccl==2.21.5",
         f"{W} INFO {d} 07:40:16 pynccl.py:69] vLLM is using nccl==2.21.5",
         f"WARNING {d} 07:40:17 custom_all_reduce.py:136] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
         f"{W} WARNING {d} 07:40:17 custom_all_reduce.py:136] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
         f"INFO {d} 07:40:17 model_runner.py:1110] Starting to load model {model}...",
         f"{W} INFO {d} 07:40:17 model_runner.py:1110] Starting to load model {model}...",
         f"{W} INFO {d} 07:40:45 model_runner.py:1115] Loading model weights took 13.9476 GB",
         f"INFO {d} 07:40:45 model_runner.py:1115] Loading model weights took 13.9476 GB",
         f"{W} INFO {d} 07:40:48 worker.py:266] Memory profiling takes 2.91 seconds",
         f"{W} INFO {d} 07:40:48 worker.py:266] the current vLLM instance can use total_gpu_memory (23.55GiB) x gpu_memory_utilization (0.98) = 23.08GiB",
         f"{W} INFO {d} 07:40:48 worker.py:266] model weights take 13.95GiB; non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes 0.19GiB; the rest of the memory reserved for KV Cache is 8.69GiB.",
         f"INFO {d} 07:40:48 worker.py:266] Memory profiling takes 2.95 seconds",
         f"INFO {d} 07:40:48 worker.py:266] the current vLLM instance can use total_gpu_memory (23.55GiB) x gpu_memory_utilization (0.98) = 23.08GiB",
         f"INFO {d} 07:40:48 worker.py:266] model weights take 13.95GiB; non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes 0.19GiB; the rest of the memory reserved for KV Cache is 8.69GiB.",
         f"INFO {d} 07:40:48 executor_base.py:110] # cuda blocks: 5096, # CPU blocks: 2730",
         f"INFO {d} 07:40:48 executor_base.py:115] Maximum concurrency for 131072 tokens per request: 0.62x",
         f"ERROR {d} 07:40:49 engine.py:389] The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (81536). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
         "Traceback (most recent call last):",
         "  File \"/root/miniconda3/lib/python3.12/site-packages/vllm/worker/worker.py\", line 292, in initialize_cache",
         "    raise_if_cache_size_invalid(num_gpu_blocks,",
         "  File \"/root/miniconda3/lib/python3.12/site-packages/vllm/worker/worker.py\", line 540, in raise_if_cache_size_invalid",
         "    raise ValueError(",
         "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (81536). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
         f"ERROR {d} 07:40:49 multiproc_worker_utils.py:124] Worker VllmWorkerProcess pid 1786 died, exit code: -15",
         f"INFO {d} 07:40:49 multiproc_worker_utils.py:128] Killing local vLLM worker processes"]
    t = 1739259648.0
    devs = [device(0, "NVIDIA GeForce RTX 4090", 24564 * MiB, [(1655, "/root/miniconda3/bin/python", int(14.62 * GiB))]),
            device(1, "NVIDIA GeForce RTX 4090", 24564 * MiB, [(1786, "/root/miniconda3/bin/python", int(14.60 * GiB))])]
    args = {"model": model, "trust-remote-code": True, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.98}
    argv = ["vllm", "serve", "--trust-remote-code", "--tensor_parallel_size", "2", "--gpu_memory_utilization=0.98", model]
    write_bundle(CASES / "a-tp2-4090-per-device-max-model-len", endpoint="http://127.0.0.1:8000", started_at=t - 5,
                 interval_s=5.0,
                 notes="Start-up refusal of a tensor-parallel (TP=2) server on two RTX 4090. NVML sampled during memory "
                       "profiling, a second before the refusal: one vLLM process per GPU (engine/rank 0 and VllmWorkerProcess 1786).",
                 scrapes=[prom_error(t + 1), prom_error(t + 6)],
                 engine_args={"argv": argv, "args": args}, model_config=models.R1_DISTILL_QWEN_14B,
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


def models_body(served: str, root: str, max_len: int, created: int) -> dict:
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created, "owned_by": "vllm",
                                        "root": root, "parent": None, "max_model_len": max_len,
                                        "permission": [{"id": "modelperm-5d0c1f7e2a9b4c3d", "object": "model_permission",
                                                        "created": created, "allow_create_engine": False,
                                                        "allow_sampling": True, "allow_logprobs": True,
                                                        "allow_search_indices": False, "allow_view": True,
                                                        "allow_fine_tuning": False, "organization": "*", "group": None,
                                                        "is_blocking": False}]}]}


def stats_line(pid: int, day: str, hms: str, eng: int, pt: float, gt: float, run: int, wait: int, kv: float,
               hit: float, fmt: str = "GPU KV cache usage") -> str:
    return (f"(APIServer pid={pid}) INFO {day} {hms} [loggers.py:257] Engine {eng:03d}: Avg prompt throughput: {pt:.1f} tokens/s, "
            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, "
            f"{fmt}: {kv * 100:.1f}%, Prefix cache hit rate: {hit * 100:.1f}%")


def hms_of(t: float) -> str:
    import time as _t
    return _t.strftime("%H:%M:%S", _t.gmtime(t))


# --------------------------------------------------------------------------------------------
@case
def a_max_num_seqs_100_piecewise_cliff():
    """vllm PR#57355: max_num_seqs=100, FULL decode graphs only up to 96; batch 97-100 run PIECEWISE."""
    vers = ("0.24.0", "0.32.0")
    served = "meta-llama/Llama-3.3-70B-Instruct"
    day = "09-16"
    t0 = 1789577100.0
    n = 24
    pool_tokens = 1_609_600
    e = Engine(labels={"engine": "0", "model_name": served}, created=t0 - 600)
    cache = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
             "num_gpu_blocks": str(pool_tokens // 16), "num_gpu_blocks_override": "None", "num_cpu_blocks": "None",
             "kv_cache_size_tokens": str(pool_tokens), "kv_cache_memory_bytes": "None", "is_attention_free": "False",
             "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "_block_size_resolved": "True",
             "user_specified_block_size": "False", "kv_cache_max_concurrency": f"{pool_tokens / 131072:.2f}",
             "kv_sharing_fast_prefill": "False", "kv_offloading_backend": "native", "kv_offloading_size": "None",
             "mamba_cache_mode": "none", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
             "mamba_ssm_cache_dtype": "auto", "mamba_page_size_padded": "None", "hash_block_size": "None",
             "kv_cache_dtype_skip_layers": "[]"}
    for k in ["vllm:prompt_tokens", "vllm:generation_tokens", "vllm:num_preemptions", "vllm:prefix_cache_queries",
              "vllm:prefix_cache_hits", "vllm:prompt_tokens_cached", "vllm:external_prefix_cache_queries",
              "vllm:external_prefix_cache_hits"]:
        e.counters[k] = 0.0
    # warm-up traffic before the capture window (the load had been running 5 min at 96 clients)
    done_f = 0.0
    scrapes, gpu, logs = [], [], []
    pid = 1
    prompt_len, out_len = 1024, 2000
    prev = (0.0, 0.0)
    for i in range(-60, n):
        t = t0 + 5 * i
        if i < 8:
            clients, itl = 96, 0.0295 + 0.0004 * (i % 3)
        else:
            clients, itl = 100, 0.055 + (0.112 - 0.055) * (i - 8) / (n - 9)
        running = clients
        gen = running * 5.0 / itl
        fin = gen / out_len
        done_f += fin
        e.inc("vllm:generation_tokens", gen)
        e.inc("vllm:prompt_tokens", fin * prompt_len)
        e.inc("vllm:prefix_cache_queries", fin * prompt_len)
        e.inc("vllm:prefix_cache_hits", fin * 16 * 2)  # shared chat-template prefix: 2 blocks
        e.inc("vllm:prompt_tokens_cached", fin * 32)
        e.inc_l("vllm:request_success", "finished_reason", "length", fin)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_compute", fin * (prompt_len - 32))
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_cache_hit", fin * 32)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "external_kv_transfer", 0.0)
        e.observe("vllm:inter_token_latency_seconds", itl, gen * 0.92)
        e.observe("vllm:inter_token_latency_seconds", itl * 1.7, gen * 0.08)
        ttft = 0.16 if i < 8 else 0.31 + 0.2 * (i - 8) / 15
        e.observe("vllm:time_to_first_token_seconds", ttft, fin)
        e.observe("vllm:request_queue_time_seconds", 0.004, fin)
        e.observe("vllm:request_prefill_time_seconds", ttft - 0.004, fin)
        e.observe("vllm:request_decode_time_seconds", itl * out_len, fin)
        e.observe("vllm:request_inference_time_seconds", ttft + itl * out_len, fin)
        e.observe("vllm:e2e_request_latency_seconds", ttft + itl * out_len + 0.01, fin)
        e.observe("vllm:request_time_per_output_token_seconds", itl, fin)
        e.observe("vllm:request_prompt_tokens", prompt_len, fin)
        e.observe("vllm:request_generation_tokens", out_len, fin)
        e.observe("vllm:request_params_max_tokens", out_len, fin)
        e.observe("vllm:request_max_num_generation_tokens", out_len, fin)
        e.observe("vllm:request_params_n", 1, fin)
        e.observe("vllm:request_prefill_kv_computed_tokens", prompt_len - 32, fin)
        e.observe("vllm:iteration_tokens_total", running, 5.0 / itl * 0.92)
        e.observe("vllm:iteration_tokens_total", running + 512, 5.0 / itl * 0.08)
        e.gauges["vllm:num_requests_running"] = running
        e.gauges["vllm:num_requests_waiting"] = 0 if i % 5 else 1
        e.gauges["vllm:kv_cache_usage_perc"] = running * (prompt_len + out_len / 2) / pool_tokens
        if i < 0:
            prev = (e.counters["vllm:prompt_tokens"], e.counters["vllm:generation_tokens"])
            continue
        scrapes.append({"t": t + 0.21, "status": 200, "text": v1_text(vers, [e], cache)})
        used = int(166.3 * GiB)
        gpu.append({"t": t + 0.3, "devices": [device(k, "NVIDIA B200", 183359 * MiB, [(312 + k, f"VLLM::Worker_TP{k}", used)]) for k in range(4)]})
        if i % 2 == 1:
            g = e.counters["vllm:generation_tokens"]
            p_ = e.counters["vllm:prompt_tokens"]
            logs.append(stats_line(pid, day, hms_of(t), 0, (p_ - prev[0]) / 10, (g - prev[1]) / 10, running,
                                   int(e.gauges["vllm:num_requests_waiting"]), e.gauges["vllm:kv_cache_usage_perc"], 0.031))
            prev = (p_, g)
    head = [f"(APIServer pid=1) INFO {day} 16:31:02 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.28.0",
            f"(APIServer pid=1) INFO {day} 16:31:02 [utils.py:233] non-default args: {{'model_tag': '{served}', 'model': '{served}', 'tensor_parallel_size': 4, 'max_num_seqs': 100}}",
            f"(APIServer pid=1) INFO {day} 16:31:11 [model.py:1582] Using max model len 131072",
            f"(APIServer pid=1) INFO {day} 16:31:11 [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
            f"(EngineCore pid=251) INFO {day} 16:31:20 [core.py:114] Initializing a V1 LLM engine (v0.28.0) with config: model='{served}', speculative_config=None, tokenizer='{served}', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=4, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True, compilation_config={{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200], 'max_cudagraph_capture_size': 200}}",
            f"(Worker_TP0 pid=312) INFO {day} 16:33:31 [gpu_model_runner.py:5405] Model loading took 32.88 GiB memory and 96.214877 seconds",
            f"(Worker_TP0 pid=312) INFO {day} 16:34:02 [gpu_model_runner.py:6681] Profiling CUDA graph memory: PIECEWISE=28 (largest=200), FULL=15 (largest=96)",
            f"(Worker_TP0 pid=312) INFO {day} 16:34:05 [gpu_model_runner.py:6806] Estimated CUDA graph memory: 0.94 GiB total",
            f"(Worker_TP0 pid=312) INFO {day} 16:34:05 [gpu_worker.py:563] Available KV cache memory: 122.81 GiB",
            f"(EngineCore pid=251) INFO {day} 16:34:05 [kv_cache_utils.py:2146] GPU KV cache size: {pool_tokens:,} tokens",
            f"(EngineCore pid=251) INFO {day} 16:34:05 [kv_cache_utils.py:2147] Maximum concurrency for 131,072 tokens per request: {pool_tokens / 131072:.2f}x",
            "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 28/28 [00:07<00:00,  3.71it/s]",
            "Capturing CUDA graphs (decode, FULL): 100%|██████████| 15/15 [00:03<00:00,  4.66it/s]",
            f"(Worker_TP0 pid=312) INFO {day} 16:34:17 [gpu_model_runner.py:6582] Graph capturing finished in 11 secs, took 0.91 GiB",
            f"(APIServer pid=1) INFO {day} 16:34:40 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000"]
    write_bundle(CASES / "a-max-num-seqs-100-piecewise-cliff", endpoint="http://10.0.12.7:8000", started_at=t0,
                 interval_s=5.0,
                 notes="Load test with closed-loop clients (1024-token prompts, 2000 output tokens, ignore_eos): 96 "
                       "clients for the first 40 s, then raised to 100 (= --max-num-seqs). Operator report: aggregate "
                       "throughput fell below 1,000 tok/s after the step to 100 clients.",
                 scrapes=scrapes, server={"version": {"version": "0.28.0"},
                                          "models": models_body(served, served, 131072, 1789550620), "health": 200},
                 engine_args={"argv": ["vllm", "serve", served, "--tensor-parallel-size", "4", "--max-num-seqs", "100"],
                              "args": {"model": served, "tensor-parallel-size": 4, "max-num-seqs": 100}},
                 model_config=models.LLAMA33_70B, gpu=gpu, logs="\n".join(head + logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_dp4_engine0_overloaded():
    """vllm#48808: DP=4 on H20, Qwen3-4B fine-tune, long-context eval: engine 0 takes 27 of 32 requests."""
    vers = ("0.18.0", "0.24.0")
    served = "qwen3_4b_pcy"
    root = "/models/qwen3_4b_pcy"
    day = "05-28"
    import datetime as _dt
    t0 = _dt.datetime(2026, 5, 28, 12, 58, 26, tzinfo=_dt.timezone.utc).timestamp()
    n = 25
    pool = 549_808
    engines = [Engine(labels={"engine": str(k), "model_name": served}, created=t0 - 1200) for k in range(4)]
    cache = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
             "num_gpu_blocks": str(pool // 16), "num_gpu_blocks_override": "None", "num_cpu_blocks": "None",
             "kv_cache_memory_bytes": "None", "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
             "sliding_window": "None", "_block_size_resolved": "True", "user_specified_block_size": "False",
             "kv_sharing_fast_prefill": "False", "kv_offloading_backend": "native", "kv_offloading_size": "None",
             "mamba_cache_mode": "none", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
             "mamba_ssm_cache_dtype": "auto", "mamba_page_size_padded": "None", "calculate_kv_scales": "False"}
    for e in engines:
        for k in ["vllm:prompt_tokens", "vllm:generation_tokens", "vllm:num_preemptions", "vllm:prefix_cache_queries",
                  "vllm:prefix_cache_hits", "vllm:prompt_tokens_cached", "vllm:external_prefix_cache_queries",
                  "vllm:external_prefix_cache_hits"]:
            e.counters[k] = 0.0
    P, OUT = 16_000, 2_000
    scrapes, gpu, logs = [], [], []
    prev = [(0.0, 0.0)] * 4

    def sched(i: int) -> list[int]:
        if i < 0:  # from the even split of the run's start (the 12:53:45 snapshot) to the window
            f = (i + 60) / 60
            e0, e2, e3 = round(8 + 12 * f), round(8 - 5 * f), round(8 - 7 * f)
            return [e0, 32 - e0 - e2 - e3, e2, e3]
        e3 = 1 if i < 5 else 0
        e2 = max(0, 3 - i // 4)
        e1 = 8 - round(3 * i / (n - 1))
        return [32 - e1 - e2 - e3, e1, e2, e3]

    for i in range(-60, n):
        t = t0 + 5 * i
        run = sched(i)
        for k, e in enumerate(engines):
            r = run[k]
            # per 5 s: n_d decode steps of itl_base, n_p prefill-chunk steps (8192 tokens) of 0.38 s;
            # prompt tokens = finished x P = n_p x 8192 (steady state)
            if r == 0:
                itl_base, n_d, n_p = 0.0, 0.0, 0.0
            else:
                itl_base = 0.006 + 0.00075 * r
                ratio = r * (P / OUT) / (8192 - r * (P / OUT))
                n_d = 5.0 / (itl_base + ratio * 0.38)
                n_p = ratio * n_d
            f_stall = n_p / (n_d + n_p) if r else 0.0
            gen = r * (n_d + n_p)
            fin = gen / OUT
            e.inc("vllm:generation_tokens", gen)
            e.inc("vllm:prompt_tokens", fin * P)
            e.inc("vllm:prefix_cache_queries", fin * P)
            e.inc("vllm:prefix_cache_hits", fin * 256)  # eval template header: 16 blocks
            e.inc("vllm:prompt_tokens_cached", fin * 256)
            e.inc_l("vllm:request_success", "finished_reason", "stop", fin * 0.93)
            e.inc_l("vllm:request_success", "finished_reason", "length", fin * 0.07)
            e.inc_l("vllm:prompt_tokens_by_source", "source", "local_compute", fin * (P - 256))
            e.inc_l("vllm:prompt_tokens_by_source", "source", "local_cache_hit", fin * 256)
            e.inc_l("vllm:prompt_tokens_by_source", "source", "external_kv_transfer", 0.0)
            if gen:
                e.observe("vllm:inter_token_latency_seconds", itl_base, gen * (1 - f_stall))
                e.observe("vllm:inter_token_latency_seconds", 0.38, gen * f_stall)
                ttft = 0.8 + 0.015 * r
                itl_mean = itl_base * (1 - f_stall) + 0.38 * f_stall
                for name, v in [("vllm:time_to_first_token_seconds", ttft), ("vllm:request_queue_time_seconds", 0.006),
                                ("vllm:request_prefill_time_seconds", ttft - 0.006),
                                ("vllm:request_decode_time_seconds", itl_mean * OUT),
                                ("vllm:request_inference_time_seconds", ttft + itl_mean * OUT),
                                ("vllm:e2e_request_latency_seconds", ttft + itl_mean * OUT + 0.02),
                                ("vllm:request_time_per_output_token_seconds", itl_mean),
                                ("vllm:request_prompt_tokens", P), ("vllm:request_generation_tokens", OUT),
                                ("vllm:request_params_max_tokens", 4096), ("vllm:request_max_num_generation_tokens", OUT),
                                ("vllm:request_params_n", 1), ("vllm:request_prefill_kv_computed_tokens", P - 256)]:
                    e.observe(name, v, fin)
                e.observe("vllm:iteration_tokens_total", r, n_d)
                e.observe("vllm:iteration_tokens_total", 8192, n_p)
            e.gauges["vllm:num_requests_running"] = r
            e.gauges["vllm:num_requests_waiting"] = 0
            e.gauges["vllm:kv_cache_usage_perc"] = r * (P + OUT / 2) / pool
        if i < 0:
            prev = [(e.counters["vllm:prompt_tokens"], e.counters["vllm:generation_tokens"]) for e in engines]
            continue
        scrapes.append({"t": t + 0.18, "status": 200, "text": v1_text(vers, engines, cache)})
        devs = []
        for k in range(4):
            devs.append(device(k, "NVIDIA H20", 97871 * MiB, [(405 + k, f"VLLM::EngineCore_DP{k}", int(86.1 * GiB))]))
        gpu.append({"t": t + 0.3, "devices": devs})
        if i % 2 == 0:
            for k, e in enumerate(engines):
                g, p_ = e.counters["vllm:generation_tokens"], e.counters["vllm:prompt_tokens"]
                logs.append(stats_line(1, day, hms_of(t), k, (p_ - prev[k][0]) / 10, (g - prev[k][1]) / 10, run[k], 0,
                                       e.gauges["vllm:kv_cache_usage_perc"], 0.016))
                prev[k] = (p_, g)
    head = [f"(APIServer pid=1) INFO {day} 12:31:40 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.22.0",
            f"(APIServer pid=1) INFO {day} 12:31:40 [utils.py:233] non-default args: {{'model_tag': '{root}', 'model': '{root}', 'served_model_name': ['{served}'], 'data_parallel_size': 4}}",
            f"(APIServer pid=1) INFO {day} 12:31:49 [model.py:1582] Using max model len 40960"]
    for k in range(4):
        head.append(f"(EngineCore_DP{k} pid={405 + k}) INFO {day} 12:32:03 [core.py:114] Initializing a V1 LLM engine (v0.22.0) with config: model='{root}', dtype=torch.bfloat16, max_seq_len=40960, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=4, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name={served}, enable_prefix_caching=True, enable_chunked_prefill=True")
    for k in range(4):
        head.append(f"(EngineCore_DP{k} pid={405 + k}) INFO {day} 12:33:10 [gpu_worker.py:460] Available KV cache memory: 75.51 GiB")
        head.append(f"(EngineCore_DP{k} pid={405 + k}) INFO {day} 12:33:10 [kv_cache_utils.py:1733] GPU KV cache size: {pool:,} tokens")
    head.append(f"(APIServer pid=1) INFO {day} 12:33:52 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000")
    write_bundle(CASES / "a-dp4-engine0-overloaded", endpoint="http://127.0.0.1:8000", started_at=t0, interval_s=5.0,
                 notes="One /metrics endpoint of a data-parallel server (4 engines, engine label 0-3, one H20 each) "
                       "during a long-context evaluation run with 32 concurrent requests. Operator report: at the start "
                       "the engines had 8 running requests each; now most requests sit on engine 0 and two GPUs idle.",
                 scrapes=scrapes, server={"version": {"version": "0.22.0"},
                                          "models": models_body(served, root, 40960, 1779971632), "health": 200},
                 engine_args={"argv": ["vllm", "serve", root, "--served-model-name", served, "--data-parallel-size", "4"],
                              "args": {"model": root, "served-model-name": served, "data-parallel-size": 4}},
                 model_config=models.QWEN3_4B, gpu=gpu, logs="\n".join(head + logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_dashboard_kv_usage_no_data_rename():
    """production-stack PR#989: bundled Grafana panels query vllm:gpu_cache_usage_perc etc. -> No data."""
    import datetime as _dt
    import math
    vers = ("0.24.0",)
    served = "meta-llama/Llama-3.1-8B-Instruct"
    day = "07-01"
    t0 = _dt.datetime(2026, 7, 1, 9, 20, 0, tzinfo=_dt.timezone.utc).timestamp()
    n, step = 30, 4.0
    pool = 467_584
    e = Engine(labels={"engine": "0", "model_name": served}, created=t0 - 7200)
    cache = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
             "num_gpu_blocks": str(pool // 16), "num_gpu_blocks_override": "None", "num_cpu_blocks": "None",
             "kv_cache_memory_bytes": "None", "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
             "sliding_window": "None", "_block_size_resolved": "True", "user_specified_block_size": "False",
             "kv_sharing_fast_prefill": "False", "kv_offloading_backend": "native", "kv_offloading_size": "None",
             "mamba_cache_mode": "none", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
             "mamba_ssm_cache_dtype": "auto", "mamba_page_size_padded": "None"}
    for k in ["vllm:prompt_tokens", "vllm:generation_tokens", "vllm:num_preemptions", "vllm:prefix_cache_queries",
              "vllm:prefix_cache_hits", "vllm:prompt_tokens_cached", "vllm:external_prefix_cache_queries",
              "vllm:external_prefix_cache_hits", "vllm:corrupted_requests"]:
        e.counters[k] = 0.0
    scrapes, gpu, logs = [], [], []
    prev = (0.0, 0.0)
    P, HIT, OUT = 1850, 1024, 310
    for i in range(-900, n):  # the server has been serving for an hour before the capture
        t = t0 + step * i
        rps = 2.6 + 0.5 * math.sin(i / 40.0)
        fin = rps * step
        running = rps * (0.12 + OUT * 0.0165)
        e.inc("vllm:prompt_tokens", fin * P)
        e.inc("vllm:generation_tokens", fin * OUT)
        e.inc("vllm:prefix_cache_queries", fin * P)
        e.inc("vllm:prefix_cache_hits", fin * HIT)
        e.inc("vllm:prompt_tokens_cached", fin * HIT)
        e.inc_l("vllm:request_success", "finished_reason", "stop", fin * 0.96)
        e.inc_l("vllm:request_success", "finished_reason", "length", fin * 0.04)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_compute", fin * (P - HIT))
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_cache_hit", fin * HIT)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "external_kv_transfer", 0.0)
        e.inc_l("vllm:num_requests_waiting_by_reason", "reason", "capacity", 0.0)
        itl = 0.0148 + 0.00012 * running
        e.observe("vllm:inter_token_latency_seconds", itl, fin * OUT * 0.95)
        e.observe("vllm:inter_token_latency_seconds", itl * 2.2, fin * OUT * 0.05)
        for name, v in [("vllm:time_to_first_token_seconds", 0.092), ("vllm:request_queue_time_seconds", 0.003),
                        ("vllm:request_prefill_time_seconds", 0.085), ("vllm:request_decode_time_seconds", itl * OUT),
                        ("vllm:request_inference_time_seconds", 0.085 + itl * OUT),
                        ("vllm:e2e_request_latency_seconds", 0.095 + itl * OUT),
                        ("vllm:request_time_per_output_token_seconds", itl), ("vllm:request_prompt_tokens", P),
                        ("vllm:request_generation_tokens", OUT), ("vllm:request_params_max_tokens", 1024),
                        ("vllm:request_max_num_generation_tokens", OUT), ("vllm:request_params_n", 1),
                        ("vllm:request_prefill_kv_computed_tokens", P - HIT)]:
            e.observe(name, v, fin)
        e.observe("vllm:iteration_tokens_total", round(running), step / itl * 0.9)
        e.observe("vllm:iteration_tokens_total", 900, step / itl * 0.1)
        e.gauges["vllm:num_requests_running"] = round(running)
        e.gauges["vllm:num_requests_waiting"] = 0
        e.gauges["vllm:kv_cache_usage_perc"] = round(running) * (P + OUT / 2) / pool + 0.22  # + cached prefixes kept
        e.labelled[("vllm:num_requests_waiting_by_reason", "reason", "capacity")] = 0.0
        e.labelled[("vllm:num_requests_waiting_by_reason", "reason", "deferred")] = 0.0
        if i < 0:
            prev = (e.counters["vllm:prompt_tokens"], e.counters["vllm:generation_tokens"])
            continue
        scrapes.append({"t": t + 0.11, "status": 200, "text": v1_text(vers, [e], cache)})
        gpu.append({"t": t + 0.2, "devices": [device(0, "NVIDIA L40S", 46068 * MiB, [(188, "VLLM::EngineCore", int(40.9 * GiB))])]})
        if i % 3 == 2:
            g, p_ = e.counters["vllm:generation_tokens"], e.counters["vllm:prompt_tokens"]
            hit = e.counters["vllm:prefix_cache_hits"] / e.counters["vllm:prefix_cache_queries"]
            logs.append(stats_line(1, day, hms_of(t), 0, (p_ - prev[0]) / 12, (g - prev[1]) / 12,
                                   round(running), 0, e.gauges["vllm:kv_cache_usage_perc"], hit))
            prev = (p_, g)
    head = [f"(APIServer pid=1) INFO {day} 08:17:33 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.24.0",
            f"(APIServer pid=1) INFO {day} 08:17:33 [utils.py:233] non-default args: {{'model_tag': '{served}', 'host': '0.0.0.0', 'model': '{served}', 'max_model_len': 32768}}",
            f"(EngineCore pid=188) INFO {day} 08:18:02 [core.py:114] Initializing a V1 LLM engine (v0.24.0) with config: model='{served}', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True",
            f"(EngineCore pid=188) INFO {day} 08:18:41 [gpu_worker.py:508] Available KV cache memory: 28.54 GiB",
            f"(EngineCore pid=188) INFO {day} 08:18:41 [kv_cache_utils.py:2146] GPU KV cache size: {pool:,} tokens",
            f"(EngineCore pid=188) INFO {day} 08:18:41 [kv_cache_utils.py:2147] Maximum concurrency for 32,768 tokens per request: {pool / 32768:.2f}x",
            f"(APIServer pid=1) INFO {day} 08:19:20 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000"]
    write_bundle(CASES / "a-dashboard-kv-usage-no-data-rename", endpoint="http://vllm-llama-8b-engine-service.default:80",
                 started_at=t0, interval_s=step,
                 notes="Operator report after upgrading the engine image to vLLM 0.24.0 under the production-stack Helm "
                       "chart: the bundled Grafana dashboard shows 'No data' in the 'GPU KV cache usage' and 'Time per "
                       "output token' panels and 0 swapped requests; users have not complained. Captured to check "
                       "whether the KV cache is broken.",
                 scrapes=scrapes, server={"version": {"version": "0.24.0"},
                                          "models": models_body(served, served, 32768, 1782893960), "health": 200},
                 engine_args={"argv": ["vllm", "serve", served, "--host", "0.0.0.0", "--max-model-len", "32768"],
                              "args": {"model": served, "host": "0.0.0.0", "max-model-len": 32768}},
                 model_config=models.LLAMA31_8B, gpu=gpu, logs="\n".join(head + logs) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_runtime_oom_mistral_large_0_99():
    """vllm#13100: Mistral-Large-2407 GPTQ on one A100 80GB, V0 0.7.2, gmu 0.99: OOM under concurrent long prompts."""
    import datetime as _dt
    served = "TechxGenus/Mistral-Large-Instruct-2407-GPTQ"
    day = "02-11"
    t0 = _dt.datetime(2025, 2, 11, 8, 24, 50, tzinfo=_dt.timezone.utc).timestamp()
    pool = 4077 * 16
    e = v0_engine(served)
    for k in ["vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"]:
        e.counters[k] = 0.0
    cache = {"block_size": "16", "cache_dtype": "fp8_e4m3", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
             "enable_prefix_caching": "False", "gpu_memory_utilization": "0.99", "is_attention_free": "False",
             "num_cpu_blocks": "1489", "num_gpu_blocks": "4077", "num_gpu_blocks_override": "None",
             "sliding_window": "None", "swap_space_bytes": "4294967296"}
    # (running, waiting, kv usage, prompt tok, gen tok, finished) per 5 s; earlier traffic folded into the totals
    e.counters["vllm:prompt_tokens_total"] = 1_184_302
    e.counters["vllm:generation_tokens_total"] = 61_877
    e.labelled[("vllm:request_success_total", "finished_reason", "stop")] = 118
    e.labelled[("vllm:request_success_total", "finished_reason", "length")] = 4
    e.hists["vllm:time_to_first_token_seconds"].observe(4.8, 70)
    e.hists["vllm:time_to_first_token_seconds"].observe(9.1, 52)
    e.hists["vllm:time_per_output_token_seconds"].observe(0.036, 58_000)
    e.hists["vllm:time_per_output_token_seconds"].observe(0.41, 3_755)
    e.hists["vllm:e2e_request_latency_seconds"].observe(24.0, 122)
    plan = [(2, 0, 0.31, 0, 66, 0), (2, 0, 0.32, 0, 67, 0), (3, 0, 0.47, 10240, 58, 0), (3, 0, 0.48, 0, 94, 0),
            (3, 0, 0.49, 0, 95, 0), (2, 0, 0.33, 0, 81, 1), (3, 0, 0.49, 11088, 52, 0), (3, 0, 0.50, 0, 93, 0),
            (3, 0, 0.51, 0, 92, 0), (4, 1, 0.52, 0, 90, 0), (4, 1, 0.53, 0, 88, 0), (4, 1, 0.53, 0, 71, 0)]
    scrapes, logs = [], []
    for i, (r, w, kv, pt, gt, fin) in enumerate(plan):
        t = t0 + 5 * i
        e.counters["vllm:prompt_tokens_total"] += pt
        e.counters["vllm:generation_tokens_total"] += gt
        if fin:
            e.labelled[("vllm:request_success_total", "finished_reason", "stop")] += fin
            e.hists["vllm:e2e_request_latency_seconds"].observe(31.0, fin)
        if pt:
            e.hists["vllm:time_to_first_token_seconds"].observe(8.7 if pt > 11000 else 7.9, 1)
        e.hists["vllm:time_per_output_token_seconds"].observe(0.037, gt * 0.9 if not pt else gt * 0.7)
        e.hists["vllm:time_per_output_token_seconds"].observe(0.44 if not pt else 3.9, gt * 0.1 if not pt else gt * 0.3)
        e.gauges = {"vllm:num_requests_running": r, "vllm:num_requests_waiting": w, "vllm:num_requests_swapped": 0,
                    "vllm:gpu_cache_usage_perc": kv, "vllm:cpu_cache_usage_perc": 0.0}
        scrapes.append({"t": t + 0.3, "status": 200, "text": v0_text(e, cache)})
        logs.append(f"vllm  | INFO {day} {hms_of(t)} metrics.py:455] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, Running: {r} reqs, Swapped: 0 reqs, Pending: {w} reqs, GPU KV cache usage: {kv * 100:.1f}%, CPU KV cache usage: 0.0%.")
    # 08:25:49: two ~10.8k-token prompts scheduled together (no chunked prefill at 25000 tokens) -> OOM
    tc = t0 + 59
    scrapes.append({"t": tc + 1.3, "status": 200, "text": v0_text(e, cache)})
    scrapes += [prom_error(tc + 6.3, 8080), prom_error(tc + 11.3, 8080)]
    err = f"vllm  | ERROR {day} 08:25:49 serving_chat.py:661]"
    crash = [f"vllm  | INFO {day} 08:25:46 engine.py:275] Added request chatcmpl-1c4e2b0f7a9d4e33b51c2e6a1f0d8c27.",
             f"vllm  | INFO {day} 08:25:46 engine.py:275] Added request chatcmpl-93d7f41a06c84b8f9e2d5b7c3a1e4f60.",
             f"{err} Error in chat completion stream generator.",
             f"{err} Traceback (most recent call last):",
             f"{err}   File \"/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_chat.py\", line 335, in chat_completion_stream_generator",
             f"{err}     async for res in result_generator:",
             f"{err}   File \"/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py\", line 95, in forward",
             f"{err}     x = self.act_fn(gate_up)",
             f"{err}            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             f"{err}   File \"/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py\", line 1747, in _call_impl",
             f"{err}     return forward_call(*args, **kwargs)",
             f"{err}            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             f"{err}   File \"/usr/local/lib/python3.12/dist-packages/vllm/model_executor/custom_op.py\", line 25, in forward",
             f"{err}     return self._forward_method(*args, **kwargs)",
             f"{err}            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             f"{err}   File \"/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/activation.py\", line 81, in forward_cuda",
             f"{err}     out = torch.empty(output_shape, dtype=x.dtype, device=x.device)",
             f"{err}           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             f"{err} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 0 has a total capacity of 79.15 GiB of which 687.31 MiB is free. Process 2201874 has 78.47 GiB memory in use. Of the allocated memory 76.52 GiB is allocated by PyTorch, with 640.00 MiB allocated in private pools (e.g., CUDA Graphs), and 1.09 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
             f"vllm  | ERROR {day} 08:25:49 async_llm_engine.py:68] Engine background task failed",
             f"vllm  | ERROR {day} 08:25:49 async_llm_engine.py:68] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB.",
             f"vllm  | CRITICAL {day} 08:25:51 launcher.py:101] AsyncLLMEngine has failed, terminating server process",
             "vllm  | INFO:     Shutting down",
             "vllm exited with code 0"]
    head = [f"vllm  | INFO {day} 07:58:12 api_server.py:840] vLLM API server version 0.7.2",
            f"vllm  | INFO {day} 07:58:12 api_server.py:841] args: Namespace(subparser=None, host=None, port=8000, model='{served}', disable_frontend_multiprocessing=True, max_model_len=25000, max_num_seqs=64, gpu_memory_utilization=0.99, kv_cache_dtype='fp8_e4m3', enforce_eager=False, enable_chunked_prefill=None, enable_prefix_caching=None, swap_space=4)",
            f"vllm  | INFO {day} 07:58:20 gptq_marlin.py:112] The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel.",
            f"vllm  | INFO {day} 07:58:20 config.py:1014] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
            f"vllm  | INFO {day} 07:58:21 llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='{served}', speculative_config=None, tokenizer='{served}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=25000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=False, kv_cache_dtype=fp8_e4m3,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), seed=0, served_model_name={served}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":64}}, use_cached_outputs=False,",
            f"vllm  | INFO {day} 07:58:23 cuda.py:161] Using FlashInfer backend.",
            f"vllm  | INFO {day} 08:03:40 model_runner.py:1115] Loading model weights took 63.4107 GB",
            f"vllm  | INFO {day} 08:03:58 worker.py:266] Memory profiling takes 17.84 seconds",
            f"vllm  | INFO {day} 08:03:58 worker.py:266] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.99) = 78.36GiB",
            f"vllm  | INFO {day} 08:03:58 worker.py:266] model weights take 63.41GiB; non_torch_memory takes 0.29GiB; PyTorch activation peak memory takes 3.71GiB; the rest of the memory reserved for KV Cache is 10.95GiB.",
            f"vllm  | INFO {day} 08:03:58 executor_base.py:110] # cuda blocks: 4077, # CPU blocks: 1489",
            f"vllm  | INFO {day} 08:03:58 executor_base.py:115] Maximum concurrency for 25000 tokens per request: {pool / 25000:.2f}x",
            f"vllm  | INFO {day} 08:04:03 model_runner.py:1434] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
            f"vllm  | INFO {day} 08:04:29 model_runner.py:1562] Graph capturing finished in 26 secs, took 0.64 GiB",
            f"vllm  | INFO {day} 08:04:29 llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 48.97 seconds",
            f"vllm  | INFO {day} 08:04:31 launcher.py:29] Available routes are:",
            "vllm  | INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"]
    gpu = []
    for i in range(len(plan)):
        used = int(76.9 * GiB) if i < 11 else int(77.3 * GiB)
        gpu.append({"t": t0 + 5 * i + 0.4, "devices": [device(0, "NVIDIA A100-SXM4-80GB", 81920 * MiB, [(2201874, "python3", used)])]})
    gpu.append({"t": tc + 1.4, "devices": [device(0, "NVIDIA A100-SXM4-80GB", 81920 * MiB, [(2201874, "python3", int(78.47 * GiB))])]})
    args = {"model": served, "gpu-memory-utilization": 0.99, "disable-frontend-multiprocessing": True, "max_model_len": 25000,
            "max-num-seqs": 64, "kv-cache-dtype": "fp8_e4m3"}
    argv = ["vllm", "serve", "--model", served, "--gpu-memory-utilization", "0.99", "--disable-frontend-multiprocessing",
            "--max_model_len", "25000", "--max-num-seqs", "64", "--kv-cache-dtype", "fp8_e4m3"]
    write_bundle(CASES / "a-runtime-oom-mistral-large-0-99", endpoint="http://localhost:8080", started_at=t0, interval_s=5.0,
                 notes="docker compose service 'vllm' (host port 8080 -> 8000), env VLLM_USE_V1=0, "
                       "VLLM_ATTENTION_BACKEND=FLASHINFER, CUDA_LAUNCH_BLOCKING=1. Captured while several users sent long "
                       "chat contexts at the same time; the server died during the capture.",
                 scrapes=scrapes, server={"version": {"version": "0.7.2"}, "models": None, "health": None},
                 engine_args={"argv": argv, "args": args}, model_config=models.MISTRAL_LARGE_2407_GPTQ, gpu=gpu,
                 logs="\n".join(head + logs + crash) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_cudagraph_estimate_under_reserves_nvfp4():
    """vllm#57475: profiled CUDA-graph estimate too small at gmu 0.98 on a 24 GB laptop GPU; 0.97 boots."""
    d = "09-18"
    model = "/models/Qwen3.8-27B-NVFP4"
    E = "(EngineCore pid=4417)"
    L = [f"(APIServer pid=4302) INFO {d} 21:02:11 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.29.1rc1.dev339+gda9888462",
         f"(APIServer pid=4302) INFO {d} 21:02:11 [utils.py:233] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'trust_remote_code': True, 'dtype': 'bfloat16', 'max_model_len': 124000, 'gpu_memory_utilization': 0.98, 'kv_cache_dtype': 'nvfp4', 'enable_prefix_caching': True, 'max_num_batched_tokens': 2048, 'max_num_seqs': 1}}",
         f"{E} INFO {d} 21:02:30 [core.py:114] Initializing a V1 LLM engine (v0.29.1rc1.dev339+gda9888462) with config: model='{model}', dtype=torch.bfloat16, max_seq_len=124000, tensor_parallel_size=1, quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=nvfp4, enable_prefix_caching=True, enable_chunked_prefill=True",
         f"{E} INFO {d} 21:02:31 [cuda.py:367] Using FLASHINFER attention backend (VLLM_ATTENTION_BACKEND=FLASHINFER).",
         f"{E} INFO {d} 21:03:05 [gpu_model_runner.py:5405] Model loading took 16.86 GiB memory and 31.842210 seconds",
         f"{E} INFO {d} 21:03:19 [gpu_model_runner.py:6681] Profiling CUDA graph memory: PIECEWISE=2 (largest=2), FULL=1 (largest=1)",
         f"{E} INFO {d} 21:03:20 [gpu_model_runner.py:6806] Estimated CUDA graph memory: 0.31 GiB total",
         f"{E} INFO {d} 21:03:20 [gpu_worker.py:642] Available KV cache memory: 2.97 GiB",
         f"{E} INFO {d} 21:03:20 [gpu_worker.py:657] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9800 is equivalent to --gpu-memory-utilization=0.9661 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.9939. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
         f"{E} INFO {d} 21:03:20 [kv_cache_utils.py:2146] GPU KV cache size: 150,745 tokens",
         f"{E} INFO {d} 21:03:20 [kv_cache_utils.py:2147] Maximum concurrency for 124,000 tokens per request: 1.22x",
         "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 2/2 [00:00<00:00,  3.12it/s]",
         f"{E} INFO {d} 21:03:21 [gpu_model_runner.py:6582] Graph capturing finished in 1 secs, took 0.46 GiB",
         f"{E} INFO {d} 21:03:21 [gpu_worker.py:619] CUDA graph pool memory: 0.46 GiB (actual), 0.31 GiB (estimated), difference: 0.15 GiB (48.4%).",
         "Capturing CUDA graphs (decode, FULL):   0%|          | 0/1 [00:00<?, ?it/s]",
         f"{E} ERROR {d} 21:03:21 [core.py:1165] EngineCore failed to start.",
         f"{E} ERROR {d} 21:03:21 [core.py:1165] Traceback (most recent call last):",
         f"{E} ERROR {d} 21:03:21 [core.py:1165]   File \"/opt/vllm/vllm/v1/worker/gpu_worker.py\", line 731, in compile_or_warm_up_model",
         f"{E} ERROR {d} 21:03:21 [core.py:1165]     cuda_graph_memory_bytes = self.model_runner.capture_model()",
         f"{E} ERROR {d} 21:03:21 [core.py:1165] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of which 120.88 MiB is free. Including non-PyTorch memory, this process has 22.23 GiB memory in use. Of the allocated memory 21.58 GiB is allocated by PyTorch, with 460.00 MiB allocated in private pools (e.g., CUDA Graphs), and 97.19 MiB is reserved by PyTorch but unallocated. If this problem persists, try setting VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0",
         f"(APIServer pid=4302) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    import datetime as _dt
    t = _dt.datetime(2026, 9, 18, 21, 3, 21, tzinfo=_dt.timezone.utc).timestamp()
    devs = [device(0, "NVIDIA GeForce RTX 5090 Laptop GPU", 24463 * MiB, [(4417, "VLLM::EngineCore", int(22.23 * GiB))])]
    args = {"model": model, "kv-cache-dtype": "nvfp4", "gpu-memory-utilization": 0.98, "max-model-len": 124000, "max-num-seqs": 1,
            "max-num-batched-tokens": 2048, "enable-prefix-caching": True, "trust-remote-code": True, "dtype": "bfloat16"}
    argv = ["vllm", "serve", model, "--kv-cache-dtype", "nvfp4", "--gpu-memory-utilization", "0.98", "--max-model-len", "124000",
            "--max-num-seqs", "1", "--max-num-batched-tokens", "2048", "--enable-prefix-caching", "--trust-remote-code",
            "--dtype", "bfloat16"]
    write_bundle(CASES / "a-cudagraph-estimate-under-reserves-nvfp4", endpoint="http://127.0.0.1:8000", started_at=t - 10,
                 interval_s=5.0,
                 notes="Single-GPU start-up failure on a 24 GB RTX 5090 Laptop GPU (VLLM_ATTENTION_BACKEND=FLASHINFER). "
                       "The same command with --gpu-memory-utilization 0.97 boots and serves.",
                 scrapes=[prom_error(t - 5), prom_error(t + 1)], engine_args={"argv": argv, "args": args},
                 gpu=[{"t": t, "devices": devs}], logs="\n".join(L) + "\n")


# --------------------------------------------------------------------------------------------
@case
def a_prefix_hit_tile_reads_dashes_rename():
    """niklasfrick/spark-dashboard PR#14: the Prefix Hit tile queried vllm:gpu_prefix_cache_hit_rate -> '-- %'."""
    import datetime as _dt
    import math
    vers = ("0.18.0", "0.24.0")
    served = "meta-llama/Llama-3.1-8B-Instruct"
    day = "04-23"
    t0 = _dt.datetime(2026, 4, 23, 19, 5, 0, tzinfo=_dt.timezone.utc).timestamp()
    n, step = 40, 3.0
    pool = 573_440
    e = Engine(labels={"engine": "0", "model_name": served}, created=t0 - 5400)
    cache = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.7",
             "num_gpu_blocks": str(pool // 16), "num_gpu_blocks_override": "None", "num_cpu_blocks": "None",
             "kv_cache_memory_bytes": "None", "is_attention_free": "False", "prefix_caching_hash_algo": "sha256",
             "sliding_window": "None", "_block_size_resolved": "True", "user_specified_block_size": "False",
             "kv_sharing_fast_prefill": "False", "kv_offloading_backend": "native", "kv_offloading_size": "None",
             "mamba_cache_mode": "none", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
             "mamba_ssm_cache_dtype": "auto", "mamba_page_size_padded": "None", "calculate_kv_scales": "False"}
    for k in ["vllm:prompt_tokens", "vllm:generation_tokens", "vllm:num_preemptions", "vllm:prefix_cache_queries",
              "vllm:prefix_cache_hits", "vllm:prompt_tokens_cached", "vllm:external_prefix_cache_queries",
              "vllm:external_prefix_cache_hits"]:
        e.counters[k] = 0.0
    scrapes, logs = [], []
    prev = (0.0, 0.0)
    for i in range(-1800, n):  # an agent session: one conversation re-sent turn after turn
        t = t0 + step * i
        turn_ctx = 6000 + 40 * ((i + 1800) % 150)  # the conversation grows, then a new session starts
        new_tokens = 220
        busy = (i % 4) != 3
        fin = 0.27 if busy else 0.0
        e.inc("vllm:prompt_tokens", fin * turn_ctx)
        e.inc("vllm:prefix_cache_queries", fin * turn_ctx)
        e.inc("vllm:prefix_cache_hits", fin * (turn_ctx - new_tokens - 16))
        e.inc("vllm:prompt_tokens_cached", fin * (turn_ctx - new_tokens - 16))
        e.inc("vllm:generation_tokens", step * 38.0 if busy else 0.0)
        e.inc_l("vllm:request_success", "finished_reason", "stop", fin)
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_compute", fin * (new_tokens + 16))
        e.inc_l("vllm:prompt_tokens_by_source", "source", "local_cache_hit", fin * (turn_ctx - new_tokens - 16))
        e.inc_l("vllm:prompt_tokens_by_source", "source", "external_kv_transfer", 0.0)
        if busy:
            e.observe("vllm:inter_token_latency_seconds", 0.0262, step * 38.0)
            for name, v in [("vllm:time_to_first_token_seconds", 0.11), ("vllm:request_queue_time_seconds", 0.002),
                            ("vllm:request_prefill_time_seconds", 0.1), ("vllm:request_decode_time_seconds", 3.6),
                            ("vllm:request_inference_time_seconds", 3.7), ("vllm:e2e_request_latency_seconds", 3.72),
                            ("vllm:request_time_per_output_token_seconds", 0.0262), ("vllm:request_prompt_tokens", turn_ctx),
                            ("vllm:request_generation_tokens", 140), ("vllm:request_params_max_tokens", 4096),
                            ("vllm:request_max_num_generation_tokens", 140), ("vllm:request_params_n", 1),
                            ("vllm:request_prefill_kv_computed_tokens", new_tokens + 16)]:
                e.observe(name, v, fin)
            e.observe("vllm:iteration_tokens_total", 1, step / 0.0262)
        e.gauges["vllm:num_requests_running"] = 1 if busy else 0
        e.gauges["vllm:num_requests_waiting"] = 0
        e.gauges["vllm:kv_cache_usage_perc"] = (turn_ctx if busy else 0) / pool
        if i < 0:
            prev = (e.counters["vllm:prompt_tokens"], e.counters["vllm:generation_tokens"])
            continue
        scrapes.append({"t": t + 0.07, "status": 200, "text": v1_text(vers, [e], cache)})
        if i % 4 == 3:
            g, p_ = e.counters["vllm:generation_tokens"], e.counters["vllm:prompt_tokens"]
            hit = e.counters["vllm:prefix_cache_hits"] / e.counters["vllm:prefix_cache_queries"]
            logs.append(stats_line(1, day, hms_of(t), 0, (p_ - prev[0]) / 12, (g - prev[1]) / 12,
                                   int(e.gauges["vllm:num_requests_running"]), 0, e.gauges["vllm:kv_cache_usage_perc"], hit))
            prev = (p_, g)
    head = [f"(APIServer pid=1) INFO {day} 17:35:02 [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.19.1",
            f"(APIServer pid=1) INFO {day} 17:35:02 [utils.py:233] non-default args: {{'model_tag': '{served}', 'host': '0.0.0.0', 'model': '{served}', 'max_model_len': 65536, 'gpu_memory_utilization': 0.7}}",
            f"(EngineCore pid=97) INFO {day} 17:36:40 [gpu_worker.py:460] Available KV cache memory: 70.00 GiB",
            f"(EngineCore pid=97) INFO {day} 17:36:40 [kv_cache_utils.py:1733] GPU KV cache size: {pool:,} tokens",
            f"(APIServer pid=1) INFO {day} 17:37:31 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000"]
    write_bundle(CASES / "a-prefix-hit-tile-reads-dashes-rename", endpoint="http://spark-01.local:8000", started_at=t0,
                 interval_s=step,
                 notes="Single-user agent workload on a DGX Spark (GB10). Operator report: the dashboard's 'Prefix Hit' "
                       "tile has never shown a value ('-- %') although prefix caching is on; is caching broken?",
                 scrapes=scrapes, server={"version": {"version": "0.19.1"},
                                          "models": models_body(served, served, 65536, 1776965851), "health": 200},
                 engine_args={"argv": ["vllm", "serve", served, "--host", "0.0.0.0", "--max-model-len", "65536",
                                       "--gpu-memory-utilization", "0.7"],
                              "args": {"model": served, "host": "0.0.0.0", "max-model-len": 65536, "gpu-memory-utilization": 0.7}},
                 model_config=models.LLAMA31_8B, logs="\n".join(head + logs) + "\n")


def main(argv: list[str]) -> None:
    names = argv or list(BUILDERS)
    for n in names:
        BUILDERS[n]()
        print("built", n)


if __name__ == "__main__":
    main(sys.argv[1:])
