"""Builders of the zzp-* bundles (writer zzp, round 15). Deterministic (seeded), no wall clock.
Engine simulation and writer copied from cases/_tools/zp/gen.py.

    /work/main/.venv/bin/python cases/_tools/zzp/cases.py [case-id ...]
"""

from __future__ import annotations

import calendar
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Engine, Req, stamp, write_bundle  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3
MiB = 1024 ** 2


def epoch(y, mo, d, h=0, mi=0, s=0):
    return float(calendar.timegm((y, mo, d, h, mi, s)))


def times(t0, t1, step):
    n = int(round((t1 - t0) / step))
    return [t0 + i * step for i in range(n + 1)]


def out_dir(cid):
    return ROOT / "cases" / cid / "bundle"


def refused(t, ep):
    return {"t": t, "error": f"GET {ep}/metrics: connection refused ([Errno 111] Connection refused)"}


# families a V1 release of the 0.11 line does not serve (added later)
NOT_IN_011 = ("vllm:num_requests_waiting_by_reason", "vllm:engine_sleep_state", "vllm:prompt_tokens_by_source",
              "vllm:prompt_tokens_cached", "vllm:request_prefill_kv_computed_tokens",
              "vllm:external_prefix_cache_queries", "vllm:external_prefix_cache_hits")


def drop_families(text, names):
    keep = []
    for line in text.split("\n"):
        body = line[7:] if line.startswith("# HELP ") or line.startswith("# TYPE ") else line
        name = body.split(" ", 1)[0].split("{", 1)[0]
        if any(name == n or name.startswith(n + "_") for n in names):
            continue
        keep.append(line)
    return "\n".join(keep)


# --------------------------------------------------------------------------- model configs

OPT125M = {
    "_name_or_path": "facebook/opt-125m", "_remove_final_layer_norm": False, "activation_dropout": 0.0,
    "activation_function": "relu", "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 2, "do_layer_norm_before": True, "dropout": 0.1, "eos_token_id": 2, "ffn_dim": 3072,
    "hidden_size": 768, "init_std": 0.02, "layerdrop": 0.0, "max_position_embeddings": 2048,
    "model_type": "opt", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
    "prefix": "</s>", "torch_dtype": "float16", "transformers_version": "4.21.0.dev0", "use_cache": True,
    "vocab_size": 50272, "word_embed_proj_dim": 768}

QWEN25VL_32B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 5120, "image_token_id": 151655, "initializer_range": 0.02,
    "intermediate_size": 27648, "max_position_embeddings": 128000, "max_window_layers": 64,
    "model_type": "qwen2_5_vl", "num_attention_heads": 40, "num_hidden_layers": 64, "num_key_value_heads": 8,
    "pad_token_id": 151643, "rms_norm_eps": 1e-06,
    "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"},
    "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.49.0", "use_cache": True, "use_sliding_window": False, "video_token_id": 151656,
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3456,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 5120, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2,
                      "temporal_patch_size": 2},
    "vision_start_token_id": 151652, "vision_end_token_id": 151653, "vision_token_id": 151654,
    "vocab_size": 152064}

