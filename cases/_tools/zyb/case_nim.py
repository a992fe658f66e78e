"""zyb-nim-hybrid-prefix-caching-off: Nemotron-3 Super in a NIM, prefix caching left to vLLM (off for hybrids)."""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyb-nim-hybrid-prefix-caching-off"
MODEL = "nvidia/nemotron-3-super-120b-a12b"
T0 = 1788170400.0  # 2026-08-31 10:00:00 UTC
DUR, IV = 600.0, 10.0
BS, NB, MML = 1056, 1775, 262144

reqs = []
for k in range(28):
    j = k % 4
    for c in range(4):
        p = 4800 + 350 * (j + 1) + 60 * c
        reqs.append({"t": T0 + 10.0 + 20.0 * k + 3.0 * c, "engine": 0, "prompt": p, "hit": 0, "out": 90,
                     "max_tokens": 1024, "prefill": round(p / 7400.0, 3), "tpot": 0.021, "reason": "stop"})
assert len(reqs) == 112 and sum(r["prompt"] for r in reqs) == 645680

cache_labels = {
    "block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
    "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
    "kv_sharing_fast_prefill": "False", "mamba_block_size": str(MML), "mamba_cache_dtype": "auto",
    "mamba_cache_mode": "none", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "float32",
    "num_cpu_blocks": "None", "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None",
    "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "caching_off": True, "log_prefix": lambda e: "(APIServer pid=118) ", "log_lineno": 215}
GIB = 1024 ** 3


def gpu(T):
    return [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": int(73.9 * GIB),
             "processes": [{"pid": 402 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(73.4 * GIB)}]} for i in range(2)]


head = [
    "(APIServer pid=118) INFO 08-31 09:31:47 [api_server.py:1839] vLLM API server version 0.22.0",
    "(APIServer pid=118) INFO 08-31 09:31:47 [utils.py:253] non-default args: {'model': '/opt/nim/workspace', 'served_model_name': ['nvidia/nemotron-3-super-120b-a12b'], 'trust_remote_code': True, 'max_model_len': 262144, 'tensor_parallel_size': 2, 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder'}",
    "(APIServer pid=118) INFO 08-31 09:31:55 [model.py:569] Resolved architecture: NemotronHForCausalLM",
    "(APIServer pid=118) INFO 08-31 09:31:55 [model.py:1574] Using max model len 262144",
    "(APIServer pid=118) WARNING 08-31 09:31:55 [config.py:291] Hybrid or mamba-based model detected without support for prefix caching: disabling.",
    "(APIServer pid=118) INFO 08-31 09:31:55 [config.py:338] Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba page size.",
    "(EngineCore_DP0 pid=301) INFO 08-31 09:32:01 [core.py:97] Initializing a V1 LLM engine (v0.22.0) with config: model='/opt/nim/workspace', speculative_config=None, dtype=torch.bfloat16, max_seq_len=262144, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=modelopt, enforce_eager=False, kv_cache_dtype=auto, served_model_name=nvidia/nemotron-3-super-120b-a12b, enable_prefix_caching=False, enable_chunked_prefill=True",
    "(EngineCore_DP0 pid=301) INFO 08-31 09:36:40 [gpu_model_runner.py:3421] Model loading took 59.87 GiB and 262.530912 seconds",
    "(EngineCore_DP0 pid=301) INFO 08-31 09:37:28 [kv_cache_utils.py:1236] GPU KV cache size: 1,874,400 tokens",
    "(EngineCore_DP0 pid=301) INFO 08-31 09:37:28 [kv_cache_utils.py:1241] Maximum concurrency for 262,144 tokens per request: 7.15x",
    "(APIServer pid=118) INFO 08-31 09:38:10 [api_server.py:1907] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "(APIServer pid=118) INFO:     Application startup complete.",
]
extra = [(r["t"], '(APIServer pid=118) INFO:     172.18.0.7:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % (41000 + i)) for i, r in enumerate(reqs)]
server = {"version": {"version": "0.22.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
ea = {"argv": None, "args": {"tensor-parallel-size": 2, "max-model-len": 262144}}
write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=None, gpu=gpu, logs_head=head, extra_logs=extra, endpoint="http://nemotron-nim:8000",
             notes="Local Nemotron NIM behind the shopping assistant; NIM_ENABLE_KV_CACHE_REUSE unset.")
check(CASE / "bundle")
