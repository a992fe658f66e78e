"""zyb-tenant-salt-shared-system-prompt: per-tenant cache_salt on a shared system prompt (vLLM 0.18.0, Llama-3.1-8B, H100)."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyb-tenant-salt-shared-system-prompt"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
T0 = 1774440000.0  # 2026-03-25 12:00:00 UTC
DUR, IV = 600.0, 10.0
BS, NB, MML = 16, 27387, 32768
SYS = 1024
N = 180

rng = random.Random(37961)
seen = set()
reqs, meta = [], []
for i in range(N):
    t = T0 + 5.0 + i * (590.0 / N) + rng.uniform(-1.0, 1.0)
    ten = rng.randrange(256)
    user = rng.randrange(800, 1201)
    out = rng.randrange(120, 281)
    hit = SYS if ten in seen else 0
    seen.add(ten)
    p = SYS + user
    reqs.append({"t": t, "engine": 0, "prompt": p, "hit": hit, "out": out, "max_tokens": 512,
                 "prefill": round(0.012 + (p - hit) / 21000.0, 4), "tpot": 0.0072, "reason": "stop"})
    meta.append((ten, user))

Q = sum(r["prompt"] for r in reqs)
H = sum(r["hit"] for r in reqs)
first = len(seen)
if __name__ == "__main__" and "--numbers" in sys.argv:
    print("requests", N, "tenants seen", first, "hitting", N - first, "queries", Q, "hits", H, "rate %.4f" % (H / Q),
          "unsalted hits", (N - 1) * SYS, "rate %.4f" % ((N - 1) * SYS / Q),
          "gen", sum(r["out"] for r in reqs), "maxconc?")
    sys.exit(0)

import hashlib
prng = random.Random(17045)
sys_ids = [128000] + [prng.randrange(1000, 120000) for _ in range(SYS - 1)]
prompts = []
for (ten, user), r in zip(meta, reqs):
    salt = hashlib.sha256(("tenant-%03d" % ten).encode()).hexdigest()[:32]
    prompts.append({"prompt_token_ids": sys_ids + [prng.randrange(1000, 120000) for _ in range(user)], "cache_salt": salt})

cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "kv_sharing_fast_prefill": "False", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
                "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
                "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
                "sliding_window": "None", "swap_space": "4"}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "log_prefix": lambda e: "(APIServer pid=1) ", "log_lineno": 215}
GIB = 1024 ** 3


def gpu(T):
    return [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": int(72.4 * GIB),
             "processes": [{"pid": 163, "name": "VLLM::EngineCore", "used_memory": int(71.9 * GIB)}]}]


head = [
    "(APIServer pid=1) INFO 03-25 11:58:31 [api_server.py:1885] vLLM API server version 0.18.0",
    "(APIServer pid=1) INFO 03-25 11:58:31 [utils.py:253] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'host': '0.0.0.0', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 32768}",
    "(APIServer pid=1) INFO 03-25 11:58:38 [model.py:569] Resolved architecture: LlamaForCausalLM",
    "(APIServer pid=1) INFO 03-25 11:58:38 [model.py:1574] Using max model len 32768",
    "(APIServer pid=1) INFO 03-25 11:58:38 [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    "(EngineCore_DP0 pid=163) INFO 03-25 11:58:44 [core.py:97] Initializing a V1 LLM engine (v0.18.0) with config: model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=None, dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=meta-llama/Llama-3.1-8B-Instruct, enable_prefix_caching=True, enable_chunked_prefill=True",
    "(EngineCore_DP0 pid=163) INFO 03-25 11:59:02 [gpu_model_runner.py:3421] Model loading took 14.99 GiB and 12.803716 seconds",
    "(EngineCore_DP0 pid=163) INFO 03-25 11:59:21 [gpu_worker.py:391] Available KV cache memory: 53.49 GiB",
    "(EngineCore_DP0 pid=163) INFO 03-25 11:59:21 [kv_cache_utils.py:1236] GPU KV cache size: 438,192 tokens",
    "(EngineCore_DP0 pid=163) INFO 03-25 11:59:21 [kv_cache_utils.py:1241] Maximum concurrency for 32,768 tokens per request: 13.37x",
    "(APIServer pid=1) INFO 03-25 11:59:49 [api_server.py:1953] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "(APIServer pid=1) INFO:     Application startup complete.",
]
extra = [(r["t"], '(APIServer pid=1) INFO:     10.4.2.17:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % (50000 + i)) for i, r in enumerate(reqs)]
server = {"version": {"version": "0.18.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--max-model-len", "32768"], "args": {"max-model-len": 32768}}
mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "max_position_embeddings": 131072, "vocab_size": 128256, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "torch_dtype": "bfloat16", "tie_word_embeddings": False,
      "transformers_version": "4.43.0.dev0"}
write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, gpu=gpu, logs_head=head, extra_logs=extra, prompts=prompts,
             notes="Multi-tenant gateway; per-tenant cache_salt on every request. Captured right after a rolling restart.")
check(CASE / "bundle")
