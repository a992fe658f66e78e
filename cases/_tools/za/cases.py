"""The four za-* scenarios; run: python3 cases/_tools/za/cases.py"""
import os, random, sys
sys.path.insert(0, os.path.dirname(__file__))
from gen import build, hms, v1log

GiB = 1024 ** 3


def cc(block, blocks, util, extra=None):
    d = {"block_size": str(block), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
         "enable_prefix_caching": "True", "gpu_memory_utilization": str(util), "is_attention_free": "False",
         "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
         "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * GiB)}
    d.update(extra or {})
    return d


LLAMA8 = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
          "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
          "max_position_embeddings": 131072, "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16",
          "rms_norm_eps": 1e-05, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009]}
QWEN32FP8 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648,
             "num_hidden_layers": 64, "num_attention_heads": 40, "num_key_value_heads": 8, "max_position_embeddings": 32768,
             "rope_theta": 1000000.0, "vocab_size": 152064, "torch_dtype": "bfloat16", "sliding_window": 131072,
             "use_sliding_window": False, "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}}
QWEN7 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
         "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768,
         "rope_theta": 1000000.0, "vocab_size": 152064, "torch_dtype": "bfloat16", "sliding_window": 131072, "use_sliding_window": False}
QWENVL7 = dict(QWEN7, architectures=["Qwen2_5_VLForConditionalGeneration"], model_type="qwen2_5_vl",
               max_position_embeddings=128000, vision_config={"depth": 32, "hidden_size": 1280, "out_hidden_size": 3584,
                                                              "patch_size": 14, "spatial_merge_size": 2, "window_size": 112},
               image_token_id=151655, video_token_id=151656)


def pd_random():
    random.seed(1819)
    t0 = 1760680800.0
    reqs, t = [], t0 - 30
    while t < t0 + 130:
        t += random.expovariate(3.0)  # --request-rate 3, Poisson
        p = 1000 + random.randint(-3, 3)
        reqs.append({"t": t, "p": p, "hit": 0, "out": 1, "q": random.uniform(0.001, 0.004), "pre": random.uniform(0.055, 0.075), "tpot": 0.0})
    m = "/models/Meta-Llama-3.1-8B-Instruct"
    start = [
        "INFO 10-17 05:55:01 [__init__.py:216] Automatically detected platform cuda.",
        "(APIServer pid=1) INFO 10-17 05:55:03 [api_server.py:1839] vLLM API server version 0.11.0",
        "(APIServer pid=1) INFO 10-17 05:55:03 [utils.py:233] non-default args: {'model_tag': '%s', 'port': 7100, 'model': '%s', 'max_model_len': 8192, 'gpu_memory_utilization': 0.8, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_producer', kv_connector_extra_config={'discard_partial_chunks': False, 'lmcache_rpc_port': 'producer1'})}" % (m, m),
        "(APIServer pid=1) INFO 10-17 05:55:10 [model.py:547] Resolved architecture: LlamaForCausalLM",
        "(APIServer pid=1) INFO 10-17 05:55:10 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:55:18 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='%s', speculative_config=None, tokenizer='%s', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, enable_prefix_caching=True, chunked_prefill_enabled=True" % (m, m),
        "(EngineCore_DP0 pid=212) [2025-10-17 05:55:24,118] LMCache INFO: Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 20.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'enable_pd': True, 'transfer_channel': 'nixl', 'pd_role': 'sender', 'pd_buffer_size': 1073741824, 'pd_buffer_device': 'cuda'} (cache_engine.py:105:lmcache.v1.cache_engine)",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:56:02 [gpu_model_runner.py:2653] Model loading took 14.9889 GiB and 31.224180 seconds",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:56:14 [gpu_worker.py:298] Available KV cache memory: 22.00 GiB",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:56:14 [kv_cache_utils.py:1087] GPU KV cache size: 180,224 tokens",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:56:14 [kv_cache_utils.py:1091] Maximum concurrency for 8,192 tokens per request: 22.00x",
        "(EngineCore_DP0 pid=212) INFO 10-17 05:56:31 [core.py:210] init engine (profile, create kv cache, warmup model) took 28.77 seconds",
        "(APIServer pid=1) INFO 10-17 05:56:33 [api_server.py:1634] Starting vLLM API server 0 on http://0.0.0.0:7100",
    ]

    def rl(r):
        rid = "cmpl-%08x-0" % int(r["t"] * 1000 % 0xffffffff)
        ts = "2025-10-17 %s,%03d" % (hms(r["t"])[6:], int(r["t"] * 1000) % 1000)
        return ["(EngineCore_DP0 pid=212) [%s] LMCache INFO: Reqid: %s, Total tokens %d, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:1189:lmcache.integration.vllm.vllm_v1_adapter)" % (ts, rid, r["p"]),
                "(EngineCore_DP0 pid=212) [%s] LMCache INFO: Stored %d out of total %d tokens. size: 0.1221 gb, cost 4.1032 ms, throughput: 29.7574 GB/s; offload_time: 4.0811 ms, put_time: 0.0221 ms (cache_engine.py:288:lmcache.v1.cache_engine)" % (ts, r["p"], r["p"])]

    build({"id": "za-pd-lmcache-cpu-random-bench", "seed": 1, "version": "0.11.0", "served": m, "model_path": m,
           "max_model_len": 8192, "t0": t0, "interval": 10.0, "scrapes": 13, "requests": reqs, "finish": "length",
           "usage_fn": lambda t, run, wait: 0.0056 * len(run),
           "cache_config": cc(16, 11264, 0.8), "startup_logs": start, "logfmt": v1log(lineno=123), "req_log": rl,
           "endpoint": "http://127.0.0.1:7100",
           "notes": "prefiller of a 1P1D LMCache PD deployment (LMCacheConnectorV1 kv_producer, NIXL transfer, LMCache local_cpu: True) on an L20, during 'vllm bench serve --dataset-name random --random-input-len 1000 --random-output-len 200 --request-rate 3 --num-prompts 300' through the proxy; the operator turned local_cpu on and sees no TTFT change versus local_cpu: False; /metrics every 10 s for 2 min, NVML, server log",
           "argv": ["vllm", "serve", m, "--port", "7100", "--max-model-len", "8192", "--gpu-memory-utilization", "0.8",
                    "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer","kv_connector_extra_config":{"discard_partial_chunks":false,"lmcache_rpc_port":"producer1"}}'],
           "args": {"max-model-len": 8192, "gpu-memory-utilization": 0.8, "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer"}'},
           "model_config": LLAMA8,
           "gpu": [{"index": 0, "name": "NVIDIA L20", "memory_total": 51527024640, "memory_used": 42370000000,
                    "processes": [{"pid": 212, "name": "VLLM::EngineCore", "used_memory": 41820000000}]}]})


