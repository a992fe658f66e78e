"""zxc-nvfp4-kv-sm120-bang-collapse (vllm-project/vllm#49818, review comment of 2026-07-25).

RTX 5090 (SM120), Qwen3.6-27B NVFP4 W4A4, main 0ba2aa35 + the SM120 NVFP4-KV PR, --kv-cache-dtype
nvfp4: every generation runs to its 1024-token budget as '!' (token id 0). Metrics look calm.

Run: python3 cases/_tools/zxc/nvfp4_sm120.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxc-nvfp4-kv-sm120-bang-collapse"
MODEL_PATH = "/models/Qwen3.6-27B-NVFP4-W4A4"
SERVED = "qwen3.6-27b"
VERSION = "0.26.0rc1.dev198+g0ba2aa35"
MML = 32768
BLOCK = 2784                     # 3,207,168-byte GDN page / 1,152 bytes per token per attention layer
PAGE = 3207168
GROUPS = 4                       # 16 attention layers + 3 x 16 GDN layers
KV_GIB = 10.58
NUM_BLOCKS = int(KV_GIB * 2**30 // (16 * PAGE))
TOTAL = 34190917632              # RTX 5090: 32,607 MiB
INTERVAL = 5.0
rng = random.Random(49818)

T_START = dt.datetime(2026, 7, 25, 14, 2, 40, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 240.0
N = 61                           # 5 minutes
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
t = T0 + 12.0
for i in range(5):                       # the five test prompts, one after another
    r = Req(t_arrive=t, prompt_len=rng.randint(24, 58), gen_len=1024, max_tokens=1024, queue_s=0.003,
            prefill_s=0.041, itl_s=round(rng.uniform(0.0158, 0.0163), 5), finished_reason="length")
    reqs.append(r)
    t = r.t_end + rng.uniform(1.5, 3.0)
t += 20.0
for i in range(8):                       # concurrency check: 8 at once
    reqs.append(Req(t_arrive=round(t + 0.05 * i, 3), prompt_len=rng.randint(24, 60), gen_len=1024, max_tokens=1024,
                    queue_s=0.004, prefill_s=0.06, itl_s=round(rng.uniform(0.0206, 0.0214), 5),
                    finished_reason="length"))
assert max(r.t_end for r in reqs) < T_END, (max(r.t_end for r in reqs) - T0)

cache_labels = {
    "_block_size_resolved": "True", "block_size": str(BLOCK), "cache_dtype": "nvfp4",
    "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None", "enable_prefix_caching": "False",
    "gpu_memory_utilization": "0.92", "is_attention_free": "False", "kv_cache_memory_bytes": "None",
    "kv_offloading_backend": "native", "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False",
    "mamba_block_size": str(MML), "mamba_cache_dtype": "auto", "mamba_cache_mode": "none",
    "mamba_page_size_padded": str(PAGE), "mamba_ssm_cache_dtype": "float32", "num_cpu_blocks": "None",
    "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "user_specified_block_size": "False",
}
tpl = Template("k-qwen35-4b-align-ckpt-in-unique-suffix")
created = T_START + 198.5
scrapes = []
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS, caching=False)
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=SERVED, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("final", st, "blocks", NUM_BLOCKS, "tokens", NUM_BLOCKS // GROUPS * BLOCK)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore_DP0 pid=233) "
args = (f"{{'model_tag': '{MODEL_PATH}', 'model': '{MODEL_PATH}', 'served_model_name': ['{SERVED}'], "
        f"'max_model_len': 32768, 'gpu_memory_utilization': 0.92, 'kv_cache_dtype': 'nvfp4', 'max_num_seqs': 8, "
        f"'language_model_only': True, 'compilation_config': {{'cudagraph_mode': 'PIECEWISE'}}}}")
L = [
    f"INFO {fts(T_START)} [__init__.py:216] Automatically detected platform cuda.",
    f"{P_API}INFO {fts(T_START+2)} [api_server.py:2061] vLLM API server version {VERSION}",
    f"{P_API}INFO {fts(T_START+2)} [utils.py:302] non-default args: {args}",
    f"{P_API}INFO {fts(T_START+8)} [model.py:561] Resolved architecture: Qwen3_5ForConditionalGeneration",
    f"{P_API}INFO {fts(T_START+8)} [model.py:1702] Using max model len 32768",
    f"{P_API}INFO {fts(T_START+8)} [cache.py:224] Using nvfp4 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.",
    f"{P_API}INFO {fts(T_START+9)} [scheduler.py:248] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_API}INFO {fts(T_START+9)} [interface.py:773] Setting attention block size to {BLOCK} tokens to ensure that attention page size is >= mamba page size.",
    f"{P_ENG}INFO {fts(T_START+17)} [core.py:104] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL_PATH}', speculative_config=None, tokenizer='{MODEL_PATH}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=nvfp4, device_config=cuda, seed=0, served_model_name={SERVED}, enable_prefix_caching=False, chunked_prefill_enabled=True",
    f"{P_ENG}INFO {fts(T_START+25)} [gpu_model_runner.py:3702] Starting to load model {MODEL_PATH}...",
    f"{P_ENG}INFO {fts(T_START+26)} [cuda.py:412] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']",
    f"{P_ENG}INFO {fts(T_START+71)} [gpu_model_runner.py:3795] Model loading took 16.3817 GiB and 44.903127 seconds",
    f"{P_ENG}INFO {fts(T_START+104)} [gpu_worker.py:402] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{P_ENG}INFO {fts(T_START+104)} [kv_cache_utils.py:1388] GPU KV cache size: {NUM_BLOCKS // GROUPS * BLOCK:,} tokens",
    f"{P_ENG}INFO {fts(T_START+104)} [kv_cache_utils.py:1392] Maximum concurrency for 32,768 tokens per request: {NUM_BLOCKS / (12 + GROUPS - 1):.2f}x",
    f"{P_ENG}INFO {fts(T_START+105)} [flashinfer.py:611] FlashInfer resolved query dtypes: prefill=torch.bfloat16, decode=torch.bfloat16, decode_backend=xqa, kv_cache_dtype=nvfp4, arch=sm120",
    f"{P_ENG}INFO {fts(T_START+193)} [gpu_model_runner.py:4658] Graph capturing finished in 86 secs, took 0.38 GiB",
    f"{P_ENG}INFO {fts(T_START+195)} [core.py:271] init engine (profile, create kv cache, warmup model) took 123.60 seconds",
    f"{P_API}INFO {fts(T_START+196)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NUM_BLOCKS}",
    f"{P_API}INFO {fts(T_START+198)} [api_server.py:2139] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{P_API}INFO:     127.0.0.1:{51200 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK") for k, r in enumerate(reqs)]
events += stats_lines(reqs, T0, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS, caching=False)
L += [x for _, x in sorted(events, key=lambda e: e[0])]

proc = 31_205_425_152
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "memory_total": TOTAL,
        "memory_used": proc + 412_090_368, "processes": [{"pid": 233, "name": "VLLM::EngineCore_DP0", "used_memory": proc}]}]}
       for i in range(N)]

layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(64)]
model_config = {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64, "layer_types": layer_types,
        "full_attention_interval": 4, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "intermediate_size": 17408,
        "max_position_embeddings": 262144, "rms_norm_eps": 1e-06, "vocab_size": 248320,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
        "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152},
    "quantization_config": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
                            "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16},
                                                          "input_activations": {"num_bits": 4, "type": "float", "group_size": 16},
                                                          "targets": ["Linear"]}},
                            "ignore": ["lm_head", "re:.*linear_attn.*in_proj_[ab]$", "re:.*visual.*"]},
    "torch_dtype": "bfloat16",
}
server = {"version": {"version": VERSION}, "models": models_body(SERVED, MODEL_PATH, MML, int(T_START + 198)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL_PATH, "--served-model-name", SERVED, "--max-model-len", "32768",
                        "--gpu-memory-utilization", "0.92", "--kv-cache-dtype", "nvfp4", "--max-num-seqs", "8",
                        "--language-model-only", "-cc.cudagraph_mode=PIECEWISE"],
               "args": {"served-model-name": SERVED, "max-model-len": 32768, "gpu-memory-utilization": 0.92,
                        "kv-cache-dtype": "nvfp4", "max-num-seqs": 8, "language-model-only": True,
                        "compilation-config": {"cudagraph_mode": "PIECEWISE"}}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://127.0.0.1:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "quant-quality",
            "notes": "validation of a source build (main 0ba2aa35 + SM120 NVFP4-KV patch) on one RTX 5090: five test prompts at temperature 0, seed 1234, max_tokens 1024, then 8 concurrent requests. Every answer comes back as a run of '!' until max_tokens. Same build with --kv-cache-dtype fp8_e4m3 answered all five correctly. /metrics every 5 s, NVML, server log"}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
