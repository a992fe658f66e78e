"""Builders of the zp-* bundles (writer zp, round 10). Deterministic (seeded), no wall clock.

    /work/main/.venv/bin/python cases/_tools/zp/cases.py [case-id ...]
"""

from __future__ import annotations

import calendar
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Engine, Req, stamp, write_bundle  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3


def epoch(y, mo, d, h=0, mi=0, s=0):
    return float(calendar.timegm((y, mo, d, h, mi, s)))


def times(t0, t1, step):
    n = int(round((t1 - t0) / step))
    return [t0 + i * step for i in range(n + 1)]


# --------------------------------------------------------------------------- model configs

QWEN2_05B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
    "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 24,
    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": True,
    "torch_dtype": "bfloat16", "transformers_version": "4.40.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936}

QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}

LLAMA2_13B = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 13824,
    "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 40,
    "num_hidden_layers": 40, "num_key_value_heads": 40, "pad_token_id": 0, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.31.0", "use_cache": True, "vocab_size": 32000}


def out_dir(cid):
    return ROOT / "cases" / cid / "bundle"


# --------------------------------------------------------------------------- case 1


def case_qwen2_05b():
    cid = "zp-qwen2-05b-h800-preempt-pending-grows"
    rng = random.Random(6737)
    model = "Qwen/Qwen2-0.5B-Instruct"
    mml = 32768
    nb = 346_112
    t_job = epoch(2024, 7, 24, 9, 41, 0)
    reqs = []
    for i in range(987):
        p = rng.randint(14000, 22000)
        mt = min(12288, mml - p)
        o = rng.randint(10000, 16000)
        reason = "stop"
        if o >= mt:
            o, reason = mt, "length"
        reqs.append(Req(rid=str(i), arrive=t_job + 0.002 * i, prompt=p, out=o, max_tokens=mt, reason=reason))
    t0 = epoch(2024, 7, 24, 9, 50, 0)
    t1 = t0 + 600.0
    ci = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "21845", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="0.4.2", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.020, step_b=0.00020, step_c=1.4e-5, step_d=8.5e-9,
                 cache_info=ci, t_created=t_job - 120, chunked=False, log_every=5.0, log_style="v0")
    eng.run(reqs, t_job, t1, times(t0, t1, 5.0), log_from=t_job - 2.0)
    st = t_job - 150
    startup = [
        f"INFO {stamp(st)} api_server.py:151] vLLM API server version 0.4.2",
        f"INFO {stamp(st)} api_server.py:152] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='Qwen/Qwen2-0.5B-Instruct', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=5, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='auto', image_input_type=None, image_token_id=None, image_input_shape=None, image_feature_size=None, scheduler_delay_factor=0.0, enable_chunked_prefill=False, speculative_model=None, num_speculative_tokens=None, speculative_max_model_len=None, model_loader_extra_config=None, engine_use_ray=False, disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(st + 2)} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='Qwen/Qwen2-0.5B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2-0.5B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name=Qwen/Qwen2-0.5B-Instruct)",
        f"INFO {stamp(st + 8)} model_runner.py:175] Loading model weights took 0.9276 GB",
        f"INFO {stamp(st + 11)} gpu_executor.py:114] # GPU blocks: {nb}, # CPU blocks: 21845",
        f"INFO {stamp(st + 12)} model_runner.py:937] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 12)} model_runner.py:941] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(st + 21)} model_runner.py:1017] Graph capturing finished in 9 secs.",
        f"INFO {stamp(st + 22)} serving_chat.py:388] Using default chat template:",
        f"INFO:     Started server process [3021]",
        f"INFO:     Waiting for application startup.",
        f"INFO:     Application startup complete.",
        f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 85_520_809_984  # H800 80GB as NVML reports it

    def gpu(t):
        used = int(0.9 * total) + 530 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA H800", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 3021, "name": "python3", "used_memory": used - 530 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://10.12.3.41:8000",
                 notes="Batch job: ~990 long-document requests (14k-22k prompt tokens, max_tokens up to 12288) "
                       "submitted at once to one vLLM 0.4.2 server with Qwen2-0.5B on a single H800 80G. "
                       "Operator report: GPU compute utilisation only ~20% and throughput far below expectations.",
                 version="0.4.2", served=model, root=model, mml=mml,
                 engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--disable-log-requests"],
                              "args": {"model": model, "disable-log-requests": True}},
                 model_config=QWEN2_05B, startup_logs=startup, gpu=gpu, log_window=(t0 - 300, t1))
    return eng


# --------------------------------------------------------------------------- case 2


