"""zxi-35b-nvfp4-5090-fp8kv-scale1-healthy (noonghunna/club-3090#621, validating #619).

vLLM v0.24.0, Qwen3.6-35B-A3B NVFP4 (modelopt_mixed) on one RTX 5090, fp8 KV at scale 1.0, 131K
context, MTP off. Start-up warns about the missing k/v scales; the validation passed (verify-full 9/9,
needles clean, soak PASS), decode 255.8 TPS at 60 ms TTFT. Healthy.

Run: python3 cases/_tools/zxi/nvfp4_35b_5090.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxi-35b-nvfp4-5090-fp8kv-scale1-healthy"
MODEL_PATH = "/models/Qwen3.6-35B-A3B-NVFP4"
SERVED = "qwen3.6-35b-a3b"
VERSION = "0.24.0"
MML = 131072
BLOCK = 2096                     # 2,146,304-byte GDN page / 1,024 fp8 bytes per token per attention layer
PAGE = 2146304
GROUPS = 4                       # 10 attention layers + 3 x 10 GDN layers
KV_GIB = 6.05
NUM_BLOCKS = int(KV_GIB * 2**30 // (10 * PAGE))
TOKENS = int(NUM_BLOCKS / GROUPS * BLOCK)
TOTAL = 34190917632              # RTX 5090: 32,607 MiB
INTERVAL = 5.0
rng = random.Random(621)

T_START = dt.datetime(2026, 7, 7, 1, 10, 0, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 1500.0
N = 73
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
t = T0 - 4.0
while t < T_END + 10:
    p = rng.randint(300, 3000)
    g = rng.randint(600, 1500)
    r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=2048, queue_s=round(rng.uniform(0.001, 0.003), 4),
            prefill_s=round(0.045 + p / 120000.0, 4), itl_s=round(rng.uniform(0.00386, 0.00393), 6), finished_reason="stop")
    reqs.append(r)
    t = r.t_end + rng.uniform(0.8, 2.5)

cache_labels = {
    "block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
    "gpu_memory_utilization": "0.92", "kv_cache_max_concurrency": f"{TOKENS / MML:.2f}",
    "kv_cache_size_tokens": str(TOKENS), "mamba_block_size": str(BLOCK), "mamba_cache_mode": "align",
    "mamba_page_size_padded": str(PAGE), "mamba_ssm_cache_dtype": "float32", "num_gpu_blocks": str(NUM_BLOCKS),
}
tpl = Template("w-int8-kv-triton-decode-falloff-2x3090")
created = T_START + 241.0
scrapes, peak = [], 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS, caching=True)
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=SERVED, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("blocks", NUM_BLOCKS, "tokens", TOKENS, "peak", round(peak, 4), "reqs", len(reqs), st)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore pid=97) "
args = (f"{{'model_tag': '{MODEL_PATH}', 'host': '0.0.0.0', 'port': 8020, 'model': '{MODEL_PATH}', 'trust_remote_code': True, "
        f"'max_model_len': 131072, 'quantization': 'modelopt_mixed', 'served_model_name': ['{SERVED}'], "
        f"'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'max_num_seqs': 4, "
        f"'reasoning_parser': 'qwen3', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder'}}")
L = [
    f"{P_API}INFO {fts(T_START)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version {VERSION}",
    f"{P_API}INFO {fts(T_START)} [utils.py:233] non-default args: {args}",
    f"{P_API}INFO {fts(T_START+9)} [model.py:561] Resolved architecture: Qwen3_5MoeForConditionalGeneration",
    f"{P_API}INFO {fts(T_START+9)} [model.py:1702] Using max model len 131072",
    f"{P_API}INFO {fts(T_START+9)} [cache.py:224] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{P_API}INFO {fts(T_START+10)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_API}INFO {fts(T_START+10)} [interface.py:773] Setting attention block size to {BLOCK} tokens to ensure that attention page size is >= mamba page size.",
    f"{P_ENG}INFO {fts(T_START+19)} [core.py:101] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL_PATH}', speculative_config=None, tokenizer='{MODEL_PATH}', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, quantization=modelopt_mixed, enforce_eager=False, kv_cache_dtype=fp8, served_model_name={SERVED}, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"{P_ENG}INFO {fts(T_START+26)} [gpu_model_runner.py:3702] Starting to load model {MODEL_PATH}...",
    f"{P_ENG}INFO {fts(T_START+27)} [cuda.py:412] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']",
    f"{P_ENG}WARNING {fts(T_START+88)} [kv_cache.py:109] Using KV cache scaling factor 1.0 for fp8_e4m3. If this is unintended, verify that k/v_scale scaling factors are properly set in the checkpoint.",
    f"{P_ENG}INFO {fts(T_START+90)} [gpu_model_runner.py:3795] Model loading took 21.7346 GiB and 62.318442 seconds",
    f"{P_ENG}INFO {fts(T_START+131)} [gpu_worker.py:466] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{P_ENG}INFO {fts(T_START+131)} [kv_cache_utils.py:1733] GPU KV cache size: {TOKENS:,} tokens",
    f"{P_ENG}INFO {fts(T_START+131)} [kv_cache_utils.py:1734] Maximum concurrency for 131,072 tokens per request: {TOKENS / MML:.2f}x",
    f"{P_ENG}INFO {fts(T_START+228)} [gpu_model_runner.py:4658] Graph capturing finished in 94 secs, took 0.61 GiB",
    f"{P_ENG}INFO {fts(T_START+230)} [core.py:271] init engine (profile, create kv cache, warmup model) took 140.12 seconds",
    f"{P_API}INFO {fts(T_START+240)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8020",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{P_API}INFO:     172.17.0.1:{46000 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
          for k, r in enumerate(reqs) if T0 - 20 <= r.t_end <= T_END]
events += stats_lines(reqs, T0 - 20, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS,
                      loggers_line="loggers.py:259")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

proc = 30_600_000_000 - 455_000_000
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "memory_total": TOTAL,
        "memory_used": proc + 455_000_000 + (i % 3) * 2_097_152,
        "processes": [{"pid": 97, "name": "VLLM::EngineCore", "used_memory": proc + (i % 3) * 2_097_152}]}]}
       for i in range(N)]

layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(40)]
model_config = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
    "text_config": {
        "model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40, "layer_types": layer_types,
        "full_attention_interval": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8,
        "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "max_position_embeddings": 262144,
        "rms_norm_eps": 1e-06, "vocab_size": 248320, "torch_dtype": "bfloat16",
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152},
    "quantization_config": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8"},
    "torch_dtype": "bfloat16",
}
server = {"version": {"version": VERSION}, "models": models_body(SERVED, MODEL_PATH, MML, int(T_START + 240)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL_PATH, "--served-model-name", SERVED, "--max-model-len", "131072",
                        "--quantization", "modelopt_mixed", "--gpu-memory-utilization", "0.92", "--kv-cache-dtype", "fp8",
                        "--enable-prefix-caching", "--max-num-seqs", "4", "--trust-remote-code", "--host", "0.0.0.0",
                        "--port", "8020"],
               "args": {"served-model-name": SERVED, "max-model-len": 131072, "quantization": "modelopt_mixed",
                        "gpu-memory-utilization": 0.92, "kv-cache-dtype": "fp8", "enable-prefix-caching": True,
                        "max-num-seqs": 4}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://127.0.0.1:8020", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "notes": "first boot of the NVFP4 35B-A3B compose on one RTX 5090 (vLLM 0.24.0, fp8 KV at 131K, MTP off). The log warns that the KV scaling factor is 1.0 and that fp8 KV may cause accuracy drop; are answers being hurt? Capture during the bench/soak phase (single stream). verify-full 9/9 and needle tests at 9.8K and 29K passed in the same session. /metrics every 5 s, NVML, server log."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