INTERNVL3_78B = {
    "architectures": ["InternVLChatModel"], "auto_map": {
        "AutoConfig": "configuration_internvl_chat.InternVLChatConfig",
        "AutoModel": "modeling_internvl_chat.InternVLChatModel",
        "AutoModelForCausalLM": "modeling_internvl_chat.InternVLChatModel"},
    "downsample_ratio": 0.5, "dynamic_image_size": True, "force_image_size": 448,
    "llm_config": {"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 8192,
                   "intermediate_size": 29568, "max_position_embeddings": 32768, "max_window_layers": 70,
                   "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80,
                   "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
                   "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                   "use_sliding_window": False, "vocab_size": 151674},
    "max_dynamic_patch": 12, "min_dynamic_patch": 1, "model_type": "internvl_chat", "ps_version": "v2",
    "select_layer": -1, "template": "internvl2_5", "torch_dtype": "bfloat16", "use_thumbnail": True,
    "vision_config": {"architectures": ["InternVisionModel"], "hidden_size": 3200, "image_size": 448,
                      "intermediate_size": 12800, "model_type": "intern_vit_6b", "num_attention_heads": 25,
                      "num_hidden_layers": 45, "patch_size": 14, "qk_normalization": True,
                      "torch_dtype": "bfloat16"}}


# --------------------------------------------------------------------------- case: healthy OPT-125m (dev)


def case_opt():
    cid = "zzp-opt125m-20gb-reserved-healthy"
    rng = random.Random(4723)
    model = "facebook/opt-125m"
    mml = 2048
    cap = 22.49 * GiB                   # torch capacity of an A10G
    budget = 0.9 * cap
    weights = 0.2389 * 1e9
    act = 0.37 * GiB
    per_block = 12 * 2 * 768 * 2 * 16    # 36 KiB per token x 16
    nb = int((budget - weights - act) // per_block)
    t_start = epoch(2024, 5, 9, 11, 12, 0)
    t0 = epoch(2024, 5, 9, 11, 20, 0)
    t1 = t0 + 300.0
    reqs = []
    t = t_start + 30
    i = 0
    while t < t1:
        t += rng.expovariate(0.5)
        p = rng.randint(100, 600)
        o = rng.randint(20, 256)
        reqs.append(Req(rid=f"cmpl-{i}", arrive=t, prompt=p, out=o, max_tokens=256,
                        reason="length" if o == 256 else "stop"))
        i += 1
    ci = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": str(int(4 * GiB // per_block)),
          "num_gpu_blocks": str(nb), "num_gpu_blocks_override": "None", "sliding_window": "None",
          "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="0.4.2", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.0065, step_b=0.00004, step_c=2.0e-6,
                 cache_info=ci, t_created=t_start, chunked=False, log_every=5.0, log_style="v0")
    eng.run(reqs, t_start + 30, t1, times(t0, t1, 5.0), log_from=t_start + 28)
    st = t_start - 40
    startup = [
        f"INFO {stamp(st)} api_server.py:151] vLLM API server version 0.4.2",
        f"INFO {stamp(st)} api_server.py:152] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='facebook/opt-125m', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=5, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='auto', image_input_type=None, image_token_id=None, image_input_shape=None, image_feature_size=None, scheduler_delay_factor=0.0, enable_chunked_prefill=False, speculative_model=None, num_speculative_tokens=None, speculative_max_model_len=None, model_loader_extra_config=None, engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
        f"INFO {stamp(st + 2)} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='facebook/opt-125m', speculative_config=None, tokenizer='facebook/opt-125m', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name=facebook/opt-125m)",
        f"INFO {stamp(st + 5)} weight_utils.py:199] Using model weights format ['*.bin']",
        f"INFO {stamp(st + 7)} model_runner.py:175] Loading model weights took 0.2389 GB",
        f"INFO {stamp(st + 8)} gpu_executor.py:114] # GPU blocks: {nb}, # CPU blocks: {ci['num_cpu_blocks']}",
        f"INFO {stamp(st + 9)} model_runner.py:937] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 9)} model_runner.py:941] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(st + 15)} model_runner.py:1017] Graph capturing finished in 6 secs.",
        f"INFO {stamp(st + 16)} serving_chat.py:388] Using default chat template:",
        "INFO:     Started server process [2214]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 23_028 * MiB

    def gpu(t):
        proc = int(budget) + 470 * MiB       # pool + weights + CUDA context + graphs
        return [{"index": 0, "name": "NVIDIA A10G", "memory_total": total, "memory_used": proc + 260 * MiB,
                 "processes": [{"pid": 2214, "name": "python3", "used_memory": proc}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://localhost:8000",
                 notes="Developer box: vLLM 0.4.2 OpenAI server with facebook/opt-125m on one A10G, default flags. "
                       "Operator question: nvidia-smi shows ~20 GB reserved for a 125M model (Hugging Face used 568 MB) - "
                       "is something wrong?",
                 version="0.4.2", served=model, root=model, mml=mml,
                 engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model],
                              "args": {"model": model}},
                 model_config=OPT125M, startup_logs=startup, gpu=gpu)
    return cid


# --------------------------------------------------------------------------- case: Qwen2.5-VL runtime OOM


def case_vl():
    cid = "zzp-vl-image-burst-runtime-oom"
    rng = random.Random(27466)
    model = "Qwen/Qwen2.5-VL-32B-Instruct"
    served = "qwen-vl"
    mml = 16384
    per_block = 64 * 8 * 128 * 2 * 2 * 16
    nb = int(6.28 * GiB // per_block)          # 1607
    t_start = epoch(2025, 10, 24, 1, 23, 30)
    t0 = epoch(2025, 10, 24, 1, 23, 30)
    t_crash = epoch(2025, 10, 24, 1, 26, 57)
    t1 = t0 + 600.0
    reqs = []
    t = t_start + 20
    i = 0
    while t < t_crash:
        rate = 1.5 if t < t_crash - 90 else 4.0
        t += rng.expovariate(rate)
        p = rng.randint(2000, 9000) + 880
        o = rng.randint(60, 400)
        reqs.append(Req(rid=f"chatcmpl-{rng.getrandbits(128):032x}", arrive=t, prompt=p, out=o, max_tokens=1024,
                        reason="stop"))
        i += 1
    ci = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
          "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
          "swap_space": "4", "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="v1", model_name=served, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=32, mnbt=8192, step_a=0.045, step_b=0.0011, step_c=0.00011,
                 cache_info=ci, t_created=t_start, chunked=True, log_every=10.0, log_style="v1",
                 log_prefix="(APIServer pid=8201) ", preempt_log=False)
    st = times(t0, t1, 10.0)
    live = [x for x in st if x < t_crash]
    eng.run(reqs, t_start + 20, t_crash, live, log_from=t_start + 20)
    for s in eng.scrapes:
        s["text"] = drop_families(s["text"], NOT_IN_011)
    ep = "http://127.0.0.1:8000"
    eng.scrapes = [s for s in eng.scrapes if s["t"] >= t0]
    # scrapes before the server was up
    pre = [refused(x, ep) for x in st if x < t_start + 20]
    eng.scrapes = pre + [s for s in eng.scrapes if s["t"] >= t_start + 20] + \
        [refused(x, ep) for x in st if x >= t_crash]
    L = "(EngineCore_DP0 pid=8402) "
    s0 = epoch(2025, 10, 24, 1, 21, 55)
    startup = [
        f"(APIServer pid=8201) INFO {stamp(s0)} [api_server.py:1839] vLLM API server version 0.11.0",
        f"(APIServer pid=8201) INFO {stamp(s0)} [utils.py:233] non-default args: {{'model_tag': '/models/Qwen2.5-VL-32B-Instruct', 'host': '0.0.0.0', 'model': '/models/Qwen2.5-VL-32B-Instruct', 'max_model_len': 16384, 'served_model_name': ['qwen-vl'], 'max_num_seqs': 32}}",
        f"(APIServer pid=8201) INFO {stamp(s0 + 6)} [model.py:547] Resolved architecture: Qwen2_5_VLForConditionalGeneration",
        f"(APIServer pid=8201) INFO {stamp(s0 + 6)} [model.py:1510] Using max model len 16384",
        f"(APIServer pid=8201) INFO {stamp(s0 + 6)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"{L}INFO {stamp(s0 + 12)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/Qwen2.5-VL-32B-Instruct', speculative_config=None, tokenizer='/models/Qwen2.5-VL-32B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=qwen-vl, enable_prefix_caching=True, chunked_prefill_enabled=True",
        f"{L}INFO {stamp(s0 + 16)} [gpu_model_runner.py:2602] Starting to load model /models/Qwen2.5-VL-32B-Instruct...",
        f"{L}INFO {stamp(s0 + 17)} [cuda.py:366] Using Flash Attention backend on V1 engine.",
        f"{L}INFO 10-24 01:22:27 [default_loader.py:267] Loading weights took 14.57 seconds",
        f"{L}INFO 10-24 01:22:28 [gpu_model_runner.py:2653] Model loading took 62.6327 GiB and 14.898300 seconds",
        f"{L}INFO 10-24 01:22:28 [gpu_model_runner.py:3344] Encoder cache will be initialized with a budget of 153600 tokens, and profiled with 1 video items of the maximum feature size.",
        f"{L}INFO 10-24 01:22:54 [backends.py:548] Using cache directory: /root/.cache/vllm/torch_compile_cache/6defc64fe9/rank_0_0/backbone for vLLM's torch.compile",
        f"{L}INFO 10-24 01:22:54 [backends.py:559] Dynamo bytecode transform time: 13.42 s",
        f"{L}INFO 10-24 01:23:00 [backends.py:164] Directly load the compiled graph(s) for dynamic shape from the cache, took 5.506 s",
        f"{L}INFO 10-24 01:23:11 [monitor.py:34] torch.compile takes 13.42 s in total",
        f"{L}INFO 10-24 01:23:12 [gpu_worker.py:298] Available KV cache memory: 6.28 GiB",
        f"{L}INFO 10-24 01:23:12 [kv_cache_utils.py:1087] GPU KV cache size: {nb * 16:,} tokens",
        f"{L}INFO 10-24 01:23:12 [kv_cache_utils.py:1091] Maximum concurrency for 16,384 tokens per request: {nb * 16 / mml:.2f}x",
        f"{L}INFO 10-24 01:23:24 [gpu_model_runner.py:3480] Graph capturing finished in 12 secs, took 0.16 GiB",
        f"{L}INFO 10-24 01:23:24 [core.py:210] init engine (profile, create kv cache, warmup model) took 55.81 seconds",
        f"(APIServer pid=8201) INFO 10-24 01:23:26 [api_server.py:1634] Supported_tasks: ['generate']",
        f"(APIServer pid=8201) INFO 10-24 01:23:26 [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
        "(APIServer pid=8201) INFO:     Started server process [8201]",
        "(APIServer pid=8201) INFO:     Waiting for application startup.",
        "(APIServer pid=8201) INFO:     Application startup complete.",
    ]
    ts = "10-24 01:26:57"
    E = f"{L}ERROR {ts} [core.py:710] "
    crash = [
        f"{L}ERROR {ts} [dump_input.py:69] Dumping input data for V1 LLM engine (v0.11.0) with config: model='/models/Qwen2.5-VL-32B-Instruct', served_model_name=qwen-vl, max_seq_len=16384, enable_prefix_caching=True, chunked_prefill_enabled=True, compilation_config={{\"level\":3,\"use_cudagraph\":true,\"max_capture_size\":512}}, ",
        f"{L}ERROR {ts} [dump_input.py:76] Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[NewRequestData(req_id=chatcmpl-32e7bd3f616e45f0a1e4a877c0ddccea,prompt_token_ids_len=8899,mm_features=[MultiModalFeatureSpec(data={{'image_grid_thw': MultiModalFieldElem(modality='image', key='image_grid_thw', data=tensor([ 1, 44, 80]), field=MultiModalBatchedField()), ...}})], ...)], num_scheduled_tokens={{...}}, total_num_scheduled_tokens=8192, ...)",
        f"{E}EngineCore encountered a fatal error.",
        f"{E}Traceback (most recent call last):",
        f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 701, in run_engine_core",
        f"{E}    engine_core.run_busy_loop()",
        f"{E}  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 2401, in execute_model",
        f"{E}    self._execute_mm_encoder(scheduler_output)",
        f"{E}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 960.00 MiB. GPU 0 has a total capacity of 79.14 GiB of which 712.75 MiB is free. Process 854401 has 78.43 GiB memory in use. Of the allocated memory 74.06 GiB is allocated by PyTorch, with 159.88 MiB allocated in private pools (e.g., CUDA Graphs), and 2.22 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        f"{E}",
        f"{E}The above exception was the direct cause of the following exception:",
        f"(APIServer pid=8201) ERROR {ts} [async_llm.py:480] AsyncLLM output_handler failed.",
        f"(APIServer pid=8201) ERROR {ts} [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        "(APIServer pid=8201) INFO:     Shutting down",
        "(APIServer pid=8201) INFO:     Finished server process [8201]",
    ]
    total = 81_559 * MiB

    def gpu(t):
        if t < t_start or t >= t_crash:
            return [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": 4 * MiB,
                     "processes": []}]
        used = int(71.23 * GiB) + 2 * GiB + (int(5 * GiB) if t > t_crash - 12 else int(rng.uniform(0, 0.3) * GiB))
        return [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": used + 560 * MiB,
                 "processes": [{"pid": 854401, "name": "VLLM::EngineCore", "used_memory": used}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint=ep,
                 notes="Single-GPU vLLM 0.11.0 serving a Qwen-VL 32B model for image questions. Operator report: "
                       "under load the service was overwhelmed and the engine died with CUDA out of memory.",
                 version="0.11.0", served=served, root="/models/Qwen2.5-VL-32B-Instruct", mml=mml,
                 engine_args={"argv": ["vllm", "serve", "/models/Qwen2.5-VL-32B-Instruct", "--host", "0.0.0.0",
                                       "--max-model-len", "16384", "--served-model-name", "qwen-vl",
                                       "--max-num-seqs", "32"],
                              "args": {"model": "/models/Qwen2.5-VL-32B-Instruct", "max-model-len": 16384,
                                       "served-model-name": "qwen-vl", "max-num-seqs": 32}},
                 model_config=QWEN25VL_32B, startup_logs=startup, gpu=gpu,
                 extra_logs=[(t_crash + 0.01 * k, l) for k, l in enumerate(crash)],
                 log_window=(t0 - 3600, t1))
    return cid


# --------------------------------------------------------------------------- case: DeepSeek-V4 long prefill OOM


def case_ds4():
    cid = "zzp-ds4-long-prefill-over-profiled-peak"
    rng = random.Random(103)
    served = "ds4-vision-jovian-judgement-r9"
    mml = 1_048_576
    tokens = 1_196_643
    bs = 256
    nb = tokens // bs
    t_start = epoch(2026, 9, 15, 8, 0, 0)
    t0 = epoch(2026, 9, 15, 9, 30, 0)
    t_crash = t0 + 430.0
    t1 = t0 + 600.0
    reqs = []
    t = t0 - 300
    i = 0
    while t < t_crash - 40:
        t += rng.expovariate(0.1)
        p = rng.randint(20_000, 120_000)
        o = rng.randint(200, 1500)
        reqs.append(Req(rid=f"chatcmpl-{rng.getrandbits(96):024x}", arrive=t, prompt=p, out=o, max_tokens=4096,
                        reason="stop"))
        i += 1
    # the request whose chunked prefill dies (149,760 tokens of context behind the chunk)
    reqs.append(Req(rid="chatcmpl-5f0d2c91a4e8b7d3c6a10e24", arrive=t_crash - 60, prompt=171_000, out=800,
                    max_tokens=4096, reason="stop"))
    ci = {"_block_size_resolved": "True", "block_size": str(bs), "cache_dtype": "fp8_ds_mla",
          "calculate_kv_scales": "False", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.975", "is_attention_free": "False", "kv_cache_memory_bytes": "None",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(nb), "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "sha256", "sliding_window": "None"}
    eng = Engine(family="v1", model_name=served, max_model_len=mml, num_blocks=nb, block_size=bs,
                 max_num_seqs=8, mnbt=8192, step_a=0.040, step_b=0.004, step_c=0.00009, step_d=2.0e-10,
                 cache_info=ci, t_created=t_start, chunked=True, log_every=10.0, log_style="v1",
                 log_prefix="(APIServer pid=1) ", preempt_log=False)
    st = times(t0, t1, 10.0)
    # find when the big request has ~149,760 tokens computed: run until crash time
    eng.run(reqs, t0 - 300, t_crash, [x for x in st if x < t_crash], log_from=t0 - 300)
    ep = "http://ds4-judge:8000"
    eng.scrapes = [s for s in eng.scrapes if s["t"] >= t0] + [refused(x, ep) for x in st if x >= t_crash]
    s0 = t_start
    W0, W1, EC = "(Worker_TP0 pid=211) ", "(Worker_TP1 pid=212) ", "(EngineCore pid=148) "
    startup = [
        f"(APIServer pid=1) INFO {stamp(s0)} [utils.py:299] non-default args: {{'model_tag': '/models/ds4-vision-jovian-judgement-r9', 'host': '0.0.0.0', 'served_model_name': ['ds4-vision-jovian-judgement-r9'], 'max_model_len': 1048576, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.975, 'kv_cache_dtype': 'fp8_ds_mla', 'block_size': 256, 'max_num_seqs': 8, 'max_num_batched_tokens': 8192, 'trust_remote_code': True}}",
        f"{W0}INFO {stamp(s0 + 70)} [model_runner.py:411] Model loading took 81.11 GiB memory and 53.488019 seconds",
        f"{W1}INFO {stamp(s0 + 70)} [model_runner.py:411] Model loading took 81.11 GiB memory and 53.455084 seconds",
        f"{W1}INFO {stamp(s0 + 101)} [model_runner.py:1048] Graph capturing finished in 4 secs, took 0.31 GiB",
        f"{W0}INFO {stamp(s0 + 101)} [model_runner.py:1048] Graph capturing finished in 4 secs, took 0.31 GiB",
        f"{W0}INFO {stamp(s0 + 102)} [gpu_worker.py:628] Available KV cache memory: 7.94 GiB",
        f"{EC}INFO {stamp(s0 + 102)} [kv_cache_utils.py:2208] GPU KV cache size: 1,196,643 tokens, Maximum concurrency for 1,048,576 tokens per request: 1.14x",
        f"{W1}INFO {stamp(s0 + 108)} [model_runner.py:1048] Graph capturing finished in 4 secs, took 0.20 GiB",
        f"{W1}INFO {stamp(s0 + 108)} [gpu_worker.py:796] CUDA graph pool memory: 0.2 GiB (actual), 0.32 GiB (estimated), difference: 0.12 GiB (63.0%).",
        f"{W1}INFO {stamp(s0 + 108)} [gpu_worker.py:859] Free memory on device (93.79/94.97 GiB) on startup. Desired GPU memory utilization is (0.975, 92.6 GiB). Actual usage is 83.1 GiB for consumed memory (weights + non-torch), 1.24 GiB for peak activation, and 0.2 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory=8496266036` (7.91 GiB) to fit into requested memory, or `--kv-cache-memory=9781741568` (9.11 GiB) to fully utilize gpu memory. Current kv cache memory in use is 7.94 GiB.",
        f"(APIServer pid=1) INFO {stamp(s0 + 115)} [api_server.py:2012] Starting vLLM API server 0 on http://0.0.0.0:8000",
        "(APIServer pid=1) INFO:     Application startup complete.",
    ]
    tc = stamp(t_crash)
    E = f"{W0}ERROR {tc} [multiproc_executor.py:949] "
    crash = [
        f"{E}WorkerProc hit an exception.",
        f"{E}Traceback (most recent call last):",
        f"{E}  File \"/opt/vllm/vllm/model_executor/models/deepseek_v4/attention.py\", line 544, in forward",
        f"{E}    q = self.wq_b(q_lora)",
        f"{E}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has a total capacity of 94.97 GiB of which 86.56 MiB is free. Including non-PyTorch memory, this process has 94.87 GiB memory in use. Of the allocated memory 93.46 GiB is allocated by PyTorch, with 212.00 MiB allocated in private pools (e.g., CUDA Graphs), and 101.37 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        f"{EC}ERROR {tc} [core.py:1233] EngineCore encountered a fatal error.",
        f"(APIServer pid=1) ERROR {tc} [async_llm.py:712] AsyncLLM output_handler failed.",
        f"(APIServer pid=1) ERROR {tc} [async_llm.py:712] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        "(APIServer pid=1) INFO:     Shutting down",
    ]
    total = 97_887 * MiB

    def gpu(t):
        devs = []
        for k, pid in ((0, 211), (1, 212)):
            if t >= t_crash:
                devs.append({"index": k, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                             "memory_total": total, "memory_used": 3 * MiB, "processes": []})
                continue
            used = int(92.6 * GiB) + int(rng.uniform(0.0, 0.5) * GiB)
            devs.append({"index": k, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                         "memory_total": total, "memory_used": used + 500 * MiB,
                         "processes": [{"pid": pid, "name": "VLLM::Worker_TP%d" % k, "used_memory": used}]})
        return devs

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint=ep,
                 notes="Production judge deployment ds4-vision-jovian-judgement-r9 (DeepSeek-V4 vision, TP2 on two "
                       "96 GB cards, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True). Third occurrence of a delayed "
                       "CUDA OOM after hours of normal serving.",
                 version="0.29.2.dev0+lil.ds4", served=served, root="/models/ds4-vision-jovian-judgement-r9",
                 mml=mml,
                 engine_args={"argv": ["vllm", "serve", "/models/ds4-vision-jovian-judgement-r9", "--host", "0.0.0.0",
                                       "--served-model-name", served, "--max-model-len", "1048576",
                                       "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.975",
                                       "--kv-cache-dtype", "fp8_ds_mla", "--block-size", "256", "--max-num-seqs", "8",
                                       "--max-num-batched-tokens", "8192", "--trust-remote-code"],
                              "args": {"model": "/models/ds4-vision-jovian-judgement-r9", "served-model-name": served,
                                       "max-model-len": 1048576, "tensor-parallel-size": 2,
                                       "gpu-memory-utilization": 0.975, "kv-cache-dtype": "fp8_ds_mla",
                                       "block-size": 256, "max-num-seqs": 8, "max-num-batched-tokens": 8192,
                                       "trust-remote-code": True}},
                 model_config=None, startup_logs=startup, gpu=gpu,
                 extra_logs=[(t_crash + 0.01 * k, l) for k, l in enumerate(crash)],
                 log_window=(t0 - 30, t1))
    return cid


# --------------------------------------------------------------------------- case: InternVL3-78B TP4 start-up OOM


def case_internvl():
    cid = "zzp-internvl3-78b-tp4-a100-40g"
    out = out_dir(cid)
    out.mkdir(parents=True, exist_ok=True)
    ep = "http://127.0.0.1:8009"
    s0 = epoch(2025, 4, 17, 9, 40, 27)
    t0 = s0 + 60
    t1 = t0 + 120
    st = times(t0, t1, 10.0)
    (out / "manifest.json").write_text(json.dumps({
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": ep, "started_at": t0,
        "ended_at": t1, "interval_s": 10.0,
        "notes": "Start-up of vLLM 0.8.4 with OpenGVLab/InternVL3-78B, TP4 on GPUs 4-7 (A100-PCIE-40GB). The API "
                 "server never came up; the operator reports 'OOM'. Transformers on the same 4 GPUs works."},
        indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for x in st:
            f.write(json.dumps(refused(x, ep)) + "\n")
    argv = ["vllm", "serve", "/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/", "--dtype", "bfloat16", "--port",
            "8009", "--trust-remote-code", "--served-model-name", "qwen2vl", "--tensor-parallel-size", "4",
            "--gpu-memory-utilization", "0.95", "--max-num-seqs", "2", "--max-model-len", "4096",
            "--limit-mm-per-prompt", "image=1,video=0", "--mm_processor_kwargs", "{\"max_pixels\":1024}",
            "--enforce-eager"]
    (out / "engine_args.json").write_text(json.dumps({"argv": argv, "args": {
        "model": "/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/", "dtype": "bfloat16", "port": 8009,
        "trust-remote-code": True, "served-model-name": "qwen2vl", "tensor-parallel-size": 4,
        "gpu-memory-utilization": 0.95, "max-num-seqs": 2, "max-model-len": 4096,
        "limit-mm-per-prompt": "image=1,video=0", "mm-processor-kwargs": "{\"max_pixels\":1024}",
        "enforce-eager": True}}, indent=1) + "\n")
    (out / "model_config.json").write_text(json.dumps(INTERNVL3_78B, indent=1) + "\n")
    total = 40_960 * MiB
    with (out / "gpu.jsonl").open("w") as f:
        for x in st:
            devs = []
            for k in range(8):
                if k < 4 or x > t0 + 75:
                    devs.append({"index": k, "name": "NVIDIA A100-PCIE-40GB", "memory_total": total,
                                 "memory_used": 4 * MiB, "processes": []})
                else:
                    u = int(38.9 * GiB) if x > t0 + 30 else int(37.2 * GiB)
                    devs.append({"index": k, "name": "NVIDIA A100-PCIE-40GB", "memory_total": total,
                                 "memory_used": u + 420 * MiB,
                                 "processes": [{"pid": 51220 + k, "name": "python3", "used_memory": u}]})
            f.write(json.dumps({"t": x, "devices": devs}) + "\n")
    d = stamp(s0)
    W = "(VllmWorker rank={r} pid={p}) "
    lines = [
        f"INFO {d} [__init__.py:239] Automatically detected platform cuda.",
        f"INFO {stamp(s0 + 2)} [api_server.py:1034] vLLM API server version 0.8.4",
        f"INFO {stamp(s0 + 2)} [api_server.py:1035] args: Namespace(subparser='serve', model_tag='/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/', host=None, port=8009, model='/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/', trust_remote_code=True, dtype='bfloat16', max_model_len=4096, tensor_parallel_size=4, gpu_memory_utilization=0.95, max_num_seqs=2, limit_mm_per_prompt={{'image': 1, 'video': 0}}, mm_processor_kwargs={{'max_pixels': 1024}}, enforce_eager=True, served_model_name=['qwen2vl'], ...)",
        f"INFO {stamp(s0 + 12)} [config.py:689] This model supports multiple tasks: {{'generate', 'embed', 'reward', 'classify', 'score'}}. Defaulting to 'generate'.",
        f"INFO {stamp(s0 + 12)} [config.py:1713] Defaulting to use mp for distributed inference",
        f"INFO {stamp(s0 + 12)} [config.py:1901] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"WARNING {stamp(s0 + 12)} [cuda.py:93] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used",
        f"INFO {stamp(s0 + 20)} [core.py:61] Initializing a V1 LLM engine (v0.8.4) with config: model='/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/', speculative_config=None, tokenizer='/data/ps/pretrained_model/OpenGVLab/InternVL3-78B/', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, seed=None, served_model_name=qwen2vl, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=False, disable_mm_preprocessor_cache=False, mm_processor_kwargs={{'max_pixels': 1024}}, pooler_config=None, compilation_config={{\"level\":0,\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[],\"max_capture_size\":0}}",
    ]
    for r in range(4):
        lines.append(W.format(r=r, p=51224 + r) + f"INFO {stamp(s0 + 31)} [gpu_model_runner.py:1276] Starting to load model /data/ps/pretrained_model/OpenGVLab/InternVL3-78B/...")
    for r in range(4):
        lines.append(W.format(r=r, p=51224 + r) + f"INFO {stamp(s0 + 58)} [loader.py:458] Loading weights took 26.41 seconds")
    for r in range(4):
        lines.append(W.format(r=r, p=51224 + r) + f"INFO {stamp(s0 + 59)} [gpu_model_runner.py:1291] Model loading took 36.5312 GiB and 27.114233 seconds")
    for r in range(4):
        lines.append(W.format(r=r, p=51224 + r) + f"INFO {stamp(s0 + 60)} [gpu_model_runner.py:1560] Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 3 image items of the maximum feature size.")
    lines += [
        f"ERROR {stamp(s0 + 104)} [multiproc_executor.py:470] WorkerProc hit an exception.",
        f"ERROR {stamp(s0 + 106)} [multiproc_executor.py:117] Worker proc VllmWorker-2 died unexpectedly, shutting down executor.",
        f"CRITICAL {stamp(s0 + 106)} [core_client.py:359] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
        f"ERROR {stamp(s0 + 106)} [core.py:396] RuntimeError: Engine core initialization failed. See root cause above.",
    ]
    (out / "logs.txt").write_text("\n".join(lines) + "\n")
    return cid


BUILDERS = {"zzp-opt125m-20gb-reserved-healthy": case_opt, "zzp-vl-image-burst-runtime-oom": case_vl,
            "zzp-ds4-long-prefill-over-profiled-peak": case_ds4, "zzp-internvl3-78b-tp4-a100-40g": case_internvl}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        print(BUILDERS[cid]())