def case_client_cap():
    cid = "zp-client-cap-100-of-200-users"
    rng = random.Random(14513)
    model = "Qwen/Qwen2-7B-Instruct"
    mml = 32768
    nb = 65_520
    t_start = epoch(2025, 3, 10, 2, 0, 0)
    t0 = t_start + 300.0
    t1 = t0 + 600.0
    cap = 100
    count = [0]

    def mk(t):
        count[0] += 1
        p = rng.randint(1000, 3000)
        o = rng.randint(800, 3200)
        mt = 4096
        return Req(rid=f"chat-{count[0]:05d}", arrive=t, prompt=p, out=o, max_tokens=mt, reason="stop")

    # the client's pool lets 100 of the 200 users through; the others wait inside the client
    reqs = [mk(t_start + 0.02 * i) for i in range(cap)]

    def on_finish(r, t):
        if t > t1 + 5:
            return []
        return [mk(t + rng.uniform(0.005, 0.03))]

    ci = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "4681", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    eng = Engine(family="0.6.1", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.012, step_b=0.00025, step_c=1 / 16000, step_d=2.9e-8,
                 cache_info=ci, t_created=t_start - 60, chunked=False, log_every=5.0, log_style="v0")
    eng.run(reqs, t_start, t1, times(t0, t1, 10.0), log_from=t_start, on_finish=on_finish)
    st = t_start - 200
    startup = [
        f"INFO {stamp(st)} api_server.py:459] vLLM API server version 0.6.1.post2",
        f"INFO {stamp(st)} api_server.py:460] args: Namespace(model_tag='Qwen/Qwen2-7B-Instruct', config='', host='0.0.0.0', port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', model='Qwen/Qwen2-7B-Instruct', tokenizer=None, dtype='auto', kv_cache_dtype='auto', max_model_len=None, tensor_parallel_size=1, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, swap_space=4, gpu_memory_utilization=0.9, max_num_seqs=256, max_num_batched_tokens=None, disable_log_stats=False, enforce_eager=False, enable_chunked_prefill=None, disable_log_requests=True)",
        f"INFO {stamp(st + 3)} llm_engine.py:232] Initializing an LLM engine (v0.6.1.post2) with config: model='Qwen/Qwen2-7B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2-7B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=Qwen/Qwen2-7B-Instruct, use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=True)",
        f"INFO {stamp(st + 30)} model_runner.py:997] Loading model weights took 14.2487 GB",
        f"INFO {stamp(st + 34)} gpu_executor.py:122] # GPU blocks: {nb}, # CPU blocks: 4681",
        f"INFO {stamp(st + 36)} model_runner.py:1308] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 48)} model_runner.py:1423] Graph capturing finished in 12 secs.",
        f"INFO {stamp(st + 49)} api_server.py:224] vLLM to use /tmp/tmp3k1qz8ap as PROMETHEUS_MULTIPROC_DIR",
        "INFO:     Started server process [1]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 85_899_345_920

    def gpu(t):
        used = int(0.9 * total) + 512 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 2214, "name": "python3", "used_memory": used - 512 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint="http://172.16.0.21:8000",
                 notes="Load test with 200 concurrent simulated users against vllm serve 0.6.1.post2. Operator "
                       "report: vLLM handles at most 100 requests at a time; after one finishes the next is "
                       "added, but never more than 100. How to raise concurrency to 200 or more?",
                 version="0.6.1.post2", served=model, root=model, mml=mml,
                 engine_args={"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--port", "8000",
                                       "--disable-log-requests"],
                              "args": {"model": model, "host": "0.0.0.0", "port": 8000,
                                       "disable-log-requests": True}},
                 model_config=QWEN2_7B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- case 3


def sharegpt_like(rng):
    p = int(min(1024, max(4, rng.lognormvariate(5.0, 0.95))))
    o = int(min(1200, max(4, rng.lognormvariate(4.9, 0.9))))
    return p, o


