"""zxi-mi250-e5m2-triton-writer-e4m3 (vllm-project/vllm#54341).

One MI250 GCD (ROCm), Qwen/Qwen3-0.6B, --kv-cache-dtype fp8_e5m2 --block-size 64: the ROCm attention
backend writes the KV cache through the Triton writer (block sizes other than 16/32), which stores e4m3
bits that the readers decode as e5m2. Answers are wrong; the metrics are calm.

Run: python3 cases/_tools/zxi/mi250_e5m2.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxi-mi250-e5m2-triton-writer-e4m3"
MODEL = "Qwen/Qwen3-0.6B"
VERSION = "0.28.1rc1.dev318+g4b7e2c9a1.rocm711"
MML = 40960
BLOCK = 64
KV_GIB = 54.0
BPT = 28 * 8 * 128 * 2          # 57,344 bytes per token, fp8
NUM_BLOCKS = int(KV_GIB * 2**30 // (BPT * BLOCK))
TOKENS = NUM_BLOCKS * BLOCK
INTERVAL = 5.0
rng = random.Random(54341)

T_START = dt.datetime(2026, 8, 31, 9, 12, 4, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 600.0
N = 73
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
clients = [T0 - 30.0 + i * 0.7 for i in range(4)]
for c in range(4):
    t = clients[c]
    while t < T_END + 20:
        p = rng.randint(30, 400)
        g = rng.randint(60, 256)
        r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=256, queue_s=round(rng.uniform(0.001, 0.004), 4),
                prefill_s=round(0.011 + p / 60000.0, 4), itl_s=round(rng.uniform(0.0079, 0.0088), 5),
                finished_reason="length" if g == 256 else "stop")
        reqs.append(r)
        t = r.t_end + rng.uniform(2.0, 5.0)

cache_labels = {
    "block_size": str(BLOCK), "cache_dtype": "fp8_e5m2", "enable_prefix_caching": "True",
    "gpu_memory_utilization": "0.9", "kv_cache_max_concurrency": f"{TOKENS / MML:.2f}",
    "kv_cache_size_tokens": str(TOKENS), "num_gpu_blocks": str(NUM_BLOCKS), "user_specified_block_size": "True",
}
tpl = Template("zzl-tls-lb-sse-buffer-healthy")
created = T_START + 96.0
scrapes = []
peak = 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=8192)
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("blocks", NUM_BLOCKS, "tokens", TOKENS, "peak usage", peak, st)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore pid=188) "
L = [
    f"INFO {fts(T_START)} [__init__.py:241] Automatically detected platform rocm.",
    f"{P_API}INFO {fts(T_START+2)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version {VERSION}",
    f"{P_API}INFO {fts(T_START+2)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'block_size': 64, 'kv_cache_dtype': 'fp8_e5m2'}}",
    f"{P_API}INFO {fts(T_START+7)} [model.py:561] Resolved architecture: Qwen3ForCausalLM",
    f"{P_API}INFO {fts(T_START+7)} [model.py:1702] Using max model len {MML}",
    f"{P_API}INFO {fts(T_START+7)} [cache.py:224] Using fp8_e5m2 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{P_API}INFO {fts(T_START+8)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_ENG}INFO {fts(T_START+15)} [core.py:114] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=fp8_e5m2, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"{P_ENG}INFO {fts(T_START+19)} [gpu_model_runner.py:5311] Starting to load model {MODEL}...",
    f"{P_ENG}INFO {fts(T_START+19)} [rocm.py:412] Using Rocm Attention backend.",
    f"{P_ENG}INFO {fts(T_START+27)} [gpu_model_runner.py:5405] Model loading took 1.12 GiB memory and 7.604311 seconds",
    f"{P_ENG}INFO {fts(T_START+49)} [gpu_worker.py:563] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{P_ENG}INFO {fts(T_START+49)} [kv_cache_utils.py:2146] GPU KV cache size: {TOKENS:,} tokens",
    f"{P_ENG}INFO {fts(T_START+49)} [kv_cache_utils.py:2147] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"{P_ENG}INFO {fts(T_START+88)} [gpu_model_runner.py:6582] Graph capturing finished in 37 secs, took 0.41 GiB",
    f"{P_ENG}INFO {fts(T_START+90)} [core.py:282] init engine (profile, create kv cache, warmup model) took 62.83 seconds",
    f"{P_API}INFO {fts(T_START+95)} [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{P_API}INFO:     10.4.2.17:{41000 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
          for k, r in enumerate(reqs) if T0 - 40 <= r.t_end <= T_END]
events += stats_lines(reqs, T0 - 30, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, loggers_line="loggers.py:257")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

model_config = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
    "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3072,
    "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16,
    "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": None,
    "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 95)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--kv-cache-dtype", "fp8_e5m2", "--block-size", "64"],
               "args": {"kv-cache-dtype": "fp8_e5m2", "block-size": 64}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.4.2.30:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "not_checked": [{"what": "gpu", "why": "NVML not available (no NVIDIA driver): AMD Instinct MI250 (ROCm)"}],
            "notes": "ROCm host, one MI250 GCD. Since switching the KV cache to fp8_e5m2 (with --block-size 64) the QA run's answers are wrong or nonsensical; with --kv-cache-dtype auto the same prompts answer correctly (e.g. 'The capital of France is' -> ' Paris. The capital of ...'). /metrics every 5 s during the QA run (4 clients), server log attached."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, logs=L)
