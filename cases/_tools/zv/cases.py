"""Builders of the zv-* bundles (writer zv, round 11). Deterministic (seeded), no wall clock.

    /work/main/.venv/bin/python cases/_tools/zv/cases.py [case-id ...]
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


def out_dir(cid):
    return ROOT / "cases" / cid / "bundle"


QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064}

LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.42.3", "use_cache": True, "vocab_size": 128256}

CODELLAMA_13B = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 13824,
    "max_position_embeddings": 16384, "model_type": "llama", "num_attention_heads": 40,
    "num_hidden_layers": 40, "num_key_value_heads": 40, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": None, "rope_theta": 1000000, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.32.0.dev0", "use_cache": True, "vocab_size": 32016}

QWEN3_06B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072,
    "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
    "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": True,
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936}


# --------------------------------------------------------------------------- dev: evalscope non-stream


def case_evalscope():
    cid = "zv-evalscope-nonstream-ttft"
    rng = random.Random(413)
    model = "/models/Qwen2.5-7B-Instruct"
    served = "qwen"
    mml = 32768
    nb = 65_520
    t_start = epoch(2025, 3, 21, 2, 30, 0)
    t0 = t_start
    t1 = t0 + 600.0
    reqs = []
    k = 0
    # rounds of 50 parallel non-streaming requests; the operator starts the next round by hand
    rt = t_start + 12.0
    while rt < t1 - 20:
        for i in range(50):
            k += 1
            p = 34 + rng.randint(0, 3)
            o = rng.randint(1200, 1800)
            reqs.append(Req(rid=f"chatcmpl-{k:05d}", arrive=rt + rng.uniform(0, 0.08), prompt=p, out=o,
                            max_tokens=mml - p, reason="stop"))
        rt += 32.0 + rng.uniform(25.0, 45.0)
    ci = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "4681", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    eng = Engine(family="0.6.1", model_name=served, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.0175, step_b=0.00006, step_c=1 / 16000, step_d=2.0e-9,
                 cache_info=ci, t_created=t_start - 3600, chunked=False, log_every=5.0, log_style="v0")
    eng.run(reqs, t_start, t1, times(t0, t1, 10.0), log_from=t_start)
    st = t_start - 3700
    startup = [
        f"INFO {stamp(st)} api_server.py:459] vLLM API server version 0.6.1.post2",
        f"INFO {stamp(st)} api_server.py:460] args: Namespace(model_tag='/models/Qwen2.5-7B-Instruct', config='', host='0.0.0.0', port=290, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', model='/models/Qwen2.5-7B-Instruct', tokenizer=None, dtype='auto', kv_cache_dtype='auto', max_model_len=None, tensor_parallel_size=1, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, swap_space=4, gpu_memory_utilization=0.9, max_num_seqs=256, max_num_batched_tokens=None, disable_log_stats=False, enforce_eager=False, enable_chunked_prefill=None, served_model_name=['qwen'], disable_log_requests=True)",
        f"INFO {stamp(st + 28)} model_runner.py:997] Loading model weights took 14.2487 GB",
        f"INFO {stamp(st + 32)} gpu_executor.py:122] # GPU blocks: {nb}, # CPU blocks: 4681",
        f"INFO {stamp(st + 46)} model_runner.py:1423] Graph capturing finished in 13 secs.",
        f"INFO {stamp(st + 47)} api_server.py:224] vLLM to use /tmp/tmp8v0q3n1c as PROMETHEUS_MULTIPROC_DIR",
        "INFO:     Started server process [1]",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:290 (Press CTRL+C to quit)",
    ]
    total = 85_899_345_920

    def gpu(t):
        used = int(0.9 * total) + 512 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 41873, "name": "python3", "used_memory": used - 512 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint="http://10.0.0.18:290",
                 notes="Operator ran evalscope perf --parallel 50 -n 50 --api openai --prompt "
                       "'写一个科幻小说，不少于2000字，请开始你的表演' (no --stream) in several rounds. Complaint: "
                       "50 requests take ~32 s in total and the reported TTFT is also ~30 s.",
                 version="0.6.1.post2", served=served, root=model, mml=mml,
                 engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--served-model-name", "qwen", "--host", "0.0.0.0", "--port", "290",
                                       "--disable-log-requests"],
                              "args": {"model": model, "served-model-name": "qwen", "port": 290,
                                       "disable-log-requests": True}},
                 model_config=QWEN25_7B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- L40S 120k loop


def case_l40s():
    cid = "zv-l40s-120k-prefill-preempt-loop"
    rng = random.Random(21793)
    model = "meta-llama/Llama-3.1-8B-Instruct"
    mml = 131072
    nb = 12_237
    t_start = epoch(2025, 7, 29, 15, 0, 0)
    t0 = t_start
    t1 = t0 + 600.0
    state = {"k": 0, "runs_left": 4, "inflight": 0}

    def mk(t):
        state["k"] += 1
        p = 120000 + rng.randint(0, 900)
        return Req(rid=f"cmpl-bench-{state['k']}", arrive=t, prompt=p, out=1000, max_tokens=1000,
                   reason="length")

    def start_run(t):
        state["runs_left"] -= 1
        state["inflight"] = 2
        return [mk(t), mk(t + 0.01)]

    reqs = start_run(t_start + 15.0)

    def on_finish(r, t):
        state["inflight"] -= 1
        if state["inflight"] == 0 and state["runs_left"] > 0:
            return start_run(t + 20.0)
        return []

    ci = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(nb), "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4",
          "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="v1-0.10", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=8192, step_a=0.028, step_b=0.001, step_c=1 / 3000, step_d=6.0e-8,
                 cache_info=ci, t_created=t_start - 300.25, chunked=True, log_every=10.0, log_style="v1",
                 log_prefix="(APIServer pid=2117) ", preempt_log=False)
    eng.log_line_no = 118
    eng.run(reqs, t_start, t1, times(t0, t1, 10.0), log_from=t_start, on_finish=on_finish)
    st = t_start - 320
    E = "(EngineCore_0 pid=2381) "
    A = "(APIServer pid=2117) "
    startup = [
        f"{A}INFO {stamp(st)} [api_server.py:1755] vLLM API server version 0.10.0",
        f"{A}INFO {stamp(st)} [cli_args.py:261] non-default args: {{'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'enable_prefix_caching': False}}",
        f"{E}INFO {stamp(st + 40)} [gpu_model_runner.py:1892] Model loading took 14.9889 GiB and 21.4 seconds",
        f"{E}INFO {stamp(st + 58)} [gpu_worker.py:255] Available KV cache memory: 23.90 GiB",
        f"{E}INFO {stamp(st + 58)} [kv_cache_utils.py:833] GPU KV cache size: {nb * 16:,} tokens",
        f"{E}INFO {stamp(st + 58)} [kv_cache_utils.py:837] Maximum concurrency for 131,072 tokens per request: 1.49x",
        f"{E}INFO {stamp(st + 75)} [gpu_model_runner.py:2485] Graph capturing finished in 17 secs, took 0.56 GiB",
        f"{E}INFO {stamp(st + 76)} [core.py:193] init engine (profile, create kv cache, warmup model) took 35.12 seconds",
        f"{A}INFO {stamp(st + 77)} [loggers.py:141] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}",
        f"{A}INFO {stamp(st + 78)} [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"{A}INFO:     Started server process [2117]",
        f"{A}INFO:     Application startup complete.",
    ]
    total = 48_305_799_168

    def gpu(t):
        used = int(0.9 * total) + 560 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA L40S", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 2381, "name": "VLLM::EngineCore", "used_memory": used - 560 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint="http://localhost:8000",
                 notes="1x L40S, vllm serve meta-llama/Llama-3.1-8B-Instruct --no-enable-prefix-caching. "
                       "vllm bench serve --random-input-len 120000 --random-output-len 1000 --num-prompts 2 "
                       "--max-concurrency 2 started at the beginning of the capture and still unfinished after 10 "
                       "minutes. Complaint: long-context requests keep getting scheduled and preempted again; the "
                       "decoding request crawls.",
                 version="0.10.0", served=model, root=model, mml=mml,
                 engine_args={"argv": ["vllm", "serve", model, "--no-enable-prefix-caching"],
                              "args": {"model": model, "enable-prefix-caching": False}},
                 model_config=LLAMA31_8B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- V0 0.3.3 recompute


def case_v0_pending():
    cid = "zv-v0-running-to-pending-no-swap"
    rng = random.Random(3094)
    model = "codellama/CodeLlama-13b-Instruct-hf"
    mml = 16384
    nb = 833
    t_start = epoch(2024, 2, 28, 21, 40, 0)
    t0 = t_start
    t1 = t0 + 600.0
    users = 7
    count = [0]

    def mk(t):
        count[0] += 1
        p = rng.randint(2500, 6000)
        o = rng.randint(300, 1200)
        return Req(rid=f"cmpl-{count[0]:04d}", arrive=t, prompt=p, out=o, max_tokens=2048, reason="stop")

    reqs = [mk(t_start + rng.uniform(0, 30)) for _ in range(users)]

    def on_finish(r, t):
        return [mk(t + rng.uniform(5.0, 25.0))]

    ci = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "46", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": str(36 * GiB)}
    eng = Engine(family="0.3.3", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.036, step_b=0.0015, step_c=1 / 5200, step_d=3.0e-7,
                 cache_info=ci, t_created=t_start - 7200, chunked=False, log_every=5.0, log_style="v0",
                 preempt_log=False)
    eng.run(reqs, t_start - 120, t1, times(t0, t1, 10.0), log_from=t_start - 120, on_finish=on_finish)
    st = t_start - 7300
    startup = [
        f"INFO {stamp(st)} api_server.py:228] args: Namespace(host='0.0.0.0', port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, root_path=None, middleware=[], model='codellama/CodeLlama-13b-Instruct-hf', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=36, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, max_cpu_loras=None, device='auto', engine_use_ray=False, disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(st + 2)} llm_engine.py:87] Initializing an LLM engine with config: model='codellama/CodeLlama-13b-Instruct-hf', tokenizer='codellama/CodeLlama-13b-Instruct-hf', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0)",
        f"INFO {stamp(st + 60)} llm_engine.py:357] # GPU blocks: {nb}, # CPU blocks: 46",
        f"INFO {stamp(st + 75)} model_runner.py:756] Graph capturing finished in 14 secs.",
        "INFO:     Started server process [9]",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 42_505_273_344

    def gpu(t):
        used = int(0.9 * total) + 420 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 9, "name": "python3", "used_memory": used - 420 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint="http://10.20.0.5:8000",
                 notes="Internal coding assistant, ~7 concurrent users, vLLM OpenAI server with swap_space set "
                       "to the VRAM size. Complaint: requests go from Running back to Pending; never Swapped, "
                       "CPU KV cache always 0%.",
                 version="0.3.3", served=model, root=model, mml=None,
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--host", "0.0.0.0", "--swap-space", "36", "--disable-log-requests"],
                              "args": {"model": model, "swap-space": 36, "disable-log-requests": True}},
                 model_config=CODELLAMA_13B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- 1000-request burst


def case_burst():
    cid = "zv-bench-1000-burst-queueing"
    rng = random.Random(26478)
    model = "Qwen/Qwen3-0.6B"
    mml = 40960
    nb = 39_745
    t_start = epoch(2025, 10, 9, 8, 0, 0)
    t0 = t_start
    t1 = t0 + 300.0
    reqs = []
    k = 0
    for run in range(5):
        rt = t_start + 14.5 + 60.0 * run
        for i in range(1000):
            k += 1
            p = max(8, int(rng.gauss(80, 40)))
            reqs.append(Req(rid=f"cmpl-{k:05d}", arrive=rt + i * 0.0004, prompt=p, out=256, max_tokens=256,
                            reason="length"))
    ci = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
          "swap_space": "4", "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="v1-0.11", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=8192, step_a=0.0105, step_b=0.00005, step_c=1 / 90000, step_d=1.0e-9,
                 cache_info=ci, t_created=t_start - 200.75, chunked=True, log_every=10.0, log_style="v1",
                 log_prefix="(APIServer pid=88) ", preempt_log=False)
    eng.log_line_no = 123
    eng.run(reqs, t_start, t1, times(t0, t1, 5.0), log_from=t_start, on_finish=None)
    st = t_start - 210
    E = "(EngineCore_DP0 pid=154) "
    A = "(APIServer pid=88) "
    startup = [
        f"{A}INFO {stamp(st)} [api_server.py:1839] vLLM API server version 0.11.0",
        f"{A}INFO {stamp(st)} [utils.py:233] non-default args: {{'model_tag': 'Qwen/Qwen3-0.6B', 'model': 'Qwen/Qwen3-0.6B'}}",
        f"{E}INFO {stamp(st + 25)} [gpu_model_runner.py:2653] Model loading took 1.1201 GiB and 4.7 seconds",
        f"{E}INFO {stamp(st + 38)} [gpu_worker.py:298] Available KV cache memory: 67.94 GiB",
        f"{E}INFO {stamp(st + 38)} [kv_cache_utils.py:1087] GPU KV cache size: {nb * 16:,} tokens",
        f"{E}INFO {stamp(st + 38)} [kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: 15.53x",
        f"{E}INFO {stamp(st + 52)} [core.py:210] init engine (profile, create kv cache, warmup model) took 26.80 seconds",
        f"{A}INFO {stamp(st + 53)} [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}",
        f"{A}INFO {stamp(st + 54)} [api_server.py:1634] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"{A}INFO:     Started server process [88]",
        f"{A}INFO:     Application startup complete.",
    ]
    total = 85_899_345_920

    def gpu(t):
        used = int(0.9 * total) + 512 * 1024 ** 2
        return [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 154, "name": "VLLM::EngineCore", "used_memory": used - 512 * 1024 ** 2}]}]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://localhost:8000",
                 notes="vllm serve Qwen/Qwen3-0.6B (defaults); vllm bench serve --dataset-name hf --dataset-path "
                       "philschmid/mt-bench (1000 prompts, request rate inf) run five times. Bench reports mean TTFT "
                       "9.4 s, median 6.9 s, P99 18.2 s, 42 req/s, peak concurrent requests 1000.",
                 version="0.11.0", served=model, root=model, mml=mml,
                 engine_args={"argv": ["vllm", "serve", model], "args": {"model": model}},
                 model_config=QWEN3_06B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


BUILDERS = {
    "zv-evalscope-nonstream-ttft": case_evalscope,
    "zv-l40s-120k-prefill-preempt-loop": case_l40s,
    "zv-v0-running-to-pending-no-swap": case_v0_pending,
    "zv-bench-1000-burst-queueing": case_burst,
}

if __name__ == "__main__":
    ids = sys.argv[1:] or list(BUILDERS)
    for cid in ids:
        e = BUILDERS[cid]()
        print(cid, "scrapes", len(e.scrapes), "preemptions", e.c_preempt, "prompt_tok", e.c_prompt,
              "gen_tok", e.c_gen, "done", e.success)
