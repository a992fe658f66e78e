"""zyb-lmcache-ssd-rounds-partial-hits: vLLM 0.13.0 + LMCache CPU 150 GB + SSD 2048 GB, four identical rounds of 16 x 64k."""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyb-lmcache-ssd-rounds-partial-hits"
MODEL = "qwen"
T0 = 1773396000.0  # 2026-03-13 10:00:00 UTC
DUR, IV = 480.0, 10.0
BS, NB, MML = 16, 11991, 131072
P, OUT = 64000, 128
MISS, HIT, TPOT = 6.5, 2.4, 0.030
HITS_PER_ROUND = [0, 6, 12, 16]

reqs, lm = [], []
start = T0 + 20.0
rid = 0
for rnd, nh in enumerate(HITS_PER_ROUND):
    lane = start
    ends = []
    for i in range(16):
        pre = HIT if i < nh else MISS
        q = max(0.0, lane - start)
        r = {"t": start, "engine": 0, "prompt": P, "hit": 0, "out": OUT, "max_tokens": OUT, "queue": q,
             "prefill": pre, "tpot": TPOT, "reason": "length", "lm_hit": P if i < nh else 0, "rid": rid}
        reqs.append(r)
        lane = start + q + pre
        ends.append(lane + (OUT - 1) * TPOT)
        rid += 1
    start = max(ends) + 20.0
assert start - 20.0 < T0 + DUR


def ts(t):
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000)


for r in reqs:
    t = r["t"] + r["queue"]
    need = max(0, r["lm_hit"] - 0)
    lm.append((t, "(EngineCore_DP0 pid=412) [%s] LMCache INFO: Reqid: cmpl-bench-%05d-0, Total tokens %d, LMCache hit tokens: %d, need to load: %d (vllm_v1_adapter.py:1284:lmcache.integration.vllm.vllm_v1_adapter)"
               % (ts(t), r["rid"], P, r["lm_hit"], need)))

cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
                "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(NB),
                "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
                "swap_space": "4"}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "log_prefix": lambda e: "(APIServer pid=1) ", "log_lineno": 215}
GIB = 1024 ** 3


def gpu(T):
    return [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984, "memory_used": int(74.1 * GIB),
             "processes": [{"pid": 420 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": int(73.6 * GIB)}]} for i in range(8)]


head = [
    "(APIServer pid=1) INFO 03-13 09:41:12 [api_server.py:1772] vLLM API server version 0.13.0",
    "(APIServer pid=1) INFO 03-13 09:41:12 [utils.py:253] non-default args: {'model_tag': '/mnt/ssd1/modelscope/Qwen3-235B-A22B-Instruct-2507/', 'enable_auto_tool_choice': True, 'tool_call_parser': 'hermes', 'host': '0.0.0.0', 'port': 6600, 'model': '/mnt/ssd1/modelscope/Qwen3-235B-A22B-Instruct-2507/', 'trust_remote_code': True, 'served_model_name': ['qwen'], 'max_model_len': 131072, 'tensor_parallel_size': 8, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}",
    "(APIServer pid=1) INFO 03-13 09:41:20 [model.py:547] Resolved architecture: Qwen3MoeForCausalLM",
    "(APIServer pid=1) INFO 03-13 09:41:20 [model.py:1510] Using max model len 131072",
    "(APIServer pid=1) INFO 03-13 09:41:20 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    "(EngineCore_DP0 pid=412) INFO 03-13 09:41:27 [core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='/mnt/ssd1/modelscope/Qwen3-235B-A22B-Instruct-2507/', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=qwen, enable_prefix_caching=True, enable_chunked_prefill=True",
    "(EngineCore_DP0 pid=412) [2026-03-13 09:41:41,208] LMCache INFO: Creating LMCacheEngine with config: chunk_size=256, local_cpu=True, max_local_cpu_size=150.0, local_disk='/mnt/ssd1/kv', max_local_disk_size=2048.0 (utils.py:142:lmcache.integration.vllm.utils)",
    "(EngineCore_DP0 pid=412) (Worker_TP0 pid=420) INFO 03-13 09:47:02 [gpu_model_runner.py:3098] Model loading took 54.73 GiB and 318.442160 seconds",
    "(EngineCore_DP0 pid=412) (Worker_TP0 pid=420) INFO 03-13 09:48:10 [gpu_worker.py:359] Available KV cache memory: 8.60 GiB",
    "(EngineCore_DP0 pid=412) INFO 03-13 09:48:10 [kv_cache_utils.py:1229] GPU KV cache size: 191,856 tokens",
    "(EngineCore_DP0 pid=412) INFO 03-13 09:48:10 [kv_cache_utils.py:1234] Maximum concurrency for 131,072 tokens per request: 1.46x",
    "(APIServer pid=1) INFO 03-13 09:49:02 [api_server.py:1846] Starting vLLM API server 0 on http://0.0.0.0:6600",
    "(APIServer pid=1) INFO:     Application startup complete.",
]
server = {"version": {"version": "0.13.0"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm", "root": "/mnt/ssd1/modelscope/Qwen3-235B-A22B-Instruct-2507/", "parent": None, "max_model_len": MML}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", "/mnt/ssd1/modelscope/Qwen3-235B-A22B-Instruct-2507/", "--served-model-name", "qwen", "--tensor-parallel-size", "8", "--max-model-len", "131072", "--host", "0.0.0.0", "--port", "6600", "--trust-remote-code", "--enable-auto-tool-choice", "--tool-call-parser", "hermes", "--kv-transfer-config", "{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}"],
      "args": {"tensor-parallel-size": 8, "max-model-len": 131072, "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}}
mc = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 4096, "num_hidden_layers": 94,
      "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
      "moe_intermediate_size": 1536, "intermediate_size": 12288, "max_position_embeddings": 262144, "rope_theta": 5000000,
      "vocab_size": 151936, "rms_norm_eps": 1e-06, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
      "transformers_version": "4.51.0"}
write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, gpu=gpu, logs_head=head, extra_logs=lm, endpoint="http://localhost:6600",
             notes="Four consecutive identical runs of vllm bench serve (random, 64000 input tokens), LMCache CPU 150 GB + local disk 2048 GB.")
check(CASE / "bundle")
for rnd in range(4):
    rs = reqs[16 * rnd:16 * rnd + 16]
    print("round", rnd + 1, "start %.1f" % (rs[0]["t"] - T0), "lm hits", sum(r["lm_hit"] for r in rs),
          "mean ttft %.1f" % (sum(r["t_first"] - r["t"] for r in rs) / 16), "end %.1f" % (max(r["t_end"] for r in rs) - T0))
