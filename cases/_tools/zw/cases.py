"""Builders of the zw-* bundles (writer zw, round 11). Deterministic (seeded), no wall clock.

    /work/main/.venv/bin/python cases/_tools/zw/cases.py [case-id ...]
"""

from __future__ import annotations

import calendar
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Engine, Req, stamp, write_bundle  # noqa: E402
import fixed  # noqa: E402

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


LLAMA2_13B = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 13824,
    "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 40,
    "num_hidden_layers": 40, "num_key_value_heads": 40, "pad_token_id": 0, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.32.0.dev0", "use_cache": True, "vocab_size": 32000}

LLAMA_65B_INSTRUCT = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 22016,
    "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 64, "pad_token_id": 0, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": {"type": "dynamic", "factor": 4.0}, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.31.0", "use_cache": True, "vocab_size": 32000}


# --------------------------------------------------------------------------- case A (vllm#2731)

A_SEED = 2821   # chosen by a seed scan so that the pool state at the hang is the quoted one (35 running, ~99 %, ~115 pending)
A_LOAD = (2024, 2, 1, 6, 33, 0)


def case_v030_hang():
    cid = "zw-v030-tp-allreduce-hang-35-running"
    rng = random.Random(A_SEED)
    model = "meta-llama/Llama-2-13b-chat-hf"
    mml = 4096
    nb = 2816
    t_load = epoch(*A_LOAD)
    t_hang = epoch(2024, 2, 1, 6, 36, 7)
    t0 = epoch(2024, 2, 1, 6, 33, 0)
    t1 = t0 + 690.0
    reqs = []
    t = t_load
    i = 0
    while t < t1:
        rate = 1.1
        t += rng.expovariate(rate)
        p = rng.randint(700, 1300)
        o = rng.randint(200, 700)
        reqs.append(Req(rid=f"cmpl-{rng.getrandbits(128):032x}-0", arrive=t, prompt=p, out=o, max_tokens=1024,
                        reason="stop"))
        i += 1
    ci = {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "655", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": str(4 * GiB)}
    eng = Engine(family="0.3.3", model_name=model, max_model_len=mml, num_blocks=nb, block_size=16,
                 max_num_seqs=256, mnbt=mml, step_a=0.060, step_b=0.0045, step_c=0.00025, step_d=0.0,
                 cache_info=ci, t_created=t_load - 400, chunked=False, log_every=5.0, log_style="v030fork",
                 preempt_log=False, hang_at=t_hang)
    eng.run(reqs, t_load, t1, times(t0, t1, 5.0), log_from=t_load)
    st = t_load - 380
    startup = [
        f"INFO {stamp(st)} api_server.py:209] args: Namespace(host=None, port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, root_path=None, middleware=[], model='meta-llama/Llama-2-13b-chat-hf', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='cuda', engine_use_ray=False, disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(st + 6)} llm_engine.py:72] Initializing an LLM engine with config: model='meta-llama/Llama-2-13b-chat-hf', tokenizer='meta-llama/Llama-2-13b-chat-hf', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=2, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, seed=0)",
        f"INFO {stamp(st + 88)} llm_engine.py:322] # GPU blocks: {nb}, # CPU blocks: 655",
        f"INFO {stamp(st + 91)} model_runner.py:632] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 91)} model_runner.py:636] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
        f"(RayWorkerVllm pid=4117) INFO {stamp(st + 91)} model_runner.py:632] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 104)} model_runner.py:698] Graph capturing finished in 13 secs.",
        f"(RayWorkerVllm pid=4117) INFO {stamp(st + 104)} model_runner.py:698] Graph capturing finished in 13 secs.",
        f"INFO {stamp(st + 105)} serving_chat.py:260] Using default chat template:",
        "INFO:     Started server process [3862]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    ]
    total = 42_949_672_960

    def gpu(t):
        used = int(0.9 * total) + 436 * MiB
        return [{"index": i, "name": "NVIDIA A100-SXM4-40GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 3862 if i == 0 else 4117, "name": "python3" if i == 0 else "ray::RayWorkerVllm",
                                "used_memory": used - 436 * MiB}]} for i in (0, 1)]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=5.0, endpoint="http://10.244.5.19:8000",
                 notes="Production completions traffic on the OpenAI server (Llama-2-13B chat, TP2). Operator report: "
                       "vLLM gets stuck randomly after some minutes of work; the server still receives requests and "
                       "answers /health and /metrics, but no tokens are generated and no requests complete; the "
                       "status line keeps printing every 5 s. Recorded around the moment it stopped.",
                 version="0.3.0", served=model, root=model, mml=mml,
                 engine_args={"argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model,
                                       "--tensor-parallel-size", "2", "--disable-log-requests"],
                              "args": {"model": model, "tensor-parallel-size": 2, "disable-log-requests": True}},
                 model_config=LLAMA2_13B, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


# --------------------------------------------------------------------------- case C (vllm#8178)


