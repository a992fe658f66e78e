"""zxc-nemotron-super-block8320-mml4096 (vllm-project/vllm#48401).

NemotronH (Nemotron-3-Super-120B-A12B-NVFP4) on one RTX PRO 6000 Blackwell, vLLM 0.23.1rc1.dev,
--enable-prefix-caching --max-model-len 4096. The hybrid layout raises the attention block size to
8320 tokens; three identical 3,536-token prompts (10,608 queried tokens) never hit.

Run: python3 cases/_tools/zxc/nemotron_block8320.py
"""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxc-nemotron-super-block8320-mml4096"
MODEL = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
VERSION = "0.23.1rc1.dev87+g429f40574"
MML = 4096
BLOCK = 8320
GROUPS = 6            # 1 attention group (8 layers) + 5 Mamba groups of 8 layers
PAGE = BLOCK * 1024   # attention page: 8320 tokens x (2 KV heads x 128 x 2 x bf16) per layer
KV_GIB = 16.52
NUM_BLOCKS = int(KV_GIB * 2**30 // (8 * PAGE))   # 8 layer tensors shared by the 6 groups
TOTAL = 102641745920                               # RTX PRO 6000 Blackwell: 97,887 MiB
INTERVAL = 10.0

T_START = dt.datetime(2026, 7, 12, 9, 14, 5, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 310.0          # first scrape, server up
N = 37                        # 6 minutes
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = [Req(t_arrive=T0 + off, prompt_len=3536, gen_len=256, max_tokens=256, queue_s=0.004,
            prefill_s=0.46, itl_s=0.0141, hit=0, finished_reason="length")
        for off in (47.3, 131.8, 214.6)]

cache_labels = {
    "_block_size_resolved": "True", "block_size": str(BLOCK), "cache_dtype": "auto",
    "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None", "enable_prefix_caching": "True",
    "gpu_memory_utilization": "0.9", "is_attention_free": "False", "kv_cache_memory_bytes": "None",
    "kv_offloading_backend": "native", "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False",
    "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto", "mamba_cache_mode": "align",
    "mamba_page_size_padded": str(PAGE), "mamba_ssm_cache_dtype": "float32", "num_cpu_blocks": "None",
    "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "user_specified_block_size": "False",
}

tpl = Template("k-qwen35-4b-align-ckpt-in-unique-suffix")
created = T_START + 174.5
scrapes = []
for i in range(N):
    t = T0 + i * INTERVAL
    snap, _ = snapshot(reqs, t, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS)
    scrapes.append({"t": t, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                          max_model_len=MML, cache_labels=cache_labels)})
last, st = snapshot(reqs, T_END, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS)
assert st["q"] == 10608 and st["h"] == 0, st

# ---------------------------------------------------------------- logs
P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore_DP0 pid=281) "
L = [
    f"INFO {fts(T_START)} [__init__.py:216] Automatically detected platform cuda.",
    f"{P_API}INFO {fts(T_START+2)} [api_server.py:2061] vLLM API server version {VERSION}",
    f"{P_API}INFO {fts(T_START+2)} [utils.py:302] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'trust_remote_code': True, 'max_model_len': 4096, 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True}}",
    f"{P_API}INFO {fts(T_START+9)} [model.py:561] Resolved architecture: NemotronHForCausalLM",
    f"{P_API}INFO {fts(T_START+9)} [model.py:1702] Using max model len 4096",
    f"{P_API}INFO {fts(T_START+10)} [scheduler.py:248] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_API}INFO {fts(T_START+10)} [config.py:430] Updating mamba_ssm_cache_dtype to 'float32' for NemotronH model",
    f"{P_API}INFO {fts(T_START+10)} [interface.py:773] Setting attention block size to {BLOCK} tokens to ensure that attention page size is >= mamba page size.",
    f"{P_API}INFO {fts(T_START+10)} [interface.py:797] Padding mamba page size by 0.68% to ensure that mamba page size and attention page size are exactly equal.",
    f"{P_ENG}INFO {fts(T_START+19)} [core.py:104] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=modelopt_fp4, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={MODEL}, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{P_ENG}INFO {fts(T_START+27)} [gpu_model_runner.py:3702] Starting to load model {MODEL}...",
    f"{P_ENG}INFO {fts(T_START+121)} [gpu_model_runner.py:3795] Model loading took 66.3914 GiB and 93.804417 seconds",
    f"{P_ENG}INFO {fts(T_START+152)} [gpu_worker.py:402] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{P_ENG}INFO {fts(T_START+152)} [kv_cache_utils.py:1388] GPU KV cache size: {NUM_BLOCKS // GROUPS * BLOCK:,} tokens",
    f"{P_ENG}INFO {fts(T_START+152)} [kv_cache_utils.py:1392] Maximum concurrency for 4,096 tokens per request: {NUM_BLOCKS / GROUPS:.2f}x",
    f"{P_ENG}INFO {fts(T_START+171)} [gpu_model_runner.py:4658] Graph capturing finished in 17 secs, took 0.61 GiB",
    f"{P_ENG}INFO {fts(T_START+172)} [core.py:271] init engine (profile, create kv cache, warmup model) took 50.97 seconds",
    f"{P_API}INFO {fts(T_START+173)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NUM_BLOCKS}",
    f"{P_API}INFO {fts(T_START+174)} [api_server.py:2139] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = [(r.t_end, f"{P_API}INFO:     10.0.0.5:5{3210+i} - \"POST /v1/completions HTTP/1.1\" 200 OK") for i, r in enumerate(reqs)]
