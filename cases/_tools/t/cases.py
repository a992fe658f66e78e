"""Builders of the t-* cases. Run: PYTHONPATH=<worktree> python cases/_tools/t/cases.py [case-id ...]
Deterministic (seeded RNGs, fixed epochs)."""
from __future__ import annotations

import json
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Engine, Req, epoch, lmtime, merge_expositions, vtime, write_bundle  # noqa: E402

GiB = 1024 ** 3
MiB = 1024 ** 2


def hexid(rng, n=32):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def closed_loop(rng, *, clients, t0, t1, pick, prefill_rate, itl, gap=(0.2, 1.5), queue=0.0):
    reqs, free = [], [t0 + rng.uniform(0, 3) for _ in range(clients)]
    i = 0
    while True:
        c = min(range(clients), key=lambda k: free[k])
        t = free[c]
        if t >= t1 - 5:
            break
        prompt, hit, gen, extra = pick(i)
        pf = 0.03 + (prompt - hit) / prefill_rate
        r = Req(rid=hexid(rng), t_arrive=t, prompt=prompt, gen=gen, queue_s=queue, prefill_s=pf, itl_s=itl(), hit=hit, **extra)
        reqs.append(r)
        free[c] = r.t_end + rng.uniform(*gap)
        i += 1
    return reqs


