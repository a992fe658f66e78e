"""zxi-dsv32-mi355x-fp8-sparse-mla-empty (vllm-project/vllm#42956).

4 x MI355X (gfx950), DeepSeek-V3.2, TP 4, --kv-cache-dtype fp8, ROCM_AITER_MLA_SPARSE: the AITER decode
kernel has no working fp8-q/fp8-kv path for 32 heads per rank; decode output is empty/garbage, so
requests run to max_tokens. Prefill is fine, metrics look calm.

Run: python3 cases/_tools/zxi/dsv32_mi355x.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxi-dsv32-mi355x-fp8-sparse-mla-empty"
MODEL = "deepseek-ai/DeepSeek-V3.2"
VERSION = "0.21.1rc1.dev412+g0fa8884c3"
MML = 65536
BLOCK = 64
KV_GIB = 92.0
BPT = 61 * 576 + 61 * 132        # 43,188 bytes per token per rank
NUM_BLOCKS = int(KV_GIB * 2**30 // (BPT * BLOCK))
TOKENS = NUM_BLOCKS * BLOCK
INTERVAL = 5.0
rng = random.Random(42956)

T_START = dt.datetime(2026, 5, 18, 6, 40, 0, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 900.0
N = 73
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
# smoke test: 3 short chats one after another
t = T0 + 5.0
for i in range(3):
    p = rng.randint(12, 30)
    r = Req(t_arrive=t, prompt_len=p, gen_len=1024, max_tokens=1024, queue_s=0.004, prefill_s=0.09,
            itl_s=0.0192, finished_reason="length")
    reqs.append(r)
    t = r.t_end + 3.0
# GSM8K-style batch: 16 concurrent workers
t_batch = t + 8.0
for w in range(16):
    t = t_batch + w * 0.05
    while t < T_END + 30:
        p = rng.randint(600, 1200)
        early = rng.random() < 0.06
        g = rng.randint(40, 700) if early else 1024
        r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=1024, queue_s=round(rng.uniform(0.002, 0.02), 4),
                prefill_s=round(0.12 + p / 9000.0, 4), itl_s=round(rng.uniform(0.0300, 0.0330), 5),
                finished_reason="stop" if early else "length")
        reqs.append(r)
        t = r.t_end + rng.uniform(0.05, 0.3)

cache_labels = {
    "block_size": str(BLOCK), "cache_dtype": "fp8", "enable_prefix_caching": "True",
    "gpu_memory_utilization": "0.9", "kv_cache_size_tokens": str(TOKENS), "num_gpu_blocks": str(NUM_BLOCKS),
    "user_specified_block_size": "False",
}
tpl = Template("zr-triton-fp8-kv-qscale-gsm8k-zero")
created = T_START + 610.0
scrapes, peak = [], 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=8192)
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
done = [r for r in reqs if r.t_end <= T_END]
print("blocks", NUM_BLOCKS, "tokens", TOKENS, "peak", round(peak, 4), "done", len(done),
      "length", sum(r.finished_reason == "length" for r in done), st)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore_DP0 pid=322) "
W = ["(Worker_TP0 pid=456) ", "(Worker_TP1 pid=457) ", "(Worker_TP2 pid=458) ", "(Worker_TP3 pid=459) "]
L = [
    f"INFO {fts(T_START)} [__init__.py:239] Automatically detected platform rocm.",
    f"{P_API}INFO {fts(T_START+3)} [api_server.py:1942] vLLM API server version {VERSION}",
    f"{P_API}INFO {fts(T_START+3)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 65536, 'tensor_parallel_size': 4, 'kv_cache_dtype': 'fp8'}}",
    f"{P_API}INFO {fts(T_START+10)} [model.py:547] Resolved architecture: DeepseekV32ForCausalLM",
    f"{P_API}INFO {fts(T_START+10)} [model.py:1510] Using max model len 65536",
    f"{P_API}INFO {fts(T_START+10)} [cache.py:213] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{P_API}INFO {fts(T_START+11)} [scheduler.py:225] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_ENG}INFO {fts(T_START+20)} [core.py:101] Initializing a V1 LLM engine ({VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len=65536, tensor_parallel_size=4, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, seed=0, served_model_name={MODEL}, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"{W[0]}INFO {fts(T_START+41)} [gpu_model_runner.py:3902] Starting to load model {MODEL}...",
    f"{W[0]}INFO {fts(T_START+41)} [rocm.py:318] Using ROCM_AITER_MLA_SPARSE backend on V1 engine.",
    f"{W[0]}WARNING {fts(T_START+41)} [kv_cache.py:94] Using uncalibrated q_scale 1.0 and/or prob_scale 1.0 with fp8 attention. This may cause accuracy issues. Please make sure q/prob scaling factors are available in the fp8 checkpoint.",
    f"{W[0]}INFO {fts(T_START+402)} [gpu_model_runner.py:3995] Model loading took 164.2318 GiB and 358.104216 seconds",
]
for w in W:
    L.append(f"{w}INFO {fts(T_START+455)} [gpu_worker.py:436] Available KV cache memory: {KV_GIB:.2f} GiB")
L += [
    f"{P_ENG}INFO {fts(T_START+456)} [kv_cache_utils.py:1733] GPU KV cache size: {TOKENS:,} tokens",
    f"{P_ENG}INFO {fts(T_START+456)} [kv_cache_utils.py:1734] Maximum concurrency for 65,536 tokens per request: {TOKENS / MML:.2f}x",
    f"{W[0]}INFO {fts(T_START+590)} [gpu_model_runner.py:5012] Graph capturing finished in 121 secs, took 1.84 GiB",
    f"{P_ENG}INFO {fts(T_START+601)} [core.py:262] init engine (profile, create kv cache, warmup model) took 198.52 seconds",
    f"{P_API}INFO {fts(T_START+607)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{P_API}INFO:     10.20.0.5:{50000 + k} - \"POST /v1/completions HTTP/1.1\" 200 OK")
          for k, r in enumerate(reqs) if T0 <= r.t_end <= T_END]
events += stats_lines(reqs, T0 + 10, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, loggers_line="loggers.py:271")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

model_config = {
    "architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32", "hidden_size": 7168,
    "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "kv_lora_rank": 512,
    "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048, "first_k_dense_replace": 3,
    "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
    "intermediate_size": 18432, "max_position_embeddings": 163840, "vocab_size": 129280, "torch_dtype": "bfloat16",
    "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "beta_fast": 32,
                     "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
}
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 607)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "65536"],
               "args": {"tensor-parallel-size": 4, "kv-cache-dtype": "fp8", "max-model-len": 65536}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.20.0.9:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "not_checked": [{"what": "gpu", "why": "NVML not available (no NVIDIA driver): AMD Instinct MI355X (ROCm)"}],
            "notes": "DeepSeek-V3.2 on 4x MI355X (gfx950), TP 4, --kv-cache-dtype fp8, nightly ROCm image. Every request returns 200 but the text is empty or garbage; the same image with KV auto (bf16) answers normally. Smoke test then a GSM8K-style batch (16 concurrent, max_tokens 1024). /metrics every 5 s, server log."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, logs=L)
