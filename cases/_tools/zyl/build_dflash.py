"""zyl-dflash-drafter-hybrid-zero-hits: Qwen3.6-27B-FP8 (GDN hybrid) + mixed DFlash
drafter on one RTX PRO 5000 48GB, vLLM 0.27.1; the same 55,009-token prompt is
replayed and never hits (vllm#51250)."""
import json
import math
import os
import random
from datetime import datetime, timezone

from common import write_bundle
from prom import Engine  # noqa: F401
from sim import engine_at, stamp, stats_lines
from prom import render

random.seed(51250)
OUT = os.path.join(os.path.dirname(__file__), "../../zyl-dflash-drafter-hybrid-zero-hits")
T0 = int(datetime(2026, 8, 14, 9, 20, 0, tzinfo=timezone.utc).timestamp())
WIN = 600
BLOCK = 864
KV_BLOCKS = 200          # 172,800 tokens
MML = 131072
P = 55009
K = 16
ACC = [0.86 * (0.78 ** i) for i in range(K)]   # per-position acceptance profile
STEP = 0.102
CHUNKS = [7776] * 7 + [577]
MODEL = "Qwen/Qwen3.6-27B-FP8"

reqs = []


def add(a, prompt, gen, max_tokens, chunks, prefill):
    s = a + 0.004
    f = s + prefill
    nd = max(1, round((gen - 1) / 4.6))
    e = f + nd * STEP
    reqs.append(dict(a=a, s=s, f=f, e=e, eng=0, P=prompt, H=0, G=gen, M=max_tokens,
                     reason="length" if gen >= max_tokens else "stop", chunks=chunks,
                     step=STEP, k=K, acc=ACC))


# before the window: a short warm-up request and 7 replays of the same prompt
add(T0 - 470, 412, 16, 16, [412], 0.21)
for i in range(7):
    add(T0 - 400 + 50 * i, P, random.choice([512, 468, 431, 512, 397]), 512, CHUNKS,
        11.6 + random.random())
# the window: 12 replays, one about every 50 s
for i in range(12):
    add(T0 + 20 + 50 * i + random.uniform(-2, 2), P, random.choice([512, 468, 431, 512, 397, 455]), 512,
        CHUNKS, 11.6 + random.random())

cache_info = {
    "block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
    "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
    "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
    "mamba_cache_mode": "align", "mamba_ssm_cache_dtype": "float32", "num_cpu_blocks": "None",
    "num_gpu_blocks": str(KV_BLOCKS), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
}


def kv_at(t):
    return engine_at(t, reqs, 0, MML, KV_BLOCKS, BLOCK, kv_extra=10, spec_k=K).kv


scrapes = []
for i in range(WIN // 10 + 1):
    t = T0 + 10 * i
    e = engine_at(t, reqs, 0, MML, KV_BLOCKS, BLOCK, kv_extra=10, spec_k=K)
    scrapes.append({"t": t, "status": 200, "text": render({0: e}, MODEL, cache_info)})

# logs
API, CORE = 4117, 4290
boot = T0 - 900
L = []
L.append(f"(APIServer pid={API}) INFO {stamp(boot)} [api_server.py:1901] vLLM API server version 0.27.1")
L.append(f"(APIServer pid={API}) INFO {stamp(boot)} [utils.py:253] non-default args: {{'model_tag': '{MODEL}', "
         f"'model': '{MODEL}', 'max_model_len': {MML}, 'attention_backend': 'FLASH_ATTN', "
         "'enable_prefix_caching': True, 'gpu_memory_utilization': 0.9, "
         "'speculative_config': {'method': 'dflash', 'model': 'z-lab/Qwen3.6-27B-DFlash', 'num_speculative_tokens': 16}}")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 6)} [model.py:547] Resolved architecture: Qwen3_5ForConditionalGeneration")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 6)} [model.py:1510] Using max model len {MML}")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 7)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 7)} [interface.py:928] Setting attention block size to {BLOCK} tokens to ensure that attention page size is >= mamba page size.")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 12)} [core.py:97] Initializing a V1 LLM engine (v0.27.1) with config: model='{MODEL}', "
         "speculative_config=SpeculativeConfig(method='dflash', model='z-lab/Qwen3.6-27B-DFlash', num_spec_tokens=16), "
         f"tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, quantization=fp8, enforce_eager=False, "
         "kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 20)} [cuda.py:364] Using FLASH_ATTN attention backend.")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 61)} [default_loader.py:291] Loading weights took 38.42 seconds")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 72)} [gpu_model_runner.py:3410] Model loading took 30.09 GiB memory and 58.77 seconds")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 118)} [gpu_worker.py:391] Available KV cache memory: 10.55 GiB")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 118)} [kv_cache_utils.py:1291] GPU KV cache size: {KV_BLOCKS * BLOCK:,} tokens")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 118)} [kv_cache_utils.py:1296] Maximum concurrency for {MML:,} tokens per request: {KV_BLOCKS * BLOCK / MML:.2f}x")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 161)} [gpu_model_runner.py:4388] Graph capturing finished in 41 secs, took 1.12 GiB")