def case_rate200():
    cid = "zp-rate200-1k-prompts-2x3090-queue"
    rng = random.Random(3096)
    model = "h2oai/h2ogpt-4096-llama2-13b-chat"
    mml = 4096
    nb = 1405
    t_start = epoch(2024, 3, 7, 0, 58, 0)
    t_bench = t_start + 60.0
    t0 = t_start
    t1 = t0 + 600.0
    reqs = []
    t = t_bench
    for i in range(1000):
        t += rng.expovariate(200.0)
        p, o = sharegpt_like(rng)
        reqs.append(Req(rid=f"cmpl-{i:04d}", arrive=t, prompt=p, out=o, max_tokens=o, reason="length"))
    ci = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "327", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="0.3.3", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.044, step_b=0.0009, step_c=1 / 5500, step_d=0.0,
                 cache_info=ci, t_created=t_start - 60, chunked=False, log_every=5.0, log_style="v0",
                 preempt_log=False)
    eng.run(reqs, t_start, t1, times(t0, t1, 5.0), log_from=t_start)
    st = t_start - 240
    startup = [
        f"INFO {stamp(st)} api_server.py:228] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='h2oai/h2ogpt-4096-llama2-13b-chat', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, max_parallel_loading_workers=None, block_size=16, enable_prefix_caching=False, seed=0, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, max_logprobs=5, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='auto', engine_use_ray=False, disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(st + 14)} llm_engine.py:87] Initializing an LLM engine (v0.3.3) with config: model='h2oai/h2ogpt-4096-llama2-13b-chat', tokenizer='h2oai/h2ogpt-4096-llama2-13b-chat', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=2, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0)",
        f"INFO {stamp(st + 95)} llm_engine.py:357] # GPU blocks: {nb}, # CPU blocks: 327",
        f"INFO {stamp(st + 99)} model_runner.py:756] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 99)} model_runner.py:760] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"INFO {stamp(st + 121)} model_runner.py:824] Graph capturing finished in 22 secs.",
        f"INFO {stamp(st + 122)} serving_chat.py:302] Using default chat template:",
        "INFO:     Started server process [51744]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 25_769_803_776

    def gpu(t):
        used = int(0.9 * total) + 400 * 1024 ** 2
        return [{"index": i, "name": "NVIDIA GeForce RTX 3090", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 51744 + 2 * i, "name": "python" if i == 0 else "ray::RayWorkerVllm",
                                "used_memory": used - 400 * 1024 ** 2}]} for i in (0, 1)]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://127.0.0.1:8000",
                 notes="benchmark_serving.py --backend vllm --dataset ShareGPT_V3_unfiltered_cleaned_split.json "
                       "--num-prompts 1000 --request-rate 200 against the OpenAI server on 2x RTX 3090 (TP2). "
                       "Operator report: time to first token grows to minutes as the request rate increases; "
                       "request-rate 3 is about the most this box handles.",
                 version="0.3.3", served=model, root=model, mml=mml,
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--tensor-parallel-size", "2", "--disable-log-requests"],
                              "args": {"model": model, "tensor-parallel-size": 2, "disable-log-requests": True}},
                 model_config=LLAMA2_13B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- case 4


