"""Builders of the n-* bundles. Run: python cases/_tools/n/cases.py  (deterministic, seeded)."""
from __future__ import annotations

import json
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Req, Server, write_bundle, stamp  # noqa: E402

ROOT = Path(__file__).resolve().parents[3] / "cases"
GiB = 1024 ** 3


def rid(rng, prefix="chatcmpl-"):
    return prefix + "%032x" % rng.getrandbits(128)


def gpu_fn(name, total, used, n, pname="python3"):
    def f(t):
        return [{"index": i, "name": name, "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 4100 + i, "name": pname, "used_memory": used - 600 * 2**20}]} for i in range(n)]
    return f


def cache_labels_v010(block, blocks, util, pc=True, dtype="auto"):
    return {"block_size": block, "cache_dtype": dtype, "calculate_kv_scales": False, "cpu_offload_gb": 0,
            "enable_prefix_caching": pc, "gpu_memory_utilization": util, "is_attention_free": False,
            "num_cpu_blocks": "None", "num_gpu_blocks": blocks, "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": 4,
            "swap_space_bytes": 4 * GiB, "cpu_kvcache_space_bytes": "None", "kv_sharing_fast_prefill": False,
            "mamba_page_size_padded": "None"}


# ------------------------------------------------------------------ 1
def case_lmcache_tile():
    cid = "n-lmcache-llama70b-gh200-tile-undecided"
    rng = random.Random(1741)
    T0 = 1759561080.0
    start = T0 - 420
    blocks = 5975
    srv = Server("0.10.2", "v010", "/extended/downloaded/Llama-3.3-70B-Instruct/", 131072, 16, blocks,
                 cache_labels_v010(16, blocks, 0.9), start)
    reqs, extra = [], []
    t = T0 + 5
    for rnd in range(2):
        slots = [t] * 4
        for d in range(50):
            i = min(range(4), key=lambda k: slots[k])
            arr = slots[i]
            pl = 10030 + rng.randint(-12, 12)
            q = rng.uniform(0.68, 1.18)
            pf = rng.uniform(1.75, 2.15)
            r = Req(rid(rng), arr, pl, 16, 100, q, pf, 0.0455)
            reqs.append(r)
            slots[i] = r.t_end + 0.02
            extra.append((r.t_sched, f"(EngineCore_DP0 pid=2231) [{time_fmt(r.t_sched)}] LMCache INFO: Reqid: {r.rid}, Total tokens {pl}, LMCache hit tokens: 0, need to load: -16 (vllm_v1_adapter.py:1189:lmcache.integration.vllm.vllm_v1_adapter)"))
            extra.append((r.t_first, f"(EngineCore_DP0 pid=2231) [{time_fmt(r.t_first)}] LMCache INFO: Storing KV cache for {pl} out of {pl} tokens (skip_leading_tokens=0) for request {r.rid} (vllm_v1_adapter.py:1066:lmcache.integration.vllm.vllm_v1_adapter)"))
            extra.append((r.t_first + 0.01, f"(EngineCore_DP0 pid=2231) [{time_fmt(r.t_first + 0.01)}] LMCache INFO: Stored {pl} out of total {pl} tokens. size: {pl*163840/1e9:.4f} gb, cost {rng.uniform(38,52):.4f} ms, throughput: {rng.uniform(31,42):.4f} GB/s; offload_time: {rng.uniform(37,50):.4f} ms, put_time: {rng.uniform(0.4,1.1):.4f} ms (cache_engine.py:288:lmcache.v1.cache_engine)"))
        t = max(r.t_end for r in reqs) + 2.0
    T1 = t + 30
    head = [
        "INFO 10-04 06:53:01 [__init__.py:216] Automatically detected platform cuda.",
        "(APIServer pid=2101) INFO 10-04 06:53:05 [api_server.py:1896] vLLM API server version 0.10.2",
        "(APIServer pid=2101) INFO 10-04 06:53:05 [utils.py:328] non-default args: {'model': '/extended/downloaded/Llama-3.3-70B-Instruct/', 'load_format': 'dummy', 'tensor_parallel_size': 2, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both'), 'enable_log_requests': False}",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:53:19 [core.py:654] Waiting for init message from front-end.",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:53:19 [core.py:76] Initializing a V1 LLM engine (v0.10.2) with config: model='/extended/downloaded/Llama-3.3-70B-Instruct/', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=2, load_format=dummy, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:53:27 [factory.py:51] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 6b0e2f3c-6a51-4f0e-9d7e-0d9b5b3b1c2a",
        "(EngineCore_DP0 pid=2231) [2025-10-04 06:53:27,512] LMCache INFO: Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 60.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None, 'save_unfull_chunk': True, 'pre_caching_hash_algorithm': 'builtin'} (cache_engine.py:92:lmcache.v1.cache_engine)",
        "(EngineCore_DP0 pid=2231) (VllmWorker TP0 pid=2240) INFO 10-04 06:54:02 [gpu_model_runner.py:2392] Model loading took 65.7162 GiB and 4.8312 seconds",
        "(EngineCore_DP0 pid=2231) (VllmWorker TP0 pid=2240) INFO 10-04 06:54:31 [gpu_worker.py:298] Available KV cache memory: 14.59 GiB",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:54:32 [kv_cache_utils.py:1028] GPU KV cache size: 95,600 tokens",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:54:32 [kv_cache_utils.py:1032] Maximum concurrency for 131,072 tokens per request: 0.73x",
        "(EngineCore_DP0 pid=2231) INFO 10-04 06:54:49 [core.py:218] init engine (profile, create kv cache, warmup model) took 46.77 seconds",
        "(APIServer pid=2101) INFO 10-04 06:54:50 [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 5975",
        "(APIServer pid=2101) INFO 10-04 06:54:51 [launcher.py:44] Route: /v1/chat/completions, Methods: POST",
        "(APIServer pid=2101) INFO:     Application startup complete.",
    ]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/extended/downloaded/Llama-3.3-70B-Instruct/", "--disable-log-requests", "--tensor-parallel-size", "2", "--load-format", "dummy", "--kv-transfer-config", '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}']
    args = {"model": "/extended/downloaded/Llama-3.3-70B-Instruct/", "tensor-parallel-size": 2, "load-format": "dummy", "disable-log-requests": True,
            "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
          "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
          "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
          "torch_dtype": "bfloat16", "vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "tie_word_embeddings": False}
    used = int(0.9 * 95 * GiB)
    write_bundle(ROOT / cid / "bundle", srv, reqs, T0, T1, 10.0, argv, args, head, extra, mc,
                 gpu_fn("NVIDIA GH200 480GB", 102005473280, used, 2),
                 notes="long_doc_qa.py warmup + query round (tile), LMCache run; env PYTHONHASHSEED=0 LMCACHE_MAX_LOCAL_CPU_SIZE=60")


# ------------------------------------------------------------------ 2
def case_qwen36_align():
    cid = "n-qwen36-35b-align-conc1-zero-hits"
    rng = random.Random(42317)
    T0 = 1778490000.0
    start = T0 - 300
    blocks, bs = 6360, 544
    labels = cache_labels_v010(bs, blocks, 0.9)
    labels.update({"mamba_cache_mode": "align", "mamba_block_size": bs, "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto",
                   "prefix_caching_hash_algo": "sha256", "kv_offloading_size": "None", "kv_offloading_backend": "None"})
    labels.pop("swap_space", None); labels.pop("swap_space_bytes", None)
    srv = Server("0.20.1", "new", "Qwen/Qwen3.6-35B-A3B", 32768, bs, blocks, labels, start)
    reqs = []
    t = T0 + 8
    for i in range(200):
        pl = 4096 + 1024
        pf = rng.uniform(0.36, 0.41)
        r = Req(rid(rng, "cmpl-"), t, pl, 0, 128, 0.004, pf, rng.uniform(0.0105, 0.0112))
        r.rid += "-0"
        reqs.append(r)
        t = r.t_end + rng.uniform(0.03, 0.06)
    T1 = T0 + 600
    head = [
        "(APIServer pid=1) INFO 05-11 08:55:02 [utils.py:299] non-default args: {'model_tag': 'Qwen/Qwen3.6-35B-A3B', 'model': 'Qwen/Qwen3.6-35B-A3B', 'max_model_len': 32768, 'tensor_parallel_size': 2, 'enable_prefix_caching': True, 'mamba_cache_mode': 'align', 'max_num_batched_tokens': 8192}",
        "(EngineCore pid=212) INFO 05-11 08:55:20 [core.py:101] Initializing a V1 LLM engine (v0.20.1) with config: model='Qwen/Qwen3.6-35B-A3B', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=2, kv_cache_dtype=auto, enable_prefix_caching=True, enable_chunked_prefill=True",
        "(EngineCore pid=212) INFO 05-11 08:55:21 [config.py:512] Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size.",
        "(EngineCore pid=212) INFO 05-11 08:55:21 [config.py:533] Padding mamba page size by 0.73% to ensure that mamba page size and attention page size are exactly equal.",
        "(EngineCore pid=212) INFO 05-11 08:55:21 [config.py:560] Mamba cache mode is set to 'align' for Qwen3_5MoeForConditionalGeneration by default when prefix caching is enabled",
        "(EngineCore pid=212) (Worker_TP0 pid=230) INFO 05-11 08:56:02 [gpu_model_runner.py:4410] Model loading took 33.4 GiB memory and 21.8 seconds",
        "(EngineCore pid=212) (Worker_TP0 pid=230) INFO 05-11 08:56:40 [gpu_worker.py:428] Available KV cache memory: 33.04 GiB",
        "(EngineCore pid=212) INFO 05-11 08:56:41 [kv_cache_utils.py:1702] GPU KV cache size: 864,960 tokens",
        "(EngineCore pid=212) INFO 05-11 08:56:41 [kv_cache_utils.py:1707] Maximum concurrency for 32,768 tokens per request: 26.40x",
        "(APIServer pid=1) INFO 05-11 08:57:05 [api_server.py:1612] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    argv = ["vllm", "serve", "Qwen/Qwen3.6-35B-A3B", "--tensor-parallel-size", "2", "--max-model-len", "32768", "--enable-prefix-caching", "--mamba-cache-mode", "align", "--max-num-batched-tokens", "8192"]
    args = {"model": "Qwen/Qwen3.6-35B-A3B", "tensor-parallel-size": 2, "max-model-len": 32768, "enable-prefix-caching": True, "mamba-cache-mode": "align", "max-num-batched-tokens": 8192}
    layer_types = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 10
    mc = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
          "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40, "layer_types": layer_types,
                          "full_attention_interval": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
                          "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                          "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
                          "shared_expert_intermediate_size": 512, "max_position_embeddings": 262144, "dtype": "bfloat16", "vocab_size": 248320},
          "torch_dtype": "bfloat16"}
    write_bundle(ROOT / cid / "bundle", srv, reqs, T0, T1, 10.0, argv, args, head, [], mc,
                 gpu_fn("NVIDIA H800", 85520809984, int(74.1 * GiB), 2),
                 notes="vllm bench serve prefix_repetition, --max-concurrency 1")


# ------------------------------------------------------------------ 3
def case_sharegpt_healthy():
    cid = "n-lmcache-sharegpt-no-reuse-healthy"
    rng = random.Random(1326)
    T0 = 1755220200.0
    start = T0 - 240
    blocks = 30000
    srv = Server("0.10.0", "v010", "meta-llama/Llama-3.1-8B-Instruct", 131072, 16, blocks, cache_labels_v010(16, blocks, 0.9), start)
    reqs, extra = [], []
    t = T0 + 6
    for i in range(1000):
        t += rng.expovariate(8.0)
        pl = max(4, min(3800, int(rng.lognormvariate(5.0, 1.0))))
        gl = max(3, min(1024, int(rng.lognormvariate(5.1, 0.8))))
        hit = (pl - 1) // 16 * 16 if rng.random() < 0.015 else 0
        pf = 0.012 + (pl - hit) / 28000.0
        r = Req(rid(rng, "cmpl-") + "-0", t, pl, hit, gl, rng.uniform(0.002, 0.02), pf, rng.uniform(0.0155, 0.0172),
                finished_reason="length")
        reqs.append(r)
        need = max(0, pl - hit)
        extra.append((r.t_sched, f"(EngineCore_DP0 pid=887) [{time_fmt(r.t_sched)}] LMCache INFO: Reqid: {r.rid}, Total tokens {pl}, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:1029:lmcache.integration.vllm.vllm_v1_adapter)"))
        if pl >= 1:
            extra.append((r.t_first, f"(EngineCore_DP0 pid=887) [{time_fmt(r.t_first)}] LMCache INFO: Stored {pl} out of total {pl} tokens. size: {pl*131072/2**30:.4f} gb, cost {rng.uniform(0.4, 6):.4f} ms, throughput: {rng.uniform(30, 42):.4f} GB/s; offload_time: {rng.uniform(0.4, 6):.4f} ms, put_time: {rng.uniform(0.01, 0.05):.4f} ms (cache_engine.py:292:lmcache.v1.cache_engine)"))
    T1 = T0 + 240
    head = [
        "INFO 08-15 01:06:11 [__init__.py:241] Automatically detected platform cuda.",
        "(APIServer pid=1) INFO 08-15 01:06:14 [api_server.py:1805] vLLM API server version 0.10.0",
        "(APIServer pid=1) INFO 08-15 01:06:14 [utils.py:326] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}",
        "(EngineCore_0 pid=887) INFO 08-15 01:06:25 [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=1, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
        "(EngineCore_0 pid=887) [2025-08-15 01:06:29,100] LMCache INFO: Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 5.0, 'local_disk': None, 'remote_url': None, 'save_unfull_chunk': True} (cache_engine.py:90:lmcache.v1.cache_engine)",
        "(EngineCore_0 pid=887) INFO 08-15 01:06:40 [gpu_model_runner.py:1892] Model loading took 14.9889 GiB and 3.61 seconds",
        "(EngineCore_0 pid=887) INFO 08-15 01:07:01 [gpu_worker.py:255] Available KV cache memory: 58.59 GiB",
        "(EngineCore_0 pid=887) INFO 08-15 01:07:01 [kv_cache_utils.py:833] GPU KV cache size: 480,000 tokens",
        "(EngineCore_0 pid=887) INFO 08-15 01:07:01 [kv_cache_utils.py:837] Maximum concurrency for 131,072 tokens per request: 3.66x",
        "(APIServer pid=1) INFO 08-15 01:07:12 [api_server.py:1857] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    argv = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    args = {"model": "meta-llama/Llama-3.1-8B-Instruct", "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}
    mc = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
          "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 500000.0,
          "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
          "torch_dtype": "bfloat16", "vocab_size": 128256}
    write_bundle(ROOT / cid / "bundle", srv, reqs, T0, T1, 10.0, argv, args, head, extra, mc,
                 gpu_fn("NVIDIA H100 80GB HBM3", 85520809984, int(73.9 * GiB), 1),
                 notes="vllm bench serve --dataset-name sharegpt --num-prompts 1000 --request-rate 8, vLLM + LMCache")


def time_fmt(t):
    import time as _t
    return _t.strftime("%Y-%m-%d %H:%M:%S", _t.gmtime(t)) + ",%03d" % int((t % 1) * 1000)


# ------------------------------------------------------------------ 4
def case_dsv4_offload():
    cid = "n-dsv4-dspark-offload-zero-external"
    rng = random.Random(47890)
    T0 = 1783403400.0
    start = T0 - 2520
    blocks, bs = 5120, 256
    labels = cache_labels_v010(bs, blocks, 0.9, dtype="fp8")
    labels.update({"prefix_caching_hash_algo": "sha256", "kv_offloading_size": 400.0, "kv_offloading_backend": "native"})
    labels.pop("swap_space", None); labels.pop("swap_space_bytes", None)
    bpt = 15400.0
    base = {"queries": 1.0e8, "hits": 4.8e7, "ext_queries": 5.2e7, "ext_hits": 0, "store_bytes": 7.0e11, "load_bytes": 0,
            "prompt": 1.0e8, "gen": 1.2e6, "success_stop": 2400, "drafts": 4.0e5}
    srv = Server("0.26.1", "new", "deepseek-v4-flash-dspark", 262144, bs, blocks, labels, start, connector=True,
                 offload_bytes_per_token=bpt, spec_k=3, spec_accept=0.62, base=base,
                 kv_usage_fn=lambda t: 0.965 + 0.02 * abs(((t - T0) / 37.0) % 2 - 1))
    reqs = []
    T1 = T0 + 720
    for s in range(11):
        ctx = rng.randint(40000, 70000)
        t = T0 - rng.uniform(5, 25)
        while t < T1:
            pl = ctx
            local = int(pl * rng.uniform(0.38, 0.58)) // bs * bs
            ext = pl - local
            q = rng.uniform(0.8, 8.0)
            pf = ext / 11000.0
            gl = rng.randint(250, 800)
            r = Req(rid(rng), t, pl, local, gl, q, pf, 0.021, ext_query=ext, ext_hit=0, finished_reason="stop")
            reqs.append(r)
            t = r.t_end + rng.uniform(3, 8)
            ctx = min(120000, ctx + gl + rng.randint(1500, 6000))
            if ctx >= 120000:
                ctx = rng.randint(40000, 60000)
    head = [
        "(APIServer pid=1) INFO 07-07 05:45:10 [utils.py:299] non-default args: {'model_tag': '/models/DeepSeek-V4-Flash-DSpark', 'model': '/models/DeepSeek-V4-Flash-DSpark', 'served_model_name': ['deepseek-v4-flash-dspark'], 'trust_remote_code': True, 'tensor_parallel_size': 4, 'kv_cache_dtype': 'fp8', 'block_size': 256, 'max_model_len': 262144, 'enable_prefix_caching': True, 'speculative_config': {'method': 'dspark', 'num_speculative_tokens': 3}, 'kv_transfer_config': KVTransferConfig(kv_connector='OffloadingConnector', kv_role='kv_both', kv_connector_extra_config={'cpu_bytes_to_use': 429496729600})}",
        "(EngineCore pid=310) INFO 07-07 05:45:31 [core.py:101] Initializing a V1 LLM engine (v0.26.1) with config: model='/models/DeepSeek-V4-Flash-DSpark', speculative_config=SpeculativeConfig(method='dspark', num_spec_tokens=3), max_seq_len=262144, tensor_parallel_size=4, kv_cache_dtype=fp8, enable_prefix_caching=True",
        "(EngineCore pid=310) INFO 07-07 05:45:33 [factory.py:62] Creating v1 connector with name: OffloadingConnector and engine_id: 0f7c7d0e-3f0a-4c55-9a57-1f0c2b8e4d11",
        "(EngineCore pid=310) (Worker_TP0 pid=322) INFO 07-07 05:47:02 [gpu_model_runner.py:4410] Model loading took 74.62 GiB memory and 61.3 seconds",
        "(EngineCore pid=310) INFO 07-07 05:48:11 [kv_cache_utils.py:1702] GPU KV cache size: 1,310,720 tokens",
        "(EngineCore pid=310) INFO 07-07 05:48:11 [kv_cache_utils.py:1707] Maximum concurrency for 262,144 tokens per request: 5.00x",
        "(EngineCore pid=310) INFO 07-07 05:48:12 [offloading_connector.py:118] Offloading to CPU: 400.00 GiB, 27,889 CPU blocks",
        "(APIServer pid=1) INFO 07-07 05:48:40 [api_server.py:1612] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]
    argv = ["vllm", "serve", "/models/DeepSeek-V4-Flash-DSpark", "--served-model-name", "deepseek-v4-flash-dspark", "--trust-remote-code", "--tensor-parallel-size", "4",
            "--kv-cache-dtype", "fp8", "--block-size", "256", "--max-model-len", "262144", "--enable-prefix-caching",
            "--speculative_config", '{"method": "dspark", "num_speculative_tokens": 3}',
            "--kv-transfer-config", '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":429496729600}}']
    args = {"model": "/models/DeepSeek-V4-Flash-DSpark", "tensor-parallel-size": 4, "kv-cache-dtype": "fp8", "block-size": 256, "max-model-len": 262144,
            "enable-prefix-caching": True, "speculative_config": {"method": "dspark", "num_speculative_tokens": 3},
            "kv-transfer-config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"cpu_bytes_to_use": 429496729600}}}
    write_bundle(ROOT / cid / "bundle", srv, reqs, T0, T1, 15.0, argv, args, head, [], None,
                 gpu_fn("NVIDIA B200", 191514411008, int(0.9 * 178.4 * GiB), 4),
                 notes="coding-agent traffic; native OffloadingConnector RAM tier; DSpark speculative decoding")


# ------------------------------------------------------------------ 5
def case_lora_split():
    cid = "n-lora-bench-warmup-base-split"
    rng = random.Random(23301)
    T0 = 1755750000.0
    start = T0 - 600
    blocks = 14000
    model = "/home/data/nlp/deepseek_models/DeepSeek-R1-Distill-Qwen-32B-AWQ"
    srv = Server("0.9.1", "v010", model, 8192, 16, blocks, cache_labels_v010(16, blocks, 0.9), start, lora_max=2)
    srv.lora_name = "r16-static"
    srv.lora_path = "/home/data/nlp/deepseek_models/DeepSeek-R1-Distill-Qwen-32B-Lora-r16"
    ids = [rng.randint(1000, 150000) for _ in range(2048)]
    plan = [(T0 + 20, None, 0), (None, None, 2032), (T0 + 150, None, 2032), (None, "r16-static", 0)]
    reqs, extra, last = [], [], None
    for arr, lora, hit in plan:
        if arr is None:
            arr = last.t_end + 0.4
        pf = 0.92 if hit == 0 else 0.07
        itl = 0.0345 if lora else 0.0332
        r = Req(rid(rng, "cmpl-") + "-0", arr, 2048, hit, 512, 0.003, pf, itl, lora=lora)
        reqs.append(r)
        last = r
        extra.append((arr, f"INFO {stamp(arr)} [logger.py:43] Received request {r.rid}: prompt: None, params: SamplingParams(n=1, temperature=1.0, top_p=1.0, max_tokens=512, min_tokens=0, ignore_eos=True), prompt_token_ids: [{ids[0]}, {ids[1]}, {ids[2]}, ...], lora_request: {('LoRARequest(lora_name=' + repr(lora) + ', lora_int_id=1, lora_path=' + repr(srv.lora_path) + ')') if lora else None}, prompt_adapter_request: None."))
        extra.append((arr + 0.001, f"INFO {stamp(arr)} [async_llm.py:271] Added request {r.rid}."))
    T1 = T0 + 360
    head = [
        "INFO 08-21 03:30:02 [__init__.py:244] Automatically detected platform cuda.",
        "INFO 08-21 03:30:05 [api_server.py:1287] vLLM API server version 0.9.1",
        f"INFO 08-21 03:30:05 [cli_args.py:309] non-default args: {{'port': 8081, 'lora_modules': [LoRAModulePath(name='r16-static', path='{srv.lora_path}', base_model_name=None)], 'model': '{model}', 'trust_remote_code': True, 'max_model_len': 8192, 'quantization': 'awq', 'tensor_parallel_size': 4, 'max_num_seqs': 1, 'enable_lora': True, 'max_loras': 2}}",
        f"INFO 08-21 03:30:17 [core.py:455] Waiting for init message from front-end.",
        f"INFO 08-21 03:30:17 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='{model}', dtype=torch.float16, max_seq_len=8192, tensor_parallel_size=4, quantization=awq, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
        "(VllmWorker rank=0 pid=402) INFO 08-21 03:31:10 [gpu_model_runner.py:1595] Model loading took 4.6371 GiB and 38.21 seconds",
        "(VllmWorker rank=0 pid=402) INFO 08-21 03:31:44 [gpu_worker.py:227] Available KV cache memory: 13.67 GiB",
        "INFO 08-21 03:31:45 [kv_cache_utils.py:715] GPU KV cache size: 224,000 tokens",
        "INFO 08-21 03:31:45 [kv_cache_utils.py:719] Maximum concurrency for 8,192 tokens per request: 27.34x",
        "INFO 08-21 03:32:20 [serving_models.py:184] Loaded new LoRA adapter: name 'r16-static', path '" + srv.lora_path + "'",
        "INFO 08-21 03:32:21 [api_server.py:1349] Starting vLLM API server 0 on http://0.0.0.0:8081",
    ]
    argv = ["vllm", "serve", model, "--max-model-len", "8192", "--quantization", "awq", "--port", "8081", "--tensor-parallel-size", "4", "--trust-remote-code",
            "--max-num-seqs", "1", "--enable-lora", "--lora-modules", "r16-static=" + srv.lora_path, "--max_loras=2"]
    args = {"model": model, "max-model-len": 8192, "quantization": "awq", "port": 8081, "tensor-parallel-size": 4, "trust-remote-code": True,
            "max-num-seqs": 1, "enable-lora": True, "lora-modules": "r16-static=" + srv.lora_path, "max-loras": 2}
    mc = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648, "num_hidden_layers": 64,
          "num_attention_heads": 40, "num_key_value_heads": 8, "max_position_embeddings": 131072, "rope_theta": 1000000.0, "sliding_window": 131072,
          "use_sliding_window": False, "torch_dtype": "float16", "vocab_size": 152064,
          "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True}}
    write_bundle(ROOT / cid / "bundle", srv, reqs, T0, T1, 10.0, argv, args, head, extra, mc,
                 gpu_fn("NVIDIA A10", 24146608128, int(21.2 * GiB), 4),
                 notes="benchmark_serving.py random 2048/512 num-prompts 1: base run, then --lora-modules r16-static run")
    with open(ROOT / cid / "prompts.jsonl", "w") as f:
        for r in reqs:
            f.write(json.dumps({"prompt_token_ids": ids, "lora": r.lora}) + "\n")


if __name__ == "__main__":
    for fn in (case_lmcache_tile, case_qwen36_align, case_sharegpt_healthy, case_dsv4_offload, case_lora_split):
        fn()
        print("built", fn.__name__)