# ------------------------------------------------------------------ t-lmcache-disk-hashseed-tp2 (dev-7)
def t_lmcache_disk_hashseed_tp2():
    cid = "t-lmcache-disk-hashseed-tp2"
    rng = random.Random(1788)
    model = "/data2/DeepSeek-R1-Distill-Qwen-32B"
    t_boot = epoch(2025, 10, 14, 5, 58, 41)
    t0, t1 = epoch(2025, 10, 14, 6, 10, 0), epoch(2025, 10, 14, 6, 20, 0)
    docs = [rng.randint(3000, 11000) for _ in range(24)]
    order = []
    for rnd in range(20):
        ids = list(range(24)); rng.shuffle(ids); order += ids

    def pick(i):
        d = order[i]
        return docs[d] + 14, 0, rng.randint(128, 256), {"queried": False, "max_tokens": 256}

    reqs = closed_loop(rng, clients=4, t0=t0 - 200, t1=t1, pick=pick, prefill_rate=5200.0,
                       itl=lambda: rng.uniform(0.043, 0.05))
    probe = Req(rid=hexid(rng), t_arrive=epoch(2025, 10, 14, 6, 3, 6) - 0.2, prompt=26, gen=100, queue_s=0.0,
                prefill_s=0.05, itl_s=0.041, queried=False, max_tokens=100)
    reqs.append(probe)
    block = 16
    pool_blocks = 13864
    cfg = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
           "cpu_offload_gb": "0", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.78",
           "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
           "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
           "num_cpu_blocks": "None", "num_gpu_blocks": str(pool_blocks), "num_gpu_blocks_override": "None",
           "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    eng = Engine(ver="0110", model=model, reqs=reqs, pool_tokens=pool_blocks * block, block_size=block,
                 cache_cfg=cfg, t_created=t_boot + 118.4)

    A, E, W0, W1 = 2830, 3111, 3245, 3246
    P = lambda pid, name: f"({name} pid={pid}) "
    logs = [
        f"INFO {vtime(t_boot - 4)} [__init__.py:216] Automatically detected platform cuda.",
        P(A, "APIServer") + f"INFO {vtime(t_boot)} [api_server.py:1839] vLLM API server version 0.11.0",
        P(A, "APIServer") + f"INFO {vtime(t_boot)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'port': 9000, 'model': '{model}', 'trust_remote_code': True, 'max_model_len': 13000, 'enforce_eager': True, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.78, 'enable_prefix_caching': False, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', engine_id='4b6d0a55-2a35-4c54-8f0e-2c0f8e5b3a7d', kv_buffer_device='cuda', kv_buffer_size=1000000000.0, kv_role='kv_both', kv_rank=None, kv_parallel_size=1, kv_ip='127.0.0.1', kv_port=14579, kv_connector_extra_config={{}}, kv_connector_module_path=None, enable_permute_local_kv=False)}}",
        P(A, "APIServer") + f"INFO {vtime(t_boot + 6)} [model.py:547] Resolved architecture: Qwen2ForCausalLM",
        P(A, "APIServer") + f"INFO {vtime(t_boot + 6)} [model.py:1510] Using max model len 13000",
        P(A, "APIServer") + f"WARNING {vtime(t_boot + 6)} [cuda.py:103] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used",
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 14)} [core.py:644] Waiting for init message from front-end.",
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 14)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=13000, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={model}, enable_prefix_caching=False, chunked_prefill_enabled=True, pooler_config=None",
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 22)} [factory.py:51] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 4b6d0a55-2a35-4c54-8f0e-2c0f8e5b3a7d",
        P(E, "EngineCore_DP0") + f"WARNING {vtime(t_boot + 22)} [base.py:86] Initializing KVConnectorBase_V1. This API is experimental and subject to change in the future as we iterate the design.",
        P(E, "EngineCore_DP0") + f"[{lmtime(t_boot + 22.4)}] LMCache INFO: Loading LMCache config file /data2/jzh/p2p/lm1.yaml (utils.py:62:lmcache.integration.vllm.utils)",
        P(E, "EngineCore_DP0") + f"[{lmtime(t_boot + 22.5)}] LMCache INFO: Creating LMCacheEngine with config: {{'chunk_size': 256, 'local_cpu': True, 'max_local_cpu_size': 5.0, 'local_disk': '/data2/lmcace/gd-offload/cache/', 'max_local_disk_size': 150.0, 'remote_url': None, 'save_unfull_chunk': True, 'extra_config': {{'use_odirect': True}}, 'pre_caching_hash_algorithm': 'builtin'}} (cache_engine.py:92:lmcache.v1.cache_engine)",
    ]
    for w, rank in ((W0, 0), (W1, 1)):
        logs.append(P(E, "EngineCore_DP0") + P(w, f"VllmWorker TP{rank}") + f"INFO {vtime(t_boot + 70)} [gpu_model_runner.py:2602] Model loading took 30.5314 GiB and 41.873511 seconds")
    for w, rank in ((W0, 0), (W1, 1)):
        logs.append(P(E, "EngineCore_DP0") + P(w, f"VllmWorker TP{rank}") + f"INFO {vtime(t_boot + 96)} [gpu_worker.py:298] Available KV cache memory: 27.08 GiB")
    logs += [
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 97)} [kv_cache_utils.py:1087] GPU KV cache size: {pool_blocks * block:,} tokens",
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 97)} [kv_cache_utils.py:1091] Maximum concurrency for 13,000 tokens per request: 17.06x",
        P(E, "EngineCore_DP0") + f"INFO {vtime(t_boot + 117)} [core.py:210] init engine (profile, create kv cache, warmup model) took 46.31 seconds",
        P(A, "APIServer") + f"INFO {vtime(t_boot + 118)} [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool_blocks}",
        P(A, "APIServer") + f"INFO {vtime(t_boot + 119)} [api_server.py:1634] Supported_tasks: ['generate']",
        P(A, "APIServer") + f"INFO {vtime(t_boot + 119)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:9000",
        P(A, "APIServer") + "INFO:     Started server process [2830]",
        P(A, "APIServer") + "INFO:     Application startup complete.",
    ]
    ev = []
    for r in sorted(reqs, key=lambda r: r.t_arrive):
        rq = f"cmpl-{r.rid}-0"
        ev.append((r.t_sched + 0.01, P(E, "EngineCore_DP0") + f"[{lmtime(r.t_sched + 0.01)}] LMCache INFO: Reqid: {rq}, Total tokens {r.prompt}, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:1191:lmcache.integration.vllm.vllm_v1_adapter)"))
        ts = r.t_first + 0.02
        ev.append((ts, P(E, "EngineCore_DP0") + f"[{lmtime(ts)}] LMCache INFO: Storing KV cache for {r.prompt} out of {r.prompt} tokens (skip_leading_tokens=0) for request {rq} (vllm_v1_adapter.py:1066:lmcache.integration.vllm.vllm_v1_adapter)"))
        gb = r.prompt * 262144 / 2 / 1e9
        cost = 4.0 + r.prompt * 0.0021 + rng.uniform(0, 3)
        ev.append((ts + 0.011, P(E, "EngineCore_DP0") + f"[{lmtime(ts + 0.011)}] LMCache INFO: Stored {r.prompt} out of total {r.prompt} tokens. size: {gb:.4f} gb, cost {cost:.4f} ms, throughput: {gb / cost * 1000:.4f} GB/s; offload_time: {cost * 0.93:.4f} ms, put_time: {cost * 0.06:.4f} ms (cache_engine.py:288:lmcache.v1.cache_engine)"))
        ev.append((r.t_end + 0.01, P(A, "APIServer") + f"INFO:     10.121.129.6:{37650 + int(r.t_arrive) % 20000} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
    t = epoch(2025, 10, 14, 6, 3, 10)
    while t <= t1 + 5:
        if any(r.t_arrive <= t and r.t_end > t - 10 for r in reqs):
            ev.append((t, P(A, "APIServer") + f"INFO {vtime(t)} [loggers.py:123] " + eng.stats_line(t - 10, t)))
        t += 10
    ev.sort(key=lambda x: x[0])
    logs += [l for tt, l in ev if tt <= t1 + 5]

    used0 = int((30.5314 + 27.08 + 3.35) * GiB + 590 * MiB)
    gpu = []
    t = t0
    while t <= t1 + 1e-6:
        gpu.append({"t": t, "devices": [
            {"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920, "memory_used": used0 + i * 2 * MiB,
             "processes": [{"pid": (W0, W1)[i], "name": "/opt/venv/bin/python", "used_memory": used0 - 590 * MiB + i * 2 * MiB}]}
            for i in range(2)]})
        t += 10
    argv = ["/opt/venv/bin/python", "/opt/venv/bin/vllm", "serve", model, "--trust-remote-code", "--tensor-parallel-size", "2",
            "--host", "0.0.0.0", "--gpu-memory-utilization", "0.78", "--port", "9000", "--kv-transfer-config",
            '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}', "--max-model-len", "13000", "--enforce-eager",
            "--no-enable-prefix-caching"]
    args = {"model": model, "trust-remote-code": True, "tensor-parallel-size": 2, "host": "0.0.0.0",
            "gpu-memory-utilization": 0.78, "port": 9000,
            "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"},
            "max-model-len": 13000, "enforce-eager": True, "no-enable-prefix-caching": True}
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
          "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
          "max_position_embeddings": 131072, "max_window_layers": 64, "model_type": "qwen2", "num_attention_heads": 40,
          "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
          "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    server = {"version": {"version": "0.11.0"}, "models": {"object": "list", "data": [
        {"id": model, "object": "model", "created": int(t0), "owned_by": "vllm", "root": model, "parent": None,
         "max_model_len": 13000, "permission": []}]}, "health": 200}
    write_bundle(cid, engines=[eng], t0=t0, t1=t1, interval=10.0, endpoint="http://10.121.129.21:9000",
                 notes="vllm serve with LMCacheConnectorV1 (local_cpu + local_disk offload), TP2; test client resends the same documents; env LMCACHE_CONFIG_FILE=/data2/jzh/p2p/lm1.yaml LMCACHE_USE_EXPERIMENTAL=True CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO",
                 server=server, engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu, logs=logs)


BUILDERS = {"t-lmcache-disk-hashseed-tp2": t_lmcache_disk_hashseed_tp2}

if __name__ == "__main__":
    for cid in (sys.argv[1:] or list(BUILDERS)):
        BUILDERS[cid]()
        print("built", cid)
