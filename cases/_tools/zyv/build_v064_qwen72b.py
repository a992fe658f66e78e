"""zyv-v064-profile-pool-1280-qwen72b: vLLM 0.6.4.post1 refuses to start (pool 1,280 tokens < 8,192).

Source: https://github.com/vllm-project/vllm/issues/11230 (quoted log lines reproduced as quoted)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import GIB, epoch, manifest, stamp, write_json, write_jsonl  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "zyv-v064-profile-pool-1280-qwen72b", "bundle")
MODEL = "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"
TOTAL = int(47.74 * GIB)


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    t0 = epoch("2024-12-16 02:37:40")
    t_load = epoch("2024-12-16 02:38:24")
    t_prof = epoch("2024-12-16 02:38:40")
    t_err = epoch("2024-12-16 02:38:41")
    t1 = epoch("2024-12-16 02:38:50")
    interval = 10.0

    manifest(OUT, "http://localhost:8000", t0, t1, interval,
             "Captured while the server was (re)starting with vLLM 0.6.4.post1; the engine refused to "
             "start, so /metrics never answered.")

    metrics = []
    t = t0
    while t <= t1:
        metrics.append({"t": t, "error": "GET http://localhost:8000/metrics: [Errno 111] Connection refused"})
        t += interval
    write_jsonl(os.path.join(OUT, "metrics.jsonl"), metrics)

    def used(t: float) -> int:
        if t < t0 + 15:
            return int(0.52 * GIB)
        if t < t_load:
            return int(0.52 * GIB + (t - (t0 + 15)) / (t_load - t0 - 15) * 38.0 * GIB)
        if t <= t_err:
            return int(42.62 * GIB)
        return int(0.0)

    gpu = []
    t = t0
    while t <= t1:
        u = used(t)
        procs = [{"pid": 87, "name": "python3", "used_memory": u - int(0.0)}] if u > 0 else []
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA RTX A6000", "memory_total": TOTAL,
                                         "memory_used": u if u > 0 else int(0.27 * GIB),
                                         "processes": procs}]})
        t += interval
    write_jsonl(os.path.join(OUT, "gpu.jsonl"), gpu)

    write_json(os.path.join(OUT, "engine_args.json"), {
        "argv": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL,
                 "--max-model-len", "8192", "--gpu-memory-utilization", "0.95", "--enforce-eager"],
        "args": {"model": MODEL, "max-model-len": 8192, "gpu-memory-utilization": 0.95, "enforce-eager": True}})

    write_json(os.path.join(OUT, "model_config.json"), {
        "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
        "intermediate_size": 29568, "max_position_embeddings": 32768, "max_window_layers": 80,
        "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
        "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "float16",
        "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False,
        "vocab_size": 152064,
        "quantization_config": {"bits": 4, "damp_percent": 0.01, "desc_act": False, "group_size": 128,
                                "quant_method": "gptq", "static_groups": False, "sym": True,
                                "true_sequential": True}})

    s = stamp
    L = [
        f"INFO {s(t0)} api_server.py:585] vLLM API server version 0.6.4.post1",
        f"INFO {s(t0)} api_server.py:586] args: Namespace(host=None, port=8000, model='{MODEL}', "
        "max_model_len=8192, gpu_memory_utilization=0.95, enforce_eager=True, tensor_parallel_size=1, "
        "block_size=16, swap_space=4, max_num_seqs=256, enable_chunked_prefill=None, ...)",
        f"INFO {s(t0 + 8)} gptq_marlin.py:108] The model is convertible to gptq_marlin during runtime. "
        "Using gptq_marlin kernel.",
        f"INFO {s(t0 + 9)} llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: "
        f"model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, "
        "tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, "
        "trust_remote_code=False, dtype=torch.float16, max_seq_len=8192, download_dir=None, "
        "load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "disable_custom_all_reduce=False, quantization=gptq_marlin, enforce_eager=True, "
        "kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, seed=0, "
        f"served_model_name={MODEL}, num_scheduler_steps=1, chunked_prefill_enabled=False, "
        "use_async_output_proc=False, use_cached_outputs=True, mm_processor_kwargs=None, pooler_config=None",
        f"INFO {s(t0 + 12)} selector.py:135] Using Flash Attention backend.",
        f"INFO {s(t0 + 13)} model_runner.py:1072] Starting to load model {MODEL}...",
        f"INFO {s(t_load)} model_runner.py:1077] Loading model weights took 38.5260 GB",
        f"INFO {s(t_prof)} worker.py:232] Memory profiling results: total_gpu_memory=47.74GiB "
        "initial_memory_usage=42.62GiB peak_torch_memory=40.87GiB memory_usage_post_profile=42.63GiB "
        "non_torch_memory=4.09GiB kv_cache_size=0.39GiB gpu_memory_utilization=0.95",
        f"INFO {s(t_err)} gpu_executor.py:113] # GPU blocks: 80, # CPU blocks: 819",
        f"INFO {s(t_err)} gpu_executor.py:117] Maximum concurrency for 8192 tokens per request: 0.16x",
        f"ERROR {s(t_err)} engine.py:366] The model's max seq len (8192) is larger than the maximum number "
        "of tokens that can be stored in KV cache (1280). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        f"ERROR {s(t_err)} engine.py:366] Traceback (most recent call last):",
        f"ERROR {s(t_err)} engine.py:366]   File \"/usr/local/lib/python3.12/dist-packages/vllm/engine/"
        "multiprocessing/engine.py\", line 357, in run_mp_engine",
        f"ERROR {s(t_err)} engine.py:366]     engine = MQLLMEngine.from_engine_args(engine_args=engine_args,",
        f"ERROR {s(t_err)} engine.py:366]   File \"/usr/local/lib/python3.12/dist-packages/vllm/worker/"
        "worker.py\", line 500, in raise_if_cache_size_invalid",
        f"ERROR {s(t_err)} engine.py:366]     raise ValueError(",
        f"ERROR {s(t_err)} engine.py:366] ValueError: The model's max seq len (8192) is larger than the "
        "maximum number of tokens that can be stored in KV cache (1280). Try increasing "
        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        "Process SpawnProcess-1:",
        "RuntimeError: Engine process failed to start",
    ]
    with open(os.path.join(OUT, "logs.txt"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