def case_v060_multistep():
    cid = "zw-v060-multistep16-metrics-distorted"
    rng = random.Random(8178)
    model = "/data/models/llama-65b-instruct"
    mml = 8192
    nb = 2048
    t_start = epoch(2024, 9, 5, 2, 10, 0)
    t0 = t_start + 240.0
    t1 = t0 + 600.0
    reqs = []
    t = t_start
    rate = 0.92
    while t < t1:
        t += rng.gammavariate(4.0, 1.0 / (4.0 * rate))   # many users: steadier than Poisson
        p = rng.randint(300, 1500)
        o = rng.randint(200, 480)
        reqs.append(Req(rid=f"chat-{rng.getrandbits(128):032x}", arrive=t, prompt=p, out=o, max_tokens=1024,
                        reason="stop"))
    ci = {"block_size": "32", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.95", "num_cpu_blocks": "819", "num_gpu_blocks": str(nb),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    eng = Engine(family="0.6.0", model_name=model, max_model_len=mml, num_blocks=nb, block_size=32,
                 max_num_seqs=256, mnbt=mml, step_a=0.026, step_b=0.0008, step_c=0.00012, step_d=0.0,
                 cache_info=ci, t_created=t_start - 300, chunked=False, log_every=5.0, log_style="v0",
                 preempt_log=False, ms=16, prefix_hit=0.148)
    eng.run(reqs, t_start, t1, times(t0, t1, 10.0), log_from=t_start)
    st = t_start - 420
    startup = [
        f"INFO {stamp(st)} api_server.py:459] vLLM API server version 0.6.0",
        f"INFO {stamp(st)} api_server.py:460] args: Namespace(model_tag=None, config='', host=None, port=8000, uvicorn_log_level='warning', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_auto_tool_choice=False, tool_call_parser=None, model='/data/models/llama-65b-instruct', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', config_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=8192, guided_decoding_backend='outlines', distributed_executor_backend=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=4, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=32, enable_prefix_caching=True, disable_sliding_window=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.95, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=256, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, enforce_eager=False, max_context_len_to_capture=None, max_seq_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, limit_mm_per_prompt=None, mm_processor_kwargs=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=False, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', num_scheduler_steps=16, multi_step_stream_outputs=False, scheduler_delay_factor=0.0, enable_chunked_prefill=None, speculative_model=None, num_speculative_tokens=None, preemption_mode=None, served_model_name=None, disable_async_output_proc=False, disable_log_requests=True, max_log_len=None)",
        f"INFO {stamp(st + 2)} api_server.py:160] Multiprocessing frontend to use ipc:///tmp/8f0c6e2b-5d7c-4f6e-a3c1-2b7e9f0d4a51 for RPC Path.",
        f"INFO {stamp(st + 2)} api_server.py:176] Started engine process with PID 78",
        f"INFO {stamp(st + 9)} llm_engine.py:213] Initializing an LLM engine (v0.6.0) with config: model='/data/models/llama-65b-instruct', speculative_config=None, tokenizer='/data/models/llama-65b-instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name=/data/models/llama-65b-instruct, use_v2_block_manager=False, num_scheduler_steps=16, enable_prefix_caching=True, use_async_output_proc=True)",
        f"INFO {stamp(st + 160)} model_runner.py:915] Loading model weights took 30.4338 GB",
        f"INFO {stamp(st + 176)} distributed_gpu_executor.py:57] # GPU blocks: {nb}, # CPU blocks: 819",
        f"INFO {stamp(st + 180)} model_runner.py:1207] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
        f"INFO {stamp(st + 213)} model_runner.py:1322] Graph capturing finished in 33 secs.",
    ]
    total = 85_899_345_920

    def gpu(t):
        used = int(0.95 * total) + 612 * MiB
        return [{"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 78 if i == 0 else 311 + i, "name": "python3",
                                "used_memory": used - 612 * MiB}]} for i in range(4)]

    write_bundle(out_dir(cid), eng=eng, t0=t0, t1=t1, interval=10.0, endpoint="http://llama-65b-instruct.llm.svc:8000",
                 notes="Internal chat service on vllm/vllm-openai:v0.6.0 (llama-65b-instruct, TP4, "
                       "--num-scheduler-steps 16, prefix caching). Operator report: after upgrading from 0.5.5 some "
                       "of the monitoring metrics are not correct and others have disappeared from /metrics; "
                       "recorded to check whether the server itself is fine.",
                 version="0.6.0", served=model, root=model, mml=mml,
                 engine_args={"argv": None,
                              "args": {"model": model, "tensor-parallel-size": 4, "load-format": "auto",
                                       "max-model-len": 8192, "block-size": 32, "gpu-memory-utilization": 0.95,
                                       "num-scheduler-steps": 16, "enable-prefix-caching": True,
                                       "uvicorn-log-level": "warning", "disable-log-requests": True}},
                 model_config=LLAMA_65B_INSTRUCT, startup_logs=startup, gpu=gpu, log_window=(t0 - 60, t1))
    return eng


BUILDERS = {
    "zw-v030-tp-allreduce-hang-35-running": case_v030_hang,
    "zw-v060-multistep16-metrics-distorted": case_v060_multistep,
    "zw-v1-internvl-l4-running1-frozen": fixed.case_v1_frozen,
    "zw-v054-metrics-only-process-families": fixed.case_v054_process_only,
}

if __name__ == "__main__":
    ids = sys.argv[1:] or list(BUILDERS)
    for cid in ids:
        e = BUILDERS[cid]()
        print(cid, "scrapes", len(e.scrapes) if hasattr(e, "scrapes") else e)