L.append(f"(EngineCore pid={CORE}) INFO {stamp(boot + 163)} [core.py:230] init engine (profile, create kv cache, warmup model) took 89.71 seconds")
L.append(f"(APIServer pid={API}) INFO {stamp(boot + 170)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000")
L.append(f"(APIServer pid={API}) INFO:     Application startup complete.")

ev = []


def spec_text(acc, dr):
    mal = 1 + acc / (dr / K)
    per = ", ".join(f"{ACC[p]:.3f}" for p in range(K))
    return (f"SpecDecoding metrics: Mean acceptance length: {mal:.2f}, Accepted throughput: {acc / 10:.2f} tokens/s, "
            f"Drafted throughput: {dr / 10:.2f} tokens/s, Accepted: {int(acc)} tokens, Drafted: {int(dr)} tokens, "
            f"Per-position acceptance rate: {per}, Avg Draft acceptance rate: {acc / dr * 100:.1f}%")


for r in reqs:
    if r["e"] <= T0 + WIN and r["e"] > T0 - 500:
        ev.append((r["e"], f"(APIServer pid={API}) INFO:     10.40.3.17:{random.randint(40000, 60000)} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
ev += stats_lines(T0 - 480, T0 + WIN, reqs, 0, kv_at, API, line="loggers.py:271",
                  spec_line=("metrics.py:101", spec_text))
ev.sort(key=lambda x: x[0])
logs = "\n".join(L + [x[1] for x in ev]) + "\n"

layer_types = (["linear_attention"] * 3 + ["full_attention"]) * 16
model_config = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "image_token_id": 248056,
    "video_token_id": 248057,
    "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408,
        "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
        "layer_types": layer_types, "full_attention_interval": 4,
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
        "linear_num_value_heads": 48, "linear_value_head_dim": 128,
        "max_position_embeddings": 262144, "rms_norm_eps": 1e-06, "vocab_size": 248320,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
        "torch_dtype": "bfloat16", "mamba_ssm_dtype": "float32", "attn_output_gate": True,
    },
    "vision_config": {"depth": 27, "hidden_size": 1152, "num_heads": 16, "out_hidden_size": 5120},
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128],
                            "activation_scheme": "dynamic"},
    "tie_word_embeddings": False,
    "transformers_version": "5.13.0",
}

TOT = 51_305_185_280
gpu = []
for s in scrapes:
    t = s["t"]
    kv = kv_at(t)
    used = int(0.9 * TOT) + 402_653_184 + random.randint(0, 4) * 2_097_152
    gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 5000 Blackwell", "memory_total": TOT,
                                     "memory_used": used,
                                     "processes": [{"pid": CORE, "name": "VLLM::EngineCore", "used_memory": used - 402_653_184}]}]})

server = {"version": {"version": "0.27.1"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
argv = ["vllm", "serve", MODEL, "--enable-prefix-caching", "--attention-backend", "FLASH_ATTN",
        "--max-model-len", str(MML), "--gpu-memory-utilization", "0.9", "--speculative-config",
        json.dumps({"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "num_speculative_tokens": 16})]
engine_args = {"argv": argv, "args": {"model": MODEL, "enable-prefix-caching": True,
                                      "attention-backend": "FLASH_ATTN", "max-model-len": MML,
                                      "gpu-memory-utilization": 0.9,
                                      "speculative-config": {"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash",
                                                             "num_speculative_tokens": 16}}}
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://127.0.0.1:8000",
            "started_at": T0, "ended_at": T0 + WIN, "interval_s": 10.0,
            "notes": "single RTX PRO 5000; long-document Q&A replay, same document every request; prefix cache hit rate reads 0%"}
write_bundle(os.path.join(OUT, "bundle"), manifest, scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=logs)

# prompts: the operator's replay file, same document each time (~55k tokens)
para = ("Section {n}. The maintenance contract for the regional water utility covers pump stations, "
        "treatment basins, telemetry and the emergency response roster; each clause below lists the "
        "obligations of the contractor, the inspection intervals and the penalties for missed targets. ")
doc = "".join(para.format(n=i) for i in range(1, 856))
q = "\n\nQuestion: list every clause that sets an inspection interval shorter than 30 days, with its penalty."
with open(os.path.join(OUT, "prompts.jsonl"), "w") as f:
    for _ in range(3):
        f.write(json.dumps({"prompt": doc + q, "max_tokens": 512}) + "\n")
print("window requests", sum(1 for r in reqs if T0 <= r["a"] <= T0 + WIN))