def case_spark_bench():
    cid = "zp-bench-maxconc4-client-ttft-2xspark"
    rng = random.Random(166)
    model = "Mia-AiLab/GLM-5.3-Flash-EXL3-TR3-4bpw"
    served = "glm-5.3-flash"
    mml = 1_000_000
    bs = 64
    nb = 17_135
    t_start = epoch(2026, 9, 11, 14, 20, 0)
    t0 = t_start
    t1 = t0 + 600.0
    # bench runs: (start offset, num_prompts, max_concurrency, output len); each preceded by the
    # client's initial single-prompt test run
    runs = [(20.0, 1, 1, 32), (60.0, 4, 4, 32), (110.0, 8, 4, 32), (170.0, 20, 4, 256)]
    state = {"queue": [], "count": 0}
    reqs = []

    def mk(t, olen, tag):
        state["count"] += 1
        p = 1024 + rng.randint(-3, 3)
        return Req(rid=f"{tag}-{state['count']}", arrive=t, prompt=p, out=olen, max_tokens=olen,
                   reason="length")

    # sequential driver: each run's test request, then the gated run itself
    plan = []
    for off, n, c, olen in runs:
        plan.append((t_start + off, n, c, olen))
    pending_runs = list(plan)
    inflight = {"n": 0, "left": 0, "c": 1, "olen": 32, "stage": None, "next_runs": pending_runs}

    def start_test(t):
        run = inflight["next_runs"][0]
        inflight["stage"] = "test"
        inflight["olen"] = run[3]
        return [mk(max(t, run[0]), run[3], "test")]

    def start_main(t):
        run = inflight["next_runs"].pop(0)
        _, n, c, olen = run
        inflight.update(stage="main", left=n, c=c, olen=olen, n=0)
        out = []
        k = min(c, n)
        for i in range(k):
            out.append(mk(t + 0.4, olen, "bench"))
        inflight["left"] -= k
        inflight["n"] = k
        return out

    reqs.extend(start_test(t_start))

    def on_finish(r, t):
        if inflight["stage"] == "test":
            return start_main(t)
        inflight["n"] -= 1
        out = []
        if inflight["left"] > 0:
            inflight["left"] -= 1
            inflight["n"] += 1
            out.append(mk(t + 0.02, inflight["olen"], "bench"))
        elif inflight["n"] == 0 and inflight["next_runs"]:
            out.extend(start_test(t + 5.0))
        return out

    ci = {"_block_size_resolved": "True", "block_size": str(bs), "cache_dtype": "fp8", "calculate_kv_scales": "False",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.83", "hash_block_size": "None",
          "is_attention_free": "False", "kv_cache_dtype_skip_layers": "[]", "kv_cache_max_concurrency": "1.1",
          "kv_cache_memory_bytes": "None", "kv_cache_size_tokens": str(nb * bs), "kv_offloading_backend": "native",
          "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
          "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
          "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
          "user_specified_block_size": "False", "user_specified_mamba_block_size": "False"}
    eng = Engine(family="v1", model_name=served, max_model_len=mml, num_blocks=nb, block_size=bs,
                 max_num_seqs=4, mnbt=8192, step_a=0.050, step_b=0.003, step_c=0.00052, step_d=0.0,
                 cache_info=ci, t_created=t_start - 400.5, chunked=True, log_every=10.0, log_style="v1",
                 log_prefix="(APIServer pid=1) ", preempt_log=False)
    eng.run(reqs, t_start, t1, times(t0, t1, 5.0), log_from=t_start, on_finish=on_finish)
    st = t_start - 900
    E = "(EngineCore_DP0 pid=312) "
    A = "(APIServer pid=1) "
    startup = [
        f"{A}INFO {stamp(st)} [api_server.py:1947] vLLM API server version 0.28.0",
        f"{A}INFO {stamp(st)} [utils.py:299] non-default args: {{'model_tag': '/models/GLM-5.3-Flash-EXL3-TR3-4bpw', 'host': '0.0.0.0', 'model': '/models/GLM-5.3-Flash-EXL3-TR3-4bpw', 'served_model_name': ['glm-5.3-flash'], 'max_model_len': 1000000, 'tensor_parallel_size': 2, 'distributed_executor_backend': 'mp', 'gpu_memory_utilization': 0.83, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 4}}",
        f"{E}INFO {stamp(st + 420)} [kv_cache_utils.py:1313] GPU KV cache size: {nb * bs:,} tokens, Maximum concurrency for 1,000,000 tokens per request: 1.10x",
        f"{A}INFO {stamp(st + 498)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}",
        f"{A}INFO {stamp(st + 499)} [api_server.py:1901] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"{A}INFO:     Started server process [1]",
        f"{A}INFO:     Application startup complete.",
    ]
    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://192.168.100.10:8000",
                 notes="2x DGX Spark (GB10), TP=2 over ConnectX-7, repo image rebuilt from commit 1caea9a. "
                       "Operator ran vllm bench serve --dataset-name random with (num-prompts, max-concurrency, "
                       "output-len) = (1,1,32), (4,4,32), (8,4,32), (20,4,256). Complaint: bench reports ~30 s "
                       "mean TTFT on the last run although decode is ~16 tok/s per stream.",
                 version="0.28.0", served=served, root="/models/GLM-5.3-Flash-EXL3-TR3-4bpw", mml=mml,
                 engine_args={"argv": None,
                              "args": {"model": "/models/GLM-5.3-Flash-EXL3-TR3-4bpw",
                                       "served-model-name": "glm-5.3-flash", "tensor-parallel-size": 2,
                                       "max-model-len": 1000000, "max-num-seqs": 4,
                                       "max-num-batched-tokens": 8192, "gpu-memory-utilization": 0.83,
                                       "kv-cache-dtype": "fp8", "enable-prefix-caching": True}},
                 model_config=None, startup_logs=startup, gpu=None, log_window=(t0 - 60, t1))
    return eng


BUILDERS = {
    "zp-qwen2-05b-h800-preempt-pending-grows": case_qwen2_05b,
    "zp-client-cap-100-of-200-users": case_client_cap,
    "zp-rate200-1k-prompts-2x3090-queue": case_rate200,
    "zp-bench-maxconc4-client-ttft-2xspark": case_spark_bench,
}

if __name__ == "__main__":
    ids = sys.argv[1:] or list(BUILDERS)
    for cid in ids:
        e = BUILDERS[cid]()
        print(cid, "scrapes", len(e.scrapes), "preemptions", e.c_preempt)
