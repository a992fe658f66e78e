"""zxo-fa3-fp8-kv-niah128k-13pct (vllm-project/vllm-project.github.io#195, the FP8 KV-cache post).

One H100, Llama-3.1-8B-Instruct on vLLM 0.10.2 with --kv-cache-dtype fp8 (FA3, no two-level
accumulation): a 128k needle-in-a-haystack evaluation scores 13% (91% with BF16 KV). Metrics calm.

Run: python3 cases/_tools/zxo/fa3_niah_128k.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxo-fa3-fp8-kv-niah128k-13pct"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
VERSION = "0.10.2"
MML = 131072
BLOCK = 16
NUM_BLOCKS = 54928
TOKENS = NUM_BLOCKS * BLOCK          # 878,848 tokens x 65,536 B = 53.64 GiB
KV_GIB = TOKENS * 65536 / 2**30
INTERVAL = 10.0
rng = random.Random(195)

T_START = dt.datetime(2025, 10, 14, 8, 2, 11, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 420.0
N = 61
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
for c in range(2):
    t = T0 - 50.0 + c * 7.3
    while t < T_END + 30:
        p = rng.randint(110000, 128000)
        g = rng.randint(16, 48)
        prefill = round(2.6 + p / 14000.0 + (p / 131072) ** 2 * 1.2, 3)   # ~9-11 s for 110k-128k
        itl = round((6.6 + 2.75e-5 * p) / 1000.0, 5)                         # pre-fix FP8 slope
        r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=64, queue_s=round(rng.uniform(0.002, 0.01), 4),
                prefill_s=prefill, itl_s=itl)
        reqs.append(r)
        t = r.t_end + rng.uniform(0.3, 1.5)

cache_labels = {"block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "num_gpu_blocks": str(NUM_BLOCKS)}
tpl = Template("zd-fp8-kv-sleep2-wake-gibberish")
created = T_START + 88.0
scrapes = []
peak = 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=8192)
    snap.gauges[("vllm:gpu_cache_usage_perc", frozenset())] = snap.gauges[("vllm:kv_cache_usage_perc", frozenset())]
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("tokens", TOKENS, "KV GiB", round(KV_GIB, 2), "peak usage", round(peak, 3), st)

PA, PE = "(APIServer pid=1) ", "(EngineCore_0 pid=214) "
L = [
    f"{PA}INFO {fts(T_START)} [api_server.py:1896] vLLM API server version {VERSION}",
    f"{PA}INFO {fts(T_START)} [utils.py:328] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': {MML}, 'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8'}}",
    f"{PA}INFO {fts(T_START+6)} [__init__.py:742] Resolved architecture: LlamaForCausalLM",
    f"{PA}INFO {fts(T_START+6)} [__init__.py:1815] Using max model len {MML}",
    f"{PA}INFO {fts(T_START+6)} [cache.py:180] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{PA}INFO {fts(T_START+6)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{PE}INFO {fts(T_START+13)} [core.py:76] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"{PE}INFO {fts(T_START+17)} [gpu_model_runner.py:2338] Starting to load model {MODEL}...",
    f"{PE}INFO {fts(T_START+17)} [cuda.py:362] Using Flash Attention backend on V1 engine.",
    f"{PE}INFO {fts(T_START+31)} [gpu_model_runner.py:2370] Model loading took 14.9889 GiB and 12.811203 seconds",
    f"{PE}INFO {fts(T_START+52)} [gpu_worker.py:298] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{PE}INFO {fts(T_START+52)} [kv_cache_utils.py:864] GPU KV cache size: {TOKENS:,} tokens",
    f"{PE}INFO {fts(T_START+52)} [kv_cache_utils.py:868] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"{PE}INFO {fts(T_START+80)} [gpu_model_runner.py:3118] Graph capturing finished in 26 secs, took 0.55 GiB",
    f"{PE}INFO {fts(T_START+81)} [core.py:218] init engine (profile, create kv cache, warmup model) took 49.62 seconds",
    f"{PA}INFO {fts(T_START+87)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{PA}INFO:     Started server process [1]",
    f"{PA}INFO:     Waiting for application startup.",
    f"{PA}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{PA}INFO:     10.20.3.41:{52000 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
          for k, r in enumerate(reqs) if T0 - 60 <= r.t_end <= T_END]
events += stats_lines(reqs, T0 - 50, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, prefix=PA, loggers_line="loggers.py:123")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

model_config = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False,
    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.0.dev0",
    "use_cache": True, "vocab_size": 128256,
}
GIB = 2**30
gpu = []
for i in range(N):
    tt = T0 + i * INTERVAL
    gpu.append({"t": tt, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
                "memory_used": int(73.9 * GIB), "processes": [{"pid": 214, "name": "VLLM::EngineCore", "used_memory": int(73.3 * GIB)}]}]})
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 87)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--max-model-len", str(MML), "--gpu-memory-utilization", "0.9", "--kv-cache-dtype", "fp8"],
               "args": {"max-model-len": MML, "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8"}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.20.3.10:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "notes": "Long-context retrieval eval (needle in a haystack at ~128k tokens, 2 concurrent clients). With --kv-cache-dtype fp8 the eval scores 13%; the same eval on the same server with --kv-cache-dtype auto scored 91%. /metrics every 10 s during the fp8 run; server log and NVML attached."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