def tiny_pool():
    random.seed(1241)
    t0 = 1754380800.0
    # closed loop: 10 users, ~6,000-token prompts sharing a document per user; pool 18,144 tokens
    reqs = []
    users = [t0 - 120 + 1.3 * u for u in range(10)]
    server_free = [t0 - 120, t0 - 120]  # ~2 requests fit at once (2 x ~6.1k + growth < 18,144)
    rnd = 0
    while min(users) < t0 + 620:
        u = users.index(min(users))
        arr = users[u]
        slot = server_free.index(min(server_free))
        start = max(arr, server_free[slot])
        p = 6000 + random.randint(-200, 200)
        hit = random.choice([0, 0, 0, 256, 512])  # the tiny pool evicts the shared documents
        pre = (p - hit) / 2600.0 + random.uniform(0.2, 0.5)  # prefill + LMCache store/retrieve, pool contention
        tp = random.uniform(0.055, 0.07)
        out = 64
        pe = 1 if random.random() < 0.18 else 0
        if pe:
            pre += 1.5
        r = {"t": arr, "p": p, "hit": hit, "out": out, "q": start - arr, "pre": pre, "tpot": tp, "preempt": pe}
        reqs.append(r)
        end = start + pre + tp * (out - 1)
        server_free[slot] = end
        users[u] = end + random.uniform(0.5, 2.0)
        rnd += 1
    m = "Qwen/Qwen2.5-32B-Instruct-FP8"

    def usage(t, run, wait):
        return min(0.997, 0.71 + 0.135 * len(run)) if run else 0.0

    start = [
        "INFO 08-05 07:55:02 [__init__.py:244] Automatically detected platform cuda.",
        "INFO 08-05 07:55:05 [api_server.py:1287] vLLM API server version 0.9.0",
        "INFO 08-05 07:55:05 [cli_args.py:309] non-default args: {'model': '/data/models/Qwen/Qwen2.5-32B-Instruct-FP8', 'served_model_name': ['%s'], 'max_model_len': 18144, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}" % m,
        "INFO 08-05 07:55:13 [config.py:1460] Using max model len 18144",
        "INFO 08-05 07:55:13 [config.py:2188] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        "INFO 08-05 07:55:15 [core.py:455] Waiting for init message from front-end.",
        "INFO 08-05 07:55:15 [core.py:70] Initializing a V1 LLM engine (v0.9.0) with config: model='/data/models/Qwen/Qwen2.5-32B-Instruct-FP8', speculative_config=None, dtype=torch.bfloat16, max_seq_len=18144, tensor_parallel_size=2, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, served_model_name=%s, enable_prefix_caching=True, chunked_prefill_enabled=True" % m,
        "(VllmWorker rank=0 pid=241) [2025-08-05 07:55:31,204] LMCache INFO: Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 60.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None} (cache_engine.py:97:lmcache.v1.cache_engine)",
        "(VllmWorker rank=0 pid=241) INFO 08-05 07:56:20 [gpu_model_runner.py:1595] Model loading took 16.6104 GiB and 47.091313 seconds",
        "(VllmWorker rank=0 pid=241) INFO 08-05 07:56:35 [gpu_worker.py:227] Available KV cache memory: 2.21 GiB",
        "INFO 08-05 07:56:35 [kv_cache_utils.py:715] GPU KV cache size: 18,144 tokens",
        "INFO 08-05 07:56:35 [kv_cache_utils.py:719] Maximum concurrency for 18,144 tokens per request: 1.00x",
        "INFO 08-05 07:57:02 [core.py:171] init engine (profile, create kv cache, warmup model) took 41.52 seconds",
        "INFO 08-05 07:57:03 [api_server.py:1349] Starting vLLM API server on http://0.0.0.0:8000",
    ]

    def log0(t, ptp, gtp, run, wait, usage_, rate):
        return "INFO %s [loggers.py:116] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (hms(t), ptp, gtp, run, wait, usage_ * 100, rate)

    def rl(r):
        ts = "2025-08-05 %s,%03d" % (hms(r["t"] + r["q"])[6:], int(r["t"] * 1000) % 1000)
        hit = max(r["hit"], 256 * random.choice([0, 4, 8, 12]))
        out = ["(VllmWorker rank=0 pid=241) [%s] LMCache INFO: Reqid: %d, Total tokens %d, LMCache hit tokens: %d, need to load: %d (vllm_v1_adapter.py:745:lmcache.integration.vllm.vllm_v1_adapter)" % (ts, int(r["t"]) % 100000, r["p"], hit, max(hit - r["hit"], 0))]
        if r.get("preempt"):
            out.append("WARNING %s [scheduler.py:297] Sequence group chatcmpl-%08x is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory." % (hms(r["t"] + r["q"] + 1), int(r["t"] * 7) % 0xffffffff))
        return out

    build({"id": "za-lmcache-tiny-pool-32b-4090", "seed": 2, "version": "0.9.0", "served": m, "model_path": "/data/models/Qwen/Qwen2.5-32B-Instruct-FP8",
           "max_model_len": 18144, "t0": t0, "interval": 10.0, "scrapes": 61, "requests": reqs, "finish": "length",
           "usage_fn": usage, "cache_config": cc(16, 1134, 0.9), "startup_logs": start, "logfmt": log0, "req_log": rl,
           "endpoint": "http://127.0.0.1:8000",
           "notes": "vllm serve Qwen2.5-32B-Instruct-FP8, TP2 on 2x RTX 4090 24GB, with LMCache CPU offload (LMCacheConnectorV1, local_cpu 60 GB); 10 concurrent users of a document-QA benchmark; with LMCache TTFT is 27% higher than without it; /metrics every 10 s for 10 min, NVML, server log",
           "argv": ["vllm", "serve", "/data/models/Qwen/Qwen2.5-32B-Instruct-FP8", "--served-model-name", m, "--max-model-len", "18144",
                    "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}'],
           "args": {"max-model-len": 18144, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.9, "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}'},
           "model_config": QWEN32FP8,
           "gpu": [{"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": 25757220864, "memory_used": 23610000000,
                    "processes": [{"pid": 241 + i, "name": "python3", "used_memory": 23180000000}]} for i in (0, 1)]})


def tiny_prompts():
    t0 = 1768212000.0
    m = "Qwen/Qwen2.5-VL-7B-Instruct"
    reqs = [{"t": t0 + 12.0, "p": 23, "hit": 0, "out": 25, "q": 0.002, "pre": 0.041, "tpot": 0.021},
            {"t": t0 + 47.0, "p": 32, "hit": 16, "out": 25, "q": 0.002, "pre": 0.036, "tpot": 0.021},
            {"t": t0 + 83.0, "p": 41, "hit": 16, "out": 25, "q": 0.002, "pre": 0.038, "tpot": 0.021}]
    start = [
        "INFO 01-12 09:55:01 [__init__.py:216] Automatically detected platform rocm.",
        "(APIServer pid=1) INFO 01-12 09:55:04 [api_server.py:1772] vLLM API server version 0.13.0",
        "(APIServer pid=1) INFO 01-12 09:55:04 [utils.py:253] non-default args: {'model_tag': '%s', 'model': '%s', 'max_model_len': 16384}" % (m, m),
        "(APIServer pid=1) INFO 01-12 09:55:11 [model.py:637] Resolved architecture: Qwen2_5_VLForConditionalGeneration",
        "(APIServer pid=1) INFO 01-12 09:55:11 [scheduler.py:228] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        "(EngineCore_DP0 pid=140) INFO 01-12 09:55:19 [core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='%s', speculative_config=None, dtype=torch.bfloat16, max_seq_len=16384, tensor_parallel_size=1, enable_prefix_caching=True, chunked_prefill_enabled=True" % m,
        "(EngineCore_DP0 pid=140) INFO 01-12 09:56:02 [gpu_model_runner.py:3100] Model loading took 15.6231 GiB and 38.911204 seconds",
        "(EngineCore_DP0 pid=140) INFO 01-12 09:56:20 [gpu_worker.py:359] Available KV cache memory: 3.50 GiB",
        "(EngineCore_DP0 pid=140) INFO 01-12 09:56:20 [kv_cache_utils.py:1229] GPU KV cache size: 65,536 tokens",
        "(EngineCore_DP0 pid=140) INFO 01-12 09:56:20 [kv_cache_utils.py:1234] Maximum concurrency for 16,384 tokens per request: 4.00x",
        "(APIServer pid=1) INFO 01-12 09:57:01 [api_server.py:1520] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]

    def rl(r):
        return ['(APIServer pid=1) INFO:     127.0.0.1:51%03d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % (int(r["t"]) % 1000)]

    build({"id": "za-multiturn-tiny-prompts-hit-rate", "seed": 3, "version": "0.13.0", "served": m, "model_path": m,
           "max_model_len": 16384, "t0": t0, "interval": 10.0, "scrapes": 13, "requests": reqs, "finish": "stop", "mm": True,
           "usage_fn": lambda t, run, wait: 0.0005 * len(run),
           "cache_config": cc(16, 4096, 0.9), "startup_logs": start, "logfmt": v1log(mm=True), "req_log": rl,
           "endpoint": "http://127.0.0.1:8000",
           "notes": "vllm serve Qwen2.5-VL-7B-Instruct (ROCm build) on one Radeon gfx1100, speculative decoding off; three chat rounds resending the history of identical 'who are you?' user turns; the operator expected the hit rate to approach 100% and reads 29.1% then 33.3%; /metrics every 10 s, server log, the three requests' messages (prompts.jsonl); no NVML on this AMD host",
           "argv": ["vllm", "serve", m, "--max-model-len", "16384"], "args": {"max-model-len": 16384},
           "model_config": QWENVL7, "gpu": None})


def summary_zero():
    random.seed(1353)
    t0 = 1755284100.0
    m = "Qwen/Qwen2.5-7B-Instruct"
    reqs = []
    for i in range(10):
        t = t0 + 3 + 30.0 * i
        p = 3335 + random.randint(-4, 4) if i else 3335
        reqs.append({"t": t, "p": p, "hit": 0, "out": 300, "q": 0.003, "pre": 0.27, "tpot": 0.0135})
    start = [
        "INFO 08-15 18:40:01 [__init__.py:235] Automatically detected platform cuda.",
        "INFO 08-15 18:40:04 [api_server.py:1755] vLLM API server version 0.10.0",
        "INFO 08-15 18:40:04 [cli_args.py:261] non-default args: {'model_tag': '%s', 'model': '%s', 'max_model_len': 32768, 'max_num_batched_tokens': 2048, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}" % (m, m),
        "INFO 08-15 18:40:11 [config.py:1604] Using max model len 32768",
        "INFO 08-15 18:40:11 [config.py:2434] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        "INFO 08-15 18:40:17 [core.py:572] Waiting for init message from front-end.",
        "INFO 08-15 18:40:17 [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='%s', speculative_config=None, dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, enable_prefix_caching=True, chunked_prefill_enabled=True" % m,
        "[2025-08-15 18:40:22,530] LMCache INFO: Creating LMCacheEngine with config: {'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 20.0, 'local_disk': None, 'max_local_disk_size': 0.0, 'remote_url': None} (cache_engine.py:98:lmcache.v1.cache_engine)",
        "INFO 08-15 18:40:51 [gpu_model_runner.py:1892] Model loading took 14.2487 GiB and 27.102390 seconds",
        "INFO 08-15 18:41:04 [gpu_worker.py:255] Available KV cache memory: 54.75 GiB",
        "INFO 08-15 18:41:04 [kv_cache_utils.py:833] GPU KV cache size: 1,025,024 tokens",
        "INFO 08-15 18:41:04 [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 31.28x",
        "INFO 08-15 18:41:27 [core.py:193] init engine (profile, create kv cache, warmup model) took 35.81 seconds",
        "INFO 08-15 18:41:28 [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]

    def rl(r):
        ts = lambda dt: "2025-08-15 %s,%03d" % (hms(r["t"] + dt)[6:], int((r["t"] + dt) * 1000) % 1000)
        rid = "chatcmpl-%032x" % random.getrandbits(128)
        rest = r["p"] - 2048
        return ["INFO %s [chat_utils.py:419] Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this." % hms(r["t"]),
                "[%s] LMCache INFO: Reqid: %s, Total tokens %d, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:739:lmcache.integration.vllm.vllm_v1_adapter)" % (ts(0.01), rid, r["p"]),
                "[%s] LMCache INFO: Storing KV cache for 2048 out of 2048 tokens (skip_leading_tokens=0) for request %s (vllm_v1_adapter.py:663:lmcache.integration.vllm.vllm_v1_adapter)" % (ts(0.15), rid),
                "[%s] LMCache INFO: Stored 2048 out of total 2048 tokens. size: 0.1094 gb, cost 6.3357 ms, throughput: 17.2632 GB/s; offload_time: 6.2675 ms, put_time: 0.0682 ms (cache_engine.py:226:lmcache.v1.cache_engine)" % ts(0.16),
                "[%s] LMCache INFO: Storing KV cache for %d out of %d tokens (skip_leading_tokens=2048) for request %s (vllm_v1_adapter.py:663:lmcache.integration.vllm.vllm_v1_adapter)" % (ts(0.27), rest, r["p"], rid),
                "[%s] LMCache INFO: Stored %d out of total %d tokens. size: %.4f gb, cost 4.1120 ms, throughput: 16.7103 GB/s; offload_time: 4.0507 ms, put_time: 0.0613 ms (cache_engine.py:226:lmcache.v1.cache_engine)" % (ts(0.28), rest, r["p"], rest * 57344 / 1024 ** 3),
                'INFO:     10.0.3.17:4%04d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % random.randint(0, 9999)]

    build({"id": "za-lmcache-summary-zero-hit", "seed": 4, "version": "0.10.0", "served": m, "model_path": m,
           "max_model_len": 32768, "t0": t0, "interval": 10.0, "scrapes": 31, "requests": reqs, "finish": "stop",
           "usage_fn": lambda t, run, wait: 0.0034 * len(run),
           "cache_config": cc(16, 64064, 0.9), "startup_logs": start, "logfmt": v1log(pid="APIServer pid=1", lineno=123)
           if False else (lambda t, a, b, c, d, e, f: "INFO %s [loggers.py:122] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (hms(t), a, b, c, d, e * 100, f)),
           "req_log": rl, "endpoint": "http://127.0.0.1:8000",
           "notes": "vllm serve Qwen2.5-7B-Instruct with LMCache (LMCacheConnectorV1, local CPU 20 GB) on one A100 80GB; a summary job sends what the team calls the same content every 30 s, and every request is prefilled from scratch (LMCache hit tokens: 0); /metrics every 10 s for 5 min, NVML, server log; the job's rendered prompts were not kept",
           "argv": ["vllm", "serve", m, "--max-model-len", "32768", "--max-num-batched-tokens", "2048", "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'],
           "args": {"max-model-len": 32768, "max-num-batched-tokens": 2048, "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'},
           "model_config": QWEN7,
           "gpu": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": 78120000000,
                    "processes": [{"pid": 97, "name": "VLLM::EngineCore", "used_memory": 77540000000}]}]})


if __name__ == "__main__":
    pd_random(); tiny_pool(); tiny_prompts(); summary_zero()