events += stats_lines(reqs, T0, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, groups=GROUPS)
L += [x for _, x in sorted(events, key=lambda e: e[0])]

# ---------------------------------------------------------------- gpu
used_proc = int(0.9 * TOTAL) - 1_310_720_000 + 1_283_457_024
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "memory_total": TOTAL, "memory_used": used_proc + 545_259_520,
        "processes": [{"pid": 281, "name": "VLLM::EngineCore_DP0", "used_memory": used_proc}]}]} for i in range(N)]

# ---------------------------------------------------------------- model config (assumed values, see case.yaml)
pattern = ("MEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEMEM" + "EMEMEMEMEMEM")[:88]
model_config = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
    "auto_map": {"AutoConfig": "configuration_nemotron_h.NemotronHConfig",
                 "AutoModelForCausalLM": "modeling_nemotron_h.NemotronHForCausalLM"},
    "hidden_size": 4096, "num_hidden_layers": 88, "hybrid_override_pattern": pattern,
    "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
    "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 256, "n_groups": 8,
    "conv_kernel": 4, "chunk_size": 128, "mamba_hidden_act": "silu",
    "n_routed_experts": 512, "num_experts_per_tok": 22, "moe_intermediate_size": 2688,
    "moe_shared_expert_intermediate_size": 5376, "n_shared_experts": 1,
    "intermediate_size": 5376, "vocab_size": 131072, "max_position_embeddings": 262144,
    "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    "use_mamba_kernels": True, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0,
    "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
}
assert pattern.count("*") == 8 and len(pattern) == 88, (pattern.count("*"), len(pattern))

created_models = int(T_START + 174)
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, created_models), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--trust-remote-code", "--max-model-len", "4096",
                        "--gpu-memory-utilization", "0.9", "--enable-prefix-caching"],
               "args": {"trust-remote-code": True, "max-model-len": 4096, "gpu-memory-utilization": 0.9,
                        "enable-prefix-caching": True}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://127.0.0.1:8000", "started_at": T0,
            "ended_at": T_END, "interval_s": INTERVAL, "complaint": "prefix-miss",
            "notes": "prefix-caching check on Nemotron-3-Super (hybrid Mamba2 + attention) with --max-model-len 4096: the same ~3.5k-token prompt sent three times, one after another, max_tokens 256; prefix_cache_hits stays 0. Same test at --max-model-len 16384 (longer prompt) does hit. /metrics every 10 s, NVML, server log"}
d = write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
                 model_config=model_config, gpu=gpu, logs=L)
print(d, "blocks", NUM_BLOCKS, "tokens", NUM_BLOCKS // GROUPS * BLOCK)
