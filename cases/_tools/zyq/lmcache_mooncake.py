"""zyq-lmcache-mooncake-retrieve-zero: vLLM 0.9.2 + LMCache 0.3.5 + mooncake store 0.3.5 (LMCache#1514).

Mooncake lookups succeed ('The cache block is in the storage') but every retrieval fails because the
installed mooncake-transfer-engine has no batch_get_buffer; vLLM's own prefix cache is the only tier
that serves tokens."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from v1gen import write_bundle, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyq-lmcache-mooncake-retrieve-zero"
MODEL = "Qwen/Qwen2.5-7B-Instruct"
T0 = 1756947600.0  # 2025-09-04 01:00:00 UTC
DUR, IV = 600.0, 10.0
BS, MML = 16, 32768
BPT = 2 * 28 * 4 * 128 * 2  # 57,344 bytes per token
GIB = 1024 ** 3
TOTAL = 97871 * 1024 ** 2
KV_GIB = 68.88
NB = int(KV_GIB * GIB // (BPT * BS))

rng = random.Random(1514)
reqs = []
for i in range(60):
    t = T0 + 10.0 + i * 6.5 + rng.uniform(-1.5, 1.5)
    while True:
        P = rng.randint(900, 3200)
        if P % 16:
            break
    for k, tt in enumerate((t, t + rng.uniform(30.0, 180.0))):
        out = rng.randint(80, 300)
        hit = 0 if k == 0 else (P // BS) * BS
        reqs.append({"t": tt, "engine": 0, "prompt": P, "hit": hit, "out": out, "max_tokens": 1024, "reason": "stop",
                     "prefill": round(0.03 + (P - hit) / 5300.0, 4), "tpot": round(rng.uniform(0.0105, 0.0118), 5),
                     "doc": i, "rep": k, "id": "chatcmpl-%032x" % rng.getrandbits(128)})
reqs.sort(key=lambda r: r["t"])
Q = sum(r["prompt"] for r in reqs)
H = sum(r["hit"] for r in reqs)
rep = [r for r in reqs if r["rep"] == 1]
need = sum(r["prompt"] - r["hit"] for r in rep)
if "--numbers" in sys.argv:
    print("requests", len(reqs), "last t", max(r["t"] for r in reqs) - T0, "queries", Q, "hits", H, "rate %.4f" % (H / Q),
          "repeats", len(rep), "need_to_load total", need, "max need", max(r["prompt"] - r["hit"] for r in rep),
          "NB", NB, "tokens", NB * BS, "conc %.2f" % (NB * BS / MML), "stored tokens", sum(r["prompt"] for r in reqs if r["rep"] == 0))
    sys.exit(0)

cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "num_cpu_blocks": "None", "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None",
                "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * GIB)}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "v09": True, "log_prefix": lambda e: "", "log_lineno": 118}


def lts(T):
    d = dt.datetime.fromtimestamp(T, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000)


def vts(T):
    return dt.datetime.fromtimestamp(T, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


AD = "(vllm_v1_adapter.py:%d:lmcache.integration.vllm.vllm_v1_adapter)"
CE = "(cache_engine.py:%d:lmcache.v1.cache_engine)"
extra = []
for r in reqs:
    t, P = r["t"], r["prompt"]
    extra.append((t, f"INFO {vts(t)} [async_llm.py:270] Added request {r['id']}."))
    if r["rep"] == 0:
        extra.append((t + 0.001, f"[{lts(t + 0.001)}] LMCache INFO : Reqid: {r['id']}, Total tokens {P}, LMCache hit tokens: 0, need to load: 0 " + AD % 1048))
        ts = r["t"] + r["prefill"] + 0.004
        size = P * BPT / GIB
        cost = 6.0 + P * 0.0041
        extra.append((ts, f"[{lts(ts)}] LMCache INFO : Storing KV cache for {P} out of {P} tokens (skip_leading_tokens=0) for request {r['id']} " + AD % 942))
        extra.append((ts + cost / 1000, f"[{lts(ts + cost / 1000)}] LMCache INFO : Stored {P} out of total {P} tokens. size: {size:.4f} gb, cost {cost:.4f} ms, throughput: {size / (cost / 1000):.4f} GB/s; offload_time: {cost * 0.31:.4f} ms, put_time: {cost * 0.69:.4f} ms " + CE % 252))
    else:
        local = r["hit"]
        need = P - local
        chunk = P - 256 * (local // 256)
        extra.append((t + 0.001, f"[{lts(t + 0.001)}] LMCache INFO : Reqid: {r['id']}, Total tokens {P}, LMCache hit tokens: {P}, need to load: {need} " + AD % 1048))
        tr = t + 0.012
        extra.append((tr, f"[{lts(tr)}] LMCache ERROR: batch_get_buffer failed: 'mooncake.store.MooncakeDistributedStore' object has no attribute 'batch_get_buffer' (mooncakestore_connector.py:360:lmcache.v1.storage_backend.connector.mooncakestore_connector)"))
        extra.append((tr + 0.0005, f"[{lts(tr + 0.0005)}] LMCache WARN : The cache block is in the storage, but it can't be retrieved " + CE % 1087))
        extra.append((tr + 0.0006, f"[{lts(tr + 0.0006)}] LMCache INFO : Retrieved 0 out of {chunk} out of total {P} tokens " + CE % 499))
        extra.append((tr + 0.0007, f"[{lts(tr + 0.0007)}] LMCache ERROR: The number of retrieved tokens is less than the expected number of tokens! This should not happen! " + AD % 751))
        extra.append((tr + 0.0008, f"[{lts(tr + 0.0008)}] LMCache ERROR: Num retrieved tokens: 0, num expected tokens: {need} " + AD % 755))
    te = r["t"] + r["prefill"] + (r["out"] - 1) * r["tpot"] + 0.002
    extra.append((te, f'INFO:     10.42.3.17:{40000 + reqs.index(r)} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))

head = [
    "INFO 09-04 00:57:02 [__init__.py:244] Automatically detected platform cuda.",
    "INFO 09-04 00:57:06 [api_server.py:1395] vLLM API server version 0.9.2",
    "INFO 09-04 00:57:06 [cli_args.py:325] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 32768, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}",
    "INFO 09-04 00:57:14 [config.py:841] This model supports multiple tasks: {'generate', 'embed', 'classify', 'reward'}. Defaulting to 'generate'.",
    "INFO 09-04 00:57:14 [config.py:2206] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    "INFO 09-04 00:57:20 [core.py:526] Waiting for init message from front-end.",
    "INFO 09-04 00:57:20 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='Qwen/Qwen2.5-7B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name=Qwen/Qwen2.5-7B-Instruct, enable_prefix_caching=True, chunked_prefill_enabled=True",
    "INFO 09-04 00:57:21 [factory.py:74] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 7d1c3f52-2b8e-4f1a-9c55-0e6f2d9a41b7",
    f"[{lts(T0 - 158.9)}] LMCache INFO : Loading LMCache config file /etc/lmcache/lmcache-mooncake.yaml (utils.py:57:lmcache.integration.vllm.utils)",
    f"[{lts(T0 - 158.8)}] LMCache INFO : LMCache Configuration: {{'chunk_size': 256, 'local_cpu': False, 'max_local_cpu_size': '0.0 GB', 'local_disk': None, 'remote_url': 'mooncakestore://mooncake-master:50051/', 'remote_serde': 'naive', 'save_unfull_chunk': True, 'extra_config': {{'local_hostname': '10.42.3.17', 'metadata_server': 'etcd://etcd:2379', 'protocol': 'rdma', 'device_name': 'mlx5_0', 'global_segment_size': 21474836480, 'local_buffer_size': 1073741824, 'master_server_address': 'mooncake-master:50051', 'transfer_timeout': 1}}}} (config.py:683:lmcache.v1.config)",
    "INFO 09-04 00:57:33 [gpu_model_runner.py:1801] Model loading took 14.25 GiB and 6.412375 seconds",
    "INFO 09-04 00:57:48 [gpu_worker.py:232] Available KV cache memory: 68.88 GiB",
    f"INFO 09-04 00:57:48 [kv_cache_utils.py:716] GPU KV cache size: {NB * BS:,} tokens",
    f"INFO 09-04 00:57:48 [kv_cache_utils.py:720] Maximum concurrency for 32,768 tokens per request: {NB * BS / MML:.2f}x",
    "INFO 09-04 00:58:10 [gpu_model_runner.py:2326] Graph capturing finished in 21 secs, took 0.52 GiB",
    "INFO 09-04 00:58:10 [core.py:172] init engine (profile, create kv cache, warmup model) took 36.71 seconds",
    "INFO 09-04 00:58:11 [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     Started server process [1]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
server = {"version": {"version": "0.9.2"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm", "root": MODEL,
                                                 "parent": None, "max_model_len": MML, "permission": []}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", MODEL, "--max-model-len", "32768", "--kv-transfer-config",
               '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'],
      "args": {"max-model-len": 32768, "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}}
mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
      "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
      "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
      "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
      "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
      "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}


def gpu(T):
    return [{"index": 0, "name": "NVIDIA H20", "memory_total": TOTAL, "memory_used": int(87.31 * GIB),
             "processes": [{"pid": 412, "name": "/usr/bin/python3", "used_memory": int(86.76 * GIB)}]}]


write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, gpu=gpu, logs_head=head, extra_logs=extra,
             notes="Single vLLM 0.9.2 server with LMCacheConnectorV1 -> mooncake store (lmcache 0.3.5, mooncake-transfer-engine 0.3.5). Store and engine started together before the window.")
check(CASE / "bundle")
