"""zxo-gguf-q5km-fp8-kv-repeats (vllm-project/vllm#10411).

vLLM 0.6.4.post1 (V0) serving a Qwen2.5-7B-Instruct Q5_K_M GGUF with FLASHINFER and --kv-cache-dtype
fp8_e4m3 on one (assumed) RTX 4090: answers degenerate into repetition and run to max_tokens.

Run: python3 cases/_tools/zxo/gguf_q5km_fp8.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot_v0, stats_lines_v0, write_bundle  # noqa: E402

CID = "zxo-gguf-q5km-fp8-kv-repeats"
MODEL = "/models/MaziyarPanahi/Qwen2.5-7B-Instruct-abliterated-v2-GGUF/Qwen2.5-7B-Instruct-abliterated-v2.Q5_K_M.gguf"
VERSION = "0.6.4.post1"
MML = 32768
BLOCK = 16
NUM_BLOCKS = 31424
TOKENS = NUM_BLOCKS * BLOCK          # 502,784 x 28,672 B = 13.43 GiB
INTERVAL = 10.0
rng = random.Random(10411)

T_START = dt.datetime(2024, 11, 18, 13, 28, 31, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 300.0
N = 61
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
t = T0 - 40.0
while t < T_END + 10:
    p = rng.randint(40, 900)
    degenerate = rng.random() < 0.85
    g = 1024 if degenerate else rng.randint(60, 300)
    r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=1024, queue_s=round(rng.uniform(0.002, 0.006), 4),
            prefill_s=round(0.04 + p / 9000.0, 4), itl_s=round(rng.uniform(0.0158, 0.0172), 5),
            finished_reason="length" if degenerate else "stop")
    reqs.append(r)
    t = r.t_end + rng.uniform(10.0, 20.0)

cache_labels = {"block_size": str(BLOCK), "cache_dtype": "fp8_e4m3", "enable_prefix_caching": "False",
                "gpu_memory_utilization": "0.9", "num_cpu_blocks": "9362", "num_gpu_blocks": str(NUM_BLOCKS),
                "swap_space_bytes": "4294967296"}
tpl = Template("zo-v064-70b-fp8-8k-tpot-regress")
created = T_START + 61.0
scrapes = []
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot_v0(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS)
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels, engine=False)})
print("tokens", TOKENS, st, sum(1 for r in reqs if r.finished_reason == "length"), len(reqs))

L = [
    f"INFO {fts(T_START)} api_server.py:585] vLLM API server version {VERSION}",
    f"INFO {fts(T_START)} api_server.py:586] args: Namespace(subparser=None, model='{MODEL}', tokenizer='Qwen/Qwen2.5-7B-Instruct', host=None, port=8000, dtype='auto', kv_cache_dtype='fp8_e4m3', quantization_param_path=None, max_model_len=None, block_size=16, enable_prefix_caching=False, swap_space=4, gpu_memory_utilization=0.9, max_num_seqs=256, quantization=None, enforce_eager=False, disable_log_stats=False, disable_log_requests=False)",
    f"INFO {fts(T_START+17)} config.py:1861] Downcasting torch.float32 to torch.float16.",
    f"INFO {fts(T_START+21)} config.py:350] This model supports multiple tasks: {{'embedding', 'generate'}}. Defaulting to 'generate'.",
    f"WARNING {fts(T_START+21)} config.py:428] gguf quantization is not fully optimized yet. The speed can be slower than non-quantized models.",
    f"INFO {fts(T_START+21)} config.py:758] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
    f"INFO {fts(T_START+22)} llm_engine.py:249] Initializing an LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len={MML}, download_dir=None, load_format=LoadFormat.GGUF, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=gguf, enforce_eager=False, kv_cache_dtype=fp8_e4m3, quantization_param_path=None, device_config=cuda, seed=0, served_model_name={MODEL}, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True",
    f"INFO {fts(T_START+24)} selector.py:135] Using Flashinfer backend.",
    f"INFO {fts(T_START+25)} model_runner.py:1072] Starting to load model {MODEL}...",
    f"INFO {fts(T_START+38)} model_runner.py:1077] Loading model weights took 5.0828 GB",
    f"INFO {fts(T_START+44)} worker.py:232] Memory profiling results: total_gpu_memory=23.99GiB initial_memory_usage=5.46GiB peak_torch_memory=6.83GiB memory_usage_post_profile=5.58GiB non_torch_memory=0.49GiB kv_cache_size=13.43GiB gpu_memory_utilization=0.90",
    f"INFO {fts(T_START+44)} gpu_executor.py:113] # GPU blocks: {NUM_BLOCKS}, # CPU blocks: 9362",
    f"INFO {fts(T_START+44)} gpu_executor.py:117] Maximum concurrency for {MML} tokens per request: {TOKENS / MML:.2f}x",
    f"INFO {fts(T_START+58)} model_runner.py:1518] Graph capturing finished in 14 secs, took 0.39 GiB",
    f"INFO {fts(T_START+60)} api_server.py:249] vLLM to use /tmp/tmp8k2w_r1x as PROMETHEUS_MULTIPROC_DIR",
    f"INFO {fts(T_START+61)} launcher.py:19] Available routes are:",
    "INFO:     Started server process [1]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
]
ev = []
for k, r in enumerate(reqs):
    if T0 - 40 <= r.t_arrive <= T_END:
        ev.append((r.t_arrive, f"INFO {fts(r.t_arrive)} logger.py:37] Received request chatcmpl-{k:04d}a6f3c2e84b1d9e: prompt: '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n...', params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.05, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=1024, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None), prompt_token_ids: [...], lora_request: None, prompt_adapter_request: None."))
        ev.append((r.t_arrive + 0.001, "INFO:     172.17.0.1:50410 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
        ev.append((r.t_arrive + 0.002, f"INFO {fts(r.t_arrive)} engine.py:267] Added request chatcmpl-{k:04d}a6f3c2e84b1d9e."))
ev += stats_lines_v0(reqs, T0 - 40, T_END, 5.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, logger="metrics.py:449")
L += [x for _, x in sorted(ev, key=lambda e: e[0])]

model_config = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
    "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
}
GIB = 2**30
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total": 25757220864,
        "memory_used": int(21.9 * GIB), "processes": []}]} for i in range(N)]
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 61)), "health": 200}
engine_args = {"argv": ["--model", MODEL, "--tokenizer", "Qwen/Qwen2.5-7B-Instruct", "--kv-cache-dtype", "fp8_e4m3"],
               "args": {"model": MODEL, "tokenizer": "Qwen/Qwen2.5-7B-Instruct", "kv-cache-dtype": "fp8_e4m3"}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "notes": "Docker on Windows 11 (vllm/vllm-openai:latest, VLLM_ATTENTION_BACKEND=FLASHINFER). The model works perfectly without KV-cache quantization; with --kv-cache-dtype fp8_e4m3 it gets about half a sentence in, then repeats a word forever (fp8_e5m2: repeats from the start). /metrics every 10 s while chatting; docker log attached. NVML from the WSL2 host shows no per-process list."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
