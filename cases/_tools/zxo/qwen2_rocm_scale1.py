"""zxo-qwen2-7b-rocm-fp8-kv-scale1-ppl (vllm-project/vllm#11906).

One MI300X (ROCm), Qwen2-7B-Instruct on vLLM 0.6.6.post1 (V0) with --kv-cache-dtype fp8 and no scales:
k/v scale 1.0, PPL 34.84 (22.62 with scales computed from the first input). Metrics calm.

Run: python3 cases/_tools/zxo/qwen2_rocm_scale1.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot_v0, stats_lines_v0, write_bundle  # noqa: E402

CID = "zxo-qwen2-7b-rocm-fp8-kv-scale1-ppl"
MODEL = "Qwen/Qwen2-7B-Instruct"
VERSION = "0.6.6.post1"
MML = 32768
BLOCK = 16
NUM_BLOCKS = 351104
TOKENS = NUM_BLOCKS * BLOCK          # 5,617,664 x 28,672 B = 150.0 GiB
INTERVAL = 10.0
rng = random.Random(11906)

T_START = dt.datetime(2025, 1, 8, 14, 20, 5, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 900.0
N = 61
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
t = T0 - 120.0
while t < T_END + 20:
    p = rng.randint(300, 2500)
    g = rng.randint(100, 600)
    r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=1024, queue_s=round(rng.uniform(0.002, 0.02), 4),
            prefill_s=round(0.03 + p / 40000.0, 4), itl_s=round(rng.uniform(0.0135, 0.0165), 5))
    reqs.append(r)
    t += rng.expovariate(3.0)

cache_labels = {"block_size": str(BLOCK), "cache_dtype": "fp8", "enable_prefix_caching": "False",
                "gpu_memory_utilization": "0.9", "num_cpu_blocks": "9362", "num_gpu_blocks": str(NUM_BLOCKS), "swap_space_bytes": "4294967296"}
tpl = Template("zo-v064-70b-fp8-8k-tpot-regress")
created = T_START + 75.0
scrapes = []
peak = 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot_v0(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS)
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels, engine=False)})
print("tokens", TOKENS, "peak usage", round(peak, 4), st)

L = [
    f"INFO {fts(T_START-3)} __init__.py:183] Automatically detected platform rocm.",
    f"INFO {fts(T_START)} api_server.py:651] vLLM API server version {VERSION}",
    f"INFO {fts(T_START)} api_server.py:652] args: Namespace(subparser='serve', model_tag='{MODEL}', host='0.0.0.0', port=8000, model='{MODEL}', dtype='auto', kv_cache_dtype='fp8', quantization_param_path=None, max_model_len=None, block_size=None, enable_prefix_caching=None, swap_space=4, gpu_memory_utilization=0.9, max_num_seqs=256, quantization=None, enforce_eager=False, disable_log_stats=False, disable_log_requests=True)",
    f"INFO {fts(T_START+6)} config.py:510] This model supports multiple tasks: {{'generate', 'embed', 'score', 'reward', 'classify'}}. Defaulting to 'generate'.",
    f"INFO {fts(T_START+6)} config.py:944] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
    f"INFO {fts(T_START+7)} llm_engine.py:234] Initializing an LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len={MML}, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=fp8, quantization_param_path=None, device_config=cuda, seed=0, served_model_name={MODEL}, num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True",
    f"INFO {fts(T_START+9)} selector.py:134] Using ROCmFlashAttention backend.",
    f"INFO {fts(T_START+10)} model_runner.py:1094] Starting to load model {MODEL}...",
    f"INFO {fts(T_START+24)} model_runner.py:1099] Loading model weights took 14.2487 GB",
    f"INFO {fts(T_START+38)} worker.py:241] Memory profiling takes 13.42 seconds",
    f"INFO {fts(T_START+38)} worker.py:241] the current vLLM instance can use total_gpu_memory (191.98GiB) x gpu_memory_utilization (0.90) = 172.78GiB",
    f"INFO {fts(T_START+38)} worker.py:241] model weights take 14.25GiB; non_torch_memory takes 0.52GiB; PyTorch activation peak memory takes 8.01GiB; the rest of the memory reserved for KV Cache is 150.00GiB.",
    f"INFO {fts(T_START+38)} executor_base.py:92] # GPU blocks: {NUM_BLOCKS}, # CPU blocks: 9362",
    f"INFO {fts(T_START+38)} executor_base.py:97] Maximum concurrency for {MML} tokens per request: {TOKENS / MML:.2f}x",
    f"INFO {fts(T_START+70)} model_runner.py:1535] Graph capturing finished in 31 secs, took 0.61 GiB",
    f"INFO {fts(T_START+70)} llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 45.87 seconds",
    f"INFO {fts(T_START+74)} launcher.py:19] Available routes are:",
    "INFO:     Started server process [1]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
]
events = [(r.t_end, f"INFO:     10.8.1.{20 + k % 7}:{40000 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
          for k, r in enumerate(reqs) if T0 - 30 <= r.t_end <= T_END]
events += stats_lines_v0(reqs, T0 - 30, T_END, 5.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, logger="metrics.py:467")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

model_config = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
    "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.41.2",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
}
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 74)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.9"],
               "args": {"kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.9}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.8.1.5:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "not_checked": [{"what": "gpu", "why": "NVML not available (no NVIDIA driver): AMD Instinct MI300X (ROCm)"}],
            "notes": "ROCm host, one MI300X. Since enabling --kv-cache-dtype fp8 (no scales file) answers of Qwen2-7B-Instruct got noticeably worse; the decode-step perplexity check gives 34.84 with the fp8 KV cache. /metrics every 10 s of normal chat traffic, server log attached."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, logs=L)
